//! The advisor: given the match state, a position and (maybe) the dice, the cube action, take
//! or drop, and the ranked plays. `tabula backgammon hint`, the terminal game and the gnubg
//! external-player server all ask it; so will the coming engine protocol and HTTP server.
//!
//! The match state is a [`CubeState`] from the player on roll (money or match score, cube value
//! and owner, Crawford, Jacoby); [`cube_state`] builds it from a gnubg Match ID. Cube decisions
//! come from the cubeful search of [`crate::cubeful`], [`SearchOptions::plies`] ahead: Janowski's
//! model with the advisor's cube efficiency (at most [`cube::BEAROFF_CUBE_EFFICIENCY`] in
//! bear-offs, [`cube::BEAROFF_OPPONENT_CUBE_EFFICIENCY`] for the opponent's cube in money ones:
//! [`cube::efficiency`]; the Kazaross-XG2 match equity table at a match score) at
//! the leaves and both sides' cube actions at the inner nodes; at 0 plies that is
//! [`cube::decide`] of the net's probabilities. [`Advisor::cube_cubeless_root`] keeps the older
//! decision (the cubeless n-ply probabilities converted at the root) for comparison. In a back
//! game of the player who would take ([`rolls_out`]) an advisor at 2 plies or more rolls the
//! position out instead ([`CubeRollouts`]) and converts the rollout's probabilities at the
//! root. Plays are ranked by [`Searcher::rank`]. When the evaluator has cube nets of its own
//! ([`Evaluator::cube`]; the shipped one, [`crate::weights::shipped`], does), the cube
//! decisions and their probabilities come from those nets, the plays from the others.
//! Everything is deterministic: the same answer on any number of threads.
//!
//! ```
//! use tabula_engine::backgammon::{Dice, Position};
//! use tabula_gammon::advisor::{Advice, Advisor};
//! use tabula_gammon::cube::{CubeState, DEFAULT_CUBE_EFFICIENCY};
//! use tabula_gammon::{weights, SearchOptions};
//!
//! let eval = weights::builtin().unwrap();
//! let options = SearchOptions { plies: 0, ..SearchOptions::default() };
//! let advisor = Advisor::new(eval, options, DEFAULT_CUBE_EFFICIENCY);
//! let dice: Dice = "31".parse().unwrap();
//! let Advice::Plays(plays) = advisor.advise(&Position::START, &CubeState::money(), Some(dice))
//! else { unreachable!() };
//! assert_eq!(plays[0].play.notation(), "8/5 6/5");
//! let cube = advisor.cube(&Position::START, &CubeState::money());
//! assert!(!cube.decision.offers_double());
//! ```

use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

use tabula_engine::backgammon::{met, Dice, MatchId, Play, Position};

use crate::cube::{self, CubeDecision, CubeState};
use crate::cubeful::CubefulSearch;
use crate::inputs::back_game_points;
use crate::net::{Evaluator, Probabilities};
use crate::rollout::{Rollout, RolloutOptions};
use crate::search::{RankedPlay, SearchOptions, Searcher};
use tabula_engine::backgammon::Side;

/// The cube as a gnubg Match ID (or XGID) describes it, seen from the player on roll; a centred
/// money cube without one.
pub fn cube_state(match_id: Option<&MatchId>) -> CubeState {
    match match_id {
        None => CubeState::money(),
        Some(m) => CubeState::for_player(
            usize::from(m.on_roll.min(1)),
            m.cube,
            m.cube_owner.map(usize::from),
            m.match_length,
            m.score,
            m.crawford,
            m.jacoby,
        ),
    }
}

/// The match winning chance (Kazaross-XG2) of the player on roll before the game at the Match
/// ID's score; `None` for money, a finished match or a score off the table.
pub fn match_equity(m: &MatchId) -> Option<f64> {
    if m.match_length == 0 {
        return None;
    }
    let away = |p: usize| m.match_length.checked_sub(m.score[p]);
    let me = usize::from(m.on_roll.min(1));
    let (a, b) = (away(me)?, away(1 - me)?);
    let post = !m.crawford && (a == 1 || b == 1);
    met::match_equity(a, b, post)
}

/// The cube decision of the player on roll, before the roll.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubeAdvice {
    /// The cubeless probabilities of the player on roll (see [`crate::net`]), at the
    /// advisor's depth.
    pub probabilities: Probabilities,
    /// Double or not, and whether the opponent should take (also the receiver's answer to a
    /// double: [`CubeDecision::take`]).
    pub decision: CubeDecision,
    /// The rollout the probabilities and the decision came from ([`Advisor::cube`] in a back
    /// game); `None`: the search's.
    pub rollout: Option<RolloutSummary>,
}

