//! The network: inputs → one hidden layer of sigmoid units → five sigmoid outputs, and the
//! [`Evaluator`] that picks the contact or the race net and scores finished games exactly.

use tabula_engine::backgammon::{Position, Side, BAR, CHECKERS};

use crate::inputs::{a_side_is_crashed, is_contact, Inputs, INPUTS};
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

/// The logistic function `1 / (1 + e^−x)` of every unit, with [`exp`] below.
#[inline(always)]
pub(crate) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + exp(-x))
}

/// `e^x` in single precision, within about 2 units in the last place for `|x| ≤ 87`
/// (checked against `f64::exp` by `exp_is_accurate`), clamped to `±87` outside (where the
/// sigmoid is 0 or 1 to single precision anyway).
///
/// The net's own rather than the C library's `expf`: it has no branch and no call, so the
/// compiler evaluates a layer's sigmoids eight at a time (the 0-ply evaluation rate rose by
/// 8% at that step, see docs/results.md), and it is plain IEEE arithmetic, the same to the bit
/// on every x86_64 machine and build, where glibc picks an `expf` by the CPU (with FMA or
/// without), which can differ in the last bit. The method is Cephes' `expf`: `x = n ln 2 + r`
/// with `n` the nearest integer to `x / ln 2` and `ln 2` in two parts (Cody and Waite), so
/// that `|r| ≤ ln 2 / 2` exactly; `e^r` by its degree-7 Taylor-like minimax polynomial; the
/// power `2^n` written into the exponent bits.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4; // 0.693359375: exact in 9 bits, so n * LN2_HI is exact
    const LN2_LO: f32 = -2.121_944_4e-4;
    let x = x.clamp(-87.0, 87.0);
    let n = (x * LOG2E).round_ties_even();
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let mut p = 1.987_569_1e-4;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5; // Cephes: 5.0000001201e-1, which rounds to 0.5 in single precision
    let e = p * (r * r) + r + 1.0;
    // n is an integer in −126..=126 here, so 2^n is a normal float. Its exponent bits come
    // from n + 1.5 · 2^23, whose low mantissa bits are n itself (exact: |n| is small), which
    // the compiler keeps in vector lanes where a float-to-integer cast would not be.
    const MAGIC: f32 = 12_582_912.0;
    let biased = (n + MAGIC)
        .to_bits()
        .wrapping_sub(MAGIC.to_bits())
        .wrapping_add(127);
    e * f32::from_bits(biased << 23)
}

/// Eight weights on a 32-byte boundary: one AVX2 register's load.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
pub(crate) struct Lane([f32; 8]);

/// A vector of `f32` that starts on a 32-byte boundary (the input-to-hidden weights), read as
/// a plain slice through `Deref`, and as [`Lane`]s by the forward pass.
///
/// Why: the release builds target x86-64-v2, whose tuning splits every 32-byte load the
/// compiler cannot prove aligned into two 16-byte halves (`vmovups` + `vinsertf128`), also in
/// the AVX2 build of the forward pass. Loads of a `Lane` are aligned, so each is one load
/// folded into its multiply. The first layer of the forward pass is most of an evaluation's
/// time (docs/results.md, "Aligned weights").
#[derive(Clone)]
pub(crate) struct AlignedF32s {
    /// The values, then zeros up to the end of the last lane.
    lanes: Vec<Lane>,
    len: usize,
}

impl AlignedF32s {
    /// The values as lanes: `lanes()[i]` holds values `8 i ..= 8 i + 7` (zeros past the end).
    pub(crate) fn lanes(&self) -> &[Lane] {
        &self.lanes
    }
}

impl From<Vec<f32>> for AlignedF32s {
    fn from(v: Vec<f32>) -> AlignedF32s {
        let lanes = v
            .chunks(8)
            .map(|c| {
                let mut lane = [0.0; 8];
                lane[..c.len()].copy_from_slice(c);
                Lane(lane)
            })
            .collect();
        AlignedF32s {
            lanes,
            len: v.len(),
        }
    }
}

impl FromIterator<f32> for AlignedF32s {
    fn from_iter<I: IntoIterator<Item = f32>>(iter: I) -> AlignedF32s {
        iter.into_iter().collect::<Vec<f32>>().into()
    }
}

impl<'a> IntoIterator for &'a AlignedF32s {
    type Item = &'a f32;
    type IntoIter = std::slice::Iter<'a, f32>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl std::fmt::Debug for AlignedF32s {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for AlignedF32s {
    fn eq(&self, other: &AlignedF32s) -> bool {
        **self == **other
    }
}

