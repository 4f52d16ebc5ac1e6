//! The training and benchmark random numbers: xorshift64* with a visible state, so that a
//! checkpoint can store it and a resumed run continues the same sequence.

/// xorshift64*: small, fast and the same everywhere. The state is never zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (every seed, zero included, gives a valid distinct state).
    pub fn new(seed: u64) -> Rng {
        // splitmix64 of the seed, so that nearby seeds start far apart.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Rng::from_state(z)
    }

    /// A generator continuing from a saved [`Rng::state`].
    pub fn from_state(state: u64) -> Rng {
        Rng(if state == 0 {
            0x2545_f491_4f6c_dd1d
        } else {
            state
        })
    }

    /// The state to save.
    pub fn state(&self) -> u64 {
        self.0
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        // Multiply-shift: unbiased enough for dice, and the same on every machine.
        ((self.next_u64() >> 32) * n) >> 32
    }

    /// A die, 1..=6.
    pub fn die(&mut self) -> u8 {
        self.below(6) as u8 + 1
    }

    /// A number in `[-1, 1)`.
    pub fn symmetric(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_and_dice_are_uniform() {
        let mut a = Rng::new(7);
        for _ in 0..10 {
            a.next_u64();
        }
        let mut b = Rng::from_state(a.state());
        assert_eq!(a.next_u64(), b.next_u64());
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[a.die() as usize - 1] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_000..11_000).contains(&c)),
            "{counts:?}"
        );
    }
}
