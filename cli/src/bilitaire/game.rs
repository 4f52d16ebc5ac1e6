//! `tabula bilitaire play` without `--moves`: a human against the engine in the terminal.
//!
//! A match is two rounds with the roles swapped; whoever, as ball player, left fewer balls wins
//! (equal scores draw). The terminal loop itself is [`crate::interactive`].

use crate::bilitaire::render::{board_diagram, side_description};
use crate::error::CliResult;
use crate::interactive::{play_game, print_intro, Interactive};
use clap::ValueEnum;
use std::io::BufRead;
use std::time::Duration;
use tabula_engine::bilitaire::{Move, Position, Side};

/// The role the human takes in the first round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HumanRole {
    /// Jump balls (and make the opening removal).
    Ball,
    /// Slide and remove tiles, announce chains.
    Slider,
}

impl HumanRole {
    fn other(self) -> HumanRole {
        match self {
            HumanRole::Ball => HumanRole::Slider,
            HumanRole::Slider => HumanRole::Ball,
        }
    }

    fn moves_at(self, side: Side) -> bool {
        matches!(
            (self, side),
            (HumanRole::Slider, Side::Slider)
                | (HumanRole::Ball, Side::Ball(_) | Side::OpeningRemoval)
        )
    }
}

impl Interactive for Position {
    fn diagram(&self) -> String {
        board_diagram(self)
    }

    fn mover(&self) -> String {
        side_description(self)
    }

    fn legend() -> &'static str {
        "\
board: o ball, . empty hole, - no hole; a tile is a 2x2 block of holes (set apart by spaces)
position line: ranks 8 to 1, then who moves: r = ball player's opening removal, s = slider,
  b = ball player (one jump), bN = ball player owing a chain of exactly N jumps
moves: xd4 remove a ball (opening), d2-d4 jump, d2-d4-f4 chain, xB2 remove a tile,
  A2-C2 slide tiles (rearmost tile named), !N appended announces a chain of N (A2-C2!3)
"
    }

    fn describe_value(&self, value: i32, exact: bool) -> String {
        let balls = |n: i32| format!("{n} {}", if n == 1 { "ball" } else { "balls" });
        if exact {
            format!("{} left with best play (exact)", balls(value))
        } else {
            format!("about {} left (estimate, not proven)", balls(value))
        }
    }

    fn parse_human_move(&self, text: &str) -> Result<Move, String> {
        self.parse_move(text).map_err(|e| e.to_string())
    }
}

/// Plays one round from `start`; returns the balls left, or `None` if the human quit.
fn play_round(
    start: Position,
    human: HumanRole,
    time: Duration,
    input: &mut impl BufRead,
) -> Option<u32> {
    let end = play_game(
        start,
        |pos: &Position| human.moves_at(pos.side()),
        time,
        None,
        input,
    )?;
    println!("round over: {} balls left", end.ball_count());
    Some(end.ball_count())
}

/// A match (or a single round) against the engine, reading moves from standard input.
pub fn run_match(start: Position, first_role: HumanRole, time: Duration, rounds: u8) -> CliResult {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut your_score = None;
    let mut engine_score = None;
    print_intro::<Position>();
    for round in 0..rounds {
        let role = if round == 0 {
            first_role
        } else {
            first_role.other()
        };
        println!(
            "round {}: you are the {} player",
            round + 1,
            match role {
                HumanRole::Ball => "ball",
                HumanRole::Slider => "slider",
            }
        );
        let Some(balls) = play_round(start, role, time, &mut input) else {
            println!("match abandoned");
            return Ok(());
        };
        match role {
            HumanRole::Ball => your_score = Some(balls),
            HumanRole::Slider => engine_score = Some(balls),
        }
    }
    if let (Some(you), Some(engine)) = (your_score, engine_score) {
        let verdict = match you.cmp(&engine) {
            std::cmp::Ordering::Less => "you win",
            std::cmp::Ordering::Greater => "the engine wins",
            std::cmp::Ordering::Equal => "a draw",
        };
        println!(
            "match result: as ball player you left {you}, the engine left {engine}: {verdict}"
        );
    }
    Ok(())
}
