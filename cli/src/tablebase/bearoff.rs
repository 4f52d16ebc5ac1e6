//! `tabula tablebase build|probe bearoff-os|bearoff-ts`: the backgammon bearoff databases.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args as ClapArgs;
use tabula_engine::backgammon::{Position, Side};
use tabula_tablebase::bearoff::{
    checkers, home_board, pips, Board, OneSided, Progress, RaceBuild, RaceTable, TwoSided,
    MAX_CHECKERS, RACE_POINTS, RACE_POINTS_MAX, RACE_POINTS_MIN, TWO_SIDED_CHECKERS,
};
use tabula_tablebase::{Existing, StoreError, TargetLock};

use crate::common::{millis, print_json, store_error};
use crate::error::{CliError, CliResult};
use tabula_api::tablebase::{
    BuildReport, OneSidedProbeReport, RaceProbeReport, RaceSide, TwoSidedProbeReport,
};

/// Which database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Db {
    /// One-sided bearoff (up to 15 checkers).
    BearoffOs,
    /// Two-sided bearoff (up to 6 checkers a side).
    BearoffTs,
    /// One-sided race (up to 15 checkers on a side's first `points` points).
    RaceOs,
}

impl Db {
    fn default_file(self) -> PathBuf {
        PathBuf::from(match self {
            Db::BearoffOs => "bearoff-os.tdb",
            Db::BearoffTs => "bearoff-ts.tdb",
            Db::RaceOs => "race-os.tdb",
        })
    }

    fn name(self) -> &'static str {
        match self {
            Db::BearoffOs => "bearoff-os",
            Db::BearoffTs => "bearoff-ts",
            Db::RaceOs => "race-os",
        }
    }
}

/// `tabula tablebase build bearoff-os|bearoff-ts|race-os`.
#[derive(ClapArgs, Debug)]
pub struct BuildArgs {
    /// Output file (default: after the database, bearoff-os.tdb, bearoff-ts.tdb or
    /// race-os.tdb, in the current directory).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Replace an existing file (without it, an existing file is kept and the build refused).
    #[arg(long)]
    replace: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// `tabula tablebase build race-os`.
#[derive(ClapArgs, Debug)]
pub struct RaceBuildArgs {
    /// The points covered: a side is in the database when all its checkers are on its first
    /// POINTS points (7 to 12: 170,544 to 17,383,860 boards; 10: 3,268,760, 216 MB, about 3
    /// minutes on 2 cores; 12: 1.37 GB, about 25 minutes and 2.9 GB of memory).
    #[arg(long, default_value_t = RACE_POINTS as u64,
          value_parser = clap::value_parser!(u64).range(RACE_POINTS_MIN as u64..=RACE_POINTS_MAX as u64))]
    points: u64,
    /// Continue an interrupted build from its checkpoint (OUT.checkpoint).
    #[arg(long)]
    resume: bool,
    /// Minutes between checkpoints (a kill -9 loses at most this much work; Ctrl-C writes
    /// one after the level of pip count under way).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1440))]
    checkpoint_minutes: u32,
    /// Write it where the backgammon AI looks for it, race-os.tdb in the cache directory
    /// ($TABULA_CACHE_DIR, $XDG_CACHE_HOME/tabula or ~/.cache/tabula): from then on `hint`,
    /// `play`, `rollout`, `label`, `external` and the servers use it unless --no-race-db.
    #[arg(long, conflicts_with = "out")]
    install: bool,
    #[command(flatten)]
    common: BuildArgs,
}

