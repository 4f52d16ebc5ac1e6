//! `tabula backgammon play` without `--play`: a human against the engine in the terminal, a
//! money session or a match to N points, with the doubling cube.
//!
//! The rules of the cube and the score are [`MatchState`]'s: no double on the first move of a
//! game, none in the Crawford game, none by a player 1-away or with a dead cube; a drop scores
//! the cube value before the double. `--jacoby` (money only) scores a gammon or backgammon as a
//! single game while the cube is still at 1.
//!
//! Each turn of the human starts with the board from the human's side (home board bottom
//! right), the pip counts, the score and cube, and the gnubg Position ID and Match ID (from the
//! player on roll, as `hint --position ID:MATCHID` reads them). When the human may double, the
//! turn asks `roll` or `double` first; otherwise the dice are rolled at once. A roll with no
//! legal play passes; a roll with only one play is played for the human, saying so.
//!
//! The engine doubles, takes and drops by the [`Advisor`]'s cube decision on its evaluation at
//! `--plies` (money, or the Kazaross-XG2 table at the match score) and plays the advisor's best
//! play at `--plies`. The dice come from a seeded [`Rng`] (`--seed`; without it
//! one from the clock, printed so that the game can be replayed) and the search gives the same
//! result on any number of threads, so the same seed and the same typed lines give the same
//! game. Lines are read from standard input; its end abandons the game (exit code 0).

use std::io::{BufRead, IsTerminal, Write};

use clap::{Args as ClapArgs, ValueEnum};
use tabula_engine::backgammon::{
    Dice, DoubleDenied, GameKind, GameResult, MatchId, MatchState, Play, Position, Side,
    MAX_MATCH_LENGTH,
};
use tabula_gammon::advisor::{cube_state, Advisor, CubeAdvice};
use tabula_gammon::baseline::roll;
use tabula_gammon::cube::DEFAULT_CUBE_EFFICIENCY;
use tabula_gammon::{Rng, SearchOptions};

use super::args::{check_plies, with_threads, CubeRolloutArgs, EvaluatorArgs};
use super::render::{board_diagram_as, cube_advice, ranked_text};
use crate::error::{CliError, CliResult};

/// Plays shown by `hint`.
const HINT_PLAYS: usize = 5;

/// The options of the game against the engine.
#[derive(ClapArgs, Debug)]
pub struct GameArgs {
    /// Play a match to N points (1 to 25) instead of money.
    #[arg(long = "match", value_name = "N")]
    match_length: Option<u32>,
    /// Money games to play (default 1).
    #[arg(long)]
    games: Option<u32>,
    /// Seed of the dice (default: from the clock; the seed is printed either way).
    #[arg(long)]
    seed: Option<u64>,
    /// Your checkers: x (gnubg's player 1) or o (player 0); the board always shows yours at
    /// the bottom, moving to the bottom right.
    #[arg(long, value_enum, ignore_case = true, default_value_t = Color::X)]
    color: Color,
    /// The engine's lookahead for plays, cube decisions and hints: 0 (the net alone, instant)
    /// to 3 plies.
    #[arg(long, default_value_t = 2)]
    plies: u8,
    #[command(flatten)]
    cube_rollouts: CubeRolloutArgs,
    /// Search threads, 1 to 256. The engine's choices do not depend on it.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
    /// Money play under the Jacoby rule: gammons and backgammons count single while the cube
    /// has not been turned.
    #[arg(long)]
    jacoby: bool,
    /// Play without the doubling cube.
    #[arg(long = "no-cube")]
    no_cube: bool,
    #[command(flatten)]
    evaluator: EvaluatorArgs,
}

/// The human's checkers, which also fix the player numbers of the Match ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    X,
    O,
}

/// The human quit, or the input ended.
struct Quit;

type Step<T> = Result<T, Quit>;

/// How the first game of a session begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FirstGame {
    /// A new game, from the opening roll.
    New,
    /// On from a given position, before the player on roll has rolled (or doubled).
    BeforeRoll,
    /// On from a given position, with the player on roll's dice already rolled.
    Rolled(Dice),
}

