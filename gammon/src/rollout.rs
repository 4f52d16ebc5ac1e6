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
//! **Cube** ([`RolloutOptions::cube`]). A cubeful trial plays the cube too: before each roll
//! the player on roll, when the cube is available to them, decides with [`cube::decide`] on the
//! evaluation at [`RolloutOptions::plies`] (of the cube's nets when the evaluator has its own,
//! [`Evaluator::for_cube`]; Janowski's model at
//! [`RolloutOptions::cube_efficiency`], lowered in short bear-offs as the advisor's is, by
//! [`cube::efficiency`]; the match equity table at a match score, with the
//! Crawford rule and dead cubes), and the opponent takes or passes by the same decision. A pass
//! ends the trial: the doubler wins the cube's value (the cubeless outcome of that trial is then
//! the evaluation the decision was made on, as a truncation would take it). Otherwise the game
//! is played to its end (or truncated, then scored by the cubeful value of [`cube::cubeful`]).
//! The result is the points won × the cube (Jacoby rule: single points while the cube is
//! centred) or, at a match score, the match winning chance after the game
//! ([`met::equity_after`](tabula_engine::backgammon::met::equity_after)). It is reported
//! normalised: money, in units of the cube at the start
//! (so a double/pass is +1); match, as gnubg's normalised equity
//! `2·(MWC − L)/(W − L) − 1`, `W` and `L` the MWC after winning and losing that cube's value as
//! a single game (a double/pass is again +1); [`CubefulEstimate`] keeps the MWC too. The luck
//! correction subtracts each roll's cubeless luck scaled by the cube in force at that roll
//! (money: × its value; match: × `(W − L)/2` at its value), as gnubg does: the scale is known
//! before the roll, so the correction stays unbiased. [`Rollout::cube_decision`] rolls out *no
//! double* and *double/take* with the same dice and ranks the cube actions.
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

use crate::cube::{
    self, flipped, mwc_after, CubeAction, CubeOwner, CubeState, MatchScore, DEFAULT_CUBE_EFFICIENCY,
};
use crate::net::{equity, game_over, invert, Evaluator, Probabilities};
use crate::rng::Rng;
use crate::search::{RankedPlay, SearchOptions, Searcher};

/// Trials run in parallel between two progress reports (and two looks at the stop flag between
/// trials), at most: one block of the 36 stratified first rolls. The first batch is one trial
/// a thread; a batch that takes under a second doubles the next one (up to this), one that
/// takes over four seconds halves it (down to one trial a thread), so that progress comes
/// every few seconds however slow a trial is (measured: a 2-ply rollout of three plays,
/// truncated at 6 plies, on one thread, gave its first report after 225 s with batches of
/// 36). Which trials are played, and the order they are summed in, do not depend on the
/// batches.
pub const BATCH: u64 = 36;

/// The time a batch of trials may take before the next batches are made smaller.
const BATCH_SECONDS: f64 = 4.0;

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
    /// Cubeful: the cube at the start, seen by the root player (the player on roll of
    /// [`Rollout::position`] and [`Rollout::cube_decision`], the mover of [`Rollout::plays`]);
    /// `None`: cubeless.
    pub cube: Option<CubeState>,
    /// Janowski's cube efficiency of the players' cube decisions (see [`cube`]; in a short
    /// bear-off the lower one of [`cube::efficiency`], as for the advisor).
    pub cube_efficiency: f64,
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
            cube: None,
            cube_efficiency: DEFAULT_CUBE_EFFICIENCY,
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

/// The cubeless equity of a difference of two probability vectors.
fn equity_difference(d: &[f64; 5]) -> f64 {
    2.0 * d[0] + d[1] + d[2] - d[3] - d[4]
}

/// Running sums of one scalar, in the order added: its mean and standard error.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mean {
    n: u64,
    s: f64,
    s2: f64,
}

impl FromIterator<f64> for Mean {
    fn from_iter<I: IntoIterator<Item = f64>>(xs: I) -> Mean {
        let mut m = Mean::default();
        for x in xs {
            m.add(x);
        }
        m
    }
}

impl Mean {
    /// Adds one value.
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.s += x;
        self.s2 += x * x;
    }

    /// The mean and its standard error (0 with fewer than two values; the mean 0 with none).
    pub fn estimate(&self) -> (f64, f64) {
        let n = self.n.max(1) as f64;
        let se = if self.n < 2 {
            0.0
        } else {
            ((self.s2 - self.s * self.s / n).max(0.0) / (n - 1.0) / n).sqrt()
        };
        (self.s / n, se)
    }
}

/// A cubeful rollout's estimate for the root player, normalised (see the module
/// documentation: money, points per unit of the starting cube; match, gnubg's normalised
/// equity, +1 for winning the starting cube's value).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubefulEstimate {
    /// Cubeful equity: luck-corrected when the correction is on, else the plain mean.
    pub equity: f64,
    /// Its standard error.
    pub equity_se: f64,
    /// The plain (uncorrected) mean and its standard error.
    pub plain_equity: f64,
    pub plain_equity_se: f64,
    /// At a match score: `equity` as the root player's match winning chance, and its
    /// standard error; `None` for money.
    pub match_winning_chance: Option<(f64, f64)>,
}

