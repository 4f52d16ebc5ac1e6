//! Benchmarks live in `benches/`; this library holds the fixed position suites they share.

/// Mid-game Bi-litaire positions with perft counts confirmed by the independent Python model
/// (`scripts/bilitaire_perft.py`): (name, position, depth, nodes).
pub const BILITAIRE_MIDGAME: &[(&str, &str, u32, u64)] = &[];
