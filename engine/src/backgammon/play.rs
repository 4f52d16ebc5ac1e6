//! Legal plays for a roll, as gnubg defines them: one per distinct resulting position.
//!
//! The generator follows gnubg's `GenerateMoves`: a depth-first search over the dice (both
//! orders for a non-double, four steps of the same die for a double, checkers of a double in
//! non-increasing order of their starting point), entering from the bar before anything else,
//! keeping only the sequences that use the most dice and, among those, the most pips (so the
//! higher die when only one can be played), and one play per resulting position (the first
//! sequence found, which fixes its notation).
//!
//! The search works on the mover's 25 packed counts, a 25-bit set of its occupied slots and a
//! 24-bit set of the opponent's blots it hit: the opponent's blocks never change during a play,
//! so the legal starts for a die are one mask operation, and moving a checker is one addition
//! from a table. In the second die order of a non-double it skips the sequences the first order
//! already produced (two different checkers, no bear-off, no bar), and the remaining duplicate
//! positions are removed by a linear scan of a short list, or a hash set once it grows.
//!
//! The common cases skip the general search and produce the same plays in the same order:
//! non-doubles with no checker on the bar and three or more outside the home board
//! (`Gen::two_dice_contact`) and non-doubles with a checker on the bar (`Gen::non_double_bar`)
//! in closed form, and doubles that cannot bear off (a checker on the bar or four outside the
//! home board: `Gen::double_no_bear_off`) by a search specialised per step with no
//! deduplication. All paths are checked against gnubg's lists.

use std::fmt;

use super::dice::Dice;
use super::notation;
use super::position::{nibble, occupied_nibbles, total, Position, BAR, LOW_BITS};

/// Slots 6..=23 of a packed side (points 7 to 24).
const OUTSIDE_HOME: u128 = ((1u128 << 96) - 1) & !((1u128 << 24) - 1);

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
    max_dice: u8,
    max_pips: u8,
    /// Open-addressing set of the entries' keys (slot = index into `entries`, valid when its
    /// stamp is current), so that deduplication stays linear in the number of sequences searched.
    slots: Vec<(u32, u32)>,
    stamp: u32,
    /// True when `slots` holds every entry (small lists are searched linearly instead).
    hashed: bool,
}

/// Entries searched linearly for duplicates before the hash set is built.
const LINEAR_DEDUP: usize = 16;

