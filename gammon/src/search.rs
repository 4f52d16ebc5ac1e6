//! Expectimax over the 21 rolls on top of the net, with move filtering, rayon and a cache.
//!
//! `value(pos, 0)` is the net (or the exact result of a finished game); `value(pos, n)` is the
//! average over the 21 rolls (weighted 1/36 or 2/36) of the player on roll's best play, each
//! play's result worth `invert(value(result, n − 1))`. The plays of a roll are first ranked at
//! 0-ply and only the best few (at most [`SearchOptions::inner_candidates`], within
//! [`SearchOptions::inner_threshold`] equity of the best) are searched deeper; with `n − 1 = 0`
//! the 0-ply ranking decides directly. A roll with no legal play passes the turn.
//!
//! A hint at `n` plies ranks the plays of the rolled dice at 0-ply and re-evaluates the
//! candidates (at most [`SearchOptions::max_candidates`] within [`SearchOptions::threshold`])
//! with `invert(value(result, n))`, so 1-ply looks at every reply of the opponent, as in GNU
//! Backgammon. The inner filter is narrower than the root's: each extra ply multiplies the work
//! by 21 × its candidates.
//!
//! Rolls (and root candidates) are searched in parallel with rayon; the results are collected
//! in order and summed sequentially, and the cache only ever returns the value a recomputation
//! would produce, so the output is bit-for-bit the same for any number of threads.

use std::sync::Mutex;

use rayon::prelude::*;
use tabula_engine::backgammon::{Dice, Play, PlayList, Position};

use crate::net::{equity, game_over, invert, Evaluator, Probabilities};

/// The deepest search offered.
pub const MAX_PLIES: u8 = 3;

/// Search parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchOptions {
    /// Plies of lookahead: 0 (the net alone) to [`MAX_PLIES`].
    pub plies: u8,
    /// Plays of the rolled dice searched deeper than 0-ply, at most.
    pub max_candidates: usize,
    /// Only plays of the rolled dice within this 0-ply equity of the best are searched deeper.
    pub threshold: f32,
    /// The same limit inside the search (the plays of the rolls looked ahead).
    pub inner_candidates: usize,
    /// The same threshold inside the search.
    pub inner_threshold: f32,
    /// Cache slots (rounded up to a power of two).
    pub cache_slots: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            plies: 1,
            max_candidates: 8,
            threshold: 0.16,
            inner_candidates: 3,
            inner_threshold: 0.10,
            cache_slots: 1 << 18,
        }
    }
}

/// A play with its evaluation for the player who makes it.
#[derive(Clone, Debug, PartialEq)]
pub struct RankedPlay {
    pub play: Play,
    /// `[win, win gammon, win backgammon, lose gammon, lose backgammon]` for the mover.
    pub probabilities: Probabilities,
    /// Cubeless equity for the mover.
    pub equity: f32,
    /// The depth of this evaluation (0 for plays filtered out before the deeper search).
    pub plies: u8,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    key: u128,
    /// `u8::MAX` for an empty slot.
    plies: u8,
    value: Probabilities,
}

/// A fixed array of slots, each behind its own lock, always replaced.
#[derive(Debug)]
struct Cache {
    slots: Vec<Mutex<Slot>>,
    mask: usize,
}

