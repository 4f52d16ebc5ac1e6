//! Janowski's cube efficiency measured by Tabula's own cubeful rollouts, for one class of
//! positions (issue 16: "the cube efficiency measured rather than assumed").
//!
//! ```sh
//! cargo run --release -p tabula-gammon --example cube_efficiency -- CLASS POSITIONS TRIALS [SEED]
//! ```
//!
//! `CLASS` is `race` (no contact, not every checker home: the bear-offs have their own fit,
//! `cube_compare -- fit N`), `contact` or `crashed` (the classes of [`NetClass`]).
//! `POSITIONS` positions of that class are drawn from seeded 0-ply self-play, one from each game
//! (the player on roll, a uniformly drawn turn among the game's positions of the class whose
//! 0-ply winning chance is between 0.15 and 0.90: where cube decisions are made). Each is rolled
//! out cubeful for money, `TRIALS` trials (luck-corrected, stratified first rolls, the players
//! at 0 plies doubling by Janowski's model at the advisor's 0.68), as the advisor values a cube
//! decision ([`cube::decide`]): *no double* with the cube centred, *no redouble* with a cube the
//! player on roll owns, and *double/take* (the opponent owns the doubled cube). Each rollout
//! gives the cubeful equity `e` (per unit of its cube) and, from the same trials, the cubeless
//! probabilities `p`; with `d` and `l` the dead-cube
//! (`x = 0`) and live-cube (`x = 1`) values of `p` ([`cube::cubeful`]), the fitted efficiency
//! is the least-squares `x = Σ(e − d)(l − d) / Σ(l − d)²`, per cube owner and by the pip count
//! of the player on roll, with a standard error from the residuals (`√Σ r²(l − d)² / Σ(l − d)²`).
//!
//! Prints one line per position (its Position ID, pips, the rollout's `p` and the three `e`),
//! then three tables: the fit by pips; the fit of an owned cube by its owner's winning chance;
//! and the errors of the model's money decisions (cube centred) made from the rollout's chances
//! at a grid of `x` and at the engine's ([`cube::efficiency`]), judged by the rollout's values.
//! Deterministic for a seed and trial count, whatever the thread count (`RAYON_NUM_THREADS`).

use std::sync::Arc;
use std::time::Instant;

use tabula_engine::backgammon::{PlayList, Position, Side};
use tabula_gammon::baseline::{best_net_play, roll};
use tabula_gammon::cube::{self, is_bearoff, CubeOwner, CubeState, DEFAULT_CUBE_EFFICIENCY};
use tabula_gammon::net::{game_over, NetClass};
use tabula_gammon::rollout::{Rollout, RolloutOptions};
use tabula_gammon::{weights, Evaluator, Rng};
use tabula_tablebase::bearoff::OneSided;

/// Width of a pip-count bucket of the table.
const BUCKET: u32 = 20;

/// The most self-play games drawn per position asked for (races need about 4.5, contact 1)
/// before the example gives up: a class that never turns up must not hang it.
const MAX_GAMES_PER_POSITION: u64 = 1000;

/// Width and count of the buckets of an owned cube's table, by its owner's winning chance.
const OWNER_STEP: f64 = 0.15;
const OWNER_SLOTS: usize = 7;

/// The positions the fit uses: 0-ply winning chances of the player on roll in this range.
const WINDOW: (f32, f32) = (0.15, 0.90);

fn class_of(name: &str) -> Option<NetClass> {
    match name {
        "race" => Some(NetClass::Race),
        "contact" => Some(NetClass::Contact),
        "crashed" => Some(NetClass::Crashed),
        _ => None,
    }
}

/// Whether `pos` belongs to the measured class (races without the bear-offs).
fn in_class(pos: &Position, class: NetClass) -> bool {
    NetClass::of(pos) == class && !(class == NetClass::Race && is_bearoff(pos))
}

/// One position of `class` from 0-ply self-play game `game` of `seed`, if the game has one in
/// the window.
fn draw(eval: &Evaluator, class: NetClass, seed: u64, game: u64) -> Option<Position> {
    let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(game));
    let mut list = PlayList::new();
    let mut pos = Position::START;
    let mut found = Vec::new();
    for _ in 0..400 {
        if game_over(&pos).is_some() {
            break;
        }
        if in_class(&pos, class) {
            let w = eval.evaluate(&pos)[0];
            if (WINDOW.0..=WINDOW.1).contains(&w) {
                found.push(pos);
            }
        }
        let dice = roll(&mut rng);
        pos = if pos.generate_plays(dice, &mut list) == 0 {
            pos.swapped()
        } else {
            list.result(best_net_play(eval, &list).0)
        };
    }
    (!found.is_empty()).then(|| found[rng.below(found.len() as u64) as usize])
}

/// Least-squares sums of one cell of the table: Σ(e−d)(l−d), Σ(l−d)², and the points.
#[derive(Clone, Default)]
struct Cell {
    num: f64,
    den: f64,
    points: Vec<(f64, f64)>, // (e − d, l − d)
}

