//! `tabula bench`: a fixed, built-in suite per game, searched the same way on every machine, so
//! that users can compare speeds and contributors can prove that a change left the search alone.
//!
//! Each item counts its work (search nodes, perft leaves, generated plays, net evaluations) and
//! times it. The sum of the counts at one thread is the **signature**: deterministic across
//! runs and machines for a given build, and changed by any change to what the searches visit.
//! `cli/tests/bench_cli.rs` checks the quick suite's signature against
//! `benches/bench-signature.txt`, so such a change is seen and must be explained in its commit.
//!
//! With more than one thread, every search item runs a second time with that many threads, and
//! the report gives the speed-up over the one-thread run of the same process.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tabula_api::bench::{BenchGameReport, BenchItemReport, BenchReport};
use tabula_engine::backgammon::{Dice, PlayList, Position as BgPosition};
use tabula_engine::perft::perft;
use tabula_gammon::search::SearchOptions as BgOptions;
use tabula_gammon::{Evaluator, Probabilities, Rng};
use tabula_solver::driver::{Analysis, Config, Driver, Limits, Solve};
use tabula_solver::expectimax::{Expectimax, LeafEvaluator};
use tabula_solver::search::Searchable;
use tabula_solver::AtomicTable;

/// The games the bench covers, in the order `all` runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Game {
    Bilitaire,
    Pylos,
    Backgammon,
}

impl Game {
    /// Every game, in report order.
    pub const ALL: [Game; 3] = [Game::Bilitaire, Game::Pylos, Game::Backgammon];

    /// The game's name in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Game::Bilitaire => "bilitaire",
            Game::Pylos => "pylos",
            Game::Backgammon => "backgammon",
        }
    }
}

/// How to run the bench.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Threads for the second run of every search item (1: no second run).
    pub threads: usize,
    /// Transposition table size for the exact searches (the signature is for the default,
    /// [`DEFAULT_HASH_MB`]: a table of another size keeps other entries and visits other nodes).
    pub hash_mb: usize,
    /// The reduced suite (a second or two), for CI's signature check.
    pub quick: bool,
}

/// The table size the signature is defined for.
pub const DEFAULT_HASH_MB: usize = 64;

/// What one item did.
struct Measured {
    count: u64,
    time: Duration,
    answer: String,
}

/// One item of the suite: a name, what it counts, and how to run it on `threads` threads.
struct Item {
    name: String,
    unit: &'static str,
    /// Searches that can use threads run again with [`Options::threads`].
    threaded: bool,
    run: Box<dyn Fn(usize, usize) -> Measured>,
}

/// Runs the suites of `games`, calling `progress(game, done, total, item)` before each item.
pub fn run(
    games: &[Game],
    options: Options,
    mut progress: impl FnMut(Game, usize, usize, &str),
) -> BenchReport {
    let mut reports = Vec::new();
    for &game in games {
        let items = suite(game, options.quick);
        let mut done = Vec::new();
        for (i, item) in items.iter().enumerate() {
            progress(game, i, items.len(), &item.name);
            done.push(run_item(item, options));
        }
        reports.push(game_report(game, done));
    }
    let signature = reports.iter().map(|g| g.signature).sum();
    BenchReport {
        threads: options.threads,
        hash_mb: options.hash_mb,
        quick: options.quick,
        signature,
        games: reports,
    }
}

fn run_item(item: &Item, options: Options) -> BenchItemReport {
    let one = (item.run)(1, options.hash_mb);
    let more = (item.threaded && options.threads > 1)
        .then(|| (item.run)(options.threads, options.hash_mb));
    BenchItemReport {
        name: item.name.clone(),
        unit: item.unit.to_string(),
        count: one.count,
        time_ms: millis(one.time),
        rate: rate(one.count, one.time),
        answer: one.answer.clone(),
        threads_count: more.as_ref().map(|m| m.count),
        threads_time_ms: more.as_ref().map(|m| millis(m.time)),
        threads_agree: more.as_ref().map(|m| m.answer == one.answer),
    }
}

fn game_report(game: Game, items: Vec<BenchItemReport>) -> BenchGameReport {
    let signature = items.iter().map(|i| i.count).sum();
    let time_ms = items.iter().map(|i| i.time_ms).sum::<f64>();
    let threaded: Vec<&BenchItemReport> = items
        .iter()
        .filter(|i| i.threads_time_ms.is_some())
        .collect();
    let speedup = (!threaded.is_empty()).then(|| {
        let one: f64 = threaded.iter().map(|i| i.time_ms).sum();
        let more: f64 = threaded.iter().filter_map(|i| i.threads_time_ms).sum();
        one / more.max(1e-6)
    });
    BenchGameReport {
        game: game.name().to_string(),
        signature,
        time_ms,
        speedup,
        items,
    }
}

