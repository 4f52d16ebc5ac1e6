//! `tabula tablebase …`'s reports: building and probing the backgammon bearoff databases and
//! the Pylos tables.
//!
//! A board is six checker counts, ace point first (the player's own home board). `equity` is
//! backgammon's word for a cubeless equity, as in [`crate::backgammon`]; `time_ms` is the
//! shared field of [`crate::report`].

use serde::{Deserialize, Serialize};

/// `tablebase build --json`: the database written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildReport {
    /// `bearoff-os`, `bearoff-ts` or `race-os`.
    pub db: String,
    /// The file written.
    pub file: String,
    /// Positions in the database.
    pub positions: u64,
    /// The file's size in bytes.
    pub bytes: u64,
    /// Wall time of the build and the write, in milliseconds.
    pub time_ms: u64,
}

/// `tablebase probe bearoff-os --json`: the rolls one side needs to bear off.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OneSidedProbeReport {
    /// Always `bearoff-os`.
    pub db: String,
    /// The board probed.
    pub points: [u8; 6],
    /// Checkers on it.
    pub checkers: u64,
    /// Its pip count.
    pub pips: u64,
    /// The mean number of rolls to bear off every checker.
    pub mean_rolls: f64,
    /// The standard deviation of that number.
    pub std_dev: f64,
    /// `distribution[k]`: the probability of bearing off every checker in exactly k rolls.
    pub distribution: Vec<f64>,
    /// The mean number of rolls to bear off the first checker (0 when one is already off).
    pub first_off_mean: f64,
    /// `first_off_distribution[k]`: the probability that the first checker is off after
    /// exactly k rolls.
    pub first_off_distribution: Vec<f64>,
}

/// `tablebase probe bearoff-ts --json`: the cubeless chances of the player on roll.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TwoSidedProbeReport {
    /// Always `bearoff-ts`.
    pub db: String,
    /// The board of the player on roll.
    pub on_roll: [u8; 6],
    /// The opponent's board, from its own ace point.
    pub opponent: [u8; 6],
    /// The probability that the player on roll wins.
    pub win_probability: f64,
    /// Cubeless equity of the player on roll, `2 P(win) - 1`.
    pub equity: f64,
}

/// `tablebase probe race-os --json`: the rolls each side of a race needs, where the race
/// database covers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RaceProbeReport {
    /// Always `race-os`.
    pub db: String,
    /// The points the database covers (a side is in it when all its checkers are on its first
    /// `points` points).
    pub points: u64,
    /// Whether the position is a race (no contact): the database's values are only a race's.
    pub race: bool,
    /// The player on roll.
    pub on_roll: RaceSide,
    /// The opponent.
    pub opponent: RaceSide,
}

/// One side of [`RaceProbeReport`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RaceSide {
    /// Checker counts on points 1 to 24 (the side's own numbering), then the bar.
    pub counts: Vec<u8>,
    /// The side's pip count.
    pub pips: u64,
    /// Why the database does not hold the side (a checker beyond its points, on the bar);
    /// absent when it does, and then the figures below are given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_covered: Option<String>,
    /// The mean number of rolls to bear off every checker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_rolls: Option<f64>,
    /// `distribution[k]`: the probability of bearing off every checker in exactly k rolls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub distribution: Vec<f64>,
    /// The mean number of rolls to bear off the first checker (0 when one is already off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_off_mean: Option<f64>,
}

/// The rules a Pylos table was built for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PylosRules {
    /// The base of the board: 4 (the game) or 3 (the small board for tests).
    pub board: u32,
    /// `children`, `standard` or `mature`.
    pub rules: String,
    /// `optional` or `compulsory`.
    pub takeback: String,
}

/// A decided position in a Pylos table, with an example.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Longest {
    /// Plies to the end under best play.
    pub plies: u32,
    /// One position (the first by index) at that distance.
    pub position: String,
}

