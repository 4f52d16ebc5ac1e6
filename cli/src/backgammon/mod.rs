//! `tabula backgammon …`: show positions, list and check plays, in gnubg's formats.

pub mod bearoff;
pub mod external;
pub mod game;
pub mod train;

use crate::error::{CliError, CliResult};
use clap::{Args as ClapArgs, Subcommand};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tabula_engine::backgammon::{met, Dice, MatchId, Position, Side, Xgid, BAR};
use tabula_gammon::baseline::{versus, Player};
use tabula_gammon::cube::{self, CubeAction, CubeDecision, CubeState, DEFAULT_CUBE_EFFICIENCY};
use tabula_gammon::search::{with_threads, MAX_PLIES};
use tabula_gammon::{
    equity as cubeless_equity, weights, Evaluator, NetFile, Probabilities, RankedPlay,
    SearchOptions, Searcher,
};

#[derive(ClapArgs, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the board with pip counts (and the match state when one is given).
    Show {
        #[command(flatten)]
        common: Common,
    },
    /// List every legal play for a roll in gnubg notation, with the Position ID after it.
    Moves {
        #[command(flatten)]
        common: Common,
        /// The roll, e.g. 31 (default: the dice of the XGID or Match ID, if rolled).
        #[arg(long, short)]
        dice: Option<String>,
    },
    /// With `--play`: check a play in gnubg notation and print the Position ID after it.
    /// Without: play against the engine in the terminal (money or a match, with the cube),
    /// from new games, or on from `--position` (with `--match-id`, `--dice`) for the first.
    Play {
        #[command(flatten)]
        common: Common,
        /// The roll, e.g. 31 (default: the dice of the XGID or Match ID, if rolled).
        #[arg(long, short)]
        dice: Option<String>,
        /// The play, e.g. "8/5 6/5", "bar/22*", "6/off", "8/5(2)".
        #[arg(long = "play", allow_hyphen_values = true)]
        play: Option<String>,
        #[command(flatten)]
        game: crate::backgammon::game::GameArgs,
    },
    /// Rank the plays of a roll with the neural net and expectimax (cubeless); without dice,
    /// evaluate the position for the player on roll.
    Hint {
        #[command(flatten)]
        common: Common,
        /// The roll, e.g. 31 (default: the dice of the XGID or Match ID, if rolled).
        #[arg(long, short)]
        dice: Option<String>,
        /// Plies of lookahead, 0 (the net alone) to 3 (3-ply takes seconds to a minute).
        #[arg(long, default_value_t = 2)]
        plies: u8,
        /// Search threads (0: one per core). The results do not depend on it.
        #[arg(long, default_value_t = 0)]
        threads: usize,
        #[command(flatten)]
        evaluator: EvaluatorArgs,
    },
    /// Train the evaluator by self-play TD(lambda), checkpointing to --out (FILE.tmp + rename).
    Train(train::TrainArgs),
    /// Serve GNU Backgammon's external-player protocol on a TCP socket (gnubg connects).
    External(crate::backgammon::external::ExternalArgs),
    /// Play the net (0-ply) against a simple baseline and report its results.
    Baseline {
        /// Games to play (the net rolls first in every other game).
        #[arg(long, default_value_t = 1000)]
        games: u64,
        /// Seed of the dice.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The opponent: `pip` (pip-count racer), `random`, or another weights file (`*.tnet`).
        #[arg(long, default_value = "pip")]
        opponent: String,
        /// Weights file (default: the shipped weights).
        #[arg(long)]
        weights: Option<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(ClapArgs, Debug)]
struct Common {
    /// gnubg Position ID (`4HPwATDgc/ABMA`), gnubg ID (`<position>:<match>`) or XGID
    /// (default: the opening position).
    #[arg(
        long,
        short,
        default_value = "4HPwATDgc/ABMA",
        allow_hyphen_values = true
    )]
    position: String,
    /// gnubg Match ID (`cAkAAAAAAAAA`) for the match state.
    #[arg(long = "match-id", short = 'm')]
    match_id: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// A position with the match state that came with it, if any.
