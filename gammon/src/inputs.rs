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
//! [`INPUTS`] = 210. The contact and race nets take the same inputs. Each earlier layout
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
/// Units in all.
pub const INPUTS: usize = RAW_INPUTS + 2 * FEATURES + 2 * BLOCKADE_FEATURES;
/// The input counts weights files have had, oldest first; each is a prefix of the next.
pub const LAYOUTS: [usize; 3] = [RAW_INPUTS, RAW_INPUTS + 2 * FEATURES, INPUTS];

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
        let mut x = Inputs {
            index: [0; INPUTS],
            value: [0.0; INPUTS],
            len: 0,
        };
        let counts = [pos.counts(Side::OnRoll), pos.counts(Side::Opponent)];
        for (s, counts) in counts.iter().enumerate() {
            let base = s * SIDE_INPUTS;
            let mut on_board = 0u32;
            let mut pips = 0u32;
            for (i, &n) in counts.iter().enumerate() {
                on_board += n as u32;
                pips += (i as u32 + 1) * n as u32;
                if i == BAR || n == 0 {
                    continue;
                }
                let u = base + 4 * i;
                x.push(u, 1.0);
                if n >= 2 {
                    x.push(u + 1, 1.0);
                }
                if n >= 3 {
                    x.push(u + 2, 1.0);
                }
                if n > 3 {
                    x.push(u + 3, (n as f32 - 3.0) / 2.0);
                }
            }
            if counts[BAR] > 0 {
                x.push(base + 96, counts[BAR] as f32 / 2.0);
            }
            let off = 15 - on_board.min(15);
            if off > 0 {
                x.push(base + 97, off as f32 / 15.0);
            }
            if pips > 0 {
                x.push(base + 98, pips as f32 / 167.0);
            }
        }
        let masks = counts.map(|c| PointMasks::new(&c));
        for s in 0..2 {
            let f = side_features(&masks[s], &masks[1 - s]);
            for (k, &v) in f.iter().enumerate() {
                if v != 0.0 {
                    x.push(RAW_INPUTS + s * FEATURES + k, v);
                }
            }
        }
        for s in 0..2 {
            let f = blockade_features(&masks[s], &masks[1 - s]);
            for (k, &v) in f.iter().enumerate() {
                if v != 0.0 {
                    x.push(RAW_INPUTS + 2 * FEATURES + s * BLOCKADE_FEATURES + k, v);
                }
            }
        }
        x
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
        for (i, &n) in counts[..BAR].iter().enumerate() {
            let bit = 1u32 << (i + 1);
            if n >= 2 {
                m.made |= bit;
            }
            if n == 1 {
                m.blots |= bit;
            }
            if n >= 1 {
                m.any |= bit;
            }
        }
        m
    }
}

/// Reverses a point mask to the other side's numbering (its `t`-point is our `25 − t`).
fn mirror(mask: u32) -> u32 {
    (mask.reverse_bits() >> 6) & 0x1FF_FFFE
}

/// The points checkers at `from` can land on with the roll `d1`-`d2`, each moving alone, in
/// travel coordinates (bit `v` at `v` pips from the mover's bar, up to 24): a die may carry a
/// checker over a `blocked` point but a later die may not start from one. Landing on a
/// `blocked` point is included; callers mask it out where it matters.
fn reach(from: u32, blocked: u32, d1: u32, d2: u32) -> u32 {
    const BOARD: u32 = 0x1FF_FFFF;
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
    let (mut shots, mut loss) = (0, 0);
    let mut escapes = if escape.is_none() { 36 } else { 0 };
    for dice in Dice::ALL {
        let (d1, d2, w) = (dice.high() as u32, dice.low() as u32, dice.weight());
        let hit = reach(their_from, me.made, d1, d2) & me.blots;
        if hit != 0 {
            shots += w;
            // The most advanced blot hit (lowest point `t`) loses the most: 25 − t pips.
            loss += w * (25 - hit.trailing_zeros());
        }
        if let Some((v, last)) = escape {
            let lands = reach(1 << v, them.made, d1, d2) & !them.made;
            if lands >> (last + 1) != 0 {
                escapes += w;
            }
        }
    }
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

/// The furthest-back checker of `side` on its own numbering: 25 for the bar, 0 when none.
pub fn back_point(pos: &Position, side: Side) -> usize {
    let counts = pos.counts(side);
    (0..25).rev().find(|&i| counts[i] > 0).map_or(0, |i| i + 1)
}

/// True when the checkers can still meet: some checker of one side is behind some checker of
/// the other. Otherwise the game is a race (or over).
pub fn is_contact(pos: &Position) -> bool {
    let me = back_point(pos, Side::OnRoll);
    let opp = back_point(pos, Side::Opponent);
    me > 0 && opp > 0 && me + opp > 25
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The shots feature against the move generator: on each of the 21 rolls, does some legal
    /// play of the opponent send one of our checkers to the bar? Positions from random games,
    /// the opponent not on the bar (then only the bar moves first, which the feature ignores).
    /// The feature ignores the rule that both dice be played when possible, so a rare position
    /// may differ; nearly all must agree exactly.
    #[test]
    fn shots_agree_with_the_move_generator() {
        use crate::baseline::{roll, Player};
        use crate::rng::Rng;
        use tabula_engine::backgammon::{Dice, PlayList};
        let mut rng = Rng::new(11);
        let mut list = PlayList::new();
        let (mut compared, mut agree, mut with_shots) = (0, 0, 0);
        for _ in 0..100 {
            let mut pos = Position::START;
            for _ in 0..200 {
                if pos.is_game_over() {
                    break;
                }
                if pos.counts(Side::Opponent)[BAR] == 0 && is_contact(&pos) {
                    let attack = pos.swapped();
                    let mut rolls = 0;
                    for a in 1..=6u8 {
                        for b in 1..=6u8 {
                            attack.generate_plays(Dice::new(a, b).unwrap(), &mut list);
                            let bar = pos.counts(Side::OnRoll)[BAR];
                            rolls += (0..list.len())
                                .any(|i| list.result(i).counts(Side::OnRoll)[BAR] > bar)
                                as u32;
                        }
                    }
                    let shots = Inputs::new(&pos).dense()[RAW_INPUTS];
                    compared += 1;
                    agree += (shots == rolls as f32 / 36.0) as u32;
                    with_shots += (rolls > 0) as u32;
                }
                pos = Player::Random.play(&pos, roll(&mut rng), &mut list, &mut rng);
            }
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