/// What a cube decision's rollout was: its trials and the standard error of its cubeless
/// equity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RolloutSummary {
    /// Trials played.
    pub trials: u64,
    /// Standard error of the luck-corrected cubeless equity.
    pub equity_se: f64,
}

/// The advisor's answer for one moment of a game.
#[derive(Clone, Debug, PartialEq)]
pub enum Advice {
    /// Before the roll: the cube decision.
    Cube(CubeAdvice),
    /// After the roll: every legal play, best first (empty when none is legal).
    Plays(Vec<RankedPlay>),
}

/// The engine's advice at one search depth and cube efficiency, with its own search cache
/// (keep one for a whole game: positions met again are answered from the cache).
#[derive(Debug)]
pub struct Advisor<'e> {
    searcher: Searcher<'e>,
    /// The search over the evaluator's cube nets, when it has its own ([`Evaluator::cube`]),
    /// made at the first cube decision ([`Searcher::for_cube`]).
    cube_searcher: OnceLock<Searcher<'e>>,
    cube_efficiency: f64,
    cube_rollouts: Option<CubeRollouts>,
    /// Polled by the cube rollouts: once set, a rollout under way gives way to the search.
    stop: Option<&'e AtomicBool>,
}

/// Rollouts at the root for the cube decisions of back games ([`Advisor::with_cube_rollouts`],
/// [`rolls_out`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubeRollouts {
    /// Trials of each rollout (luck-corrected, first rolls stratified, 0-ply players to the
    /// end of the game: [`RolloutOptions::default`]).
    pub trials: u64,
    /// Seed of the rollouts' dice.
    pub seed: u64,
}

/// The trials of the advisor's cube rollouts at 2 plies or more ([`CubeRollouts::default_for`]):
/// on the 24 back-game take decisions of the judged sets (docs/results.md, issue 16, stop 47)
/// the 2-ply search lost 41 millipoints a decision, rollouts of 144 trials 22, of 324 trials
/// 20 and of 1296 trials 25 (the rollouts' own bias, not their noise, is what is left); the
/// luck-corrected win chance's standard error is about 0.01 at 324. About 10 s a rollout on
/// one core (a back game lasts long), shared out over `--threads`.
pub const CUBE_ROLLOUT_TRIALS: u64 = 324;

/// The most trials a cube rollout may be asked for (`--cube-rollouts`, the engine protocol's
/// `CubeRollouts`): 36 times the default, about 6 minutes a back-game cube decision on one
/// core.
pub const MAX_CUBE_ROLLOUT_TRIALS: u64 = 36 * CUBE_ROLLOUT_TRIALS;

impl CubeRollouts {
    /// Rollouts of `trials` trials (seed 1) for an advisor searching `plies` deep: at 2 plies
    /// or more (where a cube decision is an analysis), none below (where it should be quick)
    /// nor with 0 trials.
    pub fn for_depth(plies: u8, trials: u64) -> Option<CubeRollouts> {
        (plies >= 2 && trials > 0).then_some(CubeRollouts { trials, seed: 1 })
    }

    /// The advisor's rollouts at `plies` unless told otherwise: [`CubeRollouts::for_depth`]
    /// with [`CUBE_ROLLOUT_TRIALS`].
    pub fn default_for(plies: u8) -> Option<CubeRollouts> {
        CubeRollouts::for_depth(plies, CUBE_ROLLOUT_TRIALS)
    }
}

/// True when an advisor with cube rollouts rolls out the cube decision of `pos` in `state`
/// instead of searching it: the player on roll may double, and the other player, who would
/// take or pass, holds a back game (two points or more, two checkers or more each, in the
/// roller's home board: [`back_game_points`]). There the nets overrate the side attacking
/// the back game and the search cannot correct them (its leaves are the same nets); rollouts
/// played by the same nets to the end of the game can (measured in docs/results.md).
pub fn rolls_out(pos: &Position, state: &CubeState) -> bool {
    state.may_double() && back_game_points(pos, Side::Opponent) >= 2
}

