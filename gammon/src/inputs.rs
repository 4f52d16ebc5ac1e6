//! Network inputs, TD-Gammon style, from the point of view of the player on roll.
//!
//! Per side (the player on roll first, then the opponent, each on its own point numbering):
//! for each of the 24 points four units for `n` checkers there, `n ≥ 1`, `n ≥ 2`, `n ≥ 3` and
//! `(n − 3) / 2` when `n > 3`; then the bar (`n / 2`), the checkers borne off (`n / 15`) and
//! the pip count (`pips / 167`). 99 units per side, [`RAW_INPUTS`] = 198 in all.
//!
//! Then [`FEATURES`] computed units per side (on roll first), the tactical facts a raw board
//! encoding makes a small net learn slowly (the kind gnubg's nets are given):
//! - shots: the share of the 36 rolls on which the other side can hit one of this side's blots;
//! - pip loss: the mean over the 36 rolls of the pips the worst such hit costs, over 24;
//! - escapes: the share of rolls on which this side's rearmost checker can pass every point the
//!   other side holds within 12 pips in front of it (1 when there is none);
//! - prime: the longest run of points this side holds, over 6 (at most 1).
//!
//! Then [`BLOCKADE_FEATURES`] more per side (on roll first), added later:
//! - containment: how well the other side's points hold back a checker of this side at the back,
//!   `1 − min / 36` where `min` is the fewest rolls on which a checker escapes past the other
//!   side's points within 12 pips in front of it, over start points from the bar to 9 pips on;
//! - dance: with this side on the bar, the share of rolls that fail to enter, `(closed / 6)²`.
//!
//! Then [`SHAPE_FEATURES`] more per side (on roll first), the rest of the kind of inputs gnubg's
//! contact net is given (definitions ours, in its spirit), added last:
//! - break contact: the pips this side's checkers behind the other side's rearmost checker
//!   must travel to pass it, over 152 (the start's);
//! - back checker: this side's rearmost point (the bar is 25), over 25;
//! - back anchor: this side's rearmost point holding two or more, over 24 (0 when none);
//! - forward anchor: the most advanced point this side holds in the other side's home board,
//!   else in its outer board, as the other side's point number over 6; 2 when there is none;
//! - double shots: the share of rolls on which the other side can hit two of this side's blots;
//! - mobility: over this side's checkers outside its home board, the rolls on which each
//!   passes every point the other side holds within 12 pips in front of it, times its distance
//!   from home, summed and over 3,600;
//! - moment: the mean squared distance from the mean point of this side's checkers beyond
//!   it, over 400 (how far its stragglers lag);
//! - containment squared (the blockade unit above, squared);
//! - wide containment: as containment, over start points from the bar to 15 pips on, and its
//!   square;
//! - back game: with two or more points held in the other side's home board, their number
//!   less one, over 4; with one, the checkers on it over 8 (two units, one of them zero).
//!
//! Then [`RACE_FEATURES`] more per side (on roll first), set only in races (no contact, see
//! [`is_contact`]), so the contact net never sees them: the race inputs gnubg's race net is
//! given and two of ours, added last:
//! - checkers off: fourteen units, unit `k` one when exactly `k + 1` checkers are off;
//! - crossovers: the quadrant crossings this side's checkers outside its home board still make
//!   to get home (a checker on points 7–12 one, 13–18 two, 19–24 three), over 10;
//! - home distance: the pips that bring every checker of this side home, over 40 (what saving
//!   a gammon turns on);
//! - escape distance: the pips that bring every checker of this side out of the other side's
//!   home board, over 10 (what saving a backgammon turns on).
//!
//! [`INPUTS`] = 268. The contact and race nets take the same inputs. Each earlier layout
//! ([`LAYOUTS`]) is a prefix of the current one, so weights trained on it still load: the
//! units it lacks get zero weights (see `weights.rs`).
//!
//! Most units are zero, so the inputs are kept sparse: the net adds one weight row per
//! non-zero unit.

use tabula_engine::backgammon::{Dice, Position, Side, BAR};

/// Units per side.
pub const SIDE_INPUTS: usize = 24 * 4 + 3;
/// The raw board units of both sides (TD-Gammon's encoding).
pub const RAW_INPUTS: usize = 2 * SIDE_INPUTS;
/// Computed units per side: shots, pip loss, escapes, prime.
pub const FEATURES: usize = 4;
/// Later computed units per side: containment, dance.
pub const BLOCKADE_FEATURES: usize = 2;
/// The last computed units per side: break contact, back checker, back anchor, forward
/// anchor, double shots, mobility, moment, containment squared, wide containment and its
/// square, back game (two units).
pub const SHAPE_FEATURES: usize = 12;
/// Where the [`SHAPE_FEATURES`] start.
const SHAPE_AT: usize = RAW_INPUTS + 2 * FEATURES + 2 * BLOCKADE_FEATURES;
/// Race units per side, set in races only: checkers off (fourteen units), crossovers, home
/// distance, escape distance.
pub const RACE_FEATURES: usize = 17;
/// Where the [`RACE_FEATURES`] start.
const RACE_AT: usize = SHAPE_AT + 2 * SHAPE_FEATURES;
/// Units in all.
pub const INPUTS: usize = RACE_AT + 2 * RACE_FEATURES;
/// The input counts weights files have had, oldest first; each is a prefix of the next.
pub const LAYOUTS: [usize; 5] = [
    RAW_INPUTS,
    RAW_INPUTS + 2 * FEATURES,
    SHAPE_AT,
    RACE_AT,
    INPUTS,
];

/// The non-zero inputs of a position: `(index, value)` pairs in increasing index order.
#[derive(Clone, Debug)]
pub struct Inputs {
    pub index: [u16; INPUTS],
    pub value: [f32; INPUTS],
    pub len: usize,
}

