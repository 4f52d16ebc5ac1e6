//! Pieces every game's commands share.

use crate::error::{CliError, CliResult};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tabula_api::report::{MoveEntry, MovesReport, PerftPartial, PerftReport};
use tabula_engine::perft::{perft, PerftStep};
use tabula_engine::Game;
use tabula_solver::perft::divide_on_threads;

/// `perft --depth D [--divide] [--threads N] [--json]` for any game: JSON [`PerftReport`]
/// (`{"depth": D, "nodes": N}`, plus `divide` when asked), or text with the speed on stderr.
/// A perft that runs longer than [`perft_progress_after`] shows its progress on stderr (see
/// [`PerftProgress`]). With `threads` above 1 the first moves are counted on that many
/// threads, the counts the same. Ctrl-C stops the count: the report then gives the first
/// moves counted to the end, and says so (`interrupted` in JSON; exit code 130).
pub fn run_perft<G: Game>(
    pos: &G,
    depth: u32,
    split: bool,
    threads: usize,
    json: bool,
) -> CliResult {
    let started = Instant::now();
    let (parts, partial) = if depth >= 2 || (split && depth > 0) {
        let progress = Mutex::new(PerftProgress::new(started, depth));
        let parts = divide_on_threads(pos, depth, threads, interrupt_flag(), |step| {
            progress
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .update(step)
        });
        progress
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .finish();
        let done: Vec<_> = parts
            .iter()
            .filter_map(|&(mv, n)| n.map(|n| (mv, n)))
            .collect();
        let partial = (done.len() < parts.len()).then_some(PerftPartial {
            first_moves_done: done.len(),
            first_moves: parts.len(),
        });
        (Some(done), partial)
    } else {
        (None, None)
    };
    let nodes = match &parts {
        Some(parts) => parts.iter().map(|(_, n)| n).sum(),
        None => perft(pos, depth),
    };
    let elapsed = started.elapsed();
    let parts = parts.filter(|_| split);
    if json {
        let report = PerftReport {
            depth,
            nodes,
            divide: parts
                .as_ref()
                .map(|parts| parts.iter().map(|(mv, n)| (mv.to_string(), *n)).collect()),
            interrupted: partial,
        };
        println!("{}", to_json(&report)?);
    } else {
        for (mv, n) in parts.iter().flatten() {
            println!("{mv}: {n}");
        }
        match partial {
            None => println!("perft {depth}: {nodes}"),
            Some(p) => println!(
                "perft {depth}: interrupted; {nodes} below the {} of {} first moves counted",
                p.first_moves_done, p.first_moves
            ),
        }
        eprintln!(
            "{:.3} s, {:.1} M nodes/s",
            elapsed.as_secs_f64(),
            nodes as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6
        );
    }
    Ok(())
}

/// The options of every game's `perft`.
#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    /// Number of plies.
    #[arg(long, short)]
    pub depth: u32,
    /// Also give the count below each first move.
    #[arg(long)]
    pub divide: bool,
    /// Threads counting the first moves (the counts are the same for any number).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: u64,
}

impl PerftArgs {
    /// [`run_perft`] with these options.
    pub fn run<G: Game>(&self, pos: &G, json: bool) -> CliResult {
        let threads = usize::try_from(self.threads).unwrap_or(1);
        run_perft(pos, self.depth, self.divide, threads, json)
    }
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

/// Progress of a long perft on stderr: a step per first move counted, and inside a first move
/// one every second on a terminal (every ten in a log), so that a perft whose first move alone
/// runs for hours shows it is moving. A bar rewritten in place on a terminal, a plain line per
/// step otherwise (a log, a pipe).
pub struct PerftProgress {
    started: Instant,
    after: Duration,
    terminal: bool,
    shown: bool,
    last: Instant,
    depth: u32,
}

impl PerftProgress {
    /// Progress of a perft of `depth` plies started at `started`.
    pub fn new(started: Instant, depth: u32) -> PerftProgress {
        PerftProgress {
            depth,
            started,
            after: perft_progress_after(),
            terminal: std::io::stderr().is_terminal(),
            shown: false,
            last: started,
        }
    }

