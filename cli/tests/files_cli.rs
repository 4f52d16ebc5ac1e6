//! Files Tabula reads and writes (`--table`, `--weights`, `train --out`, `tablebase build
//! --out`): devices and damaged files are refused at once, output paths are checked before
//! any work, two processes cannot write one file, and trained weights are not overwritten by
//! mistake.

mod common;

use common::{assert_bad_input, command, tabula};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

/// A scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tabula-files-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Runs `tabula args`, killing it if it has not finished after a generous minute: a command
/// that hangs (as reading `/dev/zero` to its end did) fails the test instead of hanging CI.
fn tabula_or_kill(args: &[&str]) -> Output {
    let mut child = command()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run tabula");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("poll tabula").is_none() {
        if Instant::now() > deadline {
            child.kill().expect("kill tabula");
            child.wait().expect("reap tabula");
            panic!("{args:?} still running after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("tabula's output")
}

fn assert_refused(out: &Output, args: &[&str], needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

/// Defect 3: a device as `--table` or `--weights` was read to its (never coming) end.
#[cfg(unix)]
#[test]
fn devices_as_table_or_weights_fail_at_once() {
    for args in [
        // A time limit gets past the refusal of unbounded solves from the start; without the
        // up-front check of the file each would search for that long.
        &[
            "bilitaire",
            "solve",
            "--time",
            "600",
            "--table",
            "/dev/zero",
        ][..],
        &["pylos", "solve", "--time", "600", "--table", "/dev/zero"],
        &["backgammon", "hint", "--weights", "/dev/zero"],
    ] {
        let out = tabula_or_kill(args);
        assert_refused(&out, args, "not a regular file");
    }
}

/// Defect 6: a solve holds its table file's lock, so a second one on the same file is refused
/// (here the test holds the lock, as a running solve would).
#[test]
fn a_locked_table_file_is_refused() {
    let dir = scratch("locked");
    let file = dir.join("t.tt");
    let lock = tabula_store::TargetLock::acquire(&file).unwrap();
    let args = [
        "pylos",
        "solve",
        "--rules",
        "children",
        "--time",
        "600",
        "--table",
        file.to_str().unwrap(),
    ];
    let out = tabula_or_kill(&args);
    assert_refused(&out, &args, "another process is writing");
    drop(lock);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Defect 6: a save killed before its rename leaves a temporary file; the next save on the
/// same table removes it (and the old fixed `FILE.tmp` name too), and leaves no lock behind.
#[test]
fn stale_temporary_table_files_are_cleaned_up() {
    let dir = scratch("stale");
    let file = dir.join("t.tt");
    // As killed writers leave them: the header's place still zeros, or the header written.
    std::fs::write(dir.join("t.tt.tmp-999999-0"), [0u8; 100]).unwrap();
    std::fs::write(dir.join("t.tt.tmp"), b"TABULAST and half a table").unwrap();
    // A file of such a name that a user made is kept.
    std::fs::write(dir.join("t.tt.tmp-mine"), b"my notes").unwrap();
    let position = "--..o.--/--....--/......../..oo..../--..o.oo/--ooo.oo/oooooo--/oooooo-- s";
    let out = tabula(&[
        "bilitaire",
        "solve",
        "--position",
        position,
        "--table",
        file.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(entries(&dir), ["t.tt", "t.tt.tmp-mine"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Defect 2 for the file: a table file in a directory that does not exist is refused before
/// the search, not after it.
#[test]
fn a_table_file_in_a_missing_directory_is_refused_before_searching() {
    let dir = scratch("no-dir");
    let file = dir.join("no/such/t.tt");
    // The unsolved start for 600 s: without the up-front check this would search that long.
    let file = file.to_str().unwrap();
    let args = ["bilitaire", "solve", "--time", "600", "--table", file];
    let out = tabula_or_kill(&args);
    assert_refused(&out, &args, "does not exist");
    let args = [
        "bilitaire",
        "solve",
        "--time",
        "600",
        "--table",
        dir.to_str().unwrap(),
    ];
    let out = tabula_or_kill(&args);
    assert_refused(&out, &args, "is a directory");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Defect 8: `tablebase build --out DIR` built everything, then failed to write.
#[test]
fn tablebase_build_checks_its_output_first() {
    let dir = scratch("build");
    for (out, needle) in [
        (dir.clone(), "not a regular file"),
        (dir.join("no/such/x.tdb"), "no such file or directory"),
    ] {
        let args = [
            "tablebase",
            "build",
            "bearoff-ts",
            "--out",
            out.to_str().unwrap(),
        ];
        let o = tabula_or_kill(&args);
        assert_refused(&o, &args, needle);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("bearoff-ts:"), "built before failing: {err}");
    }
    assert_eq!(entries(&dir), Vec::<String>::new());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn train(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "backgammon",
        "train",
        "--out",
        out.to_str().unwrap(),
        "--checkpoint-every",
        "1",
        "--bench-games",
        "0",
    ];
    args.extend_from_slice(extra);
    tabula(&args)
}

/// Defect 5: `train --out EXISTING` overwrote trained weights; `--games 0` was accepted.
#[test]
fn training_does_not_overwrite_weights_by_mistake() {
    let dir = scratch("train-out");
    let out = dir.join("w.tnet");
    let first = train(&out, &["--games", "1"]);
    assert!(first.status.success(), "{first:?}");
    let trained = std::fs::read(&out).unwrap();
    let o = train(&out, &["--games", "1", "--seed", "9"]);
    assert_refused(&o, &["train"], "--force");
    assert_eq!(std::fs::read(&out).unwrap(), trained, "left untouched");
    let o = train(&out, &["--games", "1", "--seed", "9", "--force"]);
    assert!(o.status.success(), "{o:?}");
    assert_ne!(std::fs::read(&out).unwrap(), trained, "replaced on --force");
    assert_bad_input(
        &[
            "backgammon",
            "train",
            "--games",
            "0",
            "--out",
            dir.join("zero.tnet").to_str().unwrap(),
        ],
        "--games",
    );
    assert!(!dir.join("zero.tnet").exists());
    assert_eq!(entries(&dir), ["w.tnet"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Defect 5: `--resume` continued with the default alpha/lambda, not the file's.
#[test]
fn resume_keeps_the_files_alpha_and_lambda() {
    let dir = scratch("train-resume");
    let (straight, resumed) = (dir.join("straight.tnet"), dir.join("resumed.tnet"));
    let params = ["--alpha", "0.05", "--lambda", "0.5"];
    let o = train(&straight, &[&["--games", "3"][..], &params].concat());
    assert!(o.status.success(), "{o:?}");
    let o = train(&resumed, &[&["--games", "2"][..], &params].concat());
    assert!(o.status.success(), "{o:?}");
    let o = train(&resumed, &["--games", "3", "--resume"]);
    assert!(o.status.success(), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("alpha 0.05, lambda 0.5"), "{err}");
    // The same games as the uninterrupted run with the same parameters.
    assert_eq!(
        std::fs::read(&straight).unwrap(),
        std::fs::read(&resumed).unwrap()
    );
    // An explicit different value is refused; the same one is fine.
    let o = train(&resumed, &["--games", "4", "--resume", "--alpha", "0.2"]);
    assert_refused(&o, &["train", "--resume", "--alpha"], "--alpha 0.2 differs");
    let o = train(&resumed, &["--games", "4", "--resume", "--lambda", "0.5"]);
    assert!(o.status.success(), "{o:?}");
    // Annealing on purpose: --new-rates continues with the new alpha and records it.
    let args = ["--games", "5", "--resume", "--alpha", "0.02", "--new-rates"];
    let o = train(&resumed, &args);
    assert!(o.status.success(), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("alpha 0.02, lambda 0.5"));
    let o = train(&resumed, &["--games", "6", "--resume"]);
    assert!(o.status.success(), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("alpha 0.02, lambda 0.5"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
