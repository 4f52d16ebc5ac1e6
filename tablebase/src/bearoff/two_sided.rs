//! The two-sided bearoff database: the cubeless probability that the player on roll wins,
//! for both sides with up to 6 checkers on their home boards (924 × 924 positions).
//!
//! The player on roll plays each roll to maximise its winning chances; gammons cannot happen
//! with fewer than 15 checkers, so the cubeless equity is `2 · P(win) − 1`. A side with no
//! checkers has won: the player on roll with none wins (probability 1, as in gnubg), else an
//! opponent with none has won (0).
//!
//! After a play the sides swap, and the new position's total pip count (both sides) is lower,
//! so the positions are solved in levels of total pips, each level in parallel with rayon.
//! The plays of each side's 924 boards for each of the 21 rolls are generated once.
//!
//! Payload of the file (kind 2): 924 × 924 little-endian `f64`, the probability for on-roll
//! board `i` against opponent board `j` at `i · 924 + j` (indices of
//! [`rank`](super::rank)).

use std::fmt;
use std::path::Path;

use rayon::prelude::*;
use tabula_engine::backgammon::Dice;

use super::{
    checked_rank, children, pips, rank, unrank, Board, BoardError, Progress, POINTS,
    TWO_SIDED_CHECKERS, TWO_SIDED_SIDE_POSITIONS as SIDE,
};
use crate::{f64s, Existing, Kind, PayloadError, StoreError, TargetLock};

/// The two-sided bearoff database: cubeless winning chances of the player on roll, for up to
/// 6 checkers a side (see the [module documentation](super)).
#[derive(Clone, PartialEq)]
pub struct TwoSided {
    win: Vec<f64>,
}

impl fmt::Debug for TwoSided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TwoSided")
            .field("positions", &self.win.len())
            .finish()
    }
}

/// The payload's length.
const PAYLOAD: u64 = 8 * (SIDE * SIDE) as u64;

/// For each side board and roll, the indices of the boards its plays lead to.
struct PlayTable {
    start: Vec<u32>,
    kids: Vec<u16>,
}

impl PlayTable {
    fn new() -> PlayTable {
        let mut start = Vec::with_capacity(SIDE * 21 + 1);
        let mut kids = Vec::new();
        for i in 0..SIDE {
            let board = unrank(i);
            for dice in Dice::ALL {
                start.push(kids.len() as u32);
                kids.extend(children(&board, dice).iter().map(|c| rank(c) as u16));
            }
        }
        start.push(kids.len() as u32);
        PlayTable { start, kids }
    }

