//! Network inputs, TD-Gammon style, from the point of view of the player on roll.
//!
//! Per side (the player on roll first, then the opponent, each on its own point numbering):
//! for each of the 24 points four units for `n` checkers there, `n ≥ 1`, `n ≥ 2`, `n ≥ 3` and
//! `(n − 3) / 2` when `n > 3`; then the bar (`n / 2`), the checkers borne off (`n / 15`) and
//! the pip count (`pips / 167`). 99 units per side, [`INPUTS`] = 198 in all. The contact and
//! race nets take the same inputs.
//!
//! Most units are zero, so the inputs are kept sparse: the net adds one weight row per
//! non-zero unit.

use tabula_engine::backgammon::{Position, Side, BAR};

/// Units per side.
pub const SIDE_INPUTS: usize = 24 * 4 + 3;
/// Units in all.
pub const INPUTS: usize = 2 * SIDE_INPUTS;

/// The non-zero inputs of a position: `(index, value)` pairs in increasing index order.
#[derive(Clone, Debug)]
pub struct Inputs {
    pub index: [u16; INPUTS],
    pub value: [f32; INPUTS],
    pub len: usize,
}

impl Inputs {
    /// The inputs of `pos` for the player on roll.
    pub fn new(pos: &Position) -> Inputs {
        let mut x = Inputs {
            index: [0; INPUTS],
            value: [0.0; INPUTS],
            len: 0,
        };
        for (s, side) in [Side::OnRoll, Side::Opponent].into_iter().enumerate() {
            let base = s * SIDE_INPUTS;
            let counts = pos.counts(side);
            let mut on_board = 0u32;
            let mut pips = 0u32;
            for (i, &n) in counts.iter().enumerate() {
                on_board += n as u32;
                pips += (i as u32 + 1) * n as u32;
                if i == BAR || n == 0 {
                    continue;
                }
                let u = base + 4 * i;
                x.push(u, 1.0);
                if n >= 2 {
                    x.push(u + 1, 1.0);
                }
                if n >= 3 {
                    x.push(u + 2, 1.0);
                }
                if n > 3 {
                    x.push(u + 3, (n as f32 - 3.0) / 2.0);
                }
            }
            if counts[BAR] > 0 {
                x.push(base + 96, counts[BAR] as f32 / 2.0);
            }
            let off = 15 - on_board.min(15);
            if off > 0 {
                x.push(base + 97, off as f32 / 15.0);
            }
            if pips > 0 {
                x.push(base + 98, pips as f32 / 167.0);
            }
        }
        x
    }

    #[inline]
    fn push(&mut self, i: usize, v: f32) {
        self.index[self.len] = i as u16;
        self.value[self.len] = v;
        self.len += 1;
    }

    /// The dense vector (for tests and checks).
    pub fn dense(&self) -> Vec<f32> {
        let mut d = vec![0.0; INPUTS];
        for k in 0..self.len {
            d[self.index[k] as usize] = self.value[k];
        }
        d
    }
}

/// The furthest-back checker of `side` on its own numbering: 25 for the bar, 0 when none.
pub fn back_point(pos: &Position, side: Side) -> usize {
    let counts = pos.counts(side);
    (0..25).rev().find(|&i| counts[i] > 0).map_or(0, |i| i + 1)
}

/// True when the checkers can still meet: some checker of one side is behind some checker of
/// the other. Otherwise the game is a race (or over).
pub fn is_contact(pos: &Position) -> bool {
    let me = back_point(pos, Side::OnRoll);
    let opp = back_point(pos, Side::Opponent);
    me > 0 && opp > 0 && me + opp > 25
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_inputs() {
        let x = Inputs::new(&Position::START);
        let d = x.dense();
        // Six checkers... five on the 6-point: units 1, 1, 1, 1.0.
        assert_eq!(&d[20..24], &[1.0, 1.0, 1.0, 1.0]);
        assert_eq!(
            &d[SIDE_INPUTS + 20..SIDE_INPUTS + 24],
            &[1.0, 1.0, 1.0, 1.0]
        );
        // Two on the 24-point.
        assert_eq!(&d[92..96], &[1.0, 1.0, 0.0, 0.0]);
        assert_eq!(d[96], 0.0);
        assert_eq!(d[97], 0.0);
        assert_eq!(d[98], 1.0);
        assert!(is_contact(&Position::START));
    }

    #[test]
    fn race_detection() {
        let mut me = [0u8; 25];
        let mut opp = [0u8; 25];
        me[11] = 15; // my 12-point = opponent's 13-point
        opp[11] = 15; // opponent's 12-point = my 13-point: already passed
        let race = Position::from_counts(me, opp).unwrap();
        assert!(!is_contact(&race));
        me[11] = 0;
        me[12] = 15; // my 13-point: the opponent's 12-point
        opp[11] = 0;
        opp[12] = 15; // opponent's 13 = my 12: it still has to pass my 13
        let contact = Position::from_counts(me, opp).unwrap();
        assert!(is_contact(&contact));
    }
}
