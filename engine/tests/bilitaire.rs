//! Property tests of the Bi-litaire engine on positions reached by random play and on random
//! boards: move lists agree with move counts, notation round-trips, symmetric positions have equal
//! perft, the mask shortcuts agree with path enumeration, and the parsers never panic.

use proptest::prelude::*;
use tabula_engine::bilitaire::geometry::{slots_touching, Slot, Square};
use tabula_engine::bilitaire::movegen::{
    count_chains, every_ball_move_lets_slider_end, every_ball_move_lets_slider_end_after_one_jump,
    for_each_chain, longest_chain, slider_can_end_round, slider_can_end_round_after_one_jump,
};
use tabula_engine::bilitaire::{Move, Position, Rules, Side};
use tabula_engine::perft::perft;
use tabula_engine::playout::{self, Rng};
use tabula_engine::{Game, Symmetric, D4};

/// The position after up to `plies` random moves from the start (stopping at the end).
fn random_playout(seed: u64, plies: usize, rules: Rules) -> Position {
    let mut played = 0;
    let mut last = Position::start_with(rules);
    playout::random_playout(&Position::start_with(rules), seed, |p| {
        last = *p;
        played += 1;
        played > plies
    })
    .unwrap_or(last)
}

/// A random board (not necessarily reachable): random tiles, random balls, the slider to move.
fn random_board(seed: u64) -> Position {
    let mut rng = Rng::new(seed);
    let mut tiles = 0u16;
    let count = 1 + rng.below(12);
    while tiles.count_ones() < count as u32 {
        tiles |= 1 << rng.below(16);
    }
    let holes = tabula_engine::bilitaire::geometry::holes_of(tiles);
    let density = rng.next_u64();
    let mut balls = holes & (rng.next_u64() | density) & (rng.next_u64() | rng.next_u64());
    // A reachable slider position has a ball and an empty hole (the position string refuses
    // the others): keep the lowest hole filled and the highest empty.
    balls |= holes & holes.wrapping_neg();
    balls &= !(1u64 << (63 - holes.leading_zeros()));
    Position::from_parts(balls, tiles, Side::Slider, Rules::default()).expect("valid parts")
}

/// The longest chain by enumerating every path.
fn longest_by_enumeration(pos: &Position) -> u32 {
    let mut longest = 0;
    for_each_chain(pos.balls(), pos.holes(), 0, &mut |chain, _| {
        longest = longest.max(chain.len() as u32)
    });
    longest
}

/// By play: some slider action (without announcement) ends the round at once.
fn slider_ends_now(p: &Position) -> bool {
    let mut actions = Vec::new();
    p.legal_moves(&mut actions);
    actions
        .iter()
        .any(|&a| a.announcement() == 0 && p.play(a).is_terminal())
}