impl Inputs {
    /// The inputs of `pos` for the player on roll.
    pub fn new(pos: &Position) -> Inputs {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Self::new_avx2(pos);
        }
        Self::build(pos)
    }

    /// [`Inputs::new`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    fn new_avx2(pos: &Position) -> Inputs {
        #[target_feature(enable = "avx2")]
        fn avx2(pos: &Position) -> Inputs {
            Inputs::build(pos)
        }
        // SAFETY: a function compiled with a target feature may only run on a CPU that has
        // it; the one caller, `new`, checked `is_x86_feature_detected!("avx2")`. The
        // function itself is safe code.
        unsafe { avx2(pos) }
    }

    #[inline(always)]
    fn build(pos: &Position) -> Inputs {
        let mut x = Inputs {
            index: [0; INPUTS],
            value: [0.0; INPUTS],
            len: 0,
        };
        let counts = [pos.counts(Side::OnRoll), pos.counts(Side::Opponent)];
        // Checkers borne off, each side (for the race units too).
        let offs = x.push_raw(&counts);
        let masks = counts.map(|c| PointMasks::new(&c));
        for s in 0..2 {
            let f = side_features(&masks[s], &masks[1 - s]);
            for (k, &v) in f.iter().enumerate() {
                if v != 0.0 {
                    x.push(RAW_INPUTS + s * FEATURES + k, v);
                }
            }
        }
        let mut contained = [0.0; 2];
        for s in 0..2 {
            let f = blockade_features(&masks[s], &masks[1 - s]);
            contained[s] = f[0];
            for (k, &v) in f.iter().enumerate() {
                if v != 0.0 {
                    x.push(RAW_INPUTS + 2 * FEATURES + s * BLOCKADE_FEATURES + k, v);
                }
            }
        }
        for s in 0..2 {
            let f = shape_features(&counts[s], &masks[s], &masks[1 - s], contained[s]);
            for (k, &v) in f.iter().enumerate() {
                if v != 0.0 {
                    x.push(SHAPE_AT + s * SHAPE_FEATURES + k, v);
                }
            }
        }
        if !is_contact(pos) {
            for (s, counts) in counts.iter().enumerate() {
                let base = RACE_AT + s * RACE_FEATURES;
                let off = offs[s] as usize;
                if (1..=14).contains(&off) {
                    x.push(base + off - 1, 1.0);
                }
                // Point i + 1 is in quadrant i / 6 (crossings left), i − 5 pips from home and
                // i − 17 from leaving the other side's home board: the distances a gammon and
                // a backgammon turn on.
                let (mut crossings, mut home, mut out) = (0u32, 0u32, 0u32);
                for (i, &n) in counts.iter().enumerate().take(BAR).skip(6) {
                    let n = n as u32;
                    crossings += (i as u32 / 6) * n;
                    home += (i as u32 - 5) * n;
                    if i >= 18 {
                        out += (i as u32 - 17) * n;
                    }
                }
                if crossings > 0 {
                    x.push(base + 14, crossings as f32 / 10.0);
                }
                if home > 0 {
                    x.push(base + 15, home as f32 / 40.0);
                }
                if out > 0 {
                    x.push(base + 16, out as f32 / 10.0);
                }
            }
        }
        x
    }

    /// The raw board units alone ([`RAW_INPUTS`]: TD-Gammon's encoding of both sides), for a
    /// net that takes no computed features (the search's [`crate::prune::Pruner`]).
    pub fn raw(pos: &Position) -> Inputs {
        let mut x = Inputs {
            index: [0; INPUTS],
            value: [0.0; INPUTS],
            len: 0,
        };
        x.push_raw(&[pos.counts(Side::OnRoll), pos.counts(Side::Opponent)]);
        x
    }

    /// Pushes the raw board units of both sides; returns each side's checkers borne off.
    #[inline(always)]
    fn push_raw(&mut self, counts: &[[u8; 25]; 2]) -> [u32; 2] {
        let x = self;
        let mut offs = [0u32; 2];
        for (s, counts) in counts.iter().enumerate() {
            let base = s * SIDE_INPUTS;
            for (i, &n) in counts[..BAR].iter().enumerate() {
                // All four units written, the first min(n, 4) of them kept: no branch on
                // the count (a point's units are consecutive, and the next write starts
                // where the kept ones end).
                let u = (base + 4 * i) as u16;
                let at = x.len;
                x.index[at..at + 4].copy_from_slice(&[u, u + 1, u + 2, u + 3]);
                x.value[at..at + 4].copy_from_slice(&POINT_UNITS[n as usize & 15]);
                x.len += (n as usize).min(4);
            }
            let (totals, off) = side_totals(counts);
            offs[s] = off;
            for (k, &v) in totals.iter().enumerate() {
                if v != 0.0 {
                    x.push(base + TOTALS_AT + k, v);
                }
            }
        }
        offs
    }

    #[inline]
    fn push(&mut self, i: usize, v: f32) {
        self.index[self.len] = i as u16;
        self.value[self.len] = v;
        self.len += 1;
    }

    /// The dense vector (for tests and checks).
    pub fn dense(&self) -> Vec<f32> {
        let mut d = vec![0.0; INPUTS];
        for k in 0..self.len {
            d[self.index[k] as usize] = self.value[k];
        }
        d
    }
}

/// Where a side's three totals start in its block of [`SIDE_INPUTS`]: after its 24 points'
/// four units each.
pub(crate) const TOTALS_AT: usize = 96;

/// A side's three totals, the units at [`TOTALS_AT`] in its block: checkers on the bar over 2,
/// borne off over 15, pip count over 167 (zero where there are none); and its checkers borne
/// off.
#[inline(always)]
pub(crate) fn side_totals(counts: &[u8; 25]) -> ([f32; 3], u32) {
    let (mut on_board, mut pips) = (0u32, 0u32);
    for (i, &n) in counts.iter().enumerate() {
        on_board += n as u32;
        pips += (i as u32 + 1) * n as u32;
    }
    let off = 15 - on_board.min(15);
    (
        [
            counts[BAR] as f32 / 2.0,
            off as f32 / 15.0,
            pips as f32 / 167.0,
        ],
        off,
    )
}

/// `POINT_UNITS[n]`: the four units of a point with `n` checkers, `n ≥ 1`, `n ≥ 2`, `n ≥ 3`
/// and `(n − 3) / 2` (the first `min(n, 4)` are the non-zero ones).
pub(crate) const POINT_UNITS: [[f32; 4]; 16] = {
    let mut t = [[1.0f32, 1.0, 1.0, 0.0]; 16];
    let mut n = 4;
    while n < 16 {
        t[n][3] = (n as f32 - 3.0) / 2.0;
        n += 1;
    }
    t
};

/// Point masks of one side in its own numbering: bit `t` for its `t`-point (1..=24), bit 0
/// unused.
#[derive(Clone, Copy, Debug)]
struct PointMasks {
    /// Two or more checkers.
    made: u32,
    /// Exactly one.
    blots: u32,
    /// At least one.
    any: u32,
    /// Checkers on the bar.
    on_bar: bool,
}

impl PointMasks {
    fn new(counts: &[u8; 25]) -> PointMasks {
        let mut m = PointMasks {
            made: 0,
            blots: 0,
            any: 0,
            on_bar: counts[BAR] > 0,
        };
        // Without branches on the counts (random positions make them unpredictable).
        for (i, &n) in counts[..BAR].iter().enumerate() {
            m.made |= ((n >= 2) as u32) << (i + 1);
            m.blots |= ((n == 1) as u32) << (i + 1);
            m.any |= ((n >= 1) as u32) << (i + 1);
        }
        m
    }

    /// The points held (two checkers or more) in the other side's home board: our 19- to
    /// 24-points.
    fn held_in_their_home(&self) -> u32 {
        self.made & (0x3F << 19)
    }

    /// The points with checkers in our numbering, 1..=25 (25 the bar).
    fn occupied(&self) -> u32 {
        self.any | (self.on_bar as u32) << 25
    }

    /// The rearmost point with a checker (25 the bar), 0 when none is left.
    fn back(&self) -> u32 {
        31 - (self.occupied() | 1).leading_zeros()
    }
}

/// Reverses a point mask to the other side's numbering (its `t`-point is our `25 − t`).
fn mirror(mask: u32) -> u32 {
    (mask.reverse_bits() >> 6) & 0x1FF_FFFE
}

/// Travel coordinates 0 to 24 (bit `v` at `v` pips from the mover's bar): what a shift past
/// the board leaves out.
const BOARD: u32 = 0x1FF_FFFF;

