//! Pieces every game's commands share.

use crate::error::{CliError, CliResult};
use serde_json::json;
use std::time::Instant;
use tabula_engine::perft::{divide, perft};
use tabula_engine::Game;

/// `perft --depth D [--divide] [--json]` for any game: JSON `{"depth": D, "nodes": N}` (plus
/// `divide` when asked), or text with the speed on stderr.
pub fn run_perft<G: Game>(pos: &G, depth: u32, split: bool, json: bool) -> CliResult {
    let started = Instant::now();
    let (nodes, parts) = if split && depth > 0 {
        let parts = divide(pos, depth);
        (parts.iter().map(|(_, n)| n).sum(), Some(parts))
    } else {
        (perft(pos, depth), None)
    };
    let elapsed = started.elapsed();
    if json {
        let mut out = json!({ "depth": depth, "nodes": nodes });
        if let Some(parts) = &parts {
            out["divide"] = parts
                .iter()
                .map(|(mv, n)| (mv.to_string(), json!(n)))
                .collect::<serde_json::Map<_, _>>()
                .into();
        }
        println!("{out}");
    } else {
        for (mv, n) in parts.iter().flatten() {
            println!("{mv}: {n}");
        }
        println!("perft {depth}: {nodes}");
        eprintln!(
            "{:.3} s, {:.1} M nodes/s",
            elapsed.as_secs_f64(),
            nodes as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6
        );
    }
    Ok(())
}

/// `moves`: every legal move in the game's notation, one a line or as a JSON array of strings.
pub fn print_moves<G: Game>(pos: &G, json: bool) -> CliResult {
    let mut list = Vec::new();
    pos.legal_moves(&mut list);
    let names: Vec<String> = list.iter().map(ToString::to_string).collect();
    if json {
        println!("{}", json!(names));
    } else {
        for name in &names {
            println!("{name}");
        }
    }
    Ok(())
}

/// Parses `--time` values: a positive, finite number of seconds (below 10^9, which
/// `Duration` can hold).
pub fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    match text.parse::<f64>() {
        Ok(t) if t.is_finite() && t > 0.0 && t < 1e9 => Ok(std::time::Duration::from_secs_f64(t)),
        _ => Err("expected a positive number of seconds".into()),
    }
}

static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A flag that Ctrl-C sets, for searches to poll: the first Ctrl-C stops the running search,
/// which then reports what it has proven; a second one exits at once (exit code 130).
pub fn interrupt_flag() -> &'static std::sync::atomic::AtomicBool {
    use std::sync::atomic::Ordering;
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        // Without a handler (e.g. one is already installed) Ctrl-C keeps its default effect.
        let _ = ctrlc::set_handler(|| {
            if INTERRUPTED.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!("interrupted: stopping the search (Ctrl-C again to quit at once)");
        });
    });
    &INTERRUPTED
}

/// True once Ctrl-C has stopped a search.
pub fn was_interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed)
}

/// How often a long exact solve reports on stderr: 10 s, or `TABULA_PROGRESS_EVERY` seconds.
fn progress_every() -> std::time::Duration {
    std::env::var("TABULA_PROGRESS_EVERY")
        .ok()
        .and_then(|v| parse_seconds(&v).ok())
        .unwrap_or(std::time::Duration::from_secs(10))
}

/// How often a solve with `--table` saves its proven entries while it runs: 300 s, or
/// `TABULA_TABLE_SAVE_EVERY` seconds.
fn table_save_every() -> std::time::Duration {
    std::env::var("TABULA_TABLE_SAVE_EVERY")
        .ok()
        .and_then(|v| parse_seconds(&v).ok())
        .unwrap_or(std::time::Duration::from_secs(300))
}

/// `--table FILE`: where a solve keeps its proven entries between runs (`tabula_solver::tt_file`),
/// tagged with the game, rules and keying they belong to.
pub struct TableFile<'a> {
    table: &'a tabula_solver::AtomicTable,
    path: std::path::PathBuf,
    context: String,
}

