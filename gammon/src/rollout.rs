//! Monte-Carlo rollouts: a position (before the roll) or the plays of a roll, played out many
//! times by the expectimax player, with luck correction, stratified first rolls and standard
//! errors, the way GNU Backgammon and eXtreme Gammon roll out.
//!
//! **A trial** plays both sides with [`Searcher::rank`] at [`RolloutOptions::plies`] from the
//! start position to the end of the game (the exact result, gammons and backgammons counted) or,
//! with [`RolloutOptions::truncate`], for that many plies (one ply = one player's turn) and then
//! takes the evaluator's value of the position reached at the same depth. Cubeless: the outcome
//! is the five probabilities of [`crate::net`] as 0/1 values, equity ±1, ±2 or ±3.
//!
//! **Random numbers.** Trial `t` draws its dice from its own generator, seeded from
//! `(seed, t)` alone; trials run in parallel on rayon in batches of [`BATCH`] and are summed in
//! trial order in `f64`, so the result depends on the seed and the number of trials, never on
//! the number of threads. When several starts are rolled out together (the plays of a roll, see
//! [`Rollout::plays`]), trial `t` of every start uses the same dice: common random numbers, so
//! that the *differences* between the plays are measured much more precisely than each value.
//!
//! **Stratified first rolls.** With [`RolloutOptions::stratify`], trial `t`'s first roll is
//! the `t mod 36`-th of the 36 ordered rolls (1-1, 1-2, …, 6-6) instead of a random one: every
//! block of 36 trials sees each first roll exactly as often as it should.
//!
//! **Luck correction** (variance reduction, [`RolloutOptions::luck_correction`]). Before each
//! roll the evaluator gives the mover's expected value over the 21 rolls, `E` (the 1-ply value:
//! the average of each roll's best 0-ply play); after the roll, the value of the roll's best
//! 0-ply play, `V(d)`. The luck of the roll is `V(d) − E`, whose expectation over the dice is
//! exactly zero, so subtracting the luck of every roll of the trial (each turned to the root
//! player's view) from the trial's outcome leaves the mean unbiased whatever the evaluator's
//! errors, while removing most of what the dice did: a good evaluator makes the corrected
//! outcomes nearly constant. This is GNU Backgammon's variance reduction at 0-ply; it costs a
//! 1-ply evaluation per turn. The plain (uncorrected) estimate is reported beside it.
//!
//! **Cube.** These rollouts are cubeless; cubeful rollouts (the cube handled by the advisor at
//! each turn) are not implemented yet.
//!
//! ```
//! use tabula_engine::backgammon::Position;
//! use tabula_gammon::rollout::{Rollout, RolloutOptions};
//! use tabula_gammon::weights;
//!
//! let eval = weights::builtin().unwrap();
//! let options = RolloutOptions { trials: 36, truncate: Some(4), ..RolloutOptions::default() };
//! let rollout = Rollout::new(eval, options);
//! let r = rollout.position(&Position::START, None, &mut |_| {});
//! assert_eq!(r.result.trials, 36);
//! let e = r.result.estimate();
//! assert!(e.equity.abs() < 0.5 && e.equity_se < 0.2);
//! ```

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use tabula_engine::backgammon::{Dice, Play, Position};

use crate::net::{equity, game_over, invert, Evaluator, Probabilities};
use crate::rng::Rng;
use crate::search::{RankedPlay, SearchOptions, Searcher};

/// Trials run in parallel between two progress reports (and two looks at the stop flag between
/// trials): a multiple of 36, so that a stopped stratified rollout has whole blocks.
pub const BATCH: u64 = 36;

/// A trial is cut short (and scored by the evaluator) after this many plies whatever
/// [`RolloutOptions::truncate`] says: a guard against two weak players locked out of each
/// other's home boards forever. Real games last about 60 plies.
pub const MAX_TRIAL_PLIES: u32 = 10_000;

/// How a rollout is run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RolloutOptions {
    /// Games played out per start (at least 1).
    pub trials: u64,
    /// Plies (turns) played before the evaluator scores the position; `None`: to the end.
    pub truncate: Option<u32>,
    /// The players' search depth, 0 to [`crate::search::MAX_PLIES`].
    pub plies: u8,
    /// Seed of the dice.
    pub seed: u64,
    /// Subtract the luck of each roll (see the module documentation).
    pub luck_correction: bool,
    /// Cycle the first roll over the 36 rolls instead of drawing it.
    pub stratify: bool,
}

