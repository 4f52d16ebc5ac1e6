//! One harness for every perft data file in `tests/data/`.
//!
//! File format, one position a line: `<position string> ; <depth> <nodes> ; <depth> <nodes> …`.
//! Blank lines and lines starting with `#` are ignored. Every count in these files was confirmed
//! by an independent computation (see the header of each file for which one).

use std::path::Path;
use tabula_engine::perft::perft;
use tabula_engine::Game;

/// Checks every count of a data file, skipping counts above `max_nodes` (deep counts stay in the
/// file as documentation and run with `--ignored`-style environment `TABULA_PERFT_ALL=1`).
pub fn run_perft_file<G: Game>(file: &str, parse: impl Fn(&str) -> Result<G, String>) {
    run_perft_file_capped(file, 20_000_000, parse)
}

/// [`run_perft_file`] with another cap on the counts checked without `TABULA_PERFT_ALL=1`.
pub fn run_perft_file_capped<G: Game>(
    file: &str,
    cap: u64,
    parse: impl Fn(&str) -> Result<G, String>,
) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let all = std::env::var_os("TABULA_PERFT_ALL").is_some();
    let max_nodes: u64 = if all { u64::MAX } else { cap };
    let mut checked = 0;
    for (lineno, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split(';').map(str::trim);
        let fen = fields.next().expect("position field");
        let pos = parse(fen).unwrap_or_else(|e| panic!("{file}:{}: {fen}: {e}", lineno + 1));
        for field in fields {
            let mut parts = field.split_whitespace();
            let depth: u32 = parts.next().and_then(|d| d.parse().ok()).expect("depth");
            let nodes: u64 = parts.next().and_then(|n| n.parse().ok()).expect("nodes");
            if nodes > max_nodes {
                continue;
            }
            assert_eq!(
                perft(&pos, depth),
                nodes,
                "{file}:{}: perft {depth} of {fen}",
                lineno + 1
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "{file}: no count checked");
}

#[test]
fn bilitaire_standard() {
    use tabula_engine::bilitaire::Position;
    run_perft_file("bilitaire.perft", |s| {
        Position::parse(s).map_err(|e| e.to_string())
    });
}

#[test]
fn bilitaire_free_chains() {
    use tabula_engine::bilitaire::{Position, Rules};
    let rules = Rules { free_chains: true };
    run_perft_file("bilitaire-free-chains.perft", |s| {
        Position::parse_with(s, rules).map_err(|e| e.to_string())
    });
}

fn pylos_file(file: &str, variant: &str, takeback: &str) {
    use tabula_engine::pylos::{Board, Position, Rules};
    // The 3×3 files hold many deep counts (every one confirmed by the model): a lower cap
    // keeps each test to seconds.
    let (board, cap) = if file.starts_with("pylos3-") {
        (Board::Three, 2_000_000)
    } else {
        (Board::Four, 20_000_000)
    };
    let rules = Rules::new(variant.parse().unwrap(), takeback.parse().unwrap()).on(board);
    run_perft_file_capped(file, cap, |s| {
        Position::parse(s, rules).map_err(|e| e.to_string())
    });
}

#[test]
fn pylos_children_optional() {
    pylos_file("pylos-children-optional.perft", "children", "optional");
}

#[test]
fn pylos_children_compulsory() {
    pylos_file("pylos-children-compulsory.perft", "children", "compulsory");
}

#[test]
fn pylos_standard_optional() {
    pylos_file("pylos-standard-optional.perft", "standard", "optional");
}

#[test]
fn pylos_standard_compulsory() {
    pylos_file("pylos-standard-compulsory.perft", "standard", "compulsory");
}

#[test]
fn pylos_mature_optional() {
    pylos_file("pylos-mature-optional.perft", "mature", "optional");
}

#[test]
fn pylos_mature_compulsory() {
    pylos_file("pylos-mature-compulsory.perft", "mature", "compulsory");
}

#[test]
fn pylos3_children_optional() {
    pylos_file("pylos3-children-optional.perft", "children", "optional");
}

#[test]
fn pylos3_children_compulsory() {
    pylos_file("pylos3-children-compulsory.perft", "children", "compulsory");
}

#[test]
fn pylos3_standard_optional() {
    pylos_file("pylos3-standard-optional.perft", "standard", "optional");
}

#[test]
fn pylos3_standard_compulsory() {
    pylos_file("pylos3-standard-compulsory.perft", "standard", "compulsory");
}

#[test]
fn pylos3_mature_optional() {
    pylos_file("pylos3-mature-optional.perft", "mature", "optional");
}

#[test]
fn pylos3_mature_compulsory() {
    pylos_file("pylos3-mature-compulsory.perft", "mature", "compulsory");
}
