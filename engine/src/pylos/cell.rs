//! The 30 cells of the pyramid, their constant tables and the mask arithmetic built on them.
//!
//! Cells are numbered densely, level by level, each level rank by rank from rank 1 and each rank
//! from file a: level 0 (4×4) is 0..16, level 1 (3×3) is 16..25, level 2 (2×2) is 25..29 and
//! the apex is 29. A set of cells is a `u32` mask with bit `i` for cell `i`.

use crate::D4;
use std::fmt;
use std::str::FromStr;

/// Number of cells of the pyramid.
pub const NUM_CELLS: usize = 30;
/// Every cell.
pub const ALL: u32 = (1 << NUM_CELLS) - 1;
/// The apex (level 3).
pub const APEX: u32 = 1 << 29;
/// First cell index of each level, and the end.
pub const LEVEL_START: [u8; 5] = [0, 16, 25, 29, 30];
/// The cells of each level.
pub const LEVEL_MASK: [u32; 4] = [0xFFFF, 0x1FF << 16, 0xF << 25, 1 << 29];
/// The cells of the levels strictly above each level.
pub const ABOVE_LEVEL: [u32; 4] = [ALL & !0xFFFF, ALL & !0x1FF_FFFF, APEX, 0];
/// A bit outside the board: a padding pattern containing it is never complete.
pub const NEVER: u32 = 1 << 31;

/// The cells of the 3×3 board ([`super::Board::Three`]): files a–c, ranks 1–3 of level 0,
/// a–b, 1–2 of level 1 and a1 of level 2, its apex.
pub const CELLS3: u32 = {
    let mut m = 0u32;
    let mut i = 0;
    while i < NUM_CELLS {
        let (level, file, rank) = coords_of(i);
        if level < 3 && file < 3 - level && rank < 3 - level {
            m |= 1 << i;
        }
        i += 1;
    }
    m
};
/// The apex of the 3×3 board (cell 2a1).
pub const APEX3: u32 = 1 << 25;

/// One cell of the pyramid.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Cell(u8);

const fn level_of(i: usize) -> usize {
    if i < 16 {
        0
    } else if i < 25 {
        1
    } else if i < 29 {
        2
    } else {
        3
    }
}

const fn index_of(level: usize, file: usize, rank: usize) -> usize {
    LEVEL_START[level] as usize + rank * (4 - level) + file
}

const fn coords_of(i: usize) -> (usize, usize, usize) {
    let level = level_of(i);
    let n = 4 - level;
    let off = i - LEVEL_START[level] as usize;
    (level, off % n, off / n)
}

/// `SUPPORTS[c]`: the four cells cell `c` rests on (empty for level 0).
pub const SUPPORTS: [u32; NUM_CELLS] = {
    let mut t = [0u32; NUM_CELLS];
    let mut i = 16;
    while i < NUM_CELLS {
        let (level, file, rank) = coords_of(i);
        t[i] = (1 << index_of(level - 1, file, rank))
            | (1 << index_of(level - 1, file + 1, rank))
            | (1 << index_of(level - 1, file, rank + 1))
            | (1 << index_of(level - 1, file + 1, rank + 1));
        i += 1;
    }
    t
};

/// `RESTING[c]`: the cells that rest on cell `c` (up to four; empty for the apex).
pub const RESTING: [u32; NUM_CELLS] = {
    let mut t = [0u32; NUM_CELLS];
    let mut upper = 16;
    while upper < NUM_CELLS {
        let mut c = 0;
        while c < NUM_CELLS {
            if SUPPORTS[upper] & (1 << c) != 0 {
                t[c] |= 1 << upper;
            }
            c += 1;
        }
        upper += 1;
    }
    t
};

/// The 14 squares (2×2 blocks on levels 0–2): exactly the support sets of the 14 upper cells.
pub const SQUARES: [u32; 14] = {
    let mut t = [0u32; 14];
    let mut i = 0;
    while i < 14 {
        t[i] = SUPPORTS[16 + i];
        i += 1;
    }
    t
};