/// `tabula tablebase probe bearoff-os|bearoff-ts|race-os`.
#[derive(ClapArgs, Debug)]
pub struct ProbeArgs {
    /// Database file (default: after the database, bearoff-os.tdb, bearoff-ts.tdb or
    /// race-os.tdb, in the current directory).
    #[arg(long, short)]
    file: Option<PathBuf>,
    /// The home board of the player on roll: six counts, ace point first (0,0,0,0,0,1).
    #[arg(long, conflicts_with = "position")]
    points: Option<String>,
    /// bearoff-ts: the opponent's home board, six counts from its own ace point.
    #[arg(long, conflicts_with = "position")]
    opponent: Option<String>,
    /// A gnubg Position ID instead of --points/--opponent (all checkers home or off).
    #[arg(long, short)]
    position: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Builds a bearoff database.
pub(super) fn build(db: Db, args: BuildArgs) -> CliResult {
    if db == Db::RaceOs {
        return build_race(RaceBuildArgs {
            points: RACE_POINTS as u64,
            resume: false,
            checkpoint_minutes: 5,
            install: false,
            common: args,
        });
    }
    let existing = if args.replace {
        Existing::Replace
    } else {
        Existing::Refuse
    };
    build_db(db, args.out, existing, args.json)
}

/// Where `build race-os --install` writes: the backgammon AI's cache directory (made if
/// missing), under the name it looks for.
fn installed_race_file() -> Result<PathBuf, CliError> {
    let path = crate::backgammon::bearoff::installed_race_path().ok_or_else(|| {
        CliError::bad_input("--install: no cache directory (set TABULA_CACHE_DIR or HOME)")
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| {
        CliError::io(format!("--install: cannot make {}: {e}", dir.display())).with_source(e)
    })?;
    Ok(path)
}

/// Builds a race database: level by level of pip count, with a checkpoint beside the output
/// every `--checkpoint-minutes` and on Ctrl-C (or SIGTERM), which `--resume` continues. A
/// fresh build refuses to start over a checkpoint: the work in it is not thrown away unasked.
pub(super) fn build_race(args: RaceBuildArgs) -> CliResult {
    let existing = if args.common.replace {
        Existing::Replace
    } else {
        Existing::Refuse
    };
    let points = args.points as usize;
    let out = if args.install {
        installed_race_file()?
    } else {
        args.common.out.unwrap_or_else(|| Db::RaceOs.default_file())
    };
    let lock = lock_output(&out, existing)?;
    let mut name = out.clone().into_os_string();
    name.push(".checkpoint");
    let checkpoint = PathBuf::from(name);
    let checkpoint_lock = TargetLock::acquire(&checkpoint)
        .map_err(|e| store_error("cannot write the checkpoint", e))?;
    let started = Instant::now();
    let mut build = match (args.resume, std::fs::symlink_metadata(&checkpoint).is_ok()) {
        (true, true) => RaceBuild::load_checkpoint(&checkpoint, points)
            .map_err(|e| store_error("cannot resume from the checkpoint", e))?,
        (true, false) => return Err(super::nothing_to_resume(&checkpoint)),
        (false, true) => return Err(super::checkpoint_in_the_way(&checkpoint)),
        (false, false) => RaceBuild::new(points),
    };
    let every = Duration::from_secs(60 * u64::from(args.checkpoint_minutes));
    let interrupt = crate::common::interrupt_flag();
    let mut reporter = Reporter::new(Db::RaceOs.name());
    reporter.report(build.progress());
    let mut last_checkpoint = Instant::now();
    while build.step() {
        reporter.report(build.progress());
        let stop = interrupt.load(std::sync::atomic::Ordering::Relaxed);
        if stop || last_checkpoint.elapsed() >= every {
            build
                .save_checkpoint(&checkpoint_lock)
                .map_err(|e| store_error("cannot write the checkpoint", e))?;
            last_checkpoint = Instant::now();
            if stop {
                return Err(super::interrupted_into(&checkpoint));
            }
        }
    }
    let table = build.finish();
    table.save_locked(&lock, existing).map_err(cannot_write)?;
    drop(lock);
    // The database is written: its checkpoint has nothing more to give.
    match std::fs::remove_file(&checkpoint) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            eprintln!(
                "warning: cannot remove the checkpoint {}: {e}",
                checkpoint.display()
            )
        }
        _ => {}
    }
    drop(checkpoint_lock);
    built_report(Db::RaceOs, &out, table.len(), started, args.common.json)
}

