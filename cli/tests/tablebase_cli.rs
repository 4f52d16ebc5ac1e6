//! `tabula tablebase`: build the bearoff databases into a scratch directory, probe them, and
//! exit code 2 with one line on stderr for bad boards and bad files.

mod common;

use common::{assert_bad_input, report, signalled, stdout, tabula};
use std::path::PathBuf;
use std::sync::OnceLock;
use tabula_api::tablebase::{
    BuildReport, OneSidedProbeReport, RaceProbeReport, TwoSidedProbeReport,
};

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tablebase-cli");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Both databases, built once by the command line (a few seconds in all).
fn built() -> &'static (String, String) {
    static FILES: OnceLock<(String, String)> = OnceLock::new();
    FILES.get_or_init(|| {
        let os = dir().join("bearoff-os.tdb").display().to_string();
        let ts = dir().join("bearoff-ts.tdb").display().to_string();
        for (db, file) in [("bearoff-os", &os), ("bearoff-ts", &ts)] {
            // A build keeps an existing file: start from none (the directory outlives a run).
            let _ = std::fs::remove_file(file);
            let out = tabula(&["tablebase", "build", db, "--out", file, "--json"]);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{err}");
            assert!(err.contains("100%"), "progress on stderr: {err}");
            let report: BuildReport = serde_json::from_str(&stdout(&out)).unwrap();
            assert_eq!(report.db, db);
            assert_eq!(&report.file, file);
            assert_eq!(
                report.bytes,
                std::fs::metadata(file).unwrap().len(),
                "{report:?}"
            );
            let positions = if db == "bearoff-os" {
                54_264
            } else {
                924 * 924
            };
            assert_eq!(report.positions, positions);
            assert!(!PathBuf::from(format!("{file}.tmp")).exists());
        }
        (os, ts)
    })
}

#[test]
fn one_sided_probe() {
    let (os, _) = built();
    let v: OneSidedProbeReport = report(&[
        "tablebase",
        "probe",
        "bearoff-os",
        "--file",
        os,
        "--points",
        "0,0,0,0,0,1",
        "--json",
    ]);
    assert_eq!(v.db, "bearoff-os");
    assert_eq!(v.points, [0, 0, 0, 0, 0, 1]);
    assert_eq!((v.checkers, v.pips), (1, 6));
    assert!((v.mean_rolls - 1.25).abs() < 1e-12);
    assert_eq!(v.distribution, [0.0, 0.75, 0.25]);
    for (points, mean) in [("15,0,0,0,0,0", "6.980"), ("0,0,0,0,0,15", "12.266")] {
        let v: OneSidedProbeReport = report(&[
            "tablebase",
            "probe",
            "bearoff-os",
            "--file",
            os,
            "--points",
            points,
            "--json",
        ]);
        assert_eq!(format!("{:.3}", v.mean_rolls), mean);
    }
    let text = stdout(&tabula(&[
        "tablebase",
        "probe",
        "bearoff-os",
        "-f",
        os,
        "--points",
        "0,0,0,0,0,1",
    ]));
    assert!(text.contains("mean rolls to bear off: 1.250000"), "{text}");
}

#[test]
fn two_sided_probe() {
    let (_, ts) = built();
    let v: TwoSidedProbeReport = report(&[
        "tablebase",
        "probe",
        "bearoff-ts",
        "--file",
        ts,
        "--points",
        "0,0,0,0,0,2",
        "--opponent",
        "0,0,0,0,0,2",
        "--json",
    ]);
    assert_eq!(v.db, "bearoff-ts");
    assert_eq!(
        (v.on_roll, v.opponent),
        ([0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 2])
    );
    assert!((v.win_probability - 0.75449).abs() < 5e-6);
    assert_eq!(format!("{:+.4}", v.equity), "+0.5090");
    // The same position from its gnubg Position ID.
    let w: TwoSidedProbeReport = report(&[
        "tablebase",
        "probe",
        "bearoff-ts",
        "--file",
        ts,
        "--position",
        "YAAAAAMAAAAAAA",
        "--json",
    ]);
    assert_eq!(w, v);
}

