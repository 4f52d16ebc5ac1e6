//! `tabula backgammon play` without `--play`: scripted games against the engine at 0-ply on
//! standard input. Scores agree with the results and cube values printed, the human's plays
//! and doubles are checked, the Crawford game has no cube, and a seed replays the same game.

mod common;

use common::{assert_bad_input, stdout, tabula, tabula_with_input};
use std::collections::BTreeSet;
use tabula_engine::backgammon::{MatchId, Position};

/// `auto` for every prompt: plays, cube choices and answers by the engine's advice.
fn autos(n: usize) -> String {
    "auto\n".repeat(n)
}

/// Runs `backgammon play` with `args` and `input`; checks it ended cleanly and returns stdout.
fn play(args: &[&str], input: &str) -> String {
    let mut all = vec!["backgammon", "play"];
    all.extend_from_slice(args);
    let out = tabula_with_input(&all, input);
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{all:?}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!text.contains("game abandoned"), "input ran out: {text}");
    text
}

/// The number after `prefix` in `line` (up to the next non-digit).
fn number_after(line: &str, prefix: &str) -> u32 {
    let rest = &line[line
        .find(prefix)
        .unwrap_or_else(|| panic!("{prefix:?} in {line:?}"))
        + prefix.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or_else(|_| panic!("{line:?}"))
}

/// Checks every game result against the cube and the kind printed, and every score line against
/// the sum of the results; returns the final scores (you, the engine).
fn check_scores(text: &str) -> (u32, u32) {
    let (mut me, mut engine) = (0, 0);
    let mut games = 0;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("game over: ") {
            games += 1;
            // Every result ends with "N point(s)".
            let won: u32 = rest
                .split_whitespace()
                .rev()
                .nth(1)
                .unwrap()
                .parse()
                .unwrap();
            let points = if rest.contains("drop") {
                // A drop scores the cube before the double.
                let doubled = number_after(rest, "the double to ");
                assert_eq!(won, doubled / 2, "{line}");
                won
            } else {
                let cube = number_after(rest, ", cube ");
                let per_cube = if rest.contains(" a single game") {
                    1
                } else if rest.contains("a gammon,") {
                    2
                } else if rest.contains("a backgammon,") {
                    3
                } else {
                    panic!("no result kind in {line:?}")
                };
                assert_eq!(won, per_cube * cube, "{line}");
                won
            };
            if rest.contains("you win") {
                me += points;
            } else {
                assert!(rest.contains("the engine wins"), "{line}");
                engine += points;
            }
        }
        if let Some(rest) = line.strip_prefix("score after game ") {
            assert_eq!(number_after(rest, ""), games, "{line}");
            assert_eq!(number_after(rest, "you "), me, "{line}");
            assert_eq!(number_after(rest, "the engine "), engine, "{line}");
        }
    }
    assert!(games > 0, "no game finished: {text}");
    (me, engine)
}

/// The text of game `n`: from its header to its score line.
fn game_text(text: &str, n: u32) -> &str {
    let start = text
        .find(&format!("\ngame {n}"))
        .unwrap_or_else(|| panic!("no game {n}: {text}"));
    let end = text[start..]
        .find(&format!("score after game {n}:"))
        .map_or(text.len(), |e| start + e);
    &text[start..end]
}

/// The first of seeds 1 to 40 whose run of `play` with `args` (after `--seed S`) on `input`
/// shows `wanted`, after `check` passed on every run played. Which events a seed's games show
/// depends on the dice and the weights, so a test looks for a seed rather than fixing one.
fn first_seed_with(
    args: &[&str],
    input: &str,
    check: impl Fn(&str),
    wanted: impl Fn(&str) -> bool,
) -> String {
    for seed in 1..=40 {
        let seed = seed.to_string();
        let text = play(&[&["--seed", seed.as_str()], args].concat(), input);
        check(&text);
        if wanted(&text) {
            return text;
        }
    }
    panic!("no seed in 1..=40 shows the wanted event for {args:?}");
}

#[test]
fn auto_money_session_scores_add_up() {
    let check = |text: &str| {
        let (me, engine) = check_scores(text);
        let last = text.lines().last().unwrap();
        assert_eq!(
            last,
            format!(
                "money session over after 3 games: you {:+}",
                i64::from(me) - i64::from(engine)
            )
        );
        assert!(text.contains(" Position ID: ") && text.contains("  Match ID: "));
    };
    // Both kinds of ending happen in a session.
    first_seed_with(
        &["--plies", "0", "--games", "3"],
        &autos(3000),
        check,
        |text| text.contains("drops the double") && text.contains("gammon"),
    );
}

