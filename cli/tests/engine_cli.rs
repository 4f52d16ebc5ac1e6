//! `tabula engine`: the UGI and UBGI protocols over stdin/stdout and TCP, run as a child
//! process with scripted input. Bounded: every search has a depth limit or is stopped, every
//! socket read has a timeout, and TCP stays on 127.0.0.1.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Runs `tabula engine` with `input` on stdin; returns its stdout lines and exit status.
fn engine(input: &[u8]) -> (Vec<String>, std::process::ExitStatus) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .env("TABULA_CACHE_DIR", common::cache_dir())
        .arg("engine")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tabula engine");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().unwrap();
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    (text.lines().map(str::to_string).collect(), out.status)
}

#[test]
fn ugi_session_over_stdin() {
    let (lines, status) = engine(
        b"ugi\nisready\nsetoption name Hash value 4\nposition startpos moves xd4\n\
          query tomove\nnonsense\ngo depth 2\n",
    );
    assert!(status.success());
    assert_eq!(
        lines[0].split(' ').take(3).collect::<Vec<_>>(),
        ["id", "name", "Tabula"]
    );
    assert!(lines.contains(&"ugiok".to_string()));
    assert!(lines.contains(&"readyok".to_string()));
    assert!(lines.contains(&"response slider".to_string()));
    assert!(lines.contains(&"error unknown_command unknown command \"nonsense\"".to_string()));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("info depth 2 score balls ")));
    // At the end of input the search is waited for: its bestmove is the last line.
    assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
}

#[test]
fn ugi_pylos_solve_is_exact() {
    // No `quit`: it would stop the search; the end of input waits for it.
    let (lines, status) = engine(
        b"ugi\ngame pylos rules children\nsetoption name Hash value 4\n\
          position fen wwwb/b.wb/bwww/wbbw|..w/..b/..b|../..|. b\ngo\n",
    );
    assert!(status.success());
    let info = &lines[lines.len() - 2];
    assert!(info.contains(" exact "), "{lines:?}");
    assert!(lines.last().unwrap().starts_with("bestmove "));
}

#[test]
fn garbage_and_long_lines_do_not_end_the_session() {
    let mut input = b"ugi\n".to_vec();
    input.extend(std::iter::repeat_n(b'a', 200_000));
    input.extend(b"\n\xff\xfe\x00\nisready\nquit\nisready\n");
    let (lines, status) = engine(&input);
    assert!(status.success());
    let n = lines.len();
    assert!(
        lines[n - 3].starts_with("error bad_argument line of "),
        "{lines:?}"
    );
    assert_eq!(
        lines[n - 2],
        "error bad_argument line is not UTF-8; discarded"
    );
    assert_eq!(lines[n - 1], "readyok", "nothing after quit");
}

#[test]
fn ubgi_session_over_stdin() {
    let (lines, status) = engine(
        b"ubgi\nsetoption name Plies value 0\nisready\nnewsession type money\nnewgame\n\
          go role chequer\nposition gnubgid 4HPwATDgc/ABMA\ndice 3 1\ngo role chequer\n\
          go role cube\ndice 9 9\nquit\n",
    );
    assert!(status.success());
    assert!(lines.contains(&"ubgiok".to_string()));
    assert!(lines.contains(&"readyok".to_string()));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("error missing_context no position")));
    assert!(lines.contains(&"bestmove 8/5 6/5".to_string()), "{lines:?}");
    assert!(lines.contains(&"bestcube nodouble".to_string()));
    assert!(lines.last().unwrap().starts_with("error bad_argument dice"));
}

