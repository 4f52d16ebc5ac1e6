//! Self-play TD(λ) training, single-threaded and deterministic for a seed.
//!
//! Both players are the net choosing its best play at 0-ply. For the position `s_t` before the
//! roll at ply `t` the net gives `y_t` (player on roll); the target is the value of the position
//! after the chosen play, `invert(evaluate(s_{t+1}))` (exact once the game is over), and the
//! TD error `d_t = target − y_t`. Eligibility traces are kept in the perspective of the player
//! who rolled first, so that every step is plain TD(λ) on one value function: `e ← λe + ∇V_t`
//! and `w ← w + α Σ_k δ_k e_k`, where `V_t` and `δ_t` are `y_t` and `d_t` seen by that player
//! (outputs 0 negated, gammons and lost gammons swapped at odd plies).
//!
//! A game uses the contact net until the checkers have passed each other, then the race net,
//! each with its own traces (all start empty every game; a net's traces are dropped when
//! another net takes over, as when the race begins). Weights with a crashed net of their own
//! ([`Evaluator::crashed`]) train it on the crashed positions, with traces of its own.
//! Checkpoints fall between games: a file holds the weights, the game counter and the RNG
//! state, so a run resumed from a checkpoint plays exactly the games the uninterrupted run
//! would have (with the same `alpha`/`lambda`).

use tabula_engine::backgammon::{PlayList, Position};

use crate::baseline::{best_net_play, opening_roll, roll, MAX_PLIES};
use crate::inputs::{Inputs, INPUTS};
use crate::net::{Evaluator, Net, NetClass, Probabilities, MAX_HIDDEN, OUTPUTS};
use crate::rng::Rng;
use crate::weights::NetFile;

/// Hidden units of a fresh contact net.
pub const CONTACT_HIDDEN: usize = 80;
/// Hidden units of a fresh race net.
pub const RACE_HIDDEN: usize = 40;

/// Learning parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainOptions {
    /// Learning rate α.
    pub alpha: f32,
    /// Trace decay λ.
    pub lambda: f32,
    /// Train the contact net only: the race net is left as it is (it still gives the contact
    /// net its targets once the race begins). For a race net fitted on labels since.
    pub freeze_race: bool,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            alpha: 0.1,
            lambda: 0.7,
            freeze_race: false,
        }
    }
}

/// The eligibility traces of one net, one set per output `j` (fixed perspective).
#[derive(Clone, Debug)]
struct Traces {
    /// `[j][i * hidden + h]`
    e1: Vec<f32>,
    /// `[j][h]`
    eb1: Vec<f32>,
    /// `[j][k * hidden + h]`
    e2: Vec<f32>,
    /// `[j][k]`
    eb2: [[f32; OUTPUTS]; OUTPUTS],
}

impl Traces {
    fn new(hidden: usize) -> Traces {
        Traces {
            e1: vec![0.0; OUTPUTS * INPUTS * hidden],
            eb1: vec![0.0; OUTPUTS * hidden],
            e2: vec![0.0; OUTPUTS * OUTPUTS * hidden],
            eb2: [[0.0; OUTPUTS]; OUTPUTS],
        }
    }

    fn clear(&mut self) {
        self.e1.fill(0.0);
        self.eb1.fill(0.0);
        self.e2.fill(0.0);
        self.eb2 = [[0.0; OUTPUTS]; OUTPUTS];
    }
}

/// What one training game did.
#[derive(Clone, Copy, Debug, Default)]
pub struct GameStats {
    /// Plies played.
    pub plies: u32,
    /// Sum over the plies of |TD error| of the win probability.
    pub abs_td: f64,
    /// Points won by the player who rolled first (±1, ±2, ±3).
    pub points: i32,
}

/// A self-play trainer: the nets, the RNG and the game counter.
#[derive(Debug)]
pub struct Trainer {
    evaluator: Evaluator,
    rng: Rng,
    games: u64,
    options: TrainOptions,
    /// Per net ([`trace_slot`]): contact, race, crashed.
    traces: [Traces; 3],
    list: PlayList,
}

/// The slot of the traces of the net that evaluates `class`: one a net, so that without a
/// crashed net of its own the contact net keeps one set of traces over crashed positions too,
/// exactly as before there were crashed nets.
fn trace_slot(evaluator: &Evaluator, class: NetClass) -> usize {
    match class {
        NetClass::Crashed if evaluator.crashed.is_some() => 2,
        NetClass::Contact | NetClass::Crashed => 0,
        NetClass::Race => 1,
    }
}

impl Trainer {
    /// Fresh random nets from `seed`.
    pub fn new(seed: u64, options: TrainOptions) -> Trainer {
        let mut rng = Rng::new(seed);
        let evaluator = Evaluator::random(CONTACT_HIDDEN, RACE_HIDDEN, &mut rng);
        Trainer::with(evaluator, rng, 0, options)
    }

    /// Continues from a checkpoint with `options` (pass the file's own, `file.training`, to
    /// play exactly the games the uninterrupted run would have).
    pub fn resume(file: NetFile, options: TrainOptions) -> Trainer {
        Trainer::with(
            file.evaluator,
            Rng::from_state(file.rng_state),
            file.games,
            options,
        )
    }

