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
    divide_with(pos, depth, |_, _, _| {})
}

/// [`divide`], telling `observe(done, total, nodes)` after each first move: `done` of the
/// `total` first moves are counted, with `nodes` move sequences below them so far. The caller
/// decides what to show (the engine does no I/O); the counts are those of [`divide`].
pub fn divide_with<G: Game>(
    pos: &G,
    depth: u32,
    mut observe: impl FnMut(usize, usize, u64),
) -> Vec<(G::Move, u64)> {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let total = moves.len();
    let mut nodes = 0;
    moves
        .into_iter()
        .enumerate()
        .map(|(i, mv)| {
            let n = perft(&pos.play(mv), depth.saturating_sub(1));
            nodes += n;
            observe(i + 1, total, nodes);
            (mv, n)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bilitaire::Position;

    #[test]
    fn divide_with_reports_every_first_move_and_sums_to_perft() {
        let pos = Position::start();
        let mut seen = Vec::new();
        let parts = divide_with(&pos, 3, |done, total, nodes| {
            seen.push((done, total, nodes))
        });
        assert_eq!(seen.len(), parts.len());
        assert!(!seen.is_empty());
        let mut sum = 0;
        for (i, ((done, total, nodes), (_, n))) in seen.iter().zip(&parts).enumerate() {
            sum += n;
            assert_eq!((*done, *total, *nodes), (i + 1, parts.len(), sum));
        }
        assert_eq!(sum, perft(&pos, 3));
        assert_eq!(parts, divide(&pos, 3));
    }
}
