//! Move generation: jumps and chains by shifts and masks, slides from a `const` table per line.

use super::chain::Chain;
use super::geometry::{
    slots_touching, Direction, Slot, Square, FILES_A_TO_F, FILES_C_TO_H, JUMP_STEPS,
};
use super::mv::Move;
use super::position::{Position, Side};
use std::ops::ControlFlow;

// ---------------------------------------------------------------------------------------------
// Jumps

/// The balls that can make a simple jump in `dir`: a ball next to them, an empty hole behind.
#[inline]
pub fn jump_sources(balls: u64, empty: u64, dir: Direction) -> u64 {
    match dir {
        Direction::East => balls & (balls >> 1) & (empty >> 2) & FILES_A_TO_F,
        Direction::West => balls & (balls << 1) & (empty << 2) & FILES_C_TO_H,
        Direction::North => balls & (balls >> 8) & (empty >> 16),
        Direction::South => balls & (balls << 8) & (empty << 16),
    }
}

/// The holes from which a ball would jump in `dir`: a ball next to them, an empty hole behind.
#[inline]
fn jump_launch_holes(balls: u64, empty: u64, dir: Direction) -> u64 {
    match dir {
        Direction::East => (balls >> 1) & (empty >> 2) & FILES_A_TO_F,
        Direction::West => (balls << 1) & (empty << 2) & FILES_C_TO_H,
        Direction::North => (balls >> 8) & (empty >> 16),
        Direction::South => (balls << 8) & (empty << 16),
    }
}

/// Moves every bit two holes in `dir` (sources of jumps onto their landing holes).
#[inline]
fn two_steps(bits: u64, dir: Direction) -> u64 {
    match dir {
        Direction::East => bits << 2,
        Direction::West => bits >> 2,
        Direction::North => bits << 16,
        Direction::South => bits >> 16,
    }
}

/// True if some ball can make a chain of two jumps, decided by masks alone.
///
/// After a jump f→t in direction d, only f and the jumped hole become empty and only t fills.
/// A second jump from t in any direction but back (which would cross the now-empty jumped
/// hole) goes over and onto holes that none of these changes touch, so it can be tested on the
/// original board with t treated as the jumping ball.
#[inline]
pub fn has_double_jump(balls: u64, holes: u64) -> bool {
    let empty = holes & !balls;
    let launch = Direction::ALL.map(|d| jump_launch_holes(balls, empty, d));
    Direction::ALL.iter().enumerate().any(|(i, &d)| {
        let landings = two_steps(jump_sources(balls, empty, d), d);
        // Directions are ordered East, West, North, South: the reverse of i is i ^ 1.
        landings != 0 && (0..4).any(|j| j != i ^ 1 && landings & launch[j] != 0)
    })
}

/// The number of simple jumps available.
#[inline]
pub fn simple_jump_count(balls: u64, holes: u64) -> u64 {
    let empty = holes & !balls;
    Direction::ALL
        .iter()
        .map(|&d| u64::from(jump_sources(balls, empty, d).count_ones()))
        .sum()
}

/// The slots whose tiles carry a hole of some simple jump (jumper, jumped ball or landing
/// hole): the tiles the slider would have to move or remove to take every jump away.
#[inline]
pub fn jump_slots(balls: u64, holes: u64) -> u16 {
    let empty = holes & !balls;
    // The jumped hole is next to the jumper and to the landing hole, and a tile is two holes
    // wide: it lies on the tile of one of them.
    let mut ends = 0;
    for dir in Direction::ALL {
        let from = jump_sources(balls, empty, dir);
        ends |= from | two_steps(from, dir);
    }
    slots_touching(ends)
}

/// True if any simple jump exists.
#[inline]
pub fn has_jump(balls: u64, holes: u64) -> bool {
    let empty = holes & !balls;
    Direction::ALL
        .iter()
        .any(|&d| jump_sources(balls, empty, d) != 0)
}

/// The balls after the ball on `at` jumps in direction number `d`, if that jump is legal.
#[inline]
fn jump_from(balls: u64, holes: u64, at: u32, d: usize) -> Option<(u64, u32)> {
    let (over, land) = JUMP_STEPS[at as usize][d];
    if balls & over != 0 && holes & !balls & land != 0 {
        Some((balls ^ (1 << at) ^ over ^ land, land.trailing_zeros()))
    } else {
        None
    }
}

