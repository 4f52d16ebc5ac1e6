//! Pieces every game's commands share.

use crate::error::{CliError, CliResult};
use std::io::IsTerminal;
use std::time::{Duration, Instant};
use tabula_api::report::{MoveEntry, MovesReport, PerftReport};
use tabula_engine::perft::{divide_with, perft};
use tabula_engine::Game;

/// `perft --depth D [--divide] [--json]` for any game: JSON [`PerftReport`] (`{"depth": D,
/// "nodes": N}`, plus `divide` when asked), or text with the speed on stderr. A perft that runs
/// longer than [`perft_progress_after`] shows its progress on stderr (see [`PerftProgress`]).
pub fn run_perft<G: Game>(pos: &G, depth: u32, split: bool, json: bool) -> CliResult {
    let started = Instant::now();
    let (nodes, parts) = if depth >= 2 || (split && depth > 0) {
        let mut progress = PerftProgress::new(started);
        let parts = divide_with(pos, depth, |done, total, nodes| {
            progress.update(done, total, nodes)
        });
        progress.finish();
        (parts.iter().map(|(_, n)| n).sum(), split.then_some(parts))
    } else {
        (perft(pos, depth), None)
    };
    let elapsed = started.elapsed();
    if json {
        let report = PerftReport {
            depth,
            nodes,
            divide: parts
                .as_ref()
                .map(|parts| parts.iter().map(|(mv, n)| (mv.to_string(), *n)).collect()),
        };
        println!("{}", to_json(&report)?);
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

/// How long a perft runs before it shows progress: 2 s, or `TABULA_PERFT_PROGRESS_AFTER`
/// seconds (0 shows every step).
fn perft_progress_after() -> Duration {
    std::env::var("TABULA_PERFT_PROGRESS_AFTER")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|t| t.is_finite() && (0.0..1e9).contains(t))
        .map_or(Duration::from_secs(2), Duration::from_secs_f64)
}

/// Progress of a long perft on stderr, one step per first move counted: a bar rewritten in
/// place on a terminal, a plain line per step otherwise (a log, a pipe).
pub struct PerftProgress {
    started: Instant,
    after: Duration,
    terminal: bool,
    shown: bool,
}

impl PerftProgress {
    pub fn new(started: Instant) -> PerftProgress {
        PerftProgress {
            started,
            after: perft_progress_after(),
            terminal: std::io::stderr().is_terminal(),
            shown: false,
        }
    }

    /// `done` of `total` first moves counted, `nodes` so far.
    pub fn update(&mut self, done: usize, total: usize, nodes: u64) {
        let elapsed = self.started.elapsed();
        if elapsed < self.after {
            return;
        }
        let rate = nodes as f64 / elapsed.as_secs_f64().max(1e-9);
        let text = format!("perft: {done}/{total} first moves, {nodes} nodes, {rate:.0} nodes/s");
        if self.terminal {
            const WIDTH: usize = 24;
            let filled = (done * WIDTH).checked_div(total).unwrap_or(WIDTH);
            let bar = format!("{}{}", "#".repeat(filled), ".".repeat(WIDTH - filled));
            // \r back to the line's start, \x1b[K clears what a longer line left.
            eprint!("\r[{bar}] {text}\x1b[K");
        } else {
            eprintln!("{text}");
        }
        self.shown = true;
    }

    /// Ends the bar's line on a terminal.
    pub fn finish(&self) {
        if self.shown && self.terminal {
            eprintln!();
        }
    }
}

/// A report as one line of JSON.
fn to_json(report: &impl serde::Serialize) -> Result<String, CliError> {
    serde_json::to_string(report)
        .map_err(|e| CliError::internal(format!("cannot write the report: {e}")))
}

/// What `moves --json` says about a game's position besides its moves.
pub trait Reported: Game + std::fmt::Display {
    /// The game's name in reports: `bilitaire`, `pylos` or `backgammon`.
    const GAME: &'static str;
    /// Who moves, as the reports spell it (`tabula_api::report`'s `side_to_move`).
    fn side_to_move(&self) -> &'static str;
}

/// `moves`: every legal move in the game's notation, one a line, or as a [`MovesReport`] (each
/// move with the position it leads to).
pub fn print_moves<G: Reported>(pos: &G, json: bool) -> CliResult {
    let mut list = Vec::new();
    pos.legal_moves(&mut list);
    if json {
        let report = MovesReport {
            game: G::GAME.into(),
            position: pos.to_string(),
            side_to_move: pos.side_to_move().into(),
            moves: list
                .iter()
                .map(|&mv| MoveEntry {
                    mv: mv.to_string(),
                    position: pos.play(mv).to_string(),
                })
                .collect(),
        };
        println!("{}", to_json(&report)?);
    } else {
        for mv in &list {
            println!("{mv}");
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

/// A file-store error as a command's error: the file's fault or the path's (damaged, foreign,
/// truncated, missing, a directory, locked by another process) is bad input (exit 2), an
/// operating-system failure to read or write is an I/O error (exit 1).
pub fn store_error(what: &str, e: tabula_store::StoreError) -> CliError {
    let message = format!("{what}: {e}");
    if e.is_bad_input() {
        CliError::bad_input(message)
    } else {
        CliError::io(message)
    }
    .with_source(e)
}

/// The context of a Bi-litaire `--table` file: stable rule codes and the keying.
pub fn bilitaire_table_context(rules: tabula_engine::bilitaire::Rules, symmetry: bool) -> String {
    let rules = if rules.free_chains {
        "free-chains"
    } else {
        "standard"
    };
    tabula_solver::tt_file::context("bilitaire", &[("rules", rules)], symmetry)
}

/// The context of a Pylos `--table` file: stable rule codes and the keying.
pub fn pylos_table_context(rules: tabula_engine::pylos::Rules, symmetry: bool) -> String {
    let (variant, takeback) = (rules.variant.to_string(), rules.takeback.to_string());
    tabula_solver::tt_file::context(
        "pylos",
        &[("rules", &variant), ("takeback", &takeback)],
        symmetry,
    )
}

/// `--table FILE`: where a solve keeps its proven entries between runs (`tabula_solver::tt_file`),
/// tagged with the game, rules and keying they belong to. It holds the file's lock from
/// [`TableFile::open`] until it is dropped, so a second solve on the same file is refused at
/// its start, and every save goes through a unique temporary file and an atomic rename.
pub struct TableFile<'a> {
    table: &'a tabula_solver::AtomicTable,
    lock: tabula_store::TargetLock,
    context: String,
}

impl<'a> TableFile<'a> {
    /// With a path: takes the file's lock and checks the file can be written (before any
    /// search: no directory, a directory, another solve on it are errors now), then loads the
    /// file into `table` when it exists (a damaged file, or one made under other rules, is an
    /// error); a missing file is a fresh start.
    pub fn open(
        table: &'a tabula_solver::AtomicTable,
        path: Option<&std::path::Path>,
        context: String,
    ) -> Result<Option<TableFile<'a>>, CliError> {
        let Some(path) = path else { return Ok(None) };
        let err = |e| store_error("--table", e);
        let lock = tabula_store::TargetLock::acquire(path).map_err(err)?;
        lock.check(tabula_store::Existing::Replace).map_err(err)?;
        match tabula_solver::load_proven(table, &context, path) {
            Ok(n) => eprintln!(
                "table: resuming with {n} proven positions from {}",
                path.display()
            ),
            Err(e) if e.is_not_found() => {}
            Err(e) => return Err(err(e)),
        }
        Ok(Some(TableFile {
            table,
            lock,
            context,
        }))
    }

    /// Writes the proven entries (atomically, under the held lock).
    pub fn save(&self) -> CliResult {
        let n = tabula_solver::tt_file::save_proven_locked(self.table, &self.context, &self.lock)
            .map_err(|e| store_error("cannot save the table", e))?;
        eprintln!(
            "table: {n} proven positions saved to {}",
            self.lock.target().display()
        );
        Ok(())
    }
}

/// Runs `job`, an exact solve with `searcher`, printing a progress line to stderr every
/// [`progress_every`] until it returns: nodes, speed, and the bounds proven so far (as
/// `bounds` words them). Solves that finish sooner print nothing. With a `checkpoint` file the
/// proven entries are also saved every [`table_save_every`] (a failed save is reported and
/// the solve goes on).
pub fn with_progress<T: tabula_solver::Table, R>(
    searcher: &tabula_solver::Searcher<T>,
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
                let nodes = searcher.nodes();
                let seconds = searcher.elapsed().as_secs_f64();
                let proven = searcher
                    .proven_bounds()
                    .map(|(lo, hi)| format!(", {}", bounds(lo, hi)))
                    .unwrap_or_default();
                eprintln!(
                    "solving: {nodes} nodes, {:.0} s, {:.0} nodes/s{proven}",
                    seconds,
                    nodes as f64 / seconds.max(1e-9)
                );
            }
        });
        let result = job();
        drop(done);
        result
    })
}
