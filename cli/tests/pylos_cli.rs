//! The `tabula pylos` commands as a user meets them: JSON shapes, exact verdicts checked against
//! plain minimax, interactive play, and exit code 2 with one line for every kind of bad input.

mod common;

use common::{assert_bad_input, json_output, stdout, tabula_with_input};
use tabula_engine::pylos::{self, Color, Position, Rules, Variant};
use tabula_engine::Game;

fn children() -> Rules {
    Rules::new(Variant::Children, pylos::Takeback::Optional)
}

/// Level 0 filled row by row, alternating colours, then `extra` moves.
fn position_after(moves: &str) -> Position {
    let mut pos = Position::start(children());
    for m in moves.split_whitespace() {
        pos = pos.play(pos.parse_move(m).expect("legal test move"));
    }
    pos
}

const LEVEL0: &str = "0a1 0b1 0c1 0d1 0a2 0b2 0c2 0d2 0a3 0b3 0c3 0d3 0a4 0b4 0c4 0d4";

#[test]
fn solve_json_agrees_with_minimax_and_its_pv_ends_the_game() {
    for extra in ["1a1 1b1 1c1 1a2 1b2 1c2", "1a1 1b1 1c1 1a2 1b2 1c2 1a3"] {
        let pos = position_after(&format!("{LEVEL0} {extra}"));
        let text = pos.to_string();
        let v = json_output(&[
            "pylos", "solve", "--rules", "children", "-p", &text, "--json",
        ]);
        assert_eq!(v["exact"], true, "{text}: {v}");
        // Plain minimax, values from black's side: convert to the mover's.
        let mut budget = u64::MAX;
        let black = tabula_solver::minimax::minimax(&pos, &mut budget).expect("finite");
        let mover = if pos.turn() == Color::Black {
            black
        } else {
            -black
        };
        let (result, plies) = if mover > 0 {
            ("win", pylos::WIN - mover)
        } else {
            ("loss", pylos::WIN + mover)
        };
        assert_eq!(v["result"], result, "{text}: {v}");
        assert_eq!(v["plies"], plies, "{text}: {v}");
        assert_eq!(v["value"], mover, "{text}: {v}");
        // The principal variation is legal and ends the game after exactly `plies` plies.
        let pv = v["pv"].as_array().expect("pv array");
        assert_eq!(pv.len() as i32, plies, "{text}: {v}");
        let mut end = pos;
        for m in pv {
            end = end.play(end.parse_move(m.as_str().unwrap()).expect("legal pv move"));
        }
        let winner = end.winner().expect("the pv ends the game");
        assert_eq!(winner == pos.turn(), result == "win", "{text}: {v}");
        assert_eq!(v["best"], pv[0], "{text}: {v}");
        assert!(v["nodes"].as_u64().unwrap() > 0);
    }
}

#[test]
fn win_loss_solve_agrees_with_the_full_solve() {
    for extra in ["1a1 1b1", "1a1 1b1 1c1", "1a1 1b1 1c1 1a2 1b2"] {
        let text = position_after(&format!("{LEVEL0} {extra}")).to_string();
        let full = json_output(&[
            "pylos", "solve", "--rules", "children", "-p", &text, "--json",
        ]);
        let quick = json_output(&[
            "pylos",
            "solve",
            "--rules",
            "children",
            "-p",
            &text,
            "--win-loss",
            "--json",
        ]);
        assert_eq!(quick["result"], full["result"], "{text}");
        assert_eq!(quick["exact"], true);
        assert!(quick["plies"].is_null());
        if quick["result"] == "win" {
            // Its move keeps the win: the full solve of the child is a loss for the opponent.
            let mut pos = position_after(&format!("{LEVEL0} {extra}"));
            pos = pos.play(pos.parse_move(quick["best"].as_str().unwrap()).unwrap());
            let child = pos.to_string();
            let reply = json_output(&[
                "pylos", "solve", "--rules", "children", "-p", &child, "--json",
            ]);
            assert_eq!(reply["result"], "loss", "{text} then {}", quick["best"]);
        }
    }
    assert_bad_input(&["pylos", "solve", "--win-loss"], "children");
    // Stopped by a limit it says so, without a verdict (and without failing).
    let stopped = json_output(&[
        "pylos",
        "solve",
        "--rules",
        "children",
        "--win-loss",
        "--nodes",
        "1000",
        "--json",
    ]);
    assert_eq!(stopped["result"], "unknown", "{stopped}");
    assert_eq!(stopped["exact"], false, "{stopped}");
    assert_eq!(stopped["stopped"], true, "{stopped}");
}