impl<'e> Advisor<'e> {
    /// An advisor searching `options.plies` deep, with Janowski's cube efficiency
    /// `cube_efficiency` (0: dead cube, 1: fully live; see
    /// [`cube::DEFAULT_CUBE_EFFICIENCY`]) in contact and races, and at most
    /// [`cube::BEAROFF_CUBE_EFFICIENCY`] in bear-offs ([`cube::efficiency`]). The plays come
    /// from `eval`'s nets, the cube decisions from [`Evaluator::for_cube`]'s. At 2 plies or
    /// more the cube of a back game is rolled out ([`CubeRollouts::default_for`]; see
    /// [`Advisor::with_cube_rollouts`] to change it).
    pub fn new(eval: &'e Evaluator, options: SearchOptions, cube_efficiency: f64) -> Advisor<'e> {
        Advisor {
            searcher: Searcher::new(eval, options),
            cube_searcher: OnceLock::new(),
            cube_efficiency,
            cube_rollouts: CubeRollouts::default_for(options.plies),
            stop: None,
        }
    }

    /// The same advisor, its cube rollouts stopped when `stop` is set: the decision is then
    /// the search's, as without rollouts (a server sets it when the client has gone).
    pub fn with_stop(mut self, stop: &'e AtomicBool) -> Advisor<'e> {
        self.stop = Some(stop);
        self
    }

    /// The same advisor with other cube rollouts (`None`, or 0 trials: none; the cube is then
    /// always the search's): see [`Advisor::cube`].
    pub fn with_cube_rollouts(mut self, rollouts: Option<CubeRollouts>) -> Advisor<'e> {
        self.cube_rollouts = rollouts.filter(|r| r.trials > 0);
        self
    }

    /// The cube rollouts in use ([`CubeRollouts::default_for`] the depth unless set by
    /// [`Advisor::with_cube_rollouts`]).
    pub fn cube_rollouts(&self) -> Option<CubeRollouts> {
        self.cube_rollouts
    }

    /// The search depth.
    pub fn plies(&self) -> u8 {
        self.searcher.options().plies
    }

    /// The searcher behind the plays.
    pub fn searcher(&self) -> &Searcher<'e> {
        &self.searcher
    }