    /// Shows `step` if the perft has run long enough (and, inside a first move, if the last
    /// line is old enough).
    pub fn update(&mut self, step: &PerftStep) {
        let elapsed = self.started.elapsed();
        if elapsed < self.after {
            return;
        }
        let seconds = elapsed.as_secs_f64().max(1e-9);
        let text = if step.first_move_done {
            let rate = step.nodes as f64 / seconds;
            format!(
                "perft: {}/{} first moves, {} nodes, {rate:.0} nodes/s",
                step.done, step.total, step.nodes
            )
        } else {
            // `TABULA_PERFT_PROGRESS_AFTER=0` shows every step, these too.
            let every = if self.after.is_zero() {
                Duration::ZERO
            } else {
                Duration::from_secs(if self.terminal { 1 } else { 10 })
            };
            let since = if self.shown {
                self.last.elapsed()
            } else {
                elapsed
            };
            if since < every {
                return;
            }
            let percent = step.fraction * 100.0;
            let share = if percent >= 0.01 || percent == 0.0 {
                format!("{percent:.2}%")
            } else {
                format!("{percent:.1e}%")
            };
            // A depth past the end of every game walked so far counts nothing and may never end.
            let short = if step.longest < self.depth {
                format!(
                    "; no line reaches {} plies yet (longest {})",
                    self.depth, step.longest
                )
            } else {
                String::new()
            };
            format!(
                "perft: {}/{} first moves, about {share} of the tree, {} nodes, {:.1} M \
                 positions made ({:.1} M/s){short}",
                step.done,
                step.total,
                step.nodes,
                step.visited as f64 / 1e6,
                step.visited as f64 / seconds / 1e6
            )
        };
        show_step(self.terminal, step.fraction, &text);
        self.shown = true;
        self.last = Instant::now();
    }

    /// Ends the bar's line on a terminal.
    pub fn finish(&self) {
        if self.shown && self.terminal {
            eprintln!();
        }
    }
}

/// One step of a long phase on stderr: a bar rewritten in place on a terminal, a plain line
/// otherwise (a log, a pipe). The caller ends the bar's line once done.
fn show_step(terminal: bool, fraction: f64, text: &str) {
    if terminal {
        const WIDTH: usize = 24;
        // Truncates: a bar is full only at the end. `as` saturates a NaN to 0.
        let filled = ((fraction * WIDTH as f64) as usize).min(WIDTH);
        let bar = format!("{}{}", "#".repeat(filled), ".".repeat(WIDTH - filled));
        // \r back to the line's start, \x1b[K clears what a longer line left.
        eprint!("\r[{bar}] {text}\x1b[K");
    } else {
        eprintln!("{text}");
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

/// Parses a count that must be at least 1 (`--nodes`, `--trials`, `--games`, …): clap's own
/// range check would name the type's maximum (`not in 1..18446744073709551615`), which says
/// nothing to a user.
pub fn parse_positive<T>(text: &str) -> Result<T, String>
where
    T: std::str::FromStr + From<u8> + PartialOrd,
{
    match text.trim().parse::<T>() {
        Ok(n) if n >= T::from(1) => Ok(n),
        Ok(_) => Err("must be at least 1".into()),
        Err(_) => Err("expected a whole number, at least 1".into()),
    }
}

static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A flag that Ctrl-C sets, for searches to poll: the first Ctrl-C stops the running search,
/// which then reports what it has proven; a second one exits at once (exit code 130). SIGTERM
/// counts as Ctrl-C (a `timeout`, a service stopped): the work so far is reported and saved
/// the same way.
pub fn interrupt_flag() -> &'static std::sync::atomic::AtomicBool {
    use std::sync::atomic::Ordering;
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        // Without a handler (e.g. one is already installed) Ctrl-C keeps its default effect.
        let _ = ctrlc::set_handler(|| {
            if INTERRUPTED.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!("interrupted: stopping (Ctrl-C again to quit at once)");
        });
        #[cfg(unix)]
        catch_sigterm();
    });
    &INTERRUPTED
}