/// How a cubeful start's results are normalised: the cube value counted as one unit, and the
/// root player's match score (`None`: money).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Norm {
    unit: u32,
    score: Option<MatchScore>,
}

impl Norm {
    fn of(state: &CubeState) -> Norm {
        Norm {
            unit: state.value,
            score: state.match_score,
        }
    }

    /// At a match score: the root player's MWC after winning (`W`) and losing (`L`) the unit.
    fn span(&self) -> Option<(f64, f64)> {
        self.score.map(|m| {
            (
                mwc_after(&m, true, self.unit),
                mwc_after(&m, false, self.unit),
            )
        })
    }

    /// The normalised equity of a result (money: points; match: MWC).
    fn equity(&self, raw: f64) -> f64 {
        match self.span() {
            None => raw / f64::from(self.unit),
            Some((w, l)) => 2.0 * (raw - l) / (w - l).max(1e-12) - 1.0,
        }
    }

    /// The MWC of a normalised equity and of its standard error.
    fn match_winning_chance(&self, equity: f64, se: f64) -> Option<(f64, f64)> {
        self.span()
            .map(|(w, l)| (l + (equity + 1.0) / 2.0 * (w - l), se / 2.0 * (w - l)))
    }
}

/// What the player on roll of cube `c` has once the game ends, `won` or lost, for `points`
/// (already times the cube): money, the points (signed); match, the MWC after it.
fn settle(c: &CubeState, won: bool, points: u32) -> f64 {
    match c.match_score {
        None if won => f64::from(points),
        None => -f64::from(points),
        Some(m) => mwc_after(&m, won, points),
    }
}

/// The cubeful result for the player on roll of a finished game (`p`: its 0/1 outcome).
fn game_value(p: &Probabilities, c: &CubeState) -> f64 {
    let won = p[0] > 0.5;
    let kind = if won {
        1.0 + p[1] + p[2]
    } else {
        1.0 + p[3] + p[4]
    };
    let jacoby = c.jacoby && c.match_score.is_none() && c.owner == CubeOwner::Centred;
    let per_cube = if jacoby { 1 } else { kind.round() as u32 };
    settle(c, won, per_cube * c.value)
}

/// The cubeful result for the player on roll of a truncated game, from the cubeless
/// evaluation `p` (money: points; match: MWC).
fn truncated_value(p: &Probabilities, c: &CubeState, x: cube::Efficiency) -> f64 {
    let v = cube::cubeful(p, c, x);
    match c.match_score {
        None => v * f64::from(c.value),
        Some(_) => v,
    }
}

/// The scale of a roll's cubeless luck in the result's units with cube `c` in force: money,
/// its value; match, half the MWC between winning and losing its value.
fn luck_scale(c: &CubeState) -> f64 {
    match c.match_score {
        None => f64::from(c.value),
        Some(m) => (mwc_after(&m, true, c.value) - mwc_after(&m, false, c.value)) / 2.0,
    }
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
    /// Cubeful rollouts: the cubeful estimate (the cubeless ones above are then those of the
    /// cubeful games, a game ended by a pass counted at the evaluation of that moment).
    pub cubeful: Option<CubefulEstimate>,
    /// Each trial's normalised cubeful equity as `cubeful.equity` counts it, in trial order
    /// (empty when cubeless).
    pub trial_cubeful: Vec<f64>,
}

impl RolloutResult {
    /// The estimate to report: luck-corrected when that is on, else plain.
    pub fn estimate(&self) -> &Estimate {
        self.corrected.as_ref().unwrap_or(&self.plain)
    }

    /// The equity plays are ranked by: cubeful when the rollout is, else the cubeless
    /// estimate's.
    pub fn value(&self) -> (f64, f64) {
        match &self.cubeful {
            Some(c) => (c.equity, c.equity_se),
            None => (self.estimate().equity, self.estimate().equity_se),
        }
    }

    /// The mean of this start's equity ([`RolloutResult::value`]: cubeful when the rollout
    /// is) minus `other`'s, trial by trial over the trials both played (same seed: the same
    /// dice), with its standard error: the error of a comparison under common random numbers.
    pub fn difference(&self, other: &RolloutResult) -> (f64, f64) {
        let (a, b) = if self.cubeful.is_some() && other.cubeful.is_some() {
            (&self.trial_cubeful, &other.trial_cubeful)
        } else {
            (&self.trial_equities, &other.trial_equities)
        };
        let mut m = Mean::default();
        for (a, b) in a.iter().zip(b) {
            m.add(a - b);
        }
        m.estimate()
    }
}

/// The accumulated trials of one start.
#[derive(Clone, Debug, Default)]
struct Accumulator {
    plain: Sums,
    corrected: Sums,
    equities: Vec<f64>,
    cubeful_plain: Mean,
    cubeful_corrected: Mean,
    cubeful: Vec<f64>,
}

impl Accumulator {
    fn add(&mut self, t: &Trial, corrected: bool, norm: Option<Norm>) {
        self.plain.add(&t.outcome);
        let c: [f64; 5] = std::array::from_fn(|k| t.outcome[k] - t.luck[k]);
        self.corrected.add(&c);
        self.equities
            .push(equity_f64(if corrected { &c } else { &t.outcome }));
        if let (Some(n), Some(cf)) = (norm, t.cubeful) {
            let plain = n.equity(cf.value);
            let fixed = n.equity(cf.value - cf.luck);
            self.cubeful_plain.add(plain);
            self.cubeful_corrected.add(fixed);
            self.cubeful.push(if corrected { fixed } else { plain });
        }
    }

