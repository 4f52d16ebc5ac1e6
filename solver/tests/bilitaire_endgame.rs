//! The endgame knowledge (`games::bilitaire_endgame`) against plain minimax on small
//! Bi-litaire positions: each mask answer to "value ≥ top − 2" and each exact solve with it.

mod common;

use tabula_engine::bilitaire::geometry::holes_of;
use tabula_engine::bilitaire::movegen::slider_can_end_round_after_one_jump;
use tabula_engine::bilitaire::{Position, Rules, Side};
use tabula_engine::Scored;
use tabula_solver::games::bilitaire_endgame::{
    ball_holds_two, slider_holds_two, slider_holds_two_trying, Memo,
};
use tabula_solver::games::Endgame;
use tabula_solver::minimax::minimax;
use tabula_solver::{AtomicTable, SearchOptions, Searcher};

/// A dense random position: 6–10 tiles, about three holes in four holding a ball (up to 16),
/// the slider or the ball player to move, no `free-chains`: the ball player has room for three
/// more jumps or more, which the sparse `common::small_position` rarely gives.
fn dense_position(seed: u64) -> Option<Position> {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let tile_count = 6 + next() % 5;
    let mut tiles = 0u16;
    while u64::from(tiles.count_ones()) < tile_count {
        tiles |= 1 << (next() % 16);
    }
    let holes = holes_of(tiles);
    let mut balls = holes & (next() | next());
    while balls.count_ones() > 16 {
        balls &= balls - 1;
    }
    let side = if next() % 2 == 0 {
        Side::Slider
    } else {
        Side::Ball(0)
    };
    Position::from_parts(balls, tiles, side, Rules::default())
}

/// Small positions (sparse, any rules, announcements) and dense ones, each with the positions
/// after its first few moves (ball player's turns after a slider's, and so on).
fn positions() -> impl Iterator<Item = Position> {
    use tabula_engine::Game;
    common::small_positions_with_announcements(150)
        .chain((0..100).filter_map(|seed| dense_position(seed * 104_729 + 11)))
        .flat_map(|pos| {
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            std::iter::once(pos).chain(moves.into_iter().rev().take(4).map(move |m| pos.play(m)))
        })
}

/// The exact value by plain minimax where it finishes within a budget (counted in
/// `by_minimax`), else by the plain search of the game (no endgame knowledge), itself checked
/// against minimax in `bilitaire_solver.rs`.
fn reference_value(pos: &Position, by_minimax: &mut u32) -> i32 {
    let mut budget = 300_000;
    if let Some(value) = minimax(pos, &mut budget) {
        *by_minimax += 1;
        return value;
    }
    let report = Searcher::new(&AtomicTable::with_megabytes(4), SearchOptions::default())
        .solve(pos)
        .expect("no limits set");
    assert!(report.exact);
    report.value
}

#[test]
fn two_jump_answers_agree_with_minimax() {
    // (side is the slider, answer) -> count
    let mut seen = [[0u32; 2]; 2];
    let mut unanswered = 0;
    let mut by_minimax = 0;
    for pos in positions() {
        let (lo, hi) = pos.value_bounds();
        let x = hi - 2;
        // Only where the bounds leave the test open (the only place the search asks).
        if x <= lo || pos.terminal_value().is_some() {
            continue;
        }
        let answer = match pos.side() {
            Side::Slider => slider_holds_two(&pos),
            _ => ball_holds_two(&pos),
        };
        let Some(answer) = answer else {
            assert!(
                pos.rules().free_chains || pos.side() == Side::OpeningRemoval,
                "{pos}: no answer"
            );
            unanswered += 1;
            continue;
        };
        let value = reference_value(&pos, &mut by_minimax);
        assert_eq!(answer, value >= x, "{pos}: value {value}, test ≥ {x}");
        // Trying only the first actions: the same answer, or none.
        for most in [1, 3] {
            if let Some(partial) = slider_holds_two_trying(&pos, most) {
                assert_eq!(partial, answer, "{pos}: trying {most}");
            }
        }
        seen[usize::from(pos.side() == Side::Slider)][usize::from(answer)] += 1;
    }
    // Both answers on both sides, and the free-chains positions left to the search.
    for (side, counts) in seen.iter().enumerate() {
        for (answer, &n) in counts.iter().enumerate() {
            assert!(n >= 5, "slider {side}, answer {answer}: only {n} positions");
        }
    }
    assert!(unanswered > 0);
    assert!(
        by_minimax >= 50,
        "only {by_minimax} positions checked by minimax"
    );
}

