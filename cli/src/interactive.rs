//! A human against the engine in the terminal, for any game the shared search plays: the
//! engine thinks by iterative deepening under a fixed time per move and plays the best move of
//! the deepest iteration it finished; the human types moves or one of the commands in [`HELP`].
//!
//! The board is shown when the position changes; an illegal move or a command is answered on
//! one line and the prompt comes back, so the answer stays in view.

use std::fmt::Display;
use std::io::{BufRead, Write};
use std::time::Duration;
use tabula_solver::driver::{Analysis, Config, Driver, Limits};
use tabula_solver::search::Searchable;
use tabula_solver::AtomicTable;

/// What the terminal loop needs from a game beyond the search traits.
pub trait Interactive: Searchable + Display {
    /// The board as text, ending in a newline.
    fn diagram(&self) -> String;
    /// Who is to move and what they have to do, in words (shown in the prompt).
    fn mover(&self) -> String;
    /// A few lines, printed once before play, explaining the diagram, the position line (its
    /// side letters included) and the move notation. Ends in a newline.
    fn legend() -> &'static str;
    /// The engine's `value` of this position in words, for `hint`: proven when `exact`, an
    /// estimate otherwise.
    fn describe_value(&self, value: i32, exact: bool) -> String;
    /// A move typed by the human, or why it is not legal here.
    fn parse_human_move(&self, text: &str) -> Result<Self::Move, String>;
}

/// The commands the prompt accepts besides a move (`help` prints this).
pub const HELP: &str = "\
commands:
  MOVE     play a move in the notation above (e.g. what 'moves' lists)
  moves    list the legal moves
  hint     the engine's suggested move and its value
  auto     let the engine play this move for you
  undo     take back your last move and the engine's reply
  record   the moves played so far
  board    show the board again
  help     this list
  quit     give up the game";

/// The engine's choice in a position: its move and, when a search finished, its value.
pub struct Suggestion<M> {
    pub mv: M,
    /// The value of the position and whether it is proven; `None` if not even one ply
    /// finished in time.
    pub value: Option<(i32, bool)>,
}

/// The engine's move and value: the best of the deepest search finished within `time`; the
/// first legal move if not even one ply finished. Never takes (much) more than `time`.
pub fn engine_search<G: Interactive>(
    pos: &G,
    time: Duration,
    table: &AtomicTable,
) -> Suggestion<G::Move> {
    let limits = Limits {
        time: Some(time),
        ..Limits::none()
    };
    let driver = Driver::new(table, Config::default(), limits);
    let line = match driver.analyze(pos, 200, |_| {}) {
        Analysis::Exact { line, .. } => Some((line, true)),
        Analysis::Estimate { line, .. } => Some((line, false)),
        Analysis::Stopped { .. } => None,
    };
    let value = line.as_ref().map(|(l, exact)| (l.value, *exact));
    let mv = line.and_then(|(l, _)| l.best).unwrap_or_else(|| {
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        moves[0]
    });
    Suggestion { mv, value }
}

/// An exact source of moves consulted before any search (a tablebase): the best move and
/// the proven value, or `None` where it has no answer (then the engine searches).
pub type Book<'a, G> = &'a dyn Fn(&G) -> Option<Suggestion<<G as tabula_engine::Game>::Move>>;

/// Prints the legend of `G` and how to get the list of commands; call once before play.
pub fn print_intro<G: Interactive>() {
    print!("{}", G::legend());
    println!("type a move, or 'help' for the commands (hint, undo, record, ...)");
}

/// One move of the game so far.
struct Played<G: tabula_engine::Game> {
    /// The position the move was played in.
    before: G,
    mv: G::Move,
    /// Played for the human (typed, or `auto`), not as the engine's reply.
    human: bool,
}

/// A game in progress: the position, the moves that led there, the engine's table.
struct Session<'b, G: Interactive> {
    pos: G,
    record: Vec<Played<G>>,
    table: AtomicTable,
    book: Option<Book<'b, G>>,
    time: Duration,
    /// The board is to be shown before the next prompt.
    show_board: bool,
}

/// What the human's line asks the loop to do next.
enum Next {
    Prompt,
    Quit,
}

