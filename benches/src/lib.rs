//! Benchmarks live in `benches/`; this library holds the fixed position suites they share.

pub mod run;

use tabula_engine::bilitaire::{Move, Position, Side};
use tabula_engine::playout::{random_playout, Rng};
use tabula_engine::{Game, Role, Scored};
use tabula_solver::driver::{Analysis, Config, Driver, Limits};
use tabula_solver::{AtomicTable, Evaluate};

/// Mid-game Bi-litaire positions with perft counts confirmed by the independent Python model
/// (`scripts/bilitaire_perft.py`, copied from `engine/tests/data/bilitaire.perft`):
/// (name, position, depth, nodes).
pub const BILITAIRE_MIDGAME: &[(&str, &str, u32, u64)] = &[
    (
        "mid-slider-35-balls-d4",
        "oo----oo/oo----oo/oo--oooo/oo--o..o/oo..oooo/oooo.ooo/----o.oo/----..o. s",
        4,
        88_646,
    ),
    (
        "mid-ball-28-balls-d4",
        "oooo----/oooo----/ooooo.oo/o..oo..o/o.--.o../..--..../oo..--../ooo.--oo b",
        4,
        162_586,
    ),
    (
        "announce-slider-29-balls-d4",
        "oooo--oo/ooo.--oo/ooo.--oo/o...--oo/o.o.oooo/.....o.o/------../------oo s",
        4,
        40_215,
    ),
    (
        "late-ball-11-balls-d6",
        ".o------/.o------/..--oo--/o.--.o--/----o.--/----..--/----...o/----o.oo b",
        6,
        156_966,
    ),
];

/// The slider-to-move position with exactly `balls` balls in the random game of `seed`, if
/// that game has one.
pub fn bilitaire_random_position(seed: u64, balls: u32) -> Option<Position> {
    random_playout(&Position::start(), seed, |p| p.ball_count() <= balls)
        .filter(|p| p.ball_count() == balls && p.side() == Side::Slider)
}

/// The fixed suite: the first `count` random games (seeds from `1000 * balls`) that pass
/// through a slider-to-move position with `balls` balls.
pub fn bilitaire_suite(balls: u32, count: usize) -> Vec<Position> {
    (0..)
        .filter_map(|i| bilitaire_random_position(1000 * u64::from(balls) + i, balls))
        .take(count)
        .collect()
}

/// How the games of a Bi-litaire suite are played (issue 17: suites from more than one kind of
/// play, so that speed is measured on positions the search was not tuned on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BilitaireGenerator {
    /// Uniformly random legal moves ([`random_playout`]).
    Random,
    /// Both sides play the engine's choice under [`ENGINE_PLAY_NODES`] nodes of iterative
    /// deepening, except that one move in [`ENGINE_PLAY_SWERVE`] is a seeded random pick among
    /// the three best by the static evaluation; the opening removal is a seeded random ball.
    Engine,
    /// The ball player plays as in [`BilitaireGenerator::Engine`], the slider at random: games
    /// where the ball player keeps jumping, whose positions have low values (the slow kind in
    /// the measurements). Engine-against-engine games reach 23 balls with the slider
    /// about to end the round (values 17–23).
    Jumper,
}

/// The node budget of one move of [`BilitaireGenerator::Engine`]: about depth 5 (an analysis
/// of the position after the opening removal `xc1` finished depth 5 at 4,720 nodes). The three
/// engine suite files took 17 s to generate, the three jumper ones 8 s (release build).
pub const ENGINE_PLAY_NODES: u64 = 5_000;

/// One move in this many of [`BilitaireGenerator::Engine`] is a seeded pick among the three
/// best moves by the static evaluation, so that games from different seeds differ.
pub const ENGINE_PLAY_SWERVE: usize = 5;

impl BilitaireGenerator {
    pub const ALL: [BilitaireGenerator; 3] = [
        BilitaireGenerator::Random,
        BilitaireGenerator::Engine,
        BilitaireGenerator::Jumper,
    ];

