//! `pylos solve` and `pylos analyze`: parse, call the solver's driver, render the typed report
//! ([`tabula_api::pylos::SolveReport`]). Under `children` rules every move adds a ball or raises
//! one, so the tree is finite and `solve` is exact. Under `standard` and `mature` rules
//! positions repeat, so `solve` deepens iteratively instead: a bound proven there (no heuristic
//! leaf) is a forced win or loss within the iteration's depth, a fact of the game; anything
//! short of that is `unknown`.

use super::render::{color_name, plies};
pub use crate::common::Mode;
use crate::common::{self, SearchArgs, TableArg};
use crate::error::{CliError, CliResult};
use clap::Args as ClapArgs;
use std::time::Instant;
use tabula_api::build::pylos::for_mover;
use tabula_api::pylos::SolveReport;
use tabula_engine::pylos::{Position, Rules, WIN};
use tabula_solver::driver::Driver;
use tabula_solver::games::verdict;
use tabula_solver::SolvePolicy;
use tabula_tablebase::pylos::{default_dir, PylosTable};

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
    #[command(flatten)]
    table: TableArg,
    #[command(flatten)]
    tablebase: TablebaseArgs,
}

/// Where the Pylos tablebases are, for the commands that use one when it is there.
#[derive(ClapArgs, Debug, Default)]
pub struct TablebaseArgs {
    /// Directory of the Pylos tablebases: the table of the position's board and rules is used
    /// when it is there (default: $TABULA_TABLEBASES, else ./tablebases; built by `tabula
    /// tablebase build pylos`). Given explicitly, a missing table is an error.
    #[arg(long, value_name = "DIR", conflicts_with = "no_tablebase")]
    tablebase: Option<std::path::PathBuf>,
    /// Search even when a tablebase is there.
    #[arg(long)]
    no_tablebase: bool,
}

impl TablebaseArgs {
    /// The table for `rules`, if one is to be used: `None` with `--no-tablebase` or when the
    /// default directory has none; an error when the named one is missing or a table there
    /// cannot be read.
    pub fn open(&self, rules: Rules) -> Result<Option<PylosTable>, CliError> {
        if self.no_tablebase {
            return Ok(None);
        }
        if let Some(dir) = &self.tablebase {
            return crate::tablebase::pylos::open_table(Some(dir.clone()), rules).map(Some);
        }
        PylosTable::find(default_dir(), rules)
            .map_err(|e| common::store_error("cannot read the tablebase", e))
    }
}

/// The longest principal variation shown for a drawn position (the line never ends).
const DRAW_LINE: usize = 12;

/// A solve or analysis answered by the tablebase: the value, the best move and a line of best
/// moves to the end.
fn from_table(
    pos: &Position,
    table: &PylosTable,
    started: Instant,
) -> Result<SolveReport, CliError> {
    use crate::tablebase::pylos::{probe_error, result_words};
    let value = table.value(pos).map_err(probe_error)?;
    let (result, plies) = result_words(value);
    let line = table
        .line(pos, plies.map_or(DRAW_LINE, |p| p as usize))
        .map_err(probe_error)?;
    let payoff = tabula_tablebase::pylos::payoff(pos, value).map(|v| for_mover(pos, v));
    Ok(SolveReport {
        position: pos.to_string(),
        side_to_move: color_name(pos.turn()).into(),
        result: result.into(),
        plies,
        value: payoff,
        exact: true,
        stopped: false,
        lower: None,
        upper: None,
        best: line.first().map(|m| m.to_string()),
        pv: line.iter().map(|m| m.to_string()).collect(),
        depth: None,
        nodes: 0,
        time_ms: common::millis(started.elapsed()),
        tablebase: Some(table.path().display().to_string()),
    })
}

/// Runs a solve or an analysis of `pos` and prints its report.
pub fn run(pos: &Position, json: bool, args: &SolveArgs, mode: Mode) -> CliResult {
    if let Some(winner) = pos.winner() {
        return Err(CliError::bad_input(format!(
            "the game is over ({} wins): nothing to solve",
            color_name(winner)
        )));
    }
    let started = Instant::now();
    if let Some(table) = args.tablebase.open(pos.rules())? {
        return print(&from_table(pos, &table, started)?, json);
    }
    let exact = mode == Mode::Solve && pos.finite();
    if args.win_loss && !exact {
        return Err(CliError::bad_input(
            "--win-loss needs `solve` under children rules (the only acyclic rule set)",
        ));
    }
    let symmetry = !args.no_symmetry;
    let context = common::pylos_table_context(pos.rules(), symmetry);
    common::run_search(pos, &args.search, &args.table, symmetry, context, |s| {
        let report = if exact {
            common::with_progress(
                s.driver,
                |lo, hi| proven_so_far(pos, lo, hi),
                s.file,
                || match args.win_loss {
                    true => {
                        let proof = s.driver.prove(pos, 1);
                        SolveReport::from_win_loss(pos, proof, s.driver.stats())
                    }
                    false => SolveReport::from_solve(pos, s.driver.solve(pos)),
                },
            )
        } else {
            analyze_report(pos, s.driver, args.max_depth, json)
        };
        print(&report, json)
    })
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

fn analyze_report(pos: &Position, driver: &Driver, max_depth: u8, json: bool) -> SolveReport {
    let analysis = driver.analyze(pos, max_depth, |p| {
        let v = verdict(pos, p.value, p.exact);
        let value = match v.plies {
            Some(n) => format!("{} ({} in {}, exact)", v.value, v.result, plies(n)),
            None => v.value.to_string(),
        };
        common::progress(json, &common::iteration_line(p, value));
    });
    SolveReport::from_analysis(pos, analysis)
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
    match &r.tablebase {
        Some(file) => println!("from the tablebase {file} in {} ms", r.time_ms),
        None => println!("nodes {} time {} ms", r.nodes, r.time_ms),
    }
    Ok(())
}
