//! `tabula backgammon hint`, `train` and `baseline`: output shapes, determinism (thread
//! counts, resumed training) and exit code 2 with one line on stderr for bad input.

mod common;

use common::{
    assert_bad_input, assert_weights_play, json_output as json_of, signalled, stdout, tabula,
    BEAR_OFF,
};
use std::path::{Path, PathBuf};

/// A scratch directory for this test binary.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tabula-ai-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn check_probabilities(p: &serde_json::Value) -> [f64; 5] {
    let p: Vec<f64> = p
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(p.len(), 5);
    assert!(p.iter().all(|x| (0.0..=1.0).contains(x)), "{p:?}");
    assert!(p[1] <= p[0] + 1e-6 && p[2] <= p[1] + 1e-6, "{p:?}");
    assert!(p[3] <= 1.0 - p[0] + 1e-6 && p[4] <= p[3] + 1e-6, "{p:?}");
    [p[0], p[1], p[2], p[3], p[4]]
}

#[test]
fn hint_json_ranks_every_play() {
    let v = json_of(&[
        "backgammon",
        "hint",
        "--dice",
        "31",
        "--plies",
        "1",
        "--json",
    ]);
    assert_eq!(v["plies"], 1);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 16, "every play of 31 from the start");
    let mut last = (u64::MAX, f64::INFINITY);
    for m in moves {
        assert!(m["play"].is_string());
        let p = check_probabilities(&m["probabilities"]);
        let eq = m["equity"].as_f64().unwrap();
        let formula = 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4];
        assert!((eq - formula).abs() < 1e-4, "{m}");
        // Searched plays first, each group best first.
        let plies = m["plies"].as_u64().unwrap();
        assert!(plies < last.0 || (plies == last.0 && eq <= last.1), "{v}");
        last = (plies, eq);
    }
    assert_eq!(
        moves[0]["play"], "8/5 6/5",
        "the net knows the best opening 31"
    );
}

/// A 1-ply hint of a contact position (one that no race database values, at any ply).
const CONTACT_HINT: [&str; 9] = [
    "backgammon",
    "hint",
    "--position",
    "4HPwATDgc/ABMA",
    "--dice",
    "62",
    "--plies",
    "1",
    "--json",
];

#[test]
fn hint_is_the_same_with_any_thread_count() {
    let args = |threads: &'static str| [&CONTACT_HINT[..], &["--threads", threads]].concat();
    let one = tabula(&args("1"));
    let three = tabula(&args("3"));
    assert!(one.status.success());
    assert_eq!(stdout(&one), stdout(&three));
}

