//! The backgammon instance of `tabula-solver`'s expectimax: the net (with exact bear-offs when
//! a database is attached) at the leaves, the 21 rolls of [`tabula_engine::ChanceGame`] for
//! [`Position`], cubeless equity as the score.
//!
//! `value(pos, 0)` is the net (or the exact result of a finished game); `value(pos, n)` is the
//! average over the 21 rolls (weighted 1/36 or 2/36) of the player on roll's best play, each
//! play's result worth `invert(value(result, n − 1))`. The plays of a roll are first ranked at
//! 0-ply and only the best few (at most [`SearchOptions::inner_candidates`], within
//! [`SearchOptions::inner_threshold`] equity of the best) are searched deeper; with `n − 1 = 0`
//! the 0-ply ranking decides directly. A roll with no legal play passes the turn. At that last
//! ply, where the evaluator has a pruning net ([`crate::prune`]; the shipped nets do), only the
//! best [`SearchOptions::last_ply_candidates`] plays by it are valued by the full nets.
//!
//! A hint at `n` plies ranks the plays of the rolled dice at 0-ply and re-evaluates the
//! candidates (at most [`SearchOptions::max_candidates`] within [`SearchOptions::threshold`])
//! with `invert(value(result, n))`, so 1-ply looks at every reply of the opponent, as in GNU
//! Backgammon. The inner filter is narrower than the root's: each extra ply multiplies the work
//! by 21 × its candidates.
//!
//! Rolls (and root candidates) are searched in parallel with rayon; the output is bit-for-bit
//! the same for any number of threads (see [`tabula_solver::expectimax`]).

use tabula_engine::backgammon::{Dice, Play, Position};
use tabula_solver::expectimax::{Expectimax, Filter, LeafEvaluator};

use crate::net::{equity, game_over, invert, Evaluator, Probabilities};

pub use tabula_solver::expectimax::{with_threads, ThreadPoolError};

/// The default of [`SearchOptions::last_ply_candidates`]: the plays of a roll the full nets
/// value at the last ply, the best by the pruning net. Measured (docs/results.md, "The last
/// ply pruned"): the shipped pruning net keeps the full nets' best play among its best 6 in
/// 95% of held-out turns; 2-ply hints take 3.2 times fewer seconds (`tabula bench`, 32
/// hints); gnubg 2-ply judges 1,200 fresh contact decisions +0.014 ± 0.015 millipoints worse
/// (21 choices changed; 8 plays: +0.001 ± 0.013, fewer seconds saved).
pub const LAST_PLY_CANDIDATES: usize = 6;

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
    /// At the last ply, where each roll's best play is taken at 0-ply, only this many plays
    /// (the best by the evaluator's pruning net, [`crate::prune`]) are evaluated by the full
    /// nets; 0, or an evaluator without a pruning net, evaluates every play.
    pub last_ply_candidates: usize,
    /// Cache slots (rounded up to a power of two), at most: searches of 0 and 1 ply take
    /// fewer ([`Searcher::new`]).
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
            last_ply_candidates: LAST_PLY_CANDIDATES,
            cache_slots: 1 << 18,
        }
    }
}