/// Probes a bearoff database.
pub(super) fn probe(db: Db, args: ProbeArgs) -> CliResult {
    let file = args.file.unwrap_or_else(|| db.default_file());
    if db == Db::RaceOs {
        if args.points.is_some() || args.opponent.is_some() {
            return Err(CliError::bad_input(
                "race-os is probed by --position (a gnubg Position ID), not by home boards",
            ));
        }
        let Some(id) = args.position else {
            return Err(CliError::bad_input(
                "no position: give --position (a gnubg Position ID)",
            ));
        };
        return probe_race(&file, &id, args.json);
    }
    let (me, opp) = boards(db, args.points, args.opponent, args.position)?;
    match db {
        Db::BearoffOs | Db::RaceOs => probe_one_sided(&file, me, args.json),
        Db::BearoffTs => probe_two_sided(&file, me, opp.unwrap_or_default(), args.json),
    }
}

/// `probe race-os`: each side's rolls, where the database holds it.
fn probe_race(file: &Path, id: &str, json: bool) -> CliResult {
    let pos = Position::from_position_id(id.trim())
        .map_err(|e| CliError::bad_input(format!("invalid Position ID {id:?}: {e}")))?;
    let db = RaceTable::open(file).map_err(load_error)?;
    let race = !tabula_gammon::inputs::is_contact(&pos);
    let side = |s: Side| {
        let counts = pos.counts(s);
        let mut out = RaceSide {
            counts: counts.to_vec(),
            pips: u64::from(pos.pips(s)),
            not_covered: None,
            mean_rolls: None,
            distribution: Vec::new(),
            first_off_mean: None,
        };
        let mean = |d: &[f64]| d.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
        match db.distributions(&counts) {
            Ok([d, first]) => {
                out.mean_rolls = Some(mean(&d));
                out.first_off_mean = Some(mean(&first));
                out.distribution = d;
            }
            Err(e) => out.not_covered = Some(e.to_string()),
        }
        out
    };
    let report = RaceProbeReport {
        db: Db::RaceOs.name().into(),
        points: db.points() as u64,
        race,
        on_roll: side(Side::OnRoll),
        opponent: side(Side::Opponent),
    };
    if json {
        return print_json(&report);
    }
    println!(
        "race-os, points 1 to {}; {}",
        report.points,
        if race {
            "a race"
        } else {
            "not a race (contact): these are the values of a race only"
        }
    );
    for (name, s) in [
        ("on roll ", &report.on_roll),
        ("opponent", &report.opponent),
    ] {
        match (&s.not_covered, s.mean_rolls, s.first_off_mean) {
            (Some(why), _, _) => println!("{name} {} pips: not in the database ({why})", s.pips),
            (None, Some(mean), Some(first)) => println!(
                "{name} {} pips: mean rolls to bear off {mean:.6}, to the first checker off {first:.6}",
                s.pips
            ),
            _ => println!("{name} {} pips", s.pips),
        }
    }
    Ok(())
}

/// Reports build progress on stderr: a rewritten line on a terminal, else a line per 10%.
struct Reporter {
    name: &'static str,
    terminal: bool,
    last: usize,
}

impl Reporter {
    fn new(name: &'static str) -> Reporter {
        Reporter {
            name,
            terminal: std::io::stderr().is_terminal(),
            last: usize::MAX,
        }
    }

    fn report(&mut self, p: Progress) {
        let percent = p.done * 100 / p.total.max(1);
        let step = if self.terminal {
            percent
        } else {
            percent / 10 * 10
        };
        if step == self.last {
            return;
        }
        self.last = step;
        if self.terminal {
            eprint!("\r{}: {percent:3}% ({}/{})", self.name, p.done, p.total);
            if p.done == p.total {
                eprintln!();
            }
        } else {
            eprintln!("{}: {step}% ({}/{})", self.name, p.done, p.total);
        }
    }
}

/// An error writing a database: an existing file is refused with a hint.
fn cannot_write(e: StoreError) -> CliError {
    if matches!(e.kind(), tabula_store::ErrorKind::Exists) {
        CliError::bad_input(format!(
            "cannot write the database: {e} (give --replace to build it again)"
        ))
    } else {
        store_error("cannot write the database", e)
    }
}