/// One generated play: the mover's packed side after it, with the hit set in bits 100..124,
/// and the steps of the sequence that produced it.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    /// The steps packed by [`step_bits`], step `k` in bits `16k..16k + 16`.
    steps: u64,
    len: u8,
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
        Play {
            before: self.origin,
            steps: unpack_steps(self.entries[i].steps),
            len: self.entries[i].len,
            after: self.result(i),
        }
    }

    /// All plays in generation order.
    pub fn iter(&self) -> impl Iterator<Item = Play> + '_ {
        (0..self.len()).map(|i| self.play(i))
    }

    fn clear(&mut self, origin: Position) {
        self.origin = origin;
        self.max_dice = 0;
        self.max_pips = 0;
        self.reset();
    }

    fn reset(&mut self) {
        self.entries.clear();
        if self.hashed {
            self.hashed = false;
            self.stamp = self.stamp.wrapping_add(1);
            if self.stamp == 0 {
                self.slots.fill((0, 0));
                self.stamp = 1;
            }
        }
    }

    /// Builds the hash set of the current entries.
    #[cold]
    fn build_set(&mut self) {
        if self.slots.is_empty() {
            self.slots = vec![(0, 0); 256];
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.slots.fill((0, 0));
            self.stamp = 1;
        }
        self.hashed = true;
        let mask = self.slots.len() - 1;
        for (idx, e) in self.entries.iter().enumerate() {
            let mut i = Self::slot_of(e.key, mask);
            while self.slots[i].0 == self.stamp {
                i = (i + 1) & mask;
            }
            self.slots[i] = (self.stamp, idx as u32);
        }
    }

    #[inline]
    fn slot_of(key: u128, mask: usize) -> usize {
        let h = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask
    }

    /// Inserts `key` unless present; true when inserted.
    #[inline]
    fn insert(&mut self, key: u128) -> bool {
        if !self.hashed {
            if self.entries.len() < LINEAR_DEDUP {
                return self.entries.iter().all(|e| e.key != key);
            }
            self.build_set();
        }
        if (self.entries.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = Self::slot_of(key, mask);
        loop {
            let (stamp, idx) = self.slots[i];
            if stamp != self.stamp {
                self.slots[i] = (self.stamp, self.entries.len() as u32);
                return true;
            }
            if self.entries[idx as usize].key == key {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        self.slots = vec![(0, 0); size];
        self.stamp = 1;
        let mask = size - 1;
        for (idx, e) in self.entries.iter().enumerate() {
            let mut i = Self::slot_of(e.key, mask);
            while self.slots[i].0 == self.stamp {
                i = (i + 1) & mask;
            }
            self.slots[i] = (self.stamp, idx as u32);
        }
    }

    /// Appends a play of `dice` dice known to differ from every other (no bear-off, so the
    /// pips follow from the dice), keeping only those of the most dice.
    #[inline]
    fn push_max(&mut self, dice: u8, me: u128, hits: u32, steps: u64) {
        if dice < self.max_dice {
            return;
        }
        if dice > self.max_dice {
            self.entries.clear();
            self.max_dice = dice;
        }
        self.entries.push(Entry {
            key: me | (hits as u128) << 100,
            steps,
            len: dice,
        });
    }

    #[inline(always)]
    fn save(&mut self, dice: u8, pips: u8, me: u128, hits: u32, steps: u64, dedup: bool) {
        if dice < self.max_dice || pips < self.max_pips {
            return;
        }
        if dice > self.max_dice || pips > self.max_pips {
            self.reset();
            self.max_dice = dice;
            self.max_pips = pips;
        }
        let key = me | (hits as u128) << 100;
        if dedup && !self.insert(key) {
            return;
        }
        self.entries.push(Entry {
            key,
            steps,
            len: dice,
        });
    }
}

struct Gen<'a> {
    dice: [u8; 4],
    double: bool,
    /// Mover's points (slot numbers) holding two or more opposing checkers.
    blocked: u32,
    /// Mover's points holding exactly one opposing checker.
    blots: u32,
    /// Second die order of a non-double with no checker on the bar: skip the second steps that
    /// the first order has already produced (see [`Gen::sub`]).
    prune: bool,
    /// False for a double that cannot bear off: its sequences (bar entries, then starts in
    /// non-increasing order) are distinct multisets of steps, and the position after steps
    /// of one die is a one-to-one function of that multiset, so no two are the same.
    dedup: bool,
    list: &'a mut PlayList,
}

impl Gen<'_> {
    /// gnubg's `GenerateMovesSub`: true when no checker could move with die `depth` (the caller
    /// then saves its sequence as complete).
    #[allow(clippy::too_many_arguments)]
    fn sub(
        &mut self,
        depth: usize,
        top: usize,
        pips: u8,
        me: u128,
        occ: u32,
        hits: u32,
        steps: u64,
    ) -> bool {
        if depth > 3 || self.dice[depth] == 0 {
            return true;
        }
        let d = self.dice[depth] as usize;
        let pips2 = pips + d as u8;
        // The last die: the sequence is complete after this step (no call needed to find out).
        let last = depth == 3 || self.dice[depth + 1] == 0;
        if occ >> BAR & 1 == 1 {
            let dst = 24 - d;
            if self.blocked >> dst & 1 == 1 {
                return true;
            }
            let me2 = me.wrapping_add(ONE[dst].wrapping_sub(ONE[BAR]));
            let mut occ2 = occ | 1 << dst;
            if nibble(me2, BAR) == 0 {
                occ2 &= !(1 << BAR);
            }
            let hits2 = hits | (self.blots & (1 << dst));
            let steps = steps
                | step_bits(Step {
                    from: 25,
                    to: dst as u8 + 1,
                }) << (16 * depth);
            if last || self.sub(depth + 1, 23, pips2, me2, occ2, hits2, steps) {
                self.list
                    .save(depth as u8 + 1, pips2, me2, hits2, steps, self.dedup);
            }
            return false;
        }
        if occ == 0 {
            return true;
        }
        let within = (2u32 << top) - 1;
        // Steps that stay on the board: start at least `d` and a landing point not blocked.
        let mut cand = occ & within & !((1u32 << d) - 1) & !(self.blocked << d);
        // Bearing off, once every checker is home: the exact die, or a larger die from the
        // rearmost checker.
        let back = 31 - occ.leading_zeros() as usize;
        if back <= 5 {
            cand |= occ & within & (1 << (d - 1));
            if back + 1 < d && back <= top {
                cand |= 1 << back;
            }
        }
        let used = cand != 0;
        while cand != 0 {
            let i = 31 - cand.leading_zeros() as usize;
            cand &= !(1 << i);
            let (me2, to) = if i >= d {
                (me.wrapping_add(MOVE_DELTA[d][i]), (i - d) as u8 + 1)
            } else {
                (me - ONE[i], 0)
            };
            if self.prune
                && depth == 1
                && to != 0
                && (steps >> 8) as u8 != 0
                && (steps >> 8) as u8 != i as u8 + 1
            {
                // Second order of a non-double, low die then high die on another checker, no
                // bear-off: the first order played the high die first and reached the same
                // position (blocks never change and the high step's start was occupied from
                // the outset). Only chains of one checker and bear-offs depend on the order.
                continue;
            }
            let mut occ2 = occ & !(((me2 & NIBBLE[i] == 0) as u32) << i);
            let mut hits2 = hits;
            if to != 0 {
                occ2 |= 1 << (to - 1);
                hits2 |= self.blots & (1 << (to - 1));
            }
            let steps2 = steps
                | step_bits(Step {
                    from: i as u8 + 1,
                    to,
                }) << (16 * depth);
            let next_top = if self.double { i } else { 23 };
            if last || self.sub(depth + 1, next_top, pips2, me2, occ2, hits2, steps2) {
                self.list
                    .save(depth as u8 + 1, pips2, me2, hits2, steps2, self.dedup);
            }
        }
        !used
    }
}

