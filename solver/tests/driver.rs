//! The driver layer: answers as values (solved, or stopped with proven bounds), a game without
//! symmetry searched through the default policy, and a database plugged in as an oracle.

use std::fmt;
use tabula_engine::bilitaire::Position as Bilitaire;
use tabula_engine::pylos::{Position as Pylos, Rules, Takeback, Variant, WIN};
use tabula_engine::{Game, Keyed, Role, Scored};
use tabula_solver::driver::{refusal, Config, Driver, Limits, Proof, Solve};
use tabula_solver::minimax::minimax;
use tabula_solver::{AtomicTable, Backup, Evaluate, Keying, Oracle, SolvePolicy, TestShortcuts};

/// Take 1 to 3 from a pile; whoever takes the last wins (+1 for Max, -1 for Min). No symmetry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Pile {
    left: u32,
    max_to_move: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Take(u32);

impl fmt::Display for Take {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "take{}", self.0)
    }
}

impl Game for Pile {
    type Move = Take;
    fn legal_moves(&self, moves: &mut Vec<Take>) {
        moves.extend((1..=3.min(self.left)).map(Take));
    }
    fn play(&self, mv: Take) -> Pile {
        Pile {
            left: self.left - mv.0,
            max_to_move: !self.max_to_move,
        }
    }
}

impl Scored for Pile {
    const MIN_VALUE: i32 = -1;
    const MAX_VALUE: i32 = 1;
    const MAX_MOVES: usize = 3;
    fn to_move(&self) -> Role {
        if self.max_to_move {
            Role::Max
        } else {
            Role::Min
        }
    }
    fn terminal_value(&self) -> Option<i32> {
        // The player to move at an empty pile has lost.
        (self.left == 0).then_some(if self.max_to_move { -1 } else { 1 })
    }
    fn value_bounds(&self) -> (i32, i32) {
        self.terminal_value().map_or((-1, 1), |v| (v, v))
    }
}

impl Keyed for Pile {
    type Key = u64;
    fn key(&self) -> u64 {
        u64::from(self.left) << 1 | u64::from(self.max_to_move)
    }
}

impl Evaluate for Pile {
    fn evaluate(&self) -> i32 {
        self.terminal_value().unwrap_or(0)
    }
}
impl TestShortcuts for Pile {}
impl Backup for Pile {}
impl Keying for Pile {}
impl SolvePolicy for Pile {}

#[test]
fn a_game_without_symmetry_solves_as_minimax() {
    for left in 0..14 {
        let pos = Pile {
            left,
            max_to_move: left % 2 == 0,
        };
        let expected = minimax(&pos, &mut 10_000_000).expect("small");
        let table = AtomicTable::with_megabytes(1);
        match Driver::new(&table, Config::default(), Limits::none()).solve(&pos) {
            Solve::Solved { line, .. } => assert_eq!(line.value, expected, "{pos:?}"),
            other => panic!("{pos:?}: {other:?}"),
        }
    }
}

/// Knows every pile of at most 8 (a tablebase): the search stops there.
struct SmallPiles;

impl Oracle<Pile> for SmallPiles {
    fn probe(&self, pos: &Pile) -> Option<i32> {
        (pos.left <= 8).then(|| {
            let mover_wins = !pos.left.is_multiple_of(4);
            if mover_wins == pos.max_to_move {
                1
            } else {
                -1
            }
        })
    }
}

#[test]
fn an_oracle_answers_for_the_positions_it_holds() {
    let pos = Pile {
        left: 13,
        max_to_move: true,
    };
    fn solve<O: Oracle<Pile>>(driver: &Driver<AtomicTable, O>, pos: &Pile) -> (i32, u64) {
        match driver.solve(pos) {
            Solve::Solved { line, stats } => (line.value, stats.nodes),
            other => panic!("{other:?}"),
        }
    }
    let table = AtomicTable::with_megabytes(1);
    let plain = solve(
        &Driver::new(&table, Config::default(), Limits::none()),
        &pos,
    );
    let table = AtomicTable::with_megabytes(1);
    let with = solve(
        &Driver::with_oracle(&table, Config::default(), Limits::none(), SmallPiles),
        &pos,
    );
    assert_eq!(with.0, plain.0);
    assert_eq!(plain.0, 1, "13 is not a multiple of 4: the mover wins");
    assert!(with.1 < plain.1, "{with:?} against {plain:?}");
}

const BILITAIRE_23: &str =
    "oooo--oo/ooo.--oo/ooo.--oo/o...--oo/o.o.oooo/.....o.o/------../------oo s";

#[test]
fn a_stopped_solve_answers_with_bounds_that_hold() {
    let text = "--.o----/--..----/--..oo../--....o./--..----/--.o----/--..--.o/--.o--.. s";
    let pos = Bilitaire::parse(text).expect("position");
    let table = AtomicTable::with_megabytes(4);
    let Solve::Solved { line, .. } =
        Driver::new(&table, Config::default(), Limits::none()).solve(&pos)
    else {
        panic!("no limits")
    };
    let table = AtomicTable::with_megabytes(4);
    let limits = Limits {
        nodes: Some(3),
        ..Limits::none()
    };
    match Driver::new(&table, Config::default(), limits).solve(&pos) {
        Solve::Stopped {
            lower,
            upper,
            reason,
            ..
        } => {
            assert_eq!(reason, tabula_solver::Stop::Nodes);
            assert!(
                lower <= line.value && line.value <= upper,
                "{lower}..={upper}"
            );
        }
        Solve::Solved { .. } => {} // settled within the first flush: allowed
    }
    // Out of reach without a limit: refused; with one: may start.
    let big = Bilitaire::parse(BILITAIRE_23).expect("position");
    let start = Bilitaire::start();
    assert!(refusal(&big, &Limits::none()).is_none());
    assert!(refusal(&start, &Limits::none()).is_some());
    assert!(refusal(&start, &limits).is_none());
}

#[test]
fn prove_agrees_with_the_exact_solve_and_its_move_keeps_the_win() {
    let rules = Rules::new(Variant::Children, Takeback::Optional);
    for text in [
        "bwbw/bwbw/wbwb/wbwb|bw./w../...|../..|. b",
        "bwbw/wbwb/bwbw/wbw.|b../.../...|../..|. b",
    ] {
        let pos = Pylos::parse(text, rules).expect("position");
        let table = AtomicTable::with_megabytes(16);
        let driver = Driver::new(&table, Config::default(), Limits::none());
        let Solve::Solved { line, .. } = driver.solve(&pos) else {
            panic!("no limits")
        };
        let Proof::Proven { holds, best } = driver.prove(&pos, 1) else {
            panic!("no limits")
        };
        assert_eq!(holds, line.value > 0, "{text}");
        if holds {
            let child = pos.play(best.expect("black wins: a move keeps it"));
            let Solve::Solved { line: after, .. } = driver.solve(&child) else {
                panic!("no limits")
            };
            assert!(after.value > 0, "{text}");
        }
    }
}

#[test]
fn pylos_exact_payoffs_skip_the_gap_around_zero() {
    let pos = Pylos::start(Rules::new(Variant::Children, Takeback::Optional));
    let rem = pos
        .max_remaining_plies()
        .expect("children rules are bounded");
    assert_eq!(pos.exact_at_least(1), WIN - rem);
    assert_eq!(pos.exact_at_most(0), -(WIN - rem));
    assert_eq!(pos.exact_at_least(WIN - 3), WIN - 3);
    let standard = Pylos::start(Rules::default());
    assert_eq!(standard.exact_at_least(1), 1);
}
