//! `tabula tablebase build|probe pylos` on the 3×3 board: the tables are built by the command
//! line in a scratch directory, probed, and refused when missing, damaged or in the way; and
//! `pylos solve|play` answer from them.

mod common;

use common::{assert_bad_input, json_output, report, stdout, tabula, tabula_with_input};
use std::path::PathBuf;
use tabula_api::tablebase::{PylosBuildReport, PylosProbeReport};

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("tablebase-pylos-cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The words of a command on the 3×3 board: `words` first (e.g. `tablebase build pylos`),
/// then `--board 3` and the `rest`.
fn small<'a>(words: &'static str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args: Vec<&str> = words.split(' ').collect();
    args.extend(["--board", "3"]);
    args.extend_from_slice(rest);
    args
}

const BUILD: &str = "tablebase build pylos";
const PROBE: &str = "tablebase probe pylos";

fn build(dir: &str, rules: &str, takeback: &str) -> PylosBuildReport {
    report(&small(
        BUILD,
        &[
            "--rules",
            rules,
            "--takeback",
            takeback,
            "--dir",
            dir,
            "--json",
        ],
    ))
}

fn probe(dir: &str, rules: &str, takeback: &str, position: &str) -> PylosProbeReport {
    report(&small(
        PROBE,
        &[
            "--rules",
            rules,
            "--takeback",
            takeback,
            "--dir",
            dir,
            "--position",
            position,
            "--census",
            "--json",
        ],
    ))
}

#[test]
fn every_rule_set_builds_and_its_start_agrees_with_its_moves() {
    let dir = scratch("all");
    let d = dir.to_str().unwrap();
    for rules in ["children", "standard", "mature"] {
        for takeback in ["optional", "compulsory"] {
            let b = build(d, rules, takeback);
            assert_eq!(b.rules.board, 3);
            assert_eq!(b.size, b.won + b.lost + b.drawn + b.holes, "{b:?}");
            assert_eq!(b.bytes, std::fs::metadata(&b.file).unwrap().len());
            assert!(b.file.ends_with(&format!("pylos-3-{rules}-{takeback}.tb")));
            // The longest win's example is won in exactly that many plies.
            let longest = b.longest_win.as_ref().unwrap();
            let at = probe(d, rules, takeback, &longest.position);
            assert_eq!((at.result.as_str(), at.plies), ("win", Some(longest.plies)));
            // The start: its value is its best move's, and no move is better.
            let start = probe(d, rules, takeback, ".../.../...|../..|. b");
            let best = &start.moves[0];
            assert_eq!(start.best.as_deref(), Some(best.mv.as_str()));
            assert_eq!((&start.result, start.plies), (&best.result, best.plies));
            assert_eq!(start.moves.len(), 9, "nine first moves");
            // A move's value is the value of the position it leads to, one ply later, seen
            // from the other side.
            let after = probe(d, rules, takeback, &best.position);
            let flipped = match after.result.as_str() {
                "win" => "loss",
                "loss" => "win",
                other => other,
            };
            assert_eq!(flipped, best.result);
            assert_eq!(after.plies.map(|p| p + 1), best.plies);
            // The classes reachable from the start are some of the table's.
            let census = start.reachable.unwrap();
            assert_eq!(census.positions, census.won + census.lost + census.drawn);
            assert!(census.positions > 1000 && census.positions <= b.won + b.lost + b.drawn);
        }
    }
}

#[test]
fn tables_in_the_way_missing_or_damaged_are_refused() {
    let dir = scratch("refused");
    let d = dir.to_str().unwrap();
    let children = ["--rules", "children", "--dir", d];
    // Missing: the message says how to build it.
    assert_bad_input(
        &small(PROBE, &children),
        "tabula tablebase build pylos --board 3 --rules children",
    );
    // Nothing to resume.
    assert_bad_input(
        &small(BUILD, &[&children[..], &["--resume"]].concat()),
        "nothing to resume",
    );
    // A file where the directory should be.
    let file = dir.join("a-file");
    std::fs::write(&file, b"notes").unwrap();
    let f = file.to_str().unwrap();
    assert_bad_input(
        &small(BUILD, &["--rules", "children", "--dir", f]),
        "is not a directory",
    );
    build(d, "children", "optional");
    // An existing table is kept unless --replace is given, and replaced when it is.
    assert_bad_input(&small(BUILD, &children), "--replace");
    let again: PylosBuildReport = report(&small(
        BUILD,
        &[&children[..], &["--replace", "--json"]].concat(),
    ));
    assert_eq!(again.rules.rules, "children");
    // Damaged: one byte flipped in the values is an error, not an answer.
    let file = dir.join("pylos-3-children-optional.tb");
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    let out = tabula(&small(PROBE, &[&children[..], &["--census"]].concat()));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("damaged") || err.contains("corrupt"), "{err}");
    // Truncated.
    std::fs::write(&file, &bytes[..n - 100]).unwrap();
    assert_bad_input(&small(PROBE, &children), "table");
    // Another rule set's table under this one's name: refused by its context.
    build(d, "mature", "optional");
    std::fs::copy(dir.join("pylos-3-mature-optional.tb"), &file).unwrap();
    assert_bad_input(&small(PROBE, &children), "mature");
    // A position of the other board.
    let full = "..../..../..../....|.../.../...|../..|. b";
    assert_bad_input(
        &small(
            PROBE,
            &["--rules", "mature", "--dir", d, "--position", full],
        ),
        "--position",
    );
}

/// `pylos solve` answers from the table when one is there (and agrees with its own search
/// under `children` rules, where the search is exact); `pylos play` plays from it.
#[test]
fn solve_and_play_use_the_table() {
    let dir = scratch("solve");
    let d = dir.to_str().unwrap();
    build(d, "children", "optional");
    let position = "b../.w./...|../..|. b";
    let from_table = json_output(&small(
        "pylos solve",
        &[
            "--rules",
            "children",
            "--tablebase",
            d,
            "--position",
            position,
            "--json",
        ],
    ));
    assert!(from_table["tablebase"].as_str().unwrap().ends_with(".tb"));
    assert_eq!(from_table["nodes"], 0);
    let searched = json_output(&small(
        "pylos solve",
        &[
            "--rules",
            "children",
            "--no-tablebase",
            "--position",
            position,
            "--json",
        ],
    ));
    assert!(searched.get("tablebase").is_none());
    for field in ["result", "plies", "value"] {
        assert_eq!(from_table[field], searched[field], "{field}");
    }
    // The line is the table's best play to the end: as long as the distance.
    assert_eq!(
        from_table["pv"].as_array().unwrap().len() as u64,
        from_table["plies"].as_u64().unwrap()
    );
    let out = tabula_with_input(
        &small("pylos play", &["--rules", "children", "--tablebase", d]),
        "hint\nquit\n",
    );
    let text = stdout(&out);
    assert!(text.contains("plays from the tablebase"), "{text}");
    assert!(text.contains("(exact)"), "{text}");
}