/// Calls `visit(first jump, balls after it, landing hole)` for every simple jump.
#[inline]
fn for_each_jump(balls: u64, holes: u64, mut visit: impl FnMut(Chain, u64, u32)) {
    let empty = holes & !balls;
    for (d, &dir) in Direction::ALL.iter().enumerate() {
        for from in Square::iter(jump_sources(balls, empty, dir)) {
            let (over, land) = JUMP_STEPS[from.index() as usize][d];
            visit(
                Chain::single(from, dir),
                balls ^ from.bit() ^ over ^ land,
                land.trailing_zeros(),
            );
        }
    }
}

/// Calls `visit` for every chain of exactly `len` jumps, or with `len == 0` for every chain of
/// any length (the `free-chains` rule).
pub fn for_each_chain(balls: u64, holes: u64, len: usize, visit: &mut impl FnMut(Chain, u64)) {
    fn extend(
        chain: Chain,
        balls: u64,
        holes: u64,
        at: u32,
        len: usize,
        visit: &mut impl FnMut(Chain, u64),
    ) {
        if len == 0 || chain.len() == len {
            visit(chain, balls);
            if len != 0 {
                return;
            }
        }
        for (d, &dir) in Direction::ALL.iter().enumerate() {
            if let Some((next, land)) = jump_from(balls, holes, at, d) {
                extend(chain.push(dir), next, holes, land, len, visit);
            }
        }
    }
    for_each_jump(balls, holes, |chain, after, land| {
        extend(chain, after, holes, land, len, visit)
    });
}

/// The number of chains of exactly `len` jumps (any length ≥ 1 when `len == 0`).
pub fn count_chains(balls: u64, holes: u64, len: usize) -> u64 {
    if len == 1 {
        return simple_jump_count(balls, holes);
    }
    fn count_from(balls: u64, holes: u64, at: u32, remaining: usize, any_length: bool) -> u64 {
        if remaining == 0 && !any_length {
            return 1;
        }
        let mut total = u64::from(any_length);
        for d in 0..4 {
            if let Some((next, land)) = jump_from(balls, holes, at, d) {
                total += count_from(next, holes, land, remaining.saturating_sub(1), any_length);
            }
        }
        total
    }
    let mut total = 0;
    for_each_jump(balls, holes, |_, after, land| {
        total += count_from(after, holes, land, len.saturating_sub(1), len == 0);
    });
    total
}

/// The length of the longest chain (0 when no jump exists). Every shorter length is achievable
/// too (a chain's prefixes are chains), so the legal announcements are exactly `2..=longest`.
pub fn longest_chain(balls: u64, holes: u64) -> u32 {
    // Each jump removes a ball and one ball always remains.
    longest_chain_up_to(balls, holes, balls.count_ones().saturating_sub(1))
}

/// `min(longest chain, cap)`: the search stops as soon as a chain of `cap` jumps is found, which
/// is all a caller needs that only cares about announcements up to `cap`.
pub fn longest_chain_up_to(balls: u64, holes: u64, cap: u32) -> u32 {
    // Most boards have no chain at all: settle those by masks before searching paths.
    if cap < 2 || !has_double_jump(balls, holes) {
        return u32::from(has_jump(balls, holes)).min(cap);
    }
    fn longest_from(balls: u64, holes: u64, at: u32, cap: u32) -> u32 {
        let mut best = 0;
        if cap == 0 {
            return 0;
        }
        for d in 0..4 {
            if let Some((next, land)) = jump_from(balls, holes, at, d) {
                best = best.max(1 + longest_from(next, holes, land, cap - 1));
                if best >= cap {
                    break;
                }
            }
        }
        best
    }
    let mut best = 0;
    for_each_jump(balls, holes, |_, after, land| {
        if best < cap {
            best = best.max(1 + longest_from(after, holes, land, cap - 1));
        }
    });
    best.min(cap)
}

// ---------------------------------------------------------------------------------------------
// Slides

/// A row (lines 0–3, by rank) or a column (lines 4–7, by file) of four slots.
const fn line_slot(line: usize, pos: usize) -> usize {
    if line < 4 {
        line * 4 + pos
    } else {
        pos * 4 + (line - 4)
    }
}

