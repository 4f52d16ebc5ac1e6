//! Bi-litaire's heuristic evaluation.

use super::Evaluate;
use tabula_engine::bilitaire::movegen::simple_jump_count;
use tabula_engine::bilitaire::Position as Bilitaire;
use tabula_engine::Scored;

/// Bi-litaire estimate of the balls left: the balls on the board less the simple jumps the
/// ball player has now. Few jumps means the slider is close to blocking him (no jump: the round
/// ends), many means he has room; ordering the slider's options by fewest jumps and the ball
/// player's by most jumps halved the nodes of the exact solves in the 19-ball suite against an
/// estimate from isolated balls.
impl Evaluate for Bilitaire {
    fn evaluate(&self) -> i32 {
        if let Some(v) = self.terminal_value() {
            return v;
        }
        let jumps = simple_jump_count(self.balls(), self.holes()) as i32;
        let (lo, hi) = self.value_bounds();
        (self.ball_count() as i32 - jumps).clamp(lo, hi)
    }
}
