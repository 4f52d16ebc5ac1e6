//! A Bi-litaire move, for either role, in the project's notation.

use super::chain::Chain;
use super::geometry::{Slot, Square};
use std::fmt;

/// What a move does. Slider actions carry the announcement made with them (0 = none, else the
/// exact number of jumps the ball player must make next).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Move {
    /// The ball player's opening removal of one ball: `xd4`.
    RemoveBall(Square),
    /// One ball's jump or chain of jumps: `d2-d4`, `d2-d4-f4`.
    Jump(Chain),
    /// A group of tiles slides; `from` is the rearmost tile and `to` where it arrives: `A2-C2!3`.
    Slide { from: Slot, to: Slot, announce: u8 },
    /// An empty tile leaves the tray: `xB2!2`.
    RemoveTile { slot: Slot, announce: u8 },
}

impl Move {
    /// The announcement made with a slider move (0 for none and for ball moves).
    pub fn announcement(self) -> u8 {
        match self {
            Move::Slide { announce, .. } | Move::RemoveTile { announce, .. } => announce,
            _ => 0,
        }
    }

    /// The same slider action with another announcement (ball moves are returned unchanged).
    pub fn with_announcement(self, n: u8) -> Move {
        match self {
            Move::Slide { from, to, .. } => Move::Slide {
                from,
                to,
                announce: n,
            },
            Move::RemoveTile { slot, .. } => Move::RemoveTile { slot, announce: n },
            other => other,
        }
    }

    /// True for the slider's moves.
    pub fn is_slider_move(self) -> bool {
        matches!(self, Move::Slide { .. } | Move::RemoveTile { .. })
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Move::RemoveBall(sq) => write!(f, "x{sq}"),
            Move::Jump(chain) => write!(f, "{chain}"),
            Move::Slide { from, to, .. } => write!(f, "{from}-{to}"),
            Move::RemoveTile { slot, .. } => write!(f, "x{slot}"),
        }?;
        match self.announcement() {
            0 => Ok(()),
            n => write!(f, "!{n}"),
        }
    }
}
