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
//! so the legal starts for a die are one mask operation. In the second die order of a
//! non-double it skips the sequences the first order already produced (two different checkers,
//! no bear-off, no bar), and a hash set removes the remaining duplicate positions (doubles that
//! cannot bear off have none). Non-doubles with no checker on the bar and three or more outside
//! the home board (the common contact case) are built in closed form instead, by
//! `Gen::two_dice_contact`; both paths are checked against gnubg's lists.

use std::fmt;

use super::dice::Dice;
use super::notation;
use super::position::{nibble, occupied_nibbles, total, Position, BAR};

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
    /// The mover's packed side after the play, with the hit set in bits 100..124.
    keys: Vec<u128>,
    steps: Vec<[Step; 4]>,
    lens: Vec<u8>,
    max_dice: u8,
    max_pips: u8,
    /// Open-addressing set of `keys` (slot = index + 1 into `keys`, valid when its stamp is
    /// current), so that deduplication stays linear in the number of sequences searched.
    slots: Vec<(u32, u32)>,
    stamp: u32,
}

const SIDE_MASK: u128 = (1u128 << 100) - 1;

impl PlayList {
    /// An empty list.
    pub fn new() -> PlayList {
        PlayList::default()
    }

    /// The number of plays (distinct resulting positions).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when no play is possible.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The position after play `i`, with the opponent on roll.
    pub fn result(&self, i: usize) -> Position {
        let key = self.keys[i];
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
            steps: self.steps[i],
            len: self.lens[i],
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
        self.keys.clear();
        self.steps.clear();
        self.lens.clear();
        if self.slots.is_empty() {
            self.slots = vec![(0, 0); 256];
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.slots.fill((0, 0));
            self.stamp = 1;
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
        if (self.keys.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = Self::slot_of(key, mask);
        loop {
            let (stamp, idx) = self.slots[i];
            if stamp != self.stamp {
                self.slots[i] = (self.stamp, self.keys.len() as u32);
                self.keys.push(key);
                return true;
            }
            if self.keys[idx as usize] == key {
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
        for (idx, &key) in self.keys.iter().enumerate() {
            let mut i = Self::slot_of(key, mask);
            while self.slots[i].0 == self.stamp {
                i = (i + 1) & mask;
            }
            self.slots[i] = (self.stamp, idx as u32);
        }
    }

    /// Appends a play known to differ from every other.
    #[inline]
    fn push_unique(&mut self, me: u128, hits: u32, first: [Step; 2], dice: u8) {
        self.keys.push(me | (hits as u128) << 100);
        self.steps
            .push([first[0], first[1], Step::default(), Step::default()]);
        self.lens.push(dice);
    }

    #[inline]
    fn save(&mut self, dice: u8, pips: u8, me: u128, hits: u32, steps: &[Step; 4], dedup: bool) {
        if dice < self.max_dice || pips < self.max_pips {
            return;
        }
        if dice > self.max_dice || pips > self.max_pips {
            self.reset();
            self.max_dice = dice;
            self.max_pips = pips;
        }
        let key = me | (hits as u128) << 100;
        if !dedup {
            self.keys.push(key);
        } else if !self.insert(key) {
            return;
        }
        self.steps.push(*steps);
        self.lens.push(dice);
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
        steps: &mut [Step; 4],
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
            let me2 = me - (1u128 << (4 * BAR)) + (1u128 << (4 * dst));
            let mut occ2 = occ | 1 << dst;
            if nibble(me2, BAR) == 0 {
                occ2 &= !(1 << BAR);
            }
            let hits2 = hits | (self.blots & (1 << dst));
            steps[depth] = Step {
                from: 25,
                to: dst as u8 + 1,
            };
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
                (
                    me - (1u128 << (4 * i)) + (1u128 << (4 * (i - d))),
                    (i - d) as u8 + 1,
                )
            } else {
                (me - (1u128 << (4 * i)), 0)
            };
            if self.prune && depth == 1 && to != 0 && steps[0].to != 0 && steps[0].to != i as u8 + 1
            {
                // Second order of a non-double, low die then high die on another checker, no
                // bear-off: the first order played the high die first and reached the same
                // position (blocks never change and the high step's start was occupied from
                // the outset). Only chains of one checker and bear-offs depend on the order.
                continue;
            }
            let mut occ2 = occ;
            if nibble(me2, i) == 0 {
                occ2 &= !(1 << i);
            }
            let mut hits2 = hits;
            if to != 0 {
                occ2 |= 1 << (to - 1);
                hits2 |= self.blots & (1 << (to - 1));
            }
            steps[depth] = Step {
                from: i as u8 + 1,
                to,
            };
            let next_top = if self.double { i } else { 23 };
            if last || self.sub(depth + 1, next_top, pips2, me2, occ2, hits2, steps) {
                self.list
                    .save(depth as u8 + 1, pips2, me2, hits2, steps, self.dedup);
            }
        }
        !used
    }
}

impl Gen<'_> {
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
        let one = |i: usize| 1u128 << (4 * i);
        let blot = |i: usize| self.blots & (1 << i);
        let step = |from: usize, to: usize| Step {
            from: from as u8 + 1,
            to: to as u8 + 1,
        };
        let pips = (h + l) as u8;
        let list = &mut *self.list;
        list.max_dice = 2;
        list.max_pips = pips;
        // One checker, both dice.
        let mut cand = occ & 0x00ff_ffff & (open << (h + l)) & (sh | sl);
        while cand != 0 {
            let i = 31 - cand.leading_zeros() as usize;
            cand &= !(1 << i);
            let dst = i - h - l;
            let moved = me - one(i) + one(dst);
            let via_h = sh >> i & 1 == 1;
            let hits_h = blot(i - h) | blot(dst);
            let hits_l = blot(i - l) | blot(dst);
            if via_h {
                list.push_unique(moved, hits_h, [step(i, i - h), step(i - h, dst)], 2);
            }
            if sl >> i & 1 == 1 && (!via_h || hits_l != hits_h) {
                list.push_unique(moved, hits_l, [step(i, i - l), step(i - l, dst)], 2);
            }
        }
        // Two checkers, one die each.
        let mut ah = sh;
        while ah != 0 {
            let i = 31 - ah.leading_zeros() as usize;
            ah &= !(1 << i);
            let after_h = me - one(i) + one(i - h);
            let mut bl = sl;
            while bl != 0 {
                let j = 31 - bl.leading_zeros() as usize;
                bl &= !(1 << j);
                if (j == i && nibble(me, i) < 2) || j + h == i || j == i + l {
                    continue;
                }
                let moved = after_h - one(j) + one(j - l);
                list.push_unique(
                    moved,
                    blot(i - h) | blot(j - l),
                    [step(i, i - h), step(j, j - l)],
                    2,
                );
            }
        }
        if !list.is_empty() {
            return;
        }
        // A single die: the higher if it can be played.
        let (d, mut from) = if sh != 0 { (h, sh) } else { (l, sl) };
        list.max_dice = 1;
        list.max_pips = d as u8;
        while from != 0 {
            let i = 31 - from.leading_zeros() as usize;
            from &= !(1 << i);
            let s = step(i, i - d);
            list.push_unique(
                me - one(i) + one(i - d),
                blot(i - d),
                [s, Step::default()],
                1,
            );
        }
    }
}

