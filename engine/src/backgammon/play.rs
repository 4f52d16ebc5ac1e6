//! Legal plays for a roll, as gnubg defines them: one per distinct resulting position.
//!
//! gnubg's `GenerateMoves` is a depth-first search over the dice (both orders for a non-double,
//! four steps of the same die for a double, checkers of a double in non-increasing order of
//! their starting point), entering from the bar before anything else, keeping only the
//! sequences that use the most dice and, among those, the most pips (so the higher die when
//! only one can be played), and one play per resulting position. Its results are produced here
//! by cheaper means, each checked against gnubg's lists:
//!
//! - a double (`Gen::double`) by the same search over starts in non-increasing order, which
//!   meets every multiset of steps once; and a double's resulting position determines its
//!   multiset of steps, so no deduplication is needed;
//! - a non-double with a checker on the bar (`Gen::non_double_bar`) and one with two or more
//!   checkers outside the home board, so that nothing can bear off (`Gen::two_dice_contact`),
//!   in closed form with no duplicates;
//! - the remaining non-doubles, where bearing off may be possible (`Gen::two_dice_bear_off`), by
//!   both die orders, the second skipping what the first produced.
//!
//! The work is done on the mover's 25 packed counts, a 25-bit set of its occupied slots and a
//! 24-bit set of the opponent's blots it hit: the opponent's blocks never change during a play,
//! so the legal starts for a die are one mask operation, and moving a checker is one addition
//! from a table.

use std::fmt;
use std::num::NonZeroU32;

use super::dice::Dice;
use super::notation;
use super::position::{nibble, occupied_nibbles, total, Position, BAR, LOW_BITS};

/// Slots 6..=23 of a packed side (points 7 to 24).
const OUTSIDE_HOME: u128 = ((1u128 << 96) - 1) & !((1u128 << 24) - 1);

/// The 24 board slots of an occupancy or point set.
const BOARD: u32 = 0x00ff_ffff;

/// One checker moved by one die (or, in parsed notation, by several): gnubg point numbers from
/// the mover's side, `from` in 1..=25 (25 = bar), `to` in 0..=24 (0 = borne off).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Step {
    /// Starting point (25 = the bar).
    pub from: u8,
    /// Landing point (0 = off).
    pub to: u8,
}

/// A legal play: the steps of one sequence producing it and the resulting position.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Play {
    before: Position,
    steps: [Step; 4],
    len: u8,
    after: Position,
}

impl Play {
    /// The position the play starts from (mover on roll).
    pub fn before(&self) -> Position {
        self.before
    }

    /// The steps of the play (one per die used), in the order they were generated.
    pub fn steps(&self) -> &[Step] {
        &self.steps[..self.len as usize]
    }

    /// The number of dice used.
    pub fn dice_used(&self) -> usize {
        self.len as usize
    }

    /// The position after the play, **with the opponent on roll** (sides switched), as gnubg
    /// shows it after a move.
    pub fn result(&self) -> Position {
        self.after
    }

    /// gnubg's notation of the play (`24/18 13/11`, `bar/22*`, `6/off`, `8/5(2)`).
    pub fn notation(&self) -> String {
        notation::format_steps(&self.before, self.steps())
    }
}

impl fmt::Display for Play {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.notation())
    }
}

/// A reusable buffer of generated plays (no allocation once warmed up).
#[derive(Clone, Debug, Default)]
pub struct PlayList {
    origin: Position,
    /// The plays are `entries[..len]`; the rest is room kept for the next generation.
    entries: Vec<Entry>,
    len: usize,
    /// Dice used by every play in the list.
    max_dice: u8,
    /// The die of a double (its plays record no steps), else 0.
    double: u8,
    /// The masks of `board_of`, the last position generated.
    board: Masks,
    board_of: Option<Position>,
}

/// One generated play: the mover's packed side after it, with the hit set in bits 100..124,
/// and the steps of a sequence that produced it.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: u128,
    /// The steps packed by [`step_bits`], step `k` in bits `16k..16k + 16` (unused for a
    /// double: see [`double_steps`]).
    steps: u64,
}

