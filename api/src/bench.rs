//! `tabula bench --json`: per item and per game, the work counted, the time and the rate, and
//! the signature (the one-thread counts summed).

use serde::{Deserialize, Serialize};

/// One item of a game's suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchItemReport {
    /// The item's name (`solve-23-balls-slider-3`, `perft-start-7`, …).
    pub name: String,
    /// What `count` counts: `nodes`, `leaves`, `plays` or `evaluations`.
    pub unit: String,
    /// The work done on one thread (part of the signature).
    pub count: u64,
    /// Wall time of the one-thread run, in milliseconds.
    pub time_ms: f64,
    /// `count` per second.
    pub rate: f64,
    /// What the item found (a solved value, a perft count, a best play): the same on every
    /// machine.
    pub answer: String,
    /// With `--threads N > 1`, for search items: the work of the N-thread run.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub threads_count: Option<u64>,
    /// With `--threads N > 1`, for search items: the time of the N-thread run.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub threads_time_ms: Option<f64>,
    /// With `--threads N > 1`, for search items: whether the N-thread run found the same
    /// answer (it must: values do not depend on the thread count).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub threads_agree: Option<bool>,
}

/// One game's suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchGameReport {
    /// `bilitaire`, `pylos` or `backgammon`.
    pub game: String,
    /// The items' one-thread counts summed.
    pub signature: u64,
    /// The one-thread runs' time summed, in milliseconds.
    pub time_ms: f64,
    /// With `--threads N > 1`: one-thread time over N-thread time, over the search items.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub speedup: Option<f64>,
    /// Every item, in suite order.
    pub items: Vec<BenchItemReport>,
}

/// The whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// Threads of the second run of each search item (1: none).
    pub threads: usize,
    /// Transposition table size of the exact searches, in MiB.
    pub hash_mb: usize,
    /// The reduced suite.
    pub quick: bool,
    /// Every game's signature summed.
    pub signature: u64,
    /// Every game run.
    pub games: Vec<BenchGameReport>,
}
