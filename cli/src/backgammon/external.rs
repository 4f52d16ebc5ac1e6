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
//! Decisions are the [`Advisor`]'s: plays ranked at `--plies`; cube actions from the cubeless
//! evaluation at `--plies` of the position before the roll (Janowski, `--cube-efficiency`, the
//! Kazaross-XG2 MET in matches; longer matches than the table are played with the money model).
//! A board that is not a position (e.g. both sides borne off) is answered with an error line.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Instant;

use clap::Args as ClapArgs;
use serde_json::json;
use tabula_engine::backgammon::{Dice, FibsBoard, Position};
use tabula_gammon::advisor::{Advisor, CubeAdvice};
use tabula_gammon::cube::{CubeState, DEFAULT_CUBE_EFFICIENCY};
use tabula_gammon::SearchOptions;

use super::args::{check_plies, with_threads, EvaluatorArgs};
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
            Err(e) => Answer {
                reply: format!("Error: {e}"),
                log: json!({ "kind": "error", "error": e }),
            },
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

pub fn run(args: ExternalArgs) -> CliResult {
    check_plies(args.plies)?;
    if !(0.0..=1.0).contains(&args.cube_efficiency) {
        return Err(CliError::bad_input(
            "--cube-efficiency must be between 0 and 1",
        ));
    }
    let addr = resolve(&args.listen)?;
    let eval = args.evaluator.load()?;
    let mut log = match &args.log {
        Some(p) => Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| {
                    CliError::bad_input(format!("cannot open log {}: {e}", p.display()))
                })?,
        ),
        None => None,
    };
    let listener = TcpListener::bind(addr)
        .map_err(|e| CliError::bad_input(format!("cannot listen on {addr}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| CliError::bad_input(format!("cannot listen on {addr}: {e}")))?;
    println!("listening on {bound}");
    let _ = std::io::stdout().flush();
    let options = SearchOptions {
        plies: args.plies,
        ..SearchOptions::default()
    };
    with_threads(args.threads, || -> CliResult {
        for stream in listener.incoming() {
            let stream = match stream {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("external: accept failed: {e}");
                    continue;
                }
            };
            let player = Player {
                advisor: Advisor::new(&eval, options, args.cube_efficiency),
                jacoby: args.jacoby,
            };
            let peer = stream
                .peer_addr()
                .map_or("?".to_string(), |a| a.to_string());
            eprintln!("external: connection from {peer}");
            match serve(stream, &player, log.as_mut()) {
                Ok(n) => eprintln!("external: {peer} closed after {n} decisions"),
                Err(e) => eprintln!("external: {peer}: {e}"),
            }
            if args.once {
                break;
            }
        }
        Ok(())
    })?
}

/// Answers every board line of one connection; returns the number of decisions.
fn serve(stream: TcpStream, player: &Player, mut log: Option<&mut File>) -> std::io::Result<u64> {
    stream.set_nodelay(true)?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    let mut buf = Vec::new();
    let mut n = 0u64;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(n);
        }
        let text = String::from_utf8_lossy(&buf);
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
        if let Some(f) = log.as_deref_mut() {
            let mut entry = answer.log;
            entry["board"] = json!(line);
            entry["reply"] = json!(answer.reply);
            entry["ms"] = json!((ms * 1e3).round() / 1e3);
            writeln!(f, "{entry}")?;
        }
    }
}
