//! Cubeful n-ply evaluation, as GNU Backgammon does it: the cube is valued at every node of the
//! search, not only converted at the root.
//!
//! `value(pos, S, 0)` for a list `S` of cube states (each seen by the player on roll) is
//! Janowski's cubeful value of the net's probabilities for each state ([`cube::cubeful`]: money
//! per cube unit, match MWC). `value(pos, S, n)` first adds, for every state in which the player
//! on roll may double, the state after a double and a take ([`cube::doubled`]); it then
//! averages over the 21 rolls the player on roll's best play, each play's result valued at
//! `n − 1` plies for all those states as the opponent sees them ([`cube::flipped`]) and turned
//! back (money `−v`, match `1 − v`). Finally the player on roll takes its own cube action in
//! each state: `max(ND, min(DT, DP))` where it may double (money `DT` is twice the doubled
//! state's value per its own unit, `DP` +1; match values are MWC), `ND` where it may not. So a
//! position where the opponent would redouble or cash on the next turn is worth what that
//! costs. The node the search starts from takes no cube action: its no-double and double/take
//! values are the decision's `ND` and `DT` ([`CubefulSearch::decide`]). At 0 plies this is
//! [`cube::decide`] exactly.
//!
//! **Plays.** For money play each roll's play, the same for every state, is the mover's best
//! by its cubeless 0-ply equity (ties to the first generated). Until stop 64 the plays were
//! ranked by the first state's cubeful value (the cube as it is, as gnubg does), but there
//! they tie exactly wherever the next player's double would be passed (every play is worth
//! the same cash), and the first play generated, however bad, then stood for the other
//! states too: a taker owning the cube played, inside the search, as if nothing mattered.
//! On 162 close money takes from gnubg self-play, Tabula 2-ply's double/take stood +0.079
//! above gnubg 2-ply's and, on 79 of them, +0.067 above Tabula's own cubeful rollouts; with
//! the cubeless choice +0.040 and +0.025, the contact takes level with the rollouts
//! (docs/results.md, "Money takes: how the search picks its plays"). Breaking the first
//! state's ties by the cubeless equity measured the same, in 40% more time. On the exact
//! bear-offs of 4 checkers a side the 2-ply money DT error then rose (0.029 → 0.036 mean,
//! wrong takes 216 → 321 of 15,876), the DT now 0.014 low on average: the leaves value the
//! taker's cube too high in short bear-offs, which the arbitrary plays had offset. The
//! opponent's cube there has its own efficiency since
//! ([`cube::BEAROFF_OPPONENT_CUBE_EFFICIENCY`]: 0.032 and 211).
//!
//! At a match score the plays are ranked at 0-ply by their cubeful value for the first state,
//! as normalised equities ([`cube::normalised`]); the best few
//! ([`SearchOptions::inner_candidates`](crate::SearchOptions::inner_candidates) within
//! [`SearchOptions::inner_threshold`](crate::SearchOptions::inner_threshold)) are searched
//! deeper, and each state takes its own best play (among all plays at 0 plies, among the
//! candidates deeper): there a dead cube and a live one call for different plays (at 2-away
//! 4-away, once the doubler's cube is dead, the taker's redouble decides the match). Measured
//! with the exact bear-off judge (`cube_compare -- exact 3 2`, 3,136 positions a score): at
//! 2-away 4-away the 2-ply wrong takes go from 64 to 0 and at 4-away 2-away from 38 to 0; with
//! money the per-state choice loses (wrong takes 20 → 51 at 3 checkers, 323 → 501 at 4: the
//! maximum over plays of Janowski's approximate leaf values is biased upward in the states the
//! play was not chosen for). This only values the position: the plays the advisor recommends
//! still come from the cubeless [`Searcher::rank`].
//!
//! **Cube efficiency.** Janowski's `x` at a leaf is [`cube::efficiency`]: the search's
//! efficiency (the advisor's) in contact and races; in bear-offs
//! [`cube::BEAROFF_CUBE_EFFICIENCY`] (0.5, fitted to exact bear-off values) up to 16 pips of
//! the player on roll, rising to the search's at 28, and in money bear-offs
//! [`cube::BEAROFF_OPPONENT_CUBE_EFFICIENCY`] (0.35) for the states where the opponent owns
//! the cube ([`cube::Efficiency::for_state`]).
//!
//! The probabilities at the leaves come from the [`Searcher`]'s cache (shared with the
//! cubeless search); the rolls are searched in parallel and summed in order in `f64`, so the
//! values are bit-for-bit the same for any number of threads.

