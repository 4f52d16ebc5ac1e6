//! `tabula backgammon label`: training positions from noisy self-play, labelled by Tabula's own
//! deeper search, appended chunk by chunk to a checked text file (see `tabula_gammon::label`).

use crate::backgammon::args::{check_plies, with_threads, EvaluatorArgs};
use crate::common::{interrupt_flag, store_error};
use crate::error::{CliError, CliResult};
use clap::Args as ClapArgs;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;
use tabula_gammon::equity;
use tabula_gammon::label::{self, LabelFile, LabelOptions, Source};
use tabula_gammon::net::NetClass;
use tabula_store::TargetLock;

#[derive(ClapArgs, Debug)]
pub struct LabelArgs {
    /// The label file to write (refused if it exists, unless --resume).
    #[arg(long)]
    out: PathBuf,
    /// Self-play games to reach in all (a resumed run counts those already in the file);
    /// rounded up to whole chunks. With a drawn `--source`, drawn positions.
    #[arg(long, value_parser = crate::common::parse_positive::<u64>)]
    games: u64,
    /// Depth of the labelling search, 1 to 3.
    #[arg(long, default_value_t = 2)]
    plies: u8,
    /// Amplitude of the uniform noise on each play's equity in self-play.
    #[arg(long, default_value_t = 0.05)]
    noise: f32,
    /// Keep a position only when its deep and 0-ply equities differ by at least this.
    #[arg(long, default_value_t = 0.0)]
    keep: f32,
    /// Label by Tabula's own rollouts of this many trials (players of --rollout-plies to the end,
    /// luck-corrected, stratified first rolls) instead of the search; the search still picks
    /// the positions kept (with --keep 0 it is not run). With --siblings a decision's positions
    /// are rolled out on the same dice. 0: the search labels.
    #[arg(long = "rollout-trials", default_value_t = 0)]
    rollout_trials: u32,
    /// With --rollout-trials: the rollout players' depth, 0 to 2 (0: the net alone; deeper
    /// players carry fewer of the net's own errors into the labels, at several times the cost).
    #[arg(long = "rollout-plies", default_value_t = 0)]
    rollout_plies: u8,
    /// Label only the positions the race net evaluates (no contact): training data for the
    /// race net alone, from the same games; bear-offs the database values exactly are labelled
    /// by it.
    #[arg(long = "races-only", group = "class")]
    races_only: bool,
    /// Label only the crashed positions (gnubg's class: contact, and one side with at most 6
    /// checkers in play beyond those piled on its ace and deuce points): training data for a
    /// crashed net (`fit --crashed-net`), from the same games.
    #[arg(long = "crashed-only", group = "class")]
    crashed_only: bool,
    /// Label only the contact positions that are not crashed (the contact net's own class):
    /// training data for the contact net alone, from the same games.
    #[arg(long = "contact-only", group = "class")]
    contact_only: bool,
    /// Where the positions come from: `self-play` (noisy 0-ply self-play from the opening) or
    /// `late-hit` (drawn positions where a side with 1 to 5 checkers left has one on the bar
    /// or trapped against a home board of 2 to 6 points: positions self-play hardly reaches,
    /// which the nets valued far too well for that side) or `back-checkers` (drawn positions
    /// where a side with at most 6 checkers left has 2 or 3 of them back, on the bar or on the
    /// other side's home board, anchored or not) or `back-in-play` (the same against a side
    /// with nearly all its checkers still in play, some of them back too) or `back-game`
    /// (drawn back games: a side holding two points deep in the other side's home board with
    /// all its checkers in play, where the nets overrate the attacker).
    #[arg(long, default_value = "self-play", value_parser = parse_source)]
    source: Source,
    /// Keep a position only when the net's gammon rate (gammons won plus lost, 0 plies) is at
    /// least this, 0 to 1: the gammonish positions, where Tabula's take/pass errors are
    /// (checked before the deep look, which is then spent on them alone).
    #[arg(long, default_value_t = 0.0)]
    gammons: f32,
    /// In self-play, also label the positions after the K plays the net ranks best at each
    /// decision besides the one played, 0 to 8 (0: the game's path alone): the near-equal
    /// positions a play's choice turns on, side by side. Each is kept or not as a position of
    /// the path is.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=8))]
    siblings: u8,
    /// Label only the leader's turns of holding games with a race lead of at least this many
    /// pips, 0 to 200: contact positions, not crashed, where the side on roll has no checker
    /// back (none on the bar or on the other side's home board). The trailing side's choices
    /// are made by valuing these, and the judges found the contact net's largest errors there.
    #[arg(long = "holding-lead", value_parser = clap::value_parser!(u32).range(0..=200))]
    holding_lead: Option<u32>,
    /// Self-play games (or drawn positions) per chunk (the unit of resumption and of parallel
    /// work).
    #[arg(long = "games-per-chunk", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    games_per_chunk: u32,
    /// Seed of the run (each chunk's dice and noise come from it and the chunk's number).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads, 1 to 256. The file does not depend on it.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
    /// Continue the run in --out: same parameters and evaluator, from its last complete chunk
    /// (an unfinished chunk at its end is dropped). Without the file, starts it.
    #[arg(long)]
    resume: bool,
    #[command(flatten)]
    evaluator: EvaluatorArgs,
}

