//! Bi-litaire's search policy: tests decided by masks one to three plies from the end, and
//! announcements the test cannot need left out.

use super::{Backup, Keying, SolvePolicy, TestShortcuts};
use tabula_engine::bilitaire::{movegen, Position, Side};
use tabula_engine::{Scored, Symmetric};

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

    /// One step further from the top of the bounds: can the slider, to move, end the round
    /// after at most one more jump? Three plies by masks.
    fn decide_test_deeper(&self, x: i32) -> Option<bool> {
        if x != self.value_bounds().1 - 1 {
            return None;
        }
        match self.side() {
            Side::Slider => Some(movegen::slider_can_end_round_after_one_jump(self)),
            Side::Ball(_) => Some(movegen::every_ball_move_lets_slider_end_after_one_jump(
                self,
            )),
            Side::OpeningRemoval => None,
        }
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
