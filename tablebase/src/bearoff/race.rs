//! The one-sided race database: the bear-off database carried out of the home board, for
//! every board of up to 15 checkers on a side's first `points` points (7 to 12; 10 by
//! default, gnubg's `makebearoff -o 10`).
//!
//! The one-sided database ([`OneSided`](super::OneSided)) covers a side once every checker is
//! home; [`FewCheckers`](super::FewCheckers) a side with at most a few checkers anywhere. A
//! race where a side still has checkers on its 7- to 10-point was the race net's to value,
//! and the race net errs there most (gammon saves, the last checkers coming home: issue 16,
//! `docs/results.md`, "A one-sided race database"). With all fifteen checkers within the
//! first 10 points there are 3,268,760 boards (the empty one included), few enough to solve
//! exactly: 173 s on 2 cores (268 s of CPU), 216 MB on disk; opened, its index of 26 MB.
//!
//! The computation is the one-sided database's, as in GNU Backgammon's `makebearoff`: each roll
//! is played to minimise the expected number of rolls to bear off (for the first-checker
//! distribution, of a board with all fifteen on it: the expected rolls to bear off the first
//! checker; the two can choose different plays); ties keep the child of the lowest rank. In a
//! race every die can be played while a checker is left (a checker outside the home board
//! moves down whatever the die; at home the bear-off rules always allow a play), so the plays
//! of a die are [`FewCheckers`](super::FewCheckers)'s: move a checker down, or bear it off
//! once every checker is home (exactly, or from the highest point with a larger die).
//!
//! A board is a *spread*: the points of its 15 checkers, highest first, 0 for a checker borne
//! off. Spreads are ranked by the combinatorial number system (a bijection onto
//! `0..C(points + 15, 15)`), and solved level by level of pip count (a play always lowers
//! it), the boards of a level in parallel.
//!
//! Payload of the file (a [`Kind::BearoffOneSided`] container whose context names the
//! database and its points): the number of points (one byte), then an index of four bytes a
//! board, by rank (first roll count and length of the bear-off distribution, the same for the
//! first-checker one: a board with a checker off has the first-checker distribution "0 rolls"),
//! then the probabilities as little-endian `f32`, board by board, the bear-off distribution
//! before the first-checker one, only the span from the first to the last non-zero entry.
//! Probabilities are kept as `f32` (the file is half the size; the sums stay within 1e-5 of
//! one, which loading checks, and a probe of an opened file checks for its distribution).

use std::fmt;
use std::path::Path;

use rayon::prelude::*;
use tabula_engine::backgammon::Dice;

use super::moves::after_dice;
use super::spread::{self, choose};
use super::{BoardError, Progress};
use crate::{Existing, Kind, PayloadError, StoreError, TargetLock};
use tabula_store::StoreFile;

/// Checkers a side has.
const CHECKERS: usize = 15;

/// The fewest and most points a race database may cover.
pub const RACE_POINTS_MIN: usize = 7;
/// See [`RACE_POINTS_MIN`]; 12 points are 17.4 M boards (a file of 1.37 GB, 25 minutes and
/// 2.9 GB to build on 2 cores).
pub const RACE_POINTS_MAX: usize = 12;
/// The points of the default race database.
pub const RACE_POINTS: usize = 10;

/// Distributions cover 0 to `RACE_MAX_ROLLS - 1` rolls. Fifteen checkers on the 12-point are
/// 180 pips; a roll moves at least 3 pips (every die is played while checkers are left) or
/// bears off, so 61 rolls always suffice; the build asserts that nothing overflows.
const RACE_MAX_ROLLS: usize = 64;

/// The points of a board's checkers, highest first; 0 stands for borne off.
type Spread = [u8; CHECKERS];

/// A board's place in the probabilities: its bear-off distribution from `offset`, its
/// first-checker distribution right after it, and the first roll count and length of each
/// (8 bytes a board).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    offset: u32,
    off: [u8; 2],
    first: [u8; 2],
}

impl Entry {
    /// Distribution `which` (0: bear-off, 1: first checker) as a span.
    fn span(self, which: usize) -> Span {
        match which {
            0 => Span {
                offset: self.offset,
                start: self.off[0],
                len: self.off[1],
            },
            _ => Span {
                offset: self.offset + u32::from(self.off[1]),
                start: self.first[0],
                len: self.first[1],
            },
        }
    }
}

/// A stored distribution: where its span starts in `values`, the roll count of its first
/// entry and its length.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Span {
    offset: u32,
    start: u8,
    len: u8,
}

/// The one-sided race database: for every board of up to 15 checkers on a side's first
/// [`points`](RaceTable::points) points (7 to 12), the distribution of the number of rolls to
/// bear off every checker and of the rolls to bear off the first one, in a race (no contact),
/// each roll played to minimise the expected rolls as in GNU Backgammon's `makebearoff` (which
/// builds the same database with `-o POINTS`). Boards are given as a side's
/// [`Position::counts`](tabula_engine::backgammon::Position::counts). Saved as a
/// [`Kind::BearoffOneSided`] file whose context names the points:
/// `game=backgammon;db=race-os;points=10;checkers=15`.
///
/// A database is built ([`RaceTable::build`]), read whole ([`RaceTable::load`]), or opened
/// ([`RaceTable::open`]): then only its index is in memory (8 bytes a board) and each
/// distribution is read from the file when asked for, as Syzygy tables are probed.
pub struct RaceTable {
    points: usize,
    /// By rank: where the bear-off distribution and the first-checker one are.
    index: Vec<Entry>,
    values: Values,
}

/// Where the probabilities are.
enum Values {
    Memory(Vec<f32>),
    /// The file, every block's checksum verified when it was opened; the probabilities start
    /// at this payload offset.
    File(StoreFile, u64),
}

impl fmt::Debug for RaceTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RaceTable");
        d.field("points", &self.points)
            .field("boards", &self.index.len());
        match &self.values {
            Values::Memory(v) => d.field("values", &v.len()),
            Values::File(file, _) => d.field("file", &file.path()),
        };
        d.finish()
    }
}

/// Why a race database gave no distribution: the board is not in it, or (a database read
/// from its file as needed) the file could not be read.
#[derive(Debug)]
pub enum RaceError {
    Board(BoardError),
    Store(StoreError),
}