impl Position {
    /// Fills `list` with every legal play for `dice` (empty when none is possible) and returns
    /// their number.
    pub fn generate_plays(&self, dice: Dice, list: &mut PlayList) -> usize {
        list.clear(*self);
        let mut blocked = 0u32;
        let mut blots = 0u32;
        // Bit 4j of `occ` is set when the opponent has checkers on its slot j (bar excluded).
        let mut occ = occupied_nibbles(self.opp) & ((1u128 << 96) - 1);
        while occ != 0 {
            let j = occ.trailing_zeros() as usize / 4;
            occ &= occ - 1;
            if nibble(self.opp, j) == 1 {
                blots |= 1 << (23 - j);
            } else {
                blocked |= 1 << (23 - j);
            }
        }
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
        let mut steps = [Step::default(); 4];
        let mut occ = 0u32;
        let mut nibbles = occupied_nibbles(self.me);
        while nibbles != 0 {
            occ |= 1 << (nibbles.trailing_zeros() / 4);
            nibbles &= nibbles - 1;
        }
        // Three checkers outside the home board: no bear-off this turn for a non-double.
        if !double && occ >> BAR == 0 && total(self.me & OUTSIDE_HOME) >= 3 {
            gen.two_dice_contact(self.me, occ);
            return gen.list.len();
        }
        // Five checkers outside the home board (bar included): no bear-off with four steps.
        gen.dedup = !double || total(self.me & (OUTSIDE_HOME | 15u128 << (4 * BAR))) < 5;
        gen.sub(0, 23, 0, self.me, occ, 0, &mut steps);
        if !double {
            gen.dice = [l, h, 0, 0];
            gen.prune = nibble(self.me, BAR) == 0;
            gen.sub(0, 23, 0, self.me, occ, 0, &mut steps);
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
