//! `tabula backgammon external --listen HOST:PORT`: plays for GNU Backgammon through its
//! external-player protocol (`set player N external HOST:PORT` in gnubg, which connects to us).
//!
//! gnubg 1.07 (`ComputerTurn` in play.c) sends one FIBS `board:` line per decision, ended by
//! `\n` and a NUL byte, and reads one reply line:
//!
//! - doubled (the doubled field is non-zero, no dice): `take` or `drop` (gnubg reads the first
//!   letter: `a`/`t` take, `d`/`p` drop, `b` beaver, `rej` drop, `red` redouble);
//! - no dice (only asked when the player on roll may double; otherwise gnubg rolls itself):
//!   `roll` or `double`;
//! - dice: the play in gnubg notation (`8/5 6/5`, `bar/22*`, `6/off`), an empty line when no
//!   play is legal. gnubg does not reject an illegal play it cannot parse (it records no move),
//!   so every play sent is first re-parsed with the engine and logged with `legal`.
//!
//! A line starting with `Error: ` makes gnubg abandon the turn; it is the answer to a line that
//! is not a valid board. In a doubled board gnubg swaps the names and scores (they are those of
//! the player to answer first, i.e. of the receiver, while the board stays oriented to the
//! doubler); the board, cube owner and may-double fields are absolute.
//!
//! The server answers up to `--max-connections` connections at once, one thread (and one
//! [`Advisor`], with its own cache and `--threads` search threads) each; one more connection is
//! answered `Error: busy: …` and closed. A connection that sends no line for `--timeout`
//! seconds gets `Error: no line for N s; closing` and is closed, so an idle or stuck client
//! holds one slot at most. A line longer than [`MAX_LINE`] bytes is consumed without being
//! stored and answered with an error line; so is a line that is not UTF-8. The `--log` file
//! gets one JSON line per line read, whole lines written under a lock; the board and error
//! texts in it are cut to [`LOG_FIELD_MAX`] bytes, and refused lines are logged by length
//! only, so no client can copy more than that into the log per line.
//!
//! Decisions are the [`Advisor`]'s: plays ranked at `--plies`; cube actions from the cubeless
//! evaluation at `--plies` of the position before the roll (Janowski, `--cube-efficiency`, the
//! Kazaross-XG2 MET in matches; longer matches than the table are played with the money model).
//! A board that is not a position (e.g. both sides borne off) is answered with an error line.

use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Args as ClapArgs;
use serde_json::json;
use tabula_engine::backgammon::{Dice, FibsBoard, Position};
use tabula_gammon::advisor::{Advisor, CubeAdvice, CubeRollouts};
use tabula_gammon::cube::{CubeState, DEFAULT_CUBE_EFFICIENCY};
use tabula_gammon::net::Evaluator;
use tabula_gammon::SearchOptions;
use tabula_protocol::{read_line, Line};

use super::args::{check_plies, with_threads, CubeRolloutArgs, EvaluatorArgs};
use crate::error::{CliError, CliResult};

#[derive(ClapArgs, Debug)]
pub struct ExternalArgs {
    /// Address to listen on, e.g. 127.0.0.1:4321 (port 0: a free port; the address bound is
    /// printed as `listening on ADDR`).
    #[arg(long)]
    listen: String,
    /// Plies of lookahead for plays and cube decisions, 0 to 3.
    #[arg(long, default_value_t = 1)]
    plies: u8,
    #[command(flatten)]
    cube_rollouts: CubeRolloutArgs,
    #[command(flatten)]
    evaluator: EvaluatorArgs,
    /// Search threads, 1 to 256. The answers do not depend on it.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
    /// Janowski's cube efficiency x (0: dead cube, 1: fully live).
    #[arg(long = "cube-efficiency", default_value_t = DEFAULT_CUBE_EFFICIENCY)]
    cube_efficiency: f64,
    /// Money games are played with the Jacoby rule (gnubg: `set jacoby on`).
    #[arg(long)]
    jacoby: bool,
    /// Append one JSON line per decision to FILE (board, reply, time, legality).
    #[arg(long)]
    log: Option<PathBuf>,
    /// Serve a single connection, then exit.
    #[arg(long)]
    once: bool,
    /// Connections served at once, 1 to 256; one more is answered `Error: busy: …` and closed.
    #[arg(long = "max-connections", default_value_t = 4,
          value_parser = clap::value_parser!(u64).range(1..=256))]
    max_connections: u64,
    /// A connection that sends no line for this many seconds is closed (after an error line).
    /// gnubg keeps its connection open while the other player thinks: keep this long.
    #[arg(long, default_value_t = 3600,
          value_parser = clap::value_parser!(u64).range(1..=86_400 * 7))]
    timeout: u64,
}

