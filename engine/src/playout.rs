//! Seeded random play: the fixed position suites of tests and benchmarks, reproducible on every
//! machine (a small xorshift generator, no dependency).

use crate::Game;

/// xorshift64*: small, fast and the same everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Plays uniformly random legal moves from `start` until `stop` says so (returning that
/// position) or the game ends first (returning `None`).
pub fn random_playout<G: Game>(
    start: &G,
    seed: u64,
    mut stop: impl FnMut(&G) -> bool,
) -> Option<G> {
    let mut rng = Rng::new(seed);
    let mut pos = start.clone();
    let mut moves = Vec::new();
    loop {
        if stop(&pos) {
            return Some(pos);
        }
        moves.clear();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            return None;
        }
        pos = pos.play(moves[rng.below(moves.len())]);
    }
}
