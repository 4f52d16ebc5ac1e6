//! Bi-litaire endgame knowledge: exact answers for positions the slider can end within two
//! more jumps, decided by mask checks instead of a search.
//!
//! Under best play a Bi-litaire round ends with most balls still on the board (the suites'
//! values are 14 – 23 at 23 balls): its endgame is not a board with few balls but a position
//! where the slider is about to leave the ball player without a jump. The search already
//! decides the test "value ≥ x" by masks at the top of a position's bounds (the slider ends the
//! round now, [`TestShortcuts::decide_test`]) and one step below (after at most one more jump,
//! [`TestShortcuts::decide_test_deeper`]). [`Endgame`] adds the next step: "value ≥ top − 2",
//! the slider holds the ball player to at most two more balls, five plies from a slider
//! position ([`slider_holds_two`]) and six from a ball player's ([`ball_holds_two`]).
//!
//! Why not a retrograde database (docs/bilitaire.md, "Endgame knowledge"): a test "≥ x" settles
//! every position with fewer than x balls by its bounds, so a database is only ever consulted
//! on positions with at least the value's number of balls (14 or more from 23), and the
//! positions with 14 balls number about 10^14 even up to symmetry.
//!
//! The three-ply tests under [`slider_holds_two`] repeat often, so each thread keeps its last
//! answers in a small [`Memo`] (since stop 33).
//!
//! **Measured, see docs/bilitaire.md**: first kept as an option ([`Endgame`], the suites
//! example's `ENDGAME=1` and `ENDGAME=2`); since stop 32, when the mask tests under it had
//! become a third cheaper, the plain [`Position`]'s search uses it at both sides
//! (`ENDGAME=0` for the search without it). Checked against minimax
//! (`solver/tests/bilitaire_endgame.rs`).

use super::{Backup, Keying, SolvePolicy, TestShortcuts};
use std::cell::RefCell;
use std::ops::ControlFlow;
use tabula_engine::bilitaire::movegen::{
    every_chain, has_double_jump, has_jump, simple_jump_count, slider_can_end_round,
    slider_can_end_round_after_one_jump, try_for_each_slider_action,
};
use tabula_engine::bilitaire::{Move, Position, Side};
use tabula_engine::{Game, Keyed, Role, Scored, Symmetric};

/// The slider's position with `balls` on the tiles of `like`.
fn slider_position(like: &Position, balls: u64) -> Position {
    Position::from_parts(balls, like.tiles(), Side::Slider, like.rules())
        .expect("a jump keeps the balls on the tiles")
}

/// Can the slider, to move, hold the ball player to at most two more balls (the test
/// "value ≥ balls − 2")? `None` under the `free-chains` rule (a plain turn there may remove
/// any number of balls; the search decides those) and for other sides than the slider's.
///
/// He holds exactly when one of his actions either leaves no jump (the round ends), or with no
/// announcement leaves jumps after each of which he can end the round within one more jump, or
/// with an announcement of 2 leaves chains after each of which he can end it at once. A larger
/// announcement removes three balls or more. Actions leaving the fewest simple jumps are tried
/// first.
pub fn slider_holds_two(pos: &Position) -> Option<bool> {
    slider_holds_two_trying(pos, usize::MAX)
}

/// [`slider_holds_two`] trying only the `most` actions that leave the fewest simple jumps:
/// `Some(true)` when one of them holds, `Some(false)` when every action was tried and none
/// holds, `None` when the actions tried do not hold and others are left (and in the cases
/// [`slider_holds_two`] leaves to the search). A proof needs one action, a refutation every
/// one: with a small `most` the refutations, the costly answers, are left to the search.
pub fn slider_holds_two_trying(pos: &Position, most: usize) -> Option<bool> {
    if pos.side() != Side::Slider || pos.rules().free_chains {
        return None;
    }
    // At most 12 tile removals and 8 slides in each of the 8 lines.
    let mut after_actions = [(0u64, 0u64, 0u16); 12 + 64];
    let mut order = [0u16; 12 + 64];
    let mut n = 0;
    let ended = try_for_each_slider_action(pos, |_, after| {
        let jumps = simple_jump_count(after.balls(), after.holes()) as u16;
        if jumps == 0 {
            return ControlFlow::Break(());
        }
        after_actions[n] = (after.balls(), after.holes(), after.tiles());
        order[n] = jumps.min(255) << 8 | n as u16;
        n += 1;
        ControlFlow::Continue(())
    });
    if ended.is_break() {
        return Some(true);
    }
    let order = &mut order[..n];
    order.sort_unstable();
    let rules = pos.rules();
    let holds = order.iter().take(most).any(|&key| {
        let (balls, holes, tiles) = after_actions[usize::from(key & 0xff)];
        let like = Position::from_parts(balls, tiles, Side::Slider, rules)
            .expect("an action keeps the balls on the tiles");
        // An announcement of 2: every chain of two must let him end the round at once.
        if has_double_jump(balls, holes)
            && every_chain(balls, holes, 2, |after| {
                slider_can_end_round(&slider_position(&like, after))
            })
        {
            return true;
        }
        // No announcement: every jump must let him end it within one more.
        every_chain(balls, holes, 1, |after| {
            THREE_PLY.with(|memo| {
                memo.borrow_mut().answer(
                    &slider_position(&like, after),
                    slider_can_end_round_after_one_jump,
                )
            })
        })
    });
    (holds || most >= n).then_some(holds)
}