const SIDE_MASK: u128 = (1u128 << 100) - 1;

impl PlayList {
    /// An empty list.
    pub fn new() -> PlayList {
        PlayList::default()
    }

    /// The number of plays (distinct resulting positions).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no play is possible.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn entry(&self, i: usize) -> Entry {
        self.entries[..self.len][i]
    }

    /// The position after play `i`, with the opponent on roll.
    pub fn result(&self, i: usize) -> Position {
        let key = self.entry(i).key;
        let me = key & SIDE_MASK;
        let mut hits = (key >> 100) as u32;
        let mut opp = self.origin.opp;
        opp += (hits.count_ones() as u128) << (4 * BAR);
        while hits != 0 {
            let j = hits.trailing_zeros() as usize;
            hits &= hits - 1;
            opp -= 1u128 << (4 * (23 - j));
        }
        Position { me: opp, opp: me }
    }

    /// Play `i`.
    pub fn play(&self, i: usize) -> Play {
        let after = self.result(i);
        let steps = if self.double == 0 {
            unpack_steps(self.entry(i).steps)
        } else {
            double_steps(self.origin.me, after.opp, self.double as usize)
        };
        Play {
            before: self.origin,
            steps,
            len: self.max_dice,
            after,
        }
    }

    /// All plays in generation order.
    pub fn iter(&self) -> impl Iterator<Item = Play> + '_ {
        (0..self.len()).map(|i| self.play(i))
    }
}

/// What the generator needs of a position, as slot sets from the mover's side.
#[derive(Clone, Copy, Debug, Default)]
struct Masks {
    /// Slots not blocked by two or more opposing checkers.
    open: u32,
    /// Slots holding exactly one opposing checker.
    blots: u32,
    /// Slots (bar included) holding more than `k` of the mover's checkers, for k < 4.
    more: Levels,
    /// The mover's checkers outside the home board (bar excluded) and on the bar.
    outside: u32,
    bar: u32,
}

impl Masks {
    fn new(pos: &Position) -> Masks {
        // Bit 4j set when the opponent has two or more checkers (a block) or exactly one (a
        // blot) on its slot j, bar excluded; seen from the mover, its slot j is slot 23 - j.
        let multi = ((pos.opp >> 1) | (pos.opp >> 2) | (pos.opp >> 3)) & LOW_BITS;
        let single = pos.opp & LOW_BITS & !multi;
        let blocked = (gather_nibbles(multi) & BOARD).reverse_bits() >> 8;
        // Nibble x > 1 when bit 1, 2 or 3 is set; x > 2 also when bits 0 and 1 are; x > 3
        // when bit 2 or 3 is.
        let me = pos.me;
        let over3 = (me >> 2) | (me >> 3);
        let over1 = over3 | (me >> 1);
        let more = [occupied_nibbles(me), over1, over3 | (me & me >> 1), over3];
        Masks {
            open: !blocked & BOARD,
            blots: (gather_nibbles(single) & BOARD).reverse_bits() >> 8,
            more: more.map(|x| gather_nibbles(x & LOW_BITS)),
            outside: total(pos.me & OUTSIDE_HOME),
            bar: nibble(pos.me, BAR) as u32,
        }
    }
}

/// The generator's state for one roll. It owns the list's buffer while it works (`buf[..n]`
/// are the plays so far), so that the count and buffer live in registers rather than being
/// reloaded and stored through the list at every play.
struct Gen {
    /// Mover's slots not blocked by two or more opposing checkers.
    open: u32,
    /// Mover's slots holding exactly one opposing checker.
    blots: u32,
    buf: Vec<Entry>,
    n: usize,
    max_dice: u8,
}

/// `buf` with room for more plays (out of line: it runs only while a list warms up).
#[cold]
#[inline(never)]
fn grow(mut buf: Vec<Entry>, min_len: usize) -> Vec<Entry> {
    let len = (2 * buf.len()).max(min_len).max(64);
    buf.resize(len, Entry::default());
    buf
}

