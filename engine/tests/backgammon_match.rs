//! Match play rules and the Kazaross-XG2 match equity table.

use tabula_engine::backgammon::met::{equity_after, match_equity, POST_CRAWFORD, PRE_CRAWFORD};
use tabula_engine::backgammon::{DoubleDenied, GameKind, MatchError, MatchState, Position};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// The public figures quoted in the rules file (gnubg's default MET).
#[test]
fn met_reference_figures() {
    assert!(close(match_equity(2, 2, false).unwrap(), 0.5));
    assert!(
        close(match_equity(1, 2, false).unwrap(), 0.67736),
        "Crawford game, 1-away vs 2-away"
    );
    assert!(close(match_equity(2, 3, false).unwrap(), 0.59947));
    assert!(
        close(match_equity(2, 1, true).unwrap(), 0.48803),
        "post-Crawford trailer 2-away"
    );
    assert!(
        close(match_equity(1, 2, true).unwrap(), 1.0 - 0.48803),
        "post-Crawford leader"
    );
    assert!(close(match_equity(1, 1, true).unwrap(), 0.5));
    assert_eq!(match_equity(0, 3, false), Some(1.0));
    assert_eq!(match_equity(3, 0, false), Some(0.0));
    assert_eq!(match_equity(26, 3, false), None);
    assert_eq!(
        match_equity(3, 3, true),
        None,
        "post-Crawford needs a player 1-away"
    );
}

/// The embedded table is a consistent MET: complementary, increasing in the opponent's
/// distance, decreasing in one's own.
#[test]
fn met_table_is_consistent() {
    for i in 0..25 {
        assert!(close(PRE_CRAWFORD[i][i], 0.5), "{i}-away each");
        for j in 0..25 {
            assert!(
                (PRE_CRAWFORD[i][j] + PRE_CRAWFORD[j][i] - 1.0).abs() < 1e-5,
                "{i},{j}"
            );
            if j + 1 < 25 {
                assert!(PRE_CRAWFORD[i][j + 1] >= PRE_CRAWFORD[i][j], "{i},{j}");
                assert!(PRE_CRAWFORD[j + 1][i] <= PRE_CRAWFORD[j][i], "{i},{j}");
            }
        }
        assert!(POST_CRAWFORD[i] <= 0.5 && POST_CRAWFORD[i] > 0.0);
    }
}

/// gnubg's getME: equity after a game result, including the switch to post-Crawford.
#[test]
fn equity_after_results() {
    // 7-point match at 4-4 (3-away each): player 0 wins a gammon -> 1-away vs 3-away, Crawford.
    assert!(close(
        equity_after(7, [4, 4], false, 0, 2, 0).unwrap(),
        PRE_CRAWFORD[0][2]
    ));
    // The Crawford game at 6-3: player 1 wins 1 -> post-Crawford, 1-away vs 3-away.
    assert!(close(
        equity_after(7, [6, 3], true, 1, 1, 1).unwrap(),
        POST_CRAWFORD[2]
    ));
    assert!(close(
        equity_after(7, [6, 3], true, 1, 1, 0).unwrap(),
        1.0 - POST_CRAWFORD[2]
    ));
    // Winning the match.
    assert_eq!(equity_after(5, [3, 4], false, 0, 2, 0), Some(1.0));
    assert_eq!(equity_after(5, [3, 4], false, 0, 2, 1), Some(0.0));
}

#[test]
fn doubling_rights() {
    let mut m = MatchState::new(5, 0).unwrap();
    assert_eq!(m.double_denied(0), Some(DoubleDenied::FirstMove));
    m.played().unwrap();
    assert_eq!(m.double_denied(0), Some(DoubleDenied::NotOnRoll));
    assert!(m.may_double(1));
    m.double().unwrap();
    assert_eq!(m.double(), Err(MatchError::Double(DoubleDenied::NotNow)));
    m.take().unwrap();
    assert_eq!((m.cube(), m.cube_owner()), (2, Some(0)));
    m.played().unwrap();
    assert!(m.may_double(0), "the owner may redouble");
    m.played().unwrap();
    assert_eq!(m.double_denied(1), Some(DoubleDenied::NotOwner));
    // Player 0 redoubles to 4 with 5 to go; then at 4 with 5-away the cube is not dead yet.
    m.played().unwrap();
    m.double().unwrap();
    m.take().unwrap();
    assert_eq!((m.cube(), m.cube_owner()), (4, Some(1)));
    assert_eq!(m.double_denied(1), Some(DoubleDenied::NotOnRoll));
    m.played().unwrap();
    assert!(m.may_double(1), "4 < 5 away");
    m.double().unwrap();
    let r = m.drop_double().unwrap();
    assert_eq!(
        (r.winner, r.points, r.kind),
        (1, 4, None),
        "a drop scores the cube value only"
    );
    assert_eq!(m.score(), [0, 4]);

    // Dead cube: 2-away with the cube at 2.
    let mut m = MatchState::at_score(5, [3, 0], false, false).unwrap();
    m.set_cube(2, Some(0)).unwrap();
    m.played().unwrap();
    m.played().unwrap();
    assert_eq!(m.double_denied(0), Some(DoubleDenied::DeadCube));

    // 1-away, post-Crawford: the leader may not double, the trailer may.
    let mut m = MatchState::at_score(5, [4, 1], false, true).unwrap();
    m.played().unwrap();
    m.played().unwrap();
    assert_eq!(m.double_denied(0), Some(DoubleDenied::OneAway));
    m.played().unwrap();
    assert!(m.may_double(1));

    // Crawford game: nobody doubles.
    let mut m = MatchState::at_score(5, [4, 1], true, false).unwrap();
    m.played().unwrap();
    assert_eq!(m.double_denied(1), Some(DoubleDenied::Crawford));
    assert!(m.set_cube(2, None).is_err());

    // Money: the cube stops at 64.
    let mut m = MatchState::money(0);
    m.set_cube(64, Some(0)).unwrap();
    m.played().unwrap();
    m.played().unwrap();
    assert_eq!(m.double_denied(0), Some(DoubleDenied::MaxCube));
    assert!(MatchState::new(26, 0).is_err() && MatchState::new(0, 0).is_err());
}