fn check_position(pos: &Position) {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    assert_eq!(moves.len() as u64, pos.count_moves(), "{pos}");
    assert_eq!(moves.is_empty(), pos.is_terminal(), "{pos}");
    let mut sorted = moves.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), moves.len(), "duplicate moves in {pos}");

    // The string form round-trips.
    let reparsed = Position::parse_with(&pos.to_string(), pos.rules()).expect("own output parses");
    assert_eq!(&reparsed, pos);

    for &mv in &moves {
        // Notation round-trips through the legality check.
        let text = mv.to_string();
        assert_eq!(pos.parse_move(&text), Ok(mv), "{pos} {text}");
        let after = pos.play(mv);
        assert!(after.balls() & !after.holes() == 0);
        assert!(after.tiles().count_ones() <= pos.tiles().count_ones());
        match mv {
            Move::Slide { announce, .. } | Move::RemoveTile { announce, .. } => {
                assert_eq!(
                    after.ball_count(),
                    pos.ball_count(),
                    "slider moves keep balls"
                );
                if announce >= 2 {
                    assert!(count_chains(after.balls(), after.holes(), announce.into()) > 0);
                }
            }
            Move::Jump(chain) => {
                assert_eq!(after.ball_count() + chain.len() as u32, pos.ball_count());
            }
            Move::RemoveBall(_) => assert_eq!(after.ball_count() + 1, pos.ball_count()),
        }
    }

    // Announcements offered are exactly the lengths some chain has (checked by path counting).
    if pos.side() == Side::Slider {
        let actions: Vec<Move> = moves
            .iter()
            .filter(|m| m.announcement() == 0)
            .copied()
            .collect();
        for action in actions {
            let after = pos.play(action);
            let offered: Vec<u8> = moves
                .iter()
                .filter(|m| m.with_announcement(0) == action && m.announcement() != 0)
                .map(|m| m.announcement())
                .collect();
            let possible: Vec<u8> = (2..=47u8)
                .filter(|&n| count_chains(after.balls(), after.holes(), n.into()) > 0)
                .collect();
            assert_eq!(offered, possible, "{pos} {action}");
        }
    }

    // The search's shortened move lists: the full set filtered by announcement, each list a
    // prefix of the next, so that a stored move index means the same move for every limit.
    let mut previous: Vec<Move> = Vec::new();
    for most in [0u8, 1, 2, 3, 4, 6, u8::MAX] {
        let mut limited = Vec::new();
        pos.generate_moves_announcing_at_most(most, &mut limited);
        assert_eq!(
            &limited[..previous.len()],
            &previous[..],
            "{pos} prefix at {most}"
        );
        let mut expected: Vec<Move> = moves
            .iter()
            .filter(|m| m.announcement() <= most)
            .copied()
            .collect();
        let mut got = limited.clone();
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "{pos} announcing at most {most}");
        previous = limited;
    }

    // The one- and two-ply verdicts the search takes without searching, against play.
    // `then(extra, after)` for every move of the ball player (to move): `after` the slider's
    // position, `extra` the balls removed beyond the least a move removes.
    let every_ball_move = |p: &Position, then: &dyn Fn(u32, &Position) -> bool| {
        let Side::Ball(n) = p.side() else {
            return false;
        };
        let mut replies = Vec::new();
        p.legal_moves(&mut replies);
        replies.iter().all(|&mv| {
            let after = p.play(mv);
            then(
                p.ball_count() - after.ball_count() - u32::from(n.max(1)),
                &after,
            )
        })
    };
    let slider_ends_within_one_jump = |p: &Position| {
        let mut actions = Vec::new();
        p.legal_moves(&mut actions);
        actions.iter().any(|&a| {
            let after = p.play(a);
            a.announcement() == 0
                && (after.is_terminal()
                    || every_ball_move(&after, &|extra, next| extra == 0 && slider_ends_now(next)))
        })
    };
    match pos.side() {
        Side::Slider => {
            assert_eq!(slider_can_end_round(pos), slider_ends_now(pos), "{pos}");
            assert_eq!(
                slider_can_end_round_after_one_jump(pos),
                slider_ends_within_one_jump(pos),
                "{pos}"
            );
        }
        Side::Ball(_) => {
            assert_eq!(
                every_ball_move_lets_slider_end(pos),
                every_ball_move(pos, &|extra, after| extra == 0 && slider_ends_now(after)),
                "{pos}"
            );
            assert_eq!(
                every_ball_move_lets_slider_end_after_one_jump(pos),
                every_ball_move(pos, &|extra, after| match extra {
                    0 => slider_ends_within_one_jump(after),
                    1 => slider_ends_now(after),
                    _ => false,
                }),
                "{pos}"
            );
        }
        Side::OpeningRemoval => {}
    }
    // The fast canonical key is the smallest key over the 8 images, under the first symmetry
    // that gives it.
    let by_images = D4::ALL
        .iter()
        .enumerate()
        .map(|(i, &sym)| (pos.transformed(sym).key(), i))
        .min();
    assert_eq!(Some(pos.canonical_key_and_symmetry()), by_images, "{pos}");

    // Symmetric images have the same canonical key and the same perft.
    let depth = if pos.side() == Side::Slider { 1 } else { 2 };
    let expected = perft(pos, depth);
    for sym in D4::ALL {
        let image = pos.transformed(sym);
        assert_eq!(image.canonical_key(), pos.canonical_key());
        assert_eq!(perft(&image, depth), expected, "{pos} under {sym:?}");
    }
}

