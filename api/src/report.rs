//! The JSON reports of every command, as serde structs. One vocabulary across games:
//!
//! | field | meaning |
//! |---|---|
//! | `game` | `bilitaire`, `pylos` or `backgammon` |
//! | `position` | the position string the report is about (the game's own notation) |
//! | `side_to_move` | who moves: `slider`/`ball` (Bi-litaire), `white`/`black` (Pylos), `x`/`o` (backgammon, gnubg's names) |
//! | `value` | the game's payoff from the report's point of view (balls left; for Pylos, see `result`) |
//! | `result` | `win`/`loss`/`draw` for the side to move, where the game is won or lost |
//! | `plies` | distance to the end under best play, with `result` |
//! | `exact` | the value is proven (no heuristic leaf below it) |
//! | `stopped` | a limit or an interrupt ended the search before it finished |
//! | `lower`, `upper` | proven bounds on `value` when `stopped` (absent when nothing was proven) |
//! | `best` | the best move found, in the game's notation |
//! | `pv` | the principal variation, moves in the game's notation |
//! | `nodes` | positions searched |
//! | `time_ms` | wall time of the search itself, in milliseconds |
//! | `moves` | a list of [`MoveEntry`]: each move with the position it leads to |
//!
//! Games add their own fields (an announcement, an equity) but never use these names for
//! anything else, with one exception kept on purpose: `backgammon hint --json` lists its
//! ranked plays under `moves` (each with its equity), as it did before these reports were
//! typed, because programs already read that output and issue 13 froze it byte for byte.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One legal move and the position it leads to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveEntry {
    /// The move in the game's notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// The position after it, in the game's position notation.
    pub position: String,
}

/// `moves --json`: the same shape in every game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovesReport {
    /// `bilitaire`, `pylos` or `backgammon`.
    pub game: String,
    /// The position whose moves these are.
    pub position: String,
    /// Who moves (see the module's table).
    pub side_to_move: String,
    /// Every legal move, in the engine's order.
    pub moves: Vec<MoveEntry>,
}

/// `show --json` of Bi-litaire and Pylos, and `play --moves … --json` (the position reached):
/// what every game says about a position, then the game's own fields (`D`, written inline:
/// [`crate::bilitaire::Details`], [`crate::pylos::Details`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionReport<D> {
    /// `bilitaire` or `pylos`.
    pub game: String,
    /// The position, in the game's notation.
    pub position: String,
    /// Who moves (see the module's table).
    pub side_to_move: String,
    /// The game (in Bi-litaire, the round) is over.
    pub over: bool,
    /// The game's own fields, written at the same level as the ones above.
    #[serde(flatten)]
    pub details: D,
}

/// `perft --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerftReport {
    /// Plies counted.
    pub depth: u32,
    /// Move sequences of `depth` plies (leaf nodes).
    pub nodes: u64,
    /// With `--divide`: the count below each first move.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub divide: Option<BTreeMap<String, u64>>,
    /// Only when the count was interrupted (Ctrl-C): how far it got. `nodes` and `divide`
    /// then cover the first moves counted to the end, and no others.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub interrupted: Option<PerftPartial>,
}

/// How much of an interrupted perft was counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerftPartial {
    /// First moves whose counts are finished (and in `nodes`).
    pub first_moves_done: usize,
    /// Legal first moves.
    pub first_moves: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_use_the_shared_field_names() {
        let r = MovesReport {
            game: "pylos".into(),
            position: "p".into(),
            side_to_move: "white".into(),
            moves: vec![MoveEntry {
                mv: "0a1".into(),
                position: "q".into(),
            }],
        };
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(
            text,
            r#"{"game":"pylos","position":"p","side_to_move":"white","moves":[{"move":"0a1","position":"q"}]}"#
        );
        assert_eq!(serde_json::from_str::<MovesReport>(&text).unwrap(), r);
    }

    #[test]
    fn perft_leaves_out_divide_unless_asked() {
        let r = PerftReport {
            depth: 5,
            nodes: 139_872,
            divide: None,
            interrupted: None,
        };
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"depth":5,"nodes":139872}"#
        );
    }
}