#[allow(unsafe_code)]
impl std::ops::Deref for AlignedF32s {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        // SAFETY: `Lane` is `repr(C)` around `[f32; 8]`: 32 bytes, eight `f32` one after the
        // other with no padding (its size is exactly eight times four), so `lanes` is
        // `8 * lanes.len()` initialised `f32` in a row, aligned for `f32` (32 ≥ 4). `len` is
        // at most that (every constructor sets it so), and the slice borrows `self`.
        unsafe { std::slice::from_raw_parts(self.lanes.as_ptr().cast::<f32>(), self.len) }
    }
}

#[allow(unsafe_code)]
impl std::ops::DerefMut for AlignedF32s {
    fn deref_mut(&mut self) -> &mut [f32] {
        // SAFETY: as in `deref`, and the slice borrows `self` mutably, so it is the only
        // access to the lanes while it lives. Any `f32` bit pattern is a valid `Lane`.
        unsafe { std::slice::from_raw_parts_mut(self.lanes.as_mut_ptr().cast::<f32>(), self.len) }
    }
}

/// A dense net with one hidden layer of sigmoid units and [`OUTPUTS`] sigmoid outputs over
/// the [`INPUTS`] inputs of [`Inputs`].
#[derive(Clone, PartialEq)]
pub struct Net {
    pub(crate) hidden: usize,
    /// Input-to-hidden weights, input-major: `w1[i * hidden + h]`.
    pub(crate) w1: AlignedF32s,
    pub(crate) b1: Vec<f32>,
    /// Hidden-to-output weights, output-major: `w2[k * hidden + h]`.
    pub(crate) w2: Vec<f32>,
    pub(crate) b2: [f32; OUTPUTS],
}

