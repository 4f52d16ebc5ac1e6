//! `perft` and `moves` as every game shares them: progress of a long perft on stderr with the
//! JSON on stdout unchanged, `perft --json` as before, and `moves --json` in the shared
//! `MovesReport` shape (each move with the position it leads to).

mod common;

use common::{command, stdout, tabula};
use std::collections::BTreeMap;
use tabula_api::report::{MovesReport, PerftReport};

/// A Bi-litaire position with the slider to move.
const BILITAIRE: &str = "--.o----/--..----/--o.oo../--o...o./--..----/--.o----/--..--.o/--.o--o. s";

#[test]
fn a_long_perft_shows_progress_per_first_move_on_stderr() {
    // Progress from the start (instead of after 2 s), so that a short perft shows it.
    let out = command()
        .env("TABULA_PERFT_PROGRESS_AFTER", "0")
        .args(["pylos", "perft", "--depth", "3", "--json"])
        .output()
        .expect("run tabula");
    assert!(out.status.success());
    assert_eq!(stdout(&out), "{\"depth\":3,\"nodes\":3360}\n");
    let err = String::from_utf8_lossy(&out.stderr);
    // Not a terminal: plain lines, no bar rewritten with carriage returns.
    assert!(!err.contains('\r'), "{err:?}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 16, "one line per first move: {err}");
    for (i, line) in lines.iter().enumerate() {
        let head = format!("perft: {}/16 first moves, {} nodes, ", i + 1, 210 * (i + 1));
        assert!(line.starts_with(&head), "{line}");
        assert!(line.ends_with(" nodes/s"), "{line}");
    }
}

/// A Bi-litaire position near the end of a round: its longest line is 13 plies.
const BILITAIRE_LATE: &str =
    "--.o----/--..----/--..oo../--....o./--..----/--.o----/--..--.o/--.o--.. s";

#[test]
fn a_perft_past_the_end_of_the_game_says_so_inside_its_first_moves() {
    // Lines inside a first move (every 4,096 positions made, every one with the progress
    // shown from the start), and a depth no line reaches named in them.
    let progress = |depth: &str| {
        let out = command()
            .env("TABULA_PERFT_PROGRESS_AFTER", "0")
            .args(["bilitaire", "perft", "--json", "--depth", depth])
            .args(["--position", BILITAIRE_LATE])
            .output()
            .expect("run tabula");
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        (stdout(&out), err)
    };
    let (json, err) = progress("14");
    assert_eq!(json, "{\"depth\":14,\"nodes\":0}\n");
    let inside: Vec<&str> = err.lines().filter(|l| l.contains("of the tree")).collect();
    assert!(inside.len() >= 10, "{err}");
    for line in &inside {
        assert!(line.starts_with("perft: "), "{line}");
        assert!(line.contains(" M positions made ("), "{line}");
        assert!(
            line.contains("; no line reaches 14 plies yet (longest "),
            "{line}"
        );
    }
    assert!(inside.last().unwrap().ends_with("(longest 13)"), "{err}");
    assert_eq!(
        err.lines()
            .filter(|l| l.contains(" first moves, 0 nodes, "))
            .count(),
        23
    );
    // At 13 plies lines reach the depth: no such note once one has.
    let (json, err) = progress("13");
    let pos = tabula_engine::bilitaire::Position::parse(BILITAIRE_LATE).expect("a position");
    let nodes = tabula_engine::perft::perft(&pos, 13);
    assert!(nodes > 0);
    assert_eq!(json, format!("{{\"depth\":13,\"nodes\":{nodes}}}\n"));
    let inside: Vec<&str> = err.lines().filter(|l| l.contains("of the tree")).collect();
    assert!(!inside.is_empty(), "{err}");
    assert!(!inside.last().unwrap().contains("no line reaches"), "{err}");
}

#[test]
fn perft_json_is_depth_and_nodes_and_divide_adds_up() {
    let out = tabula(&["bilitaire", "perft", "--depth", "5", "--json"]);
    assert_eq!(stdout(&out), "{\"depth\":5,\"nodes\":139872}\n");
    let out = tabula(&[
        "bilitaire",
        "perft",
        "--depth",
        "2",
        "--divide",
        "--json",
        "--position",
        BILITAIRE,
    ]);
    let report: PerftReport = serde_json::from_str(&stdout(&out)).expect("a PerftReport");
    let divide: BTreeMap<String, u64> = report.divide.expect("divide asked for");
    assert_eq!(divide.values().sum::<u64>(), report.nodes);
    let moves = tabula(&["bilitaire", "moves", "--position", BILITAIRE]);
    let mut names: Vec<String> = stdout(&moves).lines().map(str::to_string).collect();
    names.sort();
    assert_eq!(divide.keys().cloned().collect::<Vec<_>>(), names);
}

/// `moves --json` of `position` in `game` (with `extra` options): the shared shape, the same
/// moves as the text listing, and each entry's position the one `play --moves` reaches.
fn check_moves_report(game: &str, position: &str, side: &str, extra: &[&str]) {
    let mut args = vec![game, "moves", "--position", position];
    args.extend_from_slice(extra);
    let text = stdout(&tabula(&args));
    args.push("--json");
    let report: MovesReport = serde_json::from_str(&stdout(&tabula(&args))).expect("a MovesReport");
    assert_eq!(report.game, game);
    assert_eq!(report.position, position);
    assert_eq!(report.side_to_move, side);
    let names: Vec<&str> = report.moves.iter().map(|m| m.mv.as_str()).collect();
    assert_eq!(names, text.lines().collect::<Vec<_>>());
    assert!(!names.is_empty());
    for entry in report.moves.iter().take(8) {
        let mut play = vec![game, "play", "--position", position, "--moves", &entry.mv];
        play.extend_from_slice(extra);
        assert_eq!(
            stdout(&tabula(&play)).trim(),
            entry.position,
            "{}",
            entry.mv
        );
    }
}

#[test]
fn moves_json_has_the_same_shape_in_every_game() {
    check_moves_report("bilitaire", BILITAIRE, "slider", &[]);
    check_moves_report("bilitaire", tabula_engine::bilitaire::START, "ball", &[]);
    check_moves_report(
        "pylos",
        "..../..../b.w./.bww|.../.../...|../..|. w",
        "white",
        &[],
    );
    check_moves_report(
        "pylos",
        "bwbw/bwbw/bwbw/bwbw|.../.../...|../..|. b",
        "black",
        &["--rules", "children"],
    );
}
