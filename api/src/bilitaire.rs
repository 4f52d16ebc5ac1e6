//! Bi-litaire's reports (see [`crate::report`] for the shared field names).

use serde::{Deserialize, Serialize};

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
}

#[cfg(test)]
mod tests {
    use super::*;

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
        };
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(
            text,
            r#"{"position":"p s","side_to_move":"slider","value":null,"exact":false,"stopped":true,"lower":1,"upper":40,"best":null,"pv":[],"nodes":7,"time_ms":3}"#
        );
        assert_eq!(serde_json::from_str::<SolveReport>(&text).unwrap(), r);
    }
}
