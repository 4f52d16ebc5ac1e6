//! Perft: the number of move sequences of a given length, the standard check of a move generator.

use crate::Game;

/// Counts the move sequences of length `depth` from `pos`. Terminal positions have no moves, so
/// a sequence that reaches one early is not counted. The last ply is counted with
/// [`Game::count_moves`], without making its moves.
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(),
        _ => {
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            moves
                .iter()
                .map(|&mv| perft(&pos.play(mv), depth - 1))
                .sum()
        }
    }
}

/// Perft split by the first move: each legal move with the count below it.
pub fn divide<G: Game>(pos: &G, depth: u32) -> Vec<(G::Move, u64)> {
    divide_with(pos, depth, |_| {})
}

/// Where a running [`divide_with`] is, for a caller that shows progress.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerftStep {
    /// First moves whose counts are finished.
    pub done: usize,
    /// Legal first moves.
    pub total: usize,
    /// Move sequences counted so far, the unfinished first move's included.
    pub nodes: u64,
    /// Positions made so far (every `play`, the last ply's moves not made but counted).
    pub visited: u64,
    /// How much of the tree is behind: the place of the walk read as a mixed-radix fraction
    /// (the first move's index over the first moves' count, then the second's within it, and
    /// so on), exact if sibling subtrees were alike in size. 0 at the start, 1 at the end.
    pub fraction: f64,
    /// The longest line walked so far, in plies: the depth asked for once a line reaches it,
    /// less while every line so far ended early in a finished game.
    pub longest: u32,
    /// True when the step ends a first move (`done` just grew); false for a step inside one.
    pub first_move_done: bool,
}

/// Positions made between two steps inside a first move: a step every fraction of a
/// millisecond at perft's speeds (about 20 M positions a second in the Bi-litaire middle
/// game), and still no cost that shows: Bi-litaire perft 8 from the start took 20.8 s with
/// these steps and without them.
pub const STEP_EVERY: u64 = 1 << 12;

/// [`divide`], telling `observe` where it is after each first move and also every
/// [`STEP_EVERY`] positions inside one, so that a perft whose first move alone runs for hours
/// still shows it is moving. The caller decides what to show and how often (the engine does
/// no I/O); the counts are those of [`divide`].
pub fn divide_with<G: Game>(
    pos: &G,
    depth: u32,
    mut observe: impl FnMut(&PerftStep),
) -> Vec<(G::Move, u64)> {
    divide_until(pos, depth, |step| {
        observe(step);
        true
    })
    .into_iter()
    .map(|(mv, n)| {
        (
            mv,
            n.expect("a walk that is never stopped counts every first move"),
        )
    })
    .collect()
}

/// [`divide_with`] that can be stopped: the walk goes on while `observe` returns true. Each
/// first move comes with its count, or `None` when the walk stopped before finishing it (the
/// one under way and every later one); the counts given are those of [`divide`].
pub fn divide_until<G: Game>(
    pos: &G,
    depth: u32,
    mut observe: impl FnMut(&PerftStep) -> bool,
) -> Vec<(G::Move, Option<u64>)> {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let total = moves.len();
    let mut walk = Walk {
        step: PerftStep {
            done: 0,
            total,
            nodes: 0,
            visited: 0,
            fraction: 0.0,
            longest: 0,
            first_move_done: false,
        },
        path: Vec::new(),
        observe: &mut observe,
        stopped: false,
    };
    moves
        .into_iter()
        .enumerate()
        .map(|(i, mv)| {
            if walk.stopped {
                return (mv, None);
            }
            walk.path.clear();
            walk.path.push((i, total));
            let before = walk.step.nodes;
            walk.step.visited += 1;
            walk.count(&pos.play(mv), depth.saturating_sub(1));
            if walk.stopped {
                return (mv, None);
            }
            walk.step.done = i + 1;
            walk.step.fraction = (i + 1) as f64 / total as f64;
            walk.step.first_move_done = true;
            walk.stopped = !(walk.observe)(&walk.step);
            (mv, Some(walk.step.nodes - before))
        })
        .collect()
}

