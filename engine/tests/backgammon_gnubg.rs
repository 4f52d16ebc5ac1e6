//! The engine against GNU Backgammon 1.07, through fixtures written by
//! `scripts/gnubg-fixtures.py` (gnubg is not needed to run these tests).

use std::collections::BTreeSet;
use std::path::Path;

use tabula_engine::backgammon::{Dice, Play, PlayList, Position};

fn data(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Undoes the front/back coding of `scripts/gnubg-fixtures.py` (`compress`).
fn expand(group: &str) -> Vec<String> {
    let mut prev = String::new();
    let mut out = Vec::new();
    for word in group.split_whitespace() {
        let p = usize::from_str_radix(&word[0..1], 16).expect("prefix digit");
        let s = usize::from_str_radix(&word[1..2], 16).expect("suffix digit");
        let id = format!(
            "{}{}{}",
            &prev[..p],
            &word[2..],
            &prev[prev.len() - s.min(prev.len())..]
        );
        assert_eq!(id.len(), 14, "bad coded ID {word:?} after {prev:?}");
        out.push(id.clone());
        prev = id;
    }
    out
}

/// Every (position, roll) of the fixture: the engine's set of resulting Position IDs equals
/// gnubg's, and every Position ID round-trips.
#[test]
fn legal_plays_match_gnubg() {
    let text = data("backgammon-moves.txt");
    let mut header_rolls: Vec<Dice> = Vec::new();
    let mut list = PlayList::new();
    let (mut positions, mut pairs, mut plays) = (0usize, 0usize, 0usize);
    let mut mismatches = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# position;then per roll (") {
            let rolls = rest.split(')').next().expect("roll list");
            header_rolls = rolls
                .split_whitespace()
                .map(|r| r.parse().expect("roll"))
                .collect();
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        assert_eq!(header_rolls.len(), 21, "the header lists the 21 rolls");
        let mut groups = line.split(';');
        let id = groups.next().expect("position ID");
        let pos = Position::from_position_id(id).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(pos.position_id(), id, "Position ID round trip");
        positions += 1;
        let groups: Vec<&str> = groups.collect();
        assert_eq!(groups.len(), 21, "{id}: 21 rolls");
        for (dice, group) in header_rolls.iter().zip(groups) {
            let expected: BTreeSet<String> = expand(group).into_iter().collect();
            pos.generate_plays(*dice, &mut list);
            let got: BTreeSet<String> = (0..list.len())
                .map(|i| list.result(i).position_id())
                .collect();
            assert_eq!(
                got.len(),
                list.len(),
                "{id} {dice}: plays are distinct positions"
            );
            pairs += 1;
            plays += expected.len();
            if got != expected {
                let missing: Vec<_> = expected.difference(&got).collect();
                let extra: Vec<_> = got.difference(&expected).collect();
                mismatches.push(format!("{id} {dice}: missing {missing:?} extra {extra:?}"));
            }
            for e in &expected {
                let p = Position::from_position_id(e).unwrap_or_else(|err| panic!("{e}: {err}"));
                assert_eq!(&p.position_id(), e, "Position ID round trip");
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {pairs} (position, roll) pairs differ from gnubg, first: {:#?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(10)]
    );
    eprintln!(
        "{positions} positions, {pairs} (position, roll) pairs, {plays} plays agree with gnubg"
    );
    assert!(
        positions >= 2000,
        "the fixture covers at least 2000 positions, not {positions}"
    );
}

/// The public figures of the rules file: number of plays from the opening position per roll.
#[test]
fn opening_play_counts() {
    let expected = [
        ("21", 15),
        ("31", 16),
        ("41", 14),
        ("51", 8),
        ("61", 10),
        ("32", 17),
        ("42", 18),
        ("52", 8),
        ("62", 14),
        ("43", 17),
        ("53", 9),
        ("63", 14),
        ("54", 9),
        ("64", 14),
        ("65", 7),
        ("11", 42),
        ("22", 75),
        ("33", 73),
        ("44", 52),
        ("55", 4),
        ("66", 11),
    ];
    let mut total = 0;
    for (roll, n) in expected {
        let dice: Dice = roll.parse().expect("roll");
        let plays: Vec<Play> = Position::START.plays(dice);
        assert_eq!(plays.len(), n, "opening {roll}");
        total += plays.len();
    }
    assert_eq!(total, 447);
}

/// Match IDs written by gnubg for states set up with its commands: decoding gives the fields
/// gnubg reports (cubeinfo/posinfo), encoding gives the same string back.
#[test]
fn match_ids_match_gnubg() {
    use tabula_engine::backgammon::{GameState, MatchId};
    let text = data("backgammon-matchids.txt");
    let mut n = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (ids, fields) = line.split_once('|').expect("'|'");
        let mut ids = ids.split_whitespace();
        let (mid, pid) = (
            ids.next().expect("match ID"),
            ids.next().expect("position ID"),
        );
        let f: Vec<i64> = fields
            .split_whitespace()
            .map(|x| x.parse().expect("field"))
            .collect();
        let m = MatchId::decode(mid).unwrap_or_else(|e| panic!("{mid}: {e}"));
        assert_eq!(m.encode(), mid, "Match ID round trip");
        assert_eq!(m.match_length as i64, f[0], "{line}: length");
        assert_eq!(
            [m.score[0] as i64, m.score[1] as i64],
            [f[1], f[2]],
            "{line}: score"
        );
        assert_eq!(m.cube as i64, f[3], "{line}: cube");
        assert_eq!(
            m.cube_owner.map_or(-1, i64::from),
            f[4],
            "{line}: cube owner"
        );
        assert_eq!(m.on_roll as i64, f[5], "{line}: player on roll");
        assert_eq!(m.turn as i64, f[6], "{line}: turn");
        assert_eq!(m.crawford as i64, f[7], "{line}: crawford");
        // gnubg reports the dice in the order set; its Match ID holds the higher die first.
        assert_eq!(
            (m.dice.0 as i64, m.dice.1 as i64),
            (f[8].max(f[9]), f[8].min(f[9])),
            "{line}: dice"
        );
        assert_eq!(m.game_state as i64, f[10], "{line}: game state");
        assert_eq!(m.doubled as i64, f[11], "{line}: doubled");
        assert_eq!(m.resigned as i64, f[12], "{line}: resigned");
        assert_eq!(m.game_state == GameState::Playing, f[10] == 1);
        let pos = Position::from_position_id(pid).unwrap_or_else(|e| panic!("{pid}: {e}"));
        assert_eq!(pos.position_id(), pid);
        n += 1;
    }
    assert!(n >= 200, "{n} match IDs");
}

/// XGIDs read by gnubg's `set xgid`: the engine reads the same position (seen from the player on
/// roll) and the same match state, and writes the XGID back unchanged.
#[test]
fn xgids_match_gnubg() {
    use tabula_engine::backgammon::Xgid;
    let text = data("backgammon-xgids.txt");
    let mut n = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut f = line.split_whitespace();
        let (x, pid, mid) = (
            f.next().expect("xgid"),
            f.next().expect("pid"),
            f.next().expect("mid"),
        );
        let xg = Xgid::parse(x).unwrap_or_else(|e| panic!("{x}: {e}"));
        assert_eq!(xg.to_string(), x, "XGID round trip");
        assert_eq!(xg.position.position_id(), pid, "{x}: position");
        assert_eq!(xg.match_id().encode(), mid, "{x}: match ID");
        n += 1;
    }
    assert!(n >= 200, "{n} XGIDs");
}

/// Board lines gnubg 1.07 sent to an external player: the engine reads the position (from the
/// player on roll) and state gnubg had, and writes the identical line back.
#[test]
fn fibs_boards_match_gnubg() {
    use tabula_engine::backgammon::{FibsBoard, MatchId};
    let text = data("backgammon-fibs.txt");
    let mut n = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (board, ids) = line.split_once(" | ").expect("' | '");
        let mut ids = ids.split_whitespace();
        let (pid, mid) = (ids.next().expect("pid"), ids.next().expect("mid"));
        let b = FibsBoard::parse(board).unwrap_or_else(|e| panic!("{board}: {e}"));
        assert_eq!(b.to_string(), board, "board line round trip");
        assert_eq!(b.position.position_id(), pid, "{board}: position");
        let m = MatchId::decode(mid).expect("match ID");
        assert_eq!(b.on_roll, m.on_roll, "{board}: player on roll");
        assert_eq!(
            (b.match_length, b.score),
            (m.match_length, m.score),
            "{board}: score"
        );
        assert_eq!(
            (b.cube, b.cube_owner),
            (m.cube, m.cube_owner),
            "{board}: cube"
        );
        assert_eq!(b.crawford, m.crawford, "{board}: Crawford");
        let one_away = m.match_length > 0 && m.score.iter().any(|&s| s + 1 == m.match_length);
        assert_eq!(
            b.post_crawford,
            one_away && !m.crawford,
            "{board}: post-Crawford"
        );
        let (hi, lo) = (b.dice.0.max(b.dice.1), b.dice.0.min(b.dice.1));
        assert!((hi, lo) == m.dice || m.dice == (0, 0), "{board}: dice");
        n += 1;
    }
    assert!(n >= 200, "{n} board lines");
}