/// The longest line read, in bytes (a gnubg board line is a few hundred): a longer one is
/// consumed without being stored and answered with an error line.
pub const MAX_LINE: usize = 8 * 1024;

/// The most bytes of a client's text (its board line, or an error quoting it) that one log
/// entry or error reply carries.
pub const LOG_FIELD_MAX: usize = 512;

// Every connection thread reads the one evaluator.
const _: () = {
    const fn shared<T: Sync>() {}
    shared::<Evaluator>();
};

/// `text` cut to at most `max` bytes at a character boundary, with the number of bytes left
/// out.
fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more bytes)", &text[..end], text.len() - end)
}

/// The decision engine for one connection.
struct Player<'e> {
    advisor: Advisor<'e>,
    jacoby: bool,
}

/// One answer to gnubg.
struct Answer {
    reply: String,
    log: serde_json::Value,
}

impl Player<'_> {
    fn answer(&self, line: &str) -> Answer {
        match self.decide(line) {
            Ok(a) => a,
            Err(e) => {
                let e = clip(&e, LOG_FIELD_MAX);
                Answer {
                    reply: format!("Error: {e}"),
                    log: json!({ "kind": "error", "error": e }),
                }
            }
        }
    }

    fn decide(&self, line: &str) -> Result<Answer, String> {
        let b = FibsBoard::parse(line).map_err(|e| e.to_string())?;
        let pos = b.position;
        let mover = b.on_roll as usize;
        let doubled = b.doubled != 0;
        // gnubg writes the receiver's name and score first on a doubled board.
        let score = if doubled {
            [b.score[1], b.score[0]]
        } else {
            b.score
        };
        if b.match_length > 0 && score.iter().any(|&s| s >= b.match_length) {
            return Err(format!(
                "score {}-{} in a match to {}",
                score[0], score[1], b.match_length
            ));
        }
        let state = CubeState::for_player(
            mover,
            b.cube,
            b.cube_owner.map(usize::from),
            b.match_length,
            score,
            b.crawford,
            self.jacoby,
        );
        let owner = state.owner;
        let base = json!({
            "position": pos.position_id(),
            "cube": b.cube,
            "owner": format!("{owner:?}"),
            "match": b.match_length,
            "score": [score[mover], score[1 - mover]],
        });
        if doubled || b.dice == (0, 0) {
            return Ok(self.cube_answer(&pos, &state, doubled, base));
        }
        let dice = Dice::new(b.dice.0, b.dice.1).map_err(|e| e.to_string())?;
        Ok(self.move_answer(&pos, dice, base))
    }

    /// Before the roll: `roll` or `double`; to a double (`doubled`): `take` or `drop`.
    fn cube_answer(
        &self,
        pos: &Position,
        state: &CubeState,
        doubled: bool,
        base: serde_json::Value,
    ) -> Answer {
        if !doubled && !state.may_double() {
            return Answer {
                reply: "roll".into(),
                log: json!({"kind": "double", "base": base, "may_double": false}),
            };
        }
        let CubeAdvice {
            probabilities: p,
            decision: d,
            rollout,
        } = self.advisor.cube(pos, state);
        let (kind, reply) = if doubled {
            ("take", if d.take { "take" } else { "drop" })
        } else {
            ("double", if d.offers_double() { "double" } else { "roll" })
        };
        Answer {
            reply: reply.into(),
            log: json!({
                "kind": kind,
                "base": base,
                "probabilities": p,
                "nd": d.no_double,
                "dt": d.double_take,
                "dp": d.double_pass,
                "action": format!("{:?}", d.action),
                "rollout_trials": rollout.map(|r| r.trials),
            }),
        }
    }

    /// After the roll: the best play, or an empty line when none is legal.
    fn move_answer(&self, pos: &Position, dice: Dice, base: serde_json::Value) -> Answer {
        let ranked = self.advisor.plays(pos, dice);
        let Some(best) = ranked.first() else {
            return Answer {
                reply: String::new(),
                log: json!({"kind": "move", "base": base, "dice": dice.to_string(), "legal": pos.plays(dice).is_empty()}),
            };
        };
        let text = best.play.notation();
        // What gnubg will read: the notation must parse back to the same play.
        let legal = pos
            .parse_play(dice, &text)
            .is_ok_and(|p| p.result() == best.play.result());
        Answer {
            reply: text,
            log: json!({
                "kind": "move",
                "base": base,
                "dice": dice.to_string(),
                "equity": best.equity,
                "candidates": ranked.len(),
                "legal": legal,
            }),
        }
    }
}

fn resolve(listen: &str) -> Result<SocketAddr, CliError> {
    let bad =
        |why: String| CliError::bad_input(format!("invalid --listen address {listen:?}: {why}"));
    let mut addrs = listen.to_socket_addrs().map_err(|e| bad(e.to_string()))?;
    addrs.next().ok_or_else(|| bad("no address found".into()))
}

