//! Prints seeded random Bi-litaire positions with their perft counts, in the perft data-file
//! format, for cross-checking against the independent model:
//! `cargo run --release -p tabula-benches --example random_perft -- 200 3 > /tmp/r.perft`
//! `python3 scripts/bilitaire_perft.py --file /tmp/r.perft`
use tabula_engine::bilitaire::{Position, Rules};
use tabula_engine::perft::perft;
use tabula_engine::playout::{random_playout, Rng};

fn main() {
    let mut args = std::env::args().skip(1);
    let count: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let depth: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let free_chains = args.next().is_some_and(|a| a == "free-chains");
    let rules = Rules { free_chains };
    for seed in 0..count {
        let plies = Rng::new(seed).below(70);
        let mut played = 0;
        let Some(pos) = random_playout(&Position::start_with(rules), seed + 77, |_| {
            played += 1;
            played > plies
        }) else {
            continue;
        };
        let counts: Vec<String> = (1..=depth)
            .map(|d| format!("{d} {}", perft(&pos, d)))
            .collect();
        println!("{pos} ; {}", counts.join(" ; "));
    }
}
