//! Pylos for a retrograde tablebase builder: [`PylosSpace`] implements [`Retrograde`].
//!
//! **Index.** A position is first made *mover-relative* (the side to move's balls in the black
//! field, black to move: swapping the colours together with the side to move is a symmetry of
//! the game, since values are from the side to move) and then *canonical* under the 8
//! symmetries of the square: the image whose (occupancy, mover's balls) masks are smallest,
//! occupancy first. The occupancy of a canonical position is therefore a *canonical pattern*
//! (the smallest image of a stable occupancy pattern), and
//!
//! `index = offset of the canonical pattern + colouring index of the mover's balls in it`
//!
//! with the colouring index of [`super::rank`] (by the mover's ball count, then the
//! combinatorial number system). Only patterns with a non-trivial stabiliser have colourings
//! that are not canonical (holes), so the space is hardly larger than the number of classes.
//! Also holes: positions whose apex ball is the mover's (the player who fills the apex ends the
//! game, so the other side is to move).
//!
//! **Un-moves.** [`Retrograde::parents`] reverses a move of the player who just moved: it puts
//! back 0, 1 or 2 taken-back balls (which may include the ball just moved), lifts the moved
//! ball off its target, and either returns it to the reserve or puts it on a lower source. A
//! candidate with a take-back is kept only when the forward generator has that very move there
//! (`Position::is_legal`, the generator's conditions for one move, tested against its list);
//! one without is checked directly (a free source, an empty apex, and no completed pattern
//! under compulsory take-backs), which is the common case and several times cheaper. The tests
//! check both against the generator: the un-moves are exactly the moves reversed.

use std::cell::RefCell;

use super::cell::{self, covered, SUPPORTS};
use super::mv::Move;
use super::position::{Color, Position};
use super::rank::{colouring_rank, colouring_unrank, colourings, stable_patterns};
use super::rules::{Board, Rules, Takeback};
use crate::retro::{Outcome, Retrograde};
use crate::Game;

/// The Pylos index space of one board and rule set (see the module documentation).
#[derive(Clone, Debug)]
pub struct PylosSpace {
    rules: Rules,
    /// The canonical stable occupancy patterns, sorted.
    patterns: Vec<u32>,
    /// The first index of each pattern's colourings.
    offsets: Vec<u64>,
    /// The same, found from the pattern.
    offset_of: PatternMap,
    total: u64,
}

/// Canonical pattern → the first index of its colourings, by open addressing: one probe, most
/// often, where a binary search over the sorted patterns was 17 dependent loads and a third of
/// [`Retrograde::rank`]'s time (`perf`, the `pylos-space` bench).
#[derive(Clone, Debug)]
struct PatternMap {
    /// `(pattern, offset)`, or `(EMPTY, 0)`; at most half full.
    slots: Vec<(u32, u64)>,
    shift: u32,
}

impl PatternMap {
    /// No pattern: patterns have 30 bits.
    const EMPTY: u32 = u32::MAX;

    fn new(patterns: &[u32], offsets: &[u64]) -> PatternMap {
        let bits = (2 * patterns.len())
            .next_power_of_two()
            .trailing_zeros()
            .max(1);
        let mut map = PatternMap {
            slots: vec![(Self::EMPTY, 0); 1 << bits],
            shift: 32 - bits,
        };
        let mask = map.slots.len() - 1;
        for (&p, &o) in patterns.iter().zip(offsets) {
            let mut i = map.home(p);
            while map.slots[i].0 != Self::EMPTY {
                i = (i + 1) & mask;
            }
            map.slots[i] = (p, o);
        }
        map
    }

    /// Fibonacci hashing: the top bits of the pattern times 2^32 / φ.
    #[inline]
    fn home(&self, pattern: u32) -> usize {
        (pattern.wrapping_mul(0x9E37_79B9) >> self.shift) as usize
    }

    /// The offset of a listed pattern, `None` for any other mask.
    #[inline]
    fn get(&self, pattern: u32) -> Option<u64> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(pattern);
        loop {
            let (p, o) = self.slots[i];
            if p == pattern {
                return Some(o);
            }
            if p == Self::EMPTY {
                return None;
            }
            i = (i + 1) & mask;
        }
    }
}

/// The canonical image of a mover-relative position: the smallest (occupancy, own) pair over
/// the 8 symmetries of the board.
#[inline]
fn canonical_masks(board: Board, occ: u32, own: u32) -> (u32, u32) {
    let maps = board.symmetry_maps();
    let mut best = (occ, own);
    for map in &maps[1..] {
        let o = map.apply(occ);
        if o > best.0 {
            continue;
        }
        let image = (o, map.apply(own));
        if image < best {
            best = image;
        }
    }
    best
}