impl Default for RolloutOptions {
    fn default() -> Self {
        RolloutOptions {
            trials: 1296,
            truncate: None,
            plies: 0,
            seed: 1,
            luck_correction: true,
            stratify: true,
        }
    }
}

/// Means and standard errors of one estimator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// `[win, win gammon, win backgammon, lose gammon, lose backgammon]` for the root player
    /// (the player on roll, or the player making the play), averaged over the trials.
    pub probabilities: [f64; 5],
    /// The standard error of each mean (0 with fewer than two trials).
    pub probabilities_se: [f64; 5],
    /// Cubeless equity.
    pub equity: f64,
    /// Its standard error (0 with fewer than two trials).
    pub equity_se: f64,
}

/// Running sums, in trial order.
#[derive(Clone, Debug, Default)]
struct Sums {
    n: u64,
    sum: [f64; 5],
    sum2: [f64; 5],
    eq: f64,
    eq2: f64,
}

impl Sums {
    fn add(&mut self, v: &[f64; 5]) {
        self.n += 1;
        for ((s, s2), &x) in self.sum.iter_mut().zip(&mut self.sum2).zip(v) {
            *s += x;
            *s2 += x * x;
        }
        let e = equity_f64(v);
        self.eq += e;
        self.eq2 += e * e;
    }

    fn estimate(&self) -> Estimate {
        let n = self.n.max(1) as f64;
        let se = |s: f64, s2: f64| {
            if self.n < 2 {
                0.0
            } else {
                ((s2 - s * s / n).max(0.0) / (n - 1.0) / n).sqrt()
            }
        };
        Estimate {
            probabilities: self.sum.map(|s| s / n),
            probabilities_se: std::array::from_fn(|k| se(self.sum[k], self.sum2[k])),
            equity: self.eq / n,
            equity_se: se(self.eq, self.eq2),
        }
    }
}

/// Cubeless equity of a probability vector (or of a difference of two).
fn equity_f64(p: &[f64; 5]) -> f64 {
    2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]
}

/// The rollout of one start.
#[derive(Clone, Debug, PartialEq)]
pub struct RolloutResult {
    /// Trials played (fewer than asked when stopped).
    pub trials: u64,
    /// The plain mean of the outcomes.
    pub plain: Estimate,
    /// The luck-corrected mean, when [`RolloutOptions::luck_correction`] is on.
    pub corrected: Option<Estimate>,
    /// Each trial's equity as [`RolloutResult::estimate`] counts it (corrected when on), in
    /// trial order: for the paired differences of [`RolloutResult::difference`].
    pub trial_equities: Vec<f64>,
}

impl RolloutResult {
    /// The estimate to report: luck-corrected when that is on, else plain.
    pub fn estimate(&self) -> &Estimate {
        self.corrected.as_ref().unwrap_or(&self.plain)
    }

    /// The mean of this start's equity minus `other`'s, trial by trial over the trials both
    /// played (same seed: the same dice), with its standard error: the error of a comparison
    /// under common random numbers.
    pub fn difference(&self, other: &RolloutResult) -> (f64, f64) {
        let mut s = Sums::default();
        for (a, b) in self.trial_equities.iter().zip(&other.trial_equities) {
            // Equity of [d, 0, 0, 0, 0] is 2d − 1: feed d = (a − b + 1) / 2.
            s.add(&[(a - b + 1.0) / 2.0, 0.0, 0.0, 0.0, 0.0]);
        }
        let e = s.estimate();
        (e.equity, e.equity_se)
    }
}

/// The accumulated trials of one start.
#[derive(Clone, Debug, Default)]
struct Accumulator {
    plain: Sums,
    corrected: Sums,
    equities: Vec<f64>,
}

impl Accumulator {
    fn add(&mut self, t: &Trial, corrected: bool) {
        self.plain.add(&t.outcome);
        let c: [f64; 5] = std::array::from_fn(|k| t.outcome[k] - t.luck[k]);
        self.corrected.add(&c);
        self.equities
            .push(equity_f64(if corrected { &c } else { &t.outcome }));
    }

    fn result(&self, corrected: bool) -> RolloutResult {
        RolloutResult {
            trials: self.plain.n,
            plain: self.plain.estimate(),
            corrected: corrected.then(|| self.corrected.estimate()),
            trial_equities: self.equities.clone(),
        }
    }
}

/// One trial's outcome and summed luck, both for the root player.
#[derive(Clone, Copy, Debug)]
struct Trial {
    outcome: [f64; 5],
    luck: [f64; 5],
}

