//! `tabula serve`: its limits' flags are checked, and the binary serves the web page and the
//! API. The server runs as a child on 127.0.0.1 port 0 and is killed at the end.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn out_of_range_limits_are_refused_with_exit_code_2() {
    for (flag, value) in [
        ("--header-timeout", "0"),
        ("--max-connections", "0"),
        ("--max-searches", "0"),
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

fn get(addr: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("an answer");
    answer
}

#[test]
fn the_binary_serves_the_page_and_the_api_with_its_limits_set() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(["serve", "--http", "127.0.0.1:0", "--max-connections", "1"])
        .args(["--header-timeout", "5"])
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
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    let page = get(&addr, "/");
    let health = get(&addr, "/health");
    let _ = child.kill();
    let _ = child.wait();
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page
        .to_ascii_lowercase()
        .contains("content-type: text/html"));
    assert!(page.contains("/static/app.js"));
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    assert!(health.contains(r#""status":"ok""#), "{health}");
}