/// The state of [`divide_until`]'s walk: the running step, the path from the root (each
/// level's move index and move count) and whether the observer stopped it.
struct Walk<'a, F> {
    step: PerftStep,
    path: Vec<(usize, usize)>,
    observe: &'a mut F,
    stopped: bool,
}

impl<F: FnMut(&PerftStep) -> bool> Walk<'_, F> {
    /// [`perft`] of `pos`, adding to the step's counts and reporting every [`STEP_EVERY`]
    /// positions made; returns at once, its count unfinished, once the observer says stop.
    fn count<G: Game>(&mut self, pos: &G, depth: u32) {
        // Plies played to reach `pos` (the path holds the moves made).
        let here = self.path.len() as u32;
        match depth {
            0 => {
                self.step.nodes += 1;
                self.reached(here);
            }
            1 => {
                let n = pos.count_moves();
                self.step.nodes += n;
                self.reached(here + u32::from(n > 0));
            }
            _ => {
                let mut moves = Vec::new();
                pos.legal_moves(&mut moves);
                let n = moves.len();
                if n == 0 {
                    self.reached(here);
                }
                for (i, mv) in moves.into_iter().enumerate() {
                    self.path.push((i, n));
                    self.step.visited += 1;
                    if self.step.visited.is_multiple_of(STEP_EVERY) {
                        self.step.fraction = fraction(&self.path);
                        self.step.first_move_done = false;
                        self.stopped = !(self.observe)(&self.step);
                    }
                    if !self.stopped {
                        self.count(&pos.play(mv), depth - 1);
                    }
                    self.path.pop();
                    if self.stopped {
                        return;
                    }
                }
            }
        }
    }
}

impl<F> Walk<'_, F> {
    /// A line ended after `plies` plies.
    fn reached(&mut self, plies: u32) {
        self.step.longest = self.step.longest.max(plies);
    }
}

