//! Helpers shared by the Pylos table tests.

use tabula_engine::playout::Rng;
use tabula_engine::pylos::{Position, Rules};
use tabula_engine::Game;

/// `count` positions of seeded random games under `rules` (seeds 1, 2, …), each
/// `min_plies..=max_plies` plies in (fewer when the game ends first; finished games are
/// skipped).
pub fn random_positions(
    rules: Rules,
    count: usize,
    min_plies: usize,
    max_plies: usize,
) -> Vec<Position> {
    let mut out = Vec::new();
    let mut moves = Vec::new();
    let mut seed = 0;
    while out.len() < count {
        seed += 1;
        let mut rng = Rng::new(seed);
        let plies = min_plies + rng.below(max_plies - min_plies + 1);
        let mut pos = Position::start(rules);
        for _ in 0..plies {
            if pos.is_terminal() {
                break;
            }
            moves.clear();
            pos.legal_moves(&mut moves);
            pos = pos.play(moves[rng.below(moves.len())]);
        }
        if !pos.is_terminal() {
            out.push(pos);
        }
    }
    out
}
