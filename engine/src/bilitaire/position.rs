//! A validated Bi-litaire position: balls and tiles as bitboards, whose turn it is, the rules.

use super::geometry::{holes_of, tiles_of, Slot, Square};
use crate::symmetry::D4;

/// Whose turn it is, and under what obligation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The ball player's opening: remove one ball from the full board.
    OpeningRemoval,
    /// The slider: slide tiles or remove an empty tile, with an announcement or none.
    Slider,
    /// The ball player: with 0 one simple jump, with N ≥ 2 a chain of exactly N jumps.
    Ball(u8),
}

impl Side {
    /// A small code for keys: 0 opening, 1 slider, 2 + N for the ball player.
    pub const fn code(self) -> u8 {
        match self {
            Side::OpeningRemoval => 0,
            Side::Slider => 1,
            Side::Ball(n) => 2 + n,
        }
    }
}

/// Rules options where the sources differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rules {
    /// `free-chains`: without an announcement the ball player may go on jumping with the same
    /// ball as long as he likes (every chain of length ≥ 1 is a move). Off by default.
    pub free_chains: bool,
}

/// A legal Bi-litaire position. Build one by parsing ([`Position::parse`]) or from
/// [`Position::start`]; the fields keep the invariants (balls only in holes, holes whole tiles).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(super) balls: u64,
    /// The holes of the tiles present; cached because every jump test needs the empty holes.
    pub(super) holes: u64,
    pub(super) tiles: u16,
    pub(super) side: Side,
    pub(super) rules: Rules,
}

/// Slots of the starting cross: every slot but the four corners.
pub const START_TILES: u16 = !(1 | 1 << 3 | 1 << 12 | 1 << 15);

impl Position {
    /// The starting position: 12 tiles in a cross, 48 balls, the ball player to remove one.
    pub fn start() -> Position {
        Position::start_with(Rules::default())
    }

    pub fn start_with(rules: Rules) -> Position {
        let holes = holes_of(START_TILES);
        Position {
            balls: holes,
            holes,
            tiles: START_TILES,
            side: Side::OpeningRemoval,
            rules,
        }
    }

    /// Builds a position from raw parts: `None` if balls lie outside the tiles' holes, there are
    /// more than 12 tiles, or an announcement has no chain of its length.
    pub fn from_parts(balls: u64, tiles: u16, side: Side, rules: Rules) -> Option<Position> {
        let holes = holes_of(tiles);
        let announced = match side {
            Side::Ball(n) if n >= 2 => u32::from(n),
            _ => 0,
        };
        let valid = balls & !holes == 0
            && tiles.count_ones() <= 12
            && (announced == 0 || super::movegen::longest_chain(balls, holes) >= announced);
        valid.then_some(Position {
            balls,
            holes,
            tiles,
            side,
            rules,
        })
    }

    /// The balls, one bit per hole.
    pub fn balls(&self) -> u64 {
        self.balls
    }

    /// The holes of the tiles present.
    pub fn holes(&self) -> u64 {
        self.holes
    }

    /// Empty holes.
    pub fn empty(&self) -> u64 {
        self.holes & !self.balls
    }

    /// The occupied slots.
    pub fn tiles(&self) -> u16 {
        self.tiles
    }

    pub fn side(&self) -> Side {
        self.side
    }

    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The number of balls on the board: the score if the round ended now.
    pub fn ball_count(&self) -> u32 {
        self.balls.count_ones()
    }

    pub fn has_ball(&self, sq: Square) -> bool {
        self.balls & sq.bit() != 0
    }

    pub fn has_hole(&self, sq: Square) -> bool {
        self.holes & sq.bit() != 0
    }

    pub fn has_tile(&self, slot: Slot) -> bool {
        self.tiles & slot.bit() != 0
    }

    /// An exact key: balls in bits 0–63, tiles in 64–79, side in 80–87, rules in 88.
    pub fn key(&self) -> u128 {
        self.key_with(self.balls, self.tiles)
    }

    /// The key this position would have with other balls and tiles (an image of it).
    pub(super) fn key_with(&self, balls: u64, tiles: u16) -> u128 {
        u128::from(balls)
            | u128::from(tiles) << 64
            | u128::from(self.side.code()) << 80
            | u128::from(self.rules.free_chains) << 88
    }

