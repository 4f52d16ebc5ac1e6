//! `tabula pylos play` without `--moves`: a human against the engine in the terminal, under
//! any rule set. The terminal loop is [`crate::interactive`]; the engine's strength is its
//! thinking time per move.

use crate::error::CliResult;
use crate::interactive::{play_game, print_intro, Interactive, Suggestion};
use crate::pylos::render::color_name;
use clap::ValueEnum;
use std::time::Duration;
use tabula_engine::pylos::{decode, Color, Move, Position};
use tabula_tablebase::pylos::{payoff, PylosTable};

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
            color_name(self.turn()),
            self.reserve(Color::Black),
            self.reserve(Color::White)
        )
    }

    fn legend() -> &'static str {
        "\
board: levels 0 (bottom, 4x4, or 3x3 under --board 3) up to the apex; b black ball,
  w white ball, . empty
position line: each level's rows from the highest rank down, levels split by |, then who
  moves: b = black, w = white (black moves first)
moves: 0b2 place a ball, 0a1-1b2 raise one, x1b2 appended takes a ball back (0b2x0b2x0a1)
"
    }

    fn describe_value(&self, value: i32, exact: bool) -> String {
        let mover = color_name(self.turn());
        if !exact {
            let for_mover = if self.turn() == Color::Black {
                value
            } else {
                -value
            };
            return format!(
                "estimate {for_mover:+} for {mover} (positive favours {mover}; not proven)"
            );
        }
        match decode(value) {
            None => "a draw with best play (exact)".into(),
            Some((winner, plies)) => format!(
                "{mover} {} in {plies} {} (exact)",
                if winner == self.turn() {
                    "wins"
                } else {
                    "loses"
                },
                if plies == 1 { "ply" } else { "plies" }
            ),
        }
    }

    fn parse_human_move(&self, text: &str) -> Result<Move, String> {
        self.parse_move(text).map_err(|e| e.to_string())
    }
}

/// One game against the engine from `start`, the human playing `human`. With a tablebase of
/// the rules the engine plays perfectly (the fastest win, the slowest loss) and its hints are
/// exact; without one it searches for `time` a move.
pub fn run_game(
    start: Position,
    human: HumanColor,
    time: Duration,
    tablebase: Option<PylosTable>,
) -> CliResult {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let human = human.color();
    print_intro::<Position>();
    if let Some(t) = &tablebase {
        println!(
            "the engine plays from the tablebase {} (perfect play)",
            t.path().display()
        );
    }
    let book = |pos: &Position| -> Option<Suggestion<Move>> {
        let table = tablebase.as_ref()?;
        // The best move's value for the side to move is the position's: no second probe.
        let best = table.moves(pos).ok()?.into_iter().next()?;
        let value = payoff(pos, best.value)?;
        Some(Suggestion {
            mv: best.mv,
            value: Some((value, true)),
        })
    };
    match play_game(
        start,
        |pos: &Position| pos.turn() == human,
        time,
        Some(&book),
        &mut input,
    ) {
        None => println!("game abandoned"),
        Some(end) => {
            let winner = end.winner().expect("the game loop ends on a finished game");
            println!(
                "game over: {} wins ({})",
                color_name(winner),
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
