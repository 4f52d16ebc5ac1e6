//! Backgammon legal-play generation speed: (position, roll) pairs per second over the positions
//! of the gnubg fixture (`engine/tests/data/backgammon-moves.txt`) × the 21 rolls. The total
//! number of plays is asserted against gnubg's counts in the fixture before it is timed.
//! `TABULA_BG_FIXTURE=<file>` benches another file of the same format.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tabula_engine::backgammon::{Dice, PlayList, Position};

/// The fixture's positions and gnubg's total number of plays over them × 21 rolls.
fn fixture() -> (Vec<Position>, usize) {
    let default = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../engine/tests/data/backgammon-moves.txt"
    );
    let path = std::env::var("TABULA_BG_FIXTURE").unwrap_or_else(|_| default.to_string());
    let text = std::fs::read_to_string(path).expect("read the backgammon fixture");
    let mut positions = Vec::new();
    let mut plays = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut groups = line.split(';');
        let id = groups.next().expect("position ID");
        positions.push(Position::from_position_id(id).expect("fixture Position ID"));
        plays += groups.map(|g| g.split_whitespace().count()).sum::<usize>();
    }
    (positions, plays)
}

fn generate_all(positions: &[Position], list: &mut PlayList) -> usize {
    let mut total = 0;
    for pos in positions {
        for dice in Dice::ALL {
            total += pos.generate_plays(dice, list);
        }
    }
    total
}

fn bench_movegen(c: &mut Criterion) {
    let (positions, expected) = fixture();
    let mut list = PlayList::new();
    assert_eq!(
        generate_all(&positions, &mut list),
        expected,
        "plays over the fixture (gnubg's count)"
    );
    let mut group = c.benchmark_group("backgammon-movegen");
    group.sample_size(20);
    group.throughput(Throughput::Elements(
        (positions.len() * Dice::ALL.len()) as u64,
    ));
    group.bench_function("fixture-x21", |b| {
        b.iter(|| generate_all(black_box(&positions), &mut list))
    });
    // Generation plus building every resulting position (what a search consumes).
    group.bench_function("fixture-x21-results", |b| {
        b.iter(|| {
            for pos in black_box(&positions) {
                for dice in Dice::ALL {
                    pos.generate_plays(dice, &mut list);
                    for i in 0..list.len() {
                        black_box(list.result(i));
                    }
                }
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_movegen);
criterion_main!(benches);
