//! The builder: the driver ([`build`]) and the parallel kernels of its phases.

use std::fs;
use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicU16, AtomicU8, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;
use tabula_engine::retro::{Outcome, Retrograde};
use tabula_store::{Spec, StoreError, TargetLock};

use super::state::{Stage, State, NO_COUNTER};
use super::table::{encode_summary, SUMMARY_LEN, TABLE_BLOCK};
use super::{
    checkpoint_context, loss_byte, table_context, win_byte, BuildError, BuildOptions, Longest,
    Phase, Progress, Relation, Summary, Value, DRAW, HOLE, MAX_CHILDREN, MAX_PLIES, TABLE_KIND,
};

/// Indices per rayon task: small enough to balance two to sixteen threads over a batch, large
/// enough that the task overhead (about a microsecond) is lost next to a chunk's work.
const CHUNK: u64 = 1024;

/// Solves `game` and writes its table (see the [module documentation](super)), reporting
/// progress after each batch. Returns the table's summary; on an interrupt, writes a checkpoint
/// and returns [`BuildError::Interrupted`].
pub fn build<G: Retrograde>(
    game: &G,
    options: &BuildOptions,
    mut progress: impl FnMut(&Progress),
) -> Result<Summary, BuildError> {
    let clock = Instant::now();
    let n = game.size();
    let parents = options.use_parents && game.has_parents();
    let table_ctx = table_context(game);
    let ckpt_ctx = checkpoint_context(game, parents);
    // Both locks are held for the whole build: a second build of the same table fails now,
    // not hours later, and so does a table that may not be replaced.
    let lock = TargetLock::acquire(&options.output)?;
    lock.check(options.existing)?;
    let ckpt_path = options.checkpoint_path();
    let ckpt_lock = TargetLock::acquire(&ckpt_path)?;
    let ckpt_exists = fs::symlink_metadata(&ckpt_path).is_ok();
    let mut st = match (options.resume, ckpt_exists) {
        (true, true) => State::load(&ckpt_path, &ckpt_ctx, n, parents)?,
        (true, false) => return Err(BuildError::NoCheckpoint { path: ckpt_path }),
        (false, true) => return Err(BuildError::CheckpointExists { path: ckpt_path }),
        (false, false) => State::new(n, parents)?,
    };
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = options.threads {
        pool = pool.num_threads(t);
    }
    let pool = pool
        .build()
        .map_err(|e| BuildError::Threads { why: e.to_string() })?;
    let batch = options.batch.max(1);
    let mut last_checkpoint = Instant::now();
    loop {
        let k = Kernels {
            game,
            values: &st.values,
            counters: &st.counters,
            n,
        };
        let (phase, done) = match st.stage {
            Stage::Holes { next } if next >= n => {
                st.stage = if parents {
                    Stage::Children { next: 0 }
                } else {
                    Stage::Level { level: 0, next: 0 }
                };
                continue;
            }
            Stage::Children { next } if next >= n => {
                st.stage = Stage::Level { level: 0, next: 0 };
                st.decided = 0;
                continue;
            }
            Stage::Level { level, next } if next >= n => {
                if st.decided == 0 {
                    break;
                }
                st.stage = Stage::Level {
                    level: level + 1,
                    next: 0,
                };
                st.decided = 0;
                continue;
            }
            Stage::Holes { next } => {
                let end = n.min(next.saturating_add(batch));
                pool.install(|| k.par(next..end, |r, buf| k.holes(r, buf, parents)))?;
                st.stage = Stage::Holes { next: end };
                (Phase::Holes, end)
            }
            Stage::Children { next } => {
                let end = n.min(next.saturating_add(batch));
                pool.install(|| k.par(next..end, |r, buf| k.children(r, buf)))?;
                st.stage = Stage::Children { next: end };
                (Phase::Children, end)
            }
            Stage::Level { level, next } => {
                let end = n.min(next.saturating_add(batch));
                let decided = if parents {
                    pool.install(|| k.par(next..end, |r, buf| k.propagate(r, buf, level)))?
                } else {
                    pool.install(|| k.par(next..end, |r, buf| k.sweep(r, buf, level)))?
                };
                st.decided += decided;
                st.stage = Stage::Level { level, next: end };
                let phase = if parents {
                    Phase::Propagate { level }
                } else {
                    Phase::Sweep { level }
                };
                (phase, end)
            }
        };
        let elapsed = st.elapsed_before + clock.elapsed();
        let interrupted = options.interrupt.is_some_and(|f| f.load(Relaxed));
        if interrupted || last_checkpoint.elapsed() >= options.checkpoint_every {
            st.save(&ckpt_lock, &ckpt_ctx, elapsed)?;
            last_checkpoint = Instant::now();
            if interrupted {
                return Err(BuildError::Interrupted {
                    checkpoint: ckpt_path,
                });
            }
        }
        let decided = match phase {
            Phase::Propagate { .. } | Phase::Sweep { .. } => st.decided,
            _ => 0,
        };
        progress(&Progress {
            phase,
            done,
            total: n,
            decided,
            elapsed,
        });
    }

    let mut summary = pool.install(|| summarize(&st.values));
    let len = n + SUMMARY_LEN;
    let spec = Spec::new(TABLE_KIND, &table_ctx, len).block_size(TABLE_BLOCK);
    let mut w = lock.writer(spec, options.existing)?;
    let mut buf = Vec::with_capacity(TABLE_BLOCK as usize);
    let mut written = 0;
    for chunk in st.values.chunks(16 * TABLE_BLOCK as usize) {
        buf.clear();
        buf.extend(chunk.iter().map(|v| v.load(Relaxed)));
        w.write_payload(&buf)?;
        written += buf.len() as u64;
        progress(&Progress {
            phase: Phase::Write,
            done: written,
            total: len,
            decided: 0,
            elapsed: st.elapsed_before + clock.elapsed(),
        });
    }
    w.write_payload(&encode_summary(&summary))?;
    w.finish()?;
    match fs::remove_file(&ckpt_path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(StoreError::io(&ckpt_path, e).into()),
    }
    drop(ckpt_lock);
    summary.build_time = Some(st.elapsed_before + clock.elapsed());
    Ok(summary)
}

