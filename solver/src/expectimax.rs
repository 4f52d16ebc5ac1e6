//! n-ply expectimax over a [`ChanceGame`], with move filtering, rayon over the rolls and a
//! cache; the values at the leaves come from a [`LeafEvaluator`].
//!
//! Values are vectors of `N` numbers for the player on roll of the position they describe (for
//! backgammon the five outcome probabilities), scored by [`LeafEvaluator::score`] (the
//! cubeless equity) and turned to the other player's view by [`LeafEvaluator::invert`].
//!
//! `value(pos, 0)` is the evaluator's (or the exact value of a finished game); `value(pos, n)`
//! is the average over the rolls (weighted by [`ChanceGame::rolls`]) of the player on roll's
//! best play, each play's result worth `invert(value(result, n − 1))`. The plays of a roll are
//! first ranked at 0-ply and only the best few (at most [`Filter::inner_candidates`], within
//! [`Filter::inner_threshold`] of the best) are searched deeper; with `n − 1 = 0` the 0-ply
//! ranking decides directly. A roll with no legal play passes the turn ([`ChanceGame::pass`]).
//!
//! [`Expectimax::rank`] ranks the plays of a known roll at 0-ply and re-evaluates the
//! candidates (at most [`Filter::max_candidates`] within [`Filter::threshold`]) with
//! `invert(value(result, n))`, so 1-ply looks at every reply of the opponent.
//!
//! Rolls (and root candidates) are searched in parallel with rayon; the results are collected
//! in order and summed sequentially in `f64`, and the cache only ever returns the value a
//! recomputation would produce, so the output is bit-for-bit the same for any number of
//! threads.

use std::sync::Mutex;

use rayon::prelude::*;
use tabula_engine::ChanceGame;

/// What the search needs to value positions of `G`: `N` numbers per position, for the player
/// on roll before the roll.
pub trait LeafEvaluator<G: ChanceGame, const N: usize>: Sync {
    /// The exact value of a finished game, `None` while it goes on. Checked before anything
    /// else, at every depth.
    fn terminal(&self, pos: &G) -> Option<[f32; N]>;
    /// The static (0-ply) value of a position whose game goes on.
    fn evaluate(&self, pos: &G) -> [f32; N];
    /// The same value seen by the other player.
    fn invert(&self, value: &[f32; N]) -> [f32; N];
    /// The number the player on roll maximises (higher is better).
    fn score(&self, value: &[f32; N]) -> f32;
    /// A cheap estimate of a play's [`score`](LeafEvaluator::score) for the player who made
    /// it (the score of `invert(evaluate(result))`), used only to choose which results of a
    /// roll the last ply evaluates in full ([`Filter::last_ply_candidates`]); `None` where there
    /// is none (such a result is always evaluated in full). The default has none.
    fn quick_score(&self, _result: &G) -> Option<f32> {
        None
    }
}

/// How many plays are searched deeper than 0-ply.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Filter {
    /// Plays of the known roll searched deeper than 0-ply, at most.
    pub max_candidates: usize,
    /// Only plays of the known roll within this 0-ply score of the best are searched deeper.
    pub threshold: f32,
    /// The same limit inside the search (the plays of the rolls looked ahead).
    pub inner_candidates: usize,
    /// The same threshold inside the search.
    pub inner_threshold: f32,
    /// At the last ply, where the best play of each roll is taken at 0-ply: when more than
    /// this many results have a [`LeafEvaluator::quick_score`], only the best this many by it
    /// (and the results without one) are evaluated in full. 0: every result is.
    pub last_ply_candidates: usize,
}

/// A play of a known roll with its value for the player who makes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked<const N: usize> {
    /// The play's index in [`ChanceGame::plays_of`].
    pub index: usize,
    /// The value of its result, for the mover.
    pub value: [f32; N],
    /// [`LeafEvaluator::score`] of `value`.
    pub score: f32,
    /// The depth of this evaluation (0 for plays filtered out before the deeper search).
    pub plies: u8,
}