    fn kids(&self, board: usize, roll: usize) -> &[u16] {
        let k = board * 21 + roll;
        &self.kids[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

impl TwoSided {
    /// Builds the database (a few seconds on two cores).
    pub fn build() -> TwoSided {
        TwoSided::build_with_progress(|_| {})
    }

    /// Builds the database, reporting progress after each solved level.
    pub fn build_with_progress(mut progress: impl FnMut(Progress)) -> TwoSided {
        let total = SIDE * SIDE;
        let table = PlayTable::new();
        let side_pips: Vec<usize> = (0..SIDE).map(|i| pips(&unrank(i))).collect();
        let max = 2 * POINTS * TWO_SIDED_CHECKERS;
        let mut levels: Vec<Vec<u32>> = vec![Vec::new(); max + 1];
        for us in 0..SIDE {
            for them in 0..SIDE {
                levels[side_pips[us] + side_pips[them]].push((us * SIDE + them) as u32);
            }
        }
        let weights: Vec<f64> = Dice::ALL.iter().map(|d| d.weight() as f64).collect();
        let mut win = vec![0.0; total];
        let mut done = 0;
        for level in &levels {
            let solved: Vec<f64> = level
                .par_iter()
                .map(|&k| {
                    let (us, them) = (k as usize / SIDE, k as usize % SIDE);
                    if us == 0 {
                        return 1.0;
                    }
                    if them == 0 {
                        return 0.0;
                    }
                    // After our play the opponent is on roll: row `them` of the table.
                    let row = &win[them * SIDE..(them + 1) * SIDE];
                    let mut sum = 0.0;
                    for (roll, w) in weights.iter().enumerate() {
                        let best = table
                            .kids(us, roll)
                            .iter()
                            .map(|&c| 1.0 - row[c as usize])
                            .fold(f64::NEG_INFINITY, f64::max);
                        sum += w * best;
                    }
                    sum / 36.0
                })
                .collect();
            for (&k, p) in level.iter().zip(solved) {
                win[k as usize] = p;
            }
            done += level.len();
            progress(Progress { done, total });
        }
        TwoSided { win }
    }

    fn index(on_roll: &Board, opponent: &Board) -> Result<usize, BoardError> {
        let us = checked_rank(on_roll, TWO_SIDED_CHECKERS)?;
        let them = checked_rank(opponent, TWO_SIDED_CHECKERS)?;
        Ok(us * SIDE + them)
    }

    /// The number of positions (924 × 924).
    pub fn len(&self) -> usize {
        self.win.len()
    }

    /// Always false: the database holds every position.
    pub fn is_empty(&self) -> bool {
        self.win.is_empty()
    }

    /// The probability that the player on roll wins, both sides playing to maximise it.
    pub fn win_probability(&self, on_roll: Board, opponent: Board) -> Result<f64, BoardError> {
        Ok(self.win[TwoSided::index(&on_roll, &opponent)?])
    }

    /// The cubeless equity of the player on roll: `2 · P(win) − 1` (no gammons).
    pub fn equity(&self, on_roll: Board, opponent: Board) -> Result<f64, BoardError> {
        Ok(2.0 * self.win_probability(on_roll, opponent)? - 1.0)
    }

    fn payload(&self) -> Vec<u8> {
        self.win.iter().flat_map(|p| p.to_le_bytes()).collect()
    }

    /// The context string of its files: game, database, points and checkers.
    pub const CONTEXT: &'static str = "game=backgammon;db=bearoff-ts;points=6;checkers=6";

    /// Writes the database to `path` atomically, replacing a file there (see
    /// [`tabula_store::Writer`]).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), StoreError> {
        self.save_locked(&TargetLock::acquire(path)?, Existing::Replace)
    }

    /// Writes the database to the target of `lock`, which the caller holds.
    pub fn save_locked(&self, lock: &TargetLock, existing: Existing) -> Result<(), StoreError> {
        crate::save_locked(
            lock,
            Kind::BearoffTwoSided,
            Self::CONTEXT,
            &self.payload(),
            existing,
        )
    }

    /// Reads a database written by [`TwoSided::save`], checking header, size, checksums and
    /// that every value is a probability.
    pub fn load(path: impl AsRef<Path>) -> Result<TwoSided, StoreError> {
        let path = path.as_ref();
        let payload = crate::load(path, Kind::BearoffTwoSided, Self::CONTEXT, PAYLOAD)?;
        TwoSided::from_payload(&payload).map_err(|why| StoreError::bad_payload(Some(path), why))
    }

    fn from_payload(payload: &[u8]) -> Result<TwoSided, PayloadError> {
        if payload.len() as u64 != PAYLOAD {
            return Err(PayloadError::WrongLength {
                len: payload.len(),
                expected: PAYLOAD,
            });
        }
        let win: Vec<f64> = f64s(payload).collect();
        if let Some(i) = win.iter().position(|p| !(0.0..=1.0).contains(p)) {
            return Err(PayloadError::NotAProbability {
                position: i,
                value: win[i],
            });
        }
        Ok(TwoSided { win })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_round_trip() {
        let db = TwoSided::build();
        assert_eq!(TwoSided::from_payload(&db.payload()).unwrap(), db);
    }

    #[test]
    fn a_bad_payload_is_a_typed_error_with_the_old_message() {
        let mut payload = TwoSided::build().payload();
        payload[8..16].copy_from_slice(&1.5f64.to_le_bytes());
        let e = TwoSided::from_payload(&payload).unwrap_err();
        assert_eq!(
            e,
            PayloadError::NotAProbability {
                position: 1,
                value: 1.5
            }
        );
        assert_eq!(e.to_string(), "position 1: 1.5 is not a probability");
        let e = TwoSided::from_payload(&payload[1..]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("payload of {} bytes, expected {PAYLOAD}", PAYLOAD - 1)
        );
    }
}
