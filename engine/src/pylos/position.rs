//! A Pylos position: two 30-bit colour masks, the side to move and the rules in force.

use super::cell::{self, Cell, ALL, APEX};
use super::mv::Move;
use super::rules::Rules;
use crate::{Game, Keyed, Role, Scored, Symmetric, D4};

/// Balls of each colour in the game.
pub const BALLS_PER_COLOR: u32 = 15;

/// A player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Moves first.
    Black,
    /// Moves second.
    White,
}

impl Color {
    /// The other player.
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// `b` or `w`.
    pub const fn char(self) -> char {
        match self {
            Color::Black => 'b',
            Color::White => 'w',
        }
    }
}

/// A position together with the rules that apply to it.
///
/// Invariants (kept by parsing and by [`Game::play`]): the masks are disjoint subsets of the 30
/// cells, every ball rests on four balls, at most 15 balls of a colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) black: u32,
    pub(crate) white: u32,
    pub(crate) turn: Color,
    pub(crate) rules: Rules,
}

impl Position {
    /// The empty board, black to move.
    pub const fn start(rules: Rules) -> Position {
        Position {
            black: 0,
            white: 0,
            turn: Color::Black,
            rules,
        }
    }

    /// A position from its masks, checked like a parsed position string.
    pub fn from_masks(
        black: u32,
        white: u32,
        turn: Color,
        rules: Rules,
    ) -> Result<Position, super::setup::SetupError> {
        super::setup::validate(black, white)?;
        Ok(Position {
            black,
            white,
            turn,
            rules,
        })
    }

    /// The balls of a colour.
    pub const fn balls(&self, color: Color) -> u32 {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    /// Every ball on the board.
    pub const fn occupied(&self) -> u32 {
        self.black | self.white
    }

    /// The balls a colour still holds in reserve.
    pub const fn reserve(&self, color: Color) -> u32 {
        BALLS_PER_COLOR - self.balls(color).count_ones()
    }

    /// The side to move.
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// The rules in force.
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// The same position under other rules.
    pub const fn with_rules(self, rules: Rules) -> Position {
        Position { rules, ..self }
    }

    /// The ball on a cell, if any.
    pub const fn at(&self, c: Cell) -> Option<Color> {
        if self.black & c.bit() != 0 {
            Some(Color::Black)
        } else if self.white & c.bit() != 0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// The mover's balls.
    #[inline]
    pub(crate) const fn own(&self) -> u32 {
        match self.turn {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    /// Empty cells that can hold a ball now.
    pub const fn landable(&self) -> u32 {
        let occ = self.occupied();
        cell::supported(occ) & !occ & ALL
    }

    /// Balls of a colour with no ball resting on them.
    pub const fn free(&self, color: Color) -> u32 {
        self.balls(color) & !cell::covered(self.occupied())
    }

    /// The winner, if the game is over: the apex is taken (by the player who just moved) or the
    /// player to move has no legal move. Either way the player to move has lost.
    pub fn winner(&self) -> Option<Color> {
        if self.is_over() {
            Some(self.turn.opponent())
        } else {
            None
        }
    }

    /// True when the player to move has no legal move (apex taken, or no reserve and no raise).
    pub fn is_over(&self) -> bool {
        if self.occupied() & APEX != 0 {
            return true;
        }
        if self.reserve(self.turn) > 0 {
            // Some empty cell can always hold a ball while the apex is empty.
            return false;
        }
        !self.has_raise()
    }

    fn has_raise(&self) -> bool {
        let landable = self.landable();
        let mut free = self.free(self.turn);
        while free != 0 {
            let s = free.trailing_zeros() as usize;
            free &= free - 1;
            if landable & super::movegen::raise_targets(s) != 0 {
                return true;
            }
        }
        false
    }
}

impl Game for Position {
    type Move = Move;

    fn legal_moves(&self, moves: &mut Vec<Move>) {
        super::movegen::generate(self, moves);
    }

    #[inline]
    fn play(&self, mv: Move) -> Position {
        let mut own = self.own();
        if let Some(from) = mv.from() {
            own &= !from.bit();
        }
        own |= mv.to().bit();
        own &= !mv.taken();
        match self.turn {
            Color::Black => Position {
                black: own,
                turn: Color::White,
                ..*self
            },
            Color::White => Position {
                white: own,
                turn: Color::Black,
                ..*self
            },
        }
    }

    fn count_moves(&self) -> u64 {
        super::movegen::count(self)
    }

    fn is_terminal(&self) -> bool {
        self.is_over()
    }
}

impl Keyed for Position {
    /// Bits 0–29 black, 30–59 white, 60 white to move, 61–63 the rules code.
    type Key = u64;

    fn key(&self) -> u64 {
        self.black as u64
            | (self.white as u64) << 30
            | ((self.turn == Color::White) as u64) << 60
            | (self.rules.code() as u64) << 61
    }
}

impl Symmetric for Position {
    fn transformed(&self, sym: D4) -> Position {
        Position {
            black: cell::transform_mask(self.black, sym),
            white: cell::transform_mask(self.white, sym),
            ..*self
        }
    }
}

impl Scored for Position {
    fn to_move(&self) -> Role {
        match self.turn {
            Color::Black => Role::Max,
            Color::White => Role::Min,
        }
    }

    /// +1 when black has won, -1 when white has won.
    fn terminal_value(&self) -> Option<i32> {
        self.winner().map(|c| match c {
            Color::Black => 1,
            Color::White => -1,
        })
    }

    fn value_bounds(&self) -> (i32, i32) {
        (-1, 1)
    }
}