/// `tablebase build pylos --json`: the table written and what it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PylosBuildReport {
    /// Always `pylos`.
    pub db: String,
    /// The file written.
    pub file: String,
    #[serde(flatten)]
    pub rules: PylosRules,
    /// Indices of the table: positions (one per symmetry class) and holes.
    pub size: u64,
    /// Positions won, lost and drawn for the side to move.
    pub won: u64,
    pub lost: u64,
    pub drawn: u64,
    /// Indices that name no position.
    pub holes: u64,
    /// The longest forced win and the longest loss.
    pub longest_win: Option<Longest>,
    pub longest_loss: Option<Longest>,
    /// The file's size in bytes.
    pub bytes: u64,
    /// Whether the build continued from a checkpoint.
    pub resumed: bool,
    /// Wall time of this run (not of earlier runs before a resume), in milliseconds.
    pub time_ms: u64,
}

/// One move of a probed Pylos position, judged by the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PylosMoveValue {
    /// The move in Pylos notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// The position it leads to.
    pub position: String,
    /// `win`, `loss` or `draw` for the player making the move.
    pub result: String,
    /// Plies to the end after this move, counting the move itself (null for a draw).
    pub plies: Option<u32>,
}

/// `tablebase probe pylos --json` (GamesmanOne's shape): the position's value and distance,
/// and every move's, best first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PylosProbeReport {
    /// Always `pylos`.
    pub db: String,
    /// The table read.
    pub file: String,
    #[serde(flatten)]
    pub rules: PylosRules,
    pub position: String,
    /// `black` or `white`.
    pub side_to_move: String,
    /// `win`, `loss` or `draw` for the side to move.
    pub result: String,
    /// Plies to the end under best play (null for a draw).
    pub plies: Option<u32>,
    /// A best move (the fastest win, the slowest loss; null when the game is over).
    pub best: Option<String>,
    /// Every legal move, best first.
    pub moves: Vec<PylosMoveValue>,
    /// With `--census`: the positions reachable from this one, by value.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reachable: Option<Census>,
    pub time_ms: u64,
}

/// Positions (one per symmetry class) reachable from a position, by their value for the side
/// to move there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Census {
    pub positions: u64,
    pub won: u64,
    pub lost: u64,
    pub drawn: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    // The values are exact in binary, so that the text parses back to the same numbers.

    #[test]
    fn build_report_round_trips() {
        let r = BuildReport {
            db: "bearoff-ts".into(),
            file: "/tmp/bearoff-ts.tdb".into(),
            positions: 853_776,
            bytes: 1_708_000,
            time_ms: 212,
        };
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(
            text,
            r#"{"db":"bearoff-ts","file":"/tmp/bearoff-ts.tdb","positions":853776,"bytes":1708000,"time_ms":212}"#
        );
        assert_eq!(serde_json::from_str::<BuildReport>(&text).unwrap(), r);
    }

    #[test]
    fn one_sided_probe_round_trips() {
        let r = OneSidedProbeReport {
            db: "bearoff-os".into(),
            points: [0, 0, 0, 0, 0, 1],
            checkers: 1,
            pips: 6,
            mean_rolls: 1.25,
            std_dev: 0.4375,
            distribution: vec![0.0, 0.75, 0.25],
            first_off_mean: 1.25,
            first_off_distribution: vec![0.0, 0.75, 0.25],
        };
        let text = serde_json::to_string(&r).unwrap();
        assert!(
            text.starts_with(r#"{"db":"bearoff-os","points":[0,0,0,0,0,1],"checkers":1,"pips":6,"mean_rolls":1.25,"#),
            "{text}"
        );
        assert_eq!(
            serde_json::from_str::<OneSidedProbeReport>(&text).unwrap(),
            r
        );
    }

    #[test]
    fn two_sided_probe_round_trips() {
        let r = TwoSidedProbeReport {
            db: "bearoff-ts".into(),
            on_roll: [0, 0, 0, 0, 0, 2],
            opponent: [1, 0, 0, 0, 0, 0],
            win_probability: 0.75,
            equity: 0.5,
        };
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(
            text,
            r#"{"db":"bearoff-ts","on_roll":[0,0,0,0,0,2],"opponent":[1,0,0,0,0,0],"win_probability":0.75,"equity":0.5}"#
        );
        assert_eq!(
            serde_json::from_str::<TwoSidedProbeReport>(&text).unwrap(),
            r
        );
    }
}
