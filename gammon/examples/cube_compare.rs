//! The advisor's cube decisions with the cubeless n-ply probabilities converted at the root
//! (before issue 16) and with the cubeful n-ply search, side by side, on a fixed set of
//! positions (a few built by hand, the rest from seeded 0-ply self-play) and cube states.
//!
//! ```sh
//! cargo run --release -p tabula-gammon --example cube_compare -- [PLIES...]
//! ```
//!
//! Prints one line per position, cube state and depth, then a summary. Exact bear-offs from a
//! one-sided database built at the start.
//!
//! ```sh
//! cargo run --release -p tabula-gammon --example cube_compare -- exact CHECKERS [PLIES...]
//! ```
//!
//! judges both against the exact cubeful values of every bear-off with `CHECKERS` checkers a
//! side on the six home points, for money and three match scores (solved here by a cubeful
//! expectimax to the end of the game, both sides playing and doubling perfectly). Errors are
//! per decision: money in points per cube, match in MWC.
//!
//! ```sh
//! cargo run --release -p tabula-gammon --example cube_compare -- fit CHECKERS
//! ```
//!
//! fits Janowski's cube efficiency `x` to those exact money values (least squares per cube
//! owner and by the pip count of the player on roll; see [`cube::BEAROFF_CUBE_EFFICIENCY`]).
//!
//! ```sh
//! cargo run --release -p tabula-gammon --example cube_compare -- exact-ids ID[:MATCH_ID]... [PLIES...]
//! ```
//!
//! solves the given bear-offs exactly (gnubg Position and Match IDs, every checker home; small
//! ones only: the memoised solve grows fast) and prints the advisor's decisions beside.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use tabula_engine::backgammon::MatchId;
use tabula_engine::backgammon::{Position, Side};
use tabula_engine::ChanceGame;
use tabula_gammon::advisor::{cube_state, Advisor};
use tabula_gammon::baseline::roll;
use tabula_gammon::cube::{self, DEFAULT_CUBE_EFFICIENCY};
use tabula_gammon::cube::{CubeDecision, CubeOwner, CubeState, MatchScore};
use tabula_gammon::net::game_over;
use tabula_gammon::search::MAX_PLIES;
use tabula_gammon::{weights, Evaluator, Rng, SearchOptions};
use tabula_tablebase::bearoff::OneSided;

/// Tabula's advisor searching `plies` deep, otherwise at its defaults but for the back games'
/// cube rollouts: this compares the search's cube with the root conversion.
fn advisor_at(eval: &Evaluator, plies: u8) -> Advisor<'_> {
    Advisor::new(
        eval,
        SearchOptions {
            plies,
            ..SearchOptions::default()
        },
        DEFAULT_CUBE_EFFICIENCY,
    )
    .with_cube_rollouts(None)
}

fn counts(me: &[(usize, u8)], them: &[(usize, u8)]) -> Position {
    let mut a = [0u8; 25];
    let mut b = [0u8; 25];
    for &(p, n) in me {
        a[p - 1] = n;
    }
    for &(p, n) in them {
        b[p - 1] = n;
    }
    Position::from_counts(a, b).expect("position")
}

fn short(action: &str) -> &'static str {
    match action {
        "no double" => "ND",
        "double, take" => "DT",
        "double, pass" => "DP",
        "too good to double, pass" => "TG",
        _ => "--",
    }
}

fn row(d: &CubeDecision) -> String {
    format!(
        "{:+.3} {:+.3} {:+.3} {} {}",
        d.no_double,
        d.double_take,
        d.double_pass,
        short(d.action_text()),
        if d.take { "take" } else { "pass" }
    )
}

/// Exact cubeful values (money per cube unit, match MWC) of bear-offs, memoised by position
/// and cube state.
#[derive(Default)]
struct Exact {
    memo: HashMap<(u128, CubeState), f64>,
}