/// Slot mask and hole mask of each subset (4-bit pattern along the line) of each line.
const LINE_MASKS: [[(u16, u64); 16]; 8] = {
    let mut table = [[(0u16, 0u64); 16]; 8];
    let mut line = 0;
    while line < 8 {
        let mut pattern = 0;
        while pattern < 16 {
            let mut pos = 0;
            while pos < 4 {
                if pattern & (1 << pos) != 0 {
                    let slot = line_slot(line, pos);
                    table[line][pattern].0 |= 1 << slot;
                    table[line][pattern].1 |= super::geometry::SLOT_HOLES[slot];
                }
                pos += 1;
            }
            pattern += 1;
        }
        line += 1;
    }
    table
};

/// The 4-bit occupancy pattern of a line.
#[inline]
fn line_pattern(tiles: u16, line: usize) -> usize {
    let t = tiles as usize;
    if line < 4 {
        (t >> (4 * line)) & 0xf
    } else {
        let c = line - 4;
        ((t >> c) & 1) | ((t >> (c + 3)) & 2) | ((t >> (c + 6)) & 4) | ((t >> (c + 9)) & 8)
    }
}

/// The lines (bits 0–3 rows by rank, 4–7 columns by file) holding any of `slots`.
const fn lines_touching(slots: u16) -> u8 {
    let files = slots | slots >> 4 | slots >> 8 | slots >> 12;
    let in_rank = slots | slots >> 1 | slots >> 2 | slots >> 3;
    let ranks = (in_rank & 1) | (in_rank >> 3 & 2) | (in_rank >> 6 & 4) | (in_rank >> 9 & 8);
    (ranks | (files & 0xf) << 4) as u8
}

/// One slide within a line: the rearmost tile's position, the group (as a pattern), the
/// direction (towards higher positions or not) and the distance in slots.
#[derive(Clone, Copy, Debug)]
struct LineSlide {
    rear: u8,
    group: u8,
    forward: bool,
    distance: u8,
}

/// The run of tiles from `rear` onwards in a direction: the group a slide of `rear` carries.
const fn group_from(pattern: usize, rear: usize, forward: bool) -> (u8, usize) {
    let mut group = 0u8;
    let mut pos = rear as i32;
    while pos >= 0 && pos < 4 && pattern & (1 << pos) != 0 {
        group |= 1 << pos;
        pos += if forward { 1 } else { -1 };
    }
    // `pos` is now the first slot past the group (maybe off the line).
    let mut room = 0;
    while pos >= 0 && pos < 4 && pattern & (1 << pos) == 0 {
        room += 1;
        pos += if forward { 1 } else { -1 };
    }
    (group, room)
}

/// Every slide of every line pattern: at most 8 per pattern.
const LINE_SLIDES: [([LineSlide; 8], usize); 16] = {
    let empty = LineSlide {
        rear: 0,
        group: 0,
        forward: false,
        distance: 0,
    };
    let mut table = [([empty; 8], 0usize); 16];
    let mut pattern = 0;
    while pattern < 16 {
        let mut n = 0;
        let mut rear = 0;
        while rear < 4 {
            if pattern & (1 << rear) != 0 {
                let mut f = 0;
                while f < 2 {
                    let forward = f == 0;
                    let (group, room) = group_from(pattern, rear, forward);
                    let mut distance = 1;
                    while distance <= room {
                        table[pattern].0[n] = LineSlide {
                            rear: rear as u8,
                            group,
                            forward,
                            distance: distance as u8,
                        };
                        n += 1;
                        distance += 1;
                    }
                    f += 1;
                }
            }
            rear += 1;
        }
        table[pattern].1 = n;
        pattern += 1;
    }
    table
};

/// The position after sliding `group` of `line` by `distance` slots; the side is unchanged.
#[inline]
fn apply_slide(pos: &Position, line: usize, group: u8, forward: bool, distance: u32) -> Position {
    let (slots, holes) = LINE_MASKS[line][group as usize];
    let (tile_shift, hole_shift) = if line < 4 {
        (distance, 2 * distance)
    } else {
        (4 * distance, 16 * distance)
    };
    let moved_balls = pos.balls & holes;
    let (new_slots, new_holes, new_balls) = if forward {
        (
            slots << tile_shift,
            holes << hole_shift,
            moved_balls << hole_shift,
        )
    } else {
        (
            slots >> tile_shift,
            holes >> hole_shift,
            moved_balls >> hole_shift,
        )
    };
    Position {
        balls: (pos.balls & !holes) | new_balls,
        holes: (pos.holes & !holes) | new_holes,
        tiles: (pos.tiles & !slots) | new_slots,
        ..*pos
    }
}

