//! The network: inputs → one hidden layer of sigmoid units → five sigmoid outputs, and the
//! [`Evaluator`] that picks the contact or the race net and scores finished games exactly.

use tabula_engine::backgammon::{Position, Side, BAR, CHECKERS};

use crate::inputs::{is_contact, Inputs, INPUTS};
use crate::rng::Rng;

/// Outputs of a net: `[win, win gammon, win backgammon, lose gammon, lose backgammon]`.
pub const OUTPUTS: usize = 5;

/// The largest hidden layer a weights file may declare.
pub const MAX_HIDDEN: usize = 512;

/// Five probabilities for the player on roll: win, win gammon, win backgammon, lose gammon,
/// lose backgammon (P(lose) = 1 − P(win); gammons include backgammons).
pub type Probabilities = [f32; OUTPUTS];

/// Cubeless money equity of `p`: P(w) − P(l) + P(wg) − P(lg) + P(wbg) − P(lbg).
pub fn equity(p: &Probabilities) -> f32 {
    2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]
}

/// The same outcome seen by the other player.
pub fn invert(p: &Probabilities) -> Probabilities {
    [1.0 - p[0], p[3], p[4], p[1], p[2]]
}

#[inline]
pub(crate) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// A dense net with one hidden layer of sigmoid units and [`OUTPUTS`] sigmoid outputs over
/// the [`INPUTS`] inputs of [`Inputs`].
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    pub(crate) hidden: usize,
    /// Input-to-hidden weights, input-major: `w1[i * hidden + h]`.
    pub(crate) w1: Vec<f32>,
    pub(crate) b1: Vec<f32>,
    /// Hidden-to-output weights, output-major: `w2[k * hidden + h]`.
    pub(crate) w2: Vec<f32>,
    pub(crate) b2: [f32; OUTPUTS],
}

impl Net {
    /// A net of `hidden` units with small random weights (gammon outputs start low).
    pub fn random(hidden: usize, rng: &mut Rng) -> Net {
        assert!((1..=MAX_HIDDEN).contains(&hidden));
        let w1 = (0..INPUTS * hidden)
            .map(|_| 0.1 * rng.symmetric())
            .collect();
        let b1 = (0..hidden).map(|_| 0.1 * rng.symmetric()).collect();
        let w2 = (0..OUTPUTS * hidden)
            .map(|_| 0.1 * rng.symmetric())
            .collect();
        Net {
            hidden,
            w1,
            b1,
            w2,
            b2: [0.0, -2.0, -4.0, -2.0, -4.0],
        }
    }

    /// The number of hidden units.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The number of weights and biases.
    pub fn parameters(&self) -> usize {
        self.w1.len() + self.b1.len() + self.w2.len() + OUTPUTS
    }

