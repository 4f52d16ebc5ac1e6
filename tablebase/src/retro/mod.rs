//! Retrograde tables of loopy games: a parallel builder, resumable and interruptible, and lazy
//! probing of the files it writes. Generic over any game that implements
//! [`Retrograde`]; Pylos is the first user.
//!
//! # What is computed
//!
//! Every index of the game's rank space (`0..game.size()`) gets a [`Value`] from the side to
//! move: a [`Value::Hole`] where `unrank` gives no position, [`Value::Win`] or [`Value::Loss`]
//! with the distance in plies under best play (the winner takes the fastest win, the loser
//! the slowest loss), or [`Value::Draw`] where neither side can force an end (infinite play),
//! or the game ends drawn. A primitive position is decided at distance 0 by `primitive`. For a
//! non-primitive position `p`:
//!
//! - `p` is won in `d + 1` if some child is lost in `d`, `d` the least such distance;
//! - `p` is lost in `d + 1` if every child is won, `d` the largest of their distances;
//! - `p` is a draw otherwise (some child is a draw, or the win/loss recursion never ends).
//!
//! # The algorithm ([`build`])
//!
//! 1. **Holes** ([`Phase::Holes`]): every index is unranked, in parallel chunks. A hole is
//!    marked; a primitive position is decided at distance 0; `rank(unrank(i)) == i` is checked.
//! 2. **Children** ([`Phase::Children`], only when the game has un-moves): each undecided
//!    position stores its number of distinct children in a counter (a game bug — a child out
//!    of range or a hole, a non-primitive position without children — is an error naming the
//!    index).
//! 3. **Levels** `d = 0, 1, 2, …`: the positions decided at distance `d` are found by scanning
//!    the value array.
//!    - With un-moves ([`Phase::Propagate`]): each such position's parents are visited. A
//!      child lost in `d` makes each undecided parent won in `d + 1`; a child won in `d`
//!      decrements each parent's counter, and a counter reaching zero makes the parent lost in
//!      `d + 1` (all its children are won, the last at `d`).
//!    - Without ([`Phase::Sweep`]): every undecided position reads its children's values and
//!      applies the definition above to the values decided at distance `d` or less (slower: it
//!      regenerates the children of every undecided position at every level).
//!
//!    A level that decides nothing at `d + 1` ends the build: no later level can decide
//!    anything, since every decision at `d + 2` needs a child decided at `d + 1`.
//! 4. Every position still undecided is a **draw**.
//!
//! Within a phase the indices are processed in batches ([`BuildOptions::batch`]), each batch
//! in parallel chunks on a rayon pool; values are set with compare-exchange and counters
//! decremented with `fetch_sub`. The result is **bit-identical for any number of threads**:
//! at level `d`, what a position becomes depends only on the values decided at distance `d` or
//! less, which no thread changes during level `d` (decisions made during the level are at
//! `d + 1`, a code that level `d` neither scans nor reads); every decision is a write of the
//! same value whichever thread makes it first; a counter's value after the level is its
//! initial count minus the number of its children won at `d` or less, a sum that does not
//! depend on the order of the decrements (counters are decremented whether or not the parent
//! is already decided, so that checkpoints are thread-independent too). The summary is a
//! reduction with ties broken by the smallest index.
//!
//! # Value encoding: one byte per index
//!
//! | byte | value |
//! | --- | --- |
//! | 0 | draw (during a build: undecided) |
//! | 1 | hole |
//! | 2 + 2·d | loss in `d` plies, `d` ≤ [`MAX_PLIES`] (126) |
//! | 3 + 2·d | win in `d` plies |
//!
//! One byte keeps the full Pylos space (about 1.56 G symmetry classes) at 1.56 GB of values;
//! the published distances (46 plies at most from the start) leave room under 126. A build
//! that would decide a position at a larger distance stops with
//! [`BuildError::DistanceOverflow`], never a wrapped value. The file's context is the game's
//! context plus `encoding=retro8` (see [`table_context`]), so a later encoding cannot be
//! misread as this one.
//!
//! Counters are `u16` (2 bytes per index, while building with un-moves only): a Pylos
//! position has more than 255 distinct moves in the worst case (placements times the choices
//! of up to two balls to remove), so a byte could overflow, and 65,534 distinct children
//! ([`MAX_CHILDREN`]) is beyond any game we build; more is [`BuildError::TooManyChildren`].
//! Peak memory is 3 bytes per index (4.7 GB for Pylos) plus the game's own tables; the
//! sweep mode needs only the value byte.
//!
//! # Long builds
//!
//! [`build`] reports [`Progress`] after each batch (phase, done/total, elapsed: enough for an
//! ETA within a phase), checks an interrupt flag ([`BuildOptions::interrupt`], set by Ctrl-C)
//! after each batch and then writes a checkpoint and returns [`BuildError::Interrupted`], and
//! writes a checkpoint every [`BuildOptions::checkpoint_every`] (five minutes by default), so a
//! `kill -9` loses at most that much. A checkpoint holds the stage, the values and the
//! counters; [`BuildOptions::resume`] continues from it (a checkpoint of another game, context,
//! mode or size, or a damaged one, is refused with a [`StoreError`]). A fresh build refuses to
//! start over an existing checkpoint ([`BuildError::CheckpointExists`]): a user's hours of
//! work are not discarded without being asked. The table is written atomically under its lock
//! ([`tabula_store::TargetLock`], held from the start of the build), never over an existing
//! table unless [`Existing::Replace`] is asked; the checkpoint is removed once it is written.
//!
//! # Files
//!
//! The table ([`Kind::RetroTable`]): the value bytes of every index in order, then a 72-byte
//! summary record (format 1, then won, lost, drawn, holes, and the longest win's and longest
//! loss's plies and index, `u64::MAX` plies for none; little-endian `u64`s), in checksummed
//! blocks of 64 KiB. The checkpoint ([`Kind::RetroCheckpoint`], context of the table plus
//! `mode=parents` or `mode=sweep`): a 64-byte record (format 1, size, stage, level, next index,
//! decided count, elapsed milliseconds, mode), the value bytes, and with un-moves the counters
//! as little-endian `u16`.
//!
//! # Probing ([`Table`])
//!
//! [`Table::open`] checks the header (kind, context), the length and the summary record;
//! [`Table::value`] reads one byte by a positional read, verifying the checksum of its block the
//! first time the block is touched. Nothing reads the whole file into memory;
//! [`Table::verify`] streams it once to check every block and the summary's counts.
//!
//! ```no_run
//! # use tabula_engine::retro::Retrograde;
//! # fn demo<G: Retrograde>(game: &G) -> Result<(), Box<dyn std::error::Error>> {
//! use tabula_tablebase::retro::{build, BuildOptions, Table};
//!
//! let summary = build(game, &BuildOptions::new("game.tb"), |p| eprintln!("{p}"))?;
//! println!("{} won, {} lost, {} drawn", summary.won, summary.lost, summary.drawn);
//! let table = Table::open("game.tb", game)?;
//! println!("index 0: {}", table.value(0)?);
//! # Ok(())
//! # }
//! ```

