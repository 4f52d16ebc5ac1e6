//! [`PylosSpace`], Pylos's [`Retrograde`] index space, against the contract of
//! `tabula_engine::retro`: rank/unrank a bijection between indices with `Some` and classes of
//! positions (the whole 3×3 space, samples of the full board's), children and un-moves each
//! other's inverse, primitive exactly at the end of the game.

use std::collections::HashSet;
use tabula_engine::pylos::rank::Indexer;
use tabula_engine::pylos::{Board, Cell, Color, Move, Position, PylosSpace, Rules};
use tabula_engine::retro::{Outcome, Retrograde};
use tabula_engine::{Game, Symmetric, D4};

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Positions from random play-outs (a mix of plain moves and take-backs).
fn sample(rules: Rules, games: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::start(rules);
        for _ in 0..60 {
            out.push(pos);
            let mut all = Vec::new();
            pos.legal_moves(&mut all);
            if all.is_empty() {
                break;
            }
            let plain: Vec<Move> = all.iter().copied().filter(|m| m.taken() == 0).collect();
            let mv = if !plain.is_empty() && rng.below(10) < 7 {
                plain[rng.below(plain.len())]
            } else {
                all[rng.below(all.len())]
            };
            pos = pos.play(mv);
        }
    }
    out
}

/// The class of a position: its 8 images, and theirs with the colours and the side to move
/// swapped.
fn class(pos: &Position) -> HashSet<Position> {
    let swapped = Position::from_masks(
        pos.balls(Color::White),
        pos.balls(Color::Black),
        pos.turn().opponent(),
        pos.rules(),
    )
    .expect("a legal position swapped is legal");
    D4::ALL
        .iter()
        .flat_map(|&s| [pos.transformed(s), swapped.transformed(s)])
        .collect()
}

/// Every legal position of a board: the masks of the plain indexer, without the positions
/// whose apex ball is the side to move's.
fn every_position(rules: Rules) -> Vec<Position> {
    let indexer = Indexer::for_board(rules.board);
    (0..indexer.count())
        .filter_map(|i| indexer.unrank(i, rules))
        .filter(|p| p.balls(p.turn()) & rules.board.apex() == 0)
        .collect()
}

#[test]
fn the_small_space_is_a_bijection_onto_the_classes() {
    for rules in Rules::all_on(Board::Three) {
        let space = PylosSpace::new(rules);
        let mut canonical = 0u64;
        for i in 0..space.size() {
            if let Some(pos) = space.unrank(i) {
                assert_eq!(space.rank(&pos), i, "{pos}");
                assert_eq!(pos.rules(), rules);
                canonical += 1;
            }
        }
        assert_eq!(space.unrank(space.size()), None);
        let mut ranks = HashSet::new();
        let all = every_position(rules);
        for pos in &all {
            let i = space.rank(pos);
            assert!(i < space.size());
            let rep = space
                .unrank(i)
                .unwrap_or_else(|| panic!("{pos}: rank {i} is a hole"));
            assert!(class(pos).contains(&rep), "{pos}: {rep} not in its class");
            ranks.insert(i);
        }
        // Every class has exactly one index, and every index with a position is a class.
        assert_eq!(ranks.len() as u64, canonical);
        // The classes partition the positions.
        let sizes: usize = ranks
            .iter()
            .map(|&i| class(&space.unrank(i).unwrap()).len())
            .sum();
        assert_eq!(sizes, all.len());
        assert!(space.context().starts_with("game=pylos;board=3;rules="));
    }
}

#[test]
fn the_full_space_ranks_samples_into_their_class() {
    let rules = Rules::default();
    let space = PylosSpace::new(rules);
    for pos in sample(rules, 20, 3) {
        let i = space.rank(&pos);
        let rep = space.unrank(i).expect("a position's rank is no hole");
        assert!(class(&pos).contains(&rep), "{pos}");
        assert_eq!(space.rank(&rep), i);
    }
    // Indices spread over the whole range: every one with a position round-trips.
    let step = space.size() / 50_021 + 1;
    let mut found = 0;
    let mut i = 0;
    while i < space.size() {
        if let Some(pos) = space.unrank(i) {
            assert_eq!(space.rank(&pos), i, "{pos}");
            found += 1;
        }
        i += step;
    }
    // Holes are the non-canonical colourings of symmetric patterns (heavy: the fullest
    // patterns are symmetric and have the most colourings) and the positions whose apex is
    // the mover's: about a third of the space (measured: 36% of these samples).
    assert!(found > 50_021 / 2, "{found}");
}

