//! df-pn ([`tabula_solver::Dfpn`]) against plain minimax and against the alpha-beta test
//! ([`Searcher::prove_at_least`]): the same answer for every threshold, on small Bi-litaire
//! positions, on positions of 14 – 16 balls from random games, and on late Pylos positions
//! (children rules: a finite game scored by win distance, whose thresholds shift each ply);
//! with a table too small to keep the proofs; and with proven bounds shared with alpha-beta.

mod common;

use common::small_position;
use tabula_engine::bilitaire::{Position, Side};
use tabula_engine::playout::random_playout;
use tabula_engine::{pylos, Game, Scored, Symmetric};
use tabula_solver::minimax::minimax;
use tabula_solver::{
    AtomicTable, Dfpn, DfpnOptions, ProofNumbers, SearchOptions, Searcher, SolvePolicy, Table,
};

fn options(megabytes: usize, epsilon: f64) -> DfpnOptions {
    DfpnOptions {
        megabytes,
        epsilon,
        ..DfpnOptions::default()
    }
}

/// Every threshold from one below the game bounds to one above: df-pn says "value ≥ x" exactly
/// when `value ≥ x`.
fn check_every_threshold<G: tabula_solver::Searchable>(dfpn: &mut Dfpn, pos: &G, value: i32) {
    let (lo, hi) = pos.value_bounds();
    for x in lo - 1..=hi + 1 {
        let holds = dfpn.prove_at_least(pos, x).expect("no limits");
        assert_eq!(holds, value >= x, "{pos:?}: value {value}, test ≥ {x}");
    }
}

#[test]
fn dfpn_agrees_with_minimax_on_small_positions() {
    let mut compared = 0;
    let mut open_tests = 0;
    for seed in 0..300u64 {
        let Some(pos) = small_position(seed * 7919 + 1) else {
            continue;
        };
        let mut budget = 1_000_000;
        let Some(value) = minimax(&pos, &mut budget) else {
            continue;
        };
        // One search for all thresholds (they share its table), and with and without ε.
        let mut dfpn = Dfpn::new(options(1, 0.0));
        check_every_threshold(&mut dfpn, &pos, value);
        let mut dfpn = Dfpn::new(options(1, 0.25));
        check_every_threshold(&mut dfpn, &pos, value);
        compared += 1;
        open_tests += usize::from(dfpn.stats().expansions > 0);
    }
    assert!(compared >= 150, "only {compared} positions compared");
    // Most of them must have needed a real search, not only the shortcuts.
    assert!(open_tests >= 50, "only {open_tests} positions searched");
}

/// Positions with `balls` balls (any side to move) from seeded random games.
fn random_game_positions(balls: u32, count: usize) -> Vec<Position> {
    (0..)
        .filter_map(|seed| {
            random_playout(&Position::start(), 7000 + seed, |p: &Position| {
                p.ball_count() <= balls
            })
            .filter(|p| p.ball_count() == balls && !p.is_terminal())
        })
        .take(count)
        .collect()
}

#[test]
fn dfpn_agrees_with_alpha_beta_on_mid_game_positions() {
    let mut held = 0;
    let mut failed = 0;
    let mut sliders = 0;
    for balls in [18, 20, 22] {
        for pos in random_game_positions(balls, 5) {
            let table = AtomicTable::with_megabytes(8);
            let searcher = Searcher::new(&table, SearchOptions::default());
            let value = searcher.solve(&pos).expect("no limits").value;
            sliders += usize::from(pos.side() == Side::Slider);
            // A fresh df-pn per test: the hardest tests of an MTD(f) solve, and two beyond.
            for x in [value - 3, value - 1, value, value + 1] {
                let table = AtomicTable::with_megabytes(8);
                let alpha_beta = Searcher::new(&table, SearchOptions::default())
                    .prove_at_least(&pos, x)
                    .expect("no limits");
                let mut dfpn = Dfpn::new(options(4, 0.25));
                let holds = dfpn.prove_at_least(&pos, x).expect("no limits");
                assert_eq!(holds, alpha_beta, "{pos}: value {value}, test ≥ {x}");
                assert_eq!(holds, value >= x, "{pos}: value {value}, test ≥ {x}");
                held += usize::from(holds);
                failed += usize::from(!holds);
            }
        }
    }
    assert!(sliders >= 4, "only {sliders} slider positions");
    assert!(held >= 30 && failed >= 10, "{held} held, {failed} failed");
}

