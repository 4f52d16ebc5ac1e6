//! `tabula serve`: the HTTP API as a child process on 127.0.0.1:0. Bounded: every socket read
//! has a timeout, and the child is killed at the end.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn request(addr: &str, text: &str) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.write_all(text.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).expect("an answer");
    out
}

/// The answer to a GET of `path`.
fn get(addr: &str, path: &str) -> String {
    request(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
    )
}

/// The answer to a POST of the JSON `body` to `path`.
fn post(addr: &str, path: &str, body: &str) -> String {
    request(
        addr,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    )
}

/// Starts `tabula serve --http 127.0.0.1:0` with `extra`; returns it with the address it
/// prints.
fn serve(extra: &[&str]) -> (Child, String) {
    let mut child = common::command()
        .args(["serve", "--http", "127.0.0.1:0"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tabula serve");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("serve: listening on http://")
        .unwrap_or_else(|| panic!("{line}"))
        .to_string();
    (child, addr)
}

#[test]
fn serve_answers_http_on_the_address_it_prints() {
    let (mut child, addr) = serve(&["--max-time", "2000", "--max-cube-rollouts", "72"]);
    let health = get(&addr, "/health");
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    assert!(health.contains(r#""status":"ok""#), "{health}");
    let bad = post(&addr, "/api/pylos/best", r#"{"position":"nonsense"}"#);
    assert!(bad.starts_with("HTTP/1.1 400"), "{bad}");
    assert!(bad.contains(r#""kind":"bad_input""#), "{bad}");
    let v = get(&addr, "/version");
    assert!(v.contains(r#""max_time_ms":2000"#), "{v}");
    assert!(v.contains(r#""max_cube_rollouts":72"#), "{v}");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn serve_refuses_a_bad_address_with_exit_code_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(["serve", "--http", "not-an-address"])
        .output()
        .expect("run tabula serve");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--http not-an-address"), "{err}");
}

#[test]
fn out_of_range_limits_are_refused_with_exit_code_2() {
    for (flag, value) in [
        ("--header-timeout", "0"),
        ("--max-connections", "0"),
        ("--max-searches", "0"),
        ("--max-cube-rollouts", "11665"),
        ("--max-cube-rollouts", "many"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tabula"))
            .args(["serve", "--http", "127.0.0.1:0", flag, value])
            .output()
            .expect("run tabula serve");
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(flag), "{flag}: {err}");
    }
}

#[test]
fn the_binary_serves_the_web_page_with_its_limits_set() {
    let (mut child, addr) = serve(&["--max-connections", "1", "--header-timeout", "5"]);
    // One connection at a time: each is answered and closed before the next is accepted.
    let page = get(&addr, "/");
    let script = get(&addr, "/static/app.js");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page
        .to_ascii_lowercase()
        .contains("content-type: text/html; charset=utf-8"));
    assert!(page.contains("/static/app.js"), "{page}");
    assert!(script.starts_with("HTTP/1.1 200"));
    assert!(script.contains("/api/backgammon/plays"));
}

/// The equity of the best 6-5 play of [`common::LATE_RACE`], answered by `tabula serve`
/// started with `extra`.
fn served_equity(extra: &[&str]) -> f64 {
    let (mut child, addr) = serve(extra);
    let body = format!(
        r#"{{"position":"{}","dice":"65","plies":0}}"#,
        common::LATE_RACE
    );
    let answer = post(&addr, "/api/backgammon/evaluate", &body);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let json = &answer[answer.find("\r\n\r\n").expect("a body") + 4..];
    let v: serde_json::Value = serde_json::from_str(json).expect("JSON");
    v["plays"][0]["equity"].as_f64().expect("an equity")
}

#[test]
fn serve_values_race_endings_as_hint_does() {
    let hint = |extra: &[&str]| common::late_race_hint(extra)["moves"][0]["equity"].as_f64();
    let (exact, net) = (hint(&[]).unwrap(), hint(&["--no-bearoff"]).unwrap());
    // The position tells the two evaluators apart: the few-checker table's gammons.
    assert!(exact - net > 0.05, "exact {exact}, the net {net}");
    assert_eq!(served_equity(&[]), exact);
    assert_eq!(served_equity(&["--no-bearoff"]), net);
}

#[test]
fn serve_refuses_a_missing_bearoff_file_with_exit_code_2() {
    common::assert_bad_input(
        &["serve", "--http", "127.0.0.1:0", "--bearoff", "no-such.tdb"],
        "no-such.tdb",
    );
}
