//! Benchmarks live in `benches/`; this library holds the fixed position suites they share.

pub mod run;

use tabula_engine::bilitaire::{Position, Side};
use tabula_engine::playout::random_playout;

/// Mid-game Bi-litaire positions with perft counts confirmed by the independent Python model
/// (`scripts/bilitaire_perft.py`, copied from `engine/tests/data/bilitaire.perft`):
/// (name, position, depth, nodes).
pub const BILITAIRE_MIDGAME: &[(&str, &str, u32, u64)] = &[
    (
        "mid-slider-35-balls-d4",
        "oo----oo/oo----oo/oo--oooo/oo--o..o/oo..oooo/oooo.ooo/----o.oo/----..o. s",
        4,
        88_646,
    ),
    (
        "mid-ball-28-balls-d4",
        "oooo----/oooo----/ooooo.oo/o..oo..o/o.--.o../..--..../oo..--../ooo.--oo b",
        4,
        162_586,
    ),
    (
        "announce-slider-29-balls-d4",
        "oooo--oo/ooo.--oo/ooo.--oo/o...--oo/o.o.oooo/.....o.o/------../------oo s",
        4,
        40_215,
    ),
    (
        "late-ball-11-balls-d6",
        ".o------/.o------/..--oo--/o.--.o--/----o.--/----..--/----...o/----o.oo b",
        6,
        156_966,
    ),
];

/// The slider-to-move position with exactly `balls` balls in the random game of `seed`, if
/// that game has one.
pub fn bilitaire_random_position(seed: u64, balls: u32) -> Option<Position> {
    random_playout(&Position::start(), seed, |p| p.ball_count() <= balls)
        .filter(|p| p.ball_count() == balls && p.side() == Side::Slider)
}

/// The fixed suite: the first `count` random games (seeds from `1000 * balls`) that pass
/// through a slider-to-move position with `balls` balls.
pub fn bilitaire_suite(balls: u32, count: usize) -> Vec<Position> {
    (0..)
        .filter_map(|i| bilitaire_random_position(1000 * u64::from(balls) + i, balls))
        .take(count)
        .collect()
}

/// A fixed suite of children's-rules Pylos positions: the first `count` random games (seeds
/// from `1000 * balls`) that pass through a position, not yet decided, with `balls` balls on the
/// board.
pub fn pylos_children_suite(balls: u32, count: usize) -> Vec<tabula_engine::pylos::Position> {
    use tabula_engine::pylos::{Position, Rules, Takeback, Variant};
    let start = Position::start(Rules::new(Variant::Children, Takeback::Optional));
    (0..)
        .filter_map(|i| {
            random_playout(&start, 1000 * u64::from(balls) + i, |p: &Position| {
                p.occupied().count_ones() >= balls
            })
            .filter(|p| p.occupied().count_ones() == balls && !p.is_over())
        })
        .take(count)
        .collect()
}