fn slide_move(line: usize, slide: LineSlide) -> Move {
    let rear = slide.rear as usize;
    let to = if slide.forward {
        rear + slide.distance as usize
    } else {
        rear - slide.distance as usize
    };
    Move::Slide {
        from: Slot::from_index(line_slot(line, rear) as u32),
        to: Slot::from_index(line_slot(line, to) as u32),
        announce: 0,
    }
}

/// Calls `visit(action, position after it)` for every slider action (without announcement):
/// removals of empty tiles first, then slides row by row and column by column. The position
/// passed still has the slider to move.
pub fn for_each_slider_action(pos: &Position, mut visit: impl FnMut(Move, Position)) {
    let _ = try_for_each_slider_action(pos, |action, after| {
        visit(action, after);
        ControlFlow::Continue(())
    });
}

/// [`for_each_slider_action`] that stops as soon as `visit` breaks.
pub fn try_for_each_slider_action(
    pos: &Position,
    mut visit: impl FnMut(Move, Position) -> ControlFlow<()>,
) -> ControlFlow<()> {
    for slot in Slot::iter(pos.tiles) {
        if pos.balls & slot.holes() == 0 {
            let after = Position {
                tiles: pos.tiles & !slot.bit(),
                holes: pos.holes & !slot.holes(),
                ..*pos
            };
            visit(Move::RemoveTile { slot, announce: 0 }, after)?;
        }
    }
    for line in 0..8 {
        let (slides, n) = &LINE_SLIDES[line_pattern(pos.tiles, line)];
        for &slide in &slides[..*n] {
            let after = apply_slide(pos, line, slide.group, slide.forward, slide.distance.into());
            visit(slide_move(line, slide), after)?;
        }
    }
    ControlFlow::Continue(())
}

/// For each hole and direction, the slots of the tiles under that simple jump (jumper, jumped
/// hole, landing hole) and the rows and columns crossing those slots: the tiles an action must
/// slide or remove to take the jump away.
const JUMP_NEEDS: [[(u16, u8); 4]; 64] = {
    let mut table = [[(0u16, 0u8); 4]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 4 {
            let (over, land) = JUMP_STEPS[sq][d];
            let slots = slots_touching(1 << sq | over | land);
            table[sq][d] = (slots, lines_touching(slots));
            d += 1;
        }
        sq += 1;
    }
    table
};