struct Input {
    position: Position,
    match_id: Option<MatchId>,
}

impl Common {
    fn input(&self) -> Result<Input, CliError> {
        let text = self.position.trim();
        let (position, mut match_id) = if text.starts_with("XGID=") || text.len() > 40 {
            let x =
                Xgid::parse(text).map_err(|e| CliError::bad_input(format!("invalid XGID: {e}")))?;
            (x.position, Some(x.match_id()))
        } else if let Some((p, m)) = text.split_once(':') {
            (parse_position(p)?, Some(parse_match_id(m)?))
        } else {
            (parse_position(text)?, None)
        };
        if let Some(m) = &self.match_id {
            match_id = Some(parse_match_id(m)?);
        }
        Ok(Input { position, match_id })
    }
}

fn parse_position(id: &str) -> Result<Position, CliError> {
    Position::from_position_id(id)
        .map_err(|e| CliError::bad_input(format!("invalid Position ID {id:?}: {e}")))
}

fn parse_match_id(id: &str) -> Result<MatchId, CliError> {
    MatchId::decode(id).map_err(|e| CliError::bad_input(format!("invalid Match ID {id:?}: {e}")))
}

fn dice_for(arg: &Option<String>, input: &Input) -> Result<Dice, CliError> {
    match (arg, input.match_id) {
        (Some(d), _) => d
            .parse()
            .map_err(|e| CliError::bad_input(format!("invalid dice: {e}"))),
        (None, Some(m)) if m.dice.0 > 0 => Dice::new(m.dice.0, m.dice.1)
            .map_err(|e| CliError::bad_input(format!("invalid dice: {e}"))),
        _ => Err(CliError::bad_input("no dice: give --dice, e.g. --dice 31")),
    }
}

/// The dice when some were given (`--dice`, or rolled in the XGID or Match ID); `None` before
/// the roll.
fn rolled_dice(arg: &Option<String>, input: &Input) -> Result<Option<Dice>, CliError> {
    let rolled = arg.is_some() || input.match_id.is_some_and(|m| m.dice.0 > 0);
    rolled.then(|| dice_for(arg, input)).transpose()
}

/// `--plies` of the commands that search: at most [`MAX_PLIES`].
pub(crate) fn check_plies(plies: u8) -> CliResult {
    if plies > MAX_PLIES {
        return Err(CliError::bad_input(format!(
            "--plies {plies}: at most {MAX_PLIES}"
        )));
    }
    Ok(())
}

pub fn run(args: Args) -> CliResult {
    match args.command {
        Command::Show { common } => show(&common),
        Command::Moves { common, dice } => moves(&common, &dice),
        Command::Play {
            common,
            dice,
            play: Some(play),
            ..
        } => play_cmd(&common, &dice, &play),
        Command::Play {
            common,
            dice,
            play: None,
            game,
        } => {
            if common.json {
                return Err(CliError::bad_input(
                    "--json needs --play (the game against the engine is text only)",
                ));
            }
            let input = common.input()?;
            let dice = rolled_dice(&dice, &input)?;
            crate::backgammon::game::run(&game, input.position, input.match_id, dice)
        }
        Command::Hint {
            common,
            dice,
            plies,
            threads,
            evaluator,
        } => hint(&common, &dice, plies, threads, &evaluator),
        Command::Train(args) => train::train(&args),
        Command::External(args) => crate::backgammon::external::run(args),
        Command::Baseline {
            games,
            seed,
            opponent,
            weights,
            json,
        } => baseline(games, seed, &opponent, weights.as_deref(), json),
    }
}

/// The board in gnubg's text layout: the player on roll is X and moves from the top left
/// round to its home board at the bottom right; O is the opponent.
pub fn board_diagram(pos: &Position) -> String {
    board_diagram_as(pos, 'X', 'O')
}