impl<'a> TableFile<'a> {
    /// With a path: loads the file into `table` when it exists (a damaged file, or one made
    /// under other rules, is an error); a missing file is a fresh start.
    pub fn open(
        table: &'a tabula_solver::AtomicTable,
        path: Option<&std::path::Path>,
        context: String,
    ) -> Result<Option<TableFile<'a>>, CliError> {
        let Some(path) = path else { return Ok(None) };
        if path.exists() {
            let n = tabula_solver::load_proven(table, &context, path)
                .map_err(|e| CliError::bad_input(format!("{}: {e}", path.display())))?;
            eprintln!(
                "table: resuming with {n} proven positions from {}",
                path.display()
            );
        }
        Ok(Some(TableFile {
            table,
            path: path.to_path_buf(),
            context,
        }))
    }

    /// Writes the proven entries (atomically).
    pub fn save(&self) -> CliResult {
        let n = tabula_solver::save_proven(self.table, &self.context, &self.path)
            .map_err(|e| CliError::bad_input(e.to_string()))?;
        eprintln!(
            "table: {n} proven positions saved to {}",
            self.path.display()
        );
        Ok(())
    }
}

/// The search options every game's `solve` and `analyze` flatten: the same names, defaults and
/// ranges everywhere.
#[derive(clap::Args, Debug, Clone)]
pub struct SearchArgs {
    /// Transposition table size in MiB (checked against the memory available).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub hash: u64,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: u64,
    /// Stop after this many seconds (the search then reports what it proved).
    #[arg(long, value_parser = parse_seconds)]
    pub time: Option<std::time::Duration>,
    /// Stop after this many nodes (the search then reports what it proved).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
}

impl SearchArgs {
    /// The limits of the search, with Ctrl-C as its interrupt.
    pub fn limits(&self) -> tabula_solver::Limits {
        tabula_solver::Limits {
            time: self.time,
            nodes: self.nodes,
            interrupt: Some(interrupt_flag()),
        }
    }

    /// How the search runs.
    pub fn config(&self, symmetry: bool) -> tabula_solver::driver::Config {
        tabula_solver::driver::Config {
            threads: usize::try_from(self.threads).unwrap_or(1),
            symmetry,
            ..tabula_solver::driver::Config::default()
        }
    }

    /// The transposition table of `--hash` MiB (see [`allocate_table`]).
    pub fn table(&self) -> Result<tabula_solver::AtomicTable, CliError> {
        allocate_table(self.hash)
    }
}

/// The memory the system can give without swapping, in MiB (`MemAvailable`), where known.
fn available_mib() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// Tables from this size on show their allocation on stderr (zeroing 1 GiB takes about 2 s).
const ALLOCATION_PROGRESS_MIB: u64 = 1024;

