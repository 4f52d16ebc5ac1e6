//! `tabula pylos …`: show, list moves, play moves and run perft on Pylos positions.

use crate::error::{CliError, CliResult};
use clap::{Args as ClapArgs, Subcommand, ValueEnum};
use serde_json::json;
use std::time::Instant;
use tabula_engine::perft::{divide, perft};
use tabula_engine::pylos::{self, Color, Position, Rules, START};
use tabula_engine::Game;

#[derive(ClapArgs, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the four levels, reserves and the side to move.
    Show(Common),
    /// List every legal move (place `0b2`, raise `0a1-1b2`, take-backs `x1b2x0a1`).
    Moves(Common),
    /// Apply moves and print the resulting position string.
    Play {
        #[command(flatten)]
        common: Common,
        /// Moves separated by spaces, e.g. "0a1 0d4 0b1".
        #[arg(long, allow_hyphen_values = true)]
        moves: String,
    },
    /// Count the move sequences of a given length.
    Perft {
        #[command(flatten)]
        common: Common,
        /// Number of plies.
        #[arg(long, short)]
        depth: u32,
        /// Also give the count below each first move.
        #[arg(long)]
        divide: bool,
    },
}

/// Which patterns allow a take-back (`shared/rules/pylos.md`).
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
enum RuleSet {
    /// No take-backs.
    Children,
    /// Own-colour 2×2 squares.
    #[default]
    Standard,
    /// Squares and own-colour lines (4 on level 0, 3 on level 1).
    Mature,
}

/// How many balls a completed pattern takes back.
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
enum TakebackOption {
    /// 0, 1 or 2.
    #[default]
    Optional,
    /// 1 or 2.
    Compulsory,
}

#[derive(ClapArgs, Debug)]
struct Common {
    /// Position string (default: the start position).
    #[arg(long, short, default_value = START, allow_hyphen_values = true)]
    position: String,
    /// Rule set.
    #[arg(long, value_enum, default_value_t = RuleSet::Standard)]
    rules: RuleSet,
    /// Take-back option.
    #[arg(long, value_enum, default_value_t = TakebackOption::Optional)]
    takeback: TakebackOption,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

impl Common {
    fn rules(&self) -> Rules {
        let variant = match self.rules {
            RuleSet::Children => pylos::Variant::Children,
            RuleSet::Standard => pylos::Variant::Standard,
            RuleSet::Mature => pylos::Variant::Mature,
        };
        let takeback = match self.takeback {
            TakebackOption::Optional => pylos::Takeback::Optional,
            TakebackOption::Compulsory => pylos::Takeback::Compulsory,
        };
        Rules::new(variant, takeback)
    }

    fn position(&self) -> Result<Position, CliError> {
        Position::parse(&self.position, self.rules())
            .map_err(|e| CliError::new(format!("invalid position: {e}")))
    }
}

pub fn run(args: Args) -> CliResult {
    match args.command {
        Command::Show(common) => show(&common),
        Command::Moves(common) => moves(&common),
        Command::Play { common, moves } => play(&common, &moves),
        Command::Perft {
            common,
            depth,
            divide,
        } => run_perft(&common, depth, divide),
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn show(common: &Common) -> CliResult {
    let pos = common.position()?;
    let winner = pos.winner();
    if common.json {
        println!(
            "{}",
            json!({
                "position": pos.to_string(),
                "rules": common.rules().variant.to_string(),
                "takeback": common.rules().takeback.to_string(),
                "to_move": color_name(pos.turn()),
                "reserve": {
                    "black": pos.reserve(Color::Black),
                    "white": pos.reserve(Color::White),
                },
                "moves": pos.count_moves(),
                "over": winner.is_some(),
                "winner": winner.map(color_name),
            })
        );
    } else {
        print!("{}", pos.diagram());
        println!(
            "{} to move; reserves black {}, white {}; {} legal moves{}",
            color_name(pos.turn()),
            pos.reserve(Color::Black),
            pos.reserve(Color::White),
            pos.count_moves(),
            match winner {
                Some(c) => format!("; game over, {} wins", color_name(c)),
                None => String::new(),
            }
        );
        println!("{pos}");
    }
    Ok(())
}

fn moves(common: &Common) -> CliResult {
    let pos = common.position()?;
    let mut list = Vec::new();
    pos.legal_moves(&mut list);
    let names: Vec<String> = list.iter().map(ToString::to_string).collect();
    if common.json {
        println!("{}", json!(names));
    } else {
        for name in &names {
            println!("{name}");
        }
    }
    Ok(())
}

fn play(common: &Common, moves: &str) -> CliResult {
    let mut pos = common.position()?;
    for (i, text) in moves.split_whitespace().enumerate() {
        let mv = pos
            .parse_move(text)
            .map_err(|e| CliError::new(format!("illegal move #{} '{text}': {e}", i + 1)))?;
        pos = pos.play(mv);
    }
    if common.json {
        println!(
            "{}",
            json!({
                "position": pos.to_string(),
                "over": pos.is_over(),
                "winner": pos.winner().map(color_name),
            })
        );
    } else {
        println!("{pos}");
    }
    Ok(())
}

fn run_perft(common: &Common, depth: u32, split: bool) -> CliResult {
    let pos = common.position()?;
    let started = Instant::now();
    let (nodes, parts) = if split && depth > 0 {
        let parts = divide(&pos, depth);
        (parts.iter().map(|(_, n)| n).sum(), Some(parts))
    } else {
        (perft(&pos, depth), None)
    };
    let elapsed = started.elapsed();
    if common.json {
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct TestCli {
        #[command(flatten)]
        args: Args,
    }

    fn run_words(words: &[&str]) -> CliResult {
        let cli = TestCli::try_parse_from(std::iter::once("pylos").chain(words.iter().copied()))
            .map_err(|e| CliError::new(e.to_string()))?;
        run(cli.args)
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let bad_position = run_words(&[
            "show",
            "--position",
            "..../..../..../....|b../.../...|../..|. b",
        ]);
        assert!(bad_position
            .unwrap_err()
            .0
            .contains("1a3 does not rest on four balls"));
        let illegal = run_words(&["play", "--moves", "0a1 0a1"]).unwrap_err();
        assert_eq!(illegal.0, "illegal move #2 '0a1': 0a1 is occupied");
        let malformed = run_words(&["play", "--moves", "0e9"]).unwrap_err();
        assert!(malformed.0.contains("'0e9'"));
        assert!(run_words(&["perft", "--depth", "2", "--rules", "mature"]).is_ok());
        assert!(run_words(&["perft", "--depth", "2", "--takeback", "sometimes"]).is_err());
        assert!(run_words(&["moves", "--json", "--takeback", "compulsory"]).is_ok());
    }
}