thread_local! {
    /// A move list and a list of cell sets, reused by every call on the thread: allocating
    /// and growing them afresh in each `children` and `parents` call (and, before
    /// `Position::is_legal`, each predecessor check) was a third of a full-board build's
    /// propagation time (`perf`, standard rules).
    static SCRATCH: RefCell<(Vec<Move>, Vec<u32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// Runs `f` with the thread's move list, emptied (calls must not nest: a nested call panics).
fn with_scratch<R>(f: impl FnOnce(&mut Vec<Move>) -> R) -> R {
    SCRATCH.with_borrow_mut(|s| {
        s.0.clear();
        f(&mut s.0)
    })
}

/// Every subset of `mask` of at most two cells (the empty set first).
fn subsets_up_to_two(mask: u32, out: &mut Vec<u32>) {
    out.push(0);
    let mut a_set = mask;
    while a_set != 0 {
        let a = a_set & a_set.wrapping_neg();
        a_set &= a_set - 1;
        out.push(a);
        let mut b_set = a_set;
        while b_set != 0 {
            let b = b_set & b_set.wrapping_neg();
            b_set &= b_set - 1;
            out.push(a | b);
        }
    }
}

impl PylosSpace {
    /// The space of `rules` (its board included): enumerates the canonical stable patterns
    /// (milliseconds on the 3×3 board, a fraction of a second on the full one).
    pub fn new(rules: Rules) -> PylosSpace {
        let board = rules.board;
        let patterns: Vec<u32> = stable_patterns(board)
            .into_iter()
            .filter(|&p| {
                board.symmetry_maps()[1..]
                    .iter()
                    .all(|map| map.apply(p) >= p)
            })
            .collect();
        let mut offsets = Vec::with_capacity(patterns.len());
        let mut total = 0u64;
        for &p in &patterns {
            offsets.push(total);
            total += colourings(p.count_ones(), board.balls());
        }
        PylosSpace {
            rules,
            offset_of: PatternMap::new(&patterns, &offsets),
            patterns,
            offsets,
            total,
        }
    }

    /// The rules (and board) of the space.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The number of canonical stable occupancy patterns.
    pub fn pattern_count(&self) -> usize {
        self.patterns.len()
    }

    /// The canonical representative of `pos`'s class: mover-relative (black to move, the
    /// mover's balls black) and the smallest image under the symmetries. `unrank(rank(pos))`
    /// is this position.
    pub fn canonical(&self, pos: &Position) -> Position {
        let (occ, own) = canonical_masks(self.rules.board, pos.occupied(), pos.own());
        Position {
            black: own,
            white: occ & !own,
            turn: Color::Black,
            rules: self.rules,
        }
    }

    /// The predecessor with `own` as the balls of `mover` (to move there) and `opp` as the
    /// other side's, when it is a position and `mv` is one of its legal moves leading to `pos`.
    fn predecessor(
        &self,
        mover: Color,
        own: u32,
        opp: u32,
        mv: Move,
        pos: &Position,
    ) -> Option<Position> {
        let (black, white) = match mover {
            Color::Black => (own, opp),
            Color::White => (opp, own),
        };
        let q = Position::from_masks(black, white, mover, self.rules).ok()?;
        (q.is_legal(mv) && q.play(mv) == *pos).then_some(q)
    }
}

impl PylosSpace {
    /// Whether a move to `t` that took nothing back can have led to a position where the
    /// mover has `own` and the board holds `occ`: the game was not over before it (the apex
    /// was empty: a ball on it is never moved), and the move either completed no pattern or
    /// the take-back is optional. The rest holds by construction in
    /// [`Retrograde::parents`]: the target was landable (its supports are still there), a
    /// placement's mover had a ball in reserve (one fewer on the board), and the predecessor
    /// is a position (the moved ball was free, a raise's source rests on filled cells); a
    /// raise's source must still be checked free.
    #[inline]
    fn plain_unmove_allowed(&self, own: u32, t: u32, occ: u32) -> bool {
        if occ & !t & self.rules.board.apex() != 0 {
            return false;
        }
        self.rules.takeback == Takeback::Optional
            || !self
                .rules
                .patterns()
                .iter()
                .any(|&p| p & t != 0 && p & !own == 0)
    }
}

/// `pos` with `own` as `mover`'s balls and `opp` as the other's, `mover` to move.
#[inline]
fn with_balls(pos: &Position, mover: Color, own: u32, opp: u32) -> Position {
    let (black, white) = match mover {
        Color::Black => (own, opp),
        Color::White => (opp, own),
    };
    Position {
        black,
        white,
        turn: mover,
        rules: pos.rules,
    }
}

impl Retrograde for PylosSpace {
    type Position = Position;

    fn size(&self) -> u64 {
        self.total
    }

    fn unrank(&self, index: u64) -> Option<Position> {
        if index >= self.total {
            return None;
        }
        let board = self.rules.board;
        let k = self.offsets.partition_point(|&o| o <= index) - 1;
        let occ = self.patterns[k];
        let own = colouring_unrank(occ, index - self.offsets[k], board.balls());
        if own & board.apex() != 0 || canonical_masks(board, occ, own) != (occ, own) {
            return None;
        }
        Some(Position {
            black: own,
            white: occ & !own,
            turn: Color::Black,
            rules: self.rules,
        })
    }

    fn rank(&self, pos: &Position) -> u64 {
        let board = self.rules.board;
        let (occ, own) = canonical_masks(board, pos.occupied(), pos.own());
        let offset = self
            .offset_of
            .get(occ)
            .expect("a position's occupancy is stable and its canonical image is listed");
        offset + colouring_rank(occ, own, board.balls())
    }

    fn primitive(&self, pos: &Position) -> Option<Outcome> {
        pos.is_over().then_some(Outcome::Loss)
    }

    fn children(&self, pos: &Position, out: &mut Vec<u64>) {
        let start = out.len();
        with_scratch(|moves| {
            pos.legal_moves(moves);
            out.extend(moves.iter().map(|&m| self.rank(&pos.play(m))));
        });
        out[start..].sort_unstable();
        let kept = dedup_len(&mut out[start..]);
        out.truncate(start + kept);
    }

    fn has_parents(&self) -> bool {
        true
    }

    fn parents(&self, pos: &Position, out: &mut Vec<u64>) {
        let start = out.len();
        let board = self.rules.board;
        let cells = board.cells();
        let mover = pos.turn().opponent();
        let opp = pos.balls(pos.turn());
        let occ = pos.occupied();
        let takebacks = !self.rules.patterns().is_empty();
        // Balls that may have been taken back: empty cells whose supports are filled, or
        // filled once the other taken ball is back.
        let mut restorable = SCRATCH.with_borrow_mut(|s| std::mem::take(&mut s.1));
        restorable.clear();
        if takebacks {
            let empty = cells & !occ;
            subsets_up_to_two(empty, &mut restorable);
            restorable.retain(|&t| {
                let occ1 = occ | t;
                cell::Cell::iter_mask(t).all(|c| SUPPORTS[c.index()] & !occ1 == 0)
            });
        } else {
            restorable.push(0);
        }
        for &taken in &restorable {
            let own1 = pos.balls(mover) | taken;
            let occ1 = occ | taken;
            if own1.count_ones() > board.balls() {
                continue;
            }
            // The moved ball: an own ball with nothing resting on it.
            let mut targets = own1 & !covered(occ1);
            while targets != 0 {
                let t = targets.trailing_zeros() as usize;
                targets &= targets - 1;
                let t_bit = 1u32 << t;
                if taken != 0
                    && !self
                        .rules
                        .patterns()
                        .iter()
                        .any(|&p| p & t_bit != 0 && p & !own1 == 0)
                {
                    continue;
                }
                let own2 = own1 & !t_bit;
                let occ2 = occ1 & !t_bit;
                // Without a take-back the move's legality is plain (see `plain_unmove`).
                let plain = taken == 0 && self.plain_unmove_allowed(own1, t_bit, occ);
                if taken == 0 && !plain {
                    continue;
                }
                // From the reserve.
                if plain {
                    out.push(self.rank(&with_balls(pos, mover, own2, opp)));
                } else {
                    let mv = Move::from_parts(None, t, taken);
                    if let Some(q) = self.predecessor(mover, own2, opp, mv, pos) {
                        out.push(self.rank(&q));
                    }
                }
                // A raise from a lower empty cell that is not one of the target's supports.
                let t_level = cell::Cell::from_index(t).expect("a cell").level();
                let mut sources = cells & !occ2 & cell::supported(occ2) & !SUPPORTS[t];
                while sources != 0 {
                    let s = sources.trailing_zeros() as usize;
                    sources &= sources - 1;
                    if cell::Cell::from_index(s).expect("a cell").level() >= t_level {
                        continue;
                    }
                    let own3 = own2 | 1 << s;
                    if plain {
                        // The raised ball was free: nothing rested on its source.
                        if cell::RESTING[s] & (occ2 | 1 << s) == 0 {
                            out.push(self.rank(&with_balls(pos, mover, own3, opp)));
                        }
                        continue;
                    }
                    let mv = Move::from_parts(Some(s), t, taken);
                    if let Some(q) = self.predecessor(mover, own3, opp, mv, pos) {
                        out.push(self.rank(&q));
                    }
                }
            }
        }
        SCRATCH.with_borrow_mut(|s| s.1 = restorable);
        out[start..].sort_unstable();
        let kept = dedup_len(&mut out[start..]);
        out.truncate(start + kept);
    }

    fn context(&self) -> String {
        format!(
            "game=pylos;board={};rules={};takeback={};keying=d4;colours=mover",
            self.rules.board, self.rules.variant, self.rules.takeback
        )
    }
}

/// Moves the distinct values of a sorted slice to its front; returns how many.
fn dedup_len(v: &mut [u64]) -> usize {
    if v.is_empty() {
        return 0;
    }
    let mut kept = 1;
    for i in 1..v.len() {
        if v[i] != v[kept - 1] {
            v[kept] = v[i];
            kept += 1;
        }
    }
    kept
}
