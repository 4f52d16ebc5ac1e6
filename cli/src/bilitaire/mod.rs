//! `tabula bilitaire …`: show, list moves, play moves and run perft on Bi-litaire positions.

pub mod game;
pub mod render;

pub use render::board_diagram;
use render::side_description;

use crate::common::TableFile;
use crate::error::{CliError, CliResult};
use clap::{Args as ClapArgs, Subcommand, ValueEnum};
use serde_json::json;
use std::time::Duration;
use tabula_engine::bilitaire::{Position, Rules, Side, START};
use tabula_solver::{AtomicTable, MoveValue, SearchOptions, SearchReport, Searcher};

#[derive(ClapArgs, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the board with coordinates.
    Show(Common),
    /// List every legal move in the project's notation.
    Moves(Common),
    /// With --moves: apply moves and print the resulting position string. Without: play a
    /// match against the engine in the terminal (two rounds, roles swapped).
    Play {
        #[command(flatten)]
        common: Common,
        /// Moves separated by spaces, e.g. "xd4 B1-A1 d6-d4".
        #[arg(long, allow_hyphen_values = true)]
        moves: Option<String>,
        /// Your role in the first round (interactive play).
        #[arg(long, value_enum, default_value_t = crate::bilitaire::game::HumanRole::Ball)]
        role: crate::bilitaire::game::HumanRole,
        #[command(flatten)]
        strength: crate::interactive::Strength,
        /// Rounds to play: 2 is a full match (roles swapped), 1 a single round.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=2))]
        rounds: u8,
    },
    /// Solve exactly: balls left under best play, best move, principal variation.
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
        /// Stop after this many seconds.
        #[arg(long, value_parser = crate::common::parse_seconds)]
        time: Option<Duration>,
        /// Stop after this many nodes.
        #[arg(long)]
        nodes: Option<u64>,
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

/// The rules variant (`shared/rules/bilitaire.md`).
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
enum Variant {
    /// The rules as written: one simple jump unless the slider announces a chain.
    #[default]
    Standard,
    /// Without an announcement the ball player may chain jumps with one ball as he likes.
    FreeChains,
}

#[derive(ClapArgs, Debug)]
struct SearchArgs {
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    hash: u64,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
    /// Key the table without the symmetry reduction.
    #[arg(long)]
    no_symmetry: bool,
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
    /// Rules variant.
    #[arg(long, value_enum, default_value_t = Variant::Standard)]
    rules: Variant,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

impl Common {
    fn position(&self) -> Result<Position, CliError> {
        let rules = Rules {
            free_chains: matches!(self.rules, Variant::FreeChains),
        };
        Position::parse_with(&self.position, rules)
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
            role,
            strength,
            rounds,
        } => crate::bilitaire::game::run_match(
            common.position()?,
            role,
            strength.time_per_move(),
            rounds,
        ),
        Command::Perft {
            common,
            depth,
            divide,
        } => run_perft(&common, depth, divide),
        Command::Solve { common, search } => solve(&common, &search, None, None),
        Command::Analyze {
            common,
            search,
            time,
            nodes,
        } => solve(&common, &search, Some(time), nodes),
    }
}

