//! Backgammon bearoff databases, GNU Backgammon's conventions.
//!
//! A home board is `[u8; 6]`: checkers on the ace point (index 0) up to the 6-point (index 5),
//! the rest borne off.
//!
//! - [`OneSided`]: for every board with up to 15 checkers (54,264), the probability
//!   distribution of the number of rolls to bear off every checker, playing each roll to
//!   minimise the expected number of rolls, and of the number of rolls to bear off the first
//!   checker (for gammons; zero rolls once one is off, i.e. with fewer than 15 checkers).
//! - [`TwoSided`]: for both sides with up to 6 checkers (924 × 924), the cubeless probability
//!   that the player on roll wins, both sides playing to maximise it.
//! - [`FewCheckers`]: the one-sided distributions carried out of the home board, for a side
//!   with at most [`FEW_CHECKERS`] checkers left anywhere on its 24 points in a race (20,475
//!   boards, built in memory in under 0.1 s; no file).
//! - [`RaceTable`]: the one-sided distributions of every board of up to 15 checkers on a side's
//!   first 7 to 12 points (10 by default: 3,268,760 boards), for races whose last checkers are
//!   not yet home; built in minutes and saved like the others (same kind, its own context).
//!
//! The first two are built by retrograde analysis in parallel levels (a play always lowers the pip
//! count) and saved in the [`tabula_store`] container. Payloads: one-sided (kind 1),
//! an index of 54,264 × 4 bytes (first roll count and length of each position's bear-off and
//! first-checker distributions), then those probabilities as little-endian `f64`, only from
//! the first to the last non-zero one; two-sided (kind 2), 924 × 924 little-endian `f64`, the
//! winning chance of on-roll board `i` against opponent board `j` at `i · 924 + j`. Boards are
//! indexed by [`rank`], which is gnubg's bearoff position number.
//!
//! ```
//! use tabula_tablebase::bearoff::OneSided;
//!
//! let db = OneSided::build();
//! let mean = db.mean_rolls([0, 0, 0, 0, 0, 1]).unwrap();
//! assert!((mean - 1.25).abs() < 1e-12);
//! ```

mod few;
mod index;
mod moves;
mod one_sided;
mod race;
mod spread;
mod two_sided;

use std::fmt;

use tabula_engine::backgammon::{Position, Side};

pub use few::{FewCheckers, FEW_CHECKERS, FEW_CHECKERS_LIMIT};
pub use index::{checkers, pips, positions_up_to, rank, tier_size, tier_start, unrank};
pub use moves::children;
pub use one_sided::{OneSided, MAX_ROLLS};
pub use race::{
    race_boards, CheckpointError, RaceBuild, RaceError, RaceTable, RACE_POINTS, RACE_POINTS_MAX,
    RACE_POINTS_MIN,
};
pub use two_sided::TwoSided;

/// Home-board checker counts, ace point first.
pub type Board = [u8; 6];

/// Points of the home board.
pub const POINTS: usize = 6;
/// Checkers per side in the one-sided database.
pub const MAX_CHECKERS: usize = 15;
/// Checkers per side in the two-sided database.
pub const TWO_SIDED_CHECKERS: usize = 6;
/// Positions of the one-sided database (up to 15 checkers, the empty board included).
pub const ONE_SIDED_POSITIONS: usize = positions_up_to(MAX_CHECKERS);
/// Positions of one side in the two-sided database (up to 6 checkers): the first indices of
/// the one-sided order.
pub const TWO_SIDED_SIDE_POSITIONS: usize = positions_up_to(TWO_SIDED_CHECKERS);

/// Why a board is not in a database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardError {
    /// More checkers than the database holds.
    TooManyCheckers { checkers: usize, max: usize },
    /// A checker outside the home board (on point 7 to 24, or on the bar: 25).
    NotHome { side: Side, point: usize },
    /// A checker on the bar, where a race board has none.
    OnTheBar,
    /// A checker beyond the points a race database covers.
    BeyondPoints { point: usize, points: usize },
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError::TooManyCheckers { checkers, max } => {
                write!(f, "{checkers} checkers on the home board: at most {max}")
            }
            BoardError::OnTheBar => write!(f, "a checker on the bar: not a race"),
            BoardError::BeyondPoints { point, points } => write!(
                f,
                "a checker on point {point}: the race database covers points 1 to {points}"
            ),
            BoardError::NotHome { side, point } => {
                let who = match side {
                    Side::OnRoll => "the player on roll",
                    Side::Opponent => "the opponent",
                };
                if *point == 25 {
                    write!(f, "{who} has a checker on the bar")
                } else {
                    write!(
                        f,
                        "{who} has a checker on point {point}, outside the home board"
                    )
                }
            }
        }
    }
}

impl std::error::Error for BoardError {}

/// The index of `board` if it has at most `max` checkers.
pub(crate) fn checked_rank(board: &Board, max: usize) -> Result<usize, BoardError> {
    let n = checkers(board);
    if n > max {
        return Err(BoardError::TooManyCheckers { checkers: n, max });
    }
    Ok(rank(board))
}

/// The home board of `side` when all its checkers are home or borne off.
pub fn home_board(position: &Position, side: Side) -> Result<Board, BoardError> {
    let counts = position.counts(side);
    if let Some(i) = (POINTS..25).find(|&i| counts[i] > 0) {
        return Err(BoardError::NotHome { side, point: i + 1 });
    }
    let mut board = [0u8; POINTS];
    board.copy_from_slice(&counts[..POINTS]);
    Ok(board)
}

/// How far a build has come: `done` of `total` positions solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_boards_from_positions() {
        // 2 checkers on the 6-point each, from gnubg's Position ID.
        let pos = Position::from_position_id("YAAAAAMAAAAAAA").unwrap();
        assert_eq!(home_board(&pos, Side::OnRoll), Ok([0, 0, 0, 0, 0, 2]));
        assert_eq!(home_board(&pos, Side::Opponent), Ok([0, 0, 0, 0, 0, 2]));
        assert_eq!(
            home_board(&Position::START, Side::OnRoll),
            Err(BoardError::NotHome {
                side: Side::OnRoll,
                point: 8
            })
        );
        let mut me = [0u8; 25];
        me[24] = 1;
        me[0] = 3;
        let pos = Position::from_counts(me, [0; 25]).unwrap();
        let err = home_board(&pos, Side::OnRoll).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the player on roll has a checker on the bar"
        );
    }

    #[test]
    fn rank_limits() {
        assert_eq!(checked_rank(&[0, 0, 0, 0, 0, 6], 6), Ok(923));
        assert_eq!(
            checked_rank(&[0, 0, 0, 0, 1, 6], 6),
            Err(BoardError::TooManyCheckers {
                checkers: 7,
                max: 6
            })
        );
    }
}
