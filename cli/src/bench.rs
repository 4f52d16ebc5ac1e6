//! `tabula bench`: the built-in benchmark suites of `tabula_benches::run`, with progress on
//! stderr and a table (or `--json`) on stdout.

use crate::error::{CliError, CliResult};
use clap::{Args as ClapArgs, ValueEnum};
use tabula_api::bench::{BenchGameReport, BenchReport};
use tabula_benches::run::{self, Game, Options, DEFAULT_HASH_MB};

#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The game whose suite to run.
    #[arg(long, value_enum, default_value_t = GameChoice::All)]
    game: GameChoice,
    /// Threads for a second run of every search item, to measure the speed-up (1: none).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
    /// Transposition table size in MiB for the exact searches (the signature is defined for
    /// the default).
    #[arg(long, default_value_t = DEFAULT_HASH_MB as u64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    hash: u64,
    /// The reduced suite (a second or two), as CI checks its signature.
    #[arg(long)]
    quick: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum GameChoice {
    All,
    Bilitaire,
    Pylos,
    Backgammon,
}

impl GameChoice {
    fn games(self) -> Vec<Game> {
        match self {
            GameChoice::All => Game::ALL.to_vec(),
            GameChoice::Bilitaire => vec![Game::Bilitaire],
            GameChoice::Pylos => vec![Game::Pylos],
            GameChoice::Backgammon => vec![Game::Backgammon],
        }
    }
}

pub fn run(args: Args) -> CliResult {
    let hash_mb =
        usize::try_from(args.hash).map_err(|_| CliError::bad_input("--hash too large"))?;
    // The suites allocate their tables themselves (and a failed allocation there aborts).
    crate::common::table_fits(args.hash)?;
    let options = Options {
        threads: args.threads as usize,
        hash_mb,
        quick: args.quick,
    };
    let report = run::run(&args.game.games(), options, |game, done, total, item| {
        eprintln!("bench: {} {}/{total} {item}", game.name(), done + 1);
    });
    if args.json {
        let text = serde_json::to_string(&report).map_err(|e| CliError::internal(e.to_string()))?;
        println!("{text}");
    } else {
        print_text(&report);
    }
    let differ: Vec<&str> = report
        .games
        .iter()
        .flat_map(|g| &g.items)
        .filter(|i| i.threads_agree == Some(false))
        .map(|i| i.name.as_str())
        .collect();
    if differ.is_empty() {
        Ok(())
    } else {
        Err(CliError::internal(format!(
            "{} threads found other answers than one thread on: {}",
            report.threads,
            differ.join(", ")
        )))
    }
}

fn print_text(report: &BenchReport) {
    for game in &report.games {
        print_game(game, report.threads);
    }
    println!(
        "signature {} (threads {}, hash {} MiB{})",
        report.signature,
        report.threads,
        report.hash_mb,
        if report.quick { ", quick" } else { "" }
    );
}

fn print_game(game: &BenchGameReport, threads: usize) {
    println!("{}", game.game);
    println!(
        "  {:<34} {:>12} {:>11} {:>10} {:>14}  answer",
        "item", "count", "unit", "ms", "per second"
    );
    for item in &game.items {
        println!(
            "  {:<34} {:>12} {:>11} {:>10.1} {:>14.0}  {}",
            item.name,
            item.count,
            item.unit,
            item.time_ms,
            item.rate,
            shorten(&item.answer)
        );
    }
    print!(
        "  signature {}, {:.1} s on one thread",
        game.signature,
        game.time_ms / 1e3
    );
    match game.speedup {
        Some(s) => println!(", {threads} threads {s:.2}x faster on the searches"),
        None => println!(),
    }
}

fn shorten(answer: &str) -> String {
    if answer.chars().count() > 40 {
        format!("{}…", answer.chars().take(39).collect::<String>())
    } else {
        answer.to_string()
    }
}
