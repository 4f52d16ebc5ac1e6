//! `tabula pylos …`: show, list moves, play moves, run perft, solve and analyze Pylos positions.

pub mod game;
pub mod render;
mod solve;

use crate::common::Reported;
use crate::error::{CliError, CliResult};
use clap::{Args as ClapArgs, Subcommand, ValueEnum};
use render::color_name;
use tabula_api::pylos::{Details, Reserves, ShowReport};
use tabula_engine::pylos::{self, Board, Color, Position, Rules};
use tabula_engine::Game;

#[derive(ClapArgs, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the levels, reserves and the side to move.
    Show(Common),
    /// List every legal move (place `0b2`, raise `0a1-1b2`, take-backs `x1b2x0a1`).
    Moves(Common),
    /// With `--moves`: apply moves and print the resulting position string. Without: play a
    /// game against the engine in the terminal.
    Play {
        #[command(flatten)]
        common: Common,
        /// Moves separated by spaces, e.g. "0a1 0d4 0b1".
        #[arg(long, allow_hyphen_values = true)]
        moves: Option<String>,
        /// Your colour (interactive play; black moves first).
        #[arg(long, value_enum, default_value_t = crate::pylos::game::HumanColor::Black)]
        color: crate::pylos::game::HumanColor,
        #[command(flatten)]
        strength: crate::interactive::Strength,
        #[command(flatten)]
        tablebase: solve::TablebaseArgs,
    },
    /// Solve: win or loss for the side to move and in how many plies, best move, principal
    /// variation. Exact under `children` rules (no position repeats); under `standard` and
    /// `mature` rules positions can repeat, so it deepens iteratively and reports a result only
    /// once a forced win or loss is proven.
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

/// Which patterns allow a take-back (`docs/rules/pylos.md`).
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

/// The pyramid's size.
#[derive(Clone, Copy, Debug, ValueEnum, Default)]
enum BoardSize {
    /// The game: a 4×4 base, 15 balls each.
    #[default]
    #[value(name = "4")]
    Four,
    /// The small board for tests: a 3×3 base, 7 balls each (start `.../.../...|../..|. b`).
    #[value(name = "3")]
    Three,
}

/// The rule options of every Pylos command (and of its tablebases).
#[derive(ClapArgs, Debug)]
pub struct RulesArgs {
    /// The board: 4 (the game) or 3 (a 3×3 base, levels 3×3, 2×2, 1; 7 balls each).
    #[arg(long, value_enum, default_value_t = BoardSize::Four)]
    board: BoardSize,
    /// Rule set.
    #[arg(long, value_enum, default_value_t = RuleSet::Standard)]
    rules: RuleSet,
    /// Take-back option.
    #[arg(long, value_enum, default_value_t = TakebackOption::Optional)]
    takeback: TakebackOption,
}

impl RulesArgs {
    /// The rules the options name.
    pub fn rules(&self) -> Rules {
        let variant = match self.rules {
            RuleSet::Children => pylos::Variant::Children,
            RuleSet::Standard => pylos::Variant::Standard,
            RuleSet::Mature => pylos::Variant::Mature,
        };
        let takeback = match self.takeback {
            TakebackOption::Optional => pylos::Takeback::Optional,
            TakebackOption::Compulsory => pylos::Takeback::Compulsory,
        };
        let board = match self.board {
            BoardSize::Four => Board::Four,
            BoardSize::Three => Board::Three,
        };
        Rules::new(variant, takeback).on(board)
    }
}

#[derive(ClapArgs, Debug)]
struct Common {
    /// Position string (default: the start position of the board,
    /// `..../..../..../....|.../.../...|../..|. b` on the 4×4 board).
    #[arg(long, short, allow_hyphen_values = true)]
    position: Option<String>,
    #[command(flatten)]
    rules: RulesArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

impl Common {
    fn rules(&self) -> Rules {
        self.rules.rules()
    }

