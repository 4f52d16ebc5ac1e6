//! Tabula's search: one alpha-beta / expectimax implementation over the `tabula-engine` traits.
//!
//! The search core is the subject of its own issue (parallel alpha-beta with a lock-free
//! transposition table); this crate holds only what has landed so far.