/// The mixed-radix fraction of a path (see [`PerftStep::fraction`]).
fn fraction(path: &[(usize, usize)]) -> f64 {
    let mut scale = 1.0;
    let mut sum = 0.0;
    for &(i, n) in path {
        scale /= n as f64;
        sum += i as f64 * scale;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bilitaire::Position;

    #[test]
    fn divide_with_reports_every_first_move_and_sums_to_perft() {
        let pos = Position::start();
        let mut seen = Vec::new();
        let parts = divide_with(&pos, 3, |step| {
            if step.first_move_done {
                seen.push((step.done, step.total, step.nodes))
            }
        });
        assert_eq!(seen.len(), parts.len());
        assert!(!seen.is_empty());
        let mut sum = 0;
        for (i, ((done, total, nodes), (_, n))) in seen.iter().zip(&parts).enumerate() {
            sum += n;
            assert_eq!((*done, *total, *nodes), (i + 1, parts.len(), sum));
        }
        assert_eq!(sum, perft(&pos, 3));
        assert_eq!(parts, divide(&pos, 3));
    }

    /// A walk stopped by its observer gives the first moves it finished, their counts
    /// those of [`divide`], and `None` for the rest.
    #[test]
    fn divide_until_stops_when_told_and_keeps_what_it_finished() {
        let pos = Position::start();
        let full = divide(&pos, 5);
        for stop_after in [0usize, 1, 3, 7] {
            let mut steps = 0;
            let mut moves_done = 0;
            let parts = divide_until(&pos, 5, |step| {
                steps += 1;
                moves_done += usize::from(step.first_move_done);
                steps <= stop_after
            });
            assert_eq!(steps, stop_after + 1, "no step after the stop");
            assert_eq!(parts.len(), full.len());
            let finished = parts.iter().take_while(|(_, n)| n.is_some()).count();
            assert!(parts[finished..].iter().all(|(_, n)| n.is_none()));
            assert!(finished < full.len(), "stopped before the end");
            for ((mv, n), (full_mv, full_n)) in parts.iter().zip(&full).take(finished) {
                assert_eq!((mv, n.unwrap()), (full_mv, *full_n));
            }
            // A first move counts once its step is seen, even the step that stops the walk.
            assert_eq!(finished, moves_done);
        }
        let all = divide_until(&pos, 5, |_| true);
        assert_eq!(
            all.into_iter()
                .map(|(m, n)| (m, n.unwrap()))
                .collect::<Vec<_>>(),
            full
        );
    }

    #[test]
    fn divide_with_steps_inside_a_first_move_and_only_moves_forward() {
        // Depth 5 from the start makes tens of thousands of positions: several steps come
        // inside first moves, which a perft of one long first move depends on.
        let pos = Position::start();
        let mut steps: Vec<PerftStep> = Vec::new();
        let parts = divide_with(&pos, 5, |step| steps.push(*step));
        let inside = steps.iter().filter(|s| !s.first_move_done).count();
        assert!(inside >= 2, "{inside} steps inside first moves");
        for pair in steps.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            assert!(b.nodes >= a.nodes && b.visited > a.visited && b.done >= a.done);
            assert!(b.fraction >= a.fraction, "{a:?} then {b:?}");
        }
        for s in &steps {
            assert!((0.0..=1.0).contains(&s.fraction), "{s:?}");
            // Inside first move `done + 1`, the fraction is within that move's share.
            if !s.first_move_done {
                let share = 1.0 / s.total as f64;
                assert!(s.fraction >= s.done as f64 * share - 1e-12, "{s:?}");
                assert!(s.fraction < (s.done + 1) as f64 * share + 1e-12, "{s:?}");
                assert_eq!(s.visited % STEP_EVERY, 0);
            }
        }
        let last = steps.last().expect("steps");
        assert!(last.first_move_done && last.fraction == 1.0 && last.done == last.total);
        assert_eq!(last.nodes, perft(&pos, 5));
        assert_eq!(last.longest, 5);
        assert_eq!(parts.iter().map(|(_, n)| n).sum::<u64>(), last.nodes);
        assert_eq!(parts, divide(&pos, 5));
    }

    /// A heap of stones; a move takes one or two. Every line ends when the heap is empty.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Heap(u32);

    impl Game for Heap {
        type Move = u32;
        fn legal_moves(&self, moves: &mut Vec<u32>) {
            moves.extend((1..=2).filter(|&k| k <= self.0));
        }
        fn play(&self, k: u32) -> Heap {
            Heap(self.0 - k)
        }
    }

    #[test]
    fn the_longest_line_tells_a_depth_past_the_end_of_the_game() {
        // From 6 stones the longest line takes one stone at a time: 6 plies.
        for depth in [7, 30] {
            let mut longest = 0;
            let parts = divide_with(&Heap(6), depth, |step| longest = step.longest);
            assert_eq!(parts.iter().map(|(_, n)| n).sum::<u64>(), 0);
            assert_eq!(longest, 6, "depth {depth}");
        }
        // Lines of exactly the depth asked for: the longest is the depth.
        for depth in 1..=6 {
            let mut longest = 0;
            let parts = divide_with(&Heap(6), depth, |step| longest = step.longest);
            let nodes: u64 = parts.iter().map(|(_, n)| n).sum();
            assert_eq!(nodes, perft(&Heap(6), depth));
            assert!(nodes > 0);
            assert_eq!(longest, depth);
        }
    }

    #[test]
    fn the_fraction_of_a_path_is_its_mixed_radix_value() {
        assert_eq!(fraction(&[]), 0.0);
        assert_eq!(fraction(&[(1, 4)]), 0.25);
        assert_eq!(fraction(&[(1, 4), (2, 4)]), 0.25 + 0.125);
        assert_eq!(fraction(&[(3, 4), (1, 2), (0, 5)]), 0.75 + 0.125);
    }
}
