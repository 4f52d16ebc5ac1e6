//! Pylos's reports (see [`crate::report`] for the shared field names).

use crate::report::PositionReport;
use serde::{Deserialize, Serialize};

/// The balls each colour has left to place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reserves {
    pub black: u32,
    pub white: u32,
}

/// Pylos's own fields of `show --json` and `play --moves … --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Details {
    /// The rule set: `children`, `standard` or `mature`.
    pub rules: String,
    /// The take-back option: `optional` or `compulsory`.
    pub takeback: String,
    /// The width of the pyramid's base: 4 (the game), or 3 for the small board (written only
    /// then, so the full board's reports are unchanged).
    #[serde(skip_serializing_if = "is_full_board", default = "full_board")]
    pub board: u8,
    pub reserve: Reserves,
    /// How many legal moves the side to move has (the moves themselves: `moves --json`).
    pub legal_moves: u64,
    /// `black` or `white` when the game is over (the side to move has lost), else null.
    pub winner: Option<String>,
}

fn is_full_board(board: &u8) -> bool {
    *board == 4
}

fn full_board() -> u8 {
    4
}

/// `pylos show --json`, and `pylos play --moves … --json` for the position reached.
pub type ShowReport = PositionReport<Details>;

/// `pylos solve --json` and `pylos analyze --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SolveReport {
    pub position: String,
    /// `black` or `white`.
    pub side_to_move: String,
    /// `win`, `loss`, `draw` (proven) or `unknown`, for the side to move.
    pub result: String,
    /// Plies to the end under best play, for a proven win or loss (null under `--win-loss`).
    pub plies: Option<u32>,
    /// The payoff for the side to move (positive: it wins); `±(1000 - plies)` when decided,
    /// ±1 under `--win-loss`, an estimate unless `exact`; null when nothing is known.
    pub value: Option<i32>,
    pub exact: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub stopped: bool,
    /// Proven bounds on `value`, when stopped.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub lower: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub upper: Option<i32>,
    pub best: Option<String>,
    pub pv: Vec<String>,
    /// The deepest finished iteration (plies), for the deepening searches.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub depth: Option<u32>,
    /// The tablebase file the answer was read from (no search was run), when one was.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tablebase: Option<String>,
    pub nodes: u64,
    pub time_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_writes_the_shared_fields_then_the_game_s_own() {
        let r = ShowReport {
            game: "pylos".into(),
            position: "p".into(),
            side_to_move: "white".into(),
            over: true,
            details: Details {
                rules: "standard".into(),
                takeback: "optional".into(),
                board: 4,
                reserve: Reserves { black: 0, white: 2 },
                legal_moves: 0,
                winner: Some("black".into()),
            },
        };
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(
            text,
            r#"{"game":"pylos","position":"p","side_to_move":"white","over":true,"rules":"standard","takeback":"optional","reserve":{"black":0,"white":2},"legal_moves":0,"winner":"black"}"#
        );
        assert_eq!(serde_json::from_str::<ShowReport>(&text).unwrap(), r);
        let playing = ShowReport {
            over: false,
            details: Details {
                winner: None,
                legal_moves: 30,
                ..r.details.clone()
            },
            ..r
        };
        let text = serde_json::to_string(&playing).unwrap();
        assert!(
            text.ends_with(r#""legal_moves":30,"winner":null}"#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<ShowReport>(&text).unwrap(), playing);
        let small = ShowReport {
            details: Details {
                board: 3,
                ..playing.details.clone()
            },
            ..playing
        };
        let text = serde_json::to_string(&small).unwrap();
        assert!(
            text.contains(r#""takeback":"optional","board":3,"reserve""#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<ShowReport>(&text).unwrap(), small);
    }
}
