//! Backgammon's reports from the gammon advisor's answers and the engine's positions: `hint`
//! and `show` of the command line, `POST /api/backgammon/evaluate` of the server.

use crate::backgammon::{
    CubeReport, CubeRolloutReport, EvaluationReport, MatchReport, PlaysReport, RankedPlayReport,
    ShowReport, SideReport,
};
use crate::server::EvaluateReport;
use tabula_engine::backgammon::{Dice, MatchId, Position, Side, Xgid};
use tabula_gammon::advisor::{match_equity, CubeAdvice};
use tabula_gammon::{equity, RankedPlay};

/// Rounds for JSON: 6 decimals are plenty, and keep the output short.
pub fn round6(x: f32) -> f64 {
    (f64::from(x) * 1e6).round() / 1e6
}

/// gnubg's name of the player on roll: `x` (player 1) or `o` (player 0); `x` without a Match
/// ID, as the board shows the player on roll.
pub fn side_to_move(match_id: Option<&MatchId>) -> &'static str {
    match match_id {
        Some(m) if m.on_roll == 0 => "o",
        _ => "x",
    }
}

impl CubeReport {
    /// The cube decision of the player on roll, with the rollout it came from, if any.
    pub fn from_advice(a: &CubeAdvice) -> CubeReport {
        let d = &a.decision;
        CubeReport {
            action: d.action_text().to_string(),
            double_pass: d.double_pass,
            double_take: d.double_take,
            no_double: d.no_double,
            rollout: a.rollout.map(|r| CubeRolloutReport {
                equity_se: (r.equity_se * 1e6).round() / 1e6,
                trials: r.trials,
            }),
            take: d.take,
        }
    }
}

impl MatchReport {
    /// The match state of a Match ID, with the match winning chance of the player on roll.
    pub fn from_match_id(m: &MatchId) -> MatchReport {
        MatchReport {
            match_id: m.encode(),
            length: m.match_length,
            score: m.score,
            cube: m.cube,
            cube_owner: m.cube_owner,
            crawford: m.crawford,
            on_roll: m.on_roll,
            dice: [m.dice.0, m.dice.1],
            match_equity: match_equity(m),
        }
    }
}

impl RankedPlayReport {
    /// One ranked play, its numbers rounded to 6 decimals.
    pub fn from_ranked(r: &RankedPlay) -> RankedPlayReport {
        RankedPlayReport {
            equity: round6(r.equity),
            play: r.play.notation(),
            plies: r.plies,
            probabilities: r.probabilities.map(round6),
        }
    }

    /// Every ranked play, best first.
    pub fn list(ranked: &[RankedPlay]) -> Vec<RankedPlayReport> {
        ranked.iter().map(RankedPlayReport::from_ranked).collect()
    }
}

impl EvaluationReport {
    /// `hint --json` before the roll: the advice on `pos` at `plies`.
    pub fn new(pos: &Position, plies: u8, a: &CubeAdvice) -> EvaluationReport {
        EvaluationReport {
            cube: CubeReport::from_advice(a),
            equity: round6(equity(&a.probabilities)),
            plies,
            position: pos.position_id(),
            probabilities: a.probabilities.map(round6),
        }
    }
}

impl PlaysReport {
    /// `hint --json` with dice: the ranked plays of `dice` at `plies`.
    pub fn new(dice: Dice, plies: u8, ranked: &[RankedPlay]) -> PlaysReport {
        PlaysReport {
            dice: dice.to_string(),
            moves: RankedPlayReport::list(ranked),
            plies,
        }
    }
}

impl SideReport {
    /// One side's checkers.
    pub fn new(pos: &Position, side: Side) -> SideReport {
        SideReport {
            pips: pos.pips(side),
            bar: pos.bar(side),
            off: pos.off(side),
            points: pos.counts(side)[..24].to_vec(),
        }
    }
}

impl ShowReport {
    /// `show --json`: the position, and the match state when there is a Match ID.
    pub fn new(pos: &Position, match_id: Option<&MatchId>) -> ShowReport {
        ShowReport {
            game: "backgammon".into(),
            position: pos.position_id(),
            side_to_move: side_to_move(match_id).into(),
            xgid: Xgid::new(*pos).to_string(),
            on_roll: SideReport::new(pos, Side::OnRoll),
            opponent: SideReport::new(pos, Side::Opponent),
            match_state: match_id.map(MatchReport::from_match_id),
        }
    }
}

impl EvaluateReport {
    /// `POST /api/backgammon/evaluate`: the advice on `pos` before the roll at `plies`, with the
    /// plays of `dice` ranked when a roll is given.
    pub fn new(
        pos: &Position,
        match_id: Option<&MatchId>,
        plies: u8,
        advice: &CubeAdvice,
        plays: Option<(Dice, &[RankedPlay])>,
    ) -> EvaluateReport {
        EvaluateReport {
            position: pos.position_id(),
            side_to_move: side_to_move(match_id).into(),
            plies,
            probabilities: advice.probabilities.map(round6),
            equity: round6(equity(&advice.probabilities)),
            cube: CubeReport::from_advice(advice),
            match_state: match_id.map(MatchReport::from_match_id),
            dice: plays.map(|(d, _)| d.to_string()),
            plays: plays.map(|(_, ranked)| RankedPlayReport::list(ranked)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_and_the_side_to_move_follow_hint() {
        assert_eq!(round6(0.123_456_7), 0.123_457);
        assert_eq!(side_to_move(None), "x");
        let mut m = MatchId {
            on_roll: 0,
            ..MatchId::default()
        };
        assert_eq!(side_to_move(Some(&m)), "o");
        m.on_roll = 1;
        assert_eq!(side_to_move(Some(&m)), "x");
        let r = MatchReport::from_match_id(&m);
        assert_eq!((r.match_id, r.on_roll), (m.encode(), 1));
    }
}
