//! `pylos solve` and `pylos analyze`: parse, call the solver's driver, render the typed report
//! ([`tabula_api::pylos::SolveReport`]). Under `children` rules every move adds a ball or raises
//! one, so the tree is finite and `solve` is exact. Under `standard` and `mature` rules
//! positions repeat, so `solve` deepens iteratively instead: a bound proven there (no heuristic
//! leaf) is a forced win or loss within the iteration's depth, a fact of the game; anything
//! short of that is `unknown`.

use super::render::{color_name, plies};
use crate::common::{self, SearchArgs, TableFile};
use crate::error::{CliError, CliResult};
use clap::Args as ClapArgs;
use tabula_api::pylos::SolveReport;
use tabula_engine::pylos::{Color, Move, Position, WIN};
use tabula_solver::driver::{refusal, Analysis, Driver, Proof, Solve, Stats};
use tabula_solver::games::verdict;
use tabula_solver::SolvePolicy;

/// The options of `solve` and `analyze`.
#[derive(ClapArgs, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    search: SearchArgs,
    /// Key the table without the symmetry reduction.
    #[arg(long)]
    no_symmetry: bool,
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Solve,
    Analyze,
}

/// Runs a solve or an analysis of `pos` and prints its report.
pub fn run(pos: &Position, json: bool, args: &SolveArgs, mode: Mode) -> CliResult {
    if let Some(winner) = pos.winner() {
        return Err(CliError::bad_input(format!(
            "the game is over ({} wins): nothing to solve",
            color_name(winner)
        )));
    }
    let exact = mode == Mode::Solve && pos.finite();
    if args.win_loss && !exact {
        return Err(CliError::bad_input(
            "--win-loss needs `solve` under children rules (the only acyclic rule set)",
        ));
    }
    let limits = args.search.limits();
    if let Some(why) = refusal(pos, &limits) {
        return Err(CliError::bad_input(why));
    }
    if let Some(path) = &args.table {
        common::check_output_path("--table", path)?;
    }
    let table = args.search.table()?;
    let symmetry = !args.no_symmetry;
    let context = common::pylos_table_context(pos.rules(), symmetry);
    let table_file = TableFile::open(&table, args.table.as_deref(), context)?;
    // After the table file is loaded: the driver's clock (time_ms, --time) is the search's.
    let driver = Driver::new(&table, args.search.config(symmetry), limits);
    let report = if exact {
        common::with_progress(
            &driver,
            |lo, hi| proven_so_far(pos, lo, hi),
            table_file.as_ref(),
            || match args.win_loss {
                true => win_loss_report(pos, &driver),
                false => solve_report(pos, driver.solve(pos)),
            },
        )
    } else {
        analyze_report(pos, &driver, args.max_depth, json)
    };
    print(&report, json)?;
    // After the result: a failed save is an error, but the answer is already out.
    match &table_file {
        Some(file) => file.save(),
        None => Ok(()),
    }
}

/// Black's payoff as the side to move's.
fn for_mover(pos: &Position, black: i32) -> i32 {
    match pos.turn() {
        Color::Black => black,
        Color::White => -black,
    }
}

/// Proven bounds on black's payoff, in words for the side to move (progress lines).
fn proven_so_far(pos: &Position, lo: i32, hi: i32) -> String {
    let (lo, hi) = (for_mover(pos, lo), for_mover(pos, hi));
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    if lo > 0 {
        format!("proven: a win within {}", plies((WIN - lo).unsigned_abs()))
    } else if hi < 0 {
        format!("proven: a loss within {}", plies((WIN + hi).unsigned_abs()))
    } else {
        "not decided yet".to_string()
    }
}

fn names(moves: &[Move]) -> Vec<String> {
    moves.iter().map(ToString::to_string).collect()
}

/// A report of nothing known yet, with the cost.
fn unknown(pos: &Position, stats: Stats) -> SolveReport {
    SolveReport {
        position: pos.to_string(),
        side_to_move: color_name(pos.turn()).into(),
        result: "unknown".into(),
        plies: None,
        value: None,
        exact: false,
        stopped: false,
        lower: None,
        upper: None,
        best: None,
        pv: Vec::new(),
        depth: None,
        nodes: stats.nodes,
        time_ms: common::millis(stats.time),
    }
}

