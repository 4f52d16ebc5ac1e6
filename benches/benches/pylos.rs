//! Pylos perft speed: leaf nodes per second from the start and from mid-game positions with
//! take-backs. Every count is asserted before it is timed (all come from the
//! `engine/tests/data/pylos-*.perft` files, confirmed by `scripts/pylos_perft.py`).
//!
//! Also the exact children's-rules solve of a fixed suite of mid-game positions
//! (`tabula_benches::pylos_children_suite`), whose verdicts are asserted first: every value is
//! exact and on the side of 0 that the separate win/loss test proves.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tabula_engine::perft::perft;
use tabula_engine::pylos::cell::transform_mask;
use tabula_engine::pylos::{Position, PylosSpace, Rules, Takeback, Variant, START};
use tabula_engine::retro::Retrograde;
use tabula_engine::{Game, D4};
use tabula_solver::{AtomicTable, Entry, Evaluate, SearchOptions, Searcher};

/// (name, rules, position, depth, nodes).
const CASES: &[(&str, Variant, Takeback, &str, u32, u64)] = &[
    (
        "start-d6",
        Variant::Standard,
        Takeback::Optional,
        START,
        6,
        5_786_496,
    ),
    (
        "start-d7",
        Variant::Standard,
        Takeback::Optional,
        START,
        7,
        61_599_168,
    ),
    (
        "midgame-standard-d6",
        Variant::Standard,
        Takeback::Optional,
        "w.bb/bbbw/bbwb/.wbw|..w/..b/.ww|../..|. b",
        6,
        4_462_362,
    ),
    (
        "midgame-mature-compulsory-d5",
        Variant::Mature,
        Takeback::Compulsory,
        "bwbb/.www/.bww/bwwb|..w/.bw/.bb|../.b|. b",
        5,
        3_418_272,
    ),
    (
        "raises-only-mature-d5",
        Variant::Mature,
        Takeback::Compulsory,
        "bbbb/bbbb/bbbb/bbb.|.../.../...|../..|. b",
        5,
        3_804_454,
    ),
];

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("pylos-perft");
    group.sample_size(10);
    for &(name, variant, takeback, text, depth, nodes) in CASES {
        let pos = Position::parse(text, Rules::new(variant, takeback)).expect("bench position");
        assert_eq!(perft(&pos, depth), nodes, "{name}: perft {depth} of {text}");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |b| b.iter(|| perft(black_box(&pos), depth)));
    }
    group.finish();
}

/// The exact value (distance-scored, black's payoff) of `pos`, from a fresh table.
fn children_solve(pos: &Position) -> (i32, bool) {
    let table = AtomicTable::with_megabytes(16);
    let searcher = Searcher::new(&table, SearchOptions::default());
    let b = searcher
        .value(pos, Entry::PROVEN, pos.evaluate())
        .expect("no limits");
    (b.value, b.exact)
}

fn bench_children_solve(c: &mut Criterion) {
    let suite = tabula_benches::pylos_children_suite(20, 8);
    assert_eq!(suite.len(), 8);
    for pos in &suite {
        let (value, exact) = children_solve(pos);
        let table = AtomicTable::with_megabytes(16);
        let black_wins = Searcher::new(&table, SearchOptions::default())
            .prove_at_least(pos, 1)
            .expect("no limits");
        assert!(exact && value != 0, "{pos}: {value}");
        assert_eq!(value > 0, black_wins, "{pos}: {value}");
    }
    let mut group = c.benchmark_group("pylos-children-solve");
    group.sample_size(10);
    group.throughput(Throughput::Elements(suite.len() as u64));
    group.bench_function("20-balls-x8", |b| {
        b.iter(|| {
            suite
                .iter()
                .map(|p| children_solve(black_box(p)).0)
                .sum::<i32>()
        })
    });
    group.finish();
}

/// The children of `pos` as canonical mover-relative (occupancy, mover's balls) pairs, by the
/// per-ball cell map: the reference the builder's indices are counted against.
fn reference_children(pos: &Position) -> usize {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let mut classes: Vec<(u32, u32)> = moves
        .iter()
        .map(|&m| {
            let child = pos.play(m);
            let (occ, own) = (child.occupied(), child.balls(child.turn()));
            D4::ALL
                .iter()
                .map(|&sym| (transform_mask(occ, sym), transform_mask(own, sym)))
                .min()
                .expect("8 symmetries")
        })
        .collect();
    classes.sort_unstable();
    classes.dedup();
    classes.len()
}

/// What a full-board build spends its children phase on: unrank an index, generate the
/// position's moves, rank every child (canonical under the 8 symmetries) and count the distinct
/// ones; and the same positions' un-moves. 4,096 indices spread evenly over the
/// standard-rules space; the number of distinct children is asserted against
/// [`reference_children`] first, and every parent's children checked to hold the position.
fn bench_space(c: &mut Criterion) {
    let space = PylosSpace::new(Rules::default());
    let step = space.size() / 4096;
    let positions: Vec<Position> = (0..4096).filter_map(|i| space.unrank(i * step)).collect();
    let reference: usize = positions.iter().map(reference_children).sum();
    // The distinct children (or parents) of every position, summed.
    type Neighbours = fn(&PylosSpace, &Position, &mut Vec<u64>);
    let count = |positions: &[Position], f: Neighbours| {
        let mut out = Vec::new();
        positions
            .iter()
            .map(|p| {
                out.clear();
                f(&space, p, &mut out);
                out.len()
            })
            .sum::<usize>()
    };
    let children = |positions: &[Position]| count(positions, PylosSpace::children);
    let parents = |positions: &[Position]| count(positions, PylosSpace::parents);
    assert_eq!(children(&positions), reference);
    let mut group = c.benchmark_group("pylos-space");
    group.sample_size(20);
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("children", |b| b.iter(|| children(black_box(&positions))));
    // Un-moves, as the propagation phases of a build use them: every parent must list the
    // position among its children.
    let mut kids = Vec::new();
    for p in &positions {
        let mut ps = Vec::new();
        space.parents(p, &mut ps);
        for &q in &ps {
            kids.clear();
            space.children(&space.unrank(q).expect("a parent"), &mut kids);
            assert!(kids.contains(&space.rank(p)), "{p}: parent {q}");
        }
    }
    assert!(parents(&positions) > positions.len());
    group.bench_function("parents", |b| b.iter(|| parents(black_box(&positions))));
    let indices: Vec<u64> = (0..4096).map(|i| i * step).collect();
    group.throughput(Throughput::Elements(indices.len() as u64));
    group.bench_function("unrank", |b| {
        b.iter(|| {
            indices
                .iter()
                .filter(|&&i| space.unrank(black_box(i)).is_some())
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_perft, bench_children_solve, bench_space);
criterion_main!(benches);