/// `key` (a mover's side and hits) after the checker of `m` moves, hitting on `blots`.
#[inline(always)]
fn moved(key: u128, m: &Move, blots: u32) -> u128 {
    key.wrapping_add(m.delta) | ((blots & m.land) as u128) << 100
}

/// The set bits of a mask, highest first: the loops take starts from the back, as gnubg does.
struct Highs(u32);

impl Iterator for Highs {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        // `NonZeroU32` tells the compiler the bit scan has a result below 32 (no zero case,
        // no bounds check on the 32-entry table rows).
        let i = 31 - NonZeroU32::new(self.0)?.leading_zeros();
        self.0 ^= 1 << i;
        Some(i as usize)
    }
}

/// The slots (bar excluded) from which a checker moves `d` in a position with occupied slots
/// `occ` and nobody on the bar: onto an open point or, once every checker is home, off by the
/// exact die or, with a larger die, from the rearmost point.
#[inline(always)]
fn movers(open: u32, occ: u32, d: usize) -> u32 {
    let mut m = occ & (open << d);
    if occ < 1 << 6 {
        let back = 31 - (occ | 1).leading_zeros();
        m |= occ & (1 << back.min(d as u32 - 1));
    }
    m
}

/// `more[k]`: the slots holding more than `k` of the mover's checkers (k < 4); `more[0]` is
/// the occupied slots.
type Levels = [u32; 4];

/// `more` after a checker leaves the slots of `from` (one bit, or none for a checker entering
/// from the bar) and lands on `land` (a bit, or 0 when off). The top level is not kept exact
/// (a slot left with four checkers stays in it), which no reader sees: step `j` of a double
/// (from 0) reads levels up to `3 - j`, and a non-double's steps only levels 0 and 1.
#[inline(always)]
fn step(more: Levels, from: u32, land: u32) -> Levels {
    let mut out = more;
    for k in 0..4 {
        let above = if k < 3 { more[k + 1] } else { u32::MAX };
        let below = if k > 0 { more[k - 1] } else { u32::MAX };
        out[k] = more[k] & (above | !from) | below & land;
    }
    out
}

impl Gen {
    /// The next `k` entries of the buffer, counted as plays (for loops that fill them all).
    #[inline(always)]
    fn room(&mut self, k: u32) -> &mut [Entry] {
        let (start, end) = (self.n, self.n + k as usize);
        if self.buf.len() < end {
            self.buf = grow(std::mem::take(&mut self.buf), end);
        }
        self.n = end;
        &mut self.buf[start..end]
    }

    /// Appends a play known to differ from every other.
    #[inline(always)]
    fn emit(&mut self, key: u128, steps: u64) {
        self.room(1)[0] = Entry { key, steps };
    }

    /// Appends a play of a double (whose steps are not recorded).
    #[inline(always)]
    fn emit_key(&mut self, key: u128) {
        self.room(1)[0].key = key;
    }

    /// Appends a play of a double using `dice` dice, keeping only those of the most dice.
    #[inline(always)]
    fn emit_max(&mut self, dice: u8, key: u128) {
        if dice < self.max_dice {
            return;
        }
        if dice > self.max_dice {
            self.n = 0;
            self.max_dice = dice;
        }
        self.emit_key(key);
    }

    /// The hit set, in key position, of a checker landing on the slots of `land` (0 or one bit).
    #[inline(always)]
    fn hit(&self, land: u32) -> u128 {
        ((self.blots & land) as u128) << 100
    }

    /// The key after moving the checker of `m` from the side (and hits) of `key`.
    #[inline(always)]
    fn moved(&self, key: u128, m: &Move) -> u128 {
        moved(key, m, self.blots)
    }

