//! Move generation and bulk move counting by mask arithmetic.
//!
//! Both boards share the code: the 3×3 board is a sub-pyramid of the 30-cell numbering, so
//! only its cells in play, its apex, its patterns and its ball count differ (from the rules).
//!
//! Placements go to every landable empty cell while the mover has a ball in reserve. Raises take
//! a free own ball to a landable empty cell on a strictly higher level that does not rest on it
//! (`targets = landable & ABOVE_LEVEL[level] & !RESTING[source]`): a free ball supports nothing,
//! so removing it leaves every other target landable. A raise can never reach the apex: when
//! level 2 is full every ball below it is covered and every level-2 ball supports the apex.
//!
//! A move that completes a pattern through its target (own-colour square; in `mature` also a
//! line) allows taking back up to two own free balls. With `F` the free own balls after the move
//! (it always contains the moved ball), the distinct take-back sets are: nothing (only when
//! optional), `{a}` for `a` in `F`, `{a, b}` for two balls of `F`, and `{a, b}` where `a` in `F`
//! is the only ball resting on the own ball `b` (free once `a` is gone).

use super::cell::{self, ABOVE_LEVEL, LEVEL_START, RESTING, SUPPORTS};
use super::mv::Move;
use super::position::Position;
use super::rules::{Board, Takeback, Variant};

/// Cells a ball on cell `s` could be raised to, if they are landable and empty.
#[inline]
pub(crate) const fn raise_targets(s: usize) -> u32 {
    let level = if s < LEVEL_START[1] as usize {
        0
    } else if s < LEVEL_START[2] as usize {
        1
    } else if s < LEVEL_START[3] as usize {
        2
    } else {
        3
    };
    ABOVE_LEVEL[level] & !RESTING[s]
}

/// The landable empty cells whose filling by an own ball completes a take-back pattern.
#[inline(always)]
fn completing(pos: &Position, board: Board, own: u32, landable: u32) -> u32 {
    // One arm per pattern table, so that each loop has a constant trip count (measured with
    // cachegrind on perft: a loop over `Rules::patterns()`'s slice costs more instructions).
    let out = match (board, pos.rules.variant) {
        (_, Variant::Children) => 0,
        (Board::Four, Variant::Standard) => completing_in(&cell::SQUARES, own),
        (Board::Four, Variant::Mature) => completing_in(&cell::SQUARES_AND_LINES, own),
        (Board::Three, Variant::Standard) => completing_in(&cell::SQUARES3, own),
        (Board::Three, Variant::Mature) => completing_in(&cell::SQUARES_AND_LINES3, own),
    };
    out & landable
}

/// The cells whose filling by an own ball completes one of `patterns`.
#[inline(always)]
fn completing_in<const N: usize>(patterns: &[u32; N], own: u32) -> u32 {
    let mut out = 0;
    for &p in patterns {
        let missing = p & !own;
        if missing & missing.wrapping_sub(1) == 0 {
            out |= missing;
        }
    }
    out
}

/// Number of take-back choices after a pattern-completing move leading to `own`/`occ`.
#[inline]
fn takeback_count(own: u32, occ: u32, takeback: Takeback) -> u64 {
    let free = own & !cell::covered(occ);
    let f = free.count_ones() as u64;
    let mut n = f + f * f.saturating_sub(1) / 2;
    // Pairs {a, b}: `a` free, `b` own and covered by `a` alone.
    let mut upper = free & !0xFFFF;
    while upper != 0 {
        let a = upper.trailing_zeros() as usize;
        upper &= upper - 1;
        let mut below = SUPPORTS[a] & own;
        while below != 0 {
            let b = below.trailing_zeros() as usize;
            below &= below - 1;
            if occ & RESTING[b] == 1 << a {
                n += 1;
            }
        }
    }
    if takeback == Takeback::Optional || n == 0 {
        n += 1;
    }
    n
}

/// Pushes `base` with every take-back choice after it leads to `own`/`occ`.
fn push_takebacks(base: Move, own: u32, occ: u32, takeback: Takeback, moves: &mut Vec<Move>) {
    let free = own & !cell::covered(occ);
    if takeback == Takeback::Optional || free == 0 {
        // free is never empty (the moved ball is free); the guard keeps the move playable.
        moves.push(base);
    }
    let mut a_set = free;
    while a_set != 0 {
        let a = a_set.trailing_zeros() as usize;
        a_set &= a_set - 1;
        moves.push(base.with_taken(1 << a));
        let mut b_set = a_set;
        while b_set != 0 {
            let b = b_set.trailing_zeros() as usize;
            b_set &= b_set - 1;
            moves.push(base.with_taken(1 << a | 1 << b));
        }
        let mut below = SUPPORTS[a] & own;
        while below != 0 {
            let b = below.trailing_zeros() as usize;
            below &= below - 1;
            if occ & RESTING[b] == 1 << a {
                moves.push(base.with_taken(1 << a | 1 << b));
            }
        }
    }
}