impl FirstGame {
    /// From the command line's starting point: none (a new game), or a given one with its
    /// dice, if any.
    fn new(given: bool, dice: Option<Dice>) -> FirstGame {
        match (given, dice) {
            (false, _) => FirstGame::New,
            (true, None) => FirstGame::BeforeRoll,
            (true, Some(d)) => FirstGame::Rolled(d),
        }
    }
}

/// A session in progress.
struct Game<'e, R> {
    advisor: Advisor<'e>,
    /// The human's player number (0 or 1); the engine is the other.
    human: usize,
    /// The letters of the human's and the engine's checkers.
    letters: [char; 2],
    cube: bool,
    jacoby: bool,
    rng: Rng,
    input: R,
    /// Typed lines are echoed when they do not come from a terminal, so that a transcript reads
    /// like the session.
    echo: bool,
    state: MatchState,
    /// The board, from the player on roll.
    pos: Position,
    /// The number of the game in progress, from 1.
    game: u32,
}

/// Checks the options and the starting point, then plays the session on standard input.
/// `position`, `match_id` and `dice` give a starting point other than a new game: the first
/// game is played on from there (the human on roll unless the Match ID says otherwise).
pub fn run(
    args: &GameArgs,
    position: Position,
    match_id: Option<MatchId>,
    dice: Option<Dice>,
) -> CliResult {
    check_plies(args.plies)?;
    check_match_length(args)?;
    let human = match args.color {
        Color::X => 1,
        Color::O => 0,
    };
    let start = if position == Position::START && match_id.is_none() && dice.is_none() {
        None
    } else {
        Some(starting_state(args, human, position, match_id)?)
    };
    let length = start.map_or(args.match_length.unwrap_or(0), |s| s.length());
    check_session(args, length)?;
    let eval = args.evaluator.load()?;
    let seed = args.seed.unwrap_or_else(clock_seed);
    let options = SearchOptions {
        plies: args.plies,
        ..SearchOptions::default()
    };
    with_threads(args.threads, || {
        let stdin = std::io::stdin();
        let mut game = Game {
            advisor: Advisor::new(&eval, options, DEFAULT_CUBE_EFFICIENCY)
                .with_cube_rollouts(args.cube_rollouts.at(args.plies)),
            human,
            letters: if human == 1 { ['X', 'O'] } else { ['O', 'X'] },
            cube: !args.no_cube,
            jacoby: args.jacoby,
            rng: Rng::new(seed),
            echo: !stdin.is_terminal(),
            input: stdin.lock(),
            state: start.unwrap_or_else(|| MatchState::money(0)),
            pos: position,
            game: 0,
        };
        let games = args.games.unwrap_or(1);
        println!("{}; dice seed {seed}", session_name(length, games));
        let first = FirstGame::new(start.is_some(), dice);
        if game.session(length, games, first).is_err() {
            println!("game abandoned");
        }
    })
}

/// `--match N`: 1 to [`MAX_MATCH_LENGTH`] points.
fn check_match_length(args: &GameArgs) -> CliResult {
    match args.match_length {
        Some(n) if !(1..=MAX_MATCH_LENGTH).contains(&n) => Err(CliError::bad_input(format!(
            "--match {n}: a match is 1 to {MAX_MATCH_LENGTH} points (leave --match out for money)"
        ))),
        _ => Ok(()),
    }
}

/// The options that depend on the kind of session: `--games` and `--jacoby` are for money
/// play (`length` 0).
fn check_session(args: &GameArgs, length: u32) -> CliResult {
    if length > 0 && args.games.is_some() {
        return Err(CliError::bad_input(
            "--games is for money play (a match goes on until a player has enough points)",
        ));
    }
    if args.games == Some(0) {
        return Err(CliError::bad_input("--games must be at least 1"));
    }
    if length > 0 && args.jacoby {
        return Err(CliError::bad_input(
            "--jacoby is a rule of money play, not of matches",
        ));
    }
    Ok(())
}