/// A table of `mib` MiB: refused (bad input) when it is more than the memory available or
/// cannot be reserved, instead of an abort; large tables report the allocation on stderr.
pub fn allocate_table(mib: u64) -> Result<tabula_solver::AtomicTable, CliError> {
    let too_big = |why: String| {
        CliError::bad_input(format!(
            "--hash {mib}: a table of {mib} MiB {why}; choose a smaller --hash"
        ))
    };
    if let Some(available) = available_mib().filter(|&a| mib > a) {
        return Err(too_big(format!(
            "is more than the memory available ({available} MiB)"
        )));
    }
    let show = mib >= ALLOCATION_PROGRESS_MIB;
    let mut shown = 0;
    let started = Instant::now();
    let table = tabula_solver::AtomicTable::try_with_megabytes(
        usize::try_from(mib).unwrap_or(usize::MAX),
        |done, total| {
            let percent = done * 100 / total.max(1);
            if show && (percent >= shown + 25 || done == total) {
                shown = percent;
                eprintln!("table: allocating {mib} MiB: {percent}%");
            }
        },
    )
    .map_err(|e| too_big(format!("cannot be allocated ({e})")))?;
    if show {
        eprintln!(
            "table: {mib} MiB ready in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(table)
}

/// Checks, before any search, that a file can be written at `path` (given as `option`): its
/// directory exists and `path` is not a directory. The search's result is never lost to a bad
/// output path found only at the end.
pub fn check_output_path(option: &str, path: &std::path::Path) -> CliResult {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    if !dir.is_dir() {
        return Err(CliError::bad_input(format!(
            "{option} {}: the directory {} does not exist",
            path.display(),
            dir.display()
        )));
    }
    if path.is_dir() {
        return Err(CliError::bad_input(format!(
            "{option} {}: is a directory, not a file",
            path.display()
        )));
    }
    Ok(())
}

/// Runs `job`, a search by `driver`, printing a progress line to stderr every
/// [`progress_every`] until it returns: nodes, speed, and the bounds proven so far (as
/// `bounds` words them). Searches that finish sooner print nothing. With a `checkpoint` file
/// the proven entries are also saved every [`table_save_every`] (a failed save is reported and
/// the search goes on).
pub fn with_progress<T: tabula_solver::Table, O: Sync, R>(
    driver: &tabula_solver::Driver<T, O>,
    bounds: impl Fn(i32, i32) -> String + Sync,
    checkpoint: Option<&TableFile>,
    job: impl FnOnce() -> R,
) -> R {
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let bounds = &bounds;
    let (progress_every, save_every) = (progress_every(), table_save_every());
    let tick = match checkpoint {
        Some(_) => progress_every.min(save_every),
        None => progress_every,
    };
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let (mut last_progress, mut last_save) = (Instant::now(), Instant::now());
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(tick)
            {
                if let Some(file) = checkpoint.filter(|_| last_save.elapsed() >= save_every) {
                    if let Err(e) = file.save() {
                        eprintln!("table: {e}");
                    }
                    last_save = Instant::now();
                }
                if last_progress.elapsed() < progress_every {
                    continue;
                }
                last_progress = Instant::now();
                eprintln!("{}", progress_line(driver, bounds));
            }
        });
        let result = job();
        drop(done);
        result
    })
}

fn progress_line<T: tabula_solver::Table, O>(
    driver: &tabula_solver::Driver<T, O>,
    bounds: &(impl Fn(i32, i32) -> String + Sync),
) -> String {
    let stats = driver.stats();
    let seconds = stats.time.as_secs_f64();
    let proven = driver
        .proven_bounds()
        .map(|(lo, hi)| format!(", {}", bounds(lo, hi)))
        .unwrap_or_default();
    format!(
        "solving: {} nodes, {:.0} s, {:.0} nodes/s{proven}",
        stats.nodes,
        seconds,
        stats.nodes as f64 / seconds.max(1e-9)
    )
}

/// One line of `analyze` progress: depth, value (as `value` words it), best move, nodes, time.
pub fn iteration_line<M: std::fmt::Display>(
    p: &tabula_solver::Progress<M>,
    value: impl std::fmt::Display,
) -> String {
    format!(
        "depth {} value {value} best {} nodes {} time {} ms nps {:.0}",
        p.depth,
        p.best
            .as_ref()
            .map(|m| m.to_string())
            .unwrap_or_else(|| "-".into()),
        p.nodes,
        p.time.as_millis(),
        p.nodes as f64 / p.time.as_secs_f64().max(1e-9)
    )
}

/// Prints a line of progress: on stdout for text output, on stderr under `--json` so that
/// stdout stays one JSON document.
pub fn progress(json: bool, line: &str) {
    if json {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
}

/// Milliseconds of a duration, for `time_ms`.
pub fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Prints a report as one line of JSON.
pub fn print_json<R: serde::Serialize>(report: &R) -> CliResult {
    let text = serde_json::to_string(report)
        .map_err(|e| CliError::internal(format!("report to JSON: {e}")))?;
    println!("{text}");
    Ok(())
}
