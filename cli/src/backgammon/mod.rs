//! `tabula backgammon …`: show positions, list and check plays in gnubg's formats, hint with
//! the engine, play against it, serve gnubg's external-player protocol, train and test the net.
//!
//! This module parses and dispatches only. The modules below it use no module that uses them:
//! [`args`] (shared options) and [`render`] (text and JSON reports) are leaves; [`commands`],
//! [`game`] and [`external`] use them and the advisor of `tabula-gammon`; [`rollout`] uses them
//! and the rollouts of `tabula-gammon`.

pub mod args;
pub mod bearoff;
pub mod commands;
pub mod external;
pub mod fit;
pub mod game;
pub mod label;
pub mod render;
pub mod rollout;
pub mod train;

use crate::error::{CliError, CliResult};
use args::{rolled_dice, Common, CubeRolloutArgs, EvaluatorArgs};
use clap::{Args as ClapArgs, Subcommand};
use std::path::PathBuf;

#[derive(ClapArgs, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the board with pip counts (and the match state when one is given).
    Show {
        #[command(flatten)]
        common: Common,
    },
    /// List every legal play for a roll in gnubg notation, with the Position ID after it.
    Moves {
        #[command(flatten)]
        common: Common,
        /// The roll, e.g. 31 (default: the dice of the XGID or Match ID, if rolled).
        #[arg(long, short)]
        dice: Option<String>,
    },
    /// With `--play`: check a play in gnubg notation and print the Position ID after it.
    /// Without: play against the engine in the terminal (money or a match, with the cube),
    /// from new games, or on from `--position` (with `--match-id`, `--dice`) for the first.
    Play {
        #[command(flatten)]
        common: Common,
        /// The roll, e.g. 31 (default: the dice of the XGID or Match ID, if rolled).
        #[arg(long, short)]
        dice: Option<String>,
        /// The play, e.g. "8/5 6/5", "bar/22*", "6/off", "8/5(2)".
        #[arg(long = "play", allow_hyphen_values = true)]
        play: Option<String>,
        #[command(flatten)]
        game: game::GameArgs,
    },
    /// Rank the plays of a roll with the neural net and expectimax (cubeless); without dice,
    /// evaluate the position for the player on roll.
    Hint {
        #[command(flatten)]
        common: Common,
        /// The roll, e.g. 31 (default: the dice of the XGID or Match ID, if rolled).
        #[arg(long, short)]
        dice: Option<String>,
        /// Plies of lookahead, 0 (the net alone) to 3 (3-ply takes seconds to a minute).
        #[arg(long, default_value_t = 2)]
        plies: u8,
        /// Search threads, 1 to 256. The results do not depend on it.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
        threads: u64,
        #[command(flatten)]
        cube_rollouts: CubeRolloutArgs,
        #[command(flatten)]
        evaluator: EvaluatorArgs,
    },
    /// Roll out a position (before the roll) or the best plays of a roll side by side:
    /// Monte-Carlo games played out by the engine, with luck correction and standard errors
    /// (cubeless). Ctrl-C stops and prints the result so far.
    Rollout(rollout::RolloutArgs),
    /// Train the evaluator by self-play TD(lambda), checkpointing atomically to --out (refused if it exists, unless --resume or --force).
    Train(train::TrainArgs),
    /// Make training data: positions of noisy self-play labelled by a deeper search (cubeless
    /// probabilities), appended chunk by chunk to a checked file; --resume continues it.
    Label(label::LabelArgs),
    /// Train the nets on label files (supervised), keeping the weights that fit held-out
    /// labels best.
    Fit(fit::FitArgs),
    /// Serve GNU Backgammon's external-player protocol on a TCP socket (gnubg connects).
    External(external::ExternalArgs),
    /// Play the net (0-ply) against a simple baseline and report its results.
    Baseline {
        /// Games to play (the net rolls first in every other game).
        #[arg(long, default_value_t = 1000)]
        games: u64,
        /// Duplicate games from the positions in FILE instead of games from the start: one
        /// gnubg Position ID a line (the player on roll to play; the first word of a line, so
        /// `label` files serve; lines starting with `#` are skipped), each played twice with
        /// the same dice, the net on roll in one game and the opponent in the other.
        #[arg(long, value_name = "FILE", conflicts_with = "games")]
        from: Option<PathBuf>,
        /// Seed of the dice.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The opponent: `pip` (pip-count racer), `random`, or another weights file (`*.tnet`).
        #[arg(long, default_value = "pip")]
        opponent: String,
        /// Weights file (default: the shipped weights).
        #[arg(long)]
        weights: Option<PathBuf>,
        /// Exact bear-offs for both nets from this one-sided database (`tabula tablebase build
        /// bearoff-os`), as `hint` and `play` use by default. Without it both play bear-offs
        /// with their race nets, as the baseline figures of docs/results.md were measured.
        #[arg(long)]
        bearoff: Option<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Runs a `tabula backgammon` command.
pub fn run(args: Args) -> CliResult {
    match args.command {
        Command::Show { common } => commands::show(&common),
        Command::Moves { common, dice } => commands::moves(&common, &dice),
        Command::Play {
            common,
            dice,
            play: Some(play),
            ..
        } => commands::check_play(&common, &dice, &play),
        Command::Play {
            common,
            dice,
            play: None,
            game,
        } => {
            if common.json {
                return Err(CliError::bad_input(
                    "--json needs --play (the game against the engine is text only)",
                ));
            }
            let input = common.input()?;
            let dice = rolled_dice(&dice, &input)?;
            game::run(&game, input.position, input.match_id, dice)
        }
        Command::Hint {
            common,
            dice,
            plies,
            threads,
            cube_rollouts,
            evaluator,
        } => commands::hint(&common, &dice, plies, threads, &cube_rollouts, &evaluator),
        Command::Rollout(args) => rollout::rollout(&args),
        Command::Train(args) => train::train(&args),
        Command::Label(args) => label::label(&args),
        Command::Fit(args) => fit::fit(&args),
        Command::External(args) => external::run(args),
        Command::Baseline {
            games,
            from,
            seed,
            opponent,
            weights,
            bearoff,
            json,
        } => commands::baseline(
            games,
            from.as_deref(),
            seed,
            &opponent,
            weights.as_deref(),
            bearoff.as_deref(),
            json,
        ),
    }
}