    /// A double: the checkers on the bar enter first (all of them at once, as far as four
    /// steps go), then gnubg's search over starts in non-increasing order. The search state is
    /// a play's key (the mover's side and its hits), and the steps are not recorded: a
    /// double's resulting position determines them (see [`double_steps`]).
    /// `bear`: bearing off may be possible (fewer than four checkers outside the home board,
    /// the bar included).
    fn double(&mut self, me: u128, more: Levels, d: usize, bear: bool) {
        let (mut key, mut more, mut depth) = (me, more, 0usize);
        let bar = nibble(me, BAR) as usize;
        if bar > 0 {
            let dst = 24 - d;
            if self.open >> dst & 1 == 0 {
                return;
            }
            let k = bar.min(4);
            key =
                key.wrapping_add(MOVES[d][BAR].delta.wrapping_mul(k as u128)) | self.hit(1 << dst);
            more = more.map(|x| x & BOARD);
            for _ in 0..k {
                more = step(more, 0, 1 << dst);
            }
            if k == 4 || bar > k {
                self.emit_max(k as u8, key);
                return;
            }
            depth = k;
        }
        let none = match (depth, bear) {
            (0, false) => self.double_dfs::<0, false>(d, 23, key, more),
            (1, false) => self.double_dfs::<1, false>(d, 23, key, more),
            (2, false) => self.double_dfs::<2, false>(d, 23, key, more),
            (_, false) => self.double_dfs::<3, false>(d, 23, key, more),
            (0, true) => self.double_dfs::<0, true>(d, 23, key, more),
            (1, true) => self.double_dfs::<1, true>(d, 23, key, more),
            (2, true) => self.double_dfs::<2, true>(d, 23, key, more),
            (_, true) => self.double_dfs::<3, true>(d, 23, key, more),
        };
        if none && depth > 0 {
            self.emit_max(depth as u8, key);
        }
    }

    /// Steps `DEPTH..4` of a double from starts at most `top`, after which the play's key is
    /// `key` and the slot levels `more`; true when no checker can move. `BEAR`: bearing off
    /// may become possible (otherwise its test is skipped).
    #[inline(always)]
    fn double_dfs<const DEPTH: usize, const BEAR: bool>(
        &mut self,
        d: usize,
        top: usize,
        key: u128,
        more: Levels,
    ) -> bool {
        let occ = more[0];
        let movable = if BEAR {
            movers(self.open, occ, d)
        } else {
            occ & (self.open << d)
        };
        let cand = movable & ((2u32 << top) - 1);
        if cand == 0 {
            return true;
        }
        if DEPTH == 3 && self.max_dice < 4 {
            self.n = 0;
            self.max_dice = 4;
        }
        let row = &MOVES[d];
        if DEPTH == 3 {
            // The last step: every start completes a play.
            let blots = self.blots;
            for (e, i) in self.room(cand.count_ones()).iter_mut().zip(Highs(cand)) {
                e.key = moved(key, &row[i], blots);
            }
            return false;
        }
        for i in Highs(cand) {
            let m = &row[i];
            let key2 = self.moved(key, m);
            let more2 = step(more, 1 << i, m.land);
            let none = match DEPTH {
                0 => self.double_dfs::<1, BEAR>(d, i, key2, more2),
                1 => self.double_dfs::<2, BEAR>(d, i, key2, more2),
                _ => self.double_dfs::<3, BEAR>(d, i, key2, more2),
            };
            if none {
                self.emit_max(DEPTH as u8 + 1, key2);
            }
        }
        false
    }

    /// A non-double with a checker on the bar (no bear-off is possible): the plays of gnubg's
    /// search in its order, in closed form. With two or more on the bar the play enters with
    /// each die it can. With one, it enters with one die and plays the other with any checker;
    /// only the entered checker moving on reaches the same position in both orders (a
    /// duplicate when neither entry hits).
    fn non_double_bar(&mut self, me: u128, occ: u32, h: usize, l: usize) {
        let (e1, e2) = (24 - h, 24 - l);
        let open1 = self.open >> e1 & 1 == 1;
        let open2 = self.open >> e2 & 1 == 1;
        if nibble(me, BAR) >= 2 {
            let (dice, enters) = match (open1, open2) {
                (true, true) => (2, [h, l]),
                (true, false) => (1, [h, 0]),
                (false, true) => (1, [l, 0]),
                (false, false) => return,
            };
            self.max_dice = dice;
            let mut key = self.moved(me, &MOVES[enters[0]][BAR]);
            let mut steps = MOVES[enters[0]][BAR].step;
            if dice == 2 {
                key = self.moved(key, &MOVES[enters[1]][BAR]);
                steps |= MOVES[enters[1]][BAR].step << 16;
            }
            self.emit(key, steps);
            return;
        }
        let occ = occ & BOARD;
        if open1 {
            self.enter_then(me, occ, h, l, 0);
        }
        if open2 {
            // The entered checker moving on duplicates the first order's when that one could
            // (same landing point) and neither entry hits.
            let skip = if open1 && self.blots & (1 << e1 | 1 << e2) == 0 {
                1 << e2
            } else {
                0
            };
            self.enter_then(me, occ, l, h, skip);
        }
        if self.n > 0 {
            self.max_dice = 2;
            return;
        }
        let d = if open1 {
            h
        } else if open2 {
            l
        } else {
            return;
        };
        self.max_dice = 1;
        let m = &MOVES[d][BAR];
        self.emit(self.moved(me, m), m.step);
    }