    fn position(&self) -> Result<Position, CliError> {
        let rules = self.rules();
        let text = match &self.position {
            Some(text) => text.as_str(),
            None => pylos::start_string(rules.board),
        };
        Position::parse(text, rules).map_err(|e| {
            let hint = match e {
                pylos::SetupError::OtherBoard { found, .. } => format!(" (use --board {found})"),
                _ => String::new(),
            };
            CliError::bad_input(format!("invalid position: {e}{hint}"))
        })
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
            color,
            strength,
            tablebase,
        } => {
            crate::interactive::refuse_json(common.json)?;
            let pos = common.position()?;
            if let Some(winner) = pos.winner() {
                return Err(CliError::bad_input(format!(
                    "the game is over ({} wins): nothing to play",
                    color_name(winner)
                )));
            }
            let table = tablebase.open(pos.rules())?;
            crate::pylos::game::run_game(pos, color, strength.time_per_move(), table)
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
    print!("{}", pos.diagram());
    println!(
        "{} to move; reserves black {}, white {}; {} legal moves{}",
        color_name(pos.turn()),
        pos.reserve(Color::Black),
        pos.reserve(Color::White),
        pos.count_moves(),
        match pos.winner() {
            Some(c) => format!("; game over, {} wins", color_name(c)),
            None => String::new(),
        }
    );
    println!("{pos}");
    Ok(())
}

/// `show --json`, and `play --moves … --json` for the position reached.
fn show_report(pos: &Position) -> ShowReport {
    let rules = pos.rules();
    ShowReport {
        game: Position::GAME.into(),
        position: pos.to_string(),
        side_to_move: pos.side_to_move().into(),
        over: pos.is_over(),
        details: Details {
            rules: rules.variant.to_string(),
            takeback: rules.takeback.to_string(),
            board: rules.board.size(),
            reserve: Reserves {
                black: pos.reserve(Color::Black),
                white: pos.reserve(Color::White),
            },
            legal_moves: pos.count_moves(),
            winner: pos.winner().map(|c| color_name(c).into()),
        },
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
            .map_err(|e| CliError::bad_input(format!("illegal move #{} '{text}': {e}", i + 1)))?;
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
            .map_err(|e| CliError::bad_input(e.to_string()))?;
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
            .message()
            .contains("1a3 does not rest on four balls"));
        let illegal = run_words(&["play", "--moves", "0a1 0a1"]).unwrap_err();
        assert_eq!(illegal.message(), "illegal move #2 '0a1': 0a1 is occupied");
        let malformed = run_words(&["play", "--moves", "0e9"]).unwrap_err();
        assert!(malformed.message().contains("'0e9'"));
        assert!(run_words(&["perft", "--depth", "2", "--rules", "mature"]).is_ok());
        assert!(run_words(&["perft", "--depth", "2", "--takeback", "sometimes"]).is_err());
        assert!(run_words(&["moves", "--json", "--takeback", "compulsory"]).is_ok());
    }

    #[test]
    fn solve_and_analyze_check_their_input() {
        let over = "bwbw/wbwb/bwbw/wbww|wwb/wbw/bwb|bw/bb|. w";
        let err = run_words(&["solve", "--position", over]).unwrap_err();
        assert_eq!(
            err.message(),
            "the game is over (black wins): nothing to solve"
        );
        let err = run_words(&["analyze", "--time", "0"]).unwrap_err();
        // Rejected by the shared `--time` parser, which names the option and what it wants.
        assert!(
            err.message().contains("'--time <TIME>'"),
            "{}",
            err.message()
        );
        assert!(
            err.message().contains("positive number of seconds"),
            "{}",
            err.message()
        );
        assert!(run_words(&["solve", "--time", "nan"]).is_err());
        assert!(run_words(&["solve", "--hash", "0"]).is_err());
        assert!(run_words(&["solve", "--threads", "0"]).is_err());
        assert!(run_words(&["solve", "--max-depth", "255"]).is_err());
        assert!(run_words(&["solve", "--rules", "kids"]).is_err());
        // Limits that stop the search are an answer ("unknown"), not an error.
        let late = "wwwb/b.wb/bwww/wbbw|..w/..b/..b|../..|. b";
        assert!(run_words(&["solve", "--nodes", "10", "--json"]).is_ok());
        assert!(run_words(&[
            "analyze",
            "--position",
            late,
            "--rules",
            "mature",
            "--nodes",
            "5000"
        ])
        .is_ok());
        assert!(run_words(&["solve", "--position", late, "--rules", "children", "--json"]).is_ok());
    }
}