/// [`board_diagram`] with the letters of the player on roll and of the opponent.
pub(crate) fn board_diagram_as(pos: &Position, mine: char, theirs: char) -> String {
    let me = pos.counts(Side::OnRoll);
    let opp = pos.counts(Side::Opponent);
    // (char, count) on X's point p.
    let cell = |p: usize| -> (char, u8) {
        if me[p - 1] > 0 {
            (mine, me[p - 1])
        } else if opp[24 - p] > 0 {
            (theirs, opp[24 - p])
        } else {
            (' ', 0)
        }
    };
    let mark = |p: usize, row: u8| -> String {
        let (c, n) = cell(p);
        if n > row && (row < 4 || n <= 5) {
            format!(" {c} ")
        } else if row == 4 && n > 5 {
            format!("{n:^3}")
        } else {
            "   ".to_string()
        }
    };
    let half = |points: [usize; 12], row: u8, bar: String| -> String {
        let left: String = points[..6].iter().map(|&p| mark(p, row)).collect();
        let right: String = points[6..].iter().map(|&p| mark(p, row)).collect();
        format!(" |{left}|{bar}|{right}|\n")
    };
    let top = [13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24];
    let bottom = [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1];
    let bar_cell = |c: char, n: u8, row: u8| -> String {
        if n > row {
            if row == 4 && n > 5 {
                format!("{n:^3}")
            } else {
                format!(" {c} ")
            }
        } else {
            "   ".to_string()
        }
    };
    let mut out = String::from(" +13-14-15-16-17-18------19-20-21-22-23-24-+\n");
    for row in 0..5 {
        out.push_str(&half(top, row, bar_cell(theirs, opp[BAR], row)));
    }
    out.push_str(" |                  |BAR|                  |\n");
    for row in (0..5).rev() {
        out.push_str(&half(bottom, row, bar_cell(mine, me[BAR], row)));
    }
    out.push_str(" +12-11-10--9--8--7-------6--5--4--3--2--1-+\n");
    out
}

fn side_json(pos: &Position, side: Side) -> serde_json::Value {
    json!({
        "pips": pos.pips(side),
        "bar": pos.bar(side),
        "off": pos.off(side),
        "points": pos.counts(side)[..24].to_vec(),
    })
}

fn match_lines(m: &MatchId) -> Vec<String> {
    let mut lines = Vec::new();
    let owner = match m.cube_owner {
        None => "centred".to_string(),
        Some(p) => format!("owned by player {p}"),
    };
    if m.match_length == 0 {
        lines.push(format!("Money game; cube {} {owner}", m.cube));
    } else {
        lines.push(format!(
            "Match to {}; score {}-{} (players 0-1); cube {} {owner}{}",
            m.match_length,
            m.score[0],
            m.score[1],
            m.cube,
            if m.crawford { "; Crawford game" } else { "" }
        ));
    }
    let dice = if m.dice.0 > 0 {
        format!(", rolled {}{}", m.dice.0, m.dice.1)
    } else {
        String::new()
    };
    lines.push(format!("Player {} on roll{dice}", m.on_roll));
    if let Some(eq) = equity(m) {
        lines.push(format!(
            "Match winning chance of player {} (Kazaross-XG2): {eq:.5}",
            m.on_roll
        ));
    }
    lines
}

/// Match winning chance of the player on roll before the game at this score.
fn equity(m: &MatchId) -> Option<f64> {
    if m.match_length == 0 {
        return None;
    }
    let away = |p: usize| m.match_length.checked_sub(m.score[p]);
    let me = m.on_roll as usize;
    let (a, b) = (away(me)?, away(1 - me)?);
    let post = !m.crawford && (a == 1 || b == 1);
    met::match_equity(a, b, post)
}