/// The rows and columns of levels 0 and 1 of a pyramid whose base is `width` wide (`N` = 4 ×
/// `width` - 2 lines: `width` cells on level 0, `width` - 1 on level 1).
const fn lines_table<const N: usize>(width: usize) -> [u32; N] {
    let mut t = [0u32; N];
    let mut k = 0;
    let mut level = 0;
    while level < 2 {
        let n = width - level;
        let mut a = 0;
        while a < n {
            let mut row = 0u32;
            let mut col = 0u32;
            let mut b = 0;
            while b < n {
                row |= 1 << index_of(level, b, a);
                col |= 1 << index_of(level, a, b);
                b += 1;
            }
            t[k] = row;
            t[k + 1] = col;
            k += 2;
            a += 1;
        }
        level += 1;
    }
    t
}

/// The 14 lines of the `mature` rules: rows and columns of level 0 (4 cells) and of level 1
/// (3 cells).
pub const LINES: [u32; 14] = lines_table(4);

/// The 5 squares of the 3×3 board (levels 0 and 1): the support sets of its 5 upper cells.
pub const SQUARES3: [u32; 5] = [
    SUPPORTS[16],
    SUPPORTS[17],
    SUPPORTS[19],
    SUPPORTS[20],
    SUPPORTS[25],
];

/// The 10 lines of the `mature` rules on the 3×3 board: rows and columns of level 0 (3 cells)
/// and of level 1 (2 cells).
pub const LINES3: [u32; 10] = lines_table(3);

/// Squares and lines of the 3×3 board together (its `mature` patterns).
pub const SQUARES_AND_LINES3: [u32; 15] = {
    let mut t = [0u32; 15];
    let mut i = 0;
    while i < 5 {
        t[i] = SQUARES3[i];
        i += 1;
    }
    while i < 15 {
        t[i] = LINES3[i - 5];
        i += 1;
    }
    t
};

/// Squares and lines together (the `mature` patterns).
pub const SQUARES_AND_LINES: [u32; 28] = {
    let mut t = [0u32; 28];
    let mut i = 0;
    while i < 14 {
        t[i] = SQUARES[i];
        t[14 + i] = LINES[i];
        i += 1;
    }
    t
};

/// `SQUARES_AT[c]`: the squares through cell `c`, padded with [`NEVER`].
pub const SQUARES_AT: [[u32; 4]; NUM_CELLS] = {
    let mut t = [[NEVER; 4]; NUM_CELLS];
    let mut c = 0;
    while c < NUM_CELLS {
        let mut k = 0;
        let mut s = 0;
        while s < 14 {
            if SQUARES[s] & (1 << c) != 0 {
                t[c][k] = SQUARES[s];
                k += 1;
            }
            s += 1;
        }
        c += 1;
    }
    t
};

/// `LINES_AT[c]`: the lines through cell `c`, padded with [`NEVER`].
pub const LINES_AT: [[u32; 2]; NUM_CELLS] = {
    let mut t = [[NEVER; 2]; NUM_CELLS];
    let mut c = 0;
    while c < NUM_CELLS {
        let mut k = 0;
        let mut s = 0;
        while s < 14 {
            if LINES[s] & (1 << c) != 0 {
                t[c][k] = LINES[s];
                k += 1;
            }
            s += 1;
        }
        c += 1;
    }
    t
};

/// The images of the cells under the 8 symmetries of a pyramid with a base `width` wide; the
/// cells outside it map to themselves.
const fn symmetry_table(width: usize) -> [[u8; NUM_CELLS]; 8] {
    let mut t = [[0u8; NUM_CELLS]; 8];
    let mut s = 0;
    while s < 8 {
        let mut c = 0;
        while c < NUM_CELLS {
            let (level, file, rank) = coords_of(c);
            t[s][c] = c as u8;
            if level < width && file < width - level && rank < width - level {
                let n = (width - level) as u32;
                let (f, r) = D4::ALL[s].map(file as u32, rank as u32, n);
                t[s][c] = index_of(level, f as usize, r as usize) as u8;
            }
            c += 1;
        }
        s += 1;
    }
    t
}

/// `SYMMETRY[s][c]`: the image of cell `c` under `D4::ALL[s]`.
pub const SYMMETRY: [[u8; NUM_CELLS]; 8] = symmetry_table(4);

/// `SYMMETRY3[s][c]`: the image of cell `c` of the 3×3 board under `D4::ALL[s]` (about that
/// board's centre; the other cells map to themselves).
pub const SYMMETRY3: [[u8; NUM_CELLS]; 8] = symmetry_table(3);

