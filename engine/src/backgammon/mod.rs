//! Backgammon: positions, dice, legal plays and the interchange formats of GNU Backgammon and
//! eXtreme Gammon, match play and the Kazaross-XG2 match equity table.
//!
//! Everything follows GNU Backgammon 1.07: a [`Position`] is seen from the player on roll
//! (gnubg's `anBoard[1]`), plays are distinct resulting positions, and the Position ID puts the
//! opponent's checkers first. Backgammon has dice, so it does not implement [`crate::Game`] but
//! [`crate::ChanceGame`] (the 21 rolls with their weights out of 36); [`Position`] implements
//! [`crate::Keyed`] with gnubg's 80-bit key.
//!
//! ```
//! use tabula_engine::backgammon::{Dice, Position};
//!
//! let roll: Dice = "31".parse().unwrap();
//! let plays = Position::START.plays(roll);
//! assert_eq!(plays.len(), 16);
//! let point = plays.iter().find(|p| p.notation() == "8/5 6/5").unwrap();
//! // The position after the play, opponent on roll, as gnubg shows it.
//! assert_eq!(point.result().position_id(), "sGfwATDgc/ABMA");
//! assert_eq!(Position::START.parse_play(roll, "6/5 8/5").unwrap(), *point);
//! ```

mod chance;
mod dice;
pub mod fibs;
pub mod match_id;
mod match_state;
pub mod met;
mod notation;
mod play;
mod position;
pub mod position_id;
pub mod xgid;

pub use dice::{Dice, DiceError};
pub use fibs::{FibsBoard, FibsError};
pub use match_id::{GameState, MatchId, MatchIdError};
pub use match_state::{
    DoubleDenied, GameKind, GameResult, InvalidState, MatchError, MatchState, MAX_CUBE,
    MAX_MATCH_LENGTH,
};
pub use notation::PlayError;
pub use play::{Play, PlayList, Step};
pub use position::{Position, PositionError, Side, BAR, CHECKERS};
pub use position_id::PositionIdError;
pub use xgid::{XgDice, Xgid, XgidError};