impl Cell {
    fn add(&mut self, e: f64, d: f64, l: f64) {
        self.num += (e - d) * (l - d);
        self.den += (l - d) * (l - d);
        self.points.push((e - d, l - d));
    }

    fn fit(&self) -> Option<(f64, f64)> {
        if self.den < 1e-9 || self.points.len() < 2 {
            return None;
        }
        let x = self.num / self.den;
        let s: f64 = self
            .points
            .iter()
            .map(|&(y, z)| {
                let r = y - x * z;
                r * r * z * z
            })
            .sum();
        Some((x, s.sqrt() / self.den))
    }

    fn show(&self) -> String {
        match self.fit() {
            Some((x, se)) => format!("{x:.2} ± {se:.2}"),
            None => "-".into(),
        }
    }
}

fn usage() -> ! {
    eprintln!("usage: cube_efficiency race|contact|crashed POSITIONS TRIALS [SEED]");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(class), Some(Ok(positions)), Some(Ok(trials))) = (
        args.first().and_then(|a| class_of(a)),
        args.get(1).map(|a| a.parse::<u64>()),
        args.get(2).map(|a| a.parse::<u64>()),
    ) else {
        usage()
    };
    let seed = match args.get(3).map(|a| a.parse::<u64>()) {
        None => 1,
        Some(Ok(s)) => s,
        Some(Err(_)) => usage(),
    };
    if positions == 0 || trials == 0 {
        usage()
    }
    let eval = weights::builtin()
        .expect("shipped weights")
        .clone()
        .with_bearoff(Arc::new(OneSided::build()));
    let mut table: Vec<[Cell; 3]> = Vec::new();
    let mut all: [Cell; 3] = Default::default();
    let mut decisions: Vec<Decision> = Vec::new();
    let mut by_owner: Vec<[Cell; 2]> = vec![Default::default(); OWNER_SLOTS];
    let started = Instant::now();
    let (mut game, mut done) = (0u64, 0u64);
    while done < positions {
        game += 1;
        if game > positions.saturating_mul(MAX_GAMES_PER_POSITION) {
            eprintln!("error: fewer than {positions} positions of the class in {game} games");
            std::process::exit(1);
        }
        let Some(pos) = draw(&eval, class, seed, game) else {
            continue;
        };
        let pips = pos.pips(Side::OnRoll);
        let bucket = (pips / BUCKET) as usize;
        if table.len() <= bucket {
            table.resize_with(bucket + 1, Default::default);
        }
        let mut line = format!(
            "{} pips {pips}/{}",
            pos.position_id(),
            pos.pips(Side::Opponent)
        );
        // Centred: no double (column 0) and double/take (column 2: the opponent owns the
        // 2-cube); owned: no redouble (column 1). Normalised per unit of each start's cube.
        let centred = CubeState::money();
        let owned = CubeState {
            value: 2,
            owner: CubeOwner::Me,
            ..CubeState::money()
        };
        let roll_out = |state: CubeState, k: u64| {
            let options = RolloutOptions {
                trials,
                seed: seed ^ (game << 8) ^ k,
                cube: Some(state),
                ..RolloutOptions::default()
            };
            Rollout::new(&eval, options).cube_decision(&pos, None, &mut |_| {})
        };
        let mut values = [(0.0, 0.0, 0.0); 3];
        let c = roll_out(centred, 0);
        let o = roll_out(owned, 1);
        let dt = c
            .double_take
            .as_ref()
            .expect("a centred cube may be doubled");
        let starts = [
            (&c.no_double, centred, 1.0),
            (&o.no_double, owned, 1.0),
            (dt, cube::doubled(&centred), 2.0),
        ];
        for (k, (r, state, scale)) in starts.into_iter().enumerate() {
            let e = r.cubeful.expect("a cubeful rollout");
            let (e, se) = (e.equity / scale, e.equity_se / scale);
            let p = r.estimate().probabilities.map(|v| v as f32);
            let d = cube::cubeful(&p, &state, 0.0);
            let l = cube::cubeful(&p, &state, 1.0);
            if k == 0 {
                line += &format!(
                    " p {:.3} {:.3} {:.3} {:.3} {:.3}",
                    p[0], p[1], p[2], p[3], p[4]
                );
            }
            line += &format!(
                " {} {e:+.3}±{se:.3} (d {d:+.3} l {l:+.3})",
                ["c", "o", "x"][k]
            );
            table[bucket][k].add(e, d, l);
            all[k].add(e, d, l);
            values[k] = (e, d, l);
            // An owned cube, by its owner's cubeless winning chance (the player on roll owns
            // column 1, the opponent column 2).
            if k > 0 {
                let owner = if k == 1 { p[0] } else { 1.0 - p[0] };
                let slot = ((f64::from(owner) / OWNER_STEP) as usize).min(OWNER_SLOTS - 1);
                by_owner[slot][k - 1].add(e, d, l);
            }
        }
        decisions.push(Decision {
            pips,
            engine_x: cube::efficiency(&pos, DEFAULT_CUBE_EFFICIENCY).own,
            no_double: values[0],
            double_take: values[2],
        });
        done += 1;
        println!("{line}");
    }
    println!(
        "\n{} positions of {} games ({:.0} s), {trials} trials a rollout, seed {seed}: x by the pips of the player on roll",
        done,
        game,
        started.elapsed().as_secs_f64()
    );
    println!("| pips | positions | centred | owned | opponent's |");
    println!("|---|---|---|---|---|");
    for (b, cells) in table.iter().enumerate() {
        if cells[0].points.is_empty() {
            continue;
        }
        println!(
            "| {}-{} | {} | {} | {} | {} |",
            b as u32 * BUCKET,
            b as u32 * BUCKET + BUCKET - 1,
            cells[0].points.len(),
            cells[0].show(),
            cells[1].show(),
            cells[2].show()
        );
    }
    println!(
        "| all | {done} | {} | {} | {} |",
        all[0].show(),
        all[1].show(),
        all[2].show()
    );
    println!(
        "\nan owned cube's x by its owner's cubeless winning chance (the owner on roll: no \
         redouble; the opponent: double/take)"
    );
    println!("| owner's chance | positions | owner on roll | owner's opponent on roll |");
    println!("|---|---|---|---|");
    for (i, cells) in by_owner.iter().enumerate() {
        let n = cells[0].points.len() + cells[1].points.len();
        if n == 0 {
            continue;
        }
        let lo = i as f64 * OWNER_STEP;
        println!(
            "| {lo:.2}-{:.2} | {} + {} | {} | {} |",
            lo + OWNER_STEP,
            cells[0].points.len(),
            cells[1].points.len(),
            cells[0].show(),
            cells[1].show()
        );
    }
    decision_errors(&decisions);
}

