//! The advisor: given the match state, a position and (maybe) the dice, the cube action, take
//! or drop, and the ranked plays. `tabula backgammon hint`, the terminal game and the gnubg
//! external-player server all ask it; so will the coming engine protocol and HTTP server.
//!
//! The match state is a [`CubeState`] from the player on roll (money or match score, cube value
//! and owner, Crawford, Jacoby); [`cube_state`] builds it from a gnubg Match ID. Cube decisions
//! come from the cubeful search of [`crate::cubeful`], [`SearchOptions::plies`] ahead: Janowski's
//! model with the advisor's cube efficiency (at most [`cube::BEAROFF_CUBE_EFFICIENCY`] in
//! bear-offs: [`cube::efficiency`]; the Kazaross-XG2 match equity table at a match score) at
//! the leaves and both sides' cube actions at the inner nodes; at 0 plies that is
//! [`cube::decide`] of the net's probabilities. [`Advisor::cube_cubeless_root`] keeps the older
//! decision (the cubeless n-ply probabilities converted at the root) for comparison. Plays are
//! ranked by [`Searcher::rank`]. When the evaluator has cube nets of its own
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

use std::sync::OnceLock;

use tabula_engine::backgammon::{met, Dice, MatchId, Play, Position};

use crate::cube::{self, CubeDecision, CubeState};
use crate::cubeful::CubefulSearch;
use crate::net::{Evaluator, Probabilities};
use crate::search::{RankedPlay, SearchOptions, Searcher};

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
}

impl<'e> Advisor<'e> {
    /// An advisor searching `options.plies` deep, with Janowski's cube efficiency
    /// `cube_efficiency` (0: dead cube, 1: fully live; see
    /// [`cube::DEFAULT_CUBE_EFFICIENCY`]) in contact and races, and at most
    /// [`cube::BEAROFF_CUBE_EFFICIENCY`] in bear-offs ([`cube::efficiency`]). The plays come
    /// from `eval`'s nets, the cube decisions from [`Evaluator::for_cube`]'s.
    pub fn new(eval: &'e Evaluator, options: SearchOptions, cube_efficiency: f64) -> Advisor<'e> {
        Advisor {
            searcher: Searcher::new(eval, options),
            cube_searcher: OnceLock::new(),
            cube_efficiency,
        }
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
    /// that depth, both from the cube's evaluator ([`Advisor::cube_searcher`]).
    pub fn cube(&self, pos: &Position, state: &CubeState) -> CubeAdvice {
        let searcher = self.cube_searcher();
        let probabilities = searcher.evaluate(pos, self.plies());
        let decision = if self.plies() == 0 {
            cube::decide(
                &probabilities,
                state,
                cube::efficiency(pos, self.cube_efficiency),
            )
        } else {
            CubefulSearch::new(searcher, self.cube_efficiency).decide(pos, state, self.plies())
        };
        CubeAdvice {
            probabilities,
            decision,
        }
    }

    /// The decision of the earlier advisors: the cubeless probabilities at the advisor's depth
    /// converted to cubeful values at the root only ([`cube::decide`]). The same as
    /// [`Advisor::cube`] at 0 plies.
    pub fn cube_cubeless_root(&self, pos: &Position, state: &CubeState) -> CubeAdvice {
        let probabilities = self.cube_searcher().evaluate(pos, self.plies());
        CubeAdvice {
            probabilities,
            decision: cube::decide(
                &probabilities,
                state,
                cube::efficiency(pos, self.cube_efficiency),
            ),
        }
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
                decision: CubefulSearch::new(&s, 0.68).decide(&pos, &state, 1)
            })
        );
        assert_eq!(
            a.cube_cubeless_root(&pos, &state),
            CubeAdvice {
                probabilities: p,
                decision: cube::decide(&p, &state, 0.68)
            }
        );
        assert_eq!(a.best_play(&pos, dice), Some(s.rank(&pos, dice)[0].play));
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
                decision: CubefulSearch::new(&sc, 0.68).decide(&pos, &state, 1)
            }
        );
        assert_eq!(a.cube_cubeless_root(&pos, &state).probabilities, p);
        assert_eq!(a.cube_searcher().evaluate(&pos, 0), cube.evaluate(&pos));
        assert_eq!(a.searcher().evaluate(&pos, 0), plays.evaluate(&pos));
    }
}