/// The net's shape and a checksum of its weights, not its tens of thousands of weights (an
/// evaluator in a configuration or an assertion prints in a line).
impl std::fmt::Debug for Net {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sum = |v: &[f32]| v.iter().map(|&w| f64::from(w)).sum::<f64>();
        f.debug_struct("Net")
            .field("inputs", &INPUTS)
            .field("hidden", &self.hidden)
            .field(
                "weight_sum",
                &(sum(&self.w1) + sum(&self.b1) + sum(&self.w2) + sum(&self.b2)),
            )
            .finish()
    }
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

    /// The weight-by-weight mean of `nets` (a "model soup"), or `None` when there are none or
    /// their hidden layers differ. Meaningful for nets fitted from one another, whose hidden
    /// units still correspond; unrelated nets average to noise.
    pub fn mean(nets: &[&Net]) -> Option<Net> {
        let first = nets.first()?;
        if nets.iter().any(|n| n.hidden != first.hidden) {
            return None;
        }
        let avg = |part: fn(&Net) -> &[f32]| -> Vec<f32> {
            (0..part(first).len())
                .map(|i| {
                    let sum: f64 = nets.iter().map(|n| f64::from(part(n)[i])).sum();
                    (sum / nets.len() as f64) as f32
                })
                .collect()
        };
        let b2 = avg(|n| &n.b2);
        Some(Net {
            hidden: first.hidden,
            w1: avg(|n| &n.w1).into(),
            b1: avg(|n| &n.b1),
            w2: avg(|n| &n.w2),
            b2: b2.try_into().ok()?,
        })
    }

    /// The number of weights and biases.
    pub fn parameters(&self) -> usize {
        self.w1.len() + self.b1.len() + self.w2.len() + OUTPUTS
    }

    /// The raw outputs for `x`, leaving the hidden activations in `h` (at least
    /// [`Net::hidden`] long).
    ///
    /// On x86_64 CPUs with AVX2 the same code runs compiled for AVX2 (eight lanes instead of
    /// SSE's four). The outputs are the same to the bit: only AVX2 is enabled, not FMA, so
    /// every product is rounded before its sum exactly as in the SSE build, and the order of
    /// the additions is the source's (the compiler may not reassociate floating point).
    /// Tested by `avx2_forward_is_the_portable_one`.
    pub fn forward_into(&self, x: &Inputs, h: &mut [f32]) -> Probabilities {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return self.forward_avx2(x, h);
        }
        self.forward_portable::<false>(x, h)
    }

    /// [`Net::forward_into`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    fn forward_avx2(&self, x: &Inputs, h: &mut [f32]) -> Probabilities {
        #[target_feature(enable = "avx2")]
        fn avx2(net: &Net, x: &Inputs, h: &mut [f32]) -> Probabilities {
            net.forward_portable::<true>(x, h)
        }
        // SAFETY: a function compiled with a target feature may only run on a CPU that has
        // it; the one caller, `forward_into`, checked `is_x86_feature_detected!("avx2")`.
        // The function itself is safe code.
        unsafe { avx2(self, x, h) }
    }

    /// The forward pass, inlined into each build of it.
    #[inline(always)]
    fn forward_portable<const WIDE: bool>(&self, x: &Inputs, h: &mut [f32]) -> Probabilities {
        let n = self.hidden;
        let h = &mut h[..n];
        // The first layer a block of hidden units at a time, the block's sums held in
        // registers across all the inputs (instead of loading and storing every unit once
        // per input). Each unit still adds its inputs in index order from its bias, so the
        // sums are the same to the bit as one unit at a time (`1.0 * w` is exactly `w`),
        // whatever the blocks. Blocks of 80 (ten AVX2 registers) where `WIDE` (the AVX2
        // build: two passes over the inputs for the shipped contact net's 160 units, three for
        // the crashed net's 240), read as aligned lanes where the layer is a multiple of eight
        // units (and those units' sigmoids taken in registers), then blocks of 40 (ten SSE
        // registers; 80 would spill there).
        let (mut blocks, mut activated) = (0, 0);
        if WIDE && n.is_multiple_of(8) {
            // Blocks of 80 units, then what is left (a multiple of 8 below 80) in at most
            // four more passes of 64, 32, 16 and 8: a net of 64 units in one pass instead of
            // a block of 40 and 24 units one input at a time (1.35 times the race positions'
            // rate with stop 63's 64-unit race net; docs/results.md, "A wider race net").
            blocks = self.first_layer_lanes::<10>(x, h, 0);
            let rest = (n - blocks) / 8;
            if rest & 8 != 0 {
                blocks = self.first_layer_lanes::<8>(x, h, blocks);
            }
            if rest & 4 != 0 {
                blocks = self.first_layer_lanes::<4>(x, h, blocks);
            }
            if rest & 2 != 0 {
                blocks = self.first_layer_lanes::<2>(x, h, blocks);
            }
            if rest & 1 != 0 {
                blocks = self.first_layer_lanes::<1>(x, h, blocks);
            }
            activated = blocks;
        } else if WIDE {
            blocks = self.first_layer_blocks::<80>(x, h, 0);
        }
        blocks = self.first_layer_blocks::<40>(x, h, blocks);
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
        for a in h[activated..].iter_mut() {
            *a = sigmoid(*a);
        }
        // Each output's four partial sums (faster than one, and still one fixed order) over
        // its row in fours, then the rest; the five outputs side by side: five independent
        // chains of additions instead of one at a time, each waiting on its last addition.
        let rows: [(&[[f32; 4]], &[f32]); OUTPUTS] =
            std::array::from_fn(|k| self.w2[k * n..(k + 1) * n].as_chunks::<4>());
        let (h4, h_rest) = h.as_chunks::<4>();
        let mut acc = [[0.0f32; 4]; OUTPUTS];
        for (c, a) in h4.iter().enumerate() {
            for (s, (row, _)) in acc.iter_mut().zip(&rows) {
                let w = &row[c];
                *s = std::array::from_fn(|j| s[j] + w[j] * a[j]);
            }
        }
        // Left alone, the compiler holds the sums as the pairs the last line adds
        // (`[s[0], s[2]]` and `[s[1], s[3]]`) and shuffles on every step of the loop;
        // opaque, each stays one register in its own order.
        let acc = std::hint::black_box(acc);
        let mut out = [0.0; OUTPUTS];
        for (k, (o, s)) in out.iter_mut().zip(&acc).enumerate() {
            let tail: f32 = rows[k].1.iter().zip(h_rest).map(|(w, a)| w * a).sum();
            *o = sigmoid(self.b2[k] + (s[0] + s[1]) + (s[2] + s[3]) + tail);
        }
        out
    }

    /// [`Net::first_layer_blocks`] with blocks of `LANES` aligned [`Lane`]s from unit
    /// `start` (a multiple of eight), for a layer of a multiple of eight units (every row of
    /// `w1` then starts on a lane), their sigmoids taken too. The same sums in the same
    /// order; returns where the whole blocks end.
    #[inline(always)]
    fn first_layer_lanes<const LANES: usize>(
        &self,
        x: &Inputs,
        h: &mut [f32],
        start: usize,
    ) -> usize {
        let n = self.hidden;
        debug_assert!(n.is_multiple_of(8) && start.is_multiple_of(8));
        let block = 8 * LANES;
        let end = start + (n - start) / block * block;
        let lanes = self.w1.lanes();
        for at0 in (start..end).step_by(block) {
            let mut acc = [[0.0f32; 8]; LANES];
            for (l, a) in acc.iter_mut().enumerate() {
                a.copy_from_slice(&self.b1[at0 + 8 * l..at0 + 8 * l + 8]);
            }
            for k in 0..x.len {
                let at = (x.index[k] as usize * n + at0) / 8;
                let v = x.value[k];
                let row: &[Lane; LANES] = lanes[at..at + LANES].try_into().unwrap();
                for (a, w) in acc.iter_mut().zip(row) {
                    let w = w.0;
                    for j in 0..8 {
                        a[j] += v * w[j];
                    }
                }
            }
            for (l, a) in acc.iter().enumerate() {
                for (u, &s) in h[at0 + 8 * l..at0 + 8 * l + 8].iter_mut().zip(a) {
                    *u = sigmoid(s);
                }
            }
        }
        end
    }

    /// The first layer's sums of the hidden units from `start` on, `BLOCK` at a time, into
    /// `h`; returns where the whole blocks end.
    #[inline(always)]
    fn first_layer_blocks<const BLOCK: usize>(
        &self,
        x: &Inputs,
        h: &mut [f32],
        start: usize,
    ) -> usize {
        let n = self.hidden;
        let end = start + (n - start) / BLOCK * BLOCK;
        for at0 in (start..end).step_by(BLOCK) {
            let mut acc: [f32; BLOCK] = self.b1[at0..at0 + BLOCK].try_into().unwrap();
            for k in 0..x.len {
                let at = x.index[k] as usize * n + at0;
                let v = x.value[k];
                let row: &[f32; BLOCK] = self.w1[at..at + BLOCK].try_into().unwrap();
                for (a, w) in acc.iter_mut().zip(row) {
                    *a += v * w;
                }
            }
            h[at0..at0 + BLOCK].copy_from_slice(&acc);
        }
        end
    }

    /// The raw outputs for `x`.
    pub fn forward(&self, x: &Inputs) -> Probabilities {
        // A buffer no larger than the net needs: the shipped nets have 160 (contact), 240
        // (crashed) and 160 (race) hidden units, and clearing 2 KiB of stack on every
        // evaluation cost about 2% of the 0-ply evaluation rate.
        if self.hidden <= 128 {
            self.forward_into(x, &mut [0.0f32; 128])
        } else if self.hidden <= 256 {
            self.forward_into(x, &mut [0.0f32; 256])
        } else {
            self.forward_into(x, &mut [0.0f32; MAX_HIDDEN])
        }
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

/// Which net evaluates a position: gnubg's three classes of positions that are not over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NetClass {
    /// The checkers can still meet and neither side is crashed.
    Contact,
    /// Contact, and one side is crashed ([`crate::inputs::is_crashed`]).
    Crashed,
    /// No contact.
    Race,
}

