//! The broader Bi-litaire suites of issue 17: positions from seeded random play and from play
//! by the engine itself, at 23, 27 and 31 balls (`benches/data/bilitaire-GEN-BALLS.txt`).
//!
//! ```sh
//! # write a suite file (the committed ones were made so, COUNT 50):
//! bilitaire_suites generate GEN BALLS COUNT > benches/data/bilitaire-GEN-BALLS.txt
//! # exact solves of the committed suites, one line a position, then the distribution:
//! bilitaire_suites run GENS SIZES [COUNT]      # e.g. run random,engine 23,27 50
//! ```
//!
//! `run` takes COUNT positions of each suite (all by default), from the first or from number
//! `FROM` (counted from 0). Environment: `LIMIT`
//! (seconds per position, default none), `NODES` (nodes per position), `THREADS` (default 1),
//! `HASH` (MiB, default 64, a fresh table per position), `SPLIT` (plies from the root where
//! threads split the work, `Config::split_plies`), `PN=0` (alpha-beta alone: no turns of
//! proof-number search in the exact tests), `PN_FIRST`, `PN_SHARE`, `PN_HASH` (the fields of
//! `tabula_solver::ProofNumbers`), `OPTIONS` (seconds: also value every
//! option of each solved slider-to-move position, to measure what announcements are worth),
//! `TWO_PLY=1` (search the slider's action and announcement as two plies,
//! `tabula_solver::games::TwoPly`; not with `OPTIONS`), `ENDGAME=0` (leave "value ≥ top − 2" to
//! the search, as before stop 32; the default decides it by masks at both sides),
//! `ENDGAME=1` (at slider positions only; `tabula_solver::games::Endgame`; `TRIES=K`: only the
//! K slider actions leaving the fewest jumps, the rest left to the search; not with `OPTIONS`
//! or `TWO_PLY`), `PROBES=1` (count the positions the search
//! would ask a database about, by their balls: the lines `probes`).
//!
//! ```sh
//! # how many positions a retrograde database of late positions would hold, per ball count:
//! bilitaire_suites dbsize
//! ```
//! The summary gives, per generator and size, the median, 90th percentile and maximum of the
//! time and of the nodes (an unsolved position counts as the slowest), the number solved (value
//! proven; the limit may have stopped the principal variation after it), the
//! range of the values and the length of the principal variations (plies to the end of the
//! round under best play).
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tabula_benches::{bilitaire_committed_suite, bilitaire_generated_suite, BilitaireGenerator};
use tabula_engine::bilitaire::{Position, Side};
use tabula_solver::driver::{Config, Driver, Limits, Line, Solve};
use tabula_solver::games::{Endgame, Oracle, TwoPly};
use tabula_solver::{AtomicTable, ProofNumbers};

/// A database that holds nothing and counts the positions it is asked about, by their balls:
/// the positions a retrograde database would have to hold to be of use to these solves.
struct Probes([AtomicU64; 49]);

impl Probes {
    fn new() -> Probes {
        Probes(std::array::from_fn(|_| AtomicU64::new(0)))
    }

    fn counts(&self) -> Vec<u64> {
        self.0.iter().map(|c| c.load(Ordering::Relaxed)).collect()
    }
}

impl Oracle<Position> for Probes {
    fn probe(&self, pos: &Position) -> Option<i32> {
        self.0[pos.ball_count() as usize].fetch_add(1, Ordering::Relaxed);
        None
    }
}

/// n choose k, exactly.
fn choose(n: u64, k: u64) -> u128 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
}

/// The positions with `balls` balls: every set of 1 – 12 tiles of the 16 slots, every way to
/// put the balls in their holes (tile sets with an empty tile included).
fn positions_with(balls: u64) -> u128 {
    (1..=12u64)
        .map(|tiles| choose(16, tiles) * choose(4 * tiles, balls))
        .sum()
}

fn dbsize() {
    println!(
        "| balls | positions (one side to move) | up to symmetry (÷ 8) | 3 sides, 1 byte each |"
    );
    println!("| --- | --- | --- | --- |");
    for balls in (2..=24).chain([27, 31, 47]) {
        let n = positions_with(balls);
        let bytes = n / 8 * 3;
        println!(
            "| {balls} | {n:.3e} | {:.3e} | {} |",
            n as f64 / 8.0,
            human(bytes)
        );
    }
}