/// The output's lock, taken before the work, not after it: a file that cannot go where asked
/// (no such directory, a directory, not writable, another process writing it) fails now, and
/// so does an existing file unless --replace. Held until the file is written.
fn lock_output(out: &Path, existing: Existing) -> Result<TargetLock, CliError> {
    let lock = TargetLock::acquire(out).map_err(cannot_write)?;
    lock.check(existing).map_err(cannot_write)?;
    Ok(lock)
}

/// Builds the bearoff database `db` into `out` (the race database: [`build_race`]).
fn build_db(db: Db, out: Option<PathBuf>, existing: Existing, json: bool) -> CliResult {
    let out = out.unwrap_or_else(|| db.default_file());
    let lock = lock_output(&out, existing)?;
    let started = Instant::now();
    let mut reporter = Reporter::new(db.name());
    let (positions, saved) = if db == Db::BearoffTs {
        let table = TwoSided::build_with_progress(|p| reporter.report(p));
        (table.len(), table.save_locked(&lock, existing))
    } else {
        let table = OneSided::build_with_progress(|p| reporter.report(p));
        (table.len(), table.save_locked(&lock, existing))
    };
    saved.map_err(cannot_write)?;
    drop(lock);
    built_report(db, &out, positions, started, json)
}

/// The report of a database written to `out`.
fn built_report(db: Db, out: &Path, positions: usize, started: Instant, json: bool) -> CliResult {
    let elapsed = started.elapsed();
    let bytes = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    if json {
        return print_json(&BuildReport {
            db: db.name().into(),
            file: out.display().to_string(),
            positions: positions as u64,
            bytes,
            time_ms: millis(elapsed),
        });
    }
    println!(
        "{}: {positions} positions, {bytes} bytes written to {} in {:.2} s",
        db.name(),
        out.display(),
        elapsed.as_secs_f64()
    );
    Ok(())
}