impl Gen<'_> {
    /// A double that cannot bear off this turn (a checker on the bar, or four or more outside
    /// the home board): the same search as [`Gen::sub`] (bar entries first, then starts in
    /// non-increasing order) without its general cases. Every sequence is a distinct multiset
    /// of steps, so no deduplication is needed.
    fn double_no_bear_off(&mut self, me: u128, occ: u32) {
        let d = self.dice[0] as usize;
        let mut steps = 0u64;
        let bar = nibble(me, BAR) as usize;
        let (mut me, mut occ, mut hits, mut depth) = (me, occ, 0u32, 0usize);
        if bar > 0 {
            let dst = 24 - d;
            if self.blocked >> dst & 1 == 1 {
                return;
            }
            let k = bar.min(4);
            me = me - ((k as u128) << (4 * BAR)) + ((k as u128) << (4 * dst));
            occ |= 1 << dst;
            if bar == k {
                occ &= !(1 << BAR);
            }
            hits = self.blots & (1 << dst);
            for k in 0..k {
                steps |= step_bits(Step {
                    from: 25,
                    to: dst as u8 + 1,
                }) << (16 * k);
            }
            depth = k;
            if k == 4 || bar > k {
                self.list.push_max(k as u8, me, hits, steps);
                return;
            }
        }
        let movable = !(self.blocked << d) & 0x00ff_ffff & !((1u32 << d) - 1);
        let none = match depth {
            0 => self.double_dfs::<0>(23, d, movable, me, occ, hits, steps),
            1 => self.double_dfs::<1>(23, d, movable, me, occ, hits, steps),
            2 => self.double_dfs::<2>(23, d, movable, me, occ, hits, steps),
            _ => self.double_last(23, d, movable, me, occ, hits, steps),
        };
        if none && depth > 0 {
            self.list.push_max(depth as u8, me, hits, steps);
        }
    }

    /// Steps `DEPTH..4` of [`Gen::double_no_bear_off`] from starts at most `top`; true when no
    /// checker can move.
    #[allow(clippy::too_many_arguments)]
    fn double_dfs<const DEPTH: usize>(
        &mut self,
        top: usize,
        d: usize,
        movable: u32,
        me: u128,
        occ: u32,
        hits: u32,
        steps: u64,
    ) -> bool {
        let mut cand = occ & movable & ((2u32 << top) - 1);
        if cand == 0 {
            return true;
        }
        let delta = &MOVE_DELTA[d];
        while cand != 0 {
            let i = 31 - cand.leading_zeros() as usize;
            cand &= !(1 << i);
            let to = i - d;
            let me2 = me.wrapping_add(delta[i]);
            let occ2 = (occ | 1 << to) & !(((me & NIBBLE[i] == ONE[i]) as u32) << i);
            let hits2 = hits | (self.blots & (1 << to));
            let steps2 = steps | move_bits(i, to) << (16 * DEPTH);
            let none = match DEPTH {
                0 => self.double_dfs::<1>(i, d, movable, me2, occ2, hits2, steps2),
                1 => self.double_dfs::<2>(i, d, movable, me2, occ2, hits2, steps2),
                _ => self.double_last(i, d, movable, me2, occ2, hits2, steps2),
            };
            if none {
                self.list.push_max(DEPTH as u8 + 1, me2, hits2, steps2);
            }
        }
        false
    }

    /// The fourth step of [`Gen::double_dfs`]: every start completes a play.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn double_last(
        &mut self,
        top: usize,
        d: usize,
        movable: u32,
        me: u128,
        occ: u32,
        hits: u32,
        steps: u64,
    ) -> bool {
        let mut cand = occ & movable & ((2u32 << top) - 1);
        if cand == 0 {
            return true;
        }
        let list = &mut *self.list;
        if list.max_dice < 4 {
            list.entries.clear();
            list.max_dice = 4;
        }
        let delta = &MOVE_DELTA[d];
        let blots = self.blots;
        list.entries.reserve(cand.count_ones() as usize);
        while cand != 0 {
            let i = 31 - cand.leading_zeros() as usize;
            cand &= !(1 << i);
            let to = i - d;
            let hits2 = hits | (blots & (1 << to));
            list.entries.push(Entry {
                key: me.wrapping_add(delta[i]) | (hits2 as u128) << 100,
                steps: steps | move_bits(i, to) << 48,
                len: 4,
            });
        }
        false
    }

    /// A non-double with a checker on the bar (no bear-off is possible): the plays of
    /// [`Gen::sub`] in its order, in closed form. With two or more on the bar the play enters
    /// with each die it can. With one, it enters with one die and plays the other with any
    /// checker; only the entered checker moving on reaches the same position in both orders
    /// (a duplicate when neither entry hits).
    fn non_double_bar(&mut self, me: u128, occ: u32) {
        let (h, l) = (self.dice[0] as usize, self.dice[1] as usize);
        let (e1, e2) = (24 - h, 24 - l);
        let open1 = self.blocked >> e1 & 1 == 0;
        let open2 = self.blocked >> e2 & 1 == 0;
        let blots = self.blots;
        let enter = |e: usize| ONE[e].wrapping_sub(ONE[BAR]);
        let entry = |e: usize| 25 | (e as u64 + 1) << 8;
        let list = &mut *self.list;
        let entries = &mut list.entries;
        if nibble(me, BAR) >= 2 {
            let (dice, pips, enters) = match (open1, open2) {
                (true, true) => (2, h + l, [e1, e2]),
                (true, false) => (1, h, [e1, e1]),
                (false, true) => (1, l, [e2, e2]),
                (false, false) => return,
            };
            list.max_dice = dice;
            list.max_pips = pips as u8;
            let mut key = me.wrapping_add(enter(enters[0]));
            let mut steps = entry(enters[0]);
            if dice == 2 {
                key = key.wrapping_add(enter(enters[1]));
                steps |= entry(enters[1]) << 16;
            }
            let hits = blots & (1 << enters[0] | 1 << enters[1]);
            entries.push(Entry {
                key: key | (hits as u128) << 100,
                steps,
                len: dice,
            });
            return;
        }
        let open = !self.blocked & 0x00ff_ffff;
        let occ = occ & 0x00ff_ffff;
        // Enter with `e` (die `a`), then any checker moves die `b`.
        let mut both = |e: usize, b: usize, skip: u32| {
            let me2 = me.wrapping_add(enter(e));
            let hits = blots & (1 << e);
            let mut cand = (occ | 1 << e) & (open << b) & !skip;
            let delta = &MOVE_DELTA[b];
            while cand != 0 {
                let i = 31 - cand.leading_zeros() as usize;
                cand &= !(1 << i);
                entries.push(Entry {
                    key: me2.wrapping_add(delta[i])
                        | ((hits | blots & (1 << (i - b))) as u128) << 100,
                    steps: entry(e) | move_bits(i, i - b) << 16,
                    len: 2,
                });
            }
        };
        if open1 {
            both(e1, l, 0);
        }
        if open2 {
            // The entered checker moving on duplicates the first order's when that one could
            // (same landing point) and neither entry hits.
            let skip = if open1 && blots & (1 << e1 | 1 << e2) == 0 {
                1 << e2
            } else {
                0
            };
            both(e2, h, skip);
        }
        if !entries.is_empty() {
            list.max_dice = 2;
            list.max_pips = (h + l) as u8;
            return;
        }
        let (e, d) = if open1 {
            (e1, h)
        } else if open2 {
            (e2, l)
        } else {
            return;
        };
        list.max_dice = 1;
        list.max_pips = d as u8;
        entries.push(Entry {
            key: me.wrapping_add(enter(e)) | ((blots & (1 << e)) as u128) << 100,
            steps: entry(e),
            len: 1,
        });
    }

    /// A non-double with no checker on the bar and no bear-off possible: the plays in closed
    /// form, without search. Using both dice is one checker moving both (by either route; two
    /// plays when the routes hit differently) or two checkers moving one die each; a pair whose
    /// steps touch (one lands where the other starts) is the same position as a one-checker
    /// play and is skipped, and all the others are distinct, so no deduplication is needed.
    /// Only when neither is possible does a single die play, the higher one if it can.
    fn two_dice_contact(&mut self, me: u128, occ: u32) {
        let (h, l) = (self.dice[0] as usize, self.dice[1] as usize);
        let open = !self.blocked & 0x00ff_ffff;
        let movers = |d: usize| occ & 0x00ff_ffff & (open << d);
        let (sh, sl) = (movers(h), movers(l));
        let blots = self.blots;
        let (dh, dl) = (&MOVE_DELTA[h], &MOVE_DELTA[l]);
        // Gnubg numbers of a step (from slot `i` by `d`), packed by `step_bits`.
        let step = |i: usize, d: usize| move_bits(i, i - d);
        let list = &mut *self.list;
        list.max_dice = 2;
        list.max_pips = (h + l) as u8;
        let entries = &mut list.entries;
        entries.reserve((sh.count_ones() + 2) as usize * (sl.count_ones() + 2) as usize);
        // One checker, both dice.
        let mut cand = occ & 0x00ff_ffff & (open << (h + l)) & (sh | sl);
        while cand != 0 {
            let i = 31 - cand.leading_zeros() as usize;
            cand &= !(1 << i);
            let dst = i - h - l;
            let moved = me.wrapping_add(dh[i]).wrapping_add(dl[i - h]);
            let via_h = sh >> i & 1 == 1;
            let hits_h = blots & (1 << (i - h) | 1 << dst);
            let hits_l = blots & (1 << (i - l) | 1 << dst);
            if via_h {
                entries.push(Entry {
                    key: moved | (hits_h as u128) << 100,
                    steps: step(i, h) | step(i - h, l) << 16,
                    len: 2,
                });
            }
            if sl >> i & 1 == 1 && (!via_h || hits_l != hits_h) {
                entries.push(Entry {
                    key: moved | (hits_l as u128) << 100,
                    steps: step(i, l) | step(i - l, h) << 16,
                    len: 2,
                });
            }
        }
        // Two checkers, one die each.
        let single = gather_nibbles(me & LOW_BITS & !((me >> 1) | (me >> 2) | (me >> 3)));
        let mut ah = sh;
        while ah != 0 {
            let i = 31 - ah.leading_zeros() as usize;
            ah &= !(1 << i);
            let after_h = me.wrapping_add(dh[i]);
            let hit_h = blots & (1 << (i - h));
            let step_h = step(i, h);
            // Pairs that touch are one-checker plays; a lone checker cannot move twice.
            let mut bl = sl & !(1 << (i - h)) & !(1u32 << (i + l)) & !(single & (1 << i));
            while bl != 0 {
                let j = 31 - bl.leading_zeros() as usize;
                bl &= !(1 << j);
                entries.push(Entry {
                    key: after_h.wrapping_add(dl[j])
                        | ((hit_h | blots & (1 << (j - l))) as u128) << 100,
                    steps: step_h | step(j, l) << 16,
                    len: 2,
                });
            }
        }
        if !entries.is_empty() {
            return;
        }
        // A single die: the higher if it can be played.
        let (d, mut from) = if sh != 0 { (h, sh) } else { (l, sl) };
        list.max_dice = 1;
        list.max_pips = d as u8;
        while from != 0 {
            let i = 31 - from.leading_zeros() as usize;
            from &= !(1 << i);
            entries.push(Entry {
                key: me.wrapping_add(MOVE_DELTA[d][i]) | ((blots & (1 << (i - d))) as u128) << 100,
                steps: step(i, d),
                len: 1,
            });
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

/// `NIBBLE[i]`: the four bits of slot `i` of a packed side.
const NIBBLE: [u128; 25] = {
    let mut t = [0u128; 25];
    let mut i = 0;
    while i < 25 {
        t[i] = 15 << (4 * i);
        i += 1;
    }
    t
};

/// `MOVE_DELTA[d][i]`: added (wrapping) to a packed side, moves a checker from slot `i` to slot
/// `i - d` (zero where `i < d`).
const MOVE_DELTA: [[u128; 25]; 7] = {
    let mut t = [[0u128; 25]; 7];
    let mut d = 1;
    while d < 7 {
        let mut i = d;
        while i < 25 {
            t[d][i] = ONE[i - d].wrapping_sub(ONE[i]);
            i += 1;
        }
        d += 1;
    }
    t
};

/// A step packed in 16 bits: `from` in the low byte, `to` in the high byte.
#[inline]
fn step_bits(s: Step) -> u64 {
    s.from as u64 | (s.to as u64) << 8
}

/// [`step_bits`] of the step from slot `i` to slot `to` (both on the board).
#[inline]
fn move_bits(i: usize, to: usize) -> u64 {
    (i as u64 + 1) | ((to as u64 + 1) << 8)
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
        list.clear(*self);
        // Bit 4j set when the opponent has two or more checkers (a block) or exactly one (a
        // blot) on its slot j, bar excluded; seen from the mover, its slot j is slot 23 - j.
        let multi = ((self.opp >> 1) | (self.opp >> 2) | (self.opp >> 3)) & LOW_BITS;
        let single = self.opp & LOW_BITS & !multi;
        let blocked = (gather_nibbles(multi) & 0x00ff_ffff).reverse_bits() >> 8;
        let blots = (gather_nibbles(single) & 0x00ff_ffff).reverse_bits() >> 8;
        let (h, l) = (dice.high(), dice.low());
        let double = h == l;
        let mut gen = Gen {
            dice: if double { [h; 4] } else { [h, l, 0, 0] },
            double,
            blocked,
            blots,
            prune: false,
            dedup: true,
            list,
        };
        let occ = gather_nibbles(occupied_nibbles(self.me));
        if !double && occ >> BAR != 0 {
            gen.non_double_bar(self.me, occ);
            return gen.list.len();
        }
        // Three checkers outside the home board: no bear-off this turn for a non-double.
        if !double && occ >> BAR == 0 && total(self.me & OUTSIDE_HOME) >= 3 {
            gen.two_dice_contact(self.me, occ);
            return gen.list.len();
        }
        // A checker on the bar, or four outside the home board: no bear-off with four steps.
        if double && (occ >> BAR != 0 || total(self.me & OUTSIDE_HOME) >= 4) {
            gen.double_no_bear_off(self.me, occ);
            return gen.list.len();
        }
        // Five checkers outside the home board (bar included): no bear-off with four steps.
        gen.dedup = !double || total(self.me & (OUTSIDE_HOME | 15u128 << (4 * BAR))) < 5;
        gen.sub(0, 23, 0, self.me, occ, 0, 0);
        if !double {
            gen.dice = [l, h, 0, 0];
            gen.prune = nibble(self.me, BAR) == 0;
            gen.sub(0, 23, 0, self.me, occ, 0, 0);
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
