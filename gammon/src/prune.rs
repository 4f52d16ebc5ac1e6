//! A small net that pre-ranks the plays at the last ply of a search: GNU Backgammon's
//! "pruning nets", in Tabula's form.
//!
//! At the last ply of an n-ply search every play of every roll is valued at 0-ply and only the
//! best counts; that is where a search spends nearly all of its net evaluations (21 rolls × a
//! few candidates × 21 rolls × every play, for 2 plies). The [`Pruner`] is a net of
//! [`PRUNE_HIDDEN`] rectified linear units on the raw board units alone ([`Inputs::raw`], no
//! computed features) with one linear output, the equity, fitted to the full evaluator's
//! cubeless equity ([`Pruner::fit`]). It costs a small part of a full evaluation, so the search
//! values every play with it, keeps the best few
//! ([`crate::SearchOptions::last_ply_candidates`]) and gives only those to the full evaluator.
//! The value of the roll is then the best of those full evaluations: never above the full
//! 0-ply best, equal to it whenever the pruner ranks the best play among its few.
//!
//! File (a [`tabula_store`] container of kind [`Kind::NetWeights`] with context
//! [`CONTEXT`]; little-endian): `u32` inputs ([`RAW_INPUTS`]), `u32` hidden units
//! ([`PRUNE_HIDDEN`]), then `w1` (inputs × hidden, input-major), `b1`, `w2`, `b2` as f32.

use tabula_engine::backgammon::{Position, Side, BAR};
use tabula_store::Kind;

use crate::inputs::{
    is_contact, side_totals, Inputs, POINT_UNITS, RAW_INPUTS, SIDE_INPUTS, TOTALS_AT,
};
use crate::rng::Rng;
use crate::weights::{ShapeError, WeightsError};

/// Hidden units of the pruning net.
pub const PRUNE_HIDDEN: usize = 32;

/// The context string of a pruning net's file.
pub const CONTEXT: &str = "game=backgammon;nets=prune";

/// The pruning net shipped in `gammon/data/prune.tnet`, attached to the shipped nets by
/// [`crate::weights::builtin`].
pub static BUILTIN: &[u8] = include_bytes!("../data/prune.tnet");

/// The most checkers a point holds.
const MOST_ON_A_POINT: usize = 15;

/// The pruning net: raw board units → [`PRUNE_HIDDEN`] rectified linear units → equity for
/// the player on roll.
#[derive(Clone, Debug, PartialEq)]
pub struct Pruner {
    /// `RAW_INPUTS` rows of `PRUNE_HIDDEN` weights.
    w1: Vec<[f32; PRUNE_HIDDEN]>,
    b1: [f32; PRUNE_HIDDEN],
    w2: [f32; PRUNE_HIDDEN],
    b2: f32,
    /// For each side, point (0–23) and count `n` (0–15): what a point with `n` checkers adds
    /// to the hidden sums, its four board units' rows weighted as [`Inputs::raw`] weighs them.
    /// Derived from `w1`, so that the search's forward pass adds one row a point.
    points: Vec<[f32; PRUNE_HIDDEN]>,
}

impl Pruner {
    fn new(
        w1: Vec<[f32; PRUNE_HIDDEN]>,
        b1: [f32; PRUNE_HIDDEN],
        w2: [f32; PRUNE_HIDDEN],
        b2: f32,
    ) -> Pruner {
        let mut p = Pruner {
            w1,
            b1,
            w2,
            b2,
            points: Vec::new(),
        };
        p.derive_points();
        p
    }

    fn derive_points(&mut self) {
        let mut points = vec![[0.0; PRUNE_HIDDEN]; 2 * 24 * (MOST_ON_A_POINT + 1)];
        for side in 0..2 {
            for point in 0..24 {
                for n in 1..=MOST_ON_A_POINT {
                    let base = side * SIDE_INPUTS + 4 * point;
                    let row = &mut points[(side * 24 + point) * (MOST_ON_A_POINT + 1) + n];
                    for (k, &v) in POINT_UNITS[n].iter().enumerate().take(n.min(4)) {
                        for (a, &w) in row.iter_mut().zip(&self.w1[base + k]) {
                            *a += v * w;
                        }
                    }
                }
            }
        }
        self.points = points;
    }

    /// Small random weights (the start of a fit).
    pub fn random(rng: &mut Rng) -> Pruner {
        let mut w1 = vec![[0.0; PRUNE_HIDDEN]; RAW_INPUTS];
        for row in &mut w1 {
            for w in row.iter_mut() {
                *w = 0.1 * rng.symmetric();
            }
        }
        let mut w2 = [0.0; PRUNE_HIDDEN];
        for w in &mut w2 {
            *w = 0.1 * rng.symmetric();
        }
        Pruner::new(w1, [0.1; PRUNE_HIDDEN], w2, 0.0)
    }

