//! Pylos perft speed: leaf nodes per second from the start and from mid-game positions with
//! take-backs. Every count is asserted before it is timed (all come from the
//! `engine/tests/data/pylos-*.perft` files, confirmed by `scripts/pylos_perft.py`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tabula_engine::perft::perft;
use tabula_engine::pylos::{Position, Rules, Takeback, Variant, START};

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

criterion_group!(benches, bench_perft);
criterion_main!(benches);
