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
    let dice = opening_roll(rng);
    play_out(first, second, Position::START, dice, rng, None)
}

/// Plays `pos` out, `first` on roll with `dice`, later rolls from `rng` (and a random
/// player's choices from `choices`, else from `rng`); the points won by `first`.
fn play_out(
    first: Player,
    second: Player,
    mut pos: Position,
    mut dice: Dice,
    rng: &mut Rng,
    mut choices: Option<&mut Rng>,
) -> i32 {
    let mut list = PlayList::new();
    for ply in 0..MAX_PLIES {
        let mover = if ply % 2 == 0 { first } else { second };
        pos = match choices.as_deref_mut() {
            Some(c) => mover.play(&pos, dice, &mut list, c),
            None => mover.play(&pos, dice, &mut list, rng),
        };
        if let Some(p) = game_over(&pos) {
            // `p` is for the player on roll, who just lost: points for the mover.
            let points = 1 + (p[3] > 0.5) as i32 + (p[4] > 0.5) as i32;
            return if ply % 2 == 0 { points } else { -points };
        }
        dice = roll(rng);
    }
    0
}

/// Duplicate games from set positions: from each of `starts` (the player on roll to play,
/// the game not over), `a` plays the side on roll against `b`, then `b` against `a` with the
/// same dice (seeded by `seed` and the position's index). Where the two players play alike
/// the pair cancels, so only their differences count: a sharp measure of, say, two race nets
/// from race positions. Two games a position, in the report for `a`.
pub fn versus_from(a: Player, b: Player, starts: &[Position], seed: u64) -> VersusReport {
    versus_from_until(a, b, starts, seed, || false)
}

/// [`versus_from`], asking `stop` before each pair: once it says so, the report of the pairs
/// played (a prefix of the full series, the same games).
pub fn versus_from_until(
    a: Player,
    b: Player,
    starts: &[Position],
    seed: u64,
    stop: impl Fn() -> bool,
) -> VersusReport {
    let mut r = VersusReport::default();
    for (i, start) in starts.iter().enumerate() {
        if stop() {
            break;
        }
        let dice_seed = seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut pair = 0i64;
        for (first, second, sign) in [(a, b, 1), (b, a, -1)] {
            let mut rng = Rng::new(dice_seed);
            let mut choices = Rng::new(dice_seed ^ 0x5bd1_e995);
            let dice = roll(&mut rng);
            let pts = sign * play_out(first, second, *start, dice, &mut rng, Some(&mut choices));
            pair += pts as i64;
            r.add(pts);
        }
        r.pairs += 1;
        r.pair_squares += (pair * pair) as u64;
    }
    r
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
    /// Duplicate pairs played ([`versus_from`]; 0 otherwise) and the sum of the squares of
    /// their points, for the standard error of a duplicate series.
    pub pairs: u64,
    pub pair_squares: u64,
}

impl VersusReport {
    /// The first player's share of games won.
    pub fn win_rate(&self) -> f64 {
        self.wins as f64 / self.games.max(1) as f64
    }

    /// Counts one game that won `pts` points for the first player (negative: lost).
    fn add(&mut self, pts: i32) {
        self.games += 1;
        self.points += pts as i64;
        if pts > 0 {
            self.wins += 1;
            self.gammons += (pts >= 2) as u64;
            self.backgammons += (pts >= 3) as u64;
        }
    }

    /// Points per game for the first player.
    pub fn ppg(&self) -> f64 {
        self.points as f64 / self.games.max(1) as f64
    }

    /// The standard error of [`VersusReport::ppg`] over duplicate pairs (the pairs are the
    /// independent units); `None` without pairs or with only one.
    pub fn pair_se(&self) -> Option<f64> {
        if self.pairs < 2 {
            return None;
        }
        let n = self.pairs as f64;
        let mean = self.points as f64 / n;
        let var = (self.pair_squares as f64 - n * mean * mean) / (n - 1.0);
        Some(var.max(0.0).sqrt() / n.sqrt() / 2.0)
    }
}

/// `games` games of `a` against `b` from `seed`, `a` rolling first in the even-numbered ones.
pub fn versus(a: Player, b: Player, games: u64, seed: u64) -> VersusReport {
    versus_until(a, b, games, seed, || false)
}

/// [`versus`], asking `stop` before each game: once it says so, the report of the games played
/// (a prefix of the full series, the same games).
pub fn versus_until(
    a: Player,
    b: Player,
    games: u64,
    seed: u64,
    stop: impl Fn() -> bool,
) -> VersusReport {
    let mut rng = Rng::new(seed);
    let mut r = VersusReport::default();
    for g in 0..games {
        if stop() {
            break;
        }
        let pts = if g % 2 == 0 {
            play_game(a, b, &mut rng)
        } else {
            -play_game(b, a, &mut rng)
        };
        r.add(pts);
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
        // Stopped after 120 games: the first 120 games of the series.
        let played = std::cell::Cell::new(0);
        let stopped = versus_until(Player::PipCount, Player::Random, 200, 5, || {
            played.set(played.get() + 1);
            played.get() > 120
        });
        assert_eq!(stopped, versus(Player::PipCount, Player::Random, 120, 5));
        assert_eq!(r.games, 200);
        assert!(r.win_rate() > 0.6, "{r:?}");
    }

    /// Duplicate games from set positions: a player against itself scores exactly 0 (the two
    /// games of a pair are the same game, seats swapped); the shipped net beats the random
    /// player from race positions; and a series is reproducible.
    #[test]
    fn duplicate_games_from_positions_cancel_between_equals() {
        let mut rng = Rng::new(3);
        let mut list = PlayList::new();
        let mut starts = Vec::new();
        while starts.len() < 300 {
            let mut pos = Position::START;
            while !pos.is_game_over() {
                if !crate::inputs::is_contact(&pos) && starts.len() < 300 {
                    starts.push(pos);
                }
                pos = Player::PipCount.play(&pos, roll(&mut rng), &mut list, &mut rng);
            }
        }
        let same = versus_from(Player::PipCount, Player::PipCount, &starts, 7);
        assert_eq!((same.games, same.points), (600, 0), "{same:?}");
        assert_eq!((same.pairs, same.pair_se()), (300, Some(0.0)), "{same:?}");
        let net = Player::Net(crate::weights::builtin().expect("shipped weights"));
        let r = versus_from(net, Player::Random, &starts, 7);
        assert_eq!(r, versus_from(net, Player::Random, &starts, 7));
        assert!(r.ppg() > 0.05, "{r:?}");
        // The standard error by hand: pairs of 2, 0, −2 and 4 points have the sample variance
        // 20 / 3, so a pair's mean has the error √(20 / 12), and a game's half of it.
        let by_hand = VersusReport {
            games: 8,
            points: 4,
            pairs: 4,
            pair_squares: 2 * 2 + 2 * 2 + 4 * 4,
            ..VersusReport::default()
        };
        let se = by_hand.pair_se().unwrap();
        assert!((se - (20.0f64 / 12.0).sqrt() / 2.0).abs() < 1e-12, "{se}");
    }
}
