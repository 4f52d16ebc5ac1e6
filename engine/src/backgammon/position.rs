//! The board: checker counts for both sides, always seen from the player on roll.

use std::fmt;

use crate::Keyed;

use super::position_id;

/// Checkers per side.
pub const CHECKERS: u8 = 15;

/// The slot of a side's bar in its 25 counts (slots 0..=23 are its points 1..=24).
pub const BAR: usize = 24;

/// The 25 nibbles (4 bits each) of a packed side.
pub(crate) const NIBBLES: u32 = 25;

/// Bit 0 of every nibble of a packed side.
pub(crate) const LOW_BITS: u128 = {
    let mut m = 0u128;
    let mut i = 0;
    while i < NIBBLES {
        m |= 1 << (4 * i);
        i += 1;
    }
    m
};

/// Which side of a [`Position`]: the player on roll or the opponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The player to move (gnubg's `anBoard[1]`).
    OnRoll,
    /// The other player (gnubg's `anBoard[0]`).
    Opponent,
}

/// Why a set of checker counts is not a backgammon position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// A side has more than 15 checkers on the board and bar.
    TooManyCheckers { side: Side, count: u32 },
    /// Both sides have checkers on the same point (numbered from the player on roll's side).
    SharedPoint { point: usize },
    /// Neither side has a checker left: both have borne off all theirs, which no game reaches
    /// (it ends when the first side has borne off).
    NoCheckers,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::TooManyCheckers { side, count } => {
                let who = match side {
                    Side::OnRoll => "player on roll",
                    Side::Opponent => "opponent",
                };
                write!(f, "the {who} has {count} checkers (at most {CHECKERS})")
            }
            PositionError::SharedPoint { point } => {
                write!(f, "both sides have checkers on point {point}")
            }
            PositionError::NoCheckers => write!(
                f,
                "neither side has a checker: both cannot have borne off (the game ends when one has)"
            ),
        }
    }
}

impl std::error::Error for PositionError {}

/// A backgammon position from the point of view of the player on roll.
///
/// Each side is 25 counts packed 4 bits apiece into a `u128`: slot `i` (0..=23) is that side's
/// own point `i + 1` (so its home board is slots 0..=5), slot 24 its bar. The player on roll's
/// point `p` is the opponent's point `25 - p`. Checkers not on the board or bar are borne off.
/// This is gnubg's `anBoard` with `[1]` = on roll and `[0]` = opponent.
///
/// `Copy`, 32 bytes, hashable; [`Position::swapped`] switches sides for free.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    pub(crate) me: u128,
    pub(crate) opp: u128,
}

pub(crate) const fn pack(counts: &[u8; 25]) -> u128 {
    let mut x = 0u128;
    let mut i = 0;
    while i < 25 {
        x |= (counts[i] as u128 & 15) << (4 * i);
        i += 1;
    }
    x
}

pub(crate) fn unpack(x: u128) -> [u8; 25] {
    let mut c = [0u8; 25];
    for (i, v) in c.iter_mut().enumerate() {
        *v = ((x >> (4 * i)) & 15) as u8;
    }
    c
}

#[inline]
pub(crate) fn nibble(x: u128, i: usize) -> u8 {
    ((x >> (4 * i)) & 15) as u8
}

/// Sum of the 25 nibbles.
#[inline]
pub(crate) fn total(x: u128) -> u32 {
    // Nibbles hold at most 15, so byte-wise sums of nibble pairs cannot overflow.
    let pairs = (x & 0x0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f)
        + ((x >> 4) & 0x0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f);
    pairs.to_le_bytes().iter().map(|&b| b as u32).sum()
}

/// A bit per occupied slot, at bit 4*i of the result.
#[inline]
pub(crate) fn occupied_nibbles(x: u128) -> u128 {
    (x | (x >> 1) | (x >> 2) | (x >> 3)) & LOW_BITS
}

const START_SIDE: [u8; 25] = [
    0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0,
];

impl Position {
    /// The opening position (Position ID `4HPwATDgc/ABMA`).
    pub const START: Position = Position {
        me: pack(&START_SIDE),
        opp: pack(&START_SIDE),
    };

    /// A position from the counts of both sides, each from its own point of view (slot `i` =
    /// point `i + 1`, slot 24 = bar).
    ///
    /// Refused: more than 15 checkers for a side, both sides on one point, and no checker at all
    /// ([`PositionError::NoCheckers`]). One side with none is a finished game and accepted. Every
    /// parser of this crate (Position ID, XGID, FIBS board) builds its position here.
    pub fn from_counts(on_roll: [u8; 25], opponent: [u8; 25]) -> Result<Position, PositionError> {
        if on_roll == [0; 25] && opponent == [0; 25] {
            return Err(PositionError::NoCheckers);
        }
        for (side, counts) in [(Side::OnRoll, &on_roll), (Side::Opponent, &opponent)] {
            let count: u32 = counts.iter().map(|&c| c as u32).sum();
            if count > CHECKERS as u32 {
                return Err(PositionError::TooManyCheckers { side, count });
            }
        }
        for i in 0..24 {
            if on_roll[i] > 0 && opponent[23 - i] > 0 {
                return Err(PositionError::SharedPoint { point: i + 1 });
            }
        }
        Ok(Position {
            me: pack(&on_roll),
            opp: pack(&opponent),
        })
    }

