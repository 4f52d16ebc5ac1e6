//! Tabula's search, one implementation for every two-player game of `tabula-engine`:
//!
//! - [`search`]: null-window tests with a transposition table, MTD(f)-style exact solving,
//!   iterative-deepening anytime analysis, young-brothers-wait parallelism on rayon.
//! - [`tt`]: the lock-free fixed-size [`tt::AtomicTable`] (and the `dashmap` table it was
//!   measured against).
//! - [`tt_file`]: a table's proven entries saved to disk and loaded back (resumable solves).
//! - [`eval`]: heuristic evaluations for ordering and depth-limited search.
//! - [`minimax`]: plain minimax, the reference for tests.

//!   search.

pub mod eval;
pub mod expectimax;
pub mod minimax;
pub mod search;
pub mod tt;
pub mod tt_file;

pub use eval::Evaluate;
pub use search::{Aborted, Bounds, MoveValue, Progress, SearchOptions, SearchReport, Searcher};
pub use tt::{AtomicTable, DashTable, Entry, Table};
pub use tt_file::{load_proven, save_proven, TableFileError};