#[derive(Clone, Copy, Debug)]
struct Slot<const N: usize> {
    key: u128,
    /// `u8::MAX` for an empty slot.
    plies: u8,
    value: [f32; N],
}

/// A fixed array of slots, each behind its own lock, always replaced.
#[derive(Debug)]
struct Cache<const N: usize> {
    slots: Vec<Mutex<Slot<N>>>,
    mask: usize,
}

impl<const N: usize> Cache<N> {
    fn new(size: usize) -> Cache<N> {
        let size = size.max(1).next_power_of_two();
        let empty = Slot {
            key: 0,
            plies: u8::MAX,
            value: [0.0; N],
        };
        Cache {
            slots: (0..size).map(|_| Mutex::new(empty)).collect(),
            mask: size - 1,
        }
    }

    fn index(&self, key: u128, plies: u8) -> usize {
        let x = (key as u64) ^ ((key >> 64) as u64).rotate_left(29) ^ (plies as u64) << 59;
        let x = (x ^ (x >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (x >> 20) as usize & self.mask
    }

    fn get(&self, key: u128, plies: u8) -> Option<[f32; N]> {
        let slot = self.slots[self.index(key, plies)]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        (slot.plies == plies && slot.key == key).then_some(slot.value)
    }

    fn put(&self, key: u128, plies: u8, value: [f32; N]) {
        let mut slot = self.slots[self.index(key, plies)]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        *slot = Slot { key, plies, value };
    }
}

/// An expectimax searcher over one evaluator, with its own cache.
#[derive(Debug)]
pub struct Expectimax<'e, G, E, const N: usize> {
    eval: &'e E,
    filter: Filter,
    cache: Cache<N>,
    game: std::marker::PhantomData<fn() -> G>,
}

impl<'e, G: ChanceGame, E: LeafEvaluator<G, N>, const N: usize> Expectimax<'e, G, E, N> {
    /// A searcher with an empty cache of `cache_slots` slots (rounded up to a power of two).
    pub fn new(eval: &'e E, filter: Filter, cache_slots: usize) -> Self {
        Expectimax {
            eval,
            filter,
            cache: Cache::new(cache_slots),
            game: std::marker::PhantomData,
        }
    }

    /// The evaluator.
    pub fn evaluator(&self) -> &'e E {
        self.eval
    }

    /// The value of `pos` for the player on roll, before the roll, looking `plies` rolls ahead.
    pub fn evaluate(&self, pos: &G, plies: u8) -> [f32; N] {
        if let Some(v) = self.eval.terminal(pos) {
            return v;
        }
        let key = pos.chance_key();
        if let Some(v) = self.cache.get(key, plies) {
            return v;
        }
        let value = if plies == 0 {
            self.eval.evaluate(pos)
        } else {
            let rolls = G::rolls();
            let per_roll: Vec<[f32; N]> = rolls
                .par_iter()
                .map(|&(roll, _)| self.best_for_roll(pos, roll, plies - 1))
                .collect();
            let total = G::ROLL_WEIGHT_TOTAL as f64;
            let mut acc = [0.0f64; N];
            for (&(_, weight), v) in rolls.iter().zip(&per_roll) {
                let w = weight as f64 / total;
                for (a, &x) in acc.iter_mut().zip(v) {
                    *a += w * x as f64;
                }
            }
            acc.map(|a| a as f32)
        };
        self.cache.put(key, plies, value);
        value
    }

    /// The value for the player on roll of `pos` of its best play of `roll`, each play's result
    /// evaluated `plies` deep.
    fn best_for_roll(&self, pos: &G, roll: G::Roll, plies: u8) -> [f32; N] {
        let mut results = Vec::new();
        pos.results_of(roll, &mut results);
        if results.is_empty() {
            return self.eval.invert(&self.evaluate(&pos.pass(), plies));
        }
        if plies == 0 {
            return self.best_zero(&results);
        }
        let ranked = self.rank_zero(&results);
        let mut best = (f32::NEG_INFINITY, [0.0; N]);
        let f = &self.filter;
        for r in head(&ranked, f.inner_candidates, f.inner_threshold) {
            let v = self.eval.invert(&self.evaluate(&results[r.index], plies));
            let s = self.eval.score(&v);
            if s > best.0 {
                best = (s, v);
            }
        }
        best.1
    }

