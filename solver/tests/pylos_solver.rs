//! The solver against plain minimax with win distances on late Pylos positions (few empty
//! cells), for every rule set, and its value unchanged by threads and symmetry reduction.
//!
//! Under `children` rules the game tree is finite: the exact solve must equal full minimax with
//! distances. Under `standard` and `mature` rules positions can repeat; the reference is then
//! minimax to a fixed depth D with unfinished lines worth 0, which is the true value for every
//! position decided (won or lost) within D plies and 0 otherwise. The iterative-deepening
//! analysis to depth D must prove exactly the decided ones, with the same distance, and never
//! claim an exact value for the others.

use tabula_engine::playout::random_playout;
use tabula_engine::pylos::{self, Color, Position, Rules, Variant, WIN};
use tabula_engine::{Game, Role, Scored};
use tabula_solver::minimax::minimax;
use tabula_solver::{AtomicTable, SearchOptions, Searcher};

/// Random late positions: random play from the start until `balls` balls are on the board (games
/// already over are left out).
fn late_positions(rules: Rules, balls: u32, count: usize) -> Vec<Position> {
    (0..count as u64 * 4)
        .filter_map(|seed| {
            random_playout(&Position::start(rules), seed * 7919 + 13, |p: &Position| {
                p.occupied().count_ones() >= balls
            })
        })
        .filter(|p| !p.is_over())
        .take(count)
        .collect()
}