/// Makes SIGTERM set [`interrupt_flag`]'s flag (a second one exits with code 130), where
/// SIGTERM still has its default action: a job started with SIGTERM ignored keeps it so.
#[cfg(unix)]
#[allow(unsafe_code)]
fn catch_sigterm() {
    use std::sync::atomic::Ordering;
    extern "C" fn on_term(_: libc::c_int) {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            // SAFETY: `_exit` is async-signal-safe (POSIX), unlike `exit`: it runs no
            // destructor or atexit handler, so nothing this thread interrupted is re-entered.
            unsafe { libc::_exit(130) }
        }
    }
    // SAFETY: `sigaction` is given valid pointers to structs of this stack frame: an all-zero
    // `sigaction` is a valid value of that plain C struct (handler SIG_DFL, no flags), and its
    // mask is then set by `sigemptyset`. The first call only reads the current disposition. The
    // handler installed has the `sa_handler` signature (no SA_SIGINFO) and does only what a
    // signal handler may: a swap of a lock-free atomic (`AtomicBool` is lock-free on every
    // target with atomics) and `_exit`.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGTERM, std::ptr::null(), &mut old) != 0
            || old.sa_sigaction != libc::SIG_DFL
        {
            return;
        }
        let mut new: libc::sigaction = std::mem::zeroed();
        new.sa_sigaction = on_term as extern "C" fn(libc::c_int) as libc::sighandler_t;
        new.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut new.sa_mask);
        libc::sigaction(libc::SIGTERM, &new, std::ptr::null_mut());
    }
}

/// True once Ctrl-C has stopped a search.
pub fn was_interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed)
}

/// How often a long exact solve reports on stderr: 10 s, or `TABULA_PROGRESS_EVERY` seconds.
pub fn progress_every() -> std::time::Duration {
    std::env::var("TABULA_PROGRESS_EVERY")
        .ok()
        .and_then(|v| parse_seconds(&v).ok())
        .unwrap_or(std::time::Duration::from_secs(10))
}

/// How often a solve with `--table` saves its proven entries while it runs: 300 s, or
/// `TABULA_TABLE_SAVE_EVERY` seconds.
pub fn table_save_every() -> std::time::Duration {
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
    let board = rules.board.to_string();
    let mut pairs = vec![("rules", variant.as_str()), ("takeback", takeback.as_str())];
    // The full board's context is unchanged (tables saved before the 3×3 board stay valid).
    if rules.board != tabula_engine::pylos::Board::Four {
        pairs.push(("board", board.as_str()));
    }
    tabula_solver::tt_file::context("pylos", &pairs, symmetry)
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
    #[arg(long, value_parser = parse_positive::<u64>)]
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

/// The whole of a text file the user names (a label file, a list of positions): the reason
/// in words when it cannot be read, or is not text (a binary file given by mistake).
pub fn read_text(path: &std::path::Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => "not a text file (not UTF-8)".to_string(),
        _ => e.to_string(),
    })
}

/// The longest line a prompt takes (a move or a command is a few dozen bytes).
pub const PROMPT_LINE_MAX: usize = 4096;

/// One line typed at an interactive prompt, without its line end: `Some(Ok(text))`, or
/// `Some(Err(message))` for a line that cannot be a command (not UTF-8, or longer than
/// [`PROMPT_LINE_MAX`]: the game goes on), or `None` at the end of the input (or when it
/// cannot be read).
pub fn prompt_line(input: &mut impl std::io::BufRead) -> Option<Result<String, String>> {
    match tabula_protocol::read_line(input, PROMPT_LINE_MAX).ok()? {
        tabula_protocol::Line::Text(text) => Some(Ok(text)),
        tabula_protocol::Line::TooLong(n) => Some(Err(format!(
            "line of {n} bytes is longer than {PROMPT_LINE_MAX} bytes; discarded"
        ))),
        tabula_protocol::Line::NotUtf8 => Some(Err("line is not UTF-8; discarded".into())),
        tabula_protocol::Line::Eof => None,
    }
}

/// The memory the system can give without swapping, in MiB (`MemAvailable`), where known.
pub fn available_mib() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// Tables from this size on show their allocation on stderr (zeroing 1 GiB takes about 2 s).
const ALLOCATION_PROGRESS_MIB: u64 = 1024;

fn table_too_big(mib: u64, why: String) -> CliError {
    CliError::bad_input(format!(
        "--hash {mib}: a table of {mib} MiB {why}; choose a smaller --hash"
    ))
}