/// Six comma-separated checker counts, ace point first.
fn parse_board(option: &str, text: &str) -> Result<Board, CliError> {
    let bad = || {
        CliError::bad_input(format!(
            "invalid {option} {text:?}: expected six checker counts, ace point first, \
             e.g. 0,0,0,0,0,1"
        ))
    };
    let counts: Vec<u8> = text
        .split(',')
        .map(|c| c.trim().parse::<u8>().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    counts.try_into().map_err(|_| bad())
}

/// Checks a board against the database's limit.
fn within(option: &str, board: Board, max: usize) -> Result<Board, CliError> {
    let n = checkers(&board);
    if n > max {
        return Err(CliError::bad_input(format!(
            "invalid {option}: {n} checkers, the database holds at most {max}"
        )));
    }
    Ok(board)
}

/// The boards of the player on roll and (two-sided) of the opponent.
fn boards(
    db: Db,
    points: Option<String>,
    opponent: Option<String>,
    position: Option<String>,
) -> Result<(Board, Option<Board>), CliError> {
    let max = match db {
        Db::BearoffOs | Db::RaceOs => MAX_CHECKERS,
        Db::BearoffTs => TWO_SIDED_CHECKERS,
    };
    if db == Db::BearoffOs && opponent.is_some() {
        return Err(CliError::bad_input(
            "--opponent applies to bearoff-ts only (a one-sided board has no opponent)",
        ));
    }
    if let Some(id) = position {
        let pos = Position::from_position_id(id.trim())
            .map_err(|e| CliError::bad_input(format!("invalid Position ID {id:?}: {e}")))?;
        let side = |s| {
            home_board(&pos, s)
                .map_err(|e| CliError::bad_input(format!("not a bearoff position: {e}")))
                .and_then(|b| within("--position", b, max))
        };
        let opp = match db {
            Db::BearoffOs | Db::RaceOs => None,
            Db::BearoffTs => Some(side(Side::Opponent)?),
        };
        return Ok((side(Side::OnRoll)?, opp));
    }
    let Some(points) = points else {
        return Err(CliError::bad_input(
            "no board: give --points (e.g. --points 0,0,0,0,0,1) or --position",
        ));
    };
    let me = within("--points", parse_board("--points", &points)?, max)?;
    let opp = match (db, opponent) {
        (Db::BearoffOs | Db::RaceOs, _) => None,
        (Db::BearoffTs, Some(o)) => {
            Some(within("--opponent", parse_board("--opponent", &o)?, max)?)
        }
        (Db::BearoffTs, None) => {
            return Err(CliError::bad_input(
                "bearoff-ts needs the opponent's board: --opponent 0,0,0,0,0,2",
            ))
        }
    };
    if opp.is_some_and(|o| o.iter().chain(&me).all(|&n| n == 0)) {
        return Err(CliError::bad_input(
            "no checker on either board: the game is over before it starts (give at least one \
             side checkers to bear off)",
        ));
    }
    Ok((me, opp))
}

fn load_error(e: StoreError) -> CliError {
    store_error("cannot read the database", e)
}

fn board_text(board: &Board) -> String {
    let counts: Vec<String> = board.iter().map(u8::to_string).collect();
    let n = checkers(board);
    format!(
        "{} ({n} checker{}, {} pips)",
        counts.join(","),
        if n == 1 { "" } else { "s" },
        pips(board)
    )
}

fn std_dev(d: &[f64], mean: f64) -> f64 {
    let second: f64 = d.iter().enumerate().map(|(k, p)| (k * k) as f64 * p).sum();
    (second - mean * mean).max(0.0).sqrt()
}

fn probe_one_sided(file: &Path, board: Board, json: bool) -> CliResult {
    let db = OneSided::load(file).map_err(load_error)?;
    let lookup = |e| CliError::bad_input(format!("invalid --points: {e}"));
    let mean = db.mean_rolls(board).map_err(lookup)?;
    let dist = db.distribution(board).map_err(lookup)?;
    let first_mean = db.first_off_mean(board).map_err(lookup)?;
    let first = db.first_off_distribution(board).map_err(lookup)?;
    let sd = std_dev(&dist, mean);
    if json {
        return print_json(&OneSidedProbeReport {
            db: Db::BearoffOs.name().into(),
            points: board,
            checkers: checkers(&board) as u64,
            pips: pips(&board) as u64,
            mean_rolls: mean,
            std_dev: sd,
            distribution: dist,
            first_off_mean: first_mean,
            first_off_distribution: first,
        });
    }
    println!("board {}", board_text(&board));
    println!("mean rolls to bear off: {mean:.6} (std dev {sd:.6})");
    if checkers(&board) < MAX_CHECKERS {
        println!("mean rolls to bear off the first checker: 0 (one is already off)");
    } else {
        println!("mean rolls to bear off the first checker: {first_mean:.6}");
    }
    println!("rolls  P(all off)  P(first off)");
    for k in 0..dist.len().max(first.len()) {
        let a = dist.get(k).copied().unwrap_or(0.0);
        let b = first.get(k).copied().unwrap_or(0.0);
        if a > 0.0 || b > 0.0 {
            println!("{k:5}  {a:10.6}  {b:12.6}");
        }
    }
    Ok(())
}

fn probe_two_sided(file: &Path, me: Board, opp: Board, json: bool) -> CliResult {
    let db = TwoSided::load(file).map_err(load_error)?;
    let p = db
        .win_probability(me, opp)
        .map_err(|e| CliError::bad_input(format!("invalid board: {e}")))?;
    let equity = 2.0 * p - 1.0;
    if json {
        return print_json(&TwoSidedProbeReport {
            db: Db::BearoffTs.name().into(),
            on_roll: me,
            opponent: opp,
            win_probability: p,
            equity,
        });
    }
    println!("on roll  {}", board_text(&me));
    println!("opponent {}", board_text(&opp));
    println!("P(win) {p:.6}, cubeless equity {equity:+.6}");
    Ok(())
}