#[test]
fn jacoby_rule_counts_gammons_single_with_the_cube_not_turned() {
    let results = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("game over"))
            .map(str::to_string)
            .collect()
    };
    let check = |text: &str| {
        check_scores(text);
        assert!(!text.contains("roll or double") && !text.contains("doubles"));
        let results = results(text);
        assert_eq!(results.len(), 4);
        for r in &results {
            assert!(
                r.contains(" a single game") && r.ends_with(": 1 point"),
                "{r}"
            );
        }
    };
    // A gammon under the Jacoby rule: counted single.
    first_seed_with(
        &["--plies", "0", "--games", "4", "--jacoby", "--no-cube"],
        &autos(4000),
        check,
        |text| results(text).iter().any(|r| r.contains("counted single")),
    );
}

/// The `moves` answer of a prompt: the Position ID and dice shown before it, and the plays.
fn listed_moves(text: &str) -> (String, String, BTreeSet<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("your play for ") && l.ends_with("): moves"))
        .unwrap_or_else(|| panic!("no moves asked: {text}"));
    let dice = lines[at]["your play for ".len()..][..2].to_string();
    let id = lines[..at]
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix(" Position ID: "))
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let plays = lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim().to_string())
        .collect();
    (id, dice, plays)
}

#[test]
fn illegal_plays_are_rejected_and_moves_match_the_moves_command() {
    // Without the cube every human prompt asks for a play; the fourth is answered with
    // `moves`, a play that is not legal, then `auto`.
    let mut input = autos(3);
    input.push_str("moves\n13/2 13/1\nbar/99\n");
    input.push_str(&autos(400));
    let text = play(&["--seed", "1", "--plies", "0", "--no-cube"], &input);
    let (id, dice, plays) = listed_moves(&text);
    assert!(plays.len() > 1, "{plays:?}");
    let out = tabula(&[
        "backgammon",
        "moves",
        "--position",
        &id,
        "--dice",
        &dice,
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let expected: BTreeSet<String> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(plays, expected, "{id} {dice}");
    // Both bad plays are answered and the same prompt comes back.
    let after = &text[text.find("): moves").unwrap()..];
    assert!(after.contains("13/2 13/1 is not a legal play"), "{after}");
    assert!(after.contains("try again"), "{after}");
    let prompt = format!("your play for {dice} (");
    assert!(after.matches(&prompt).count() >= 3, "{after}");
    check_scores(&text);
}

#[test]
fn a_given_position_and_roll_is_played_on() {
    // The opening position with 31 to play for the human: a legal play is taken, the game goes
    // on, and the end of the input abandons it.
    let out = tabula_with_input(
        &[
            "backgammon",
            "play",
            "--dice",
            "31",
            "--plies",
            "0",
            "--seed",
            "1",
        ],
        "8/5 6/4\n8/5 6/5\n",
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("you roll 31"), "{text}");
    assert!(text.contains("8/5 6/4 is not a legal play of 31"), "{text}");
    assert!(text.contains("the engine plays"), "{text}");
    assert!(text.trim_end().ends_with("game abandoned"), "{text}");
}

#[test]
fn the_human_doubles_and_the_engine_takes() {
    // The engine starts with this seed, so the human's first prompt is before a roll.
    let mut input = String::from("double\n");
    input.push_str(&autos(3000));
    let text = play(&["--seed", "1", "--plies", "0"], &input);
    let first = text.find("roll or double to 2").unwrap();
    assert!(!text[..first].contains("your play for"), "{text}");
    let after = &text[first..];
    assert!(after.contains("you double to 2\nthe engine takes: the cube is at 2, the engine's"));
    assert!(after.contains("cube 2, the engine's"), "{after}");
    // Until the engine redoubles, the human has no cube to turn.
    let until = after.find("the engine doubles to 4").unwrap_or(after.len());
    assert_eq!(
        after[..until].matches("roll or double").count(),
        1,
        "{after}"
    );
    check_scores(&text);
}

#[test]
fn the_engine_drops_a_hopeless_double_and_the_human_scores_the_cube_before_it() {
    // The human (X, gnubg player 1) bears off the last checker next roll; the engine has 15
    // checkers on its 6-point. Money, the cube at 2 owned by the human.
    let mut mine = [0u8; 25];
    mine[0] = 1;
    let mut theirs = [0u8; 25];
    theirs[5] = 15;
    let position = Position::from_counts(mine, theirs).unwrap().position_id();
    let match_id = MatchId {
        cube: 2,
        cube_owner: Some(1),
        on_roll: 1,
        turn: 1,
        jacoby: false,
        ..MatchId::default()
    }
    .encode();
    let text = play(
        &[
            "--position",
            &position,
            "--match-id",
            &match_id,
            "--plies",
            "0",
            "--seed",
            "1",
        ],
        "hint\ndouble\n",
    );
    assert!(text.contains("roll or double to 4"), "{text}");
    assert!(
        text.contains("cube: too good to double, pass"),
        "hint: {text}"
    );
    assert!(
        text.contains(
            "you double to 4\ngame over: the engine drops the double to 4; you win 2 points"
        ),
        "{text}"
    );
    assert_eq!(check_scores(&text), (2, 0));
}

/// The scores after each game of a match's transcript.
fn match_scores(text: &str) -> Vec<(u32, u32)> {
    text.lines()
        .filter(|l| l.starts_with("score after game "))
        .map(|l| (number_after(l, "you "), number_after(l, "the engine ")))
        .collect()
}

/// The number of a match to 3's Crawford game, the game after the first to reach 2 points, if
/// the match got that far.
fn crawford_game(scores: &[(u32, u32)]) -> Option<u32> {
    scores
        .iter()
        .position(|s| s.0 == 2 || s.1 == 2)
        .map(|first_two| first_two as u32 + 2)
        .filter(|&c| c <= scores.len() as u32)
}

#[test]
fn a_match_to_3_ends_at_3_with_no_cube_in_the_crawford_game() {
    let check = |text: &str| {
        check_scores(text);
        let scores = match_scores(text);
        let (last, before) = scores.split_last().unwrap();
        assert!(last.0.max(last.1) >= 3, "{scores:?}");
        assert!(before.iter().all(|s| s.0.max(s.1) < 3), "{scores:?}");
        let last_line = text.lines().last().unwrap();
        assert!(last_line.starts_with("match over: "), "{last_line}");
    };
    // A match that reaches a Crawford game (a side at 2, the other below).
    let text = first_seed_with(
        &["--plies", "0", "--match", "3"],
        &autos(6000),
        check,
        |text| crawford_game(&match_scores(text)).is_some(),
    );
    let scores = match_scores(&text);
    let crawford = crawford_game(&scores).unwrap();
    // The Crawford game, and only that one, is played without the cube.
    for n in 1..=scores.len() as u32 {
        let game = game_text(&text, n);
        let header = game.lines().nth(1).unwrap();
        assert_eq!(header.contains("Crawford game"), n == crawford, "{header}");
        if n == crawford {
            assert!(!game.contains("roll or double"), "{game}");
            assert!(!game.contains("doubles to"), "{game}");
            assert!(
                game.contains("; Crawford game"),
                "the status says so: {game}"
            );
        }
    }
}

#[test]
fn the_same_seed_and_input_replay_the_same_game() {
    let args = ["--seed", "21", "--plies", "0", "--match", "5"];
    let input = autos(8000);
    let a = play(&args, &input);
    let b = play(&args, &input);
    assert_eq!(a, b);
    let other = play(&["--seed", "22", "--plies", "0", "--match", "5"], &input);
    assert_ne!(a, other, "another seed, other dice");
}

#[test]
fn one_ply_choices_do_not_depend_on_threads() {
    let run = |threads: &str| {
        play(
            &[
                "--seed",
                "5",
                "--plies",
                "1",
                "--threads",
                threads,
                "--color",
                "o",
            ],
            &autos(3000),
        )
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    assert!(one.contains(" O you "), "{one}");
    check_scores(&one);
}

#[test]
fn end_of_input_and_quit_abandon_the_game() {
    for input in ["", "quit\n"] {
        let out = tabula_with_input(
            &["backgammon", "play", "--seed", "1", "--plies", "0"],
            input,
        );
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert!(text.trim_end().ends_with("game abandoned"), "{text}");
    }
}

#[test]
fn check_mode_is_unchanged() {
    let out = tabula(&["backgammon", "play", "--dice", "31", "--play", "8/5 6/5"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "8/5 6/5  sGfwATDgc/ABMA\n");
    assert_bad_input(
        &["backgammon", "play", "--dice", "31", "--play", "8/5 6/4"],
        "not a legal play",
    );
}

#[test]
fn bad_options_exit_2_with_one_line() {
    let bad: [(&[&str], &str); 12] = [
        (&["--match", "0"], "--match 0"),
        (&["--match", "26"], "1 to 25"),
        (&["--plies", "9"], "--plies 9"),
        (&["--games", "0"], "--games"),
        (&["--match", "3", "--games", "2"], "money"),
        (&["--match", "3", "--jacoby"], "--jacoby"),
        (&["--color", "z"], "--color"),
        (
            &["--position", "4HPwATDgc/ABMA:cAkAAAAAAAAA", "--match", "3"],
            "Match ID",
        ),
        // Defect 4: 1 to 256 threads, as in every game (0 was one per core, and any count was
        // started).
        (&["--threads", "0"], "--threads"),
        (&["--threads", "257"], "--threads"),
        (&["--threads", "100000"], "--threads"),
        // Defect 7: no game has both sides borne off.
        (
            &["--position", "AAAAAAAAAAAAAA"],
            "neither side has a checker",
        ),
    ];
    for (args, needle) in bad {
        let mut all = vec!["backgammon", "play"];
        all.extend_from_slice(args);
        assert_bad_input(&all, needle);
    }
    // Under --json the error is a JSON object on standard output.
    let out = tabula(&["backgammon", "play", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["error"]["kind"], "bad_input", "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("--json"));
}
