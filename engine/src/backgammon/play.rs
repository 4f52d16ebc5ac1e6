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
    entries: Vec<Entry>,
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
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    /// The steps packed by [`step_bits`], step `k` in bits `16k..16k + 16` (0 for a double:
    /// see [`double_steps`]).
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
        self.entries.len()
    }

    /// True when no play is possible.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The position after play `i`, with the opponent on roll.
    pub fn result(&self, i: usize) -> Position {
        let key = self.entries[i].key;
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
            unpack_steps(self.entries[i].steps)
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

    fn clear(&mut self, origin: Position, dice: Dice) {
        self.origin = origin;
        self.double = if dice.is_double() { dice.high() } else { 0 };
        self.max_dice = 0;
        self.entries.clear();
    }

    /// Appends a play of `dice` dice known to differ from every other, keeping only those of
    /// the most dice.
    #[inline]
    fn push_max(&mut self, dice: u8, key: u128, steps: u64) {
        if dice < self.max_dice {
            return;
        }
        if dice > self.max_dice {
            self.entries.clear();
            self.max_dice = dice;
        }
        self.push_key(key, steps);
    }

    #[inline(always)]
    fn push_key(&mut self, key: u128, steps: u64) {
        self.entries.push(Entry { key, steps });
    }

    /// Appends the play leaving the mover's side `me` after hitting on the slots of `hits`.
    #[inline(always)]
    fn push(&mut self, me: u128, hits: u32, steps: u64) {
        self.push_key(me | (hits as u128) << 100, steps);
    }
}

/// What the generator needs of a position, as slot sets from the mover's side.
#[derive(Clone, Copy, Debug, Default)]
struct Masks {
    /// Slots not blocked by two or more opposing checkers.
    open: u32,
    /// Slots holding exactly one opposing checker.
    blots: u32,
    /// Slots (bar included) holding the mover's checkers.
    occ: u32,
    /// Slots holding exactly one of the mover's checkers.
    lone: u32,
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
        let me_multi = ((pos.me >> 1) | (pos.me >> 2) | (pos.me >> 3)) & LOW_BITS;
        Masks {
            open: !blocked & BOARD,
            blots: (gather_nibbles(single) & BOARD).reverse_bits() >> 8,
            occ: gather_nibbles(occupied_nibbles(pos.me)),
            lone: gather_nibbles(pos.me & LOW_BITS & !me_multi),
            outside: total(pos.me & OUTSIDE_HOME),
            bar: nibble(pos.me, BAR) as u32,
        }
    }
}

/// The generator's view of a roll: the opponent's points, seen from the mover.
struct Gen<'a> {
    /// Mover's slots not blocked by two or more opposing checkers.
    open: u32,
    /// Mover's slots holding exactly one opposing checker.
    blots: u32,
    list: &'a mut PlayList,
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

/// `occ` after a checker leaves slot `i` of `me` and lands on `land` (a bit, or 0 when off).
#[inline(always)]
fn occ_after(me: u128, occ: u32, i: usize, land: u32) -> u32 {
    occ & !(((nibble(me, i) == 1) as u32) << i) | land
}

