//! Bear-off plays on a bare home board: every distinct position a roll can lead to.
//!
//! With every checker home, a die can always be played (move a checker down, bear off from the
//! point it names, or bear off from the highest point when it is lower than the die), so both
//! dice of a roll (four for a double) are used unless the last checker goes off first; the
//! rules' "use both dice / the larger die" clauses can only bite then, when the result (no
//! checkers) is the same whatever was played. The test below checks the sets against the
//! engine's full move generator.

use super::{Board, POINTS};
use tabula_engine::backgammon::Dice;

/// Positions after playing one die from `board` (which has at least one checker), appended to
/// `out` (distinct, as each comes from a different point).
fn play_die(board: &Board, die: usize, out: &mut Vec<Board>) {
    let highest = match board.iter().rposition(|&c| c > 0) {
        Some(h) => h,
        None => return,
    };
    for i in 0..POINTS {
        if board[i] == 0 {
            continue;
        }
        let point = i + 1;
        let mut next = *board;
        next[i] -= 1;
        if point > die {
            next[i - die] += 1;
        } else if point < die && i != highest {
            // Bearing off with a larger die needs no checker on a higher point.
            continue;
        }
        out.push(next);
    }
}

/// Every distinct position after playing `dice` from `board`, sorted. Empty for an empty board
/// (the game is already over).
pub fn children(board: &Board, dice: Dice) -> Vec<Board> {
    if board.iter().all(|&c| c == 0) {
        return Vec::new();
    }
    after_dice(*board, dice, |s, die, next| {
        if s.iter().all(|&c| c == 0) {
            next.push(*s);
        } else {
            play_die(s, usize::from(die), next);
        }
    })
}

/// Every distinct state after playing `dice` from `start`, sorted, given the states one die
/// leads to (`die(state, d, out)` appends them): both orders of the two dice, or four times
/// the die of a double, without repeats after each die.
pub(crate) fn after_dice<S: Copy + Ord>(
    start: S,
    dice: Dice,
    mut die: impl FnMut(&S, u8, &mut Vec<S>),
) -> Vec<S> {
    let (h, l) = (dice.high(), dice.low());
    let orders: &[&[u8]] = if h == l {
        &[&[h, h, h, h]]
    } else {
        &[&[h, l], &[l, h]]
    };
    let mut result = Vec::new();
    for order in orders {
        let mut states = vec![start];
        for &d in *order {
            let mut next = Vec::with_capacity(states.len() * 4);
            for s in &states {
                die(s, d, &mut next);
            }
            next.sort_unstable();
            next.dedup();
            states = next;
        }
        result.extend(states);
    }
    result.sort_unstable();
    result.dedup();
    result
}

#[cfg(test)]
mod tests {
    use super::super::index::{pips, unrank};
    use super::*;
    use tabula_engine::backgammon::{Position, Side};

    #[test]
    fn simple_cases() {
        let d = |s: &str| s.parse::<Dice>().unwrap();
        // One checker on the 6-point: 61 and 51 bear it off, 21 leaves it on the 3-point.
        assert_eq!(children(&[0, 0, 0, 0, 0, 1], d("61")), vec![[0; 6]]);
        assert_eq!(children(&[0, 0, 0, 0, 0, 1], d("51")), vec![[0; 6]]);
        assert_eq!(
            children(&[0, 0, 0, 0, 0, 1], d("21")),
            vec![[0, 0, 1, 0, 0, 0]]
        );
        // Two checkers on the ace point: a 6 bears off only from the highest point.
        assert_eq!(children(&[2, 0, 0, 0, 0, 0], d("65")), vec![[0; 6]]);
        // 5-point and 2-point with 61: the 6 bears off only one of them.
        assert_eq!(
            children(&[0, 1, 0, 0, 1, 0], d("61")),
            vec![[0, 1, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]]
        );
        assert_eq!(children(&[0; 6], d("66")), Vec::<Board>::new());
    }

    /// The sets agree with the engine's own generator on a spread of positions (compared as
    /// sets: the engine's list is meant to hold distinct positions, but that is its business).
    #[test]
    fn agrees_with_the_engine() {
        // The opponent keeps 15 checkers on its own ace point (the mover's 24-point).
        let mut opp = [0u8; 25];
        opp[0] = 15;
        for index in (1..54_264).step_by(7) {
            let board = unrank(index);
            let mut me = [0u8; 25];
            me[..6].copy_from_slice(&board);
            let pos = Position::from_counts(me, opp).unwrap();
            for dice in Dice::ALL {
                let mut engine: Vec<Board> = pos
                    .plays(dice)
                    .iter()
                    .map(|p| {
                        let c = p.result().counts(Side::Opponent);
                        assert!(c[6..].iter().all(|&x| x == 0));
                        c[..6].try_into().unwrap()
                    })
                    .collect();
                engine.sort_unstable();
                engine.dedup();
                let ours = children(&board, dice);
                assert_eq!(ours, engine, "{board:?} {dice}");
                for child in &ours {
                    assert!(pips(child) < pips(&board));
                }
            }
        }
    }
}