    /// The value for the mover of the best result at 0-ply: [`Expectimax::rank_zero`]'s
    /// first, without ranking the rest (the same evaluations in the same order, the first of
    /// the highest scores by `total_cmp`). The last ply of every search ends here, so this
    /// is where most of a search's plays are valued.
    fn best_zero(&self, results: &[G]) -> [f32; N] {
        let mut best: Option<(f32, [f32; N])> = None;
        let mut consider = |r: &G| {
            let (value, score) = self.zero_for_mover(r);
            if best.is_none_or(|(s, _)| score.total_cmp(&s).is_gt()) {
                best = Some((score, value));
            }
        };
        match self.last_ply_choice(results) {
            Some(chosen) => chosen.iter().for_each(|&i| consider(&results[i])),
            None => results.iter().for_each(&mut consider),
        }
        best.expect("at least one result").1
    }

    /// The results of one roll that the last ply values in full, in generation order, where
    /// [`Filter::last_ply_candidates`] prunes them: the best that many by
    /// [`LeafEvaluator::quick_score`] (ties in generation order) and every result without a
    /// quick score. `None` where every result is valued: pruning off, or no more results with
    /// a quick score than the filter keeps.
    pub fn last_ply_choice(&self, results: &[G]) -> Option<Vec<usize>> {
        let keep = self.filter.last_ply_candidates;
        if keep == 0 || results.len() <= keep {
            return None;
        }
        let quick: Vec<Option<f32>> = results.iter().map(|r| self.eval.quick_score(r)).collect();
        let mut estimated: Vec<usize> =
            (0..results.len()).filter(|&i| quick[i].is_some()).collect();
        if estimated.len() <= keep {
            return None;
        }
        let score = |i: usize| quick[i].unwrap_or(f32::NEG_INFINITY);
        // Best estimate first, ties in generation order: the same few for any order of
        // evaluation.
        estimated.select_nth_unstable_by(keep - 1, |&a, &b| {
            score(b).total_cmp(&score(a)).then(a.cmp(&b))
        });
        estimated.truncate(keep);
        let mut chosen: Vec<usize> = (0..results.len())
            .filter(|&i| quick[i].is_none())
            .chain(estimated)
            .collect();
        chosen.sort_unstable();
        Some(chosen)
    }

    /// The 0-ply value of a play's result for the mover, and its score.
    fn zero_for_mover(&self, result: &G) -> ([f32; N], f32) {
        let value = self.eval.invert(&self.evaluate(result, 0));
        (value, self.eval.score(&value))
    }

    /// Every result at 0-ply for the mover, best first (ties in generation order).
    fn rank_zero(&self, results: &[G]) -> Vec<Ranked<N>> {
        let mut ranked: Vec<Ranked<N>> = results
            .iter()
            .enumerate()
            .map(|(index, r)| {
                let (value, score) = self.zero_for_mover(r);
                Ranked {
                    index,
                    value,
                    score,
                    plies: 0,
                }
            })
            .collect();
        ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
        ranked
    }