impl Gen<'_> {
    /// A double: the checkers on the bar enter first (all of them at once, as far as four
    /// steps go), then gnubg's search over starts in non-increasing order. The search state is
    /// a play's key (the mover's side and its hits), and the steps are not recorded: a
    /// double's resulting position determines them (see [`double_steps`]).
    /// `bear`: bearing off may be possible (fewer than four checkers outside the home board,
    /// the bar included).
    fn double(&mut self, me: u128, occ: u32, d: usize, bear: bool) {
        let (mut key, mut occ, mut depth) = (me, occ, 0usize);
        let bar = nibble(me, BAR) as usize;
        if bar > 0 {
            let dst = 24 - d;
            if self.open >> dst & 1 == 0 {
                return;
            }
            let k = bar.min(4);
            key = key.wrapping_add(MOVE[d][BAR].wrapping_mul(k as u128)) | self.hit(1 << dst);
            occ = occ & BOARD | 1 << dst;
            if k == 4 || bar > k {
                self.list.push_max(k as u8, key, 0);
                return;
            }
            depth = k;
        }
        let none = match (depth, bear) {
            (0, false) => self.double_dfs::<0, false>(d, 23, key, occ),
            (1, false) => self.double_dfs::<1, false>(d, 23, key, occ),
            (2, false) => self.double_dfs::<2, false>(d, 23, key, occ),
            (_, false) => self.double_dfs::<3, false>(d, 23, key, occ),
            (0, true) => self.double_dfs::<0, true>(d, 23, key, occ),
            (1, true) => self.double_dfs::<1, true>(d, 23, key, occ),
            (2, true) => self.double_dfs::<2, true>(d, 23, key, occ),
            (_, true) => self.double_dfs::<3, true>(d, 23, key, occ),
        };
        if none && depth > 0 {
            self.list.push_max(depth as u8, key, 0);
        }
    }

    /// The hit set, in key position, of a checker landing on the slots of `land` (0 or one bit).
    #[inline(always)]
    fn hit(&self, land: u32) -> u128 {
        ((self.blots & land) as u128) << 100
    }

    /// Steps `DEPTH..4` of a double from starts at most `top`, after which the play's key is
    /// `key` and the occupied slots `occ`; true when no checker can move. `BEAR`: bearing off
    /// may become possible (otherwise its test is skipped).
    #[inline(always)]
    fn double_dfs<const DEPTH: usize, const BEAR: bool>(
        &mut self,
        d: usize,
        top: usize,
        key: u128,
        occ: u32,
    ) -> bool {
        let movable = if BEAR {
            movers(self.open, occ, d)
        } else {
            occ & (self.open << d)
        };
        let mut cand = movable & ((2u32 << top) - 1);
        if cand == 0 {
            return true;
        }
        if DEPTH == 3 && self.list.max_dice < 4 {
            self.list.entries.clear();
            self.list.max_dice = 4;
        }
        let delta = &MOVE[d];
        while cand != 0 {
            let i = 31 - cand.leading_zeros() as usize;
            cand ^= 1 << i;
            let land = (1u32 << i) >> d;
            let key2 = key.wrapping_add(delta[i]) | self.hit(land);
            if DEPTH == 3 {
                // The last step: every start completes a play.
                self.list.push_key(key2, 0);
                continue;
            }
            let occ2 = occ_after(key, occ, i, land);
            let none = match DEPTH {
                0 => self.double_dfs::<1, BEAR>(d, i, key2, occ2),
                1 => self.double_dfs::<2, BEAR>(d, i, key2, occ2),
                _ => self.double_dfs::<3, BEAR>(d, i, key2, occ2),
            };
            if none {
                self.list.push_max(DEPTH as u8 + 1, key2, 0);
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
        let (open, blots) = (self.open, self.blots);
        let list = &mut *self.list;
        if nibble(me, BAR) >= 2 {
            let (dice, enters) = match (open1, open2) {
                (true, true) => (2, [(e1, h), (e2, l)]),
                (true, false) => (1, [(e1, h), (e1, 0)]),
                (false, true) => (1, [(e2, l), (e2, 0)]),
                (false, false) => return,
            };
            list.max_dice = dice;
            let [(a, da), (b, db)] = enters;
            let mut key = me.wrapping_add(MOVE[da][BAR]);
            let mut steps = STEP[da][BAR];
            if dice == 2 {
                key = key.wrapping_add(MOVE[db][BAR]);
                steps |= STEP[db][BAR] << 16;
            }
            list.push(key, blots & (1 << a | 1 << b), steps);
            return;
        }
        let occ = occ & BOARD;
        // Enter with die `a` on `e`, then any checker moves die `b`.
        let mut both = |e: usize, a: usize, b: usize, skip: u32| {
            let me2 = me.wrapping_add(MOVE[a][BAR]);
            let hits = blots & (1 << e);
            let mut cand = (occ | 1 << e) & (open << b) & !skip;
            while cand != 0 {
                let i = 31 - cand.leading_zeros() as usize;
                cand ^= 1 << i;
                list.push(
                    me2.wrapping_add(MOVE[b][i]),
                    hits | blots & (1 << (i - b)),
                    STEP[a][BAR] | STEP[b][i] << 16,
                );
            }
        };
        if open1 {
            both(e1, h, l, 0);
        }
        if open2 {
            // The entered checker moving on duplicates the first order's when that one could
            // (same landing point) and neither entry hits.
            let skip = if open1 && blots & (1 << e1 | 1 << e2) == 0 {
                1 << e2
            } else {
                0
            };
            both(e2, l, h, skip);
        }
        if !list.entries.is_empty() {
            list.max_dice = 2;
            return;
        }
        let d = if open1 {
            h
        } else if open2 {
            l
        } else {
            return;
        };
        list.max_dice = 1;
        list.push(
            me.wrapping_add(MOVE[d][BAR]),
            blots & (1 << (24 - d)),
            STEP[d][BAR],
        );
    }

    /// A non-double with no checker on the bar and two or more outside the home board, so that
    /// nothing can bear off: the plays in closed form, without search. Using both dice is one
    /// checker moving both (by either route; two plays when the routes hit differently) or two
    /// checkers moving one die each; a pair whose steps touch (one lands where the other
    /// starts) is the same position as a one-checker play and is skipped, and all the others
    /// are distinct, so no deduplication is needed.
    fn two_dice_contact(&mut self, me: u128, occ: u32, lone: u32, h: usize, l: usize) {
        let (sh, sl) = (occ & (self.open << h), occ & (self.open << l));
        let blots = self.blots;
        let (dh, dl) = (&MOVE[h], &MOVE[l]);
        let (th, tl) = (&STEP[h], &STEP[l]);
        let list = &mut *self.list;
        list.max_dice = 2;
        // One checker, both dice.
        let mut cand = occ & (self.open << (h + l)) & (sh | sl);
        while cand != 0 {
            let i = 31 - cand.leading_zeros() as usize;
            cand ^= 1 << i;
            let dst = i - h - l;
            let moved = me.wrapping_add(dh[i]).wrapping_add(dl[i - h]);
            let via_h = sh >> i & 1 == 1;
            let hits_h = blots & (1 << (i - h) | 1 << dst);
            let hits_l = blots & (1 << (i - l) | 1 << dst);
            if via_h {
                list.push(moved, hits_h, th[i] | tl[i - h] << 16);
            }
            if sl >> i & 1 == 1 && (!via_h || hits_l != hits_h) {
                list.push(moved, hits_l, tl[i] | th[i - l] << 16);
            }
        }
        // Two checkers, one die each.
        let mut ah = sh;
        while ah != 0 {
            let i = 31 - ah.leading_zeros() as usize;
            ah ^= 1 << i;
            let after_h = me.wrapping_add(dh[i]);
            let hit_h = blots & (1 << (i - h));
            // Pairs that touch are one-checker plays; a lone checker cannot move twice.
            let mut bl = sl & !(1 << (i - h)) & !(1u32 << (i + l)) & !(lone & (1 << i));
            while bl != 0 {
                let j = 31 - bl.leading_zeros() as usize;
                bl ^= 1 << j;
                list.push(
                    after_h.wrapping_add(dl[j]),
                    hit_h | blots & (1 << (j - l)),
                    th[i] | tl[j] << 16,
                );
            }
        }
        if list.entries.is_empty() {
            self.single_die(me, occ, h, l);
        }
    }

    /// A non-double with no checker on the bar and at most one outside the home board, where
    /// bearing off may be possible and the legality of a step can depend on the one before:
    /// both die orders are searched. The second order skips a pair of ordinary steps of two
    /// checkers (the first order made the same steps); any other sequence looks its position
    /// up among the few plays found so far (one checker by either route, two that touch, two
    /// borne off with the dice either way round reach the same position).
    fn two_dice_bear_off(&mut self, me: u128, occ: u32, h: usize, l: usize) {
        let (open, blots) = (self.open, self.blots);
        let list = &mut *self.list;
        list.max_dice = 2;
        for (a, b) in [(h, l), (l, h)] {
            let second = a == l;
            let mut from = movers(open, occ, a);
            while from != 0 {
                let i = 31 - from.leading_zeros() as usize;
                from ^= 1 << i;
                let me1 = me.wrapping_add(MOVE[a][i]);
                let land = (1u32 << i) >> a;
                let hit1 = blots & land;
                let mut then = movers(open, occ_after(me, occ, i, land), b);
                if second && i >= a {
                    // Two ordinary steps of two checkers: the first order made them.
                    then &= ((1 << b) - 1) | land;
                }
                while then != 0 {
                    let j = 31 - then.leading_zeros() as usize;
                    then ^= 1 << j;
                    let key = me1.wrapping_add(MOVE[b][j])
                        | ((hit1 | blots & (1 << j) >> b) as u128) << 100;
                    if list.entries.iter().any(|e| e.key == key) {
                        continue;
                    }
                    list.entries.push(Entry {
                        key,
                        steps: STEP[a][i] | STEP[b][j] << 16,
                    });
                }
            }
        }
        if list.entries.is_empty() {
            self.single_die(me, occ, h, l);
        }
    }

    /// A non-double of which no sequence uses both dice: each step of the higher die if it
    /// has one, else of the lower (no checker on the bar).
    fn single_die(&mut self, me: u128, occ: u32, h: usize, l: usize) {
        let sh = movers(self.open, occ, h);
        let (d, mut from) = if sh != 0 {
            (h, sh)
        } else {
            (l, movers(self.open, occ, l))
        };
        let list = &mut *self.list;
        list.max_dice = if from == 0 { 0 } else { 1 };
        while from != 0 {
            let i = 31 - from.leading_zeros() as usize;
            from ^= 1 << i;
            list.push(
                me.wrapping_add(MOVE[d][i]),
                self.blots & (1 << i) >> d,
                STEP[d][i],
            );
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

/// `MOVE[d][i]`: added (wrapping) to a packed side, moves a checker from slot `i` by `d`: to
/// slot `i - d`, or off where `i < d` (from the bar, slot 24, it enters on slot `24 - d`).
/// Rows have 32 entries so that indexing by a bit position of a `u32` needs no bounds check.
const MOVE: [[u128; 32]; 7] = {
    let mut t = [[0u128; 32]; 7];
    let mut d = 1;
    while d < 7 {
        let mut i = 0;
        while i < 25 {
            let to = if i >= d { ONE[i - d] } else { 0 };
            t[d][i] = to.wrapping_sub(ONE[i]);
            i += 1;
        }
        d += 1;
    }
    t
};

/// `STEP[d][i]`: the step of [`MOVE`]`[d][i]` in gnubg numbers, packed by [`step_bits`].
const STEP: [[u64; 32]; 7] = {
    let mut t = [[0u64; 32]; 7];
    let mut d = 1;
    while d < 7 {
        let mut i = 0;
        while i < 25 {
            let to = if i >= d { i + 1 - d } else { 0 };
            t[d][i] = step_bits(Step {
                from: i as u8 + 1,
                to: to as u8,
            });
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
        list.clear(*self, dice);
        let m = list.board;
        let mut gen = Gen {
            open: m.open,
            blots: m.blots,
            list,
        };
        let (h, l) = (dice.high() as usize, dice.low() as usize);
        if h == l {
            gen.double(self.me, m.occ, h, m.outside + m.bar < 4);
        } else if m.bar > 0 {
            gen.non_double_bar(self.me, m.occ, h, l);
        } else if m.outside >= 2 {
            // Whichever moves first, one checker stays outside: nothing bears off.
            gen.two_dice_contact(self.me, m.occ, m.lone, h, l);
        } else {
            gen.two_dice_bear_off(self.me, m.occ, h, l);
        }
        gen.list.len()
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
            .ok_or_else(|| {
                notation::PlayError::Illegal(format!(
                    "{} is not a legal play of {dice} here",
                    text.trim()
                ))
            })
    }
}
