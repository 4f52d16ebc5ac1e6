//! Pylos's heuristic evaluation.

use super::Evaluate;
use tabula_engine::pylos::cell::{ABOVE_LEVEL, LEVEL_START, RESTING};
use tabula_engine::pylos::{Color, Position, WIN};
use tabula_engine::Scored;

/// The largest magnitude of a heuristic value: well inside (-WIN/2, WIN/2), so that an estimate
/// never looks like a decided value (those lie within a few hundred plies of ±WIN).
pub const EVAL_LIMIT: i32 = WIN / 2 - 100;

const RESERVE: i32 = 20;
const RAISABLE: i32 = 3;
const THREAT: i32 = 6;

/// One side's share of the estimate: balls in reserve (whoever runs out first is usually lost),
/// free balls that can be raised now (a raise saves a ball), and take-back patterns the side
/// could complete with one ball on a cell that can hold it now.
fn side_score(pos: &Position, color: Color, landable: u32) -> i32 {
    let own = pos.balls(color);
    let mut raisable = 0;
    let mut free = pos.free(color);
    while free != 0 {
        let s = free.trailing_zeros() as usize;
        free &= free - 1;
        let level = LEVEL_START[1..]
            .iter()
            .take_while(|&&start| s >= start as usize)
            .count();
        if level < 3 && landable & ABOVE_LEVEL[level] & !RESTING[s] != 0 {
            raisable += 1;
        }
    }
    let threats = pos
        .rules()
        .patterns()
        .iter()
        .filter(|&&p| {
            let missing = p & !own;
            missing.count_ones() == 1 && missing & landable != 0
        })
        .count() as i32;
    RESERVE * pos.reserve(color) as i32 + RAISABLE * raisable + THREAT * threats
}

/// Pylos estimate from black's point of view (black maximises): the difference of the two
/// sides' `side_score`s, clamped to ±`EVAL_LIMIT`. Exact (±WIN) for a finished game.
impl Evaluate for Position {
    fn evaluate(&self) -> i32 {
        if let Some(v) = self.terminal_value() {
            return v;
        }
        let landable = self.landable();
        let score =
            side_score(self, Color::Black, landable) - side_score(self, Color::White, landable);
        score.clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_engine::playout::random_playout;
    use tabula_engine::pylos::Rules;
    use tabula_engine::Game;

    #[test]
    fn estimates_stay_inside_the_decided_range_and_terminals_are_exact() {
        for rules in Rules::ALL {
            for seed in 0..200u64 {
                let mut plies = 0;
                let limit = seed % 40;
                let pos = random_playout(&Position::start(rules), seed, |_| {
                    plies += 1;
                    plies > limit
                });
                let Some(pos) = pos else { continue };
                let v = pos.evaluate();
                match pos.terminal_value() {
                    Some(t) => assert_eq!(v, t),
                    None => assert!(v.abs() <= EVAL_LIMIT && v.abs() < WIN / 2, "{pos}: {v}"),
                }
            }
        }
        // White to move with no reserve and no raise: black has won, exactly.
        let stuck = Position::parse(
            "bwbw/wbwb/bwbw/wbww|wwb/wbw/bwb|bw/bb|. w",
            Rules::default(),
        )
        .unwrap();
        assert!(stuck.is_terminal());
        assert_eq!(stuck.evaluate(), WIN);
        assert_eq!(stuck.with_rules(Rules::ALL[0]).evaluate(), WIN);
    }

    #[test]
    fn more_balls_in_reserve_is_better() {
        let rules = Rules::default();
        let start = Position::start(rules);
        // Black has placed one ball more than white: white is ahead.
        let pos = Position::parse("b.../..../..../....|.../.../...|../..|. w", rules).unwrap();
        assert!(pos.evaluate() < start.evaluate());
        let pos = Position::parse("bw../..../..../....|.../.../...|../..|. b", rules).unwrap();
        assert_eq!(pos.evaluate(), 0);
    }
}
