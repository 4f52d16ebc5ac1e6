//! The `tabula bilitaire` commands as a user meets them: outputs, and exit code 2 with a single
//! line on stderr for every kind of bad input.

mod common;

use common::{assert_bad_input, signalled, stdout, tabula, tabula_with_input};

const START: &str = "--oooo--/--oooo--/oooooooo/oooooooo/oooooooo/oooooooo/--oooo--/--oooo-- r";

#[test]
fn perft_json_reports_depth_and_nodes() {
    let out = tabula(&["bilitaire", "perft", "--depth", "3", "--json"]);
    assert!(out.status.success());
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value, serde_json::json!({"depth": 3, "nodes": 1984}));
}

/// `--threads` counts the same; Ctrl-C stops a long perft with the first moves it finished,
/// says it was interrupted, and exits with 130.
#[test]
fn perft_on_threads_and_stopped_by_ctrl_c() {
    let run = |threads: &str| {
        let out = tabula(&[
            "bilitaire",
            "perft",
            "--depth",
            "4",
            "--divide",
            "--json",
            "--threads",
            threads,
        ]);
        assert!(out.status.success());
        stdout(&out)
    };
    assert_eq!(run("1"), run("2"));
    let v: serde_json::Value = serde_json::from_str(&run("3")).unwrap();
    assert!(v.get("interrupted").is_none(), "{v}");

    let out = interrupted(
        &[
            "bilitaire",
            "perft",
            "--depth",
            "10",
            "--divide",
            "--json",
            "--threads",
            "2",
        ],
        &[],
        || true,
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    let divide = v["divide"].as_object().expect("the first moves counted");
    let sum: u64 = divide.values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(v["nodes"].as_u64(), Some(sum), "{v}");
    assert_eq!(v["interrupted"]["first_moves"], 48, "{v}");
    let done = v["interrupted"]["first_moves_done"].as_u64().unwrap();
    assert!(done < 48 && done == divide.len() as u64, "{v}");
}

/// A reader that stops early (`tabula … | head`) ends the output quietly: no panic message.
#[test]
fn closed_stdout_is_not_a_panic() {
    use std::process::Stdio;
    let mut child = common::command()
        .args(["bilitaire", "moves", "--position", START])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn moves_json_lists_every_move() {
    let out = tabula(&["bilitaire", "moves", "--position", START, "--json"]);
    let report: tabula_api::report::MovesReport = serde_json::from_str(&stdout(&out)).unwrap();
    let moves: Vec<String> = report.moves.into_iter().map(|m| m.mv).collect();
    assert_eq!(moves.len(), 48);
    assert!(moves.contains(&"xd4".to_string()));
}

#[test]
fn play_applies_moves_in_order() {
    let out = tabula(&["bilitaire", "play", "--moves", "xd4 B1-A1 d6-d4"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout(&out).trim(), expected_after_play());
}

/// Computed independently of the CLI: the same moves through the engine.
fn expected_after_play() -> String {
    use tabula_engine::bilitaire::Position;
    let mut pos = Position::start();
    for m in ["xd4", "B1-A1", "d6-d4"] {
        pos = pos.play(pos.parse_move(m).unwrap());
    }
    pos.to_string()
}

#[test]
fn show_prints_coordinates() {
    let out = tabula(&["bilitaire", "show"]);
    let text = stdout(&out);
    assert!(text.contains("a b   c d   e f   g h"));
    assert!(text.contains("48 balls, 12 tiles"));
}

#[test]
fn show_and_play_json_are_the_shared_position_report() {
    use tabula_api::bilitaire::ShowReport;
    let start: ShowReport = common::report(&["bilitaire", "show", "--json"]);
    assert_eq!(start.game, "bilitaire");
    assert_eq!(start.position, START);
    assert_eq!(start.side_to_move, "ball");
    assert!(!start.over);
    assert_eq!(start.details.side_code, "r");
    assert_eq!((start.details.balls, start.details.tiles), (48, 12));
    assert_eq!(start.details.rows.len(), 8);
    assert_eq!(start.details.rows.join("/") + " r", START);
    // `play --json` reports the position reached as `show --json` does.
    let played: ShowReport =
        common::report(&["bilitaire", "play", "--moves", "xd4 B1-A1 d6-d4", "--json"]);
    assert_eq!(played.position, expected_after_play());
    let shown: ShowReport = common::report(&[
        "bilitaire",
        "show",
        "--json",
        "--position",
        &played.position,
    ]);
    assert_eq!(played, shown);
    assert_eq!(shown.details.balls, 46);
}

#[test]
fn bad_input_exits_with_code_2_and_one_line() {
    assert_bad_input(
        &["bilitaire", "show", "--position", "oooo r"],
        "invalid position",
    );
    assert_bad_input(
        &[
            "bilitaire",
            "perft",
            "--position",
            &START.replace(" r", " b7"),
            "--depth",
            "1",
        ],
        "announcement b7 is impossible",
    );
    assert_bad_input(
        &["bilitaire", "play", "--moves", "xd4 d6-d4"],
        "illegal move #2",
    );
    assert_bad_input(&["bilitaire", "play", "--moves", "xz9"], "illegal move #1");
    assert_bad_input(&["bilitaire", "perft", "--depth", "many"], "invalid value");
    assert_bad_input(&["bilitaire", "perft"], "--depth");
    assert_bad_input(&["bilitaire", "frobnicate"], "unrecognized subcommand");
    assert_bad_input(&["bilitaire", "show", "--rules", "chaos"], "invalid value");
    // Too long for a Duration: once a panic, now a clean error.
    assert_bad_input(
        &["bilitaire", "analyze", "--time", "1e30"],
        "positive number of seconds",
    );
    assert_bad_input(
        &["bilitaire", "play", "--time", "nan"],
        "positive number of seconds",
    );
}

#[test]
fn interactive_match_plays_two_rounds_and_scores_them() {
    let position = "--.o----/--..----/--o.oo../--o...o./--..----/--.o----/--..--.o/--.o--o. s";
    // A bad move is answered and the prompt comes back; then the engine plays for us.
    let mut input = String::from("zz9\nmoves\n");
    input.push_str(&"auto\n".repeat(60));
    let out = tabula_with_input(
        &[
            "bilitaire",
            "play",
            "--position",
            position,
            "--time",
            "0.05",
        ],
        &input,
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("move \"zz9\""), "{text}");
    assert!(
        text.contains("round 2: you are the slider player"),
        "{text}"
    );
    assert_eq!(text.matches("round over").count(), 2, "{text}");
    assert!(text.contains("match result"), "{text}");
}

/// A 27-ball position whose solve takes minutes, far longer than the tests wait.
const LONG_SOLVE: &str =
    "..oo..--/.ooo.o--/o.oo--../o...--../----.ooo/----..oo/ooooo.../ooooo.oo s";

/// `bilitaire solve` of [`LONG_SOLVE`] with `extra` arguments and `env`, stopped by SIGINT
/// once 1.5 s have passed and `ready()` holds (polled for up to a minute); checks it exited
/// with code 130.
fn interrupted_long_solve(
    extra: &[&str],
    env: &[(&str, &str)],
    ready: impl Fn() -> bool,
) -> std::process::Output {
    let mut args = vec!["bilitaire", "solve", "--position", LONG_SOLVE, "--json"];
    args.extend_from_slice(extra);
    interrupted(&args, env, ready)
}

/// `tabula ARGS` with `env`, stopped by SIGINT once 1.5 s have passed and `ready()` holds
/// (polled for up to a minute); checks it exited with code 130.
fn interrupted(
    args: &[&str],
    env: &[(&str, &str)],
    ready: impl Fn() -> bool,
) -> std::process::Output {
    signalled("-INT", args, env, ready)
}

#[test]
fn ctrl_c_stops_a_solve_and_reports_what_was_proven() {
    let out = interrupted_long_solve(&[], &[], || true);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    assert_eq!(v["stopped"], true, "{v}");
    assert_eq!(v["exact"], false, "{v}");
    let (lower, upper) = (v["lower"].as_i64().unwrap(), v["upper"].as_i64().unwrap());
    assert!(1 <= lower && lower <= upper && upper <= 27, "{v}");
}

/// A scratch directory of this process for a test's `--table` file, and the file's path in it.
fn table_file(name: &str) -> (std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("tabula-bilitaire-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("standard.tt").to_str().unwrap().to_string();
    (dir, file)
}

/// SIGTERM (a `timeout`, a service stopped) stops a solve as Ctrl-C does: the bounds proven so
/// far are reported and the `--table` file saved (it used to kill the process, losing both).
#[test]
fn sigterm_stops_a_solve_and_saves_its_table() {
    let (dir, file) = table_file("term");
    let file = file.as_str();
    let mut args = vec!["bilitaire", "solve", "--position", LONG_SOLVE, "--json"];
    args.extend_from_slice(&["--table", file]);
    let out = signalled("-TERM", &args, &[], || true);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    assert_eq!(v["stopped"], true, "{v}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("proven positions saved to"), "{stderr}");
    assert!(std::path::Path::new(file).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--table FILE`: a long solve saves what it has proven while it runs and again on Ctrl-C, and
/// a later solve (of any position under the same rules) starts from it.
#[test]
fn a_solve_keeps_its_proven_positions_in_a_table_file() {
    let (dir, file) = table_file("table");
    let file = file.as_str();
    // Stopped only after a checkpoint has written the file (slow machines start slowly).
    let out = interrupted_long_solve(
        &["--table", file],
        &[("TABULA_TABLE_SAVE_EVERY", "0.4")],
        || std::path::Path::new(file).exists(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    // At least one checkpoint while it ran, and the save after the stop.
    let saves = stderr.matches("proven positions saved to").count();
    assert!(saves >= 2, "{stderr}");
    assert!(std::path::Path::new(file).exists());

    let short = "--..o.--/--....--/......../..oo..../--..o.oo/--ooo.oo/oooooo--/oooooo-- s";
    let solve = || {
        let out = common::tabula(&[
            "bilitaire",
            "solve",
            "--position",
            short,
            "--json",
            "--table",
            file,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(stderr.contains("table: resuming with "), "{stderr}");
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
        assert_eq!(v["value"], 18, "{v}");
        v["nodes"].as_u64().unwrap()
    };
    let first = solve();
    let second = solve();
    // The second solve reads its tests' answers from the file: a few dozen nodes against a
    // few thousand (2,444 and 29 at stop 32).
    assert!(second * 20 < first, "{second} nodes after {first}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_long_solve_reports_progress_on_stderr() {
    // A 23-ball position of the jumper suite (value 17, 325,087 nodes: a few tenths of a
    // second), with progress lines every 20 ms instead of every 10 s.
    let position = "--oooo--/--....--/..o.----/.ooo----/o..o...o/o.oo.ooo/..oo.o--/.o..oo-- s";
    let out = common::command()
        .args(["bilitaire", "solve", "--position", position, "--json"])
        .env("TABULA_PROGRESS_EVERY", "0.02")
        .output()
        .expect("run tabula");
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    assert_eq!(v["value"], 17, "{v}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(!lines.is_empty(), "no progress line");
    for line in lines {
        assert!(
            line.starts_with("solving: ") && line.contains(" nodes, ") && line.contains("nodes/s"),
            "{line}"
        );
    }
}

#[test]
fn solve_lists_what_every_slider_option_is_worth() {
    use tabula_engine::bilitaire::Position;
    use tabula_engine::Game;
    // Small enough for plain minimax on every option.
    let text = "--.o----/--..----/--..oo../--....o./--..----/--.o----/--..--.o/--.o--.. s";
    let v = common::json_output(&[
        "bilitaire",
        "solve",
        "--position",
        text,
        "--json",
        "--options",
    ]);
    let pos = Position::parse(text).expect("valid position");
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let options = v["options"].as_array().expect("options listed");
    assert_eq!(options.len(), moves.len(), "{v}");
    let mut best = i64::MIN;
    for (option, &mv) in options.iter().zip(&moves) {
        assert_eq!(option["move"], mv.to_string());
        let mut budget = 10_000_000;
        let expected = tabula_solver::minimax::minimax(&pos.play(mv), &mut budget)
            .expect("small enough for minimax");
        assert_eq!(option["value"], i64::from(expected), "{option}");
        best = best.max(i64::from(expected));
    }
    assert_eq!(v["value"], best, "{v}");
}

/// Defect 9: the first `bilitaire solve` a newcomer types (the 48-ball start) ran forever and
/// took no limit. Without a limit it now refuses at once, saying how to bound it; with one it
/// runs and reports the bounds it proved.
#[test]
fn an_unbounded_solve_out_of_reach_refuses_and_a_bounded_one_reports_bounds() {
    let out =
        common::tabula_within(&["bilitaire", "solve"], 60).expect("refused at once, not a hang");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("--time") && err.contains("--nodes"), "{err}");
    let out = common::tabula_within(&["bilitaire", "solve", "--nodes", "20000", "--json"], 120)
        .expect("a node limit stops it");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["stopped"], true, "{v}");
    assert_eq!(v["value"], serde_json::Value::Null, "{v}");
    let (lower, upper) = (v["lower"].as_i64().unwrap(), v["upper"].as_i64().unwrap());
    assert!(1 <= lower && lower <= upper && upper <= 47, "{v}");
    assert_eq!(v["side_to_move"], "ball", "{v}");
}

/// Defect 10: a solve on a slider position spent at least 2 s valuing every slider option and
/// counted it in `time_ms`. The options view is now opt-in (`--options`).
#[test]
fn slider_options_are_valued_only_when_asked() {
    let text = "--.o----/--..----/--..oo../--....o./--..----/--.o----/--..--.o/--.o--.. s";
    let v = common::json_output(&["bilitaire", "solve", "--position", text, "--json"]);
    assert_eq!(v["exact"], true, "{v}");
    assert!(v.get("options").is_none(), "{v}");
}

/// Defect 2: `--table` in a directory that does not exist ran the whole solve, then lost the
/// result to the failed save. The path is now checked before searching.
#[test]
fn a_table_file_in_a_missing_directory_is_refused_before_searching() {
    assert_bad_input(
        &[
            "bilitaire",
            "solve",
            "--position",
            "--.o----/--..----/--..oo../--....o./--..----/--.o----/--..--.o/--.o--.. s",
            "--table",
            "/nonexistent/dir/t.tt",
        ],
        "--table /nonexistent/dir/t.tt: the directory /nonexistent/dir does not exist",
    );
}

/// A `--table` or `--weights` name longer than the file system allows was reported as a
/// system failure (exit 1). It is the user's path: bad input, one line, before any search.
#[test]
#[cfg(target_os = "linux")]
fn file_names_too_long_are_bad_input() {
    let long = std::env::temp_dir().join("t".repeat(300));
    let long = long.to_str().unwrap();
    assert_bad_input(
        &["bilitaire", "solve", "--nodes", "10", "--table", long],
        "not a usable file name",
    );
    assert_bad_input(
        &["backgammon", "hint", "--plies", "0", "--weights", long],
        "not a usable file name",
    );
}

/// Defect 1: a `--hash` above the memory available aborted with an allocation backtrace
/// (exit 134). It is now bad input, and so is one that leaves no room for df-pn's own table.
/// (Checked where the machine has less than the 64 GiB asked.)
#[test]
fn a_table_larger_than_memory_is_bad_input() {
    let available_mib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            let line = m
                .lines()
                .find(|l| l.starts_with("MemAvailable:"))?
                .to_owned();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map(|kib| kib / 1024);
    if available_mib.is_none_or(|a| a >= 65536) {
        eprintln!("skipped: this machine has 64 GiB available (or no /proc/meminfo)");
        return;
    }
    assert_bad_input(
        &["bilitaire", "solve", "--nodes", "10", "--hash", "65536"],
        "more than the memory available",
    );
    // df-pn keeps a second table of --hash MiB: three quarters of the memory is too much for
    // both, refused before either is allocated.
    let hash = (available_mib.unwrap_or(0) * 3 / 4).max(1).to_string();
    for extra in ["--prover", "--verify"] {
        let mut args = vec!["bilitaire", "solve", "--at-least", "30", "--nodes", "10"];
        args.extend(["--hash", &hash, extra]);
        if extra == "--prover" {
            args.push("dfpn");
        }
        assert_bad_input(&args, "for both");
    }
}

/// Defect 11: allocating a large table was seconds of silence. It now reports on stderr.
#[test]
fn a_large_table_shows_its_allocation() {
    let text = "--.o----/--..----/--..oo../--....o./--..----/--.o----/--..--.o/--.o--.. s";
    let out = tabula(&["bilitaire", "solve", "--position", text, "--hash", "1024"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("table: allocating 1024 MiB: 100%"), "{err}");
}

/// The shared search options mean the same in every game: `--threads` 1..=256, `--hash`
/// 1..=65536, `--time`/`--nodes` on `solve` and `analyze`.
#[test]
fn search_options_are_validated_alike() {
    for cmd in ["solve", "analyze"] {
        assert_bad_input(&["bilitaire", cmd, "--threads", "0"], "--threads");
        assert_bad_input(&["bilitaire", cmd, "--threads", "257"], "--threads");
        assert_bad_input(&["bilitaire", cmd, "--hash", "0"], "--hash");
        assert_bad_input(&["bilitaire", cmd, "--nodes", "0"], "--nodes");
        assert_bad_input(&["bilitaire", cmd, "--time", "0"], "--time");
    }
}

/// A slider position small enough for plain minimax, parsed, and its value.
fn small_with_value() -> (&'static str, tabula_engine::bilitaire::Position, i64) {
    let text = "--.o----/--..----/--..oo../--....o./--..----/--.o----/--..--.o/--.o--.. s";
    let pos = tabula_engine::bilitaire::Position::parse(text).expect("valid position");
    let mut budget = 10_000_000;
    let value = i64::from(tabula_solver::minimax::minimax(&pos, &mut budget).expect("small"));
    (text, pos, value)
}

/// `best`, a report's move, is the slider's and keeps `value`: its child's minimax value is at
/// least that.
fn assert_keeps(pos: &tabula_engine::bilitaire::Position, best: &serde_json::Value, value: i64) {
    use tabula_engine::Game;
    let best = best.as_str().expect("the slider's move that keeps it");
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let mv = *moves.iter().find(|m| m.to_string() == best).expect("legal");
    let mut budget = 10_000_000;
    let after = tabula_solver::minimax::minimax(&pos.play(mv), &mut budget).expect("small");
    assert!(i64::from(after) >= value, "{best} leaves {after}");
}

/// `solve --at-least 30` on the start, stopped by a 20,000-node limit (with `extra` options):
/// the position's whole range (no table proves more), no move, no check.
fn assert_stopped_at_start(extra: &[&str]) {
    let mut args = vec![
        "bilitaire",
        "solve",
        "--at-least",
        "30",
        "--nodes",
        "20000",
        "--json",
    ];
    args.extend_from_slice(extra);
    let stopped = common::json_output(&args);
    assert_eq!(stopped["stopped"], true, "{stopped}");
    assert_eq!(
        (&stopped["lower"], &stopped["upper"]),
        (&1.into(), &47.into())
    );
    assert_eq!(stopped["best"], serde_json::Value::Null, "{stopped}");
    assert_eq!(stopped.get("check"), None, "{stopped}");
}

/// `solve --at-least X` proves one bound: on a position small enough for plain minimax, the
/// test at the minimax value holds (lower bound X, with the slider's move that keeps it, whose
/// child minimax values at X or more) and the test one above fails (upper bound X − 1); bad
/// thresholds and the wrong command are bad input.
#[test]
fn at_least_proves_one_bound_checked_by_minimax() {
    let (text, pos, value) = small_with_value();
    let test = |x: i64, extra: &[&str]| {
        let x = x.to_string();
        let mut args = vec![
            "bilitaire",
            "solve",
            "--position",
            text,
            "--at-least",
            &x,
            "--json",
        ];
        args.extend_from_slice(extra);
        common::json_output(&args)
    };
    let holds = test(value, &[]);
    assert_eq!(holds["lower"], value, "{holds}");
    assert_eq!(holds["value"], serde_json::Value::Null, "{holds}");
    assert_eq!(holds.get("check"), None, "checked only with --verify");
    assert_keeps(&pos, &holds["best"], value);
    let fails = test(value + 1, &[]);
    assert_eq!(fails["upper"], value, "{fails}");
    assert_eq!(fails["best"], serde_json::Value::Null, "{fails}");
    // --verify after alpha-beta: the strategy is read from alpha-beta's table.
    for (x, bound) in [
        (value, format!("at least {value}")),
        (value + 1, format!("below {}", value + 1)),
    ] {
        let checked = test(x, &["--verify"]);
        assert_eq!(checked["check"]["bound"], bound, "{checked}");
        assert_eq!(checked["check"]["complete"], true, "{checked}");
    }
    // Stopped by a limit before the test is decided: the position's whole range, no move.
    assert_stopped_at_start(&[]);
    let balls = text.matches('o').count();
    assert_bad_input(
        &[
            "bilitaire",
            "solve",
            "--position",
            text,
            "--at-least",
            &(balls + 1).to_string(),
        ],
        "X must be from",
    );
    assert_bad_input(
        &[
            "bilitaire",
            "analyze",
            "--position",
            text,
            "--at-least",
            "2",
        ],
        "--at-least is a test of `solve`",
    );
}

/// `solve --at-least X --prover dfpn --verify`: df-pn decides the same bounds as minimax on a
/// small position, the best move keeps the bound, and the check by the rules alone covers the
/// proof tree; on the opening after the removal of `d2` (47 balls), the slider's strategy for
/// 41 balls is checked to the end of every line. Bad combinations are bad input.
#[test]
fn a_check_its_limits_stop_is_reported_unfinished() {
    // `xd4` "at least 32": df-pn proves it in about 4.3 M nodes. With a 1 MiB table the
    // proof's positions are not kept, so the check searches the strategy's moves again, under
    // a budget of its own (the same --nodes), which does not last.
    let xd4 = "--oooo--/--oooo--/oooooooo/oooooooo/ooo.oooo/oooooooo/--oooo--/--oooo-- s";
    let report = common::json_output(&[
        "bilitaire",
        "solve",
        "--position",
        xd4,
        "--at-least",
        "32",
        "--prover",
        "dfpn",
        "--verify",
        "--nodes",
        "6000000",
        "--hash",
        "1",
        "--json",
    ]);
    assert_eq!(report["lower"], 32, "{report}");
    assert_eq!(report["check"]["bound"], "at least 32", "{report}");
    assert_eq!(report["check"]["complete"], false, "{report}");
    assert_eq!(report["check"]["stopped"], true, "{report}");
}

/// A test stopped undecided reports what its `--table` file proves at the root, not the
/// position's whole range: on `xc2` (value 39), "at least 39" proven by df-pn (about 250,000
/// nodes) into a file, then "at least 40" (tens of millions of nodes to refute) stopped after
/// 100,000 by each prover, which reports 39 to 47 in JSON and in words.
#[test]
fn a_stopped_test_reports_the_bound_its_table_file_proves() {
    let xc2 = "--oooo--/--oooo--/oooooooo/oooooooo/oooooooo/oooooooo/--.ooo--/--oooo-- s";
    let dir = std::env::temp_dir().join(format!("tabula-bilitaire-known-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("xc2.tt");
    let file = file.to_str().unwrap();
    let test = |x: &str, prover: &str, json: bool| {
        let nodes = if x == "39" { "2000000" } else { "100000" };
        let mut args = vec![
            "bilitaire",
            "solve",
            "--position",
            xc2,
            "--at-least",
            x,
            "--prover",
            prover,
            "--nodes",
            nodes,
            "--hash",
            "64",
            "--table",
            file,
        ];
        if json {
            args.push("--json");
        }
        let out = common::tabula(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout(&out)
    };
    let proven: serde_json::Value = serde_json::from_str(&test("39", "dfpn", true)).unwrap();
    assert_eq!(proven["lower"], 39, "{proven}");
    assert_ne!(proven["stopped"], true, "{proven}");
    for prover in ["dfpn", "alpha-beta"] {
        let stopped: serde_json::Value = serde_json::from_str(&test("40", prover, true)).unwrap();
        assert_eq!(stopped["stopped"], true, "{prover}: {stopped}");
        assert_eq!(
            (&stopped["lower"], &stopped["upper"], &stopped["best"]),
            (&39.into(), &47.into(), &serde_json::Value::Null),
            "{prover}: {stopped}"
        );
        let words = test("40", prover, false);
        assert!(
            words.contains("proven so far: 39 to 47 balls left"),
            "{prover}: {words}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn at_least_by_dfpn_is_checked_by_the_rules() {
    let (text, pos, value) = small_with_value();
    let test = |position: &str, x: i64| {
        let x = x.to_string();
        common::json_output(&[
            "bilitaire",
            "solve",
            "--position",
            position,
            "--at-least",
            &x,
            "--prover",
            "dfpn",
            "--verify",
            "--time",
            "120",
            "--json",
        ])
    };
    let holds = test(text, value);
    assert_eq!(holds["lower"], value, "{holds}");
    assert_eq!(holds["check"]["complete"], true, "{holds}");
    assert_eq!(holds["check"]["stopped"], false, "{holds}");
    assert_eq!(
        holds["check"]["bound"],
        format!("at least {value}"),
        "{holds}"
    );
    assert!(
        holds["check"]["positions"].as_u64().unwrap() >= 2,
        "{holds}"
    );
    assert_keeps(&pos, &holds["best"], value);
    let fails = test(text, value + 1);
    assert_eq!(fails["upper"], value, "{fails}");
    assert_eq!(fails["check"]["complete"], true, "{fails}");
    assert_eq!(fails["check"]["bound"], format!("below {}", value + 1));
    let xd2 = "--oooo--/--oooo--/oooooooo/oooooooo/oooooooo/oooooooo/--o.oo--/--oooo-- s";
    let opening = test(xd2, 41);
    assert_eq!(opening["lower"], 41, "{opening}");
    assert_eq!(opening["check"]["complete"], true, "{opening}");
    assert!(opening["check"]["terminals"].as_u64().unwrap() >= 1);
    // Stopped by the node limit: the whole range, no move, nothing checked.
    assert_stopped_at_start(&["--prover", "dfpn", "--verify"]);
    for (args, message) in [
        (&["--prover", "dfpn"][..], "go with --at-least"),
        (&["--verify"][..], "go with --at-least"),
        (
            &["--at-least", "3", "--prover", "dfpn", "--threads", "2"][..],
            "one thread",
        ),
        (&["--at-least", "3", "--prover", "pn"][..], "--prover"),
    ] {
        let mut all = vec!["bilitaire", "solve", "--position", text];
        all.extend_from_slice(args);
        assert_bad_input(&all, message);
    }
}