impl Trial {
    /// The same trial seen by the other player.
    fn inverted(&self) -> Trial {
        Trial {
            outcome: invert_f64(&self.outcome),
            luck: invert_difference(&self.luck),
        }
    }
}

fn invert_f64(p: &[f64; 5]) -> [f64; 5] {
    [1.0 - p[0], p[3], p[4], p[1], p[2]]
}

/// The other player's view of a difference of two probability vectors.
fn invert_difference(d: &[f64; 5]) -> [f64; 5] {
    [-d[0], d[3], d[4], d[1], d[2]]
}

/// What a rollout reports as it goes, after every batch.
#[derive(Clone, Debug)]
pub struct Progress<'a> {
    /// Trials played per start so far.
    pub done: u64,
    /// Trials asked for per start.
    pub total: u64,
    /// The estimates so far ([`RolloutResult::estimate`]), one per start.
    pub estimates: &'a [Estimate],
}

/// A play of the rolled dice with its rollout.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayRollout {
    pub play: Play,
    pub result: RolloutResult,
}

/// The rollout of one position.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionRollout {
    pub result: RolloutResult,
    /// Stopped by the stop flag before all the trials were played.
    pub stopped: bool,
}

/// The rollouts of the plays of one roll, best first.
#[derive(Clone, Debug, PartialEq)]
pub struct PlaysRollout {
    /// Best first by the estimated equity (ties keep the candidates' order).
    pub plays: Vec<PlayRollout>,
    /// Stopped by the stop flag before all the trials were played.
    pub stopped: bool,
}

/// A rollout engine: an evaluator, the players' searcher (its cache shared by all trials) and
/// the options.
#[derive(Debug)]
pub struct Rollout<'e> {
    eval: &'e Evaluator,
    searcher: Searcher<'e>,
    options: RolloutOptions,
}

/// The seed of trial `t`'s generator.
fn trial_seed(seed: u64, t: u64) -> u64 {
    Rng::new(seed).next_u64() ^ Rng::new(t).next_u64()
}

/// The `i`-th (mod 36) of the 36 ordered rolls.
fn stratified_roll(i: u64) -> Dice {
    let i = (i % 36) as u8;
    Dice::new(i / 6 + 1, i % 6 + 1).expect("dice 1 to 6")
}

impl<'e> Rollout<'e> {
    pub fn new(eval: &'e Evaluator, options: RolloutOptions) -> Rollout<'e> {
        let search = SearchOptions {
            plies: options.plies,
            cache_slots: 1 << 16,
            ..SearchOptions::default()
        };
        Rollout {
            eval,
            searcher: Searcher::new(eval, search),
            options,
        }
    }

    /// The options in use.
    pub fn options(&self) -> &RolloutOptions {
        &self.options
    }

    /// Rolls out `pos` before the roll, for its player on roll. `stop` is polled between plies:
    /// once set, the trials under way are dropped and the result of those finished (a prefix
    /// of the trial order) is returned with `stopped`. `progress` is called after each batch.
    pub fn position(
        &self,
        pos: &Position,
        stop: Option<&AtomicBool>,
        progress: &mut dyn FnMut(&Progress),
    ) -> PositionRollout {
        let (mut results, stopped) = self.run(&[(*pos, false)], stop, progress);
        PositionRollout {
            result: results.pop().expect("one start"),
            stopped,
        }
    }

    /// Rolls out each of `plays` (plays of one roll from one position) for the player making
    /// it, with the same dice in every play's trial `t`, and ranks them by the estimate.
    pub fn plays(
        &self,
        plays: &[Play],
        stop: Option<&AtomicBool>,
        progress: &mut dyn FnMut(&Progress),
    ) -> PlaysRollout {
        let starts: Vec<(Position, bool)> = plays.iter().map(|p| (p.result(), true)).collect();
        let (results, stopped) = self.run(&starts, stop, progress);
        let mut ranked: Vec<PlayRollout> = plays
            .iter()
            .zip(results)
            .map(|(&play, result)| PlayRollout { play, result })
            .collect();
        ranked.sort_by(|a, b| {
            b.result
                .estimate()
                .equity
                .total_cmp(&a.result.estimate().equity)
        });
        PlaysRollout {
            plays: ranked,
            stopped,
        }
    }

    /// Every start (a position and whether its outcome is for the opponent of its player on
    /// roll) played out in batches; the results in the starts' order and whether stopped.
    fn run(
        &self,
        starts: &[(Position, bool)],
        stop: Option<&AtomicBool>,
        progress: &mut dyn FnMut(&Progress),
    ) -> (Vec<RolloutResult>, bool) {
        let corrected = self.options.luck_correction;
        let total = self.options.trials;
        let mut acc = vec![Accumulator::default(); starts.len()];
        let mut done = 0u64;
        let mut stopped = false;
        while done < total && !starts.is_empty() {
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                stopped = true;
                break;
            }
            let end = (done + BATCH).min(total);
            let jobs: Vec<(u64, usize)> = (done..end)
                .flat_map(|t| (0..starts.len()).map(move |s| (t, s)))
                .collect();
            let trials: Vec<Option<Trial>> = jobs
                .par_iter()
                .map(|&(t, s)| {
                    let (pos, flip) = starts[s];
                    let trial = self.trial(&pos, t, stop)?;
                    Some(if flip { trial.inverted() } else { trial })
                })
                .collect();
            // Keep the trials every start finished, up to the first one some start did not.
            for (chunk, t) in trials.chunks(starts.len()).zip(done..end) {
                if chunk.iter().any(Option::is_none) {
                    stopped = true;
                    break;
                }
                for (a, trial) in acc.iter_mut().zip(chunk) {
                    a.add(trial.as_ref().expect("checked"), corrected);
                }
                done = t + 1;
            }
            let estimates: Vec<Estimate> = acc
                .iter()
                .map(|a| {
                    if corrected {
                        a.corrected.estimate()
                    } else {
                        a.plain.estimate()
                    }
                })
                .collect();
            progress(&Progress {
                done,
                total,
                estimates: &estimates,
            });
            if stopped {
                break;
            }
        }
        (acc.iter().map(|a| a.result(corrected)).collect(), stopped)
    }

