//! Pylos properties checked against independent facts: distinct moves, bulk count = generated
//! count, perft invariant under the 8 symmetries, notation and position-string round trips,
//! legality checks agreeing with the generator, and the take-back rules on hand-made positions.

use std::collections::HashSet;
use tabula_engine::perft::perft;
use tabula_engine::pylos::rank::Indexer;
use tabula_engine::pylos::{
    self, Board, Cell, Color, IllegalMove, Move, Position, Rules, Takeback, Variant, START, START3,
};
use tabula_engine::{Game, Keyed, Scored, Symmetric, D4};

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn moves(pos: &Position) -> Vec<Move> {
    let mut v = Vec::new();
    pos.legal_moves(&mut v);
    v
}

/// Positions from random play-outs under `rules` (mostly without take-backs, so the pyramid grows).
fn sample(rules: Rules, games: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::start(rules);
        loop {
            out.push(pos);
            let all = moves(&pos);
            if all.is_empty() {
                break;
            }
            let plain: Vec<Move> = all.iter().copied().filter(|m| m.taken() == 0).collect();
            let mv = if !plain.is_empty() && rng.below(10) < 8 {
                plain[rng.below(plain.len())]
            } else {
                all[rng.below(all.len())]
            };
            pos = pos.play(mv);
            if out.len() % 200 == 199 {
                break;
            }
        }
    }
    out
}

/// Every rule set on both boards.
fn rules_all() -> Vec<Rules> {
    Board::ALL.into_iter().flat_map(Rules::all_on).collect()
}

#[test]
fn moves_are_distinct_and_counted_exactly() {
    let mut terminal = 0;
    let mut with_takeback = 0;
    for (i, rules) in rules_all().into_iter().enumerate() {
        for pos in sample(rules, 40, i as u64 + 1) {
            let ms = moves(&pos);
            let set: HashSet<Move> = ms.iter().copied().collect();
            assert_eq!(set.len(), ms.len(), "duplicate move in {pos}");
            assert_eq!(pos.count_moves(), ms.len() as u64, "{pos} {rules}");
            assert_eq!(pos.is_terminal(), ms.is_empty(), "{pos}");
            if ms.is_empty() {
                terminal += 1;
                // The player to move has lost.
                let expected = if pos.turn() == Color::Black {
                    -pylos::WIN
                } else {
                    pylos::WIN
                };
                assert_eq!(pos.terminal_value(), Some(expected));
            } else {
                assert_eq!(pos.terminal_value(), None);
            }
            for mv in &ms {
                assert!(mv.taken().count_ones() <= 2);
                if mv.taken() != 0 {
                    with_takeback += 1;
                    assert_ne!(rules.variant, Variant::Children);
                }
                // Notation round trip, and the checker agrees.
                let text = mv.to_string();
                assert_eq!(pos.parse_move(&text), Ok(*mv), "{pos}: {text}");
                let next = pos.play(*mv);
                assert_eq!(next.turn(), pos.turn().opponent());
                assert_eq!(Position::parse(&next.to_string(), rules), Ok(next));
            }
        }
    }
    assert!(terminal > 10, "play-outs should end: {terminal}");
    assert!(
        with_takeback > 1000,
        "take-backs should occur: {with_takeback}"
    );
}

#[test]
fn compulsory_is_optional_minus_the_empty_take_back() {
    for (v, (variant, board)) in [Variant::Standard, Variant::Mature]
        .into_iter()
        .flat_map(|v| Board::ALL.map(|b| (v, b)))
        .enumerate()
    {
        let opt = Rules::new(variant, Takeback::Optional).on(board);
        let comp = Rules::new(variant, Takeback::Compulsory).on(board);
        for pos in sample(opt, 30, 100 + v as u64) {
            let a: HashSet<Move> = moves(&pos).into_iter().collect();
            let b: HashSet<Move> = moves(&pos.with_rules(comp)).into_iter().collect();
            assert!(b.is_subset(&a));
            for m in a.difference(&b) {
                // Only "complete a pattern and take nothing" disappears.
                assert_eq!(m.taken(), 0);
                assert!(b.iter().any(|x| x.with_taken(0) == *m));
            }
            // Children rules: the same moves without take-backs.
            let c: HashSet<Move> =
                moves(&pos.with_rules(Rules::new(Variant::Children, Takeback::Optional).on(board)))
                    .into_iter()
                    .collect();
            let bases: HashSet<Move> = a.iter().map(|m| m.with_taken(0)).collect();
            assert_eq!(c, bases);
        }
    }
}