impl NetClass {
    /// The class of `pos`.
    pub fn of(pos: &Position) -> NetClass {
        if !is_contact(pos) {
            NetClass::Race
        } else if a_side_is_crashed(pos) {
            NetClass::Crashed
        } else {
            NetClass::Contact
        }
    }

    /// The name used in files and messages.
    pub fn name(self) -> &'static str {
        match self {
            NetClass::Contact => "contact",
            NetClass::Crashed => "crashed",
            NetClass::Race => "race",
        }
    }

    /// The class [`NetClass::name`] names; `None` for any other name.
    pub fn from_name(name: &str) -> Option<NetClass> {
        [NetClass::Contact, NetClass::Crashed, NetClass::Race]
            .into_iter()
            .find(|c| c.name() == name)
    }
}

/// The nets: one for positions with contact, one for crashed positions (optional: without it
/// the contact net evaluates them too, as it did before there was one), one for races.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluator {
    pub contact: Net,
    /// The net of crashed positions, when the weights have one of their own.
    pub crashed: Option<Net>,
    pub race: Net,
    /// Exact race endings, used instead of the race net when attached: bear-offs from the
    /// one-sided database, and races where a side has only a few checkers left
    /// ([`crate::bearoff`]).
    pub bearoff: Option<crate::bearoff::BearoffTable>,
    /// The evaluator of cube decisions, when they have nets of their own
    /// ([`Evaluator::with_cube`]; the shipped evaluator of [`crate::weights::shipped`]): the
    /// advisor's doubles, takes and passes and the cubeful rollouts' cube turns come from it
    /// ([`Evaluator::for_cube`]) where [`Evaluator::cube_decides`], the plays from these nets.
    /// Its exact endings are always this evaluator's.
    pub cube: Option<std::sync::Arc<Evaluator>>,
    /// With [`Evaluator::cube`]: the gammon rate (won plus lost, by these nets at 0 plies) from
    /// which the cube nets decide a position's cube; below it these nets decide it
    /// ([`Evaluator::cube_decides`]). `None`: the cube nets decide every cube.
    pub cube_gammons: Option<f32>,
    /// The small net fitted to these nets that pre-ranks the plays at a search's last ply
    /// ([`crate::prune`]); the shipped nets have one ([`crate::weights::builtin`]). Changing
    /// a net through [`Evaluator::net_mut`] drops it: it was fitted to the nets as they were.
    pub pruner: Option<std::sync::Arc<crate::prune::Pruner>>,
}

