//! Backgammon's JSON reports (`tabula backgammon …`). `moves --json` is the shared
//! [`crate::report::MovesReport`]; the others are here.
//!
//! Field names follow the table of [`crate::report`]: `position` is a gnubg Position ID,
//! `side_to_move` is `x` or `o` (gnubg's player 1 and player 0), `plies` is here the search
//! depth of an evaluation (backgammon has no distance to the end to report). Backgammon adds
//! `equity` (cubeless, for the player on roll or the mover) and `probabilities`
//! (`[win, win gammon, win backgammon, lose gammon, lose backgammon]`).
//!
//! The fields of the `hint` reports are declared in alphabetical order, the order in which
//! `hint --json` has always written them; keep it so.

use serde::{Deserialize, Serialize};

/// The cube decision of the player on roll (in `hint --json` without dice).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CubeReport {
    /// The decision in words: `no double`, `double, take`, `double, pass`, `too good to double,
    /// pass`, or `no double (the cube is not available)`.
    pub action: String,
    /// Cubeful value after double and pass (money: per cube unit; match: match winning chance).
    pub double_pass: f64,
    /// Cubeful value after double and take.
    pub double_take: f64,
    /// Cubeful value without doubling.
    pub no_double: f64,
    /// The rollout the decision came from (a back game at 2 plies or more); absent when the
    /// search decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollout: Option<CubeRolloutReport>,
    /// The opponent should take a double.
    pub take: bool,
}

/// The rollout behind a cube decision: its trials and the standard error of its cubeless
/// equity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CubeRolloutReport {
    /// Standard error of the rollout's luck-corrected cubeless equity (6 decimals).
    pub equity_se: f64,
    /// Trials played.
    pub trials: u64,
}

/// `hint --json` before the roll: the evaluation of the position and the cube decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvaluationReport {
    pub cube: CubeReport,
    /// Cubeless equity for the player on roll (rounded to 6 decimals).
    pub equity: f64,
    /// Search depth.
    pub plies: u8,
    /// The position evaluated (Position ID).
    pub position: String,
    /// Cubeless probabilities for the player on roll (rounded to 6 decimals).
    pub probabilities: [f64; 5],
}

/// One ranked play in `hint --json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankedPlayReport {
    /// Cubeless equity for the mover (rounded to 6 decimals).
    pub equity: f64,
    /// The play in gnubg notation.
    pub play: String,
    /// The depth of this play's evaluation (0 for plays filtered out before the search).
    pub plies: u8,
    /// Cubeless probabilities for the mover (rounded to 6 decimals).
    pub probabilities: [f64; 5],
}

/// `hint --json` with dice: every legal play, best first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlaysReport {
    /// The roll, e.g. `31`.
    pub dice: String,
    /// Every legal play, best first (empty when none is legal).
    pub moves: Vec<RankedPlayReport>,
    /// Search depth.
    pub plies: u8,
}

/// One side's checkers in `show --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideReport {
    pub pips: u32,
    pub bar: u8,
    pub off: u8,
    /// Checkers on the side's own points 1 to 24.
    pub points: Vec<u8>,
}

/// The match state of a Match ID in `show --json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchReport {
    pub match_id: String,
    /// Match length, 0 for money.
    pub length: u32,
    /// Scores of players 0 and 1.
    pub score: [u32; 2],
    pub cube: u32,
    /// The cube's owner (player 0 or 1), `null` when centred.
    pub cube_owner: Option<u8>,
    pub crawford: bool,
    /// The player on roll (0 or 1).
    pub on_roll: u8,
    /// The dice, `[0, 0]` before the roll.
    pub dice: [u8; 2],
    /// The match winning chance of the player on roll (Kazaross-XG2), `null` for money.
    pub match_equity: Option<f64>,
}

/// `show --json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShowReport {
    /// Always `backgammon`.
    pub game: String,
    /// Position ID.
    pub position: String,
    /// `x` or `o`: gnubg's player 1 or 0, from the Match ID (`x` without one: the board shows
    /// the player on roll as X).
    pub side_to_move: String,
    pub xgid: String,
    /// The player on roll's checkers.
    pub on_roll: SideReport,
    /// The opponent's checkers.
    pub opponent: SideReport,
    /// With a Match ID.
    #[serde(rename = "match", skip_serializing_if = "Option::is_none", default)]
    pub match_state: Option<MatchReport>,
}

/// `play --play … --json`: the play checked, in gnubg notation, and the Position ID after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckedPlayReport {
    pub play: String,
    pub position: String,
}

/// `baseline --json`: the net's results against a simple opponent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineReport {
    pub backgammons: u64,
    pub gammons: u64,
    pub games: u64,
    pub opponent: String,
    pub points_per_game: f64,
    /// `baseline --from`: the standard error of `points_per_game` over the duplicate pairs.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub points_per_game_se: Option<f64>,
    /// `baseline --from`: the positions the pairs started from.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub positions: Option<u64>,
    /// Ctrl-C (or SIGTERM) ended the series early: the figures are those of the games played.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub stopped: bool,
    pub win_rate: f64,
    pub wins: u64,
}

/// Means and standard errors of a rollout's trials (`rollout --json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RolloutEstimateReport {
    /// Cubeless equity (rounded to 6 decimals).
    pub equity: f64,
    /// Its standard error.
    pub equity_se: f64,
    /// `[win, win gammon, win backgammon, lose gammon, lose backgammon]` (rounded to 6
    /// decimals). Luck-corrected means may stray a little outside `[0, 1]` near 0 or 1.
    pub probabilities: [f64; 5],
    /// Their standard errors.
    pub probabilities_se: [f64; 5],
}

