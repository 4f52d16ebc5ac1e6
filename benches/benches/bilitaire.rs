//! Bi-litaire perft speed: leaf nodes per second from the start and from mid-game positions.
//! Every count is asserted before it is timed (the start counts are the and the
//! independent model's; the others come from `engine/tests/data/bilitaire.perft`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tabula_engine::bilitaire::Position;
use tabula_engine::perft::perft;

/// (name, position, depth, nodes).
const CASES: &[(&str, &str, u32, u64)] = &[
    ("start-d5", tabula_engine::bilitaire::START, 5, 139_872),
    ("start-d6", tabula_engine::bilitaire::START, 6, 3_195_696),
    ("start-d7", tabula_engine::bilitaire::START, 7, 18_157_296),
];

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("bilitaire-perft");
    group.sample_size(10);
    for &(name, fen, depth, nodes) in CASES.iter().chain(tabula_benches::BILITAIRE_MIDGAME) {
        let pos = Position::parse(fen).expect("bench position parses");
        assert_eq!(perft(&pos, depth), nodes, "{name}: perft {depth} of {fen}");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |b| b.iter(|| perft(black_box(&pos), depth)));
    }
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