fn millis(t: Duration) -> f64 {
    (t.as_secs_f64() * 1e6).round() / 1e3
}

fn rate(count: u64, t: Duration) -> f64 {
    (count as f64 / t.as_secs_f64().max(1e-9)).round()
}

fn timed(f: impl FnOnce() -> (u64, String)) -> Measured {
    let started = Instant::now();
    let (count, answer) = f();
    Measured {
        count,
        time: started.elapsed(),
        answer,
    }
}

fn suite(game: Game, quick: bool) -> Vec<Item> {
    match game {
        Game::Bilitaire => bilitaire_suite(quick),
        Game::Pylos => pylos_suite(quick),
        Game::Backgammon => backgammon_suite(quick),
    }
}

fn perft_item<G: tabula_engine::Game + 'static>(name: &str, pos: G, depth: u32) -> Item {
    Item {
        name: name.to_string(),
        unit: "leaves",
        threaded: false,
        run: Box::new(move |_, _| {
            timed(|| {
                let n = perft(&pos, depth);
                (n, n.to_string())
            })
        }),
    }
}

/// A driver over `table` on `threads` threads, with no limit.
fn driver(table: &AtomicTable, threads: usize) -> Driver<'_> {
    let config = Config {
        threads,
        ..Config::default()
    };
    Driver::new(table, config, Limits::none())
}

/// An exact solve with a fresh table of `hash` MiB on `threads` threads: nodes, and the value.
fn exact_solve<G: Searchable>(pos: &G, threads: usize, hash: usize) -> Measured {
    let table = AtomicTable::with_megabytes(hash);
    let driver = driver(&table, threads);
    let started = Instant::now();
    let answer = match driver.solve(pos) {
        Solve::Solved { line, .. } => line.value.to_string(),
        Solve::Stopped { .. } => "stopped".into(),
    };
    Measured {
        count: driver.stats().nodes,
        time: started.elapsed(),
        answer,
    }
}

/// Bi-litaire: exact solves of mid-game positions from 21 to 25 balls, both sides to move
/// (slider positions from the seeded random games of `bilitaire_suite`, ball-player positions
/// one best move later), and perft from the start.
const BILITAIRE_SOLVES: &[&str] = &[
    "ooooo.--/oo..o.--/oo.o..../oo....../--....o./--.o...o/o.o.----/ooo.---- s",
    "ooo.----/oo.o----/..--.ooo/o.--.o.o/.....o../o...o..o/--ooo..o/--.....o s",
    "--..o.--/--....--/......../..oo..../--..o.oo/--ooo.oo/oooooo--/oooooo-- s",
    "--.o..oo/--.o.ooo/....oo--/.o....--/----o.--/----oo--/o..o.o.o/oooo..oo s",
    "oooo--o./oo..--.o/oo....../oooo.oo./o..o----/o...----/o....o--/..o.o.-- s",
    "..oo--.o/o.oo--.o/.o..----/....----/oo....oo/oo...ooo/..oo----/oooo---- s",
    "ooo..ooo/oo...ooo/--.o.o--/--....--/oo.o..--/ooo...--/.o..--../.o.o--o. s",
    "--oooo--/--..oo--/..oo.o--/o.....--/o..oo.../o...o.oo/--o..o../--oo..oo s",
    "oooo--oo/o...--oo/.oo.--.o/o.o.--../--..--../--..--../oooo.o../ooooo..o s",
    "--oooooo/--..oooo/.o..o..o/.....ooo/..--..o./o.--..oo/..----o./oo----oo s",
    "--..oooo/--..o.oo/.o....oo/o...o.oo/--.o..../--oo..oo/oo--.o--/oo--.o-- s",
    "o.oo.o--/o.o..o--/oo--..--/..--..--/..--..oo/oo--.o../oo.oo.../ooo.oooo s",
    "--oooo--/--o.oo--/......oo/o.oooooo/.......o/..ooo..o/--oo----/--oo---- s",
    "oooo--o./oo..--.o/oo....../oooo.oo./o..o----/o...----/--o....o/--..o.o. b",
    "--.o..oo/--.o.ooo/..--oo--/.o--..--/----o.--/----oo--/o..o.o.o/oooo..oo b",
    "--oooooo/--..oooo/.o..o..o/.....ooo/..----o./o.----oo/..----o./oo----oo b",
];

