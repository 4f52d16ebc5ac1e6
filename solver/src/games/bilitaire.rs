//! Bi-litaire's search policy: tests decided by masks one to three plies from the end, and
//! announcements the test cannot need left out.

use super::{Backup, Keying, SolvePolicy, TestShortcuts};
use tabula_engine::bilitaire::{movegen, Move, Position, Side};
use tabula_engine::{Game, Role, Scored, Symmetric};

impl TestShortcuts for Position {
    /// An announcement of N jumps leaves at most `balls - N`, so a slider testing "≥ x" needs
    /// no announcement beyond `balls - x`, nor the chain search that finds longer ones.
    fn legal_moves_for_test(&self, x: i32, moves: &mut Vec<Self::Move>) {
        let most = match self.side() {
            Side::Slider => {
                u8::try_from((self.ball_count() as i32 - x).clamp(0, 255)).unwrap_or(u8::MAX)
            }
            _ => u8::MAX,
        };
        self.generate_moves_announcing_at_most(most, moves);
    }

    /// At the top of the bounds the test asks whether the round ends after one more move: the
    /// slider must end it now (no ball lost), or every move of the ball player must let the
    /// slider end it next (one jump, or the announced chain, lost). Both are mask checks over
    /// one or two plies; in exact solves they are about nine nodes in ten.
    fn decide_test(&self, x: i32) -> Option<bool> {
        if x != self.value_bounds().1 {
            return None;
        }
        match self.side() {
            Side::Slider => Some(movegen::slider_can_end_round(self)),
            Side::Ball(_) => Some(movegen::every_ball_move_lets_slider_end(self)),
            Side::OpeningRemoval => None,
        }
    }

    /// One and two steps below the top of the bounds, by masks over three to six plies: one
    /// below, can the slider end the round after at most one more jump
    /// (`one_jump_from_the_end`); two below, can he hold the ball player to at most two more
    /// balls ([`slider_holds_two`](super::bilitaire_endgame::slider_holds_two) at his
    /// positions, [`ball_holds_two`](super::bilitaire_endgame::ball_holds_two) at the ball
    /// player's).
    ///
    /// The second step is the endgame knowledge of docs/bilitaire.md, adopted in stop 32 once
    /// the mask tests under it had become a third cheaper: on the 23-ball suites under a 5 s
    /// limit, time × 0.85 by the geometric mean (jumper and random), nodes about a tenth.
    fn decide_test_deeper(&self, x: i32) -> Option<bool> {
        let top = self.value_bounds().1;
        if x == top - 2 && self.ball_count() <= ENDGAME_MOST_BALLS {
            return match self.side() {
                Side::Slider => super::bilitaire_endgame::slider_holds_two(self),
                Side::Ball(_) => super::bilitaire_endgame::ball_holds_two(self),
                Side::OpeningRemoval => None,
            };
        }
        one_jump_from_the_end(self, x, top)
    }
}

/// The most balls at which the test "value ≥ top − 2" is decided by masks. Below it the masks
/// pay; at the opening's dense positions they cost more than the nodes they save. Measured
/// (docs/bilitaire.md, "The endgame masks adopted"):
/// - df-pn's proof of `xd4` ≥ 32, whose tests two jumps from the end are at 34 balls and more,
///   took 5.0 s with the masks at every ball count against 2.5 s without (3.4 M nodes against
///   5.2 M);
/// - on the first 5 positions of each 31-ball suite (10 s each) they solve 8 against 7, with
///   tighter bounds on 3 of the others.
pub const ENDGAME_MOST_BALLS: u32 = MAX_UNBOUNDED_BALLS;

/// The test "value ≥ x" one step below `top`, the upper end of `pos`'s bounds, by masks over
/// three plies: can the slider, to move, end the round after at most one more jump (or does
/// every move of the ball player let him)? `None` for any other `x`.
pub(crate) fn one_jump_from_the_end(pos: &Position, x: i32, top: i32) -> Option<bool> {
    if x != top - 1 {
        return None;
    }
    match pos.side() {
        Side::Slider => Some(movegen::slider_can_end_round_after_one_jump(pos)),
        Side::Ball(_) => Some(movegen::every_ball_move_lets_slider_end_after_one_jump(pos)),
        Side::OpeningRemoval => None,
    }
}

/// Balls left back up unchanged.
impl Backup for Position {}

impl Keying for Position {
    fn symmetric_key(&self) -> Option<(u128, usize)> {
        Some(self.canonical_key_and_symmetry())
    }
}

/// The most balls an exact solve without a limit is attempted on. The 31-ball suite: 4 of 9
/// positions solved within 300 s on one core; above that, and from the start (48 balls), a
/// solve runs for days. Bounded by `--time` or `--nodes`, any position may be searched.
pub const MAX_UNBOUNDED_BALLS: u32 = 31;

impl SolvePolicy for Position {
    fn proof_numbers(&self) -> bool {
        true
    }

