use tabula_engine::bilitaire::Position;
use tabula_solver::{AtomicTable, SearchOptions, Searcher};
fn main() {
    let text = std::env::args().nth(1).unwrap();
    let threads: usize = std::env::args()
        .nth(2)
        .map(|t| t.parse().unwrap())
        .unwrap_or(1);
    let pos = Position::parse(&text).unwrap();
    let table = AtomicTable::with_megabytes(256);
    let s = Searcher::new(
        &table,
        SearchOptions {
            threads,
            ..Default::default()
        },
    );
    let r = s.solve(&pos).unwrap();
    println!(
        "value {} nodes {} time {:?} pv {}",
        r.value,
        r.nodes,
        r.time,
        r.pv.iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
}
