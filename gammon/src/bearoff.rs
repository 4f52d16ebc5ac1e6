//! Exact race endings from one-sided databases: once each side is either bearing off (every
//! checker home: the one-sided bearoff database of `tabula-tablebase`), or, with a race
//! database attached, in a race with every checker on its first 7 to 12 points
//! ([`RaceTable`]), or down to its last few checkers in a race (anywhere on the board, no
//! contact: [`FewCheckers`], built in memory on first use), the race is two independent
//! one-sided races, and the distributions of the rolls each side needs give the winning and
//! gammon chances directly.
//!
//! The few-checker case is there because the race net values it badly: a side with 13 checkers
//! off and two still far from home, against an opponent about to finish, is rare in any
//! training game, and the net called such a side a near-certain winner (0.98 where gnubg says
//! 0.06; a duel lost a 128-point game to it, `docs/results.md`). The race database is optional
//! (216 MB for 10 points, built once by `tabula tablebase build race-os`): the race net errs
//! most in races whose last checkers are a few points from home, gammon saves above all.

use crate::inputs::is_contact;
use crate::Probabilities;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use tabula_engine::backgammon::{Position, Side};
use tabula_tablebase::bearoff::{
    home_board, FewCheckers, OneSided, RaceTable, FEW_CHECKERS, RACE_POINTS_MAX,
};

/// The shared one-sided databases: the bear-off one, and the race one when attached. Two are
/// equal when they are the same tables (the databases are pure functions of the rules, so the
/// identity is all a comparison of evaluators needs).
#[derive(Clone, Debug)]
pub struct BearoffTable {
    pub os: Arc<OneSided>,
    pub race: Option<Arc<RaceDb>>,
}

/// How an opener of a deferred race database is kept until its first use.
type Opener = Box<dyn FnOnce() -> Option<RaceTable> + Send>;

/// A race database attached to an evaluator: opened already ([`RaceDb::ready`]), or opened
/// the first time a race could use it ([`RaceDb::deferred`]), as Syzygy tables are opened on
/// their first probe. Opening one verifies every block's checksum (about 0.06 s and 30 MB for
/// 10 points), which a one-shot evaluation of a contact position never needs.
pub struct RaceDb {
    table: OnceLock<Option<RaceTable>>,
    open: Mutex<Option<Opener>>,
}

impl RaceDb {
    /// A database opened already.
    pub fn ready(table: RaceTable) -> RaceDb {
        RaceDb {
            table: OnceLock::from(Some(table)),
            open: Mutex::new(None),
        }
    }

    /// A database that `open` opens the first time it is asked for, once, whichever thread
    /// asks first (the others wait for it). `None` from `open` (a file that does not open:
    /// `open` reports it as its caller sees fit) means no database: the race net values
    /// those races, as without one.
    pub fn deferred(open: impl FnOnce() -> Option<RaceTable> + Send + 'static) -> RaceDb {
        RaceDb {
            table: OnceLock::new(),
            open: Mutex::new(Some(Box::new(open))),
        }
    }

    /// The database, opened now if it was deferred; `None` when it did not open.
    pub fn get(&self) -> Option<&RaceTable> {
        self.table
            .get_or_init(|| {
                let open = self
                    .open
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take();
                open.and_then(|open| open())
            })
            .as_ref()
    }

    /// True once the database was asked for (or was given opened), whether or not it opened.
    pub fn is_resolved(&self) -> bool {
        self.table.get().is_some()
    }
}

impl std::fmt::Debug for RaceDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.table.get() {
            Some(table) => f.debug_tuple("RaceDb").field(table).finish(),
            None => f.write_str("RaceDb(deferred)"),
        }
    }
}

impl PartialEq for BearoffTable {
    fn eq(&self, other: &BearoffTable) -> bool {
        Arc::ptr_eq(&self.os, &other.os)
            && match (&self.race, &other.race) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
    }
}

