//! df-pn against the null-window alpha-beta on the hardest tests of exact Bi-litaire solves
//! (issue 17): for each position of the committed suites whose value v an exact solve finds,
//! the proof "≥ v" and the disproof "≥ v + 1", each from an empty table, by both searches.
//! Nodes only (the measure that does not depend on the machine's load).
//!
//! ```sh
//! cargo run --release -p tabula-benches --example dfpn_tests -- GENS SIZES [COUNT]
//! # e.g. NODES=3000000 dfpn_tests random,engine,jumper 23 20
//! ```
//!
//! Environment: `NODES` (limit per solve and per test, default 3 M), `FROM` (first position,
//! counted from 0), `EPS` (the ε of the 1+ε trick) and `WEIGHT`
//! ([`DfpnOptions::leaf_weight`]), defaults those of [`DfpnOptions`], `HASH` (MiB per table, default
//! 64). A test stopped by the limit counts at the limit (">"). Per suite and test the summary
//! gives the positions, how many each search decided, the sum of nodes (stopped tests at the
//! limit) and the geometric mean of df-pn's nodes over alpha-beta's where both decided.
use tabula_benches::{bilitaire_committed_suite, BilitaireGenerator};
use tabula_engine::bilitaire::Position;
use tabula_solver::{AtomicTable, Dfpn, DfpnOptions, SearchOptions, Searcher};

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn usage() -> ! {
    eprintln!("usage: dfpn_tests GENS SIZES [COUNT] (GENS: random,engine,jumper; SIZES: 23,27)");
    std::process::exit(2)
}

/// One test by one search: its answer (`None`: stopped) and nodes.
type Run = (Option<bool>, u64);

/// The null-window search's options: the defaults, stopped after `nodes`.
fn limited(nodes: u64) -> SearchOptions {
    SearchOptions {
        nodes: Some(nodes),
        ..SearchOptions::default()
    }
}

fn alpha_beta(pos: &Position, x: i32, nodes: u64, mb: usize) -> Run {
    let table = AtomicTable::with_megabytes(mb);
    let searcher = Searcher::new(&table, limited(nodes));
    let r = searcher.prove_at_least(pos, x).ok();
    (r, searcher.nodes())
}

fn dfpn(pos: &Position, x: i32, nodes: u64, mb: usize, epsilon: f64) -> (Run, u64, u64) {
    let mut search = Dfpn::new(DfpnOptions {
        megabytes: mb,
        epsilon,
        leaf_weight: env("WEIGHT").unwrap_or(DfpnOptions::default().leaf_weight),
        nodes: Some(nodes),
        ..DfpnOptions::default()
    });
    let r = search.prove_at_least(pos, x).ok();
    let s = search.stats();
    ((r, s.nodes), s.expansions, s.children)
}

fn shown((r, n): Run) -> String {
    match r {
        Some(_) => n.to_string(),
        None => format!(">{n}"),
    }
}

/// Per kind of test, over a suite's positions.
#[derive(Default)]
struct Tally {
    positions: usize,
    ab_done: usize,
    pn_done: usize,
    ab_sum: u64,
    pn_sum: u64,
    log_ratio: f64,
    both: usize,
    pn_fewer: usize,
}

impl Tally {
    fn add(&mut self, ab: Run, pn: Run) {
        self.positions += 1;
        self.ab_done += usize::from(ab.0.is_some());
        self.pn_done += usize::from(pn.0.is_some());
        self.ab_sum += ab.1;
        self.pn_sum += pn.1;
        if ab.0.is_some() && pn.0.is_some() {
            self.both += 1;
            self.log_ratio += (pn.1.max(1) as f64 / ab.1.max(1) as f64).ln();
        }
        // Fewer nodes, counting a stopped test at the limit (and a tie as not fewer).
        self.pn_fewer += usize::from(pn.0.is_some() && (ab.0.is_none() || pn.1 < ab.1));
    }

    fn row(&self, suite: &str, test: &str) -> String {
        format!(
            "| {suite} | {test} | {} | {} / {} | {} / {} | × {:.2} | × {:.2} ({}) | {} |",
            self.positions,
            self.ab_done,
            self.pn_done,
            self.ab_sum,
            self.pn_sum,
            self.pn_sum as f64 / self.ab_sum.max(1) as f64,
            if self.both > 0 {
                (self.log_ratio / self.both as f64).exp()
            } else {
                f64::NAN
            },
            self.both,
            self.pn_fewer,
        )
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(gens), Some(sizes)) = (args.first(), args.get(1)) else {
        usage()
    };
    let count: usize = args
        .get(2)
        .and_then(|c| c.parse().ok())
        .unwrap_or(usize::MAX);
    let nodes: u64 = env("NODES").unwrap_or(3_000_000);
    let from: usize = env("FROM").unwrap_or(0);
    let epsilon: f64 = env("EPS").unwrap_or(DfpnOptions::default().epsilon);
    let mb: usize = env("HASH").unwrap_or(64);
    let mut rows = Vec::new();
    for gen in gens.split(',') {
        let Some(g) = BilitaireGenerator::from_name(gen) else {
            usage()
        };
        for size in sizes.split(',') {
            let Ok(balls) = size.parse::<u32>() else {
                usage()
            };
            let Some(suite) = bilitaire_committed_suite(g, balls) else {
                eprintln!("no committed suite for {gen} at {balls} balls");
                std::process::exit(2)
            };
            let (mut prove, mut disprove) = (Tally::default(), Tally::default());
            for (i, pos) in suite.iter().enumerate().skip(from).take(count) {
                let table = AtomicTable::with_megabytes(mb);
                let searcher = Searcher::new(&table, limited(nodes));
                let value = match searcher.solve(pos) {
                    Ok(r) if r.exact => r.value,
                    _ => match searcher.proven_bounds() {
                        Some((lo, hi)) if lo == hi => lo,
                        _ => {
                            println!("{gen} {balls} #{i}: unsolved within {nodes} nodes");
                            continue;
                        }
                    },
                };
                let mut line = format!("{gen} {balls} #{i} value {value}:");
                for (x, tally) in [(value, &mut prove), (value + 1, &mut disprove)] {
                    let ab = alpha_beta(pos, x, nodes, mb);
                    let (pn, expansions, children) = dfpn(pos, x, nodes, mb, epsilon);
                    // Both exact: where both decided, the answers must agree (and with v).
                    for r in [ab.0, pn.0].into_iter().flatten() {
                        assert_eq!(r, x == value, "{pos}: test ≥ {x}");
                    }
                    line += &format!(
                        " ≥{x}: alpha-beta {} df-pn {} ({expansions} expansions, {children} \
                         children);",
                        shown(ab),
                        shown(pn)
                    );
                    tally.add(ab, pn);
                }
                println!("{line}");
            }
            rows.push(prove.row(&format!("{gen} {balls}"), "≥ v (proof)"));
            rows.push(disprove.row(&format!("{gen} {balls}"), "≥ v+1 (disproof)"));
        }
    }
    println!();
    println!(
        "| suite | test | positions | decided α-β / df-pn | nodes α-β / df-pn | total ratio | \
         geometric mean (both decided) | df-pn fewer |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for row in rows {
        println!("{row}");
    }
}