use rayon::prelude::*;
use tabula_engine::backgammon::{Dice, Position};
use tabula_engine::ChanceGame;

use crate::cube::{self, CubeDecision, CubeState};
use crate::net::{equity, game_over};
use crate::search::Searcher;

/// Cubeful n-ply evaluation over a cubeless [`Searcher`] (its leaf cache and move filter).
#[derive(Debug)]
pub struct CubefulSearch<'s, 'e> {
    searcher: &'s Searcher<'e>,
    cube_efficiency: f64,
}

/// The states of a node after the player on roll's possible doubles: `states[i]` is at
/// `expanded[i]`, its doubled state (when it may double) at `doubles[i]`.
struct Expansion {
    expanded: Vec<CubeState>,
    doubles: Vec<Option<usize>>,
}

fn expand(states: &[CubeState]) -> Expansion {
    let mut expanded = states.to_vec();
    let doubles = states
        .iter()
        .map(|s| {
            s.may_double().then(|| {
                expanded.push(cube::doubled(s));
                expanded.len() - 1
            })
        })
        .collect();
    Expansion { expanded, doubles }
}

/// A value of the player on roll of a child position (for state `child`) seen by the player
/// who moved there.
fn turned(value: f64, child: &CubeState) -> f64 {
    match child.match_score {
        None => -value,
        Some(_) => 1.0 - value,
    }
}

impl<'s, 'e> CubefulSearch<'s, 'e> {
    /// A cubeful search using `searcher`'s evaluator, cache and inner move filter, with
    /// Janowski's cube efficiency `cube_efficiency` at the leaves.
    pub fn new(searcher: &'s Searcher<'e>, cube_efficiency: f64) -> CubefulSearch<'s, 'e> {
        CubefulSearch {
            searcher,
            cube_efficiency,
        }
    }

    /// The cubeful value of `pos` for the player on roll, before the roll, `plies` rolls
    /// ahead, for each cube state of `states` (money: per that state's cube unit; match:
    /// MWC), the player on roll not doubling now (later cube actions of both sides counted).
    /// At a match score the first state is the one whose value ranks the plays.
    pub fn evaluate(&self, pos: &Position, states: &[CubeState], plies: u8) -> Vec<f64> {
        self.value(pos, states, plies, true)
    }

    /// The cube decision of the player on roll of `pos` with the cube as in `state`: no
    /// double and double/take valued by the cubeful search `plies` deep, double/pass as in
    /// [`cube::decide`] (and identical to it at 0 plies).
    pub fn decide(&self, pos: &Position, state: &CubeState, plies: u8) -> CubeDecision {
        let doubled = cube::doubled(state);
        let v = self.evaluate(pos, &[*state, doubled], plies);
        let dt = cube::double_take(v[1], state);
        cube::decision(v[0], dt, cube::double_pass(state), state.may_double())
    }