mod census;
mod solve;
mod state;
mod table;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use tabula_engine::retro::Retrograde;
use tabula_store::{Existing, Kind, StoreError};

pub use census::{census, Census, CensusError, CensusProgress};
pub use solve::build;
pub use table::Table;

/// The longest distance in plies the one-byte encoding holds.
pub const MAX_PLIES: u32 = 126;

/// The most distinct children a position may have (counters are `u16`, one code reserved).
pub const MAX_CHILDREN: usize = u16::MAX as usize - 1;

/// The value of one index, from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// No position has this index.
    Hole,
    /// Neither side can force a win (or the game ends drawn).
    Draw,
    /// The side to move wins in this many plies (the fastest win).
    Win(u32),
    /// The side to move loses in this many plies (the slowest loss).
    Loss(u32),
}

/// Byte 0: a draw in a table, an undecided position during a build.
pub(crate) const DRAW: u8 = 0;
/// Byte 1: a hole.
pub(crate) const HOLE: u8 = 1;

/// The byte of a loss in `plies` (at most [`MAX_PLIES`]).
pub(crate) const fn loss_byte(plies: u32) -> u8 {
    (2 + 2 * plies) as u8
}

/// The byte of a win in `plies` (at most [`MAX_PLIES`]).
pub(crate) const fn win_byte(plies: u32) -> u8 {
    (3 + 2 * plies) as u8
}