    /// The last checker on the bar enters with die `a`, then any checker (but those of
    /// `skip`) moves die `b`.
    #[inline(always)]
    fn enter_then(&mut self, me: u128, occ: u32, a: usize, b: usize, skip: u32) {
        let enter = &MOVES[a][BAR];
        let me2 = self.moved(me, enter);
        let row = &MOVES[b];
        let cand = (occ | enter.land) & (self.open << b) & !skip;
        let blots = self.blots;
        for (e, i) in self.room(cand.count_ones()).iter_mut().zip(Highs(cand)) {
            let m = &row[i];
            *e = Entry {
                key: moved(me2, m, blots),
                steps: enter.step | m.step << 16,
            };
        }
    }

    /// A non-double with no checker on the bar and two or more outside the home board, so that
    /// nothing can bear off: the plays in closed form, without search. Using both dice is one
    /// checker moving both (by either route; two plays when the routes hit differently) or two
    /// checkers moving one die each; a pair whose steps touch (one lands where the other
    /// starts) is the same position as a one-checker play and is skipped, and all the others
    /// are distinct, so no deduplication is needed.
    fn two_dice_contact(&mut self, me: u128, more: Levels, h: usize, l: usize) {
        let (occ, lone) = (more[0], more[0] & !more[1]);
        let (sh, sl) = (occ & (self.open << h), occ & (self.open << l));
        let (rh, rl) = (&MOVES[h], &MOVES[l]);
        self.max_dice = 2;
        // One checker, both dice.
        let cand = occ & (self.open << (h + l)) & (sh | sl);
        for i in Highs(cand) {
            let (mh, ml) = (&rh[i], &rl[i]);
            let (then_l, then_h) = (&rl[i - h], &rh[i - l]);
            let moved = me.wrapping_add(mh.delta).wrapping_add(then_l.delta);
            let via_h = sh >> i & 1 == 1;
            let hits_h = self.hit(mh.land | then_l.land);
            let hits_l = self.hit(ml.land | then_h.land);
            if via_h {
                self.emit(moved | hits_h, mh.step | then_l.step << 16);
            }
            if sl >> i & 1 == 1 && (!via_h || hits_l != hits_h) {
                self.emit(moved | hits_l, ml.step | then_h.step << 16);
            }
        }
        // Two checkers, one die each.
        let ah = sh;
        for i in Highs(ah) {
            let mh = &rh[i];
            let after_h = self.moved(me, mh);
            // Pairs that touch are one-checker plays; a lone checker cannot move twice.
            let bl = sl & !mh.land & !(1u32 << (i + l)) & !(lone & (1 << i));
            let blots = self.blots;
            for (e, i) in self.room(bl.count_ones()).iter_mut().zip(Highs(bl)) {
                let ml = &rl[i];
                *e = Entry {
                    key: moved(after_h, ml, blots),
                    steps: mh.step | ml.step << 16,
                };
            }
        }
        if self.n == 0 {
            self.single_die(me, occ, h, l);
        }
    }

