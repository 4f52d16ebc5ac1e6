//! Perft: the number of move sequences of a given length, the standard check of a move generator.

use crate::Game;

/// Counts the move sequences of length `depth` from `pos`. Terminal positions have no moves, so
/// a sequence that reaches one early is not counted. The last ply is counted with
/// [`Game::count_moves`], without making its moves.
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(),
        _ => {
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            moves
                .iter()
                .map(|&mv| perft(&pos.play(mv), depth - 1))
                .sum()
        }
    }
}

/// Perft split by the first move: each legal move with the count below it.
pub fn divide<G: Game>(pos: &G, depth: u32) -> Vec<(G::Move, u64)> {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves
        .into_iter()
        .map(|mv| (mv, perft(&pos.play(mv), depth.saturating_sub(1))))
        .collect()
}