impl Exact {
    /// No double now; every later play and cube action perfect.
    fn no_double(&mut self, pos: &Position, state: &CubeState) -> f64 {
        if let Some(p) = game_over(pos) {
            // A finished game: the cubeful value is its result.
            return cube::cubeful(&p, state, 0.0);
        }
        let key = (pos.chance_key(), *state);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let theirs = cube::flipped(state);
        let mut total = 0.0;
        let mut results = Vec::new();
        for &(dice, w) in Position::rolls() {
            pos.results_of(dice, &mut results);
            if results.is_empty() {
                results.push(pos.pass());
            }
            let children = results.clone();
            let best = children
                .iter()
                .map(|c| {
                    let v = self.acting(c, &theirs);
                    if state.match_score.is_some() {
                        1.0 - v
                    } else {
                        -v
                    }
                })
                .fold(f64::NEG_INFINITY, f64::max);
            total += f64::from(w) / 36.0 * best;
        }
        self.memo.insert(key, total);
        total
    }

    /// Double/take for the doubler, in the decision's units.
    fn double_take(&mut self, pos: &Position, state: &CubeState) -> f64 {
        let v = self.no_double(pos, &cube::doubled(state));
        if state.match_score.is_some() {
            v
        } else {
            2.0 * v
        }
    }

    /// The player on roll's cube action taken.
    fn acting(&mut self, pos: &Position, state: &CubeState) -> f64 {
        let nd = self.no_double(pos, state);
        if !state.may_double() || game_over(pos).is_some() {
            return nd;
        }
        let dt = self.double_take(pos, state);
        nd.max(dt.min(cube::double_pass(state)))
    }
}

/// Every board of `n` checkers on the six home points.
fn boards(n: u8) -> Vec<[u8; 6]> {
    let mut out = Vec::new();
    let mut b = [0u8; 6];
    fn rec(i: usize, left: u8, b: &mut [u8; 6], out: &mut Vec<[u8; 6]>) {
        if i == 5 {
            b[5] = left;
            out.push(*b);
            return;
        }
        for k in 0..=left {
            b[i] = k;
            rec(i + 1, left - k, b, out);
        }
    }
    rec(0, n, &mut b, &mut out);
    out
}

/// Old and new decisions against the exact ones on every bear-off of `n` checkers a side.
fn judge(eval: &Evaluator, n: u8, plies: &[u8], state: CubeState) {
    let mut exact = Exact::default();
    let mut positions = Vec::new();
    for me in boards(n) {
        for them in boards(n) {
            let (mut a, mut b) = ([0u8; 25], [0u8; 25]);
            a[..6].copy_from_slice(&me);
            b[..6].copy_from_slice(&them);
            positions.push(Position::from_counts(a, b).expect("bear-off"));
        }
    }
    let t = Instant::now();
    let truth: Vec<(f64, f64)> = positions
        .iter()
        .map(|p| (exact.no_double(p, &state), exact.double_take(p, &state)))
        .collect();
    let dp = cube::double_pass(&state);
    let doubles = truth.iter().filter(|(nd, dt)| dt.min(dp) > *nd).count();
    println!(
        "{} positions ({n} checkers a side), {state:?}: exact in {:.1} s; exact action double in {doubles}",
        positions.len(),
        t.elapsed().as_secs_f64()
    );
    println!("| plies | method | mean abs ND error | mean abs DT error | wrong doubles | doubling error (mp/decision) | wrong takes/passes | take error (mp/decision) |");
    println!("|---|---|---|---|---|---|---|---|");
    for &k in plies {
        let advisor = advisor_at(eval, k);
        for (name, new) in [
            ("cubeless root (old)", false),
            ("cubeful n-ply (new)", true),
        ] {
            let (mut end, mut edt, mut wd, mut ed, mut wt, mut et) = (0.0, 0.0, 0, 0.0, 0, 0.0);
            for (pos, &(nd, dt)) in positions.iter().zip(&truth) {
                let d = if new {
                    advisor.cube(pos, &state).decision
                } else {
                    advisor.cube_cubeless_root(pos, &state).decision
                };
                end += (d.no_double - nd).abs();
                edt += (d.double_take - dt).abs();
                let best = nd.max(dt.min(dp));
                let chosen = if d.offers_double() { dt.min(dp) } else { nd };
                if best - chosen > 1e-9 {
                    wd += 1;
                    ed += best - chosen;
                }
                let answer = if d.take { dt } else { dp };
                if answer - dt.min(dp) > 1e-9 {
                    wt += 1;
                    et += answer - dt.min(dp);
                }
            }
            let m = positions.len() as f64;
            println!(
                "| {k} | {name} | {:.4} | {:.4} | {wd} | {:.2} | {wt} | {:.2} |",
                end / m,
                edt / m,
                1000.0 * ed / m,
                1000.0 * et / m
            );
        }
    }
}

