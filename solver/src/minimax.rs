//! Plain minimax: no pruning, no table. The reference the search is tested against.

use tabula_engine::{Role, Scored};

/// The exact value of `pos` by full-width minimax, or `None` if it would visit more than
/// `budget` nodes.
pub fn minimax<G: Scored>(pos: &G, budget: &mut u64) -> Option<i32> {
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    if let Some(v) = pos.terminal_value() {
        return Some(v);
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let values = moves.into_iter().map(|mv| minimax(&pos.play(mv), budget));
    let mut best: Option<i32> = None;
    for v in values {
        let v = v?;
        best = Some(match (best, pos.to_move()) {
            (None, _) => v,
            (Some(b), Role::Max) => b.max(v),
            (Some(b), Role::Min) => b.min(v),
        });
    }
    best
}
