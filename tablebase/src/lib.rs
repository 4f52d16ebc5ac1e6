//! Tabula's endgame databases, built by retrograde analysis.
//!
//! - [`bearoff`]: backgammon bearoff databases in GNU Backgammon's conventions, one-sided
//!   ([`bearoff::OneSided`]: roll distributions for up to 15 checkers on 6 points) and
//!   two-sided ([`bearoff::TwoSided`]: cubeless winning chances for up to 6 checkers a side).
//!
//! Builds are parallel (rayon) and take seconds, so they have no interrupt/resume; files are
//! written atomically and carry a versioned header and an FNV-1a checksum (see
//! [`format`](mod@format)). Loading checks everything and returns a [`TablebaseError`] for a
//! bad file.

pub mod bearoff;
pub mod format;

pub use format::{Kind, TablebaseError};
