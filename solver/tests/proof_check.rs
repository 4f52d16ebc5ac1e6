//! The independent proof check ([`tabula_solver::proof::check_bound`]) against plain minimax on
//! small Bi-litaire positions: it accepts the bounds df-pn proves, following
//! [`Dfpn::proof_move`]; it never accepts a bound the value does not satisfy, whatever the
//! strategy; and it rejects a strategy that plays badly or illegally. Then the opening: df-pn's
//! proof of a lower bound for one removal class, checked from the 47-ball position.

mod common;

use common::small_position;
use tabula_engine::bilitaire::{Move, Position};
use tabula_engine::Game;
use tabula_solver::minimax::minimax;
use tabula_solver::proof::{check_bound, Bound, CheckError};
use tabula_solver::{Dfpn, DfpnOptions};

/// A side's move at each position, as [`check_bound`] follows it.
type Strategy<'a> = dyn FnMut(&Position) -> Option<Move> + 'a;

/// Small positions with their minimax values.
fn small_positions_with_values() -> Vec<(Position, i32)> {
    (0..300u64)
        .filter_map(|seed| small_position(seed * 7919 + 1))
        .filter_map(|pos| {
            let mut budget = 1_000_000;
            minimax(&pos, &mut budget).map(|v| (pos, v))
        })
        .collect()
}

fn first_move(pos: &Position) -> Option<Move> {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves.first().copied()
}

fn last_move(pos: &Position) -> Option<Move> {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves.last().copied()
}

#[test]
fn proofs_by_dfpn_pass_the_check_and_false_bounds_never_do() {
    let positions = small_positions_with_values();
    assert!(positions.len() >= 150, "only {}", positions.len());
    let (mut lower_checked, mut upper_checked, mut naive_rejected) = (0, 0, 0);
    for (pos, value) in &positions {
        let (pos, value) = (*pos, *value);
        let mut dfpn = Dfpn::new(DfpnOptions {
            megabytes: 1,
            ..DfpnOptions::default()
        });
        // The true bounds: "≥ value" and "< value + 1", each by the proving side's strategy.
        for (x, bound) in [
            (value, Bound::AtLeast(value)),
            (value + 1, Bound::Below(value + 1)),
        ] {
            let holds = dfpn.prove_at_least(&pos, x).expect("no limits");
            assert_eq!(Bound::of_test(x, holds), bound, "{pos}: value {value}");
            let checked = check_bound(&pos, bound, 1_000_000, |p| {
                dfpn.proof_move(p, x).expect("no limits")
            });
            let c = checked.unwrap_or_else(|e| panic!("{pos}: {bound:?} rejected: {e}"));
            assert!(c.positions >= 1 && c.terminals >= 1, "{pos}: {c:?}");
            match bound {
                Bound::AtLeast(_) => lower_checked += 1,
                Bound::Below(_) => upper_checked += 1,
            }
        }
        // The false bounds, one beyond the value each way: no strategy makes them pass.
        for (x, bound) in [
            (value + 1, Bound::AtLeast(value + 1)),
            (value, Bound::Below(value)),
        ] {
            let strategies: [&mut Strategy; 3] = [
                &mut |p| {
                    dfpn.proof_move(p, x)
                        .ok()
                        .flatten()
                        .or_else(|| first_move(p))
                },
                &mut first_move,
                &mut last_move,
            ];
            for strategy in strategies {
                let checked = check_bound(&pos, bound, 1_000_000, strategy);
                assert!(checked.is_err(), "{pos}: value {value}, {bound:?} passed");
            }
        }
        // A strategy that ignores the game: always the first move. Where it keeps the value it
        // passes, as it should; on some positions it must not.
        if check_bound(&pos, Bound::AtLeast(value), 1_000_000, first_move).is_err() {
            naive_rejected += 1;
        }
    }
    assert!(lower_checked >= 150 && upper_checked >= 150);
    assert!(
        naive_rejected >= 10,
        "only {naive_rejected} naive strategies rejected"
    );
}

#[test]
fn an_illegal_strategy_move_and_a_missing_one_are_rejected() {
    // A slider position, and a move of the ball player's after one slider action: not legal
    // for the slider.
    let (pos, value, foreign) = small_positions_with_values()
        .into_iter()
        .filter(|(p, _)| p.side() == tabula_engine::bilitaire::Side::Slider && !p.is_over())
        .find_map(|(p, v)| {
            let mut moves = Vec::new();
            p.legal_moves(&mut moves);
            let foreign = moves.iter().find_map(|&m| first_move(&p.play(m)))?;
            (!moves.contains(&foreign)).then_some((p, v, foreign))
        })
        .expect("a slider position");
    let checked = check_bound(&pos, Bound::AtLeast(value), 1000, |_| Some(foreign));
    assert!(
        matches!(checked, Err(CheckError::IllegalMove { .. })),
        "{checked:?}"
    );
    let checked = check_bound(&pos, Bound::AtLeast(value), 1000, |_| None);
    assert!(
        matches!(checked, Err(CheckError::NoMove { .. })),
        "{checked:?}"
    );
    let checked = check_bound(&pos, Bound::AtLeast(value), 0, first_move);
    assert!(
        matches!(checked, Err(CheckError::TooLarge { .. })),
        "{checked:?}"
    );
}

/// The opening after the removal of `d1` (class `xd1`, 47 balls): the slider keeps at least 36
/// balls. df-pn proves it in about 15,000 nodes; the check plays the slider's strategy against
/// every reply of the ball player to the end of the round.
#[test]
fn an_opening_lower_bound_is_proven_and_checked() {
    let pos: Position = "--oooo--/--oooo--/oooooooo/oooooooo/oooooooo/oooooooo/--oooo--/--o.oo-- s"
        .parse()
        .unwrap();
    let mut dfpn = Dfpn::new(DfpnOptions {
        megabytes: 16,
        nodes: Some(2_000_000),
        ..DfpnOptions::default()
    });
    assert_eq!(dfpn.prove_at_least(&pos, 36), Ok(true));
    dfpn.without_limits();
    let c = check_bound(&pos, Bound::AtLeast(36), 1_000_000, |p| {
        dfpn.proof_move(p, 36).expect("no limits")
    })
    .unwrap_or_else(|e| panic!("rejected: {e}"));
    assert!(c.terminals >= 1 && c.strategy_moves >= 1, "{c:?}");
}