impl<G: Interactive> Session<'_, G> {
    fn play(&mut self, mv: G::Move, human: bool) {
        self.record.push(Played {
            before: self.pos.clone(),
            mv,
            human,
        });
        self.pos = self.pos.play(mv);
        self.show_board = true;
    }

    /// The moves played so far, in notation `play --moves` reads.
    fn record_line(&self) -> String {
        let moves: Vec<String> = self.record.iter().map(|p| p.mv.to_string()).collect();
        if moves.is_empty() {
            "move record: (no moves yet)".into()
        } else {
            format!("move record: {}", moves.join(" "))
        }
    }

    /// Takes back the engine's replies since the human's last move, and that move.
    fn undo(&mut self) {
        let Some(last_human) = self.record.iter().rposition(|p| p.human) else {
            println!("nothing to undo: you have not moved yet");
            return;
        };
        let mut taken = self.record.drain(last_human..);
        let Some(yours) = taken.next() else { return };
        let replies: Vec<String> = taken.map(|p| p.mv.to_string()).collect();
        self.pos = yours.before;
        let yours = yours.mv;
        self.show_board = true;
        match replies.is_empty() {
            true => println!("took back your {yours}"),
            false => println!(
                "took back your {yours} and the engine's {}",
                replies.join(" ")
            ),
        }
    }

    /// The book's answer where it has one, else a search's.
    fn suggestion(&self) -> Suggestion<G::Move> {
        self.book
            .and_then(|book| book(&self.pos))
            .unwrap_or_else(|| engine_search(&self.pos, self.time, &self.table))
    }

    fn hint(&self) {
        let s = self.suggestion();
        match s.value {
            Some((value, exact)) => println!(
                "engine suggests {}: {}",
                s.mv,
                self.pos.describe_value(value, exact)
            ),
            None => println!("engine suggests {} (no search finished in time)", s.mv),
        }
    }

    fn list_moves(&self) {
        let mut moves = Vec::new();
        self.pos.legal_moves(&mut moves);
        let names: Vec<String> = moves.iter().map(ToString::to_string).collect();
        println!("{}", names.join(" "));
    }

    /// Acts on one line typed at the prompt.
    fn command(&mut self, line: &str) -> Next {
        match line {
            "" => {}
            "quit" | "q" => return Next::Quit,
            "help" | "?" => println!("{HELP}"),
            "moves" => self.list_moves(),
            "hint" => self.hint(),
            "auto" => {
                let mv = self.suggestion().mv;
                println!("you play {mv}");
                self.play(mv, true);
            }
            "undo" => self.undo(),
            "record" => println!("{}", self.record_line()),
            "board" => self.show_board = true,
            text => match self.pos.parse_human_move(text) {
                Ok(mv) => self.play(mv, true),
                Err(e) => println!("{e}"),
            },
        }
        Next::Prompt
    }

    /// Shows the board if it changed and asks for a line; `None` at the end of the input.
    fn prompt(&mut self, input: &mut impl BufRead) -> Option<String> {
        if std::mem::take(&mut self.show_board) {
            print!("{}", self.pos.diagram());
            println!("{}", self.pos);
        }
        print!("your move ({}; 'help' for commands): ", self.pos.mover());
        let _ = std::io::stdout().flush();
        match crate::common::prompt_line(input) {
            Some(Ok(line)) => Some(line.trim().to_string()),
            Some(Err(message)) => {
                println!("{message}");
                Some(String::new())
            }
            None => {
                println!();
                None
            }
        }
    }
}

/// Refuses `--json` for interactive play, which talks in text (JSON is for `play --moves`).
pub fn refuse_json(json: bool) -> Result<(), crate::error::CliError> {
    if json {
        return Err(crate::error::CliError::bad_input(
            "--json needs --moves: interactive play prints text",
        ));
    }
    Ok(())
}

/// Plays from `start` until the game is over; `human_to_move` says whose turn is the human's.
/// The engine asks `book` first, where there is one, and searches where it has no answer.
/// Prints the move record at the end. Returns the final position, or `None` if the human quit
/// (or input ended).
pub fn play_game<G: Interactive>(
    start: G,
    human_to_move: impl Fn(&G) -> bool,
    time: Duration,
    book: Option<Book<'_, G>>,
    input: &mut impl BufRead,
) -> Option<G> {
    let mut game = Session {
        pos: start,
        record: Vec::new(),
        table: AtomicTable::with_megabytes(64),
        book,
        time,
        show_board: true,
    };
    while !game.pos.is_terminal() {
        if !human_to_move(&game.pos) {
            let mv = game.suggestion().mv;
            println!("engine plays {mv}");
            game.play(mv, false);
            continue;
        }
        let next = match game.prompt(input) {
            Some(line) => game.command(&line),
            None => Next::Quit,
        };
        if let Next::Quit = next {
            println!("{}", game.record_line());
            return None;
        }
    }
    println!("{}", game.pos);
    println!("{}", game.record_line());
    Some(game.pos)
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
