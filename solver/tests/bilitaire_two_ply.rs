//! The split search (`games::TwoPly`: the slider's action and its announcement as two plies)
//! against plain minimax on the real game and against the search of the real game, on small
//! Bi-litaire positions; its lines in the engine's moves; its table keys exact.

mod common;

use std::collections::HashMap;
use tabula_engine::bilitaire::{Position, Side};
use tabula_engine::{Game, Keyed, Scored, Symmetric};
use tabula_solver::games::{TwoPly, TwoPlyMove};
use tabula_solver::minimax::minimax;
use tabula_solver::{AtomicTable, Keying, SearchOptions, Searcher, Table, TestShortcuts};

/// The exact value of the split search, after checking that its principal variation, joined
/// into the engine's moves, is a legal line of the real game ending at that value.
fn solve_split<T: Table>(table: &T, pos: &Position, options: SearchOptions) -> i32 {
    let report = Searcher::new(table, options)
        .solve(&TwoPly::new(*pos))
        .expect("no limits set");
    assert!(report.exact);
    common::assert_line_ends_at(pos, &TwoPly::engine_line(&report.pv), report.value);
    report.value
}

#[test]
fn split_search_agrees_with_minimax_and_the_plain_search() {
    let mut compared = 0;
    let mut slider_with_chains = 0;
    for pos in common::small_positions_with_announcements(400) {
        let mut budget = 2_000_000;
        let Some(expected) = minimax(&pos, &mut budget) else {
            continue;
        };
        // The split game itself has the real game's value (no search shortcut involved).
        let mut budget = 4_000_000;
        if let Some(split) = minimax(&TwoPly::new(pos), &mut budget) {
            assert_eq!(split, expected, "{pos}: split minimax");
        }
        let plain = Searcher::new(&AtomicTable::with_megabytes(4), SearchOptions::default())
            .solve(&pos)
            .expect("no limits set")
            .value;
        assert_eq!(plain, expected, "{pos}: plain search");
        let table = AtomicTable::with_megabytes(4);
        assert_eq!(
            solve_split(&table, &pos, SearchOptions::default()),
            expected,
            "{pos}"
        );
        // A table too small to remember anything, and no symmetry: the same value.
        let tiny = AtomicTable::with_buckets(1);
        let options = SearchOptions {
            symmetry: false,
            ..SearchOptions::default()
        };
        assert_eq!(solve_split(&tiny, &pos, options), expected, "{pos}");
        compared += 1;
        if pos.side() == Side::Slider {
            let mut moves = Vec::new();
            TwoPly::new(pos).legal_moves(&mut moves);
            slider_with_chains +=
                usize::from(moves.iter().any(|m| matches!(m, TwoPlyMove::Act(_))));
        }
    }
    assert!(compared >= 150, "only {compared} positions compared");
    // The pending nodes must really be searched.
    assert!(
        slider_with_chains >= 20,
        "only {slider_with_chains} slider positions with an announcement"
    );
}

/// Every node of the split tree below `node`, to `depth` plies.
fn walk(node: TwoPly, depth: u32, seen: &mut Vec<TwoPly>) {
    seen.push(node);
    if depth == 0 {
        return;
    }
    let mut moves = Vec::new();
    node.legal_moves(&mut moves);
    for mv in moves {
        walk(node.play(mv), depth - 1, seen);
    }
}

#[test]
fn pending_keys_are_exact_and_test_moves_are_prefixes() {
    let mut nodes = Vec::new();
    for pos in common::small_positions_with_announcements(400).take(120) {
        walk(TwoPly::new(pos), 3, &mut nodes);
    }
    let pending = nodes.iter().filter(|n| n.is_pending()).count();
    assert!(pending >= 100, "only {pending} pending nodes");
    // Equal keys exactly for equal nodes (a pending node and the real position after the same
    // action differ), plain and canonical.
    let mut by_key: HashMap<u128, TwoPly> = HashMap::new();
    let mut by_canonical: HashMap<u128, (u128, bool)> = HashMap::new();
    for &node in &nodes {
        let other = *by_key.entry(node.key()).or_insert(node);
        assert_eq!(other, node, "one key for {node:?} and {other:?}");
        let (key, _) = node.symmetric_key().expect("Bi-litaire has symmetry");
        let real = node.position().canonical_key();
        let entry = *by_canonical.entry(key).or_insert((real, node.is_pending()));
        assert_eq!(
            entry,
            (real, node.is_pending()),
            "{node:?}: canonical key shared"
        );
    }
    // For every threshold the moves for the test are a prefix of all the moves, and keep every
    // move whose child can reach the threshold's side.
    for node in nodes.iter().filter(|n| !n.is_terminal()) {
        let mut all = Vec::new();
        node.legal_moves(&mut all);
        let (lo, hi) = node.value_bounds();
        for x in lo..=hi + 1 {
            let mut some = Vec::new();
            node.legal_moves_for_test(x, &mut some);
            assert_eq!(some[..], all[..some.len()], "{node:?} at {x}");
            for &mv in &all[some.len()..] {
                let (_, child_hi) = node.play(mv).value_bounds();
                assert!(child_hi < x, "{node:?} at {x}: {mv} left out");
            }
        }
    }
}