/// The points checkers at `from` can land on with the roll `d1`-`d2`, each moving alone, in
/// travel coordinates (bit `v` at `v` pips from the mover's bar, up to 24): a die may carry a
/// checker over a `blocked` point but a later die may not start from one. Landing on a
/// `blocked` point is included; callers mask it out where it matters.
fn reach(from: u32, blocked: u32, d1: u32, d2: u32) -> u32 {
    let open = !blocked;
    if d1 == d2 {
        let mut cur = from;
        let mut all = 0;
        for _ in 0..4 {
            cur = (cur << d1) & BOARD;
            all |= cur;
            cur &= open;
        }
        all
    } else {
        let one = (from << d1) | (from << d2);
        let two = (((from << d1) & open) << d2) | (((from << d2) & open) << d1);
        (one | two) & BOARD
    }
}

/// The [`FEATURES`] computed units of one side (`me`), the other side being `them` (see the
/// module comment).
///
/// Travel coordinates: the other side's pips travelled from its bar equal our point numbers,
/// and ours equal its point numbers, so each side's masks serve as the other's travel mask.
#[inline(always)]
fn side_features(me: &PointMasks, them: &PointMasks) -> [f32; FEATURES] {
    // Where the other side's checkers start, in its travel coordinates (= our numbering). With
    // checkers on the bar only those move first (a hit with the second die is ignored).
    let their_from = if them.on_bar { 1 } else { mirror(them.any) };
    // Our rearmost checker, in our travel coordinates, and the furthest point the other side
    // holds within 12 pips in front of it (in our travel coordinates = its numbering): that
    // checker escapes by landing beyond it. `None` when nothing blocks (or nothing is left).
    let back = if me.on_bar {
        Some(0)
    } else if me.any != 0 {
        Some(25 - (31 - me.any.leading_zeros()))
    } else {
        None
    };
    let escape = back.and_then(|v| {
        let window = them.made & (0xFFF << (v + 1)) & 0x1FF_FFFE;
        (window != 0).then(|| (v, 31 - window.leading_zeros()))
    });
    let (shots, loss) = shots(their_from, me.made, me.blots);
    let escapes = escape.map_or(36, |(v, last)| escape_rolls(v, last, them.made));
    // Longest run of held points.
    let mut run = 0;
    let mut m = me.made;
    while m != 0 {
        m &= m << 1;
        run += 1;
    }
    [
        shots as f32 / 36.0,
        loss as f32 / (36.0 * 24.0),
        escapes as f32 / 36.0,
        (run as f32 / 6.0).min(1.0),
    ]
}

/// The 15 rolls that are not doubles, as lanes: the higher die, the lower die and the weight
/// (2), padded to 16 lanes with a lane of weight 0 (so that loops over them vectorise whole).
const NON_DOUBLES: [[u32; 16]; 3] = {
    let mut lanes = [[0u32; 16]; 3];
    let (mut k, mut high) = (0, 2);
    while high <= 6 {
        let mut low = 1;
        while low < high {
            lanes[0][k] = high;
            lanes[1][k] = low;
            lanes[2][k] = 2;
            k += 1;
            low += 1;
        }
        high += 1;
    }
    lanes[0][15] = 1;
    lanes[1][15] = 1;
    lanes
};

/// The shots unit's two counts: the rolls (of 36) on which checkers at `from` (the hitter's
/// travel coordinates) hit a blot of `blots`, past the points `made`, and the sum over those
/// rolls of the pips the most advanced blot hit loses (`25 − t` for the point `t`): the moves
/// of [`reach`].
///
/// Roll by roll as lanes, with no branch: each lane's shifts are its own (AVX2 shifts every
/// lane by its own count, so the lanes go eight at a time where [`Inputs::new`] runs
/// compiled for it), and the lowest bit of a hit is found through the exponent of its value
/// as a float (exact: a power of two below 2^25).
#[inline(always)]
fn shots(from: u32, made: u32, blots: u32) -> (u32, u32) {
    let open = !made;
    let (mut shots, mut loss) = (0u32, 0u32);
    let [d1, d2, w] = &NON_DOUBLES;
    for i in 0..16 {
        let (a, b) = (from << d1[i], from << d2[i]);
        let hit = (a | b | ((a & open) << d2[i]) | ((b & open) << d1[i])) & BOARD & blots;
        let w = w[i] * (hit != 0) as u32;
        shots += w;
        loss = loss.wrapping_add(w.wrapping_mul(25u32.wrapping_sub(lowest_bit(hit))));
    }
    for d in 1..=6u32 {
        let (mut cur, mut all) = (from, 0);
        for _ in 0..4 {
            cur = (cur << d) & BOARD;
            all |= cur;
            cur &= open;
        }
        let hit = all & blots;
        let w = (hit != 0) as u32;
        shots += w;
        loss = loss.wrapping_add(w.wrapping_mul(25u32.wrapping_sub(lowest_bit(hit))));
    }
    (shots, loss)
}

/// The index of the lowest set bit of `x < 2^25` (any value for 0), by the exponent of that
/// bit's value as a float: the form of `trailing_zeros` that vectorises.
#[inline(always)]
fn lowest_bit(x: u32) -> u32 {
    let low = x & x.wrapping_neg();
    ((low as i32 as f32).to_bits() >> 23).wrapping_sub(127)
}

/// The rolls (of 36) on which a lone checker `v` pips from its bar lands past `last`, the
/// furthest point `held` within 12 pips in front of it (travel coordinates): the moves of
/// [`reach`], landing on open points up to the 24th pip.
///
/// From the [`ESCAPES`] table where that is the same count: the table sees the 12 points in
/// front and nothing beyond, so it is used only when every landing a roll can need lies
/// within the board (`v + 11` for two dice, `last + 6` for a double's first step past `last`)
/// and no point it may land on beyond the 12 is held. Otherwise roll by roll.
#[inline(always)]
fn escape_rolls(v: u32, last: u32, held: u32) -> u32 {
    if escapes_table_is_exact(v, last, held) {
        return ESCAPES[((held >> (v + 1)) & 0xFFF) as usize] as u32;
    }
    let mut escapes = 0;
    for dice in Dice::ALL {
        let (d1, d2, w) = (dice.high() as u32, dice.low() as u32, dice.weight());
        let lands = reach(1 << v, held, d1, d2) & !held;
        if lands >> (last + 1) != 0 {
            escapes += w;
        }
    }
    escapes
}

/// Whether [`ESCAPES`] gives [`escape_rolls`]'s count for a checker `v` pips from its bar,
/// `last` the furthest `held` point within 12 pips in front of it: every landing within the
/// board (`v ≤ 13`, `last ≤ 18`) and no held point from `v + 13` to `last + 6`.
#[inline(always)]
fn escapes_table_is_exact(v: u32, last: u32, held: u32) -> bool {
    // Both shifts stay below bit 26 once the first two conditions hold.
    v <= 13 && last <= 18 && held & ((1u32 << (last + 7)) - 1) & !((1u32 << (v + 13)) - 1) == 0
}

/// `ESCAPES[w]`: of the 36 rolls, those on which a lone checker passes every point held in
/// front of it, `w` holding bit `j − 1` when the point `j` pips on (1 to 12) is held. Points
/// further on count as open; a die may not land on a held point.
static ESCAPES: [u8; 4096] = escapes_table();

const fn escapes_table() -> [u8; 4096] {
    let mut table = [0u8; 4096];
    let mut w = 0;
    while w < 4096 {
        table[w] = escapes_from(w as u32);
        w += 1;
    }
    table
}

