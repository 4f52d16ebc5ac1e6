//! `tabula pylos …`: show, list moves, play moves, run perft, solve and analyze Pylos positions.

pub mod game;
pub mod render;

pub(crate) use render::color_name;

use crate::common::TableFile;
use crate::error::{CliError, CliResult};
use clap::{Args as ClapArgs, Subcommand, ValueEnum};
use serde_json::json;
use std::cmp::Ordering;
use std::time::Duration;
use tabula_engine::pylos::{self, Color, Position, Rules, START, WIN};
use tabula_engine::{Game, Role, Scored};
use tabula_solver::{AtomicTable, Entry, Evaluate, SearchOptions, SearchReport, Searcher, Table};

#[derive(ClapArgs, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the four levels, reserves and the side to move.
    Show(Common),
    /// List every legal move (place `0b2`, raise `0a1-1b2`, take-backs `x1b2x0a1`).
    Moves(Common),
    /// With `--moves`: apply moves and print the resulting position string. Without: play a
    /// game against the engine in the terminal.
    Play {
        #[command(flatten)]
        common: Common,
        /// Moves separated by spaces, e.g. "0a1 0d4 0b1".
        #[arg(long, allow_hyphen_values = true)]
        moves: Option<String>,
        /// Your colour (interactive play; black moves first).
        #[arg(long, value_enum, default_value_t = crate::pylos::game::HumanColor::Black)]
        color: crate::pylos::game::HumanColor,
        #[command(flatten)]
        strength: crate::interactive::Strength,
    },
    /// Solve: win or loss for the side to move and in how many plies, best move, principal
    /// variation. Exact under `children` rules (no position repeats); under `standard` and
    /// `mature` rules positions can repeat, so it deepens iteratively and reports a result only
    /// once a forced win or loss is proven.
    Solve {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        search: SearchArgs,
    },
    /// Anytime analysis by iterative deepening, with progress lines, under time/node limits.
    Analyze {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        search: SearchArgs,
    },
    /// Count the move sequences of a given length.
    Perft {
        #[command(flatten)]
        common: Common,
        /// Number of plies.
        #[arg(long, short)]
        depth: u32,
        /// Also give the count below each first move.
        #[arg(long)]
        divide: bool,
    },
}

/// Which patterns allow a take-back (`shared/rules/pylos.md`).
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
enum RuleSet {
    /// No take-backs.
    Children,
    /// Own-colour 2×2 squares.
    #[default]
    Standard,
    /// Squares and own-colour lines (4 on level 0, 3 on level 1).
    Mature,
}

/// How many balls a completed pattern takes back.
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
enum TakebackOption {
    /// 0, 1 or 2.
    #[default]
    Optional,
    /// 1 or 2.
    Compulsory,
}

#[derive(ClapArgs, Debug)]
struct SearchArgs {
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=65536))]
    hash: u64,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
    /// Key the table without the symmetry reduction.
    #[arg(long)]
    no_symmetry: bool,
    /// Stop after this many seconds.
    #[arg(long, value_parser = crate::common::parse_seconds)]
    time: Option<Duration>,
    /// Stop after this many nodes.
    #[arg(long)]
    nodes: Option<u64>,
    /// Deepest iteration (plies) of the iterative deepening.
    #[arg(long, default_value_t = 254, value_parser = clap::value_parser!(u8).range(1..=254))]
    max_depth: u8,
    /// `solve` under `children` rules: prove only who wins, not in how many plies (much
    /// cheaper; `plies` is then null and `value` is 1 or -1 for the side to move).
    #[arg(long)]
    win_loss: bool,
    /// Keep the proven positions in FILE: loaded first when it exists, saved every 5 minutes
    /// and when the search ends (finished, stopped by a limit or Ctrl-C), so that a stopped
    /// solve resumes from what it had proven.
    #[arg(long, value_name = "FILE")]
    table: Option<std::path::PathBuf>,
}

#[derive(ClapArgs, Debug)]
struct Common {
    /// Position string (default: the start position).
    #[arg(long, short, default_value = START, allow_hyphen_values = true)]
    position: String,
    /// Rule set.
    #[arg(long, value_enum, default_value_t = RuleSet::Standard)]
    rules: RuleSet,
    /// Take-back option.
    #[arg(long, value_enum, default_value_t = TakebackOption::Optional)]
    takeback: TakebackOption,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

impl Common {
    fn rules(&self) -> Rules {
        let variant = match self.rules {
            RuleSet::Children => pylos::Variant::Children,
            RuleSet::Standard => pylos::Variant::Standard,
            RuleSet::Mature => pylos::Variant::Mature,
        };
        let takeback = match self.takeback {
            TakebackOption::Optional => pylos::Takeback::Optional,
            TakebackOption::Compulsory => pylos::Takeback::Compulsory,
        };
        Rules::new(variant, takeback)
    }