    /// A non-double with no checker on the bar and at most one outside the home board, where
    /// bearing off may be possible and the legality of a step can depend on the one before:
    /// both die orders are searched. Only a few sequences can repeat a position found before
    /// and are looked up among the plays so far: in the first order, those bearing off or
    /// where the second checker lands where the first started (one checker's net move, which
    /// the one-checker route may have made); in the second, all but a pair of ordinary steps
    /// of two checkers (the first order made them).
    fn two_dice_bear_off(&mut self, me: u128, more: Levels, h: usize, l: usize) {
        let occ = more[0];
        self.max_dice = 2;
        let open = self.open;
        for (a, b) in [(h, l), (l, h)] {
            let second = a == l;
            let (ra, rb) = (&MOVES[a], &MOVES[b]);
            let from = movers(open, occ, a);
            for i in Highs(from) {
                let ma = &ra[i];
                let me1 = self.moved(me, ma);
                let mut then = movers(open, step(more, 1 << i, ma.land)[0], b);
                // The second steps whose play may repeat one found before, to look up: all
                // when the first step bears off, else (first order) those bearing off or
                // landing where the first checker started.
                let mut look = u32::MAX;
                if i >= a {
                    if second {
                        // Two ordinary steps of two checkers: the first order made them.
                        then &= ((1 << b) - 1) | ma.land;
                    } else {
                        look = ((1 << b) - 1) | (1 << (i + b));
                    }
                }
                for j in Highs(then) {
                    let mb = &rb[j];
                    let key = self.moved(me1, mb);
                    if look >> j & 1 == 1 && self.buf[..self.n].iter().any(|e| e.key == key) {
                        continue;
                    }
                    self.emit(key, ma.step | mb.step << 16);
                }
            }
        }
        if self.n == 0 {
            self.single_die(me, occ, h, l);
        }
    }

    /// A non-double of which no sequence uses both dice: each step of the higher die if it
    /// has one, else of the lower (no checker on the bar).
    fn single_die(&mut self, me: u128, occ: u32, h: usize, l: usize) {
        let sh = movers(self.open, occ, h);
        let (d, from) = if sh != 0 {
            (h, sh)
        } else {
            (l, movers(self.open, occ, l))
        };
        self.max_dice = if from == 0 { 0 } else { 1 };
        let blots = self.blots;
        for (e, i) in self.room(from.count_ones()).iter_mut().zip(Highs(from)) {
            let m = &MOVES[d][i];
            *e = Entry {
                key: moved(me, m, blots),
                steps: m.step,
            };
        }
    }
}

/// `ONE[i]`: one checker on slot `i` of a packed side.
const ONE: [u128; 25] = {
    let mut t = [0u128; 25];
    let mut i = 0;
    while i < 25 {
        t[i] = 1 << (4 * i);
        i += 1;
    }
    t
};

/// One checker moving one die from one slot: see [`MOVES`].
#[derive(Clone, Copy)]
struct Move {
    /// Added (wrapping) to a packed side, moves the checker.
    delta: u128,
    /// The landing slot as a bit (0 when borne off).
    land: u32,
    /// The step packed by [`step_bits`].
    step: u64,
}

/// `MOVES[d][i]`: a checker moving from slot `i` by `d`: to slot `i - d`, or off where `i < d`
/// (from the bar, slot 24, it enters on slot `24 - d`). Rows have 32 entries so that indexing
/// by a bit position of a `u32` needs no bounds check.
const MOVES: [[Move; 32]; 7] = {
    let none = Move {
        delta: 0,
        land: 0,
        step: 0,
    };
    let mut t = [[none; 32]; 7];
    let mut d = 1;
    while d < 7 {
        let mut i = 0;
        while i < 25 {
            let (to, land) = if i >= d {
                (ONE[i - d], 1 << (i - d))
            } else {
                (0, 0)
            };
            t[d][i] = Move {
                delta: to.wrapping_sub(ONE[i]),
                land,
                step: step_bits(Step {
                    from: i as u8 + 1,
                    to: if i >= d { i + 1 - d } else { 0 } as u8,
                }),
            };
            i += 1;
        }
        d += 1;
    }
    t
};

/// A step packed in 16 bits: `from` in the low byte, `to` in the high byte.
const fn step_bits(s: Step) -> u64 {
    s.from as u64 | (s.to as u64) << 8
}