impl fmt::Display for RaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RaceError::Board(e) => e.fmt(f),
            RaceError::Store(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RaceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RaceError::Board(e) => Some(e),
            RaceError::Store(e) => Some(e),
        }
    }
}

impl From<BoardError> for RaceError {
    fn from(e: BoardError) -> RaceError {
        RaceError::Board(e)
    }
}

/// A span that is not one: empty, or running past the last roll.
fn bad_span(position: usize, start: u8, len: u8) -> Option<PayloadError> {
    (len == 0 || start as usize + len as usize > RACE_MAX_ROLLS).then_some(PayloadError::BadSpan {
        position,
        start,
        len,
    })
}

/// Every probability in [0, 1], summing to one (to the `f32` rounding and the dropped tails).
fn check_distribution(d: &[f32], position: usize) -> Result<(), PayloadError> {
    if d.iter().any(|p| !(0.0..=1.0).contains(p)) {
        return Err(PayloadError::OutOfRange { position });
    }
    let sum: f64 = d.iter().map(|&p| f64::from(p)).sum();
    if (sum - 1.0).abs() > 1e-5 {
        return Err(PayloadError::BadSum { position, sum });
    }
    Ok(())
}

/// The entries of an index (four bytes a board) and the number of probabilities they need.
fn parse_index(index: &[u8]) -> Result<(Vec<Entry>, usize), PayloadError> {
    let mut entries = Vec::with_capacity(index.len() / 4);
    let mut offset = 0usize;
    for (i, e) in index.chunks_exact(4).enumerate() {
        for (start, len) in [(e[0], e[1]), (e[2], e[3])] {
            if let Some(e) = bad_span(i, start, len) {
                return Err(e);
            }
        }
        entries.push(Entry {
            offset: offset as u32,
            off: [e[0], e[1]],
            first: [e[2], e[3]],
        });
        offset += e[1] as usize + e[3] as usize;
    }
    Ok((entries, offset))
}

fn f32s(bytes: &[u8]) -> impl Iterator<Item = f32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

/// The number of boards of a database of `points` points.
pub fn race_boards(points: usize) -> usize {
    choose(points + CHECKERS, CHECKERS)
}

/// The rank of a spread, a bijection onto `0..race_boards(points)`.
fn rank(s: &Spread) -> usize {
    spread::rank(s, CHECKERS)
}

/// Spreads after playing one die (appended to `out`; a finished board stays as it is).
fn play_die(s: &Spread, die: u8, out: &mut Vec<Spread>) {
    spread::play_die(s, CHECKERS, die, out);
}

/// Every distinct board after playing `dice` from `s`, sorted (empty for a finished board).
fn children(s: &Spread, dice: Dice) -> Vec<Spread> {
    if s[0] == 0 {
        return Vec::new();
    }
    after_dice(*s, dice, play_die)
}

#[cfg(test)]
fn pips(s: &Spread) -> usize {
    s.iter().map(|&p| p as usize).sum()
}

/// Every spread on `points` points, grouped by pip count.
fn spreads_by_pips(points: usize) -> Vec<Vec<Spread>> {
    fn go(s: &mut Spread, i: usize, top: u8, pips: usize, out: &mut Vec<Vec<Spread>>) {
        if i == CHECKERS {
            out[pips].push(*s);
            return;
        }
        for p in 0..=top {
            s[i] = p;
            go(s, i + 1, p, pips + p as usize, out);
        }
        s[i] = 0;
    }
    let mut out = vec![Vec::new(); CHECKERS * points + 1];
    go(&mut [0; CHECKERS], 0, points as u8, 0, &mut out);
    out
}

/// The spread of a side's counts (points 1 to 24, then the bar), if every checker is on the
/// first `points` points (or borne off).
fn spread_of(counts: &[u8; 25], points: usize) -> Result<Spread, BoardError> {
    if counts[24] > 0 {
        return Err(BoardError::OnTheBar);
    }
    if let Some(i) = (points..24).rev().find(|&i| counts[i] > 0) {
        return Err(BoardError::BeyondPoints {
            point: i + 1,
            points,
        });
    }
    spread::from_counts(&counts[..points], CHECKERS).ok_or_else(|| BoardError::TooManyCheckers {
        checkers: counts.iter().map(|&c| c as usize).sum(),
        max: CHECKERS,
    })
}

fn mean_of(d: &[f64]) -> f64 {
    d.iter().enumerate().map(|(k, p)| k as f64 * p).sum()
}

/// Probabilities below this at either end of a distribution are dropped (and the rest scaled
/// to sum to one). Measured: the stored spans a third shorter (8 points: 8.77 M values to
/// 5.84 M; the file of 10 points 329 MB to 216 MB), and the figures within 1e-6 of the
/// bear-off database's on every home board (`home_boards_agree_with_the_one_sided_database`),
/// far below what an equity needs.
const TAIL: f64 = 1e-7;

/// The span of `d` from its first to its last entry of at least [`TAIL`], scaled to sum to
/// one: (start, end).
fn trim(d: &mut [f64]) -> (usize, usize) {
    let start = d.iter().position(|&p| p >= TAIL).unwrap_or(0);
    let end = d
        .iter()
        .rposition(|&p| p >= TAIL)
        .map_or(start + 1, |e| e + 1);
    let sum: f64 = d[start..end].iter().sum();
    for p in &mut d[start..end] {
        *p /= sum;
    }
    (start, end)
}

impl RaceTable {
    /// Builds the database of `points` points ([`RACE_POINTS_MIN`] to [`RACE_POINTS_MAX`]; any
    /// other count panics): 173 s on 2 cores for 10 points, 11 s for 8.
    pub fn build(points: usize) -> RaceTable {
        RaceTable::build_with_progress(points, |_| {})
    }

    /// The same, reporting progress after each solved level of pip count.
    pub fn build_with_progress(points: usize, mut progress: impl FnMut(Progress)) -> RaceTable {
        let mut build = RaceBuild::new(points);
        while build.step() {
            progress(build.progress());
        }
        build.finish()
    }

    /// The points the database covers: a side is in it when every checker it has left stands
    /// on its first `points()` points.
    pub fn points(&self) -> usize {
        self.points
    }