fn show(common: &Common) -> CliResult {
    let input = common.input()?;
    let pos = input.position;
    let xgid = Xgid::new(pos).to_string();
    if common.json {
        let mut v = json!({
            "position": pos.position_id(),
            "xgid": xgid,
            "on_roll": side_json(&pos, Side::OnRoll),
            "opponent": side_json(&pos, Side::Opponent),
        });
        if let Some(m) = input.match_id {
            v["match"] = json!({
                "match_id": m.encode(),
                "length": m.match_length,
                "score": m.score,
                "cube": m.cube,
                "cube_owner": m.cube_owner,
                "crawford": m.crawford,
                "on_roll": m.on_roll,
                "dice": [m.dice.0, m.dice.1],
                "match_equity": equity(&m),
            });
        }
        println!("{v}");
        return Ok(());
    }
    println!(" Position ID: {}", pos.position_id());
    if let Some(m) = input.match_id {
        println!(" Match ID   : {}", m.encode());
    }
    print!("{}", board_diagram(&pos));
    for (name, side) in [("X (on roll)", Side::OnRoll), ("O", Side::Opponent)] {
        println!(
            " {name}: pips {}, bar {}, off {}",
            pos.pips(side),
            pos.bar(side),
            pos.off(side)
        );
    }
    if let Some(m) = input.match_id {
        for line in match_lines(&m) {
            println!(" {line}");
        }
    }
    Ok(())
}

fn moves(common: &Common, dice: &Option<String>) -> CliResult {
    let input = common.input()?;
    let dice = dice_for(dice, &input)?;
    let plays = input.position.plays(dice);
    if common.json {
        let list: Vec<_> = plays
            .iter()
            .map(|p| json!({"play": p.notation(), "position": p.result().position_id()}))
            .collect();
        println!("{}", json!({ "moves": list }));
        return Ok(());
    }
    if plays.is_empty() {
        println!("No legal play for {dice}.");
    }
    let width = plays.iter().map(|p| p.notation().len()).max().unwrap_or(0);
    for p in &plays {
        println!("{:width$}  {}", p.notation(), p.result().position_id());
    }
    Ok(())
}

fn play_cmd(common: &Common, dice: &Option<String>, text: &str) -> CliResult {
    let input = common.input()?;
    let dice = dice_for(dice, &input)?;
    let play = input
        .position
        .parse_play(dice, text)
        .map_err(|e| CliError::bad_input(e.to_string()))?;
    if common.json {
        println!(
            "{}",
            json!({"play": play.notation(), "position": play.result().position_id()})
        );
    } else {
        println!("{}  {}", play.notation(), play.result().position_id());
    }
    Ok(())
}

/// The evaluator options of `hint`, `external` and `play`.
#[derive(ClapArgs, Debug)]
pub(crate) struct EvaluatorArgs {
    /// Weights file (default: the shipped weights).
    #[arg(long)]
    weights: Option<PathBuf>,
    /// The one-sided bearoff database for exact bear-off probabilities instead of the race net
    /// (`tabula tablebase build bearoff-os`; default: bearoff-os.tdb in $TABULA_CACHE_DIR,
    /// $XDG_CACHE_HOME/tabula or ~/.cache/tabula, built there on first use).
    #[arg(long)]
    bearoff: Option<PathBuf>,
    /// The net alone, also where both sides bear off (no bearoff database).
    #[arg(long = "no-bearoff", conflicts_with = "bearoff")]
    no_bearoff: bool,
}

impl EvaluatorArgs {
    /// The net, with exact bear-offs from `--bearoff FILE` (a bad file is an error), else from
    /// the cached database, unless `--no-bearoff`.
    pub(crate) fn load(&self) -> Result<std::borrow::Cow<'static, Evaluator>, CliError> {
        let eval = load_net(self.weights.as_deref())?;
        if self.no_bearoff {
            return Ok(eval);
        }
        let table = match &self.bearoff {
            Some(p) => tabula_tablebase::bearoff::OneSided::load(p).map_err(|e| {
                CliError::bad_input(format!("bearoff database {}: {e}", p.display()))
            })?,
            None => crate::backgammon::bearoff::cached(),
        };
        Ok(std::borrow::Cow::Owned(
            eval.into_owned().with_bearoff(std::sync::Arc::new(table)),
        ))
    }
}

