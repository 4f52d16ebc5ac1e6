//! `tabula tablebase build|probe pylos`: Pylos solved strongly by retrograde analysis.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args as ClapArgs;
use tabula_api::tablebase::{
    Census, Longest, PylosBuildReport, PylosMoveValue, PylosProbeReport, PylosRules,
};
use tabula_engine::pylos::{Position, PylosSpace, Rules};
use tabula_engine::Retrograde;
use tabula_tablebase::pylos::{default_dir, file_name, ProbeError, PylosTable, DIR_VARIABLE};
use tabula_tablebase::retro::{self, BuildError, BuildOptions, Phase, Progress, Value};
use tabula_tablebase::Existing;

use crate::common::{millis, print_json, store_error};
use crate::error::{CliError, CliResult};
use crate::pylos::RulesArgs;

/// `tabula tablebase build pylos`.
#[derive(ClapArgs, Debug)]
#[command(after_help = "\
The table goes to DIR/pylos-<board>-<rules>-<takeback>.tb (DIR: --dir, else $TABULA_TABLEBASES,
else ./tablebases). A build writes a checkpoint beside it every few minutes and on Ctrl-C;
--resume continues from it. An existing table is kept unless --replace is given.")]
pub struct BuildArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Directory of the tables (default: $TABULA_TABLEBASES, else ./tablebases).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Worker threads (default: every core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Continue an interrupted build from its checkpoint.
    #[arg(long)]
    resume: bool,
    /// Replace an existing table.
    #[arg(long)]
    replace: bool,
    /// Minutes between checkpoints (a kill -9 loses at most this much work).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1440))]
    checkpoint_minutes: u32,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// `tabula tablebase probe pylos`.
#[derive(ClapArgs, Debug)]
pub struct ProbeArgs {
    /// Position string (default: the start position of the board).
    #[arg(long, short, allow_hyphen_values = true)]
    position: Option<String>,
    #[command(flatten)]
    rules: RulesArgs,
    /// Directory of the tables (default: $TABULA_TABLEBASES, else ./tablebases).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Also count the positions reachable from this one by their value (a walk over every
    /// reachable position, on every core, one progress line a ply on stderr: instant on the
    /// 3×3 board, long on the full one).
    #[arg(long)]
    census: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

fn rules_report(rules: Rules) -> PylosRules {
    PylosRules {
        board: u32::from(rules.board.size()),
        rules: rules.variant.to_string(),
        takeback: rules.takeback.to_string(),
    }
}

fn dir_or_default(dir: Option<PathBuf>) -> PathBuf {
    dir.unwrap_or_else(default_dir)
}

/// Progress on stderr: a rewritten line on a terminal, else a line per phase and per minute;
/// each with the phase's ETA from its pace so far.
struct Reporter {
    terminal: bool,
    last_line: Option<Instant>,
    phase: Option<(Phase, Instant, u64)>,
}

impl Reporter {
    fn report(&mut self, p: &Progress) {
        let now = Instant::now();
        if self.phase.is_none_or(|(phase, _, _)| phase != p.phase) {
            self.phase = Some((p.phase, now, p.done));
            self.last_line = None;
        }
        let every = Duration::from_secs(if self.terminal { 1 } else { 60 });
        if self
            .last_line
            .is_some_and(|t| now.duration_since(t) < every)
            && p.done < p.total
        {
            return;
        }
        self.last_line = Some(now);
        let eta = self.phase.and_then(|(_, since, from)| {
            let done = p.done.checked_sub(from).filter(|&d| d > 0)?;
            let left = p.total.saturating_sub(p.done);
            Some(now.duration_since(since).mul_f64(left as f64 / done as f64))
        });
        let eta = match eta {
            Some(t) if p.done < p.total => format!(", phase ETA {}", hms(t)),
            _ => String::new(),
        };
        let line = format!("pylos: {p}{eta}");
        if self.terminal {
            eprint!("\r{line}\x1b[K");
        } else {
            eprintln!("{line}");
        }
    }

    fn finish(&self) {
        if self.terminal && self.phase.is_some() {
            eprintln!();
        }
    }
}

/// `1h02m03s`, `2m03s` or `3s`.
fn hms(t: Duration) -> String {
    let s = t.as_secs();
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, s) => format!("{h}h{m:02}m{s:02}s"),
    }
}