    /// The number of boards.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Always false: the database holds every board.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The distribution of board `rank`'s span `which` (0: bear-off, 1: first checker).
    /// Both distributions of board `rank` (bear-off, first checker), from one read of the
    /// file when it is opened (they are stored one after the other).
    fn expand_both(&self, rank: usize) -> Result<[Vec<f64>; 2], RaceError> {
        let e = self.index[rank];
        let (off, first) = (e.span(0), e.span(1));
        let (at, len) = (off.offset as usize, (off.len + first.len) as usize);
        let read: Vec<f32>;
        let p = match &self.values {
            Values::Memory(v) => &v[at..at + len],
            Values::File(file, base) => {
                let mut buf = [0u8; 8 * RACE_MAX_ROLLS];
                let buf = &mut buf[..4 * len];
                file.read_at(base + 4 * at as u64, buf)
                    .map_err(RaceError::Store)?;
                read = f32s(buf).collect();
                // The checksums say the file is as written; this, that it was written right.
                let (a, b) = read.split_at(off.len as usize);
                check_distribution(a, rank)
                    .and_then(|()| check_distribution(b, rank))
                    .map_err(|why| {
                        RaceError::Store(StoreError::bad_payload(Some(file.path()), why))
                    })?;
                &read
            }
        };
        let (a, b) = p.split_at(off.len as usize);
        let expand = |start: u8, d: &[f32]| {
            let mut out = vec![0.0; start as usize];
            out.extend(d.iter().map(|&p| f64::from(p)));
            out
        };
        Ok([expand(off.start, a), expand(first.start, b)])
    }

    fn expand(&self, rank: usize, which: usize) -> Result<Vec<f64>, RaceError> {
        let [off, first] = self.expand_both(rank)?;
        Ok(if which == 0 { off } else { first })
    }

    /// Both distributions of `counts` at once (one lookup, one read of an opened file): the
    /// rolls to bear off every checker, and to bear off the first one.
    pub fn distributions(&self, counts: &[u8; 25]) -> Result<[Vec<f64>; 2], RaceError> {
        self.expand_both(rank(&spread_of(counts, self.points)?))
    }

    /// `P(k rolls)` to bear off every checker of `counts` (a side's
    /// [`Position::counts`](tabula_engine::backgammon::Position::counts): points 1 to 24,
    /// then the bar), `k = 0, 1, …`, in a race.
    pub fn distribution(&self, counts: &[u8; 25]) -> Result<Vec<f64>, RaceError> {
        self.expand(rank(&spread_of(counts, self.points)?), 0)
    }

    /// `P(k rolls)` to bear off the first checker: "0 rolls" unless all 15 are on the board.
    pub fn first_off_distribution(&self, counts: &[u8; 25]) -> Result<Vec<f64>, RaceError> {
        self.expand(rank(&spread_of(counts, self.points)?), 1)
    }

    /// The expected number of rolls to bear off every checker of `counts`.
    pub fn mean_rolls(&self, counts: &[u8; 25]) -> Result<f64, RaceError> {
        Ok(mean_of(&self.distribution(counts)?))
    }

    /// The expected number of rolls to bear off the first checker (0 with one off).
    pub fn first_off_mean(&self, counts: &[u8; 25]) -> Result<f64, RaceError> {
        Ok(mean_of(&self.first_off_distribution(counts)?))
    }

    /// The context string of its files: game, database, points and checkers.
    pub fn context(points: usize) -> String {
        format!("game=backgammon;db=race-os;points={points};checkers=15")
    }

    /// The largest payload a file of `points` points can have.
    fn max_payload(points: usize) -> u64 {
        1 + race_boards(points) as u64 * (4 + 2 * 4 * RACE_MAX_ROLLS as u64)
    }

    /// The payload of the file format (see the module documentation).
    fn payload(&self) -> Result<Vec<u8>, RaceError> {
        let mut out = Vec::with_capacity(1 + 4 * self.index.len());
        out.push(self.points as u8);
        for e in &self.index {
            out.extend_from_slice(&[e.off[0], e.off[1], e.first[0], e.first[1]]);
        }
        // The values in index order (the build appends them level by level).
        for r in 0..self.index.len() {
            let e = self.index[r];
            for (d, start) in self.expand_both(r)?.iter().zip([e.off[0], e.first[0]]) {
                for p in &d[start as usize..] {
                    out.extend_from_slice(&(*p as f32).to_le_bytes());
                }
            }
        }
        Ok(out)
    }

