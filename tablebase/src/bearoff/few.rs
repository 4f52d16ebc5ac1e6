//! One-sided race distributions for a side with only a few checkers left, anywhere on its 24
//! points: the bear-off database's idea carried out of the home board.
//!
//! The one-sided database ([`OneSided`](super::OneSided)) covers a side once every checker is
//! home. A side that has borne off most of its checkers and still has one or two far away (a
//! late hit, or a back checker that stayed behind) is not covered, and a race net trained on
//! ordinary races values such a side badly: the net never saw one. With at most
//! [`FEW_CHECKERS`] checkers there are few such boards (20,475 for 4, the empty one included),
//! so their distributions are computed exactly, in memory (0.07 s on 2 cores for 4 checkers).
//!
//! In a race (no contact) every die can be played while a checker is left: a checker outside
//! the home board moves down whatever the die, and at home the bear-off rules always allow a
//! play. So every roll moves its two (four) dice, as on the home board, and the only rule the
//! plays of a die add to the home board's is that a checker is borne off only once all are
//! home. Each roll is played, as in the one-sided database, to minimise the expected number
//! of rolls (ties: the first child in the sorted order of boards). Where both apply (every
//! checker home) the two agree; the tests check it, and check the plays against the engine's
//! full move generator.

use super::spread::{choose, from_counts, play_die, rank};
use rayon::prelude::*;
use tabula_engine::backgammon::Dice;

use super::BoardError;

/// The most checkers a board of [`FewCheckers::build`] may have.
pub const FEW_CHECKERS: usize = 4;

/// The largest `max_checkers` [`FewCheckers::with_max`] accepts.
pub const FEW_CHECKERS_LIMIT: usize = 6;

/// Distributions cover 0 to `FEW_MAX_ROLLS - 1` rolls. Six checkers on the 24-point are 144
/// pips, and a roll moves at least 3 (more than 48 rolls is impossible); the build asserts
/// that nothing overflows.
const FEW_MAX_ROLLS: usize = 64;

/// Points a checker can stand on (1 to 24); 0 stands for borne off.
const POINTS24: usize = 24;

/// A board: the points of its checkers, highest first, then zeros (borne off). Only the first
/// `max_checkers` entries are used.
type Spread = [u8; FEW_CHECKERS_LIMIT];

/// The distributions of every board of up to `max_checkers` checkers on 24 points.
#[derive(Clone, Debug, PartialEq)]
pub struct FewCheckers {
    max_checkers: usize,
    /// By rank: where the distribution starts in `values`, its first roll count and length.
    spans: Vec<(u32, u8, u8)>,
    means: Vec<f64>,
    values: Vec<f64>,
}

/// Every distinct board after playing `dice` from `s`, sorted: the plays as the tests see
/// them (the build walks the same sequences of [`play_die`] through a table of ranks).
#[cfg(test)]
fn children(s: &Spread, n: usize, dice: Dice) -> Vec<Spread> {
    super::moves::after_dice(*s, dice, |state, die, next| play_die(state, n, die, next))
}

/// Every spread of `n` entries, in no particular order.
fn all_spreads(n: usize) -> Vec<Spread> {
    fn go(s: &mut Spread, i: usize, n: usize, top: u8, out: &mut Vec<Spread>) {
        if i == n {
            out.push(*s);
            return;
        }
        for p in 0..=top {
            s[i] = p;
            go(s, i + 1, n, p, out);
        }
        s[i] = 0;
    }
    let mut out = Vec::new();
    go(&mut [0; FEW_CHECKERS_LIMIT], 0, n, POINTS24 as u8, &mut out);
    out
}

fn pips(s: &Spread) -> usize {
    s.iter().map(|&p| p as usize).sum()
}

impl FewCheckers {
    /// The distributions of every board of up to [`FEW_CHECKERS`] checkers (0.07 s on 2 cores).
    pub fn build() -> FewCheckers {
        FewCheckers::with_max(FEW_CHECKERS)
    }

