//! Bi-litaire (Kris Burm): the ball player jumps as in peg solitaire, the slider slides and
//! removes tiles and may announce multi-jumps. Rules: `docs/rules/bilitaire.md`.
//!
//! - [`geometry`]: holes, slots, directions and their `const` masks.
//! - [`Position`] ([`position`]) with its string form ([`setup`]).
//! - [`Move`] ([`mv`]) with its notation ([`notation`]); jump paths are [`Chain`]s.
//! - [`movegen`]: jumps by shifts and masks, slides from per-line tables, announcements.

pub mod chain;
pub mod geometry;
pub mod movegen;
pub mod mv;
pub mod notation;
pub mod position;
pub mod setup;

pub use chain::Chain;
pub use geometry::{Direction, Slot, Square};
pub use mv::Move;
pub use notation::{MoveError, Rejection};
pub use position::{Position, Rules, Side};
pub use setup::PositionError;

use crate::game::{Game, Keyed, Role, Scored, Symmetric};
use crate::symmetry::D4;

/// The starting position string.
pub const START: &str = "--oooo--/--oooo--/oooooooo/oooooooo/oooooooo/oooooooo/--oooo--/--oooo-- r";

impl Game for Position {
    type Move = Move;

    fn legal_moves(&self, moves: &mut Vec<Move>) {
        self.generate_moves(moves);
    }

    fn play(&self, mv: Move) -> Position {
        Position::play(self, mv)
    }

    fn count_moves(&self) -> u64 {
        self.move_count()
    }

    fn is_terminal(&self) -> bool {
        self.is_over()
    }
}

impl Scored for Position {
    /// A round ends with at least one ball; no position has more balls than holes (64).
    const MIN_VALUE: i32 = 0;
    const MAX_VALUE: i32 = 64;
    /// Chains of jumps have no small bound: a ball's paths can branch at every landing.
    const MAX_MOVES: usize = usize::MAX;

    /// The slider maximises the balls left; the ball player (including the opening removal)
    /// minimises them.
    fn to_move(&self) -> Role {
        match self.side() {
            Side::Slider => Role::Max,
            Side::OpeningRemoval | Side::Ball(_) => Role::Min,
        }
    }

    fn terminal_value(&self) -> Option<i32> {
        self.is_over().then(|| self.ball_count() as i32)
    }

    /// Balls never come back; each jump removes one, one ball always remains, and the ball
    /// player to move removes at least one more (the announced number under an announcement).
    fn value_bounds(&self) -> (i32, i32) {
        let balls = self.ball_count() as i32;
        if self.is_over() {
            return (balls, balls);
        }
        let upper = match self.side() {
            Side::OpeningRemoval => balls - 1,
            Side::Ball(n) => balls - i32::from(n.max(1)),
            Side::Slider => balls,
        };
        (upper.min(1), upper)
    }
}

impl Keyed for Position {
    type Key = u128;

    fn key(&self) -> u128 {
        Position::key(self)
    }
}

impl Symmetric for Position {
    fn transformed(&self, sym: D4) -> Position {
        Position::transformed(self, sym)
    }

    /// Keys order by tiles before balls, so only the images with the smallest tiles (usually
    /// one) need their balls moved.
    fn canonical_key_and_symmetry(&self) -> (u128, usize) {
        let tiles = D4::ALL.map(|sym| position::transform_tiles(self.tiles(), sym));
        let smallest = *tiles.iter().min().expect("D4 has 8 elements");
        D4::ALL
            .iter()
            .enumerate()
            .filter(|&(i, _)| tiles[i] == smallest)
            .map(|(i, &sym)| {
                let balls = position::transform_bitboard(self.balls(), sym);
                (self.key_with(balls, smallest), i)
            })
            .min()
            .expect("some image has the smallest tiles")
    }
}