/// Refuses (bad input) a `--hash` of `mib` MiB that is more than the memory available, for
/// the commands that allocate their tables themselves ([`allocate_table`] checks it too).
pub fn table_fits(mib: u64) -> Result<(), CliError> {
    match available_mib().filter(|&a| mib > a) {
        Some(available) => Err(table_too_big(
            mib,
            format!("is more than the memory available ({available} MiB)"),
        )),
        None => Ok(()),
    }
}

/// A table of `mib` MiB: refused (bad input) when it is more than the memory available or
/// cannot be reserved, instead of an abort; large tables report the allocation on stderr.
pub fn allocate_table(mib: u64) -> Result<tabula_solver::AtomicTable, CliError> {
    table_fits(mib)?;
    let show = mib >= ALLOCATION_PROGRESS_MIB;
    let terminal = std::io::stderr().is_terminal();
    let mut shown = 0;
    let started = Instant::now();
    let table = tabula_solver::AtomicTable::try_with_megabytes(
        usize::try_from(mib).unwrap_or(usize::MAX),
        |done, total| {
            let percent = done * 100 / total.max(1);
            // Every chunk on a terminal (the bar is rewritten), every quarter in a log.
            if show && (terminal || percent >= shown + 25 || done == total) {
                shown = percent;
                let text = format!("table: allocating {mib} MiB: {percent}%");
                show_step(terminal, done as f64 / total.max(1) as f64, &text);
            }
        },
    )
    .map_err(|e| table_too_big(mib, format!("cannot be allocated ({e})")))?;
    if show {
        if terminal {
            eprintln!();
        }
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

/// Which search a game's `solve` or `analyze` command runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Solve,
    Analyze,
}

/// `--table FILE` of every game's `solve` and `analyze` (flattened last).
#[derive(clap::Args, Debug, Clone)]
pub struct TableArg {
    /// Keep the proven positions in FILE: loaded first when it exists, saved every 5 minutes
    /// and when the search ends (finished, stopped by a limit or Ctrl-C), so that a stopped
    /// solve resumes from what it had proven. The file takes 24 bytes a proven position (at
    /// most about 3.2 GB for --hash 4096); loading and saving it need no memory beyond the
    /// table.
    #[arg(long, value_name = "FILE")]
    pub table: Option<std::path::PathBuf>,
}

/// A `solve` or `analyze` set up by [`run_search`]: the driver, its table and the `--table`
/// file that keeps it (if any).
pub struct Search<'a> {
    pub driver: &'a tabula_solver::Driver<'a>,
    pub table: &'a tabula_solver::AtomicTable,
    pub file: Option<&'a TableFile<'a>>,
}

/// The setup every game's `solve` and `analyze` share, in this order: the refusal of an
/// unbounded search out of reach, the check of the `--table` path (before any search), the
/// table of `--hash` MiB, the `--table` file (locked, loaded under `context`), then the driver
/// (its clock, `time_ms` and `--time`, starts after the file is loaded). `body` runs the search
/// and prints the report; the table file is saved after it, so that a failed save is an error
/// but the answer is already out.
pub fn run_search(
    pos: &impl tabula_solver::SolvePolicy,
    search: &SearchArgs,
    table_arg: &TableArg,
    symmetry: bool,
    context: String,
    body: impl FnOnce(Search<'_>) -> CliResult,
) -> CliResult {
    let table_path = table_arg.table.as_deref();
    let limits = search.limits();
    if let Some(why) = tabula_solver::driver::refusal(pos, &limits) {
        return Err(CliError::bad_input(why));
    }
    if let Some(path) = table_path {
        check_output_path("--table", path)?;
    }
    let table = search.table()?;
    let table_file = TableFile::open(&table, table_path, context)?;
    let driver = tabula_solver::Driver::new(&table, search.config(symmetry), limits);
    body(Search {
        driver: &driver,
        table: &table,
        file: table_file.as_ref(),
    })?;
    match &table_file {
        Some(file) => file.save(),
        None => Ok(()),
    }
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
pub use tabula_api::build::millis;

/// Prints a report as one line of JSON.
pub fn print_json<R: serde::Serialize>(report: &R) -> CliResult {
    let text = serde_json::to_string(report)
        .map_err(|e| CliError::internal(format!("report to JSON: {e}")))?;
    println!("{text}");
    Ok(())
}
