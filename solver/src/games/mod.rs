//! The search policy of each game, on the solver's side of the line: how a search may take
//! shortcuts in a game, how its payoffs back up, how its positions are keyed for the table, and
//! what a driver should know before it starts (a first guess, whether an unbounded solve is in
//! reach). The rules crate knows none of this; a database ([`Oracle`]) can plug in beside it.
//!
//! Every method has a default that is right for any game (no shortcut, payoffs back up
//! unchanged, no symmetry), so a new game needs only empty `impl` blocks to be searched.

mod bilitaire;
pub mod bilitaire_endgame;
mod pylos;

pub use bilitaire::{TwoPly, TwoPlyMove};
pub use bilitaire_endgame::Endgame;
pub use pylos::{verdict, Verdict};

use tabula_engine::{Keyed, Scored};

/// Shortcuts that answer or narrow a null-window test "value ≥ x" without the full search.
pub trait TestShortcuts: Scored {
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

    /// Like [`TestShortcuts::decide_test`], for answers that cost more than a table probe: asked
    /// only when the table has no answer, and the answer is stored there.
    fn decide_test_deeper(&self, x: i32) -> Option<bool> {
        let _ = x;
        None
    }
}

/// How payoffs move from a child to its parent, for games scored by a win or loss at a distance.
pub trait Backup: Scored {
    /// The payoff a position gets from its best child's payoff. The identity for games scored
    /// by material (Bi-litaire); a game scored by win or loss at a distance overrides it to move
    /// a decided value one ply further away (win in k becomes win in k + 1), which keeps every
    /// stored value relative to its own position.
    fn backed_up(child_value: i32) -> i32 {
        child_value
    }

    /// The smallest child payoff whose [`Backup::backed_up`] value is at least `x`: the
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
    /// [`Backup::exact_at_least`]).
    fn exact_at_most(&self, x: i32) -> i32 {
        x
    }
}

/// How positions are keyed for the transposition table.
pub trait Keying: Keyed {
    /// The key shared by all images of this position under the game's symmetries, with the
    /// index (below 8) of a symmetry that gives it; `None` for a game searched without
    /// symmetry. A table keyed this way must only ever see keys taken the same way.
    fn symmetric_key(&self) -> Option<(Self::Key, usize)> {
        None
    }
}

/// What the drivers ([`crate::driver`]) need to know about a game before they search it.
pub trait SolvePolicy: Scored {
    /// The first guess an exact solve gallops from, when the game knows a better one than the
    /// heuristic pre-search; `None` keeps the pre-search.
    fn exact_guess(&self) -> Option<i32> {
        None
    }

    /// True when an exact search from here ends (the game tree is finite). A game whose
    /// positions can repeat is solved by deepening instead.
    fn finite(&self) -> bool {
        true
    }

    /// True when an exact solve should share its tests with proof-number search
    /// ([`crate::ProofNumbers`]): games whose two sides' strategies are very unlike, where
    /// df-pn finds one side's proofs far sooner than alpha-beta.
    fn proof_numbers(&self) -> bool {
        false
    }

    /// Why an exact solve from here without a time or node limit is known to be out of reach
    /// (it would not return in any reasonable time), or `None`.
    fn out_of_reach(&self) -> Option<String> {
        None
    }
}

/// A database that knows some positions' exact payoffs (a tablebase). The search consults it
/// at every node its bounds leave open, before any shortcut or table probe; an answer is a
/// proven value.
pub trait Oracle<G>: Sync {
    /// The exact payoff of `pos`, or `None` when the database does not hold it.
    fn probe(&self, pos: &G) -> Option<i32>;
}

/// No database: every probe misses (and costs nothing once inlined).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoOracle;

impl<G> Oracle<G> for NoOracle {
    #[inline(always)]
    fn probe(&self, _pos: &G) -> Option<i32> {
        None
    }
}

impl<G, O: Oracle<G>> Oracle<G> for &O {
    #[inline]
    fn probe(&self, pos: &G) -> Option<i32> {
        (**self).probe(pos)
    }
}