    /// The raw outputs for `x`, leaving the hidden activations in `h` (at least
    /// [`Net::hidden`] long).
    pub fn forward_into(&self, x: &Inputs, h: &mut [f32]) -> Probabilities {
        let n = self.hidden;
        let h = &mut h[..n];
        // The first layer a block of hidden units at a time, the block's sums held in
        // registers across all the inputs (instead of loading and storing every unit once
        // per input). Each unit still adds its inputs in index order from its bias, so the
        // sums are the same to the bit as one unit at a time (`1.0 * w` is exactly `w`).
        const BLOCK: usize = 40;
        let blocks = n / BLOCK * BLOCK;
        for start in (0..blocks).step_by(BLOCK) {
            let mut acc: [f32; BLOCK] = self.b1[start..start + BLOCK].try_into().unwrap();
            for k in 0..x.len {
                let at = x.index[k] as usize * n + start;
                let v = x.value[k];
                let row: &[f32; BLOCK] = self.w1[at..at + BLOCK].try_into().unwrap();
                for (a, w) in acc.iter_mut().zip(row) {
                    *a += v * w;
                }
            }
            h[start..start + BLOCK].copy_from_slice(&acc);
        }
        if blocks < n {
            h[blocks..].copy_from_slice(&self.b1[blocks..]);
            for k in 0..x.len {
                let at = x.index[k] as usize * n;
                let v = x.value[k];
                for (a, w) in h[blocks..].iter_mut().zip(&self.w1[at + blocks..at + n]) {
                    *a += v * w;
                }
            }
        }
        for a in h.iter_mut() {
            *a = sigmoid(*a);
        }
        let mut out = [0.0; OUTPUTS];
        for (k, o) in out.iter_mut().enumerate() {
            let row = &self.w2[k * n..(k + 1) * n];
            // Four partial sums: faster, and still one fixed order.
            let mut acc = [0.0f32; 4];
            let mut chunks = row.chunks_exact(4).zip(h.chunks_exact(4));
            for (w, a) in &mut chunks {
                for j in 0..4 {
                    acc[j] += w[j] * a[j];
                }
            }
            let tail: f32 = row[n / 4 * 4..]
                .iter()
                .zip(&h[n / 4 * 4..])
                .map(|(w, a)| w * a)
                .sum();
            *o = sigmoid(self.b2[k] + (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail);
        }
        out
    }

    /// The raw outputs for `x`.
    pub fn forward(&self, x: &Inputs) -> Probabilities {
        let mut h = [0.0f32; MAX_HIDDEN];
        self.forward_into(x, &mut h)
    }
}

/// The exact result of a finished game for the player on roll, `None` while it goes on.
pub fn game_over(pos: &Position) -> Option<Probabilities> {
    let kind = |loser: Side| -> f32 {
        if pos.off(loser) > 0 {
            return 0.0;
        }
        // Backgammon: a checker on the bar or in the winner's home board (the loser's 19-24).
        let c = pos.counts(loser);
        if c[18..=BAR].iter().any(|&n| n > 0) {
            2.0
        } else {
            1.0
        }
    };
    if pos.off(Side::OnRoll) == CHECKERS {
        let k = kind(Side::Opponent);
        Some([
            1.0,
            (k >= 1.0) as u8 as f32,
            (k >= 2.0) as u8 as f32,
            0.0,
            0.0,
        ])
    } else if pos.off(Side::Opponent) == CHECKERS {
        let k = kind(Side::OnRoll);
        Some([
            0.0,
            0.0,
            0.0,
            (k >= 1.0) as u8 as f32,
            (k >= 2.0) as u8 as f32,
        ])
    } else {
        None
    }
}

/// Raw net outputs made consistent: all in `[0, 1]`, gammon ≤ win, backgammon ≤ gammon, no
/// gammon against a side that has borne off, and in a race no backgammon against a side with
/// nothing left in the winner's home board or on the bar.
pub fn consistent(pos: &Position, raw: Probabilities, race: bool) -> Probabilities {
    let mut p = raw.map(|v| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) });
    let lose = 1.0 - p[0];
    p[1] = p[1].min(p[0]);
    p[2] = p[2].min(p[1]);
    p[3] = p[3].min(lose);
    p[4] = p[4].min(p[3]);
    if pos.off(Side::Opponent) > 0 {
        p[1] = 0.0;
        p[2] = 0.0;
    }
    if pos.off(Side::OnRoll) > 0 {
        p[3] = 0.0;
        p[4] = 0.0;
    }
    if race {
        let back = |side| pos.counts(side)[18..=BAR].iter().any(|&n| n > 0);
        if !back(Side::Opponent) {
            p[2] = 0.0;
        }
        if !back(Side::OnRoll) {
            p[4] = 0.0;
        }
    }
    p
}

/// The two nets: one for positions with contact, one for races.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluator {
    pub contact: Net,
    pub race: Net,
    /// Exact bear-off probabilities, used instead of the race net when attached.
    pub bearoff: Option<crate::bearoff::BearoffTable>,
}

impl Evaluator {
    /// Fresh random nets (the start of training).
    pub fn random(contact_hidden: usize, race_hidden: usize, rng: &mut Rng) -> Evaluator {
        Evaluator {
            contact: Net::random(contact_hidden, rng),
            race: Net::random(race_hidden, rng),
            bearoff: None,
        }
    }

    /// The same nets with exact bear-offs from a one-sided bearoff database.
    pub fn with_bearoff(
        self,
        table: std::sync::Arc<tabula_tablebase::bearoff::OneSided>,
    ) -> Evaluator {
        Evaluator {
            bearoff: Some(crate::bearoff::BearoffTable(table)),
            ..self
        }
    }