    /// Writes the database to `path` atomically, replacing a file there.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), StoreError> {
        self.save_locked(&TargetLock::acquire(path)?, Existing::Replace)
    }

    /// Writes the database to the target of `lock`, which the caller holds; `existing` says
    /// whether a file there may be replaced.
    pub fn save_locked(&self, lock: &TargetLock, existing: Existing) -> Result<(), StoreError> {
        let payload = self.payload().map_err(|e| match e {
            RaceError::Store(e) => e,
            // Never: every rank of the index is a board.
            RaceError::Board(e) => StoreError::bad_payload(None, e),
        })?;
        crate::save_locked(
            lock,
            Kind::BearoffOneSided,
            &Self::context(self.points),
            &payload,
            existing,
        )
    }

    /// Reads a database written by [`RaceTable::save`] whole, of whichever points it covers,
    /// checking header, size, checksums and that every distribution is one (216 MB in memory
    /// for 10 points; [`RaceTable::open`] keeps only the index).
    pub fn load(path: impl AsRef<Path>) -> Result<RaceTable, StoreError> {
        with_points(path.as_ref(), |p, n| RaceTable::load_points(p, n))
    }

    /// Opens a database written by [`RaceTable::save`], of whichever points it covers: checks
    /// its header, size and every block's checksum, reads its index, and leaves the
    /// probabilities in the file, read (and checked) when a distribution is asked for
    /// (26 MB in memory for 10 points; about 0.1 s from a cached file).
    pub fn open(path: impl AsRef<Path>) -> Result<RaceTable, StoreError> {
        with_points(path.as_ref(), |p, n| RaceTable::open_points(p, n))
    }

    /// [`RaceTable::open`] for a database of `points` points.
    pub fn open_points(path: impl AsRef<Path>, points: usize) -> Result<RaceTable, StoreError> {
        let path = path.as_ref();
        check_points(path, points)?;
        let bad = |why| StoreError::bad_payload(Some(path), why);
        let file = StoreFile::open(path, Kind::BearoffOneSided, &Self::context(points))?;
        let n = race_boards(points);
        let len = file.payload_len();
        if len > Self::max_payload(points) {
            return Err(bad(PayloadError::TooLarge {
                len,
                max: Self::max_payload(points),
            }));
        }
        if len < 1 + 4 * n as u64 {
            return Err(bad(PayloadError::TooShort { len: len as usize }));
        }
        // Every block verified now, so that a damaged file is refused here rather than when
        // some race needs the part that is damaged.
        // The index is the first part of that pass.
        let mut head = vec![0u8; 1 + 4 * n];
        let mut reader = file.reader();
        if let Err(e) = std::io::Read::read_exact(&mut reader, &mut head)
            .and_then(|()| std::io::copy(&mut reader, &mut std::io::sink()))
        {
            return Err(reader.store_error(e));
        }
        drop(reader);
        if head[0] as usize != points {
            return Err(bad(PayloadError::BadPoints {
                points: head[0] as usize,
            }));
        }
        let (index, total) = parse_index(&head[1..]).map_err(bad)?;
        let base = 1 + 4 * n as u64;
        if len != base + 4 * total as u64 {
            return Err(bad(PayloadError::DataLength {
                found: (len - base) as usize,
                needed: 4 * total,
            }));
        }
        Ok(RaceTable {
            points,
            index,
            values: Values::File(file, base),
        })
    }

    /// Reads a database of `points` points; a file of other points is refused (its context
    /// differs).
    pub fn load_points(path: impl AsRef<Path>, points: usize) -> Result<RaceTable, StoreError> {
        let path = path.as_ref();
        check_points(path, points)?;
        let payload = crate::load(
            path,
            Kind::BearoffOneSided,
            &Self::context(points),
            Self::max_payload(points),
        )?;
        RaceTable::from_payload(&payload, points)
            .map_err(|why| StoreError::bad_payload(Some(path), why))
    }

    fn from_payload(payload: &[u8], points: usize) -> Result<RaceTable, PayloadError> {
        let n = race_boards(points);
        if payload.len() < 1 + 4 * n {
            return Err(PayloadError::TooShort { len: payload.len() });
        }
        if payload[0] as usize != points {
            return Err(PayloadError::BadPoints {
                points: payload[0] as usize,
            });
        }
        let (index, data) = payload[1..].split_at(4 * n);
        let (index, total) = parse_index(index)?;
        if data.len() != 4 * total {
            return Err(PayloadError::DataLength {
                found: data.len(),
                needed: 4 * total,
            });
        }
        let values: Vec<f32> = f32s(data).collect();
        for (i, e) in index.iter().enumerate() {
            for which in 0..2 {
                let span = e.span(which);
                let at = span.offset as usize;
                check_distribution(&values[at..at + span.len as usize], i)?;
            }
        }
        Ok(RaceTable {
            points,
            index,
            values: Values::Memory(values),
        })
    }
}

/// A points count no database has is refused before the file is read.
fn check_points(path: &Path, points: usize) -> Result<(), StoreError> {
    if (RACE_POINTS_MIN..=RACE_POINTS_MAX).contains(&points) {
        Ok(())
    } else {
        Err(StoreError::bad_payload(
            Some(path),
            PayloadError::BadPoints { points },
        ))
    }
}

/// `read(path, points)` for the points the file's context names (10 is tried first).
fn with_points(
    path: &Path,
    read: impl Fn(&Path, usize) -> Result<RaceTable, StoreError>,
) -> Result<RaceTable, StoreError> {
    match read(path, RACE_POINTS) {
        Err(e) => match e.kind() {
            // Another race database: the context names its points.
            tabula_store::ErrorKind::WrongContext { found, .. } => {
                match (RACE_POINTS_MIN..=RACE_POINTS_MAX).find(|&p| *found == RaceTable::context(p))
                {
                    Some(points) => read(path, points),
                    None => Err(e),
                }
            }
            _ => Err(e),
        },
        ok => ok,
    }
}

/// A race database being built, level by level of pip count: what a checkpoint saves and a
/// resumed build continues from ([`RaceBuild::save_checkpoint`], [`RaceBuild::load_checkpoint`]).
/// A build that is stopped, saved and resumed makes the same database, byte for byte, as one
/// that ran straight through: the state saved is the whole state, the means in full precision.
///
/// Checkpoint payload (a [`Kind::RaceCheckpoint`] file whose context is the database's plus
/// `build=checkpoint`; little-endian): a 32-byte record (format 1, points, levels solved,
/// number of probabilities, as `u64`), then by rank the index (offset `u32`, first roll count
/// and length of the bear-off distribution and of the first-checker one, a byte each: 8 bytes
/// a board), the expected rolls to bear off and to bear off the first checker (`f64` each),
/// then the probabilities as `f32` in the order they were solved.
pub struct RaceBuild {
    points: usize,
    /// Every spread, by pip count.
    levels: Vec<Vec<Spread>>,
    /// The levels solved: `levels[..solved_levels]` (level 0, the empty board, from the start).
    solved_levels: usize,
    /// Boards solved.
    solved_boards: usize,
    index: Vec<Entry>,
    /// Expected rolls to bear off, by rank.
    means: Vec<f64>,
    /// Expected rolls to bear off the first checker of a full board (0 for a board with a
    /// checker off), by rank.
    first_means: Vec<f64>,
    values: Vec<f32>,
}

impl fmt::Debug for RaceBuild {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RaceBuild")
            .field("points", &self.points)
            .field("solved_levels", &self.solved_levels)
            .field("levels", &self.levels.len())
            .field("solved_boards", &self.solved_boards)
            .finish()
    }
}

/// The checkpoint record's format.
const CHECKPOINT_FORMAT: u64 = 1;
/// Bytes of the checkpoint record.
const CHECKPOINT_RECORD: usize = 32;
/// Bytes a board in a checkpoint: index entry, two means.
const CHECKPOINT_BOARD: usize = 8 + 8 + 8;