    /// Trial `t` from `start`, for its player on roll; `None` when stopped.
    fn trial(&self, start: &Position, t: u64, stop: Option<&AtomicBool>) -> Option<Trial> {
        let o = &self.options;
        let mut rng = Rng::new(trial_seed(o.seed, t));
        let mut pos = *start;
        let mut mine = true; // the player on roll of `pos` is the root player
        let mut luck = [0.0f64; 5];
        let mut ply = 0u32;
        let outcome = loop {
            if let Some(p) = game_over(&pos) {
                break p;
            }
            if o.truncate.is_some_and(|n| ply >= n) || ply >= MAX_TRIAL_PLIES {
                break self.searcher.evaluate(&pos, o.plies);
            }
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return None;
            }
            let dice = if ply == 0 && o.stratify {
                stratified_roll(t)
            } else {
                Dice::new(rng.die(), rng.die()).expect("dice 1 to 6")
            };
            let ranked = self.searcher.rank(&pos, dice);
            if o.luck_correction {
                let mean = self.searcher.evaluate(&pos, 1);
                let after = self.best_zero_ply(&pos, &ranked);
                let d: [f64; 5] = std::array::from_fn(|k| after[k] as f64 - mean[k] as f64);
                let d = if mine { d } else { invert_difference(&d) };
                for (l, x) in luck.iter_mut().zip(d) {
                    *l += x;
                }
            }
            pos = match ranked.first() {
                Some(r) => r.play.result(),
                None => pos.swapped(),
            };
            mine = !mine;
            ply += 1;
        };
        let outcome = if mine { outcome } else { invert(&outcome) };
        Some(Trial {
            outcome: outcome.map(f64::from),
            luck,
        })
    }

    /// The mover's value of the best play of `dice` at 0-ply (after a pass: the position
    /// passed to the opponent), exactly as the 1-ply expectimax counts it.
    fn best_zero_ply(&self, pos: &Position, ranked: &[RankedPlay]) -> Probabilities {
        if ranked.is_empty() {
            return invert(&self.searcher.evaluate(&pos.swapped(), 0));
        }
        if self.options.plies == 0 {
            return ranked[0].probabilities;
        }
        let mut best = (f32::NEG_INFINITY, [0.0; 5]);
        for r in ranked {
            let v = invert(&self.searcher.evaluate(&r.play.result(), 0));
            if equity(&v) > best.0 {
                best = (equity(&v), v);
            }
        }
        best.1
    }

    /// The evaluator.
    pub fn evaluator(&self) -> &'e Evaluator {
        self.eval
    }
}

