//! Property tests of the backgammon engine against a naive reference written here from the
//! rules (`docs/rules/backgammon.md`): plain arrays, every die order, every checker.

use std::collections::BTreeSet;

use proptest::prelude::*;
use tabula_engine::backgammon::{Dice, FibsBoard, MatchId, Position, Side, XgDice, Xgid};
use tabula_engine::Keyed;

/// A side as 26 counts from its own view: 0 = off, 1..=24 points, 25 = bar.
type Board = [[i32; 26]; 2]; // [on roll, opponent]

fn board(pos: &Position) -> Board {
    let mut b = [[0; 26]; 2];
    for (k, side) in [Side::OnRoll, Side::Opponent].into_iter().enumerate() {
        let c = pos.counts(side);
        for p in 1..=25 {
            b[k][p] = c[p - 1] as i32;
        }
        b[k][0] = pos.off(side) as i32;
    }
    b
}

/// One step of `die` from point `from` under the rules; the board after it, or `None`.
fn step(b: &Board, from: usize, die: usize) -> Option<Board> {
    let (me, opp) = (&b[0], &b[1]);
    if me[from] == 0 || (me[25] > 0 && from != 25) {
        return None;
    }
    let mut n = *b;
    n[0][from] -= 1;
    if from > die {
        let to = from - die;
        let theirs = 25 - to;
        if opp[theirs] >= 2 {
            return None;
        }
        if opp[theirs] == 1 {
            n[1][theirs] = 0;
            n[1][25] += 1;
        }
        n[0][to] += 1;
    } else {
        // Bearing off: everything home; exact, or the highest checker with a larger die.
        if (7..=25).any(|p| me[p] > 0) {
            return None;
        }
        if from < die && (from + 1..=6).any(|p| me[p] > 0) {
            return None;
        }
        n[0][0] += 1;
    }
    Some(n)
}

/// Every sequence of the reference: (dice used, pips, final board).
fn sequences(
    b: &Board,
    dice: &[usize],
    used: usize,
    pips: usize,
    out: &mut Vec<(usize, usize, Board)>,
) {
    let mut moved = false;
    if let Some((&d, rest)) = dice.split_first() {
        for from in 1..=25 {
            if let Some(n) = step(b, from, d) {
                moved = true;
                sequences(&n, rest, used + 1, pips + d, out);
            }
        }
    }
    if !moved {
        out.push((used, pips, *b));
    }
}

/// The reference set of resulting boards: most dice, then most pips.
fn reference(pos: &Position, dice: Dice) -> BTreeSet<Board> {
    let b = board(pos);
    let (h, l) = (dice.high() as usize, dice.low() as usize);
    let mut all = Vec::new();
    if h == l {
        sequences(&b, &[h; 4], 0, 0, &mut all);
    } else {
        sequences(&b, &[h, l], 0, 0, &mut all);
        sequences(&b, &[l, h], 0, 0, &mut all);
    }
    let best = all.iter().map(|&(u, p, _)| (u, p)).max().unwrap_or((0, 0));
    if best.0 == 0 {
        return BTreeSet::new();
    }
    all.into_iter()
        .filter(|&(u, p, _)| (u, p) == best)
        .map(|(_, _, b)| b)
        .collect()
}

/// Random positions: checkers scattered over points, bar and off, biased to some home-board
/// and bar-heavy shapes.
fn positions() -> impl Strategy<Value = Position> {
    let side = prop::collection::vec(
        prop_oneof![4 => 0usize..24, 2 => 0usize..6, 1 => Just(24usize), 1 => Just(25usize)],
        1..=15,
    );
    (side.clone(), side).prop_map(|(mine, theirs)| {
        let mut me = [0u8; 25];
        let mut opp = [0u8; 25];
        for s in mine.into_iter().filter(|&s| s < 25) {
            me[s] += 1;
        }
        if me.iter().all(|&c| c == 0) {
            me[0] = 1;
        }
        for s in theirs.into_iter().filter(|&s| s < 25) {
            if s == 24 || me[23 - s] == 0 {
                opp[s] += 1;
            }
        }
        if opp.iter().all(|&c| c == 0) {
            opp[24] = 1;
        }
        Position::from_counts(me, opp).expect("valid by construction")
    })
}