#[test]
fn perft_is_invariant_under_symmetry() {
    for (i, rules) in rules_all().into_iter().enumerate() {
        for pos in sample(rules, 3, 50 + i as u64).into_iter().step_by(7) {
            let base = perft(&pos, 3);
            let key = pos.canonical_key();
            for sym in D4::ALL {
                let image = pos.transformed(sym);
                assert_eq!(perft(&image, 3), base, "{pos} under {sym:?}");
                assert_eq!(image.canonical_key(), key);
                assert_eq!(image.transformed(sym.inverse()), pos);
            }
        }
    }
}

#[test]
fn keys_are_exact_and_rank_round_trips() {
    let indexers = Board::ALL.map(Indexer::for_board);
    // One map for both boards: keys never meet across boards or rules.
    let mut keys = std::collections::HashMap::new();
    for (i, rules) in rules_all().into_iter().enumerate() {
        let indexer = &indexers[rules.board as usize];
        for pos in sample(rules, 10, 200 + i as u64) {
            if let Some(other) = keys.insert(pos.key(), pos) {
                assert_eq!(other, pos);
            }
            assert_eq!(indexer.unrank(indexer.rank(&pos), rules), Some(pos));
        }
    }
}

#[test]
fn checker_rejects_exactly_the_illegal_moves() {
    let rules = Rules::new(Variant::Mature, Takeback::Compulsory);
    let small = sample(rules.on(Board::Three), 4, 8).into_iter().step_by(3);
    for pos in sample(rules, 4, 7).into_iter().step_by(5).chain(small) {
        let legal: HashSet<Move> = moves(&pos).into_iter().collect();
        let own = pos.balls(pos.turn());
        let sources: Vec<Option<Cell>> = std::iter::once(None)
            .chain(Cell::iter_mask(own).map(Some))
            .collect();
        for &from in &sources {
            for to in Cell::all() {
                let base = match from {
                    Some(f) => Move::raise(f, to),
                    None => Move::place(to),
                };
                let pool = own | to.bit();
                let cells: Vec<Cell> = Cell::iter_mask(pool).collect();
                let mut takes = vec![0u32];
                for (i, a) in cells.iter().enumerate() {
                    takes.push(a.bit());
                    for b in &cells[i + 1..] {
                        takes.push(a.bit() | b.bit());
                    }
                }
                for t in takes {
                    let mv = base.with_taken(t);
                    let ok = pos.check_move(mv).is_ok();
                    assert_eq!(ok, legal.contains(&mv), "{pos}: {mv}");
                }
            }
        }
    }
}

fn parse(text: &str, variant: Variant, takeback: Takeback) -> Position {
    Position::parse(text, Rules::new(variant, takeback)).unwrap()
}

#[test]
fn start_position_and_public_counts() {
    for rules in Rules::ALL {
        let pos = Position::parse(START, rules).unwrap();
        assert_eq!(pos, Position::start(rules));
        let counts: Vec<u64> = (1..=5).map(|d| perft(&pos, d)).collect();
        assert_eq!(counts, [16, 240, 3360, 43680, 524376]);
    }
}

#[test]
fn takeback_sets_on_a_level_two_square() {
    // Black fills 2b2, completing the level-2 square: 4 free level-2 balls, and the black
    // corners 1a1, 1c1, 1c3 each covered by a single level-2 ball.
    let text = "bwbw/wbwb/bwbw/wbww|wwb/wbw/bwb|b./bb|. b";
    let pos = parse(text, Variant::Standard, Takeback::Compulsory);
    let ms: Vec<String> = moves(&pos).iter().map(|m| m.to_string()).collect();
    assert_eq!(ms.len(), 4 + 6 + 3);
    assert!(ms.contains(&"2b2x2b2".to_string()));
    assert!(ms.contains(&"2b2x2b2x1c3".to_string()));
    assert!(ms.contains(&"2b2x2a1x1a1".to_string()));
    assert!(!ms.contains(&"2b2x2a1x1c3".to_string()));
    let opt = pos.with_rules(Rules::new(Variant::Standard, Takeback::Optional));
    assert_eq!(opt.count_moves(), 14);
    assert!(pos.parse_move("2b2").is_err(), "compulsory take-back");
    assert!(opt.parse_move("2b2").is_ok());
    // Taken in either order.
    assert_eq!(pos.parse_move("2b2x1c3x2b2"), pos.parse_move("2b2x2b2x1c3"));
    let children = pos.with_rules(Rules::new(Variant::Children, Takeback::Optional));
    assert_eq!(children.count_moves(), 1);
}

