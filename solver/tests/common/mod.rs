//! Helpers shared by the solver's test files.

use tabula_engine::bilitaire::geometry::holes_of;
use tabula_engine::bilitaire::movegen::longest_chain;
use tabula_engine::bilitaire::{Move, Position, Rules, Side};
use tabula_engine::Game;

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

/// Checks that `line` is a legal line of play from `pos` that ends the round with `value`
/// balls left (what a principal variation of that value must be).
#[allow(dead_code)] // not every test file that includes this module checks lines
pub fn assert_line_ends_at(pos: &Position, line: &[Move], value: i32) {
    let mut end = *pos;
    for &mv in line {
        let mut legal = Vec::new();
        end.legal_moves(&mut legal);
        assert!(legal.contains(&mv), "{pos}: pv move {mv} illegal at {end}");
        end = end.play(mv);
    }
    assert!(end.is_terminal(), "{pos}: pv stops early at {end}");
    assert_eq!(end.ball_count() as i32, value, "{pos}: pv ends elsewhere");
}

/// `small_position` of seeds 1, 7920, 15839, … (`count` seeds; those giving no position are
/// skipped), each followed by the ball player's turn after the slider's last move with an
/// announcement, if it has one: chains are rare on random boards.
#[allow(dead_code)] // not every test file that includes this module uses it
pub fn small_positions_with_announcements(count: u64) -> impl Iterator<Item = Position> {
    (0..count)
        .filter_map(|seed| small_position(seed * 7919 + 1))
        .flat_map(|pos| {
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            let announcing = moves.iter().rev().find(|m| m.announcement() >= 2);
            std::iter::once(pos).chain(announcing.map(|&m| pos.play(m)))
        })
}