fn human(bytes: u128) -> String {
    let units = ["B", "KB", "MB", "GB", "TB", "PB", "EB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < units.len() {
        v /= 1000.0;
        u += 1;
    }
    format!("{v:.1} {}", units[u])
}

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn usage() -> ! {
    eprintln!(
        "usage: bilitaire_suites generate GEN BALLS COUNT | run GENS SIZES [COUNT] | dbsize \
         (GEN: random or engine; GENS, SIZES: comma-separated)"
    );
    std::process::exit(2)
}

/// One solve's outcome.
struct Row {
    slider: bool,
    solved: bool,
    value: i32,
    lower: i32,
    upper: i32,
    nodes: u64,
    secs: f64,
    /// Plies of the principal variation (`None`: the value was proven, the line not).
    plies: Option<usize>,
    /// (announcement, best value with it) for every announcement whose best was proven.
    announce: Vec<(u8, i32)>,
}

/// The element at nearest rank `p` (0 < p ≤ 1) of sorted `v`.
fn rank<T: Copy>(v: &[T], p: f64) -> T {
    let i = ((p * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
    v[i]
}

fn solve(pos: &Position, threads: usize, mb: usize, limits: Limits, options: f64) -> Row {
    let table = AtomicTable::with_megabytes(mb);
    let config = Config {
        threads,
        split_plies: env("SPLIT").unwrap_or(Config::default().split_plies),
        proof_numbers: (env::<u8>("PN") != Some(0)).then(|| {
            let default = ProofNumbers::default();
            ProofNumbers {
                megabytes: env("PN_HASH").unwrap_or(default.megabytes),
                first_turn: env("PN_FIRST").unwrap_or(default.first_turn),
                share_percent: env("PN_SHARE").unwrap_or(default.share_percent),
            }
        }),
        ..Config::default()
    };
    let driver = Driver::new(&table, config, limits);
    let slider = pos.side() == Side::Slider;
    let endgame = env::<u8>("ENDGAME").unwrap_or(2);
    let tries = env::<usize>("TRIES");
    let probes = Probes::new();
    let answer = if env::<u8>("PROBES") == Some(1) {
        let answer = Driver::with_oracle(&table, config, limits, &probes).solve(pos);
        let counts = probes.counts();
        let min = counts.iter().position(|&c| c > 0);
        let total: u64 = counts.iter().sum();
        let below = |b: usize| counts[..b].iter().sum::<u64>();
        println!(
            "probes {pos}: {total} positions probed, fewest balls {min:?}, with at most 13 \
             balls {}, at most 15 {}",
            below(14),
            below(16)
        );
        answer
    } else if endgame == 0 {
        driver.solve(&Endgame::plain(*pos))
    } else if endgame == 1 || tries.is_some() {
        let tries = tries.unwrap_or(usize::MAX);
        driver.solve(&Endgame::new(*pos, endgame >= 2).trying(tries))
    } else if env::<u8>("TWO_PLY") == Some(1) {
        match driver.solve(&TwoPly::new(*pos)) {
            Solve::Solved { line, stats } => Solve::Solved {
                line: Line {
                    value: line.value,
                    pv: TwoPly::engine_line(&line.pv),
                    best: TwoPly::engine_line(&line.pv).first().copied(),
                },
                stats,
            },
            Solve::Stopped {
                reason,
                lower,
                upper,
                stats,
            } => Solve::Stopped {
                reason,
                lower,
                upper,
                stats,
            },
        }
    } else {
        driver.solve(pos)
    };
    match answer {
        Solve::Solved { line, stats } => {
            let mut announce = Vec::new();
            if slider && options > 0.0 {
                let budget = Limits {
                    time: Some(Duration::from_secs_f64(options)),
                    ..Limits::none()
                };
                let values = Driver::new(&table, config, budget).move_values(pos, line.value);
                let mut best: Vec<(u8, Option<i32>)> = Vec::new();
                for v in &values {
                    let n = v.mv.announcement();
                    match best.iter_mut().find(|(m, _)| *m == n) {
                        Some((_, b)) => *b = b.zip(v.value).map(|(a, c)| a.max(c)),
                        None => best.push((n, v.value)),
                    }
                }
                // A best is proven once the option reaching the position's value is among
                // them, or all of its options are exact.
                for v in &values {
                    if v.value == Some(line.value) {
                        let n = v.mv.announcement();
                        if let Some(b) = best.iter_mut().find(|(m, _)| *m == n) {
                            b.1 = Some(line.value);
                        }
                    }
                }
                announce = best
                    .into_iter()
                    .filter_map(|(n, b)| b.map(|b| (n, b)))
                    .collect();
                announce.sort_unstable();
            }
            Row {
                slider,
                solved: true,
                value: line.value,
                lower: line.value,
                upper: line.value,
                nodes: stats.nodes,
                secs: stats.time.as_secs_f64(),
                plies: Some(line.pv.len()),
                announce,
            }
        }
        Solve::Stopped {
            lower,
            upper,
            stats,
            ..
        } => Row {
            slider,
            // Stopped while following the principal variation: the value is proven.
            solved: lower == upper,
            value: lower,
            lower,
            upper,
            nodes: stats.nodes,
            secs: stats.time.as_secs_f64(),
            plies: None,
            announce: Vec::new(),
        },
    }
}

fn summary(gen: &str, balls: u32, rows: &[Row], threads: usize) -> Option<String> {
    let n = rows.len();
    if n == 0 {
        return None;
    }
    let solved: Vec<&Row> = rows.iter().filter(|r| r.solved).collect();
    // Unsolved positions rank as the slowest (after every solved one).
    let mut times: Vec<(bool, f64)> = rows.iter().map(|r| (!r.solved, r.secs)).collect();
    times.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut nodes: Vec<(bool, u64)> = rows.iter().map(|r| (!r.solved, r.nodes)).collect();
    nodes.sort_unstable();
    let time = |p: f64| {
        let (unsolved, t) = rank(&times, p);
        if unsolved {
            format!("> {t:.0} s")
        } else {
            format!("{t:.3} s")
        }
    };
    let node = |p: f64| {
        let (unsolved, k) = rank(&nodes, p);
        if unsolved {
            format!("> {k}")
        } else {
            format!("{k}")
        }
    };
    let values = solved.iter().map(|r| r.value);
    let (vmin, vmax) = (values.clone().min(), values.max());
    let mut plies: Vec<usize> = solved.iter().filter_map(|r| r.plies).collect();
    plies.sort_unstable();
    let sliders = rows.iter().filter(|r| r.slider).count();
    println!(
        "| {gen} | {balls} | {n} ({sliders} s / {} b) | {} | {} / {} / {} | {} / {} / {} | {} | {} |  {threads} |",
        n - sliders,
        solved.len(),
        time(0.5),
        time(0.9),
        time(1.0),
        node(0.5),
        node(0.9),
        node(1.0),
        match (vmin, vmax) {
            (Some(a), Some(b)) => format!("{a}–{b}"),
            _ => "-".into(),
        },
        if plies.is_empty() {
            "-".into()
        } else {
            format!("{} ({}–{})", rank(&plies, 0.5), plies[0], plies[plies.len() - 1])
        },
    );
    // What an announcement is worth: per announcement N, over the solved slider positions
    // whose best values with N and without an announcement were both proven, the mean of
    // (best with N) − (best without).
    let mut worth: Vec<(u8, i32, usize)> = Vec::new();
    let mut announcing_best = 0;
    let mut measured = 0;
    for r in solved.iter().filter(|r| !r.announce.is_empty()) {
        let Some(&(_, plain)) = r.announce.iter().find(|(n, _)| *n == 0) else {
            continue;
        };
        measured += 1;
        if plain < r.value {
            announcing_best += 1;
        }
        for &(n, v) in r.announce.iter().filter(|(n, _)| *n > 0) {
            match worth.iter_mut().find(|(m, _, _)| *m == n) {
                Some(w) => {
                    w.1 += v - plain;
                    w.2 += 1;
                }
                None => worth.push((n, v - plain, 1)),
            }
        }
    }
    (measured > 0).then(|| {
        worth.sort_unstable();
        let per: Vec<String> = worth
            .iter()
            .map(|(n, sum, k)| format!("!{n}: {:+.2} ({k})", *sum as f64 / *k as f64))
            .collect();
        format!(
            "options {gen} {balls}: {measured} slider positions, an announcement best in \
             {announcing_best}; best with N − best without, mean (positions): {}",
            per.join(", ")
        )
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let list = |s: &str| -> Vec<String> { s.split(',').map(str::to_string).collect() };
    match args.first().map(String::as_str) {
        Some("generate") => {
            let (Some(gen), Some(balls), Some(count)) = (
                args.get(1).and_then(|g| BilitaireGenerator::from_name(g)),
                args.get(2).and_then(|b| b.parse::<u32>().ok()),
                args.get(3).and_then(|c| c.parse::<usize>().ok()),
            ) else {
                usage()
            };
            println!(
                "# Bi-litaire suite: {count} positions with {balls} balls from {} play \
                 (tabula_benches::bilitaire_generated_suite).",
                gen.name()
            );
            println!(
                "# Made by: cargo run --release -p tabula-benches --example bilitaire_suites \
                 -- generate {} {balls} {count}",
                gen.name()
            );
            if gen != BilitaireGenerator::Random {
                println!(
                    "# The engine's moves follow the search of the commit that added this file; \
                     a later search may play other games from the same seeds."
                );
            }
            for pos in bilitaire_generated_suite(gen, balls, count) {
                println!("{pos}");
            }
        }
        Some("dbsize") => dbsize(),
        Some("run") => {
            let (Some(gens), Some(sizes)) = (args.get(1), args.get(2)) else {
                usage()
            };
            let count: usize = args
                .get(3)
                .and_then(|c| c.parse().ok())
                .unwrap_or(usize::MAX);
            let threads: usize = env("THREADS").unwrap_or(1);
            let from: usize = env("FROM").unwrap_or(0);
            let mb: usize = env("HASH").unwrap_or(64);
            let options: f64 = env("OPTIONS").unwrap_or(0.0);
            let limits = Limits {
                time: env::<f64>("LIMIT").map(Duration::from_secs_f64),
                nodes: env("NODES"),
                ..Limits::none()
            };
            let mut table = Vec::new();
            for gen in list(gens) {
                let Some(g) = BilitaireGenerator::from_name(&gen) else {
                    usage()
                };
                for size in list(sizes) {
                    let Ok(balls) = size.parse::<u32>() else {
                        usage()
                    };
                    let Some(suite) = bilitaire_committed_suite(g, balls) else {
                        eprintln!("no committed suite for {gen} at {balls} balls");
                        std::process::exit(2)
                    };
                    let mut rows = Vec::new();
                    for (i, pos) in suite.iter().enumerate().skip(from).take(count) {
                        let r = solve(pos, threads, mb, limits, options);
                        if let (true, Some(plies)) = (r.solved, r.plies) {
                            println!(
                                "{gen} {balls} #{i} {pos}: value {} nodes {} time {:.3}s plies {plies}",
                                r.value, r.nodes, r.secs
                            );
                        } else if r.solved {
                            println!(
                                "{gen} {balls} #{i} {pos}: value {} nodes {} time {:.1}s (stopped \
                                 in the principal variation)",
                                r.value, r.nodes, r.secs
                            );
                        } else {
                            println!(
                                "{gen} {balls} #{i} {pos}: unsolved {}..={} nodes {} time {:.1}s",
                                r.lower, r.upper, r.nodes, r.secs
                            );
                        }
                        rows.push(r);
                    }
                    table.push((gen.clone(), balls, rows));
                }
            }
            println!();
            println!(
                "| generator | balls | positions | solved | time median / p90 / max | nodes median / p90 / max | values | PV plies median (range) | threads |"
            );
            println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
            let notes: Vec<String> = table
                .iter()
                .filter_map(|(gen, balls, rows)| summary(gen, *balls, rows, threads))
                .collect();
            for note in notes {
                println!("{note}");
            }
        }
        _ => usage(),
    }
}
