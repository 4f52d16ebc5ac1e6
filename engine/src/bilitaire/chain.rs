//! A jump path: one ball making one or more jumps, packed into a `Copy` value.

use super::geometry::{Direction, Square};
use std::fmt;

/// The most jumps one chain can hold. A chain removes a ball per jump from at most 48, so 47 is
/// the real ceiling; the packing leaves room to spare.
pub const MAX_CHAIN: usize = 63;

/// A ball's path: its starting hole and the direction of each jump (two bits per jump).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Chain {
    from: Square,
    len: u8,
    dirs: u128,
}

impl Chain {
    /// A chain of one jump.
    pub const fn single(from: Square, dir: Direction) -> Chain {
        Chain {
            from,
            len: 1,
            dirs: dir.code() as u128,
        }
    }

    /// An empty path at `from`, to be extended with [`Chain::push`].
    pub(crate) const fn start(from: Square) -> Chain {
        Chain {
            from,
            len: 0,
            dirs: 0,
        }
    }

    /// This chain with one more jump.
    pub(crate) const fn push(self, dir: Direction) -> Chain {
        Chain {
            from: self.from,
            len: self.len + 1,
            dirs: self.dirs | (dir.code() as u128) << (2 * self.len as u32),
        }
    }

    /// The hole the ball starts from.
    pub const fn from(self) -> Square {
        self.from
    }

    /// The number of jumps.
    pub const fn len(self) -> usize {
        self.len as usize
    }

    pub const fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The direction of each jump in order.
    pub fn directions(self) -> impl Iterator<Item = Direction> {
        (0..self.len as u32).map(move |i| Direction::from_code((self.dirs >> (2 * i)) as u32))
    }

    /// The holes the ball visits, starting hole first. `None` if the path leaves the grid.
    pub fn holes(self) -> Option<Vec<Square>> {
        let mut path = vec![self.from];
        let mut at = self.from;
        for dir in self.directions() {
            at = at.offset(dir, 2)?;
            path.push(at);
        }
        Some(path)
    }

    /// Builds a chain from the holes it visits; `None` unless every step is two holes straight.
    pub fn from_holes(holes: &[Square]) -> Option<Chain> {
        let (&first, rest) = holes.split_first()?;
        if rest.is_empty() || rest.len() > MAX_CHAIN {
            return None;
        }
        let mut chain = Chain::start(first);
        let mut at = first;
        for &next in rest {
            let dir = Direction::ALL
                .into_iter()
                .find(|&d| at.offset(d, 2) == Some(next))?;
            chain = chain.push(dir);
            at = next;
        }
        Some(chain)
    }
}

impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.from)?;
        let mut at = self.from;
        for dir in self.directions() {
            match at.offset(dir, 2) {
                Some(next) => at = next,
                None => return write!(f, "-?"),
            }
            write!(f, "-{at}")?;
        }
        Ok(())
    }
}
