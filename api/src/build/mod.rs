//! The reports built from the library's results, written once for the command line and the
//! server: driver outcomes ([`tabula_solver::Solve`], [`tabula_solver::Analysis`],
//! [`tabula_solver::Proof`], move values) as each game's `SolveReport`, and the gammon
//! advisor's answers as [`crate::backgammon`]'s reports. Each builder is an associated function
//! of the report it builds (`SolveReport::from_solve`, `CubeReport::from_advice`, …); the
//! free functions here are the spellings the reports share with the callers' other output.

pub mod backgammon;
pub mod bilitaire;
pub mod pylos;

use std::fmt::Display;
use std::time::Duration;

/// Milliseconds of a duration, for `time_ms` (saturating).
pub fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Moves in the game's notation (`pv`).
pub fn names<M: Display>(moves: &[M]) -> Vec<String> {
    moves.iter().map(ToString::to_string).collect()
}