#[test]
fn a_table_too_small_to_keep_the_proof_gives_the_same_answers() {
    let mut replaced = 0;
    for pos in random_game_positions(18, 4) {
        let table = AtomicTable::with_megabytes(8);
        let value = Searcher::new(&table, SearchOptions::default())
            .solve(&pos)
            .expect("no limits")
            .value;
        // 0 MiB: one bucket of 4 entries, far fewer than these proofs expand.
        let mut dfpn = Dfpn::new(options(0, 0.0));
        for x in [value, value + 1] {
            let holds = dfpn.prove_at_least(&pos, x).expect("no limits");
            assert_eq!(holds, value >= x, "{pos}: value {value}, test ≥ {x}");
        }
        replaced += dfpn.stats().replaced;
    }
    assert!(
        replaced > 0,
        "the small table never had to replace an entry"
    );
}

#[test]
fn bounds_shared_with_alpha_beta_are_proven_facts() {
    let mut stored_roots = 0;
    for pos in random_game_positions(20, 5) {
        let reference = Searcher::new(&AtomicTable::with_megabytes(8), SearchOptions::default())
            .solve(&pos)
            .expect("no limits")
            .value;
        // df-pn proves both sides of the value into a shared table; alpha-beta then solves
        // over it and must find the same value, with the root's bounds already there.
        let shared = AtomicTable::with_megabytes(8);
        let mut dfpn = Dfpn::with_shared_table(options(4, 0.0), &shared);
        assert!(dfpn.prove_at_least(&pos, reference).expect("no limits"));
        assert!(!dfpn.prove_at_least(&pos, reference + 1).expect("no limits"));
        // The root's bounds, where df-pn expanded it (a shortcut may settle a root test).
        let (key, _) = pos.canonical_key_and_symmetry();
        if let Some(root) = shared.probe(key) {
            let (lower, upper) = (i32::from(root.lower), i32::from(root.upper));
            assert!(
                lower <= reference && reference <= upper,
                "{pos}: {lower}..={upper}"
            );
            stored_roots += usize::from(lower == reference || upper == reference);
        }
        let searcher = Searcher::new(&shared, SearchOptions::default());
        let report = searcher.solve(&pos).expect("no limits");
        assert!(report.exact);
        assert_eq!(report.value, reference, "{pos}");
        // And df-pn reading a table alpha-beta filled answers alike.
        let mut again = Dfpn::with_shared_table(options(1, 0.0), &shared);
        assert!(again.prove_at_least(&pos, reference).expect("no limits"));
        assert!(!again
            .prove_at_least(&pos, reference + 1)
            .expect("no limits"));
    }
    assert!(
        stored_roots >= 2,
        "only {stored_roots} roots' bounds stored"
    );
}

#[test]
fn a_node_limit_stops_the_search() {
    let pos = random_game_positions(16, 1)[0];
    let mut dfpn = Dfpn::new(DfpnOptions {
        nodes: Some(50),
        ..DfpnOptions::default()
    });
    let value = Searcher::new(&AtomicTable::with_megabytes(8), SearchOptions::default())
        .solve(&pos)
        .expect("no limits")
        .value;
    // The hardest test; a limit of 50 nodes stops it (if it did not, it must still be right).
    match dfpn.prove_at_least(&pos, value + 1) {
        Err(_) => assert!(dfpn.stats().nodes >= 50),
        Ok(holds) => assert!(!holds, "{pos}"),
    }
}

/// Late Pylos positions under children rules (finite), from random play.
fn late_pylos(balls: u32, count: usize) -> Vec<pylos::Position> {
    let rules = pylos::Rules::ALL[0];
    (0..count as u64 * 4)
        .filter_map(|seed| {
            random_playout(
                &pylos::Position::start(rules),
                seed * 7919 + 13,
                |p: &pylos::Position| p.occupied().count_ones() >= balls,
            )
        })
        .filter(|p| !p.is_over())
        .take(count)
        .collect()
}

#[test]
fn dfpn_agrees_with_minimax_on_late_pylos_positions() {
    let mut compared = 0;
    for balls in [20, 22, 24] {
        for pos in late_pylos(balls, 8) {
            assert!(pos.finite(), "{pos}: children rules are finite");
            let mut budget = 3_000_000;
            let Some(value) = minimax(&pos, &mut budget) else {
                continue;
            };
            // Win distances: the thresholds around the value and around a draw (0), where the
            // distance algebra of child thresholds matters.
            let mut dfpn = Dfpn::new(options(4, 0.25));
            for x in [value - 1, value, value + 1, 0, 1] {
                let holds = dfpn.prove_at_least(&pos, x).expect("no limits");
                assert_eq!(holds, value >= x, "{pos}: value {value}, test ≥ {x}");
            }
            compared += 1;
        }
    }
    assert!(compared >= 12, "only {compared} Pylos positions compared");
}

