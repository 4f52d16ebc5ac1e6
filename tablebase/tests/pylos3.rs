//! The 3×3 Pylos tablebase against an independent exhaustive computation.
//!
//! The independent side shares nothing with the builder or with the Pylos ranking: it lists
//! every position of the small board by brute force (each of the 14 cells empty, black or
//! white; kept when every ball rests on four balls and neither side has more than 7), links
//! each to its children through the rules engine's moves alone (no un-moves, no symmetry, a
//! `HashMap` on the positions themselves), and computes the values by plain forward value
//! iteration over that explicit graph: round `d` decides, from the previous round's values
//! only, every undecided position with a child lost at `d - 1` (won at `d`) or whose children
//! are all won, the longest at `d - 1` (lost at `d`); a round that decides nothing ends it and
//! the rest are draws. Every position's tablebase value must equal it, for all rule sets.

mod common;

use common::random_positions;
use std::collections::HashMap;

use std::sync::atomic::AtomicBool;
use tabula_engine::pylos::{Board, Cell, Color, Position, PylosSpace, Rules};
use tabula_engine::{Game, Symmetric, D4};
use tabula_solver::driver::{Analysis, Config, Driver, Limits, Solve};
use tabula_solver::{AtomicTable, SolvePolicy};
use tabula_tablebase::pylos::{payoff, PylosTable};
use tabula_tablebase::retro::{build, census, BuildOptions, Census, CensusError, Table, Value};

/// Every position of the 3×3 board under `rules`, listed by brute force.
fn all_positions(rules: Rules) -> Vec<Position> {
    let mut cells = Vec::new();
    for level in 0..3u8 {
        for rank in 0..3 - level {
            for file in 0..3 - level {
                cells.push(
                    Cell::new(level, file, rank)
                        .expect("a cell of the pyramid")
                        .bit(),
                );
            }
        }
    }
    assert_eq!(cells.len(), 14);
    let mut out = Vec::new();
    let mut digits = [0u8; 14];
    loop {
        let (mut black, mut white) = (0u32, 0u32);
        for (d, bit) in digits.iter().zip(&cells) {
            match d {
                1 => black |= bit,
                2 => white |= bit,
                _ => {}
            }
        }
        for turn in [Color::Black, Color::White] {
            // from_masks checks that every ball rests on four balls and the counts. The apex
            // ball of the side to move is not a position of the game (whoever fills the apex
            // ends it, and the other side is then to move): the table has no entry for it.
            if let Ok(p) = Position::from_masks(black, white, turn, rules) {
                if p.balls(turn) & rules.board.apex() == 0 {
                    out.push(p);
                }
            }
        }
        // Next assignment (base 3 counter).
        let mut i = 0;
        loop {
            if i == digits.len() {
                return out;
            }
            digits[i] += 1;
            if digits[i] < 3 {
                break;
            }
            digits[i] = 0;
            i += 1;
        }
    }
}

