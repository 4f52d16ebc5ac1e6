//! `tabula bench`: the quick suite's signature is the committed one (any change to what the
//! searches visit shows here and must be explained), threads do not change answers, and bad
//! options are one-line errors.

mod common;

use common::{assert_bad_input, json_output};
use tabula_api::bench::BenchReport;

/// The committed per-game signatures of `bench --quick` (benches/bench-signature.txt).
fn committed() -> Vec<(String, u64)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../benches/bench-signature.txt"
    );
    std::fs::read_to_string(path)
        .expect("read benches/bench-signature.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (game, n) = l.split_once(' ').expect("`game signature` lines");
            (game.to_string(), n.trim().parse().expect("a number"))
        })
        .collect()
}

fn report(args: &[&str]) -> BenchReport {
    serde_json::from_value(json_output(args)).expect("a bench report")
}

#[test]
fn the_quick_signature_is_the_committed_one() {
    let r = report(&["bench", "--quick", "--json"]);
    let found: Vec<(String, u64)> = r
        .games
        .iter()
        .map(|g| (g.game.clone(), g.signature))
        .collect();
    assert_eq!(
        found,
        committed(),
        "the search's node counts changed: if that is intended, explain it in the commit and \
         write the new values to benches/bench-signature.txt (`tabula bench --quick --json`)"
    );
    assert_eq!(r.signature, found.iter().map(|(_, n)| n).sum::<u64>());
    for game in &r.games {
        assert!(!game.items.is_empty());
        assert_eq!(
            game.signature,
            game.items.iter().map(|i| i.count).sum::<u64>()
        );
        assert!(game.speedup.is_none(), "no second run at one thread");
    }
}

#[test]
fn two_threads_find_the_same_answers_and_report_a_speedup() {
    let r = report(&[
        "bench",
        "--quick",
        "--game",
        "bilitaire",
        "--threads",
        "2",
        "--json",
    ]);
    assert_eq!(r.games.len(), 1);
    let game = &r.games[0];
    assert_eq!(game.game, "bilitaire");
    assert!(game.speedup.is_some_and(|s| s > 0.0));
    let searches: Vec<_> = game.items.iter().filter(|i| i.unit == "nodes").collect();
    assert!(!searches.is_empty());
    for item in searches {
        assert_eq!(item.threads_agree, Some(true), "{}", item.name);
        assert!(item.threads_count.is_some_and(|n| n > 0), "{}", item.name);
    }
}

#[test]
fn bad_options_are_one_line_errors() {
    assert_bad_input(&["bench", "--threads", "0"], "--threads");
    assert_bad_input(&["bench", "--threads", "257"], "--threads");
    assert_bad_input(&["bench", "--game", "chess"], "chess");
    assert_bad_input(&["bench", "--hash", "0"], "--hash");
    // More than the memory available: refused before any table is allocated (the suites'
    // allocation used to abort). Only where 64 GiB is more than this machine can give.
    let available = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find(|l| l.starts_with("MemAvailable:"))?
            .split_whitespace()
            .nth(1)?
            .parse::<u64>()
            .ok()
    });
    if available.is_some_and(|kib| kib / 1024 < 65_536) {
        assert_bad_input(
            &["bench", "--hash", "65536", "--quick", "--game", "pylos"],
            "more than the memory available",
        );
    }
}
