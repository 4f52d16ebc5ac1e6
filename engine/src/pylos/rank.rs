//! Compact ranking of positions for a retrograde tablebase.
//!
//! index = 2 × (offset of the occupancy pattern + colouring index) + (1 if white to move).
//! Occupancy patterns are the sets of cells in which every ball rests on four balls (sorted, so
//! a pattern's index is a binary search); the colouring index of a pattern of `n` balls ranks
//! the black subset first by its size `b` (with `b ≤ 15` and `n - b ≤ 15`), then by the
//! combinatorial number system over the balls in cell order. The map is a bijection between
//! positions (under one rule set) and `0..Indexer::count()`. The 15 becomes 7 on the 3×3 board
//! ([`Indexer::for_board`]), whose patterns are those within its cells.

use super::cell::{supported, LEVEL_MASK};
use super::position::{Color, Position};
use super::rules::{Board, Rules};
use crate::combinatorics::BINOMIAL;

/// Colourings of `n` balls with at most `max` of each colour.
pub(crate) const fn colourings(n: u32, max: u32) -> u64 {
    let mut total = 0;
    let mut b = 0;
    while b <= n {
        if b <= max && n - b <= max {
            total += BINOMIAL[n as usize][b as usize];
        }
        b += 1;
    }
    total
}

/// Every stable occupancy pattern of a board (every ball rests on four balls), sorted.
pub fn stable_patterns(board: Board) -> Vec<u32> {
    let cells = board.cells();
    let mut patterns = Vec::new();
    for l0 in subsets(cells & LEVEL_MASK[0]) {
        let s1 = supported(l0) & LEVEL_MASK[1] & cells;
        for l1 in subsets(s1) {
            let s2 = supported(l0 | l1) & LEVEL_MASK[2] & cells;
            for l2 in subsets(s2) {
                let s3 = supported(l0 | l1 | l2) & LEVEL_MASK[3] & cells;
                for l3 in subsets(s3) {
                    patterns.push(l0 | l1 | l2 | l3);
                }
            }
        }
    }
    patterns.sort_unstable();
    patterns
}

/// The colourings of `n` balls with fewer than `b` own balls (at most `max` of each colour):
/// the first colouring index of the colourings with `b` own balls.
const fn fewer_own(n: usize, b: usize, max: u32) -> u64 {
    let mut total = 0;
    let mut smaller = 0;
    while smaller < b && smaller <= n {
        if n - smaller <= max as usize && smaller <= max as usize {
            total += BINOMIAL[n][smaller];
        }
        smaller += 1;
    }
    total
}

/// [`fewer_own`] for every `n ≤ 30` and `b ≤ 15`: summing it in [`colouring_rank`] was a sixth
/// of the ranking time of a tablebase build (`perf`, the `pylos-space` bench).
const fn fewer_own_table(max: u32) -> [[u64; 16]; 31] {
    let mut t = [[0u64; 16]; 31];
    let mut n = 0;
    while n < 31 {
        let mut b = 0;
        while b < 16 {
            t[n][b] = fewer_own(n, b, max);
            b += 1;
        }
        n += 1;
    }
    t
}

/// [`fewer_own_table`] of the full board (15 balls a colour).
static FEWER_OWN_15: [[u64; 16]; 31] = fewer_own_table(15);
/// [`fewer_own_table`] of the 3×3 board (7 balls a colour).
static FEWER_OWN_7: [[u64; 16]; 31] = fewer_own_table(7);

/// The colouring index of `own` within the occupancy `occ` (at most `max` balls a colour).
pub(crate) fn colouring_rank(occ: u32, own: u32, max: u32) -> u64 {
    let n = occ.count_ones() as usize;
    let b = own.count_ones() as usize;
    let mut index = match max {
        15 => FEWER_OWN_15[n][b],
        7 => FEWER_OWN_7[n][b],
        _ => fewer_own(n, b, max),
    };
    // The j-th own ball (from 1) with `seen` balls of `occ` before it adds C(seen, j). A loop
    // over the own balls alone, counting the balls before each with one POPCNT, rather than a
    // branch on every ball of `occ` (mispredicted half the time: a fifth of a tablebase build's
    // ranking time, `perf`).
    let mut chosen = 0usize;
    let mut m = own;
    while m != 0 {
        let c = m.trailing_zeros();
        m &= m - 1;
        chosen += 1;
        let seen = (occ & ((1u32 << c) - 1)).count_ones() as usize;
        index += BINOMIAL[seen][chosen];
    }
    index
}

/// The inverse of [`colouring_rank`]: the `own` balls of colouring `index` of `occ`.
pub(crate) fn colouring_unrank(occ: u32, mut index: u64, max: u32) -> u32 {
    let n = occ.count_ones();
    let mut b = 0;
    loop {
        if n - b <= max && b <= max {
            let size = BINOMIAL[n as usize][b as usize];
            if index < size {
                break;
            }
            index -= size;
        }
        b += 1;
    }
    let mut cells = [0u8; 32];
    let mut len = 0;
    let mut m = occ;
    while m != 0 {
        cells[len] = m.trailing_zeros() as u8;
        m &= m - 1;
        len += 1;
    }
    let mut own = 0u32;
    let mut chosen = b as usize;
    let mut seen = len;
    while chosen > 0 {
        seen -= 1;
        if BINOMIAL[seen][chosen] <= index {
            index -= BINOMIAL[seen][chosen];
            own |= 1 << cells[seen];
            chosen -= 1;
        }
    }
    own
}

/// The occupancy-pattern table behind [`Indexer::rank`] and [`Indexer::unrank`].
#[derive(Clone, Debug)]
pub struct Indexer {
    board: Board,
    patterns: Vec<u32>,
    offsets: Vec<u64>,
    total: u64,
}

