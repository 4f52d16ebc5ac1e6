//! Interactive play (`bilitaire play`, `pylos play` without `--moves`) driven through standard
//! input: errors answered without reprinting the board, the legend and prompt in words, `help`,
//! `hint` with the engine's value, `undo`, and the move record.

mod common;

use common::{json_output, stdout, tabula, tabula_with_bytes, tabula_with_input};

/// A Bi-litaire position (slider to move) small enough to solve at once.
const BILITAIRE: &str = "--.o----/--..----/--o.oo../--o...o./--..----/--.o----/--..--.o/--.o--o. s";
/// A children's-rules Pylos position (black to move, lost in 12 plies) solved at once.
const PYLOS: &str = "bwbw/bwbw/bwbw/bwbw|.../wbw/bwb|../..|. b";
/// The Pylos start (standard rules).
const PYLOS_START: &str = "..../..../..../....|.../.../...|../..|. b";

/// A session with `input` on standard input; `--time 5` unless `extra` sets it.
fn bilitaire_session(input: &str, extra: &[&str]) -> String {
    let mut args = vec!["bilitaire", "play"];
    args.extend_from_slice(extra);
    if !extra.contains(&"--time") {
        // Long enough for the hints to be proven; a proven search stops at once.
        args.extend_from_slice(&["--time", "5"]);
    }
    let out = tabula_with_input(&args, input);
    assert!(out.status.success(), "{}", stdout(&out));
    stdout(&out)
}

/// A session with `input` on standard input; `--time 5` unless `extra` sets it.
fn pylos_session(input: &str, extra: &[&str]) -> String {
    let mut args = vec!["pylos", "play"];
    args.extend_from_slice(extra);
    if !extra.contains(&"--time") {
        // Long enough for the hints to be proven; a proven search stops at once.
        args.extend_from_slice(&["--time", "5"]);
    }
    let out = tabula_with_input(&args, input);
    assert!(out.status.success(), "{}", stdout(&out));
    stdout(&out)
}

/// The line of `text` that starts with `prefix` (after any prompt), without the prefix.
fn line_after<'a>(text: &'a str, prefix: &str) -> &'a str {
    let start = text
        .find(prefix)
        .unwrap_or_else(|| panic!("{prefix:?}: {text}"))
        + prefix.len();
    text[start..].lines().next().unwrap_or_default()
}

/// A line that is not UTF-8, or longer than a prompt takes, costs one error line and the
/// session reads on (it used to end the session as if the input had ended).
#[test]
fn a_line_that_is_not_text_is_discarded_and_play_goes_on() {
    let mut input = b"\xff\xfe\n".to_vec();
    input.extend(std::iter::repeat_n(b'a', 10_000));
    input.extend_from_slice(b"\nmoves\nquit\n");
    let games: [(&[&str], &str); 3] = [
        (&["bilitaire", "play", "--time", "1"], "xc1 xd1"),
        (&["pylos", "play", "--time", "1"], "0a1 0b1"),
        (
            &[
                "backgammon",
                "play",
                "--seed",
                "5",
                "--plies",
                "0",
                "--no-cube",
            ],
            "'quit'): moves",
        ),
    ];
    for (args, after) in games {
        let out = tabula_with_bytes(args, &input);
        let text = stdout(&out);
        assert!(out.status.success(), "{args:?}: {text}");
        assert!(
            text.contains("line is not UTF-8; discarded"),
            "{args:?}: {text}"
        );
        assert!(
            text.contains("line of 10000 bytes is longer than 4096 bytes; discarded"),
            "{args:?}: {text}"
        );
        // The line after them was read and answered.
        assert!(text.contains(after), "{args:?}: {text}");
        assert!(!text.contains("aaaa"), "{args:?}: the long line echoed");
    }
}

#[test]
fn an_illegal_move_is_answered_without_reprinting_the_board() {
    let text = bilitaire_session("zz9\nd9-d7\nquit\n", &[]);
    assert!(text.contains("move \"zz9\""), "{text}");
    // One diagram (its file letters head and foot it), shown before the first prompt only.
    assert_eq!(text.matches("a b   c d   e f   g h").count(), 2, "{text}");
    let text = pylos_session("0z9\nquit\n", &[]);
    assert!(text.contains("bad cell '0z9'"), "{text}");
    assert_eq!(text.matches("level 0     level 1").count(), 1, "{text}");
}

