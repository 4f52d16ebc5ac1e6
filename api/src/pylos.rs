//! Pylos's reports (see [`crate::report`] for the shared field names).

use serde::{Deserialize, Serialize};

/// `pylos solve --json` and `pylos analyze --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SolveReport {
    pub position: String,
    /// `black` or `white`.
    pub side_to_move: String,
    /// `win`, `loss`, `draw` (proven) or `unknown`, for the side to move.
    pub result: String,
    /// Plies to the end under best play, for a proven win or loss (null under `--win-loss`).
    pub plies: Option<u32>,
    /// The payoff for the side to move (positive: it wins); `±(1000 - plies)` when decided,
    /// ±1 under `--win-loss`, an estimate unless `exact`; null when nothing is known.
    pub value: Option<i32>,
    pub exact: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub stopped: bool,
    /// Proven bounds on `value`, when stopped.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub lower: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub upper: Option<i32>,
    pub best: Option<String>,
    pub pv: Vec<String>,
    /// The deepest finished iteration (plies), for the deepening searches.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub depth: Option<u32>,
    pub nodes: u64,
    pub time_ms: u64,
}
