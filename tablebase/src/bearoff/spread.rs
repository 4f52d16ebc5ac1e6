//! Race boards as *spreads*: the points of a side's checkers, highest first, 0 for a checker
//! borne off, in an array of `N` entries of which the first `n` are used. The few-checker
//! table ([`FewCheckers`](super::FewCheckers), `n` up to 6 on 24 points) and the race
//! database ([`RaceTable`](super::RaceTable), 15 on up to 12 points) share the ranking, the
//! conversion from a side's counts and the plays of a die.

use tabula_engine::combinatorics::binomial;

/// `C(n, k)` as an index.
pub(crate) fn choose(n: usize, k: usize) -> usize {
    binomial(n, k) as usize
}

/// The rank of a spread of `n` entries: with `p_1 ≥ … ≥ p_n` in `0..=P`, the values
/// `q_i = p_i + n − i` are strictly decreasing, and the rank is `Σ C(q_i, n − i + 1)` (the
/// combinatorial number system), a bijection onto `0..C(P + n, n)`.
pub(crate) fn rank<const N: usize>(s: &[u8; N], n: usize) -> usize {
    (0..n)
        .map(|i| choose(s[i] as usize + n - 1 - i, n - i))
        .sum()
}

/// The spread of `counts` (checkers on point 1 first, up to point `counts.len()`), `None`
/// with more than `n` checkers.
pub(crate) fn from_counts<const N: usize>(counts: &[u8], n: usize) -> Option<[u8; N]> {
    let mut s = [0u8; N];
    let mut k = 0;
    for p in (1..=counts.len()).rev() {
        for _ in 0..counts[p - 1] {
            if k == n {
                return None;
            }
            s[k] = p as u8;
            k += 1;
        }
    }
    Some(s)
}

/// Appends the spreads after playing one die (a finished board stays as it is): a checker
/// moves down, or, once every checker is home, bears off exactly or, with a larger die, from
/// the highest point. In a race every die can be played while a checker is left, so this is
/// every play of the die.
pub(crate) fn play_die<const N: usize>(s: &[u8; N], n: usize, die: u8, out: &mut Vec<[u8; N]>) {
    if s[0] == 0 {
        out.push(*s);
        return;
    }
    let home = s[0] <= 6;
    for j in 0..n {
        let p = s[j];
        if p == 0 {
            break; // the rest are off
        }
        if j > 0 && s[j - 1] == p {
            continue; // the same point as the checker before
        }
        let mut next = *s;
        if p > die {
            next[j] = p - die;
        } else if home && (p == die || j == 0) {
            // Bearing off: exactly, or with a larger die from the highest point.
            next[j] = 0;
        } else {
            continue;
        }
        // Keep it sorted: the entry that fell moves right past the entries now higher.
        let mut k = j;
        while k + 1 < n && next[k + 1] > next[k] {
            next.swap(k, k + 1);
            k += 1;
        }
        out.push(next);
    }
}