impl Value {
    /// The value a table byte encodes (every byte encodes one: see the module documentation).
    pub fn from_byte(byte: u8) -> Value {
        match byte {
            DRAW => Value::Draw,
            HOLE => Value::Hole,
            b if b % 2 == 0 => Value::Loss((b as u32 - 2) / 2),
            b => Value::Win((b as u32 - 3) / 2),
        }
    }

    /// The byte encoding this value, or `None` for a distance over [`MAX_PLIES`].
    pub fn to_byte(self) -> Option<u8> {
        match self {
            Value::Draw => Some(DRAW),
            Value::Hole => Some(HOLE),
            Value::Loss(d) => (d <= MAX_PLIES).then(|| loss_byte(d)),
            Value::Win(d) => (d <= MAX_PLIES).then(|| win_byte(d)),
        }
    }

    /// The distance in plies of a win or loss.
    pub fn plies(self) -> Option<u32> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw | Value::Hole => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Hole => f.write_str("hole"),
            Value::Draw => f.write_str("draw"),
            Value::Win(d) => write!(f, "win in {d}"),
            Value::Loss(d) => write!(f, "loss in {d}"),
        }
    }
}

/// The context string of a game's tables: the game's context and the value encoding.
pub fn table_context<G: Retrograde>(game: &G) -> String {
    let game = game.context();
    if game.is_empty() {
        "encoding=retro8".to_string()
    } else {
        format!("{game};encoding=retro8")
    }
}

/// The context string of a game's build checkpoints: the table's and the build mode.
pub(crate) fn checkpoint_context<G: Retrograde>(game: &G, parents: bool) -> String {
    let mode = if parents { "parents" } else { "sweep" };
    format!("{};mode={mode}", table_context(game))
}

/// What [`build`] does and where it writes.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct BuildOptions<'a> {
    /// The table to write.
    pub output: PathBuf,
    /// The checkpoint file; `None`: the output's path with `.checkpoint` appended.
    pub checkpoint: Option<PathBuf>,
    /// Whether an existing table is replaced (default: refused).
    pub existing: Existing,
    /// Continue from the checkpoint (an error if there is none).
    pub resume: bool,
    /// Threads of the build's rayon pool; `None`: one per core.
    pub threads: Option<usize>,
    /// How often a checkpoint is written (default five minutes; zero: after every batch).
    pub checkpoint_every: Duration,
    /// Indices per batch: the unit of progress reports, interrupt checks and checkpoints
    /// (default 2^20, a few seconds of work at most in every phase of a Pylos build).
    pub batch: u64,
    /// Propagate through un-moves when the game has them (default true); false sweeps.
    pub use_parents: bool,
    /// Set (e.g. by a Ctrl-C handler) to stop after the current batch with a checkpoint.
    pub interrupt: Option<&'a AtomicBool>,
}

/// The default interval between checkpoints: a `kill -9` loses at most this much work, and a
/// Pylos checkpoint (4.7 GB) takes some seconds to write.
pub const DEFAULT_CHECKPOINT_EVERY: Duration = Duration::from_secs(300);

impl<'a> BuildOptions<'a> {
    /// Defaults for a table at `output`.
    pub fn new(output: impl Into<PathBuf>) -> BuildOptions<'a> {
        BuildOptions {
            output: output.into(),
            checkpoint: None,
            existing: Existing::Refuse,
            resume: false,
            threads: None,
            checkpoint_every: DEFAULT_CHECKPOINT_EVERY,
            batch: 1 << 20,
            use_parents: true,
            interrupt: None,
        }
    }

    /// The checkpoint file this build uses.
    pub fn checkpoint_path(&self) -> PathBuf {
        match &self.checkpoint {
            Some(p) => p.clone(),
            None => {
                let mut name = self.output.clone().into_os_string();
                name.push(".checkpoint");
                PathBuf::from(name)
            }
        }
    }
}

/// The phase a build is in (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Unranking every index: holes and primitive positions.
    Holes,
    /// Counting the children of every undecided position.
    Children,
    /// Propagating the positions decided at `level` to their parents.
    Propagate { level: u32 },
    /// Sweeping the undecided positions against the values decided up to `level`.
    Sweep { level: u32 },
    /// Writing the table (`done` and `total` in bytes).
    Write,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Phase::Holes => f.write_str("holes"),
            Phase::Children => f.write_str("children"),
            Phase::Propagate { level } => write!(f, "level {level}"),
            Phase::Sweep { level } => write!(f, "sweep {level}"),
            Phase::Write => f.write_str("write"),
        }
    }
}