const fn escapes_from(window: u32) -> u8 {
    if window == 0 {
        return 36;
    }
    let last = 32 - window.leading_zeros(); // the furthest held point, in pips
    let mut rolls = 0;
    let mut a = 1;
    while a <= 6 {
        let mut b = 1;
        while b <= 6 {
            let escapes = if a == b {
                let mut at = 0;
                let mut step = 0;
                while step < 4 && at <= last && is_open(window, at + a) {
                    at += a;
                    step += 1;
                }
                at > last
            } else {
                (a > last && is_open(window, a))
                    || (b > last && is_open(window, b))
                    || (a + b > last
                        && is_open(window, a + b)
                        && (is_open(window, a) || is_open(window, b)))
            };
            rolls += escapes as u8;
            b += 1;
        }
        a += 1;
    }
    rolls
}

/// Whether the point `p` pips on is open in an [`ESCAPES`] window.
const fn is_open(window: u32, p: u32) -> bool {
    p > 12 || window & (1 << (p - 1)) == 0
}

/// The [`BLOCKADE_FEATURES`] of one side (`me`) against the other (`them`): containment and
/// dance (see the module comment).
#[inline(always)]
fn blockade_features(me: &PointMasks, them: &PointMasks) -> [f32; BLOCKADE_FEATURES] {
    // Their points in our travel coordinates (= their numbering); start `v` pips from our bar.
    let fewest = (0..10)
        .map(|v| ESCAPES[((them.made >> (v + 1)) & 0xFFF) as usize])
        .min()
        .unwrap_or(36);
    let dance = if me.on_bar {
        let closed = (them.made & 0x7E).count_ones() as f32;
        (closed / 6.0) * (closed / 6.0)
    } else {
        0.0
    };
    [1.0 - fewest as f32 / 36.0, dance]
}

/// The [`SHAPE_FEATURES`] of one side (`me`, its checker counts `mine`) against the other
/// (`them`); `contained` is its containment unit (see the module comment).
#[inline(always)]
fn shape_features(
    mine: &[u8; 25],
    me: &PointMasks,
    them: &PointMasks,
    contained: f32,
) -> [f32; SHAPE_FEATURES] {
    // Occupied points in our numbering, 1..=25 (25 the bar): `mine[p - 1]` checkers on `p`.
    let occupied = me.occupied();
    let back = me.back();
    // The other side's rearmost checker, in our numbering (its point q is our 25 − q, its bar
    // our 0): our checkers above it still have to pass it. None when it has none left.
    let their_back = if them.on_bar {
        Some(0)
    } else {
        (them.any != 0).then(|| 25 - (31 - them.any.leading_zeros()))
    };
    let (mut behind, mut checkers, mut sum, mut mobility) = (0u32, 0u32, 0u32, 0u32);
    let mut bits = occupied;
    while bits != 0 {
        let p = bits.trailing_zeros();
        bits &= bits - 1;
        let n = mine[p as usize - 1] as u32;
        checkers += n;
        sum += n * p;
        if let Some(r) = their_back {
            behind += n * p.saturating_sub(r);
        }
        // Mobility: a checker outside our home board, `25 − p` pips travelled from our bar.
        if p >= 7 {
            let escapes = ESCAPES[((them.made >> (26 - p)) & 0xFFF) as usize] as u32;
            mobility += n * escapes * (p - 6);
        }
    }
    // The second moment beyond the mean.
    let mut moment = 0.0;
    if checkers > 0 {
        let mean = sum as f32 / checkers as f32;
        let (mut m, mut k) = (0.0f32, 0u32);
        let mut bits = occupied & !((2u32 << (mean as u32)) - 1);
        while bits != 0 {
            let p = bits.trailing_zeros();
            bits &= bits - 1;
            let n = mine[p as usize - 1] as u32;
            let d = p as f32 - mean;
            m += n as f32 * d * d;
            k += n;
        }
        if k > 0 {
            moment = m / k as f32 / 400.0;
        }
    }
    let back_anchor = 31 - (me.made | 1).leading_zeros();
    // Held points in the other side's home board (our 19 to 24) and outer board (13 to 18);
    // the most advanced is the lowest of ours.
    let their_home = me.held_in_their_home();
    let their_outer = me.made & (0x3F << 13);
    let forward = match (their_home, their_outer) {
        (0, 0) => 2.0,
        (0, m) | (m, _) => (25 - m.trailing_zeros()) as f32 / 6.0,
    };
    // Containment over start points 10 to 15 pips from our bar too (0 to 9 make `contained`).
    let wide = (10..16)
        .map(|v| ESCAPES[((them.made >> (v + 1)) & 0xFFF) as usize])
        .min()
        .map_or(contained, |m| contained.max(1.0 - m as f32 / 36.0));
    let anchors = their_home.count_ones();
    let (back_game, lone_anchor) = match anchors {
        0 => (0.0, 0.0),
        1 => (
            0.0,
            mine[their_home.trailing_zeros() as usize - 1] as f32 / 8.0,
        ),
        n => ((n - 1) as f32 / 4.0, 0.0),
    };
    [
        behind as f32 / 152.0,
        back as f32 / 25.0,
        back_anchor as f32 / 24.0,
        forward,
        double_shots(me, them) as f32 / 36.0,
        mobility as f32 / 3600.0,
        moment,
        contained * contained,
        wide,
        wide * wide,
        back_game,
        lone_anchor,
    ]
}

/// The rolls (of 36) on which the other side (`them`) can hit two of `me`'s blots: two
/// checkers each hitting one (with different dice, or with a double's moves shared between
/// them), or one checker hitting one and moving on to hit another. Like the shots unit it
/// ignores the rule that both dice be played, and with doubles how many checkers a point has.
///
/// Roll by roll as lanes with no branch, like [`shots`].
#[inline(always)]
fn double_shots(me: &PointMasks, them: &PointMasks) -> u32 {
    if me.blots.count_ones() < 2 {
        return 0;
    }
    // Where the other side's checkers start, in its travel coordinates (= our numbering), and
    // those points that have two checkers or more to send.
    let (from, several) = if them.on_bar {
        (1, 0)
    } else {
        (mirror(them.any), mirror(them.made))
    };
    let (open, blots) = (!me.made, me.blots);
    let mut rolls = 0;
    let [d1, d2, w] = &NON_DOUBLES;
    for i in 0..16 {
        let (d1, d2) = (d1[i], d2[i]);
        let a = (from << d1) & BOARD & blots;
        let b = (from << d2) & BOARD & blots;
        // One checker hits with one die and moves on with the other to a second blot.
        let on = ((a << d2) | (b << d1)) & BOARD & blots;
        rolls += w[i] * ((on != 0) | two_checkers(a, b, d1, d2, several)) as u32;
    }
    for d in 1..=6 {
        rolls += double_hits(from, open, blots, d) as u32;
    }
    rolls
}

/// Whether `x` has two bits or more.
#[inline(always)]
fn several_bits(x: u32) -> bool {
    x & x.wrapping_sub(1) != 0
}

