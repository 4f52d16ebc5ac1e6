//! `tabula bilitaire …`: show, list moves, play moves, run perft, solve and analyze Bi-litaire
//! positions.

pub mod game;
pub mod render;
mod solve;

use crate::common::Reported;
use crate::error::{CliError, CliResult};
use clap::{Args as ClapArgs, Subcommand, ValueEnum};
use render::{board_diagram, side_description};
use tabula_api::bilitaire::{Details, ShowReport};
use tabula_engine::bilitaire::{Position, Rules, START};

#[derive(ClapArgs, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the board with coordinates.
    Show(Common),
    /// List every legal move in the project's notation.
    Moves(Common),
    /// With --moves: apply moves and print the resulting position string. Without: play a
    /// match against the engine in the terminal (two rounds, roles swapped).
    Play {
        #[command(flatten)]
        common: Common,
        /// Moves separated by spaces, e.g. "xd4 B1-A1 d6-d4".
        #[arg(long, allow_hyphen_values = true)]
        moves: Option<String>,
        /// Your role in the first round (interactive play).
        #[arg(long, value_enum, default_value_t = crate::bilitaire::game::HumanRole::Ball)]
        role: crate::bilitaire::game::HumanRole,
        #[command(flatten)]
        strength: crate::interactive::Strength,
        /// Rounds to play: 2 is a full match (roles swapped), 1 a single round.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=2))]
        rounds: u8,
    },
    /// Solve exactly: balls left under best play, best move, principal variation. Stopped by
    /// --time, --nodes or Ctrl-C, it reports the bounds it proved. Positions of more than 31
    /// balls need --time or --nodes.
    Solve {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        search: solve::SolveArgs,
    },
    /// Anytime analysis by iterative deepening, with progress lines, under time/node limits.
    Analyze {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        search: solve::SolveArgs,
    },
    /// Count the move sequences of a given length.
    Perft {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        perft: crate::common::PerftArgs,
    },
}

/// The rules variant (`docs/rules/bilitaire.md`).
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
enum Variant {
    /// The rules as written: one simple jump unless the slider announces a chain.
    #[default]
    Standard,
    /// Without an announcement the ball player may chain jumps with one ball as he likes.
    FreeChains,
}

#[derive(ClapArgs, Debug)]
struct Common {
    /// Position string (default: the start position).
    #[arg(long, short, default_value = START, allow_hyphen_values = true)]
    position: String,
    /// Rules variant.
    #[arg(long, value_enum, default_value_t = Variant::Standard)]
    rules: Variant,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

impl Common {
    fn position(&self) -> Result<Position, CliError> {
        let rules = Rules {
            free_chains: matches!(self.rules, Variant::FreeChains),
        };
        Position::parse_with(&self.position, rules)
            .map_err(|e| CliError::bad_input(format!("invalid position: {e}")))
    }
}

pub fn run(args: Args) -> CliResult {
    match args.command {
        Command::Show(common) => show(&common),
        Command::Moves(common) => moves(&common),
        Command::Play {
            common,
            moves: Some(moves),
            ..
        } => play(&common, &moves),
        Command::Play {
            common,
            moves: None,
            role,
            strength,
            rounds,
        } => {
            crate::interactive::refuse_json(common.json)?;
            crate::bilitaire::game::run_match(
                common.position()?,
                role,
                strength.time_per_move(),
                rounds,
            )
        }
        Command::Perft { common, perft } => perft.run(&common.position()?, common.json),
        Command::Solve { common, search } => solve_command(&common, &search, solve::Mode::Solve),
        Command::Analyze { common, search } => {
            solve_command(&common, &search, solve::Mode::Analyze)
        }
    }
}

fn show(common: &Common) -> CliResult {
    let pos = common.position()?;
    if common.json {
        return crate::common::print_json(&show_report(&pos));
    }
    print!("{}", board_diagram(&pos));
    println!(
        "{}; {} balls, {} tiles, longest chain {}{}",
        side_description(&pos),
        pos.ball_count(),
        pos.tiles().count_ones(),
        pos.longest_chain(),
        if pos.is_over() {
            "; the round is over"
        } else {
            ""
        }
    );
    println!("{pos}");
    Ok(())
}

/// `show --json`, and `play --moves … --json` for the position reached.
fn show_report(pos: &Position) -> ShowReport {
    let text = pos.to_string();
    let rows = text
        .split(' ')
        .next()
        .unwrap_or_default()
        .split('/')
        .map(str::to_string)
        .collect();
    ShowReport {
        game: Position::GAME.into(),
        side_to_move: pos.side_to_move().into(),
        over: pos.is_over(),
        details: Details {
            side_code: pos.side().to_string(),
            balls: pos.ball_count(),
            tiles: pos.tiles().count_ones(),
            longest_chain: pos.longest_chain(),
            rows,
        },
        position: text,
    }
}

fn moves(common: &Common) -> CliResult {
    crate::common::print_moves(&common.position()?, common.json)
}

fn play(common: &Common, moves: &str) -> CliResult {
    let mut pos = common.position()?;
    for (i, text) in moves.split_whitespace().enumerate() {
        let mv = pos
            .parse_move(text)
            .map_err(|e| CliError::bad_input(format!("illegal move #{}: {e}", i + 1)))?;
        pos = pos.play(mv);
    }
    if common.json {
        crate::common::print_json(&show_report(&pos))
    } else {
        println!("{pos}");
        Ok(())
    }
}

fn solve_command(common: &Common, search: &solve::SolveArgs, mode: solve::Mode) -> CliResult {
    solve::run(&common.position()?, common.json, search, mode)
}