/// The index entry of a board not solved yet, and of the empty board: "0 rolls" for both
/// distributions, the probability 1 at offset 0.
const UNSOLVED: Entry = Entry {
    offset: 0,
    off: [0, 1],
    first: [0, 1],
};

/// Why a race checkpoint's payload was refused: the detail of a [`StoreError`] of kind
/// [`tabula_store::ErrorKind::BadPayload`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CheckpointError {
    /// A record of another format, or of other points than the build's.
    Record { why: String },
    /// A payload of `len` bytes where the record says `expected`.
    Length { len: u64, expected: u64 },
    /// A board whose saved entry no build writes (a span outside the probabilities, a
    /// distribution that does not sum to one, a board of a level not solved yet with values).
    Board { rank: usize },
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckpointError::Record { why } => write!(f, "checkpoint record: {why}"),
            CheckpointError::Length { len, expected } => {
                write!(f, "a checkpoint of {len} bytes, its record says {expected}")
            }
            CheckpointError::Board { rank } => {
                write!(f, "board {rank}: an entry no build writes")
            }
        }
    }
}

impl std::error::Error for CheckpointError {}

impl RaceBuild {
    /// A build of the database of `points` points ([`RACE_POINTS_MIN`] to
    /// [`RACE_POINTS_MAX`]; any other count panics), nothing solved but the empty board.
    pub fn new(points: usize) -> RaceBuild {
        assert!(
            (RACE_POINTS_MIN..=RACE_POINTS_MAX).contains(&points),
            "{points} points: {RACE_POINTS_MIN} to {RACE_POINTS_MAX}"
        );
        let count = race_boards(points);
        RaceBuild {
            points,
            levels: spreads_by_pips(points),
            solved_levels: 1,
            solved_boards: 1,
            index: vec![UNSOLVED; count],
            means: vec![0.0; count],
            first_means: vec![0.0; count],
            values: vec![1.0, 1.0],
        }
    }

    /// The points of the database being built.
    pub fn points(&self) -> usize {
        self.points
    }

    /// Boards solved so far, of all.
    pub fn progress(&self) -> Progress {
        Progress {
            done: self.solved_boards,
            total: self.index.len(),
        }
    }

    /// Has every level been solved?
    pub fn is_done(&self) -> bool {
        self.solved_levels == self.levels.len()
    }

    /// Solves the next level of pip count, its boards in parallel; false when none was left.
    pub fn step(&mut self) -> bool {
        let Some(level) = self.levels.get(self.solved_levels) else {
            return false;
        };
        let (index_ro, values_ro) = (&self.index, &self.values);
        let (means_ro, first_ro) = (&self.means, &self.first_means);
        let dist = |r: usize, which: usize, into: &mut [f64; RACE_MAX_ROLLS], w: f64| {
            let span = index_ro[r].span(which);
            let at = span.offset as usize;
            let start = span.start as usize + 1;
            assert!(
                start + (span.len as usize) < RACE_MAX_ROLLS,
                "distribution overflow"
            );
            for (k, p) in values_ro[at..at + span.len as usize].iter().enumerate() {
                into[start + k] += w * f64::from(*p);
            }
        };
        type Solved = (usize, [f64; RACE_MAX_ROLLS], Option<[f64; RACE_MAX_ROLLS]>);
        let solved: Vec<Solved> = level
            .par_iter()
            .map(|s| {
                let full = s[CHECKERS - 1] > 0;
                let mut off = [0.0; RACE_MAX_ROLLS];
                let mut first = [0.0; RACE_MAX_ROLLS];
                for dice in Dice::ALL {
                    let w = f64::from(dice.weight()) / 36.0;
                    let (mut best, mut best_first) = (usize::MAX, usize::MAX);
                    for child in children(s, dice) {
                        let c = rank(&child);
                        if best == usize::MAX
                            || means_ro[c] < means_ro[best]
                            || (means_ro[c] == means_ro[best] && c < best)
                        {
                            best = c;
                        }
                        if full
                            && (best_first == usize::MAX
                                || first_ro[c] < first_ro[best_first]
                                || (first_ro[c] == first_ro[best_first] && c < best_first))
                        {
                            best_first = c;
                        }
                    }
                    dist(best, 0, &mut off, w);
                    if full {
                        // A child with a checker off has "0 rolls" as its first-checker
                        // distribution, so this adds w at one roll.
                        dist(best_first, 1, &mut first, w);
                    }
                }
                (rank(s), off, full.then_some(first))
            })
            .collect();
        let boards = level.len();
        for (r, mut off, first) in solved {
            let (a, b) = trim(&mut off);
            self.means[r] = mean_of(&off[a..b]) + a as f64;
            let mut entry = Entry {
                offset: self.values.len() as u32,
                off: [a as u8, (b - a) as u8],
                // With a checker off: "0 rolls", stored after the bear-off distribution.
                first: [0, 1],
            };
            self.values.extend(off[a..b].iter().map(|&p| p as f32));
            match first {
                Some(mut first) => {
                    let (a, b) = trim(&mut first);
                    self.first_means[r] = mean_of(&first[a..b]) + a as f64;
                    entry.first = [a as u8, (b - a) as u8];
                    self.values.extend(first[a..b].iter().map(|&p| p as f32));
                }
                None => self.values.push(1.0),
            }
            self.index[r] = entry;
        }
        self.solved_boards += boards;
        self.solved_levels += 1;
        true
    }

    /// The database, once the levels left are solved.
    pub fn finish(mut self) -> RaceTable {
        while self.step() {}
        RaceTable {
            points: self.points,
            index: self.index,
            values: Values::Memory(self.values),
        }
    }

    /// The context string of its checkpoints.
    pub fn checkpoint_context(points: usize) -> String {
        format!("{};build=checkpoint", RaceTable::context(points))
    }