impl Cache {
    fn new(size: usize) -> Cache {
        let size = size.max(1).next_power_of_two();
        let empty = Slot {
            key: 0,
            plies: u8::MAX,
            value: [0.0; 5],
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

    fn get(&self, key: u128, plies: u8) -> Option<Probabilities> {
        let slot = self.slots[self.index(key, plies)]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        (slot.plies == plies && slot.key == key).then_some(slot.value)
    }

    fn put(&self, key: u128, plies: u8, value: Probabilities) {
        let mut slot = self.slots[self.index(key, plies)]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        *slot = Slot { key, plies, value };
    }
}

/// An expectimax searcher over one evaluator, with its own cache.
#[derive(Debug)]
pub struct Searcher<'e> {
    eval: &'e Evaluator,
    options: SearchOptions,
    cache: Cache,
}

impl<'e> Searcher<'e> {
    pub fn new(eval: &'e Evaluator, options: SearchOptions) -> Searcher<'e> {
        Searcher {
            eval,
            options,
            cache: Cache::new(options.cache_slots),
        }
    }

    /// The options in use.
    pub fn options(&self) -> &SearchOptions {
        &self.options
    }

    /// The cubeless evaluation of `pos` for the player on roll, before the roll, looking
    /// `plies` rolls ahead.
    pub fn evaluate(&self, pos: &Position, plies: u8) -> Probabilities {
        if let Some(p) = game_over(pos) {
            return p;
        }
        let key = pos.gnubg_key();
        if let Some(p) = self.cache.get(key, plies) {
            return p;
        }
        let value = if plies == 0 {
            self.eval.evaluate(pos)
        } else {
            let per_roll: Vec<Probabilities> = Dice::ALL
                .par_iter()
                .map(|&dice| self.best_for_roll(pos, dice, plies - 1))
                .collect();
            let mut acc = [0.0f64; 5];
            for (dice, p) in Dice::ALL.iter().zip(&per_roll) {
                let w = dice.weight() as f64 / 36.0;
                for (a, &v) in acc.iter_mut().zip(p) {
                    *a += w * v as f64;
                }
            }
            acc.map(|a| a as f32)
        };
        self.cache.put(key, plies, value);
        value
    }

    /// The value for the player on roll of `pos` of its best play of `dice`, each play's result
    /// evaluated `plies` deep.
    fn best_for_roll(&self, pos: &Position, dice: Dice, plies: u8) -> Probabilities {
        let mut list = PlayList::new();
        if pos.generate_plays(dice, &mut list) == 0 {
            return invert(&self.evaluate(&pos.swapped(), plies));
        }
        let results: Vec<Position> = (0..list.len()).map(|i| list.result(i)).collect();
        let ranked = self.rank_zero(&results);
        if plies == 0 {
            return ranked[0].1;
        }
        let mut best = (f32::NEG_INFINITY, [0.0; 5]);
        let o = &self.options;
        for &(i, _, _) in filter(&ranked, o.inner_candidates, o.inner_threshold) {
            let p = invert(&self.evaluate(&results[i], plies));
            let e = equity(&p);
            if e > best.0 {
                best = (e, p);
            }
        }
        best.1
    }

    /// Every result at 0-ply for the mover, best first (ties in generation order).
    fn rank_zero(&self, results: &[Position]) -> Vec<(usize, Probabilities, f32)> {
        let mut ranked: Vec<(usize, Probabilities, f32)> = results
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let p = invert(&self.evaluate(r, 0));
                (i, p, equity(&p))
            })
            .collect();
        ranked.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
        ranked
    }

    /// The legal plays of `dice` from `pos`, best first: the candidates searched at
    /// [`SearchOptions::plies`] (ranked by that search), then the plays filtered out, at 0-ply.
    pub fn rank(&self, pos: &Position, dice: Dice) -> Vec<RankedPlay> {
        let plays = pos.plays(dice);
        if plays.is_empty() {
            return Vec::new();
        }
        let results: Vec<Position> = plays.iter().map(Play::result).collect();
        let ranked = self.rank_zero(&results);
        let plies = self.options.plies;
        let deep: &[(usize, Probabilities, f32)] = if plies == 0 {
            &[]
        } else {
            filter(&ranked, self.options.max_candidates, self.options.threshold)
        };
        let mut searched: Vec<RankedPlay> = deep
            .par_iter()
            .map(|&(i, _, _)| {
                let p = invert(&self.evaluate(&results[i], plies));
                RankedPlay {
                    play: plays[i],
                    probabilities: p,
                    equity: equity(&p),
                    plies,
                }
            })
            .collect();
        // Stable: equal equities keep their 0-ply order.
        searched.sort_by(|a, b| b.equity.total_cmp(&a.equity));
        searched.extend(ranked[deep.len()..].iter().map(|&(i, p, e)| RankedPlay {
            play: plays[i],
            probabilities: p,
            equity: e,
            plies: 0,
        }));
        searched
    }
}

