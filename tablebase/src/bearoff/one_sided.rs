//! The one-sided bearoff database: roll distributions for every home board of up to 15
//! checkers.
//!
//! Built tier by tier (number of checkers, 0 to 15) and, within a tier, by increasing pip
//! count: a play never adds a checker and always lowers the pip count, so every child of a
//! position is already solved, and the positions of one (tier, pips) level are independent
//! and solved in parallel with rayon.
//!
//! Each roll is played, as in GNU Backgammon's `makebearoff`, to minimise the expected number
//! of rolls to bear off (for the first-checker distribution: to minimise the expected number
//! of rolls to bear off the first checker; the two can pick different plays). Ties keep the
//! first of the tied plays in the order of [`children`] (sorted boards).
//!
//! Payload of the file (kind 1): an index of 54,264 entries of four bytes (first roll count
//! and length of the bear-off distribution, the same for the first-checker distribution),
//! then the probabilities as little-endian `f64`, position by position, the bear-off
//! distribution before the first-checker one. Only the span from the first to the last
//! non-zero probability is stored.

use std::fmt;
use std::path::Path;

use rayon::prelude::*;
use tabula_engine::backgammon::Dice;

use super::{
    checked_rank, checkers, children, pips, rank, tier_size, tier_start, unrank, Board, BoardError,
    Progress, MAX_CHECKERS, ONE_SIDED_POSITIONS, POINTS,
};
use crate::{f64s, Existing, Kind, PayloadError, StoreError, TargetLock};

/// Distributions cover 0 to `MAX_ROLLS - 1` rolls. The longest bear-off (15 checkers from the
/// 6-point, with small rolls) takes 30 rolls; the build asserts that nothing overflows.
pub const MAX_ROLLS: usize = 32;

type Dist = [f64; MAX_ROLLS];

/// A stored distribution: where its span starts in `values`, the roll count of its first
/// entry and its length.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Span {
    offset: u32,
    start: u8,
    len: u8,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    off: Span,
    first: Span,
    mean: f64,
    first_mean: f64,
}

/// The one-sided bearoff database (see the [module documentation](super)).
#[derive(Clone, PartialEq)]
pub struct OneSided {
    entries: Vec<Entry>,
    values: Vec<f64>,
}

impl fmt::Debug for OneSided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OneSided")
            .field("positions", &self.entries.len())
            .field("values", &self.values.len())
            .finish()
    }
}

/// The largest payload a valid file can have.
const MAX_PAYLOAD: u64 = 4 * ONE_SIDED_POSITIONS as u64 * (1 + 2 * MAX_ROLLS as u64 * 2);

fn mean_of(d: &[f64], start: usize) -> f64 {
    d.iter()
        .enumerate()
        .map(|(k, p)| (start + k) as f64 * p)
        .sum()
}

/// The distributions of one position from its solved children.
fn solve(
    index: usize,
    off: &[Dist],
    first: &[Dist],
    mean: &[f64],
    first_mean: &[f64],
) -> (Dist, Dist) {
    let board = unrank(index);
    let full = checkers(&board) == MAX_CHECKERS;
    let mut o = [0.0; MAX_ROLLS];
    let mut f = [0.0; MAX_ROLLS];
    for dice in Dice::ALL {
        let w = dice.weight() as f64;
        let (mut best, mut best_first) = (usize::MAX, usize::MAX);
        for child in children(&board, dice) {
            let j = rank(&child);
            if best == usize::MAX || mean[j] < mean[best] {
                best = j;
            }
            if full && (best_first == usize::MAX || first_mean[j] < first_mean[best_first]) {
                best_first = j;
            }
        }
        assert!(off[best][MAX_ROLLS - 2] == 0.0, "distribution overflow");
        for k in 0..MAX_ROLLS - 1 {
            o[k + 1] += w * off[best][k];
        }
        if full {
            for k in 0..MAX_ROLLS - 1 {
                f[k + 1] += w * first[best_first][k];
            }
        }
    }
    for p in o.iter_mut().chain(f.iter_mut()) {
        *p /= 36.0;
    }
    if !full {
        // A checker is already off.
        f[0] = 1.0;
    }
    (o, f)
}

impl OneSided {
    /// Builds the database (a second or two on two cores).
    pub fn build() -> OneSided {
        OneSided::build_with_progress(|_| {})
    }