    /// The legal plays of `roll` from `pos` ([`Ranked::index`] into
    /// [`ChanceGame::plays_of`]), best first: the candidates searched at `plies` (ranked by
    /// that search), then the plays filtered out, at 0-ply. Empty when no play is legal.
    pub fn rank(&self, pos: &G, roll: G::Roll, plies: u8) -> Vec<Ranked<N>> {
        let plays = pos.plays_of(roll);
        if plays.is_empty() {
            return Vec::new();
        }
        let results: Vec<G> = plays.iter().map(|p| pos.apply(p)).collect();
        let ranked = self.rank_zero(&results);
        let deep: &[Ranked<N>] = if plies == 0 {
            &[]
        } else {
            head(&ranked, self.filter.max_candidates, self.filter.threshold)
        };
        let mut searched: Vec<Ranked<N>> = deep
            .par_iter()
            .map(|r| {
                let value = self.eval.invert(&self.evaluate(&results[r.index], plies));
                Ranked {
                    index: r.index,
                    value,
                    score: self.eval.score(&value),
                    plies,
                }
            })
            .collect();
        // Stable: equal scores keep their 0-ply order.
        searched.sort_by(|a, b| b.score.total_cmp(&a.score));
        searched.extend(ranked[deep.len()..].iter().cloned());
        searched
    }
}

/// The head of a 0-ply ranking worth searching deeper: at most `max` plays (at least one),
/// within `threshold` of the best.
fn head<const N: usize>(ranked: &[Ranked<N>], max: usize, threshold: f32) -> &[Ranked<N>] {
    let best = ranked[0].score;
    let keep = ranked
        .iter()
        .take(max.max(1))
        .take_while(|r| r.score >= best - threshold)
        .count();
    &ranked[..keep.max(1)]
}

/// Why a thread pool could not be started.
#[derive(Debug)]
pub struct ThreadPoolError {
    threads: usize,
    source: rayon::ThreadPoolBuildError,
}

impl std::fmt::Display for ThreadPoolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot start {} threads: {}", self.threads, self.source)
    }
}

