//! Pylos (David G. Royffe, Gigamic): the rules as `docs/rules/pylos.md` states them, with the
//! `children`, `standard` and `mature` rule sets and optional or compulsory take-backs.
//!
//! A [`Position`] is two 30-bit colour masks (see [`cell`] for the numbering), the side to move
//! and the [`Rules`]. The rules include the [`Board`]: the full 4×4 pyramid, or the 3×3 one
//! for tests (a sub-pyramid of the same numbering). Moves are generated and counted by mask arithmetic on constant tables
//! (supports, resting cells, squares and lines per cell).
//!
//! Choices where the rules are silent:
//! - A raise never reaches the apex (impossible: when level 2 is full every lower ball is covered
//!   and every level-2 ball supports the apex), so the apex is always filled from a reserve.
//! - With `compulsory` take-backs the moved ball is always free, so there is always a ball to
//!   take back; the generator would fall back to "take nothing" if there were none.
//! - A placement needs a ball in the reserve; with an empty reserve only raises remain, and a
//!   player with no legal move loses. A taken apex ends the game: the player to move has lost.

pub mod cell;
pub mod movegen;
pub mod mv;
pub mod position;
pub mod rank;
pub mod retro;
pub mod rules;
pub mod setup;

pub use cell::Cell;
pub use mv::{IllegalMove, Move, MoveError, ParseMoveError};
pub use position::{backed_up, child_threshold, decode, Color, Position, BALLS_PER_COLOR, WIN};
pub use retro::PylosSpace;
pub use rules::{Board, Rules, Takeback, Variant};
pub use setup::SetupError;

/// The start position string.
pub const START: &str = "..../..../..../....|.../.../...|../..|. b";

/// The start position string of the 3×3 board ([`Board::Three`]).
pub const START3: &str = ".../.../...|../..|. b";

/// The start position string of a board.
pub const fn start_string(board: Board) -> &'static str {
    match board {
        Board::Four => START,
        Board::Three => START3,
    }
}
