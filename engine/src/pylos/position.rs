//! A Pylos position: two 30-bit colour masks, the side to move and the rules in force (the
//! board among them).

use super::cell::{self, Cell, LEVEL_MASK};
use super::mv::Move;
use super::rules::{Board, Rules, Variant};
use crate::{Game, Keyed, Role, Scored, Symmetric, D4};

/// The payoff of a won game, from black's point of view: black winning at distance k plies
/// from a position is worth `WIN - k` there, white winning `-(WIN - k)`, a draw (infinite play)
/// or an unknown value 0. Faster wins and slower losses are therefore better for the winner
/// and the loser alike, and max/min picks them.
pub const WIN: i32 = 1000;

/// The value of a position from the value of the child a move leads to: a decided value moves one
/// ply further from the end (its magnitude drops by one), 0 stays 0.
#[inline]
pub const fn backed_up(child_value: i32) -> i32 {
    if child_value > 0 {
        child_value - 1
    } else if child_value < 0 {
        child_value + 1
    } else {
        0
    }
}

/// The smallest child value `c` with `backed_up(c) >= x`: the threshold a null-window test
/// passes to the children. For `x > 0` a win one ply longer (`x + 1`); for `x <= 0`, `x - 1`
/// (for `x = 0`: -1, since the values -1, 0 and 1 all back up to 0).
#[inline]
pub const fn child_threshold(x: i32) -> i32 {
    if x > 0 {
        x + 1
    } else {
        x - 1
    }
}

/// A payoff as (winner, distance in plies) when it is decided; `None` for 0 (draw or unknown).
pub fn decode(value: i32) -> Option<(Color, u32)> {
    match value.signum() {
        1 => Some((Color::Black, (WIN - value.min(WIN)) as u32)),
        -1 => Some((Color::White, (WIN + value.max(-WIN)) as u32)),
        _ => None,
    }
}

