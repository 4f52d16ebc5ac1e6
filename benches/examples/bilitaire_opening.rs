//! The opening removals of Bi-litaire grouped by the symmetries of the square: one line per
//! class with a representative removal (the first in move order), the number of removals in
//! the class and the position after it (the slider to move), ready for
//! `tabula bilitaire solve --position "…" --nodes N`.
//!
//! ```sh
//! cargo run --release -p tabula-benches --example bilitaire_opening
//! ```
use tabula_engine::bilitaire::{Move, Position};
use tabula_engine::{Game, Symmetric};

/// The classes of the opening removals: (representative, size, position after it), in the
/// move order of their representatives.
fn classes() -> Vec<(Move, usize, Position)> {
    let start = Position::start();
    let mut moves = Vec::new();
    start.legal_moves(&mut moves);
    let mut classes: Vec<(u128, Move, usize, Position)> = Vec::new();
    for mv in moves {
        let after = start.play(mv);
        let (key, _) = after.canonical_key_and_symmetry();
        match classes.iter_mut().find(|c| c.0 == key) {
            Some(c) => c.2 += 1,
            None => classes.push((key, mv, 1, after)),
        }
    }
    classes
        .into_iter()
        .map(|(_, mv, n, pos)| (mv, n, pos))
        .collect()
}

fn main() {
    let classes = classes();
    println!(
        "{} classes of {} removals",
        classes.len(),
        classes.iter().map(|c| c.1).sum::<usize>()
    );
    for (mv, n, pos) in classes {
        println!("{mv} ({n} removals): {pos}");
    }
}