/// The state to play on from a given position: the Match ID's, or a centred cube with the
/// human on roll (a money game, or game 1 of `--match`).
fn starting_state(
    args: &GameArgs,
    human: usize,
    position: Position,
    match_id: Option<MatchId>,
) -> Result<MatchState, CliError> {
    if position.is_game_over() {
        return Err(CliError::bad_input("the game of this position is over"));
    }
    let m = match match_id {
        Some(m) => {
            if let Some(n) = args.match_length {
                return Err(CliError::bad_input(format!(
                    "--match {n} with a Match ID: the Match ID gives the match length ({})",
                    m.match_length
                )));
            }
            if m.doubled {
                return Err(CliError::bad_input(
                    "the Match ID has a double pending: give the state before or after it",
                ));
            }
            m
        }
        None => MatchId {
            on_roll: human as u8,
            turn: human as u8,
            match_length: args.match_length.unwrap_or(0),
            ..MatchId::default()
        },
    };
    let state = MatchState::from_match_id(&m)
        .map_err(|e| CliError::bad_input(format!("cannot play on from this Match ID: {e}")))?;
    if state.is_game_over() {
        return Err(CliError::bad_input("the game of this Match ID is over"));
    }
    Ok(state)
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn session_name(length: u32, games: u32) -> String {
    match (length, games) {
        (0, 1) => "money game".into(),
        (0, n) => format!("money session of {n} games"),
        (n, _) => format!("match to {n} points"),
    }
}

fn points(n: u32) -> String {
    format!("{n} point{}", if n == 1 { "" } else { "s" })
}

fn kind_text(kind: GameKind) -> &'static str {
    match kind {
        GameKind::Single => "a single game",
        GameKind::Gammon => "a gammon",
        GameKind::Backgammon => "a backgammon",
    }
}

/// Why the human may not double, in words.
fn denied_text(why: DoubleDenied) -> &'static str {
    match why {
        DoubleDenied::NotNow | DoubleDenied::NotOnRoll => "only before your roll",
        DoubleDenied::FirstMove => "not on the first move of a game",
        DoubleDenied::Crawford => "not in the Crawford game",
        DoubleDenied::NotOwner => "the engine owns the cube",
        DoubleDenied::MaxCube => "the cube is at its maximum",
        DoubleDenied::OneAway => "you need 1 point: doubling cannot gain anything",
        DoubleDenied::DeadCube => "the cube already covers the points you need",
    }
}