    /// The cubeful estimate so far.
    fn cubeful_estimate(&self, corrected: bool, norm: Option<Norm>) -> Option<CubefulEstimate> {
        let n = norm?;
        let (plain_equity, plain_equity_se) = self.cubeful_plain.estimate();
        let (equity, equity_se) = if corrected {
            self.cubeful_corrected.estimate()
        } else {
            (plain_equity, plain_equity_se)
        };
        Some(CubefulEstimate {
            equity,
            equity_se,
            plain_equity,
            plain_equity_se,
            match_winning_chance: n.match_winning_chance(equity, equity_se),
        })
    }

    fn result(&self, corrected: bool, norm: Option<Norm>) -> RolloutResult {
        RolloutResult {
            trials: self.plain.n,
            plain: self.plain.estimate(),
            corrected: corrected.then(|| self.corrected.estimate()),
            trial_equities: self.equities.clone(),
            cubeful: self.cubeful_estimate(corrected, norm),
            trial_cubeful: self.cubeful.clone(),
        }
    }
}

/// One trial's outcome and summed luck, both for the root player.
#[derive(Clone, Copy, Debug)]
struct Trial {
    outcome: [f64; 5],
    luck: [f64; 5],
    cubeful: Option<CubefulTrial>,
}

/// A cubeful trial's result (money: points; match: MWC) and its summed luck scaled by the
/// cube (see the module documentation).
#[derive(Clone, Copy, Debug)]
struct CubefulTrial {
    value: f64,
    luck: f64,
    /// `value` is a match winning chance.
    mwc: bool,
}

impl CubefulTrial {
    fn inverted(&self) -> CubefulTrial {
        CubefulTrial {
            value: if self.mwc {
                1.0 - self.value
            } else {
                -self.value
            },
            luck: -self.luck,
            mwc: self.mwc,
        }
    }
}

impl Trial {
    /// The same trial seen by the other player.
    fn inverted(&self) -> Trial {
        Trial {
            outcome: invert_f64(&self.outcome),
            luck: invert_difference(&self.luck),
            cubeful: self.cubeful.map(|c| c.inverted()),
        }
    }
}

/// Where the trials of one start begin.
#[derive(Clone, Copy, Debug)]
struct Start {
    pos: Position,
    /// The outcome is for the opponent of the player on roll of `pos`.
    flip: bool,
    /// Cubeful: the cube seen by the player on roll of `pos`.
    cube: Option<CubeState>,
    /// The player on roll of `pos` may double before the first roll.
    first_double: bool,
    /// Cubeful: how the results are normalised (for the root player).
    norm: Option<Norm>,
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
    /// Cubeful rollouts: the cubeful estimates so far, one per start (empty when cubeless).
    pub cubeful: &'a [CubefulEstimate],
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

/// The rollouts of the cube actions of a position before the roll (see
/// [`Rollout::cube_decision`]): equities normalised for the player on roll, double/pass +1.
#[derive(Clone, Debug, PartialEq)]
pub struct CubeRollout {
    /// Whether the rules let the player on roll double now.
    pub may_double: bool,
    /// No double: the game played on with the cube as it is (doubling later allowed).
    pub no_double: RolloutResult,
    /// Double, take: the cube at twice its value, owned by the opponent; `None` when the
    /// player may not double.
    pub double_take: Option<RolloutResult>,
    /// Double, pass: exactly +1 (the current cube's value won).
    pub double_pass: f64,
    /// At a match score: the MWC of winning the current cube's value.
    pub double_pass_mwc: Option<f64>,
    /// Stopped by the stop flag before all the trials were played.
    pub stopped: bool,
}

impl CubeRollout {
    /// The opponent should take a double (double/take at most double/pass).
    pub fn take(&self) -> bool {
        self.double_take
            .as_ref()
            .is_none_or(|dt| dt.value().0 <= self.double_pass)
    }

    /// The proper cube action by the rollout's means.
    pub fn action(&self) -> CubeAction {
        let nd = self.no_double.value().0;
        match &self.double_take {
            None => CubeAction::NoDouble,
            Some(dt) if self.take() => {
                if dt.value().0 > nd {
                    CubeAction::DoubleTake
                } else {
                    CubeAction::NoDouble
                }
            }
            Some(_) if nd > self.double_pass => CubeAction::TooGood,
            Some(_) => CubeAction::DoublePass,
        }
    }

    /// The action in words, as gnubg reports a cube rollout: `no double, take`, `double,
    /// take`, `double, pass`, `too good, pass`, or `no double (the cube is not available)`.
    pub fn action_text(&self) -> &'static str {
        if !self.may_double {
            return "no double (the cube is not available)";
        }
        match self.action() {
            CubeAction::NoDouble => "no double, take",
            CubeAction::DoubleTake => "double, take",
            CubeAction::DoublePass => "double, pass",
            CubeAction::TooGood => "too good, pass",
        }
    }