/// What the kernels share: the game and the build's arrays.
struct Kernels<'a, G> {
    game: &'a G,
    values: &'a [AtomicU8],
    counters: &'a [AtomicU16],
    n: u64,
}

impl<G: Retrograde> Kernels<'_, G> {
    /// Runs `f` over `range` in chunks of [`CHUNK`] in parallel (on the current pool), each
    /// with its own scratch vector; returns the sum of the chunks' counts or an error.
    fn par(
        &self,
        range: Range<u64>,
        f: impl Fn(Range<u64>, &mut Vec<u64>) -> Result<u64, BuildError> + Sync,
    ) -> Result<u64, BuildError> {
        let starts: Vec<u64> = (range.start..range.end).step_by(CHUNK as usize).collect();
        starts
            .into_par_iter()
            .map_init(Vec::new, |buf, s| f(s..range.end.min(s + CHUNK), buf))
            .try_reduce(|| 0, |a, b| Ok(a + b))
    }

    fn value(&self, i: u64) -> &AtomicU8 {
        &self.values[i as usize]
    }

    fn counter(&self, i: u64) -> &AtomicU16 {
        &self.counters[i as usize]
    }

    /// The position at `i`, which is known not to be a hole.
    fn position(&self, i: u64) -> Result<G::Position, BuildError> {
        self.game.unrank(i).ok_or(BuildError::Unstable { index: i })
    }

    /// Checks a list of neighbours of `index`: in range, each once (sorts it), and children
    /// not holes.
    fn check(&self, index: u64, list: &mut [u64], relation: Relation) -> Result<(), BuildError> {
        let bad = |neighbour, why| BuildError::BadNeighbour {
            index,
            neighbour,
            relation,
            why,
        };
        list.sort_unstable();
        for (k, &c) in list.iter().enumerate() {
            if c >= self.n {
                return Err(bad(c, "outside the index space"));
            }
            if k > 0 && list[k - 1] == c {
                return Err(bad(c, "listed twice"));
            }
            // A parent's hole is found by its counter (one memory access per edge fewer).
            if relation == Relation::Child && self.value(c).load(Relaxed) == HOLE {
                return Err(bad(c, "a hole"));
            }
        }
        Ok(())
    }

    /// Phase 1: marks holes, decides primitive positions at distance 0, and (with counters)
    /// marks the other positions' counters 0, "to be counted".
    fn holes(
        &self,
        range: Range<u64>,
        _: &mut Vec<u64>,
        counters: bool,
    ) -> Result<u64, BuildError> {
        for i in range {
            let Some(pos) = self.game.unrank(i) else {
                self.value(i).store(HOLE, Relaxed);
                continue;
            };
            let rank = self.game.rank(&pos);
            if rank != i {
                return Err(BuildError::RankMismatch { index: i, rank });
            }
            match self.game.primitive(&pos) {
                Some(Outcome::Win) => self.value(i).store(win_byte(0), Relaxed),
                Some(Outcome::Loss) => self.value(i).store(loss_byte(0), Relaxed),
                Some(Outcome::Draw) => {}
                None if counters => self.counter(i).store(0, Relaxed),
                None => {}
            }
        }
        Ok(0)
    }

    /// Phase 2: the number of distinct children of each position still to be counted.
    fn children(&self, range: Range<u64>, buf: &mut Vec<u64>) -> Result<u64, BuildError> {
        for i in range {
            if self.counter(i).load(Relaxed) != 0 {
                continue; // a hole, a primitive position, or counted before a resume
            }
            let pos = self.position(i)?;
            buf.clear();
            self.game.children(&pos, buf);
            self.check(i, buf, Relation::Child)?;
            match buf.len() {
                0 => return Err(BuildError::NoChildren { index: i }),
                c if c > MAX_CHILDREN => {
                    return Err(BuildError::TooManyChildren {
                        index: i,
                        children: c,
                    })
                }
                c => self.counter(i).store(c as u16, Relaxed),
            }
        }
        Ok(0)
    }

    /// Decides `index` at `plies` unless it is decided already; true if this call decided it.
    fn decide(
        &self,
        index: u64,
        byte: impl FnOnce(u32) -> u8,
        plies: u32,
    ) -> Result<bool, BuildError> {
        if self.value(index).load(Relaxed) != DRAW {
            return Ok(false);
        }
        if plies > MAX_PLIES {
            return Err(BuildError::DistanceOverflow { index, plies });
        }
        Ok(self
            .value(index)
            .compare_exchange(DRAW, byte(plies), Relaxed, Relaxed)
            .is_ok())
    }

    /// A level with un-moves: the positions decided at `level` update their parents.
    fn propagate(
        &self,
        range: Range<u64>,
        buf: &mut Vec<u64>,
        level: u32,
    ) -> Result<u64, BuildError> {
        let (lost, won) = (loss_byte(level), win_byte(level));
        let mut decided = 0;
        for i in range {
            let v = self.value(i).load(Relaxed);
            if v != lost && v != won {
                continue;
            }
            let pos = self.position(i)?;
            buf.clear();
            self.game.parents(&pos, buf);
            self.check(i, buf, Relation::Parent)?;
            for &p in buf.iter() {
                let counter = self.counter(p);
                if counter.load(Relaxed) == NO_COUNTER {
                    return Err(BuildError::BadNeighbour {
                        index: i,
                        neighbour: p,
                        relation: Relation::Parent,
                        why: "a hole or a primitive position",
                    });
                }
                if v == lost {
                    decided += self.decide(p, win_byte, level + 1)? as u64;
                } else {
                    // Decremented even when `p` is decided (won by another child), so that a
                    // counter's value never depends on the order of the threads.
                    let before = counter.fetch_sub(1, Relaxed);
                    if before == 0 {
                        return Err(BuildError::InconsistentParents { index: p, child: i });
                    }
                    if before == 1 {
                        decided += self.decide(p, loss_byte, level + 1)? as u64;
                    }
                }
            }
        }
        Ok(decided)
    }

    /// A level without un-moves: each undecided position reads its children, counting only
    /// values decided at `level` or less (a value set during this level is at `level + 1`).
    fn sweep(&self, range: Range<u64>, buf: &mut Vec<u64>, level: u32) -> Result<u64, BuildError> {
        let mut decided = 0;
        for i in range {
            if self.value(i).load(Relaxed) != DRAW {
                continue;
            }
            let pos = self.position(i)?;
            if self.game.primitive(&pos).is_some() {
                continue; // a primitive draw
            }
            buf.clear();
            self.game.children(&pos, buf);
            if buf.is_empty() {
                return Err(BuildError::NoChildren { index: i });
            }
            let (mut win, mut all_won) = (false, true);
            for &c in buf.iter() {
                if c >= self.n {
                    return Err(BuildError::BadNeighbour {
                        index: i,
                        neighbour: c,
                        relation: Relation::Child,
                        why: "outside the index space",
                    });
                }
                match Value::from_byte(self.value(c).load(Relaxed)) {
                    Value::Hole => {
                        return Err(BuildError::BadNeighbour {
                            index: i,
                            neighbour: c,
                            relation: Relation::Child,
                            why: "a hole",
                        })
                    }
                    // No early exit: every child is checked (range, hole) at level 0.
                    Value::Loss(d) if d <= level => win = true,
                    Value::Win(d) if d <= level => {}
                    _ => all_won = false,
                }
            }
            let plies = level + 1;
            if (win || all_won) && plies > MAX_PLIES {
                return Err(BuildError::DistanceOverflow { index: i, plies });
            }
            if win {
                self.value(i).store(win_byte(plies), Relaxed);
                decided += 1;
            } else if all_won {
                self.value(i).store(loss_byte(plies), Relaxed);
                decided += 1;
            }
        }
        Ok(decided)
    }
}

