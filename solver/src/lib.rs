//! Tabula's search, one implementation for every two-player game of `tabula-engine`:
//!
//! - [`search`]: null-window tests with a transposition table, MTD(f)-style exact solving,
//!   iterative-deepening anytime analysis, young-brothers-wait parallelism on rayon.
//! - [`tt`]: the lock-free fixed-size [`tt::AtomicTable`] (and the `dashmap` table it was
//!   measured against).
//! - [`tt_file`]: a table's proven entries saved to disk and loaded back (resumable solves).
//! - [`dfpn`]: depth-first proof-number search for one test "value ≥ x" (an experiment).
//! - [`driver`]: what applications call: solve, analyze, prove and per-move values under one
//!   [`driver::Limits`], each answering solved or stopped-with-proven-bounds as a value.
//! - [`games`]: each game's search policy (shortcuts, payoff backup, keying, a first guess) and
//!   the [`games::Oracle`] hook for databases.
//! - [`eval`]: heuristic evaluations for ordering and depth-limited search.
//! - [`minimax`]: plain minimax, the reference for tests.

pub mod dfpn;
pub mod driver;
pub mod eval;
pub mod expectimax;
pub mod games;
pub mod minimax;
pub mod perft;
pub mod proof;
pub mod search;
pub mod tt;
pub mod tt_file;

pub use dfpn::{Dfpn, DfpnOptions, DfpnStats};
pub use driver::{Analysis, Driver, Limits, Line, Proof, Solve, Stats, Stop};
pub use eval::Evaluate;
pub use games::{Backup, Keying, NoOracle, Oracle, SolvePolicy, TestShortcuts};
pub use search::{
    Aborted, Bounds, MoveValue, Progress, ProofNumbers, SearchOptions, SearchReport, Searchable,
    Searcher,
};
pub use tt::{AtomicTable, DashTable, Entry, Table};
pub use tt_file::{load_proven, save_proven, TableFileError, TablePayloadError};