/// At one ply the pruning net can only hide an opponent's reply that the full nets would have
/// liked better: every candidate's equity with it is at least its equity with `--no-prune`,
/// and the two differ somewhere (so the pruning is on by default).
#[test]
fn the_pruned_last_ply_never_finds_a_better_reply() {
    let equities = |extra: &[&str]| -> Vec<(String, f64)> {
        let mut args = vec![
            "backgammon",
            "hint",
            "--position",
            "bLsbAgDutg0AEA",
            "--dice",
            "21",
            "--plies",
            "1",
            "--json",
        ];
        args.extend_from_slice(extra);
        let v = json_of(&args);
        let mut out: Vec<(String, f64)> = v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["plies"] == 1)
            .map(|m| {
                (
                    m["play"].as_str().unwrap().to_string(),
                    m["equity"].as_f64().unwrap(),
                )
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    };
    let pruned = equities(&[]);
    let full = equities(&["--no-prune"]);
    assert_eq!(pruned.len(), full.len());
    assert!(pruned.len() > 3);
    for ((play, p), (same, f)) in pruned.iter().zip(&full) {
        assert_eq!(play, same);
        assert!(p >= &(f - 1e-6), "{play}: pruned {p}, full {f}");
    }
    assert!(pruned.iter().zip(&full).any(|(p, f)| p.1 > f.1 + 1e-6));
}

#[test]
fn hint_two_plies_in_a_race_and_xgid_input() {
    // A race: bearing off against a few checkers left; XGID input with the dice in it.
    let v = json_of(&[
        "backgammon",
        "hint",
        "--position",
        "XGID=-BBBBBC------------bbbbbb-:0:0:1:42:0:0:0:0:10",
        "--plies",
        "2",
        "--json",
    ]);
    assert_eq!(v["plies"], 2);
    let moves = v["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    assert_eq!(moves[0]["plies"], 2);
    for m in moves {
        check_probabilities(&m["probabilities"]);
    }
}

#[test]
fn no_dice_evaluates_the_position() {
    let v = json_of(&["backgammon", "hint", "--plies", "0", "--json"]);
    assert_eq!(v["position"], "4HPwATDgc/ABMA");
    let p = check_probabilities(&v["probabilities"]);
    assert!((0.4..0.6).contains(&p[0]), "start is about even: {p:?}");
    // The cube decision comes with it: nobody doubles at the start.
    assert_eq!(v["cube"]["action"], "no double", "{v}");
    assert_eq!(v["cube"]["take"], true, "{v}");
    let text = tabula(&["backgammon", "hint", "--plies", "1"]);
    assert!(stdout(&text).contains("equity"));
    assert!(stdout(&text).contains("cube: no double"));
    // One checker left against fifteen at home: a sure gammon, too good to double.
    let mut me = [0u8; 25];
    let mut them = [0u8; 25];
    me[0] = 1;
    them[5] = 15;
    let id = tabula_engine::backgammon::Position::from_counts(me, them)
        .unwrap()
        .position_id();
    let v = json_of(&[
        "backgammon",
        "hint",
        "--position",
        &id,
        "--plies",
        "1",
        "--json",
    ]);
    assert_eq!(v["cube"]["action"], "too good to double, pass", "{v}");
    assert_eq!(v["cube"]["take"], false, "{v}");
}

/// The shipped evaluator decides the cube with the cube nets (`gammon/data/cube.tnet`) and
/// plays with the play nets (`backgammon.tnet`); `--weights` gives one file both jobs,
/// `--cube-weights` replaces the cube's alone.
#[test]
fn the_cube_nets_decide_the_cube_and_the_play_nets_play() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../gammon/data/");
    let (plays, cube) = (format!("{data}backgammon.tnet"), format!("{data}cube.tnet"));
    // A gammonish back game (docs/results.md, stop 44: the play nets' win chance there is
    // 0.18 above gnubg's), before the roll and with 31 to play.
    let hint = |extra: &[&str], dice: Option<&str>| {
        let mut args = vec![
            "backgammon",
            "hint",
            "--position",
            "0HMAwDvc3ZYAAA",
            "--plies",
            "1",
            "--json",
        ];
        if let Some(d) = dice {
            args.extend(["--dice", d]);
        }
        args.extend(extra);
        json_of(&args)
    };
    for dice in [None, Some("31")] {
        // Weights files have no pruning net: the shipped nets without theirs.
        let shipped = hint(&["--no-prune"], dice);
        let files = hint(&["--weights", &plays, "--cube-weights", &cube], dice);
        assert_eq!(shipped, files, "the shipped evaluator is the two files");
        let old = hint(&["--cube-weights", &plays, "--no-prune"], dice);
        assert_eq!(old, hint(&["--weights", &plays], dice));
        match dice {
            Some(_) => assert_eq!(shipped["moves"], old["moves"], "the same plays"),
            None => assert_ne!(
                shipped["probabilities"], old["probabilities"],
                "the cube nets value the position otherwise"
            ),
        }
    }
}

#[test]
fn finished_games_are_scored_exactly() {
    // The opponent has borne off everything; the player on roll still has all 15 on the bar:
    // a backgammon.
    let v = json_of(&[
        "backgammon",
        "hint",
        "--position",
        "XGID=-------------------------O:0:0:1:00:0:0:0:0:10",
        "--plies",
        "0",
        "--json",
    ]);
    assert_eq!(
        v["probabilities"],
        serde_json::json!([0.0, 0.0, 0.0, 1.0, 1.0])
    );
}

#[test]
fn bad_input_exits_2() {
    assert_bad_input(
        &[
            "backgammon",
            "hint",
            "--position",
            "nonsense",
            "--dice",
            "31",
        ],
        "Position ID",
    );
    assert_bad_input(&["backgammon", "hint", "--dice", "71"], "dice");
    // A money game's Match ID with the Crawford flag set.
    assert_bad_input(
        &["backgammon", "hint", "--match-id", "sAEAAAAAAAAA"],
        "Crawford",
    );
    // A huge bad argument is quoted in part: the error stays one short line.
    let long = "A".repeat(100_000);
    assert_bad_input(&["backgammon", "moves", "--dice", &long], "bytes in all");
    let out = tabula(&["backgammon", "moves", "--dice", &long]);
    assert!(out.stderr.len() < 1_100, "{} bytes", out.stderr.len());
    assert_bad_input(
        &["backgammon", "hint", "--dice", "31", "--plies", "9"],
        "plies",
    );
    let dir = scratch("bad");
    let missing = dir.join("missing.tnet");
    assert_bad_input(
        &["backgammon", "hint", "--weights", missing.to_str().unwrap()],
        "cannot read",
    );
    // A binary file where a text file belongs; an output in a directory that is not there.
    let binary = dir.join("binary.lab");
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x80]).unwrap();
    let binary = binary.to_str().unwrap();
    let out = dir.join("fit.tnet");
    let out = out.to_str().unwrap();
    assert_bad_input(
        &["backgammon", "fit", "--labels", binary, "--out", out],
        "not a text file",
    );
    assert_bad_input(
        &["backgammon", "baseline", "--from", binary],
        "not a text file",
    );
    let nowhere = dir.join("no-such-dir").join("x.w");
    let nowhere = nowhere.to_str().unwrap();
    assert_bad_input(
        &["backgammon", "train", "--games", "10", "--out", nowhere],
        "cannot write",
    );
    let err = tabula(&["backgammon", "train", "--games", "10", "--out", nowhere]);
    assert!(!String::from_utf8_lossy(&err.stderr).contains("cannot read"));
    let garbage = dir.join("garbage.tnet");
    std::fs::write(&garbage, b"definitely not weights").unwrap();
    assert_bad_input(
        &["backgammon", "hint", "--weights", garbage.to_str().unwrap()],
        "bad magic",
    );
    let shipped = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../gammon/data/backgammon.tnet"
    ))
    .unwrap();
    let cut = dir.join("cut.tnet");
    std::fs::write(&cut, &shipped[..shipped.len() / 2]).unwrap();
    assert_bad_input(
        &["backgammon", "hint", "--weights", cut.to_str().unwrap()],
        "truncated",
    );
    let mut flipped = shipped.clone();
    let n = flipped.len();
    flipped[n / 2] ^= 0x40;
    let flip = dir.join("flip.tnet");
    std::fs::write(&flip, &flipped).unwrap();
    assert_bad_input(
        &["backgammon", "hint", "--weights", flip.to_str().unwrap()],
        "checksum",
    );
    assert_bad_input(
        &[
            "backgammon",
            "hint",
            "--cube-weights",
            flip.to_str().unwrap(),
        ],
        "cube weights",
    );
    assert_bad_input(
        &[
            "backgammon",
            "hint",
            "--cube-weights",
            missing.to_str().unwrap(),
        ],
        "cannot read",
    );
    assert_bad_input(
        &[
            "backgammon",
            "train",
            "--games",
            "1",
            "--out",
            missing.to_str().unwrap(),
            "--resume",
        ],
        "cannot resume",
    );
    assert_bad_input(
        &[
            "backgammon",
            "train",
            "--games",
            "1",
            "--out",
            "x.tnet",
            "--lambda",
            "2",
        ],
        "lambda",
    );
    assert_bad_input(
        &["backgammon", "baseline", "--opponent", "gnubg"],
        "opponent",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ctrl-C ends a training run with its games saved (exit 130), and the resumed run ends
/// where an uninterrupted one does, byte for byte.
#[test]
fn an_interrupted_training_saves_and_resumes_exactly() {
    let dir = scratch("train-int");
    let (cut, straight) = (dir.join("cut.tnet"), dir.join("straight.tnet"));
    let run = |out: &PathBuf, games: &str, resume: bool| {
        let mut args = vec!["backgammon", "train", "--games", games, "--seed", "5"];
        args.extend_from_slice(&["--out", out.to_str().unwrap(), "--bench-games", "0"]);
        if resume {
            args.push("--resume");
        }
        args.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let child = common::command()
        .args(run(&cut, "100000000", false))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run tabula");
    // The file is written before the first game; a second later some games are played.
    for _ in 0..600 {
        if cut.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_secs(1));
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    let out = child.wait_with_output().expect("wait for tabula");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let games: u64 = err
        .split("error: interrupted: ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    let target = (games + 2).to_string();
    for (file, resume) in [(&cut, true), (&straight, false)] {
        let o = tabula(
            &run(file, &target, resume)
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert_eq!(
        std::fs::read(&cut).unwrap(),
        std::fs::read(&straight).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn training_resumes_deterministically() {
    let dir = scratch("train");
    let straight = dir.join("straight.tnet");
    let resumed = dir.join("resumed.tnet");
    let train = |out: &PathBuf, games: &str, resume: bool| {
        let mut args = vec![
            "backgammon",
            "train",
            "--games",
            games,
            "--seed",
            "5",
            "--out",
            out.to_str().unwrap(),
            "--checkpoint-every",
            "1",
            "--bench-games",
            "0",
        ];
        if resume {
            args.push("--resume");
        }
        let o = tabula(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stderr).contains("games/s"));
    };
    train(&straight, "3", false);
    train(&resumed, "2", false);
    train(&resumed, "3", true);
    assert_eq!(
        std::fs::read(&straight).unwrap(),
        std::fs::read(&resumed).unwrap()
    );
    assert!(!dir.join("straight.tnet.tmp").exists());
    // The trained file is usable as --weights.
    assert_weights_play(&straight);
    // It was trained with both nets: freezing the race net on resume must be asked for.
    // Resumes `straight` to `games` with `extra` options: whether the run says its race net
    // is frozen (the run must succeed).
    let resume_frozen = |games: &str, extra: &[&str]| -> bool {
        let mut args = vec![
            "backgammon",
            "train",
            "--games",
            games,
            "--out",
            straight.to_str().unwrap(),
            "--resume",
            "--bench-games",
            "0",
        ];
        args.extend_from_slice(extra);
        let o = tabula(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).contains("race net frozen")
    };
    assert_bad_input(
        &[
            "backgammon",
            "train",
            "--games",
            "4",
            "--out",
            straight.to_str().unwrap(),
            "--resume",
            "--freeze-race",
        ],
        "--freeze-race",
    );
    assert!(resume_frozen("4", &["--freeze-race", "--new-rates"]));
    // A later resume keeps it frozen without being told, with new rates too; --thaw-race
    // trains it again.
    assert!(resume_frozen("5", &[]));
    assert!(resume_frozen("6", &["--new-rates", "--alpha", "0.05"]));
    assert!(!resume_frozen("7", &["--new-rates", "--thaw-race"]));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn baseline_reports_a_win_rate() {
    let v = json_of(&[
        "backgammon",
        "baseline",
        "--games",
        "50",
        "--seed",
        "3",
        "--opponent",
        "random",
        "--json",
    ]);
    assert_eq!(v["games"], 50);
    assert!(v["win_rate"].as_f64().unwrap() > 0.7, "{v}");
}

/// A long `baseline` stopped by SIGTERM (as by Ctrl-C) reports the games played, marked
/// stopped, with exit code 130 (it used to die without a word): the same figures as a series
/// of that many games.
#[test]
fn a_stopped_baseline_reports_the_games_played() {
    let out = signalled(
        "-TERM",
        &["backgammon", "baseline", "--games", "100000000", "--json"],
        &[],
        || true,
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    assert_eq!(v["stopped"], true, "{v}");
    let games = v["games"].as_u64().unwrap();
    assert!(games > 0 && games < 100_000_000, "{v}");
    let mut whole = json_of(&[
        "backgammon",
        "baseline",
        "--games",
        &games.to_string(),
        "--json",
    ]);
    whole["stopped"] = true.into();
    assert_eq!(v, whole);
}

/// `baseline --from FILE`: duplicate games from the positions of a file (comments and blank
/// lines skipped), two a position, the report with the pairs' standard error; the shipped net
/// against itself scores exactly nothing, against the random player something; a bad line,
/// a finished game, an empty or a missing file is one error line naming it.
#[test]
fn baseline_from_positions_plays_duplicate_pairs() {
    let dir = scratch("from");
    let shipped = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../gammon/data/backgammon.tnet"
    );
    let file = dir.join("starts.txt");
    // The start, a race and a contact position, as `label` writes them (ID first).
    std::fs::write(
        &file,
        "# tabula-labels 1\n4HPwATDgc/ABMA 0.5\n\nCwAAYHgGBzYAAA\nu7sHAADYzgyMAQ 1 2\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let run = |opponent: &str| {
        json_of(&[
            "backgammon",
            "baseline",
            "--from",
            path,
            "--opponent",
            opponent,
            "--json",
        ])
    };
    let same = run(shipped);
    assert_eq!((&same["games"], &same["positions"]), (&6.into(), &3.into()));
    assert_eq!(same["points_per_game"], 0.0, "{same}");
    assert_eq!(same["points_per_game_se"], 0.0, "{same}");
    let random = run("random");
    assert_eq!(random["games"], 6, "{random}");
    assert!(random["points_per_game_se"].as_f64().is_some(), "{random}");
    let against_pip = [
        "backgammon",
        "baseline",
        "--from",
        path,
        "--opponent",
        "pip",
    ];
    let bad = |text: &str, expected: &str| {
        std::fs::write(&file, text).unwrap();
        assert_bad_input(&against_pip, expected);
    };
    bad("4HPwATDgc/ABMA\nnot-an-id\n", "line 2: bad Position ID");
    // Everything of the player on roll borne off: the game is over.
    let mut theirs = [0u8; 25];
    theirs[0] = 15;
    let over = tabula_engine::backgammon::Position::from_counts([0; 25], theirs).unwrap();
    bad(
        &format!("{}\n", over.position_id()),
        "line 1: the game is over",
    );
    bad("# nothing\n\n", "no positions");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_bad_input(&against_pip, "--from");
    assert_bad_input(
        &["backgammon", "baseline", "--from", path, "--games", "10"],
        "cannot be used with",
    );
}

/// `baseline --bearoff FILE` gives both nets exact bear-offs; a missing file is one error line.
#[test]
fn baseline_with_exact_bear_offs() {
    let db = common::cache_dir().join("bearoff-os.tdb");
    let shipped = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../gammon/data/backgammon.tnet"
    );
    let args = |db: &str, json: bool| {
        let mut a = vec![
            "backgammon".to_string(),
            "baseline".into(),
            "--games".into(),
            "20".into(),
            "--opponent".into(),
            shipped.into(),
            "--bearoff".into(),
            db.into(),
        ];
        if json {
            a.push("--json".into());
        }
        a
    };
    let a = args(db.to_str().unwrap(), true);
    let v = json_of(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(v["games"], 20);
    // The same net on both sides, seats alternating: wins and losses over the 20 games.
    assert!(
        (0.0..=1.0).contains(&v["win_rate"].as_f64().unwrap()),
        "{v}"
    );
    let missing = std::env::temp_dir().join(format!("tabula-no-such-{}.tdb", std::process::id()));
    let a = args(missing.to_str().unwrap(), false);
    assert_bad_input(
        &a.iter().map(String::as_str).collect::<Vec<_>>(),
        "bearoff database",
    );
}

#[test]
fn bearoff_database_gives_exact_bear_off_chances() {
    let dir = scratch("bearoff");
    let db = dir.join("bearoff-os.tdb").display().to_string();
    let out = tabula(&["tablebase", "build", "bearoff-os", "--out", &db]);
    assert!(out.status.success());
    let hint = |extra: &[&str]| {
        let base = ["backgammon", "hint", "--position", BEAR_OFF, "--json"];
        json_of(&[&base[..], extra].concat())
    };
    // Player on roll: gnubg's P(win) 0.75449, no gammons.
    let given = hint(&["--bearoff", &db]);
    let p = check_probabilities(&given["probabilities"]);
    assert!((p[0] - 0.75449).abs() < 5e-5, "{given}");
    assert_eq!(&p[1..], &[0.0; 4], "{given}");
    // By default the same database comes from the cache, for evaluations and plays alike.
    assert_eq!(hint(&[]), given);
    assert_eq!(
        hint(&["--dice", "21"]),
        hint(&["--dice", "21", "--bearoff", &db])
    );
    // `--no-bearoff` really leaves it to the net, which is only approximately right (0.7582
    // here with stop 71's race net, 0.0037 from the exact value; 0.7593 with stop 70's, the
    // nets before further off): not the database's value to the printed digits.
    let net = hint(&["--no-bearoff"]);
    let q = check_probabilities(&net["probabilities"]);
    assert!((q[0] - p[0]).abs() > 1e-4, "net {net} vs exact {given}");
    assert_bad_input(
        &[
            "backgammon",
            "hint",
            "--position",
            BEAR_OFF,
            "--bearoff",
            &dir.join("missing.tdb").display().to_string(),
        ],
        "bearoff database",
    );
    assert_bad_input(
        &["backgammon", "hint", "--bearoff", &db, "--no-bearoff"],
        "cannot be used with",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `hint --json` on the bear-off position with the bearoff cache in `cache` (plus `extra`
/// options): standard output and standard error, after checking it succeeded.
fn hint_cached(cache: &Path, extra: &[&str]) -> (String, String) {
    let out = common::command()
        .env("TABULA_CACHE_DIR", cache)
        .args(["backgammon", "hint", "--position", BEAR_OFF, "--json"])
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    (stdout(&out), err)
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_bearoff_cache_is_built_once_reused_and_repaired() {
    let dir = scratch("cache");
    let cache = dir.join("cache");
    let file = cache.join("bearoff-os.tdb");
    let (exact, _) = hint_cached(common::cache_dir(), &[]);
    let building = format!(
        "bearoff database: building it once, into {} (about 2 s in a release build)\n",
        file.display()
    );
    // Two runs at once on an empty cache: both answer exactly and leave one complete file.
    let racers: Vec<_> = (0..2)
        .map(|_| {
            let dir = cache.clone();
            std::thread::spawn(move || hint_cached(&dir, &[]))
        })
        .collect();
    let results: Vec<(String, String)> = racers.into_iter().map(|r| r.join().unwrap()).collect();
    for (out, err) in &results {
        assert_eq!(out, &exact);
        assert!(err.is_empty() || err == &building, "{err}");
    }
    assert!(results.iter().any(|(_, err)| err == &building));
    assert_eq!(files_in(&cache), ["bearoff-os.tdb"]);
    let good = std::fs::read(&file).unwrap();
    // Reused: nothing on stderr.
    assert_eq!(hint_cached(&cache, &[]), (exact.clone(), String::new()));
    // A flipped byte or a cut file is reported on one line, not trusted, and rebuilt.
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 0x10;
    for (bad, why) in [
        (&flipped[..], "checksum"),
        (&good[..good.len() / 2], "truncated"),
    ] {
        std::fs::write(&file, bad).unwrap();
        let (out, err) = hint_cached(&cache, &[]);
        assert_eq!(out, exact);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(why) && err.ends_with("; rebuilding it\n"),
            "{err}"
        );
        assert!(err.contains(&file.display().to_string()), "{err}");
        assert!(
            std::fs::read(&file).unwrap() == good,
            "rebuilt file differs"
        );
        assert_eq!(hint_cached(&cache, &[]), (exact.clone(), String::new()));
    }
    // A file there that is not this database (a user's notes, another kind of Tabula file, a
    // race database built there) is theirs: one line, kept as it is, the database from memory.
    let path = file.to_str().unwrap();
    let built = tabula(&[
        "tablebase",
        "build",
        "race-os",
        "--points",
        "7",
        "--replace",
        "--out",
        path,
    ]);
    assert!(built.status.success());
    let race = std::fs::read(&file).unwrap();
    for theirs in [&b"my notes"[..], &race[..]] {
        std::fs::write(&file, theirs).unwrap();
        let (out, err) = hint_cached(&cache, &[]);
        assert_eq!(out, exact);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("left as it is"), "{err}");
        assert!(std::fs::read(&file).unwrap() == theirs, "overwritten");
    }
    std::fs::write(&file, &good).unwrap();
    // A cache that cannot be written: a warning, and the database from memory.
    let blocked = dir.join("a-file");
    std::fs::write(&blocked, b"").unwrap();
    let (out, err) = hint_cached(&blocked.join("cache"), &[]);
    assert_eq!(out, exact);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with("bearoff database: building it once"),
        "{err}"
    );
    assert!(
        lines[1].starts_with("warning: bearoff database not cached"),
        "{err}"
    );
    // --no-bearoff leaves the cache alone.
    let unused = dir.join("unused");
    let (out, err) = hint_cached(&unused, &["--no-bearoff"]);
    assert_ne!(out, exact);
    assert!(err.is_empty(), "{err}");
    assert!(!unused.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Defect 4: `--threads` takes 1 to 256 (as in every game); 0 or more is one line, exit 2,
/// instead of one thread per core (0) or tens of thousands of threads.
#[test]
fn hint_threads_out_of_range_exit_2() {
    for n in ["0", "257", "100000"] {
        assert_bad_input(
            &["backgammon", "hint", "--dice", "31", "--threads", n],
            "--threads",
        );
    }
    for n in ["1", "256"] {
        let out = tabula(&[
            "backgammon",
            "hint",
            "--dice",
            "31",
            "--plies",
            "0",
            "--threads",
            n,
        ]);
        assert!(out.status.success(), "--threads {n}");
    }
}

/// Defect 7: a board where both sides have borne off every checker (Position ID of 80 zero
/// bits, or an XGID with an empty board) is refused; the old `hint` evaluated it as +1.000.
#[test]
fn positions_without_checkers_are_refused() {
    let empty = ["--position", "AAAAAAAAAAAAAA"];
    for cmd in [
        &["hint"][..],
        &["hint", "--dice", "31"],
        &["show"],
        &["moves", "--dice", "31"],
    ] {
        let args = [&["backgammon"][..], cmd, &empty].concat();
        assert_bad_input(&args, "neither side has a checker");
    }
    assert_bad_input(
        &[
            "backgammon",
            "hint",
            "--position",
            "XGID=--------------------------:0:0:1:00:0:0:0:0:10",
        ],
        "neither side has a checker",
    );
}

/// `--race-db FILE`: a race where the player on roll still has a checker on its 7-point (and
/// four on the ace point), against fifteen on the opponent's 6-point, is valued from the two
/// one-sided distributions (`tablebase probe` gives them) instead of the race net.
#[test]
fn race_database_values_races_beyond_the_home_board() {
    let dir = scratch("race");
    let race = dir.join("race-os7.tdb").display().to_string();
    let os = dir.join("bearoff-os.tdb").display().to_string();
    for (db, file, extra) in [
        ("race-os", &race, &["--points", "7"][..]),
        ("bearoff-os", &os, &[][..]),
    ] {
        let out = tabula(&[&["tablebase", "build", db, "--out", file][..], extra].concat());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let position = "4P8PAAAPBAAAAA";
    let hint = |extra: &[&str]| {
        // 0 plies: deeper, the plays bear this side down to the few-checker table.
        let base = [
            "backgammon",
            "hint",
            "--position",
            position,
            "--plies",
            "0",
            "--json",
        ];
        json_of(&[&base[..], extra].concat())
    };
    let exact = hint(&["--race-db", &race]);
    let p = check_probabilities(&exact["probabilities"]);
    // The same figures from the distributions: I win when the opponent needs at least as
    // many rolls as I do, a gammon when its first checker is not off by then.
    let probe = json_of(&[
        "tablebase",
        "probe",
        "race-os",
        "--file",
        &race,
        "--position",
        position,
        "--json",
    ]);
    let dist = |v: &serde_json::Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    let mine = dist(&probe["on_roll"]["distribution"]);
    let theirs = dist(&probe["opponent"]["distribution"]);
    let first: serde_json::Value = json_of(&[
        "tablebase",
        "probe",
        "bearoff-os",
        "--file",
        &os,
        "--points",
        "0,0,0,0,0,15",
        "--json",
    ]);
    let first = dist(&first["first_off_distribution"]);
    let at_least = |d: &[f64], k: usize| 1.0 - d.iter().take(k).sum::<f64>();
    let win: f64 = (0..mine.len())
        .map(|k| mine[k] * at_least(&theirs, k))
        .sum();
    let gammon: f64 = (0..mine.len()).map(|k| mine[k] * at_least(&first, k)).sum();
    assert!(
        (p[0] - win).abs() < 1e-5 && (p[1] - gammon).abs() < 1e-5,
        "{exact} {win} {gammon}"
    );
    assert!(p[1] > 0.1, "{exact}");
    // Without the database the race net values it, not exactly.
    let net = check_probabilities(&hint(&[])["probabilities"]);
    assert!(
        (net[0] - p[0]).abs() + (net[1] - p[1]).abs() > 1e-4,
        "{net:?} {p:?}"
    );
    // A bad file is one line naming it, and the database only goes with exact bear-offs.
    let refused = |extra: &[&str], needle: &str| {
        let base = ["backgammon", "hint", "--position", position];
        assert_bad_input(&[&base[..], extra].concat(), needle);
    };
    refused(&["--race-db", &os], "race database");
    refused(&["--race-db", "/nonexistent/r.tdb"], "/nonexistent/r.tdb");
    refused(&["--race-db", &race, "--no-bearoff"], "--no-bearoff");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `tablebase build race-os --install` puts the race database in the cache directory, and from
/// then on the AI uses it without `--race-db` (the same values as naming the file) unless
/// `--no-race-db`; it is opened by the first race an evaluation meets, so a contact position
/// never reads it; an installed file that does not open is not used, one line on stderr says
/// so, and it is neither rebuilt nor replaced; a second install is refused without --replace.
#[test]
fn an_installed_race_database_is_used_by_default() {
    let cache = scratch("race-install");
    // The tests' bearoff database, not built again here.
    std::fs::copy(
        common::cache_dir().join("bearoff-os.tdb"),
        cache.join("bearoff-os.tdb"),
    )
    .unwrap();
    let run = |args: &[&str]| {
        common::command()
            .env("TABULA_CACHE_DIR", &cache)
            .args(args)
            .output()
            .unwrap()
    };
    // A label run begun before the install: its file's fingerprint has no race database.
    let labels = cache.join("labels.txt").display().to_string();
    let label = |games: &str, extra: &[&str]| {
        let base = ["backgammon", "label", "--out", &labels, "--games", games];
        let common = ["--games-per-chunk", "1", "--plies", "1", "--races-only"];
        run(&[&base[..], &common, extra].concat())
    };
    assert!(label("1", &[]).status.success());
    let install = [
        "tablebase",
        "build",
        "race-os",
        "--points",
        "7",
        "--install",
    ];
    let out = run(&install);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = cache.join("race-os.tdb");
    let file_arg = file.display().to_string();
    let base = [
        "backgammon",
        "hint",
        "--position",
        "4P8PAAAPBAAAAA",
        "--plies",
        "0",
        "--json",
    ];
    let hint = |extra: &[&str]| {
        let out = run(&[&base[..], extra].concat());
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{extra:?}: {err}");
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        (check_probabilities(&v["probabilities"]), err)
    };
    let (default, err) = hint(&[]);
    assert!(err.is_empty(), "{err}");
    assert_eq!(default, hint(&["--race-db", &file_arg]).0);
    let (net, _) = hint(&["--no-race-db"]);
    // The race net, as without any database installed (the tests' shared cache has none).
    let shared = json_of(&base);
    assert_eq!(net, check_probabilities(&shared["probabilities"]));
    assert!(
        (net[0] - default[0]).abs() + (net[1] - default[1]).abs() > 1e-4,
        "{net:?} {default:?}"
    );
    // Resuming that run now is refused, naming the way back; --no-race-db resumes it.
    let refused = label("2", &["--resume"]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(err.contains("--no-race-db"), "{err}");
    let resumed = label("2", &["--resume", "--no-race-db"]);
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    // Installing again is refused without --replace: the file is the user's.
    let again = run(&install);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--replace"));
    assert_bad_input(
        &["backgammon", "hint", "--race-db", &file_arg, "--no-race-db"],
        "cannot be used with",
    );
    assert_bad_input(
        &[
            "tablebase",
            "build",
            "race-os",
            "--install",
            "--out",
            &file_arg,
        ],
        "cannot be used with",
    );
    // Another database under the race database's name: not used, one line, left as it is.
    std::fs::copy(cache.join("bearoff-os.tdb"), &file).unwrap();
    let before = std::fs::read(&file).unwrap();
    // It is opened by the first race an evaluation meets: a contact position never reads it.
    let contact = run(&CONTACT_HINT);
    assert!(contact.status.success());
    assert!(contact.stderr.is_empty(), "{contact:?}");
    let (damaged, err) = hint(&[]);
    assert_eq!(damaged, net);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("race database") && err.contains("not used"),
        "{err}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);
    // --no-race-db does not look at it.
    assert!(hint(&["--no-race-db"]).1.is_empty());
    std::fs::remove_dir_all(&cache).unwrap();
}

/// In a back game of the player who would take, `hint` before the roll at 2 plies takes the
/// chances and the cube from a rollout (`--cube-rollouts` trials, the same as `rollout`'s with
/// seed 1) and says so; `--cube-rollouts 0`, or 1 ply, leaves them to the search.
#[test]
fn hint_rolls_out_the_cube_of_a_back_game() {
    // An ace-deuce back game: the opponent holds the roller's 1- and 2-points.
    let hint = |trials: &str, plies: &str| {
        json_of(&[
            "backgammon",
            "hint",
            "--position",
            "0HMAwDvc3ZYAAA",
            "--cube-rollouts",
            trials,
            "--plies",
            plies,
            "--json",
        ])
    };
    let v = hint("36", "2");
    assert_eq!(v["cube"]["rollout"]["trials"], 36, "{v}");
    let se = v["cube"]["rollout"]["equity_se"].as_f64().unwrap();
    assert!(se > 0.0 && se < 0.1, "{v}");
    let r = json_of(&[
        "backgammon",
        "rollout",
        "--position",
        "0HMAwDvc3ZYAAA",
        "--trials",
        "36",
        "--seed",
        "1",
        "--json",
    ]);
    // The hint's probabilities are the rollout's in f32, both rounded to 6 decimals.
    let rolled = check_probabilities(&r["rollout"]["estimate"]["probabilities"]);
    let shown = check_probabilities(&v["probabilities"]);
    for (a, b) in rolled.iter().zip(&shown) {
        assert!((a - b).abs() < 2e-6, "{r} against {v}");
    }
    for (trials, plies) in [("0", "2"), ("36", "1")] {
        let s = hint(trials, plies);
        assert!(s["cube"].get("rollout").is_none(), "{s}");
        assert_ne!(s["probabilities"], v["probabilities"], "{s}");
    }
    let text = tabula(&[
        "backgammon",
        "hint",
        "--position",
        "0HMAwDvc3ZYAAA",
        "--cube-rollouts",
        "36",
    ]);
    assert!(text.status.success());
    assert!(
        stdout(&text).contains("by a rollout of 36 trials"),
        "{}",
        stdout(&text)
    );
    for bad in ["many", "11665"] {
        assert_bad_input(
            &["backgammon", "hint", "--cube-rollouts", bad],
            "--cube-rollouts",
        );
    }
}
