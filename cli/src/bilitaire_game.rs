//! `tabula bilitaire play` without `--moves`: a human against the engine in the terminal.
//!
//! A match is two rounds with the roles swapped; whoever, as ball player, left fewer balls wins
//! (equal scores draw). The engine thinks by iterative deepening under a fixed time per move
//! and plays its best move from the last completed depth.

use crate::bilitaire::board_diagram;
use crate::error::CliResult;
use clap::ValueEnum;
use std::io::{BufRead, Write};
use std::time::Duration;
use tabula_engine::bilitaire::{Move, Position, Side};
use tabula_engine::Game;
use tabula_solver::{AtomicTable, SearchOptions, Searcher};

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

/// The engine's move: the best of the deepest search finished within `time`; the first
/// legal move if not even one ply finished.
fn engine_move(pos: &Position, time: Duration, table: &AtomicTable) -> Move {
    let options = SearchOptions {
        time: Some(time),
        ..SearchOptions::default()
    };
    let searcher = Searcher::new(table, options);
    let best = searcher.analyze(pos, 200, |_| {}).and_then(|r| r.best);
    best.unwrap_or_else(|| {
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        moves[0]
    })
}

/// Plays one round from `start`; returns the balls left, or `None` if the human quit.
fn play_round(
    start: Position,
    human: HumanRole,
    time: Duration,
    input: &mut impl BufRead,
) -> Option<u32> {
    let table = AtomicTable::with_megabytes(64);
    let mut pos = start;
    let mut line = String::new();
    while !pos.is_over() {
        if !human.moves_at(pos.side()) {
            let mv = engine_move(&pos, time, &table);
            println!("engine plays {mv}");
            pos = pos.play(mv);
            continue;
        }
        print!("{}", board_diagram(&pos));
        println!("{pos}");
        print!(
            "your move ({}; 'moves', 'hint', 'auto', 'quit'): ",
            pos.side()
        );
        let _ = std::io::stdout().flush();
        line.clear();
        if input.read_line(&mut line).ok()? == 0 {
            println!();
            return None;
        }
        match line.trim() {
            "" => continue,
            "quit" | "q" => return None,
            "moves" => {
                let mut moves = Vec::new();
                pos.legal_moves(&mut moves);
                let names: Vec<String> = moves.iter().map(ToString::to_string).collect();
                println!("{}", names.join(" "));
            }
            "hint" => println!("engine suggests {}", engine_move(&pos, time, &table)),
            "auto" => {
                let mv = engine_move(&pos, time, &table);
                println!("you play {mv}");
                pos = pos.play(mv);
            }
            text => match pos.parse_move(text) {
                Ok(mv) => pos = pos.play(mv),
                Err(e) => println!("{e}"),
            },
        }
    }
    println!("{pos}");
    println!("round over: {} balls left", pos.ball_count());
    Some(pos.ball_count())
}

/// A match (or a single round) against the engine, reading moves from standard input.
pub fn run_match(start: Position, first_role: HumanRole, time: Duration, rounds: u8) -> CliResult {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut your_score = None;
    let mut engine_score = None;
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