#[test]
fn the_legend_and_prompt_explain_who_moves() {
    let text = bilitaire_session("quit\n", &[]);
    assert!(
        text.contains("r = ball player's opening removal, s = slider"),
        "{text}"
    );
    assert!(
        text.contains("your move (ball player to remove one ball (opening);"),
        "{text}"
    );
    let text = bilitaire_session("quit\n", &["--position", BILITAIRE, "--role", "slider"]);
    assert!(text.contains("your move (slider to move;"), "{text}");
    let text = pylos_session("quit\n", &[]);
    assert!(text.contains("b = black, w = white"), "{text}");
    assert!(text.contains("your move (black to move,"), "{text}");
}

#[test]
fn help_lists_the_commands() {
    let text = pylos_session("help\nquit\n", &[]);
    for command in ["moves", "hint", "auto", "undo", "record", "board", "quit"] {
        assert!(
            text.lines().any(|l| l.trim_start().starts_with(command)),
            "{command}: {text}"
        );
    }
}

#[test]
fn bilitaire_hint_gives_the_solved_value() {
    let solved = json_output(&["bilitaire", "solve", "--position", BILITAIRE, "--json"]);
    let text = bilitaire_session(
        "hint\nquit\n",
        &["--position", BILITAIRE, "--role", "slider"],
    );
    let hint = line_after(&text, "engine suggests ");
    let value = solved["value"].as_i64().expect("a value");
    assert!(
        hint.ends_with(&format!(": {value} balls left with best play (exact)")),
        "{hint} vs {solved}"
    );
}

#[test]
fn pylos_hint_gives_the_solved_result_and_distance() {
    let solved = json_output(&[
        "pylos", "solve", "--rules", "children", "-p", PYLOS, "--json",
    ]);
    assert_eq!(solved["result"], "loss", "{solved}");
    let text = pylos_session("hint\nquit\n", &["--rules", "children", "-p", PYLOS]);
    let hint = line_after(&text, "engine suggests ");
    assert!(
        hint.ends_with(&format!(
            ": black loses in {} plies (exact)",
            solved["plies"]
        )),
        "{hint} vs {solved}"
    );
}

#[test]
fn undo_takes_back_the_move_and_the_engines_reply() {
    let text = pylos_session("0a1\nundo\nrecord\nundo\nquit\n", &["--time", "0.05"]);
    let took = line_after(&text, "took back your 0a1 and the engine's ");
    assert!(!took.is_empty(), "{text}");
    // The start is shown again after the undo, and the record is empty.
    assert_eq!(
        text.lines().filter(|l| *l == PYLOS_START).count(),
        2,
        "{text}"
    );
    assert!(text.contains("move record: (no moves yet)"), "{text}");
    assert!(text.contains("nothing to undo"), "{text}");
}

#[test]
fn the_move_record_replays_to_the_final_position() {
    let start = "bwbw/bwbw/bwbw/bwbw|.../.../...|../..|. b";
    let input = "auto\n".repeat(40);
    let text = pylos_session(
        &input,
        &["--rules", "children", "-p", start, "--time", "0.05"],
    );
    assert!(text.contains("game over:"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("move record: "))
        .unwrap_or_else(|| panic!("no record: {text}"));
    let record = &lines[at]["move record: ".len()..];
    let replay = tabula(&[
        "pylos", "play", "--rules", "children", "-p", start, "--moves", record,
    ]);
    assert!(replay.status.success(), "{record}");
    assert_eq!(stdout(&replay).trim(), lines[at - 1], "{text}");
}

/// Interactive play talks in text: `--json` without `--moves` is refused, not ignored.
#[test]
fn interactive_play_refuses_json() {
    for game in ["bilitaire", "pylos"] {
        let out = tabula(&[game, "play", "--json"]);
        assert_eq!(out.status.code(), Some(2), "{game}");
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("a JSON error");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("--json needs --moves"),
            "{game}: {v}"
        );
    }
}
