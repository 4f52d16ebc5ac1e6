//! `tabula backgammon external`: a fake gnubg connects to the server on an ephemeral port, sends
//! FIBS board lines as gnubg 1.07 does (captured lines from engine/tests/data), and checks that
//! the plays are legal and the cube answers are gnubg's words; bad addresses exit with code 2.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::Duration;

use tabula_engine::backgammon::{Dice, FibsBoard, Position};

mod common;
use common::tabula;

/// Starts the server on a free port; returns the child and a connected client.
fn start(extra: &[&str]) -> (Child, TcpStream) {
    let mut child = common::command()
        .args([
            "backgammon",
            "external",
            "--listen",
            "127.0.0.1:0",
            "--once",
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tabula");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("read the address");
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    let stream = TcpStream::connect(&addr).expect("connect");
    (child, stream)
}

struct Client {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Client {
    fn new(stream: TcpStream) -> Client {
        Client {
            writer: stream.try_clone().unwrap(),
            reader: BufReader::new(stream),
        }
    }

    /// Sends a line the way gnubg does (newline, then a NUL byte) and reads the reply.
    fn ask(&mut self, line: &str) -> String {
        self.writer
            .write_all(format!("{line}\n\0").as_bytes())
            .unwrap();
        let mut reply = String::new();
        self.reader.read_line(&mut reply).expect("reply");
        assert!(
            reply.ends_with('\n'),
            "reply {reply:?} not ended by a newline"
        );
        reply.trim_end_matches('\n').to_string()
    }
}

fn fixture_boards() -> Vec<String> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/data/backgammon-fibs.txt");
    std::fs::read_to_string(path)
        .expect("fixture")
        .lines()
        .filter(|l| l.starts_with("board:"))
        .map(|l| l.split(" | ").next().unwrap().to_string())
        .collect()
}

fn finish(mut child: Child, client: Client) {
    drop(client);
    let status = child.wait().expect("wait");
    assert!(status.success(), "server exit {status:?}");
}

#[test]
fn plays_for_gnubg_board_lines_are_legal() {
    let (child, stream) = start(&["--plies", "0"]);
    let mut client = Client::new(stream);
    let boards = fixture_boards();
    assert!(boards.len() >= 30);
    for line in boards.iter().take(30) {
        let b = FibsBoard::parse(line).unwrap();
        let dice = Dice::new(b.dice.0, b.dice.1).unwrap();
        let reply = client.ask(line);
        if b.position.plays(dice).is_empty() {
            assert_eq!(reply, "", "{line}");
        } else {
            b.position
                .parse_play(dice, &reply)
                .unwrap_or_else(|e| panic!("{line}: reply {reply:?}: {e}"));
        }
    }
    // Not a board: gnubg's error convention, and the connection goes on.
    assert!(client.ask("hello").starts_with("Error: "));
    let again = client.ask(&boards[0]);
    assert!(!again.is_empty());
    finish(child, client);
}

fn board(position: Position, dice: (u8, u8), doubled: bool) -> String {
    FibsBoard {
        names: ["gnubg".into(), "root".into()],
        match_length: 0,
        score: [0, 0],
        position,
        on_roll: 0,
        dice,
        cube: 1,
        cube_owner: None,
        doubled: doubled as i8,
        crawford: false,
        post_crawford: false,
    }
    .to_string()
}

#[test]
fn cube_answers_are_gnubgs_words() {
    // 1-ply: the last roll of a won race is evaluated exactly.
    let (child, stream) = start(&["--plies", "1"]);
    let mut client = Client::new(stream);
    for line in fixture_boards().iter().take(12) {
        let mut b = FibsBoard::parse(line).unwrap();
        b.dice = (0, 0);
        b.doubled = 0;
        let r = client.ask(&b.to_string());
        assert!(r == "roll" || r == "double", "{b}: {r:?}");
        b.doubled = 1;
        let r = client.ask(&b.to_string());
        assert!(r == "take" || r == "drop", "{b}: {r:?}");
    }
    // The opening position: no double; a take.
    assert_eq!(client.ask(&board(Position::START, (0, 0), false)), "roll");
    assert_eq!(client.ask(&board(Position::START, (0, 0), true)), "take");
    // One checker left on the six point against two on the opponent's six point (13 off): 27
    // rolls of 36 win at once, nearly all the others next turn; no gammons. Double, drop.
    let mut me = [0u8; 25];
    let mut opp = [0u8; 25];
    me[5] = 1;
    opp[5] = 2;
    let won = Position::from_counts(me, opp).unwrap();
    assert_eq!(client.ask(&board(won, (0, 0), false)), "double");
    assert_eq!(client.ask(&board(won, (0, 0), true)), "drop");
    // Crawford game: no double even when winning.
    let mut b = FibsBoard::parse(&board(won, (0, 0), false)).unwrap();
    b.match_length = 5;
    b.score = [4, 2];
    b.crawford = true;
    assert_eq!(client.ask(&b.to_string()), "roll");
    finish(child, client);
}

fn assert_bad_input(args: &[&str], needle: &str) {
    let out = tabula(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(needle), "{args:?}: {err} lacks {needle:?}");
}

#[test]
fn bad_listen_addresses_exit_2() {
    let ext = ["backgammon", "external", "--listen"];
    assert_bad_input(
        &[&ext[..], &["nonsense"]].concat(),
        "invalid --listen address",
    );
    assert_bad_input(
        &[&ext[..], &["127.0.0.1:99999"]].concat(),
        "invalid --listen",
    );
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    assert_bad_input(&[&ext[..], &[addr.as_str()]].concat(), "cannot listen on");
    assert_bad_input(
        &[&ext[..], &["127.0.0.1:0", "--plies", "9"]].concat(),
        "--plies",
    );
    assert_bad_input(&["backgammon", "external"], "--listen");
}

/// Defect 7: a board where both sides have borne off every checker is no position. The old
/// server answered `roll`; it now answers gnubg's error line and goes on serving.
#[test]
fn a_board_without_checkers_gets_an_error_reply() {
    let (child, stream) = start(&["--plies", "0"]);
    let mut client = Client::new(stream);
    let boards = fixture_boards();
    let mut fields: Vec<String> = boards[0].split(':').map(str::to_string).collect();
    // "board", two names, match length, two scores, then the 26 board fields, the turn and
    // the dice.
    for f in &mut fields[6..32] {
        *f = "0".into();
    }
    fields[33] = "0".into();
    fields[34] = "0".into();
    let empty = fields.join(":");
    let reply = client.ask(&empty);
    assert!(reply.starts_with("Error: "), "{empty}: {reply:?}");
    assert!(reply.contains("neither side has a checker"), "{reply:?}");
    assert!(!client.ask(&boards[0]).starts_with("Error: "));
    finish(child, client);
}

/// Defect 4: `--threads` takes 1 to 256, as in every game, checked before anything else (the
/// address here is bad too, so that the old code, which took any count, fails at once instead
/// of waiting for a connection).
#[test]
fn threads_out_of_range_exit_2() {
    for n in ["0", "257", "100000"] {
        assert_bad_input(
            &[
                "backgammon",
                "external",
                "--listen",
                "nonsense",
                "--threads",
                n,
            ],
            "--threads",
        );
    }
}

/// A server serving many connections (no `--once`), killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        let mut child = common::command()
            .args(["backgammon", "external", "--listen", "127.0.0.1:0"])
            .args(["--plies", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tabula");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read the address");
        let addr = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        Server { child, addr }
    }

    /// A connected client whose reads fail after a minute instead of hanging the test.
    fn connect(&self) -> Client {
        let stream = TcpStream::connect(&self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        Client::new(stream)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Client {
    /// Reads one line; `None` at the end of the connection.
    fn line(&mut self) -> Option<String> {
        let mut reply = String::new();
        let n = self.reader.read_line(&mut reply).expect("read a line");
        (n > 0).then(|| reply.trim_end_matches('\n').to_string())
    }

    /// A play for the first fixture board, checked legal.
    fn plays(&mut self, board: &str) {
        let b = FibsBoard::parse(board).unwrap();
        let dice = Dice::new(b.dice.0, b.dice.1).unwrap();
        let reply = self.ask(board);
        b.position
            .parse_play(dice, &reply)
            .unwrap_or_else(|e| panic!("{board}: reply {reply:?}: {e}"));
    }
}

/// Issue 15: connections are served at once. The old server answered one connection at a
/// time, so the second client here got no reply while the first stayed connected.
#[test]
fn two_concurrent_clients_are_both_answered() {
    let server = Server::start(&[]);
    let board = &fixture_boards()[0];
    let mut a = server.connect();
    a.plays(board);
    let mut b = server.connect();
    b.plays(board);
    a.plays(board);
    b.plays(board);
}

/// Issue 15: a connection beyond `--max-connections` gets one busy line and is closed; the
/// connections being served go on.
#[test]
fn a_client_beyond_the_limit_gets_the_busy_reply() {
    let server = Server::start(&["--max-connections", "1"]);
    let board = &fixture_boards()[0];
    let mut a = server.connect();
    a.plays(board);
    let mut b = server.connect();
    let busy = b.line().expect("a busy line");
    assert!(busy.starts_with("Error: busy: 1 connections"), "{busy:?}");
    assert_eq!(b.line(), None, "the refused connection is closed");
    a.plays(board);
    // Once the first leaves, its slot is free again.
    drop(a);
    let mut tries = 0;
    let mut c = loop {
        tries += 1;
        assert!(tries < 600, "the slot was never freed");
        let mut c = server.connect();
        c.writer
            .write_all(format!("{board}\n\0").as_bytes())
            .unwrap();
        match c.line() {
            Some(reply) if reply.starts_with("Error: busy") => {
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
            Some(_) => break c,
            None => panic!("connection closed without a reply"),
        }
    };
    c.plays(board);
}

/// Issue 15: a client that sends nothing is closed after `--timeout` seconds with an error
/// line, while another is served meanwhile and afterwards.
#[test]
fn an_idle_client_is_disconnected_while_another_is_served() {
    let server = Server::start(&["--max-connections", "3", "--timeout", "2"]);
    let board = &fixture_boards()[0];
    let mut idle = server.connect();
    let mut busy = server.connect();
    busy.plays(board);
    let last = idle.line().expect("an error line before the close");
    assert_eq!(last, "Error: no line for 2 s; closing");
    assert_eq!(idle.line(), None, "the idle connection is closed");
    let mut late = server.connect();
    late.plays(board);
}

/// Issue 15: a 200 KB line (and a line that is not UTF-8) gets one error line and is
/// discarded; the session goes on. The `--log` stays bounded: refused lines are logged by
/// length, and a long bad board is cut in the log and in the reply.
#[test]
fn long_and_garbage_lines_get_errors_and_the_log_stays_bounded() {
    let dir = std::env::temp_dir().join(format!("tabula-external-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("external.log");
    let _ = std::fs::remove_file(&log);
    let (child, stream) = start(&["--plies", "0", "--log", log.to_str().unwrap()]);
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut client = Client::new(stream);
    let board = &fixture_boards()[0];

    let huge = "x".repeat(200 * 1024);
    let reply = client.ask(&huge);
    assert!(reply.starts_with("Error: line of "), "{reply:?}");
    assert!(reply.contains("discarded"), "{reply:?}");
    client.plays(board);

    client.writer.write_all(b"board:\xff\xfe:x\n\0").unwrap();
    let reply = client.line().unwrap();
    assert_eq!(reply, "Error: line is not UTF-8; discarded");

    // Under the line limit, but a field of 7000 bytes that the parse error quotes.
    let mut fields: Vec<String> = board.split(':').map(str::to_string).collect();
    fields[6] = "y".repeat(7000);
    let bad = fields.join(":");
    let reply = client.ask(&bad);
    assert!(reply.starts_with("Error: "), "{reply:?}");
    assert!(reply.len() < 1024, "reply of {} bytes", reply.len());
    client.plays(board);
    finish(child, client);

    let text = std::fs::read_to_string(&log).expect("the log");
    let entries: Vec<serde_json::Value> = text
        .lines()
        .map(|l| {
            assert!(l.len() < 2048, "log line of {} bytes", l.len());
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"))
        })
        .collect();
    let kinds: Vec<&str> = entries
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["refused", "move", "refused", "error", "move"]);
    assert_eq!(entries[0]["bytes"], 200 * 1024);
    assert!(text.len() < 6 * 1024, "log of {} bytes", text.len());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--log` appends to a new file or to one of its own logs only: a file of anything else
/// (notes, a database given by mistake, a log cut mid-line) is refused before the server
/// starts, and kept as it was; its own log gets the new lines after the old ones.
#[test]
fn the_log_appends_only_to_its_own_logs() {
    let dir = std::env::temp_dir().join(format!("tabula-external-logs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let old = "{\"kind\":\"refused\",\"why\":\"not UTF-8\"}\n";
    let theirs: [(&str, &[u8]); 3] = [
        ("notes.txt", b"my notes\n"),
        ("db.tdb", b"TABULAST\x00\x01binary"),
        ("cut.log", &old.as_bytes()[..20]),
    ];
    for (name, bytes) in theirs {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let path = path.to_str().unwrap();
        let args = [
            "backgammon",
            "external",
            "--listen",
            "127.0.0.1:0",
            "--log",
            path,
        ];
        assert_bad_input(&args, "not a log of `backgammon external`");
        assert_eq!(std::fs::read(path).unwrap(), bytes, "{name}");
    }
    let own = dir.join("own.log");
    std::fs::write(&own, old).unwrap();
    let (child, stream) = start(&["--plies", "0", "--log", own.to_str().unwrap()]);
    let mut client = Client::new(stream);
    client.plays(&fixture_boards()[0]);
    finish(child, client);
    let text = std::fs::read_to_string(&own).unwrap();
    assert!(text.starts_with(old), "{text}");
    assert_eq!(text.lines().count(), 2, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn connection_limit_and_timeout_out_of_range_exit_2() {
    let ext = ["backgammon", "external", "--listen", "nonsense"];
    for (flag, n) in [
        ("--max-connections", "0"),
        ("--max-connections", "257"),
        ("--timeout", "0"),
    ] {
        assert_bad_input(&[&ext[..], &[flag, n]].concat(), flag);
    }
}
