//! Tabula's typed boundary, shared by the command line and the server.
//!
//! - [`error`]: what went wrong, as a kind (bad input, I/O, internal, interrupted) with a one-line
//!   message and an optional source; the kind decides the exit code and the JSON error object.
//! - [`backgammon`]: backgammon's own reports (hint, show, …).
//! - [`report`]: the serde structs every command prints under `--json`, with one vocabulary
//!   across games (see the module's table of field names).
//! - [`bilitaire`], [`pylos`]: each game's reports (position, solve, analyze).
//! - [`server`]: the HTTP API's requests and reports (`tabula serve`).
//! - [`tablebase`]: building and probing the bearoff databases.
//! - [`bench`](mod@bench): `tabula bench`, per item and per game, with the signature.
//! - [`build`]: the reports built from the library's results (driver outcomes, the gammon
//!   advisor's answers), once for the command line and the server.

pub mod backgammon;
pub mod bench;
pub mod bilitaire;
pub mod build;
pub mod error;
pub mod pylos;
pub mod report;
pub mod server;
pub mod tablebase;

pub use error::{Error, ErrorKind};
