//! The traits every rules engine implements, so that one search and one perft serve all games.
//!
//! - [`Game`]: legal moves and make-move for a deterministic, perfect-information game.
//! - [`Scored`]: the integer payoff the search optimises (who maximises, terminal values, bounds,
//!   the declared payoff range and move-count bound).
//! - [`Keyed`] and [`Symmetric`]: exact keys for transposition tables, optionally reduced by
//!   symmetry (the search can run on a game without symmetry).
//!
//! Games with dice (backgammon) generate plays per roll, so they implement the chance-game
//! trait of [`crate::chance`] rather than forcing dice into [`Game`].

use std::fmt::{Debug, Display};
use std::hash::Hash;

/// A position together with the rules that apply to it.
///
/// Positions are small `Copy`-like values; [`Game::play`] returns a new position rather than
/// mutating, which keeps parallel search free of undo bookkeeping.
pub trait Game: Clone + Eq + Hash + Debug + Send + Sync {
    /// One move as the rules define it (for perft, two different moves are two nodes).
    type Move: Copy + Eq + Hash + Debug + Display + Send + Sync;

    /// Appends every legal move to `moves`. Nothing is appended exactly when the position is
    /// terminal.
    fn legal_moves(&self, moves: &mut Vec<Self::Move>);

    /// The position after `mv`, which must be one of [`Game::legal_moves`].
    fn play(&self, mv: Self::Move) -> Self;

    /// The number of legal moves. Engines override this with a count that does not build the
    /// moves (bulk counting at the last perft ply).
    fn count_moves(&self) -> u64 {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        moves.len() as u64
    }

    /// True when the game is over (no legal move).
    fn is_terminal(&self) -> bool {
        self.count_moves() == 0
    }
}

/// Which way the player to move pushes the payoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Wants the payoff as high as possible.
    Max,
    /// Wants the payoff as low as possible.
    Min,
}

impl Role {
    /// The other role.
    pub fn opponent(self) -> Role {
        match self {
            Role::Max => Role::Min,
            Role::Min => Role::Max,
        }
    }
}

/// A two-player zero-sum game with an integer payoff, as the shared search sees it: rules only.
///
/// The payoff is absolute (not relative to the mover): in Bi-litaire it is the number of balls
/// left, maximised by the slider and minimised by the ball player. Games whose value is a win or
/// loss at some distance (Pylos) map it onto integers the same way, with the distance folded in
/// by the search (`solver`), so that the TT never stores a ply-dependent value.
///
/// How a search may take shortcuts in a game (tests decided by masks, the distance algebra of
/// win/loss payoffs) is search policy and lives in the solver, not here.
pub trait Scored: Game {
    /// The smallest payoff of any position: every [`Scored::value_bounds`] and
    /// [`Scored::terminal_value`] is at least this. The solver checks at compile time that the
    /// whole range `MIN_VALUE..=MAX_VALUE` fits its table entries.
    const MIN_VALUE: i32;

    /// The largest payoff of any position (see [`Scored::MIN_VALUE`]).
    const MAX_VALUE: i32;

    /// An upper bound on the number of legal moves of any position (`usize::MAX` where the
    /// rules give no useful bound). Tables store a best-move index only where it fits; a game
    /// whose bound fits them always gets its hints stored.
    const MAX_MOVES: usize;

    /// Who moves now.
    fn to_move(&self) -> Role;

    /// The payoff of a terminal position; `None` when the game goes on.
    fn terminal_value(&self) -> Option<i32>;

    /// Inclusive bounds on every payoff reachable from here, within
    /// `MIN_VALUE..=MAX_VALUE`. Tight bounds let the search stop as soon as a move reaches them.
    fn value_bounds(&self) -> (i32, i32);
}

/// An exact, compact identity of a position for transposition tables and deduplication.
///
/// Two positions have equal keys exactly when they are equal: a TT that compares full keys can
/// never return a wrong hit.
pub trait Keyed {
    /// The key type, a few machine words: at most 128 bits, so that one table of `u128` keys
    /// serves every game.
    type Key: Copy + Eq + Ord + Hash + Debug + Send + Sync + Into<u128>;

    /// The exact key of this position.
    fn key(&self) -> Self::Key;
}

/// Positions whose rules are invariant under the 8 symmetries of the square.
pub trait Symmetric: Keyed + Sized {
    /// The image of this position under `sym`.
    fn transformed(&self, sym: crate::D4) -> Self;

    /// The smallest key over the 8 images: equal for positions that are symmetric to each other.
    fn canonical_key(&self) -> Self::Key {
        self.canonical_key_and_symmetry().0
    }

    /// The canonical key with the index in [`crate::D4::ALL`] of a symmetry that gives it (the
    /// first, where several do). Games may compute it without making all 8 images.
    fn canonical_key_and_symmetry(&self) -> (Self::Key, usize) {
        crate::D4::ALL
            .iter()
            .enumerate()
            .map(|(i, &sym)| (self.transformed(sym).key(), i))
            .min()
            .expect("D4 has 8 elements")
    }
}