/// `--source`: one of [`Source::ALL`] by name.
fn parse_source(name: &str) -> Result<Source, String> {
    Source::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Source::ALL.iter().map(|s| s.name()).collect();
        format!("not a source (one of {})", names.join(", "))
    })
}

pub fn label(args: &LabelArgs) -> CliResult {
    check_plies(args.plies)?;
    if args.plies == 0 {
        return Err(CliError::bad_input(
            "--plies 0: labels come from a search at least 1 ply deep",
        ));
    }
    if ![args.noise, args.keep, args.gammons]
        .iter()
        .all(|x| (0.0..=1.0).contains(x))
    {
        return Err(CliError::bad_input(
            "--noise, --keep and --gammons are between 0 and 1",
        ));
    }
    if args.rollout_plies > 2 || (args.rollout_plies > 0 && args.rollout_trials == 0) {
        return Err(CliError::bad_input(
            "--rollout-plies: 0 to 2, and only with --rollout-trials",
        ));
    }
    let only = if args.races_only {
        Some((NetClass::Race, "--races-only"))
    } else if args.crashed_only {
        Some((NetClass::Crashed, "--crashed-only"))
    } else if args.contact_only {
        Some((NetClass::Contact, "--contact-only"))
    } else {
        None
    };
    if let (Some(_), Some((NetClass::Race | NetClass::Crashed, flag))) = (args.holding_lead, only) {
        return Err(CliError::bad_input(format!(
            "--holding-lead keeps contact positions that are not crashed: {flag} would keep none"
        )));
    }
    // The class the run keeps: --holding-lead keeps contact positions alone.
    let keeps = only.or(args
        .holding_lead
        .map(|_| (NetClass::Contact, "--holding-lead")));
    if let Some((_, flag)) = keeps.filter(|&(class, _)| !args.source.draws(class)) {
        return Err(CliError::bad_input(format!(
            "--source {} draws {} only: {flag} would keep none of them",
            args.source.name(),
            args.source.drawn()
        )));
    }
    if args.siblings > 0 && args.source != Source::SelfPlay {
        return Err(CliError::bad_input(format!(
            "--siblings: the plays of self-play; --source {} draws positions without them",
            args.source.name()
        )));
    }
    let options = LabelOptions {
        plies: args.plies,
        noise: args.noise,
        keep: args.keep,
        games_per_chunk: args.games_per_chunk,
        seed: args.seed,
        rollout_trials: args.rollout_trials,
        rollout_plies: args.rollout_plies,
        only: only.map(|(class, _)| class),
        source: args.source,
        min_gammons: args.gammons,
        siblings: args.siblings,
        holding_lead: args.holding_lead,
    };
    // The file's lock first: an --out that cannot be written fails before the evaluator loads
    // (seconds, the first time: the bearoff cache is built).
    let lock = TargetLock::acquire(&args.out).map_err(|e| store_error("label file", e))?;
    let eval = args.evaluator.load()?;
    let header = label::header(&options, label::fingerprint(&eval));
    let (mut chunk, mut labels) = (0u64, 0usize);
    if args.out.exists() {
        if !args.resume {
            return Err(CliError::bad_input(format!(
                "{} exists: pass --resume to continue its run (or choose another --out)",
                args.out.display()
            )));
        }
        let text = crate::common::read_text(&args.out)
            .map_err(|e| CliError::bad_input(format!("cannot read {}: {e}", args.out.display())))?;
        let file = LabelFile::read(&text)
            .map_err(|e| CliError::bad_input(format!("{}: {e}", args.out.display())))?;
        let ours = header.lines().nth(1).unwrap_or("").trim_start_matches("# ");
        if file.parameters != ours {
            return Err(CliError::bad_input(format!(
                "{} was made with `{}`, not `{ours}`: resume with the same options, weights \
                 and databases (--race-db, --no-race-db; a race database installed since is \
                 used unless --no-race-db)",
                args.out.display(),
                file.parameters
            )));
        }
        if file.decisions != (options.siblings > 0) {
            // The same parameters, but a file from before siblings named their decisions.
            return Err(CliError::bad_input(format!(
                "{} holds labels without decision numbers (an older Tabula's): start a new file",
                args.out.display()
            )));
        }
        if file.unfinished_bytes > 0 {
            eprintln!(
                "label: dropping an unfinished chunk ({} bytes) at the end of {}",
                file.unfinished_bytes,
                args.out.display()
            );
            let f = OpenOptions::new()
                .write(true)
                .open(&args.out)
                .map_err(|e| CliError::io(format!("{}: {e}", args.out.display())))?;
            f.set_len(file.valid_len as u64)
                .and_then(|_| f.sync_all())
                .map_err(|e| CliError::io(format!("{}: {e}", args.out.display())))?;
        }
        (chunk, labels) = (file.chunks, file.labels.len());
    } else {
        std::fs::write(&args.out, &header)
            .map_err(|e| CliError::io(format!("cannot write {}: {e}", args.out.display())))?;
    }
    let chunks = args.games.div_ceil(args.games_per_chunk as u64);
    let mut out = OpenOptions::new()
        .append(true)
        .open(&args.out)
        .map_err(|e| CliError::io(format!("{}: {e}", args.out.display())))?;
    eprintln!(
        "label: chunks {chunk} → {chunks} ({} games each), {} labels, noise {}, keep {}{}{}, {} thread(s), into {}",
        args.games_per_chunk,
        match args.rollout_trials {
            0 => format!("{}-ply", args.plies),
            n if options.searches() => format!(
                "{n}-trial rollout by {}-ply players (kept where {}-ply and the net differ)",
                args.rollout_plies, args.plies
            ),
            n => format!("{n}-trial rollout by {}-ply players", args.rollout_plies),
        },
        args.noise,
        args.keep,
        if args.gammons > 0.0 {
            format!(", only where the net's gammon rate is at least {}", args.gammons)
        } else {
            String::new()
        },
        match args.holding_lead {
            Some(lead) => format!(", only holding games' leaders on roll, {lead}+ pips ahead"),
            None => String::new(),
        },
        args.threads,
        args.out.display()
    );
    let interrupt = interrupt_flag();
    let started = Instant::now();
    let first = chunk;
    let (mut gap, mut made) = (0.0f64, 0usize);
    // Twice as many chunks as threads a batch, so that one long game does not idle the rest.
    let batch = 2 * args.threads;
    while chunk < chunks {
        if interrupt.load(Ordering::Relaxed) {
            eprintln!(
                "label: interrupted after chunk {}; the file is complete up to it (--resume continues)",
                chunk.saturating_sub(1)
            );
            break;
        }
        let end = (chunk + batch).min(chunks);
        let results = with_threads(args.threads, || {
            label::label_chunks(&eval, &options, chunk..end)
        })?;
        let mut text = String::new();
        for (c, ls) in (chunk..end).zip(&results) {
            text.push_str(&label::chunk_text(c, ls));
            made += ls.len();
            gap += ls
                .iter()
                .map(|l| (equity(&l.deep) - equity(&l.net)).abs() as f64)
                .sum::<f64>();
        }
        out.write_all(text.as_bytes())
            .and_then(|_| out.sync_data())
            .map_err(|e| CliError::io(format!("cannot append to {}: {e}", args.out.display())))?;
        chunk = end;
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        eprintln!(
            "label: {chunk}/{chunks} chunks, {} labels, {:.1} labels/s, mean |deep − net| equity {:.4}",
            labels + made,
            made as f64 / secs,
            gap / made.max(1) as f64
        );
    }
    drop(lock);
    eprintln!(
        "label: done, {} chunks, {} labels in {:.1} s",
        chunk - first,
        made,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