impl Evaluator {
    /// Fresh random nets (the start of training), without a crashed net of their own.
    pub fn random(contact_hidden: usize, race_hidden: usize, rng: &mut Rng) -> Evaluator {
        Evaluator {
            contact: Net::random(contact_hidden, rng),
            crashed: None,
            race: Net::random(race_hidden, rng),
            bearoff: None,
            cube: None,
            cube_gammons: None,
            pruner: None,
        }
    }

    /// These nets with `pruner`, the pruning net fitted to them.
    pub fn with_pruner(mut self, pruner: crate::prune::Pruner) -> Evaluator {
        self.pruner = Some(std::sync::Arc::new(pruner));
        self
    }

    /// The same nets without a pruning net, nor one for the cube's nets: every search values
    /// every play.
    pub fn without_pruner(mut self) -> Evaluator {
        self.pruner = None;
        if let Some(cube) = self.cube.take() {
            self.cube = Some(std::sync::Arc::new(Evaluator {
                pruner: None,
                ..(*cube).clone()
            }));
        }
        self
    }

    /// The same nets for plays, with `cube`'s nets for cube decisions ([`Evaluator::cube`]);
    /// `cube` gets these nets' exact endings, and no pruning net: the cube's searches value
    /// every play (docs/results.md, "The last ply pruned").
    pub fn with_cube(self, cube: Evaluator) -> Evaluator {
        let cube = Evaluator {
            bearoff: self.bearoff.clone(),
            cube: None,
            cube_gammons: None,
            pruner: None,
            ..cube
        };
        Evaluator {
            cube: Some(std::sync::Arc::new(cube)),
            cube_gammons: None,
            ..self
        }
    }

    /// The evaluator of cube decisions: [`Evaluator::cube`] when there is one, else this.
    pub fn for_cube(&self) -> &Evaluator {
        self.cube.as_deref().unwrap_or(self)
    }

    /// The same nets, whose cube nets decide the cube only where these nets' 0-ply gammon
    /// rate (won plus lost) is at least `gammons` ([`Evaluator::cube_gammons`]); elsewhere
    /// these nets decide it. Without cube nets, these nets decide every cube anyway.
    pub fn with_cube_gammons(self, gammons: f32) -> Evaluator {
        Evaluator {
            cube_gammons: Some(gammons),
            ..self
        }
    }