    /// The equity of the proper action (the doubler's best, the receiver answering best).
    pub fn best(&self) -> f64 {
        let nd = self.no_double.value().0;
        match &self.double_take {
            None => nd,
            Some(dt) => nd.max(dt.value().0.min(self.double_pass)),
        }
    }

    /// Each action's equity minus the proper action's, with the standard error of that
    /// difference (paired trial by trial between no double and double/take; double/pass is
    /// exact): `[no double, double/take, double/pass]`, `None` for double/take when the player
    /// may not double.
    pub fn differences(&self) -> [Option<(f64, f64)>; 3] {
        let nd = &self.no_double;
        let Some(dt) = &self.double_take else {
            return [Some((0.0, 0.0)), None, None];
        };
        let dp = self.double_pass;
        match self.action() {
            CubeAction::NoDouble => [
                Some((0.0, 0.0)),
                Some(dt.difference(nd)),
                Some((dp - nd.value().0, nd.value().1)),
            ],
            CubeAction::DoubleTake => [
                Some(nd.difference(dt)),
                Some((0.0, 0.0)),
                Some((dp - dt.value().0, dt.value().1)),
            ],
            CubeAction::DoublePass => [
                Some((nd.value().0 - dp, nd.value().1)),
                Some((dt.value().0 - dp, dt.value().1)),
                Some((0.0, 0.0)),
            ],
            CubeAction::TooGood => [
                Some((0.0, 0.0)),
                Some(dt.difference(nd)),
                Some((dp - nd.value().0, nd.value().1)),
            ],
        }
    }
}

