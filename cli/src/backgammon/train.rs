//! `tabula backgammon train`: self-play TD(lambda) training with checkpoints.

use crate::common::store_error;
use crate::error::{CliError, CliResult};
use clap::Args as ClapArgs;
use std::path::PathBuf;
use std::time::Instant;
use tabula_gammon::baseline::{versus, Player};
use tabula_gammon::train::{TrainOptions, Trainer};
use tabula_gammon::{NetFile, WeightsError};
use tabula_store::{Existing, TargetLock};

#[derive(ClapArgs, Debug)]
pub struct TrainArgs {
    /// Total self-play games to reach (a resumed run counts those already in the file).
    #[arg(long, value_parser = crate::common::parse_positive::<u64>)]
    games: u64,
    /// Seed of the initial weights and of the dice (ignored with --resume).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The weights file to write (and to continue from with --resume).
    #[arg(long)]
    out: PathBuf,
    /// Continue from the weights, game counter, RNG state and alpha/lambda in --out.
    #[arg(long, conflicts_with = "force")]
    resume: bool,
    /// Start afresh even though --out exists, overwriting its weights.
    #[arg(long)]
    force: bool,
    /// With --resume: continue the weights with the --alpha/--lambda given instead of the
    /// file's (annealing the learning rate); the file then records the new values.
    #[arg(long = "new-rates", requires = "resume")]
    new_rates: bool,
    /// Learning rate [default: 0.1, or the one in --out with --resume].
    #[arg(long)]
    alpha: Option<f32>,
    /// Eligibility-trace decay [default: 0.7, or the one in --out with --resume].
    #[arg(long)]
    lambda: Option<f32>,
    /// Train the contact net only, leaving the race net as it is (for a race net fitted on
    /// labels since); recorded in --out, so --resume keeps it, with --new-rates too.
    #[arg(long = "freeze-race", conflicts_with = "thaw_race")]
    freeze_race: bool,
    /// With --resume --new-rates: train the race net again in a file that froze it.
    #[arg(long = "thaw-race", requires = "new_rates")]
    thaw_race: bool,
    /// Games between checkpoints.
    #[arg(long = "checkpoint-every", default_value_t = 10_000)]
    checkpoint_every: u64,
    /// Games against the pip-count racer at each checkpoint, for the progress line (0: none).
    #[arg(long = "bench-games", default_value_t = 200)]
    bench_games: u64,
}

/// A weights error: the file's fault (or the path's) is bad input, the system's an I/O error.
pub(crate) fn weights_error(what: String, e: WeightsError) -> CliError {
    let message = format!("{what}: {e}");
    if e.is_bad_input() {
        CliError::bad_input(message)
    } else {
        CliError::io(message)
    }
    .with_source(e)
}

/// The learning parameters: the file's when resuming one that has them (explicit different
/// values are refused, as the run would not continue the same training), else the options'.
fn options(args: &TrainArgs, file: Option<&NetFile>) -> Result<TrainOptions, CliError> {
    let defaults = TrainOptions::default();
    let given = TrainOptions {
        alpha: args.alpha.unwrap_or(defaults.alpha),
        lambda: args.lambda.unwrap_or(defaults.lambda),
        freeze_race: args.freeze_race,
    };
    if !(given.alpha.is_finite() && given.alpha > 0.0) {
        return Err(CliError::bad_input("--alpha must be a positive number"));
    }
    if !(0.0..=1.0).contains(&given.lambda) {
        return Err(CliError::bad_input("--lambda must be between 0 and 1"));
    }
    let Some(saved) = file.and_then(|f| f.training) else {
        if file.is_some() {
            eprintln!(
                "train: {} does not record alpha/lambda (an older file); using alpha {}, lambda {}",
                args.out.display(),
                given.alpha,
                given.lambda
            );
        }
        return Ok(given);
    };
    for (name, asked, have) in [
        ("--alpha", args.alpha, saved.alpha),
        ("--lambda", args.lambda, saved.lambda),
    ] {
        if asked.is_some_and(|a| a != have) && !args.new_rates {
            return Err(CliError::bad_input(format!(
                "{name} {} differs from the {have} {} was trained with: leave it out to \
                 continue that training, or pass --new-rates to continue with the new value",
                asked.unwrap_or_default(),
                args.out.display()
            )));
        }
    }
    if args.new_rates {
        return Ok(TrainOptions {
            alpha: args.alpha.unwrap_or(saved.alpha),
            lambda: args.lambda.unwrap_or(saved.lambda),
            // New rates thaw a frozen race net only when asked (it was fitted apart).
            freeze_race: !args.thaw_race && (args.freeze_race || saved.freeze_race),
        });
    }
    if args.freeze_race && !saved.freeze_race {
        return Err(CliError::bad_input(format!(
            "--freeze-race: {} was trained with both nets; pass --new-rates to go on with the \
             race net frozen",
            args.out.display()
        )));
    }
    Ok(saved)
}

