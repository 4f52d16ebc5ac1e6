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

mod common;

use common::random_positions;
use tabula_engine::pylos::{Rules, Variant};
use tabula_solver::driver::{Analysis, Config, Driver, Limits, Solve};
use tabula_solver::{AtomicTable, SolvePolicy};
use tabula_tablebase::pylos::{default_dir, payoff, PylosTable};

#[test]
#[ignore = "needs a full-board table (TABULA_TABLEBASES=DIR)"]
fn full_board_tables_agree_with_the_search() {
    let dir = default_dir();
    let mut tables = 0;
    for rules in Rules::ALL {
        let Some(table) = PylosTable::find(&dir, rules).unwrap() else {
            continue;
        };
        tables += 1;
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
    assert!(tables > 0, "no full-board table in {}", dir.display());
}
