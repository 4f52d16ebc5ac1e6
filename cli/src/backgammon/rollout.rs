//! `tabula backgammon rollout`: Monte-Carlo rollouts of a position, or of the candidate plays
//! of a roll side by side, through [`tabula_gammon::rollout`]; with `--cubeful`, the cube is
//! played in every trial (money, or the Match ID's score and cube) and, without dice, the cube
//! actions (no double, double/take, double/pass) are ranked. Progress on stderr, Ctrl-C stops
//! and reports the trials finished (exit code 130).

use std::time::{Duration, Instant};

use clap::Args as ClapArgs;
use tabula_api::backgammon::{
    RolloutCubeActionReport, RolloutCubeReport, RolloutCubefulReport, RolloutEntryReport,
    RolloutEstimateReport, RolloutReport,
};
use tabula_engine::backgammon::{Dice, GameState, MatchState, Play, Position};
use tabula_gammon::advisor::cube_state;
use tabula_gammon::cube::CubeState;
use tabula_gammon::rollout::{
    candidates, CubeRollout, CubefulEstimate, Estimate, Progress, Rollout, RolloutOptions,
    RolloutResult,
};
use tabula_gammon::Evaluator;

use super::args::{check_plies, rolled_dice, with_threads, Common, EvaluatorArgs, Input};
use super::render::print_json;
use crate::common::{interrupt_flag, millis};
use crate::error::{CliError, CliResult};

/// The options of `rollout`.
#[derive(ClapArgs, Debug)]
pub struct RolloutArgs {
    #[command(flatten)]
    common: Common,
    /// The roll whose plays to compare, e.g. 31 (default: the dice of the XGID or Match ID, if
    /// rolled); without, the position is rolled out for the player on roll, before the roll.
    #[arg(long, short)]
    dice: Option<String>,
    /// Games played out per position or play.
    #[arg(long, default_value_t = 1296, value_parser = crate::common::parse_positive::<u64>)]
    trials: u64,
    /// Plies (turns) played before the evaluator scores the position (default: to the end).
    #[arg(long, value_parser = crate::common::parse_positive::<u32>)]
    truncate: Option<u32>,
    /// The players' search depth, 0 (the net alone) to 3.
    #[arg(long, default_value_t = 0)]
    plies: u8,
    /// With dice: roll out the best N plays by the net (0-ply); 0 for every legal play.
    #[arg(long, default_value_t = 5)]
    candidates: usize,
    /// Cubeful rollouts: the cube played in every trial (money, or the score and cube of the
    /// Match ID); without dice, the cube actions are ranked.
    #[arg(long)]
    cubeful: bool,
    /// Plain means only: no luck correction (variance reduction).
    #[arg(long = "no-luck-correction")]
    no_luck_correction: bool,
    /// Seed of the dice. The results depend on it and on --trials, not on --threads.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads, 1 to 256. The results do not depend on it.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
    #[command(flatten)]
    evaluator: EvaluatorArgs,
}

