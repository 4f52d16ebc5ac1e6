//! Backgammon neural-net evaluation speed with the shipped weights: 0-ply evaluations per
//! second over a fixed suite of positions from seeded games (contact and race) and over its
//! races alone, and a 1-ply hint; the pruning net's rate, 2-ply hints with the last ply pruned
//! and not, and 2-ply money cube decisions. Every output is checked (finite, in [0, 1],
//! gammons within wins; the cube's answers consistent with its values) before it is timed.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tabula_engine::backgammon::{Dice, PlayList, Position};
use tabula_gammon::baseline::{opening_roll, roll, Player};
use tabula_gammon::cube::{self, CubeState};
use tabula_gammon::cubeful::CubefulSearch;
use tabula_gammon::inputs::is_contact;
use tabula_gammon::search::with_threads;
use tabula_gammon::{weights, Evaluator, Rng, SearchOptions, Searcher};

/// Every position before a roll in `games` games of the pip-count racer against the random
/// player from `seed`.
fn suite(games: u32, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut list = PlayList::new();
    let mut out = Vec::new();
    for g in 0..games {
        let players = [Player::PipCount, Player::Random];
        let mut pos = Position::START;
        let mut dice = opening_roll(&mut rng);
        let mut ply = g as usize;
        while !pos.is_game_over() {
            out.push(pos);
            pos = players[ply % 2].play(&pos, dice, &mut list, &mut rng);
            dice = roll(&mut rng);
            ply += 1;
        }
    }
    out
}

fn evaluate_all(eval: &Evaluator, positions: &[Position]) -> f32 {
    positions.iter().map(|p| eval.evaluate(p)[0]).sum()
}

fn bench_eval(c: &mut Criterion) {
    let eval = weights::builtin().expect("the shipped weights load");
    let positions = suite(40, 1);
    let race_positions: Vec<Position> = positions
        .iter()
        .copied()
        .filter(|p| !is_contact(p))
        .collect();
    let races = race_positions.len();
    assert!(races > 100 && positions.len() - races > 1000, "suite mix");
    for pos in &positions {
        let p = eval.evaluate(pos);
        assert!(
            p.iter().all(|x| x.is_finite() && (0.0..=1.0).contains(x)),
            "{pos}: {p:?}"
        );
        assert!(p[1] <= p[0] && p[2] <= p[1] && p[3] <= 1.0 - p[0] && p[4] <= p[3]);
    }
    let mut group = c.benchmark_group("backgammon-eval");
    group.sample_size(20);
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("0-ply", |b| {
        b.iter(|| evaluate_all(eval, black_box(&positions)))
    });
    // The suite's races alone: they are about 1% of it (484 of 51,670), so the rate above
    // barely sees the race net's width; this one is all race net (or exact race endings).
    group.throughput(Throughput::Elements(races as u64));
    group.bench_function("0-ply-races", |b| {
        b.iter(|| evaluate_all(eval, black_box(&race_positions)))
    });
    group.finish();

    let dice: Dice = "31".parse().unwrap();
    let one = with_threads(1, || {
        Searcher::new(eval, SearchOptions::default()).rank(&Position::START, dice)
    })
    .unwrap();
    assert_eq!(one.len(), 16);
    let mut group = c.benchmark_group("backgammon-hint");
    group.sample_size(10);
    group.bench_function("start-31-1-ply-1-thread", |b| {
        b.iter(|| {
            with_threads(1, || {
                Searcher::new(eval, SearchOptions::default())
                    .rank(black_box(&Position::START), dice)
            })
            .unwrap()
        })
    });
    group.finish();

    // The pruning net alone (`tabula_gammon::prune`), on the suite's contact positions.
    let pruner = eval
        .pruner
        .as_deref()
        .expect("the shipped nets have a pruning net");
    let contact: Vec<Position> = positions
        .iter()
        .copied()
        .filter(|p| is_contact(p) && !p.is_game_over())
        .collect();
    // The search's pass (a table row a point), on contact positions: every one has a value.
    let sum: f32 = contact
        .iter()
        .map(|p| pruner.equity_in_contact(p).expect("a contact position"))
        .sum();
    assert!(
        sum.is_finite() && contact.len() > 1000,
        "{} positions",
        contact.len()
    );
    let mut group = c.benchmark_group("backgammon-prune");
    group.sample_size(20);
    group.throughput(Throughput::Elements(contact.len() as u64));
    group.bench_function("prune-net", |b| {
        b.iter(|| {
            contact
                .iter()
                .filter_map(|p| pruner.equity_in_contact(black_box(p)))
                .sum::<f32>()
        })
    });
    group.finish();

    // 2-ply hints on eight contact positions of the suite, with the last ply pruned (the
    // default) and without: every hint ranks its plays with a 2-ply best.
    let hints: Vec<(Position, Dice)> = contact
        .iter()
        .step_by(contact.len() / 8)
        .take(8)
        .zip(Dice::ALL.iter().step_by(2))
        .map(|(&p, &d)| (p, d))
        .collect();
    assert_eq!(hints.len(), 8);
    let two_ply = |last_ply_candidates: usize| {
        let options = SearchOptions {
            plies: 2,
            last_ply_candidates,
            ..SearchOptions::default()
        };
        with_threads(1, || {
            let s = Searcher::new(eval, options);
            hints
                .iter()
                .map(|(p, d)| s.rank(p, *d)[0].plies)
                .collect::<Vec<u8>>()
        })
        .unwrap()
    };
    assert!(SearchOptions::default().last_ply_candidates > 0);
    for k in [SearchOptions::default().last_ply_candidates, 0] {
        assert_eq!(two_ply(k), vec![2; 8], "last_ply_candidates {k}");
    }
    let mut group = c.benchmark_group("backgammon-2-ply");
    group.sample_size(10);
    group.bench_function("8-hints-pruned", |b| {
        b.iter(|| two_ply(SearchOptions::default().last_ply_candidates))
    });
    group.bench_function("8-hints-full", |b| b.iter(|| two_ply(0)));
    group.finish();

    // 2-ply cube decisions (the cubeful search) on the same eight positions, money with a
    // centred cube, one thread, a fresh cache each time: every value finite and the answer
    // consistent with its values.
    let cube_2_ply = || {
        with_threads(1, || {
            let s = Searcher::new(
                eval,
                SearchOptions {
                    plies: 2,
                    ..SearchOptions::default()
                },
            );
            let search = CubefulSearch::new(&s, cube::DEFAULT_CUBE_EFFICIENCY);
            hints
                .iter()
                .map(|(p, _)| search.decide(p, &CubeState::money(), 2))
                .collect::<Vec<_>>()
        })
        .unwrap()
    };
    for d in cube_2_ply() {
        assert!(
            d.no_double.abs() <= 3.0 && d.double_take.abs() <= 6.0,
            "{d:?}"
        );
        assert_eq!(d.take, d.double_take <= d.double_pass, "{d:?}");
    }
    let mut group = c.benchmark_group("backgammon-cube");
    group.sample_size(10);
    group.throughput(Throughput::Elements(hints.len() as u64));
    group.bench_function("8-money-decisions-2-ply", |b| b.iter(cube_2_ply));
    group.finish();
}

criterion_group!(benches, bench_eval);
criterion_main!(benches);