/// The head of a 0-ply ranking worth searching deeper: at most `max` plays (at least one),
/// within `threshold` of the best.
fn filter(
    ranked: &[(usize, Probabilities, f32)],
    max: usize,
    threshold: f32,
) -> &[(usize, Probabilities, f32)] {
    let best = ranked[0].2;
    let keep = ranked
        .iter()
        .take(max.max(1))
        .take_while(|r| r.2 >= best - threshold)
        .count();
    &ranked[..keep.max(1)]
}

/// Runs `f` on a rayon pool of `threads` threads (0: one per core).
pub fn with_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> Result<R, String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    Ok(pool.install(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn evaluator() -> Evaluator {
        let mut rng = Rng::new(5);
        Evaluator::random(16, 8, &mut rng)
    }

    #[test]
    fn zero_ply_ranks_every_play() {
        let e = evaluator();
        let s = Searcher::new(
            &e,
            SearchOptions {
                plies: 0,
                ..SearchOptions::default()
            },
        );
        let dice: Dice = "31".parse().unwrap();
        let r = s.rank(&Position::START, dice);
        assert_eq!(r.len(), 16);
        assert!(r.windows(2).all(|w| w[0].equity >= w[1].equity));
        for p in &r {
            assert_eq!(p.probabilities, invert(&e.evaluate(&p.play.result())));
        }
    }

    #[test]
    fn one_ply_matches_a_plain_expectimax() {
        let e = evaluator();
        let s = Searcher::new(&e, SearchOptions::default());
        let pos = Position::START;
        // Plain 1-ply: average over the 21 rolls of the best 0-ply play.
        let mut acc = [0.0f64; 5];
        for d in Dice::ALL {
            let best = pos
                .plays(d)
                .iter()
                .map(|p| invert(&e.evaluate(&p.result())))
                .fold((f32::NEG_INFINITY, [0.0; 5]), |b, p| {
                    if equity(&p) > b.0 {
                        (equity(&p), p)
                    } else {
                        b
                    }
                })
                .1;
            for k in 0..5 {
                acc[k] += d.weight() as f64 / 36.0 * best[k] as f64;
            }
        }
        assert_eq!(s.evaluate(&pos, 1), acc.map(|a| a as f32));
    }

    #[test]
    fn same_results_with_one_and_many_threads() {
        let e = evaluator();
        let pos = Position::from_position_id("4HPwATDgc/ABMA").unwrap();
        let dice: Dice = "62".parse().unwrap();
        let run = |threads| {
            with_threads(threads, || {
                let s = Searcher::new(&e, SearchOptions::default());
                (s.rank(&pos, dice), s.evaluate(&pos, 1))
            })
            .unwrap()
        };
        let one = run(1);
        let many = run(4);
        assert_eq!(one, many);
        // Two plies in a bear-off race, where the inner filter matters.
        let race = Position::from_position_id("27YBAGDbdgAAAA").unwrap();
        let two = |threads| {
            with_threads(threads, || {
                let s = Searcher::new(
                    &e,
                    SearchOptions {
                        plies: 2,
                        ..SearchOptions::default()
                    },
                );
                s.rank(&race, "42".parse().unwrap())
            })
            .unwrap()
        };
        let two_one = two(1);
        assert!(!two_one.is_empty() && two_one[0].plies == 2);
        assert_eq!(two_one, two(3));
        let bits = |r: &Vec<RankedPlay>| -> Vec<(String, [u32; 5])> {
            r.iter()
                .map(|p| (p.play.notation(), p.probabilities.map(f32::to_bits)))
                .collect()
        };
        assert_eq!(bits(&one.0), bits(&many.0));
    }
}