/// The net alone: from `--weights FILE`, or the shipped one.
fn load_net(path: Option<&Path>) -> Result<std::borrow::Cow<'static, Evaluator>, CliError> {
    match path {
        Some(p) => NetFile::load(p)
            .map(|f| std::borrow::Cow::Owned(f.evaluator))
            .map_err(|e| CliError::bad_input(format!("weights {}: {e}", p.display()))),
        None => weights::builtin()
            .map(std::borrow::Cow::Borrowed)
            .map_err(|e| CliError::bad_input(format!("built-in weights: {e}"))),
    }
}

fn baseline(
    games: u64,
    seed: u64,
    opponent: &str,
    weights: Option<&Path>,
    json: bool,
) -> CliResult {
    let other;
    let (opp, name) = match opponent {
        "pip" | "pips" | "pip-count" => (Player::PipCount, "pip-count racer".to_string()),
        "random" => (Player::Random, "random player".to_string()),
        file if file.ends_with(".tnet") => {
            other = load_net(Some(Path::new(file)))?;
            (Player::Net(&other), format!("net {file} (0-ply)"))
        }
        other => {
            return Err(CliError::bad_input(format!(
                "unknown opponent {other:?}: expected pip, random or a .tnet weights file"
            )))
        }
    };
    if games == 0 {
        return Err(CliError::bad_input("--games must be at least 1"));
    }
    let eval = load_net(weights)?;
    let started = Instant::now();
    let r = versus(Player::Net(&eval), opp, games, seed);
    if json {
        println!(
            "{}",
            json!({
                "opponent": opponent,
                "games": r.games,
                "wins": r.wins,
                "win_rate": r.win_rate(),
                "points_per_game": r.ppg(),
                "gammons": r.gammons,
                "backgammons": r.backgammons,
            })
        );
    } else {
        println!(
            "net (0-ply) vs {name}: {} wins of {} ({:.1}%), {:+.3} points/game, {} gammons, {} backgammons won",
            r.wins,
            r.games,
            100.0 * r.win_rate(),
            r.ppg(),
            r.gammons,
            r.backgammons
        );
        eprintln!("{:.1} s", started.elapsed().as_secs_f64());
    }
    Ok(())
}

fn probabilities_text(p: &Probabilities) -> String {
    format!(
        "win {:.3} (g {:.3} bg {:.3})  lose {:.3} (g {:.3} bg {:.3})",
        p[0],
        p[1],
        p[2],
        1.0 - p[0],
        p[3],
        p[4]
    )
}

/// The cube as the Match ID (or XGID) describes it, seen from the player on roll; a centred
/// money cube without one.
pub(crate) fn cube_state(match_id: Option<MatchId>) -> CubeState {
    match match_id {
        None => CubeState::money(),
        Some(m) => CubeState::for_player(
            usize::from(m.on_roll.min(1)),
            m.cube,
            m.cube_owner.map(usize::from),
            m.match_length,
            m.score,
            m.crawford,
            m.jacoby,
        ),
    }
}

/// The engine's cube decision for the player on roll of `pos` (before the roll): its cubeless
/// evaluation `plies` ahead through [`cube::decide`] with cube efficiency `x`.
pub(crate) fn cube_decision(
    searcher: &Searcher,
    pos: &Position,
    plies: u8,
    state: &CubeState,
    x: f64,
) -> (Probabilities, CubeDecision) {
    let p = searcher.evaluate(pos, plies);
    (p, cube::decide(&p, state, x))
}

/// Whether the decision is to double (the opponent taking or not); too good plays on.
pub(crate) fn offers_double(d: &CubeDecision) -> bool {
    matches!(d.action, CubeAction::DoubleTake | CubeAction::DoublePass)
}

/// The cube decision in words.
fn cube_action_text(d: &CubeDecision) -> &'static str {
    match (d.may_double, d.action) {
        (false, _) => "no double (the cube is not available)",
        (true, CubeAction::NoDouble) => "no double",
        (true, CubeAction::DoubleTake) => "double, take",
        (true, CubeAction::DoublePass) => "double, pass",
        (true, CubeAction::TooGood) => "too good to double, pass",
    }
}