/// Whether blots `x` in `a` (hit with `d1`) and `y ≠ x` in `b` (hit with `d2 < d1`) can be
/// hit by two checkers: from different points, or from one point with `several` checkers.
///
/// By the sources `sa = a >> d1` and `sb = b >> d2` (a blot has one source a die): one point
/// with several checkers hitting both is `sa & sb & several`. Two different sources `s1 ∈
/// sa`, `s2 ∈ sb` hit two different blots unless `s1 = s2 − δ` (`δ = d1 − d2`), so for each
/// `s2` the sources `{s2, s2 − δ}` fail, and a pair is missing only when all of `sa` lies in
/// every such set: their common part is that set for one `s2`, `sb & (sb >> δ)` for two (two
/// such sets share at most one source) and empty for three or more.
#[inline(always)]
fn two_checkers(a: u32, b: u32, d1: u32, d2: u32, several: u32) -> bool {
    let (sa, sb) = (a >> d1, b >> d2);
    let shifted = sb >> (d1 - d2);
    let common = if !several_bits(sb) {
        sb | shifted
    } else if !several_bits(sb & sb.wrapping_sub(1)) {
        sb & shifted
    } else {
        0
    };
    (sa & sb & several != 0) | ((sa != 0) & (sb != 0) & (sa & !common != 0))
}

/// Whether the double `d`-`d` (four moves of `d`) can hit two `blots` from the checkers at
/// `from` through the `open` points: two checkers whose moves add up to four at most, or one
/// checker hitting on its way to another.
#[inline(always)]
fn double_hits(from: u32, open: u32, blots: u32, d: u32) -> bool {
    let step = |c: u32| (c << d) & BOARD & open;
    // `first[k]`: the blots some checker first reaches after `k` moves.
    let mut first = [0u32; 5];
    let (mut cur, mut seen) = (from, 0u32);
    for f in first.iter_mut().skip(1) {
        cur = step(cur);
        *f = cur & blots & !seen;
        seen |= *f;
    }
    // Two different blots, the nearer reached in `k` moves and the other in at most `4 − k`:
    // with k = 1 another in 1 to 3 moves, or two in one; with k = 2 two in two (another in
    // one move is the case k = 1).
    let two = ((first[1] != 0) & (first[2] | first[3] != 0))
        | several_bits(first[1])
        | several_bits(first[2]);
    // One checker: a blot reached in `k` moves, another `j` further on, `k + j ≤ 4`.
    let (c1, c2, c3) = (step(first[1]), step(first[2]), step(first[3]));
    let (c1b, c2b) = (step(c1), step(c2));
    let on = (c1 | c2 | c3 | c1b | c2b | step(c1b)) & blots;
    two | (on != 0)
}

/// The furthest-back checker of `side` on its own numbering: 25 for the bar, 0 when none.
pub fn back_point(pos: &Position, side: Side) -> usize {
    pos.back(side)
}

/// The points `side` holds (two checkers or more) in the other side's home board: two or more
/// make a back game (as the net's back-game input counts them).
pub fn back_game_points(pos: &Position, side: Side) -> usize {
    PointMasks::new(&pos.counts(side))
        .held_in_their_home()
        .count_ones() as usize
}

/// True when the checkers can still meet: some checker of one side is behind some checker of
/// the other. Otherwise the game is a race (or over).
pub fn is_contact(pos: &Position) -> bool {
    let me = back_point(pos, Side::OnRoll);
    let opp = back_point(pos, Side::Opponent);
    me > 0 && opp > 0 && me + opp > 25
}

/// True when a position with contact is **crashed**, as gnubg classifies it
/// (`ClassifyPosition` in its `eval.c`): some side has at most 6 checkers left in play beyond
/// those piled deep in its home board. With `n` checkers not borne off, `a` on its ace point
/// and `d` on its deuce point, a side is crashed when `n ≤ 6`; or, with `a ≥ 2`, when
/// `n ≤ 6 + a`, or when also `d ≥ 2` and `n + 1 − a − d ≤ 6`; or, with `a ≤ 1` and `d ≥ 1`,
/// when `n ≤ 5 + d` (gnubg's unsigned `N + (d − 1)`, which wraps for `d = 0` to a test that
/// `n > 6` already failed). Races are never crashed.
pub fn is_crashed(pos: &Position) -> bool {
    is_contact(pos) && a_side_is_crashed(pos)
}

/// [`is_crashed`] for a position known to have contact.
#[inline]
pub(crate) fn a_side_is_crashed(pos: &Position) -> bool {
    side_crashed(pos, Side::OnRoll) || side_crashed(pos, Side::Opponent)
}