/// The few-checker race table, a pure function of the rules: built once per process, the
/// first time a position needs it.
fn few_checkers() -> &'static FewCheckers {
    static FEW: OnceLock<FewCheckers> = OnceLock::new();
    FEW.get_or_init(FewCheckers::build)
}

/// P(X ≥ k) for every k, from the distribution of X (`dist[j]` = P(X = j)).
fn at_least(dist: &[f64], k: usize) -> f64 {
    1.0 - dist.iter().take(k).sum::<f64>()
}

/// One side's race: the distribution of the rolls it needs to bear off, and of the rolls to
/// its first checker off (`None` when one is off already: it cannot be gammoned).
struct OneSide {
    off: Vec<f64>,
    first: Option<Vec<f64>>,
}

impl BearoffTable {
    /// `side`'s race from the bearoff database when every checker is home, else from the
    /// race database (when attached) when every checker is on the points it covers and `pos`
    /// is a race, else from the few-checker table when it has at most [`FEW_CHECKERS`] left
    /// and `pos` is a race. An opened race database whose file fails a read after it was
    /// opened (every block was verified then) gives nothing: the position goes to the net.
    fn side(&self, pos: &Position, side: Side) -> Option<OneSide> {
        let gammonable = pos.off(side) == 0;
        if let Ok(board) = home_board(pos, side) {
            let off = self.os.distribution(board).ok()?;
            let first = match gammonable {
                true => Some(self.os.first_off_distribution(board).ok()?),
                false => None,
            };
            return Some(OneSide { off, first });
        }
        if let Some(race) = &self.race {
            let counts = pos.counts(side);
            // The cheap tests first: most positions have a checker beyond any table's points,
            // or contact; only a race that some table could cover opens a deferred one.
            if counts[RACE_POINTS_MAX..].iter().all(|&c| c == 0) && !is_contact(pos) {
                if let Some(race) = race.get() {
                    if counts[race.points()..].iter().all(|&c| c == 0) {
                        let [off, first] = race.distributions(&counts).ok()?;
                        let first = gammonable.then_some(first);
                        return Some(OneSide { off, first });
                    }
                }
            }
        }
        // Counted before the table is asked (it is built on first use, and most races never
        // need it), and before the contact test: most positions the evaluator sees stop here.
        if 15 - usize::from(pos.off(side)) > FEW_CHECKERS || is_contact(pos) {
            return None;
        }
        // A side in the few-checker table has 11 or more checkers off: never gammoned.
        let off = few_checkers().distribution(&pos.counts(side)).ok()?;
        Some(OneSide { off, first: None })
    }

