//! `bilitaire solve` and `bilitaire analyze`: parse, call the solver's driver, render the typed
//! report ([`tabula_api::bilitaire::SolveReport`]).

pub use crate::common::Mode;
use crate::common::{self, SearchArgs, TableArg};
use crate::error::{CliError, CliResult};
use clap::Args as ClapArgs;
use std::time::Duration;
use tabula_api::bilitaire::{OptionValue, SolveReport};
use tabula_engine::bilitaire::{Position, Side};
use tabula_engine::Scored;
use tabula_solver::driver::{Driver, Limits};
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
    /// `solve` only: prove one bound instead of the value, the answer to "are at least X
    /// balls left under best play?" (a single null-window test, far cheaper than the value
    /// when X is far from it); with the first move that keeps the mover's side of it.
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    at_least: Option<i32>,
    #[command(flatten)]
    table: TableArg,
}

/// Runs a solve or an analysis of `pos` and prints its report.
pub fn run(pos: &Position, json: bool, args: &SolveArgs, mode: Mode) -> CliResult {
    if pos.is_over() {
        return Err(CliError::bad_input(format!(
            "the round is over ({} balls left): nothing to solve",
            pos.ball_count()
        )));
    }
    if let Some(x) = args.at_least {
        if mode == Mode::Analyze || args.options {
            return Err(CliError::bad_input(
                "--at-least is a test of `solve` alone, without --options",
            ));
        }
        let (lo, hi) = pos.value_bounds();
        if x <= lo || x > hi {
            return Err(CliError::bad_input(format!(
                "--at-least {x}: this position leaves {lo} to {hi} balls, so X must be from {} \
                 to {hi}",
                lo + 1
            )));
        }
    }
    let symmetry = !args.no_symmetry;
    let context = common::bilitaire_table_context(pos.rules(), symmetry);
    common::run_search(pos, &args.search, &args.table, symmetry, context, |s| {
        if let Some(x) = args.at_least {
            let report = common::with_progress(
                s.driver,
                |_, _| format!("testing: at least {x} balls left?"),
                s.file,
                || SolveReport::from_at_least(pos, x, s.driver.prove(pos, x), s.driver.stats()),
            );
            return print_at_least(&report, x, json);
        }
        let mut report = match mode {
            Mode::Solve => common::with_progress(
                s.driver,
                |lo, hi| format!("balls left {lo}..={hi}"),
                s.file,
                || SolveReport::from_solve(pos, s.driver.solve(pos)),
            ),
            Mode::Analyze => analyze_report(pos, s.driver, json),
        };
        if args.options && report.exact && pos.side() == Side::Slider {
            let value = report.value.unwrap_or_default();
            report.options = Some(slider_options(pos, value, s.table, args, s.driver));
        }
        print(&report, json)
    })
}

fn analyze_report(pos: &Position, driver: &Driver, json: bool) -> SolveReport {
    let analysis = driver.analyze(pos, 200, |p| {
        let value = format!("{}{}", p.value, if p.exact { " (exact)" } else { "" });
        common::progress(json, &common::iteration_line(p, value));
    });
    SolveReport::from_analysis(pos, analysis)
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
        .iter()
        .map(OptionValue::from_move_value)
        .collect()
}

/// The answer of `solve --at-least X`, in words.
fn print_at_least(report: &SolveReport, x: i32, json: bool) -> CliResult {
    if json {
        return common::print_json(report);
    }
    match (report.lower, report.upper) {
        (Some(lower), _) if lower == x => {
            println!("proven: at least {x} balls left under best play")
        }
        (_, Some(upper)) if upper == x - 1 => {
            println!("proven: fewer than {x} balls left under best play (at most {upper})")
        }
        _ => println!("stopped before the test \"at least {x} balls left\" was decided"),
    }
    if let Some(best) = &report.best {
        println!("best {best}");
    }
    println!("nodes {} time {} ms", report.nodes, report.time_ms);
    Ok(())
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