impl std::error::Error for ThreadPoolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Runs `f` on a rayon pool of `threads` threads (0: one per core). The searches of this
/// module give the same results on any pool.
pub fn with_threads<R: Send>(
    threads: usize,
    f: impl FnOnce() -> R + Send,
) -> Result<R, ThreadPoolError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| ThreadPoolError { threads, source })?;
    Ok(pool.install(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy race: each side needs `n` pips to finish; a roll of one die (1 to 3, weights
    /// 1, 1, 2) moves the player on roll that many pips or, with a 3, optionally only 1.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Race {
        me: u8,
        opp: u8,
    }

    impl ChanceGame for Race {
        type Roll = u8;
        type Play = u8;
        const ROLL_WEIGHT_TOTAL: u32 = 4;
        fn rolls() -> &'static [(u8, u32)] {
            &[(1, 1), (2, 1), (3, 2)]
        }
        fn plays_of(&self, roll: u8) -> Vec<u8> {
            match roll {
                3 => vec![3, 1],
                r => vec![r],
            }
        }
        fn apply(&self, play: &u8) -> Race {
            Race {
                me: self.opp,
                opp: self.me.saturating_sub(*play),
            }
        }
        fn pass(&self) -> Race {
            Race {
                me: self.opp,
                opp: self.me,
            }
        }
        fn chance_key(&self) -> u128 {
            (self.me as u128) << 8 | self.opp as u128
        }
    }

    /// Win probability for the player on roll: exact at the end, a pip-count guess otherwise.
    struct Pips;

    impl LeafEvaluator<Race, 1> for Pips {
        fn terminal(&self, pos: &Race) -> Option<[f32; 1]> {
            (pos.opp == 0).then_some([0.0])
        }
        fn evaluate(&self, pos: &Race) -> [f32; 1] {
            [pos.opp as f32 / (pos.me as f32 + pos.opp as f32)]
        }
        fn invert(&self, v: &[f32; 1]) -> [f32; 1] {
            [1.0 - v[0]]
        }
        fn score(&self, v: &[f32; 1]) -> f32 {
            v[0]
        }
    }

    fn filter() -> Filter {
        Filter {
            max_candidates: 8,
            threshold: 1.0,
            inner_candidates: 8,
            inner_threshold: 1.0,
            last_ply_candidates: 0,
        }
    }

    /// [`Pips`] with a quick score at the last ply: its own (exact) one, or the reverse.
    struct Quick {
        reversed: bool,
    }

    impl LeafEvaluator<Race, 1> for Quick {
        fn terminal(&self, pos: &Race) -> Option<[f32; 1]> {
            Pips.terminal(pos)
        }
        fn evaluate(&self, pos: &Race) -> [f32; 1] {
            Pips.evaluate(pos)
        }
        fn invert(&self, v: &[f32; 1]) -> [f32; 1] {
            Pips.invert(v)
        }
        fn score(&self, v: &[f32; 1]) -> f32 {
            Pips.score(v)
        }
        fn quick_score(&self, result: &Race) -> Option<f32> {
            let exact = Pips.score(&Pips.invert(&Pips.evaluate(result)));
            Some(if self.reversed { -exact } else { exact })
        }
    }

    /// At the last ply only the best `last_ply_candidates` results by the quick score are
    /// evaluated: an exact quick score changes nothing, a reversed one keeps the worst play
    /// of the roll of 3 (the only roll with two), and 0 turns the pruning off.
    #[test]
    fn last_ply_pruning_keeps_the_best_by_the_quick_score() {
        let pruned = Filter {
            last_ply_candidates: 1,
            ..filter()
        };
        let pos = Race { me: 9, opp: 8 };
        let plain = Expectimax::new(&Pips, filter(), 64);
        let exact = Expectimax::new(&Quick { reversed: false }, pruned, 64);
        let reversed = Expectimax::new(&Quick { reversed: true }, pruned, 64);
        let off = Expectimax::new(&Quick { reversed: true }, filter(), 64);
        for plies in 1..=3 {
            let want = plain.evaluate(&pos, plies);
            assert_eq!(exact.evaluate(&pos, plies), want, "{plies} plies");
            assert_eq!(off.evaluate(&pos, plies), want, "{plies} plies");
        }
        // One ply: the roll of 3 is valued by its worse play, 1 pip instead of 3.
        let worse = Pips.invert(&Pips.evaluate(&Race { me: 8, opp: 8 }))[0];
        let better = Pips.invert(&Pips.evaluate(&Race { me: 8, opp: 6 }))[0];
        assert!(worse < better);
        let expected = 0.25 * f64::from(Pips.invert(&Pips.evaluate(&Race { me: 8, opp: 8 }))[0])
            + 0.25 * f64::from(Pips.invert(&Pips.evaluate(&Race { me: 8, opp: 7 }))[0])
            + 0.5 * f64::from(worse);
        assert_eq!(reversed.evaluate(&pos, 1), [expected as f32]);
        assert!(reversed.evaluate(&pos, 1)[0] < plain.evaluate(&pos, 1)[0]);
    }

    #[test]
    fn one_ply_is_the_weighted_average_of_the_best_replies() {
        let s = Expectimax::new(&Pips, filter(), 64);
        let pos = Race { me: 3, opp: 4 };
        // Roll 1 → (4, 2), worth 1 − 2/6 to the mover; roll 2 → (4, 1), 1 − 1/5; roll 3
        // (twice as likely) → the best of (4, 0), a win, and (4, 2).
        let best = [1.0f32 - 2.0 / 6.0, 1.0f32 - 1.0 / 5.0, 1.0f32];
        let expected = [0.25f64, 0.25, 0.5]
            .iter()
            .zip(best)
            .fold(0.0f64, |a, (w, v)| a + w * v as f64);
        assert_eq!(s.evaluate(&pos, 1), [expected as f32]);
        let r = s.rank(&pos, 3, 1);
        assert_eq!(r[0].index, 0, "playing 3 wins at once");
        assert_eq!(r[0].value, [1.0]);
    }

    #[test]
    fn same_results_on_any_number_of_threads() {
        let run = |threads| {
            with_threads(threads, || {
                let s = Expectimax::new(&Pips, filter(), 16);
                let pos = Race { me: 9, opp: 8 };
                (s.evaluate(&pos, 3), s.rank(&pos, 3, 2))
            })
            .unwrap()
        };
        assert_eq!(run(1), run(3));
    }
}