    /// The net that evaluates `pos` and whether it is the race net.
    pub fn net_for(&self, pos: &Position) -> (&Net, bool) {
        if is_contact(pos) {
            (&self.contact, false)
        } else {
            (&self.race, true)
        }
    }

    /// The 0-ply evaluation of `pos` for the player on roll (before the roll): exact when the
    /// game is over, else the net's consistent outputs.
    pub fn evaluate(&self, pos: &Position) -> Probabilities {
        if let Some(p) = game_over(pos) {
            return p;
        }
        if let Some(p) = self.bearoff.as_ref().and_then(|t| t.probabilities(pos)) {
            return p;
        }
        let (net, race) = self.net_for(pos);
        consistent(pos, net.forward(&Inputs::new(pos)), race)
    }

    /// The 0-ply value of a play's result for the player who made it.
    pub fn evaluate_after(&self, result: &Position) -> Probabilities {
        invert(&self.evaluate(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocked first layer gives the same outputs to the bit as one hidden unit at a
    /// time, each summing its inputs in index order from its bias, for hidden sizes on and
    /// off the block size.
    #[test]
    fn blocked_forward_is_the_plain_sum() {
        use crate::baseline::{roll, Player};
        use tabula_engine::backgammon::PlayList;
        let mut rng = Rng::new(5);
        let nets: Vec<Net> = [80, 40, 7, 41, 96]
            .iter()
            .map(|&n| Net::random(n, &mut rng))
            .collect();
        let mut list = PlayList::new();
        let mut pos = Position::START;
        for _ in 0..60 {
            if pos.is_game_over() {
                pos = Position::START;
            }
            let x = Inputs::new(&pos);
            for net in &nets {
                let n = net.hidden;
                let plain: Vec<f32> = (0..n)
                    .map(|u| {
                        let mut a = net.b1[u];
                        for k in 0..x.len {
                            a += x.value[k] * net.w1[x.index[k] as usize * n + u];
                        }
                        sigmoid(a)
                    })
                    .collect();
                let mut h = [0.0f32; MAX_HIDDEN];
                net.forward_into(&x, &mut h);
                assert_eq!(&h[..n], &plain[..], "{n} hidden at {pos}");
            }
            pos = Player::Random.play(&pos, roll(&mut rng), &mut list, &mut rng);
        }
    }

    #[test]
    fn equity_and_invert() {
        let p = [0.6, 0.2, 0.05, 0.1, 0.01];
        let q = invert(&p);
        assert!((equity(&p) + equity(&q)).abs() < 1e-6);
        assert_eq!(invert(&q), p);
        assert_eq!(equity(&[1.0, 1.0, 1.0, 0.0, 0.0]), 3.0);
    }

    #[test]
    fn finished_games_are_exact() {
        let mut me = [0u8; 25];
        let mut opp = [0u8; 25];
        opp[0] = 15; // the opponent has everything on its ace point, nothing off
        let won = Position::from_counts(me, opp).unwrap();
        assert_eq!(game_over(&won), Some([1.0, 1.0, 0.0, 0.0, 0.0]));
        opp[0] = 14;
        opp[20] = 1; // one in my home board: a backgammon
        let bg = Position::from_counts(me, opp).unwrap();
        assert_eq!(game_over(&bg), Some([1.0, 1.0, 1.0, 0.0, 0.0]));
        assert_eq!(game_over(&bg.swapped()), Some([0.0, 0.0, 0.0, 1.0, 1.0]));
        me[0] = 1;
        assert_eq!(game_over(&Position::from_counts(me, opp).unwrap()), None);
    }

    #[test]
    fn consistency_rules() {
        let p = consistent(&Position::START, [0.5, 0.7, 0.9, 0.8, 1.2], false);
        assert_eq!(p, [0.5, 0.5, 0.5, 0.5, 0.5]);
        let mut rng = Rng::new(1);
        let e = Evaluator::random(8, 4, &mut rng);
        let v = e.evaluate(&Position::START);
        assert!(v.iter().all(|x| (0.0..=1.0).contains(x)));
    }
}
