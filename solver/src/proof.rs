//! An independent check of a proven bound: for "value ≥ x" the Max side's strategy (one move a
//! position, from whoever found the proof, e.g. [`crate::Dfpn::proof_move`]) is played against
//! **every** legal reply of the Min side, to the end of the game, and every line must end at a
//! payoff of at least `x`; for "value < x" the Min side's strategy against every move of Max,
//! every line ending below `x`.
//!
//! The check uses the rules alone ([`tabula_engine::Game::legal_moves`], [`tabula_engine::Game::play`],
//! [`Scored::terminal_value`], [`Scored::to_move`]): none of the search's shortcuts, bounds,
//! tables, symmetries or move pruning. What it accepts is therefore a fact about the game
//! however the proof was found; a wrong proof, a strategy move that is not legal, or a line
//! that ends below `x` is rejected with the position where it happened. Positions already
//! checked are not checked again (a set of whole positions, no keys), so its cost is the size
//! of the proof tree with its transpositions merged.
//!
//! The payoff must be absolute and ply-independent, as Bi-litaire's balls left are (the
//! threshold is the same at every depth); games whose search folds a distance into the payoff
//! (Pylos) are not for this check.

use std::collections::HashSet;
use std::fmt;
use tabula_engine::{Role, Scored};

/// The bound a check is about, and so whose strategy it follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// "value ≥ x": Max's strategy against every reply.
    AtLeast(i32),
    /// "value < x": Min's strategy against every reply.
    Below(i32),
}

impl Bound {
    /// The bound that the answer `holds` of the test "value ≥ x" proves.
    pub fn of_test(x: i32, holds: bool) -> Bound {
        if holds {
            Bound::AtLeast(x)
        } else {
            Bound::Below(x)
        }
    }

    fn side(self) -> Role {
        match self {
            Bound::AtLeast(_) => Role::Max,
            Bound::Below(_) => Role::Min,
        }
    }

    fn admits(self, value: i32) -> bool {
        match self {
            Bound::AtLeast(x) => value >= x,
            Bound::Below(x) => value < x,
        }
    }
}

/// What a successful check covered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProofCheck {
    /// Distinct positions checked (the proof tree, transpositions merged).
    pub positions: u64,
    /// Positions where the strategy's move was followed.
    pub strategy_moves: u64,
    /// Lines ended by the rules (distinct terminal positions reached), all within the bound.
    pub terminals: u64,
    /// The longest line, in plies.
    pub longest: u32,
}

/// Why a check rejected a proof. The position is shown as the game's `Debug` form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckError {
    /// The strategy gave no move at a position of its side.
    NoMove { position: String },
    /// The strategy's move is not among the position's legal moves.
    IllegalMove { position: String, mv: String },
    /// A line ends outside the bound.
    Fails { position: String, value: i32 },
    /// A non-terminal position without a legal move (the rules would be inconsistent).
    Stuck { position: String },
    /// More than the limit of positions to check.
    TooLarge { limit: u64 },
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::NoMove { position } => {
                write!(f, "the strategy has no move at {position}")
            }
            CheckError::IllegalMove { position, mv } => {
                write!(f, "the strategy's move {mv} is not legal at {position}")
            }
            CheckError::Fails { position, value } => {
                write!(
                    f,
                    "a line ends at {value}, outside the bound, at {position}"
                )
            }
            CheckError::Stuck { position } => {
                write!(f, "no legal move and no payoff at {position}")
            }
            CheckError::TooLarge { limit } => {
                write!(f, "the proof has more than {limit} positions")
            }
        }
    }
}

impl std::error::Error for CheckError {}

/// Checks `bound` at `pos` by playing `strategy` for the side the bound is about against every
/// move of the other (see the module's documentation); at most `limit` distinct positions.
pub fn check_bound<G: Scored>(
    pos: &G,
    bound: Bound,
    limit: u64,
    mut strategy: impl FnMut(&G) -> Option<G::Move>,
) -> Result<ProofCheck, CheckError> {
    let mut checker = Checker {
        bound,
        limit,
        done: HashSet::new(),
        stats: ProofCheck::default(),
        strategy: &mut strategy,
    };
    checker.check(pos, 0)?;
    Ok(checker.stats)
}

struct Checker<'s, G: Scored> {
    bound: Bound,
    limit: u64,
    done: HashSet<G>,
    stats: ProofCheck,
    strategy: &'s mut dyn FnMut(&G) -> Option<G::Move>,
}

impl<G: Scored> Checker<'_, G> {
    fn check(&mut self, pos: &G, ply: u32) -> Result<(), CheckError> {
        if self.done.contains(pos) {
            return Ok(());
        }
        if self.stats.positions >= self.limit {
            return Err(CheckError::TooLarge { limit: self.limit });
        }
        self.stats.positions += 1;
        self.stats.longest = self.stats.longest.max(ply);
        if let Some(value) = pos.terminal_value() {
            if !self.bound.admits(value) {
                return Err(CheckError::Fails {
                    position: format!("{pos:?}"),
                    value,
                });
            }
            self.stats.terminals += 1;
            self.done.insert(pos.clone());
            return Ok(());
        }
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            return Err(CheckError::Stuck {
                position: format!("{pos:?}"),
            });
        } else if pos.to_move() == self.bound.side() {
            let Some(mv) = (self.strategy)(pos) else {
                return Err(CheckError::NoMove {
                    position: format!("{pos:?}"),
                });
            };
            if !moves.contains(&mv) {
                return Err(CheckError::IllegalMove {
                    position: format!("{pos:?}"),
                    mv: mv.to_string(),
                });
            }
            self.stats.strategy_moves += 1;
            self.check(&pos.play(mv), ply + 1)?;
        } else {
            for mv in moves {
                self.check(&pos.play(mv), ply + 1)?;
            }
        }
        self.done.insert(pos.clone());
        Ok(())
    }
}