/// Counts of a range of values.
#[derive(Default)]
struct Tally {
    won: u64,
    lost: u64,
    drawn: u64,
    holes: u64,
    win: Option<Longest>,
    loss: Option<Longest>,
}

/// The longer of two, the smaller index on a tie (so that the reduction's order is irrelevant).
fn longer(a: Option<Longest>, b: Option<Longest>) -> Option<Longest> {
    match (a, b) {
        (Some(x), Some(y)) => Some(
            if (y.plies, u64::MAX - y.index) > (x.plies, u64::MAX - x.index) {
                y
            } else {
                x
            },
        ),
        (x, None) => x,
        (None, y) => y,
    }
}

impl Tally {
    fn add(&mut self, index: u64, byte: u8) {
        match Value::from_byte(byte) {
            Value::Hole => self.holes += 1,
            Value::Draw => self.drawn += 1,
            Value::Win(plies) => {
                self.won += 1;
                self.win = longer(self.win, Some(Longest { plies, index }));
            }
            Value::Loss(plies) => {
                self.lost += 1;
                self.loss = longer(self.loss, Some(Longest { plies, index }));
            }
        }
    }

    fn merge(self, o: Tally) -> Tally {
        Tally {
            won: self.won + o.won,
            lost: self.lost + o.lost,
            drawn: self.drawn + o.drawn,
            holes: self.holes + o.holes,
            win: longer(self.win, o.win),
            loss: longer(self.loss, o.loss),
        }
    }

