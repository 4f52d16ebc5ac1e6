//! Exact Bi-litaire solves: the lock-free table against the dashmap table (17 balls), and one
//! thread against two (17 and 23 balls). Every configuration must find the same values,
//! asserted before timing. Tables are made once and cleared between positions, so the figures
//! compare searching, not allocating.

use criterion::{criterion_group, criterion_main, Criterion};
use tabula_benches::bilitaire_suite;
use tabula_engine::bilitaire::Position;
use tabula_solver::{AtomicTable, DashTable, SearchOptions, Searcher, Table};

fn solve_all<T: Table>(table: &mut T, positions: &[Position], threads: usize) -> Vec<i32> {
    positions
        .iter()
        .map(|pos| {
            table.clear();
            let options = SearchOptions {
                threads,
                ..SearchOptions::default()
            };
            Searcher::new(&*table, options)
                .solve(pos)
                .expect("no limits")
                .value
        })
        .collect()
}

fn bench_solver(c: &mut Criterion) {
    let positions = bilitaire_suite(17, 8);
    let mut atomic = AtomicTable::with_megabytes(4);
    let mut dash = DashTable::new();
    let expected = solve_all(&mut atomic, &positions, 1);
    assert_eq!(solve_all(&mut dash, &positions, 1), expected);
    assert_eq!(solve_all(&mut atomic, &positions, 2), expected);

    let mut group = c.benchmark_group("bilitaire-solve-17-balls");
    group.sample_size(10);
    group.bench_function("atomic-table-1-thread", |b| {
        b.iter(|| solve_all(&mut atomic, &positions, 1))
    });
    group.bench_function("dashmap-table-1-thread", |b| {
        b.iter(|| solve_all(&mut dash, &positions, 1))
    });
    group.bench_function("atomic-table-2-threads", |b| {
        b.iter(|| solve_all(&mut atomic, &positions, 2))
    });
    group.finish();

    // Larger solves for the parallel speed-up: the 23-ball suite (0.2 s median on one thread).
    let positions = bilitaire_suite(23, 9);
    let mut atomic = AtomicTable::with_megabytes(64);
    let expected = solve_all(&mut atomic, &positions, 1);
    assert_eq!(solve_all(&mut atomic, &positions, 2), expected);
    let mut group = c.benchmark_group("bilitaire-solve-23-balls");
    group.sample_size(10);
    for threads in [1, 2] {
        group.bench_function(format!("atomic-table-{threads}-threads"), |b| {
            b.iter(|| solve_all(&mut atomic, &positions, threads))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_solver);
criterion_main!(benches);