#[test]
fn apex_and_exhausted_reserves() {
    // Black's last ball goes on the apex and wins.
    let pos = parse(
        "bwbw/wbwb/bwbw/wbww|wwb/wbw/bwb|bw/bb|. b",
        Variant::Standard,
        Takeback::Optional,
    );
    let ms = moves(&pos);
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0].to(), Cell::APEX);
    let end = pos.play(ms[0]);
    assert!(end.is_terminal());
    assert_eq!(end.winner(), Some(Color::Black));
    assert_eq!(end.terminal_value(), Some(pylos::WIN));
    // White to move there instead: no ball in reserve, no raise: white loses.
    let stuck = parse(
        "bwbw/wbwb/bwbw/wbww|wwb/wbw/bwb|bw/bb|. w",
        Variant::Standard,
        Takeback::Optional,
    );
    assert_eq!(stuck.reserve(Color::White), 0);
    assert!(stuck.is_terminal());
    assert_eq!(stuck.winner(), Some(Color::Black));
    // Reserve empty: raises only (8 landable level-1 cells, 11 non-supporting sources each).
    let raises = parse(
        "bbbb/bbbb/bbbb/bbb.|.../.../...|../..|. b",
        Variant::Standard,
        Takeback::Optional,
    );
    let ms = moves(&raises);
    assert_eq!(ms.len(), 88);
    assert!(ms.iter().all(|m| m.from().is_some()));
    assert_eq!(
        raises.parse_move("0d1").unwrap_err().to_string(),
        "no ball left in the reserve (raise instead)"
    );
    assert!(
        raises.parse_move("0a4-1a3").is_err(),
        "a support cannot be raised onto its cell"
    );
    assert!(raises.parse_move("0d4-1a3").is_ok());
}

#[test]
fn mature_lines_allow_take_backs() {
    // Black completes the bottom row with 0d1: a line, not a square.
    let text = "..../..../..../bbb.|.../.../...|../..|. b";
    let standard = parse(text, Variant::Standard, Takeback::Optional);
    let mature = parse(text, Variant::Mature, Takeback::Optional);
    assert!(standard.parse_move("0d1x0a1").is_err());
    assert!(mature.parse_move("0d1x0a1").is_ok());
    // 4 free balls after 0d1: 1 + 4 + 6 choices, and 12 other placements.
    assert_eq!(mature.count_moves(), 12 + 11);
    assert_eq!(standard.count_moves(), 13);
    // A diagonal is no line.
    let diag = parse(
        "...b/..b./.b../....|.../.../...|../..|. b",
        Variant::Mature,
        Takeback::Optional,
    );
    assert_eq!(diag.count_moves(), 13);
}

/// Exact win (true) or loss for the mover and the game's length, by plain search.
fn children_outcome(pos: &Position) -> (bool, i32) {
    if pos.is_over() {
        return (false, 0);
    }
    let mut best: Option<(bool, i32)> = None;
    for mv in moves(pos) {
        let (child_wins, len) = children_outcome(&pos.play(mv));
        let here = (!child_wins, len + 1);
        best = Some(match best {
            None => here,
            // Prefer a win, the fastest one; among losses the slowest.
            Some(b) => match (b.0, here.0) {
                (true, false) => b,
                (false, true) => here,
                (true, true) => (true, b.1.min(here.1)),
                (false, false) => (false, b.1.max(here.1)),
            },
        });
    }
    best.expect("a position that is not over has a move")
}

#[test]
fn children_bounds_hold_on_late_positions() {
    children_bounds(Board::Four, 21, 100);
    children_bounds(Board::Three, 6, 200);
}