/// The cube efficiency `x` that best fits Janowski's `(1 − x)·dead + x·live` to the exact money
/// cubeful values of every bear-off of `n` checkers a side (least squares over the positions of
/// a bucket: `x = Σ(e − d)(l − d) / Σ(l − d)²`), by cube owner and by the pip count of the
/// player on roll, with the net's (here exact: the one-sided database) cubeless probabilities.
fn fit(eval: &Evaluator, n: u8) {
    let mut exact = Exact::default();
    let owners = [CubeOwner::Centred, CubeOwner::Me, CubeOwner::Opponent];
    // [owner][bucket] -> (Σ(e−d)(l−d), Σ(l−d)², positions)
    const BUCKET: u32 = 4;
    let mut acc = vec![vec![(0.0f64, 0.0f64, 0usize); 64]; owners.len()];
    let mut all = vec![(0.0f64, 0.0f64); owners.len()];
    let t = Instant::now();
    for me in boards(n) {
        for them in boards(n) {
            let (mut a, mut b) = ([0u8; 25], [0u8; 25]);
            a[..6].copy_from_slice(&me);
            b[..6].copy_from_slice(&them);
            let pos = Position::from_counts(a, b).expect("bear-off");
            if game_over(&pos).is_some() {
                continue;
            }
            let p = eval.evaluate(&pos);
            let bucket = (pos.pips(Side::OnRoll) / BUCKET) as usize;
            for (k, &owner) in owners.iter().enumerate() {
                let state = CubeState {
                    owner,
                    ..CubeState::money()
                };
                let e = exact.no_double(&pos, &state);
                let d = cube::cubeful(&p, &state, 0.0);
                let l = cube::cubeful(&p, &state, 1.0);
                let c = &mut acc[k][bucket.min(63)];
                c.0 += (e - d) * (l - d);
                c.1 += (l - d) * (l - d);
                c.2 += 1;
                all[k].0 += (e - d) * (l - d);
                all[k].1 += (l - d) * (l - d);
            }
        }
    }
    println!(
        "fit of x on the bear-offs of {n} checkers a side ({:.1} s): x by cube owner and pips of the player on roll",
        t.elapsed().as_secs_f64()
    );
    println!("| pips | positions | centred | owned | opponent's |");
    println!("|---|---|---|---|---|");
    for (b, bucket) in acc[0].iter().enumerate() {
        let count = bucket.2;
        if count == 0 {
            continue;
        }
        let x = |k: usize| {
            let (num, den, _) = acc[k][b];
            if den > 1e-12 {
                format!("{:.3}", num / den)
            } else {
                "-".into()
            }
        };
        println!(
            "| {}-{} | {count} | {} | {} | {} |",
            b as u32 * BUCKET,
            b as u32 * BUCKET + BUCKET - 1,
            x(0),
            x(1),
            x(2)
        );
    }
    let x = |k: usize| all[k].0 / all[k].1.max(1e-12);
    println!("| all | | {:.3} | {:.3} | {:.3} |", x(0), x(1), x(2));
}

/// Exact decisions of the bear-offs `ids` (`POSITION_ID[:MATCH_ID]`, every checker home),
/// beside the advisor's at `plies`.
fn exact_ids(eval: &Evaluator, ids: &[String], plies: &[u8]) {
    let mut exact = Exact::default();
    for id in ids {
        let (pid, mid) = id.split_once(':').unwrap_or((id, ""));
        let Ok(pos) = Position::from_position_id(pid) else {
            eprintln!("error: {pid:?}: not a position ID");
            std::process::exit(2);
        };
        let m: Option<MatchId> = (!mid.is_empty()).then(|| {
            mid.parse().unwrap_or_else(|_| {
                eprintln!("error: {mid:?}: not a match ID");
                std::process::exit(2);
            })
        });
        let state = cube_state(m.as_ref());
        let t = Instant::now();
        let nd = exact.no_double(&pos, &state);
        let dt = exact.double_take(&pos, &state);
        let d = cube::decision(nd, dt, cube::double_pass(&state), state.may_double());
        println!(
            "{id} exact {} ({:.1} s, {} memo)",
            row(&d),
            t.elapsed().as_secs_f64(),
            exact.memo.len()
        );
        for &k in plies {
            let advisor = advisor_at(eval, k);
            println!(
                "{id} {k}-ply root {} search {}",
                row(&advisor.cube_cubeless_root(&pos, &state).decision),
                row(&advisor.cube(&pos, &state).decision)
            );
        }
    }
}