/// Plain forward value iteration over the explicit graph (see the module documentation).
fn independent_values(positions: &[Position]) -> Vec<Value> {
    let index: HashMap<Position, usize> =
        positions.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let mut moves = Vec::new();
    let children: Vec<Vec<usize>> = positions
        .iter()
        .map(|p| {
            if p.is_terminal() {
                return Vec::new();
            }
            moves.clear();
            p.legal_moves(&mut moves);
            let mut kids: Vec<usize> = moves.iter().map(|&m| index[&p.play(m)]).collect();
            kids.sort_unstable();
            kids.dedup();
            kids
        })
        .collect();
    let mut value: Vec<Option<Value>> = positions
        .iter()
        .map(|p| p.is_terminal().then_some(Value::Loss(0)))
        .collect();
    for d in 1u32.. {
        let before = value.clone();
        let mut changed = false;
        for (i, kids) in children.iter().enumerate() {
            if before[i].is_some() || kids.is_empty() {
                continue;
            }
            let lost_child = kids.iter().any(|&k| before[k] == Some(Value::Loss(d - 1)));
            let all_won = kids
                .iter()
                .all(|&k| matches!(before[k], Some(Value::Win(_))));
            let longest = kids.iter().any(|&k| before[k] == Some(Value::Win(d - 1)));
            if lost_child {
                value[i] = Some(Value::Win(d));
                changed = true;
            } else if all_won && longest {
                value[i] = Some(Value::Loss(d));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    value
        .into_iter()
        .map(|v| v.unwrap_or(Value::Draw))
        .collect()
}

#[test]
fn every_position_of_the_small_board_matches_value_iteration() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pylos3-independent");
    std::fs::create_dir_all(&dir).unwrap();
    for rules in Rules::all_on(Board::Three) {
        let space = PylosSpace::new(rules);
        let path = dir.join(format!("{}-{}.tb", rules.variant, rules.takeback));
        let _ = std::fs::remove_file(&path);
        let mut options = BuildOptions::new(&path);
        options.threads = Some(2);
        let summary = build(&space, &options, |_| {}).unwrap();
        let table = Table::open(&path, &space).unwrap();
        let positions = all_positions(rules);
        let expected = independent_values(&positions);
        let (mut won, mut lost, mut drawn) = (0u64, 0u64, 0u64);
        for (p, want) in positions.iter().zip(&expected) {
            let got = table.probe(&space, p).unwrap();
            assert_eq!(got, *want, "{rules}: {p}");
            match want {
                Value::Win(_) => won += 1,
                Value::Loss(_) => lost += 1,
                _ => drawn += 1,
            }
        }
        // The table counts classes, the brute force positions: every class has at least one
        // position, so the table's counts are positive exactly where these are.
        assert_eq!(summary.won > 0, won > 0, "{rules}");
        assert_eq!(summary.lost > 0, lost > 0, "{rules}");
        assert_eq!(summary.drawn > 0, drawn > 0, "{rules}");
        eprintln!(
            "{rules}: {} positions: {won} won, {lost} lost, {drawn} drawn",
            positions.len()
        );
    }
}

/// The class of a position without the ranking: the smallest (occupancy, mover's balls) over
/// the 8 symmetries of the board.
fn class_key(p: &Position) -> (u32, u32) {
    D4::ALL
        .iter()
        .map(|&sym| {
            let image = p.transformed(sym);
            (image.occupied(), image.balls(image.turn()))
        })
        .min()
        .expect("8 symmetries")
}

/// The census from the start against a breadth-first walk over the positions themselves
/// (a `HashSet`, the rules engine's moves, no ranking), grouped into classes by
/// [`class_key`], with each class's value from the independent value iteration; every member
/// of a class must have the same value.
#[test]
fn the_census_counts_what_an_independent_walk_reaches() {
    for rules in Rules::all_on(Board::Three) {
        let table = built("pylos3-census", rules);
        let positions = all_positions(rules);
        let values: HashMap<Position, Value> = positions
            .iter()
            .copied()
            .zip(independent_values(&positions))
            .collect();
        let start = Position::start(rules);
        let mut seen = std::collections::HashSet::from([start]);
        let mut frontier = vec![start];
        let mut moves = Vec::new();
        while let Some(p) = frontier.pop() {
            if p.is_terminal() {
                continue;
            }
            moves.clear();
            p.legal_moves(&mut moves);
            for &m in &moves {
                let child = p.play(m);
                if seen.insert(child) {
                    frontier.push(child);
                }
            }
        }
        let mut classes: HashMap<(u32, u32), Value> = HashMap::new();
        for p in &seen {
            let v = values[p];
            let class = *classes.entry(class_key(p)).or_insert(v);
            assert_eq!(class, v, "{rules}: {p} differs from its class");
        }
        let count = |f: fn(&Value) -> bool| classes.values().filter(|v| f(v)).count() as u64;
        let want = Census {
            positions: classes.len() as u64,
            won: count(|v| matches!(v, Value::Win(_))),
            lost: count(|v| matches!(v, Value::Loss(_))),
            drawn: count(|v| matches!(v, Value::Draw)),
        };
        let mut plies = 0;
        let got = census(table.space(), table.table(), &start, None, |p| {
            assert_eq!(p.ply, plies);
            plies += 1;
        })
        .unwrap();
        assert_eq!(got, want, "{rules}");
        assert!(plies > 10, "{rules}: {plies} plies");
        let stop = AtomicBool::new(true);
        assert!(matches!(
            census(table.space(), table.table(), &start, Some(&stop), |_| {}),
            Err(CensusError::Interrupted)
        ));
    }
}

fn built(test: &str, rules: Rules) -> PylosTable {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(test);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(tabula_tablebase::pylos::file_name(rules));
    let _ = std::fs::remove_file(&path);
    build(&PylosSpace::new(rules), &BuildOptions::new(&path), |_| {}).unwrap();
    PylosTable::open(&dir, rules).unwrap()
}

/// The search (no table) and the table agree: exactly under `children` rules, where the
/// search solves every position; under take-back rules wherever the search proves a value.
#[test]
fn the_search_agrees_with_the_table_on_the_small_board() {
    for rules in Rules::all_on(Board::Three) {
        let table = built("pylos3-search", rules);
        let mut proven = 0;
        // Under take-back rules, positions the table calls decided within 9 plies (the search
        // cannot prove a draw, nor deep results quickly).
        let positions = random_positions(rules, 600, 2, 17)
            .into_iter()
            .filter(|p| p.finite() || table.value(p).unwrap().plies().is_some_and(|d| d <= 9));
        let positions: Vec<Position> = positions.take(60).collect();
        let candidates = positions.len();
        for pos in positions {
            let want = payoff(&pos, table.value(&pos).unwrap()).unwrap();
            let tt = AtomicTable::with_megabytes(16);
            // Under take-back rules, a node budget per position keeps the test quick; a
            // position the search does not prove within it is skipped.
            let limits = Limits {
                nodes: (!pos.finite()).then_some(1_000_000),
                ..Limits::none()
            };
            let driver = Driver::new(&tt, Config::default(), limits);
            if pos.finite() {
                match driver.solve(&pos) {
                    Solve::Solved { line, .. } => assert_eq!(line.value, want, "{rules}: {pos}"),
                    other => panic!("{rules}: {pos}: {other:?}"),
                }
                proven += 1;
            } else if let Analysis::Exact { line, .. } = driver.analyze(&pos, 30, |_| {}) {
                if line.value != 0 {
                    assert_eq!(line.value, want, "{rules}: {pos}");
                    proven += 1;
                }
            }
        }
        // Under `children` rules every position is solved; under take-back rules most.
        assert!(
            proven >= 30,
            "{rules}: only {proven} of {candidates} proven by the search"
        );
        eprintln!("{rules}: {proven} of {candidates} positions compared with the search");
    }
}

/// With the table as its oracle, the search answers from it and stays right.
#[test]
fn the_table_serves_the_search_as_its_oracle() {
    let rules = Rules::all_on(Board::Three)[2];
    let table = built("pylos3-oracle", rules);
    for pos in random_positions(rules, 40, 2, 17) {
        let want = payoff(&pos, table.value(&pos).unwrap()).unwrap();
        let tt = AtomicTable::with_megabytes(4);
        let driver = Driver::with_oracle(&tt, Config::default(), Limits::none(), &table);
        match driver.analyze(&pos, 4, |_| {}) {
            Analysis::Exact { line, stats, .. } => {
                assert_eq!(line.value, want, "{pos}");
                assert!(stats.nodes <= 200, "{pos}: {} nodes", stats.nodes);
            }
            other => panic!("{pos}: {other:?}"),
        }
    }
}