thread_local! {
    /// This thread's answers of the three-ply test under [`slider_holds_two`]. One a thread:
    /// no locks, and the answers are exact, so a search's results do not depend on which
    /// thread asked first.
    static THREE_PLY: RefCell<Memo<THREE_PLY_MEMO_BITS>> = const { RefCell::new(Memo::new()) };
}

/// 2^15 answers (512 KiB a thread). The test [`slider_holds_two`] makes about 22 three-ply
/// tests a call, one a slider action, and about 40% of them repeat a test made shortly
/// before (counted on jumper 23 #0, #3 and #7: 41%, 44%, 35%): sibling positions' actions and
/// the jumps after them meet the same positions. Measured on the first 25 jumper positions of
/// 23 balls (300,000 nodes each, the same nodes; docs/bilitaire.md, "A memo of the three-ply
/// answers"): time × 0.77 against no memo. A sweep of the size (with a form of the memo that
/// read its size at each call) gave × 0.81 at 2^14 – 2^16 slots, × 0.84 at 2^18, × 0.88 at
/// 2^20, × 0.91 at 2^22: the repeats come close together, and a memo that fits the core's
/// cache wins.
const THREE_PLY_MEMO_BITS: u32 = 15;

/// A direct-mapped memo of one yes-or-no test of slider positions (the key does not say which
/// test: one memo a test), keyed by the balls, the tiles and the rules, which fix a slider's
/// position. A new answer replaces the one in its slot; a slot is trusted only when its full
/// key matches, so the memo never changes an answer, only its cost.
#[derive(Debug)]
pub struct Memo<const BITS: u32> {
    /// Per slot: the balls, and the tiles in bits 0–15 with bit 16 "free-chains", bit 17 the
    /// answer and bit 18 "filled".
    slots: Vec<(u64, u32)>,
}

impl<const BITS: u32> Memo<BITS> {
    /// An empty memo; its slots are allocated at the first answer.
    pub const fn new() -> Memo<BITS> {
        const { assert!(BITS >= 1 && BITS <= 30, "a memo of 2 to 2^30 slots") };
        Memo { slots: Vec::new() }
    }

    /// `test(pos)`, from the memo when `pos` was answered in its slot and not replaced since.
    /// Positions of the other sides are not kept (the key has no side): `test` answers them.
    pub fn answer(&mut self, pos: &Position, test: impl FnOnce(&Position) -> bool) -> bool {
        const ANSWER: u32 = 1 << 17;
        const FILLED: u32 = 1 << 18;
        if pos.side() != Side::Slider {
            return test(pos);
        }
        if self.slots.is_empty() {
            self.slots = vec![(0, 0); 1 << BITS];
        }
        let tag = u32::from(pos.tiles()) | u32::from(pos.rules().free_chains) << 16 | FILLED;
        // Multiplicative hashing of the balls and the tiles; the top bits are the best mixed.
        let hash = (pos.balls() ^ u64::from(pos.tiles()).wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let slot = &mut self.slots[(hash >> (64 - BITS)) as usize];
        if slot.0 == pos.balls() && slot.1 & !ANSWER == tag {
            return slot.1 & ANSWER != 0;
        }
        let answer = test(pos);
        *slot = (pos.balls(), tag | if answer { ANSWER } else { 0 });
        answer
    }
}

impl<const BITS: u32> Default for Memo<BITS> {
    fn default() -> Memo<BITS> {
        Memo::new()
    }
}

/// Does every move of the ball player, to move, leave a slider position where the slider holds
/// him to at most two more balls ([`slider_holds_two`])? That is the test "value ≥ top − 2",
/// where the top is the balls less the move's jumps. `None` under `free-chains` and for other
/// sides.
pub fn ball_holds_two(pos: &Position) -> Option<bool> {
    let n = match pos.side() {
        Side::Ball(n) if !pos.rules().free_chains => usize::from(n.max(1)),
        _ => return None,
    };
    if !has_jump(pos.balls(), pos.holes()) {
        return None; // over: its bounds decide every test
    }
    Some(every_chain(pos.balls(), pos.holes(), n, |after| {
        slider_holds_two(&slider_position(pos, after)) == Some(true)
    }))
}

/// Bi-litaire searched with a choice of the endgame knowledge of this module: the test
/// "value ≥ top − 2" (top: the upper end of [`Scored::value_bounds`]) decided by masks at
/// slider positions, and with `ball_side` at the ball player's too, where the search would
/// otherwise open the node; or, [`Endgame::plain`], nowhere. The plain [`Position`] decides it
/// at both sides at 31 balls or fewer (since stop 32); this wrapper keeps the other choices
/// measurable, and applies its choice at every ball count. Everything
/// else (moves, keys, bounds, the other shortcuts) is the plain [`Position`]'s, so a line of
/// this search is a line of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Endgame {
    pos: Position,
    slider_side: bool,
    ball_side: bool,
    /// At slider positions, the actions tried ([`slider_holds_two_trying`]).
    tries: usize,
}