#[test]
fn solves_with_the_knowledge_agree_with_minimax() {
    let mut by_minimax = 0;
    let sparse = common::small_positions_with_announcements(150);
    let dense = (0..20).filter_map(|seed| dense_position(seed * 7_777 + 5));
    for pos in sparse.chain(dense) {
        let expected = reference_value(&pos, &mut by_minimax);
        // Each setting once with symmetry, once without (the keys of both are the game's).
        for (ball_side, tries, symmetry) in [
            (false, usize::MAX, true),
            (true, usize::MAX, false),
            (false, 2, false),
        ] {
            {
                let table = AtomicTable::with_megabytes(4);
                let options = SearchOptions {
                    symmetry,
                    ..SearchOptions::default()
                };
                let report = Searcher::new(&table, options)
                    .solve(&Endgame::new(pos, ball_side).trying(tries))
                    .expect("no limits set");
                assert!(report.exact);
                assert_eq!(
                    report.value, expected,
                    "{pos}, ball side {ball_side}, tries {tries}"
                );
                common::assert_line_ends_at(&pos, &report.pv, report.value);
            }
        }
    }
    assert!(
        by_minimax >= 50,
        "only {by_minimax} positions checked by minimax"
    );
}

/// The memo of three-ply answers gives the test's own answer whatever it holds: a memo of 2
/// slots asked about slider positions, each twice, and each beside the same balls on one more
/// (empty) tile, a different position in the same slot half the time.
#[test]
fn a_small_memo_answers_as_the_test_it_keeps() {
    let mut memo = Memo::<1>::new();
    let (mut asked, mut tested, mut differ) = (0, 0, 0);
    let mut ask = |pos: &Position, asked: &mut u32| {
        *asked += 1;
        let answer = memo.answer(pos, |p| {
            tested += 1;
            slider_can_end_round_after_one_jump(p)
        });
        assert_eq!(answer, slider_can_end_round_after_one_jump(pos), "{pos}");
        answer
    };
    for seed in 0..3000 {
        let Some(pos) = dense_position(seed * 6_151 + 3) else {
            continue;
        };
        let pos = Position::from_parts(pos.balls(), pos.tiles(), Side::Slider, pos.rules())
            .expect("the same balls on the same tiles");
        let free = (0..16).find(|&slot| pos.tiles() & 1 << slot == 0);
        let wider = free.and_then(|slot| {
            Position::from_parts(
                pos.balls(),
                pos.tiles() | 1 << slot,
                Side::Slider,
                pos.rules(),
            )
        });
        let first = ask(&pos, &mut asked);
        if let Some(wider) = wider {
            differ += u32::from(ask(&wider, &mut asked) != first);
        }
        ask(&pos, &mut asked);
    }
    // The ball player's position on a board just answered is the test's to answer, not the
    // memo's (its key has no side).
    for seed in 0..100 {
        let Some(pos) = dense_position(seed * 6_151 + 3) else {
            continue;
        };
        let slider = Position::from_parts(pos.balls(), pos.tiles(), Side::Slider, pos.rules())
            .expect("the same balls on the same tiles");
        let ball = Position::from_parts(pos.balls(), pos.tiles(), Side::Ball(0), pos.rules())
            .expect("the same balls on the same tiles");
        memo.answer(&slider, |_| true);
        let mut ball_tested = false;
        assert!(!memo.answer(&ball, |_| {
            ball_tested = true;
            false
        }));
        assert!(ball_tested, "{ball}");
    }
    // Answers came from the memo, and tiles changed answers often enough to be tested.
    assert!(tested < asked, "{tested} tests for {asked} questions");
    assert!(
        differ >= 20,
        "only {differ} positions change answer with a tile"
    );
}