/// One position's centred-cube decision: its pips, the engine's efficiency for it (a centred
/// cube's: this fit takes one `x` for both states), and the rollout's `(e, d, l)` of no double
/// and of double/take (per unit of the doubled cube).
struct Decision {
    pips: u32,
    engine_x: f64,
    no_double: (f64, f64, f64),
    double_take: (f64, f64, f64),
}

impl Decision {
    /// The errors of the money decisions Janowski's model makes at efficiency `x` from the
    /// rollout's cubeless chances, against the rollout's cubeful values: the doubler's (the
    /// best of no double and double minus the value of the action taken) and the taker's (when
    /// the model's take or pass is not the rollout's, the difference of the two answers).
    fn errors(&self, x: f64) -> (f64, f64) {
        let money = CubeState::money();
        let model = |(_, d, l): (f64, f64, f64)| (1.0 - x) * d + x * l;
        let dp = cube::double_pass(&money);
        let (nd, dt) = (
            self.no_double.0,
            cube::double_take(self.double_take.0, &money),
        );
        let truth = cube::decision(nd, dt, dp, true);
        let made = cube::decision(
            model(self.no_double),
            cube::double_take(model(self.double_take), &money),
            dp,
            true,
        );
        let doubling = truth.best() - if made.offers_double() { dt.min(dp) } else { nd };
        let take = if made.take != truth.take {
            (dt - dp).abs()
        } else {
            0.0
        };
        (doubling, take)
    }
}

/// The mean decision errors (millipoints) and the wrong decisions of the model at a grid of
/// efficiencies and at the engine's ([`cube::efficiency`]), by pips of the player on roll.
fn decision_errors(decisions: &[Decision]) {
    const RANGES: [(u32, u32); 4] = [(0, 1000), (0, 40), (40, 70), (70, 1000)];
    println!(
        "\nmoney, cube centred: the model's decisions from the rollout's chances against the \
         rollout's values, doubling / take error in millipoints (wrong decisions)"
    );
    println!("| x | all pips | under 40 | 40-69 | 70 and more |");
    println!("|---|---|---|---|---|");
    let grid = [0.5, 0.6, 0.68, 0.75, 0.8, 0.9];
    let rows = grid
        .iter()
        .map(|&x| (format!("{x:.2}"), Some(x)))
        .chain([("engine".to_string(), None)]);
    for (name, x) in rows {
        let cells: Vec<String> = RANGES
            .iter()
            .map(|&(lo, hi)| {
                let (mut n, mut d, mut t, mut dw, mut tw) = (0, 0.0, 0.0, 0, 0);
                for q in decisions.iter().filter(|q| (lo..hi).contains(&q.pips)) {
                    let (a, b) = q.errors(x.unwrap_or(q.engine_x));
                    n += 1;
                    d += a;
                    t += b;
                    dw += usize::from(a > 1e-9);
                    tw += usize::from(b > 1e-9);
                }
                let n = f64::from(n.max(1));
                format!(
                    "{:.2} ({dw}) / {:.2} ({tw})",
                    1000.0 * d / n,
                    1000.0 * t / n
                )
            })
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
}