/// The contract between children and parents on `positions`.
fn check_moves_and_unmoves(space: &PylosSpace, positions: &[Position]) -> (usize, usize) {
    let (mut children_seen, mut parents_seen) = (0, 0);
    for pos in positions {
        let me = space.rank(pos);
        let mut children = Vec::new();
        space.children(pos, &mut children);
        assert_eq!(space.primitive(pos).is_some(), pos.is_over(), "{pos}");
        if pos.is_over() {
            assert_eq!(space.primitive(pos), Some(Outcome::Loss));
            assert!(children.is_empty());
        }
        let distinct: HashSet<u64> = children.iter().copied().collect();
        assert_eq!(distinct.len(), children.len(), "{pos}: repeated child");
        for &c in &children {
            let child = space.unrank(c).expect("a child index is a position");
            let mut parents = Vec::new();
            space.parents(&child, &mut parents);
            assert!(
                parents.contains(&me),
                "{pos}: not among the un-moves of its child {child}"
            );
            children_seen += 1;
        }
        let mut parents = Vec::new();
        space.parents(pos, &mut parents);
        let distinct: HashSet<u64> = parents.iter().copied().collect();
        assert_eq!(distinct.len(), parents.len(), "{pos}: repeated parent");
        for &q in &parents {
            let parent = space.unrank(q).expect("a parent index is a position");
            assert!(space.primitive(&parent).is_none(), "{parent} is over");
            let mut back = Vec::new();
            space.children(&parent, &mut back);
            assert!(
                back.contains(&me),
                "{pos}: parent {parent} has no move to it"
            );
            parents_seen += 1;
        }
    }
    (children_seen, parents_seen)
}

#[test]
fn children_and_unmoves_agree_on_random_positions_of_both_boards() {
    for board in Board::ALL {
        for (k, rules) in Rules::all_on(board).into_iter().enumerate() {
            let space = PylosSpace::new(rules);
            let games = if board == Board::Four { 2 } else { 20 };
            let positions: Vec<Position> = sample(rules, games, 40 + k as u64)
                .into_iter()
                .step_by(3)
                .collect();
            let (c, p) = check_moves_and_unmoves(&space, &positions);
            assert!(c > 100 && p > 100, "{rules}: {c} children, {p} parents");
        }
    }
}

#[test]
fn children_and_unmoves_agree_on_the_whole_small_board() {
    for rules in [
        Rules::all_on(Board::Three)[2],
        Rules::all_on(Board::Three)[5],
    ] {
        let space = PylosSpace::new(rules);
        let positions: Vec<Position> = (0..space.size()).filter_map(|i| space.unrank(i)).collect();
        let (c, p) = check_moves_and_unmoves(&space, &positions);
        // Each (parent, child) pair is seen from both sides.
        assert_eq!(c, p, "{rules}");
    }
}

/// `Position::is_legal` (a membership test without listing moves; the un-moves' predecessor
/// check) against the generator's list: every listed move, and every other move built from a
/// listed move's source and target with any take-back of at most two cells, or from any
/// source and target without one.
#[test]
fn is_legal_is_membership_in_the_generated_list() {
    let mut checked = 0usize;
    for board in Board::ALL {
        for (k, rules) in Rules::all_on(board).into_iter().enumerate() {
            let games = if board == Board::Four { 2 } else { 10 };
            for pos in sample(rules, games, 90 + k as u64).into_iter().step_by(2) {
                let mut moves = Vec::new();
                pos.legal_moves(&mut moves);
                let listed: HashSet<Move> = moves.iter().copied().collect();
                let mut bases: HashSet<Move> = HashSet::new();
                for to in (0..30).filter_map(Cell::from_index) {
                    bases.insert(Move::place(to));
                    for from in (0..30).filter_map(Cell::from_index) {
                        bases.insert(Move::raise(from, to));
                    }
                }
                for base in bases {
                    let mut taken = vec![0u32];
                    for a in 0..30 {
                        taken.push(1 << a);
                        for b in a + 1..30 {
                            taken.push(1 << a | 1 << b);
                        }
                    }
                    // Every take-back after a legal base; the base alone otherwise.
                    let with_takebacks = moves.iter().any(|m| m.with_taken(0) == base);
                    let masks: &[u32] = if with_takebacks { &taken } else { &taken[..1] };
                    for &t in masks {
                        let mv = base.with_taken(t);
                        assert_eq!(
                            pos.is_legal(mv),
                            listed.contains(&mv),
                            "{rules}: {pos}: {mv}"
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 100_000, "{checked}");
}

#[test]
fn primitive_positions_are_the_ends_of_the_game() {
    let rules = Rules::default().on(Board::Three);
    let space = PylosSpace::new(rules);
    let full = Position::parse("bwb/wbw/bwb|bw/wb|w b", rules).unwrap();
    assert_eq!(space.primitive(&full), Some(Outcome::Loss));
    let stuck = Position::parse("bwb/wbw/bwb|bw/wb|. b", rules).unwrap();
    assert_eq!(space.primitive(&stuck), Some(Outcome::Loss));
    let last = Position::parse("bwb/wbw/bwb|bw/wb|. w", rules).unwrap();
    assert_eq!(space.primitive(&last), None);
    let mut children = Vec::new();
    space.children(&last, &mut children);
    assert_eq!(children, vec![space.rank(&full)]);
    // The start has no parent; the position after one ball has the start as its only one.
    let start = Position::start(rules);
    let mut parents = Vec::new();
    space.parents(&start, &mut parents);
    assert!(parents.is_empty());
    let one = Position::parse("b../.../...|../..|. w", rules).unwrap();
    space.parents(&one, &mut parents);
    assert_eq!(parents, vec![space.rank(&start)]);
}
