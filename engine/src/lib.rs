//! Tabula's rules engines: one module per game behind the shared traits of [`game`].
//!
//! This crate holds rules only: no search, no threads, no I/O. The search lives in
//! `tabula-solver`, databases in `tabula-tablebase`, the command line in `tabula`.

pub mod backgammon;
pub mod bilitaire;
pub mod chance;
pub mod combinatorics;
pub mod game;
pub mod perft;
pub mod playout;
pub mod pylos;
pub mod retro;
pub mod symmetry;

pub use chance::ChanceGame;
pub use game::{Game, Keyed, Role, Scored, Symmetric};
pub use retro::{Outcome, Retrograde};
pub use symmetry::D4;