/// The cubeless chances and the cube decision of the player on roll, two indented lines.
pub(crate) fn cube_advice(p: &Probabilities, d: &CubeDecision) -> String {
    format!(
        "  {}\n  cube: {}; the opponent should {} (cubeful: no double {:+.3}, double/take {:+.3}, double/pass {:+.3})",
        probabilities_text(p),
        cube_action_text(d),
        if d.take { "take" } else { "pass" },
        d.no_double,
        d.double_take,
        d.double_pass
    )
}

/// The first `limit` ranked plays, best first, two lines each: the play with its depth and
/// equity (and its difference from the best), then its chances.
pub(crate) fn ranked_text(ranked: &[RankedPlay], limit: usize) -> String {
    let shown = &ranked[..ranked.len().min(limit)];
    let width = shown
        .iter()
        .map(|r| r.play.notation().len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (n, r) in shown.iter().enumerate() {
        let diff = if n == 0 {
            String::new()
        } else {
            format!(" ({:+.3})", r.equity - ranked[0].equity)
        };
        out.push_str(&format!(
            "{:>3}. {:width$}  {}-ply  eq {:+.3}{diff}\n     {}\n",
            n + 1,
            r.play.notation(),
            r.plies,
            r.equity,
            probabilities_text(&r.probabilities)
        ));
    }
    out
}

/// Rounds for JSON: 6 decimals are plenty, and keep the output short.
fn round6(x: f32) -> f64 {
    (x as f64 * 1e6).round() / 1e6
}

fn hint(
    common: &Common,
    dice: &Option<String>,
    plies: u8,
    threads: usize,
    evaluator: &EvaluatorArgs,
) -> CliResult {
    check_plies(plies)?;
    let input = common.input()?;
    let dice = rolled_dice(dice, &input)?;
    // After the checks: a typo should not wait for a bearoff database to be built.
    let eval = evaluator.load()?;
    let pos = input.position;
    let options = SearchOptions {
        plies,
        ..SearchOptions::default()
    };
    let started = Instant::now();
    let Some(dice) = dice else {
        let (p, d) = with_threads(threads, || {
            let searcher = Searcher::new(&eval, options);
            let state = cube_state(input.match_id);
            cube_decision(&searcher, &pos, plies, &state, DEFAULT_CUBE_EFFICIENCY)
        })
        .map_err(CliError::internal)?;
        if common.json {
            println!(
                "{}",
                json!({
                    "plies": plies,
                    "position": pos.position_id(),
                    "equity": round6(cubeless_equity(&p)),
                    "probabilities": p.map(round6),
                    "cube": {
                        "action": cube_action_text(&d),
                        "take": d.take,
                        "no_double": d.no_double,
                        "double_take": d.double_take,
                        "double_pass": d.double_pass,
                    },
                })
            );
        } else {
            println!(
                "{} ({plies}-ply, player on roll): cubeless equity {:+.3}",
                pos.position_id(),
                cubeless_equity(&p)
            );
            println!("{}", cube_advice(&p, &d));
            eprintln!("{:.3} s", started.elapsed().as_secs_f64());
        }
        return Ok(());
    };
    let ranked = with_threads(threads, || Searcher::new(&eval, options).rank(&pos, dice))
        .map_err(CliError::internal)?;
    if common.json {
        let moves: Vec<_> = ranked
            .iter()
            .map(|r| {
                json!({
                    "play": r.play.notation(),
                    "equity": round6(r.equity),
                    "probabilities": r.probabilities.map(round6),
                    "plies": r.plies,
                })
            })
            .collect();
        println!(
            "{}",
            json!({"plies": plies, "dice": dice.to_string(), "moves": moves})
        );
        return Ok(());
    }
    if ranked.is_empty() {
        println!("No legal play for {dice}.");
        return Ok(());
    }
    print!("{}", ranked_text(&ranked, ranked.len()));
    eprintln!("{:.3} s", started.elapsed().as_secs_f64());
    Ok(())
}