    /// Builds the database, reporting progress after each solved level.
    pub fn build_with_progress(mut progress: impl FnMut(Progress)) -> OneSided {
        let n = ONE_SIDED_POSITIONS;
        let mut off = vec![[0.0; MAX_ROLLS]; n];
        let mut first = vec![[0.0; MAX_ROLLS]; n];
        let mut mean = vec![0.0; n];
        let mut first_mean = vec![0.0; n];
        off[0][0] = 1.0;
        first[0][0] = 1.0;
        let mut done = 1;
        progress(Progress { done, total: n });
        for tier in 1..=MAX_CHECKERS {
            let mut levels = vec![Vec::new(); POINTS * tier + 1];
            for i in tier_start(tier)..tier_start(tier) + tier_size(tier) {
                levels[pips(&unrank(i))].push(i);
            }
            for level in levels.iter().filter(|l| !l.is_empty()) {
                let solved: Vec<(Dist, Dist)> = level
                    .par_iter()
                    .map(|&i| solve(i, &off, &first, &mean, &first_mean))
                    .collect();
                for (&i, (o, f)) in level.iter().zip(solved) {
                    mean[i] = mean_of(&o, 0);
                    first_mean[i] = mean_of(&f, 0);
                    off[i] = o;
                    first[i] = f;
                }
                done += level.len();
                progress(Progress { done, total: n });
            }
        }
        let mut db = OneSided {
            entries: Vec::with_capacity(n),
            values: Vec::new(),
        };
        for i in 0..n {
            let o = db.push_span(&off[i]);
            let f = db.push_span(&first[i]);
            db.entries.push(Entry {
                off: o,
                first: f,
                mean: mean[i],
                first_mean: first_mean[i],
            });
        }
        db
    }

    fn push_span(&mut self, d: &Dist) -> Span {
        let start = d.iter().position(|&p| p != 0.0).unwrap_or(0);
        let end = d
            .iter()
            .rposition(|&p| p != 0.0)
            .map_or(start + 1, |e| e + 1);
        let span = Span {
            offset: self.values.len() as u32,
            start: start as u8,
            len: (end - start) as u8,
        };
        self.values.extend_from_slice(&d[start..end]);
        span
    }

    fn entry(&self, board: &Board) -> Result<&Entry, BoardError> {
        Ok(&self.entries[checked_rank(board, MAX_CHECKERS)?])
    }

    fn expand(&self, span: Span) -> Vec<f64> {
        let mut d = vec![0.0; span.start as usize];
        let at = span.offset as usize;
        d.extend_from_slice(&self.values[at..at + span.len as usize]);
        d
    }

    /// The number of positions (54,264).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false: the database holds every position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The expected number of rolls to bear off every checker of `board`.
    pub fn mean_rolls(&self, board: Board) -> Result<f64, BoardError> {
        Ok(self.entry(&board)?.mean)
    }

    /// `P(k rolls)` for `k = 0, 1, …` up to the last possible number of rolls.
    pub fn distribution(&self, board: Board) -> Result<Vec<f64>, BoardError> {
        Ok(self.expand(self.entry(&board)?.off))
    }

    /// The expected number of rolls to bear off the first checker: 0 unless all 15 are on
    /// the board (gnubg's "saving gammon" mean).
    pub fn first_off_mean(&self, board: Board) -> Result<f64, BoardError> {
        Ok(self.entry(&board)?.first_mean)
    }

    /// `P(k rolls)` to bear off the first checker, `k = 0, 1, …`.
    pub fn first_off_distribution(&self, board: Board) -> Result<Vec<f64>, BoardError> {
        Ok(self.expand(self.entry(&board)?.first))
    }

