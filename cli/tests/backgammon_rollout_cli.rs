//! `tabula backgammon rollout`: the JSON shape, determinism across thread counts, the ranking of
//! plays, progress on stderr, and exit code 2 with one line on stderr for bad input.

mod common;

use common::{assert_bad_input, json_output as json_of, report, tabula, BEAR_OFF};
use tabula_api::backgammon::RolloutReport;

/// A race in both home boards: the player on roll wins 84% without gammons (the unit tests of
/// tabula-gammon build it).
const RACING_LEAD: &str = "3HsPAADb7g4AAA";
/// A match to 5 at 4-2 (player 0 leads), Crawford game, player 1 on roll.
const CRAWFORD: &str = "8AmgAEAAEAAA";
/// A match to 5 at 3-3 (2-away 2-away), player 0 on roll.
const TWO_AWAY: &str = "MAGgADAAGAAA";
/// A match to 5 won 5-2.
const FINISHED: &str = "MAGgAFAAEAAA";
/// 1-2 in a match to 5, player 0 on roll has doubled.
const DOUBLED: &str = "MBmgABAAEAAA";

fn check_estimate(e: &serde_json::Value) {
    let p = e["probabilities"].as_array().unwrap();
    let se = e["probabilities_se"].as_array().unwrap();
    assert_eq!((p.len(), se.len()), (5, 5), "{e}");
    assert!(se.iter().all(|x| x.as_f64().unwrap() >= 0.0), "{e}");
    let p: Vec<f64> = p.iter().map(|x| x.as_f64().unwrap()).collect();
    let formula = 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4];
    assert!(
        (e["equity"].as_f64().unwrap() - formula).abs() < 1e-4,
        "{e}"
    );
    assert!(e["equity_se"].as_f64().unwrap() >= 0.0, "{e}");
}

#[test]
fn a_position_rollout_reports_estimates_and_errors() {
    let v = json_of(&[
        "backgammon",
        "rollout",
        "--trials",
        "40",
        "--truncate",
        "4",
        "--seed",
        "7",
        "--json",
    ]);
    assert_eq!(v["position"], "4HPwATDgc/ABMA");
    assert_eq!(v["dice"], serde_json::Value::Null);
    assert_eq!(
        (v["trials"].as_u64(), v["trials_requested"].as_u64()),
        (Some(40), Some(40))
    );
    assert_eq!(
        (v["truncate"].as_u64(), v["plies"].as_u64()),
        (Some(4), Some(0))
    );
    assert_eq!(
        (v["seed"].as_u64(), v["stopped"].as_bool()),
        (Some(7), Some(false))
    );
    assert_eq!(v["luck_correction"], true);
    assert_eq!(v["stratified"], true);
    assert_eq!(v["cubeful"], false);
    assert!(v["time_ms"].is_u64());
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);
    let r = &v["rollout"];
    assert!(r.get("play").is_none(), "{r}");
    check_estimate(&r["estimate"]);
    check_estimate(&r["plain"]);
    // The opening position is about even for the player on roll.
    assert!(r["estimate"]["equity"].as_f64().unwrap().abs() < 0.3, "{r}");
    // The report type reads it back.
    let typed: RolloutReport = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(typed.trials, 40);
}

#[test]
fn results_depend_on_the_seed_not_on_the_threads() {
    let run = |threads: &str, seed: &str| -> RolloutReport {
        let mut r: RolloutReport = report(&[
            "backgammon",
            "rollout",
            "--dice",
            "43",
            "--candidates",
            "3",
            "--trials",
            "40",
            "--truncate",
            "3",
            "--seed",
            seed,
            "--threads",
            threads,
            "--json",
        ]);
        r.time_ms = 0;
        r
    };
    let one = run("1", "5");
    assert_eq!(one.moves.len(), 3);
    assert_eq!(one, run("3", "5"));
    assert_ne!(one.moves, run("1", "6").moves);
}

#[test]
fn plays_are_ranked_with_differences_from_the_best() {
    let v = json_of(&[
        "backgammon",
        "rollout",
        "--dice",
        "31",
        "--candidates",
        "0",
        "--trials",
        "36",
        "--truncate",
        "2",
        "--json",
    ]);
    assert_eq!(v["dice"], "31");
    assert!(v.get("rollout").is_none(), "{v}");
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 16, "every play of 31");
    assert_eq!(moves[0]["play"], "8/5 6/5", "{v}");
    assert_eq!(moves[0]["difference"], 0.0);
    let mut last = f64::INFINITY;
    for m in moves {
        check_estimate(&m["estimate"]);
        let eq = m["estimate"]["equity"].as_f64().unwrap();
        assert!(eq <= last, "best first: {v}");
        last = eq;
        assert!(m["difference"].as_f64().unwrap() <= 0.0, "{m}");
        assert!(m["difference_se"].as_f64().unwrap() >= 0.0, "{m}");
    }
    // The default: the best five by the net.
    let v = json_of(&[
        "backgammon",
        "rollout",
        "--dice",
        "31",
        "--trials",
        "1",
        "--truncate",
        "1",
        "--json",
    ]);
    assert_eq!(v["moves"].as_array().unwrap().len(), 5);
}

