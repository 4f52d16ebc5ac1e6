//! Simple opponents and seeded games between players: how the trained net is measured.
//!
//! - [`Player::PipCount`]: the play leaving the best pip difference (hitting whenever it can,
//!   otherwise running), ties to the first generated play.
//! - [`Player::Random`]: a uniformly random legal play.
//! - [`Player::Net`]: the evaluator's best play at 0-ply (the training policy).

use tabula_engine::backgammon::{Dice, PlayList, Position, Side};

use crate::net::{equity, game_over, Evaluator};
use crate::rng::Rng;

/// Plies after which a game is abandoned (scored 0); never reached in practice.
pub const MAX_PLIES: u32 = 10_000;

/// Who chooses the plays.
#[derive(Clone, Copy, Debug)]
pub enum Player<'a> {
    /// The net at 0-ply.
    Net(&'a Evaluator),
    /// Best pip difference after the play.
    PipCount,
    /// A random legal play.
    Random,
}

/// A roll of two dice.
pub fn roll(rng: &mut Rng) -> Dice {
    Dice::new(rng.die(), rng.die()).expect("dice in 1..=6")
}

/// The opening roll: two different dice.
pub fn opening_roll(rng: &mut Rng) -> Dice {
    loop {
        let d = roll(rng);
        if !d.is_double() {
            return d;
        }
    }
}

/// The index in `list` of the play with the highest 0-ply equity for the mover, with its
/// probabilities (ties to the first). `list` must not be empty.
pub fn best_net_play(eval: &Evaluator, list: &PlayList) -> (usize, crate::Probabilities) {
    let mut best = (0, [0.0; 5]);
    let mut best_eq = f32::NEG_INFINITY;
    for i in 0..list.len() {
        let p = eval.evaluate_after(&list.result(i));
        let e = equity(&p);
        if e > best_eq {
            best_eq = e;
            best = (i, p);
        }
    }
    best
}

impl Player<'_> {
    /// The position after this player's play of `dice` (opponent on roll); the position
    /// swapped when no play is possible.
    pub fn play(&self, pos: &Position, dice: Dice, list: &mut PlayList, rng: &mut Rng) -> Position {
        if pos.generate_plays(dice, list) == 0 {
            return pos.swapped();
        }
        let i = match self {
            Player::Net(eval) => best_net_play(eval, list).0,
            Player::Random => rng.below(list.len() as u64) as usize,
            Player::PipCount => {
                let mut best = (0, i64::MIN);
                for i in 0..list.len() {
                    let r = list.result(i);
                    // The mover is now the opponent of the position.
                    let score = r.pips(Side::OnRoll) as i64 - r.pips(Side::Opponent) as i64;
                    if score > best.1 {
                        best = (i, score);
                    }
                }
                best.0
            }
        };
        list.result(i)
    }
}

/// Plays one game; returns the points won by `first` (who rolls first): ±1, ±2 or ±3.
pub fn play_game(first: Player, second: Player, rng: &mut Rng) -> i32 {
    let mut list = PlayList::new();
    let mut pos = Position::START;
    let mut dice = opening_roll(rng);
    for ply in 0..MAX_PLIES {
        let mover = if ply % 2 == 0 { first } else { second };
        pos = mover.play(&pos, dice, &mut list, rng);
        if let Some(p) = game_over(&pos) {
            // `p` is for the player on roll, who just lost: points for the mover.
            let points = 1 + (p[3] > 0.5) as i32 + (p[4] > 0.5) as i32;
            return if ply % 2 == 0 { points } else { -points };
        }
        dice = roll(rng);
    }
    0
}

/// The results of a series of games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VersusReport {
    pub games: u64,
    pub wins: u64,
    /// Net points won by the first player.
    pub points: i64,
    /// Gammons and backgammons won by the first player.
    pub gammons: u64,
    pub backgammons: u64,
}

impl VersusReport {
    /// The first player's share of games won.
    pub fn win_rate(&self) -> f64 {
        self.wins as f64 / self.games.max(1) as f64
    }

    /// Points per game for the first player.
    pub fn ppg(&self) -> f64 {
        self.points as f64 / self.games.max(1) as f64
    }
}

/// `games` games of `a` against `b` from `seed`, `a` rolling first in the even-numbered ones.
pub fn versus(a: Player, b: Player, games: u64, seed: u64) -> VersusReport {
    let mut rng = Rng::new(seed);
    let mut r = VersusReport::default();
    for g in 0..games {
        let pts = if g % 2 == 0 {
            play_game(a, b, &mut rng)
        } else {
            -play_game(b, a, &mut rng)
        };
        r.games += 1;
        r.points += pts as i64;
        if pts > 0 {
            r.wins += 1;
            r.gammons += (pts >= 2) as u64;
            r.backgammons += (pts >= 3) as u64;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pip_counter_beats_random_and_series_are_reproducible() {
        let r = versus(Player::PipCount, Player::Random, 200, 5);
        assert_eq!(r, versus(Player::PipCount, Player::Random, 200, 5));
        assert_eq!(r.games, 200);
        assert!(r.win_rate() > 0.6, "{r:?}");
    }
}
