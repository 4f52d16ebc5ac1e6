//! The 8×8 hole grid and the 4×4 tray of tile slots, with the `const` masks that tie them.
//!
//! Bit `rank * 8 + file` of a `u64` is hole (file, rank), a1 = bit 0, h8 = bit 63.
//! Bit `rank * 4 + file` of a `u16` is slot (file, rank), A1 = bit 0, D4 = bit 15.

use std::fmt;

/// A hole of the 8×8 grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The hole at `file` (0 = a) and `rank` (0 = rank 1); both below 8.
    pub const fn new(file: u32, rank: u32) -> Square {
        debug_assert!(file < 8 && rank < 8);
        Square((rank * 8 + file) as u8)
    }

    /// The hole with bit index `index` (below 64).
    pub const fn from_index(index: u32) -> Square {
        debug_assert!(index < 64);
        Square(index as u8)
    }

    pub const fn index(self) -> u32 {
        self.0 as u32
    }

    pub const fn file(self) -> u32 {
        self.0 as u32 % 8
    }

    pub const fn rank(self) -> u32 {
        self.0 as u32 / 8
    }

    /// The single-bit mask of this hole.
    pub const fn bit(self) -> u64 {
        1 << self.0
    }

    /// The slot whose tile carries this hole.
    pub const fn slot(self) -> Slot {
        Slot::new(self.file() / 2, self.rank() / 2)
    }

    /// Parses `a1`..`h8` (lowercase).
    pub fn parse(text: &str) -> Option<Square> {
        match text.as_bytes() {
            &[f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
                Some(Square::new(u32::from(f - b'a'), u32::from(r - b'1')))
            }
            _ => None,
        }
    }

    /// The hole `steps` away in `dir`, if it is on the grid.
    pub const fn offset(self, dir: Direction, steps: u32) -> Option<Square> {
        let (df, dr) = dir.delta();
        let f = self.file() as i32 + df * steps as i32;
        let r = self.rank() as i32 + dr * steps as i32;
        if f >= 0 && f < 8 && r >= 0 && r < 8 {
            Some(Square::new(f as u32, r as u32))
        } else {
            None
        }
    }

    /// Iterates over the holes of a mask, lowest bit first.
    pub fn iter(mut mask: u64) -> impl Iterator<Item = Square> {
        std::iter::from_fn(move || {
            if mask == 0 {
                return None;
            }
            let sq = Square(mask.trailing_zeros() as u8);
            mask &= mask - 1;
            Some(sq)
        })
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file() as u8) as char,
            self.rank() + 1
        )
    }
}

/// A slot of the 4×4 tray that may hold a tile of 2×2 holes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot(u8);

impl Slot {
    /// The slot at `file` (0 = A) and `rank` (0 = rank 1); both below 4.
    pub const fn new(file: u32, rank: u32) -> Slot {
        debug_assert!(file < 4 && rank < 4);
        Slot((rank * 4 + file) as u8)
    }

    pub const fn from_index(index: u32) -> Slot {
        debug_assert!(index < 16);
        Slot(index as u8)
    }

    pub const fn index(self) -> u32 {
        self.0 as u32
    }

    pub const fn file(self) -> u32 {
        self.0 as u32 % 4
    }

    pub const fn rank(self) -> u32 {
        self.0 as u32 / 4
    }

    pub const fn bit(self) -> u16 {
        1 << self.0
    }

    /// The four holes of the tile in this slot.
    pub const fn holes(self) -> u64 {
        SLOT_HOLES[self.0 as usize]
    }

    /// Parses `A1`..`D4` (uppercase).
    pub fn parse(text: &str) -> Option<Slot> {
        match text.as_bytes() {
            &[f @ b'A'..=b'D', r @ b'1'..=b'4'] => {
                Some(Slot::new(u32::from(f - b'A'), u32::from(r - b'1')))
            }
            _ => None,
        }
    }

    /// Iterates over the slots of a mask, lowest bit first.
    pub fn iter(mut mask: u16) -> impl Iterator<Item = Slot> {
        std::iter::from_fn(move || {
            if mask == 0 {
                return None;
            }
            let slot = Slot(mask.trailing_zeros() as u8);
            mask &= mask - 1;
            Some(slot)
        })
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'A' + self.file() as u8) as char,
            self.rank() + 1
        )
    }
}

/// One of the four orthogonal directions of jumps and slides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards file h.
    East,
    /// Towards file a.
    West,
    /// Towards rank 8.
    North,
    /// Towards rank 1.
    South,
}