#[test]
fn a_roll_without_a_legal_play_has_nothing_to_roll_out() {
    // On the bar against a closed board (the unit tests of tabula-gammon build it).
    let closed = "27YBBwDg/wcAQA";
    let v = json_of(&[
        "backgammon",
        "rollout",
        "--position",
        closed,
        "--dice",
        "64",
        "--trials",
        "3",
        "--json",
    ]);
    assert_eq!(v["moves"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(v["trials"], 0);
    let out = tabula(&[
        "backgammon",
        "rollout",
        "--position",
        closed,
        "--dice",
        "64",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("No legal play."));
}

#[test]
fn text_output_and_progress() {
    let out = tabula(&[
        "backgammon",
        "rollout",
        "--position",
        BEAR_OFF,
        "--trials",
        "72",
        "--seed",
        "2",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("Rollout of YAAAAAMAAAAAAA: 72 of 72 trials"),
        "{text}"
    );
    assert!(text.contains("player on roll: equity +"), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rollout: 72/72 trials, +"), "{err}");
    // Exact bear-offs: the corrected estimate is the database's 75.4% to win.
    assert!(text.contains("win  75.4%"), "{text}");
    let out = tabula(&[
        "backgammon",
        "rollout",
        "--dice",
        "64",
        "--candidates",
        "2",
        "--trials",
        "4",
        "--truncate",
        "2",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  1. ") && text.contains("  2. ") && !text.contains("  3. "),
        "{text}"
    );
}

#[test]
fn bad_input_is_refused_with_one_line() {
    let r = ["backgammon", "rollout"];
    let with = |extra: &[&'static str]| [&r[..], extra].concat();
    assert_bad_input(
        &with(&["--trials", "0"]),
        "--trials <TRIALS>': must be at least 1",
    );
    assert_bad_input(&with(&["--trials", "x"]), "--trials");
    assert_bad_input(
        &with(&["--trials", "1.5"]),
        "expected a whole number, at least 1",
    );
    assert_bad_input(&with(&["--threads", "0"]), "--threads");
    assert_bad_input(&with(&["--threads", "257"]), "--threads");
    assert_bad_input(&with(&["--plies", "4"]), "--plies 4: at most 3");
    assert_bad_input(
        &with(&["--truncate", "0"]),
        "--truncate <TRUNCATE>': must be at least 1",
    );
    assert_bad_input(&with(&["--dice", "71"]), "invalid dice");
    assert_bad_input(&with(&["--position", "nonsense"]), "invalid Position ID");
    assert_bad_input(&with(&["--match-id", "zz"]), "invalid Match ID");
    // --cubeful with a Match ID whose match is finished, whose game is over, or with a
    // double pending.
    assert_bad_input(
        &with(&["--cubeful", "--match-id", FINISHED]),
        "--cubeful: Match ID: invalid match state: score [5, 2] in a match to 5",
    );
    assert_bad_input(
        &with(&["--cubeful", "--match-id", "MAKgABAAEAAA"]),
        "not being played",
    );
    assert_bad_input(
        &with(&["--cubeful", "--match-id", DOUBLED]),
        "a double is pending",
    );
    // Under --json the error is the JSON error object on stdout.
    let out = tabula(&with(&["--plies", "9", "--json"]));
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "bad_input");
}

/// The cube actions of a cubeful rollout without dice, checked for shape.
fn cube_actions(v: &serde_json::Value) -> &Vec<serde_json::Value> {
    assert_eq!(v["cubeful"], true, "{v}");
    assert!(v["rollout"]["cubeful"].is_object(), "{v}");
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);
    let actions = v["cube"]["actions"].as_array().unwrap();
    for a in actions {
        assert!(
            a["equity"].is_f64() && a["equity_se"].as_f64().unwrap() >= 0.0,
            "{a}"
        );
        assert!(a["difference"].is_f64(), "{a}");
        assert!(a["difference_se"].as_f64().unwrap() >= 0.0, "{a}");
    }
    actions
}

#[test]
fn cubeful_rollouts_rank_the_cube_actions() {
    let v = json_of(&[
        "backgammon",
        "rollout",
        "--position",
        RACING_LEAD,
        "--cubeful",
        "--trials",
        "144",
        "--json",
    ]);
    let actions = cube_actions(&v);
    let names: Vec<&str> = actions
        .iter()
        .map(|a| a["action"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["no double", "double, take", "double, pass"]);
    assert_eq!(v["cube"]["action"], "double, pass", "{v}");
    assert_eq!(v["cube"]["take"], false);
    assert_eq!(v["cube"]["may_double"], true);
    assert_eq!(actions[2]["equity"], 1.0);
    assert_eq!(actions[2]["difference"], 0.0);
    // No double is worse than the proper action; double/take better (so the opponent passes).
    assert!(actions[0]["difference"].as_f64().unwrap() < 0.0, "{v}");
    assert!(actions[1]["difference"].as_f64().unwrap() > 0.0, "{v}");
    assert!(v.get("match_id").is_none(), "money: {v}");
    assert!(actions[0].get("match_winning_chance").is_none());
    // No double is the "rollout" entry, cubeful and cubeless.
    assert_eq!(v["rollout"]["cubeful"]["equity"], actions[0]["equity"]);
    check_estimate(&v["rollout"]["estimate"]);
    let typed: RolloutReport = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(typed.cube.unwrap().actions.len(), 3);

    // The opening position: no double.
    let v = json_of(&[
        "backgammon",
        "rollout",
        "--cubeful",
        "--trials",
        "72",
        "--truncate",
        "2",
        "--json",
    ]);
    cube_actions(&v);
    assert_eq!(v["cube"]["action"], "no double, take", "{v}");
}

#[test]
fn cubeful_rollouts_follow_the_match_score() {
    // The Crawford game: nobody may double; the MWC is reported.
    let v = json_of(&[
        "backgammon",
        "rollout",
        "--position",
        RACING_LEAD,
        "--match-id",
        CRAWFORD,
        "--cubeful",
        "--trials",
        "36",
        "--json",
    ]);
    let actions = cube_actions(&v);
    assert_eq!(actions.len(), 1, "{v}");
    assert_eq!(v["cube"]["action"], "no double (the cube is not available)");
    assert_eq!(v["cube"]["may_double"], false);
    assert_eq!(v["match_id"], CRAWFORD);
    let mwc = actions[0]["match_winning_chance"].as_f64().unwrap();
    assert!(mwc > 0.0 && mwc < 0.5, "3-away against 1-away: {v}");
    // 2-away 2-away: double/pass is worth the MET's 1-away 2-away entry.
    let v = json_of(&[
        "backgammon",
        "rollout",
        "--position",
        RACING_LEAD,
        "--match-id",
        TWO_AWAY,
        "--cubeful",
        "--trials",
        "36",
        "--json",
    ]);
    let actions = cube_actions(&v);
    assert_eq!(actions.len(), 3, "{v}");
    assert_eq!(actions[2]["match_winning_chance"], 0.67736);
}

#[test]
fn cubeful_play_rollouts_are_deterministic_and_ranked() {
    let run = |threads: &str| -> RolloutReport {
        let mut r: RolloutReport = report(&[
            "backgammon",
            "rollout",
            "--cubeful",
            "--dice",
            "43",
            "--candidates",
            "2",
            "--trials",
            "36",
            "--truncate",
            "2",
            "--threads",
            threads,
            "--json",
        ]);
        r.time_ms = 0;
        r
    };
    let one = run("1");
    assert_eq!(one, run("3"));
    assert!(one.cubeful && one.cube.is_none() && one.rollout.is_none());
    assert_eq!(one.moves.len(), 2);
    let cubeful: Vec<f64> = one
        .moves
        .iter()
        .map(|m| m.cubeful.as_ref().expect("cubeful estimate").equity)
        .collect();
    assert!(
        cubeful[0] >= cubeful[1],
        "ranked by cubeful equity: {one:?}"
    );
    // The report rounds the equities and the difference to 6 decimals, each from the
    // unrounded values: the difference of the rounded equities is within three roundings.
    let difference = one.moves[1].difference.unwrap();
    assert!(
        (difference - (cubeful[1] - cubeful[0])).abs() <= 1.5e-6 + 1e-12,
        "{difference} against {cubeful:?}"
    );
}

#[test]
fn cubeful_text_output() {
    let out = tabula(&[
        "backgammon",
        "rollout",
        "--position",
        RACING_LEAD,
        "--cubeful",
        "--trials",
        "36",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(cubeful, money)"), "{text}");
    assert!(text.contains("    no double     +"), "{text}");
    assert!(text.contains("    double, pass  +1.000"), "{text}");
    assert!(text.contains("Proper cube action: "), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rollout: 36/36 trials, "), "{err}");
    assert!(err.contains(" cubeful +"), "{err}");
}