fn side_crashed(pos: &Position, side: Side) -> bool {
    const N: u32 = 6;
    let n = 15 - pos.off(side) as u32;
    let (a, d) = (pos.checkers(side, 1) as u32, pos.checkers(side, 2) as u32);
    if n <= N {
        true
    } else if a > 1 {
        n <= N + a || (d > 1 && 1 + n - (a + d) <= N)
    } else {
        d >= 1 && n < N + d
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The race units: zero wherever there is contact; in races, the one-hot count of the
    /// checkers off, the crossovers and the distances home and out of the other side's home
    /// board, counted checker by checker from the engine's own position (off counts and
    /// point numbers), over random games to their end.
    #[test]
    fn race_units() {
        let (mut races, mut contacts, mut with_off) = (0, 0, 0);
        // Random games to their ends (none reaches 100,000 plies).
        for pos in random_game_positions(17, 60, 100_000) {
            let d = Inputs::new(&pos).dense();
            let units = &d[RACE_AT..INPUTS];
            if is_contact(&pos) {
                contacts += 1;
                assert!(units.iter().all(|&v| v == 0.0), "{pos}");
            } else {
                races += 1;
                for (s, side) in [Side::OnRoll, Side::Opponent].into_iter().enumerate() {
                    let mut want = [0.0f32; RACE_FEATURES];
                    let off = pos.off(side) as usize;
                    if off > 0 {
                        want[off - 1] = 1.0;
                        with_off += 1;
                    }
                    let (mut crossings, mut home, mut out) = (0, 0, 0);
                    for (i, &n) in pos.counts(side).iter().enumerate() {
                        // A checker on point p = i + 1 crosses into each lower quadrant,
                        // is p − 6 pips from home and p − 18 from leaving the other side's.
                        let p = i + 1;
                        for _ in 0..n {
                            crossings += p.div_ceil(6) - 1;
                            home += p.saturating_sub(6);
                            out += p.saturating_sub(18);
                        }
                    }
                    want[14] = crossings as f32 / 10.0;
                    want[15] = home as f32 / 40.0;
                    want[16] = out as f32 / 10.0;
                    let got = &units[s * RACE_FEATURES..(s + 1) * RACE_FEATURES];
                    assert_eq!(got, &want[..], "{pos}, side {s}");
                }
            }
        }
        assert!(
            races > 500 && contacts > 500 && with_off > 500,
            "{races} {contacts} {with_off}"
        );
    }

    /// A race by hand: three checkers off and two on the 8-point and one on the 14-point
    /// (crossovers 1 + 1 + 2, pips to home 2 + 2 + 8) against one off and the rest at home.
    #[test]
    fn race_units_by_hand() {
        let mut me = [0u8; 25];
        me[7] = 2;
        me[13] = 1;
        me[0] = 9;
        let mut opp = [0u8; 25];
        opp[5] = 14;
        let pos = Position::from_counts(me, opp).unwrap();
        assert!(!is_contact(&pos));
        let d = Inputs::new(&pos).dense();
        let mine = &d[RACE_AT..RACE_AT + RACE_FEATURES];
        let theirs = &d[RACE_AT + RACE_FEATURES..INPUTS];
        assert_eq!(mine.iter().filter(|&&v| v != 0.0).count(), 3);
        // Home: 2 + 2 + 8 pips, over 40.
        assert_eq!((mine[2], mine[14], mine[15]), (1.0, 0.4, 0.3));
        assert_eq!(theirs.iter().filter(|&&v| v != 0.0).count(), 1);
        assert_eq!(theirs[0], 1.0);
    }

    #[test]
    fn start_inputs() {
        let x = Inputs::new(&Position::START);
        let d = x.dense();
        // Six checkers... five on the 6-point: units 1, 1, 1, 1.0.
        assert_eq!(&d[20..24], &[1.0, 1.0, 1.0, 1.0]);
        assert_eq!(
            &d[SIDE_INPUTS + 20..SIDE_INPUTS + 24],
            &[1.0, 1.0, 1.0, 1.0]
        );
        // Two on the 24-point.
        assert_eq!(&d[92..96], &[1.0, 1.0, 0.0, 0.0]);
        assert_eq!(d[96], 0.0);
        assert_eq!(d[97], 0.0);
        assert_eq!(d[98], 1.0);
        assert!(is_contact(&Position::START));
    }

    /// The computed units of the player on roll (`0`) or the opponent (`1`).
    fn features(pos: &Position, side: usize) -> Vec<f32> {
        let d = Inputs::new(pos).dense();
        d[RAW_INPUTS + side * FEATURES..RAW_INPUTS + (side + 1) * FEATURES].to_vec()
    }

    /// The branch-free forms against the roll-by-roll loops they replaced (kept here as the
    /// reference): the shots unit's two counts, the escape count (its table shortcut and its
    /// fallback), and the double shots' two-checker and double tests, on random masks.
    #[test]
    fn branch_free_forms_match_roll_by_roll_loops() {
        use crate::rng::Rng;
        let mut rng = Rng::new(3);
        let mut mask = |density: u64| {
            let mut m = 0u32;
            for bit in 1..=24 {
                if rng.below(100) < density {
                    m |= 1 << bit;
                }
            }
            m
        };
        let (mut table_used, mut fallback_used, mut pairs, mut double_pairs) = (0, 0, 0, 0);
        for round in 0..40_000u64 {
            let made = mask(20 + round % 30);
            let blots = mask(25) & !made;
            let from = mask(15 + round % 20) | (round % 7 == 0) as u32;
            let several = from & mask(50);
            // Shots: roll by roll over `reach`.
            let (mut s, mut l) = (0, 0);
            for dice in Dice::ALL {
                let (d1, d2, w) = (dice.high() as u32, dice.low() as u32, dice.weight());
                let hit = reach(from, made, d1, d2) & blots;
                if hit != 0 {
                    s += w;
                    l += w * (25 - hit.trailing_zeros());
                }
            }
            assert_eq!(
                shots(from, made, blots),
                (s, l),
                "{from:b} {made:b} {blots:b}"
            );
            // Escapes of a lone checker at v past `made`'s furthest point within 12 pips.
            for v in 0..=24u32 {
                let window = made & (0xFFF << (v + 1)) & 0x1FF_FFFE;
                if window == 0 {
                    continue;
                }
                let last = 31 - window.leading_zeros();
                let mut want = 0;
                for dice in Dice::ALL {
                    let (d1, d2, w) = (dice.high() as u32, dice.low() as u32, dice.weight());
                    if (reach(1 << v, made, d1, d2) & !made) >> (last + 1) != 0 {
                        want += w;
                    }
                }
                assert_eq!(escape_rolls(v, last, made), want, "{v} {made:b}");
                if escapes_table_is_exact(v, last, made) {
                    table_used += 1;
                } else {
                    fallback_used += 1;
                }
            }
            // Two checkers: every pair of blots hit, one with each die.
            for dice in Dice::ALL.into_iter().filter(|d| !d.is_double()) {
                let (d1, d2) = (dice.high() as u32, dice.low() as u32);
                let a = (from << d1) & BOARD & blots;
                let b = (from << d2) & BOARD & blots;
                let mut want = false;
                for x in (0..32).filter(|x| a >> x & 1 == 1) {
                    for y in (0..32).filter(|&y| b >> y & 1 == 1 && y != x) {
                        want |= x - d1 != y - d2 || several >> (x - d1) & 1 == 1;
                    }
                }
                pairs += want as u32;
                assert_eq!(two_checkers(a, b, d1, d2, several), want, "{a:b} {b:b}");
            }
            // Doubles: two blots by two checkers (moves adding up to 4 at most), or one
            // checker hitting one and moving on to another, searched move by move.
            for d in 1..=6u32 {
                let open = !made;
                let mut dist = [0u32; 32]; // moves to first reach each point, 0 for never
                let mut cur = from;
                for k in 1..=4 {
                    cur = (cur << d) & BOARD & open;
                    for (t, at) in dist.iter_mut().enumerate() {
                        if cur >> t & 1 == 1 && *at == 0 {
                            *at = k;
                        }
                    }
                }
                let hit: Vec<usize> = (0..32)
                    .filter(|&t| blots >> t & 1 == 1 && dist[t] > 0)
                    .collect();
                let mut want = false;
                for &x in &hit {
                    for &y in hit.iter().filter(|&&y| y != x) {
                        // Two checkers, or one going on from x to y (d divides y − x).
                        let on = y > x && (y - x) % d as usize == 0 && {
                            let j = (y - x) / d as usize;
                            dist[x] as usize + j <= 4
                                && (1..=j).all(|i| open >> (x + i * d as usize) & 1 == 1)
                        };
                        want |= dist[x] + dist[y] <= 4 || on;
                    }
                }
                double_pairs += want as u32;
                assert_eq!(
                    double_hits(from, open, blots, d),
                    want,
                    "{d} {from:b} {made:b} {blots:b}"
                );
            }
        }
        assert!(
            table_used > 10_000 && fallback_used > 10_000,
            "{table_used} {fallback_used}"
        );
        assert!(
            pairs > 10_000 && double_pairs > 1_000,
            "{pairs} {double_pairs}"
        );
    }

    /// The AVX2 build of the inputs is the portable one (on a CPU without AVX2 both calls
    /// run the portable build).
    #[test]
    fn avx2_inputs_are_the_portable_ones() {
        for pos in random_game_positions(21, 40, 400) {
            let (a, b) = (Inputs::new(&pos), Inputs::build(&pos));
            assert_eq!(a.len, b.len, "{pos}");
            assert_eq!(a.index[..a.len], b.index[..b.len], "{pos}");
            let bits = |x: &Inputs| {
                x.value[..x.len]
                    .iter()
                    .map(|v| v.to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&a), bits(&b), "{pos}");
        }
    }

    #[test]
    fn shots_count_direct_and_combined_hits() {
        // Our blot on our 10-point, one opposing checker on our 4-point (its 21-point): six
        // pips away, 17 rolls hit (any 6, 5-1, 4-2, 3-3, 2-2); from our 3-point, seven pips
        // away, 6 rolls (6-1, 5-2, 4-3).
        for (their_index, shots) in [(20, 17), (21, 6)] {
            let mut me = [0u8; 25];
            let mut opp = [0u8; 25];
            me[9] = 1;
            opp[their_index] = 1;
            let pos = Position::from_counts(me, opp).unwrap();
            let f = features(&pos, 0);
            assert_eq!(f[0], shots as f32 / 36.0, "{their_index}");
            // A hit on the 10-point costs 15 pips.
            assert_eq!(f[1], 15.0 * shots as f32 / (36.0 * 24.0));
            // The same distance the other way: our blot hits theirs, at a cost of 4 or 3 pips.
            let g = features(&pos, 1);
            assert_eq!(g[0], shots as f32 / 36.0);
            assert_eq!(
                g[1],
                (25 - their_index - 1) as f32 * shots as f32 / (36.0 * 24.0)
            );
        }
        // Our points 5 and 6 in between block the 1-then-... paths: from 6 pips away, 5-1 and
        // 4-2 need a landing 1, 2, 4 or 5 pips on (our 5-, 6-, 8- or 9-point); hold our 5 and 8
        // (1 and 4 pips on): 5-1 and 4-2 are both still playable the other way round, 2-2
        // lands on 6, 8 (blocked) and stops, 3-3 lands on 7 then 10: 11 + 2 + 2 + 1 = 16.
        let mut me = [0u8; 25];
        let mut opp = [0u8; 25];
        me[9] = 1;
        me[4] = 2;
        me[7] = 2;
        opp[20] = 1;
        let pos = Position::from_counts(me, opp).unwrap();
        assert_eq!(features(&pos, 0)[0], 16.0 / 36.0);
    }

    /// The positions of `games` random games from `seed`, each up to `plies` plies or to its
    /// end (the finished position left out).
    pub(crate) fn random_game_positions(seed: u64, games: usize, plies: usize) -> Vec<Position> {
        use crate::baseline::{roll, Player};
        use crate::rng::Rng;
        use tabula_engine::backgammon::PlayList;
        let mut rng = Rng::new(seed);
        let mut list = PlayList::new();
        let mut out = Vec::new();
        for _ in 0..games {
            let mut pos = Position::START;
            for _ in 0..plies {
                if pos.is_game_over() {
                    break;
                }
                out.push(pos);
                pos = Player::Random.play(&pos, roll(&mut rng), &mut list, &mut rng);
            }
        }
        out
    }

    /// Contact positions from random games (`games` of them from `seed`), the opponent not on
    /// the bar (then only the bar moves first, which the shot units ignore).
    pub(super) fn random_contact_positions(seed: u64, games: usize) -> Vec<Position> {
        random_game_positions(seed, games, 200)
            .into_iter()
            .filter(|pos| pos.counts(Side::Opponent)[BAR] == 0 && is_contact(pos))
            .collect()
    }

    /// Of the 36 rolls, those on which some legal play of the opponent puts at least `hits`
    /// more of our checkers on the bar (the move generator's answer).
    pub(super) fn rolls_hitting(pos: &Position, hits: u8) -> u32 {
        use tabula_engine::backgammon::{Dice, PlayList};
        let mut list = PlayList::new();
        let attack = pos.swapped();
        let bar = pos.counts(Side::OnRoll)[BAR];
        let mut rolls = 0;
        for a in 1..=6u8 {
            for b in 1..=6u8 {
                attack.generate_plays(Dice::new(a, b).unwrap(), &mut list);
                rolls += (0..list.len())
                    .any(|i| list.result(i).counts(Side::OnRoll)[BAR] >= bar + hits)
                    as u32;
            }
        }
        rolls
    }

    /// The shots feature against the move generator: on each of the 36 rolls, does some legal
    /// play of the opponent send one of our checkers to the bar? The feature ignores the rule
    /// that both dice be played when possible, so a rare position may differ; nearly all must
    /// agree exactly.
    #[test]
    fn shots_agree_with_the_move_generator() {
        let (mut compared, mut agree, mut with_shots) = (0, 0, 0);
        for pos in random_contact_positions(11, 100) {
            let rolls = rolls_hitting(&pos, 1);
            let shots = Inputs::new(&pos).dense()[RAW_INPUTS];
            compared += 1;
            agree += (shots == rolls as f32 / 36.0) as u32;
            with_shots += (rolls > 0) as u32;
        }
        assert!(
            compared > 2000 && with_shots > 500,
            "{compared} {with_shots}"
        );
        assert!(agree * 100 >= compared * 98, "{agree} of {compared}");
    }

    #[test]
    fn escapes_and_primes() {
        // Our last checker on our 24-point, the opponent holding its bar point (7 pips on):
        // non-doubles totalling 7 or more escape (18 rolls), and 4-4 and 5-5; 6-6, 3-3, 2-2 and
        // 1-1 do not.
        let mut me = [0u8; 25];
        let mut opp = [0u8; 25];
        me[23] = 1;
        opp[6] = 2;
        let pos = Position::from_counts(me, opp).unwrap();
        assert_eq!(features(&pos, 0)[2], 20.0 / 36.0);
        // Nothing held in front: every roll escapes. The opponent's lone point is no prime.
        assert_eq!(features(&pos, 1)[2], 1.0);
        assert_eq!(features(&pos, 1)[3], 1.0 / 6.0);
        // A full prime from the opponent's 2- to 7-point: nothing escapes.
        opp[1..7].fill(2);
        let pos = Position::from_counts(me, opp).unwrap();
        assert_eq!(features(&pos, 0)[2], 0.0);
        assert_eq!(features(&pos, 1)[3], 1.0);
    }

    /// The blockade units of the player on roll (`0`) or the opponent (`1`).
    fn blockade(pos: &Position, side: usize) -> Vec<f32> {
        let d = Inputs::new(pos).dense();
        let at = RAW_INPUTS + 2 * FEATURES + side * BLOCKADE_FEATURES;
        d[at..at + BLOCKADE_FEATURES].to_vec()
    }

    #[test]
    fn escape_table_counts_by_hand() {
        assert_eq!(ESCAPES[0], 36);
        // One point held 6 pips on: as in `escapes_and_primes`, 20 rolls. 7 pips on: totals of
        // 8 or more (12 rolls), 2-2, 3-3, 4-4, 5-5 and 6-6.
        assert_eq!(ESCAPES[1 << 5], 20);
        assert_eq!(ESCAPES[1 << 6], 17);
        // Six in a row 1 to 6 pips on: nothing passes; 2 to 7: nothing; 1 to 5: the 11 rolls
        // with a 6.
        assert_eq!(ESCAPES[0b11_1111], 0);
        assert_eq!(ESCAPES[0b111_1110], 0);
        assert_eq!(ESCAPES[0b1_1111], 11);
        // Held 12 pips on only: non-doubles cannot pass it; 6-6, 4-4 and 3-3 land on it and
        // stop; 5-5 goes 5, 10, 15.
        assert_eq!(ESCAPES[1 << 11], 1);
    }

    #[test]
    fn containment_and_dance_by_hand() {
        // No points held: nothing contained, nothing to enter.
        let mut me = [0u8; 25];
        let mut opp = [0u8; 25];
        me[20] = 1;
        opp[0] = 2;
        let pos = Position::from_counts(me, opp).unwrap();
        // The opponent's ace point only: from the bar, every roll but 1-1 passes it.
        assert_eq!(blockade(&pos, 0)[0], 1.0 - 35.0 / 36.0);
        assert_eq!(blockade(&pos, 0)[1], 0.0);
        // A full prime from the opponent's 2- to 7-point contains fully; on the bar against
        // its 2- to 6-points closed (five), 25 of 36 rolls dance.
        opp[1..7].fill(2);
        opp[0] = 0;
        me[20] = 0;
        me[BAR] = 1;
        let pos = Position::from_counts(me, opp).unwrap();
        assert_eq!(blockade(&pos, 0), vec![1.0, 25.0 / 36.0]);
        // The opponent holds nothing of ours: its units are zero.
        assert_eq!(blockade(&pos, 1), vec![0.0, 0.0]);
    }

    #[test]
    fn race_detection() {
        let mut me = [0u8; 25];
        let mut opp = [0u8; 25];
        me[11] = 15; // my 12-point = opponent's 13-point
        opp[11] = 15; // opponent's 12-point = my 13-point: already passed
        let race = Position::from_counts(me, opp).unwrap();
        assert!(!is_contact(&race));
        me[11] = 0;
        me[12] = 15; // my 13-point: the opponent's 12-point
        opp[11] = 0;
        opp[12] = 15; // opponent's 13 = my 12: it still has to pass my 13
        let contact = Position::from_counts(me, opp).unwrap();
        assert!(is_contact(&contact));
    }
}

#[cfg(test)]
mod shape_tests {
    use super::*;

    /// The shape units of the player on roll (`0`) or the opponent (`1`).
    fn shape(pos: &Position, side: usize) -> Vec<f32> {
        let d = Inputs::new(pos).dense();
        d[SHAPE_AT + side * SHAPE_FEATURES..SHAPE_AT + (side + 1) * SHAPE_FEATURES].to_vec()
    }

    #[test]
    fn start_by_hand() {
        for side in 0..2 {
            let f = shape(&Position::START, side);
            // 2 checkers 23 pips behind the opponent's rearmost (our 1-point), 5 at 12, 3 at 7,
            // 5 at 5: 46 + 60 + 21 + 25 = 152, the normaliser.
            assert_eq!(f[0], 1.0);
            assert_eq!(f[1], 24.0 / 25.0);
            assert_eq!(f[2], 1.0);
            // The anchor on the opponent's 1-point.
            assert_eq!(f[3], 1.0 / 6.0);
            // No blots.
            assert_eq!(f[4], 0.0);
            // Mean point 167 / 15; beyond it 2 at 24 and 5 at 13.
            let mean = 167.0f32 / 15.0;
            let m = (2.0 * (24.0 - mean).powi(2) + 5.0 * (13.0 - mean).powi(2)) / 7.0 / 400.0;
            assert!((f[6] - m).abs() < 1e-6, "{} {m}", f[6]);
            // One point held in the opponent's home board, two checkers on it.
            assert_eq!(f[10], 0.0);
            assert_eq!(f[11], 2.0 / 8.0);
        }
    }

    #[test]
    fn mobility_counts_each_checker_by_its_escapes() {
        // One checker on our 20-point (14 pips from home) against the opponent's bar point
        // (our 18-point, 2 pips on): every roll passes it but 1-1 (stopped on our 19-point)
        // and 2-2 (blocked), 34 of 36; and one on our 8-point with nothing in front.
        let mut me = [0u8; 25];
        let mut opp = [0u8; 25];
        me[19] = 1;
        me[7] = 1;
        opp[6] = 2; // its 7-point = our 18-point
        opp[0] = 13;
        let pos = Position::from_counts(me, opp).unwrap();
        let expected = (34.0 * 14.0 + 36.0 * 2.0) / 3600.0;
        assert_eq!(shape(&pos, 0)[5], expected);
        // The opponent's checkers: 13 on its ace point, home; 2 on its 7-point, one pip out,
        // with our 8-point's blot no block: 2 × 36 × 1.
        assert_eq!(shape(&pos, 1)[5], 72.0 / 3600.0);
    }

    #[test]
    fn anchors_and_back_games() {
        let mut me = [0u8; 25];
        let opp = {
            let mut o = [0u8; 25];
            o[0] = 15;
            o
        };
        // Points held on the opponent's 2- and 3-points (our 23 and 22) and its 9-point (our
        // 16): the forward anchor is the one in its home board, its 3-point.
        me[21] = 2;
        me[22] = 3;
        me[15] = 2;
        me[5] = 8;
        let pos = Position::from_counts(me, opp).unwrap();
        let f = shape(&pos, 0);
        assert_eq!(f[2], 23.0 / 24.0);
        assert_eq!(f[3], 3.0 / 6.0);
        assert_eq!(f[10], 1.0 / 4.0);
        assert_eq!(f[11], 0.0);
        assert_eq!(back_game_points(&pos, Side::OnRoll), 2);
        assert_eq!(back_game_points(&pos, Side::Opponent), 0);
        // A lone checker on the opponent's 5-point holds nothing.
        me[5] = 7;
        me[19] = 1;
        let pos = Position::from_counts(me, opp).unwrap();
        assert_eq!(back_game_points(&pos, Side::OnRoll), 2);
        me[5] = 8;
        me[19] = 0;
        // Without the home-board points the outer one counts: its 9-point.
        me[21] = 0;
        me[22] = 0;
        me[5] = 13;
        let pos = Position::from_counts(me, opp).unwrap();
        let f = shape(&pos, 0);
        assert_eq!(f[3], 9.0 / 6.0);
        assert_eq!(f[10], 0.0);
        assert_eq!(back_game_points(&pos, Side::OnRoll), 0);
        // Nothing held beyond our own half: 2.
        me[15] = 0;
        me[5] = 15;
        let pos = Position::from_counts(me, opp).unwrap();
        assert_eq!(shape(&pos, 0)[3], 2.0);
        assert_eq!(shape(&pos, 0)[0], 0.0);
    }

    /// Double shots against the move generator: on each of the 36 rolls, does some legal play
    /// of the opponent put two more of our checkers on the bar? The unit ignores the rule that
    /// both dice be played and the number of checkers on a point, so some positions differ;
    /// nearly all must agree.
    #[test]
    fn double_shots_agree_with_the_move_generator() {
        let (mut compared, mut agree, mut with_shots) = (0, 0, 0);
        for pos in super::tests::random_contact_positions(12, 150) {
            let rolls = super::tests::rolls_hitting(&pos, 2);
            compared += 1;
            agree += (shape(&pos, 0)[4] == rolls as f32 / 36.0) as u32;
            with_shots += (rolls > 0) as u32;
        }
        assert!(
            compared > 2000 && with_shots > 200,
            "{compared} {with_shots}"
        );
        assert!(agree * 100 >= compared * 98, "{agree} of {compared}");
    }

    /// Wide containment is at least containment (it takes the minimum over more start
    /// points); the squares are the squares.
    #[test]
    fn containment_units_are_consistent() {
        for pos in super::tests::random_game_positions(13, 30, 120) {
            let d = Inputs::new(&pos).dense();
            for side in 0..2 {
                let c = d[RAW_INPUTS + 2 * FEATURES + side * BLOCKADE_FEATURES];
                let f = shape(&pos, side);
                assert_eq!(f[7], c * c);
                assert!(f[8] >= c);
                assert_eq!(f[9], f[8] * f[8]);
                assert!(f.iter().all(|v| v.is_finite() && *v >= 0.0 && *v <= 2.0));
            }
        }
    }
}
