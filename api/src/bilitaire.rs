//! Bi-litaire's reports (see [`crate::report`] for the shared field names).

use crate::report::PositionReport;
use serde::{Deserialize, Serialize};

/// Bi-litaire's own fields of `show --json` and `play --moves … --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Details {
    /// The side field of the position string, which says what the side to move must do: `r`
    /// (the ball player's opening removal), `s` (the slider), `b` (the ball player, one simple
    /// jump) or `bN` (the ball player, a chain of exactly N jumps).
    pub side_code: String,
    /// Balls on the board.
    pub balls: u32,
    /// Tiles on the board.
    pub tiles: u32,
    /// The longest chain of jumps one ball could make now.
    pub longest_chain: u32,
    /// The board's ranks as in the position string, rank 8 first.
    pub rows: Vec<String>,
}

/// `bilitaire show --json`, and `bilitaire play --moves … --json` for the position reached.
pub type ShowReport = PositionReport<Details>;

/// What one slider option (action × announcement) is worth: `solve --options`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OptionValue {
    /// The move in the game's notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// Balls left after it under best play, where proven within the limits.
    pub value: Option<i32>,
    /// When not proven: the most balls it can leave.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub at_most: Option<i32>,
}

/// `bilitaire solve --json` and `bilitaire analyze --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SolveReport {
    pub position: String,
    /// `slider` or `ball`.
    pub side_to_move: String,
    /// Balls left under best play (an estimate unless `exact`); null when stopped before any.
    pub value: Option<i32>,
    pub exact: bool,
    /// A limit or an interrupt ended the search before it had an exact value.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub stopped: bool,
    /// Proven bounds on the balls left, when stopped (absent when nothing was proven).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub lower: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub upper: Option<i32>,
    pub best: Option<String>,
    pub pv: Vec<String>,
    /// The depth of the analysis (plies), for `analyze`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub depth: Option<u32>,
    /// With `--options`: every slider option with its value.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub options: Option<Vec<OptionValue>>,
    pub nodes: u64,
    /// The search itself (not the options view, not allocating the table).
    pub time_ms: u64,
    /// With `solve --at-least X --verify`: the independent check of the proven bound.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub check: Option<ProofCheckReport>,
}

/// The independent check of a proven bound (`tabula_solver::proof`): the winning side's
/// strategy, move by move as the proof found it, against every move of the other side, by the
/// rules alone, to the end of every line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProofCheckReport {
    /// `at least X` or `below X`: the bound checked.
    pub bound: String,
    /// False when the proof tree had more positions than the check takes (`positions`), or
    /// when the limits stopped the check (`stopped`): the bound is still proven by the search,
    /// but not checked.
    pub complete: bool,
    /// True when `--time` or `--nodes` stopped the searches that complete the strategy before
    /// the check finished (`strategy_moves` then counts the moves followed before the stop).
    pub stopped: bool,
    /// Distinct positions of the proof tree (transpositions merged); the limit when not
    /// `complete`.
    pub positions: u64,
    /// Positions where the strategy's move was followed.
    pub strategy_moves: u64,
    /// Distinct end positions reached, all within the bound.
    pub terminals: u64,
    /// The longest line, in plies.
    pub longest_line: u32,
    pub time_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_writes_the_shared_fields_then_the_game_s_own() {
        let r = ShowReport {
            game: "bilitaire".into(),
            position: "oo/.. b2".into(),
            side_to_move: "ball".into(),
            over: false,
            details: Details {
                side_code: "b2".into(),
                balls: 2,
                tiles: 1,
                longest_chain: 0,
                rows: vec!["oo".into(), "..".into()],
            },
        };
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(
            text,
            r#"{"game":"bilitaire","position":"oo/.. b2","side_to_move":"ball","over":false,"side_code":"b2","balls":2,"tiles":1,"longest_chain":0,"rows":["oo",".."]}"#
        );
        assert_eq!(serde_json::from_str::<ShowReport>(&text).unwrap(), r);
    }

    #[test]
    fn a_stopped_solve_keeps_value_null_and_gives_bounds() {
        let r = SolveReport {
            position: "p s".into(),
            side_to_move: "slider".into(),
            value: None,
            exact: false,
            stopped: true,
            lower: Some(1),
            upper: Some(40),
            best: None,
            pv: Vec::new(),
            depth: None,
            options: None,
            nodes: 7,
            time_ms: 3,
            check: None,
        };
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(
            text,
            r#"{"position":"p s","side_to_move":"slider","value":null,"exact":false,"stopped":true,"lower":1,"upper":40,"best":null,"pv":[],"nodes":7,"time_ms":3}"#
        );
        assert_eq!(serde_json::from_str::<SolveReport>(&text).unwrap(), r);
    }
}
