//! Helpers shared by the CLI integration tests: run the binary, read its output, and check the
//! bad-input convention (exit code 2, one line on stderr, no panic).
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// Two checkers on the 6-point each: a bear-off position with gnubg's P(win) 0.75449.
pub const BEAR_OFF: &str = "YAAAAAMAAAAAAA";

/// The bearoff cache of every `tabula` the tests start (`TABULA_CACHE_DIR`), so that none
/// writes into the home directory. It is under cargo's target directory and outlives the run:
/// the database is built the first time only, and the CLI checks it on every load.
pub fn cache_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bearoff-cache");
        // Fill it before any test runs, so parallel tests do not each build the database.
        let out = Command::new(env!("CARGO_BIN_EXE_tabula"))
            .env("TABULA_CACHE_DIR", &dir)
            .args(["backgammon", "hint", "--position", BEAR_OFF, "--plies", "0"])
            .output()
            .expect("run tabula");
        assert!(
            out.status.success(),
            "filling the bearoff cache: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
}

/// The binary, with the tests' bearoff cache.
pub fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tabula"));
    command.env("TABULA_CACHE_DIR", cache_dir());
    command
}

pub fn tabula(args: &[&str]) -> Output {
    command().args(args).output().expect("run tabula")
}

/// Runs `tabula args`, killed after `seconds`: `None` when it had not finished by then.
pub fn tabula_within(args: &[&str], seconds: u64) -> Option<Output> {
    let mut child = command()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tabula");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while std::time::Instant::now() < deadline {
        if child.try_wait().expect("wait").is_some() {
            return Some(child.wait_with_output().expect("output"));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Runs the binary with `input` on standard input.
pub fn tabula_with_input(args: &[&str], input: &str) -> Output {
    tabula_with_bytes(args, input.as_bytes())
}

/// Runs the binary with `input` (any bytes) on standard input.
pub fn tabula_with_bytes(args: &[&str], input: &[u8]) -> Output {
    let mut child = command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tabula");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input)
        .expect("write stdin");
    child.wait_with_output().expect("wait for tabula")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Parses standard output as one JSON document, after checking the command succeeded.
pub fn json_output(args: &[&str]) -> serde_json::Value {
    let out = tabula(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// Runs `tabula args` (which must succeed) and parses its stdout as the report type `T`.
pub fn report<T: serde::de::DeserializeOwned>(args: &[&str]) -> T {
    let out = tabula(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// Asserts a clean failure: exit code 2, one line on stderr containing `needle`, no panic.
pub fn assert_bad_input(args: &[&str], needle: &str) {
    let out = tabula(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

/// Five checkers left (one on the 7-point) against fifteen at home: after 6-5 the four left are
/// in the few-checker table, whose gammon chance (about 0.15) the race net misses (about 0.05).
pub const LATE_RACE: &str = "4P8PAAAPBAAAAA";

/// `backgammon hint --json` of [`LATE_RACE`] and 6-5 at 0 plies, with `extra`.
pub fn late_race_hint(extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "backgammon",
        "hint",
        "--position",
        LATE_RACE,
        "--dice",
        "65",
        "--plies",
        "0",
        "--json",
    ];
    args.extend(extra);
    json_output(&args)
}

/// A weights file the CLI made plays: a 0-ply hint from the start with 31 ranks its 16 plays.
pub fn assert_weights_play(weights: &Path) {
    let v = json_output(&[
        "backgammon",
        "hint",
        "--dice",
        "31",
        "--plies",
        "0",
        "--json",
        "--weights",
        weights.to_str().unwrap(),
    ]);
    assert_eq!(v["moves"].as_array().unwrap().len(), 16, "{v}");
}

/// `tabula ARGS` with `env`, stopped by the signal `kill` names `signal` (`-INT`, `-TERM`) once
/// 1.5 s have passed and `ready()` holds (polled for up to a minute); checks it exited with
/// code 130.
pub fn signalled(
    signal: &str,
    args: &[&str],
    env: &[(&str, &str)],
    ready: impl Fn() -> bool,
) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tabula");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    for _ in 0..600 {
        if ready() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let killed = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    let out = child.wait_with_output().expect("wait for tabula");
    assert_eq!(out.status.code(), Some(130), "{}", stdout(&out));
    out
}
