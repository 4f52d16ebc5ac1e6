//! The one-shot backgammon commands: `show`, `moves`, `play --play`, `hint` and `baseline`.
//! They read their options through [`super::args`], ask the engine (the advisor for `hint`) and
//! print through [`super::render`].

use std::path::Path;
use std::time::Instant;

use tabula_api::backgammon::{
    BaselineReport, CheckedPlayReport, EvaluationReport, PlaysReport, ShowReport,
};
use tabula_api::build::backgammon::side_to_move;
use tabula_api::report::{MoveEntry, MovesReport};
use tabula_engine::backgammon::{Position, Side};
use tabula_gammon::advisor::{cube_state, Advisor, CubeAdvice};
use tabula_gammon::baseline::{versus_from_until, versus_until, Player};
use tabula_gammon::cube::DEFAULT_CUBE_EFFICIENCY;
use tabula_gammon::{equity as cubeless_equity, SearchOptions};

use super::args::{
    check_plies, dice_for, load_bearoff, load_net, rolled_dice, with_threads, Common,
    CubeRolloutArgs, EvaluatorArgs,
};
use super::render::{board_diagram, cube_advice, match_lines, print_json, ranked_text};
use crate::error::{CliError, CliResult};

/// `show`: the board, pip counts and match state.
pub(crate) fn show(common: &Common) -> CliResult {
    let input = common.input()?;
    let pos = input.position;
    if common.json {
        return print_json(&ShowReport::new(&pos, input.match_id.as_ref()));
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

/// `moves`: every legal play of the roll with the Position ID after it.
pub(crate) fn moves(common: &Common, dice: &Option<String>) -> CliResult {
    let input = common.input()?;
    let dice = dice_for(dice, &input)?;
    let plays = input.position.plays(dice);
    if common.json {
        return print_json(&MovesReport {
            game: "backgammon".into(),
            position: input.position.position_id(),
            side_to_move: side_to_move(input.match_id.as_ref()).into(),
            moves: plays
                .iter()
                .map(|p| MoveEntry {
                    mv: p.notation(),
                    position: p.result().position_id(),
                })
                .collect(),
        });
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

/// `play --play TEXT`: checks the play and prints it with the Position ID after it.
pub(crate) fn check_play(common: &Common, dice: &Option<String>, text: &str) -> CliResult {
    let input = common.input()?;
    let dice = dice_for(dice, &input)?;
    let play = input
        .position
        .parse_play(dice, text)
        .map_err(|e| CliError::bad_input(e.to_string()))?;
    if common.json {
        return print_json(&CheckedPlayReport {
            play: play.notation(),
            position: play.result().position_id(),
        });
    }
    println!("{}  {}", play.notation(), play.result().position_id());
    Ok(())
}

/// `hint`: the ranked plays of the dice, or before the roll the evaluation and cube decision.
pub(crate) fn hint(
    common: &Common,
    dice: &Option<String>,
    plies: u8,
    threads: u64,
    cube_rollouts: &CubeRolloutArgs,
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
    let rollouts = cube_rollouts.at(plies);
    let advisor =
        || Advisor::new(&eval, options, DEFAULT_CUBE_EFFICIENCY).with_cube_rollouts(rollouts);
    let Some(dice) = dice else {
        let state = cube_state(input.match_id.as_ref());
        let advice = with_threads(threads, || advisor().cube(&pos, &state))?;
        return print_evaluation(common.json, &pos, plies, &advice, started);
    };
    let ranked = with_threads(threads, || advisor().plays(&pos, dice))?;
    if common.json {
        return print_json(&PlaysReport::new(dice, plies, &ranked));
    }
    if ranked.is_empty() {
        println!("No legal play for {dice}.");
        return Ok(());
    }
    print!("{}", ranked_text(&ranked, ranked.len()));
    eprintln!("{:.3} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// `hint` before the roll: the evaluation and the cube decision.
fn print_evaluation(
    json: bool,
    pos: &Position,
    plies: u8,
    advice: &CubeAdvice,
    started: Instant,
) -> CliResult {
    if json {
        return print_json(&EvaluationReport::new(pos, plies, advice));
    }
    println!(
        "{} ({plies}-ply, player on roll): cubeless equity {:+.3}",
        pos.position_id(),
        cubeless_equity(&advice.probabilities)
    );
    println!("{}", cube_advice(advice));
    eprintln!("{:.3} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// `baseline`: the net (0-ply) against a simple opponent.
pub(crate) fn baseline(
    games: u64,
    from: Option<&Path>,
    seed: u64,
    opponent: &str,
    weights: Option<&Path>,
    bearoff: Option<&Path>,
    json: bool,
) -> CliResult {
    // Attaches the exact bear-offs of --bearoff, when given, to an evaluator.
    let table = bearoff
        .map(|p| load_bearoff(p).map(std::sync::Arc::new))
        .transpose()?;
    let exact = |eval: std::borrow::Cow<'static, tabula_gammon::Evaluator>| match &table {
        Some(t) => std::borrow::Cow::Owned(eval.into_owned().with_bearoff(t.clone())),
        None => eval,
    };
    let other;
    let (opp, name) = match opponent {
        "pip" | "pips" | "pip-count" => (Player::PipCount, "pip-count racer".to_string()),
        "random" => (Player::Random, "random player".to_string()),
        file if file.ends_with(".tnet") => {
            other = exact(load_net(Some(Path::new(file)))?);
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
    let starts = from.map(start_positions).transpose()?;
    let eval = exact(load_net(weights)?);
    let started = Instant::now();
    // Ctrl-C (or SIGTERM) ends the series after the game under way: what was played is
    // reported, and the exit code (130) says it was cut short.
    // A long series reports how far it is on stderr, every 10 s.
    let interrupt = crate::common::interrupt_flag();
    let planned = starts.as_ref().map_or(games, |s| 2 * s.len() as u64);
    let every = crate::common::progress_every();
    let (asked, last) = (
        std::cell::Cell::new(0u64),
        std::cell::Cell::new(Instant::now()),
    );
    let per_ask = if starts.is_some() { 2 } else { 1 };
    let stop = || {
        if last.get().elapsed() >= every {
            last.set(Instant::now());
            eprintln!("baseline: {} of {planned} games", asked.get() * per_ask);
        }
        asked.set(asked.get() + 1);
        interrupt.load(std::sync::atomic::Ordering::Relaxed)
    };
    let r = match &starts {
        Some(starts) => versus_from_until(Player::Net(&eval), opp, starts, seed, stop),
        None => versus_until(Player::Net(&eval), opp, games, seed, stop),
    };
    let stopped = r.games < planned;
    if json {
        return print_json(&BaselineReport {
            backgammons: r.backgammons,
            gammons: r.gammons,
            games: r.games,
            opponent: opponent.to_string(),
            points_per_game: r.ppg(),
            points_per_game_se: r.pair_se(),
            positions: starts.as_ref().map(|s| s.len() as u64),
            stopped,
            win_rate: r.win_rate(),
            wins: r.wins,
        });
    }
    let from = match (from, &starts) {
        (Some(path), Some(starts)) => format!(
            " (duplicate games from the {} positions of {}; {:+.4}{} points/game)",
            starts.len(),
            path.display(),
            r.ppg(),
            match r.pair_se() {
                Some(se) => format!(" ± {se:.4} (one standard error over the pairs)"),
                None => String::new(),
            }
        ),
        _ => String::new(),
    };
    println!(
        "net (0-ply) vs {name}{from}: {} wins of {} ({:.1}%), {:+.3} points/game, {} gammons, {} backgammons won{}",
        r.wins,
        r.games,
        100.0 * r.win_rate(),
        r.ppg(),
        r.gammons,
        r.backgammons,
        if stopped {
            format!(" (stopped after {} of {planned} games)", r.games)
        } else {
            String::new()
        }
    );
    eprintln!("{:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// The positions of `baseline --from FILE`: the first word of each line not blank and not
/// starting with `#`, a gnubg Position ID of a game still going on.
fn start_positions(path: &Path) -> Result<Vec<Position>, CliError> {
    let text = crate::common::read_text(path)
        .map_err(|e| CliError::bad_input(format!("--from {}: {e}", path.display())))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(id) = line.split_whitespace().next() else {
            continue;
        };
        if id.starts_with('#') {
            continue;
        }
        let bad = |why: String| {
            CliError::bad_input(format!("--from {} line {}: {why}", path.display(), n + 1))
        };
        let pos = Position::from_position_id(id)
            .map_err(|e| bad(format!("bad Position ID {id:?}: {e}")))?;
        if pos.is_game_over() {
            return Err(bad(format!("the game is over in {id}")));
        }
        out.push(pos);
    }
    if out.is_empty() {
        return Err(CliError::bad_input(format!(
            "--from {}: no positions",
            path.display()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_engine::backgammon::Dice;

    #[test]
    fn dice_are_read_from_the_option_or_the_match_id() {
        let common = Common {
            position: "4HPwATDgc/ABMA:cAkAAAAAAAAA".into(),
            match_id: None,
            json: false,
        };
        let input = common.input().unwrap();
        assert_eq!(rolled_dice(&None, &input).unwrap(), None);
        let d: Dice = "31".parse().unwrap();
        assert_eq!(rolled_dice(&Some("31".into()), &input).unwrap(), Some(d));
    }
}