fn bilitaire_suite(quick: bool) -> Vec<Item> {
    use tabula_engine::bilitaire::Position;
    let solves = if quick {
        &BILITAIRE_SOLVES[..2]
    } else {
        BILITAIRE_SOLVES
    };
    let mut items = vec![perft_item(
        if quick {
            "perft-start-5"
        } else {
            "perft-start-7"
        },
        Position::start(),
        if quick { 5 } else { 7 },
    )];
    for (i, text) in solves.iter().enumerate() {
        let pos = Position::parse(text).expect("built-in position");
        let side = if pos.side() == tabula_engine::bilitaire::Side::Slider {
            "slider"
        } else {
            "ball"
        };
        items.push(Item {
            name: format!("solve-{}-balls-{side}-{}", pos.ball_count(), i + 1),
            unit: "nodes",
            threaded: true,
            run: Box::new(move |threads, hash| exact_solve(&pos, threads, hash)),
        });
    }
    items
}

/// Pylos: exact children's-rules solves of late positions, depth-limited analyses under the
/// standard and mature rules, and perft from the start.
const PYLOS_CHILDREN_SOLVES: &[&str] = &[
    "bwbw/bwbw/wbwb/wbwb|bw./w../...|../..|. b",
    "bwbw/wbwb/bwbw/wbw.|b../.../...|../..|. b",
    "bwbw/bwbw/bwbw/bwbw|.../.../...|../..|. w",
];

/// (rules, position, depth) of the depth-limited analyses (optional take-backs).
const PYLOS_ANALYSES: &[(&str, &str, u8)] = &[
    ("standard", "..../..../b.w./.bww|.../.../...|../..|. w", 12),
    ("mature", "..../..../b.w./.bww|.../.../...|../..|. w", 12),
];

fn pylos_suite(quick: bool) -> Vec<Item> {
    use tabula_engine::pylos::{Position, Rules, Takeback, Variant};
    let children = Rules::new(Variant::Children, Takeback::Optional);
    let mut items = vec![perft_item(
        if quick {
            "perft-start-4"
        } else {
            "perft-start-8"
        },
        Position::start(Rules::new(Variant::Standard, Takeback::Optional)),
        if quick { 4 } else { 8 },
    )];
    let solves = if quick {
        &PYLOS_CHILDREN_SOLVES[..1]
    } else {
        PYLOS_CHILDREN_SOLVES
    };
    for (i, text) in solves.iter().enumerate() {
        let pos = Position::parse(text, children).expect("built-in position");
        items.push(Item {
            name: format!(
                "solve-children-{}-balls-{}",
                pos.occupied().count_ones(),
                i + 1
            ),
            unit: "nodes",
            threaded: true,
            run: Box::new(move |threads, hash| {
                let mut m = exact_solve(&pos, threads, hash);
                // "win in 15 plies" rather than the payoff 985.
                if let Ok(value) = m.answer.parse() {
                    let v = tabula_solver::games::verdict(&pos, value, true);
                    m.answer = match v.plies {
                        Some(n) => format!("{} in {n} plies", v.result),
                        None => v.result.to_string(),
                    };
                }
                m
            }),
        });
    }
    let analyses = if quick {
        &PYLOS_ANALYSES[..0]
    } else {
        PYLOS_ANALYSES
    };
    for &(rules, text, depth) in analyses {
        let variant: Variant = rules.parse().expect("built-in rules");
        let pos = Position::parse(text, Rules::new(variant, Takeback::Optional))
            .expect("built-in position");
        items.push(Item {
            name: format!("analyze-{rules}-depth-{depth}"),
            unit: "nodes",
            threaded: true,
            run: Box::new(move |threads, hash| analyze(&pos, depth, threads, hash)),
        });
    }
    items
}

/// An iterative-deepening analysis to `depth` plies with a fresh table: nodes, and the value
/// of the deepest iteration.
fn analyze<G: Searchable>(pos: &G, depth: u8, threads: usize, hash: usize) -> Measured {
    let table = AtomicTable::with_megabytes(hash);
    let driver = driver(&table, threads);
    let started = Instant::now();
    let answer = match driver.analyze(pos, depth, |_| {}) {
        Analysis::Exact { line, .. } => format!("{} exact", line.value),
        Analysis::Estimate { line, .. } => line.value.to_string(),
        Analysis::Stopped { .. } => "stopped".into(),
    };
    Measured {
        count: driver.stats().nodes,
        time: started.elapsed(),
        answer,
    }
}

/// Positions of seeded games between the pip-count racer and a random player: contact, race
/// and bear-off positions in the proportions of real games.
fn backgammon_positions(count: usize) -> Vec<BgPosition> {
    use tabula_gammon::baseline::{opening_roll, roll, Player};
    let mut rng = Rng::new(2026);
    let mut list = PlayList::new();
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut pos = BgPosition::START;
        let mut dice = opening_roll(&mut rng);
        let players = [Player::PipCount, Player::Random];
        for ply in 0.. {
            if tabula_gammon::net::game_over(&pos).is_some() || out.len() == count {
                break;
            }
            out.push(pos);
            pos = players[ply % 2].play(&pos, dice, &mut list, &mut rng);
            dice = roll(&mut rng);
        }
    }
    out
}

