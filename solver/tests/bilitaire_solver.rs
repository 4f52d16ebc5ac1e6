//! The solver against plain minimax on small Bi-litaire positions, and its value unchanged by
//! threads, symmetry reduction and table size.

mod common;

use common::small_position;
use proptest::prelude::*;
use tabula_engine::bilitaire::{Position, Side};
use tabula_engine::playout::random_playout;
use tabula_engine::Scored;
use tabula_solver::minimax::minimax;
use tabula_solver::{AtomicTable, DashTable, Entry, SearchOptions, Searcher, Table};

fn solve_with<T: Table>(table: &T, pos: &Position, options: SearchOptions) -> i32 {
    let searcher = Searcher::new(table, options);
    let report = searcher.solve(pos).expect("no limits set");
    assert!(report.exact);
    // The principal variation is legal and ends where the value says.
    common::assert_line_ends_at(pos, &report.pv, report.value);
    report.value
}

#[test]
fn solver_agrees_with_plain_minimax() {
    let mut compared = 0;
    let mut largest = 0;
    let mut announced = 0;
    let mut free_chains = 0;
    for pos in common::small_positions_with_announcements(500) {
        let mut budget = 2_000_000;
        let Some(expected) = minimax(&pos, &mut budget) else {
            continue;
        };
        let table = AtomicTable::with_megabytes(4);
        assert_eq!(
            solve_with(&table, &pos, SearchOptions::default()),
            expected,
            "{pos}"
        );
        // A table too small to remember anything still gives the same value.
        let tiny = AtomicTable::with_buckets(1);
        assert_eq!(
            solve_with(&tiny, &pos, SearchOptions::default()),
            expected,
            "{pos}"
        );
        compared += 1;
        largest = largest.max(pos.ball_count());
        announced += usize::from(matches!(pos.side(), Side::Ball(n) if n >= 2));
        free_chains += usize::from(pos.rules().free_chains);
    }
    assert!(
        announced >= 10 && free_chains >= 20,
        "{announced} announced, {free_chains} free-chains positions"
    );
    // The comparison must really happen, on positions of some size.
    assert!(compared >= 150, "only {compared} positions compared");
    assert!(
        largest >= 9,
        "largest compared position has {largest} balls"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn value_is_independent_of_threads_and_symmetry(seed in any::<u64>()) {
        let Some(pos) = small_position(seed) else { return Ok(()) };
        let plain = SearchOptions { symmetry: false, ..SearchOptions::default() };
        let one = solve_with(&AtomicTable::with_megabytes(4), &pos, plain.clone());
        let threads = SearchOptions { threads: 2, split_plies: 8, ..SearchOptions::default() };
        prop_assert_eq!(solve_with(&AtomicTable::with_megabytes(4), &pos, threads), one);
        prop_assert_eq!(solve_with(&DashTable::new(), &pos, SearchOptions::default()), one);
    }
}

#[test]
fn mid_game_positions_solve_the_same_with_one_and_two_threads() {
    // Slider-to-move positions of 15 balls from seeded random games: real parallel work.
    let positions: Vec<Position> = (0..)
        .filter_map(|seed| {
            random_playout(&Position::start(), 500 + seed, |p| p.ball_count() <= 15)
                .filter(|p| p.ball_count() == 15 && p.side() == Side::Slider)
        })
        .take(3)
        .collect();
    for pos in positions {
        let one = solve_with(
            &AtomicTable::with_megabytes(16),
            &pos,
            SearchOptions::default(),
        );
        let two = SearchOptions {
            threads: 2,
            ..SearchOptions::default()
        };
        assert_eq!(
            solve_with(&AtomicTable::with_megabytes(16), &pos, two),
            one,
            "{pos}"
        );
    }
}

/// A solve stopped by its node limit leaves its proven root bounds in the table; a later solve
/// over the same table (as a `--table` file resumes one) starts from them: stopped before its
/// first test, it still reports them.
#[test]
fn a_resumed_solve_starts_from_the_bounds_the_table_proves() {
    let mut resumed = 0;
    for seed in 0..60 {
        let Some(pos) = random_playout(&Position::start(), 700 + seed, |p| p.ball_count() <= 23)
            .filter(|p| p.ball_count() == 23 && p.side() == Side::Slider)
        else {
            continue;
        };
        let table = AtomicTable::with_megabytes(16);
        let limited = SearchOptions {
            nodes: Some(20_000),
            ..SearchOptions::default()
        };
        let first = Searcher::new(&table, limited);
        if first.solve(&pos).is_ok() {
            continue; // solved within the limit: nothing to resume
        }
        let proven = first.proven_bounds().expect("a stopped solve has bounds");
        if proven == pos.value_bounds() {
            continue; // nothing proven beyond the rules
        }
        let again = Searcher::new(&table, SearchOptions::default());
        again.stop();
        assert!(
            again.solve(&pos).is_err(),
            "{pos}: stopped before it starts"
        );
        let (lo, hi) = again
            .proven_bounds()
            .expect("the table's bounds from the start");
        assert!(
            lo >= proven.0 && hi <= proven.1,
            "{pos}: {lo}..={hi} against {proven:?}"
        );
        // And they are the game's: the value lies within.
        let value = solve_with(
            &AtomicTable::with_megabytes(16),
            &pos,
            SearchOptions::default(),
        );
        assert!(
            (lo..=hi).contains(&value),
            "{pos}: {value} outside {lo}..={hi}"
        );
        resumed += 1;
        if resumed == 3 {
            break;
        }
    }
    assert_eq!(resumed, 3, "too few positions stopped with proven bounds");
}

/// `known_bounds` narrows the game's bounds by the table's proven entry for the position, and
/// ignores an entry that could only be damaged: bounds that cross, or that miss the game's.
#[test]
fn known_bounds_trust_only_a_proven_entry_that_can_hold() {
    let pos = Position::start();
    let (lo, hi) = pos.value_bounds();
    let options = SearchOptions {
        symmetry: false,
        ..SearchOptions::default()
    };
    let known = |lower: i32, upper: i32, depth: u8| {
        let table = AtomicTable::with_megabytes(1);
        let entry = Entry {
            lower: lower as i16,
            upper: upper as i16,
            depth,
            best: Entry::NO_MOVE,
            sym: 0,
            work: 0,
        };
        table.store(<Position as tabula_engine::Keyed>::key(&pos), entry);
        Searcher::new(&table, options.clone()).known_bounds(&pos)
    };
    assert_eq!(known(30, 40, Entry::PROVEN), (30, 40));
    assert_eq!(known(lo - 5, hi + 5, Entry::PROVEN), (lo, hi));
    assert_eq!(known(30, 40, 7), (lo, hi), "a heuristic entry");
    assert_eq!(known(36, 35, Entry::PROVEN), (lo, hi), "crossed bounds");
    assert_eq!(
        known(hi + 1, hi + 3, Entry::PROVEN),
        (lo, hi),
        "beyond the game's"
    );
}