#[test]
fn bad_boards_exit_2() {
    let (os, ts) = built();
    let probe_os = |points: &str, needle: &str| {
        assert_bad_input(
            &[
                "tablebase",
                "probe",
                "bearoff-os",
                "--file",
                os,
                "--points",
                points,
            ],
            needle,
        )
    };
    probe_os("1,2,3", "expected six checker counts");
    probe_os("0,0,0,0,0,x", "expected six checker counts");
    probe_os("0,0,0,0,9,9", "at most 15");
    assert_bad_input(
        &[
            "tablebase",
            "probe",
            "bearoff-ts",
            "--file",
            ts,
            "--points",
            "0,0,0,0,0,7",
            "--opponent",
            "0,0,0,0,0,1",
        ],
        "at most 6",
    );
    assert_bad_input(
        &[
            "tablebase",
            "probe",
            "bearoff-ts",
            "--file",
            ts,
            "--points",
            "0,0,0,0,0,1",
        ],
        "--opponent",
    );
    assert_bad_input(
        &[
            "tablebase",
            "probe",
            "bearoff-os",
            "--file",
            os,
            "--position",
            "4HPwATDgc/ABMA",
        ],
        "not a bearoff position",
    );
    assert_bad_input(&["tablebase", "build", "bearoff-xx"], "bearoff-xx");
}

#[test]
fn an_existing_database_is_kept_unless_replace_is_given() {
    let (os, _) = built();
    let bytes = std::fs::read(os).unwrap();
    let file = dir().join("existing.tdb");
    let mut mine = bytes.clone();
    mine.truncate(bytes.len() / 2);
    std::fs::write(&file, &mine).unwrap();
    let path = file.display().to_string();
    assert_bad_input(
        &["tablebase", "build", "bearoff-os", "--out", &path],
        "--replace",
    );
    assert_eq!(std::fs::read(&file).unwrap(), mine, "the file was touched");
    let out = tabula(&[
        "tablebase",
        "build",
        "bearoff-os",
        "--out",
        &path,
        "--replace",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&file).unwrap(), bytes);
}

#[test]
fn bad_files_exit_2() {
    let (os, ts) = built();
    let bytes = std::fs::read(os).unwrap();
    let probe = |file: &str, needle: &str| {
        assert_bad_input(
            &[
                "tablebase",
                "probe",
                "bearoff-os",
                "--file",
                file,
                "--points",
                "0,0,0,0,0,1",
            ],
            needle,
        )
    };
    let corrupt = dir().join("corrupt.tdb").display().to_string();
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0x01;
    std::fs::write(&corrupt, &flipped).unwrap();
    probe(&corrupt, "checksum");
    let truncated = dir().join("truncated.tdb").display().to_string();
    std::fs::write(&truncated, &bytes[..bytes.len() - 100]).unwrap();
    probe(&truncated, "truncated");
    let garbage = dir().join("garbage.tdb").display().to_string();
    std::fs::write(
        &garbage,
        b"hello, world: not a database at all, but long enough",
    )
    .unwrap();
    probe(&garbage, "not a Tabula file");
    probe(
        &dir().join("missing.tdb").display().to_string(),
        "missing.tdb",
    );
    probe(
        ts,
        "a bearoff-ts file, expected a bearoff-os or race-os file",
    );
    assert_bad_input(
        &[
            "tablebase",
            "build",
            "bearoff-os",
            "--out",
            &dir().join("no/such/dir/x.tdb").display().to_string(),
        ],
        "no such file or directory",
    );
}

