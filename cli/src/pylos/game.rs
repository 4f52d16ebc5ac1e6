//! `tabula pylos play` without `--moves`: a human against the engine in the terminal, under
//! any rule set. The terminal loop is [`crate::interactive`]; the engine's strength is its
//! thinking time per move.

use crate::error::CliResult;
use crate::interactive::{play_game, Interactive};
use clap::ValueEnum;
use std::time::Duration;
use tabula_engine::pylos::{Color, Move, Position};

/// The colour the human plays (black moves first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HumanColor {
    Black,
    White,
}

impl HumanColor {
    fn color(self) -> Color {
        match self {
            HumanColor::Black => Color::Black,
            HumanColor::White => Color::White,
        }
    }
}

impl Interactive for Position {
    fn diagram(&self) -> String {
        Position::diagram(self)
    }

    fn mover(&self) -> String {
        format!(
            "{} to move, reserves black {} white {}",
            crate::pylos::render::color_name(self.turn()),
            self.reserve(Color::Black),
            self.reserve(Color::White)
        )
    }

    fn parse_human_move(&self, text: &str) -> Result<Move, String> {
        self.parse_move(text).map_err(|e| e.to_string())
    }
}

/// One game against the engine from `start`, the human playing `human`.
pub fn run_game(start: Position, human: HumanColor, time: Duration) -> CliResult {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let human = human.color();
    match play_game(
        start,
        |pos: &Position| pos.turn() == human,
        time,
        &mut input,
    ) {
        None => println!("game abandoned"),
        Some(end) => {
            let winner = end.winner().expect("the game loop ends on a finished game");
            println!(
                "game over: {} wins ({})",
                crate::pylos::render::color_name(winner),
                if winner == human {
                    "you win"
                } else {
                    "the engine wins"
                }
            );
        }
    }
    Ok(())
}
