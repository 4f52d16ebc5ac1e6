//! The HTTP API's own requests and reports (`tabula serve`). The legal-move lists are the shared
//! [`crate::report::MovesReport`]; a best move is each game's `SolveReport`
//! ([`crate::bilitaire::SolveReport`], [`crate::pylos::SolveReport`]); backgammon reuses
//! [`crate::backgammon`]'s cube and play reports. Field names follow [`crate::report`].

use crate::backgammon::{CubeReport, MatchReport, RankedPlayReport};
use serde::{Deserialize, Serialize};

/// What a search may spend. Both are optional; the server caps them (and fills in its default
/// time when neither is given).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// Wall time of the search, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub time_ms: Option<u64>,
    /// Positions searched.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub nodes: Option<u64>,
}

/// The body of `POST /api/{game}/best` and `POST /api/{game}/analyze` (Bi-litaire, Pylos).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// The position string (default: the start position).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub position: Option<String>,
    /// Bi-litaire: `standard` or `free-chains`; Pylos: `children`, `standard` or `mature`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rules: Option<String>,
    /// Pylos only: `optional` or `compulsory`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub takeback: Option<String>,
    /// Pylos only: the base's size, 4 (the game, the default) or 3 (the small board).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub board: Option<u8>,
    #[serde(default)]
    pub budget: Budget,
}

/// One move of an analysis: the GamesmanOne-style answer (each move with its value and
/// distance or balls left).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveAnalysis {
    /// The move in the game's notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// The position after it.
    pub position: String,
    /// The value of the game after this move under best play, where proven (Bi-litaire: balls
    /// left; Pylos: the payoff for the side to move of the analysed position, `±(1000 −
    /// plies)`); null when not proven within the budget.
    pub value: Option<i32>,
    /// Pylos: `win`, `loss` or `draw` for the side to move of the analysed position, `unknown`
    /// when not proven.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub result: Option<String>,
    /// Pylos: plies to the end from the analysed position, this move included.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub plies: Option<u32>,
    /// When `value` is null: a bound that holds in any case, in the units of `value`.
    /// Bi-litaire: at most this many balls left when the slider moves, at least this many when
    /// the ball player moves; Pylos: the move is worth at most this to the side to move.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub bound: Option<i32>,
}

/// `POST /api/{game}/analyze`: the position's exact value, then every move with its own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalyzeReport {
    /// `bilitaire` or `pylos`.
    pub game: String,
    pub position: String,
    pub side_to_move: String,
    /// The exact value (Bi-litaire: balls left; Pylos: the payoff for the side to move), null
    /// when the budget ran out first.
    pub value: Option<i32>,
    /// Pylos: `win`, `loss`, `draw` or `unknown` for the side to move.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub result: Option<String>,
    /// Pylos: plies to the end under best play.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub plies: Option<u32>,
    pub exact: bool,
    /// The budget ran out before the value was proven (the moves are then listed unvalued).
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub stopped: bool,
    /// Proven bounds on `value` when stopped.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub lower: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub upper: Option<i32>,
    pub best: Option<String>,
    pub pv: Vec<String>,
    /// Every legal move, in the engine's order.
    pub moves: Vec<MoveAnalysis>,
    pub nodes: u64,
    pub time_ms: u64,
}

/// The body of `POST /api/backgammon/evaluate`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaluateRequest {
    /// Position ID, gnubg ID (`<position>:<match>`) or XGID (default: the opening position).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub position: Option<String>,
    /// A gnubg Match ID for the match context (overrides the one in `position`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub match_id: Option<String>,
    /// The roll, e.g. `31`: the plays are ranked too (default: those rolled in the Match ID or
    /// XGID, else none).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub dice: Option<String>,
    /// Search depth (the server caps it).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub plies: Option<u8>,
    /// Trials of the rollout that decides the cube of a back game at 2 plies or more (default
    /// 324, at most 11664; 0: the search decides every cube).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cube_rollouts: Option<u64>,
}

/// `POST /api/backgammon/evaluate`: probabilities, equity and cube decision of the player on
/// roll before the roll, and the ranked plays when dice are given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvaluateReport {
    /// Position ID.
    pub position: String,
    /// `x` or `o` (gnubg's names; `x` without a Match ID).
    pub side_to_move: String,
    /// Search depth.
    pub plies: u8,
    /// Cubeless `[win, win gammon, win backgammon, lose gammon, lose backgammon]` of the
    /// player on roll, before the roll (rounded to 6 decimals).
    pub probabilities: [f64; 5],
    /// Cubeless equity of the player on roll (rounded to 6 decimals).
    pub equity: f64,
    /// The cube decision before the roll.
    pub cube: CubeReport,
    /// The match context, with a Match ID or XGID.
    #[serde(rename = "match", skip_serializing_if = "Option::is_none", default)]
    pub match_state: Option<MatchReport>,
    /// The roll whose plays are ranked, null before the roll.
    pub dice: Option<String>,
    /// With dice: every legal play, best first (empty when none is legal).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub plays: Option<Vec<RankedPlayReport>>,
}

/// `GET /health`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthReport {
    /// Always `ok` while the server answers.
    pub status: String,
    /// Searches running now.
    pub searches: usize,
    /// Searches allowed at once (more are answered 503 with `Retry-After`).
    pub max_searches: usize,
}

/// `GET /version`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionReport {
    /// `tabula`.
    pub name: String,
    pub version: String,
    /// The games served.
    pub games: Vec<String>,
    /// What one request may spend.
    pub limits: LimitsReport,
}

/// The server's limits, as `GET /version` states them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitsReport {
    pub max_time_ms: u64,
    pub max_nodes: Option<u64>,
    pub default_time_ms: u64,
    pub max_searches: usize,
    pub table_mib: u64,
    pub max_body_bytes: usize,
    pub max_plies: u8,
    /// The most trials of a back game's cube rollout an evaluate may ask (0: none).
    pub max_cube_rollouts: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_refuse_unknown_fields_and_default_the_rest() {
        let r: SearchRequest = serde_json::from_str(r#"{"budget":{"nodes":5}}"#).unwrap();
        assert_eq!(r.budget.nodes, Some(5));
        assert_eq!(r.position, None);
        assert!(serde_json::from_str::<SearchRequest>(r#"{"postion":"x"}"#).is_err());
        assert!(serde_json::from_str::<Budget>(r#"{"time":1}"#).is_err());
    }
}