    /// Whether the cube nets ([`Evaluator::for_cube`]) decide the cube of `pos` (with the
    /// player on roll as in `pos`); `false` when these nets do. With
    /// [`Evaluator::cube_gammons`], one 0-ply evaluation of `pos` by these nets tells.
    pub fn cube_decides(&self, pos: &Position) -> bool {
        match (&self.cube, self.cube_gammons) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(_), Some(t)) => {
                let p = self.evaluate(pos);
                p[1] + p[3] >= t
            }
        }
    }

    /// The same nets with exact bear-offs from a one-sided bearoff database.
    pub fn with_bearoff(
        self,
        table: std::sync::Arc<tabula_tablebase::bearoff::OneSided>,
    ) -> Evaluator {
        self.with_bearoff_tables(table, None)
    }

    /// The same nets with exact bear-offs, and, when `race` is given, exact one-sided races
    /// where each side's checkers are on the points of the race database
    /// ([`crate::bearoff`]; a deferred one is opened by the first race that could use it).
    pub fn with_bearoff_tables(
        mut self,
        os: std::sync::Arc<tabula_tablebase::bearoff::OneSided>,
        race: Option<std::sync::Arc<crate::bearoff::RaceDb>>,
    ) -> Evaluator {
        let cube = self.cube.take();
        let cube_gammons = self.cube_gammons;
        let nets = Evaluator {
            bearoff: Some(crate::bearoff::BearoffTable { os, race }),
            ..self
        };
        // The cube nets take the new endings too (`with_cube` gives them these), and decide
        // the cube where they did.
        match cube {
            Some(c) => Evaluator {
                cube_gammons,
                ..nets.with_cube((*c).clone())
            },
            None => nets,
        }
    }

    /// The net that evaluates positions of `class` (the contact net for crashed positions
    /// when there is no crashed net).
    pub fn net(&self, class: NetClass) -> &Net {
        match class {
            NetClass::Contact => &self.contact,
            NetClass::Crashed => self.crashed.as_ref().unwrap_or(&self.contact),
            NetClass::Race => &self.race,
        }
    }

    /// The same, to train.
    pub fn net_mut(&mut self, class: NetClass) -> &mut Net {
        self.pruner = None;
        match class {
            NetClass::Contact => &mut self.contact,
            NetClass::Crashed => self.crashed.as_mut().unwrap_or(&mut self.contact),
            NetClass::Race => &mut self.race,
        }
    }

    /// The net that evaluates `pos` and the class of `pos`.
    pub fn net_for(&self, pos: &Position) -> (&Net, NetClass) {
        let class = NetClass::of(pos);
        (self.net(class), class)
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
        // `net_for`, with the crashed test only where a crashed net is there to take it.
        let race = !is_contact(pos);
        let net = match &self.crashed {
            _ if race => &self.race,
            Some(crashed) if a_side_is_crashed(pos) => crashed,
            _ => &self.contact,
        };
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

    /// The mean of nets is taken weight by weight; a net is its own mean; nets of other
    /// hidden sizes, or none, have none.
    #[test]
    fn the_mean_of_nets_is_weight_by_weight() {
        let mut rng = Rng::new(9);
        let (a, b) = (Net::random(6, &mut rng), Net::random(6, &mut rng));
        assert_eq!(Net::mean(&[&a]), Some(a.clone()));
        assert_eq!(Net::mean(&[&a, &a, &a]), Some(a.clone()));
        let m = Net::mean(&[&a, &b]).unwrap();
        assert_eq!(m.hidden(), 6);
        for (part_m, part_a, part_b) in [
            (&m.w1[..], &a.w1[..], &b.w1[..]),
            (&m.b1, &a.b1, &b.b1),
            (&m.w2, &a.w2, &b.w2),
            (&m.b2[..], &a.b2[..], &b.b2[..]),
        ] {
            assert_eq!(part_m.len(), part_a.len());
            for i in 0..part_m.len() {
                let want = (f64::from(part_a[i]) + f64::from(part_b[i])) / 2.0;
                assert!((f64::from(part_m[i]) - want).abs() < 1e-7, "{i}");
            }
        }
        assert_ne!(m, a);
        assert_eq!(Net::mean(&[&a, &Net::random(7, &mut rng)]), None);
        assert_eq!(Net::mean(&[]), None);
    }

    /// The cube nets evaluate with the play nets' exact endings, whichever of the two is
    /// attached first, and a cube evaluator has no cube evaluator of its own.
    #[test]
    fn the_cube_nets_share_the_exact_endings() {
        use std::sync::Arc;
        use tabula_tablebase::bearoff::OneSided;
        let mut rng = Rng::new(4);
        let (a, b) = (
            Evaluator::random(4, 4, &mut rng),
            Evaluator::random(4, 4, &mut rng),
        );
        let os = Arc::new(OneSided::build());
        let first = a.clone().with_cube(b.clone()).with_bearoff(os.clone());
        let later = a
            .clone()
            .with_bearoff(os.clone())
            .with_cube(b.clone().with_cube(a.clone()));
        assert_eq!(first, later);
        // A gammon threshold for the cube nets survives the endings attached after it; a new
        // cube evaluator decides every cube again.
        let hybrid = a.clone().with_cube(b.clone()).with_cube_gammons(0.3);
        assert_eq!(hybrid.with_bearoff(os).cube_gammons, Some(0.3));
        let replaced = a.clone().with_cube_gammons(0.3).with_cube(b.clone());
        assert_eq!(replaced.cube_gammons, None);
        let mut counts = [[0u8; 25]; 2];
        (counts[0][0], counts[0][3], counts[1][1]) = (2, 1, 3);
        let bear_off = Position::from_counts(counts[0], counts[1]).unwrap();
        let contact = Position::START;
        for e in [&first, &later] {
            let c = e.for_cube();
            assert!(e.bearoff.is_some() && c.bearoff == e.bearoff && c.cube.is_none());
            assert_eq!(
                c.evaluate(&bear_off),
                e.evaluate(&bear_off),
                "exact for both"
            );
            assert_eq!(c.evaluate(&contact), b.evaluate(&contact));
            assert_ne!(
                c.evaluate(&contact),
                e.evaluate(&contact),
                "the nets differ"
            );
        }
    }

    /// Random nets of the given hidden sizes (on and off the blocks of the first layer).
    fn random_nets(rng: &mut Rng, sizes: &[usize]) -> Vec<Net> {
        sizes.iter().map(|&n| Net::random(n, rng)).collect()
    }

    /// The blocked first layer gives the same outputs to the bit as one hidden unit at a
    /// time, each summing its inputs in index order from its bias, for hidden sizes on and
    /// off the block size; the outputs are their fixed order of partial sums.
    #[test]
    fn blocked_forward_is_the_plain_sum() {
        use crate::baseline::{roll, Player};
        use tabula_engine::backgammon::PlayList;
        let mut rng = Rng::new(5);
        let nets = random_nets(
            &mut rng,
            &[
                80, 40, 7, 41, 96, 84, 160, 240, 8, 16, 24, 56, 64, 72, 120, 200,
            ],
        );
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
                let out = net.forward_into(&x, &mut h);
                assert_eq!(&h[..n], &plain[..], "{n} hidden at {pos}");
                // Each output: four partial sums over the units in fours, then the rest.
                let want: Vec<f32> = (0..OUTPUTS)
                    .map(|k| {
                        let row = &net.w2[k * n..(k + 1) * n];
                        let mut s = [0.0f32; 4];
                        for u in 0..n / 4 * 4 {
                            s[u % 4] += row[u] * plain[u];
                        }
                        let mut tail = 0.0;
                        for u in n / 4 * 4..n {
                            tail += row[u] * plain[u];
                        }
                        sigmoid(net.b2[k] + (s[0] + s[1]) + (s[2] + s[3]) + tail)
                    })
                    .collect();
                assert_eq!(&out[..], &want[..], "{n} hidden at {pos}");
            }
            pos = Player::Random.play(&pos, roll(&mut rng), &mut list, &mut rng);
        }
    }

    /// The aligned weights read back as the vector they were made from, through the slice
    /// and through the lanes (zeros past the end), and compare by their values only.
    #[test]
    fn aligned_weights_are_the_vector() {
        for len in [0usize, 1, 7, 8, 9, 17, 24] {
            let v: Vec<f32> = (0..len).map(|i| i as f32 + 0.5).collect();
            let mut a = AlignedF32s::from(v.clone());
            assert_eq!(&a[..], &v[..]);
            assert_eq!(a.lanes().len(), len.div_ceil(8));
            let flat: Vec<f32> = a.lanes().iter().flat_map(|l| l.0).collect();
            assert_eq!(&flat[..len], &v[..]);
            assert!(flat[len..].iter().all(|&w| w == 0.0));
            assert_eq!(a, v.iter().copied().collect::<AlignedF32s>());
            if len > 0 {
                a[len - 1] = -1.0;
                assert_eq!(a.lanes()[(len - 1) / 8].0[(len - 1) % 8], -1.0);
                assert_ne!(a, AlignedF32s::from(v));
            }
        }
    }

    /// The AVX2 build of the forward pass gives the portable build's outputs and hidden
    /// units to the bit (on a CPU without AVX2 both calls run the portable build).
    #[test]
    fn avx2_forward_is_the_portable_one() {
        let nets = random_nets(
            &mut Rng::new(11),
            &[
                80, 40, 7, 41, 128, 84, 160, 240, 8, 16, 24, 56, 64, 72, 96, 120,
            ],
        );
        for pos in crate::inputs::tests::random_game_positions(12, 20, 300) {
            let x = Inputs::new(&pos);
            for net in &nets {
                let (mut h1, mut h2) = ([0.0f32; MAX_HIDDEN], [0.0f32; MAX_HIDDEN]);
                let a = net.forward_into(&x, &mut h1);
                let b = net.forward_portable::<false>(&x, &mut h2);
                assert_eq!(a.map(f32::to_bits), b.map(f32::to_bits), "{pos}");
                assert_eq!(h1.map(f32::to_bits), h2.map(f32::to_bits), "{pos}");
            }
        }
    }

    /// The net's `exp` against `f64::exp` rounded to single precision: at most 2 units in
    /// the last place apart over the whole range it serves (every 997th float from −87 to
    /// 87 and the ends), and clamped outside it.
    #[test]
    fn exp_is_accurate() {
        let ulps = |a: f32, b: f32| (a.to_bits() as i64 - b.to_bits() as i64).abs();
        let mut worst = 0;
        let mut check = |x: f32| {
            let want = (x as f64).exp() as f32;
            let d = ulps(exp(x), want);
            assert!(d <= 2, "exp({x}) = {} against {want}", exp(x));
            worst = worst.max(d);
        };
        for x in [-87.0f32, 87.0, 0.0, -0.0, 1.0, -1.0, 0.5, 1e-30] {
            check(x);
        }
        let (lo, hi) = ((-87.0f32).to_bits(), 87.0f32.to_bits());
        // Negative floats' bits run from 0x8000_0000 (−0) up to −87's.
        for bits in (0x8000_0000..=lo).step_by(997).chain((0..=hi).step_by(997)) {
            check(f32::from_bits(bits));
        }
        assert!(worst >= 1, "the comparison is not vacuous");
        assert_eq!(exp(1000.0), exp(87.0));
        assert_eq!(exp(-1000.0), exp(-87.0));
        assert_eq!(sigmoid(-1000.0), sigmoid(-87.0));
        assert!(sigmoid(-87.0) > 0.0 && sigmoid(87.0) == 1.0);
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

    /// The positions of `gammon/tests/data/backgammon-classes.txt` with gnubg's class names.
    fn gnubg_classes() -> impl Iterator<Item = (Position, &'static str)> {
        include_str!("../tests/data/backgammon-classes.txt")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|line| {
                let (id, class) = line.split_once(' ').unwrap();
                (Position::from_position_id(id).unwrap(), class)
            })
    }

    /// Tabula's classes agree with gnubg's `classifypos` on 4,000 positions built around its
    /// crashed rule (`scripts/gnubg-classes.py`: piles on the ace and deuce points, 1 to 15
    /// checkers in play a side), race and bear-off kinds read as race.
    #[test]
    fn classes_are_gnubgs() {
        let mut seen = std::collections::HashMap::new();
        for (pos, class) in gnubg_classes() {
            let ours = NetClass::of(&pos);
            assert_eq!(ours.name(), class, "{pos}");
            assert_eq!(NetClass::from_name(class), Some(ours));
            // The class does not depend on who is on roll.
            assert_eq!(NetClass::of(&pos.swapped()), ours, "{pos}");
            *seen.entry(ours).or_insert(0) += 1;
        }
        for class in [NetClass::Contact, NetClass::Crashed, NetClass::Race] {
            assert!(seen.get(&class).copied().unwrap_or(0) > 500, "{seen:?}");
        }
        assert_eq!(NetClass::from_name("bear-off"), None);
    }

    /// Without a crashed net the contact net evaluates crashed positions, as before there were
    /// crashed nets; with one, that net does, and only there.
    #[test]
    fn the_crashed_net_evaluates_crashed_positions_only() {
        let mut rng = Rng::new(4);
        let plain = Evaluator::random(8, 4, &mut rng);
        let mut with = plain.clone();
        with.crashed = Some(Net::random(6, &mut rng));
        let mut crashed = 0;
        for (pos, _) in gnubg_classes().take(400) {
            let class = NetClass::of(&pos);
            assert_eq!(
                plain.net_for(&pos).0,
                if class == NetClass::Race {
                    &plain.race
                } else {
                    &plain.contact
                }
            );
            let (a, b) = (plain.evaluate(&pos), with.evaluate(&pos));
            if class == NetClass::Crashed {
                crashed += 1;
                assert_eq!(with.net_for(&pos).0, with.crashed.as_ref().unwrap());
                let own = consistent(
                    &pos,
                    with.crashed.as_ref().unwrap().forward(&Inputs::new(&pos)),
                    false,
                );
                assert_eq!(b, own);
                assert_ne!(a, b, "{pos}");
            } else {
                assert_eq!(a, b, "{pos}");
            }
        }
        assert!(crashed > 100);
    }
}