    /// The exact probabilities for the player on roll when each side is bearing off or has
    /// only a few checkers left in a race (and the game is not over); `None` otherwise.
    ///
    /// The player on roll finishes on his k-th roll after the opponent has had k − 1: he wins
    /// when the opponent needs at least k. He wins a gammon when, besides, the opponent has none
    /// off and would not take the first one off within k − 1 rolls; the opponent's gammon is the
    /// mirror image one roll later. The first-checker distribution comes from the play that
    /// minimises the rolls to the first checker off, as in gnubg. Nobody can be backgammoned:
    /// a side that can lose a gammon has every checker in its own home board, or (with the
    /// race database) on its first 12 points at most, out of the winner's home board.
    pub fn probabilities(&self, pos: &Position) -> Option<Probabilities> {
        if pos.off(Side::OnRoll) == 15 || pos.off(Side::Opponent) == 15 {
            return None; // a finished game: scored elsewhere
        }
        let me = self.side(pos, Side::OnRoll)?;
        let them = self.side(pos, Side::Opponent)?;
        let (mine, theirs) = (&me.off, &them.off);
        let win: f64 = (0..mine.len()).map(|k| mine[k] * at_least(theirs, k)).sum();
        let win_gammon = match &them.first {
            Some(first) => (0..mine.len()).map(|k| mine[k] * at_least(first, k)).sum(),
            None => 0.0,
        };
        let lose_gammon = match &me.first {
            Some(first) => (0..theirs.len())
                .map(|k| theirs[k] * at_least(first, k + 1))
                .sum(),
            None => 0.0,
        };
        // `at_least` sums to 1 − a tail, which can round to −2.2e-16: probabilities stay in
        // [0, 1] (label files refuse anything else).
        Some([win, win_gammon, 0.0, lose_gammon, 0.0].map(|p: f64| p.clamp(0.0, 1.0) as f32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::OnceLock;
    use tabula_tablebase::bearoff::{RaceTable, TwoSided};

    fn table() -> &'static BearoffTable {
        static TABLE: OnceLock<BearoffTable> = OnceLock::new();
        TABLE.get_or_init(|| BearoffTable {
            os: Arc::new(OneSided::build()),
            race: None,
        })
    }

    fn position(me: [u8; 6], them: [u8; 6]) -> Position {
        let mut a = [0u8; 25];
        let mut b = [0u8; 25];
        a[..6].copy_from_slice(&me);
        b[..6].copy_from_slice(&them);
        Position::from_counts(a, b).expect("bear-off position")
    }

    #[test]
    fn win_chances_agree_with_the_two_sided_database() {
        let two = TwoSided::build();
        let p = table()
            .probabilities(&position([0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 2]))
            .unwrap();
        assert!((p[0] - 0.75449).abs() < 5e-5, "{p:?}");
        for (me, them) in [
            ([1, 1, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0]),
            ([0, 2, 1, 0, 1, 0], [1, 1, 1, 1, 1, 1]),
            ([3, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1]),
        ] {
            let ours = table().probabilities(&position(me, them)).unwrap()[0];
            let exact = two.win_probability(me, them).unwrap() as f32;
            // Both sides minimise their rolls here, while in the two-sided database each plays
            // for the win, so the figures may differ either way, but only a little.
            assert!(
                (ours - exact).abs() < 0.02,
                "{me:?} {them:?}: {ours} vs {exact}"
            );
        }
    }

    /// Every home board with at most `n` checkers, or with all fifteen on one point.
    fn boards(n: u8) -> Vec<[u8; 6]> {
        let mut out: Vec<[u8; 6]> = (0..6)
            .map(|i| std::array::from_fn(|j| if i == j { 15 } else { 0 }))
            .collect();
        let mut b = [0u8; 6];
        loop {
            let total: u8 = b.iter().sum();
            if (1..=n).contains(&total) {
                out.push(b);
            }
            let mut i = 0;
            loop {
                if i == 6 {
                    return out;
                }
                b[i] += 1;
                if b.iter().sum::<u8>() <= n {
                    break;
                }
                b[i] = 0;
                i += 1;
            }
        }
    }

    #[test]
    fn probabilities_stay_within_0_and_1() {
        let boards = boards(3);
        for me in &boards {
            for them in &boards {
                let pos = position(*me, *them);
                if let Some(p) = table().probabilities(&pos) {
                    assert!(
                        p.iter().all(|x| (0.0..=1.0).contains(x)),
                        "{me:?} {them:?}: {p:?}"
                    );
                }
            }
        }
    }

    /// A side's counts from (point, checkers) pairs, the rest borne off.
    fn side(points: &[(usize, u8)]) -> [u8; 25] {
        let mut c = [0u8; 25];
        for &(p, k) in points {
            c[p - 1] += k;
        }
        c
    }

    /// Every race of at most two checkers a side, anywhere on the board, valued by a
    /// two-sided computation written for this test: each side plays every roll to maximise
    /// its winning chance (not to minimise its rolls, as the one-sided tables do), over the
    /// engine's own plays. With a lone checker a side has no choice, and there the figures are
    /// the same; otherwise they may differ either way, but only a little.
    #[test]
    fn few_checker_races_agree_with_a_two_sided_search() {
        use std::collections::HashMap;
        use tabula_engine::backgammon::Dice;
        type Memo = HashMap<([u8; 25], [u8; 25]), f64>;
        /// The on-roll side's winning chance (`me` and `them` each have a checker left).
        fn win(me: [u8; 25], them: [u8; 25], memo: &mut Memo) -> f64 {
            if let Some(&p) = memo.get(&(me, them)) {
                return p;
            }
            // The opponent's checkers out of the way: a race never meets them, so they stand
            // where the engine's generator sees no contact (its own ace point is free of ours).
            let pos = Position::from_counts(me, side(&[(1, 1)])).unwrap();
            let mut p = 0.0;
            for dice in Dice::ALL {
                let best = pos
                    .plays(dice)
                    .iter()
                    .map(|play| {
                        let after = play.result().counts(Side::Opponent);
                        if after == [0; 25] {
                            1.0
                        } else {
                            1.0 - win(them, after, memo)
                        }
                    })
                    .fold(0.0, f64::max);
                p += best * dice.probability();
            }
            memo.insert((me, them), p);
            p
        }
        let mut boards: Vec<[u8; 25]> = Vec::new();
        for a in 1..=23 {
            boards.push(side(&[(a, 1)]));
            for b in 1..=a {
                boards.push(side(&[(a, 1), (b, 1)]));
            }
        }
        let mut memo = Memo::new();
        let (mut compared, mut exact) = (0, 0);
        for (i, me) in boards.iter().enumerate() {
            for (j, them) in boards.iter().enumerate() {
                // A spread of races, not all 76,176: every 3rd pair (and all lone checkers).
                let lone = |b: &[u8; 25]| b.iter().sum::<u8>() == 1;
                let sampled = (i * boards.len() + j).is_multiple_of(3) || (lone(me) && lone(them));
                if !sampled {
                    continue;
                }
                let Ok(pos) = Position::from_counts(*me, *them) else {
                    continue;
                };
                if crate::inputs::is_contact(&pos) {
                    assert!(table().probabilities(&pos).is_none());
                    continue;
                }
                let ours = table().probabilities(&pos).expect("a few-checker race")[0] as f64;
                let two_sided = win(*me, *them, &mut memo);
                if lone(me) && lone(them) {
                    assert!((ours - two_sided).abs() < 1e-6, "{me:?} {them:?}");
                    exact += 1;
                } else {
                    assert!((ours - two_sided).abs() < 0.02, "{me:?} {them:?}");
                }
                compared += 1;
            }
        }
        assert!(compared > 5_000 && exact > 200, "{compared} {exact}");
    }

    /// The race database (7 points, built once for these tests).
    fn with_race() -> &'static BearoffTable {
        static TABLE: OnceLock<BearoffTable> = OnceLock::new();
        TABLE.get_or_init(|| BearoffTable {
            os: table().os.clone(),
            race: Some(Arc::new(RaceDb::ready(RaceTable::build(7)))),
        })
    }

    /// Where the few-checker table also applies (at most four checkers left), the race
    /// database gives the same chances (the same computation by other code); where neither
    /// applies without it (fifteen checkers, one on the 7-point) it values gammons too; and a
    /// position with contact is never its.
    #[test]
    fn the_race_database_agrees_and_values_gammons() {
        let mut compared = 0;
        for a in 1..=7 {
            for b in 1..=a {
                for c in [0usize, 1, 3] {
                    let mut mine = side(&[(7, 1), (a, 1), (b, 1)]);
                    if c > 0 {
                        mine[c - 1] += 1;
                    }
                    for them in [side(&[(6, 2), (2, 3)]), side(&[(1, 1)]), side(&[(4, 4)])] {
                        let pos = Position::from_counts(mine, them).unwrap();
                        let few = table().probabilities(&pos).expect("few checkers");
                        let race = with_race().probabilities(&pos).expect("race database");
                        for (x, y) in few.iter().zip(&race) {
                            assert!((x - y).abs() < 1e-5, "{mine:?} {them:?}: {few:?} {race:?}");
                        }
                        compared += 1;
                    }
                }
            }
        }
        assert_eq!(compared, 28 * 3 * 3);
        // Fifteen on the opponent's side, one of them on its 7-point, none off: my lone
        // checker on the 3-point wins, and a gammon unless its first checker comes off at once.
        let them = side(&[(7, 1), (6, 14)]);
        let pos = Position::from_counts(side(&[(3, 1)]), them).unwrap();
        assert!(table().probabilities(&pos).is_none());
        let p = with_race().probabilities(&pos).unwrap();
        assert_eq!(p[0], 1.0);
        assert!(p[1] == 1.0, "it cannot bear off before I do: {p:?}");
        // The other way round: it is on roll and I finish on my first roll, so it is gammoned
        // unless this roll takes a checker off: one die brings the 7-point checker home and
        // the other bears off (any 6, 5-2, 4-3), or 3-3 (7/4/1, 6/3/off) or 2-2 (7/5,
        // 6/4/2/off): 17 of 36 rolls save it.
        let pos = Position::from_counts(them, side(&[(3, 1)])).unwrap();
        let p = with_race().probabilities(&pos).unwrap();
        assert_eq!(p[0], 0.0);
        assert!((p[3] - 19.0 / 36.0).abs() < 1e-6, "{p:?}");
        // Contact: my checker on the 7-point behind the opponent's on my 5-point (its 20).
        let pos = Position::from_counts(side(&[(7, 1)]), side(&[(20, 1), (6, 5)])).unwrap();
        assert!(crate::inputs::is_contact(&pos));
        assert!(with_race().probabilities(&pos).is_none());
    }

    /// A deferred race database is opened once, by the first race that could use it, and not
    /// by a contact position, a bear-off or a race with a checker beyond any database's
    /// points; opened, it values as the database given opened; one that does not open leaves
    /// the races to the net, as no database.
    #[test]
    fn a_deferred_race_database_opens_on_the_first_race() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let opened = Arc::new(AtomicUsize::new(0));
        let deferred = |works: bool| {
            let opened = opened.clone();
            BearoffTable {
                os: table().os.clone(),
                race: Some(Arc::new(RaceDb::deferred(move || {
                    opened.fetch_add(1, Ordering::SeqCst);
                    works.then(|| RaceTable::build(7))
                }))),
            }
        };
        let lazy = deferred(true);
        let resolved = |t: &BearoffTable| t.race.as_ref().unwrap().is_resolved();
        let contact = Position::from_counts(side(&[(7, 1)]), side(&[(20, 1), (6, 5)])).unwrap();
        let home = Position::from_counts(side(&[(6, 2), (2, 3)]), side(&[(1, 1)])).unwrap();
        let far = Position::from_counts(side(&[(13, 1), (6, 14)]), side(&[(3, 1)])).unwrap();
        for pos in [contact, home, far] {
            assert_eq!(lazy.probabilities(&pos), table().probabilities(&pos));
        }
        assert_eq!(opened.load(Ordering::SeqCst), 0);
        assert!(!resolved(&lazy));
        // Fifteen on the roller's side, one of them on its 7-point: only a database values it.
        let race = Position::from_counts(side(&[(7, 1), (6, 14)]), side(&[(3, 1)])).unwrap();
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let lazy = lazy.clone();
                std::thread::spawn(move || lazy.probabilities(&race))
            })
            .collect();
        for t in threads {
            assert_eq!(t.join().unwrap(), with_race().probabilities(&race));
        }
        assert!(with_race().probabilities(&race).is_some());
        assert_eq!(opened.load(Ordering::SeqCst), 1);
        assert!(resolved(&lazy));
        // One that does not open: asked once, then the races go to the net.
        let broken = deferred(false);
        for _ in 0..3 {
            assert_eq!(broken.probabilities(&race), None);
        }
        assert_eq!(opened.load(Ordering::SeqCst), 2);
    }

    /// The position that cost a 128-point game: 13 off and two checkers far from home
    /// (on the 16- and 19-points) against six on the opponent's 1- to 3-points. The race net
    /// calls it a near-certain win; the opponent needs at most three rolls, and the exact
    /// value is about 0.07.
    #[test]
    fn the_race_nets_blind_spot_is_exact() {
        let pos = Position::from_position_id("twAAAACABAAAAA").unwrap();
        assert_eq!(pos.off(Side::OnRoll), 13);
        let p = table().probabilities(&pos).expect("a few-checker race");
        assert!((0.05..0.10).contains(&p[0]), "{p:?}");
        // Nobody is gammoned: 13 off, and the opponent's last six go off before our two.
        assert_eq!(p[1..], [0.0; 4]);
        // One checker on the 7-point against a last checker of the opponent's on its ace
        // point: win exactly when the first roll takes it off, 7 pips or more (a double
        // moves four times its die).
        let pos = Position::from_counts(side(&[(7, 1)]), side(&[(1, 1)])).unwrap();
        let first_roll: f64 = tabula_engine::backgammon::Dice::ALL
            .iter()
            .filter(|d| {
                let (h, l) = (d.high() as usize, d.low() as usize);
                if h == l {
                    4 * h >= 7
                } else {
                    h + l >= 7
                }
            })
            .map(|d| d.probability())
            .sum();
        let p = table().probabilities(&pos).unwrap();
        assert!(
            (p[0] as f64 - first_roll).abs() < 1e-6,
            "{p:?} {first_roll}"
        );
    }

    /// A side with a few checkers left and some off cannot lose a gammon; the opponent,
    /// with none off and fifteen home, can.
    #[test]
    fn few_checker_gammons() {
        let pos = Position::from_counts(side(&[(9, 1)]), side(&[(6, 15)])).unwrap();
        let p = table().probabilities(&pos).unwrap();
        assert!(p[1] > 0.0 && p[1] <= p[0], "{p:?}");
        assert_eq!((p[2], p[3], p[4]), (0.0, 0.0, 0.0));
        // Five checkers left outside the home board: more than the table holds, the net's.
        let pos = Position::from_counts(side(&[(9, 5)]), side(&[(6, 15)])).unwrap();
        assert!(table().probabilities(&pos).is_none());
    }

    #[test]
    fn gammons_need_the_loser_without_a_checker_off() {
        // One checker on my ace point, fifteen on the opponent's 6-point: I win a gammon at once.
        let p = table()
            .probabilities(&position([1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 15]))
            .unwrap();
        assert_eq!(p, [1.0, 1.0, 0.0, 0.0, 0.0]);
        // The mirror with me on roll and fifteen on my 6-point: the opponent finishes on his
        // first roll, and I escape the gammon only with a roll that takes a checker off from
        // the 6-point: any 6 (11 of 36), 5-1, 4-2 (2 each), 3-3 and 2-2: 17 of 36.
        let p = table()
            .probabilities(&position([0, 0, 0, 0, 0, 15], [1, 0, 0, 0, 0, 0]))
            .unwrap();
        assert_eq!(p[0], 0.0);
        assert!((p[3] - 19.0 / 36.0).abs() < 1e-6, "{p:?}");
        // A checker already off: no gammon either way.
        let p = table()
            .probabilities(&position([0, 0, 0, 0, 0, 14], [1, 0, 0, 0, 0, 0]))
            .unwrap();
        assert_eq!(p[3], 0.0);
        assert_eq!((p[2], p[4]), (0.0, 0.0));
        // Not a bear-off: no answer.
        assert!(table().probabilities(&Position::START).is_none());
    }
}