/// A permutation of the cells applied to a whole mask by bytes: entry `[k][b]` is the image of
/// the cells `8k..8k + 8` that byte `b` selects, so a mask maps in four lookups and three ORs
/// whatever its number of balls ([`transform_mask_with`] loops once per ball). It is the hot
/// spot of a tablebase build: canonicalising every child of every position took 80% of a
/// full-board build's children phase under the per-ball loop (`perf`, standard rules).
#[derive(Clone, Debug)]
pub struct MaskMap([[u32; 256]; 4]);

impl MaskMap {
    /// The byte tables of the permutation `table` (cell `c` goes to `table[c]`).
    pub const fn new(table: &[u8; NUM_CELLS]) -> MaskMap {
        let mut t = [[0u32; 256]; 4];
        let mut k = 0;
        while k < 4 {
            let mut b = 0;
            while b < 256 {
                let mut image = 0u32;
                let mut bit = 0;
                while bit < 8 {
                    let c = 8 * k + bit;
                    if b & (1 << bit) != 0 && c < NUM_CELLS {
                        image |= 1 << table[c];
                    }
                    bit += 1;
                }
                t[k][b] = image;
                b += 1;
            }
            k += 1;
        }
        MaskMap(t)
    }

    /// The image of `mask` (cells beyond [`NUM_CELLS`] are dropped).
    #[inline(always)]
    pub fn apply(&self, mask: u32) -> u32 {
        let [b0, b1, b2, b3] = mask.to_le_bytes();
        self.0[0][b0 as usize]
            | self.0[1][b1 as usize]
            | self.0[2][b2 as usize]
            | self.0[3][b3 as usize]
    }
}

const fn mask_maps(tables: &[[u8; NUM_CELLS]; 8]) -> [MaskMap; 8] {
    let mut maps = [const { MaskMap([[0; 256]; 4]) }; 8];
    let mut s = 0;
    while s < 8 {
        maps[s] = MaskMap::new(&tables[s]);
        s += 1;
    }
    maps
}

/// [`SYMMETRY`] as byte tables.
pub static SYMMETRY_MAPS: [MaskMap; 8] = mask_maps(&SYMMETRY);

/// [`SYMMETRY3`] as byte tables.
pub static SYMMETRY3_MAPS: [MaskMap; 8] = mask_maps(&SYMMETRY3);

/// Maps a set of cells through a symmetry of the full board.
pub fn transform_mask(mask: u32, sym: D4) -> u32 {
    transform_mask_with(&SYMMETRY[sym as usize], mask)
}

/// Maps a set of cells through one row of a symmetry table ([`SYMMETRY`], [`SYMMETRY3`]).
#[inline]
pub fn transform_mask_with(table: &[u8; NUM_CELLS], mask: u32) -> u32 {
    let mut out = 0;
    let mut m = mask;
    while m != 0 {
        let c = m.trailing_zeros() as usize;
        m &= m - 1;
        out |= 1 << table[c];
    }
    out
}

/// The cells that can hold a ball on this occupancy: every level-0 cell and every upper cell
/// whose four supports are filled (occupied or not).
#[inline]
pub const fn supported(occ: u32) -> u32 {
    let o0 = occ & 0xFFFF;
    // Bit (f, r) of a 4-wide grid: the 2×2 block with lower-left corner (f, r) is full.
    let b0 = o0 & (o0 >> 1) & (o0 >> 4) & (o0 >> 5);
    let l1 = (b0 & 7) | ((b0 >> 4) & 7) << 3 | ((b0 >> 8) & 7) << 6;
    let o1 = (occ >> 16) & 0x1FF;
    let b1 = o1 & (o1 >> 1) & (o1 >> 3) & (o1 >> 4);
    let l2 = (b1 & 3) | ((b1 >> 3) & 3) << 2;
    let l3 = ((occ >> 25) & 0xF == 0xF) as u32;
    0xFFFF | l1 << 16 | l2 << 25 | l3 << 29
}

/// The occupied-or-not cells on which at least one ball of `occ` rests (the balls there are not
/// free).
#[inline]
pub const fn covered(occ: u32) -> u32 {
    let o1 = (occ >> 16) & 0x1FF;
    let e1 = (o1 & 7) | ((o1 >> 3) & 7) << 4 | ((o1 >> 6) & 7) << 8;
    let c0 = e1 | e1 << 1 | e1 << 4 | e1 << 5;
    let o2 = (occ >> 25) & 0xF;
    let e2 = (o2 & 3) | ((o2 >> 2) & 3) << 3;
    let c1 = e2 | e2 << 1 | e2 << 3 | e2 << 4;
    let c2 = if occ & APEX != 0 { 0xF } else { 0 };
    c0 | c1 << 16 | c2 << 25
}