    /// The same for up to `max_checkers` checkers (1 to [`FEW_CHECKERS_LIMIT`]; more panics):
    /// `C(24 + n, n)` boards, built level by level of pip count (a play always lowers it), the
    /// boards of a level in parallel.
    pub fn with_max(max_checkers: usize) -> FewCheckers {
        let n = max_checkers;
        assert!(
            (1..=FEW_CHECKERS_LIMIT).contains(&n),
            "{n} checkers: 1 to {FEW_CHECKERS_LIMIT}"
        );
        let count = choose(POINTS24 + n, n);
        let spreads = all_spreads(n);
        // The boards one die leads to, by rank and die (each board has at most n).
        let mut step = vec![(0u8, [0u32; FEW_CHECKERS_LIMIT]); count * 6];
        let mut levels = vec![Vec::new(); POINTS24 * n + 1];
        let mut buf = Vec::with_capacity(FEW_CHECKERS_LIMIT);
        for s in &spreads {
            let r = rank(s, n);
            for die in 1..=6u8 {
                buf.clear();
                play_die(s, n, die, &mut buf);
                let entry = &mut step[r * 6 + die as usize - 1];
                entry.0 = buf.len() as u8;
                for (slot, c) in entry.1.iter_mut().zip(&buf) {
                    *slot = rank(c, n) as u32;
                }
            }
            levels[pips(s)].push(r);
        }
        let step = |r: usize, die: u8| {
            let (len, to) = &step[r * 6 + die as usize - 1];
            to[..*len as usize].iter().map(|&c| c as usize)
        };
        // Built level by level; a board's distribution, trimmed to its non-zero span, is
        // appended to `values` once its level is solved.
        let mut spans = vec![(0u32, 0u8, 1u8); count];
        let mut means = vec![0.0f64; count];
        let mut values = vec![1.0]; // everything borne off: rank 0, done in 0 rolls
        for level in levels.iter().skip(1) {
            let solved: Vec<(usize, [f64; FEW_MAX_ROLLS])> = level
                .par_iter()
                .map(|&r| {
                    let mut d = [0.0; FEW_MAX_ROLLS];
                    for dice in Dice::ALL {
                        // The play that minimises the expected rolls; ties: the lowest rank.
                        let mut best = usize::MAX;
                        let mut consider = |c: usize| {
                            if best == usize::MAX
                                || means[c] < means[best]
                                || (means[c] == means[best] && c < best)
                            {
                                best = c;
                            }
                        };
                        let (h, l) = (dice.high(), dice.low());
                        if h == l {
                            for a in step(r, h) {
                                for b in step(a, h) {
                                    for c in step(b, h) {
                                        step(c, h).for_each(&mut consider);
                                    }
                                }
                            }
                        } else {
                            for (x, y) in [(h, l), (l, h)] {
                                for a in step(r, x) {
                                    step(a, y).for_each(&mut consider);
                                }
                            }
                        }
                        let (at, start, len) = spans[best];
                        let child = &values[at as usize..at as usize + len as usize];
                        let start = start as usize;
                        assert!(start + (len as usize) < FEW_MAX_ROLLS, "roll overflow");
                        let w = f64::from(dice.weight()) / 36.0;
                        for (k, p) in child.iter().enumerate() {
                            d[start + k + 1] += w * p;
                        }
                    }
                    (r, d)
                })
                .collect();
            for (r, d) in solved {
                means[r] = d.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
                let start = d.iter().position(|&p| p != 0.0).unwrap_or(0);
                let end = d
                    .iter()
                    .rposition(|&p| p != 0.0)
                    .map_or(start + 1, |e| e + 1);
                spans[r] = (values.len() as u32, start as u8, (end - start) as u8);
                values.extend_from_slice(&d[start..end]);
            }
        }
        FewCheckers {
            max_checkers: n,
            spans,
            means,
            values,
        }
    }

    /// The most checkers a board may have.
    pub fn max_checkers(&self) -> usize {
        self.max_checkers
    }

