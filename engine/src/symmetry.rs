//! The dihedral group D4: the 8 symmetries of the square, shared by the square-board games.

/// One of the 8 symmetries of a square board, acting on (file, rank) coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum D4 {
    /// Leaves the board as it is.
    Identity,
    /// Quarter turn anticlockwise.
    Rotate90,
    /// Half turn.
    Rotate180,
    /// Quarter turn clockwise.
    Rotate270,
    /// Files reversed (a <-> h).
    MirrorFiles,
    /// Ranks reversed (1 <-> 8).
    MirrorRanks,
    /// Reflection in the a1-h8 diagonal (file <-> rank).
    Transpose,
    /// Reflection in the a8-h1 diagonal.
    AntiTranspose,
}

impl D4 {
    /// All 8 symmetries, identity first.
    pub const ALL: [D4; 8] = [
        D4::Identity,
        D4::Rotate90,
        D4::Rotate180,
        D4::Rotate270,
        D4::MirrorFiles,
        D4::MirrorRanks,
        D4::Transpose,
        D4::AntiTranspose,
    ];

    /// Maps a (file, rank) coordinate on an `n`×`n` board.
    pub const fn map(self, file: u32, rank: u32, n: u32) -> (u32, u32) {
        let last = n - 1;
        match self {
            D4::Identity => (file, rank),
            D4::Rotate90 => (last - rank, file),
            D4::Rotate180 => (last - file, last - rank),
            D4::Rotate270 => (rank, last - file),
            D4::MirrorFiles => (last - file, rank),
            D4::MirrorRanks => (file, last - rank),
            D4::Transpose => (rank, file),
            D4::AntiTranspose => (last - rank, last - file),
        }
    }

    /// The symmetry that undoes this one.
    pub const fn inverse(self) -> D4 {
        match self {
            D4::Rotate90 => D4::Rotate270,
            D4::Rotate270 => D4::Rotate90,
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::D4;

    #[test]
    fn inverse_undoes_every_symmetry() {
        for sym in D4::ALL {
            for file in 0..8 {
                for rank in 0..8 {
                    let (f, r) = sym.map(file, rank, 8);
                    assert_eq!(sym.inverse().map(f, r, 8), (file, rank), "{sym:?}");
                }
            }
        }
    }

    #[test]
    fn symmetries_are_distinct_permutations() {
        let images: Vec<Vec<(u32, u32)>> = D4::ALL
            .iter()
            .map(|s| (0..16).map(|i| s.map(i % 4, i / 4, 4)).collect())
            .collect();
        for (i, a) in images.iter().enumerate() {
            let mut sorted = a.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), 16, "not a permutation");
            for b in &images[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }
}