impl Cell {
    /// The apex.
    pub const APEX: Cell = Cell(29);
    /// The apex of the 3×3 board (`2a1`).
    pub const APEX3: Cell = Cell(25);

    /// The cell at `level` (0–3), `file` and `rank` (0-based, each below `4 - level`).
    pub const fn new(level: u8, file: u8, rank: u8) -> Option<Cell> {
        if level > 3 || file >= 4 - level || rank >= 4 - level {
            return None;
        }
        Some(Cell(
            index_of(level as usize, file as usize, rank as usize) as u8
        ))
    }

    /// The cell with this index (0..30).
    pub const fn from_index(index: usize) -> Option<Cell> {
        if index < NUM_CELLS {
            Some(Cell(index as u8))
        } else {
            None
        }
    }

    /// Iterates the cells of a mask, lowest index first.
    pub fn iter_mask(mask: u32) -> impl Iterator<Item = Cell> {
        let mut m = mask & ALL;
        std::iter::from_fn(move || {
            if m == 0 {
                None
            } else {
                let c = m.trailing_zeros();
                m &= m - 1;
                Some(Cell(c as u8))
            }
        })
    }

    /// Every cell, level 0 first.
    pub fn all() -> impl Iterator<Item = Cell> {
        (0..NUM_CELLS as u8).map(Cell)
    }

    /// Dense index (0..30).
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// This cell as a one-bit mask.
    pub const fn bit(self) -> u32 {
        1 << self.0
    }

    /// Level, 0 (the board) to 3 (the apex).
    pub const fn level(self) -> u8 {
        coords_of(self.0 as usize).0 as u8
    }

    /// File, 0-based (0 = a).
    pub const fn file(self) -> u8 {
        coords_of(self.0 as usize).1 as u8
    }

    /// Rank, 0-based (0 = rank 1).
    pub const fn rank(self) -> u8 {
        coords_of(self.0 as usize).2 as u8
    }

    /// The four cells this cell rests on (empty for level 0).
    pub const fn supports(self) -> u32 {
        SUPPORTS[self.0 as usize]
    }

    /// The cells resting on this one.
    pub const fn resting(self) -> u32 {
        RESTING[self.0 as usize]
    }

    /// The image of this cell under a symmetry.
    pub const fn transformed(self, sym: D4) -> Cell {
        Cell(SYMMETRY[sym as usize][self.0 as usize])
    }
}

/// Notation: level digit, file letter, rank digit (`0a1`, `1b2`, `3a1` is the apex).
impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}{}",
            self.level(),
            (b'a' + self.file()) as char,
            self.rank() + 1
        )
    }
}

/// A cell name that is not `<level><file><rank>` on the pyramid.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseCellError {
    /// Not three characters long.
    Length { text: String },
    /// Three characters that name no cell: level, file or rank off the pyramid.
    OffPyramid { text: String },
}

impl ParseCellError {
    /// The text that is not a cell.
    pub fn text(&self) -> &str {
        match self {
            ParseCellError::Length { text } | ParseCellError::OffPyramid { text } => text,
        }
    }
}

impl fmt::Display for ParseCellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad cell '{}' (expected level digit, file letter, rank digit, e.g. 0a1 or 1b2)",
            self.text()
        )
    }
}

impl std::error::Error for ParseCellError {}

impl FromStr for Cell {
    type Err = ParseCellError;

