//! Moves and their notation.
//!
//! A move is (source, target, set of taken-back cells). Notation: cells as level digit, file
//! letter, rank digit. A placement from the reserve is the target (`0b2`), a raise is
//! source-target (`0a1-1b2`), each taken-back ball is appended with `x` (`1b2x1b2x0a1`: place on
//! 1b2, take back 1b2 and 0a1). Taken balls are printed in an order in which they can be
//! removed (higher cell first); any order is accepted when reading, since the set is what counts.

use super::cell::{Cell, ParseCellError};
use std::fmt;
use std::str::FromStr;

const RESERVE: u8 = u8::MAX;

/// One move: a placement from the reserve or a raise, with up to two taken-back balls.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Move {
    from: u8,
    to: u8,
    taken: u32,
}

impl Move {
    /// Places a ball from the reserve on `to`.
    pub const fn place(to: Cell) -> Move {
        Move {
            from: RESERVE,
            to: to.index() as u8,
            taken: 0,
        }
    }

    /// Raises the ball on `from` to `to`.
    pub const fn raise(from: Cell, to: Cell) -> Move {
        Move {
            from: from.index() as u8,
            to: to.index() as u8,
            taken: 0,
        }
    }

    /// The same move, taking back the balls of `taken` (a mask of at most two cells).
    pub const fn with_taken(self, taken: u32) -> Move {
        Move { taken, ..self }
    }

    pub(crate) const fn from_parts(from: Option<usize>, to: usize, taken: u32) -> Move {
        let from = match from {
            Some(c) => c as u8,
            None => RESERVE,
        };
        Move {
            from,
            to: to as u8,
            taken,
        }
    }

    /// The raised ball's cell, `None` for a placement from the reserve.
    #[inline]
    pub const fn from(self) -> Option<Cell> {
        if self.from == RESERVE {
            None
        } else {
            Cell::from_index(self.from as usize)
        }
    }

    /// The target cell.
    #[inline]
    pub fn to(self) -> Cell {
        Cell::from_index(self.to as usize).expect("a move's target is a cell")
    }

    /// The taken-back cells as a mask (0, 1 or 2 bits).
    #[inline]
    pub const fn taken(self) -> u32 {
        self.taken
    }

    /// The taken-back cells, in an order in which they can be removed (higher first).
    pub fn taken_cells(self) -> Vec<Cell> {
        let mut cells: Vec<Cell> = Cell::iter_mask(self.taken).collect();
        cells.reverse();
        cells
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(from) = self.from() {
            write!(f, "{from}-")?;
        }
        write!(f, "{}", self.to())?;
        for c in self.taken_cells() {
            write!(f, "x{c}")?;
        }
        Ok(())
    }
}

/// A move string that does not follow the notation (legality is checked separately, by
/// [`super::Position::parse_move`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseMoveError {
    /// A cell name is malformed.
    Cell(ParseCellError),
    /// More than two taken-back balls.
    TooManyTaken,
    /// The same ball is taken back twice.
    DuplicateTaken(Cell),
    /// Nothing between the separators.
    Empty,
}

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseMoveError::Cell(e) => e.fmt(f),
            ParseMoveError::TooManyTaken => f.write_str("at most two balls can be taken back"),
            ParseMoveError::DuplicateTaken(c) => write!(f, "{c} is taken back twice"),
            ParseMoveError::Empty => {
                f.write_str("empty move (expected e.g. 0b2, 0a1-1b2 or 1b2x0a1)")
            }
        }
    }
}

impl std::error::Error for ParseMoveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ParseMoveError::Cell(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ParseCellError> for ParseMoveError {
    fn from(e: ParseCellError) -> Self {
        ParseMoveError::Cell(e)
    }
}

impl FromStr for Move {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(ParseMoveError::Empty);
        }
        let mut parts = s.split(['x', 'X']);
        let head = parts.next().unwrap_or_default();
        let (from, to) = match head.split_once('-') {
            Some((a, b)) => (Some(a.parse::<Cell>()?), b.parse::<Cell>()?),
            None => (None, head.parse::<Cell>()?),
        };
        let mut taken = 0u32;
        for (i, part) in parts.enumerate() {
            if i >= 2 {
                return Err(ParseMoveError::TooManyTaken);
            }
            let c: Cell = part.parse()?;
            if taken & c.bit() != 0 {
                return Err(ParseMoveError::DuplicateTaken(c));
            }
            taken |= c.bit();
        }
        let base = match from {
            Some(f) => Move::raise(f, to),
            None => Move::place(to),
        };
        Ok(base.with_taken(taken))
    }
}