    /// The rank of the board of `counts` (a side's [`Position::counts`]: points 1 to 24, then
    /// the bar).
    ///
    /// [`Position::counts`]: tabula_engine::backgammon::Position::counts
    fn index(&self, counts: &[u8; 25]) -> Result<usize, BoardError> {
        let n = self.max_checkers;
        if counts[24] > 0 {
            return Err(BoardError::OnTheBar);
        }
        let s: Spread =
            from_counts(&counts[..POINTS24], n).ok_or_else(|| BoardError::TooManyCheckers {
                checkers: counts[..POINTS24].iter().map(|&c| c as usize).sum(),
                max: n,
            })?;
        Ok(rank(&s, n))
    }

    /// The expected number of rolls to bear off every checker of `counts` (a side's
    /// [`Position::counts`](tabula_engine::backgammon::Position::counts)), in a race.
    pub fn mean_rolls(&self, counts: &[u8; 25]) -> Result<f64, BoardError> {
        Ok(self.means[self.index(counts)?])
    }

    /// `P(k rolls)` for `k = 0, 1, …` up to the last possible number of rolls, in a race.
    pub fn distribution(&self, counts: &[u8; 25]) -> Result<Vec<f64>, BoardError> {
        let (at, start, len) = self.spans[self.index(counts)?];
        let mut d = vec![0.0; start as usize];
        d.extend_from_slice(&self.values[at as usize..at as usize + len as usize]);
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{unrank, OneSided, POINTS};
    use super::*;
    use tabula_engine::backgammon::{Position, Side};

    fn counts(points: &[(usize, u8)]) -> [u8; 25] {
        let mut c = [0u8; 25];
        for &(p, k) in points {
            c[p - 1] += k;
        }
        c
    }

    /// The counts (as [`Position::counts`] gives them) of the first `n` entries of `s`.
    fn board_of(s: &Spread, n: usize) -> [u8; 25] {
        let mut c = [0u8; 25];
        for &p in s[..n].iter().filter(|&&p| p > 0) {
            c[p as usize - 1] += 1;
        }
        c
    }

    #[test]
    fn ranks_are_a_bijection() {
        for n in 1..=4 {
            let mut seen = vec![false; choose(POINTS24 + n, n)];
            for s in all_spreads(n) {
                let r = rank(&s, n);
                assert!(!seen[r], "{s:?} ranked twice");
                seen[r] = true;
            }
            assert!(seen.iter().all(|&x| x));
        }
    }

    /// The plays agree with the engine's own generator, the opponent kept out of the way
    /// (fifteen checkers on its own ace point, behind every checker of ours but the
    /// 24-point's, which the tested boards leave empty).
    #[test]
    fn plays_agree_with_the_engine() {
        let n = 3;
        let mut opp = [0u8; 25];
        opp[0] = 13;
        for (i, s) in all_spreads(n).iter().enumerate() {
            if s[0] == 0 || s[0] == 24 || i % 5 != 0 {
                continue;
            }
            let pos = Position::from_counts(board_of(s, n), opp).unwrap();
            for dice in Dice::ALL {
                let mut engine: Vec<Spread> = pos
                    .plays(dice)
                    .iter()
                    .map(|p| {
                        from_counts::<FEW_CHECKERS_LIMIT>(
                            &p.result().counts(Side::Opponent)[..24],
                            n,
                        )
                        .unwrap()
                    })
                    .collect();
                engine.sort_unstable();
                engine.dedup();
                assert_eq!(children(s, n, dice), engine, "{s:?} {dice}");
            }
        }
    }

    /// Every board's mean is one roll more than the average, over the 21 rolls, of the best
    /// child's mean among the plays of the engine-checked generator above: the table is the
    /// fixed point it should be (child/parent consistency).
    #[test]
    fn means_are_consistent_with_the_plays() {
        let n = FEW_CHECKERS;
        let few = FewCheckers::build();
        let mean = |s: &Spread| few.mean_rolls(&board_of(s, n)).unwrap();
        for (i, s) in all_spreads(n).iter().enumerate() {
            if s[0] == 0 || i % 3 != 0 {
                continue;
            }
            let expected: f64 = 1.0
                + Dice::ALL
                    .iter()
                    .map(|&dice| {
                        let best = children(s, n, dice)
                            .iter()
                            .map(mean)
                            .fold(f64::INFINITY, f64::min);
                        best * f64::from(dice.weight()) / 36.0
                    })
                    .sum::<f64>();
            assert!((mean(s) - expected).abs() < 1e-9, "{s:?}");
        }
    }

    /// A lone checker has no choice: it finishes within k rolls when k rolls' pips (a double
    /// counting four times) reach its point, which a convolution of the rolls' totals gives.
    #[test]
    fn a_lone_checker_needs_its_pips() {
        let few = FewCheckers::build();
        // reach[k][t] = P(k rolls total t pips), capped at 30.
        let mut reach = vec![vec![0.0f64; 31]];
        reach[0][0] = 1.0;
        for k in 0..12 {
            let mut next = vec![0.0; 31];
            for (t, &p) in reach[k].iter().enumerate() {
                for dice in Dice::ALL {
                    let (h, l) = (dice.high() as usize, dice.low() as usize);
                    let step = if h == l { 4 * h } else { h + l };
                    next[(t + step).min(30)] += p * f64::from(dice.weight()) / 36.0;
                }
            }
            reach.push(next);
        }
        for point in 1..=24 {
            let d = few.distribution(&counts(&[(point, 1)])).unwrap();
            for (k, reach) in reach.iter().enumerate() {
                let within: f64 = reach[point..].iter().sum();
                let ours: f64 = d.iter().take(k + 1).sum();
                assert!((within - ours).abs() < 1e-12, "point {point}, {k} rolls");
            }
        }
    }

    /// On the home board the one-sided database and this table are the same computation by
    /// different code: the means agree exactly, the distributions to rounding.
    #[test]
    fn home_boards_agree_with_the_one_sided_database() {
        let os = OneSided::build();
        let few = FewCheckers::build();
        let mut compared = 0;
        for index in 0..super::super::positions_up_to(FEW_CHECKERS) {
            let board = unrank(index);
            let mut c = [0u8; 25];
            c[..POINTS].copy_from_slice(&board);
            let ours = few.distribution(&c).unwrap();
            let theirs = os.distribution(board).unwrap();
            let (m, m_os) = (few.mean_rolls(&c).unwrap(), os.mean_rolls(board).unwrap());
            assert!((m - m_os).abs() < 1e-12, "{board:?}: {m} vs {m_os}");
            for k in 0..ours.len().max(theirs.len()) {
                let (a, b) = (ours.get(k).unwrap_or(&0.0), theirs.get(k).unwrap_or(&0.0));
                assert!((a - b).abs() < 1e-12, "{board:?}, {k} rolls: {a} vs {b}");
            }
            compared += 1;
        }
        assert_eq!(compared, 210);
    }

    #[test]
    fn distributions_are_distributions() {
        let few = FewCheckers::build();
        for s in all_spreads(FEW_CHECKERS) {
            let c = board_of(&s, FEW_CHECKERS);
            let d = few.distribution(&c).unwrap();
            let sum: f64 = d.iter().sum();
            assert!((sum - 1.0).abs() < 1e-12, "{s:?}: {sum}");
            assert!(d.iter().all(|p| (0.0..=1.0 + 1e-12).contains(p)), "{s:?}");
            // A roll takes at most 24 pips (6-6) and at least 2 (every die at least one, as
            // every die is played), so the rolls needed lie between pips / 24 and pips / 2.
            let pips = pips(&s);
            let fewest = pips.div_ceil(24);
            assert!(d.iter().take(fewest).all(|&p| p == 0.0), "{s:?}: {d:?}");
            assert!(d.len() <= pips.div_ceil(2) + 1, "{s:?}: {d:?}");
        }
    }

    #[test]
    fn bad_boards_are_errors() {
        let few = FewCheckers::build();
        assert_eq!(
            few.distribution(&counts(&[(20, 3), (7, 2)])),
            Err(BoardError::TooManyCheckers {
                checkers: 5,
                max: 4
            })
        );
        let mut bar = counts(&[(3, 1)]);
        bar[24] = 1;
        assert_eq!(few.mean_rolls(&bar), Err(BoardError::OnTheBar));
        assert_eq!(few.distribution(&[0; 25]).unwrap(), vec![1.0]);
    }
}
