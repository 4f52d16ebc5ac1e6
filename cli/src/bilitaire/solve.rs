//! `bilitaire solve` and `bilitaire analyze`: parse, call the solver's driver, render the typed
//! report ([`tabula_api::bilitaire::SolveReport`]).

pub use crate::common::Mode;
use crate::common::{self, SearchArgs, TableArg};
use crate::error::{CliError, CliResult};
use clap::{Args as ClapArgs, ValueEnum};
use std::time::{Duration, Instant};
use tabula_api::bilitaire::{OptionValue, ProofCheckReport, SolveReport};
use tabula_engine::bilitaire::{Position, Side};
use tabula_engine::Scored;
use tabula_solver::driver::{Driver, Limits, Proof, Stats, Stop};
use tabula_solver::proof::{check_bound, Bound, CheckError, ProofCheck};
use tabula_solver::{AtomicTable, Dfpn, DfpnOptions};

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
    /// `solve --at-least` only: the search that decides the test. `alpha-beta` (the solve's
    /// null-window test, parallel with --threads) or `dfpn` (depth-first proof-number search,
    /// one thread, a proof-number table of --hash MiB beside the table): df-pn finds the
    /// slider's strategies far sooner where a bound lies well below the value (the opening's
    /// lower bounds, docs/bilitaire.md), alpha-beta the ball player's refutations. (An exact
    /// solve uses both: a test alpha-beta has not decided within 500,000 nodes gets turns of
    /// df-pn, with a proof-number table of 16 MiB beside --hash.)
    #[arg(long, value_enum, default_value_t = Prover::AlphaBeta)]
    prover: Prover,
    /// `solve --at-least` only: once the test is decided, check the bound independently: the
    /// winning side's strategy, move by move as the proof found it, against every move of the
    /// other side to the end of the round, by the rules alone (no shortcut, bound, table or
    /// symmetry of the search). Reports the size of the proof tree, or that it was too large
    /// to check (over 10 million positions: the ball player's upper bounds mostly are, every
    /// slider action being a reply), or that --time or --nodes, which bound the searches that
    /// complete the strategy once more, stopped it; a proof that fails the check is an
    /// internal error.
    #[arg(long)]
    verify: bool,
    #[command(flatten)]
    table: TableArg,
}

/// The search that decides `solve --at-least`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Prover {
    AlphaBeta,
    Dfpn,
}

/// The most positions `--verify` checks; a larger proof tree is reported unchecked. The check
/// keeps every position it has checked (about 100 bytes each with the set's overhead), so
/// this holds it near 1 GiB.
const CHECK_LIMIT: u64 = 10_000_000;

/// Runs a solve or an analysis of `pos` and prints its report.
pub fn run(pos: &Position, json: bool, args: &SolveArgs, mode: Mode) -> CliResult {
    if pos.is_over() {
        return Err(CliError::bad_input(format!(
            "the round is over ({} balls left): nothing to solve",
            pos.ball_count()
        )));
    }
    if args.at_least.is_none() && (args.prover != Prover::AlphaBeta || args.verify) {
        return Err(CliError::bad_input(
            "--prover and --verify go with --at-least X (one bound)",
        ));
    }
    let two_tables = args.prover == Prover::Dfpn || args.verify;
    if let Some(available) =
        common::available_mib().filter(|&a| two_tables && 2 * args.search.hash > a)
    {
        return Err(CliError::bad_input(format!(
            "--hash {}: df-pn (the prover or --verify) keeps a proof-number table of {} MiB \
             beside the table, more than the memory available ({available} MiB) for both; \
             choose a smaller --hash",
            args.search.hash, args.search.hash
        )));
    }
    if args.prover == Prover::Dfpn && args.search.threads > 1 {
        return Err(CliError::bad_input(
            "--prover dfpn runs on one thread: leave out --threads",
        ));
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
            let mut report = match args.prover {
                Prover::AlphaBeta => common::with_progress(
                    s.driver,
                    |_, _| format!("testing: at least {x} balls left?"),
                    s.file,
                    || {
                        let proof = s.driver.prove(pos, x);
                        let known = s.driver.known_bounds(pos);
                        SolveReport::from_at_least(pos, x, proof, known, s.driver.stats())
                    },
                ),
                Prover::Dfpn => {
                    let doing = format!("testing: at least {x} balls left?");
                    let mut dfpn = proof_search(&args.search, symmetry, s.table, s.file, doing);
                    let started = Instant::now();
                    let proof = match dfpn.prove_at_least(pos, x) {
                        Ok(holds) => Proof::Proven {
                            holds,
                            best: dfpn.proof_move(pos, x).ok().flatten(),
                        },
                        Err(_) => Proof::Stopped {
                            reason: stop_reason(&args.search, dfpn.stats().nodes),
                            holds: None,
                        },
                    };
                    let stats = Stats {
                        nodes: dfpn.stats().nodes,
                        time: started.elapsed(),
                    };
                    SolveReport::from_at_least(pos, x, proof, s.driver.known_bounds(pos), stats)
                }
            };
            if args.verify && !report.stopped {
                report.check = Some(verify(pos, x, &report, &args.search, symmetry, s.table)?);
            }
            return print_at_least(pos, &report, x, json);
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

/// A df-pn search for `--at-least X`: its own table of --hash MiB, the proven bounds shared
/// with `table` (and so kept by `--table`), the limits of `search`, a progress line now and
/// then, and the `--table` file saved as the alpha-beta tests save it. (`run` has checked
/// that the memory holds both tables.)
fn proof_search<'t>(
    search: &common::SearchArgs,
    symmetry: bool,
    table: &'t AtomicTable,
    file: Option<&'t common::TableFile<'t>>,
    doing: String,
) -> Dfpn<'t> {
    let options = DfpnOptions {
        megabytes: usize::try_from(search.hash).unwrap_or(64),
        symmetry,
        nodes: search.nodes,
        interrupt: Some(common::interrupt_flag()),
        deadline: search.time.map(|t| Instant::now() + t),
        ..DfpnOptions::default()
    };
    let mut dfpn = Dfpn::with_shared_table(options, table);
    let started = Instant::now();
    let mut last_save = Instant::now();
    dfpn.on_progress(common::progress_every(), move |stats| {
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "{doing}: {} nodes, {:.0} knodes/s, {} expansions",
            stats.nodes,
            stats.nodes as f64 / secs.max(1e-3) / 1000.0,
            stats.expansions
        );
        if let Some(file) = file.filter(|_| last_save.elapsed() >= common::table_save_every()) {
            if let Err(e) = file.save() {
                eprintln!("table: {e}");
            }
            last_save = Instant::now();
        }
    });
    dfpn
}