    fn position(&self) -> Result<Position, CliError> {
        Position::parse(&self.position, self.rules())
            .map_err(|e| CliError::bad_input(format!("invalid position: {e}")))
    }
}

pub fn run(args: Args) -> CliResult {
    match args.command {
        Command::Show(common) => show(&common),
        Command::Moves(common) => moves(&common),
        Command::Play {
            common,
            moves: Some(moves),
            ..
        } => play(&common, &moves),
        Command::Play {
            common,
            moves: None,
            color,
            strength,
        } => {
            let pos = common.position()?;
            if let Some(winner) = pos.winner() {
                return Err(CliError::bad_input(format!(
                    "the game is over ({} wins): nothing to play",
                    color_name(winner)
                )));
            }
            crate::pylos::game::run_game(pos, color, strength.time_per_move())
        }
        Command::Perft {
            common,
            depth,
            divide,
        } => run_perft(&common, depth, divide),
        Command::Solve { common, search } => solve(&common, &search, Mode::Solve),
        Command::Analyze { common, search } => solve(&common, &search, Mode::Analyze),
    }
}

fn show(common: &Common) -> CliResult {
    let pos = common.position()?;
    let winner = pos.winner();
    if common.json {
        println!(
            "{}",
            json!({
                "position": pos.to_string(),
                "rules": common.rules().variant.to_string(),
                "takeback": common.rules().takeback.to_string(),
                "to_move": color_name(pos.turn()),
                "reserve": {
                    "black": pos.reserve(Color::Black),
                    "white": pos.reserve(Color::White),
                },
                "moves": pos.count_moves(),
                "over": winner.is_some(),
                "winner": winner.map(color_name),
            })
        );
    } else {
        print!("{}", pos.diagram());
        println!(
            "{} to move; reserves black {}, white {}; {} legal moves{}",
            color_name(pos.turn()),
            pos.reserve(Color::Black),
            pos.reserve(Color::White),
            pos.count_moves(),
            match winner {
                Some(c) => format!("; game over, {} wins", color_name(c)),
                None => String::new(),
            }
        );
        println!("{pos}");
    }
    Ok(())
}

fn moves(common: &Common) -> CliResult {
    crate::common::print_moves(&common.position()?, common.json)
}

fn play(common: &Common, moves: &str) -> CliResult {
    let mut pos = common.position()?;
    for (i, text) in moves.split_whitespace().enumerate() {
        let mv = pos
            .parse_move(text)
            .map_err(|e| CliError::bad_input(format!("illegal move #{} '{text}': {e}", i + 1)))?;
        pos = pos.play(mv);
    }
    if common.json {
        println!(
            "{}",
            json!({
                "position": pos.to_string(),
                "over": pos.is_over(),
                "winner": pos.winner().map(color_name),
            })
        );
    } else {
        println!("{pos}");
    }
    Ok(())
}

fn run_perft(common: &Common, depth: u32, split: bool) -> CliResult {
    crate::common::run_perft(&common.position()?, depth, split, common.json)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Solve,
    Analyze,
}

/// A search result from the side to move's point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Verdict {
    /// `win`, `loss`, `draw` or `unknown`.
    result: &'static str,
    /// Plies to the end under best play, for a proven win or loss.
    plies: Option<u32>,
    /// The payoff for the side to move (positive: it wins), estimate unless exact.
    value: i32,
    exact: bool,
}

/// Reads a search value (black's payoff) for the side to move. Only an exact value is a result;
/// anything else, including a value that merely looks decided, is `unknown`.
fn verdict(pos: &Position, value: i32, exact: bool) -> Verdict {
    let value = match pos.turn() {
        Color::Black => value,
        Color::White => -value,
    };
    let (result, plies) = match (exact, value.signum()) {
        (false, _) => ("unknown", None),
        (true, 0) => ("draw", None),
        (true, 1) => ("win", Some((WIN - value).unsigned_abs())),
        (true, _) => ("loss", Some((WIN + value).unsigned_abs())),
    };
    Verdict {
        result,
        plies,
        value,
        exact,
    }
}

fn plies(n: u32) -> String {
    format!("{n} {}", if n == 1 { "ply" } else { "plies" })
}