/// A rollout engine: an evaluator, the players' searcher (its cache shared by all trials) and
/// the options.
#[derive(Debug)]
pub struct Rollout<'e> {
    eval: &'e Evaluator,
    searcher: Searcher<'e>,
    /// The cube turns' searcher when the evaluator has cube nets of its own
    /// ([`Evaluator::cube`]), as the advisor's; made at the first cube turn
    /// ([`Searcher::for_cube`]).
    cube_searcher: std::sync::OnceLock<Searcher<'e>>,
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
            // The luck correction's mean (a 1-ply value: the best play of each roll) must
            // count the plays the trials choose among: all of them, no pruning net.
            last_ply_candidates: 0,
            ..SearchOptions::default()
        };
        Rollout {
            eval,
            searcher: Searcher::new(eval, search),
            cube_searcher: std::sync::OnceLock::new(),
            options,
        }
    }

    /// The options in use.
    pub fn options(&self) -> &RolloutOptions {
        &self.options
    }

    /// Rolls out `pos` before the roll, for its player on roll (cubeful with
    /// [`RolloutOptions::cube`]: the player may double at once). `stop` is polled between plies:
    /// once set, the trials under way are dropped and the result of those finished (a prefix
    /// of the trial order) is returned with `stopped`. `progress` is called after each batch.
    pub fn position(
        &self,
        pos: &Position,
        stop: Option<&AtomicBool>,
        progress: &mut dyn FnMut(&Progress),
    ) -> PositionRollout {
        let start = Start {
            pos: *pos,
            flip: false,
            cube: self.options.cube,
            first_double: true,
            norm: self.options.cube.as_ref().map(Norm::of),
        };
        let (mut results, stopped) = self.run(&[start], stop, progress);
        PositionRollout {
            result: results.pop().expect("one start"),
            stopped,
        }
    }

    /// Rolls out the cube actions of `pos` before the roll, the cube as in
    /// [`RolloutOptions::cube`] (a centred money cube when `None`): *no double* (the player on
    /// roll does not double now, the cube played as usual afterwards) and, when the player may
    /// double, *double/take* (the cube at twice its value, owned by the opponent), with the
    /// same dice trial by trial; *double/pass* is exact. Always cubeful.
    pub fn cube_decision(
        &self,
        pos: &Position,
        stop: Option<&AtomicBool>,
        progress: &mut dyn FnMut(&Progress),
    ) -> CubeRollout {
        let state = self.options.cube.unwrap_or_else(CubeState::money);
        let norm = Some(Norm::of(&state));
        let no_double = Start {
            pos: *pos,
            flip: false,
            cube: Some(state),
            first_double: false,
            norm,
        };
        let mut starts = vec![no_double];
        let may_double = state.may_double();
        if may_double {
            let doubled = CubeState {
                value: 2 * state.value,
                owner: CubeOwner::Opponent,
                ..state
            };
            starts.push(Start {
                cube: Some(doubled),
                ..no_double
            });
        }
        let (mut results, stopped) = self.run(&starts, stop, progress);
        let double_take = may_double.then(|| results.pop().expect("two starts"));
        let no_double = results.pop().expect("one start");
        let double_pass_mwc = norm
            .and_then(|n| n.match_winning_chance(1.0, 0.0))
            .map(|m| m.0);
        CubeRollout {
            may_double,
            no_double,
            double_take,
            double_pass: 1.0,
            double_pass_mwc,
            stopped,
        }
    }

    /// Rolls out each of `plays` (plays of one roll from one position) for the player making
    /// it, with the same dice in every play's trial `t`, and ranks them by the estimate
    /// ([`RolloutResult::value`]: cubeful with [`RolloutOptions::cube`], the opponent then
    /// free to double at once).
    pub fn plays(
        &self,
        plays: &[Play],
        stop: Option<&AtomicBool>,
        progress: &mut dyn FnMut(&Progress),
    ) -> PlaysRollout {
        let cube = self.options.cube;
        let starts: Vec<Start> = plays
            .iter()
            .map(|p| Start {
                pos: p.result(),
                flip: true,
                cube: cube.as_ref().map(flipped),
                first_double: true,
                norm: cube.as_ref().map(Norm::of),
            })
            .collect();
        let (results, stopped) = self.run(&starts, stop, progress);
        let mut ranked: Vec<PlayRollout> = plays
            .iter()
            .zip(results)
            .map(|(&play, result)| PlayRollout { play, result })
            .collect();
        ranked.sort_by(|a, b| b.result.value().0.total_cmp(&a.result.value().0));
        PlaysRollout {
            plays: ranked,
            stopped,
        }
    }

    /// Every start played out in batches; the results in the starts' order and whether
    /// stopped.
    fn run(
        &self,
        starts: &[Start],
        stop: Option<&AtomicBool>,
        progress: &mut dyn FnMut(&Progress),
    ) -> (Vec<RolloutResult>, bool) {
        let corrected = self.options.luck_correction;
        let total = self.options.trials;
        let mut acc = vec![Accumulator::default(); starts.len()];
        let mut done = 0u64;
        let mut stopped = false;
        // The first batch is one trial a thread: a slow trial shows progress at once.
        let fewest = (rayon::current_num_threads() as u64).clamp(1, BATCH);
        let mut batch = fewest;
        while done < total && !starts.is_empty() {
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                stopped = true;
                break;
            }
            let clock = std::time::Instant::now();
            let end = (done + batch).min(total);
            let jobs: Vec<(u64, usize)> = (done..end)
                .flat_map(|t| (0..starts.len()).map(move |s| (t, s)))
                .collect();
            let trials: Vec<Option<Trial>> = jobs
                .par_iter()
                .map(|&(t, s)| {
                    let trial = self.trial(&starts[s], t, stop)?;
                    Some(if starts[s].flip {
                        trial.inverted()
                    } else {
                        trial
                    })
                })
                .collect();
            // Keep the trials every start finished, up to the first one some start did not.
            for (chunk, t) in trials.chunks(starts.len()).zip(done..end) {
                if chunk.iter().any(Option::is_none) {
                    stopped = true;
                    break;
                }
                for ((a, trial), start) in acc.iter_mut().zip(chunk).zip(starts) {
                    a.add(trial.as_ref().expect("checked"), corrected, start.norm);
                }
                done = t + 1;
            }
            report_progress(&acc, starts, done, total, corrected, progress);
            if stopped {
                break;
            }
            let seconds = clock.elapsed().as_secs_f64();
            if seconds > BATCH_SECONDS {
                batch = (batch / 2).max(fewest);
            } else if seconds < BATCH_SECONDS / 4.0 {
                batch = (batch * 2).min(BATCH);
            }
        }
        let results = acc
            .iter()
            .zip(starts)
            .map(|(a, s)| a.result(corrected, s.norm))
            .collect();
        (results, stopped)
    }

    /// Trial `t` from `start`, for its player on roll; `None` when stopped.
    fn trial(&self, start: &Start, t: u64, stop: Option<&AtomicBool>) -> Option<Trial> {
        let o = &self.options;
        let mut rng = Rng::new(trial_seed(o.seed, t));
        let mut pos = start.pos;
        let mut mine = true; // the player on roll of `pos` is the start's
        let mut luck = [0.0f64; 5];
        let mut cube = start.cube; // seen by the player on roll of `pos`
        let mut cube_luck = 0.0f64;
        let mut ply = 0u32;
        let (outcome, cubeful) = loop {
            if let Some(p) = game_over(&pos) {
                break (p, cube.map(|c| game_value(&p, &c)));
            }
            if o.truncate.is_some_and(|n| ply >= n) || ply >= MAX_TRIAL_PLIES {
                let p = self.searcher.evaluate(&pos, o.plies);
                let x = cube::efficiency(&pos, o.cube_efficiency);
                break (p, cube.map(|c| truncated_value(&p, &c, x)));
            }
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return None;
            }
            if let Some(c) = cube.as_mut() {
                if ply > 0 || start.first_double {
                    if let Some(pass) = self.cube_turn(&pos, c) {
                        break (pass.0, Some(pass.1));
                    }
                }
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
                if let Some(c) = &cube {
                    cube_luck += equity_difference(&d) * luck_scale(c);
                }
            }
            pos = match ranked.first() {
                Some(r) => r.play.result(),
                None => pos.swapped(),
            };
            mine = !mine;
            cube = cube.as_ref().map(flipped);
            ply += 1;
        };
        let outcome = if mine { outcome } else { invert(&outcome) };
        let cubeful = cubeful.map(|value| {
            let c = CubefulTrial {
                value,
                luck: 0.0,
                mwc: start.cube.is_some_and(|c| c.match_score.is_some()),
            };
            let c = if mine { c } else { c.inverted() };
            CubefulTrial {
                luck: cube_luck,
                ..c
            }
        });
        Some(Trial {
            outcome: outcome.map(f64::from),
            luck,
            cubeful,
        })
    }

    /// The cube turn of the player on roll of `pos` (cube `c`, seen by that player): doubles
    /// when [`cube::decide`] says so at the rollout's depth, on the evaluation of the nets that
    /// decide this position's cube ([`Evaluator::cube_decides`]: the cube's nets, or the play
    /// nets below the cube nets' gammon threshold); a take turns the cube (`c` updated), a
    /// pass ends the game: then the play nets' evaluation (the cubeless outcome, as a
    /// truncation's) and the doubler's result.
    fn cube_turn(&self, pos: &Position, c: &mut CubeState) -> Option<(Probabilities, f64)> {
        if !c.may_double() {
            return None;
        }
        let decider = self.searcher.for_cube_at(pos, &self.cube_searcher);
        let p = decider.evaluate(pos, self.options.plies);
        let d = cube::decide(&p, c, cube::efficiency(pos, self.options.cube_efficiency));
        if !d.offers_double() {
            return None;
        }
        if !d.take {
            // The play nets' evaluation, already in hand when they decided the cube.
            let p = if std::ptr::eq(decider, &self.searcher) {
                p
            } else {
                self.searcher.evaluate(pos, self.options.plies)
            };
            return Some((p, settle(c, true, c.value)));
        }
        c.value *= 2;
        c.owner = CubeOwner::Opponent;
        None
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

/// Reports the estimates of every start after a batch.
fn report_progress(
    acc: &[Accumulator],
    starts: &[Start],
    done: u64,
    total: u64,
    corrected: bool,
    progress: &mut dyn FnMut(&Progress),
) {
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
    let cubeful: Vec<CubefulEstimate> = acc
        .iter()
        .zip(starts)
        .filter_map(|(a, s)| a.cubeful_estimate(corrected, s.norm))
        .collect();
    progress(&Progress {
        done,
        total,
        estimates: &estimates,
        cubeful: &cubeful,
    });
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
    use tabula_engine::backgammon::met;
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

    /// A rollout's luck correction needs the 1-ply mean of the plays its trials choose among,
    /// so its searches never prune: the shipped nets with and without their pruning net roll
    /// out to the same bits, cubeless and cubeful, at 0 and 1 ply.
    #[test]
    fn rollouts_do_not_use_the_pruning_net() {
        assert!(builtin().pruner.is_some());
        let unpruned = builtin().clone().without_pruner();
        let pos = middle_game();
        for (plies, cube) in [(0, None), (1, Some(CubeState::money()))] {
            let options = RolloutOptions {
                trials: 12,
                truncate: Some(4),
                plies,
                cube,
                seed: 3,
                ..RolloutOptions::default()
            };
            let run = |eval: &Evaluator| {
                with_threads(1, || {
                    Rollout::new(eval, options).position(&pos, None, &mut |_| {})
                })
                .unwrap()
            };
            assert_eq!(run(builtin()), run(&unpruned), "{plies} plies");
        }
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
        // Reports after every batch, none larger than BATCH, the last at the trials kept.
        let last = reports.last().unwrap().0;
        assert_eq!(r.result.trials, last);
        assert!((2 * BATCH..3 * BATCH).contains(&last), "{reports:?}");
        let mut before = 0;
        for &(done, total) in &reports {
            assert!(
                total == 1000 && done > before && done - before <= BATCH,
                "{reports:?}"
            );
            before = done;
        }
        // The same trials as a rollout asked for that many.
        let whole = Rollout::new(
            builtin(),
            RolloutOptions {
                trials: last,
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

    /// The cube decision at a money score, `trials` trials, exact bear-offs.
    fn cube_rollout(
        pos: &Position,
        cube: CubeState,
        trials: u64,
        truncate: Option<u32>,
    ) -> CubeRollout {
        let options = RolloutOptions {
            trials,
            truncate,
            seed: 11,
            cube: Some(cube),
            ..RolloutOptions::default()
        };
        Rollout::new(with_bearoff(), options).cube_decision(pos, None, &mut |_| {})
    }

    /// A race in both home boards: the player on roll (12 checkers, 34 pips against 15 with
    /// 55) wins 84% without gammons.
    fn racing_lead() -> Position {
        let mut me = [0u8; 25];
        let mut opp = [0u8; 25];
        me[..6].copy_from_slice(&[2, 2, 2, 3, 3, 3]);
        opp[..6].copy_from_slice(&[0, 0, 3, 4, 4, 4]);
        Position::from_counts(me, opp).unwrap()
    }

    #[test]
    fn cubeful_results_do_not_depend_on_the_thread_count() {
        let options = RolloutOptions {
            trials: 40,
            truncate: Some(6),
            seed: 9,
            cube: Some(CubeState::money()),
            ..RolloutOptions::default()
        };
        let pos = middle_game();
        let run = |threads| {
            with_threads(threads, || {
                let r = Rollout::new(builtin(), options);
                let plays = candidates(builtin(), &pos, "43".parse().unwrap(), 3);
                (
                    r.cube_decision(&pos, None, &mut |_| {}),
                    r.plays(&plays, None, &mut |_| {}),
                    r.position(&pos, None, &mut |_| {}),
                )
            })
            .unwrap()
        };
        let one = run(1);
        assert_eq!(one, run(3));
        assert_eq!(one.0.no_double.trial_cubeful.len(), 40);
        for p in &one.1.plays {
            assert!(p.result.cubeful.is_some() && p.result.trial_cubeful.len() == 40);
        }
        // Ranked by the cubeful equity.
        let values: Vec<f64> = one.1.plays.iter().map(|p| p.result.value().0).collect();
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
        // Cubeless rollouts have no cubeful part.
        let cubeless = Rollout::new(
            builtin(),
            RolloutOptions {
                cube: None,
                ..options
            },
        )
        .position(&pos, None, &mut |_| {});
        assert_eq!(cubeless.result.cubeful, None);
        assert!(cubeless.result.trial_cubeful.is_empty());
    }

    #[test]
    fn a_big_racing_lead_is_double_pass() {
        let pos = racing_lead();
        assert_eq!(
            pos.position_id(),
            "3HsPAADb7g4AAA",
            "the CLI tests' position"
        );
        let r = cube_rollout(&pos, CubeState::money(), 360, None);
        assert!(r.may_double && !r.stopped);
        assert_eq!(r.action(), CubeAction::DoublePass, "{r:?}");
        assert_eq!(r.action_text(), "double, pass");
        assert!(!r.take());
        assert_eq!(r.double_pass, 1.0);
        assert_eq!(r.best(), 1.0);
        let nd = r.no_double.cubeful.unwrap();
        let dt = r.double_take.as_ref().unwrap().cubeful.unwrap();
        assert!(nd.equity < 1.0 - 2.0 * nd.equity_se, "{nd:?}");
        assert!(dt.equity > 1.0 + 3.0 * dt.equity_se, "{dt:?}");
        // No gammons here: the cubeless equities are below 1 and 2 cube units.
        assert!(r.no_double.estimate().equity < 1.0);
        let [d_nd, d_dt, d_dp] = r.differences();
        assert_eq!(d_dp, Some((0.0, 0.0)));
        assert!(d_nd.unwrap().0 < 0.0 && d_dt.unwrap().0 > 0.0, "{r:?}");
        assert_eq!(d_nd.unwrap().1, nd.equity_se);
    }

    #[test]
    fn the_opening_position_is_no_double() {
        let r = cube_rollout(&Position::START, CubeState::money(), 144, Some(4));
        assert_eq!(r.action(), CubeAction::NoDouble, "{r:?}");
        assert_eq!(r.action_text(), "no double, take");
        assert!(r.take());
        let [d_nd, d_dt, _] = r.differences();
        assert_eq!(d_nd, Some((0.0, 0.0)));
        let (diff, se) = d_dt.unwrap();
        // Doubling at the start gives away the cube for nothing: clearly worse, and measured
        // much more precisely by pairing the trials than by either rollout alone.
        assert!(diff < -3.0 * se, "{diff} ± {se}");
        let dt = r.double_take.as_ref().unwrap().cubeful.unwrap();
        assert!(se < dt.equity_se, "{se} vs {dt:?}");
        let nd = r.no_double.cubeful.unwrap();
        assert!(nd.equity.abs() < 0.3, "{nd:?}");
    }

    #[test]
    fn money_trials_are_whole_points_times_the_cube() {
        // Plain cubeful trials played to the end: every result is ±1, ±2 or ±3 times the cube
        // (a power of two up to 64) per unit of the starting cube.
        let options = RolloutOptions {
            trials: 72,
            seed: 2,
            luck_correction: false,
            cube: Some(CubeState {
                value: 2,
                ..CubeState::money()
            }),
            ..RolloutOptions::default()
        };
        let r = Rollout::new(with_bearoff(), options).position(&racing_lead(), None, &mut |_| {});
        let c = r.result.cubeful.unwrap();
        assert_eq!((c.equity, c.equity_se), (c.plain_equity, c.plain_equity_se));
        assert_eq!(c.match_winning_chance, None);
        let whole = |v: f64| {
            (0..=6).any(|j| {
                [1.0, 2.0, 3.0]
                    .iter()
                    .any(|k| v.abs() == k * f64::from(1u32 << j) / 2.0)
            })
        };
        assert!(
            r.result.trial_cubeful.iter().all(|&v| whole(v)),
            "{:?}",
            r.result.trial_cubeful
        );
        assert!(c.equity > 0.0 && c.equity <= 1.0, "{c:?}");
        // The cubeful equity stays within three times the largest cube reached.
        let r = cube_rollout(&middle_game(), CubeState::money(), 72, Some(8));
        for e in [
            r.no_double.cubeful.unwrap(),
            r.double_take.unwrap().cubeful.unwrap(),
        ] {
            assert!(e.equity.abs() <= 6.0, "{e:?}");
        }
    }

    fn at_score(length: u32, score: [u32; 2], crawford: bool) -> CubeState {
        CubeState {
            match_score: Some(MatchScore {
                length,
                score,
                crawford,
            }),
            ..CubeState::money()
        }
    }

    #[test]
    fn the_crawford_game_has_no_cube() {
        // 4-2 in a match to 5, Crawford: no double for the player on roll (nor anyone later).
        let r = cube_rollout(&racing_lead(), at_score(5, [2, 4], true), 72, None);
        assert!(!r.may_double && r.double_take.is_none());
        assert_eq!(r.action(), CubeAction::NoDouble);
        assert_eq!(r.action_text(), "no double (the cube is not available)");
        assert_eq!(r.differences()[1], None);
        // No cube ever turned: each trial is a single game won (3-away becomes 2-away against
        // 1-away, post-Crawford) or lost (the match).
        let won = met::match_equity(2, 1, true).unwrap();
        let c = r.no_double.cubeful.unwrap();
        let (mwc, _) = c.match_winning_chance.unwrap();
        assert!(mwc > 0.0 && mwc < won, "{c:?}");
        // Normalised: +1 is winning the cube's value, −1 losing it (the match).
        assert!((r.double_pass_mwc.unwrap() - won).abs() < 1e-12);
        assert!(c.equity > -1.0 && c.equity < 1.0, "{c:?}");
    }

    #[test]
    fn match_play_doubles_at_the_met() {
        // 2-away 2-away: the racing lead doubles and the opponent (under 32% by the MET)
        // passes; double/pass is the MET's 2-away 1-away Crawford chance.
        let r = cube_rollout(&racing_lead(), at_score(5, [3, 3], false), 144, None);
        assert!(r.may_double);
        assert_eq!(r.action(), CubeAction::DoublePass, "{r:?}");
        let dp = r.double_pass_mwc.unwrap();
        assert!((dp - met::match_equity(1, 2, false).unwrap()).abs() < 1e-12);
        // After the take the cube decides the match: DT's MWC is the win chance.
        let dt = r.double_take.as_ref().unwrap().cubeful.unwrap();
        let (mwc, se) = dt.match_winning_chance.unwrap();
        assert!((mwc - 0.8446).abs() < 3.0 * se + 0.01, "{dt:?}");
    }

    #[test]
    fn the_players_double_with_the_advisors_bear_off_efficiency() {
        // Short bear-offs (k checkers a side on the 1- to 3-points) where Janowski's model at
        // the bear-off efficiency and at the advisor's 0.68 disagree on doubling: the rollout's
        // player must decide as the advisor does (`cube::efficiency`), not at the flat 0.68.
        let eval = with_bearoff();
        let rollout = Rollout::new(eval, RolloutOptions::default());
        let money = CubeState::money();
        let mut differ = 0;
        for me in 0..64u32 {
            for you in 0..64u32 {
                let board = |code: u32| {
                    let mut c = [0u8; 25];
                    (c[0], c[1], c[2]) =
                        ((code % 4) as u8, (code / 4 % 4) as u8, (code / 16) as u8);
                    c
                };
                let (a, b) = (board(me), board(you));
                if a.iter().sum::<u8>() == 0 || b.iter().sum::<u8>() == 0 {
                    continue;
                }
                // The rest of each side's checkers are off.
                let pos = Position::from_counts(a, b).expect("a bear-off");
                let p = rollout.searcher.evaluate(&pos, 0);
                let x = cube::efficiency(&pos, DEFAULT_CUBE_EFFICIENCY);
                let advisor = cube::decide(&p, &money, x);
                let flat = cube::decide(&p, &money, DEFAULT_CUBE_EFFICIENCY);
                if advisor.offers_double() == flat.offers_double() {
                    continue;
                }
                differ += 1;
                let mut c = money;
                let passed = rollout.cube_turn(&pos, &mut c).is_some();
                let doubled = passed || c.value == 2;
                assert_eq!(doubled, advisor.offers_double(), "{}", pos.position_id());
            }
        }
        assert!(differ > 0, "no position tells the two efficiencies apart");
    }

    /// With cube nets of its own ([`Evaluator::with_cube`]), a trial's cube turns are the
    /// cube nets' (the turns of a rollout over those nets alone), and a pass ends the trial on
    /// the play nets' evaluation.
    #[test]
    fn cube_turns_come_from_the_cube_nets() {
        let mut rng = Rng::new(11);
        let (plays, cube) = (builtin(), weights::builtin_cube().unwrap());
        let both = plays.clone().with_cube(cube.clone());
        let options = RolloutOptions::default;
        let (rb, rc, rp) = (
            Rollout::new(&both, options()),
            Rollout::new(cube, options()),
            Rollout::new(plays, options()),
        );
        let turn = |r: &Rollout, pos: &Position| {
            let mut c = CubeState::money();
            let t = r.cube_turn(pos, &mut c);
            (c, t)
        };
        let (mut differ, mut passes) = (0, 0);
        let mut pos = Position::START;
        for _ in 0..400 {
            let (cb, tb) = turn(&rb, &pos);
            let (cc, tc) = turn(&rc, &pos);
            let (cp, tp) = turn(&rp, &pos);
            assert_eq!(cb, cc, "{}", pos.position_id());
            assert_eq!(tb.map(|t| t.1), tc.map(|t| t.1));
            if let Some((p, _)) = tb {
                assert_eq!(p, plays.evaluate(&pos));
                passes += 1;
            }
            differ += usize::from((cb, tb.map(|t| t.1)) != (cp, tp.map(|t| t.1)));
            let legal = pos.plays(Dice::new(rng.die(), rng.die()).unwrap());
            pos = match legal.len() {
                0 => pos.swapped(),
                n => legal[rng.below(n as u64) as usize].result(),
            };
            if pos.is_game_over() {
                pos = Position::START;
            }
        }
        assert!(differ > 0 && passes > 0, "{differ} {passes}");
    }
}