/// The bounds of `children_bounds_hold_on_late_positions` on `board`, on positions with at
/// least `min_balls` balls (at least `min_checked` of them).
fn children_bounds(board: Board, min_balls: u32, min_checked: usize) {
    let rules = Rules::new(Variant::Children, Takeback::Optional).on(board);
    let mut decided = 0;
    let mut checked = 0;
    // Random play, plus games where black raises whenever he can, to open reserve leads.
    let mut positions = sample(rules, 60, 11);
    let mut rng = Rng(0x5EED_CAFE);
    for _ in 0..40 {
        let mut pos = Position::start(rules);
        while !pos.is_over() {
            positions.push(pos);
            let all = moves(&pos);
            let raises: Vec<Move> = all.iter().copied().filter(|m| m.from().is_some()).collect();
            pos = pos.play(if pos.turn() == Color::Black && !raises.is_empty() {
                raises[rng.below(raises.len())]
            } else {
                all[rng.below(all.len())]
            });
        }
    }
    for pos in positions {
        if pos.is_over() || pos.occupied().count_ones() < min_balls {
            continue;
        }
        let (wins, len) = children_outcome(&pos);
        checked += 1;
        let rem = pos.max_remaining_plies().expect("children rules");
        assert!(len <= rem, "{pos}: game of {len} plies, bound {rem}");
        if let Some(verdict) = pos.reserve_race() {
            decided += 1;
            assert_eq!(verdict, wins, "{pos}");
        }
        // The value bounds contain the exact value (black's payoff, distance-scored).
        let mover = if wins {
            pylos::WIN - len
        } else {
            -(pylos::WIN - len)
        };
        let black = if pos.turn() == Color::Black {
            mover
        } else {
            -mover
        };
        let (lo, hi) = pos.value_bounds();
        assert!(
            lo <= black && black <= hi,
            "{pos}: {black} outside {lo}..={hi}"
        );
        // (The solver's `Backup::exact_at_*` rely on this: no exact value strictly inside
        // the slowest loss and the slowest win; tested in `tabula-solver`.)
        assert!(
            black.abs() >= pylos::WIN - rem,
            "{pos}: {black} inside the gap"
        );
    }
    assert!(checked > min_checked, "{checked}");
    assert!(
        decided >= 10,
        "{decided} of {checked} decided by the reserve race"
    );
    // Standard rules can repeat positions: no bound.
    assert_eq!(
        Position::start(Rules::default()).max_remaining_plies(),
        None
    );
}

#[test]
fn the_small_board_plays_on_its_fourteen_cells() {
    let rules = Rules::default().on(Board::Three);
    let start = Position::parse(START3, rules).unwrap();
    assert_eq!(start, Position::start(rules));
    // 9 placements, then 8, 7: no level-1 cell is landable before a square is filled.
    assert_eq!(
        (1..=3).map(|d| perft(&start, d)).collect::<Vec<_>>(),
        [9, 72, 504]
    );
    assert_eq!(
        start.parse_move("0d1"),
        Err(pylos::MoveError::Illegal(IllegalMove::OffBoard(
            "0d1".parse().unwrap()
        )))
    );
    // The last ball goes on the apex 2a1 and wins; a full level 1 leaves no raise.
    let pos = Position::parse("bwb/wbw/bwb|bw/wb|. w", rules).unwrap();
    assert_eq!(pos.reserve(Color::White), 1);
    let ms = moves(&pos);
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0].to(), Board::Three.apex_cell());
    assert_eq!(ms[0].to().to_string(), "2a1");
    let end = pos.play(ms[0]);
    assert!(end.is_over());
    assert_eq!(end.winner(), Some(Color::White));
    // Black to move there instead has no ball and no raise: black has lost.
    let stuck = Position::parse("bwb/wbw/bwb|bw/wb|. b", rules).unwrap();
    assert!(stuck.is_over());
    // Squares of level 1 and lines of 3 and of 2 under mature rules.
    let text = "..b/..b/...|../..|. b";
    let mature = Position::parse(
        text,
        Rules::new(Variant::Mature, Takeback::Optional).on(Board::Three),
    )
    .unwrap();
    assert!(mature.parse_move("0c1x0c3").is_ok());
    let standard = Position::parse(text, rules).unwrap();
    assert!(standard.parse_move("0c1x0c3").is_err());
    // A level-1 line of two: black completes 1a1-1b1 with 1b1.
    let text = "bww/wbb/bbw|..w/b.|. b";
    assert!(Position::parse(text, rules).is_err(), "bad shape");
    let text = "bww/wbb/bbw|w./b.|. b";
    let mature = Position::parse(text, mature.rules()).unwrap();
    let ms: Vec<String> = moves(&mature).iter().map(|m| m.to_string()).collect();
    assert!(ms.contains(&"1b1x1a1".to_string()), "{ms:?}");
    let standard = mature.with_rules(rules);
    assert!(!moves(&standard).iter().any(|m| m.taken() != 0));
}
