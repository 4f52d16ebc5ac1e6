//! The traits every rules engine implements, so that one search and one perft serve all games.
//!
//! - [`Game`]: legal moves and make-move for a deterministic, perfect-information game.
//! - [`Scored`]: the integer payoff the search optimises (who maximises, terminal values, bounds).
//! - [`Keyed`] and [`Symmetric`]: exact keys for transposition tables, reduced by symmetry.
//!
//! Games with dice (backgammon) share [`Keyed`] but generate plays per roll, so they have
//! their own chance-node trait next to their module rather than forcing dice into [`Game`].

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

/// A two-player zero-sum game with an integer payoff, as the shared search sees it.
///
/// The payoff is absolute (not relative to the mover): in Bi-litaire it is the number of balls
/// left, maximised by the slider and minimised by the ball player. Games whose value is a win or
/// loss at some distance (Pylos) map it onto integers the same way, with the distance folded in
/// by the search (`solver`), so that the TT never stores a ply-dependent value.
pub trait Scored: Game {
    /// Who moves now.
    fn to_move(&self) -> Role;

    /// The payoff of a terminal position; `None` when the game goes on.
    fn terminal_value(&self) -> Option<i32>;

    /// Inclusive bounds on every payoff reachable from here. Tight bounds let the search stop
    /// as soon as a move reaches them.
    fn value_bounds(&self) -> (i32, i32);

    /// The legal moves that can still decide the null-window test "value ≥ x" here. A game may
    /// leave out moves whose children's [`Scored::value_bounds`] already put them on the side of
    /// `x` that cannot settle the test (for the Max side, children below `x`; for the Min side,
    /// children at `x` or above), when it can do so without making them. For every `x` the list
    /// must be a prefix of one fixed order of all legal moves, so that a move's index (stored in
    /// transposition tables) names the same move whatever `x` was.
    fn legal_moves_for_test(&self, x: i32, moves: &mut Vec<Self::Move>) {
        let _ = x;
        self.legal_moves(moves);
    }

    /// A proven answer to the test "value ≥ x" that the game can give without a search, or
    /// `None`. Called only when [`Scored::value_bounds`] leave the test open; meant for tests
    /// that the next move or two settle, which are most of the nodes near the end of a search.
    fn decide_test(&self, x: i32) -> Option<bool> {
        let _ = x;
        None
    }

    /// Like [`Scored::decide_test`], for answers that cost more than a table probe: asked only
    /// when the table has no answer, and the answer is stored there.
    fn decide_test_deeper(&self, x: i32) -> Option<bool> {
        let _ = x;
        None
    }

    /// The payoff a position gets from its best child's payoff. The identity for games scored
    /// by material (Bi-litaire); a game scored by win or loss at a distance overrides it to move
    /// a decided value one ply further away (win in k becomes win in k + 1), which keeps every
    /// stored value relative to its own position.
    fn backed_up(child_value: i32) -> i32 {
        child_value
    }

    /// The smallest child payoff whose [`Scored::backed_up`] value is at least `x`: the
    /// threshold a null-window test passes down. Must invert `backed_up` on thresholds.
    fn child_threshold(x: i32) -> i32 {
        x
    }

    /// The smallest payoff at least `x` that a proven (exact) result here can have; `x` itself
    /// unless the exact payoffs have gaps. A game scored by a win or loss within a bounded
    /// distance has no exact payoff near 0, so a proven "at least 1" is a proven win: storing it
    /// as such lets the table answer later tests at other near-0 thresholds (a transposition
    /// reached a few plies later asks about a shifted threshold).
    fn exact_at_least(&self, x: i32) -> i32 {
        x
    }

    /// The largest payoff at most `x` that a proven result here can have (see
    /// [`Scored::exact_at_least`]).
    fn exact_at_most(&self, x: i32) -> i32 {
        x
    }
}

/// An exact, compact identity of a position for transposition tables and deduplication.
///
/// Two positions have equal keys exactly when they are equal: a TT that compares full keys can
/// never return a wrong hit.
pub trait Keyed {
    /// The key type, a few machine words.
    type Key: Copy + Eq + Ord + Hash + Debug + Send + Sync;

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