impl Direction {
    pub const ALL: [Direction; 4] = [
        Direction::East,
        Direction::West,
        Direction::North,
        Direction::South,
    ];

    /// (file, rank) step.
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Direction::East => (1, 0),
            Direction::West => (-1, 0),
            Direction::North => (0, 1),
            Direction::South => (0, -1),
        }
    }

    /// A two-bit code, used to pack chains.
    pub const fn code(self) -> u32 {
        self as u32
    }

    pub const fn from_code(code: u32) -> Direction {
        Direction::ALL[(code & 3) as usize]
    }
}

/// Holes of files a–f: jump sources towards the east stay on the board.
pub const FILES_A_TO_F: u64 = 0x3f3f_3f3f_3f3f_3f3f;
/// Holes of files c–h: jump sources towards the west stay on the board.
pub const FILES_C_TO_H: u64 = 0xfcfc_fcfc_fcfc_fcfc;

/// The four holes of each slot, built at compile time.
pub const SLOT_HOLES: [u64; 16] = {
    let mut table = [0u64; 16];
    let mut slot = 0;
    while slot < 16 {
        let (file, rank) = (slot % 4, slot / 4);
        table[slot] = 0x0303 << (2 * file + 16 * rank);
        slot += 1;
    }
    table
};

/// The holes carried by a set of tiles.
pub const fn holes_of(tiles: u16) -> u64 {
    let mut holes = 0;
    let mut rest = tiles;
    while rest != 0 {
        holes |= SLOT_HOLES[rest.trailing_zeros() as usize];
        rest &= rest - 1;
    }
    holes
}

/// The tiles whose holes make up `holes` (which must be whole tiles): the lower-left hole of
/// each slot, gathered into slot order by shifts.
pub const fn tiles_of(holes: u64) -> u16 {
    // Bit 2f + 16r (lower-left hole of slot (f, r)) → bit f of byte 2r.
    let mut x = holes & 0x0055_0055_0055_0055;
    x = (x | x >> 1) & 0x0033_0033_0033_0033;
    x = (x | x >> 2) & 0x000f_000f_000f_000f;
    // Byte 2r → nibble r.
    (x & 0xf | (x >> 12) & 0xf0 | (x >> 24) & 0xf00 | (x >> 36) & 0xf000) as u16
}

/// The slots of the tiles that carry any of `holes` (holes of tiles present or not).
pub const fn slots_touching(holes: u64) -> u16 {
    // Fold each 2×2 block onto its lower-left hole, then gather as for whole tiles.
    let pairs = holes | holes >> 1;
    tiles_of(pairs | pairs >> 8)
}

/// For each hole and direction: the bits of the jumped-over hole and of the landing hole,
/// both 0 where the jump would leave the grid.
pub const JUMP_STEPS: [[(u64, u64); 4]; 64] = {
    let mut table = [[(0u64, 0u64); 4]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 4 {
            let dir = Direction::ALL[d];
            let from = Square::from_index(sq);
            if let (Some(over), Some(land)) = (from.offset(dir, 1), from.offset(dir, 2)) {
                table[sq as usize][d] = (over.bit(), land.bit());
            }
            d += 1;
        }
        sq += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_holes_partition_the_grid() {
        let mut all = 0u64;
        for (slot, &mask) in SLOT_HOLES.iter().enumerate() {
            assert_eq!(mask.count_ones(), 4);
            assert_eq!(all & mask, 0);
            all |= mask;
            for sq in Square::iter(mask) {
                assert_eq!(sq.slot().index() as usize, slot);
            }
        }
        assert_eq!(all, u64::MAX);
        assert_eq!(Slot::parse("A1").unwrap().holes(), 0x0303);
    }

    #[test]
    fn names_round_trip() {
        for i in 0..64 {
            let sq = Square::from_index(i);
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
        }
        for i in 0..16 {
            let slot = Slot::from_index(i);
            assert_eq!(Slot::parse(&slot.to_string()), Some(slot));
            assert_eq!(tiles_of(holes_of(slot.bit())), slot.bit());
        }
        for tiles in [0u16, 0xffff, 0x6ff6, 0x1234, 0x8001] {
            assert_eq!(tiles_of(holes_of(tiles)), tiles);
        }
        assert_eq!(Square::parse("i1"), None);
        assert_eq!(Slot::parse("E1"), None);
    }
}