/// Why a df-pn test stopped after `nodes`: Ctrl-C, else the node limit if it was reached, else
/// the deadline (the only limit left).
fn stop_reason(search: &common::SearchArgs, nodes: u64) -> Stop {
    if common::was_interrupted() {
        Stop::Interrupted
    } else if search.nodes.is_some_and(|limit| nodes >= limit) {
        Stop::Nodes
    } else {
        Stop::Time
    }
}

/// `--verify`: the bound `report` proves, checked by [`tabula_solver::proof::check_bound`]
/// with the strategy a df-pn search reads from the shared table and completes where the table
/// does not settle a move. That search runs under `--time` and `--nodes` again (a budget of
/// its own, over the whole check) and Ctrl-C: stopped, the check is reported incomplete.
fn verify(
    pos: &Position,
    x: i32,
    report: &SolveReport,
    search: &common::SearchArgs,
    symmetry: bool,
    table: &AtomicTable,
) -> Result<ProofCheckReport, CliError> {
    let bound = Bound::of_test(x, report.lower == Some(x));
    let doing = format!("checking the proof of at least {x} (df-pn completing the strategy)");
    let mut dfpn = proof_search(search, symmetry, table, None, doing);
    let started = Instant::now();
    let mut asked = 0;
    let mut stopped = false;
    let checked = check_bound(pos, bound, CHECK_LIMIT, |p| {
        asked += 1;
        dfpn.proof_move(p, x).unwrap_or_else(|_| {
            stopped = true;
            None
        })
    });
    if common::was_interrupted() {
        return Err(CliError::new(
            tabula_api::ErrorKind::Interrupted,
            "interrupted while checking the proof",
        ));
    }
    let (complete, c) = match checked {
        Ok(c) => (true, c),
        Err(CheckError::TooLarge { limit }) => (
            false,
            ProofCheck {
                positions: limit,
                ..ProofCheck::default()
            },
        ),
        // The limits stopped the search for a strategy move: the check did not finish.
        Err(CheckError::NoMove { .. }) if stopped => (
            false,
            ProofCheck {
                strategy_moves: asked - 1,
                ..ProofCheck::default()
            },
        ),
        Err(e) => {
            return Err(CliError::internal(format!(
                "the proof failed its independent check: {e}"
            )))
        }
    };
    Ok(ProofCheckReport {
        bound: match bound {
            Bound::AtLeast(x) => format!("at least {x}"),
            Bound::Below(x) => format!("below {x}"),
        },
        complete,
        stopped,
        positions: c.positions,
        strategy_moves: c.strategy_moves,
        terminals: c.terminals,
        longest_line: c.longest,
        time_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}

/// The answer of `solve --at-least X`, in words.
fn print_at_least(pos: &Position, report: &SolveReport, x: i32, json: bool) -> CliResult {
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
        (Some(lower), Some(upper)) if (lower, upper) != pos.value_bounds() => println!(
            "stopped before the test \"at least {x} balls left\" was decided; proven so far: \
             {lower} to {upper} balls left"
        ),
        _ => println!("stopped before the test \"at least {x} balls left\" was decided"),
    }
    if let Some(best) = &report.best {
        println!("best {best}");
    }
    println!("nodes {} time {} ms", report.nodes, report.time_ms);
    if let Some(c) = report.check.as_ref().filter(|c| c.stopped) {
        println!(
            "not checked: --time or --nodes stopped the check of {} after {} strategy moves",
            c.bound, c.strategy_moves
        );
    } else if let Some(c) = report.check.as_ref().filter(|c| !c.complete) {
        println!(
            "not checked: the proof of {} has more than {} positions, more than --verify takes",
            c.bound, c.positions
        );
    } else if let Some(c) = &report.check {
        println!(
            "checked: {} by the rules alone, {} positions ({} strategy moves, {} end positions, \
             lines up to {} plies), {} ms",
            c.bound, c.positions, c.strategy_moves, c.terminals, c.longest_line, c.time_ms
        );
    }
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