    fn out_of_reach(&self) -> Option<String> {
        let balls = self.ball_count();
        (balls > MAX_UNBOUNDED_BALLS).then(|| {
            format!(
                "{balls} balls: an exact solve above {MAX_UNBOUNDED_BALLS} balls does not finish \
                 in any reasonable time; bound it with --time SECONDS or --nodes N (it then \
                 reports the bounds it proved)"
            )
        })
    }
}

/// Bi-litaire searched with the slider's turn split into two plies where he announces: every
/// action without announcement is a move of the slider's position, as in the engine, and every
/// action that leaves a chain is a second move, "act, then announce", to a pending position
/// whose moves are the announcements 2 up to the longest chain. The pending position gets its
/// own table entries: its value (the best over its announcements) is proven once per distinct
/// position after an action, not per action-and-announcement move.
///
/// **Measured, not adopted** (docs/bilitaire.md, "What did not pay"): node counts within
/// ±10% of the engine's own move list on the 23- and 27-ball suites, worse on the hard
/// (jumper) suite; the positions after an announcement already share table entries. Splitting
/// every action (the announcement "none" a move of the pending position too) cost up to twice
/// the nodes. Kept as an option of the suites example (`TWO_PLY=1`) for later measurements.
///
/// The rules engine is unchanged: a [`TwoPly`] wraps a real [`Position`], and
/// [`TwoPly::engine_line`] turns a line of the split search back into the engine's moves (an
/// action and its announcement joined into one [`Move`]).
#[derive(Clone, Copy, Debug)]
pub struct TwoPly {
    /// The real position; while an announcement is pending, the one after the action with the
    /// ball player to move and no announcement (`Side::Ball(0)`).
    pos: Position,
    /// While an announcement is pending: the slider's position before the action, and the
    /// action (so that an announcement is played as the engine's own move).
    pending: Option<(Position, Move)>,
}

/// A move of the split search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TwoPlyMove {
    /// An engine move (a slider action here carries its announcement, none in the search).
    Play(Move),
    /// The slider's action alone (it leaves a chain), an announcement the next ply.
    Act(Move),
    /// The announcement after the action: the number of jumps, 2 or more.
    Announce(u8),
}

impl std::fmt::Display for TwoPlyMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TwoPlyMove::Play(mv) => write!(f, "{mv}"),
            TwoPlyMove::Act(mv) => write!(f, "{mv}!?"),
            TwoPlyMove::Announce(n) => write!(f, "!{n}"),
        }
    }
}

/// The key bit that marks a pending announcement. A real position's key
/// ([`Position::key`], and every canonical key, which is the key of an image) uses bits 0–88
/// only: balls 0–63, tiles 64–79, side 80–87, the `free-chains` rule 88. A pending position's
/// key is the key of its real position (after the action, `Side::Ball(0)`) with this bit set,
/// so it equals no real position's key, and two pending positions share a key exactly when
/// their positions after the action are equal: the keys stay exact, by construction.
const PENDING_BIT: u128 = 1 << 89;

impl PartialEq for TwoPly {
    /// Two pending positions are the same node when the positions after their actions are
    /// equal, whatever the action was (the announcements open to them are then the same).
    fn eq(&self, other: &TwoPly) -> bool {
        self.pos == other.pos && self.pending.is_some() == other.pending.is_some()
    }
}

impl Eq for TwoPly {}

impl std::hash::Hash for TwoPly {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.pos.hash(state);
        self.pending.is_some().hash(state);
    }
}

impl TwoPly {
    /// A real position, to search split.
    pub fn new(pos: Position) -> TwoPly {
        TwoPly { pos, pending: None }
    }

    /// The real position (while an announcement is pending, the one after the action with no
    /// announcement).
    pub fn position(&self) -> Position {
        self.pos
    }

    /// True between the slider's action and its announcement.
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// The engine's moves of a line of the split search from a real position: each action
    /// joined with the announcement that follows it (none where the line ends after it).
    pub fn engine_line(line: &[TwoPlyMove]) -> Vec<Move> {
        let mut out: Vec<Move> = Vec::with_capacity(line.len());
        let mut acted = false;
        for &mv in line {
            match mv {
                TwoPlyMove::Play(m) => {
                    acted = false;
                    out.push(m);
                }
                TwoPlyMove::Act(m) => {
                    acted = true;
                    out.push(m);
                }
                TwoPlyMove::Announce(n) => {
                    if let (true, Some(last)) = (acted, out.last_mut()) {
                        *last = last.with_announcement(n);
                    }
                    acted = false;
                }
            }
        }
        out
    }

    /// The longest chain open after the action, at most `most`.
    fn longest_announcement(&self, most: u32) -> u8 {
        let longest = movegen::longest_chain_up_to(self.pos.balls(), self.pos.holes(), most);
        u8::try_from(longest).unwrap_or(u8::MAX)
    }

    /// The real position after the pending announcement `n`.
    fn announced(&self, n: u8) -> Option<Position> {
        self.pending
            .map(|(before, action)| before.play(action.with_announcement(n)))
    }