/// Whether [`generate`] lists `mv` for `pos`, decided without listing the moves: the same
/// conditions, for one move. A tablebase build asks it of every un-move candidate with a
/// take-back, where listing the candidate position's moves (take-back pairs included) was 40%
/// of the un-moves' time (`perf`, the `pylos-space` bench).
pub(crate) fn is_generated(pos: &Position, mv: Move) -> bool {
    let board = pos.rules.board;
    let occ = pos.occupied();
    if occ & board.apex() != 0 {
        return false;
    }
    let own = pos.own();
    let to = mv.to().index();
    let t = 1u32 << to;
    let landable = cell::supported(occ) & !occ & board.cells();
    if landable & t == 0 {
        return false;
    }
    let (own2, occ2) = match mv.from() {
        None if own.count_ones() >= board.balls() => return false,
        None => (own | t, occ | t),
        Some(from) => {
            let s = from.index();
            let free = own & !cell::covered(occ);
            if free & 1 << s == 0 || raise_targets(s) & t == 0 {
                return false;
            }
            (own & !(1 << s) | t, occ & !(1 << s) | t)
        }
    };
    if completing(pos, board, own, landable) & t == 0 {
        return mv.taken() == 0;
    }
    takeback_listed(own2, occ2, pos.rules.takeback, mv.taken())
}

/// Whether [`push_takebacks`] lists the take-back `taken` after a move leading to `own`/`occ`.
fn takeback_listed(own: u32, occ: u32, takeback: Takeback, taken: u32) -> bool {
    let free = own & !cell::covered(occ);
    match taken.count_ones() {
        0 => takeback == Takeback::Optional || free == 0,
        1 => free & taken != 0,
        2 => {
            if taken & !free == 0 {
                return true;
            }
            // One free ball `a`, and `b` an own support of `a` covered by `a` alone.
            let a = taken & free;
            if a.count_ones() != 1 {
                return false;
            }
            let (a, b) = (
                a.trailing_zeros() as usize,
                (taken & !a).trailing_zeros() as usize,
            );
            SUPPORTS[a] & own & 1 << b != 0 && occ & RESTING[b] == 1 << a
        }
        _ => false,
    }
}

/// Appends every legal move of `pos`.
pub(crate) fn generate(pos: &Position, moves: &mut Vec<Move>) {
    match pos.rules.board {
        Board::Four => generate_on::<false>(pos, moves),
        Board::Three => generate_on::<true>(pos, moves),
    }
}

/// The board of a move generator monomorphised for it (its tables are then constants: on
/// perft, a board read at run time costs about 5% more instructions, measured with cachegrind).
#[inline(always)]
const fn board_of<const THREE: bool>() -> Board {
    if THREE {
        Board::Three
    } else {
        Board::Four
    }
}

/// [`generate`] on one board.
fn generate_on<const THREE: bool>(pos: &Position, moves: &mut Vec<Move>) {
    let occ = pos.occupied();
    let board = board_of::<THREE>();
    if occ & board.apex() != 0 {
        return;
    }
    let own = pos.own();
    let landable = cell::supported(occ) & !occ & board.cells();
    let completing = completing(pos, board, own, landable);
    let takeback = pos.rules.takeback;
    if own.count_ones() < board.balls() {
        let mut targets = landable;
        while targets != 0 {
            let t = targets.trailing_zeros() as usize;
            targets &= targets - 1;
            let mv = Move::from_parts(None, t, 0);
            if completing & (1 << t) != 0 {
                push_takebacks(mv, own | 1 << t, occ | 1 << t, takeback, moves);
            } else {
                moves.push(mv);
            }
        }
    }
    let mut sources = own & !cell::covered(occ);
    while sources != 0 {
        let s = sources.trailing_zeros() as usize;
        sources &= sources - 1;
        let mut targets = landable & raise_targets(s);
        while targets != 0 {
            let t = targets.trailing_zeros() as usize;
            targets &= targets - 1;
            let mv = Move::from_parts(Some(s), t, 0);
            if completing & (1 << t) != 0 {
                let own2 = own & !(1 << s) | 1 << t;
                let occ2 = occ & !(1 << s) | 1 << t;
                push_takebacks(mv, own2, occ2, takeback, moves);
            } else {
                moves.push(mv);
            }
        }
    }
}

/// The number of legal moves of `pos`, without building them.
pub(crate) fn count(pos: &Position) -> u64 {
    match pos.rules.board {
        Board::Four => count_on::<false>(pos),
        Board::Three => count_on::<true>(pos),
    }
}

/// [`count`] on one board.
fn count_on<const THREE: bool>(pos: &Position) -> u64 {
    let occ = pos.occupied();
    let board = board_of::<THREE>();
    if occ & board.apex() != 0 {
        return 0;
    }
    let own = pos.own();
    let landable = cell::supported(occ) & !occ & board.cells();
    let completing = completing(pos, board, own, landable);
    let takeback = pos.rules.takeback;
    let mut n = 0u64;
    if own.count_ones() < board.balls() {
        n += (landable & !completing).count_ones() as u64;
        let mut c = completing;
        while c != 0 {
            let t = c.trailing_zeros() as usize;
            c &= c - 1;
            n += takeback_count(own | 1 << t, occ | 1 << t, takeback);
        }
    }
    let mut sources = own & !cell::covered(occ);
    while sources != 0 {
        let s = sources.trailing_zeros() as usize;
        sources &= sources - 1;
        let targets = landable & raise_targets(s);
        n += (targets & !completing).count_ones() as u64;
        let mut c = targets & completing;
        while c != 0 {
            let t = c.trailing_zeros() as usize;
            c &= c - 1;
            let own2 = own & !(1 << s) | 1 << t;
            let occ2 = occ & !(1 << s) | 1 << t;
            n += takeback_count(own2, occ2, takeback);
        }
    }
    n
}
