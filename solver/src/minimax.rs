//! Plain minimax: no pruning, no table. The reference the search is tested against.

use crate::games::Backup;
use tabula_engine::Role;

/// The exact value of `pos` by full-width minimax, or `None` if it would visit more than
/// `budget` nodes. Child values are passed through [`Backup::backed_up`] (the identity for
/// Bi-litaire; one ply further from the end for games scored by win distance, Pylos). The game
/// tree must be finite (no cycles), or the budget must stop it.
pub fn minimax<G: Backup>(pos: &G, budget: &mut u64) -> Option<i32> {
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    if let Some(v) = pos.terminal_value() {
        return Some(v);
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let values = moves
        .into_iter()
        .map(|mv| minimax(&pos.play(mv), budget).map(G::backed_up));
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