    /// The moves, with no announcement beyond `most` jumps: at a slider position every action
    /// without announcement, then (where `most` allows one) the actions leaving a chain, each
    /// to its pending position; at a pending position the announcements.
    fn moves_announcing_at_most(&self, most: u32, moves: &mut Vec<TwoPlyMove>) {
        match self.pending {
            Some(_) => {
                let longest = self.longest_announcement(most);
                moves.extend((2..=longest).map(TwoPlyMove::Announce));
            }
            None if self.pos.side() == Side::Slider => {
                let mut chains = Vec::new();
                movegen::for_each_slider_action(&self.pos, |action, after| {
                    moves.push(TwoPlyMove::Play(action));
                    if most >= 2 && movegen::has_double_jump(after.balls(), after.holes()) {
                        chains.push(TwoPlyMove::Act(action));
                    }
                });
                moves.extend(chains);
            }
            None => {
                let mut real = Vec::new();
                self.pos.legal_moves(&mut real);
                moves.extend(real.into_iter().map(TwoPlyMove::Play));
            }
        }
    }
}

impl Game for TwoPly {
    type Move = TwoPlyMove;

    fn legal_moves(&self, moves: &mut Vec<TwoPlyMove>) {
        self.moves_announcing_at_most(u32::MAX, moves);
    }

    fn play(&self, mv: TwoPlyMove) -> TwoPly {
        match mv {
            TwoPlyMove::Play(m) => TwoPly::new(self.pos.play(m)),
            TwoPlyMove::Act(m) => TwoPly {
                pos: self.pos.play(m),
                pending: Some((self.pos, m)),
            },
            TwoPlyMove::Announce(n) => TwoPly::new(
                self.announced(n)
                    .expect("play: an announcement must be pending"),
            ),
        }
    }

    fn is_terminal(&self) -> bool {
        self.terminal_value().is_some()
    }
}

impl Scored for TwoPly {
    const MIN_VALUE: i32 = Position::MIN_VALUE;
    const MAX_VALUE: i32 = Position::MAX_VALUE;
    const MAX_MOVES: usize = Position::MAX_MOVES;

    /// The slider chooses the announcement too.
    fn to_move(&self) -> Role {
        match self.pending {
            Some(_) => Role::Max,
            None => self.pos.to_move(),
        }
    }

    /// A pending position is never terminal: the action left a chain.
    fn terminal_value(&self) -> Option<i32> {
        match self.pending {
            Some(_) => None,
            None => self.pos.terminal_value(),
        }
    }

    /// Pending: an announcement of N ≥ 2 leaves at most `balls - N`; a chain of two needs three
    /// balls, so the bounds are at least 1 and at most `balls - 2`.
    fn value_bounds(&self) -> (i32, i32) {
        match self.pending {
            Some(_) => {
                let hi = self.pos.ball_count() as i32 - 2;
                (hi.min(1), hi)
            }
            None => self.pos.value_bounds(),
        }
    }
}

impl tabula_engine::Keyed for TwoPly {
    type Key = u128;

    fn key(&self) -> u128 {
        let key = self.pos.key();
        match self.pending {
            Some(_) => key | PENDING_BIT,
            None => key,
        }
    }
}

impl TestShortcuts for TwoPly {
    /// As for [`Position`]: an announcement of N leaves at most `balls - N`, so a test "≥ x"
    /// needs none beyond `balls - x`.
    fn legal_moves_for_test(&self, x: i32, moves: &mut Vec<TwoPlyMove>) {
        let most = (self.pos.ball_count() as i32 - x).max(0);
        self.moves_announcing_at_most(most as u32, moves);
    }

    /// A pending position at the top of its bounds (`balls - 2`) is the announcement of 2 at
    /// the top of its own: a mask check over two plies.
    fn decide_test(&self, x: i32) -> Option<bool> {
        match self.pending {
            Some(_) => self.announced(2)?.decide_test(x),
            None => self.pos.decide_test(x),
        }
    }

    /// One step below the top (`balls - 3`): the announcement of 2 by its three-ply mask test,
    /// or else the announcement of 3 (where the chain allows it) by its two-ply one.
    fn decide_test_deeper(&self, x: i32) -> Option<bool> {
        match self.pending {
            None => self.pos.decide_test_deeper(x),
            Some(_) => {
                let two = self.announced(2)?;
                if two.decide_test_deeper(x)? {
                    return Some(true);
                }
                if self.longest_announcement(3) < 3 {
                    return Some(false);
                }
                self.announced(3)?.decide_test(x)
            }
        }
    }
}

impl Backup for TwoPly {}

impl Keying for TwoPly {
    fn symmetric_key(&self) -> Option<(u128, usize)> {
        let (key, sym) = self.pos.canonical_key_and_symmetry();
        Some(match self.pending {
            Some(_) => (key | PENDING_BIT, sym),
            None => (key, sym),
        })
    }
}

impl SolvePolicy for TwoPly {
    fn out_of_reach(&self) -> Option<String> {
        self.pos.out_of_reach()
    }
}