/// Why a well-formed move is not legal in a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IllegalMove {
    /// The game is over.
    GameOver,
    /// A cell that is not on this board (the 3×3 board has 14 of the 30 cells).
    OffBoard(Cell),
    /// Placement with an empty reserve.
    NoReserve,
    /// The source holds no ball of the mover.
    NotOwnBall(Cell),
    /// A ball rests on the source.
    NotFree(Cell),
    /// The target holds a ball.
    Occupied(Cell),
    /// The target does not rest on four balls.
    NotLandable(Cell),
    /// A raise to the same or a lower level.
    NotHigher { from: Cell, to: Cell },
    /// The raised ball is one of the target's supports.
    SupportsTarget { from: Cell, to: Cell },
    /// A take-back without a completed pattern.
    NoPattern,
    /// A completed pattern but no take-back under compulsory rules.
    TakebackRequired,
    /// A taken-back ball that is not an own free ball at its turn.
    CannotTake(Cell),
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::GameOver => f.write_str("the game is over"),
            IllegalMove::OffBoard(c) => write!(f, "{c} is not on the 3x3 board"),
            IllegalMove::NoReserve => f.write_str("no ball left in the reserve (raise instead)"),
            IllegalMove::NotOwnBall(c) => write!(f, "no ball of the side to move on {c}"),
            IllegalMove::NotFree(c) => write!(f, "the ball on {c} is not free"),
            IllegalMove::Occupied(c) => write!(f, "{c} is occupied"),
            IllegalMove::NotLandable(c) => write!(f, "{c} does not rest on four balls"),
            IllegalMove::NotHigher { from, to } => {
                write!(f, "a raise must go up a level ({from} to {to})")
            }
            IllegalMove::SupportsTarget { from, to } => {
                write!(f, "the ball on {from} supports {to}")
            }
            IllegalMove::NoPattern => f.write_str(
                "nothing can be taken back: the move completes no pattern that allows a \
                 take-back under these rules",
            ),
            IllegalMove::TakebackRequired => {
                f.write_str("the move completes a pattern: taking back 1 or 2 balls is compulsory")
            }
            IllegalMove::CannotTake(c) => write!(f, "cannot take back {c}: not an own free ball"),
        }
    }
}

impl std::error::Error for IllegalMove {}

impl super::Position {
    /// Whether `mv` is one of this position's legal moves (what `legal_moves` lists), decided
    /// without listing them.
    pub fn is_legal(&self, mv: Move) -> bool {
        super::movegen::is_generated(self, mv)
    }

    /// Checks that `mv` is legal here, saying why not.
    pub fn check_move(&self, mv: Move) -> Result<(), IllegalMove> {
        use crate::Game;
        let occ = self.occupied();
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        let own = self.balls(self.turn());
        let to = mv.to();
        let board = self.board();
        for c in mv.from().into_iter().chain([to]).chain(mv.taken_cells()) {
            if !board.contains(c) {
                return Err(IllegalMove::OffBoard(c));
            }
        }
        match mv.from() {
            None if self.reserve(self.turn()) == 0 => return Err(IllegalMove::NoReserve),
            None => {}
            Some(from) => {
                if own & from.bit() == 0 {
                    return Err(IllegalMove::NotOwnBall(from));
                }
                if from.resting() & occ != 0 {
                    return Err(IllegalMove::NotFree(from));
                }
                if to.level() <= from.level() {
                    return Err(IllegalMove::NotHigher { from, to });
                }
                if to.supports() & from.bit() != 0 {
                    return Err(IllegalMove::SupportsTarget { from, to });
                }
            }
        }
        if occ & to.bit() != 0 {
            return Err(IllegalMove::Occupied(to));
        }
        if to.supports() & !occ != 0 {
            return Err(IllegalMove::NotLandable(to));
        }
        if self.is_legal(mv) {
            return Ok(());
        }
        // Illegal: the list of legal moves says why.
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        let base = mv.with_taken(0);
        let completes = moves
            .iter()
            .any(|m| m.with_taken(0) == base && m.taken() != 0);
        if !completes {
            return Err(IllegalMove::NoPattern);
        }
        if mv.taken() == 0 {
            return Err(IllegalMove::TakebackRequired);
        }
        // Find a taken ball that is the culprit: not takeable alone or after the other.
        let after = self.play(base);
        let mut own_after = after.balls(self.turn());
        let mut occ_after = after.occupied();
        for c in mv.taken_cells() {
            if own_after & c.bit() == 0 || c.resting() & occ_after != 0 {
                return Err(IllegalMove::CannotTake(c));
            }
            own_after &= !c.bit();
            occ_after &= !c.bit();
        }
        let first = mv.taken_cells()[0];
        Err(IllegalMove::CannotTake(first))
    }

    /// Reads a move in notation and checks it is legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let mv: Move = text.parse().map_err(MoveError::Parse)?;
        self.check_move(mv).map_err(MoveError::Illegal)?;
        Ok(mv)
    }
}

/// A move string that is malformed or illegal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// Not in the notation.
    Parse(ParseMoveError),
    /// Well formed but not legal here.
    Illegal(IllegalMove),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Parse(e) => e.fmt(f),
            MoveError::Illegal(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for MoveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MoveError::Parse(e) => Some(e),
            MoveError::Illegal(e) => Some(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips() {
        for text in [
            "0b2",
            "0a1-1b2",
            "1b2x1b2x0a1",
            "0d4x0d4",
            "0a1-2b2x2b2x1c3",
        ] {
            let mv: Move = text.parse().unwrap();
            assert_eq!(mv.to_string(), text);
        }
        let a: Move = "1b2x0a1x1b2".parse().unwrap();
        let b: Move = "1b2x1b2x0a1".parse().unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_string(), "1b2x1b2x0a1");
    }

    #[test]
    fn bad_notation_is_rejected() {
        for bad in [
            "",
            "0e1",
            "0a1-",
            "-0a1",
            "0a1x",
            "0a1x0b1x0c1x0d1",
            "0a1x0b1x0b1",
            "0a1-1b2-2a1",
        ] {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
    }
}