impl<R: BufRead> Game<'_, R> {
    /// Plays games until the match is over or `games` money games are played, the first one
    /// begun as `first` says and the others from the opening roll.
    fn session(&mut self, length: u32, games: u32, first: FirstGame) -> Step<()> {
        let mut next = first;
        loop {
            self.game += 1;
            let dice = match std::mem::replace(&mut next, FirstGame::New) {
                FirstGame::New => Some(self.new_game(length)),
                FirstGame::BeforeRoll => None,
                FirstGame::Rolled(dice) => Some(dice),
            };
            self.header();
            let result = self.play_game(dice)?;
            let [me, engine] = self.scores();
            let tail = if length > 0 {
                format!("match to {length}")
            } else {
                format!("you {:+}", i64::from(me) - i64::from(engine))
            };
            println!(
                "score after game {}: you {me}, the engine {engine} ({tail})",
                self.game
            );
            if self.state.is_match_over() {
                let who = if result.winner == self.human {
                    "you win"
                } else {
                    "the engine wins"
                };
                println!(
                    "match over: {who} the match {}-{}",
                    me.max(engine),
                    me.min(engine)
                );
                return Ok(());
            }
            if length == 0 && self.game >= games {
                println!(
                    "money session over after {}: you {:+}",
                    if self.game == 1 {
                        "1 game".to_string()
                    } else {
                        format!("{} games", self.game)
                    },
                    i64::from(me) - i64::from(engine)
                );
                return Ok(());
            }
        }
    }

    /// The opening roll of a new game (each side one die, ties rolled again; the higher die
    /// starts and plays both), with the state set for the game; returns the dice.
    fn new_game(&mut self, length: u32) -> Dice {
        let (mine, theirs) = loop {
            let (a, b) = (self.rng.die(), self.rng.die());
            if a != b {
                break (a, b);
            }
            println!("opening roll: you {a}, the engine {b}: again");
        };
        let starter = if mine > theirs {
            self.human
        } else {
            1 - self.human
        };
        if self.game == 1 {
            self.state = if length == 0 {
                MatchState::money(starter)
            } else {
                // The length was checked before the session.
                MatchState::new(length, starter).unwrap_or_else(|_| MatchState::money(starter))
            };
        } else {
            // Only a finished match refuses a new game, and the session ends before that.
            let _ = self.state.new_game(starter);
        }
        self.pos = Position::START;
        let dice = Dice::new(mine, theirs).expect("dice of 1 to 6");
        println!(
            "opening roll: you {mine}, the engine {theirs}: {} with {dice}",
            if starter == self.human {
                "you start"
            } else {
                "the engine starts"
            }
        );
        dice
    }

    fn header(&self) {
        let crawford = if self.state.is_crawford() {
            " (Crawford game: no doubling)"
        } else {
            ""
        };
        println!("game {}{crawford}", self.game);
    }

    /// Scores of the human and of the engine.
    fn scores(&self) -> [u32; 2] {
        let s = self.state.score();
        [s[self.human], s[1 - self.human]]
    }

    /// Plays the game to its end; `dice` are those of the first turn, if rolled.
    fn play_game(&mut self, mut dice: Option<Dice>) -> Step<GameResult> {
        loop {
            if let Some(result) = self.turn(dice.take())? {
                return Ok(result);
            }
        }
    }

    /// One turn of the player on roll; the result when the game ends in it.
    fn turn(&mut self, dice: Option<Dice>) -> Step<Option<GameResult>> {
        let mover = self.state.on_roll();
        let human = mover == self.human;
        if human {
            self.show_board();
        }
        let dice = match dice {
            Some(d) => d,
            None => {
                if self.cube && self.state.may_double(mover) {
                    let end = if human {
                        self.human_cube()?
                    } else {
                        self.engine_cube()?
                    };
                    if end.is_some() {
                        return Ok(end);
                    }
                }
                roll(&mut self.rng)
            }
        };
        let play = if human {
            println!("you roll {dice}");
            self.show_ids(Some(dice));
            self.human_play(dice)?
        } else {
            self.engine_play(dice)
        };
        self.pos = play.map_or_else(|| self.pos.swapped(), |p| p.result());
        if let Some(kind) = self.pos.loss_kind() {
            return Ok(Some(self.win(mover, kind)));
        }
        // Neither a double nor the end of the game is pending here.
        let _ = self.state.played();
        Ok(None)
    }

    /// The board from the human's side, the pip counts, the score and the cube.
    fn show_board(&self) {
        let view = if self.state.on_roll() == self.human {
            self.pos
        } else {
            self.pos.swapped()
        };
        let [mine, theirs] = self.letters;
        print!("{}", board_diagram_as(&view, mine, theirs));
        for (letter, name, side) in [
            (mine, "you", Side::OnRoll),
            (theirs, "the engine", Side::Opponent),
        ] {
            println!(
                " {letter} {name:<10}  pips {:>3}, bar {}, off {:>2}",
                view.pips(side),
                view.bar(side),
                view.off(side)
            );
        }
        let s = &self.state;
        let [me, engine] = self.scores();
        let kind = if s.length() == 0 {
            format!(
                "money game {}{}",
                self.game,
                if self.jacoby { " (Jacoby rule)" } else { "" }
            )
        } else {
            format!("match to {}, game {}", s.length(), self.game)
        };
        let cube = if !self.cube {
            "no cube".to_string()
        } else {
            let owner = match s.cube_owner() {
                None => "centred",
                Some(o) if o == self.human => "yours",
                Some(_) => "the engine's",
            };
            format!("cube {}, {owner}", s.cube())
        };
        let crawford = if s.is_crawford() {
            "; Crawford game"
        } else {
            ""
        };
        println!(" {kind}: you {me}, the engine {engine}; {cube}{crawford}");
    }

    /// The gnubg IDs of the moment, `dice` rolled or not.
    fn show_ids(&self, dice: Option<Dice>) {
        println!(
            " Position ID: {}  Match ID: {}",
            self.pos.position_id(),
            self.match_id(dice).encode()
        );
    }

    fn match_id(&self, dice: Option<Dice>) -> MatchId {
        let mut m = self
            .state
            .to_match_id(dice.map_or((0, 0), |d| (d.high(), d.low())));
        m.jacoby = self.jacoby;
        m
    }

    /// The engine's view of the cube for the player on roll (before the roll).
    fn cube_decision(&self) -> CubeAdvice {
        self.advisor
            .cube(&self.pos, &cube_state(Some(&self.match_id(None))))
    }

    /// Prints `prompt` and reads the next non-empty line, trimmed; `Err(Quit)` on `quit` or at
    /// the end of the input.
    fn ask(&mut self, prompt: &str) -> Step<String> {
        loop {
            print!("{prompt}: ");
            let _ = std::io::stdout().flush();
            let line = match crate::common::prompt_line(&mut self.input) {
                Some(Ok(line)) => line,
                Some(Err(message)) => {
                    println!("{message}");
                    continue;
                }
                None => {
                    println!();
                    return Err(Quit);
                }
            };
            let text = line.trim();
            if self.echo {
                println!("{text}");
            }
            match text {
                "" => continue,
                "quit" | "q" => return Err(Quit),
                _ => return Ok(text.to_string()),
            }
        }
    }

    /// The human's choice before the roll when the cube is available; the result when the
    /// engine drops the human's double.
    fn human_cube(&mut self) -> Step<Option<GameResult>> {
        self.show_ids(None);
        let prompt = format!(
            "roll or double to {} ('hint', 'auto', 'board', 'quit')",
            2 * self.state.cube()
        );
        let double = loop {
            match self.ask(&prompt)?.as_str() {
                "roll" | "r" => break false,
                "double" | "d" => break true,
                "hint" => {
                    let advice = self.cube_decision();
                    println!(
                        "your chances at {}-ply before the roll:",
                        self.advisor.plies()
                    );
                    println!("{}", cube_advice(&advice));
                }
                "auto" => {
                    let double = self.cube_decision().decision.offers_double();
                    println!("auto: {}", if double { "double" } else { "roll" });
                    break double;
                }
                "board" => {
                    self.show_board();
                    self.show_ids(None);
                }
                _ => println!("the dice are not rolled yet: type 'roll' or 'double'"),
            }
        };
        if !double || self.state.double().is_err() {
            return Ok(None);
        }
        println!("you double to {}", 2 * self.state.cube());
        // The engine answers from the doubler's side: it takes when double/take is no better
        // for the doubler than double/pass.
        let take = self.cube_decision().decision.take;
        if take && self.state.take().is_ok() {
            println!(
                "the engine takes: the cube is at {}, the engine's",
                self.state.cube()
            );
            return Ok(None);
        }
        Ok(self.dropped())
    }

    /// The engine's choice before its roll; the result when the human drops its double.
    fn engine_cube(&mut self) -> Step<Option<GameResult>> {
        let CubeAdvice {
            probabilities: p,
            decision: d,
            ..
        } = self.cube_decision();
        if !d.offers_double() || self.state.double().is_err() {
            return Ok(None);
        }
        println!("the engine doubles to {}", 2 * self.state.cube());
        self.show_board();
        self.show_ids(None);
        let take = loop {
            match self.ask("take or drop ('hint', 'auto', 'board', 'quit')")?.as_str() {
                "take" | "t" => break true,
                "drop" | "pass" | "p" => break false,
                "hint" => println!(
                    "hint: {} (your chance to win cubeless {:.3}; for the engine double/take {:+.3}, double/pass {:+.3})",
                    if d.take { "take" } else { "drop" },
                    1.0 - p[0],
                    d.double_take,
                    d.double_pass
                ),
                "auto" => {
                    println!("auto: {}", if d.take { "take" } else { "drop" });
                    break d.take;
                }
                "board" => {
                    self.show_board();
                    self.show_ids(None);
                }
                _ => println!("the engine has doubled: type 'take' or 'drop'"),
            }
        };
        if take && self.state.take().is_ok() {
            println!("you take: the cube is at {}, yours", self.state.cube());
            return Ok(None);
        }
        Ok(self.dropped())
    }

    /// The receiver of the pending double drops: the doubler wins the cube before the double.
    fn dropped(&mut self) -> Option<GameResult> {
        let doubler = self.state.on_roll();
        let cube = self.state.cube();
        let result = self.state.drop_double().ok()?;
        let (who, winner) = if doubler == self.human {
            ("the engine drops", "you win")
        } else {
            ("you drop", "the engine wins")
        };
        println!(
            "game over: {who} the double to {}; {winner} {}",
            2 * cube,
            points(result.points)
        );
        Some(result)
    }

    /// `mover` has borne off all checkers; the loser lost a `kind` game.
    fn win(&mut self, mover: usize, kind: GameKind) -> GameResult {
        let cube = self.state.cube();
        let jacoby = self.jacoby && cube == 1 && kind != GameKind::Single;
        let counted = if jacoby { GameKind::Single } else { kind };
        let who = if mover == self.human {
            "you win"
        } else {
            "the engine wins"
        };
        // A game in progress always accepts its end.
        let result = self.state.win(mover, counted).unwrap_or(GameResult {
            winner: mover,
            points: cube * counted.multiplier(),
            kind: Some(counted),
        });
        let note = if jacoby {
            format!(
                " ({} counted single: the cube was not turned, Jacoby rule)",
                kind_text(kind)
            )
        } else {
            String::new()
        };
        println!(
            "game over: {who} {}{note}, cube {cube}: {}",
            kind_text(counted),
            points(result.points)
        );
        result
    }

    /// The human's play of `dice`: typed, or the engine's with `auto`; `None` when no play is
    /// legal.
    fn human_play(&mut self, dice: Dice) -> Step<Option<Play>> {
        let plays = self.pos.plays(dice);
        match plays.as_slice() {
            [] => {
                println!("you cannot move");
                return Ok(None);
            }
            [only] => {
                println!("your only play: {}", only.notation());
                return Ok(Some(*only));
            }
            _ => {}
        }
        let prompt = format!("your play for {dice} ('moves', 'hint', 'auto', 'board', 'quit')");
        loop {
            match self.ask(&prompt)?.as_str() {
                "moves" => {
                    for p in &plays {
                        println!("  {}", p.notation());
                    }
                }
                "hint" => print!(
                    "{}",
                    ranked_text(&self.advisor.plays(&self.pos, dice), HINT_PLAYS)
                ),
                "auto" => {
                    let play = self.best_play(dice);
                    if let Some(p) = play {
                        println!("auto: you play {}", p.notation());
                    }
                    return Ok(play);
                }
                "board" => {
                    self.show_board();
                    self.show_ids(Some(dice));
                }
                "double" | "d" => println!(
                    "no double now: {}",
                    if self.cube {
                        denied_text(
                            self.state
                                .double_denied(self.human)
                                .unwrap_or(DoubleDenied::NotNow),
                        )
                    } else {
                        "this game is played without the cube"
                    }
                ),
                text => match self.pos.parse_play(dice, text) {
                    Ok(p) => return Ok(Some(p)),
                    Err(e) => println!("{e}; try again ('moves' lists the plays)"),
                },
            }
        }
    }

    /// The engine's play of `dice`, announced.
    fn engine_play(&self, dice: Dice) -> Option<Play> {
        let play = self.best_play(dice);
        match &play {
            Some(p) => println!("the engine plays {dice}: {}", p.notation()),
            None => println!("the engine rolls {dice} and cannot move"),
        }
        play
    }

    /// The engine's best play of `dice` for the player on roll.
    fn best_play(&self, dice: Dice) -> Option<Play> {
        self.advisor.best_play(&self.pos, dice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_game_is_new_unless_a_starting_point_is_given() {
        let dice = Dice::new(3, 1).expect("dice of 1 to 6");
        assert_eq!(FirstGame::new(false, None), FirstGame::New);
        assert_eq!(FirstGame::new(true, None), FirstGame::BeforeRoll);
        assert_eq!(FirstGame::new(true, Some(dice)), FirstGame::Rolled(dice));
    }
}