/// What every connection shares.
struct Server<'a> {
    eval: &'a Evaluator,
    options: SearchOptions,
    cube_efficiency: f64,
    cube_rollouts: Option<CubeRollouts>,
    jacoby: bool,
    threads: u64,
    timeout: Duration,
    log: Option<Mutex<File>>,
}

pub fn run(args: ExternalArgs) -> CliResult {
    check_plies(args.plies)?;
    if !(0.0..=1.0).contains(&args.cube_efficiency) {
        return Err(CliError::bad_input(
            "--cube-efficiency must be between 0 and 1",
        ));
    }
    let addr = resolve(&args.listen)?;
    // Before the evaluator loads (seconds, the first time): a log that cannot be written fails
    // at once.
    let log = args
        .log
        .as_deref()
        .map(open_log)
        .transpose()?
        .map(Mutex::new);
    let eval = args.evaluator.load()?;
    // A pool of `--threads` per connection: fail here, not on the first connection.
    with_threads(args.threads, || ())?;
    let listener = TcpListener::bind(addr)
        .map_err(|e| CliError::bad_input(format!("cannot listen on {addr}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| CliError::bad_input(format!("cannot listen on {addr}: {e}")))?;
    println!("listening on {bound}");
    let _ = std::io::stdout().flush();
    let server = Server {
        eval: &eval,
        options: SearchOptions {
            plies: args.plies,
            ..SearchOptions::default()
        },
        cube_efficiency: args.cube_efficiency,
        cube_rollouts: args.cube_rollouts.at(args.plies),
        jacoby: args.jacoby,
        threads: args.threads,
        timeout: Duration::from_secs(args.timeout),
        log,
    };
    if args.once {
        if let Some(stream) = listener.incoming().find_map(|s| {
            s.map_err(|e| eprintln!("external: accept failed: {e}"))
                .ok()
        }) {
            server.connection(stream);
        }
        return Ok(());
    }
    server.listen(&listener, args.max_connections as usize);
    Ok(())
}

/// Counts a connection for as long as it lives.
struct Slot<'a>(&'a AtomicUsize);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Server<'_> {
    /// Serves every connection, `max` at once, each in its own thread, for ever.
    fn listen(&self, listener: &TcpListener, max: usize) {
        let live = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for stream in listener.incoming() {
                let stream = match stream {
                    Ok(s) => s,
                    Err(e) => {
                        eprintln!("external: accept failed: {e}");
                        // Out of file descriptors and the like: do not spin.
                        std::thread::sleep(Duration::from_millis(50));
                        continue;
                    }
                };
                if live.fetch_add(1, Ordering::SeqCst) >= max {
                    live.fetch_sub(1, Ordering::SeqCst);
                    refuse(stream, max);
                    continue;
                }
                let slot = Slot(&live);
                let spawned = std::thread::Builder::new()
                    .name("tabula-external-conn".into())
                    .spawn_scoped(scope, move || {
                        let _slot = slot;
                        self.connection(stream);
                    });
                if let Err(e) = spawned {
                    eprintln!("external: cannot start a connection thread: {e}");
                }
            }
        });
    }

    /// Serves one connection to its end, reporting on stderr.
    fn connection(&self, stream: TcpStream) {
        let peer = stream
            .peer_addr()
            .map_or("?".to_string(), |a| a.to_string());
        eprintln!("external: connection from {peer}");
        let served = with_threads(self.threads, || {
            let player = Player {
                advisor: Advisor::new(self.eval, self.options, self.cube_efficiency)
                    .with_cube_rollouts(self.cube_rollouts),
                jacoby: self.jacoby,
            };
            self.serve(stream, &player)
        });
        match served {
            Ok(Ok(n)) => eprintln!("external: {peer} closed after {n} decisions"),
            Ok(Err(e)) => eprintln!("external: {peer}: {e}"),
            Err(e) => eprintln!("external: {peer}: {e}"),
        }
    }

    /// Answers every line of one connection until its end, a read timeout or a failed write;
    /// returns the number of decisions.
    fn serve(&self, stream: TcpStream, player: &Player) -> io::Result<u64> {
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(self.timeout))?;
        // A client that does not read its answers cannot hold the thread for ever.
        stream.set_write_timeout(Some(self.timeout))?;
        let mut writer = stream.try_clone()?;
        let mut reader = BufReader::new(stream);
        let mut n = 0u64;
        loop {
            let line = match read_line(&mut reader, MAX_LINE) {
                Ok(line) => line,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    let secs = self.timeout.as_secs();
                    let _ = writeln!(writer, "Error: no line for {secs} s; closing");
                    return Err(io::Error::new(e.kind(), format!("no line for {secs} s")));
                }
                Err(e) => return Err(e),
            };
            let text = match line {
                Line::Eof => return Ok(n),
                Line::Text(text) => text,
                Line::TooLong(bytes) => {
                    writeln!(
                        writer,
                        "Error: line of {bytes}+ bytes refused (at most {MAX_LINE}); discarded"
                    )?;
                    self.log(json!({"kind": "refused", "why": "too long", "bytes": bytes}))?;
                    continue;
                }
                Line::NotUtf8 => {
                    writeln!(writer, "Error: line is not UTF-8; discarded")?;
                    self.log(json!({"kind": "refused", "why": "not UTF-8"}))?;
                    continue;
                }
            };
            // gnubg ends each line with a newline and then a NUL byte.
            let line = text.trim_matches(|c: char| c.is_whitespace() || c == '\0');
            if line.is_empty() {
                continue;
            }
            let started = Instant::now();
            let answer = player.answer(line);
            let ms = started.elapsed().as_secs_f64() * 1e3;
            writer.write_all(format!("{}\n", answer.reply).as_bytes())?;
            writer.flush()?;
            n += 1;
            let mut entry = answer.log;
            entry["board"] = json!(clip(line, LOG_FIELD_MAX));
            entry["reply"] = json!(answer.reply);
            entry["ms"] = json!((ms * 1e3).round() / 1e3);
            self.log(entry)?;
        }
    }

    /// Appends one whole line to the log, if there is one.
    fn log(&self, entry: serde_json::Value) -> io::Result<()> {
        let Some(log) = &self.log else {
            return Ok(());
        };
        let mut f = log
            .lock()
            .map_err(|_| io::Error::other("the log lock is poisoned"))?;
        f.write_all(format!("{entry}\n").as_bytes())
    }
}