/// Starts `tabula engine --listen 127.0.0.1:0` and returns it with its address.
fn server(extra: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .env("TABULA_CACHE_DIR", common::cache_dir())
        .args(["engine", "--listen", "127.0.0.1:0"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tabula engine --listen");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("engine: listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    (child, addr)
}

struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Client {
    fn connect(addr: &str) -> Client {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        Client {
            reader: BufReader::new(s.try_clone().unwrap()),
            writer: s,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.writer, "{line}").unwrap();
    }

    /// Lines up to and including the first that starts with `end`.
    fn until(&mut self, end: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let mut l = String::new();
            assert!(
                self.reader.read_line(&mut l).unwrap() > 0,
                "closed: {lines:?}"
            );
            let l = l.trim_end().to_string();
            let done = l.starts_with(end);
            lines.push(l);
            if done {
                return lines;
            }
        }
    }
}

#[test]
fn tcp_serves_two_clients_at_once_and_turns_away_a_third() {
    let (mut child, addr) = server(&["--max-connections", "2"]);
    let mut a = Client::connect(&addr);
    let mut b = Client::connect(&addr);
    a.send("ugi");
    b.send("ubgi");
    a.until("ugiok");
    b.until("ubgiok");
    // A searches without end while B is served.
    a.send("setoption name Hash value 4");
    a.send("position startpos moves xd4");
    a.send("go infinite");
    b.send("setoption name Plies value 0");
    b.send("position gnubgid 4HPwATDgc/ABMA");
    b.send("dice 3 1");
    b.send("go role chequer");
    assert_eq!(b.until("bestmove").last().unwrap(), "bestmove 8/5 6/5");
    // A third client is told the server is busy, and closed.
    let mut c = TcpStream::connect(&addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let mut text = String::new();
    c.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("error busy 2 connections"), "{text:?}");
    // A's search is still running and stops on request.
    a.send("isready");
    a.until("readyok");
    a.send("stop");
    assert!(a.until("bestmove").last().unwrap().starts_with("bestmove "));
    a.send("quit");
    b.send("quit");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn tcp_idle_clients_are_closed_after_the_read_timeout() {
    let (mut child, addr) = server(&["--timeout", "1"]);
    let mut a = Client::connect(&addr);
    // Sends nothing: the server closes the connection with one error line.
    let lines = a.until("error");
    assert!(lines[0].contains("read timeout"), "{lines:?}");
    child.kill().unwrap();
    child.wait().unwrap();
}

/// The `pgammon` of UBGI's best 6-5 play in [`common::LATE_RACE`], from `tabula engine`
/// started with `extra`.
fn ubgi_gammon(extra: &[&str]) -> f64 {
    let args: Vec<&str> = ["engine"].iter().chain(extra).copied().collect();
    let input = format!(
        "ubgi\nsetoption name Plies value 0\nposition gnubgid {}\ndice 6 5\ngo role chequer\n",
        common::LATE_RACE
    );
    let out = common::tabula_with_input(&args, &input);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let info = text
        .lines()
        .find(|l| l.starts_with("info role chequer"))
        .unwrap_or_else(|| panic!("{text}"));
    let words: Vec<&str> = info.split(' ').collect();
    let at = words.iter().position(|&w| w == "pgammon").expect("pgammon");
    words[at + 1].parse().expect("a number")
}

#[test]
fn ubgi_values_race_endings_as_hint_does() {
    // After 6-5 four checkers are left: the few-checker table values the race exactly (a
    // gammon chance of about 0.15), where the race net alone says about 0.05.
    let exact = ubgi_gammon(&[]);
    let net = ubgi_gammon(&["--no-bearoff"]);
    assert!(exact - net > 0.05, "exact {exact}, the net {net}");
    let hint =
        |extra: &[&str]| common::late_race_hint(extra)["moves"][0]["probabilities"][1].as_f64();
    // UBGI prints four decimals.
    assert!((exact - hint(&[]).unwrap()).abs() < 1e-4, "{exact}");
    assert!(
        (net - hint(&["--no-bearoff"]).unwrap()).abs() < 1e-4,
        "{net}"
    );
}

#[test]
fn engine_refuses_a_missing_race_file_with_exit_code_2() {
    common::assert_bad_input(&["engine", "--race-db", "no-such.tdb"], "no-such.tdb");
}

/// The TCP server's options without `--listen` are refused, not ignored.
#[test]
fn server_options_need_listen() {
    for option in ["--max-connections", "--timeout", "--max-hash"] {
        common::assert_bad_input(&["engine", option, "3"], "--listen");
    }
}