#[test]
fn crawford_sequence_and_results() {
    let mut m = MatchState::new(5, 0).unwrap();
    m.played().unwrap();
    let r = m.win(1, GameKind::Gammon).unwrap();
    assert_eq!(r.points, 2);
    m.new_game(0).unwrap();
    assert!(!m.is_crawford());
    m.played().unwrap();
    m.double().unwrap();
    m.take().unwrap();
    assert_eq!(m.win(1, GameKind::Single).unwrap().points, 2);
    assert_eq!(m.score(), [0, 4]);
    m.new_game(0).unwrap();
    assert!(m.is_crawford(), "player 1 reached 1-away");
    assert!(close(m.match_equity(1).unwrap(), 1.0 - PRE_CRAWFORD[4][0]));
    m.win(0, GameKind::Backgammon).unwrap();
    assert_eq!(m.score(), [3, 4]);
    m.new_game(1).unwrap();
    assert!(!m.is_crawford() && m.is_post_crawford());
    assert!(close(m.match_equity(0).unwrap(), POST_CRAWFORD[1]));
    m.win(0, GameKind::Gammon).unwrap();
    assert!(m.is_match_over());
    assert!(m.new_game(0).is_err());
}

#[test]
fn game_kinds() {
    // The opponent (who just played) has borne off everything.
    let mut me = [0u8; 25];
    let opp = [0u8; 25];
    me[5] = 15;
    assert_eq!(
        Position::from_counts(me, opp).unwrap().loss_kind(),
        Some(GameKind::Gammon)
    );
    me[5] = 14;
    me[24] = 1;
    assert_eq!(
        Position::from_counts(me, opp).unwrap().loss_kind(),
        Some(GameKind::Backgammon)
    );
    me[24] = 0;
    me[20] = 1;
    assert_eq!(
        Position::from_counts(me, opp).unwrap().loss_kind(),
        Some(GameKind::Backgammon)
    );
    me[20] = 0;
    assert_eq!(
        Position::from_counts(me, opp).unwrap().loss_kind(),
        Some(GameKind::Single)
    );
    assert_eq!(Position::START.loss_kind(), None);
}

#[test]
fn match_state_and_match_id() {
    use tabula_engine::backgammon::MatchId;
    let mut m = MatchState::at_score(7, [6, 3], false, true).unwrap();
    m.set_cube(2, Some(1)).unwrap();
    let id = m.to_match_id((5, 2));
    let back = MatchState::from_match_id(&MatchId::decode(&id.encode()).unwrap()).unwrap();
    assert_eq!(back.to_match_id((5, 2)), id);
    assert!(back.is_post_crawford() && !back.is_crawford());
    assert_eq!(
        (back.cube(), back.cube_owner(), back.score()),
        (2, Some(1), [6, 3])
    );
    // gnubg's own Match ID of a money game, player 1 on roll with 52, cube centred.
    let g = MatchId::decode("cIkKAAAAAAAE").unwrap();
    let s = MatchState::from_match_id(&g).unwrap();
    assert_eq!((s.length(), s.on_roll(), s.cube_owner()), (0, 1, None));
    assert!(MatchState::at_score(7, [6, 6], true, false).is_err());
    // The same money game with the Crawford flag (bit 7) set: gnubg never writes it.
    let crawford = MatchId {
        crawford: true,
        ..g
    };
    assert_eq!(
        MatchId::decode(&crawford.encode()),
        Err(tabula_engine::backgammon::MatchIdError::CrawfordMoney)
    );
}

#[test]
fn the_jacoby_bit_reads_as_gnubg_writes_it() {
    use tabula_engine::backgammon::{MatchId, Xgid};
    // gnubg 1.07, `set jacoby on` / `set jacoby off`, then `new game` and `show matchid`.
    let on = MatchId::decode("cAkFAAAAAAAA").unwrap();
    let off = MatchId::decode("cAkAAAAAAAAE").unwrap();
    assert!(on.jacoby);
    assert!(!off.jacoby);
    assert_eq!(on.encode(), "cAkFAAAAAAAA");
    assert_eq!(off.encode(), "cAkAAAAAAAAE");
    // XG's money field 7: 1 the Jacoby rule (+2 beavers); in a match it is the Crawford flag.
    let xg = |field7: u8, length: u32| {
        let id = format!("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:{field7}:{length}:10");
        Xgid::parse(&id).unwrap().match_id().jacoby
    };
    assert!(xg(1, 0) && xg(3, 0));
    assert!(!xg(0, 0) && !xg(2, 0));
    assert!(!xg(1, 7));
}
