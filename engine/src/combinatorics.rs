//! Binomial coefficients for the combinatorial number system that tablebase indices use
//! (Pylos colourings, backgammon bearoff boards).

/// Pascal's triangle up to `n = 30`: `BINOMIAL[n][k]` = C(n, k) (0 when `k > n`).
pub const BINOMIAL: [[u64; 31]; 31] = {
    let mut t = [[0u64; 31]; 31];
    let mut n = 0;
    while n < 31 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// C(n, k) for `n ≤ 30`.
pub const fn binomial(n: usize, k: usize) -> u64 {
    BINOMIAL[n][k]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_sum_to_powers_of_two_and_are_symmetric() {
        for n in 0..31 {
            assert_eq!((0..=n).map(|k| binomial(n, k)).sum::<u64>(), 1 << n);
            assert!((0..=n).all(|k| binomial(n, k) == binomial(n, n - k)));
        }
        assert_eq!(binomial(30, 15), 155_117_520);
    }
}
