//! `tabula backgammon train`: self-play TD(lambda) training with checkpoints.

use crate::error::{CliError, CliResult};
use clap::Args as ClapArgs;
use std::path::PathBuf;
use std::time::Instant;
use tabula_gammon::baseline::{versus, Player};
use tabula_gammon::train::{TrainOptions, Trainer};
use tabula_gammon::NetFile;

#[derive(ClapArgs, Debug)]
pub struct TrainArgs {
    /// Total self-play games to reach (a resumed run counts those already in the file).
    #[arg(long)]
    games: u64,
    /// Seed of the initial weights and of the dice (ignored with --resume).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The weights file to write (and to continue from with --resume).
    #[arg(long)]
    out: PathBuf,
    /// Continue from the weights, game counter and RNG state in --out.
    #[arg(long)]
    resume: bool,
    /// Learning rate.
    #[arg(long, default_value_t = 0.1)]
    alpha: f32,
    /// Eligibility-trace decay.
    #[arg(long, default_value_t = 0.7)]
    lambda: f32,
    /// Games between checkpoints.
    #[arg(long = "checkpoint-every", default_value_t = 10_000)]
    checkpoint_every: u64,
    /// Games against the pip-count racer at each checkpoint, for the progress line (0: none).
    #[arg(long = "bench-games", default_value_t = 200)]
    bench_games: u64,
}

pub fn train(args: &TrainArgs) -> CliResult {
    if !(args.alpha.is_finite() && args.alpha > 0.0) {
        return Err(CliError::bad_input("--alpha must be a positive number"));
    }
    if !(0.0..=1.0).contains(&args.lambda) {
        return Err(CliError::bad_input("--lambda must be between 0 and 1"));
    }
    if args.checkpoint_every == 0 {
        return Err(CliError::bad_input("--checkpoint-every must be at least 1"));
    }
    let options = TrainOptions {
        alpha: args.alpha,
        lambda: args.lambda,
    };
    let mut trainer = if args.resume {
        let file = NetFile::load(&args.out).map_err(|e| {
            CliError::bad_input(format!("cannot resume from {}: {e}", args.out.display()))
        })?;
        Trainer::resume(file, options)
    } else {
        Trainer::new(args.seed, options)
    };
    let save = |t: &Trainer| -> CliResult {
        t.to_file()
            .save(&args.out)
            .map_err(|e| CliError::bad_input(e.to_string()))
    };
    // Fail before the first game, not at the first checkpoint, when --out cannot be written.
    if !args.resume {
        save(&trainer)?;
    }
    let started = Instant::now();
    let first = trainer.games();
    let mut last_report = Instant::now();
    let (mut window_td, mut window_plies, mut window_games) = (0.0f64, 0u64, 0u64);
    eprintln!(
        "train: {} → {} games, alpha {}, lambda {}, checkpoints every {} to {}",
        first,
        args.games,
        args.alpha,
        args.lambda,
        args.checkpoint_every,
        args.out.display()
    );
    while trainer.games() < args.games {
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
            let mut line = format!("checkpoint: {} games in {}", games, args.out.display());
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
            eprintln!("{line}");
        }
    }
    if trainer.games() == first {
        save(&trainer)?;
    }
    eprintln!(
        "train: done, {} games in {:.1} s",
        trainer.games() - first,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