/// `Searcher::solve` with a better first guess for win/loss-at-distance values. The driver
/// gallops from its guess; every test whose threshold is a loss or win far away costs about a full
/// solve, while one near a fast end is bounded by its distance. So the guess is the fast end of
/// the side the evaluation favours (a tie: the side to move loses): on the children's-rules
/// positions measured, 2.4-2.6x fewer nodes than a guess near 0 when the side is right, about
/// 10% more when it is wrong.
fn exact_solve(
    searcher: &Searcher<AtomicTable>,
    table: &AtomicTable,
    pos: &Position,
) -> Option<SearchReport<pylos::Move>> {
    table.new_generation();
    let (lo, hi) = pos.value_bounds();
    let guess = match (pos.evaluate().cmp(&0), pos.to_move()) {
        (Ordering::Greater, _) | (Ordering::Equal, Role::Min) => hi,
        (Ordering::Less, _) | (Ordering::Equal, Role::Max) => lo,
    };
    let bounds = searcher.value(pos, Entry::PROVEN, guess).ok()?;
    let pv = searcher
        .principal_variation(pos, bounds.value, Entry::PROVEN)
        .ok()?;
    Some(SearchReport {
        value: bounds.value,
        exact: bounds.exact,
        best: pv.first().copied(),
        pv,
        nodes: searcher.nodes(),
        time: searcher.elapsed(),
        depth: None,
    })
}

/// Proven bounds on black's payoff, in words for the side to move (progress lines).
fn proven_so_far(pos: &Position, lo: i32, hi: i32) -> String {
    let (lo, hi) = match pos.turn() {
        Color::Black => (lo, hi),
        Color::White => (-hi, -lo),
    };
    if lo > 0 {
        format!("proven: a win within {}", plies((WIN - lo).unsigned_abs()))
    } else if hi < 0 {
        format!("proven: a loss within {}", plies((WIN + hi).unsigned_abs()))
    } else {
        "not decided yet".to_string()
    }
}

/// The proven bounds of a stopped exact solve, as payoffs for the side to move.
fn stopped_bounds(searcher: &Searcher<AtomicTable>, pos: &Position) -> Option<(i32, i32)> {
    let (lo, hi) = searcher.proven_bounds()?;
    Some(match pos.turn() {
        Color::Black => (lo, hi),
        Color::White => (-hi, -lo),
    })
}

/// `solve --win-loss`: one exact test of who wins, then (for a win) the first move that keeps
/// the win. The distance is not searched, so `plies` is null and the value is ±1. Stopped by a
/// limit or Ctrl-C, it reports what it proved: nothing (`unknown`), or the result without a move.
fn win_loss_solve(searcher: &Searcher<AtomicTable>, pos: &Position, json: bool) -> CliResult {
    // Black's payoff is positive exactly when black wins (no draws under children rules).
    let mover_wins = |p: &Position| {
        searcher
            .prove_at_least(p, 1)
            .ok()
            .map(|black| black == (pos.turn() == Color::Black))
    };
    let result = mover_wins(pos);
    let mut best = None;
    let mut stopped = result.is_none();
    if result == Some(true) {
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        for mv in moves {
            match mover_wins(&pos.play(mv)) {
                Some(true) => {
                    best = Some(mv.to_string());
                    break;
                }
                Some(false) => {}
                None => {
                    stopped = true;
                    break;
                }
            }
        }
    }
    let (name, value) = match result {
        Some(true) => ("win", Some(1)),
        Some(false) => ("loss", Some(-1)),
        None => ("unknown", None),
    };
    let nodes = searcher.nodes();
    let time_ms = searcher.elapsed().as_millis() as u64;
    if json {
        let mut out = json!({
            "result": name,
            "plies": null,
            "value": value,
            "best": best,
            "pv": best.iter().collect::<Vec<_>>(),
            "exact": result.is_some(),
            "nodes": nodes,
            "time_ms": time_ms,
            "to_move": color_name(pos.turn()),
        });
        if stopped {
            out["stopped"] = json!(true);
        }
        println!("{out}");
    } else {
        match result {
            Some(_) => println!(
                "{} to move: {name} (exact; distance not searched)",
                color_name(pos.turn())
            ),
            None => println!(
                "{} to move: unknown, stopped by the limits before a result",
                color_name(pos.turn())
            ),
        }
        println!("best {}", best.as_deref().unwrap_or("-"));
        println!("nodes {nodes} time {time_ms} ms");
    }
    Ok(())
}

