//! Heuristic evaluations, one file per game: for move ordering and for the anytime search's
//! depth limit.

mod bilitaire;
mod pylos;

use tabula_engine::Scored;

/// A game the shared search can order moves in and cut off at a depth limit.
pub trait Evaluate: Scored {
    /// An estimate of the payoff, in the payoff's own units, cheap enough to call on every child.
    /// Exact for terminal positions.
    fn evaluate(&self) -> i32;
}