    /// The image of this position under a symmetry of the square.
    pub fn transformed(&self, sym: D4) -> Position {
        let holes = transform_bitboard(self.holes, sym);
        Position {
            balls: transform_bitboard(self.balls, sym),
            holes,
            tiles: tiles_of(holes),
            side: self.side,
            rules: self.rules,
        }
    }
}

/// Reflects an 8×8 bitboard in the a1–h8 diagonal (the classic three delta swaps).
const fn transpose(mut b: u64) -> u64 {
    const K1: u64 = 0x5500_5500_5500_5500;
    const K2: u64 = 0x3333_0000_3333_0000;
    const K4: u64 = 0x0f0f_0f0f_0000_0000;
    let mut t = K4 & (b ^ (b << 28));
    b ^= t ^ (t >> 28);
    t = K2 & (b ^ (b << 14));
    b ^= t ^ (t >> 14);
    t = K1 & (b ^ (b << 7));
    b ^= t ^ (t >> 7);
    b
}

const fn mirror_files(b: u64) -> u64 {
    b.reverse_bits().swap_bytes()
}

const fn mirror_ranks(b: u64) -> u64 {
    b.swap_bytes()
}

/// Applies a symmetry to an 8×8 bitboard, matching [`D4::map`] on (file, rank).
pub const fn transform_bitboard(b: u64, sym: D4) -> u64 {
    match sym {
        D4::Identity => b,
        D4::Rotate90 => mirror_files(transpose(b)),
        D4::Rotate180 => b.reverse_bits(),
        D4::Rotate270 => mirror_ranks(transpose(b)),
        D4::MirrorFiles => mirror_files(b),
        D4::MirrorRanks => mirror_ranks(b),
        D4::Transpose => transpose(b),
        D4::AntiTranspose => transpose(b).reverse_bits(),
    }
}

/// Reflects a 4×4 tray of slots (bit `4·rank + file`) in its a1–d4 diagonal.
const fn transpose_tiles(mut t: u16) -> u16 {
    let mut x = (t ^ (t >> 3)) & 0x0a0a;
    t ^= x ^ (x << 3);
    x = (t ^ (t >> 6)) & 0x00cc;
    t ^= x ^ (x << 6);
    t
}

const fn mirror_tile_files(t: u16) -> u16 {
    let t = ((t >> 1) & 0x5555) | ((t & 0x5555) << 1);
    ((t >> 2) & 0x3333) | ((t & 0x3333) << 2)
}

const fn mirror_tile_ranks(t: u16) -> u16 {
    // Ranks are nibbles: swap the bytes, then the nibbles within each byte.
    let x = t.swap_bytes();
    ((x >> 4) & 0x0f0f) | ((x << 4) & 0xf0f0)
}

/// Applies a symmetry to the occupied slots, as [`transform_bitboard`] does to their holes.
pub const fn transform_tiles(t: u16, sym: D4) -> u16 {
    match sym {
        D4::Identity => t,
        D4::Rotate90 => mirror_tile_files(transpose_tiles(t)),
        D4::Rotate180 => t.reverse_bits(),
        D4::Rotate270 => mirror_tile_ranks(transpose_tiles(t)),
        D4::MirrorFiles => mirror_tile_files(t),
        D4::MirrorRanks => mirror_tile_ranks(t),
        D4::Transpose => transpose_tiles(t),
        D4::AntiTranspose => transpose_tiles(t).reverse_bits(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitboard_symmetries_match_coordinate_map() {
        for sym in D4::ALL {
            for i in 0..64 {
                let sq = Square::from_index(i);
                let (f, r) = sym.map(sq.file(), sq.rank(), 8);
                assert_eq!(
                    transform_bitboard(sq.bit(), sym),
                    Square::new(f, r).bit(),
                    "{sym:?} {sq}"
                );
            }
        }
    }

    #[test]
    fn tile_symmetries_match_hole_symmetries() {
        for sym in D4::ALL {
            for tiles in 0..=u16::MAX {
                assert_eq!(
                    transform_tiles(tiles, sym),
                    tiles_of(transform_bitboard(holes_of(tiles), sym)),
                    "{sym:?} {tiles:#06x}"
                );
            }
        }
    }

    #[test]
    fn start_is_symmetric() {
        let start = Position::start();
        for sym in D4::ALL {
            assert_eq!(start.transformed(sym), start);
        }
        assert_eq!(start.ball_count(), 48);
    }
}
