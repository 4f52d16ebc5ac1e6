//! perft on threads: the engine's walk ([`tabula_engine::perft::divide_until`]) with the
//! first moves shared among threads, stoppable, its progress seen as one walk. The CLI's
//! `perft --threads N` and the engine protocol's `perft` (its `Threads` option) count with it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use tabula_engine::perft::{divide_until, PerftStep};
use tabula_engine::Game;

/// [`divide_until`] of `pos` with the first moves shared among `threads` threads (each takes
/// the next first move not yet taken), until `stop` is set: each first move with its count,
/// `None` for those not counted to the end. `observe` sees the whole walk's progress, as one
/// thread's walk shows it (counts, positions made, the share of the tree behind, the longest
/// line), after each first move and every [`tabula_engine::perft::STEP_EVERY`] positions of
/// each thread. One thread is [`divide_until`] itself.
pub fn divide_on_threads<G: Game>(
    pos: &G,
    depth: u32,
    threads: usize,
    stop: &AtomicBool,
    observe: impl Fn(&PerftStep) + Sync,
) -> Vec<(G::Move, Option<u64>)> {
    if stop.load(Ordering::Relaxed) {
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        return moves.into_iter().map(|mv| (mv, None)).collect();
    }
    if threads <= 1 || depth < 2 {
        return divide_until(pos, depth, |step| {
            observe(step);
            !stop.load(Ordering::Relaxed)
        });
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let total = moves.len();
    let next = AtomicUsize::new(0);
    let state = Mutex::new(ThreadedPerft {
        counts: vec![None; total],
        running: vec![None; total],
        longest: 0,
    });
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::scope(|scope| {
        for _ in 0..threads.min(total) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total || stop.load(Ordering::Relaxed) {
                    break;
                }
                // The first move's subtree, split by its own first moves (the second plies).
                let parts = divide_until(&pos.play(moves[i]), depth - 1, |step| {
                    let whole = lock().inner_step(i, step);
                    observe(&whole);
                    !stop.load(Ordering::Relaxed)
                });
                let count = parts.iter().map(|(_, n)| *n).sum::<Option<u64>>();
                if let Some(n) = count {
                    let whole = lock().first_move_done(i, n);
                    observe(&whole);
                }
            });
        }
    });
    let counts = state.into_inner().unwrap_or_else(|e| e.into_inner()).counts;
    moves.into_iter().zip(counts).collect()
}

/// What the threads of [`divide_on_threads`] have counted.
struct ThreadedPerft {
    /// Each first move's count, once finished.
    counts: Vec<Option<u64>>,
    /// Each started first move's walk so far (in the subtree below it).
    running: Vec<Option<PerftStep>>,
    /// The longest line of the finished first moves.
    longest: u32,
}

impl ThreadedPerft {
    /// The whole walk after first move `i`'s walk reached `step` (counted from below it).
    fn inner_step(&mut self, i: usize, step: &PerftStep) -> PerftStep {
        self.running[i] = Some(*step);
        self.whole(false)
    }

    /// The whole walk once first move `i` is counted: `nodes` below it.
    fn first_move_done(&mut self, i: usize, nodes: u64) -> PerftStep {
        self.counts[i] = Some(nodes);
        // A first move whose position has no moves ends its line there, after one ply.
        let below = self.running[i].map_or(0, |r| r.longest);
        self.longest = self.longest.max(below + 1);
        self.whole(true)
    }

    fn whole(&self, first_move_done: bool) -> PerftStep {
        let total = self.counts.len();
        let (mut done, mut nodes, mut visited, mut longest) = (0, 0, 0, self.longest);
        let mut behind = 0.0;
        for (count, run) in self.counts.iter().zip(&self.running) {
            // The first move made is a position made, as in the one-thread walk.
            visited += run.map_or(0, |r| r.visited + 1);
            match (count, run) {
                (Some(n), _) => {
                    done += 1;
                    nodes += n;
                    behind += 1.0;
                }
                (None, Some(r)) => {
                    nodes += r.nodes;
                    behind += r.fraction;
                    longest = longest.max(r.longest + 1);
                }
                (None, None) => {}
            }
        }
        PerftStep {
            done,
            total,
            nodes,
            visited,
            fraction: behind / total.max(1) as f64,
            longest,
            first_move_done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_engine::bilitaire::Position;
    use tabula_engine::perft::{divide, perft};

    /// The counts are [`divide`]'s for any number of threads, and the whole walk's last step
    /// has every first move done and every node counted.
    #[test]
    fn threads_count_what_one_thread_counts() {
        let pos = Position::start();
        let full = divide(&pos, 4);
        let never = AtomicBool::new(false);
        for threads in [1, 2, 3, 64] {
            let steps = Mutex::new(Vec::new());
            let parts =
                divide_on_threads(&pos, 4, threads, &never, |s| steps.lock().unwrap().push(*s));
            let counted: Vec<_> = parts.iter().map(|&(m, n)| (m, n.unwrap())).collect();
            assert_eq!(counted, full, "{threads} threads");
            let steps = steps.into_inner().unwrap();
            let done: Vec<_> = steps.iter().filter(|s| s.first_move_done).collect();
            assert_eq!(done.len(), full.len());
            let last = done.iter().max_by_key(|s| s.done).unwrap();
            assert_eq!((last.done, last.total), (full.len(), full.len()));
            assert_eq!(last.nodes, perft(&pos, 4));
            assert_eq!((last.fraction, last.longest), (1.0, 4));
        }
    }

    /// Stopped, the threads give the first moves they finished, with [`divide`]'s counts,
    /// and `None` for the others; stopped before the start, none.
    #[test]
    fn a_stop_keeps_the_finished_first_moves() {
        let pos = Position::start();
        let full = divide(&pos, 5);
        for threads in [1, 2] {
            let stop = AtomicBool::new(false);
            let seen = AtomicUsize::new(0);
            let parts = divide_on_threads(&pos, 5, threads, &stop, |s| {
                if s.first_move_done && seen.fetch_add(1, Ordering::SeqCst) == 2 {
                    stop.store(true, Ordering::SeqCst);
                }
            });
            let finished = parts.iter().filter(|(_, n)| n.is_some()).count();
            assert!((3..full.len()).contains(&finished), "{threads}: {finished}");
            for ((mv, n), (full_mv, full_n)) in parts.iter().zip(&full) {
                assert_eq!(mv, full_mv);
                assert!(n.is_none_or(|n| n == *full_n));
            }
            let stop = AtomicBool::new(true);
            let parts = divide_on_threads(&pos, 5, threads, &stop, |_| {});
            assert!(parts.iter().all(|(_, n)| n.is_none()), "{threads}");
        }
    }
}