/// Counts the net's leaf evaluations of a search (the signature's unit for hints).
struct Counting<'e> {
    inner: &'e Evaluator,
    evaluations: AtomicU64,
}

impl LeafEvaluator<BgPosition, 5> for Counting<'_> {
    fn terminal(&self, pos: &BgPosition) -> Option<Probabilities> {
        self.inner.terminal(pos)
    }
    fn evaluate(&self, pos: &BgPosition) -> Probabilities {
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        LeafEvaluator::evaluate(self.inner, pos)
    }
    fn invert(&self, v: &Probabilities) -> Probabilities {
        self.inner.invert(v)
    }
    fn score(&self, v: &Probabilities) -> f32 {
        self.inner.score(v)
    }
    /// The pruning net's estimates are not counted: the unit is the full nets' evaluations.
    fn quick_score(&self, result: &BgPosition) -> Option<f32> {
        self.inner.quick_score(result)
    }
}

fn backgammon_suite(quick: bool) -> Vec<Item> {
    let eval: &'static Evaluator = tabula_gammon::weights::builtin().expect("shipped weights");
    let positions = backgammon_positions(if quick { 200 } else { 20_000 });
    let hints: Vec<(BgPosition, Dice)> = positions
        .iter()
        .step_by(positions.len() / if quick { 2 } else { 32 })
        .zip(Dice::ALL.iter().cycle().step_by(5))
        .map(|(&p, &d)| (p, d))
        .collect();
    let movegen = positions.clone();
    let evals = positions;
    // Rolls evaluated per position: the quick suite keeps one (its signature is committed).
    let eval_rolls = if quick { 1 } else { 4 };
    vec![
        Item {
            name: format!("movegen-{}-positions-x21-x{MOVEGEN_PASSES}", movegen.len()),
            unit: "plays",
            threaded: false,
            run: Box::new(move |_, _| timed(|| movegen_all(&movegen))),
        },
        Item {
            name: "eval-0-ply".to_string(),
            unit: "evaluations",
            threaded: false,
            run: Box::new(move |_, _| timed(|| evaluate_results(eval, &evals, eval_rolls))),
        },
        Item {
            name: format!("hint-2-ply-{}-positions", hints.len()),
            unit: "evaluations",
            threaded: true,
            run: Box::new(move |threads, _| hint_all(eval, &hints, threads)),
        },
    ]
}

/// Passes of [`movegen_all`] over the positions: generation is fast, and a pass over a few
/// thousand positions is too short to time alone.
const MOVEGEN_PASSES: usize = 20;

fn movegen_all(positions: &[BgPosition]) -> (u64, String) {
    let mut list = PlayList::new();
    let mut total = 0usize;
    for _ in 0..MOVEGEN_PASSES {
        total += positions
            .iter()
            .flat_map(|p| Dice::ALL.iter().map(move |&d| (p, d)))
            .map(|(p, d)| p.generate_plays(d, &mut list))
            .sum::<usize>();
    }
    (total as u64, (total / MOVEGEN_PASSES).to_string())
}

/// The 0-ply net on every result of `rolls` rolls' plays of each position (the rolls in turn,
/// starting one further on for each position).
fn evaluate_results(eval: &Evaluator, positions: &[BgPosition], rolls: usize) -> (u64, String) {
    let mut list = PlayList::new();
    let (mut count, mut sum) = (0u64, 0f64);
    for (i, pos) in positions.iter().enumerate() {
        for r in 0..rolls {
            let dice = Dice::ALL[(i + r) % Dice::ALL.len()];
            pos.generate_plays(dice, &mut list);
            for j in 0..list.len() {
                sum += f64::from(eval.evaluate(&list.result(j))[0]);
                count += 1;
            }
        }
    }
    (count, format!("{:.6}", sum / count.max(1) as f64))
}

fn hint_all(eval: &Evaluator, hints: &[(BgPosition, Dice)], threads: usize) -> Measured {
    let counting = Counting {
        inner: eval,
        evaluations: AtomicU64::new(0),
    };
    let options = BgOptions {
        plies: 2,
        ..Default::default()
    };
    let started = Instant::now();
    let best: Vec<String> = tabula_gammon::search::with_threads(threads, || {
        hints
            .iter()
            .map(|(pos, dice)| {
                // A fresh cache per hint, as a one-shot `hint` has.
                let search = Expectimax::new(&counting, options.filter(), options.cache_slots);
                let ranked = search.rank(pos, *dice, options.plies);
                ranked
                    .first()
                    .map_or("-".into(), |r| pos.plays(*dice)[r.index].to_string())
            })
            .collect()
    })
    .expect("a thread pool of at most 256 threads");
    Measured {
        count: counting.evaluations.load(Ordering::Relaxed),
        time: started.elapsed(),
        answer: best.join(" | "),
    }
}
