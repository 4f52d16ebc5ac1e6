//! A human against the engine in the terminal, for any game the shared search plays: the
//! engine thinks by iterative deepening under a fixed time per move and plays the best move of
//! the deepest iteration it finished; the human types moves or one of the commands below.

use std::fmt::Display;
use std::io::{BufRead, Write};
use std::time::Duration;
use tabula_solver::search::Searchable;
use tabula_solver::{AtomicTable, SearchOptions, Searcher};

/// What the terminal loop needs from a game beyond the search traits.
pub trait Interactive: Searchable + Display
where
    Self::Key: Into<u128>,
{
    /// The board as text, ending in a newline.
    fn diagram(&self) -> String;
    /// Who is to move, in words (shown in the prompt).
    fn mover(&self) -> String;
    /// A move typed by the human, or why it is not legal here.
    fn parse_human_move(&self, text: &str) -> Result<Self::Move, String>;
}

/// The engine's move: the best of the deepest search finished within `time`; the first legal
/// move if not even one ply finished. Never takes (much) more than `time`.
pub fn engine_move<G: Interactive>(pos: &G, time: Duration, table: &AtomicTable) -> G::Move
where
    G::Key: Into<u128>,
{
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

/// Plays from `start` until the game is over; `human_to_move` says whose turn is the human's.
/// Returns the final position, or `None` if the human quit (or input ended).
pub fn play_game<G: Interactive>(
    start: G,
    human_to_move: impl Fn(&G) -> bool,
    time: Duration,
    input: &mut impl BufRead,
) -> Option<G>
where
    G::Key: Into<u128>,
{
    let table = AtomicTable::with_megabytes(64);
    let mut pos = start;
    let mut line = String::new();
    while !pos.is_terminal() {
        if !human_to_move(&pos) {
            let mv = engine_move(&pos, time, &table);
            println!("engine plays {mv}");
            pos = pos.play(mv);
            continue;
        }
        print!("{}", pos.diagram());
        println!("{pos}");
        print!(
            "your move ({}; 'moves', 'hint', 'auto', 'quit'): ",
            pos.mover()
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
            text => match pos.parse_human_move(text) {
                Ok(mv) => pos = pos.play(mv),
                Err(e) => println!("{e}"),
            },
        }
    }
    println!("{pos}");
    Some(pos)
}

/// How long the engine thinks per move: a strength level or a time.
#[derive(clap::Args, Debug)]
pub struct Strength {
    /// Engine strength 1-5: thinking time per move 0.1, 0.5, 2, 5 or 15 seconds.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=5))]
    level: u8,
    /// Engine thinking time per move in seconds (overrides --level).
    #[arg(long, value_parser = crate::common::parse_seconds)]
    time: Option<Duration>,
}

impl Strength {
    pub fn time_per_move(&self) -> Duration {
        self.time.unwrap_or_else(|| {
            Duration::from_secs_f64(
                [0.1, 0.5, 2.0, 5.0, 15.0][usize::from(self.level.clamp(1, 5) - 1)],
            )
        })
    }
}
