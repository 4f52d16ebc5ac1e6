//! The combinatorial index of home-board distributions: a bijection between the 54,264 ways to
//! put up to 15 checkers on 6 points and `0..54_264`.
//!
//! Positions are grouped in tiers by their number of checkers, GamesmanOne style: tier `n`
//! holds the `C(n + 5, 5)` distributions of `n` checkers and occupies the index range
//! `C(n + 5, 6) .. C(n + 6, 6)`. A bear-off play never adds a checker, so every child of a
//! position lies in its own tier (with fewer pips) or in a lower one.
//!
//! Within a tier the order is GNU Backgammon's (`PositionBearoff`), so an index here is
//! gnubg's bearoff position number (the fixture test checks it): the counts `c0..c5` (ace
//! point first) of `n` checkers become the 5-subset `s1 < … < s5` of `0..n + 5` with
//! `s_k = k − 1 + (checkers on the top k points)`, ranked in the combinatorial number system:
//! `Σ C(s_k, k)`. All checkers on the ace point come first, all on the 6-point last; with the
//! tier offset, `C(n + 5, 6) = C(s6, 6)` for `s6 = n + 5`, the index is gnubg's colex rank of
//! the 6-subset.

use super::{Board, MAX_CHECKERS, POINTS};

/// C(n, k) as an index (n ≤ 30).
const fn binomial(n: usize, k: usize) -> usize {
    tabula_engine::combinatorics::binomial(n, k) as usize
}

/// The number of ways to put `checkers` checkers on `points` points (`points ≥ 1`).
const fn distributions(checkers: usize, points: usize) -> usize {
    binomial(checkers + points - 1, points - 1)
}

/// The number of positions with exactly `checkers` checkers on the 6 home points.
pub const fn tier_size(checkers: usize) -> usize {
    distributions(checkers, POINTS)
}

/// The index of the first position of the tier with `checkers` checkers (also the number of
/// positions with fewer checkers).
pub const fn tier_start(checkers: usize) -> usize {
    binomial(checkers + POINTS - 1, POINTS)
}

/// The number of positions with at most `max_checkers` checkers.
pub const fn positions_up_to(max_checkers: usize) -> usize {
    tier_start(max_checkers + 1)
}

/// The index of a distribution (at most 15 checkers; more is a caller bug and panics).
pub fn rank(board: &Board) -> usize {
    let n: usize = board.iter().map(|&c| c as usize).sum();
    assert!(n <= MAX_CHECKERS, "{n} checkers: at most {MAX_CHECKERS}");
    tier_start(n) + rank_in_tier(board)
}

/// The rank of `board` within its tier.
fn rank_in_tier(board: &Board) -> usize {
    let mut r = 0;
    let mut top = 0;
    for k in 1..POINTS {
        top += board[POINTS - k] as usize;
        r += binomial(k - 1 + top, k);
    }
    r
}

/// The distribution with index `index` (`< 54_264`; more panics).
pub fn unrank(index: usize) -> Board {
    assert!(
        index < positions_up_to(MAX_CHECKERS),
        "index {index} out of range"
    );
    let mut n = 0;
    while tier_start(n + 1) <= index {
        n += 1;
    }
    let mut r = index - tier_start(n);
    // s_k for k = 5 down to 1: the largest s with C(s, k) <= r, below s_{k+1}.
    let mut s = [0usize; POINTS];
    let mut below = n + POINTS - 1;
    for k in (1..POINTS).rev() {
        let mut v = below - 1;
        while binomial(v, k) > r {
            v -= 1;
        }
        r -= binomial(v, k);
        s[k] = v;
        below = v;
    }
    // s_k - s_{k-1} - 1 checkers on point 6 - k + 1 (index POINTS - k), s_1 on the 6-point.
    let mut board = [0u8; POINTS];
    board[POINTS - 1] = s[1] as u8;
    for k in 2..POINTS {
        board[POINTS - k] = (s[k] - s[k - 1] - 1) as u8;
    }
    board[0] = (n - checkers(&board)) as u8;
    board
}

/// Checkers on the board.
pub fn checkers(board: &Board) -> usize {
    board.iter().map(|&c| c as usize).sum()
}

/// Pip count (a checker on point `i + 1` counts `i + 1`).
pub fn pips(board: &Board) -> usize {
    board
        .iter()
        .enumerate()
        .map(|(i, &c)| (i + 1) * c as usize)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_sizes_add_up() {
        assert_eq!(positions_up_to(15), 54_264);
        assert_eq!(positions_up_to(6), 924);
        assert_eq!(tier_start(0), 0);
        let mut start = 0;
        for n in 0..=MAX_CHECKERS {
            assert_eq!(tier_start(n), start);
            start += tier_size(n);
        }
        assert_eq!(start, 54_264);
    }

    #[test]
    fn rank_and_unrank_are_inverse_and_respect_tiers() {
        let total = positions_up_to(MAX_CHECKERS);
        for i in 0..total {
            let b = unrank(i);
            assert_eq!(rank(&b), i);
            // Index i lies in the tier of its number of checkers.
            let n = checkers(&b);
            assert!(n <= MAX_CHECKERS);
            assert!((tier_start(n)..tier_start(n) + tier_size(n)).contains(&i));
        }
        // Every distribution, enumerated independently, has a distinct index in range.
        let mut count = 0;
        let mut hit = vec![false; total];
        for a in 0..=15u8 {
            for b in 0..=15 - a {
                for c in 0..=15 - a - b {
                    for d in 0..=15 - a - b - c {
                        for e in 0..=15 - a - b - c - d {
                            for f in 0..=15 - a - b - c - d - e {
                                let board = [a, b, c, d, e, f];
                                let i = rank(&board);
                                assert!(!hit[i], "{board:?}");
                                hit[i] = true;
                                assert_eq!(unrank(i), board);
                                count += 1;
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(count, 54_264);
        assert!(hit.iter().all(|&h| h));
    }

    #[test]
    fn order_matches_gnubg_landmarks() {
        assert_eq!(rank(&[0; 6]), 0);
        for p in 0..6 {
            let mut b = [0; 6];
            b[p] = 1;
            assert_eq!(rank(&b), p + 1);
        }
        assert_eq!(rank(&[15, 0, 0, 0, 0, 0]), 38_760);
        assert_eq!(rank(&[0, 0, 0, 0, 0, 15]), 54_263);
        assert_eq!(rank(&[0, 0, 0, 0, 0, 2]), 27);
    }
}