    /// The counts of one side from its own point of view (slot 24 = bar).
    pub fn counts(&self, side: Side) -> [u8; 25] {
        unpack(self.side(side))
    }

    #[inline]
    fn side(&self, side: Side) -> u128 {
        match side {
            Side::OnRoll => self.me,
            Side::Opponent => self.opp,
        }
    }

    /// Checkers of `side` on its own point `point` (1..=24), or on its bar for 25.
    pub fn checkers(&self, side: Side, point: usize) -> u8 {
        assert!((1..=25).contains(&point), "point {point} out of 1..=25");
        nibble(self.side(side), point - 1)
    }

    /// Checkers of `side` on the bar.
    pub fn bar(&self, side: Side) -> u8 {
        nibble(self.side(side), BAR)
    }

    /// Checkers of `side` borne off.
    pub fn off(&self, side: Side) -> u8 {
        CHECKERS - total(self.side(side)) as u8
    }

    /// The rearmost point of `side` holding a checker, on its own numbering (25 for the bar),
    /// 0 when it has none left: from the highest non-zero nibble, without unpacking.
    #[inline]
    pub fn back(&self, side: Side) -> usize {
        let x = self.side(side);
        if x == 0 {
            0
        } else {
            (127 - x.leading_zeros() as usize) / 4 + 1
        }
    }

    /// Pip count of `side` (a checker on its point `p` counts `p`, on the bar 25).
    pub fn pips(&self, side: Side) -> u32 {
        let x = self.side(side);
        (0..25).map(|i| (i as u32 + 1) * nibble(x, i) as u32).sum()
    }

    /// The same position with the other player on roll.
    #[inline]
    pub fn swapped(&self) -> Position {
        Position {
            me: self.opp,
            opp: self.me,
        }
    }

    /// True when a side has borne off all its checkers.
    pub fn is_game_over(&self) -> bool {
        self.me == 0 || self.opp == 0
    }

    /// The gnubg Position ID (14 characters).
    pub fn position_id(&self) -> String {
        position_id::encode(self)
    }

    /// Parses a gnubg Position ID.
    pub fn from_position_id(id: &str) -> Result<Position, position_id::PositionIdError> {
        position_id::decode(id)
    }

    /// The 80-bit gnubg position key (the bits behind the Position ID), opponent first.
    pub fn gnubg_key(&self) -> u128 {
        position_id::key(self)
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::START
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.position_id())
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.position_id())
    }
}

impl Keyed for Position {
    /// gnubg's 80-bit position key: equal exactly when the positions are equal.
    type Key = u128;

    fn key(&self) -> u128 {
        position_id::key(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_with_no_checker_is_refused() {
        assert_eq!(
            Position::from_counts([0; 25], [0; 25]),
            Err(PositionError::NoCheckers)
        );
        // One side borne off is a finished game, and fine.
        let mut one = [0u8; 25];
        one[0] = 1;
        assert!(Position::from_counts(one, [0; 25]).unwrap().is_game_over());
        assert!(Position::from_counts([0; 25], one).unwrap().is_game_over());
        // The Position ID of the empty board (all 80 bits zero) is refused the same way.
        assert_eq!(
            Position::from_position_id("AAAAAAAAAAAAAA"),
            Err(super::position_id::PositionIdError::Position(
                PositionError::NoCheckers
            ))
        );
    }

    /// `back` reads the rearmost checker off the packed nibbles: the same point as a scan of
    /// the counts, for a lone checker on every point and for stacks under it.
    #[test]
    fn back_is_the_rearmost_checker() {
        let scan = |c: &[u8; 25]| (0..25).rev().find(|&i| c[i] > 0).map_or(0, |i| i + 1);
        let mut other = [0u8; 25];
        other[BAR] = 15; // on its bar: no point shared with any of ours
        for top in 0..25 {
            for under in [0u8, 1, 15] {
                let mut c = [0u8; 25];
                c[top] = if under == 15 { 15 } else { 1 };
                if under == 1 && top > 0 {
                    c[0] = 14;
                }
                let pos = Position::from_counts(c, other).unwrap();
                assert_eq!(pos.back(Side::OnRoll), scan(&c), "{c:?}");
                assert_eq!(pos.back(Side::OnRoll), top + 1);
                assert_eq!(pos.back(Side::Opponent), 25);
            }
        }
        let gone = Position::from_counts([0; 25], other).unwrap();
        assert_eq!(gone.back(Side::OnRoll), 0);
    }
}