    /// The values of `pos` for `states`; with `top`, without the player on roll's cube action.
    fn value(&self, pos: &Position, states: &[CubeState], plies: u8, top: bool) -> Vec<f64> {
        let x = cube::efficiency(pos, self.cube_efficiency);
        if let Some(p) = game_over(pos) {
            return states.iter().map(|s| cube::cubeful(&p, s, x)).collect();
        }
        let Expansion { expanded, doubles } = if top {
            Expansion {
                expanded: states.to_vec(),
                doubles: vec![None; states.len()],
            }
        } else {
            expand(states)
        };
        let raw: Vec<f64> = if plies == 0 {
            let p = self.searcher.evaluate(pos, 0);
            expanded.iter().map(|s| cube::cubeful(&p, s, x)).collect()
        } else {
            let children: Vec<CubeState> = expanded.iter().map(cube::flipped).collect();
            let rolls = Position::rolls();
            let per_roll: Vec<Vec<f64>> = rolls
                .par_iter()
                .map(|&(dice, _)| self.best_for_roll(pos, dice, &expanded, &children, plies - 1))
                .collect();
            let total = f64::from(Position::ROLL_WEIGHT_TOTAL);
            let mut acc = vec![0.0f64; expanded.len()];
            for (&(_, weight), v) in rolls.iter().zip(&per_roll) {
                let w = f64::from(weight) / total;
                for (a, &y) in acc.iter_mut().zip(v) {
                    *a += w * y;
                }
            }
            acc
        };
        states
            .iter()
            .enumerate()
            .map(|(i, s)| match doubles[i] {
                None => raw[i],
                Some(j) => raw[i].max(cube::double_take(raw[j], s).min(cube::double_pass(s))),
            })
            .collect()
    }

    /// The mover's values (for `mine`; `theirs` are the same states flipped) of its best play
    /// of `dice` from `pos`, each play's result valued `plies` deep.
    fn best_for_roll(
        &self,
        pos: &Position,
        dice: Dice,
        mine: &[CubeState],
        theirs: &[CubeState],
        plies: u8,
    ) -> Vec<f64> {
        let turn_all = |child: &Position, depth: u8| -> Vec<f64> {
            self.value(child, theirs, depth, false)
                .iter()
                .zip(theirs)
                .map(|(&v, s)| turned(v, s))
                .collect()
        };
        let mut results = Vec::new();
        pos.results_of(dice, &mut results);
        if results.is_empty() {
            return turn_all(&pos.pass(), plies);
        }
        if mine[0].match_score.is_none() {
            // Money: one play for every state, the best by its cubeless 0-ply equity.
            return turn_all(&results[self.cubeless_best(&results)], plies);
        }
        // Match: every play's 0-ply values for all the states; the ranking is by the first
        // state's normalised value, ties in generation order.
        let shallow: Vec<Vec<f64>> = results.iter().map(|r| turn_all(r, 0)).collect();
        let mut ranked: Vec<(usize, f64)> = shallow
            .iter()
            .enumerate()
            .map(|(i, v)| (i, cube::normalised(v[0], &mine[0])))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        // Each state takes its own best play.
        let best_of = |values: &[Vec<f64>]| -> Vec<f64> {
            (0..mine.len())
                .map(|k| {
                    values
                        .iter()
                        .map(|v| v[k])
                        .fold(f64::NEG_INFINITY, f64::max)
                })
                .collect()
        };
        if plies == 0 {
            return best_of(&shallow);
        }
        let options = self.searcher.options();
        let best = ranked[0].1;
        let keep = ranked
            .iter()
            .take(options.inner_candidates.max(1))
            .take_while(|r| r.1 >= best - f64::from(options.inner_threshold))
            .count()
            .max(1);
        let deep: Vec<Vec<f64>> = ranked[..keep]
            .iter()
            .map(|&(i, _)| turn_all(&results[i], plies))
            .collect();
        best_of(&deep)
    }

    /// The index of the play among `results` (positions after the mover's plays, the
    /// opponent on roll) with the mover's best cubeless 0-ply equity; ties go to the first.
    fn cubeless_best(&self, results: &[Position]) -> usize {
        let mut best = (0, f32::INFINITY);
        for (i, r) in results.iter().enumerate() {
            // The opponent's equity (exact when the play ends the game, as the searcher
            // evaluates finished games): the mover's best play leaves the least.
            let e = equity(&self.searcher.evaluate(r, 0));
            if e < best.1 {
                best = (i, e);
            }
        }
        best.0
    }
}
