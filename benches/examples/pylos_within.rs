//! One exact null-window test on a children's-rules Pylos position: does black lose within
//! `PLIES` plies? `pylos_within PLIES THREADS [HASH_MB] [POSITION]` (default: the start).
//! Black's payoff is -(1000 - k) for a loss in k plies, so "black loses within PLIES" is
//! "not (value ≥ -(1000 - PLIES) + 1)".
use std::time::Instant;
use tabula_engine::pylos::{Position, Rules, Takeback, Variant, START, WIN};
use tabula_solver::{AtomicTable, SearchOptions, Searcher};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(plies), Some(threads)) = (
        args.get(1).and_then(|a| a.parse::<i32>().ok()),
        args.get(2).and_then(|a| a.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: pylos_within PLIES THREADS [HASH_MB] [POSITION]");
        std::process::exit(2);
    };
    let mb = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(8192);
    let rules = Rules::new(Variant::Children, Takeback::Optional);
    let text = args.get(4).map(String::as_str).unwrap_or(START);
    let pos = match Position::parse(text, rules) {
        Ok(pos) => pos,
        Err(e) => {
            eprintln!("error: invalid position: {e}");
            std::process::exit(2);
        }
    };
    let table = AtomicTable::with_megabytes(mb);
    let options = SearchOptions {
        threads,
        ..SearchOptions::default()
    };
    let searcher = Searcher::new(&table, options);
    let started = Instant::now();
    let threshold = -(WIN - plies) + 1;
    let survives = searcher.prove_at_least(&pos, threshold).expect("no limits");
    println!(
        "black {} within {plies} plies (value >= {threshold}: {survives}), nodes {}, {:.1} s",
        if survives { "does not lose" } else { "loses" },
        searcher.nodes(),
        started.elapsed().as_secs_f64()
    );
}
