//! The full-board tables against the search, where a table has been built (hours and 7 GB:
//! not in CI). Run with the directory of the tables:
//!
//! ```sh
//! TABULA_TABLEBASES=DIR cargo test --release -p tabula-tablebase --test pylos4 -- --ignored --nocapture
//! ```
//!
//! Under `children` rules the search is exact, so every position must agree: 200 positions of
//! seeded random games, 14 to 22 plies in. Under take-back rules (when their tables are there),
//! 200 positions 26 to 34 plies in, wherever the search proves a win or loss within its node
//! budget.
//!
//! The search cannot prove a draw. The second test checks every table against the rules
//! themselves, where draws too must hold: on sampled positions, each value must be what the
//! values of its children (reached by the engine's moves, not the builder's un-moves) make it.
//! A table that satisfies this at every position is exact (by induction on the distance, a
//! consistent win or loss is a true one, and a true one cannot be labelled a draw), so a
//! sample that finds no exception is evidence for the whole table, draws included.
//! `TABULA_PYLOS4_SAMPLES=N` sets the sample: N positions of random games and N random
//! indices a table (default 20,000).

mod common;

use common::random_positions;
use tabula_engine::playout::Rng;
use tabula_engine::pylos::{Position, Rules, Variant};
use tabula_engine::retro::Retrograde;
use tabula_engine::Game;
use tabula_solver::driver::{Analysis, Config, Driver, Limits, Solve};
use tabula_solver::{AtomicTable, SolvePolicy};
use tabula_tablebase::pylos::{default_dir, payoff, PylosTable};
use tabula_tablebase::retro::Value;

/// The full-board tables in the tables' directory (at least one, or the test fails).
fn tables() -> Vec<(Rules, PylosTable)> {
    let dir = default_dir();
    let found: Vec<_> = Rules::ALL
        .into_iter()
        .filter_map(|rules| Some((rules, PylosTable::find(&dir, rules).unwrap()?)))
        .collect();
    assert!(
        !found.is_empty(),
        "no full-board table in {}",
        dir.display()
    );
    found
}

#[test]
#[ignore = "needs a full-board table (TABULA_TABLEBASES=DIR)"]
fn full_board_tables_agree_with_the_search() {
    for (rules, table) in tables() {
        let (mut compared, mut nodes) = (0, 0u64);
        let started = std::time::Instant::now();
        // Under take-back rules the search proves few positions 14–22 plies in within its
        // budget (4 of 200, standard rules): deeper ones, 26–34 plies in, for those.
        let (first, last) = match rules.variant {
            Variant::Children => (14, 22),
            _ => (26, 34),
        };
        for pos in random_positions(rules, 200, first, last) {
            let want = payoff(&pos, table.value(&pos).unwrap()).unwrap();
            let tt = AtomicTable::with_megabytes(256);
            let limits = Limits {
                nodes: (!pos.finite()).then_some(5_000_000),
                ..Limits::none()
            };
            let driver = Driver::new(&tt, Config::default(), limits);
            let got = if pos.finite() {
                match driver.solve(&pos) {
                    Solve::Solved { line, stats } => {
                        nodes += stats.nodes;
                        Some(line.value)
                    }
                    other => panic!("{rules}: {pos}: {other:?}"),
                }
            } else {
                let analysis = driver.analyze(&pos, 40, |_| {});
                nodes += match &analysis {
                    Analysis::Exact { stats, .. }
                    | Analysis::Estimate { stats, .. }
                    | Analysis::Stopped { stats, .. } => stats.nodes,
                };
                match analysis {
                    Analysis::Exact { line, .. } if line.value != 0 => Some(line.value),
                    _ => None,
                }
            };
            if let Some(got) = got {
                assert_eq!(got, want, "{rules}: {pos}");
                compared += 1;
                eprintln!("{rules}: {compared}: {pos} {want} (agrees)");
            }
        }
        eprintln!(
            "{rules}: {compared} of 200 positions agree with the search ({nodes} nodes, {:.1} s)",
            started.elapsed().as_secs_f64()
        );
        if rules.variant == Variant::Children {
            assert_eq!(compared, 200, "{rules}");
        }
    }
}

/// The value the rules give `pos` from its children's values in `table`: a win one ply
/// longer than the quickest lost child, else (every child won) a loss one ply longer than the
/// slowest, else (a drawn child, none lost) a draw; a finished game is lost at once.
fn from_children(table: &PylosTable, pos: &Position) -> Value {
    if pos.is_terminal() {
        return Value::Loss(0);
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let (mut quickest_loss, mut slowest_win, mut drawn) = (None::<u32>, 0, false);
    for m in moves {
        match table.value(&pos.play(m)).unwrap() {
            Value::Loss(d) => quickest_loss = Some(quickest_loss.map_or(d, |q| q.min(d))),
            Value::Win(d) => slowest_win = slowest_win.max(d),
            Value::Draw => drawn = true,
            Value::Hole => panic!("{pos}: a child {} is a hole", pos.play(m)),
        }
    }
    match quickest_loss {
        Some(d) => Value::Win(d + 1),
        None if drawn => Value::Draw,
        None => Value::Loss(slowest_win + 1),
    }
}

#[test]
#[ignore = "needs a full-board table (TABULA_TABLEBASES=DIR)"]
fn full_board_tables_hold_position_by_position() {
    for (rules, table) in tables() {
        // Positions of random games at every depth, and random indices of the whole space
        // (most of them out of reach of random play: late, lopsided, full of take-backs);
        // TABULA_PYLOS4_SAMPLES of each (default 20,000).
        let samples = std::env::var("TABULA_PYLOS4_SAMPLES")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(20_000);
        let mut positions = random_positions(rules, samples, 0, 70);
        positions.insert(0, Position::start(rules));
        let space = table.space();
        let mut rng = Rng::new(7);
        let mut holes = 0;
        while positions.len() < 2 * samples + 1 {
            match space.unrank(rng.next_u64() % space.size()) {
                Some(p) => positions.push(p),
                None => holes += 1,
            }
        }
        let mut counts = [0usize; 3];
        for pos in &positions {
            let have = table.value(pos).unwrap();
            assert_eq!(have, from_children(&table, pos), "{rules}: {pos}");
            counts[match have {
                Value::Win(_) => 0,
                Value::Loss(_) => 1,
                _ => 2,
            }] += 1;
        }
        eprintln!(
            "{rules}: {} positions hold (won / lost / drawn {} / {} / {}; {holes} holes skipped)",
            positions.len(),
            counts[0],
            counts[1],
            counts[2]
        );
        if rules.variant == Variant::Mature {
            assert!(counts[2] > 0, "{rules}: no draw sampled");
        }
    }
}