/// Opens the `--log` file to append to: a new file, or one of its own logs (whole JSON lines,
/// the first one an entry with its `kind`). Any other file is the user's and is refused, not
/// appended to (a database or notes given by mistake would be damaged).
fn open_log(path: &std::path::Path) -> Result<File, CliError> {
    use std::io::{Read, Seek, SeekFrom};
    let cannot = |e: std::io::Error| log_error(path, e);
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .open(path)
        .map_err(cannot)?;
    let len = file.metadata().map_err(cannot)?.len();
    if len > 0 {
        let mut first = Vec::new();
        (&file)
            .take(LOG_FIELD_MAX as u64 * 4 + 4096)
            .read_to_end(&mut first)
            .map_err(cannot)?;
        let mut last = [0u8; 1];
        file.seek(SeekFrom::End(-1))
            .and_then(|_| file.read_exact(&mut last))
            .map_err(cannot)?;
        let entry = first
            .split(|&b| b == b'\n')
            .next()
            .and_then(|line| serde_json::from_slice::<serde_json::Value>(line).ok());
        let ours = entry.is_some_and(|v| v.get("kind").is_some()) && last[0] == b'\n';
        if !ours {
            return Err(CliError::bad_input(format!(
                "cannot append to log {}: not a log of `backgammon external` (whole JSON \
                 lines); give a new file or one of its logs",
                path.display()
            )));
        }
    }
    Ok(file)
}

/// A `--log` file that cannot be opened or read: a path that names no file we could write
/// (a missing directory, a directory) is the user's to fix, exit code 2; any other failure
/// (permission, the disk) is an I/O error, exit code 1. The store draws that line for every
/// other file Tabula writes, so its classification is asked here too.
fn log_error(path: &std::path::Path, e: std::io::Error) -> CliError {
    let message = format!("cannot open log {}: {e}", path.display());
    if tabula_store::StoreError::io(path, e).is_bad_input() {
        CliError::bad_input(message)
    } else {
        CliError::io(message)
    }
}

fn refuse(mut stream: TcpStream, max: usize) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let _ = writeln!(
        stream,
        "Error: busy: {max} connections already served; try again later"
    );
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

    /// A bad `--log` path exits 2, a failing machine 1 (as root the tests cannot make a real
    /// permission error, so the kinds are given).
    #[test]
    fn log_errors_are_bad_input_or_io_by_kind() {
        let path = std::path::Path::new("x/log.jsonl");
        for (kind, code) in [
            (ErrorKind::NotFound, 2),
            (ErrorKind::NotADirectory, 2),
            (ErrorKind::IsADirectory, 2),
            (ErrorKind::PermissionDenied, 1),
            (ErrorKind::StorageFull, 1),
        ] {
            let e = log_error(path, Error::new(kind, "why"));
            assert_eq!(e.exit_code(), code, "{kind:?}");
            assert_eq!(e.to_string(), "cannot open log x/log.jsonl: why");
        }
    }
}