fn dice() -> impl Strategy<Value = Dice> {
    (1u8..=6, 1u8..=6).prop_map(|(a, b)| Dice::new(a, b).expect("dice"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// The engine's plays are exactly the reference's resulting positions.
    #[test]
    fn plays_equal_reference(pos in positions(), dice in dice()) {
        let ours: BTreeSet<Board> = pos.plays(dice).iter().map(|p| board(&p.result().swapped())).collect();
        prop_assert_eq!(ours.len(), pos.plays(dice).len(), "plays are distinct");
        prop_assert_eq!(ours, reference(&pos, dice));
    }

    /// Each play replays as legal single-checker steps using the roll's dice, and counts are
    /// conserved (15 per side on board, bar and off; hits move checkers to the bar).
    #[test]
    fn plays_are_legal_steps(pos in positions(), dice in dice()) {
        for play in pos.plays(dice) {
            let mut b = board(&pos);
            let mut left: Vec<usize> = if dice.is_double() { vec![dice.high() as usize; 4] } else { vec![dice.high() as usize, dice.low() as usize] };
            for s in play.steps() {
                let (from, to) = (s.from as usize, s.to as usize);
                // The die this step used: the exact distance, or a larger die bearing off.
                let k = left.iter().position(|&d| from - to == d)
                    .or_else(|| if to == 0 { left.iter().position(|&d| d > from) } else { None });
                prop_assert!(k.is_some(), "{} step {}/{} fits no die of {}", play, from, to, dice);
                let d = left.remove(k.expect("checked"));
                let n = step(&b, from, d);
                prop_assert!(n.is_some(), "{} step {}/{} illegal", play, from, to);
                b = n.expect("checked");
            }
            prop_assert_eq!(board(&play.result().swapped()), b);
            let after = play.result();
            for side in [Side::OnRoll, Side::Opponent] {
                let on: u32 = after.counts(side).iter().map(|&c| c as u32).sum();
                prop_assert_eq!(on + after.off(side) as u32, 15);
            }
            prop_assert_eq!(after.off(Side::OnRoll), pos.off(Side::Opponent));
            prop_assert!(after.off(Side::Opponent) >= pos.off(Side::OnRoll));
            // The notation reads back to the same play.
            let parsed = pos.parse_play(dice, &play.notation());
            prop_assert!(parsed.is_ok(), "{}: {:?}", play, parsed);
            prop_assert_eq!(parsed.expect("checked").result(), play.result());
        }
    }

    /// Switching sides twice is the identity; IDs round-trip.
    #[test]
    fn side_switch_and_ids(pos in positions()) {
        prop_assert_eq!(pos.swapped().swapped(), pos);
        prop_assert_eq!(pos.swapped().counts(Side::OnRoll), pos.counts(Side::Opponent));
        prop_assert_eq!(pos.swapped().pips(Side::Opponent), pos.pips(Side::OnRoll));
        let id = pos.position_id();
        prop_assert_eq!(Position::from_position_id(&id).expect("round trip"), pos);
        prop_assert_eq!(pos.key(), pos.gnubg_key());
        prop_assert_eq!(pos.key() >> 80, 0);
        let x = Xgid::new(pos).to_string();
        prop_assert_eq!(Xgid::parse(&x).expect("XGID").position, pos);
    }

    /// Match IDs, XGIDs and FIBS lines written from random states read back to them.
    #[test]
    fn state_formats_round_trip(pos in positions(), len in 0u32..26, s0 in 0u32..25, s1 in 0u32..25,
                                cube_log in 0u32..7, owner in 0u8..3, on_roll in 0u8..2, d in (0u8..7, 1u8..7),
                                crawford in any::<bool>()) {
        let (s0, s1) = if len > 0 { (s0 % len, s1 % len) } else { (0, 0) };
        let dice = if d.0 == 0 { (0, 0) } else { (d.0.max(d.1), d.0.min(d.1)) };
        let m = MatchId {
            cube: 1 << cube_log,
            cube_owner: if owner == 2 { None } else { Some(owner) },
            on_roll,
            turn: on_roll,
            dice,
            match_length: len,
            score: [s0, s1],
            crawford: crawford && len > 0,
            ..MatchId::default()
        };
        prop_assert_eq!(MatchId::decode(&m.encode()).expect("decode"), m);
        let x = Xgid {
            position: pos,
            turn: if on_roll == 1 { 1 } else { -1 },
            cube: 1 << cube_log,
            cube_owner: owner as i8 - 1,
            dice: if dice.0 == 0 { XgDice::NotRolled } else { XgDice::Rolled(dice.0, dice.1) },
            score_bottom: s0,
            score_top: s1,
            crawford_jacoby: (crawford && len > 0) as u8,
            match_length: len,
            max_cube_log2: 10,
        };
        prop_assert_eq!(Xgid::parse(&x.to_string()).expect("XGID"), x);
        let f = FibsBoard {
            names: ["gnubg".into(), "tabula".into()],
            match_length: len,
            score: [s0, s1],
            position: pos,
            on_roll,
            dice,
            cube: 1 << cube_log,
            cube_owner: m.cube_owner,
            doubled: 0,
            crawford: crawford && len > 0,
            post_crawford: !crawford && len > 0,
        };
        prop_assert_eq!(FibsBoard::parse(&f.to_string()).expect("FIBS"), f);
    }
}

#[test]
fn dice_weights() {
    assert_eq!(Dice::ALL.len(), 21);
    assert_eq!(Dice::ALL.iter().map(|d| d.weight()).sum::<u32>(), 36);
    assert!((Dice::ALL.iter().map(|d| d.probability()).sum::<f64>() - 1.0).abs() < 1e-12);
    assert_eq!(Dice::ALL.iter().filter(|d| d.is_double()).count(), 6);
    assert_eq!("13".parse::<Dice>().unwrap(), "31".parse::<Dice>().unwrap());
    assert_eq!("3-1".parse::<Dice>().unwrap().to_string(), "31");
    for bad in ["", "3", "371", "07", "x1", "3 7"] {
        assert!(bad.parse::<Dice>().is_err(), "{bad:?}");
    }
}

#[test]
fn bad_input_is_an_error() {
    for bad in [
        "",
        "4HPwATDgc/ABM",
        "4HPwATDgc/ABMA=",
        "4HPwATDgc/AB!A",
        "//////////////",
    ] {
        assert!(Position::from_position_id(bad).is_err(), "{bad:?}");
    }
    for bad in [
        "",
        "cAkAAAAAAAA",
        "cAkAAAAAAAAA!",
        "cAk_AAAAAAAA",
        "////////////",
    ] {
        assert!(MatchId::decode(bad).is_err(), "{bad:?}");
    }
    for bad in [
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3",
        "XGID=-b----E-C---eE---c-e----B:0:0:1:52:0:0:3:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:2:52:0:0:3:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:72:0:0:3:0:10",
        "XGID=Pb----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",
    ] {
        assert!(Xgid::parse(bad).is_err(), "{bad:?}");
    }
    assert!(FibsBoard::parse("board:a:b:1").is_err());
    let start = Position::START;
    let roll: Dice = "31".parse().unwrap();
    for bad in [
        "", "8/5 6/", "8//5", "bar/off", "5/8", "13/10(9)", "x/5", "0/3",
    ] {
        assert!(start.parse_play(roll, bad).is_err(), "{bad:?}");
    }
    for illegal in ["8/4 6/5", "24/21 24/23 6/5", "13/10", "6/5 6/5"] {
        assert!(start.parse_play(roll, illegal).is_err(), "{illegal:?}");
    }
    assert_eq!(
        start.parse_play(roll, "8/5, 6/5").unwrap().notation(),
        "8/5 6/5"
    );
    assert_eq!(
        start.parse_play(roll, "6/5 8/5").unwrap().notation(),
        "8/5 6/5"
    );
    assert_eq!(start.parse_play(roll, "24/20").unwrap().notation(), "24/20");
    let r66: Dice = "66".parse().unwrap();
    assert_eq!(
        start
            .parse_play(r66, "24/18(2) 13/7(2)")
            .unwrap()
            .notation(),
        "24/18(2) 13/7(2)"
    );
}

/// Bear-offs have the most coinciding plays (a checker moved twice or two checkers moved once
/// can end alike): every 5th home board of up to 15 checkers, all 21 rolls, against the naive
/// reference, and no resulting position listed twice.
#[test]
fn bear_off_plays_are_exactly_the_distinct_reference_results() {
    let mut boards = Vec::new();
    let mut counts = [0u8; 6];
    fn home_boards(i: usize, left: u8, counts: &mut [u8; 6], out: &mut Vec<[u8; 6]>) {
        if i == 6 {
            out.push(*counts);
            return;
        }
        for c in 0..=left {
            counts[i] = c;
            home_boards(i + 1, left - c, counts, out);
        }
        counts[i] = 0;
    }
    home_boards(0, 15, &mut counts, &mut boards);
    assert_eq!(boards.len(), 54_264);
    let mut opponent = [0u8; 25];
    (opponent[5], opponent[4], opponent[3]) = (5, 5, 5);
    for home in boards
        .iter()
        .step_by(5)
        .filter(|b| b.iter().any(|&c| c > 0))
    {
        let mut me = [0u8; 25];
        me[..6].copy_from_slice(home);
        let pos = Position::from_counts(me, opponent).expect("valid bear-off position");
        for dice in Dice::ALL {
            let ours: Vec<Board> = pos
                .plays(dice)
                .iter()
                .map(|p| board(&p.result().swapped()))
                .collect();
            let distinct: BTreeSet<Board> = ours.iter().copied().collect();
            assert_eq!(
                distinct.len(),
                ours.len(),
                "{home:?} {dice}: a play listed twice"
            );
            assert_eq!(distinct, reference(&pos, dice), "{home:?} {dice}");
        }
    }
}
