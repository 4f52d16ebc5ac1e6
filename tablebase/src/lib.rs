//! Tabula's endgame databases, built by retrograde analysis.
//!
//! The builders (backgammon bearoff, Pylos tiers) are the subject of their own issues; this crate
//! holds only what has landed so far.