#[test]
fn slots_touching_names_the_tiles_under_holes() {
    for i in 0..64 {
        let sq = Square::from_index(i);
        let slot = Slot::iter(0xffff).find(|s| s.holes() & sq.bit() != 0);
        assert_eq!(
            slots_touching(sq.bit()),
            slot.expect("every hole has a slot").bit()
        );
    }
    assert_eq!(slots_touching(u64::MAX), 0xffff);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn positions_from_random_play_are_consistent(seed in any::<u64>(), plies in 0usize..40) {
        check_position(&random_playout(seed, plies, Rules::default()));
    }

    #[test]
    fn free_chain_positions_are_consistent(seed in any::<u64>(), plies in 0usize..30) {
        check_position(&random_playout(seed, plies, Rules { free_chains: true }));
    }

    #[test]
    fn free_chain_ball_turns_on_random_boards_are_consistent(seed in any::<u64>()) {
        // Dense random boards have chains of every length: the case the free-chains rule
        // changes most.
        let board = random_board(seed);
        let pos = Position::from_parts(
            board.balls(),
            board.tiles(),
            Side::Ball(0),
            Rules { free_chains: true },
        )
        .expect("valid parts");
        check_position(&pos);
    }

    #[test]
    fn longest_chain_matches_path_enumeration(seed in any::<u64>()) {
        let pos = random_board(seed);
        prop_assert_eq!(longest_chain(pos.balls(), pos.holes()), longest_by_enumeration(&pos));
        check_position(&pos);
    }

    #[test]
    fn position_parser_never_panics(text in "[-o./ rsb0-9x]{0,80}") {
        let _ = Position::parse(&text);
    }

    #[test]
    fn mutated_positions_parse_or_fail_cleanly(seed in any::<u64>(), at in 0usize..80, c in "[-o./ rsbq0-9]") {
        let mut text = random_playout(seed, 12, Rules::default()).to_string();
        if at < text.len() {
            text.replace_range(at..=at, &c);
        }
        if let Ok(pos) = Position::parse(&text) {
            prop_assert_eq!(pos.to_string(), text.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }

    #[test]
    fn move_parser_never_panics(seed in any::<u64>(), text in "[a-hA-Dx1-9!\\-]{0,20}") {
        let pos = random_playout(seed, 9, Rules::default());
        if let Ok(mv) = pos.parse_move(&text) {
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            prop_assert!(moves.contains(&mv));
        }
    }
}

/// The slider's three-ply verdict (end the round within one more jump) against play, on
/// random boards of every density: it skips most actions by pairs of jumps no reply can
/// answer, so both verdicts must come up often.
#[test]
fn slider_ends_within_one_jump_as_play_finds() {
    let (mut yes, mut no) = (0, 0);
    for seed in 0..1500 {
        let pos = random_board(seed);
        let mut actions = Vec::new();
        pos.legal_moves(&mut actions);
        let by_play = actions.iter().any(|&a| {
            let after = pos.play(a);
            a.announcement() == 0 && {
                let mut replies = Vec::new();
                after.legal_moves(&mut replies);
                after.is_terminal()
                    || replies.iter().all(|&r| {
                        let next = after.play(r);
                        after.ball_count() - next.ball_count() == 1 && slider_ends_now(&next)
                    })
            }
        });
        assert_eq!(slider_can_end_round_after_one_jump(&pos), by_play, "{pos}");
        if by_play {
            yes += 1;
        } else {
            no += 1;
        }
    }
    assert!(yes > 200 && no > 200, "{yes} true, {no} false");
}

#[test]
fn every_opening_removal_falls_in_seven_classes() {
    let start = Position::start();
    let mut moves = Vec::new();
    start.legal_moves(&mut moves);
    let mut keys: Vec<u128> = moves
        .iter()
        .map(|&m| start.play(m).canonical_key())
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 7);
}

#[test]
fn illegal_moves_name_the_reason() {
    let pos = Position::parse(
        "--oooo--/--oooo--/oooooooo/oooooooo/oooo.ooo/oooooooo/--oooo--/--oooo-- b",
    )
    .unwrap();
    let reason = |m: &str| pos.parse_move(m).unwrap_err().reason.to_string();
    assert!(reason("d4-f4").contains("over e4"), "{}", reason("d4-f4"));
    assert!(reason("e1-e3").contains("not empty"), "{}", reason("e1-e3"));
    assert!(
        reason("a1-a3").contains("no ball on a1"),
        "{}",
        reason("a1-a3")
    );
    assert!(reason("B1-A1").contains("ball player's turn"));
    assert!(reason("e6-e4!2").contains("only the slider"));
    assert!(reason("e6-e4-e2").contains("only one simple jump"));
    assert!(reason("q9").contains("expected") || reason("q9").contains("not a hole"));
    assert!(pos.parse_move("e6-e4").is_ok());
    assert!(pos.parse_move("c4-e4").is_ok());
    assert!(pos.parse_move("e2-e4").is_ok());
}