    fn summary(self, size: u64) -> Summary {
        Summary {
            size,
            won: self.won,
            lost: self.lost,
            drawn: self.drawn,
            holes: self.holes,
            longest_win: self.win,
            longest_loss: self.loss,
            build_time: None,
        }
    }
}

/// The summary of a value array (in parallel on the current pool).
fn summarize(values: &[AtomicU8]) -> Summary {
    values
        .par_chunks(CHUNK as usize)
        .enumerate()
        .map(|(k, chunk)| {
            let mut t = Tally::default();
            for (j, v) in chunk.iter().enumerate() {
                t.add(k as u64 * CHUNK + j as u64, v.load(Relaxed));
            }
            t
        })
        .reduce(Tally::default, Tally::merge)
        .summary(values.len() as u64)
}

/// The summary of the value bytes of a table (sequential: for [`super::Table::verify`]).
pub(crate) fn summarize_bytes(start: u64, bytes: &[u8], into: &mut Summary) {
    let mut t = Tally::default();
    for (j, &b) in bytes.iter().enumerate() {
        t.add(start + j as u64, b);
    }
    let prev = Tally {
        won: into.won,
        lost: into.lost,
        drawn: into.drawn,
        holes: into.holes,
        win: into.longest_win,
        loss: into.longest_loss,
    };
    *into = prev.merge(t).summary(into.size);
}
