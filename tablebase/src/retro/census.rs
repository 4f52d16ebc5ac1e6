//! [`census`]: the positions reachable from a root, counted by their value in a table.

use tabula_engine::retro::Retrograde;
use tabula_store::StoreError;

use super::{Table, Value};

/// Classes reachable from a root (the root included) by their value for the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// Reachable classes (positions up to the game's symmetries).
    pub positions: u64,
    pub won: u64,
    pub lost: u64,
    pub drawn: u64,
}

/// Walks every class reachable from `root` (breadth first over [`Retrograde::children`], one
/// bit per index) and counts them by their value in `table`. Memory: one bit per index of the
/// space plus the widest ply of the walk; time: one move generation per reachable class.
pub fn census<G: Retrograde>(
    game: &G,
    table: &Table,
    root: &G::Position,
) -> Result<Census, StoreError> {
    let size = game.size();
    let mut seen = vec![0u64; size.div_ceil(64) as usize];
    let mut mark = |i: u64| {
        let (word, bit) = ((i / 64) as usize, 1u64 << (i % 64));
        let new = seen[word] & bit == 0;
        seen[word] |= bit;
        new
    };
    let first = game.rank(root);
    mark(first);
    let mut frontier = vec![first];
    let mut next = Vec::new();
    let mut kids = Vec::new();
    let mut out = Census::default();
    while !frontier.is_empty() {
        for &i in &frontier {
            out.positions += 1;
            match table.value(i)? {
                Value::Win(_) => out.won += 1,
                Value::Loss(_) => out.lost += 1,
                Value::Draw => out.drawn += 1,
                Value::Hole => {}
            }
            let Some(pos) = game.unrank(i) else { continue };
            kids.clear();
            game.children(&pos, &mut kids);
            next.extend(kids.iter().copied().filter(|&k| mark(k)));
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
    }
    Ok(out)
}
