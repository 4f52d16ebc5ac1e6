//! Pylos's [`SolveReport`] from the driver's results. The search's payoff is black's; the
//! reports give it for the side to move (see [`verdict`]).

use super::{millis, names};
use crate::pylos::SolveReport;
use tabula_engine::pylos::{Color, Move, Position};
use tabula_solver::games::verdict;
use tabula_solver::{Analysis, Line, Proof, Solve, Stats};

/// A colour's name, as the reports spell it (`side_to_move`, `winner`).
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// Black's payoff (the search's) as the side to move's.
pub fn for_mover(pos: &Position, black: i32) -> i32 {
    match pos.turn() {
        Color::Black => black,
        Color::White => -black,
    }
}

impl SolveReport {
    /// A report of nothing known yet, with the cost.
    pub fn unknown(pos: &Position, stats: Stats) -> SolveReport {
        SolveReport {
            position: pos.to_string(),
            side_to_move: color_name(pos.turn()).into(),
            result: "unknown".into(),
            plies: None,
            value: None,
            exact: false,
            stopped: false,
            lower: None,
            upper: None,
            best: None,
            pv: Vec::new(),
            depth: None,
            nodes: stats.nodes,
            time_ms: millis(stats.time),
            tablebase: None,
        }
    }

    /// A report of a line whose value (black's payoff) is `exact` or an estimate.
    pub fn from_line(pos: &Position, line: &Line<Move>, exact: bool, stats: Stats) -> SolveReport {
        let v = verdict(pos, line.value, exact);
        SolveReport {
            result: v.result.into(),
            plies: v.plies,
            value: Some(v.value),
            exact: v.exact,
            best: line.best.map(|m| m.to_string()),
            pv: names(&line.pv),
            ..SolveReport::unknown(pos, stats)
        }
    }

    /// The report of an exact solve: the result and its line, or the bounds proven (for the
    /// side to move) when a limit stopped it.
    pub fn from_solve(pos: &Position, solved: Solve<Move>) -> SolveReport {
        match solved {
            Solve::Solved { line, stats } => SolveReport::from_line(pos, &line, true, stats),
            Solve::Stopped {
                lower,
                upper,
                stats,
                ..
            } => {
                let (a, b) = (for_mover(pos, lower), for_mover(pos, upper));
                SolveReport {
                    stopped: true,
                    lower: Some(a.min(b)),
                    upper: Some(a.max(b)),
                    ..SolveReport::unknown(pos, stats)
                }
            }
        }
    }

    /// The report of an analysis (iterative deepening): the verdict of the deepest iteration
    /// with its depth, or `unknown` when stopped before any.
    pub fn from_analysis(pos: &Position, analysis: Analysis<Move>) -> SolveReport {
        let exact = matches!(analysis, Analysis::Exact { .. });
        match analysis {
            Analysis::Exact { line, depth, stats }
            | Analysis::Estimate {
                line, depth, stats, ..
            } => SolveReport {
                depth: Some(depth),
                ..SolveReport::from_line(pos, &line, exact, stats)
            },
            Analysis::Stopped { stats, .. } => SolveReport {
                stopped: true,
                ..SolveReport::unknown(pos, stats)
            },
        }
    }

    /// The report of a win/loss proof (`solve --win-loss`: the test "black's payoff is at least
    /// 1", exact under `children` rules where there are no draws), then (for a win) the first
    /// move that keeps it. The distance is not searched, so `plies` is null and the value is
    /// ±1. Stopped by a limit, it reports what was proven: nothing (`unknown`), or the result
    /// without a move.
    pub fn from_win_loss(pos: &Position, proof: Proof<Move>, stats: Stats) -> SolveReport {
        let (holds, best, stopped) = match proof {
            Proof::Proven { holds, best } => (Some(holds), best, false),
            Proof::Stopped { holds, .. } => (holds, None, true),
        };
        let mover_wins = holds.map(|black| black == (pos.turn() == Color::Black));
        let best: Option<String> = best.map(|m| m.to_string());
        SolveReport {
            result: match mover_wins {
                Some(true) => "win",
                Some(false) => "loss",
                None => "unknown",
            }
            .into(),
            value: mover_wins.map(|w| if w { 1 } else { -1 }),
            exact: mover_wins.is_some(),
            stopped,
            pv: best.iter().cloned().collect(),
            best,
            ..SolveReport::unknown(pos, stats)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tabula_engine::pylos::{Rules, WIN};
    use tabula_solver::Stop;

    fn stats() -> Stats {
        Stats {
            nodes: 7,
            time: Duration::from_millis(1500),
        }
    }

    fn white_to_move() -> Position {
        Position::parse(
            "b.../..../..../....|.../.../...|../..|. w",
            Rules::default(),
        )
        .unwrap()
    }

    #[test]
    fn stopped_bounds_are_the_side_to_move_s_in_order() {
        let stopped = Solve::Stopped {
            reason: Stop::Nodes,
            lower: -(WIN - 9),
            upper: WIN - 20,
            stats: stats(),
        };
        let r = SolveReport::from_solve(&white_to_move(), stopped);
        assert_eq!((r.lower, r.upper), (Some(-(WIN - 20)), Some(WIN - 9)));
        assert_eq!(
            (r.result.as_str(), r.stopped, r.value),
            ("unknown", true, None)
        );
        assert_eq!(
            (r.side_to_move.as_str(), r.nodes, r.time_ms),
            ("white", 7, 1500)
        );
    }

    #[test]
    fn a_proven_black_win_is_a_loss_for_white_to_move() {
        let proof = Proof::Proven {
            holds: true,
            best: None,
        };
        let r = SolveReport::from_win_loss(&white_to_move(), proof, stats());
        assert_eq!(
            (r.result.as_str(), r.value, r.plies),
            ("loss", Some(-1), None)
        );
        assert!(r.exact && !r.stopped && r.best.is_none() && r.pv.is_empty());
        let unproven = Proof::Stopped {
            reason: Stop::Time,
            holds: None,
        };
        let r = SolveReport::from_win_loss(&white_to_move(), unproven, stats());
        assert_eq!(
            (r.result.as_str(), r.value, r.exact),
            ("unknown", None, false)
        );
        assert!(r.stopped);
    }
}
