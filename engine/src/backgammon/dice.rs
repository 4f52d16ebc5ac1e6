//! Dice rolls: the 21 distinct rolls and their probabilities.

use std::fmt;
use std::str::FromStr;

/// A roll of two dice, stored higher die first (`31`, never `13`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dice {
    high: u8,
    low: u8,
}

/// Why a string or pair of numbers is not a roll.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiceError {
    /// Not two digits.
    Format(String),
    /// A die outside 1..=6.
    Range(u8),
}

impl fmt::Display for DiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiceError::Format(s) => write!(f, "bad dice {s:?}: expected two digits 1-6 such as 31"),
            DiceError::Range(d) => write!(f, "a die shows 1 to 6, not {d}"),
        }
    }
}

impl std::error::Error for DiceError {}

impl Dice {
    /// A roll from two dice in either order.
    pub fn new(a: u8, b: u8) -> Result<Dice, DiceError> {
        for d in [a, b] {
            if !(1..=6).contains(&d) {
                return Err(DiceError::Range(d));
            }
        }
        Ok(Dice {
            high: a.max(b),
            low: a.min(b),
        })
    }

    /// The higher die.
    pub const fn high(self) -> u8 {
        self.high
    }

    /// The lower die.
    pub const fn low(self) -> u8 {
        self.low
    }

    /// Both dice the same.
    pub const fn is_double(self) -> bool {
        self.high == self.low
    }

    /// Out of 36: 1 for a double, 2 otherwise.
    pub const fn weight(self) -> u32 {
        if self.is_double() {
            1
        } else {
            2
        }
    }

    /// The probability of this roll (1/36 or 1/18).
    pub fn probability(self) -> f64 {
        self.weight() as f64 / 36.0
    }

    /// The 21 distinct rolls in the order 11 21 22 31 32 33 … 66.
    pub const ALL: [Dice; 21] = {
        let mut all = [Dice { high: 1, low: 1 }; 21];
        let mut k = 0;
        let mut h = 1;
        while h <= 6 {
            let mut l = 1;
            while l <= h {
                all[k] = Dice { high: h, low: l };
                k += 1;
                l += 1;
            }
            h += 1;
        }
        all
    };
}

impl fmt::Display for Dice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.high, self.low)
    }
}

impl fmt::Debug for Dice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Dice({}{})", self.high, self.low)
    }
}

impl FromStr for Dice {
    type Err = DiceError;

    /// `"31"`, `"3 1"`, `"3-1"` or `"3,1"`.
    fn from_str(s: &str) -> Result<Dice, DiceError> {
        let digits: Vec<char> = s
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | ','))
            .collect();
        if digits.len() != 2 || !digits.iter().all(|c| c.is_ascii_digit()) {
            return Err(DiceError::Format(s.to_string()));
        }
        Dice::new(digits[0] as u8 - b'0', digits[1] as u8 - b'0')
    }
}