/// How far a build has come, reported after each batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub phase: Phase,
    /// Indices (bytes when writing) done in this phase.
    pub done: u64,
    /// Indices (bytes) of this phase.
    pub total: u64,
    /// In a level, the positions it has decided so far (at `level + 1`).
    pub decided: u64,
    /// Time spent on the build, sessions before a resume included.
    pub elapsed: Duration,
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = if self.total == 0 {
            100.0
        } else {
            100.0 * self.done as f64 / self.total as f64
        };
        write!(
            f,
            "{}: {}/{} ({pct:.1}%), {:.0} s",
            self.phase,
            self.done,
            self.total,
            self.elapsed.as_secs_f64()
        )?;
        if matches!(self.phase, Phase::Propagate { .. } | Phase::Sweep { .. }) {
            write!(f, ", {} decided", self.decided)?;
        }
        Ok(())
    }
}

/// The longest win or loss of a table and one position (the smallest index) that has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Longest {
    pub plies: u32,
    pub index: u64,
}

/// What a table holds: counts by value and the longest distances.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Indices: positions and holes.
    pub size: u64,
    /// Positions won by the side to move.
    pub won: u64,
    /// Positions lost by the side to move.
    pub lost: u64,
    /// Drawn positions.
    pub drawn: u64,
    /// Indices without a position.
    pub holes: u64,
    /// The longest win (`None` when nothing is won).
    pub longest_win: Option<Longest>,
    /// The longest loss (`None` when nothing is lost).
    pub longest_loss: Option<Longest>,
    /// The build's time, sessions before a resume included (`None` when read from a file:
    /// the file holds no time, so that builds are bit-identical).
    pub build_time: Option<Duration>,
}

/// Why a build stopped without a table.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// Reading or writing a file: the table, the checkpoint or a lock (a damaged or foreign
    /// checkpoint, an existing table with [`Existing::Refuse`], another build on the file).
    Store(StoreError),
    /// Stopped by the interrupt flag after writing a checkpoint.
    Interrupted { checkpoint: PathBuf },
    /// `resume` was asked and there is no checkpoint.
    NoCheckpoint { path: PathBuf },
    /// A fresh build was asked and a checkpoint of an earlier one exists.
    CheckpointExists { path: PathBuf },
    /// The build's arrays could not be allocated.
    OutOfMemory { bytes: u64 },
    /// The rayon pool could not be started.
    Threads { why: String },
    /// A position would be decided at a distance the encoding cannot hold.
    DistanceOverflow { index: u64, plies: u32 },
    /// A position with more distinct children than a counter holds.
    TooManyChildren { index: u64, children: usize },
    /// A game bug: `index` lists `neighbour` among its children or parents, outside the
    /// index space or at a hole (or a primitive position, for a parent).
    BadNeighbour {
        index: u64,
        neighbour: u64,
        relation: Relation,
        why: &'static str,
    },
    /// A game bug: `rank(unrank(index))` is `rank`.
    RankMismatch { index: u64, rank: u64 },
    /// A game bug: a non-primitive position without children.
    NoChildren { index: u64 },
    /// A game bug: `unrank(index)` gave a position once and `None` later.
    Unstable { index: u64 },
    /// A game bug: `index` was listed as a parent by more won children than it has children
    /// (its children and the parents of its children disagree).
    InconsistentParents { index: u64, child: u64 },
}

/// Which list of a position named a bad index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    Child,
    Parent,
}