impl Default for Indexer {
    fn default() -> Self {
        Indexer::new()
    }
}

impl Indexer {
    /// Enumerates every stable occupancy pattern of the full board (a fraction of a second).
    pub fn new() -> Indexer {
        Indexer::for_board(Board::Four)
    }

    /// Enumerates every stable occupancy pattern of `board`.
    pub fn for_board(board: Board) -> Indexer {
        let patterns = stable_patterns(board);
        let mut offsets = Vec::with_capacity(patterns.len());
        let mut total = 0u64;
        for &p in &patterns {
            offsets.push(total);
            total += colourings(p.count_ones(), board.balls());
        }
        Indexer {
            board,
            patterns,
            offsets,
            total: 2 * total,
        }
    }

    /// The board indexed.
    pub fn board(&self) -> Board {
        self.board
    }

    /// Number of stable occupancy patterns.
    pub fn patterns(&self) -> usize {
        self.patterns.len()
    }

    /// Number of indices (positions under one rule set, both sides to move).
    pub fn count(&self) -> u64 {
        self.total
    }

    /// The index of a position of the indexer's board (its other rules are not part of it).
    pub fn rank(&self, pos: &Position) -> u64 {
        let max = self.board.balls();
        let occ = pos.occupied();
        let k = self
            .patterns
            .binary_search(&occ)
            .expect("a position's occupancy is stable");
        let index = colouring_rank(occ, pos.balls(Color::Black), max);
        2 * (self.offsets[k] + index) + (pos.turn() == Color::White) as u64
    }

    /// The position with this index under `rules` (on the indexer's board, whatever
    /// `rules.board` says), `None` when out of range.
    pub fn unrank(&self, index: u64, rules: Rules) -> Option<Position> {
        if index >= self.total {
            return None;
        }
        let rules = rules.on(self.board);
        let max = self.board.balls();
        let turn = if index & 1 == 1 {
            Color::White
        } else {
            Color::Black
        };
        let rest = index / 2;
        let k = self.offsets.partition_point(|&o| o <= rest) - 1;
        let occ = self.patterns[k];
        let black = colouring_unrank(occ, rest - self.offsets[k], max);
        let white = occ & !black;
        Position::from_masks(black, white, turn, rules).ok()
    }
}

pub(crate) fn subsets(mask: u32) -> impl Iterator<Item = u32> {
    // Every subset of `mask`, 0 first.
    let mut next = Some(0u32);
    std::iter::from_fn(move || {
        let cur = next?;
        next = if cur == mask {
            None
        } else {
            Some((cur.wrapping_sub(mask)) & mask)
        };
        Some(cur)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pylos::cell::{ALL, CELLS3};
    use crate::Game;

    #[test]
    fn the_small_board_indexes_every_position_once() {
        let indexer = Indexer::for_board(Board::Three);
        assert_eq!(*indexer.patterns.last().unwrap(), CELLS3);
        let rules = Rules::default().on(Board::Three);
        for i in 0..indexer.count() {
            let pos = indexer.unrank(i, rules).expect("in range");
            assert_eq!(pos.board(), Board::Three);
            assert_eq!(indexer.rank(&pos), i);
        }
        assert_eq!(indexer.unrank(indexer.count(), rules), None);
        // Brute force: every pair of disjoint masks on the 14 cells with at most 7 balls a
        // colour whose balls all rest on four balls, times two sides to move.
        let cells: Vec<u32> = (0..30).filter(|c| CELLS3 & 1 << c != 0).collect();
        let mut legal = 0u64;
        for code in 0..3u32.pow(14) {
            let (mut black, mut white, mut x) = (0u32, 0u32, code);
            for &c in &cells {
                match x % 3 {
                    1 => black |= 1 << c,
                    2 => white |= 1 << c,
                    _ => {}
                }
                x /= 3;
            }
            if Position::from_masks(black, white, Color::Black, rules).is_ok() {
                legal += 2;
            }
        }
        assert_eq!(indexer.count(), legal);
    }

    #[test]
    fn rank_and_unrank_are_inverse_on_game_positions() {
        let indexer = Indexer::new();
        // Every stable pattern counted once; the full board is one of them.
        assert!(indexer.patterns.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(*indexer.patterns.last().unwrap(), ALL);
        let rules = Rules::default();
        let mut seen = std::collections::HashSet::new();
        let mut frontier = vec![Position::start(rules)];
        for _ in 0..4 {
            let mut next = Vec::new();
            for pos in &frontier {
                let i = indexer.rank(pos);
                assert!(i < indexer.count());
                assert_eq!(indexer.unrank(i, rules), Some(*pos));
                seen.insert(i);
                let mut moves = Vec::new();
                pos.legal_moves(&mut moves);
                next.extend(moves.iter().map(|&m| pos.play(m)));
            }
            next.sort_by_key(|p| (p.black, p.white));
            next.dedup();
            frontier = next;
        }
        assert!(seen.len() > 1000);
    }

    #[test]
    fn unrank_then_rank_is_identity_on_samples() {
        let indexer = Indexer::new();
        let rules = Rules::default();
        let step = indexer.count() / 100_003 + 1;
        let mut i = 0;
        while i < indexer.count() {
            let pos = indexer.unrank(i, rules).expect("in range");
            assert_eq!(indexer.rank(&pos), i);
            i += step;
        }
        let last = indexer.count() - 1;
        assert_eq!(indexer.rank(&indexer.unrank(last, rules).unwrap()), last);
        assert_eq!(indexer.unrank(indexer.count(), rules), None);
    }
}