/// The best `n` plays of `dice` from `pos` by the evaluator at 0-ply (all with `n` = 0), best
/// first: the candidates a rollout compares.
pub fn candidates(eval: &Evaluator, pos: &Position, dice: Dice, n: usize) -> Vec<Play> {
    let searcher = Searcher::new(
        eval,
        SearchOptions {
            plies: 0,
            cache_slots: 1 << 10,
            ..SearchOptions::default()
        },
    );
    let ranked = searcher.rank(pos, dice);
    let n = if n == 0 { ranked.len() } else { n };
    ranked.into_iter().take(n).map(|r| r.play).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::with_threads;
    use crate::weights;
    use std::sync::{Arc, OnceLock};
    use tabula_tablebase::bearoff::OneSided;

    fn builtin() -> &'static Evaluator {
        weights::builtin().expect("shipped weights")
    }

    fn with_bearoff() -> &'static Evaluator {
        static EVAL: OnceLock<Evaluator> = OnceLock::new();
        EVAL.get_or_init(|| builtin().clone().with_bearoff(Arc::new(OneSided::build())))
    }

    /// A middle-game position: the start after 31 (8/5 6/5) and 52 (13/8 13/11).
    fn middle_game() -> Position {
        let after = |pos: &Position, dice: &str, play: &str| {
            pos.parse_play(dice.parse().unwrap(), play)
                .unwrap()
                .result()
        };
        let p = after(&Position::START, "31", "8/5 6/5");
        after(&p, "52", "13/8 13/11")
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let options = RolloutOptions {
            trials: 40, // a batch and a part of one
            truncate: Some(6),
            seed: 9,
            ..RolloutOptions::default()
        };
        let pos = middle_game();
        let run = |threads| {
            with_threads(threads, || {
                let r = Rollout::new(builtin(), options);
                let plays = candidates(builtin(), &pos, "43".parse().unwrap(), 3);
                (
                    r.position(&pos, None, &mut |_| {}),
                    r.plays(&plays, None, &mut |_| {}),
                )
            })
            .unwrap()
        };
        let one = run(1);
        assert_eq!(one, run(3));
        assert_eq!(one.0.result.trials, 40);
        assert!(!one.0.stopped);
        // Another seed gives other dice.
        let other = with_threads(1, || {
            Rollout::new(
                builtin(),
                RolloutOptions {
                    seed: 10,
                    ..options
                },
            )
            .position(&pos, None, &mut |_| {})
        })
        .unwrap();
        assert_ne!(other.result.plain, one.0.result.plain);
    }

    #[test]
    fn luck_correction_keeps_the_mean_and_shrinks_the_error() {
        let options = RolloutOptions {
            trials: 360,
            truncate: Some(8),
            seed: 3,
            ..RolloutOptions::default()
        };
        let r = Rollout::new(builtin(), options).position(&middle_game(), None, &mut |_| {});
        let (plain, corrected) = (r.result.plain, r.result.corrected.unwrap());
        assert!(plain.equity_se > 0.0 && corrected.equity_se > 0.0);
        assert!(
            corrected.equity_se < plain.equity_se / 2.0,
            "{corrected:?} vs {plain:?}"
        );
        let bound = 3.0 * (plain.equity_se.powi(2) + corrected.equity_se.powi(2)).sqrt();
        assert!(
            (plain.equity - corrected.equity).abs() < bound,
            "{corrected:?} vs {plain:?}"
        );
        for k in 0..5 {
            let bound = 3.0
                * (plain.probabilities_se[k].powi(2) + corrected.probabilities_se[k].powi(2))
                    .sqrt();
            assert!(
                (plain.probabilities[k] - corrected.probabilities[k]).abs() <= bound + 1e-9,
                "{k}: {corrected:?} vs {plain:?}"
            );
        }
        // Without the correction, the estimate is the plain mean.
        let off = Rollout::new(
            builtin(),
            RolloutOptions {
                luck_correction: false,
                ..options
            },
        )
        .position(&middle_game(), None, &mut |_| {});
        assert_eq!(off.result.corrected, None);
        assert_eq!(off.result.estimate(), &plain);
    }

    #[test]
    fn a_bear_off_rollout_agrees_with_the_database() {
        // Two checkers on each side's 6-point: P(win) 0.75449 for the player on roll.
        let pos = Position::from_position_id("YAAAAAMAAAAAAA").unwrap();
        let exact = with_bearoff().evaluate(&pos);
        assert!((exact[0] - 0.75449).abs() < 5e-5, "{exact:?}");
        let options = RolloutOptions {
            trials: 1296,
            seed: 4,
            ..RolloutOptions::default()
        };
        let r = Rollout::new(with_bearoff(), options).position(&pos, None, &mut |_| {});
        let plain = r.result.plain;
        let win = exact[0] as f64;
        assert!(plain.probabilities_se[0] > 0.005, "{plain:?}");
        assert!(
            (plain.probabilities[0] - win).abs() < 3.0 * plain.probabilities_se[0],
            "{plain:?} vs {win}"
        );
        assert_eq!(plain.probabilities[1..], [0.0; 4], "no gammons here");
        // An exact evaluator leaves no luck unexplained: the corrected trials are all the
        // starting value (up to the f32 rounding of the evaluations).
        let c = r.result.corrected.unwrap();
        assert!((c.probabilities[0] - win).abs() < 1e-4, "{c:?} vs {win}");
        assert!(c.probabilities_se[0] < 1e-4, "{c:?}");
    }

    #[test]
    fn ranking_puts_the_better_play_first() {
        // From the start with 31: making the 5-point against breaking the 6-point for a
        // checker on the 2-point (two blots in the home board).
        let pos = Position::START;
        let dice: Dice = "31".parse().unwrap();
        let good = pos.parse_play(dice, "8/5 6/5").unwrap();
        let bad = pos.parse_play(dice, "6/2").unwrap();
        let options = RolloutOptions {
            trials: 144,
            truncate: Some(4),
            seed: 5,
            ..RolloutOptions::default()
        };
        let r = Rollout::new(builtin(), options).plays(&[bad, good], None, &mut |_| {});
        assert!(!r.stopped);
        assert_eq!(r.plays[0].play, good, "{r:?}");
        let (diff, se) = r.plays[0].result.difference(&r.plays[1].result);
        assert!(diff > 3.0 * se && se > 0.0, "{diff} ± {se}");
    }

    #[test]
    fn a_stop_returns_the_finished_prefix() {
        let stop = AtomicBool::new(false);
        let options = RolloutOptions {
            trials: 1000,
            truncate: Some(2),
            ..RolloutOptions::default()
        };
        let rollout = Rollout::new(builtin(), options);
        let mut reports = Vec::new();
        let r = rollout.position(&Position::START, Some(&stop), &mut |p| {
            reports.push((p.done, p.total));
            if p.done >= 2 * BATCH {
                stop.store(true, Ordering::Relaxed);
            }
        });
        assert!(r.stopped);
        assert_eq!(r.result.trials, 2 * BATCH);
        assert_eq!(reports, [(BATCH, 1000), (2 * BATCH, 1000)]);
        // The same trials as a rollout asked for that many.
        let whole = Rollout::new(
            builtin(),
            RolloutOptions {
                trials: 2 * BATCH,
                ..options
            },
        )
        .position(&Position::START, None, &mut |_| {});
        assert_eq!(whole.result, r.result);
        assert!(!whole.stopped);
    }

    #[test]
    fn no_legal_play_means_nothing_to_roll_out() {
        // On the bar against a closed board.
        let mut me = [0u8; 25];
        let mut opp = [0u8; 25];
        me[24] = 1;
        me[5] = 14;
        opp[..6].fill(2);
        opp[12] = 3;
        let pos = Position::from_counts(me, opp).unwrap();
        let dice: Dice = "64".parse().unwrap();
        assert!(candidates(builtin(), &pos, dice, 5).is_empty());
        let r = Rollout::new(builtin(), RolloutOptions::default())
            .plays(&[], None, &mut |_| panic!("no progress without a start"));
        assert!(r.plays.is_empty() && !r.stopped);
        // The position itself still rolls out (the player on roll dances or enters later).
        let options = RolloutOptions {
            trials: 4,
            truncate: Some(2),
            ..RolloutOptions::default()
        };
        let r = Rollout::new(builtin(), options).position(&pos, None, &mut |_| {});
        assert_eq!(r.result.trials, 4);
        assert_eq!(
            pos.position_id(),
            "27YBBwDg/wcAQA",
            "the CLI tests' position"
        );
    }

    #[test]
    fn candidates_are_the_best_by_zero_ply() {
        let dice: Dice = "31".parse().unwrap();
        let all = candidates(builtin(), &Position::START, dice, 0);
        assert_eq!(all.len(), 16);
        assert_eq!(candidates(builtin(), &Position::START, dice, 3), all[..3]);
        assert_eq!(all[0].notation(), "8/5 6/5");
    }
}