    /// The hidden units' sums from the sparse raw units (the fit's path).
    fn sums(&self, x: &Inputs) -> [f32; PRUNE_HIDDEN] {
        let mut h = self.b1;
        for k in 0..x.len {
            let row = &self.w1[x.index[k] as usize];
            let v = x.value[k];
            for (a, &w) in h.iter_mut().zip(row) {
                *a += v * w;
            }
        }
        h
    }

    fn output(&self, sums: &[f32; PRUNE_HIDDEN]) -> f32 {
        let mut out = self.b2;
        for (&a, &w) in sums.iter().zip(&self.w2) {
            out += a.max(0.0) * w;
        }
        out
    }

    /// The estimated cubeless equity of `pos` for the player on roll (a game still going on),
    /// by the raw units as the fit sees them.
    pub fn equity(&self, pos: &Position) -> f32 {
        self.output(&self.sums(&Inputs::raw(pos)))
    }

    /// [`Pruner::equity`] where `pos` is a contact position (see
    /// [`crate::inputs::is_contact`]) whose game goes on, else `None`: the search's estimate,
    /// one table row a point instead of the sparse units (the same sums, added in another
    /// order).
    pub fn equity_in_contact(&self, pos: &Position) -> Option<f32> {
        if !is_contact(pos) {
            return None;
        }
        let counts = [pos.counts(Side::OnRoll), pos.counts(Side::Opponent)];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Some(self.table_pass_avx2(&counts));
        }
        Some(self.table_pass(&counts))
    }

    /// [`Pruner::table_pass`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    fn table_pass_avx2(&self, counts: &[[u8; 25]; 2]) -> f32 {
        #[target_feature(enable = "avx2")]
        fn avx2(p: &Pruner, counts: &[[u8; 25]; 2]) -> f32 {
            p.table_pass(counts)
        }
        // SAFETY: a function compiled with a target feature may only run on a CPU that has
        // it; the one caller, `equity_in_contact`, checked `is_x86_feature_detected!("avx2")`.
        // The function itself is safe code.
        unsafe { avx2(self, counts) }
    }

    #[inline(always)]
    fn table_pass(&self, counts: &[[u8; 25]; 2]) -> f32 {
        fn add(h: &mut [f32; PRUNE_HIDDEN], row: &[f32; PRUNE_HIDDEN], v: f32) {
            for i in 0..PRUNE_HIDDEN {
                h[i] += v * row[i];
            }
        }
        let mut h = self.b1;
        for (s, counts) in counts.iter().enumerate() {
            let rows = &self.points[s * 24 * (MOST_ON_A_POINT + 1)..][..24 * (MOST_ON_A_POINT + 1)];
            for (i, &n) in counts[..BAR].iter().enumerate() {
                if n > 0 {
                    add(
                        &mut h,
                        &rows[i * (MOST_ON_A_POINT + 1) + (n as usize & MOST_ON_A_POINT)],
                        1.0,
                    );
                }
            }
            let base = s * SIDE_INPUTS + TOTALS_AT;
            for (k, &v) in side_totals(counts).0.iter().enumerate() {
                if v != 0.0 {
                    add(&mut h, &self.w1[base + k], v);
                }
            }
        }
        self.output(&h)
    }

    /// Plain SGD on the squared error against `targets` (the full evaluator's equities of
    /// `positions`, for the player on roll), `epochs` passes in an order shuffled by `rng`,
    /// the step `alpha` falling linearly to a tenth of it. Returns the mean squared error of
    /// the last pass (before each step).
    ///
    /// Measured, not kept: the error of each play taken against the mean error of its roll's
    /// plays (what the ranking needs, not the level) left every unit dead or nearly
    /// (`prune_fit`, 3,000 games: the best play among the best five in 53% of the held-out
    /// turns, against 93% with this plain error).
    pub fn fit(
        &mut self,
        positions: &[Position],
        targets: &[f32],
        epochs: usize,
        alpha: f32,
        rng: &mut Rng,
    ) -> f64 {
        assert_eq!(positions.len(), targets.len());
        let mut order: Vec<usize> = (0..positions.len()).collect();
        let mut last = 0.0;
        for epoch in 0..epochs {
            for i in (1..order.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                order.swap(i, j);
            }
            let step = alpha * (1.0 - 0.9 * epoch as f32 / epochs.max(1) as f32);
            let mut sum = 0.0f64;
            for &i in &order {
                let x = Inputs::raw(&positions[i]);
                let h = self.sums(&x);
                let err = self.output(&h) - targets[i];
                sum += f64::from(err * err);
                let g = step * err;
                let mut gh = [0.0f32; PRUNE_HIDDEN];
                for j in 0..PRUNE_HIDDEN {
                    if h[j] > 0.0 {
                        gh[j] = g * self.w2[j];
                        self.w2[j] -= g * h[j];
                    }
                    self.b1[j] -= gh[j];
                }
                self.b2 -= g;
                for k in 0..x.len {
                    let v = x.value[k];
                    let row = &mut self.w1[x.index[k] as usize];
                    for (w, &d) in row.iter_mut().zip(&gh) {
                        *w -= v * d;
                    }
                }
            }
            last = sum / order.len().max(1) as f64;
        }
        self.derive_points();
        last
    }

    /// The file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(8 + 4 * (RAW_INPUTS + 2) * PRUNE_HIDDEN + 4);
        p.extend_from_slice(&(RAW_INPUTS as u32).to_le_bytes());
        p.extend_from_slice(&(PRUNE_HIDDEN as u32).to_le_bytes());
        let floats = self
            .w1
            .iter()
            .flatten()
            .chain(&self.b1)
            .chain(&self.w2)
            .chain(std::iter::once(&self.b2));
        for f in floats {
            p.extend_from_slice(&f.to_le_bytes());
        }
        tabula_store::encode(Kind::NetWeights, CONTEXT, &p, tabula_store::DEFAULT_BLOCK)
    }

    /// Parses a file's bytes, checking the container, the shape and every value.
    pub fn decode(bytes: &[u8]) -> Result<Pruner, WeightsError> {
        let p = tabula_store::decode(bytes, Kind::NetWeights, CONTEXT)?;
        if p.len() < 8 {
            return Err(ShapeError::ShortPayload { len: p.len() }.into());
        }
        let u32_at = |o: usize| u32::from_le_bytes(p[o..o + 4].try_into().expect("4 bytes"));
        let (inputs, hidden) = (u32_at(0) as usize, u32_at(4) as usize);
        if inputs != RAW_INPUTS || hidden != PRUNE_HIDDEN {
            return Err(ShapeError::PrunerShape { inputs, hidden }.into());
        }
        let floats = &p[8..];
        let expected = 4 * ((RAW_INPUTS + 2) * PRUNE_HIDDEN + 1);
        if floats.len() != expected {
            return Err(ShapeError::WeightsLength {
                found: floats.len(),
                expected,
            }
            .into());
        }
        let values: Vec<f32> = floats
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        if let Some(at) = values.iter().position(|v| !v.is_finite()) {
            return Err(ShapeError::NotFinite { at }.into());
        }
        let mut it = values.chunks_exact(PRUNE_HIDDEN);
        let mut row = || -> [f32; PRUNE_HIDDEN] {
            it.next()
                .expect("checked length")
                .try_into()
                .expect("a row")
        };
        let w1 = (0..RAW_INPUTS).map(|_| row()).collect();
        let b1 = row();
        let w2 = row();
        Ok(Pruner::new(w1, b1, w2, values[values.len() - 1]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::is_contact;
    use crate::inputs::tests::random_game_positions;
    use crate::net::{equity, game_over};
    use crate::weights::NetFile;
    use tabula_engine::backgammon::Dice;

    /// The shipped nets without the pruning net.
    fn nets() -> crate::Evaluator {
        NetFile::decode(crate::weights::BUILTIN).unwrap().evaluator
    }

    /// The shipped pruning net ranks the plays of positions it was not fitted on nearly as
    /// the shipped nets do: their best play is among its best five in nine turns of ten
    /// (measured 94% on the held-out turns of `prune_fit`).
    #[test]
    fn the_shipped_pruner_keeps_the_best_play() {
        let pruner = crate::weights::builtin()
            .unwrap()
            .pruner
            .as_deref()
            .unwrap();
        assert_eq!(pruner, &Pruner::decode(BUILTIN).unwrap());
        let nets = nets();
        let (mut turns, mut kept) = (0, 0);
        for (i, pos) in random_game_positions(77, 40, 200).iter().enumerate() {
            if !is_contact(pos) || game_over(pos).is_some() {
                continue;
            }
            let dice = Dice::ALL[i % Dice::ALL.len()];
            let results: Vec<Position> = pos
                .plays(dice)
                .iter()
                .map(|p| p.result())
                .filter(|r| is_contact(r) && game_over(r).is_none())
                .collect();
            if results.len() <= 5 {
                continue;
            }
            let full: Vec<f32> = results.iter().map(|r| equity(&nets.evaluate(r))).collect();
            let best = (0..results.len())
                .min_by(|&a, &b| full[a].total_cmp(&full[b]))
                .unwrap();
            let mut order: Vec<usize> = (0..results.len()).collect();
            order.sort_by(|&a, &b| {
                pruner
                    .equity(&results[a])
                    .total_cmp(&pruner.equity(&results[b]))
            });
            turns += 1;
            kept += usize::from(order[..5].contains(&best));
        }
        assert!(turns >= 100, "{turns} turns");
        assert!(kept * 10 >= turns * 9, "{kept} of {turns}");
    }

    /// The search's forward pass (a table row a point) gives the fit's sums, in contact
    /// positions only.
    #[test]
    fn the_table_pass_is_the_sparse_pass() {
        let pruner = Pruner::random(&mut Rng::new(4));
        let (mut contact, mut other) = (0, 0);
        for pos in random_game_positions(8, 30, 300) {
            match pruner.equity_in_contact(&pos) {
                Some(e) => {
                    contact += 1;
                    assert!(is_contact(&pos));
                    let slow = pruner.equity(&pos);
                    assert!(
                        (e - slow).abs() <= 1e-5 * slow.abs().max(1.0),
                        "{pos}: {e} {slow}"
                    );
                }
                None => {
                    other += 1;
                    assert!(!is_contact(&pos) || game_over(&pos).is_some());
                }
            }
        }
        assert!(contact > 100 && other > 100, "{contact} {other}");
    }

    /// The shipped file is the one `prune_fit` makes: `cargo run --release -p tabula-gammon
    /// --example prune_fit -- prune.tnet 3000 40 1 before.tnet` (3,000 games of self-play by
    /// the nets of `before.tnet`, 2,081,104 samples, 40 epochs from α 0.05; about a minute)
    /// wrote these bytes. `before.tnet` is `git show 2025244:gammon/data/backgammon.tnet`:
    /// the shipped nets but for the race net, which the pruning net does not value but which
    /// plays the games on once contact is broken (docs/results.md, "The race net on sibling
    /// labels"). A new file needs this hash and the figures of docs/results.md ("The last ply
    /// pruned").
    #[test]
    fn shipped_pruner_provenance() {
        assert_eq!(crate::weights::fnv1a64(BUILTIN), 0xbcbc_3ce8_281e_ffeb);
    }

    /// A fit lowers the error on the positions it sees.
    #[test]
    fn fitting_lowers_the_error() {
        let nets = nets();
        let positions: Vec<Position> = random_game_positions(3, 20, 120)
            .into_iter()
            .filter(|p| is_contact(p) && game_over(p).is_none())
            .collect();
        let targets: Vec<f32> = positions
            .iter()
            .map(|p| equity(&nets.evaluate(p)))
            .collect();
        let mse = |p: &Pruner| {
            positions
                .iter()
                .zip(&targets)
                .map(|(x, &t)| f64::from((p.equity(x) - t).powi(2)))
                .sum::<f64>()
                / positions.len() as f64
        };
        let mut rng = Rng::new(9);
        let mut pruner = Pruner::random(&mut rng);
        let before = mse(&pruner);
        pruner.fit(&positions, &targets, 30, 0.05, &mut rng);
        let after = mse(&pruner);
        assert!(after < 0.5 * before, "{before} → {after}");
    }

    /// A file round-trips; a damaged one, another shape or a weight that is not finite is an
    /// error, never a panic.
    #[test]
    fn files_round_trip_and_bad_ones_are_refused() {
        let pruner = Pruner::random(&mut Rng::new(1));
        let bytes = pruner.encode();
        assert_eq!(Pruner::decode(&bytes).unwrap(), pruner);
        let mut damaged = bytes.clone();
        let at = damaged.len() - 100;
        damaged[at] ^= 1;
        assert!(matches!(
            Pruner::decode(&damaged),
            Err(WeightsError::Store(_))
        ));
        assert!(Pruner::decode(&bytes[..bytes.len() / 2]).is_err());
        let payload = |hidden: u32, last: f32| {
            let mut p = Vec::new();
            p.extend_from_slice(&(RAW_INPUTS as u32).to_le_bytes());
            p.extend_from_slice(&hidden.to_le_bytes());
            for i in 0..(RAW_INPUTS + 2) * PRUNE_HIDDEN {
                p.extend_from_slice(&(i as f32 * 1e-4).to_le_bytes());
            }
            p.extend_from_slice(&last.to_le_bytes());
            tabula_store::encode(Kind::NetWeights, CONTEXT, &p, tabula_store::DEFAULT_BLOCK)
        };
        assert!(Pruner::decode(&payload(PRUNE_HIDDEN as u32, 0.5)).is_ok());
        let shape = Pruner::decode(&payload(8, 0.5)).unwrap_err();
        assert!(shape.to_string().contains("8 hidden units"), "{shape}");
        let nan = Pruner::decode(&payload(PRUNE_HIDDEN as u32, f32::NAN)).unwrap_err();
        assert!(nan.to_string().contains("not a finite number"), "{nan}");
        // A play-weights file is not a pruning net.
        assert!(Pruner::decode(crate::weights::BUILTIN).is_err());
    }
}