/// What the command line asks: the exact bear-off judge for `CHECKERS` checkers a side, or the
/// fixed set; each at these plies (empty: the default).
enum Mode {
    Exact {
        checkers: u8,
        plies: Vec<u8>,
    },
    /// Janowski's cube efficiency fitted to the exact values of every bear-off of `checkers`
    /// checkers a side, by pip count.
    Fit {
        checkers: u8,
    },
    /// Exact values of given bear-offs (`POSITION_ID[:MATCH_ID]`), against the advisor's.
    ExactIds {
        ids: Vec<String>,
        plies: Vec<u8>,
    },
    Fixed {
        plies: Vec<u8>,
    },
}

/// The most checkers a side the exact judge takes: the two-sided bear-off database's range
/// (the exact cubeful solve grows with the square of the one-sided boards).
const MAX_EXACT_CHECKERS: u8 = 6;

fn parse_plies(args: &[String]) -> Result<Vec<u8>, String> {
    args.iter()
        .map(|a| match a.parse::<u8>() {
            Ok(k) if k <= MAX_PLIES => Ok(k),
            _ => Err(format!("plies: {a:?}: expected 0 to {MAX_PLIES}")),
        })
        .collect()
}

fn parse_args(args: &[String]) -> Result<Mode, String> {
    if args.first().map(String::as_str) == Some("fit") {
        let checkers = match args.get(1).map(|a| a.parse::<u8>()) {
            Some(Ok(n)) if (1..=MAX_EXACT_CHECKERS).contains(&n) => n,
            _ => return Err("fit: give CHECKERS, the checkers a side (1 to 6)".into()),
        };
        return Ok(Mode::Fit { checkers });
    }
    if args.first().map(String::as_str) == Some("exact-ids") {
        let (ids, plies): (Vec<&String>, Vec<&String>) =
            args[1..].iter().partition(|a| a.parse::<u8>().is_err());
        let plies: Vec<String> = plies.into_iter().cloned().collect();
        return Ok(Mode::ExactIds {
            ids: ids.into_iter().cloned().collect(),
            plies: parse_plies(&plies)?,
        });
    }
    if args.first().map(String::as_str) != Some("exact") {
        return Ok(Mode::Fixed {
            plies: parse_plies(args)?,
        });
    }
    let checkers = match args.get(1).map(|a| (a, a.parse::<u8>())) {
        Some((_, Ok(n))) if (1..=MAX_EXACT_CHECKERS).contains(&n) => n,
        Some((a, _)) => {
            return Err(format!(
                "CHECKERS: {a:?}: expected 1 to {MAX_EXACT_CHECKERS}"
            ))
        }
        None => return Err("exact: give CHECKERS, the checkers a side (1 to 6)".into()),
    };
    Ok(Mode::Exact {
        checkers,
        plies: parse_plies(&args[2..])?,
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = parse_args(&args).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2);
    });
    let eval = weights::builtin()
        .expect("shipped weights")
        .clone()
        .with_bearoff(Arc::new(OneSided::build()));
    let plies = match mode {
        Mode::Exact { checkers: n, plies } => {
            let plies = if plies.is_empty() {
                vec![0, 1, 2]
            } else {
                plies
            };
            let m = |length, score| CubeState {
                match_score: Some(MatchScore {
                    length,
                    score,
                    crawford: false,
                }),
                ..CubeState::money()
            };
            for state in [CubeState::money(), m(7, [0, 0]), m(5, [3, 1]), m(5, [1, 3])] {
                judge(&eval, n, &plies, state);
            }
            return;
        }
        Mode::Fit { checkers } => {
            fit(&eval, checkers);
            return;
        }
        Mode::ExactIds { ids, plies } => {
            exact_ids(&eval, &ids, &plies);
            return;
        }
        Mode::Fixed { plies } => plies,
    };
    let plies = if plies.is_empty() { vec![1, 2] } else { plies };

    let mut positions: Vec<(String, Position)> = vec![
        (
            "blitz".into(),
            counts(
                &[(2, 2), (3, 2), (4, 2), (6, 3), (8, 2), (13, 2), (24, 2)],
                &[(6, 5), (8, 3), (13, 5), (25, 2)],
            ),
        ),
        (
            "race 3HsPAADb7g4AAA".into(),
            Position::from_position_id("3HsPAADb7g4AAA").unwrap(),
        ),
        (
            "bear-off 27YBAGDbdgAAAA".into(),
            Position::from_position_id("27YBAGDbdgAAAA").unwrap(),
        ),
        (
            "two-roll 4+1 v 4+1".into(),
            counts(&[(4, 1), (1, 1)], &[(4, 1), (1, 1)]),
        ),
        (
            "2 on the 6 v 2 on the 6".into(),
            counts(&[(6, 2)], &[(6, 2)]),
        ),
        (
            "long race, 69 v 72 pips".into(),
            counts(
                &[
                    (1, 2),
                    (2, 2),
                    (3, 2),
                    (4, 2),
                    (5, 2),
                    (6, 2),
                    (8, 2),
                    (11, 1),
                ],
                &[
                    (1, 2),
                    (2, 2),
                    (3, 2),
                    (4, 2),
                    (5, 2),
                    (6, 2),
                    (9, 2),
                    (12, 1),
                ],
            ),
        ),
    ];
    // Middle games from seeded 0-ply self-play, the player on roll after 8 and 16 plays.
    let zero = advisor_at(&eval, 0);
    for seed in 1..=4 {
        let mut rng = Rng::new(seed);
        let mut pos = Position::START;
        for k in 1..=16 {
            let dice = roll(&mut rng);
            pos = match zero.best_play(&pos, dice) {
                Some(p) => p.result(),
                None => pos.swapped(),
            };
            if (k == 8 || k == 16) && pos.off(Side::OnRoll) < 15 {
                positions.push((format!("self-play {seed}/{k}"), pos));
            }
        }
    }

    let m = |length, score, value, owner| CubeState {
        value,
        owner,
        match_score: Some(MatchScore {
            length,
            score,
            crawford: false,
        }),
        jacoby: false,
    };
    let states = [
        ("money", CubeState::money()),
        (
            "money, own 2",
            CubeState {
                value: 2,
                owner: CubeOwner::Me,
                ..CubeState::money()
            },
        ),
        ("7pt 0-0", m(7, [0, 0], 1, CubeOwner::Centred)),
        ("5pt 3-1", m(5, [3, 1], 1, CubeOwner::Centred)),
        ("5pt 1-3", m(5, [1, 3], 1, CubeOwner::Centred)),
    ];

    println!("| position | ID | cube | plies | old ND DT DP action take | new ND DT DP action take | old s | new s |");
    println!("|---|---|---|---|---|---|---|---|");
    let (mut n, mut changed, mut take_changed) = (0, 0, 0);
    let mut sum = [0.0f64; 2];
    for &k in &plies {
        let advisor = advisor_at(&eval, k);
        for (name, pos) in &positions {
            for (sname, state) in &states {
                let t = Instant::now();
                let old = advisor.cube_cubeless_root(pos, state).decision;
                let t_old = t.elapsed().as_secs_f64();
                let t = Instant::now();
                let new = advisor.cube(pos, state).decision;
                let t_new = t.elapsed().as_secs_f64();
                println!(
                    "| {name} | {} | {sname} | {k} | {} | {} | {t_old:.2} | {t_new:.2} |",
                    pos.position_id(),
                    row(&old),
                    row(&new)
                );
                n += 1;
                changed += usize::from(old.action != new.action);
                take_changed += usize::from(old.take != new.take);
                sum[0] += (old.no_double - new.no_double).abs();
                sum[1] += (old.double_take - new.double_take).abs();
            }
        }
    }
    println!(
        "\n{n} decisions: doubler's action changed in {changed}, take/pass in {take_changed}; \
         mean |ΔND| {:.4}, mean |ΔDT| {:.4} (money: points per cube; match: MWC)",
        sum[0] / n as f64,
        sum[1] / n as f64
    );
}