/// The steps of a double of `d` from the mover's side `before` to `after`, in the order of
/// gnubg's search (from the bar, then starts in non-increasing order). Going from the back, the
/// checkers leaving a slot are those on it before plus those arriving from `d` behind, less
/// those on it after.
fn double_steps(before: u128, after: u128, d: usize) -> [Step; 4] {
    let mut leaving = [0u8; 25];
    let mut steps = [Step::default(); 4];
    let mut k = 0;
    for i in (0..25).rev() {
        let arriving = if i + d < 25 { leaving[i + d] } else { 0 };
        leaving[i] = nibble(before, i) + arriving - nibble(after, i);
        for _ in 0..leaving[i] {
            steps[k] = Step {
                from: i as u8 + 1,
                to: (i + 1).saturating_sub(d) as u8,
            };
            k += 1;
        }
    }
    steps
}

/// The four steps packed by [`step_bits`].
fn unpack_steps(x: u64) -> [Step; 4] {
    let mut steps = [Step::default(); 4];
    for (k, s) in steps.iter_mut().enumerate() {
        s.from = (x >> (16 * k)) as u8;
        s.to = (x >> (16 * k + 8)) as u8;
    }
    steps
}

/// Bits 4i of a packed side (i in 0..25) gathered into bit i.
#[inline]
fn gather_nibbles(x: u128) -> u32 {
    fn gather64(mut x: u64) -> u64 {
        x = (x | x >> 3) & 0x0303_0303_0303_0303;
        x = (x | x >> 6) & 0x000f_000f_000f_000f;
        x = (x | x >> 12) & 0x0000_00ff_0000_00ff;
        (x | x >> 24) & 0xffff
    }
    (gather64(x as u64) | gather64((x >> 64) as u64) << 16) as u32
}

impl Position {
    /// Fills `list` with every legal play for `dice` (empty when none is possible) and returns
    /// their number.
    pub fn generate_plays(&self, dice: Dice, list: &mut PlayList) -> usize {
        // The masks of the position are kept for the next roll of the same position (a search
        // asks for all 21 in a row).
        if list.board_of != Some(*self) {
            list.board = Masks::new(self);
            list.board_of = Some(*self);
        }
        list.origin = *self;
        list.double = if dice.is_double() { dice.high() } else { 0 };
        let m = list.board;
        let mut gen = Gen {
            open: m.open,
            blots: m.blots,
            buf: std::mem::take(&mut list.entries),
            n: 0,
            max_dice: 0,
        };
        let (h, l) = (dice.high() as usize, dice.low() as usize);
        if h == l {
            gen.double(self.me, m.more, h, m.outside + m.bar < 4);
        } else if m.bar > 0 {
            gen.non_double_bar(self.me, m.more[0], h, l);
        } else if m.outside >= 2 {
            // Whichever moves first, one checker stays outside: nothing bears off.
            gen.two_dice_contact(self.me, m.more, h, l);
        } else {
            gen.two_dice_bear_off(self.me, m.more, h, l);
        }
        list.entries = gen.buf;
        list.len = gen.n;
        list.max_dice = gen.max_dice;
        gen.n
    }

    /// Every legal play for `dice`, one per distinct resulting position; empty when the roll
    /// cannot be played.
    pub fn plays(&self, dice: Dice) -> Vec<Play> {
        let mut list = PlayList::new();
        self.generate_plays(dice, &mut list);
        list.iter().collect()
    }

    /// The legal play written `text` in gnubg notation (`13/11 6/5`, `bar/22*`, `8/5(2)`,
    /// `6/off`): the one whose resulting position the written steps produce.
    pub fn parse_play(&self, dice: Dice, text: &str) -> Result<Play, notation::PlayError> {
        let steps = notation::parse_steps(text)?;
        let target = notation::apply_steps(self, &steps)?;
        self.plays(dice)
            .into_iter()
            .find(|p| p.result() == target)
            .ok_or_else(|| notation::PlayError::NotLegal {
                text: text.trim().to_string(),
                dice,
            })
    }
}
