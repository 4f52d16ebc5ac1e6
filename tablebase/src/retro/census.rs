//! [`census`]: the positions reachable from a root, counted by their value in a table.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;
use tabula_engine::retro::Retrograde;
use tabula_store::StoreError;

use super::{Table, Value};

/// Classes reachable from a root (the root included) by their value for the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// Reachable classes (positions up to the game's symmetries).
    pub positions: u64,
    pub won: u64,
    pub lost: u64,
    pub drawn: u64,
}

/// A report after each ply of a [`census`] walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CensusProgress {
    /// Plies from the root of the ply just counted (the root is ply 0).
    pub ply: u32,
    /// Classes first reached at that ply.
    pub frontier: u64,
    /// Classes counted so far, that ply included.
    pub so_far: u64,
}

impl fmt::Display for CensusProgress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "census: ply {}: {} new, {} so far",
            self.ply, self.frontier, self.so_far
        )
    }
}

/// Why a [`census`] stopped.
#[derive(Debug)]
pub enum CensusError {
    /// Reading the table.
    Store(StoreError),
    /// The interrupt flag was set; nothing is counted.
    Interrupted,
}

impl fmt::Display for CensusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CensusError::Store(e) => write!(f, "{e}"),
            CensusError::Interrupted => write!(f, "interrupted before the census was complete"),
        }
    }
}

impl std::error::Error for CensusError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CensusError::Store(e) => Some(e),
            CensusError::Interrupted => None,
        }
    }
}

impl From<StoreError> for CensusError {
    fn from(e: StoreError) -> Self {
        CensusError::Store(e)
    }
}

/// Frontier indices per parallel task: large enough that a task's overhead is lost in its
/// move generations, small enough that an interrupt is seen within a fraction of a second.
const CHUNK: usize = 4096;

/// Walks every class reachable from `root` (breadth first over [`Retrograde::children`], one
/// bit per index) and counts them by their value in `table`, in parallel on the current rayon
/// pool; the counts do not depend on the number of threads (each class is counted once, by
/// whichever thread first sets its bit). Memory: one bit per index of the space plus two plies
/// of the walk (8 bytes a class); time: one move generation per reachable class, then one
/// sequential read of the table (values are not read one by one during the walk: a positional
/// read per class cost about a quarter of the walk's time under `perf`, in the kernel's read
/// path). `progress` hears of every ply; `interrupt`, checked between tasks, stops the walk
/// with [`CensusError::Interrupted`].
pub fn census<G: Retrograde + Sync>(
    game: &G,
    table: &Table,
    root: &G::Position,
    interrupt: Option<&AtomicBool>,
    mut progress: impl FnMut(&CensusProgress),
) -> Result<Census, CensusError> {
    let size = game.size();
    let seen: Vec<AtomicU64> = (0..size.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
    // True for the one caller that sets the bit.
    let mark = |i: u64| {
        let bit = 1u64 << (i % 64);
        seen[(i / 64) as usize].fetch_or(bit, Ordering::Relaxed) & bit == 0
    };
    let stopped = || interrupt.is_some_and(|f| f.load(Ordering::Relaxed));
    let first = game.rank(root);
    mark(first);
    let mut frontier = vec![first];
    let mut so_far = 0;
    let mut ply = 0;
    while !frontier.is_empty() {
        let parts = frontier
            .par_chunks(CHUNK)
            .map(|chunk| -> Result<Vec<u64>, CensusError> {
                if stopped() {
                    return Err(CensusError::Interrupted);
                }
                let mut next = Vec::new();
                let mut kids = Vec::new();
                for &i in chunk {
                    let Some(pos) = game.unrank(i) else { continue };
                    kids.clear();
                    game.children(&pos, &mut kids);
                    next.extend(kids.iter().copied().filter(|&k| mark(k)));
                }
                Ok(next)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let reached = frontier.len() as u64;
        so_far += reached;
        frontier = Vec::with_capacity(parts.iter().map(Vec::len).sum());
        for next in parts {
            frontier.extend(next);
        }
        progress(&CensusProgress {
            ply,
            frontier: reached,
            so_far,
        });
        ply += 1;
    }
    if stopped() {
        return Err(CensusError::Interrupted);
    }
    let total = count_marked(table, &seen)?;
    debug_assert_eq!(total.positions, so_far);
    Ok(total)
}

/// Counts the marked indices by their value, reading `table` once from the start.
fn count_marked(table: &Table, seen: &[AtomicU64]) -> Result<Census, CensusError> {
    let mut total = Census::default();
    table.for_each_block(|start, values| {
        for (offset, &byte) in values.iter().enumerate() {
            let i = start + offset as u64;
            if seen[(i / 64) as usize].load(Ordering::Relaxed) & (1 << (i % 64)) == 0 {
                continue;
            }
            total.positions += 1;
            match Value::from_byte(byte) {
                Value::Win(_) => total.won += 1,
                Value::Loss(_) => total.lost += 1,
                Value::Draw => total.drawn += 1,
                Value::Hole => {}
            }
        }
    })?;
    Ok(total)
}