    /// The name used in file names and reports: `random`, `engine`, `jumper`.
    pub fn name(self) -> &'static str {
        match self {
            BilitaireGenerator::Random => "random",
            BilitaireGenerator::Engine => "engine",
            BilitaireGenerator::Jumper => "jumper",
        }
    }

    /// The generator of a name given by [`BilitaireGenerator::name`].
    pub fn from_name(name: &str) -> Option<BilitaireGenerator> {
        BilitaireGenerator::ALL
            .into_iter()
            .find(|g| g.name() == name)
    }

    /// The first seed of the suite of `balls` balls (disjoint ranges per size and generator).
    fn first_seed(self, balls: u32) -> u64 {
        let base = match self {
            BilitaireGenerator::Random => 1_000_000,
            BilitaireGenerator::Engine => 2_000_000,
            BilitaireGenerator::Jumper => 3_000_000,
        };
        base + 1000 * u64::from(balls)
    }

    /// The next move of the game of this generator at `pos` (which is not over).
    fn choose(self, pos: &Position, rng: &mut Rng) -> Move {
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        match self {
            BilitaireGenerator::Random => moves[rng.below(moves.len())],
            BilitaireGenerator::Engine | BilitaireGenerator::Jumper => {
                let random_slider =
                    self == BilitaireGenerator::Jumper && pos.side() == Side::Slider;
                if pos.side() == Side::OpeningRemoval || random_slider {
                    return moves[rng.below(moves.len())];
                }
                if rng.below(ENGINE_PLAY_SWERVE) == 0 {
                    return near_best_by_evaluation(pos, &moves, rng);
                }
                engine_move(pos).unwrap_or_else(|| near_best_by_evaluation(pos, &moves, rng))
            }
        }
    }
}

/// A seeded pick among the (up to) three moves whose children the static evaluation likes best
/// for the side to move.
fn near_best_by_evaluation(pos: &Position, moves: &[Move], rng: &mut Rng) -> Move {
    let sign = if pos.to_move() == Role::Max { -1 } else { 1 };
    let mut scored: Vec<(i32, usize)> = moves
        .iter()
        .enumerate()
        .map(|(i, &mv)| (sign * pos.play(mv).evaluate(), i))
        .collect();
    scored.sort_unstable();
    let top = scored.len().min(3);
    moves[scored[rng.below(top)].1]
}

/// The engine's move under [`ENGINE_PLAY_NODES`] nodes (one thread, a fresh 1 MiB table: the
/// same move on every machine).
fn engine_move(pos: &Position) -> Option<Move> {
    let table = AtomicTable::with_megabytes(1);
    let limits = Limits {
        nodes: Some(ENGINE_PLAY_NODES),
        ..Limits::none()
    };
    let config = Config {
        threads: 1,
        ..Config::default()
    };
    match Driver::new(&table, config, limits).analyze(pos, 64, |_| {}) {
        Analysis::Exact { line, .. } | Analysis::Estimate { line, .. } => line.best,
        Analysis::Stopped { .. } => None,
    }
}

/// Which position of a game a suite takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuiteSide {
    /// The slider to move, with exactly the suite's number of balls.
    Slider,
    /// The ball player to move right after that slider position (the slider's move played, an
    /// announcement or none), the round not over.
    Ball,
}

/// The position of the game of `generator` from `seed` with exactly `balls` balls and `side` to
/// move, if that game has one (a chain can skip a count; the round can end first).
pub fn bilitaire_game_position(
    generator: BilitaireGenerator,
    seed: u64,
    balls: u32,
    side: SuiteSide,
) -> Option<Position> {
    let mut rng = Rng::new(seed);
    let mut pos = Position::start();
    while !pos.is_over() {
        if pos.side() == Side::Slider && pos.ball_count() <= balls {
            if pos.ball_count() < balls {
                return None;
            }
            return match side {
                SuiteSide::Slider => Some(pos),
                SuiteSide::Ball => {
                    Some(pos.play(generator.choose(&pos, &mut rng))).filter(|p| !p.is_over())
                }
            };
        }
        pos = pos.play(generator.choose(&pos, &mut rng));
    }
    None
}

/// The suite of `count` positions with `balls` balls from `generator`: games from consecutive
/// seeds, even ones giving their slider-to-move position and odd ones their ball-player-to-move
/// position; games without one are skipped. Deterministic: the same list on every machine.
pub fn bilitaire_generated_suite(
    generator: BilitaireGenerator,
    balls: u32,
    count: usize,
) -> Vec<Position> {
    let first = generator.first_seed(balls);
    (0..)
        .filter_map(|i: u64| {
            let side = if i.is_multiple_of(2) {
                SuiteSide::Slider
            } else {
                SuiteSide::Ball
            };
            bilitaire_game_position(generator, first + i, balls, side)
        })
        .take(count)
        .collect()
}