impl Endgame {
    /// `pos` with the knowledge at slider positions, and at the ball player's where
    /// `ball_side`.
    pub fn new(pos: Position, ball_side: bool) -> Endgame {
        Endgame {
            pos,
            slider_side: true,
            ball_side,
            tries: usize::MAX,
        }
    }

    /// `pos` without the knowledge: the search as it was before stop 32, the test
    /// "value ≥ top − 2" left to the search at both sides.
    pub fn plain(pos: Position) -> Endgame {
        Endgame {
            pos,
            slider_side: false,
            ball_side: false,
            tries: usize::MAX,
        }
    }

    /// At slider positions, try only the `most` actions leaving the fewest jumps and leave the
    /// test to the search when none of them holds ([`slider_holds_two_trying`]).
    pub fn trying(self, most: usize) -> Endgame {
        Endgame {
            tries: most,
            ..self
        }
    }

    /// The real position.
    pub fn position(&self) -> Position {
        self.pos
    }
}

impl Game for Endgame {
    type Move = Move;

    fn legal_moves(&self, moves: &mut Vec<Move>) {
        self.pos.legal_moves(moves);
    }

    fn play(&self, mv: Move) -> Endgame {
        Endgame {
            pos: self.pos.play(mv),
            ..*self
        }
    }

    fn count_moves(&self) -> u64 {
        self.pos.count_moves()
    }

    fn is_terminal(&self) -> bool {
        self.pos.is_terminal()
    }
}

impl Scored for Endgame {
    const MIN_VALUE: i32 = Position::MIN_VALUE;
    const MAX_VALUE: i32 = Position::MAX_VALUE;
    const MAX_MOVES: usize = Position::MAX_MOVES;

    fn to_move(&self) -> Role {
        self.pos.to_move()
    }

    fn terminal_value(&self) -> Option<i32> {
        self.pos.terminal_value()
    }

    fn value_bounds(&self) -> (i32, i32) {
        self.pos.value_bounds()
    }
}

impl Keyed for Endgame {
    type Key = u128;

    fn key(&self) -> u128 {
        self.pos.key()
    }
}

impl TestShortcuts for Endgame {
    fn legal_moves_for_test(&self, x: i32, moves: &mut Vec<Move>) {
        self.pos.legal_moves_for_test(x, moves);
    }

    fn decide_test(&self, x: i32) -> Option<bool> {
        self.pos.decide_test(x)
    }

    /// Two steps below the top: [`slider_holds_two`] or [`ball_holds_two`]; one step below,
    /// the plain position's three-ply masks.
    fn decide_test_deeper(&self, x: i32) -> Option<bool> {
        let top = self.pos.value_bounds().1;
        if x != top - 2 {
            return super::bilitaire::one_jump_from_the_end(&self.pos, x, top);
        }
        match self.pos.side() {
            Side::Slider if self.slider_side => slider_holds_two_trying(&self.pos, self.tries),
            Side::Ball(_) if self.ball_side => ball_holds_two(&self.pos),
            _ => None,
        }
    }
}

impl Backup for Endgame {}

impl Keying for Endgame {
    fn symmetric_key(&self) -> Option<(u128, usize)> {
        Some(self.pos.canonical_key_and_symmetry())
    }
}

impl SolvePolicy for Endgame {
    fn out_of_reach(&self) -> Option<String> {
        self.pos.out_of_reach()
    }
}

/// The plain position's estimate: the knowledge changes no ordering.
impl crate::eval::Evaluate for Endgame {
    fn evaluate(&self) -> i32 {
        self.pos.evaluate()
    }
}