    fn from_str(s: &str) -> Result<Cell, ParseCellError> {
        let b = s.as_bytes();
        if b.len() != 3 {
            return Err(ParseCellError::Length {
                text: s.to_string(),
            });
        }
        let level = b[0].wrapping_sub(b'0');
        let file = b[1].to_ascii_lowercase().wrapping_sub(b'a');
        let rank = b[2].wrapping_sub(b'1');
        Cell::new(level, file, rank).ok_or_else(|| ParseCellError::OffPyramid {
            text: s.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_tables_map_masks_as_the_cell_tables_do() {
        // Every single cell, then pseudo-random masks of all sizes, on both boards.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for (tables, maps) in [(&SYMMETRY, &SYMMETRY_MAPS), (&SYMMETRY3, &SYMMETRY3_MAPS)] {
            for (table, map) in tables.iter().zip(maps.iter()) {
                for (c, &image) in table.iter().enumerate() {
                    assert_eq!(map.apply(1 << c), 1 << image);
                }
                for _ in 0..10_000 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let mask = (x as u32) & ((1 << NUM_CELLS) - 1) & (x >> 32) as u32;
                    assert_eq!(map.apply(mask), transform_mask_with(table, mask));
                }
            }
        }
    }

    #[test]
    fn cell_errors_say_why_and_keep_the_message() {
        assert_eq!("1b2".parse::<Cell>(), Ok(Cell::new(1, 1, 1).unwrap()));
        let e = "0a".parse::<Cell>().unwrap_err();
        assert_eq!(e, ParseCellError::Length { text: "0a".into() });
        let e = "3b2".parse::<Cell>().unwrap_err();
        assert_eq!(e, ParseCellError::OffPyramid { text: "3b2".into() });
        assert_eq!(e.text(), "3b2");
        assert_eq!(
            e.to_string(),
            "bad cell '3b2' (expected level digit, file letter, rank digit, e.g. 0a1 or 1b2)"
        );
    }

    fn supported_naive(occ: u32) -> u32 {
        Cell::all()
            .filter(|c| c.supports() & !occ == 0)
            .fold(0, |m, c| m | c.bit())
    }

    fn covered_naive(occ: u32) -> u32 {
        Cell::all()
            .filter(|c| c.resting() & occ != 0)
            .fold(0, |m, c| m | c.bit())
    }

    #[test]
    fn tables_have_the_expected_sizes() {
        for c in Cell::all() {
            let expected_supports = if c.level() == 0 { 0 } else { 4 };
            assert_eq!(c.supports().count_ones(), expected_supports, "{c}");
            // Each support is one level down.
            for s in Cell::iter_mask(c.supports()) {
                assert_eq!(s.level() + 1, c.level());
                assert!(s.resting() & c.bit() != 0);
            }
        }
        assert_eq!(Cell::APEX.supports(), LEVEL_MASK[2]);
        assert_eq!(Cell::new(0, 0, 0).unwrap().resting().count_ones(), 1);
        assert_eq!(Cell::new(0, 1, 1).unwrap().resting().count_ones(), 4);
        assert_eq!(Cell::new(1, 1, 1).unwrap().resting(), LEVEL_MASK[2]);
        let squares_per_cell: u32 = (0..NUM_CELLS)
            .map(|c| SQUARES_AT[c].iter().filter(|&&p| p != NEVER).count() as u32)
            .sum();
        assert_eq!(squares_per_cell, 14 * 4);
        let lines_per_cell: u32 = (0..NUM_CELLS)
            .map(|c| LINES_AT[c].iter().filter(|&&p| p != NEVER).count() as u32)
            .sum();
        assert_eq!(lines_per_cell, 8 * 4 + 6 * 3);
        assert_eq!(
            LINES.iter().fold(0, |m, l| m | l),
            LEVEL_MASK[0] | LEVEL_MASK[1]
        );
    }

    #[test]
    fn mask_arithmetic_matches_the_tables() {
        // Every subset of each level with random upper levels: check by brute force.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let occ = (x as u32) & ALL;
            assert_eq!(supported(occ), supported_naive(occ), "{occ:#x}");
            assert_eq!(covered(occ), covered_naive(occ), "{occ:#x}");
        }
    }

    #[test]
    fn names_round_trip() {
        for c in Cell::all() {
            assert_eq!(c.to_string().parse::<Cell>(), Ok(c));
        }
        assert_eq!(Cell::APEX.to_string(), "3a1");
        assert_eq!("1b2".parse::<Cell>().unwrap(), Cell::new(1, 1, 1).unwrap());
        for bad in ["", "0a5", "1d1", "4a1", "0a", "0a11", "xa1", "3b1"] {
            assert!(bad.parse::<Cell>().is_err(), "{bad}");
        }
    }

    #[test]
    fn symmetries_permute_each_level() {
        for sym in D4::ALL {
            for mask in LEVEL_MASK {
                assert_eq!(transform_mask(mask, sym), mask);
            }
            for c in Cell::all() {
                // Supports map to supports.
                assert_eq!(
                    transform_mask(c.supports(), sym),
                    c.transformed(sym).supports()
                );
                assert_eq!(c.transformed(sym).transformed(sym.inverse()), c);
            }
        }
    }
}