/// Balls of each colour on the full board ([`Board::balls`] for either board).
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
/// Invariants (kept by parsing and by [`Game::play`]): the masks are disjoint subsets of the
/// board's cells, every ball rests on four balls, at most [`Board::balls`] balls of a colour.
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
        super::setup::validate(black, white, rules.board)?;
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
        self.rules.board.balls() - self.balls(color).count_ones()
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
        cell::supported(occ) & !occ & self.rules.board.cells()
    }

    /// The board.
    pub const fn board(&self) -> Board {
        self.rules.board
    }

    /// Under `children` rules, a bound on the raises left in the game (both sides together). A
    /// raise lands on an empty cell of level 1 or 2 (never the apex: while it can hold a ball,
    /// every other ball is covered or supports it). Level-2 cells are never emptied again, and a
    /// level-1 cell is emptied only by a raise to level 2, so at most `e2` raises go to level 2
    /// and `e1 + e2` to level 1 (`eN`: empty cells on level N). On the 3×3 board level 2 is
    /// its apex: raises go to level 1 only (`e2` counts no apex). `None` under rules with
    /// take-backs, where play can go on for ever.
    fn max_raises(&self) -> Option<i32> {
        if self.rules.variant != Variant::Children {
            return None;
        }
        let board = self.rules.board;
        let empty = !self.occupied() & board.cells() & !board.apex();
        let e1 = (empty & LEVEL_MASK[1]).count_ones();
        let e2 = (empty & LEVEL_MASK[2]).count_ones();
        Some((e1 + 2 * e2) as i32)
    }

    /// Both reserves together.
    fn reserves(&self) -> i32 {
        (self.reserve(Color::Black) + self.reserve(Color::White)) as i32
    }

    /// Under `children` rules, a bound on the plies left before the game ends: every move places
    /// a reserve ball or raises one (see `Position::max_raises`). `None` under rules with
    /// take-backs.
    pub fn max_remaining_plies(&self) -> Option<i32> {
        Some(self.reserves() + self.max_raises()?)
    }

    /// Under `children` rules, the verdict of the reserve race when raises cannot change it:
    /// `Some(true)` when the mover wins, `Some(false)` when he loses, `None` when it is open.
    ///
    /// Every move spends a reserve ball except a raise, and the mover can always place while he
    /// has a ball (an empty cell can hold one until the pyramid is full). If neither side raised
    /// again, the mover, placing first, would win exactly when he has more balls left
    /// (`lead ≥ 1`): the opponent runs out first, and the apex goes to whoever holds the last
    /// ball. A raise is a move that saves a ball, so if the opponent can raise at most `k` more
    /// times, placing every turn wins with `lead ≥ k + 1`; symmetrically the mover loses with
    /// `lead ≤ -k` against an opponent who only places; `k` is bounded by
    /// `Position::max_raises`.
    pub fn reserve_race(&self) -> Option<bool> {
        self.race_with_raises(self.max_raises()?)
    }

    /// [`Position::reserve_race`] with the bound on the raises left already known.
    fn race_with_raises(&self, raises: i32) -> Option<bool> {
        let lead = self.reserve(self.turn) as i32 - self.reserve(self.turn.opponent()) as i32;
        if lead > raises {
            Some(true)
        } else if lead <= -raises {
            Some(false)
        } else {
            None
        }
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
        if self.occupied() & self.rules.board.apex() != 0 {
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

/// The mark of a 3×3-board key: cell 0d1 (never on that board) set in both colour fields, which
/// no position of either board has (the colours are disjoint), so keys of the two boards never
/// meet and the full board's keys are those of the one-board engine.
const THREE_MARK: u64 = 1 << 3 | 1 << (30 + 3);

impl Keyed for Position {
    /// Bits 0–29 black, 30–59 white, 60 white to move, 61–63 the rules code (variant and
    /// take-back); on the 3×3 board also the mark `THREE_MARK`.
    type Key = u64;

    #[inline]
    fn key(&self) -> u64 {
        let key = self.black as u64
            | (self.white as u64) << 30
            | ((self.turn == Color::White) as u64) << 60
            | (self.rules.code() as u64) << 61;
        match self.rules.board {
            Board::Four => key,
            Board::Three => key | THREE_MARK,
        }
    }
}

impl Symmetric for Position {
    fn transformed(&self, sym: D4) -> Position {
        let map = &self.rules.board.symmetry_maps()[sym as usize];
        Position {
            black: map.apply(self.black),
            white: map.apply(self.white),
            ..*self
        }
    }
}

impl Scored for Position {
    /// A win for white at distance 0.
    const MIN_VALUE: i32 = -WIN;
    /// A win for black at distance 0.
    const MAX_VALUE: i32 = WIN;
    /// A move lands a ball on one of 30 cells, from the reserve or one of 30 cells, and may
    /// take back none, one or two of the mover's at most 15 balls (1 + 15 + 105 choices); the
    /// 3×3 board (14 cells, 7 balls) stays far below.
    const MAX_MOVES: usize = 30 * 31 * 121;

    fn to_move(&self) -> Role {
        match self.turn {
            Color::Black => Role::Max,
            Color::White => Role::Min,
        }
    }

    /// [`WIN`] when black has won, -[`WIN`] when white has won: distance 0 from the end.
    fn terminal_value(&self) -> Option<i32> {
        self.winner().map(|c| match c {
            Color::Black => WIN,
            Color::White => -WIN,
        })
    }

    /// A terminal position has exactly its value. Otherwise the game ends at least one ply away,
    /// and a terminal position is lost by the player to move there, so the mover here can only
    /// win at an odd distance (at best 1) and lose at an even one (at best 2).
    fn value_bounds(&self) -> (i32, i32) {
        if let Some(v) = self.terminal_value() {
            return (v, v);
        }
        // From the mover's side: wins lie at odd distances, losses at even ones.
        let (mut lo, mut hi) = (-(WIN - 2), WIN - 1);
        if let Some(raises) = self.max_raises() {
            let rem = self.reserves() + raises;
            match self.race_with_raises(raises) {
                Some(true) => lo = WIN - rem,
                Some(false) => hi = -(WIN - rem),
                None => {}
            }
        }
        match self.turn {
            Color::Black => (lo, hi),
            Color::White => (-hi, -lo),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `child_threshold(x)` is the least `c` with `backed_up(c) >= x`, for every threshold the
    /// search can pass (the payoff range and one beyond on each side).
    #[test]
    fn child_threshold_inverts_backed_up() {
        let range = -(WIN + 3)..=WIN + 3;
        for x in range.clone() {
            let c = child_threshold(x);
            assert!(backed_up(c) >= x, "x {x}: backed_up({c}) < x");
            assert!(
                backed_up(c - 1) < x,
                "x {x}: {} is a smaller threshold",
                c - 1
            );
            // Brute force over every child value in range agrees.
            if range.contains(&c) && range.contains(&(c - 1)) {
                let least = range.clone().find(|&v| backed_up(v) >= x);
                assert_eq!(Some(c), least, "x {x}");
            }
        }
        // Monotone, and a decided value moves one ply away.
        for v in range.clone().skip(1) {
            assert!(backed_up(v - 1) <= backed_up(v));
        }
        assert_eq!(backed_up(WIN), WIN - 1);
        assert_eq!(backed_up(-WIN), -(WIN - 1));
        assert_eq!(backed_up(0), 0);
        assert_eq!(decode(WIN - 5), Some((Color::Black, 5)));
        assert_eq!(decode(-(WIN - 6)), Some((Color::White, 6)));
        assert_eq!(decode(0), None);
    }
}