fn build_error(e: BuildError) -> CliError {
    match e {
        BuildError::Store(e) if matches!(e.kind(), tabula_store::ErrorKind::Exists) => {
            CliError::bad_input(format!(
                "cannot build the table: {e} (give --replace to build it again)"
            ))
        }
        BuildError::Store(e) => store_error("cannot build the table", e),
        BuildError::Interrupted { checkpoint } => super::interrupted_into(&checkpoint),
        BuildError::NoCheckpoint { path } => super::nothing_to_resume(&path),
        BuildError::CheckpointExists { path } => super::checkpoint_in_the_way(&path),
        other if other.is_game_bug() => CliError::internal(format!("table build failed: {other}")),
        other => CliError::io(format!("table build failed: {other}")),
    }
}

pub(super) fn build(args: BuildArgs) -> CliResult {
    let rules = args.rules.rules();
    let dir = dir_or_default(args.dir);
    if dir.exists() && !dir.is_dir() {
        return Err(CliError::bad_input(format!(
            "{} is not a directory (the tables' directory)",
            dir.display()
        )));
    }
    if !dir.exists() {
        std::fs::create_dir_all(&dir).map_err(|e| {
            CliError::io(format!(
                "cannot create the directory {}: {e}",
                dir.display()
            ))
        })?;
    }
    let out = dir.join(file_name(rules));
    let space = PylosSpace::new(rules);
    let mut options = BuildOptions::new(&out);
    options.existing = if args.replace {
        Existing::Replace
    } else {
        Existing::Refuse
    };
    options.resume = args.resume;
    options.threads = args.threads.map(usize::from);
    options.checkpoint_every = Duration::from_secs(60 * u64::from(args.checkpoint_minutes));
    options.interrupt = Some(crate::common::interrupt_flag());
    let started = Instant::now();
    let mut reporter = Reporter {
        terminal: std::io::stderr().is_terminal(),
        last_line: None,
        phase: None,
    };
    let built = retro::build(&space, &options, |p| reporter.report(p));
    reporter.finish();
    let summary = built.map_err(build_error)?;
    let elapsed = started.elapsed();
    let bytes = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    let example = |l: Option<retro::Longest>| {
        l.map(|l| Longest {
            plies: l.plies,
            position: space
                .unrank(l.index)
                .map(|p| p.to_string())
                .unwrap_or_default(),
        })
    };
    let report = PylosBuildReport {
        db: "pylos".into(),
        file: out.display().to_string(),
        rules: rules_report(rules),
        size: summary.size,
        won: summary.won,
        lost: summary.lost,
        drawn: summary.drawn,
        holes: summary.holes,
        longest_win: example(summary.longest_win),
        longest_loss: example(summary.longest_loss),
        bytes,
        resumed: args.resume,
        time_ms: millis(elapsed),
    };
    if args.json {
        return print_json(&report);
    }
    println!(
        "pylos {}: {} positions ({} won, {} lost, {} drawn; {} holes), {bytes} bytes written to \
         {} in {:.2} s",
        file_name(rules),
        summary.size - summary.holes,
        summary.won,
        summary.lost,
        summary.drawn,
        summary.holes,
        out.display(),
        elapsed.as_secs_f64()
    );
    if let Some(l) = &report.longest_win {
        println!("longest forced win: {} plies, e.g. {}", l.plies, l.position);
    }
    if let Some(l) = &report.longest_loss {
        println!("longest loss: {} plies, e.g. {}", l.plies, l.position);
    }
    Ok(())
}