    /// Writes the build's state to the target of `lock` (held by the caller), replacing the
    /// checkpoint there atomically. Streamed: nothing but the state is held in memory.
    pub fn save_checkpoint(&self, lock: &TargetLock) -> Result<(), StoreError> {
        let n = self.index.len();
        let len = (CHECKPOINT_RECORD + n * CHECKPOINT_BOARD + 4 * self.values.len()) as u64;
        let context = Self::checkpoint_context(self.points);
        let mut w = lock.writer(
            tabula_store::Spec::new(Kind::RaceCheckpoint, &context, len),
            Existing::Replace,
        )?;
        let mut record = Vec::with_capacity(CHECKPOINT_RECORD);
        for x in [
            CHECKPOINT_FORMAT,
            self.points as u64,
            self.solved_levels as u64,
            self.values.len() as u64,
        ] {
            record.extend_from_slice(&x.to_le_bytes());
        }
        w.write_payload(&record)?;
        let mut chunk = Vec::with_capacity(1 << 16);
        let mut put = |bytes: &[u8], w: &mut tabula_store::Writer<'_>| {
            chunk.extend_from_slice(bytes);
            if chunk.len() + 8 > chunk.capacity() {
                w.write_payload(&chunk)?;
                chunk.clear();
            }
            Ok::<(), StoreError>(())
        };
        for e in &self.index {
            put(&e.offset.to_le_bytes(), &mut w)?;
            put(&[e.off[0], e.off[1], e.first[0], e.first[1]], &mut w)?;
        }
        for m in self.means.iter().chain(&self.first_means) {
            put(&m.to_le_bytes(), &mut w)?;
        }
        for p in &self.values {
            put(&p.to_le_bytes(), &mut w)?;
        }
        w.write_payload(&chunk)?;
        w.finish()
    }

    /// Reads the checkpoint at `path` of a build of `points` points, checking it whole (the
    /// container's checksums, then the record, the length, and every board: a solved board's
    /// spans within the probabilities and each distribution summing to one, an unsolved one
    /// untouched); a checkpoint that fails a check is refused, never resumed from.
    pub fn load_checkpoint(path: impl AsRef<Path>, points: usize) -> Result<RaceBuild, StoreError> {
        let path = path.as_ref();
        check_points(path, points)?;
        let file = StoreFile::open(
            path,
            Kind::RaceCheckpoint,
            &Self::checkpoint_context(points),
        )?;
        let bad = |why: CheckpointError| StoreError::bad_payload(Some(path), why);
        let len = file.payload_len();
        let mut reader = file.reader();
        let mut read = |buf: &mut [u8]| {
            std::io::Read::read_exact(&mut reader, buf).map_err(|e| reader.store_error(e))
        };
        let mut record = [0u8; CHECKPOINT_RECORD];
        if len < CHECKPOINT_RECORD as u64 {
            return Err(bad(CheckpointError::Length {
                len,
                expected: CHECKPOINT_RECORD as u64,
            }));
        }
        read(&mut record)?;
        let field = |i: usize| {
            let mut x = [0u8; 8];
            x.copy_from_slice(&record[8 * i..8 * i + 8]);
            u64::from_le_bytes(x)
        };
        let mut build = RaceBuild::new(points);
        let n = build.index.len();
        let (format, saved_points, solved_levels, values) =
            (field(0), field(1), field(2), field(3));
        let record_error = |why: String| bad(CheckpointError::Record { why });
        if format != CHECKPOINT_FORMAT {
            return Err(record_error(format!(
                "format {format}, expected {CHECKPOINT_FORMAT}"
            )));
        }
        if saved_points != points as u64 {
            return Err(record_error(format!(
                "{saved_points} points, expected {points}"
            )));
        }
        if !(1..=build.levels.len() as u64).contains(&solved_levels) {
            return Err(record_error(format!(
                "{solved_levels} levels solved, of {}",
                build.levels.len()
            )));
        }
        // At most 2 × RACE_MAX_ROLLS probabilities a board.
        let most_values = 2 * RACE_MAX_ROLLS as u64 * n as u64;
        if values > most_values {
            return Err(record_error(format!("{values} probabilities")));
        }
        let expected = CHECKPOINT_RECORD as u64 + (n * CHECKPOINT_BOARD) as u64 + 4 * values;
        if len != expected {
            return Err(bad(CheckpointError::Length { len, expected }));
        }
        let mut bytes = vec![0u8; 8 * n];
        read(&mut bytes)?;
        for (e, b) in build.index.iter_mut().zip(bytes.chunks_exact(8)) {
            *e = Entry {
                offset: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                off: [b[4], b[5]],
                first: [b[6], b[7]],
            };
        }
        for means in [&mut build.means, &mut build.first_means] {
            read(&mut bytes)?;
            means.clear();
            means.extend(crate::f64s(&bytes));
        }
        drop(bytes);
        build.values = Vec::with_capacity(values as usize);
        let mut chunk = vec![0u8; 1 << 16];
        let mut left = 4 * values as usize;
        while left > 0 {
            let take = left.min(chunk.len());
            read(&mut chunk[..take])?;
            build.values.extend(f32s(&chunk[..take]));
            left -= take;
        }
        build.solved_levels = solved_levels as usize;
        build.solved_boards = build.levels[..build.solved_levels]
            .iter()
            .map(Vec::len)
            .sum();
        build.check().map_err(bad)?;
        Ok(build)
    }

    /// Every board as a build leaves it: see [`RaceBuild::load_checkpoint`].
    fn check(&self) -> Result<(), CheckpointError> {
        let unsolved = |r: usize| {
            self.index[r] != UNSOLVED || self.means[r] != 0.0 || self.first_means[r] != 0.0
        };
        for (l, level) in self.levels.iter().enumerate() {
            for s in level {
                let r = rank(s);
                let fine = if l == 0 || l >= self.solved_levels {
                    !unsolved(r)
                } else {
                    let e = self.index[r];
                    (0..2).all(|which| {
                        let span = e.span(which);
                        let at = span.offset as usize;
                        let end = at + span.len as usize;
                        bad_span(r, span.start, span.len).is_none()
                            && end <= self.values.len()
                            && check_distribution(&self.values[at..end], r).is_ok()
                    }) && self.means[r].is_finite()
                        && self.first_means[r].is_finite()
                };
                if !fine {
                    return Err(CheckpointError::Board { rank: r });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{unrank, FewCheckers, OneSided, POINTS};
    use super::*;
    use std::sync::OnceLock;
    use tabula_engine::backgammon::{Position, Side};

    /// The smallest database (7 points, 170,544 boards), built once for the tests.
    fn table7() -> &'static RaceTable {
        static T: OnceLock<RaceTable> = OnceLock::new();
        T.get_or_init(|| RaceTable::build(7))
    }

    fn counts_of(s: &Spread) -> [u8; 25] {
        let mut c = [0u8; 25];
        for &p in s.iter().filter(|&&p| p > 0) {
            c[p as usize - 1] += 1;
        }
        c
    }

    #[test]
    fn ranks_are_a_bijection() {
        let points = 7;
        let mut seen = vec![false; race_boards(points)];
        for level in spreads_by_pips(points) {
            for s in level {
                let r = rank(&s);
                assert!(!seen[r], "{s:?} ranked twice");
                seen[r] = true;
                assert_eq!(spread_of(&counts_of(&s), points), Ok(s));
            }
        }
        assert!(seen.iter().all(|&x| x));
    }

    /// The plays agree with the engine's own generator (the opponent's fifteen checkers on
    /// its own ace point, the mover's 24-point, out of the way of every play).
    #[test]
    fn plays_agree_with_the_engine() {
        let mut opp = [0u8; 25];
        opp[0] = 15;
        let mut compared = 0;
        for level in spreads_by_pips(8).iter().step_by(3) {
            for s in level.iter().step_by(97) {
                if s[0] == 0 {
                    continue;
                }
                let pos = Position::from_counts(counts_of(s), opp).unwrap();
                for dice in Dice::ALL {
                    let mut engine: Vec<Spread> = pos
                        .plays(dice)
                        .iter()
                        .map(|p| spread_of(&p.result().counts(Side::Opponent), 8).unwrap())
                        .collect();
                    engine.sort_unstable();
                    engine.dedup();
                    let mut ours = children(s, dice);
                    ours.sort_unstable();
                    assert!(ours.iter().all(|c| pips(c) < pips(s)), "{s:?} {dice}");
                    assert_eq!(ours, engine, "{s:?} {dice}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 10_000, "{compared}");
    }

    /// On the home board the one-sided database and this table are the same computation by
    /// different code: means and distributions agree to the `f32` of the values.
    #[test]
    fn home_boards_agree_with_the_one_sided_database() {
        let os = OneSided::build();
        let race = table7();
        for index in 0..super::super::ONE_SIDED_POSITIONS {
            let board = unrank(index);
            let mut c = [0u8; 25];
            c[..POINTS].copy_from_slice(&board);
            for (ours, theirs) in [
                (race.distribution(&c), os.distribution(board)),
                (
                    race.first_off_distribution(&c),
                    os.first_off_distribution(board),
                ),
            ] {
                let (ours, theirs) = (ours.unwrap(), theirs.unwrap());
                for k in 0..ours.len().max(theirs.len()) {
                    let (a, b) = (ours.get(k).unwrap_or(&0.0), theirs.get(k).unwrap_or(&0.0));
                    assert!((a - b).abs() < 1e-6, "{board:?}, {k} rolls: {a} vs {b}");
                }
            }
            let m = race.mean_rolls(&c).unwrap();
            assert!(
                (m - os.mean_rolls(board).unwrap()).abs() < 1e-5,
                "{board:?}"
            );
        }
    }

    /// Boards of up to four checkers anywhere on the first 7 points are also
    /// [`FewCheckers`]'s, built by other code.
    #[test]
    fn few_checkers_agree() {
        let few = FewCheckers::build();
        let mut compared = 0;
        for level in spreads_by_pips(7) {
            for s in level.iter().filter(|s| s[4] == 0) {
                let c = counts_of(s);
                let (ours, theirs) = (
                    table7().distribution(&c).unwrap(),
                    few.distribution(&c).unwrap(),
                );
                for k in 0..ours.len().max(theirs.len()) {
                    let (a, b) = (ours.get(k).unwrap_or(&0.0), theirs.get(k).unwrap_or(&0.0));
                    assert!((a - b).abs() < 1e-6, "{s:?}, {k} rolls: {a} vs {b}");
                }
                compared += 1;
            }
        }
        assert_eq!(compared, choose(7 + 4, 4));
    }

    /// Child/parent consistency: every full board's means are one roll more than the
    /// average, over the 21 rolls, of the best child's means (the bear-off and the
    /// first-checker one, each minimised on its own).
    #[test]
    fn means_are_consistent_with_the_plays() {
        let race = table7();
        let mut checked = 0;
        for level in spreads_by_pips(7).iter().skip(1) {
            for s in level.iter().step_by(11) {
                let full = s[CHECKERS - 1] > 0;
                let (mut off, mut first) = (1.0, 1.0);
                for dice in Dice::ALL {
                    let w = f64::from(dice.weight()) / 36.0;
                    let kids = children(s, dice);
                    let best = |f: &dyn Fn(&[u8; 25]) -> f64| {
                        kids.iter()
                            .map(|k| f(&counts_of(k)))
                            .fold(f64::INFINITY, f64::min)
                    };
                    off += w * best(&|c| race.mean_rolls(c).unwrap());
                    first += w * best(&|c| race.first_off_mean(c).unwrap());
                }
                let c = counts_of(s);
                assert!((race.mean_rolls(&c).unwrap() - off).abs() < 1e-4, "{s:?}");
                let expected_first = if full { first } else { 0.0 };
                let got = race.first_off_mean(&c).unwrap();
                assert!(
                    (got - expected_first).abs() < 1e-4,
                    "{s:?}: {got} {expected_first}"
                );
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn bad_boards_are_errors() {
        let race = table7();
        let mut c = [0u8; 25];
        c[7] = 1; // the 8-point
        assert!(matches!(
            race.distribution(&c),
            Err(RaceError::Board(BoardError::BeyondPoints {
                point: 8,
                points: 7
            }))
        ));
        c[7] = 0;
        c[24] = 1;
        assert!(matches!(
            race.mean_rolls(&c),
            Err(RaceError::Board(BoardError::OnTheBar))
        ));
        assert_eq!(race.distribution(&[0; 25]).unwrap(), vec![1.0]);
    }

    #[test]
    fn files_round_trip_and_a_wrong_file_is_refused() {
        let dir = std::env::temp_dir().join(format!("tabula-race-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("race7.tdb");
        table7().save(&path).unwrap();
        // Found by its context, whatever the points; read whole or opened, the same figures.
        let back = RaceTable::load(&path).unwrap();
        let opened = RaceTable::open(&path).unwrap();
        assert_eq!((back.points(), opened.points()), (7, 7));
        for level in spreads_by_pips(7).iter().step_by(3) {
            for s in level.iter().step_by(29) {
                let c = counts_of(s);
                let want = table7().distribution(&c).unwrap();
                assert_eq!(back.distribution(&c).unwrap(), want);
                assert_eq!(opened.distribution(&c).unwrap(), want);
                let want = table7().first_off_distribution(&c).unwrap();
                assert_eq!(opened.first_off_distribution(&c).unwrap(), want);
            }
        }
        // An opened database saves the same file.
        let copy = dir.join("copy.tdb");
        opened.save(&copy).unwrap();
        assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(&path).unwrap());
        let e = RaceTable::load_points(&path, 8).unwrap_err();
        assert!(e.to_string().contains("points=7"), "{e}");
        // The one-sided bear-off database is not a race database.
        let os = dir.join("os.tdb");
        OneSided::build().save(&os).unwrap();
        for e in [
            RaceTable::load(&os).unwrap_err(),
            RaceTable::open(&os).unwrap_err(),
        ] {
            assert!(e.to_string().contains("bearoff-os"), "{e}");
        }
        // A damaged byte in the payload fails its block's checksum: refused by both, at once.
        let mut bytes = std::fs::read(&path).unwrap();
        let n = bytes.len();
        bytes[n - 100] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(RaceTable::load(&path).is_err());
        let e = RaceTable::open(&path).unwrap_err();
        assert!(
            matches!(e.kind(), tabula_store::ErrorKind::Corrupt { .. }),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn payload_round_trip_and_damage() {
        let race = table7();
        let payload = race.payload().unwrap();
        let back = RaceTable::from_payload(&payload, 7).unwrap();
        // Spans are renumbered in index order; the distributions are the same.
        for level in spreads_by_pips(7).iter().step_by(5) {
            for s in level.iter().step_by(13) {
                let c = counts_of(s);
                assert_eq!(
                    back.distribution(&c).unwrap(),
                    race.distribution(&c).unwrap()
                );
                assert_eq!(
                    back.first_off_distribution(&c).unwrap(),
                    race.first_off_distribution(&c).unwrap()
                );
            }
        }
        assert_eq!(back.payload().unwrap(), payload);
        // Asked for 8 points, the payload says 7.
        assert_eq!(
            RaceTable::from_payload(&payload, 8).unwrap_err(),
            PayloadError::BadPoints { points: 7 }
        );
        assert_eq!(
            RaceTable::from_payload(&payload[..100], 7).unwrap_err(),
            PayloadError::TooShort { len: 100 }
        );
        let mut bad = payload.clone();
        bad[0] = 9;
        assert_eq!(
            RaceTable::from_payload(&bad, 7).unwrap_err(),
            PayloadError::BadPoints { points: 9 }
        );
        let mut bad = payload.clone();
        let last = bad.len() - 1;
        bad[last] ^= 0x40; // a probability's exponent
        assert!(RaceTable::from_payload(&bad, 7).is_err());
        assert!(matches!(
            RaceTable::from_payload(&payload[..payload.len() - 4], 7),
            Err(PayloadError::DataLength { .. })
        ));
    }

    /// A build stopped at any level, saved and resumed makes the same file as a build that
    /// ran straight through; a checkpoint that no build writes is refused.
    #[test]
    fn a_resumed_build_makes_the_same_database() {
        let dir = std::env::temp_dir().join(format!("tabula-race-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("race7.tdb.checkpoint");
        let want = table7().payload().unwrap();
        let levels = spreads_by_pips(7).len();
        // Stopped past the middle (a 7-point build takes seconds: one build in all).
        let mut build = RaceBuild::new(7);
        for _ in 0..60 {
            assert!(build.step());
        }
        let lock = TargetLock::acquire(&path).unwrap();
        build.save_checkpoint(&lock).unwrap();
        drop(lock);
        let resumed = RaceBuild::load_checkpoint(&path, 7).unwrap();
        assert_eq!(resumed.progress(), build.progress());
        assert!(!resumed.is_done() && levels > 61);
        assert_eq!(resumed.finish().payload().unwrap(), want);
        // Another database's checkpoint: refused by its context.
        let e = RaceBuild::load_checkpoint(&path, 8).unwrap_err();
        assert!(e.to_string().contains("points=7"), "{e}");
        // A state no build leaves, written with intact checksums: refused by the checks.
        let refused = |build: &RaceBuild| {
            let lock = TargetLock::acquire(&path).unwrap();
            build.save_checkpoint(&lock).unwrap();
            drop(lock);
            let e = RaceBuild::load_checkpoint(&path, 7).unwrap_err();
            assert!(
                matches!(e.kind(), tabula_store::ErrorKind::BadPayload { .. }),
                "{e}"
            );
            e.to_string()
        };
        let mut build = RaceBuild::new(7);
        for _ in 0..10 {
            build.step();
        }
        let solved = rank(&build.levels[9][0]);
        let unsolved = rank(&build.levels[11][0]);
        let mut bad = RaceBuild::new(7);
        bad.solved_levels = 0;
        assert!(refused(&bad).contains("0 levels solved"));
        let mut bad = RaceBuild::new(7);
        bad.solved_levels = levels + 1;
        assert!(refused(&bad).contains("levels solved"));
        let mut bad = std::mem::replace(&mut build, RaceBuild::new(7));
        bad.index[solved].offset = bad.values.len() as u32;
        assert!(refused(&bad).contains(&format!("board {solved}")));
        bad.index[solved].offset = 2;
        bad.index[solved].off[1] = 0;
        assert!(refused(&bad).contains(&format!("board {solved}")));
        let mut bad = RaceBuild::new(7);
        for _ in 0..10 {
            bad.step();
        }
        bad.means[unsolved] = 3.0;
        assert!(refused(&bad).contains(&format!("board {unsolved}")));
        // The container's own checks come first: a damaged byte fails its block's checksum.
        let mut bytes = std::fs::read(&path).unwrap();
        let n = bytes.len();
        bytes[n - 10] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let e = RaceBuild::load_checkpoint(&path, 7).unwrap_err();
        assert!(
            matches!(e.kind(), tabula_store::ErrorKind::Corrupt { .. }),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
