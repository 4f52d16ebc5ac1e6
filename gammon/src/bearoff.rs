//! Exact bear-off probabilities from the one-sided bearoff database (`tabula-tablebase`): once
//! both sides have every checker home, the race is two independent bear-offs, and the database's
//! distributions of the rolls each side needs give the winning and gammon chances directly.

use crate::Probabilities;
use std::sync::Arc;
use tabula_engine::backgammon::{Position, Side};
use tabula_tablebase::bearoff::{home_board, OneSided};

/// A shared one-sided database. Two are equal when they are the same table (the database is
/// a pure function of the rules, so the identity is all a comparison of evaluators needs).
#[derive(Clone, Debug)]
pub struct BearoffTable(pub Arc<OneSided>);

impl PartialEq for BearoffTable {
    fn eq(&self, other: &BearoffTable) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// P(X ≥ k) for every k, from the distribution of X (`dist[j]` = P(X = j)).
fn at_least(dist: &[f64], k: usize) -> f64 {
    1.0 - dist.iter().take(k).sum::<f64>()
}

impl BearoffTable {
    /// The exact probabilities for the player on roll when both sides are bearing off (every
    /// checker home or off, game not over); `None` otherwise.
    ///
    /// The player on roll finishes on his k-th roll after the opponent has had k − 1: he wins
    /// when the opponent needs at least k. He wins a gammon when, besides, the opponent has none
    /// off and would not take the first one off within k − 1 rolls; the opponent's gammon is the
    /// mirror image one roll later. The first-checker distribution comes from the play that
    /// minimises the rolls to the first checker off, as in gnubg. Nobody can be backgammoned:
    /// every checker is in its own home board.
    pub fn probabilities(&self, pos: &Position) -> Option<Probabilities> {
        let me = home_board(pos, Side::OnRoll).ok()?;
        let them = home_board(pos, Side::Opponent).ok()?;
        if me.iter().all(|&c| c == 0) || them.iter().all(|&c| c == 0) {
            return None; // a finished game: scored elsewhere
        }
        let table = &self.0;
        let mine = table.distribution(me).ok()?;
        let theirs = table.distribution(them).ok()?;
        let win: f64 = (0..mine.len())
            .map(|k| mine[k] * at_least(&theirs, k))
            .sum();
        let win_gammon = if pos.off(Side::Opponent) == 0 {
            let first = table.first_off_distribution(them).ok()?;
            (0..mine.len()).map(|k| mine[k] * at_least(&first, k)).sum()
        } else {
            0.0
        };
        let lose_gammon = if pos.off(Side::OnRoll) == 0 {
            let first = table.first_off_distribution(me).ok()?;
            (0..theirs.len())
                .map(|k| theirs[k] * at_least(&first, k + 1))
                .sum()
        } else {
            0.0
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
    use tabula_tablebase::bearoff::TwoSided;

    fn table() -> &'static BearoffTable {
        static TABLE: OnceLock<BearoffTable> = OnceLock::new();
        TABLE.get_or_init(|| BearoffTable(Arc::new(OneSided::build())))
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
