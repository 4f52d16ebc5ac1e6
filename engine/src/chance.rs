//! Games with chance: before each turn a roll is drawn from a fixed distribution, then the
//! player on roll chooses one of the plays that roll allows.
//!
//! [`ChanceGame`] is what an expectimax search needs of such a game (`tabula-solver`'s
//! `expectimax` module): the rolls with their integer weights, the plays of a roll in a fixed
//! order, the position after a play, and the position after a roll that cannot be played. It
//! says nothing about how positions are valued; that is the evaluator's business.
//!
//! Backgammon implements it for [`crate::backgammon::Position`]: the 21 distinct rolls of two
//! dice, weighted 1 (a double) or 2 out of 36.
//!
//! ```
//! use tabula_engine::backgammon::{Dice, Position};
//! use tabula_engine::ChanceGame;
//!
//! let total: u32 = Position::rolls().iter().map(|&(_, w)| w).sum();
//! assert_eq!(total, Position::ROLL_WEIGHT_TOTAL);
//! let roll: Dice = "31".parse().unwrap();
//! assert_eq!(Position::START.plays_of(roll).len(), 16);
//! ```

/// A two-player game whose turns start with a roll (see the module documentation).
///
/// Positions are seen from the player on roll, before the roll; the position after a play (or
/// a pass) has the other player on roll.
pub trait ChanceGame: Copy + Send + Sync {
    /// The outcome of the chance event at the start of a turn (e.g. two dice).
    type Roll: Copy + Send + Sync + 'static;
    /// A move: what the player on roll chooses once the roll is known.
    type Play: Copy + Send + Sync;

    /// The sum of the weights of [`ChanceGame::rolls`]: roll `r` happens with probability
    /// `weight(r) / ROLL_WEIGHT_TOTAL`.
    const ROLL_WEIGHT_TOTAL: u32;

    /// Every distinct roll with its weight, in a fixed order (searches sum over them in this
    /// order, so that their results do not depend on anything else).
    fn rolls() -> &'static [(Self::Roll, u32)];

    /// The legal plays of `roll`, in the engine's fixed order; empty when the roll cannot be
    /// played (then the turn passes: see [`ChanceGame::pass`]). Every play leads to a distinct
    /// position.
    fn plays_of(&self, roll: Self::Roll) -> Vec<Self::Play>;

    /// The position after `play` (one of [`ChanceGame::plays_of`] of this position), the other
    /// player on roll.
    fn apply(&self, play: &Self::Play) -> Self;

    /// The position when the player on roll cannot play: the same board, the other player on
    /// roll.
    fn pass(&self) -> Self;

    /// The positions after each play of `roll`, in the order of [`ChanceGame::plays_of`],
    /// written into `out` (cleared first). Games override it with a faster path; the result
    /// must be the same.
    fn results_of(&self, roll: Self::Roll, out: &mut Vec<Self>) {
        out.clear();
        out.extend(self.plays_of(roll).iter().map(|p| self.apply(p)));
    }

    /// A key equal for two positions exactly when they are equal (used to cache values).
    fn chance_key(&self) -> u128;
}