/// `--table FILE`: a solve stopped by its node limit saves what it proved; the next run loads
/// it, gives the value of an uninterrupted solve, and searches fewer nodes than one; a damaged
/// file or one made under other rules is refused.
#[test]
fn a_stopped_solve_resumes_from_its_table_file() {
    let text = position_after(&format!("{LEVEL0} 1a1 1b1 1c1")).to_string();
    let dir = std::env::temp_dir().join(format!("tabula-pylos-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("children.tt");
    let file = file.to_str().unwrap();
    let solve = |extra: &[&str]| {
        let mut args = vec![
            "pylos", "solve", "--rules", "children", "-p", &text, "--json",
        ];
        args.extend_from_slice(extra);
        json_output(&args)
    };
    let fresh = solve(&[]);
    assert_eq!(fresh["exact"], true, "{fresh}");
    let stopped = solve(&["--nodes", "20000", "--table", file]);
    assert_eq!(stopped["stopped"], true, "{stopped}");
    assert!(std::path::Path::new(file).exists());
    let resumed = solve(&["--table", file]);
    for field in ["result", "plies", "value", "best", "exact"] {
        assert_eq!(
            resumed[field], fresh[field],
            "{field}: {resumed} vs {fresh}"
        );
    }
    let (fresh_nodes, resumed_nodes) = (fresh["nodes"].as_u64(), resumed["nodes"].as_u64());
    assert!(resumed_nodes < fresh_nodes, "{resumed} vs {fresh}");
    // Now everything is proven: a third run barely searches.
    let again = solve(&["--table", file]);
    assert_eq!(again["value"], fresh["value"]);
    assert!(
        again["nodes"].as_u64().unwrap() * 100 < fresh_nodes.unwrap(),
        "{again}"
    );

    let bytes = std::fs::read(file).unwrap();
    let args = |file: &str, rules: &'static str| {
        [
            "pylos", "solve", "--rules", rules, "-p", &text, "--table", file,
        ]
        .map(String::from)
    };
    assert_bad_input(
        &args(file, "standard").each_ref().map(String::as_str),
        "made for `game=pylos;rules=children;takeback=optional;keying=d4`",
    );
    let damaged = dir.join("damaged.tt");
    let mut flipped = bytes.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    std::fs::write(&damaged, &flipped).unwrap();
    let damaged = damaged.to_str().unwrap();
    assert_bad_input(
        &args(damaged, "children").each_ref().map(String::as_str),
        "checksum",
    );
    std::fs::write(damaged, &bytes[..bytes.len() - 10]).unwrap();
    assert_bad_input(
        &args(damaged, "children").each_ref().map(String::as_str),
        "truncated",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn analyze_reports_progress_and_the_same_fields() {
    let text = position_after(&format!("{LEVEL0} 1a1 1b1 1c1 1a2")).to_string();
    let v = json_output(&[
        "pylos", "analyze", "--rules", "children", "-p", &text, "--time", "5", "--json",
    ]);
    for field in ["result", "plies", "best", "pv", "exact", "nodes", "depth"] {
        assert!(v.get(field).is_some(), "missing {field}: {v}");
    }
    // Five seconds is plenty for this position: the analysis proves it.
    assert_eq!(v["exact"], true, "{v}");
}

#[test]
fn interactive_game_runs_to_the_end() {
    let text = position_after(&format!("{LEVEL0} 1a1 1b1")).to_string();
    let mut input = String::from("0z9\nmoves\n");
    input.push_str(&"auto\n".repeat(40));
    let out = tabula_with_input(
        &[
            "pylos", "play", "--rules", "children", "-p", &text, "--color", "white", "--time",
            "0.05",
        ],
        &input,
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("engine plays"), "{text}");
    assert!(text.contains("0z9"), "the bad move is answered: {text}");
    assert!(text.contains("game over:"), "{text}");
}

#[test]
fn show_and_play_json_are_the_shared_position_report() {
    use tabula_api::pylos::{Reserves, ShowReport};
    let start: ShowReport = common::report(&["pylos", "show", "--json"]);
    assert_eq!(start.game, "pylos");
    assert_eq!(
        start.position,
        Position::start(Rules::default()).to_string()
    );
    assert_eq!(start.side_to_move, "black");
    assert!(!start.over);
    assert_eq!(start.details.rules, "standard");
    assert_eq!(start.details.takeback, "optional");
    assert_eq!(
        start.details.reserve,
        Reserves {
            black: 15,
            white: 15
        }
    );
    assert_eq!(start.details.legal_moves, 16);
    assert_eq!(start.details.winner, None);
    // `play --json` reports the position reached as `show --json` does.
    let played: ShowReport = common::report(&["pylos", "play", "--moves", "0a1 0b2", "--json"]);
    assert_eq!(played.side_to_move, "black");
    assert_eq!(played.details.reserve.white, 14);
    let shown: ShowReport = common::report(&["pylos", "show", "--json", "-p", &played.position]);
    assert_eq!(played, shown);
    // A finished game: over, and the winner named.
    let over = position_after(&format!(
        "{LEVEL0} 1a1 1b1 1c1 1a2 1b2 1c2 1a3 1b3 1c3 2a1 2b1 2a2 2b2 3a1"
    ));
    let text = over.to_string();
    let end: ShowReport = common::report(&[
        "pylos", "show", "--json", "--rules", "children", "-p", &text,
    ]);
    assert!(end.over);
    assert_eq!(end.details.rules, "children");
    assert_eq!(end.details.legal_moves, 0);
    assert_eq!(end.details.winner.as_deref(), over.winner().map(color_name));
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

#[test]
fn bad_input_exits_with_code_2_and_one_line() {
    assert_bad_input(
        &["pylos", "show", "-p", "..../..../..../.... b"],
        "invalid position",
    );
    assert_bad_input(
        &[
            "pylos",
            "show",
            "-p",
            "..../..../..../...x|.../.../...|../..|. b",
        ],
        "invalid position",
    );
    assert_bad_input(&["pylos", "play", "--moves", "0a1 0a1"], "illegal move #2");
    assert_bad_input(&["pylos", "moves", "--rules", "chess"], "chess");
    assert_bad_input(&["pylos", "solve", "--time", "soon"], "seconds");
    assert_bad_input(&["pylos", "perft", "--depth", "x"], "depth");
    assert_bad_input(&["pylos", "play", "--level", "9"], "level");
    let over = position_after(&format!(
        "{LEVEL0} 1a1 1b1 1c1 1a2 1b2 1c2 1a3 1b3 1c3 2a1 2b1 2a2 2b2 3a1"
    ));
    assert!(over.is_over());
    assert_bad_input(
        &[
            "pylos",
            "play",
            "--rules",
            "children",
            "-p",
            &over.to_string(),
        ],
        "game is over",
    );
}

/// Defect 9: `pylos solve` (standard rules from the start) deepened forever. Without a limit
/// it now refuses at once, saying how to bound it; with one it reports `unknown`, stopped.
#[test]
fn an_unbounded_solve_from_the_start_refuses_and_a_bounded_one_stops() {
    let out = common::tabula_within(&["pylos", "solve"], 60).expect("refused at once, not a hang");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("--time") && err.contains("--nodes"), "{err}");
    let v = json_output(&["pylos", "solve", "--nodes", "5000", "--json"]);
    assert_eq!(v["result"], "unknown", "{v}");
    assert_eq!(v["side_to_move"], "black", "{v}");
}

/// Defect 2 for Pylos: the `--table` path is checked before the search.
#[test]
fn a_table_file_in_a_missing_directory_is_refused_before_searching() {
    assert_bad_input(
        &[
            "pylos",
            "solve",
            "--rules",
            "children",
            "--position",
            "bwbw/bwbw/wbwb/wbwb|bw./w../...|../..|. b",
            "--table",
            "/nonexistent/dir/t.tt",
        ],
        "the directory /nonexistent/dir does not exist",
    );
}

/// `--hash` has one default and range in every game.
#[test]
fn search_options_are_validated_as_in_bilitaire() {
    for cmd in ["solve", "analyze"] {
        assert_bad_input(&["pylos", cmd, "--threads", "257"], "--threads");
        assert_bad_input(&["pylos", cmd, "--hash", "65537"], "--hash");
        assert_bad_input(&["pylos", cmd, "--nodes", "0"], "--nodes");
    }
}

/// Black's payoff with distances by memoised minimax (children's rules are acyclic).
fn memo_minimax(pos: &Position, memo: &mut std::collections::HashMap<Position, i32>) -> i32 {
    use tabula_engine::Scored;
    if let Some(v) = pos.terminal_value() {
        return v;
    }
    if let Some(&v) = memo.get(pos) {
        return v;
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let values = moves
        .iter()
        .map(|&m| pylos::backed_up(memo_minimax(&pos.play(m), memo)));
    let v = if pos.turn() == Color::Black {
        values.max()
    } else {
        values.min()
    }
    .expect("a position that is not over has a move");
    memo.insert(*pos, v);
    v
}

#[test]
fn the_small_board_on_every_command() {
    // Solved from its start, exactly as memoised minimax says (black's payoff, black to move).
    let v = json_output(&[
        "pylos", "solve", "--board", "3", "--rules", "children", "--json",
    ]);
    let start = Position::start(children().on(pylos::Board::Three));
    let black = memo_minimax(&start, &mut Default::default());
    assert_eq!(v["exact"], true, "{v}");
    assert_eq!(v["value"], black, "{v}");
    assert_eq!(v["position"], ".../.../...|../..|. b");
    // Standard rules repeat positions; the deepening still proves the start, and its line is
    // legal and ends the game in the plies it says.
    let v = json_output(&["pylos", "solve", "--board", "3", "--json"]);
    assert_eq!(v["exact"], true, "{v}");
    let plies = v["plies"].as_u64().expect("decided") as usize;
    let pv = v["pv"].as_array().expect("pv");
    assert_eq!(pv.len(), plies, "{v}");
    let mut end = start.with_rules(Rules::default().on(pylos::Board::Three));
    for m in pv {
        end = end.play(end.parse_move(m.as_str().unwrap()).expect("legal pv move"));
    }
    assert!(end.is_over(), "{end}");
    // perft (the counts of engine/tests/data/pylos3-*.perft, confirmed by the Python model).
    let v = json_output(&["pylos", "perft", "--board", "3", "--depth", "3", "--json"]);
    assert_eq!(v["nodes"], 504, "{v}");
    let v = json_output(&["pylos", "show", "--board", "3", "--json"]);
    assert_eq!(v["board"], 3, "{v}");
    assert_eq!(v["reserve"]["black"], 7, "{v}");
    assert_eq!(v["legal_moves"], 9, "{v}");
    let v = json_output(&["pylos", "show", "--json"]);
    assert!(
        v.get("board").is_none(),
        "the full board's report is unchanged: {v}"
    );
    let text = stdout(&common::tabula(&[
        "pylos", "play", "--board", "3", "--moves", "0a1 0b2",
    ]));
    assert_eq!(text.trim(), ".../.w./b..|../..|. b");
    let v = json_output(&["pylos", "moves", "--board", "3", "--json"]);
    assert_eq!(v["moves"].as_array().map(Vec::len), Some(9), "{v}");
    let v = json_output(&[
        "pylos", "analyze", "--board", "3", "--rules", "mature", "--nodes", "2000", "--json",
    ]);
    assert_eq!(v["position"], ".../.../...|../..|. b", "{v}");
    // A position of the other board, and a cell off the small board, are bad input.
    assert_bad_input(
        &["pylos", "show", "--board", "3", "-p", pylos::START],
        "use --board 4",
    );
    assert_bad_input(
        &["pylos", "show", "-p", ".../.../...|../..|. b"],
        "use --board 3",
    );
    assert_bad_input(
        &["pylos", "play", "--board", "3", "--moves", "0d1"],
        "not on the 3x3 board",
    );
    assert_bad_input(&["pylos", "perft", "--board", "5"], "5");
}