    fn with(evaluator: Evaluator, rng: Rng, games: u64, options: TrainOptions) -> Trainer {
        let traces = [
            Traces::new(evaluator.contact.hidden()),
            Traces::new(evaluator.race.hidden()),
            Traces::new(evaluator.net(NetClass::Crashed).hidden()),
        ];
        Trainer {
            evaluator,
            rng,
            games,
            options,
            traces,
            list: PlayList::new(),
        }
    }

    /// The learning parameters.
    pub fn options(&self) -> TrainOptions {
        self.options
    }

    /// Games trained so far.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// The nets as they are now.
    pub fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }

    /// The checkpoint of the current state.
    pub fn to_file(&self) -> NetFile {
        NetFile {
            evaluator: self.evaluator.clone(),
            games: self.games,
            rng_state: self.rng.state(),
            training: Some(self.options),
        }
    }

    /// Plays and learns from one self-play game.
    pub fn play_game(&mut self) -> GameStats {
        for t in &mut self.traces {
            t.clear();
        }
        let mut stats = GameStats::default();
        let mut pos = Position::START;
        let mut h = [0.0f32; MAX_HIDDEN];
        let mut last = 0;
        for ply in 0..MAX_PLIES {
            let (net, class) = self.evaluator.net_for(&pos);
            let slot = trace_slot(&self.evaluator, class);
            if slot != last {
                // A net's traces only span the positions it evaluated in a row (the contact
                // net's end when the race begins, as contact never comes back).
                self.traces[last].clear();
                last = slot;
            }
            let x = Inputs::new(&pos);
            let y = net.forward_into(&x, &mut h);
            let dice = if ply == 0 {
                opening_roll(&mut self.rng)
            } else {
                roll(&mut self.rng)
            };
            let (next, target) = if pos.generate_plays(dice, &mut self.list) == 0 {
                let next = pos.swapped();
                (next, self.evaluator.evaluate_after(&next))
            } else {
                let (i, p) = best_net_play(&self.evaluator, &self.list);
                (self.list.result(i), p)
            };
            let d: Probabilities = std::array::from_fn(|k| target[k] - y[k]);
            stats.abs_td += d[0].abs() as f64;
            stats.plies += 1;
            self.update(class, &x, &h, &y, &d, ply % 2 == 1);
            if next.is_game_over() {
                // The mover of this ply won: `target` is exact.
                let points = 1 + (target[1] > 0.5) as i32 + (target[2] > 0.5) as i32;
                stats.points = if ply % 2 == 0 { points } else { -points };
                break;
            }
            pos = next;
        }
        self.games += 1;
        stats
    }

    /// One TD(λ) step for the net that evaluated `x` (hidden activations `h`, outputs `y`) with
    /// error `d`, both for the player on roll; `odd` when that is the player who rolled second.
    // `j` indexes several parallel arrays (outputs, traces, errors) at once.
    #[allow(clippy::needless_range_loop)]
    fn update(
        &mut self,
        class: NetClass,
        x: &Inputs,
        h: &[f32],
        y: &Probabilities,
        d: &Probabilities,
        odd: bool,
    ) {
        let TrainOptions {
            alpha,
            lambda,
            freeze_race,
        } = self.options;
        if class == NetClass::Race && freeze_race {
            return;
        }
        let slot = trace_slot(&self.evaluator, class);
        let net: &mut Net = self.evaluator.net_mut(class);
        let tr = &mut self.traces[slot];
        let n = net.hidden;
        let h = &h[..n];
        // Fixed-perspective component j is the on-roll component src[j] times sign[j].
        let (src, sign) = if odd {
            ([0, 3, 4, 1, 2], [-1.0f32, 1.0, 1.0, 1.0, 1.0])
        } else {
            ([0, 1, 2, 3, 4], [1.0f32; OUTPUTS])
        };
        let mut delta = [0.0f32; OUTPUTS];
        let mut g = [0.0f32; OUTPUTS];
        for j in 0..OUTPUTS {
            let k = src[j];
            delta[j] = sign[j] * d[k];
            g[j] = sign[j] * y[k] * (1.0 - y[k]);
        }
        // Gradients of V_j with respect to the hidden pre-activations.
        let mut gh = vec![0.0f32; OUTPUTS * n];
        for j in 0..OUTPUTS {
            let w2 = &net.w2[src[j] * n..(src[j] + 1) * n];
            for ((o, &w), &a) in gh[j * n..(j + 1) * n].iter_mut().zip(w2).zip(h) {
                *o = g[j] * w * a * (1.0 - a);
            }
        }
        // Output layer.
        for j in 0..OUTPUTS {
            let k = src[j];
            let e2 = &mut tr.e2[j * OUTPUTS * n..(j + 1) * OUTPUTS * n];
            e2.iter_mut().for_each(|e| *e *= lambda);
            for (e, &a) in e2[k * n..(k + 1) * n].iter_mut().zip(h) {
                *e += g[j] * a;
            }
            for (kk, e) in tr.eb2[j].iter_mut().enumerate() {
                *e = *e * lambda + if kk == k { g[j] } else { 0.0 };
            }
        }
        // Hidden layer traces.
        let size = INPUTS * n;
        for j in 0..OUTPUTS {
            let e1 = &mut tr.e1[j * size..(j + 1) * size];
            e1.iter_mut().for_each(|e| *e *= lambda);
            let ghj = &gh[j * n..(j + 1) * n];
            for m in 0..x.len {
                let i = x.index[m] as usize;
                let v = x.value[m];
                for (e, &gg) in e1[i * n..(i + 1) * n].iter_mut().zip(ghj) {
                    *e += v * gg;
                }
            }
            for (e, &gg) in tr.eb1[j * n..(j + 1) * n].iter_mut().zip(ghj) {
                *e = *e * lambda + gg;
            }
        }
        // Weights: w += α Σ_j δ_j e_j.
        for j in 0..OUTPUTS {
            let c = alpha * delta[j];
            if c == 0.0 {
                continue;
            }
            for (w, &e) in net.w1.iter_mut().zip(&tr.e1[j * size..(j + 1) * size]) {
                *w += c * e;
            }
            for (w, &e) in net.b1.iter_mut().zip(&tr.eb1[j * n..(j + 1) * n]) {
                *w += c * e;
            }
            for (w, &e) in net
                .w2
                .iter_mut()
                .zip(&tr.e2[j * OUTPUTS * n..(j + 1) * OUTPUTS * n])
            {
                *w += c * e;
            }
            for (w, &e) in net.b2.iter_mut().zip(&tr.eb2[j]) {
                *w += c * e;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baseline::{versus, Player};

    #[test]
    fn training_is_deterministic_and_resumable() {
        let opts = TrainOptions::default();
        let mut a = Trainer::new(11, opts);
        for _ in 0..6 {
            a.play_game();
        }
        let mut b = Trainer::new(11, opts);
        for _ in 0..3 {
            b.play_game();
        }
        let bytes = b.to_file().encode();
        let mut c = Trainer::resume(NetFile::decode(&bytes).unwrap(), opts);
        for _ in 0..3 {
            c.play_game();
        }
        assert_eq!(c.games(), 6);
        assert_eq!(a.to_file(), c.to_file());
        assert_ne!(a.to_file(), Trainer::new(12, opts).to_file());
    }

    /// With the race net frozen the contact net learns and the race net stays as it was, to
    /// the bit, even over games that end in races; the file records the choice.
    #[test]
    fn a_frozen_race_net_is_left_alone() {
        let opts = TrainOptions {
            freeze_race: true,
            ..TrainOptions::default()
        };
        let start = Trainer::new(21, opts);
        let mut t = Trainer::new(21, opts);
        for _ in 0..8 {
            t.play_game();
        }
        assert_eq!(t.evaluator().race, start.evaluator().race);
        assert_ne!(t.evaluator().contact, start.evaluator().contact);
        let file = NetFile::decode(&t.to_file().encode()).unwrap();
        assert_eq!(file.training, Some(opts));
        // Without the option both nets learn from the same games (so they reach races).
        let mut u = Trainer::new(21, TrainOptions::default());
        for _ in 0..8 {
            u.play_game();
        }
        assert_ne!(u.evaluator().race, start.evaluator().race);
    }

    /// A crashed net of its own learns on the crashed positions, and the contact net then
    /// learns on the others only.
    #[test]
    fn a_crashed_net_learns_on_crashed_positions() {
        let mut base = NetFile::decode(crate::weights::BUILTIN).unwrap();
        base.evaluator.crashed = None; // the shipped nets without their crashed net
        let mut split = base.clone();
        split.evaluator.crashed = Some(split.evaluator.contact.clone());
        let opts = TrainOptions::default();
        let (mut a, mut b) = (
            Trainer::resume(base, opts),
            Trainer::resume(split.clone(), opts),
        );
        for _ in 0..12 {
            b.play_game();
            a.play_game();
        }
        let (ea, eb) = (a.evaluator(), b.evaluator());
        assert!(ea.crashed.is_none());
        let learned = eb.crashed.as_ref().unwrap();
        // It moved, so the games met crashed positions: only they train it.
        assert_ne!(learned, split.evaluator.crashed.as_ref().unwrap());
        assert_ne!(learned, &eb.contact);
        assert_ne!(ea.contact, eb.contact);
        let back = NetFile::decode(&b.to_file().encode()).unwrap();
        assert_eq!(back.evaluator.crashed.as_ref(), Some(learned));
    }

    #[test]
    fn shipped_net_beats_the_baselines() {
        let eval = crate::weights::builtin().unwrap();
        let r = versus(Player::Net(eval), Player::PipCount, 200, 9);
        assert!(r.win_rate() > 0.8, "{r:?}");
        let r = versus(Player::Net(eval), Player::Random, 200, 9);
        assert!(r.win_rate() > 0.8, "{r:?}");
    }
}