    /// The payload of the file format (see the module documentation).
    fn payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 * self.entries.len() + 8 * self.values.len());
        for e in &self.entries {
            out.extend_from_slice(&[e.off.start, e.off.len, e.first.start, e.first.len]);
        }
        for v in &self.values {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// The context string of its files: game, database, points and checkers.
    pub const CONTEXT: &'static str = "game=backgammon;db=bearoff-os;points=6;checkers=15";

    /// Writes the database to `path` atomically, replacing a file there (see
    /// [`tabula_store::Writer`]).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), StoreError> {
        self.save_locked(&TargetLock::acquire(path)?, Existing::Replace)
    }

    /// Writes the database to the target of `lock`, which the caller holds.
    pub fn save_locked(&self, lock: &TargetLock, existing: Existing) -> Result<(), StoreError> {
        crate::save_locked(
            lock,
            Kind::BearoffOneSided,
            Self::CONTEXT,
            &self.payload(),
            existing,
        )
    }

    /// Reads a database written by [`OneSided::save`], checking header, size, checksums and
    /// that every distribution is one.
    pub fn load(path: impl AsRef<Path>) -> Result<OneSided, StoreError> {
        let path = path.as_ref();
        let payload = crate::load(path, Kind::BearoffOneSided, Self::CONTEXT, MAX_PAYLOAD)?;
        OneSided::from_payload(&payload).map_err(|why| StoreError::bad_payload(Some(path), why))
    }

    fn from_payload(payload: &[u8]) -> Result<OneSided, PayloadError> {
        let n = ONE_SIDED_POSITIONS;
        if payload.len() < 4 * n {
            return Err(PayloadError::TooShort { len: payload.len() });
        }
        let (index, data) = payload.split_at(4 * n);
        let mut spans = Vec::with_capacity(2 * n);
        let mut offset = 0usize;
        for (i, e) in index.chunks_exact(4).enumerate() {
            for (start, len) in [(e[0], e[1]), (e[2], e[3])] {
                if len == 0 || start as usize + len as usize > MAX_ROLLS {
                    return Err(PayloadError::BadSpan {
                        position: i,
                        start,
                        len,
                    });
                }
                spans.push(Span {
                    offset: offset as u32,
                    start,
                    len,
                });
                offset += len as usize;
            }
        }
        if data.len() != 8 * offset {
            return Err(PayloadError::DataLength {
                found: data.len(),
                needed: 8 * offset,
            });
        }
        let values: Vec<f64> = f64s(data).collect();
        let mut entries = Vec::with_capacity(n);
        for (i, pair) in spans.chunks_exact(2).enumerate() {
            let mut means = [0.0; 2];
            for (m, span) in means.iter_mut().zip(pair) {
                let at = span.offset as usize;
                let d = &values[at..at + span.len as usize];
                if d.iter().any(|p| !(0.0..=1.0).contains(p)) {
                    return Err(PayloadError::OutOfRange { position: i });
                }
                let sum: f64 = d.iter().sum();
                if (sum - 1.0).abs() > 1e-9 {
                    return Err(PayloadError::BadSum { position: i, sum });
                }
                *m = mean_of(d, span.start as usize);
            }
            entries.push(Entry {
                off: pair[0],
                first: pair[1],
                mean: means[0],
                first_mean: means[1],
            });
        }
        Ok(OneSided { entries, values })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bearoff::ONE_SIDED_POSITIONS;

    /// GamesmanOne's check: every child of every position (after any roll and play) is in a
    /// lower tier, or in the same tier with fewer pips, so it is solved first.
    #[test]
    fn children_are_in_solved_tiers() {
        for i in 1..ONE_SIDED_POSITIONS {
            let board = unrank(i);
            let (tier, p) = (checkers(&board), pips(&board));
            for dice in Dice::ALL {
                let kids = children(&board, dice);
                assert!(!kids.is_empty());
                for child in kids {
                    let (t, q) = (checkers(&child), pips(&child));
                    assert!(
                        t < tier || (t == tier && q < p),
                        "{board:?} {dice} {child:?}"
                    );
                    assert!(rank(&child) < tier_start(tier) + tier_size(tier));
                }
            }
        }
    }

    #[test]
    fn payload_round_trip() {
        let db = OneSided::build();
        let back = OneSided::from_payload(&db.payload()).unwrap();
        assert_eq!(back, db);
    }

    #[test]
    fn a_bad_payload_is_a_typed_error_with_the_old_message() {
        let mut payload = OneSided::build().payload();
        let start = payload[0];
        payload[1] = 0;
        let e = OneSided::from_payload(&payload).unwrap_err();
        assert_eq!(
            e,
            PayloadError::BadSpan {
                position: 0,
                start,
                len: 0
            }
        );
        assert_eq!(e.to_string(), format!("position 0: bad span {start}+0"));
        let e = OneSided::from_payload(&payload[..8]).unwrap_err();
        assert_eq!(e, PayloadError::TooShort { len: 8 });
        assert_eq!(e.to_string(), "payload of 8 bytes");
    }
}