/// The rollout of a position or of one play in `rollout --json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RolloutEntryReport {
    /// The play in gnubg notation (absent for a position's rollout).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub play: Option<String>,
    /// The estimate: luck-corrected when the correction is on, else `plain`.
    pub estimate: RolloutEstimateReport,
    /// The plain mean of the trials' outcomes.
    pub plain: RolloutEstimateReport,
    /// For a play: its equity minus the first (best) play's, trial by trial under the same
    /// dice, and the standard error of that difference (0 for the first play).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub difference: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub difference_se: Option<f64>,
    /// Cubeful rollouts: the cubeful estimate (then `difference` is cubeful too).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cubeful: Option<RolloutCubefulReport>,
}

/// A cubeful rollout's estimate in `rollout --cubeful --json`, normalised for the root player:
/// money, points per unit of the cube at the start (double/pass is +1); match, gnubg's
/// normalised equity `2·(MWC − L)/(W − L) − 1`, `W` and `L` the match winning chances after
/// winning and losing the current cube's value (double/pass is again +1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RolloutCubefulReport {
    /// Luck-corrected when the correction is on (rounded to 6 decimals).
    pub equity: f64,
    pub equity_se: f64,
    /// The plain mean of the trials.
    pub plain_equity: f64,
    pub plain_equity_se: f64,
    /// At a match score: `equity` as a match winning chance, and its standard error.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub match_winning_chance: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub match_winning_chance_se: Option<f64>,
}

/// One cube action of `rollout --cubeful --json` without dice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RolloutCubeActionReport {
    /// `no double`, `double, take` or `double, pass`.
    pub action: String,
    /// Normalised cubeful equity (double/pass: exactly 1).
    pub equity: f64,
    /// Its standard error (0 for double/pass).
    pub equity_se: f64,
    /// At a match score: the match winning chance.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub match_winning_chance: Option<f64>,
    /// This action's equity minus the proper action's, and the standard error of that
    /// difference (no double and double/take are paired trial by trial).
    pub difference: f64,
    pub difference_se: f64,
}

/// The cube actions ranked by `rollout --cubeful --json` without dice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RolloutCubeReport {
    /// The proper action: `no double, take`, `double, take`, `double, pass`, `too good,
    /// pass`, or `no double (the cube is not available)`.
    pub action: String,
    /// Whether the player on roll may double now.
    pub may_double: bool,
    /// The opponent should take a double.
    pub take: bool,
    /// No double, then (when the player may double) double/take and double/pass.
    pub actions: Vec<RolloutCubeActionReport>,
}

/// `rollout --json`: Monte-Carlo rollouts of a position (for the player on roll) or of the
/// candidate plays of a roll (for the mover), best first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RolloutReport {
    /// The position rolled out (Position ID).
    pub position: String,
    /// The roll whose plays are compared, `null` for the position before the roll.
    pub dice: Option<String>,
    /// Trials played per position or play (fewer than `trials_requested` when stopped).
    pub trials: u64,
    pub trials_requested: u64,
    /// Plies played before the evaluator scores the position, `null`: to the end.
    pub truncate: Option<u32>,
    /// The players' search depth.
    pub plies: u8,
    pub seed: u64,
    /// Whether `estimate` is luck-corrected.
    pub luck_correction: bool,
    /// Whether the first roll cycles over the 36 rolls.
    pub stratified: bool,
    /// Cubeful rollouts (`--cubeful`): the cube played in every trial.
    pub cubeful: bool,
    /// Cubeful: the Match ID whose score and cube were used (`null`: money, centred cube).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub match_id: Option<String>,
    /// Cubeful without dice: the cube actions ranked (`rollout` is then the no-double
    /// rollout).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cube: Option<RolloutCubeReport>,
    /// Stopped (Ctrl-C) before all the trials were played.
    pub stopped: bool,
    pub time_ms: u64,
    /// Without dice: the position's rollout.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rollout: Option<RolloutEntryReport>,
    /// With dice: the candidate plays' rollouts, best first (empty without dice or when no
    /// play is legal).
    pub moves: Vec<RolloutEntryReport>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_fields_are_written_in_alphabetical_order() {
        let r = PlaysReport {
            dice: "31".into(),
            moves: vec![RankedPlayReport {
                equity: 0.5,
                play: "8/5 6/5".into(),
                plies: 1,
                probabilities: [0.5, 0.1, 0.0, 0.1, 0.0],
            }],
            plies: 1,
        };
        let text = serde_json::to_string(&r).unwrap();
        // serde_json::Value (no preserve_order) sorts keys: the same text as before.
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(text, v.to_string());
        let e = EvaluationReport {
            cube: CubeReport {
                action: "no double".into(),
                double_pass: 1.0,
                double_take: 0.7,
                no_double: 0.8,
                rollout: Some(CubeRolloutReport {
                    equity_se: 0.01,
                    trials: 324,
                }),
                take: true,
            },
            equity: 0.1,
            plies: 2,
            position: "4HPwATDgc/ABMA".into(),
            probabilities: [0.5; 5],
        };
        let text = serde_json::to_string(&e).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(text, v.to_string());
        assert_eq!(serde_json::from_str::<EvaluationReport>(&text).unwrap(), e);
    }
}
