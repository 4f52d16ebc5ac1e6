//! Backgammon as a [`ChanceGame`]: the 21 distinct rolls of two dice, weighted 1 (a double) or
//! 2 out of 36, and the plays of [`Position::plays`].

use super::{Dice, Play, PlayList, Position};
use crate::chance::ChanceGame;

/// [`Dice::ALL`] with their weights out of 36.
const ROLLS: [(Dice, u32); 21] = {
    let mut all = [(Dice::ALL[0], 0u32); 21];
    let mut k = 0;
    while k < 21 {
        let d = Dice::ALL[k];
        all[k] = (d, d.weight());
        k += 1;
    }
    all
};

impl ChanceGame for Position {
    type Roll = Dice;
    type Play = Play;

    const ROLL_WEIGHT_TOTAL: u32 = 36;

    fn rolls() -> &'static [(Dice, u32)] {
        &ROLLS
    }

    fn plays_of(&self, roll: Dice) -> Vec<Play> {
        self.plays(roll)
    }

    fn apply(&self, play: &Play) -> Position {
        play.result()
    }

    fn pass(&self) -> Position {
        self.swapped()
    }

    fn results_of(&self, roll: Dice, out: &mut Vec<Position>) {
        let mut list = PlayList::new();
        self.generate_plays(roll, &mut list);
        out.clear();
        out.extend((0..list.len()).map(|i| list.result(i)));
    }

    fn chance_key(&self) -> u128 {
        self.gnubg_key()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rolls_are_the_dice_with_their_weights() {
        let rolls = Position::rolls();
        assert_eq!(rolls.len(), 21);
        for (&(d, w), &e) in rolls.iter().zip(Dice::ALL.iter()) {
            assert_eq!(d, e);
            assert_eq!(w, d.weight());
        }
        let total: u32 = rolls.iter().map(|&(_, w)| w).sum();
        assert_eq!(total, Position::ROLL_WEIGHT_TOTAL);
    }

    #[test]
    fn the_fast_results_are_the_plays_results() {
        let pos = Position::from_position_id("4HPwATDgc/ABMA").unwrap();
        let mut out = Vec::new();
        for &(d, _) in Position::rolls() {
            pos.results_of(d, &mut out);
            let slow: Vec<Position> = pos.plays_of(d).iter().map(|p| pos.apply(p)).collect();
            assert_eq!(out, slow);
        }
        assert_eq!(pos.pass(), pos.swapped());
    }
}
