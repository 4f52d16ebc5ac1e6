use tabula_solver::{AtomicTable, SearchOptions, Searcher};
fn main() {
    let balls: u32 = std::env::args().nth(1).unwrap().parse().unwrap();
    let count: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let threads: usize = std::env::args()
        .nth(3)
        .map(|t| t.parse().unwrap())
        .unwrap_or(1);
    for pos in tabula_benches::bilitaire_suite(balls, count) {
        let mb: usize = std::env::var("HASH")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(64);
        let table = AtomicTable::with_megabytes(mb);
        let s = Searcher::new(
            &table,
            SearchOptions {
                threads,
                symmetry: std::env::var("NOSYM").is_err(),
                ..Default::default()
            },
        );
        let r = s.solve(&pos).unwrap();
        println!(
            "{pos} value {} nodes {} time {:.3}s",
            r.value,
            r.nodes,
            r.time.as_secs_f64()
        );
    }
}