/// gnubg's notation of every play of one roll for 500 positions: the engine writes the same
/// string for the play with the same result, and reading gnubg's string finds that play.
#[test]
fn notation_matches_gnubg() {
    use std::collections::HashMap;
    let text = data("backgammon-notation.txt");
    let (mut n, mut differ) = (0, Vec::new());
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (head, plays) = line
            .split_once(" | ")
            .unwrap_or((line.trim_end_matches(" |"), ""));
        let (id, roll) = head.split_once(' ').expect("position and roll");
        let pos = Position::from_position_id(id).expect("position");
        let dice: Dice = roll.trim().parse().expect("roll");
        let ours: HashMap<String, Play> = pos
            .plays(dice)
            .into_iter()
            .map(|p| (p.result().position_id(), p))
            .collect();
        let theirs: Vec<(&str, &str)> = plays
            .split(" ; ")
            .filter(|s| !s.is_empty())
            .map(|s| s.rsplit_once(" = ").expect("'='"))
            .collect();
        assert_eq!(ours.len(), theirs.len(), "{id} {roll}: number of plays");
        for (notation, result) in theirs {
            let play = ours
                .get(result)
                .unwrap_or_else(|| panic!("{id} {roll}: no play gives {result}"));
            if play.notation() != notation {
                differ.push(format!(
                    "{id} {roll}: gnubg {notation:?}, engine {:?}",
                    play.notation()
                ));
            }
            let parsed = pos
                .parse_play(dice, notation)
                .unwrap_or_else(|e| panic!("{id} {roll} {notation}: {e}"));
            assert_eq!(
                parsed.result().position_id(),
                result,
                "{id} {roll}: parsing {notation}"
            );
            n += 1;
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {n} notations differ, first: {:#?}",
        differ.len(),
        &differ[..differ.len().min(10)]
    );
    assert!(n >= 2000, "{n} plays");
}