/// Checks the options and --out, takes its lock (held for the whole run: a second training on
/// the same file fails now, not at a save) and makes the trainer: resumed from --out, or new
/// (refusing an existing --out without --force).
fn start(args: &TrainArgs) -> Result<(TargetLock, Trainer), CliError> {
    if args.checkpoint_every == 0 {
        return Err(CliError::bad_input("--checkpoint-every must be at least 1"));
    }
    options(args, None)?;
    let out = args.out.display();
    // The store's own words (its error names the file): a weights error would read it as a
    // failed read.
    let lock = TargetLock::acquire(&args.out).map_err(|e| store_error("cannot write", e))?;
    let trainer = if args.resume {
        let file =
            NetFile::load(&args.out).map_err(|e| weights_error("cannot resume".into(), e))?;
        let options = options(args, Some(&file))?;
        Trainer::resume(file, options)
    } else {
        let options = options(args, None)?;
        let existing = if args.force {
            Existing::Replace
        } else {
            Existing::Refuse
        };
        lock.check(existing).map_err(|e| {
            let hint = if e.path().is_some_and(|p| p.is_file()) {
                ": pass --resume to continue its training or --force to overwrite it"
            } else {
                ""
            };
            weights_error(format!("cannot write {out}{hint}"), e.into())
        })?;
        Trainer::new(args.seed, options)
    };
    Ok((lock, trainer))
}

pub fn train(args: &TrainArgs) -> CliResult {
    let (lock, mut trainer) = start(args)?;
    let save = |t: &Trainer| -> CliResult {
        t.to_file()
            .save_locked(&lock, Existing::Replace)
            .map_err(|e| weights_error("cannot save the weights".into(), e))
    };
    // Fail before the first game, not at the first checkpoint, when --out cannot be written.
    if !args.resume {
        save(&trainer)?;
    }
    let started = Instant::now();
    let first = trainer.games();
    if args.resume && first >= args.games {
        eprintln!(
            "train: {} already holds {first} games, --games {}: nothing to train (raise --games \
             to continue)",
            args.out.display(),
            args.games
        );
        return Ok(());
    }
    let mut last_report = Instant::now();
    let (mut window_td, mut window_plies, mut window_games) = (0.0f64, 0u64, 0u64);
    eprintln!(
        "train: {} → {} games, alpha {}, lambda {}{}, checkpoints every {} to {}",
        first,
        args.games,
        trainer.options().alpha,
        trainer.options().lambda,
        if trainer.options().freeze_race {
            ", race net frozen"
        } else {
            ""
        },
        args.checkpoint_every,
        args.out.display()
    );
    // Ctrl-C (or SIGTERM) ends the game under way and saves: the file holds the generator's
    // state, so a resumed run plays on exactly as an uninterrupted one would.
    let interrupt = crate::common::interrupt_flag();
    while trainer.games() < args.games {
        if interrupt.load(std::sync::atomic::Ordering::Relaxed) {
            save(&trainer)?;
            return Err(CliError::interrupted(format!(
                "interrupted: {} games saved to {} (--resume continues)",
                trainer.games(),
                args.out.display()
            )));
        }
        let stats = trainer.play_game();
        window_td += stats.abs_td;
        window_plies += stats.plies as u64;
        window_games += 1;
        let games = trainer.games();
        let checkpoint = games % args.checkpoint_every == 0 || games == args.games;
        if checkpoint || last_report.elapsed().as_secs_f64() >= 5.0 {
            let secs = started.elapsed().as_secs_f64().max(1e-9);
            eprintln!(
                "train: {games}/{} games, {:.1} games/s, |TD error| {:.4}, {:.1} plies/game",
                args.games,
                (games - first) as f64 / secs,
                window_td / window_plies.max(1) as f64,
                window_plies as f64 / window_games.max(1) as f64,
            );
            (window_td, window_plies, window_games) = (0.0, 0, 0);
            last_report = Instant::now();
        }
        if checkpoint {
            save(&trainer)?;
            let line = checkpoint_line(args, &trainer);
            eprintln!("{line}");
        }
    }
    eprintln!(
        "train: done, {} games in {:.1} s",
        trainer.games() - first,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The line printed at a checkpoint, with a benchmark against the pip-count racer if asked.
fn checkpoint_line(args: &TrainArgs, trainer: &Trainer) -> String {
    let mut line = format!(
        "checkpoint: {} games in {}",
        trainer.games(),
        args.out.display()
    );
    if args.bench_games > 0 {
        let r = versus(
            Player::Net(trainer.evaluator()),
            Player::PipCount,
            args.bench_games,
            0x5eed,
        );
        line.push_str(&format!(
            "; vs pip-count racer: {:.1}% wins, {:+.3} points/game over {} games",
            100.0 * r.win_rate(),
            r.ppg(),
            r.games
        ));
    }
    line
}
