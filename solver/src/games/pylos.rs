//! Pylos's search policy: the distance algebra of win/loss payoffs, a first guess for exact
//! solves, and the reading of a payoff for the side to move.

use super::{Backup, Keying, SolvePolicy, TestShortcuts};
use crate::eval::Evaluate;
use std::cmp::Ordering;
use tabula_engine::pylos::{self, Board, Color, Position, Variant, WIN};
use tabula_engine::{Role, Scored, Symmetric};

/// No test shortcuts.
impl TestShortcuts for Position {}

impl Backup for Position {
    /// One ply further from the end: a win (loss) at distance k becomes one at k + 1; a draw
    /// stays a draw.
    #[inline]
    fn backed_up(child_value: i32) -> i32 {
        pylos::backed_up(child_value)
    }

    /// The inverse of [`Backup::backed_up`] on thresholds.
    #[inline]
    fn child_threshold(x: i32) -> i32 {
        pylos::child_threshold(x)
    }

    /// Under `children` rules every exact value is a win or loss within
    /// [`Position::max_remaining_plies`], so nothing lies strictly between the slowest loss and
    /// the slowest win: a proven bound near 0 jumps to the slowest win (or loss).
    fn exact_at_least(&self, x: i32) -> i32 {
        match self.max_remaining_plies() {
            Some(rem) if -(WIN - rem) < x && x <= WIN - rem => WIN - rem,
            _ => x,
        }
    }

    fn exact_at_most(&self, x: i32) -> i32 {
        match self.max_remaining_plies() {
            Some(rem) if -(WIN - rem) <= x && x < WIN - rem => -(WIN - rem),
            _ => x,
        }
    }
}

impl Keying for Position {
    fn symmetric_key(&self) -> Option<(u64, usize)> {
        Some(self.canonical_key_and_symmetry())
    }
}

/// The fewest balls on the full board from which a search without a time or node limit is
/// attempted. From the start (0 balls) or close to it no rule set is solved by search: under
/// `children` rules the 16-ball positions of the snapshot take about 2 M nodes and each ball
/// fewer multiplies that several times; under `standard` and `mature` rules the deepening never
/// proves a result near the start. The 3×3 board has no such limit: its whole tree is small
/// (every rule set is solved from its start, see `solver/tests/pylos_solver.rs`).
pub const MIN_UNBOUNDED_BALLS: u32 = 12;

impl SolvePolicy for Position {
    /// The driver gallops from its guess; every test whose threshold is a loss or win far away
    /// costs about a full solve, while one near a fast end is bounded by its distance. So the
    /// guess is the fast end of the side the evaluation favours (a tie: the side to move loses):
    /// on the children's-rules positions measured, 2.4-2.6x fewer nodes than a guess near 0
    /// when the side is right, about 10% more when it is wrong.
    fn exact_guess(&self) -> Option<i32> {
        let (lo, hi) = self.value_bounds();
        Some(match (self.evaluate().cmp(&0), self.to_move()) {
            (Ordering::Greater, _) | (Ordering::Equal, Role::Min) => hi,
            (Ordering::Less, _) | (Ordering::Equal, Role::Max) => lo,
        })
    }

    /// Under `children` rules every move adds a ball or raises one, so the game tree is finite.
    /// Under `standard` and `mature` rules a take-back can repeat a position and an unbounded
    /// search would not terminate (the value encoding bounds it only at ~1000 plies).
    fn finite(&self) -> bool {
        self.rules().variant == Variant::Children
    }

    fn out_of_reach(&self) -> Option<String> {
        let balls = self.occupied().count_ones();
        (self.board() == Board::Four && balls < MIN_UNBOUNDED_BALLS).then(|| {
            format!(
                "{balls} balls on the board: a search without a limit from fewer than \
                 {MIN_UNBOUNDED_BALLS} does not finish in any reasonable time; bound it with \
                 --time SECONDS or --nodes N (it then reports what it proved)"
            )
        })
    }
}

/// A search result from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// `win`, `loss`, `draw` or `unknown`.
    pub result: &'static str,
    /// Plies to the end under best play, for a proven win or loss.
    pub plies: Option<u32>,
    /// The payoff for the side to move (positive: it wins), estimate unless exact.
    pub value: i32,
    pub exact: bool,
}

/// Reads a search value (black's payoff) for the side to move. Only an exact value is a result;
/// anything else, including a value that merely looks decided, is `unknown`.
pub fn verdict(pos: &Position, value: i32, exact: bool) -> Verdict {
    let value = match pos.turn() {
        Color::Black => value,
        Color::White => -value,
    };
    let (result, plies) = match (exact, value.signum()) {
        (false, _) => ("unknown", None),
        (true, 0) => ("draw", None),
        (true, 1) => ("win", Some((WIN - value).unsigned_abs())),
        (true, _) => ("loss", Some((WIN + value).unsigned_abs())),
    };
    Verdict {
        result,
        plies,
        value,
        exact,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AtomicTable, SearchOptions, Searcher};
    use std::collections::HashMap;
    use tabula_engine::pylos::{Rules, Takeback};
    use tabula_engine::{Game, Keyed};

    /// Black's payoff with distances by plain memoised minimax (children's rules: acyclic).
    fn minimax(pos: &Position, memo: &mut HashMap<u64, i32>) -> i32 {
        if let Some(v) = pos.terminal_value() {
            return v;
        }
        if let Some(&v) = memo.get(&pos.key()) {
            return v;
        }
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        let values = moves
            .iter()
            .map(|&m| pylos::backed_up(minimax(&pos.play(m), memo)));
        let v = match pos.to_move() {
            Role::Max => values.max(),
            Role::Min => values.min(),
        }
        .expect("a position that is not over has a move");
        memo.insert(pos.key(), v);
        v
    }

    #[test]
    fn the_small_board_is_solved_from_its_start() {
        let rules = Rules::new(Variant::Children, Takeback::Optional).on(Board::Three);
        let start = Position::start(rules);
        assert_eq!(start.out_of_reach(), None);
        let expected = minimax(&start, &mut HashMap::new());
        let table = AtomicTable::with_megabytes(8);
        let options = SearchOptions {
            threads: 1,
            symmetry: true,
            ..SearchOptions::default()
        };
        let report = Searcher::new(&table, options)
            .solve(&start)
            .expect("no limits");
        assert!(report.exact);
        assert_eq!(report.value, expected);
        assert!(pylos::decode(expected).is_some(), "children's Pylos ends");
        // The full board's start stays out of reach.
        assert!(Position::start(Rules::default()).out_of_reach().is_some());
    }

    #[test]
    fn verdicts_are_for_the_side_to_move_and_only_when_exact() {
        let rules = Rules::default();
        let black = Position::start(rules);
        let white = Position::parse("b.../..../..../....|.../.../...|../..|. w", rules).unwrap();
        let v = verdict(&black, WIN - 15, true);
        assert_eq!((v.result, v.plies, v.value), ("win", Some(15), WIN - 15));
        let v = verdict(&white, WIN - 15, true);
        assert_eq!(
            (v.result, v.plies, v.value),
            ("loss", Some(15), -(WIN - 15))
        );
        let v = verdict(&white, -(WIN - 5), true);
        assert_eq!((v.result, v.plies), ("win", Some(5)));
        assert_eq!(verdict(&black, 0, true).result, "draw");
        // A decided-looking value that is not proven stays unknown.
        let v = verdict(&black, WIN - 7, false);
        assert_eq!((v.result, v.plies, v.exact), ("unknown", None, false));
    }
}
