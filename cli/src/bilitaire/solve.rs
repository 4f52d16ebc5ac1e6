//! `bilitaire solve` and `bilitaire analyze`: parse, call the solver's driver, render the typed
//! report ([`tabula_api::bilitaire::SolveReport`]).

use crate::common::{self, SearchArgs, TableFile};
use crate::error::{CliError, CliResult};
use clap::Args as ClapArgs;
use std::time::Duration;
use tabula_api::bilitaire::{OptionValue, SolveReport};
use tabula_engine::bilitaire::{Move, Position, Side};
use tabula_solver::driver::{refusal, Analysis, Driver, Limits, Solve, Stats};
use tabula_solver::AtomicTable;

/// The options of `solve` and `analyze`.
#[derive(ClapArgs, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    search: SearchArgs,
    /// Also value every slider option (action x announcement) once the position is solved:
    /// within what is left of --time, or about as long again as the solve (at least 2 s)
    /// without one. Not counted in `time_ms`.
    #[arg(long)]
    options: bool,
    /// Key the table without the symmetry reduction.
    #[arg(long)]
    no_symmetry: bool,
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
    if pos.is_over() {
        return Err(CliError::bad_input(format!(
            "the round is over ({} balls left): nothing to solve",
            pos.ball_count()
        )));
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
    let context = common::bilitaire_table_context(pos.rules(), symmetry);
    let table_file = TableFile::open(&table, args.table.as_deref(), context)?;
    // After the table file is loaded: the driver's clock (time_ms, --time) is the search's.
    let driver = Driver::new(&table, args.search.config(symmetry), limits);
    let mut report = match mode {
        Mode::Solve => common::with_progress(
            &driver,
            |lo, hi| format!("balls left {lo}..={hi}"),
            table_file.as_ref(),
            || solve_report(pos, driver.solve(pos)),
        ),
        Mode::Analyze => analyze_report(pos, &driver, json),
    };
    if args.options && report.exact && pos.side() == Side::Slider {
        let value = report.value.unwrap_or_default();
        report.options = Some(slider_options(pos, value, &table, args, &driver));
    }
    print(&report, json)?;
    // After the result: a failed save is an error, but the answer is already out.
    match &table_file {
        Some(file) => file.save(),
        None => Ok(()),
    }
}

fn side_to_move(pos: &Position) -> String {
    match pos.side() {
        Side::Slider => "slider".into(),
        Side::OpeningRemoval | Side::Ball(_) => "ball".into(),
    }
}

fn names(moves: &[Move]) -> Vec<String> {
    moves.iter().map(ToString::to_string).collect()
}

/// A report with nothing filled in but the position and the cost.
fn blank(pos: &Position, stats: Stats) -> SolveReport {
    SolveReport {
        position: pos.to_string(),
        side_to_move: side_to_move(pos),
        value: None,
        exact: false,
        stopped: false,
        lower: None,
        upper: None,
        best: None,
        pv: Vec::new(),
        depth: None,
        options: None,
        nodes: stats.nodes,
        time_ms: common::millis(stats.time),
    }
}

fn solve_report(pos: &Position, solved: Solve<Move>) -> SolveReport {
    match solved {
        Solve::Solved { line, stats } => SolveReport {
            value: Some(line.value),
            exact: true,
            best: line.best.map(|m| m.to_string()),
            pv: names(&line.pv),
            ..blank(pos, stats)
        },
        Solve::Stopped {
            lower,
            upper,
            stats,
            ..
        } => SolveReport {
            stopped: true,
            lower: Some(lower),
            upper: Some(upper),
            ..blank(pos, stats)
        },
    }
}

fn analyze_report(pos: &Position, driver: &Driver, json: bool) -> SolveReport {
    let analysis = driver.analyze(pos, 200, |p| {
        let value = format!("{}{}", p.value, if p.exact { " (exact)" } else { "" });
        common::progress(json, &common::iteration_line(p, value));
    });
    let exact = matches!(analysis, Analysis::Exact { .. });
    match analysis {
        Analysis::Exact { line, depth, stats }
        | Analysis::Estimate {
            line, depth, stats, ..
        } => SolveReport {
            value: Some(line.value),
            exact,
            best: line.best.map(|m| m.to_string()),
            pv: names(&line.pv),
            depth: Some(depth),
            ..blank(pos, stats)
        },
        Analysis::Stopped { stats, .. } => {
            let (lower, upper) = tabula_engine::Scored::value_bounds(pos);
            SolveReport {
                stopped: true,
                lower: Some(lower),
                upper: Some(upper),
                ..blank(pos, stats)
            }
        }
    }
}

/// The "both roles" view: what every slider option (action x announcement) is worth, searched
/// with a fresh driver over the same table (its time is not the solve's `time_ms`).
fn slider_options(
    pos: &Position,
    value: i32,
    table: &AtomicTable,
    args: &SolveArgs,
    solved: &Driver,
) -> Vec<OptionValue> {
    let spent = solved.stats().time;
    let budget = match args.search.time {
        Some(time) => time.saturating_sub(spent).max(Duration::from_millis(200)),
        None => spent.max(Duration::from_secs(2)),
    };
    let limits = Limits {
        time: Some(budget),
        nodes: None,
        interrupt: Some(common::interrupt_flag()),
    };
    let driver = Driver::new(table, args.search.config(!args.no_symmetry), limits);
    driver
        .move_values(pos, value)
        .into_iter()
        .map(|v| OptionValue {
            mv: v.mv.to_string(),
            value: v.value,
            at_most: v.value.is_none().then_some(v.bound),
        })
        .collect()
}

fn print(report: &SolveReport, json: bool) -> CliResult {
    if json {
        return common::print_json(report);
    }
    match (report.value, report.lower, report.upper) {
        (Some(value), _, _) => println!(
            "value {value}{}: {value} balls left under best play",
            if report.exact {
                " (exact)"
            } else {
                " (estimate)"
            }
        ),
        (None, Some(lower), Some(upper)) => {
            println!("stopped before the value was proven: {lower} to {upper} balls left (proven)")
        }
        _ => println!("stopped before any value"),
    }
    if report.value.is_some() {
        println!("best {}", report.best.as_deref().unwrap_or("-"));
        println!("pv {}", report.pv.join(" "));
    }
    for o in report.options.iter().flatten() {
        match (o.value, o.at_most) {
            (Some(v), _) => println!("  {}: {v}", o.mv),
            (None, bound) => println!(
                "  {}: at most {} (not proven exactly within the limits)",
                o.mv,
                bound.unwrap_or_default()
            ),
        }
    }
    println!("nodes {} time {} ms", report.nodes, report.time_ms);
    Ok(())
}