#[test]
fn help_documents_the_board_format() {
    let out = tabula(&["tablebase", "probe", "bearoff-os", "--help"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.contains("--points"), "{text}");
    assert!(text.contains("ace point first"), "{text}");
}

/// Issue 13, defect 7: a two-sided probe with no checker on either side was answered
/// ("P(win) 1.000000") instead of refused.
#[test]
fn a_two_sided_probe_with_no_checkers_is_refused() {
    let (_, ts) = built();
    let args = ["tablebase", "probe", "bearoff-ts", "--file", ts];
    let empty = "0,0,0,0,0,0";
    let both_empty = [&args[..], &["--points", empty, "--opponent", empty]].concat();
    assert_bad_input(&both_empty, "no checker on either board");
    // One side with checkers is a position (the other side has borne off).
    let one_side = [&args[..], &["--points", "0,0,0,0,0,1", "--opponent", empty]].concat();
    let out = tabula(&one_side);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `tablebase build race-os --points 7 --out OUT EXTRA…`.
fn race7<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "tablebase",
        "build",
        "race-os",
        "--points",
        "7",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    args
}

/// A race build stopped by SIGTERM (as by Ctrl-C) writes a checkpoint beside its output; a
/// fresh build refuses to start over it, `--resume` finishes it, and the database is the one a
/// build that ran straight through writes, byte for byte.
#[test]
fn an_interrupted_race_build_resumes() {
    let file = dir().join("race-os7-resumed.tdb").display().to_string();
    let straight = dir().join("race-os7-straight.tdb").display().to_string();
    let checkpoint = format!("{file}.checkpoint");
    for f in [&file, &straight, &checkpoint] {
        let _ = std::fs::remove_file(f);
    }
    assert_bad_input(&race7(&file, &["--resume"]), "nothing to resume");
    // A 7-point build takes seconds; the signal comes 1.5 s in.
    let out = signalled("-TERM", &race7(&file, &[]), &[], || true);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("continue with --resume"), "{err}");
    assert!(std::path::Path::new(&checkpoint).exists(), "{err}");
    assert!(!std::path::Path::new(&file).exists(), "{err}");
    assert_bad_input(
        &race7(&file, &[]),
        "continue it with --resume, or delete it",
    );
    let resumed: BuildReport = report(&race7(&file, &["--resume", "--json"]));
    assert_eq!(resumed.positions, 170_544);
    assert!(!std::path::Path::new(&checkpoint).exists());
    let out = tabula(&race7(&straight, &[]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(std::fs::read(&file).unwrap() == std::fs::read(&straight).unwrap());
    for f in [&file, &straight] {
        std::fs::remove_file(f).unwrap();
    }
}

/// The race database of 7 points (the smallest, 170,544 boards: seconds), built and probed
/// by the command line; bad requests are one line and exit code 2.
#[test]
fn race_database_build_and_probe() {
    let file = dir().join("race-os7.tdb").display().to_string();
    let _ = std::fs::remove_file(&file);
    let build = |extra: &[&str]| tabula(&race7(&file, extra));
    let out = build(&["--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let made: BuildReport = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((made.db.as_str(), made.positions), ("race-os", 170_544));
    // Built again without --replace: refused, the file kept.
    let again = build(&[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--replace"));
    let probe = |id: &str| -> RaceProbeReport {
        report(&[
            "tablebase",
            "probe",
            "race-os",
            "--file",
            &file,
            "--position",
            id,
            "--json",
        ])
    };
    // The player on roll: checkers on the 7- and ace points; the opponent two on its 2-point.
    let v = probe("BgAACAQAAAAAAA");
    assert_eq!((v.db.as_str(), v.points, v.race), ("race-os", 7, true));
    assert_eq!(v.on_roll.pips, 8);
    assert_eq!(v.opponent.pips, 4);
    assert!(v.on_roll.not_covered.is_none() && v.opponent.not_covered.is_none());
    // Two on its 2-point: the opponent finishes in one roll unless one die is a 1 and the
    // other not (1-1 plays 2/1 2/1 1/off 1/off): 10 of 36 rolls take two.
    let d = &v.opponent.distribution;
    assert!(
        (d[1] - 26.0 / 36.0).abs() < 1e-6 && (d[2] - 10.0 / 36.0).abs() < 1e-6,
        "{d:?}"
    );
    // A checker on the 10-point is beyond 7 points: named, not an error.
    let v = probe("4P8PAAAAAgAAAA");
    assert!(
        v.on_roll
            .not_covered
            .as_deref()
            .unwrap()
            .contains("point 10"),
        "{v:?}"
    );
    assert!(v.opponent.mean_rolls.is_some());
    // Probing a file with wrong options: one line each, exit code 2.
    let (os, _) = built();
    for (file, extra, needle) in [
        (&file, ["--points", "0,0,0,0,0,1"], "--position"),
        (&file, ["--position", "nonsense"], "Position ID"),
        (os, ["--position", "BgAACAQAAAAAAA"], "bearoff-os"),
    ] {
        let base = ["tablebase", "probe", "race-os", "--file", file.as_str()];
        assert_bad_input(&[&base[..], &extra[..]].concat(), needle);
    }
    let out = tabula(&[
        "tablebase",
        "build",
        "race-os",
        "--points",
        "13",
        "--out",
        &file,
    ]);
    assert_eq!(out.status.code(), Some(2));
}