/// Opens the table of `rules` in `dir`, with the error a user can act on when it is missing.
pub fn open_table(dir: Option<PathBuf>, rules: Rules) -> Result<PylosTable, CliError> {
    let dir = dir_or_default(dir);
    PylosTable::open(&dir, rules).map_err(|e| {
        if e.is_not_found() {
            CliError::bad_input(format!(
                "no table {} in {} (build it with `tabula tablebase build pylos --board {} \
                 --rules {} --takeback {}`, or give the directory that holds it, or set ${DIR_VARIABLE})",
                file_name(rules),
                dir.display(),
                u32::from(rules.board.size()),
                rules.variant,
                rules.takeback
            ))
        } else {
            store_error("cannot read the table", e)
        }
    })
}

/// A probe error as the CLI reports it.
pub fn probe_error(e: ProbeError) -> CliError {
    match e {
        ProbeError::Store(e) => store_error("cannot read the table", e),
        other => CliError::bad_input(other.to_string()),
    }
}

/// `win`, `loss` or `draw`, and the plies.
pub fn result_words(v: Value) -> (&'static str, Option<u32>) {
    match v {
        Value::Win(d) => ("win", Some(d)),
        Value::Loss(d) => ("loss", Some(d)),
        _ => ("draw", None),
    }
}

pub(super) fn probe(args: ProbeArgs) -> CliResult {
    let rules = args.rules.rules();
    let pos = match &args.position {
        Some(text) => Position::parse(text, rules)
            .map_err(|e| CliError::bad_input(format!("invalid --position: {e}")))?,
        None => Position::start(rules),
    };
    let started = Instant::now();
    let table = open_table(args.dir, rules)?;
    let value = table.value(&pos).map_err(probe_error)?;
    let moves = table.moves(&pos).map_err(probe_error)?;
    let reachable = if args.census {
        let c = retro::census(
            table.space(),
            table.table(),
            &pos,
            Some(crate::common::interrupt_flag()),
            |p| eprintln!("{p}"),
        )
        .map_err(|e| match e {
            retro::CensusError::Store(e) => store_error("cannot read the table", e),
            retro::CensusError::Interrupted => {
                CliError::interrupted("interrupted; the census was not finished")
            }
        })?;
        Some(Census {
            positions: c.positions,
            won: c.won,
            lost: c.lost,
            drawn: c.drawn,
        })
    } else {
        None
    };
    let elapsed = started.elapsed();
    let (result, plies) = result_words(value);
    let report = PylosProbeReport {
        db: "pylos".into(),
        file: table.path().display().to_string(),
        rules: rules_report(rules),
        position: pos.to_string(),
        side_to_move: crate::pylos::render::color_name(pos.turn()).into(),
        result: result.into(),
        plies,
        best: moves.first().map(|m| m.mv.to_string()),
        moves: moves
            .iter()
            .map(|m| {
                let (result, plies) = result_words(m.value);
                PylosMoveValue {
                    mv: m.mv.to_string(),
                    position: m.child.to_string(),
                    result: result.into(),
                    plies,
                }
            })
            .collect(),
        reachable,
        time_ms: millis(elapsed),
    };
    if args.json {
        return print_json(&report);
    }
    println!("position {}", report.position);
    match plies {
        Some(d) => println!("{} to move: {result} in {d} plies", report.side_to_move),
        None => println!("{} to move: draw", report.side_to_move),
    }
    if let Some(best) = &report.best {
        println!("best move {best}");
    }
    for m in &report.moves {
        match m.plies {
            Some(d) => println!("  {:<16} {} in {d}", m.mv, m.result),
            None => println!("  {:<16} draw", m.mv),
        }
    }
    if let Some(c) = &report.reachable {
        println!(
            "reachable from here: {} positions up to symmetry ({} won, {} lost, {} drawn for the \
             side to move)",
            c.positions, c.won, c.lost, c.drawn
        );
    }
    Ok(())
}