/// A solve whose exact tests alpha-beta and df-pn take in turns ([`ProofNumbers`]), df-pn's
/// turn as long as alpha-beta's.
fn sharing(first_turn: u64) -> SearchOptions {
    SearchOptions {
        proof_numbers: Some(ProofNumbers {
            megabytes: 1,
            first_turn,
            share_percent: 100,
        }),
        ..SearchOptions::default()
    }
}

#[test]
fn a_solve_sharing_its_tests_with_dfpn_finds_the_same_values() {
    let mut answered_by_dfpn = 0;
    let mut solves = 0;
    // Large enough that most solves run past alpha-beta's first turn of 2,048 nodes: the
    // endgame masks settle most solves of fewer balls within it.
    for balls in [24, 26] {
        for pos in random_game_positions(balls, 4) {
            let plain_table = AtomicTable::with_megabytes(8);
            let plain = Searcher::new(&plain_table, SearchOptions::default());
            let value = plain.solve(&pos).expect("no limits").value;
            // Turns of 1 node: alpha-beta's turn ends at its first count of the nodes (every
            // 2,048), then df-pn's; they alternate many times on the longer tests.
            for first_turn in [1, 256] {
                let table = AtomicTable::with_megabytes(8);
                let searcher = Searcher::new(&table, sharing(first_turn));
                let report = searcher.solve(&pos).expect("no limits");
                assert!(report.exact, "{pos}");
                assert_eq!(report.value, value, "{pos}, first turn {first_turn}");
                assert!(searcher.proof_number_nodes() <= report.nodes);
                answered_by_dfpn += usize::from(searcher.proof_number_nodes() > 0);
                solves += 1;
                // The line's first move keeps the value (checked by alpha-beta alone).
                if let Some(best) = report.best {
                    let after = plain.solve(&pos.play(best)).expect("no limits");
                    assert_eq!(after.value, value, "{pos}: {best}");
                }
            }
        }
    }
    assert!(
        answered_by_dfpn * 2 >= solves,
        "df-pn took turns in only {answered_by_dfpn} of {solves} solves"
    );
}

#[test]
fn a_limit_that_ends_a_shared_solve_leaves_true_bounds() {
    // A solve of some 15,000 nodes (with the endgame masks), so that every limit below but
    // the last stops it.
    let pos = random_game_positions(24, 2)[1];
    let value = Searcher::new(&AtomicTable::with_megabytes(8), SearchOptions::default())
        .solve(&pos)
        .expect("no limits")
        .value;
    let mut stopped = 0;
    // Limits that fall in alpha-beta's turns and in df-pn's.
    for limit in [300, 1_000, 3_000, 10_000, 30_000] {
        let table = AtomicTable::with_megabytes(8);
        let options = SearchOptions {
            nodes: Some(limit),
            ..sharing(100)
        };
        let searcher = Searcher::new(&table, options);
        match searcher.solve(&pos) {
            Ok(report) => assert_eq!(report.value, value, "{pos}"),
            Err(_) => {
                // Stopped in the heuristic pre-search, before any exact test: the game's bounds.
                let (lower, upper) = searcher
                    .proven_bounds()
                    .unwrap_or_else(|| pos.value_bounds());
                assert!(
                    lower <= value && value <= upper,
                    "{lower}..={upper}, {value}"
                );
                assert!(searcher.nodes() >= limit);
                stopped += 1;
            }
        }
    }
    assert!(stopped >= 2, "only {stopped} solves stopped by their limit");
}

#[test]
fn a_stop_from_outside_ends_a_shared_solve() {
    // The start is far out of reach; short turns put df-pn's turns among the first tests.
    let table = AtomicTable::with_megabytes(8);
    let searcher = Searcher::new(&table, sharing(500));
    std::thread::scope(|scope| {
        let solve = scope.spawn(|| searcher.solve(&Position::start()));
        while searcher.proof_number_nodes() == 0 && !solve.is_finished() {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        searcher.stop();
        assert!(solve.join().expect("no panic").is_err());
    });
    assert!(searcher.stopped());
}