impl SearchOptions {
    /// The move filter these options give the expectimax.
    pub fn filter(&self) -> Filter {
        Filter {
            max_candidates: self.max_candidates,
            threshold: self.threshold,
            inner_candidates: self.inner_candidates,
            inner_threshold: self.inner_threshold,
            last_ply_candidates: self.last_ply_candidates,
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

/// The net as the expectimax's leaf: exact results of finished games, the five probabilities,
/// cubeless equity as the score.
impl LeafEvaluator<Position, 5> for Evaluator {
    fn terminal(&self, pos: &Position) -> Option<Probabilities> {
        game_over(pos)
    }

    fn evaluate(&self, pos: &Position) -> Probabilities {
        Evaluator::evaluate(self, pos)
    }

    fn invert(&self, value: &Probabilities) -> Probabilities {
        invert(value)
    }

    fn score(&self, value: &Probabilities) -> f32 {
        equity(value)
    }

    /// The pruning net's equity for the player who made the play, in contact positions only
    /// (races and finished games are always evaluated in full: the race net, the exact
    /// endings).
    fn quick_score(&self, result: &Position) -> Option<f32> {
        Some(-self.pruner.as_deref()?.equity_in_contact(result)?)
    }
}

/// An expectimax searcher over one evaluator, with its own cache.
#[derive(Debug)]
pub struct Searcher<'e> {
    search: Expectimax<'e, Position, Evaluator, 5>,
    options: SearchOptions,
}

/// The most cache slots a search of 0 plies or 1 ply is given. A 1-ply hint stores the
/// 0-ply values of the replies to its candidates, a few thousand (21 rolls × about 20 plays
/// × 8 candidates at most), and a hit saves one net evaluation; the cache is filled when
/// the searcher is made, and the default 2^18 slots (16 MiB) took about 2 ms to fill, as
/// long as the whole 1-ply hint of the start (`backgammon_eval` bench, `start-31-1-ply`,
/// 2.0–2.2 ms before this cap). Deeper searches keep what they are given: there a hit
/// saves a whole search. The values do not depend on the cache's size.
pub const SHALLOW_CACHE_SLOTS: usize = 1 << 14;

impl<'e> Searcher<'e> {
    /// A searcher with an empty cache of `options.cache_slots` slots, or at most
    /// [`SHALLOW_CACHE_SLOTS`] for a search of 0 plies or 1.
    pub fn new(eval: &'e Evaluator, options: SearchOptions) -> Searcher<'e> {
        let slots = if options.plies <= 1 {
            options.cache_slots.min(SHALLOW_CACHE_SLOTS)
        } else {
            options.cache_slots
        };
        Searcher {
            search: Expectimax::new(eval, options.filter(), slots),
            options,
        }
    }

    /// The options in use.
    pub fn options(&self) -> &SearchOptions {
        &self.options
    }

    /// The evaluator searched.
    pub fn evaluator(&self) -> &'e Evaluator {
        self.search.evaluator()
    }

    /// The searcher of cube decisions that goes with this one: over the evaluator's cube nets
    /// ([`Evaluator::cube`]) with the same options, made in `cell` at the first call (its
    /// cache costs as much as this one's, which a caller asking only for plays never needs);
    /// this searcher itself when the evaluator has no cube nets.
    pub fn for_cube<'s>(&'s self, cell: &'s std::sync::OnceLock<Searcher<'e>>) -> &'s Searcher<'e> {
        match self.evaluator().cube.as_deref() {
            Some(cube) => cell.get_or_init(|| Searcher::new(cube, self.options)),
            None => self,
        }
    }

    /// The searcher that decides the cube of `pos`: [`Searcher::for_cube`] where the cube
    /// nets decide it ([`Evaluator::cube_decides`]), else this searcher (whose cubeful
    /// searches value every play too: they evaluate at 0 plies only).
    pub fn for_cube_at<'s>(
        &'s self,
        pos: &Position,
        cell: &'s std::sync::OnceLock<Searcher<'e>>,
    ) -> &'s Searcher<'e> {
        if self.evaluator().cube_decides(pos) {
            self.for_cube(cell)
        } else {
            self
        }
    }

    /// The cubeless evaluation of `pos` for the player on roll, before the roll, looking
    /// `plies` rolls ahead.
    pub fn evaluate(&self, pos: &Position, plies: u8) -> Probabilities {
        self.search.evaluate(pos, plies)
    }

    /// The legal plays of `dice` from `pos`, best first: the candidates searched at
    /// [`SearchOptions::plies`] (ranked by that search), then the plays filtered out, at 0-ply.
    pub fn rank(&self, pos: &Position, dice: Dice) -> Vec<RankedPlay> {
        let ranked = self.search.rank(pos, dice, self.options.plies);
        if ranked.is_empty() {
            return Vec::new();
        }
        let plays = pos.plays(dice);
        ranked
            .into_iter()
            .map(|r| RankedPlay {
                play: plays[r.index],
                probabilities: r.value,
                equity: r.score,
                plies: r.plies,
            })
            .collect()
    }
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