/// A report of a line whose value (black's payoff) is `exact` or an estimate.
fn line_report(
    pos: &Position,
    line: &tabula_solver::Line<Move>,
    exact: bool,
    stats: Stats,
) -> SolveReport {
    let v = verdict(pos, line.value, exact);
    SolveReport {
        result: v.result.into(),
        plies: v.plies,
        value: Some(v.value),
        exact: v.exact,
        best: line.best.map(|m| m.to_string()),
        pv: names(&line.pv),
        ..unknown(pos, stats)
    }
}

fn solve_report(pos: &Position, solved: Solve<Move>) -> SolveReport {
    match solved {
        Solve::Solved { line, stats } => line_report(pos, &line, true, stats),
        Solve::Stopped {
            lower,
            upper,
            stats,
            ..
        } => {
            let (a, b) = (for_mover(pos, lower), for_mover(pos, upper));
            SolveReport {
                stopped: true,
                lower: Some(a.min(b)),
                upper: Some(a.max(b)),
                ..unknown(pos, stats)
            }
        }
    }
}

fn analyze_report(pos: &Position, driver: &Driver, max_depth: u8, json: bool) -> SolveReport {
    let analysis = driver.analyze(pos, max_depth, |p| {
        let v = verdict(pos, p.value, p.exact);
        let value = match v.plies {
            Some(n) => format!("{} ({} in {}, exact)", v.value, v.result, plies(n)),
            None => v.value.to_string(),
        };
        common::progress(json, &common::iteration_line(p, value));
    });
    let exact = matches!(analysis, Analysis::Exact { .. });
    match analysis {
        Analysis::Exact { line, depth, stats }
        | Analysis::Estimate {
            line, depth, stats, ..
        } => SolveReport {
            depth: Some(depth),
            ..line_report(pos, &line, exact, stats)
        },
        Analysis::Stopped { stats, .. } => SolveReport {
            stopped: true,
            ..unknown(pos, stats)
        },
    }
}

/// `solve --win-loss`: one exact test of who wins, then (for a win) the first move that keeps
/// it. The distance is not searched, so `plies` is null and the value is ±1. Stopped by a limit
/// or Ctrl-C, it reports what it proved: nothing (`unknown`), or the result without a move.
fn win_loss_report(pos: &Position, driver: &Driver) -> SolveReport {
    // Black's payoff is positive exactly when black wins (no draws under children rules).
    let (holds, best, stopped) = match driver.prove(pos, 1) {
        Proof::Proven { holds, best } => (Some(holds), best, false),
        Proof::Stopped { holds, .. } => (holds, None, true),
    };
    let mover_wins = holds.map(|black| black == (pos.turn() == Color::Black));
    let best: Option<String> = best.map(|m| m.to_string());
    SolveReport {
        result: match mover_wins {
            Some(true) => "win",
            Some(false) => "loss",
            None => "unknown",
        }
        .into(),
        value: mover_wins.map(|w| if w { 1 } else { -1 }),
        exact: mover_wins.is_some(),
        stopped,
        pv: best.iter().cloned().collect(),
        best,
        ..unknown(pos, driver.stats())
    }
}

fn print(r: &SolveReport, json: bool) -> CliResult {
    if json {
        return common::print_json(r);
    }
    let side = &r.side_to_move;
    match (r.result.as_str(), r.plies, r.value) {
        (result, Some(n), _) => println!("{side} to move: {result} in {} (exact)", plies(n)),
        ("draw", None, _) => println!("{side} to move: draw (exact)"),
        ("win" | "loss", None, _) => {
            println!(
                "{side} to move: {} (exact; distance not searched)",
                r.result
            )
        }
        (_, None, value) => println!(
            "{side} to move: unknown{}{}",
            match (r.stopped, r.depth) {
                (true, _) => ", stopped by the limits before a result".to_string(),
                (false, Some(d)) => format!(", nothing proven within {}", plies(d)),
                (false, None) => String::new(),
            },
            value
                .map(|v| format!(" (estimate {v} for the side to move)"))
                .unwrap_or_default()
        ),
    }
    if let (Some(lower), Some(upper)) = (r.lower, r.upper) {
        println!("proven so far: value between {lower} and {upper} for the side to move");
    }
    println!("best {}", r.best.as_deref().unwrap_or("-"));
    println!("pv {}", r.pv.join(" "));
    println!("nodes {} time {} ms", r.nodes, r.time_ms);
    Ok(())
}