/// Minimax to `depth` plies with distances, unfinished lines worth 0 (`None`: over budget).
fn minimax_to_depth(pos: &Position, depth: u32, budget: &mut u64) -> Option<i32> {
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    if let Some(v) = pos.terminal_value() {
        return Some(v);
    }
    if depth == 0 {
        return Some(0);
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let mut best: Option<i32> = None;
    for mv in moves {
        let v = pylos::backed_up(minimax_to_depth(&pos.play(mv), depth - 1, budget)?);
        best = Some(match (best, pos.to_move()) {
            (None, _) => v,
            (Some(b), Role::Max) => b.max(v),
            (Some(b), Role::Min) => b.min(v),
        });
    }
    best
}

fn options(threads: usize, symmetry: bool) -> SearchOptions {
    SearchOptions {
        threads,
        symmetry,
        ..SearchOptions::default()
    }
}

/// Plays `pv` from `pos` and checks it is legal; returns where it ends.
fn play_pv(pos: &Position, pv: &[pylos::Move]) -> Position {
    let mut end = *pos;
    for &mv in pv {
        let mut legal = Vec::new();
        end.legal_moves(&mut legal);
        assert!(legal.contains(&mv), "{pos}: pv move {mv} illegal at {end}");
        end = end.play(mv);
    }
    end
}

#[test]
fn children_solve_equals_minimax_with_distance() {
    let mut compared = 0;
    let mut wins_for_each = [0, 0];
    let mut longest = 0;
    for rules in [Rules::ALL[0], Rules::ALL[1]] {
        for balls in [20, 22, 24] {
            for pos in late_positions(rules, balls, 12) {
                let mut budget = 3_000_000;
                let Some(expected) = minimax(&pos, &mut budget) else {
                    continue;
                };
                let table = AtomicTable::with_megabytes(8);
                let report = Searcher::new(&table, options(1, true))
                    .solve(&pos)
                    .expect("no limits");
                assert!(report.exact);
                assert_eq!(report.value, expected, "{pos}");
                // Children's Pylos always ends: never a draw.
                let (winner, plies) = pylos::decode(expected).expect("decided");
                wins_for_each[(winner == pos.turn()) as usize] += 1;
                // The mover wins at odd distances and loses at even ones.
                assert_eq!(plies % 2 == 1, winner == pos.turn(), "{pos}");
                longest = longest.max(plies);
                // The best move keeps the value (one ply nearer the end).
                let best = report.best.expect("a best move");
                let mut budget = 3_000_000;
                let after = minimax(&pos.play(best), &mut budget).expect("smaller than the root");
                assert_eq!(pylos::backed_up(after), expected, "{pos}: best {best}");
                play_pv(&pos, &report.pv);
                compared += 1;
            }
        }
    }
    assert!(compared >= 30, "only {compared} positions compared");
    assert!(
        wins_for_each[0] > 0 && wins_for_each[1] > 0,
        "{wins_for_each:?}"
    );
    assert!(longest >= 5, "longest {longest}");
}

#[test]
fn repeating_rules_prove_exactly_what_depth_limited_minimax_decides() {
    // Reference depth, and the deepest iteration of the analysis: a proof can surface one
    // iteration late (a bound from an earlier, shallower iteration may answer a test unproven).
    const DEPTH: u8 = 5;
    const SEARCHED: u8 = DEPTH + 2;
    let mut decided = 0;
    let mut undecided = 0;
    let mut beyond = 0;
    for rules in &Rules::ALL[2..] {
        for balls in [22, 24, 26] {
            for pos in late_positions(*rules, balls, 10) {
                let mut budget = 2_000_000;
                let Some(expected) = minimax_to_depth(&pos, DEPTH.into(), &mut budget) else {
                    continue;
                };
                let table = AtomicTable::with_megabytes(8);
                let searcher = Searcher::new(&table, options(1, true));
                let report = searcher.analyze(&pos, SEARCHED, |_| {}).expect("no limits");
                if expected == 0 {
                    undecided += 1;
                    if report.exact {
                        // Only a win or loss decided deeper than the reference looked.
                        let (_, plies) = pylos::decode(report.value).expect("never a proven draw");
                        assert!(
                            plies > u32::from(DEPTH) && plies <= u32::from(SEARCHED),
                            "{pos} ({rules}): exact {} but undecided within {DEPTH} plies",
                            report.value
                        );
                        let mut budget = 20_000_000;
                        if let Some(deeper) = minimax_to_depth(&pos, plies, &mut budget) {
                            assert_eq!(deeper, report.value, "{pos} ({rules})");
                            beyond += 1;
                        }
                    }
                } else {
                    decided += 1;
                    assert!(report.exact, "{pos} ({rules}): {expected} not proven");
                    assert_eq!(report.value, expected, "{pos} ({rules})");
                    let best = report.best.expect("a best move");
                    let end = play_pv(&pos, &[best]);
                    let mut budget = 2_000_000;
                    let after = minimax_to_depth(&end, u32::from(DEPTH) - 1, &mut budget)
                        .expect("smaller than the root");
                    assert_eq!(pylos::backed_up(after), expected, "{pos}: best {best}");
                }
            }
        }
    }
    assert!(decided >= 10, "only {decided} decided positions");
    assert!(undecided >= 3, "only {undecided} undecided positions");
    eprintln!("{decided} decided, {undecided} undecided within {DEPTH}, {beyond} checked deeper");
}

#[test]
fn value_is_the_same_with_threads_and_without_symmetry() {
    let mut compared = 0;
    for rules in [Rules::ALL[0], Rules::ALL[1]] {
        for pos in late_positions(rules, 18, 6) {
            let mut values = Vec::new();
            for (threads, symmetry) in [(1, true), (2, true), (1, false), (2, false)] {
                let table = AtomicTable::with_megabytes(16);
                let report = Searcher::new(&table, options(threads, symmetry))
                    .solve(&pos)
                    .expect("no limits");
                assert!(report.exact);
                values.push(report.value);
            }
            assert!(values.windows(2).all(|w| w[0] == w[1]), "{pos}: {values:?}");
            assert!(values[0].abs() > WIN / 2, "{pos}: undecided {}", values[0]);
            compared += 1;
        }
    }
    // Repeating rules: the anytime search, same proven values.
    let mut all_proven = 0;
    for rules in &Rules::ALL[2..] {
        for pos in late_positions(*rules, 24, 4) {
            let mut results = Vec::new();
            for (threads, symmetry) in [(1, true), (2, true), (1, false), (2, false)] {
                let table = AtomicTable::with_megabytes(16);
                let r = Searcher::new(&table, options(threads, symmetry))
                    .analyze(&pos, 6, |_| {})
                    .expect("no limits");
                results.push(r.exact.then_some(r.value));
            }
            // A proof may surface an iteration earlier or later with another table history;
            // whatever is proven must agree.
            let proven: Vec<i32> = results.iter().flatten().copied().collect();
            assert!(
                proven.windows(2).all(|w| w[0] == w[1]),
                "{pos} ({rules}): {results:?}"
            );
            if proven.len() == results.len() {
                all_proven += 1;
            }
            compared += 1;
        }
    }
    assert!(
        all_proven >= 2,
        "only {all_proven} proven by every configuration"
    );
    assert!(compared >= 16, "only {compared}");
}

#[test]
fn a_forced_win_is_found_at_its_distance_under_every_rule_set() {
    // Black to move places the apex: a win in 1 for every rule set.
    for rules in Rules::ALL {
        let pos = Position::parse("bwbw/wbwb/bwbw/wbww|wwb/wbw/bwb|bw/bb|. b", rules).unwrap();
        let table = AtomicTable::with_megabytes(1);
        let searcher = Searcher::new(&table, options(1, true));
        let value = if rules.variant == Variant::Children {
            searcher.solve(&pos).expect("no limits").value
        } else {
            let r = searcher.analyze(&pos, 4, |_| {}).expect("no limits");
            assert!(r.exact);
            r.value
        };
        assert_eq!(pylos::decode(value), Some((Color::Black, 1)), "{rules}");
    }
}