    /// The searcher behind the cube decisions (over [`Evaluator::for_cube`]).
    pub fn cube_searcher(&self) -> &Searcher<'e> {
        self.searcher.for_cube(&self.cube_searcher)
    }

    /// Before the roll: double or not for the player on roll of `pos`, and take or drop for
    /// the opponent, with the cube as in `state`: the cubeful search's decision
    /// ([`CubefulSearch::decide`]) at the advisor's depth, with the cubeless probabilities at
    /// that depth, both from the cube's evaluator ([`Advisor::cube_searcher`]) where it
    /// decides this position's cube ([`Evaluator::cube_decides`]), else from the play nets'
    /// ([`Searcher::for_cube_at`]). With cube
    /// rollouts ([`Advisor::cube_rollouts`]) in a back game ([`rolls_out`]): the cubeless
    /// probabilities of a rollout instead (the plays by the play nets at 0 plies, as
    /// `tabula backgammon rollout` plays them), converted at the root by [`cube::decide`].
    /// Deterministic either way: the rollout depends on its seed and trials, not on the
    /// threads.
    pub fn cube(&self, pos: &Position, state: &CubeState) -> CubeAdvice {
        if let Some(r) = self.cube_rollouts.filter(|_| rolls_out(pos, state)) {
            if let Some(advice) = self.cube_by_rollout(pos, state, r) {
                return advice;
            }
        }
        let searcher = self.searcher.for_cube_at(pos, &self.cube_searcher);
        let probabilities = searcher.evaluate(pos, self.plies());
        if self.plies() == 0 {
            return self.at_root(pos, state, probabilities, None);
        }
        CubeAdvice {
            probabilities,
            decision: CubefulSearch::new(searcher, self.cube_efficiency).decide(
                pos,
                state,
                self.plies(),
            ),
            rollout: None,
        }
    }

    /// `probabilities` and their cube decision converted at the root ([`cube::decide`]).
    fn at_root(
        &self,
        pos: &Position,
        state: &CubeState,
        probabilities: Probabilities,
        rollout: Option<RolloutSummary>,
    ) -> CubeAdvice {
        CubeAdvice {
            probabilities,
            decision: cube::decide(
                &probabilities,
                state,
                cube::efficiency(pos, self.cube_efficiency),
            ),
            rollout,
        }
    }

    /// The rollout's cube decision; `None` when stopped ([`Advisor::with_stop`]).
    fn cube_by_rollout(
        &self,
        pos: &Position,
        state: &CubeState,
        r: CubeRollouts,
    ) -> Option<CubeAdvice> {
        let options = RolloutOptions {
            trials: r.trials,
            seed: r.seed,
            ..RolloutOptions::default()
        };
        let rollout = Rollout::new(self.searcher.evaluator(), options);
        let done = rollout.position(pos, self.stop, &mut |_| {});
        if done.stopped {
            return None;
        }
        let estimate = *done.result.estimate();
        let summary = RolloutSummary {
            trials: r.trials,
            equity_se: estimate.equity_se,
        };
        let probabilities = estimate.probabilities.map(|p| p as f32);
        Some(self.at_root(pos, state, probabilities, Some(summary)))
    }

    /// The decision of the earlier advisors: the cubeless probabilities at the advisor's depth
    /// converted to cubeful values at the root only ([`cube::decide`]). The same as
    /// [`Advisor::cube`] at 0 plies.
    pub fn cube_cubeless_root(&self, pos: &Position, state: &CubeState) -> CubeAdvice {
        let probabilities = self
            .searcher
            .for_cube_at(pos, &self.cube_searcher)
            .evaluate(pos, self.plies());
        self.at_root(pos, state, probabilities, None)
    }

    /// After the roll: the legal plays of `dice`, best first (see [`Searcher::rank`]).
    pub fn plays(&self, pos: &Position, dice: Dice) -> Vec<RankedPlay> {
        self.searcher.rank(pos, dice)
    }

    /// The best play of `dice`; `None` when no play is legal.
    pub fn best_play(&self, pos: &Position, dice: Dice) -> Option<Play> {
        self.plays(pos, dice).into_iter().next().map(|r| r.play)
    }

    /// The cube decision before the roll (`dice` is `None`), the ranked plays after it.
    pub fn advise(&self, pos: &Position, state: &CubeState, dice: Option<Dice>) -> Advice {
        match dice {
            None => Advice::Cube(self.cube(pos, state)),
            Some(d) => Advice::Plays(self.plays(pos, d)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use tabula_engine::backgammon::MatchId;

    #[test]
    fn the_cube_state_follows_the_match_id() {
        assert_eq!(cube_state(None), CubeState::money());
        // A match to 5 at 2-1, player 1 on roll owning a 2-cube.
        let m = MatchId {
            cube: 2,
            cube_owner: Some(1),
            on_roll: 1,
            turn: 1,
            match_length: 5,
            score: [2, 1],
            ..MatchId::default()
        };
        let s = cube_state(Some(&m));
        assert_eq!(s.value, 2);
        assert_eq!(s.owner, cube::CubeOwner::Me);
        let ms = s.match_score.unwrap();
        assert_eq!(ms.score, [1, 2], "the player on roll's score first");
        // 4-away 3-away: the trailer's chance is below one half.
        assert!(match_equity(&m).unwrap() < 0.5);
        assert_eq!(match_equity(&MatchId::default()), None);
    }

    #[test]
    fn advice_is_the_searchers() {
        let mut rng = Rng::new(3);
        let e = Evaluator::random(8, 8, &mut rng);
        let options = SearchOptions {
            plies: 1,
            ..SearchOptions::default()
        };
        let a = Advisor::new(&e, options, 0.68);
        let s = Searcher::new(&e, options);
        let pos = Position::START;
        let state = CubeState::money();
        let dice: Dice = "62".parse().unwrap();
        assert_eq!(
            a.advise(&pos, &state, Some(dice)),
            Advice::Plays(s.rank(&pos, dice))
        );
        let p = s.evaluate(&pos, 1);
        assert_eq!(
            a.advise(&pos, &state, None),
            Advice::Cube(CubeAdvice {
                probabilities: p,
                decision: CubefulSearch::new(&s, 0.68).decide(&pos, &state, 1),
                rollout: None,
            })
        );
        assert_eq!(
            a.cube_cubeless_root(&pos, &state),
            CubeAdvice {
                probabilities: p,
                decision: cube::decide(&p, &state, 0.68),
                rollout: None,
            }
        );
        assert_eq!(a.best_play(&pos, dice), Some(s.rank(&pos, dice)[0].play));
    }

    /// In a back game of the player who would take, an advisor with cube rollouts answers the
    /// rollout's probabilities and their cube decision at the root, the same on any number of
    /// threads; elsewhere, when the roller may not double, or without rollouts, the search
    /// answers. The defaults: rollouts at 2 plies, none at 1.
    #[test]
    fn back_games_cube_comes_from_a_rollout() {
        let eval = crate::weights::shipped().unwrap();
        // An ace-deuce back game (the opponent holds our 1- and 2-points), from the judged
        // take decisions of docs/results.md.
        let pos = Position::from_position_id("0HMAwDvc3ZYAAA").unwrap();
        assert_eq!(back_game_points(&pos, Side::Opponent), 2);
        assert_eq!(back_game_points(&pos, Side::OnRoll), 0);
        let options = SearchOptions {
            plies: 2,
            ..SearchOptions::default()
        };
        let r = CubeRollouts {
            trials: 36,
            seed: 3,
        };
        let state = CubeState::money();
        let rolled = |threads| {
            crate::search::with_threads(threads, || {
                Advisor::new(eval, options, 0.68)
                    .with_cube_rollouts(Some(r))
                    .cube(&pos, &state)
            })
            .unwrap()
        };
        let got = rolled(1);
        assert_eq!(rolled(2), got, "the same on 2 threads");
        let rollout = Rollout::new(
            eval,
            RolloutOptions {
                trials: 36,
                seed: 3,
                ..RolloutOptions::default()
            },
        );
        let result = rollout.position(&pos, None, &mut |_| {}).result;
        let e = *result.estimate();
        let p = e.probabilities.map(|x| x as f32);
        assert_eq!(
            got,
            CubeAdvice {
                probabilities: p,
                decision: cube::decide(&p, &state, cube::efficiency(&pos, 0.68)),
                rollout: Some(RolloutSummary {
                    trials: 36,
                    equity_se: e.equity_se
                }),
            }
        );
        // The luck correction must tighten the estimate. A fixed bound would depend on the
        // net: 36 trials here give a standard error of 0.069 with stop 51's contact net, 0.111
        // with a net tried after it and 0.083 with stop 52's, against 0.246, 0.215 and 0.234
        // for the plain means.
        assert!(e.equity_se > 0.0 && e.equity_se < 0.75 * result.plain.equity_se);
        let searched = Advisor::new(eval, options, 0.68).with_cube_rollouts(None);
        assert_eq!(searched.cube_rollouts(), None);
        let s = searched.cube(&pos, &state);
        assert_eq!(s.rollout, None);
        assert_ne!(s.probabilities, p);
        let a = Advisor::new(eval, options, 0.68).with_cube_rollouts(Some(r));
        // The opponent owns the cube: nothing to decide, no rollout.
        let owned = CubeState {
            value: 2,
            owner: cube::CubeOwner::Opponent,
            ..state
        };
        assert!(!rolls_out(&pos, &owned));
        assert_eq!(a.cube(&pos, &owned), searched.cube(&pos, &owned));
        // The other side on roll: the back game is the roller's own.
        let other = pos.swapped();
        assert!(!rolls_out(&other, &state));
        assert_eq!(a.cube(&other, &state), searched.cube(&other, &state));
        // Stopped: the search answers.
        let stop = AtomicBool::new(true);
        let stopped = Advisor::new(eval, options, 0.68)
            .with_cube_rollouts(Some(r))
            .with_stop(&stop);
        assert_eq!(stopped.cube(&pos, &state), s);
        // 0 trials: none.
        let none = CubeRollouts { trials: 0, seed: 1 };
        assert_eq!(a.with_cube_rollouts(Some(none)).cube_rollouts(), None);
        assert_eq!(
            Advisor::new(eval, options, 0.68).cube_rollouts(),
            Some(CubeRollouts {
                trials: CUBE_ROLLOUT_TRIALS,
                seed: 1
            })
        );
        let one = SearchOptions {
            plies: 1,
            ..options
        };
        assert_eq!(Advisor::new(eval, one, 0.68).cube_rollouts(), None);
        assert_eq!(CubeRollouts::for_depth(2, 0), None);
    }

    /// With cube nets of its own the evaluator's cube decisions are theirs, its plays still
    /// the play nets'.
    #[test]
    fn the_cube_nets_decide_the_cube_and_only_the_cube() {
        let mut rng = Rng::new(5);
        let plays = Evaluator::random(8, 8, &mut rng);
        let cube = Evaluator::random(8, 8, &mut rng);
        let both = plays.clone().with_cube(cube.clone());
        assert_eq!(both.for_cube(), &cube);
        assert_eq!(plays.for_cube(), &plays);
        let options = SearchOptions {
            plies: 1,
            ..SearchOptions::default()
        };
        let a = Advisor::new(&both, options, 0.68);
        let (sp, sc) = (
            Searcher::new(&plays, options),
            Searcher::new(&cube, options),
        );
        let pos = Position::START;
        let state = CubeState::money();
        let dice: Dice = "62".parse().unwrap();
        assert_eq!(a.plays(&pos, dice), sp.rank(&pos, dice));
        let p = sc.evaluate(&pos, 1);
        assert_ne!(p, sp.evaluate(&pos, 1), "the two nets differ here");
        assert_eq!(
            a.cube(&pos, &state),
            CubeAdvice {
                probabilities: p,
                decision: CubefulSearch::new(&sc, 0.68).decide(&pos, &state, 1),
                rollout: None,
            }
        );
        assert_eq!(a.cube_cubeless_root(&pos, &state).probabilities, p);
        assert_eq!(a.cube_searcher().evaluate(&pos, 0), cube.evaluate(&pos));
        assert_eq!(a.searcher().evaluate(&pos, 0), plays.evaluate(&pos));
    }

    /// With a gammon threshold ([`Evaluator::with_cube_gammons`], the shipped evaluator's) the
    /// cube nets decide the cube only where the play nets' 0-ply gammon rate reaches it; below
    /// it the play nets decide, in the search and at the root alike.
    #[test]
    fn the_cube_nets_decide_only_from_the_gammon_threshold() {
        let mut rng = Rng::new(5);
        let plays = Evaluator::random(8, 8, &mut rng);
        let cube = Evaluator::random(8, 8, &mut rng);
        let options = SearchOptions {
            plies: 1,
            ..SearchOptions::default()
        };
        let (sp, sc) = (
            Searcher::new(&plays, options),
            Searcher::new(&cube, options),
        );
        let pos = Position::START;
        let state = CubeState::money();
        let p = plays.evaluate(&pos);
        let rate = p[1] + p[3];
        assert_ne!(
            sp.evaluate(&pos, 1),
            sc.evaluate(&pos, 1),
            "the two nets differ here"
        );
        for (threshold, cube_decides) in [(rate - 1e-3, true), (rate + 1e-3, false)] {
            let hybrid = plays
                .clone()
                .with_cube(cube.clone())
                .with_cube_gammons(threshold);
            assert_eq!(hybrid.cube_decides(&pos), cube_decides, "{threshold}");
            let s = if cube_decides { &sc } else { &sp };
            let a = Advisor::new(&hybrid, options, 0.68);
            assert_eq!(
                a.cube(&pos, &state),
                CubeAdvice {
                    probabilities: s.evaluate(&pos, 1),
                    decision: CubefulSearch::new(s, 0.68).decide(&pos, &state, 1),
                    rollout: None,
                }
            );
            assert_eq!(
                a.cube_cubeless_root(&pos, &state).probabilities,
                s.evaluate(&pos, 1)
            );
            // The plays are the play nets' either way.
            let dice: Dice = "62".parse().unwrap();
            assert_eq!(a.plays(&pos, dice), sp.rank(&pos, dice));
        }
    }

    /// The shipped evaluator's cube nets decide the gammonish cubes alone.
    #[test]
    fn shipped_cube_nets_decide_gammonish_cubes() {
        let shipped = crate::weights::shipped().unwrap();
        assert_eq!(shipped.cube_gammons, Some(crate::weights::CUBE_GAMMONS));
        // The start (gammons won plus lost about 0.25) is the play nets'; a blitz, where the
        // side on roll has closed five points against two checkers on the bar, the cube nets'.
        assert!(!shipped.cube_decides(&Position::START));
        let mut counts = [[0u8; 25]; 2];
        counts[0][..5].copy_from_slice(&[2, 2, 2, 2, 2]);
        counts[0][5] = 3;
        counts[0][12] = 2;
        counts[1][24] = 2;
        counts[1][4] = 2;
        counts[1][12] = 5;
        counts[1][7] = 3;
        counts[1][5] = 3;
        let blitz = Position::from_counts(counts[0], counts[1]).unwrap();
        let p = shipped.evaluate(&blitz);
        assert!(p[1] + p[3] >= crate::weights::CUBE_GAMMONS, "{p:?}");
        assert!(shipped.cube_decides(&blitz));
    }
}