impl BuildError {
    /// True when the build stopped because the interrupt flag was set.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, BuildError::Interrupted { .. })
    }

    /// True when the fault lies in the game's implementation (its ranking, moves or un-moves).
    pub fn is_game_bug(&self) -> bool {
        matches!(
            self,
            BuildError::BadNeighbour { .. }
                | BuildError::RankMismatch { .. }
                | BuildError::NoChildren { .. }
                | BuildError::Unstable { .. }
                | BuildError::InconsistentParents { .. }
        )
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Store(e) => write!(f, "{e}"),
            BuildError::Interrupted { checkpoint } => write!(
                f,
                "interrupted; checkpoint written to {} (resume to continue)",
                checkpoint.display()
            ),
            BuildError::NoCheckpoint { path } => {
                write!(f, "no checkpoint to resume at {}", path.display())
            }
            BuildError::CheckpointExists { path } => write!(
                f,
                "a checkpoint of an earlier build exists at {}: resume it or remove it",
                path.display()
            ),
            BuildError::OutOfMemory { bytes } => {
                write!(f, "cannot allocate {bytes} bytes for the build")
            }
            BuildError::Threads { why } => write!(f, "cannot start the build's threads: {why}"),
            BuildError::DistanceOverflow { index, plies } => write!(
                f,
                "index {index} would be decided in {plies} plies: the encoding holds at most \
                 {MAX_PLIES}"
            ),
            BuildError::TooManyChildren { index, children } => write!(
                f,
                "index {index} has {children} distinct children: at most {MAX_CHILDREN}"
            ),
            BuildError::BadNeighbour {
                index,
                neighbour,
                relation,
                why,
            } => {
                let rel = match relation {
                    Relation::Child => "child",
                    Relation::Parent => "parent",
                };
                write!(f, "game bug: index {index} has {rel} {neighbour}, {why}")
            }
            BuildError::RankMismatch { index, rank } => {
                write!(
                    f,
                    "game bug: index {index} unranks to a position of rank {rank}"
                )
            }
            BuildError::NoChildren { index } => write!(
                f,
                "game bug: index {index} is not primitive and has no children"
            ),
            BuildError::Unstable { index } => write!(
                f,
                "game bug: index {index} unranked to a position, then to none"
            ),
            BuildError::InconsistentParents { index, child } => write!(
                f,
                "game bug: index {index} is a parent of {child} by its un-moves, and its \
                 children disagree"
            ),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Store(e) => Some(e),
            _ => None,
        }
    }
}

impl From<StoreError> for BuildError {
    fn from(e: StoreError) -> BuildError {
        BuildError::Store(e)
    }
}

/// Why a retrograde table's or checkpoint's payload was refused: the detail of a
/// [`StoreError`] of kind [`tabula_store::ErrorKind::BadPayload`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RetroPayloadError {
    /// A payload of another length than the game's index space needs.
    WrongLength { len: u64, expected: u64 },
    /// A field of the summary or checkpoint record that cannot be right.
    BadRecord { field: &'static str },
    /// A probe outside the index space.
    IndexOutOfRange { index: u64, size: u64 },
    /// The values do not add up to the summary record ([`Table::verify`]).
    SummaryMismatch,
}

impl fmt::Display for RetroPayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RetroPayloadError::WrongLength { len, expected } => {
                write!(f, "payload of {len} bytes, expected {expected}")
            }
            RetroPayloadError::BadRecord { field } => write!(f, "bad record field `{field}`"),
            RetroPayloadError::IndexOutOfRange { index, size } => {
                write!(f, "index {index} outside the table's 0..{size}")
            }
            RetroPayloadError::SummaryMismatch => {
                f.write_str("the values do not match the summary record")
            }
        }
    }
}

impl std::error::Error for RetroPayloadError {}

/// The kind of a table file.
pub(crate) const TABLE_KIND: Kind = Kind::RetroTable;
/// The kind of a checkpoint file.
pub(crate) const CHECKPOINT_KIND: Kind = Kind::RetroCheckpoint;

/// A bad-payload error about `path`.
pub(crate) fn bad(path: &Path, why: RetroPayloadError) -> StoreError {
    StoreError::bad_payload(Some(path), why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_round_trips() {
        for b in 0..=255u8 {
            assert_eq!(Value::from_byte(b).to_byte(), Some(b));
        }
        assert_eq!(Value::from_byte(2), Value::Loss(0));
        assert_eq!(Value::from_byte(3), Value::Win(0));
        assert_eq!(Value::from_byte(254), Value::Loss(MAX_PLIES));
        assert_eq!(Value::from_byte(255), Value::Win(MAX_PLIES));
        assert_eq!(Value::Win(MAX_PLIES + 1).to_byte(), None);
        assert_eq!(Value::Loss(MAX_PLIES + 1).to_byte(), None);
    }
}