fn show(common: &Common) -> CliResult {
    let pos = common.position()?;
    let over = pos.is_over();
    if common.json {
        let rows: Vec<String> = pos
            .to_string()
            .split(' ')
            .next()
            .unwrap_or_default()
            .split('/')
            .map(str::to_string)
            .collect();
        println!(
            "{}",
            json!({
                "position": pos.to_string(),
                "side": pos.side().to_string(),
                "balls": pos.ball_count(),
                "tiles": pos.tiles().count_ones(),
                "longest_chain": pos.longest_chain(),
                "over": over,
                "rows": rows,
            })
        );
    } else {
        print!("{}", board_diagram(&pos));
        println!(
            "{}; {} balls, {} tiles, longest chain {}{}",
            side_description(&pos),
            pos.ball_count(),
            pos.tiles().count_ones(),
            pos.longest_chain(),
            if over { "; the round is over" } else { "" }
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
            .map_err(|e| CliError::bad_input(format!("illegal move #{}: {e}", i + 1)))?;
        pos = pos.play(mv);
    }
    if common.json {
        println!(
            "{}",
            json!({ "position": pos.to_string(), "over": pos.is_over() })
        );
    } else {
        println!("{pos}");
    }
    Ok(())
}

fn run_perft(common: &Common, depth: u32, split: bool) -> CliResult {
    crate::common::run_perft(&common.position()?, depth, split, common.json)
}

/// `solve` (exact, `limits` = None) and `analyze` (anytime, `limits` = Some(time)).
/// A solve stopped by Ctrl-C or `--nodes` before the value was proven: what was proven so far.
fn report_stopped_solve(searcher: &Searcher<AtomicTable>, json: bool) {
    let (lower, upper) = searcher.proven_bounds().unwrap_or((1, 48));
    let (nodes, time_ms) = (searcher.nodes(), searcher.elapsed().as_millis() as u64);
    if json {
        println!(
            "{}",
            json!({
                "value": null,
                "best": null,
                "pv": [],
                "exact": false,
                "stopped": true,
                "lower": lower,
                "upper": upper,
                "nodes": nodes,
                "time_ms": time_ms,
            })
        );
    } else {
        println!("stopped before the value was proven: {lower} to {upper} balls left (proven)");
        println!("nodes {nodes} time {time_ms} ms");
    }
}

fn solve(
    common: &Common,
    search: &SearchArgs,
    limits: Option<Option<Duration>>,
    nodes: Option<u64>,
) -> CliResult {
    let pos = common.position()?;
    if pos.is_over() {
        return Err(CliError::bad_input(format!(
            "the round is over ({} balls left): nothing to solve",
            pos.ball_count()
        )));
    }
    let table = AtomicTable::with_megabytes(search.hash as usize);
    let search_options = SearchOptions {
        threads: search.threads as usize,
        symmetry: !search.no_symmetry,
        time: limits.flatten(),
        nodes,
        interrupt: Some(crate::common::interrupt_flag()),
        ..SearchOptions::default()
    };
    let searcher = Searcher::new(&table, search_options.clone());
    let json = common.json;
    let context = crate::common::bilitaire_table_context(pos.rules(), !search.no_symmetry);
    let table_file = TableFile::open(&table, search.table.as_deref(), context)?;
    // `Err(None)`: an exact solve stopped before its value was proven.
    let searched: Result<SearchReport<_>, Option<CliError>> = match limits {
        None => crate::common::with_progress(
            &searcher,
            |lo, hi| format!("balls left {lo}..={hi}"),
            table_file.as_ref(),
            || searcher.solve(&pos),
        )
        .map_err(|_| None),
        Some(_) => searcher
            .analyze(&pos, 200, |p| {
                let line = format!(
                    "depth {} value {}{} best {} nodes {} time {} ms nps {:.0}",
                    p.depth,
                    p.value,
                    if p.exact { " (exact)" } else { "" },
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
            .ok_or_else(|| {
                Some(CliError::bad_input(
                    "the limits stopped the analysis before depth 1",
                ))
            }),
    };
    if let Some(file) = &table_file {
        file.save()?;
    }
    let report = match searched {
        Ok(report) => report,
        Err(None) => {
            report_stopped_solve(&searcher, json);
            return Ok(());
        }
        Err(Some(e)) => return Err(e),
    };
    // The "both roles" view: what every slider option (action x announcement) is worth,
    // searched for about as long again as the solve (at least 2 s), or in what is left of
    // `--time`.
    let options: Vec<MoveValue<String>> = if pos.side() == Side::Slider && report.exact {
        let budget = match limits {
            Some(Some(time)) => time
                .saturating_sub(searcher.elapsed())
                .max(Duration::from_millis(200)),
            _ => searcher.elapsed().max(Duration::from_secs(2)),
        };
        let options_searcher = Searcher::new(
            &table,
            SearchOptions {
                time: Some(budget),
                nodes: None,
                ..search_options
            },
        );
        options_searcher
            .move_values(&pos, report.value)
            .into_iter()
            .map(|v| MoveValue {
                mv: v.mv.to_string(),
                value: v.value,
                bound: v.bound,
            })
            .collect()
    } else {
        Vec::new()
    };
    let pv: Vec<String> = report.pv.iter().map(ToString::to_string).collect();
    let best = report.best.map(|m| m.to_string());
    if json {
        let mut out = json!({
            "value": report.value,
            "best": best,
            "pv": pv,
            "exact": report.exact,
            "nodes": searcher.nodes(),
            "time_ms": searcher.elapsed().as_millis() as u64,
        });
        if let Some(depth) = report.depth {
            out["depth"] = json!(depth);
        }
        if !options.is_empty() {
            out["options"] = options
                .iter()
                .map(|o| match o.value {
                    Some(v) => json!({"move": o.mv, "value": v}),
                    None => json!({"move": o.mv, "value": null, "at_most": o.bound}),
                })
                .collect();
        }
        println!("{out}");
    } else {
        println!(
            "value {}{}: {} balls left under best play",
            report.value,
            if report.exact {
                " (exact)"
            } else {
                " (estimate)"
            },
            report.value
        );
        println!("best {}", best.as_deref().unwrap_or("-"));
        println!("pv {}", pv.join(" "));
        if !options.is_empty() {
            println!("slider options (move: balls left):");
            for o in &options {
                match o.value {
                    Some(v) => println!("  {}: {v}", o.mv),
                    None => println!(
                        "  {}: at most {} (not proven exactly within the limits)",
                        o.mv, o.bound
                    ),
                }
            }
        }
        println!(
            "nodes {} time {} ms",
            searcher.nodes(),
            searcher.elapsed().as_millis()
        );
    }
    Ok(())
}