/// `rollout`.
pub(crate) fn rollout(args: &RolloutArgs) -> CliResult {
    check_plies(args.plies)?;
    let input = args.common.input()?;
    let dice = rolled_dice(&args.dice, &input)?;
    let cube = cube_for(args, &input)?;
    // After the checks: a typo should not wait for a bearoff database to be built.
    let eval = args.evaluator.load()?;
    let pos = input.position;
    let options = RolloutOptions {
        trials: args.trials,
        truncate: args.truncate,
        plies: args.plies,
        seed: args.seed,
        luck_correction: !args.no_luck_correction,
        stratify: true,
        cube,
        ..RolloutOptions::default()
    };
    let started = Instant::now();
    let mut report = if cube.is_some() && dice.is_none() {
        let r = run_cube(args, &eval, &pos, options)?;
        let results = [(None, r.no_double.clone())];
        let mut report = build_report(args, &pos, dice, options, &results, r.stopped, started);
        report.cube = Some(cube_report(&r));
        report
    } else {
        let plays = dice.map(|d| candidates(&eval, &pos, d, args.candidates));
        let (results, stopped) = run_trials(args, &eval, &pos, plays.as_deref(), options)?;
        build_report(args, &pos, dice, options, &results, stopped, started)
    };
    if cube.is_some() {
        report.match_id = input.match_id.map(|m| m.encode());
    }
    if args.common.json {
        return print_json(&report);
    }
    print!("{}", report_text(&report));
    eprintln!("{:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// With `--cubeful`: the cube of the player on roll (money with a centred cube without a Match
/// ID), after checking that the Match ID describes a game being played.
fn cube_for(args: &RolloutArgs, input: &Input) -> Result<Option<CubeState>, CliError> {
    if !args.cubeful {
        return Ok(None);
    }
    if let Some(m) = &input.match_id {
        let state = MatchState::from_match_id(m)
            .map_err(|e| CliError::bad_input(format!("--cubeful: Match ID: {e}")))?;
        if state.is_match_over() || m.game_state != GameState::Playing {
            return Err(CliError::bad_input(
                "--cubeful: the Match ID's game is not being played (finished or not started)",
            ));
        }
        if m.doubled {
            return Err(CliError::bad_input(
                "--cubeful: a double is pending in the Match ID; roll out the position before it",
            ));
        }
    }
    Ok(Some(cube_state(input.match_id.as_ref())))
}

/// The cube actions' rollouts on `--threads` threads, with progress on stderr.
fn run_cube(
    args: &RolloutArgs,
    eval: &Evaluator,
    pos: &Position,
    options: RolloutOptions,
) -> Result<CubeRollout, CliError> {
    let stop = interrupt_flag();
    let names = ["no double".to_string(), "double, take".to_string()];
    let mut last = Instant::now();
    let mut progress = |p: &Progress| {
        if p.done == p.total || last.elapsed() >= Duration::from_secs(1) {
            last = Instant::now();
            eprintln!("{}", progress_line(p, &names));
        }
    };
    with_threads(args.threads, || {
        Rollout::new(eval, options).cube_decision(pos, Some(stop), &mut progress)
    })
}

/// A rollout's result with its play's name (none for the position itself).
type Named = (Option<String>, RolloutResult);

/// The rollout of the position (no plays) or of each play, on `--threads` threads, with
/// progress on stderr at most once a second: each result with its play's name, and whether
/// Ctrl-C stopped it early.
fn run_trials(
    args: &RolloutArgs,
    eval: &Evaluator,
    pos: &Position,
    plays: Option<&[Play]>,
    options: RolloutOptions,
) -> Result<(Vec<Named>, bool), CliError> {
    let stop = interrupt_flag();
    let mut last = Instant::now();
    let names: Vec<String> = plays
        .iter()
        .copied()
        .flatten()
        .map(|p| p.notation())
        .collect();
    let mut progress = |p: &Progress| {
        let finished = p.done == p.total;
        if !finished && last.elapsed() < Duration::from_secs(1) {
            return;
        }
        last = Instant::now();
        eprintln!("{}", progress_line(p, &names));
    };
    with_threads(args.threads, || {
        let rollout = Rollout::new(eval, options);
        match plays {
            None => {
                let r = rollout.position(pos, Some(stop), &mut progress);
                (vec![(None, r.result)], r.stopped)
            }
            Some(plays) => {
                let r = rollout.plays(plays, Some(stop), &mut progress);
                let results = r
                    .plays
                    .into_iter()
                    .map(|p| (Some(p.play.notation()), p.result))
                    .collect();
                (results, r.stopped)
            }
        }
    })
}

/// The report of a finished (or stopped) rollout.
fn build_report(
    args: &RolloutArgs,
    pos: &Position,
    dice: Option<Dice>,
    options: RolloutOptions,
    results: &[Named],
    stopped: bool,
    started: Instant,
) -> RolloutReport {
    let trials = results.first().map_or(0, |r| r.1.trials);
    let best = results.first().map(|r| r.1.clone());
    let entries: Vec<RolloutEntryReport> = results
        .iter()
        .map(|(play, r)| entry(play.clone(), r, best.as_ref().filter(|_| play.is_some())))
        .collect();
    RolloutReport {
        position: pos.position_id(),
        dice: dice.map(|d| d.to_string()),
        trials,
        trials_requested: args.trials,
        truncate: args.truncate,
        plies: args.plies,
        seed: args.seed,
        luck_correction: options.luck_correction,
        stratified: options.stratify,
        cubeful: options.cube.is_some(),
        match_id: None,
        cube: None,
        stopped,
        time_ms: millis(started.elapsed()),
        rollout: if dice.is_none() {
            entries.first().cloned()
        } else {
            None
        },
        moves: if dice.is_some() { entries } else { Vec::new() },
    }
}

/// One line of progress: trials done and the current estimate (of the best play so far).
fn progress_line(p: &Progress, names: &[String]) -> String {
    let values: Vec<(f64, f64)> = if p.cubeful.is_empty() {
        p.estimates
            .iter()
            .map(|e| (e.equity, e.equity_se))
            .collect()
    } else {
        p.cubeful.iter().map(|e| (e.equity, e.equity_se)).collect()
    };
    let best = values
        .iter()
        .enumerate()
        .max_by(|a, b| a.1 .0.total_cmp(&b.1 .0).then(b.0.cmp(&a.0)));
    let mut line = format!("rollout: {}/{} trials", p.done, p.total);
    if let Some((i, (e, se))) = best {
        let name = names.get(i).map(|n| format!("{n} ")).unwrap_or_default();
        let kind = if p.cubeful.is_empty() { "" } else { "cubeful " };
        line.push_str(&format!(", {name}{kind}{e:+.3} ± {se:.3}"));
    }
    line
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn estimate_report(e: &Estimate) -> RolloutEstimateReport {
    RolloutEstimateReport {
        equity: round6(e.equity),
        equity_se: round6(e.equity_se),
        probabilities: e.probabilities.map(round6),
        probabilities_se: e.probabilities_se.map(round6),
    }
}

/// A rollout's entry; with `best`, the difference from the best play.
fn entry(
    play: Option<String>,
    r: &RolloutResult,
    best: Option<&RolloutResult>,
) -> RolloutEntryReport {
    let diff = best.map(|b| r.difference(b));
    RolloutEntryReport {
        play,
        estimate: estimate_report(r.estimate()),
        plain: estimate_report(&r.plain),
        difference: diff.map(|d| round6(d.0)),
        difference_se: diff.map(|d| round6(d.1)),
        cubeful: r.cubeful.as_ref().map(cubeful_report),
    }
}

fn cubeful_report(c: &CubefulEstimate) -> RolloutCubefulReport {
    RolloutCubefulReport {
        equity: round6(c.equity),
        equity_se: round6(c.equity_se),
        plain_equity: round6(c.plain_equity),
        plain_equity_se: round6(c.plain_equity_se),
        match_winning_chance: c.match_winning_chance.map(|m| round6(m.0)),
        match_winning_chance_se: c.match_winning_chance.map(|m| round6(m.1)),
    }
}

/// The cube actions ranked: no double, double/take and double/pass (the last two only when
/// the player may double), each with its difference from the proper action.
fn cube_report(r: &CubeRollout) -> RolloutCubeReport {
    let diffs = r.differences();
    let mut actions = Vec::new();
    let rolled = [Some(&r.no_double), r.double_take.as_ref()];
    for ((name, result), diff) in ["no double", "double, take"].iter().zip(rolled).zip(diffs) {
        let (Some(c), Some(d)) = (result.and_then(|x| x.cubeful), diff) else {
            continue;
        };
        actions.push(RolloutCubeActionReport {
            action: name.to_string(),
            equity: round6(c.equity),
            equity_se: round6(c.equity_se),
            match_winning_chance: c.match_winning_chance.map(|m| round6(m.0)),
            difference: round6(d.0),
            difference_se: round6(d.1),
        });
    }
    if let (Some(_), Some(d)) = (&r.double_take, diffs[2]) {
        actions.push(RolloutCubeActionReport {
            action: "double, pass".to_string(),
            equity: r.double_pass,
            equity_se: 0.0,
            match_winning_chance: r.double_pass_mwc.map(round6),
            difference: round6(d.0),
            difference_se: round6(d.1),
        });
    }
    RolloutCubeReport {
        action: r.action_text().to_string(),
        may_double: r.may_double,
        take: r.take(),
        actions,
    }
}

/// The chances of an estimate as percentages, gnubg style.
fn chances(e: &RolloutEstimateReport) -> String {
    let p = e.probabilities.map(|x| 100.0 * x);
    format!(
        "win {:5.1}% (g {:4.1}% bg {:4.1}%)  lose g {:4.1}% bg {:4.1}%",
        p[0], p[1], p[2], p[3], p[4]
    )
}

/// The report as text.
fn report_text(r: &RolloutReport) -> String {
    let mut out = header_text(r);
    if let Some(e) = &r.rollout {
        let what = if r.cube.is_some() { " (no double)" } else { "" };
        out.push_str(&format!(
            "  player on roll{what}: {}equity {:+.3} ± {:.3}  {}\n",
            if r.cubeful { "cubeless " } else { "" },
            e.estimate.equity,
            e.estimate.equity_se,
            chances(&e.estimate)
        ));
    }
    if let Some(c) = &r.cube {
        out.push_str(&cube_text(c));
    }
    if r.dice.is_some() && r.moves.is_empty() {
        out.push_str("  No legal play.\n");
    }
    out.push_str(&moves_text(&r.moves));
    out
}

/// The first line: what was rolled out and how.
fn header_text(r: &RolloutReport) -> String {
    let depth = match r.truncate {
        Some(n) => format!("truncated after {n} plies"),
        None => "to the end".to_string(),
    };
    let luck = if r.luck_correction {
        "luck-corrected"
    } else {
        "plain means"
    };
    let cube = match (r.cubeful, &r.match_id) {
        (false, _) => "cubeless".to_string(),
        (true, None) => "cubeful, money".to_string(),
        (true, Some(m)) => format!("cubeful, Match ID {m}"),
    };
    format!(
        "Rollout of {}{}: {} of {} trials{}, {}-ply players, {depth}, seed {}, {luck} ({cube})\n",
        r.position,
        r.dice
            .as_ref()
            .map(|d| format!(" with {d}"))
            .unwrap_or_default(),
        r.trials,
        r.trials_requested,
        if r.stopped { " (stopped)" } else { "" },
        r.plies,
        r.seed
    )
}

/// The cube actions, each with its difference from the proper one, and the proper action.
fn cube_text(c: &RolloutCubeReport) -> String {
    let mut out = String::from("  Cube actions (cubeful equity, double/pass = +1):\n");
    for (i, a) in c.actions.iter().enumerate() {
        let se = if a.equity_se > 0.0 || i < 2 {
            format!(" ± {:.3}", a.equity_se)
        } else {
            "        ".to_string()
        };
        let mwc = a
            .match_winning_chance
            .map(|m| format!("  MWC {:5.1}%", 100.0 * m))
            .unwrap_or_default();
        out.push_str(&format!(
            "    {:12}  {:+.3}{se}{mwc}  ({:+.3} ± {:.3})\n",
            a.action, a.equity, a.difference, a.difference_se
        ));
    }
    out.push_str(&format!("  Proper cube action: {}\n", c.action));
    out
}

/// The plays, best first, with their differences from the best.
fn moves_text(moves: &[RolloutEntryReport]) -> String {
    let width = moves
        .iter()
        .filter_map(|m| m.play.as_ref().map(String::len))
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (i, m) in moves.iter().enumerate() {
        let diff = match (i, m.difference, m.difference_se) {
            (0, ..) => String::new(),
            (_, Some(d), Some(se)) => format!("  ({d:+.3} ± {se:.3})"),
            _ => String::new(),
        };
        let cubeful = m
            .cubeful
            .as_ref()
            .map(|c| format!("cubeful {:+.3} ± {:.3}  cubeless ", c.equity, c.equity_se))
            .unwrap_or_default();
        out.push_str(&format!(
            "{:3}. {:width$}  {cubeful}{:+.3} ± {:.3}  {}{diff}\n",
            i + 1,
            m.play.as_deref().unwrap_or(""),
            m.estimate.equity,
            m.estimate.equity_se,
            chances(&m.estimate)
        ));
    }
    out
}