/// True if some slider action leaves the ball player without a jump, which ends the round
/// with every ball still on the board: the best the slider can get.
///
/// An action changes only the tiles it slides or removes, so a jump whose three holes lie on
/// other tiles survives it. Only actions that move or remove a tile under each of two jumps
/// (the first and the last found) are tried.
pub fn slider_can_end_round(pos: &Position) -> bool {
    let empty = pos.holes & !pos.balls;
    // The tiles under the first and the last jump in each direction: an ending action must
    // slide or remove one tile of each set. `common` is the tiles in every set so far (the
    // removals left), `lines` the rows and columns crossing every set (the slides left): when
    // both are empty no action can end the round, which settles most calls after a direction
    // or two.
    let mut needs = [0u16; 8];
    let mut count = 0;
    let mut common = pos.tiles;
    let mut lines = 0xff;
    for (d, &dir) in Direction::ALL.iter().enumerate() {
        let sources = jump_sources(pos.balls, empty, dir);
        if sources == 0 {
            continue;
        }
        for from in [sources.trailing_zeros(), 63 - sources.leading_zeros()] {
            let (need, need_lines) = JUMP_NEEDS[from as usize][d];
            needs[count] = need;
            count += 1;
            common &= need;
            lines &= need_lines;
        }
        if common == 0 && lines == 0 {
            return false;
        }
    }
    if count == 0 {
        // No jump now: any action that makes none ends the round.
        return try_for_each_slider_action(pos, |_, after| {
            if has_jump(after.balls, after.holes) {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        })
        .is_break();
    }
    let needs = &needs[..count];
    let hits_all = |slots: u16| needs.iter().all(|&need| slots & need != 0);
    // A removal takes one tile, in all the sets.
    for slot in Slot::iter(common) {
        if pos.balls & slot.holes() == 0 && !has_jump(pos.balls, pos.holes & !slot.holes()) {
            return true;
        }
    }
    // A slide moves tiles of one row or column: one crossing every set.
    for line in (0..8).filter(|l| lines & 1 << l != 0) {
        let (slides, n) = &LINE_SLIDES[line_pattern(pos.tiles, line)];
        for &slide in &slides[..*n] {
            if !hits_all(LINE_MASKS[line][slide.group as usize].0) {
                continue;
            }
            let after = apply_slide(pos, line, slide.group, slide.forward, slide.distance.into());
            if !has_jump(after.balls, after.holes) {
                return true;
            }
        }
    }
    false
}

/// True if the slider (to move) has an action after which the round ends at once, or after
/// one simple jump whatever the ball player picks.
///
/// The answer is nearly always no (about 1 call in 60 on the jumper suites), so the actions
/// are tried in generation order and each is first held against `Refutations`: an action
/// that leaves one of its pairs of jumps in place cannot work, and about two actions in three
/// are settled so without playing the ball player's replies (first 20 jumper positions of 23
/// balls: 105 M of 155 M actions, counted with triples of jumps). Against ordering the
/// actions by the jumps they leave and trying each in full, the suite's time fell by a
/// quarter at equal node counts.
pub fn slider_can_end_round_after_one_jump(pos: &Position) -> bool {
    let mut refutations = Refutations::of(pos);
    try_for_each_slider_action(pos, |_, after| {
        // A refuting pair leaves jumps, so the round goes on.
        if refutations.refute(&after) {
            return ControlFlow::Continue(());
        }
        if !has_jump(after.balls, after.holes) {
            return ControlFlow::Break(());
        }
        if every_ball_move_lets_slider_end(&Position {
            side: Side::Ball(0),
            ..after
        }) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .is_break()
}

/// Pairs of simple jumps of a slider's position that no single slider action can both take
/// away: no row or column crosses tiles under each (so no tile is under both either). An
/// action that leaves both in place, and leaves the ball player some jump apart from their
/// holes, does not let the slider end the round within one more jump: the ball player makes
/// that jump, which leaves the pair, and no slider action then ends the round.
struct Refutations {
    /// For each pair: the balls its jumps need (jumpers and jumped balls), the empty holes
    /// they land on, and all their holes.
    pairs: [(u64, u64, u64); Refutations::MOST],
    len: usize,
}

impl Refutations {
    /// Enough pairs for most positions: 4, 8, 16 and 32 gave the same time within 5% on the
    /// first 20 jumper positions of 23 balls (measured with triples: a pair and a third jump
    /// of the position apart from it, which took the same time as pairs).
    const MOST: usize = 8;

    fn of(pos: &Position) -> Refutations {
        let empty = pos.holes & !pos.balls;
        // The holes of each jump and the lines crossing the tiles under it.
        let mut holes = [0u64; 32];
        let mut lines = [0u8; 32];
        let mut n = 0;
        'collect: for (d, &dir) in Direction::ALL.iter().enumerate() {
            for from in Square::iter(jump_sources(pos.balls, empty, dir)) {
                if n == holes.len() {
                    break 'collect;
                }
                let (over, land) = JUMP_STEPS[from.index() as usize][d];
                holes[n] = from.bit() | over | land;
                lines[n] = JUMP_NEEDS[from.index() as usize][d].1;
                n += 1;
            }
        }
        let mut out = Refutations {
            pairs: [(0, 0, 0); Refutations::MOST],
            len: 0,
        };
        for i in 0..n {
            for j in i + 1..n {
                // No row or column crosses tiles under both (so no tile is under both).
                if lines[i] & lines[j] != 0 {
                    continue;
                }
                let both = holes[i] | holes[j];
                out.pairs[out.len] = (both & pos.balls, both & empty, both);
                out.len += 1;
                if out.len == Refutations::MOST {
                    return out;
                }
            }
        }
        out
    }

    /// True if both jumps of some pair are still there after an action, with a jump apart from
    /// them. A pair that refutes moves to the front: the next actions are mostly refuted by
    /// the same one.
    fn refute(&mut self, after: &Position) -> bool {
        let empty = after.holes & !after.balls;
        let found = self.pairs[..self.len]
            .iter()
            .position(|&(balls, lands, holes)| {
                after.balls & balls == balls
                    && empty & lands == lands
                    && has_jump(after.balls & !holes, after.holes & !holes)
            });
        if let Some(i) = found {
            self.pairs.swap(0, i);
        }
        found.is_some()
    }
}

/// True if after every move of the ball player to move (`Side::Ball`) the slider can end the
/// round within one more jump, and no move removes more than one ball beyond the least a move
/// removes (one jump, or the announced chain), which is what that costs.
pub fn every_ball_move_lets_slider_end_after_one_jump(pos: &Position) -> bool {
    if pos.side == Side::Ball(0)
        && pos.rules.free_chains
        && longest_chain_up_to(pos.balls, pos.holes, 3) >= 3
    {
        return false; // a chain of three removes two balls too many
    }
    every_ball_move(pos, |extra, after| match extra {
        0 => slider_can_end_round_after_one_jump(after),
        1 => slider_can_end_round(after),
        _ => false,
    })
}

/// True if every move of the ball player to move (`Side::Ball`) leaves the slider a way to end
/// the round at once, and removes no more balls than the least a move removes: then the round
/// ends after this one move, whatever he plays.
pub fn every_ball_move_lets_slider_end(pos: &Position) -> bool {
    if pos.side == Side::Ball(0) && pos.rules.free_chains && has_double_jump(pos.balls, pos.holes) {
        return false; // a chain of two removes a ball too many
    }
    every_ball_move(pos, |extra, after| {
        extra == 0 && slider_can_end_round(after)
    })
}

/// True if `holds(extra, after)` for every move of the ball player to move (`Side::Ball`):
/// `after` is the slider's position after it, `extra` the balls it removes beyond the least a
/// move removes (always 0 but under `free-chains`, where chains of any length are moves).
fn every_ball_move(pos: &Position, mut holds: impl FnMut(u32, &Position) -> bool) -> bool {
    let after = |balls| Position {
        balls,
        side: Side::Slider,
        ..*pos
    };
    match pos.side {
        Side::Ball(0) if pos.rules.free_chains => {
            let mut all = true;
            for_each_chain(pos.balls, pos.holes, 0, &mut |chain, balls| {
                all = all && holds(chain.len() as u32 - 1, &after(balls));
            });
            all
        }
        Side::Ball(n) => every_chain(pos.balls, pos.holes, usize::from(n.max(1)), |balls| {
            holds(0, &after(balls))
        }),
        _ => false,
    }
}

/// True if `holds(balls after it)` for every chain of exactly `len` ≥ 1 jumps; stops at the
/// first that fails.
pub fn every_chain(balls: u64, holes: u64, len: usize, mut holds: impl FnMut(u64) -> bool) -> bool {
    // Chains of exactly `len` jumps, depth first; stops at the first that fails.
    fn all_from(
        balls: u64,
        holes: u64,
        at: u32,
        left: usize,
        holds: &mut impl FnMut(u64) -> bool,
    ) -> bool {
        if left == 0 {
            return holds(balls);
        }
        (0..4).all(|d| match jump_from(balls, holes, at, d) {
            Some((next, land)) => all_from(next, holes, land, left - 1, holds),
            None => true,
        })
    }
    let empty = holes & !balls;
    for (d, &dir) in Direction::ALL.iter().enumerate() {
        for from in Square::iter(jump_sources(balls, empty, dir)) {
            let (over, land) = JUMP_STEPS[from.index() as usize][d];
            let after = balls ^ from.bit() ^ over ^ land;
            if !all_from(
                after,
                holes,
                land.trailing_zeros(),
                len.saturating_sub(1),
                &mut holds,
            ) {
                return false;
            }
        }
    }
    true
}

/// The position after the slide `from`-`to` (side unchanged), or `None` if it is not a
/// legal slide: no tile on `from`, not in one line, blocked, or off the tray.
pub fn slide_result(pos: &Position, from: Slot, to: Slot) -> Option<Position> {
    let (line, a, b) = if from.rank() == to.rank() {
        (
            from.rank() as usize,
            from.file() as usize,
            to.file() as usize,
        )
    } else if from.file() == to.file() {
        (
            4 + from.file() as usize,
            from.rank() as usize,
            to.rank() as usize,
        )
    } else {
        return None;
    };
    if a == b {
        return None;
    }
    let (group, room) = group_from(line_pattern(pos.tiles, line), a, b > a);
    let distance = a.abs_diff(b);
    (group != 0 && distance <= room).then(|| apply_slide(pos, line, group, b > a, distance as u32))
}

// ---------------------------------------------------------------------------------------------
// Whole-position generation

impl Position {
    /// Appends every legal move; a slider action is followed by its announcements.
    pub fn generate_moves(&self, moves: &mut Vec<Move>) {
        match self.side {
            Side::Slider => for_each_slider_action(self, |action, after| {
                moves.push(action);
                for n in 2..=longest_chain(after.balls, after.holes) as u8 {
                    moves.push(action.with_announcement(n));
                }
            }),
            _ => self.generate_moves_announcing_at_most(u8::MAX, moves),
        }
    }

    /// The legal moves without slider moves announcing more than `max_announcement` jumps,
    /// cheaper because chains are searched only as far as that length. Slider moves come as
    /// every action without an announcement, then the announcements of 2, 3, … jumps (each over
    /// the actions allowing it), so that the list for any limit is a prefix of the full one.
    pub fn generate_moves_announcing_at_most(&self, max_announcement: u8, moves: &mut Vec<Move>) {
        match self.side {
            Side::OpeningRemoval => moves.extend(Square::iter(self.balls).map(Move::RemoveBall)),
            Side::Ball(n) => {
                let len = match n {
                    0 if self.rules.free_chains => 0,
                    0 => 1,
                    n => n as usize,
                };
                for_each_chain(self.balls, self.holes, len, &mut |chain, _| {
                    moves.push(Move::Jump(chain))
                });
            }
            Side::Slider => {
                let first = moves.len();
                // At most 12 tile removals and 8 slides in each of the 8 lines.
                let mut longest = [0u8; 12 + 64];
                let mut most = 0;
                for_each_slider_action(self, |action, after| {
                    let n = longest_chain_up_to(after.balls, after.holes, max_announcement.into())
                        as u8;
                    longest[moves.len() - first] = n;
                    most = most.max(n);
                    moves.push(action);
                });
                let actions = moves.len() - first;
                for n in 2..=most {
                    for i in 0..actions {
                        if longest[i] >= n {
                            moves.push(moves[first + i].with_announcement(n));
                        }
                    }
                }
            }
        }
    }

    /// The number of legal moves, without building them.
    pub fn move_count(&self) -> u64 {
        match self.side {
            Side::OpeningRemoval => u64::from(self.balls.count_ones()),
            Side::Ball(0) if self.rules.free_chains => count_chains(self.balls, self.holes, 0),
            Side::Ball(0) => simple_jump_count(self.balls, self.holes),
            Side::Ball(n) => count_chains(self.balls, self.holes, n as usize),
            Side::Slider => {
                let mut total = 0;
                for_each_slider_action(self, |_, after| {
                    // The action alone, plus one move per announcement 2..=longest.
                    total += u64::from(longest_chain(after.balls, after.holes).max(1));
                });
                total
            }
        }
    }

    /// The position after `mv`, which must be legal here.
    pub fn play(&self, mv: Move) -> Position {
        match mv {
            Move::RemoveBall(sq) => Position {
                balls: self.balls & !sq.bit(),
                side: Side::Slider,
                ..*self
            },
            Move::Jump(chain) => {
                let mut balls = self.balls;
                let mut at = chain.from().index();
                for dir in chain.directions() {
                    let (next, land) = jump_from(balls, self.holes, at, dir as usize)
                        .expect("play: chain must be legal");
                    balls = next;
                    at = land;
                }
                Position {
                    balls,
                    side: Side::Slider,
                    ..*self
                }
            }
            Move::Slide { from, to, announce } => Position {
                side: Side::Ball(announce),
                ..slide_result(self, from, to).expect("play: slide must be legal")
            },
            Move::RemoveTile { slot, announce } => Position {
                tiles: self.tiles & !slot.bit(),
                holes: self.holes & !slot.holes(),
                side: Side::Ball(announce),
                ..*self
            },
        }
    }

    /// True when the round is over: the ball player has no jump. An announcement always has its
    /// chain (positions are built that way), and the slider can always move while a tile is
    /// left: with at most 12 tiles some slot is empty, and in the connected 4×4 tray some tile
    /// is next to an empty slot and can slide into it.
    pub fn is_over(&self) -> bool {
        match self.side {
            Side::OpeningRemoval => self.balls == 0,
            Side::Ball(0) | Side::Ball(1) => !has_jump(self.balls, self.holes),
            Side::Ball(_) => false,
            Side::Slider => self.tiles == 0,
        }
    }

    /// The longest chain available to the ball player on this board.
    pub fn longest_chain(&self) -> u32 {
        longest_chain(self.balls, self.holes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift generator of random boards, reproducible by its seed.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    #[test]
    fn lines_touching_matches_the_line_masks() {
        for slots in 0..=u16::MAX {
            let expected = (0..8).fold(0u8, |acc, line| {
                acc | u8::from(LINE_MASKS[line][15].0 & slots != 0) << line
            });
            assert_eq!(lines_touching(slots), expected, "{slots:#06x}");
        }
    }

    #[test]
    fn jump_slots_are_the_tiles_under_some_jump() {
        use super::super::geometry::holes_of;
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut with_jumps = 0;
        for _ in 0..2000 {
            let tiles = (next() as u16) & (next() as u16 | next() as u16);
            let holes = holes_of(tiles);
            let balls = holes & (next() | next());
            // Square by square: a ball, a ball next to it, a hole behind that is empty.
            let mut expected = 0u16;
            for from in Square::iter(balls) {
                for dir in Direction::ALL {
                    let (Some(over), Some(land)) = (from.offset(dir, 1), from.offset(dir, 2))
                    else {
                        continue;
                    };
                    if balls & over.bit() != 0 && holes & !balls & land.bit() != 0 {
                        for sq in [from, over, land] {
                            expected |= sq.slot().bit();
                        }
                    }
                }
            }
            with_jumps += usize::from(expected != 0);
            assert_eq!(jump_slots(balls, holes), expected, "{balls:#x} {tiles:#x}");
        }
        assert!(with_jumps > 500, "only {with_jumps} boards with a jump");
    }

    #[test]
    fn a_refuting_pair_leaves_a_jump_the_slider_cannot_answer() {
        use super::super::geometry::holes_of;
        use super::super::position::Rules;
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let (mut refuted, mut searched) = (0, 0);
        for round in 0..6000 {
            // Dense trays (few slides) and sparse ones (many).
            let tiles = if round % 2 == 0 {
                (next() as u16) | (next() as u16)
            } else {
                (next() as u16) & (next() as u16 | next() as u16)
            };
            let holes = holes_of(tiles);
            let balls = holes & (next() | next());
            let pos = Position {
                balls,
                holes,
                tiles,
                side: Side::Slider,
                rules: Rules::default(),
            };
            let mut refutations = Refutations::of(&pos);
            for_each_slider_action(&pos, |_, after| {
                let ball = Position {
                    side: Side::Ball(0),
                    ..after
                };
                if refutations.refute(&after) {
                    refuted += 1;
                    // The refutation's claim, checked by the slower test it replaces.
                    assert!(
                        has_jump(after.balls, after.holes)
                            && !every_ball_move_lets_slider_end(&ball),
                        "{pos} then {after}"
                    );
                } else if has_jump(after.balls, after.holes) {
                    searched += 1;
                }
            });
        }
        // Both paths are taken often enough for the check to mean something.
        assert!(
            refuted > 10_000 && searched > 10_000,
            "{refuted} {searched}"
        );
    }

    /// `every_chain` against the chains `for_each_chain` lists: the same verdict for chains of
    /// one to four jumps, and no chain tested after the first that fails.
    #[test]
    fn every_chain_holds_as_the_listed_chains_do() {
        use super::super::geometry::holes_of;
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let (mut held, mut failed) = (0, 0);
        for _ in 0..3000 {
            let tiles = (next() as u16) | (next() as u16);
            let holes = holes_of(tiles);
            let balls = holes & (next() | next());
            // A property of the balls after a chain that holds about as often as not.
            let salt = next();
            let holds = |after: u64| (after ^ salt).wrapping_mul(0x2545_f491_4f6c_dd1d) >> 63 == 0;
            for len in 1..=4 {
                let mut listed = Vec::new();
                for_each_chain(balls, holes, len, &mut |_, after| listed.push(after));
                let expected = listed.iter().all(|&after| holds(after));
                let mut tested = Vec::new();
                let verdict = every_chain(balls, holes, len, |after| {
                    tested.push(after);
                    holds(after)
                });
                assert_eq!(verdict, expected, "{balls:#x} on {tiles:#x}, {len} jumps");
                // The chains tested are the listed ones in order, up to the first failure.
                let stop = listed
                    .iter()
                    .position(|&a| !holds(a))
                    .map_or(listed.len(), |i| i + 1);
                assert_eq!(
                    tested,
                    listed[..stop],
                    "{balls:#x} on {tiles:#x}, {len} jumps"
                );
                if !listed.is_empty() {
                    if expected {
                        held += 1;
                    } else {
                        failed += 1;
                    }
                }
            }
        }
        assert!(held > 500 && failed > 500, "{held} held, {failed} failed");
    }
}