/// `solve` and `analyze`. Under `children` rules every move adds a ball or raises one, so the
/// game tree is finite and `solve` runs the exact search to the end. Under `standard` and `mature`
/// rules a take-back can repeat a position and an unbounded search would not terminate (the value
/// encoding bounds it only at ~1000 plies), so `solve` deepens iteratively instead: a bound that
/// the search proves there (no heuristic leaf) is a forced win or loss within the iteration's
/// depth, which is a fact of the game; anything short of that is reported as `unknown`.
fn solve(common: &Common, search: &SearchArgs, mode: Mode) -> CliResult {
    let pos = common.position()?;
    if let Some(winner) = pos.winner() {
        return Err(CliError::bad_input(format!(
            "the game is over ({} wins): nothing to solve",
            color_name(winner)
        )));
    }
    let table = AtomicTable::with_megabytes(search.hash as usize);
    let options = SearchOptions {
        threads: search.threads as usize,
        symmetry: !search.no_symmetry,
        time: search.time,
        nodes: search.nodes,
        interrupt: Some(crate::common::interrupt_flag()),
        ..SearchOptions::default()
    };
    let searcher = Searcher::new(&table, options);
    let json = common.json;
    let acyclic = pos.rules().variant == pylos::Variant::Children;
    if search.win_loss && !(mode == Mode::Solve && acyclic) {
        return Err(CliError::bad_input(
            "--win-loss needs `solve` under children rules (the only acyclic rule set)",
        ));
    }
    // Payoffs are the same under --win-loss, so its proven entries serve distance solves too.
    let context = crate::common::pylos_table_context(pos.rules(), !search.no_symmetry);
    let table_file = TableFile::open(&table, search.table.as_deref(), context)?;
    if search.win_loss {
        let result = crate::common::with_progress(
            &searcher,
            |_, _| String::new(),
            table_file.as_ref(),
            || win_loss_solve(&searcher, &pos, json),
        );
        if let Some(file) = &table_file {
            file.save()?;
        }
        return result;
    }
    let report: Option<SearchReport<pylos::Move>> = if mode == Mode::Solve && acyclic {
        crate::common::with_progress(
            &searcher,
            |lo, hi| proven_so_far(&pos, lo, hi),
            table_file.as_ref(),
            || exact_solve(&searcher, &table, &pos),
        )
    } else {
        searcher.analyze(&pos, search.max_depth, |p| {
            let v = verdict(&pos, p.value, p.exact);
            let line = format!(
                "depth {} value {}{} best {} nodes {} time {} ms nps {:.0}",
                p.depth,
                v.value,
                match v.plies {
                    Some(n) => format!(" ({} in {}, exact)", v.result, plies(n)),
                    None => String::new(),
                },
                p.best.map(|m| m.to_string()).unwrap_or_else(|| "-".into()),
                p.nodes,
                p.time.as_millis(),
                p.nodes as f64 / p.time.as_secs_f64().max(1e-9)
            );
            // Progress goes to stderr under --json so stdout stays one JSON document.
            if json {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
        })
    };
    if let Some(file) = &table_file {
        file.save()?;
    }
    // A search the limits stopped is not an error: the answer is simply not known.
    let stopped = report.is_none();
    let (v, best, pv, depth) = match &report {
        Some(r) => (
            verdict(&pos, r.value, r.exact),
            r.best.map(|m| m.to_string()),
            r.pv.iter().map(ToString::to_string).collect::<Vec<_>>(),
            r.depth,
        ),
        None => (verdict(&pos, 0, false), None, Vec::new(), None),
    };
    let nodes = searcher.nodes();
    let time_ms = searcher.elapsed().as_millis() as u64;
    if json {
        let mut out = json!({
            "result": v.result,
            "plies": v.plies,
            "value": v.value,
            "best": best,
            "pv": pv,
            "exact": v.exact,
            "nodes": nodes,
            "time_ms": time_ms,
            "to_move": color_name(pos.turn()),
        });
        if let Some(depth) = depth {
            out["depth"] = json!(depth);
        }
        if stopped {
            out["stopped"] = json!(true);
            if let Some((lower, upper)) = stopped_bounds(&searcher, &pos) {
                out["lower"] = json!(lower);
                out["upper"] = json!(upper);
            }
        }
        println!("{out}");
    } else {
        match (v.result, v.plies) {
            (result, Some(n)) => println!(
                "{} to move: {result} in {} (exact)",
                color_name(pos.turn()),
                plies(n)
            ),
            ("draw", None) => println!("{} to move: draw (exact)", color_name(pos.turn())),
            _ => println!(
                "{} to move: unknown{} (estimate {} for the side to move)",
                color_name(pos.turn()),
                match (stopped, depth) {
                    (true, _) => ", stopped by the limits before a result".to_string(),
                    (false, Some(d)) => format!(", nothing proven within {}", plies(d)),
                    (false, None) => String::new(),
                },
                v.value
            ),
        }
        if let Some((lower, upper)) = stopped.then(|| stopped_bounds(&searcher, &pos)).flatten() {
            println!("proven so far: value between {lower} and {upper} for the side to move");
        }
        println!("best {}", best.as_deref().unwrap_or("-"));
        println!("pv {}", pv.join(" "));
        println!("nodes {nodes} time {time_ms} ms");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct TestCli {
        #[command(flatten)]
        args: Args,
    }

    fn run_words(words: &[&str]) -> CliResult {
        let cli = TestCli::try_parse_from(std::iter::once("pylos").chain(words.iter().copied()))
            .map_err(|e| CliError::bad_input(e.to_string()))?;
        run(cli.args)
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let bad_position = run_words(&[
            "show",
            "--position",
            "..../..../..../....|b../.../...|../..|. b",
        ]);
        assert!(bad_position
            .unwrap_err()
            .message()
            .contains("1a3 does not rest on four balls"));
        let illegal = run_words(&["play", "--moves", "0a1 0a1"]).unwrap_err();
        assert_eq!(illegal.message(), "illegal move #2 '0a1': 0a1 is occupied");
        let malformed = run_words(&["play", "--moves", "0e9"]).unwrap_err();
        assert!(malformed.message().contains("'0e9'"));
        assert!(run_words(&["perft", "--depth", "2", "--rules", "mature"]).is_ok());
        assert!(run_words(&["perft", "--depth", "2", "--takeback", "sometimes"]).is_err());
        assert!(run_words(&["moves", "--json", "--takeback", "compulsory"]).is_ok());
    }

    #[test]
    fn solve_and_analyze_check_their_input() {
        let over = "bwbw/wbwb/bwbw/wbww|wwb/wbw/bwb|bw/bb|. w";
        let err = run_words(&["solve", "--position", over]).unwrap_err();
        assert_eq!(
            err.message(),
            "the game is over (black wins): nothing to solve"
        );
        let err = run_words(&["analyze", "--time", "0"]).unwrap_err();
        // Rejected by the shared `--time` parser, which names the option and what it wants.
        assert!(
            err.message().contains("'--time <TIME>'"),
            "{}",
            err.message()
        );
        assert!(
            err.message().contains("positive number of seconds"),
            "{}",
            err.message()
        );
        assert!(run_words(&["solve", "--time", "nan"]).is_err());
        assert!(run_words(&["solve", "--hash", "0"]).is_err());
        assert!(run_words(&["solve", "--threads", "0"]).is_err());
        assert!(run_words(&["solve", "--max-depth", "255"]).is_err());
        assert!(run_words(&["solve", "--rules", "kids"]).is_err());
        // Limits that stop the search are an answer ("unknown"), not an error.
        let late = "wwwb/b.wb/bwww/wbbw|..w/..b/..b|../..|. b";
        assert!(run_words(&["solve", "--nodes", "10", "--json"]).is_ok());
        assert!(run_words(&[
            "analyze",
            "--position",
            late,
            "--rules",
            "mature",
            "--nodes",
            "5000"
        ])
        .is_ok());
        assert!(run_words(&["solve", "--position", late, "--rules", "children", "--json"]).is_ok());
    }

    #[test]
    fn verdicts_are_for_the_side_to_move_and_only_when_exact() {
        let rules = Rules::default();
        let black = Position::start(rules);
        let white = Position::parse("b.../..../..../....|.../.../...|../..|. w", rules).unwrap();
        let v = verdict(&black, WIN - 15, true);
        assert_eq!((v.result, v.plies, v.value), ("win", Some(15), WIN - 15));
        let v = verdict(&white, WIN - 15, true);
        assert_eq!(
            (v.result, v.plies, v.value),
            ("loss", Some(15), -(WIN - 15))
        );
        let v = verdict(&white, -(WIN - 5), true);
        assert_eq!((v.result, v.plies), ("win", Some(5)));
        assert_eq!(verdict(&black, 0, true).result, "draw");
        // A decided-looking value that is not proven stays unknown.
        let v = verdict(&black, WIN - 7, false);
        assert_eq!((v.result, v.plies, v.exact), ("unknown", None, false));
    }
}