/// The committed suites (`benches/data/bilitaire-GENERATOR-BALLS.txt`, written by
/// `cargo run --release -p tabula-benches --example bilitaire_suites -- generate GEN BALLS 50`):
/// `(generator, balls, file text)`. The engine's and the jumper's games follow the search's
/// choices under a node budget, so a later search may play other games from the same seeds:
/// the files, made at the commit that added them, are the suites.
pub const BILITAIRE_SUITE_FILES: &[(&str, u32, &str)] = &[
    (
        "random",
        23,
        include_str!("../data/bilitaire-random-23.txt"),
    ),
    (
        "random",
        27,
        include_str!("../data/bilitaire-random-27.txt"),
    ),
    (
        "random",
        31,
        include_str!("../data/bilitaire-random-31.txt"),
    ),
    (
        "engine",
        23,
        include_str!("../data/bilitaire-engine-23.txt"),
    ),
    (
        "engine",
        27,
        include_str!("../data/bilitaire-engine-27.txt"),
    ),
    (
        "engine",
        31,
        include_str!("../data/bilitaire-engine-31.txt"),
    ),
    (
        "jumper",
        23,
        include_str!("../data/bilitaire-jumper-23.txt"),
    ),
    (
        "jumper",
        27,
        include_str!("../data/bilitaire-jumper-27.txt"),
    ),
    (
        "jumper",
        31,
        include_str!("../data/bilitaire-jumper-31.txt"),
    ),
];

/// The positions of a suite file: one position string a line; `#` starts a comment line.
pub fn parse_suite_file(text: &str) -> Result<Vec<Position>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| Position::parse(l.trim()).map_err(|e| format!("line {}: {e}", i + 1)))
        .collect()
}

/// The committed suite of `generator` at `balls` balls, if there is one.
pub fn bilitaire_committed_suite(
    generator: BilitaireGenerator,
    balls: u32,
) -> Option<Vec<Position>> {
    BILITAIRE_SUITE_FILES
        .iter()
        .find(|(g, b, _)| *g == generator.name() && *b == balls)
        .map(|(_, _, text)| parse_suite_file(text).expect("committed suite files parse"))
}

/// A fixed suite of children's-rules Pylos positions: the first `count` random games (seeds
/// from `1000 * balls`) that pass through a position, not yet decided, with `balls` balls on the
/// board.
pub fn pylos_children_suite(balls: u32, count: usize) -> Vec<tabula_engine::pylos::Position> {
    use tabula_engine::pylos::{Position, Rules, Takeback, Variant};
    let start = Position::start(Rules::new(Variant::Children, Takeback::Optional));
    (0..)
        .filter_map(|i| {
            random_playout(&start, 1000 * u64::from(balls) + i, |p: &Position| {
                p.occupied().count_ones() >= balls
            })
            .filter(|p| p.occupied().count_ones() == balls && !p.is_over())
        })
        .take(count)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn committed(gen: &str, balls: u32) -> Vec<Position> {
        let generator = BilitaireGenerator::from_name(gen).expect("known generator");
        bilitaire_committed_suite(generator, balls).expect("committed suite")
    }

    /// Every committed suite holds at least 50 distinct positions with exactly its number of
    /// balls, not over, and both sides to move.
    #[test]
    fn committed_suites_are_well_formed() {
        assert_eq!(BILITAIRE_SUITE_FILES.len(), 9);
        for &(gen, balls, _) in BILITAIRE_SUITE_FILES {
            let suite = committed(gen, balls);
            assert!(suite.len() >= 50, "{gen} {balls}: {}", suite.len());
            let mut seen = std::collections::HashSet::new();
            for pos in &suite {
                assert_eq!(pos.ball_count(), balls, "{gen} {balls}: {pos}");
                assert!(!pos.is_over(), "{gen} {balls}: {pos}");
                assert!(seen.insert(pos.key()), "{gen} {balls}: {pos} twice");
            }
            let sliders = suite.iter().filter(|p| p.side() == Side::Slider).count();
            assert!(
                sliders > 0 && sliders < suite.len(),
                "{gen} {balls}: {sliders} slider positions"
            );
        }
    }

    /// The random suites are what the generator makes: their first positions, regenerated.
    /// (The engine's and the jumper's games follow the search's choices, which change with the
    /// search: their files, not the generator, are the suite.)
    #[test]
    fn random_suites_are_reproducible() {
        for balls in [23, 27, 31] {
            let made = bilitaire_generated_suite(BilitaireGenerator::Random, balls, 10);
            assert_eq!(made, committed("random", balls)[..10], "random {balls}");
        }
    }

    #[test]
    fn suite_file_errors_name_the_line() {
        let err = parse_suite_file("# header\n\nnot a position\n").unwrap_err();
        assert!(err.starts_with("line 3:"), "{err}");
        assert_eq!(parse_suite_file("# only a header\n"), Ok(Vec::new()));
    }
}
