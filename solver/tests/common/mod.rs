//! Helpers shared by the solver's test files.

use tabula_engine::bilitaire::geometry::holes_of;
use tabula_engine::bilitaire::movegen::longest_chain;
use tabula_engine::bilitaire::{Position, Rules, Side};

/// A random small position: 2–6 tiles, up to 12 balls, any side to move (announcements of 2
/// and 3 included), a quarter of them under the `free-chains` rule.
pub fn small_position(seed: u64) -> Option<Position> {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let tile_count = 2 + next() % 5;
    let mut tiles = 0u16;
    while u64::from(tiles.count_ones()) < tile_count {
        tiles |= 1 << (next() % 16);
    }
    let holes = holes_of(tiles);
    let mut balls = holes & next() & next();
    while balls.count_ones() > 12 {
        balls &= balls - 1;
    }
    let side = match next() % 8 {
        0..=3 => Side::Slider,
        4 | 5 => Side::Ball(0),
        // An announcement, where the board has a chain (of 2 or 3).
        _ => match longest_chain(balls, holes).min(3) {
            n @ 2.. => Side::Ball(n as u8),
            _ => Side::Ball(0),
        },
    };
    let rules = Rules {
        free_chains: next() % 4 == 0,
    };
    Position::from_parts(balls, tiles, side, rules)
}
