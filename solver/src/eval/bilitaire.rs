//! Bi-litaire's heuristic evaluation.

use super::Evaluate;
use tabula_engine::bilitaire::movegen::{jump_slots, simple_jump_count};
use tabula_engine::bilitaire::{Position as Bilitaire, Side};
use tabula_engine::Scored;

/// Bi-litaire estimate of the balls left, used to order moves (and as the leaf value of
/// depth-limited analyses). Few jumps means the slider is close to blocking the ball player (no
/// jump: the round ends), many means he has room:
///
/// - A position the ball player moves in, without announcement (the slider orders his actions
///   by it): the balls less the simple jumps he has. Ordering the slider's options by fewest
///   jumps and the ball player's by most jumps halved the nodes of the exact solves in the
///   19-ball suite against an estimate from isolated balls.
/// - Under an announcement of N: the most it can be worth, balls − N. The slider then tries an
///   announcement before the actions that leave two jumps or more; such a child is settled
///   cheaply (at the top of its bounds the test is a mask check) and is sometimes his best.
///   Against balls − jumps: nodes × 0.85 (jumper) and × 0.80 (random), geometric mean over
///   the first 20 positions of the 23-ball suites (docs/bilitaire.md).
/// - A slider-to-move position (the ball player orders his jumps by it): the balls less the
///   simple jumps less the tiles those jumps touch: jumps spread over many tiles are harder
///   for the slider to take away with one action. With the announcement rule above, nodes
///   × 0.79 (jumper) and × 0.83 (random) against the old estimate, same positions; × 0.66 and
///   × 0.83 once the principal variation too follows this order.
impl Evaluate for Bilitaire {
    fn evaluate(&self) -> i32 {
        if let Some(v) = self.terminal_value() {
            return v;
        }
        let (lo, hi) = self.value_bounds();
        let side = self.side();
        if matches!(side, Side::Ball(n) if n >= 2) {
            return hi;
        }
        let (balls, holes) = (self.balls(), self.holes());
        let mut estimate = self.ball_count() as i32 - simple_jump_count(balls, holes) as i32;
        if side == Side::Slider {
            estimate -= jump_slots(balls, holes).count_ones() as i32;
        }
        estimate.clamp(lo, hi)
    }
}

/// Between the slider's action and his announcement (the split search,
/// [`crate::games::TwoPly`], measured and not adopted): the top of its bounds, balls − 2, the
/// estimate of its best announcement above, so that the slider orders it as he orders an
/// announcement of 2.
impl Evaluate for crate::games::TwoPly {
    fn evaluate(&self) -> i32 {
        let pos = self.position();
        if self.is_pending() {
            self.value_bounds().1
        } else {
            pos.evaluate()
        }
    }
}
