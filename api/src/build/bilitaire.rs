//! Bi-litaire's [`SolveReport`] and [`OptionValue`] from the driver's results.

use super::{millis, names};
use crate::bilitaire::{OptionValue, SolveReport};
use tabula_engine::bilitaire::{Move, Position, Side};
use tabula_engine::Scored;
use tabula_solver::{Analysis, MoveValue, Proof, Solve, Stats};

/// Who moves, as the reports spell it: `slider`, or `ball` (the opening removal and every
/// jump).
pub fn side_to_move(pos: &Position) -> &'static str {
    match pos.side() {
        Side::Slider => "slider",
        Side::OpeningRemoval | Side::Ball(_) => "ball",
    }
}

impl SolveReport {
    /// A report with nothing filled in but the position and the cost.
    pub fn blank(pos: &Position, stats: Stats) -> SolveReport {
        SolveReport {
            position: pos.to_string(),
            side_to_move: side_to_move(pos).into(),
            value: None,
            exact: false,
            stopped: false,
            lower: None,
            upper: None,
            best: None,
            pv: Vec::new(),
            depth: None,
            options: None,
            nodes: stats.nodes,
            time_ms: millis(stats.time),
            check: None,
        }
    }

    /// The report of an exact solve: the value and its line, or the bounds proven when a limit
    /// stopped it.
    pub fn from_solve(pos: &Position, solved: Solve<Move>) -> SolveReport {
        match solved {
            Solve::Solved { line, stats } => SolveReport {
                value: Some(line.value),
                exact: true,
                best: line.best.map(|m| m.to_string()),
                pv: names(&line.pv),
                ..SolveReport::blank(pos, stats)
            },
            Solve::Stopped {
                lower,
                upper,
                stats,
                ..
            } => SolveReport {
                stopped: true,
                lower: Some(lower),
                upper: Some(upper),
                ..SolveReport::blank(pos, stats)
            },
        }
    }

    /// The report of one test, "are at least `x` balls left under best play?" (`solve
    /// --at-least X`): the bound it proves (`lower` = `x` when it holds, `upper` = `x − 1`
    /// when it fails; the other bound the position's own), and the first move that keeps the
    /// mover's side of the test where it is the mover's (`best`, also the one-move `pv`).
    /// Stopped by a limit before the test was decided, it reports `known`: the bounds the
    /// table proves at the root (earlier tests' proofs, kept in a `--table` file), which are
    /// the position's whole range where it proves nothing.
    pub fn from_at_least(
        pos: &Position,
        x: i32,
        proof: Proof<Move>,
        known: (i32, i32),
        stats: Stats,
    ) -> SolveReport {
        let (holds, best, stopped) = match proof {
            Proof::Proven { holds, best } => (Some(holds), best, false),
            Proof::Stopped { holds, .. } => (holds, None, true),
        };
        let (lo, hi) = pos.value_bounds();
        let (lower, upper) = match holds {
            Some(true) => (x, hi),
            Some(false) => (lo, x - 1),
            // Both ranges are proven, so they overlap; a table whose bounds fall outside the
            // position's own (a damaged entry) is not trusted.
            None if known.0 <= known.1 && known.0 >= lo && known.1 <= hi => known,
            None => (lo, hi),
        };
        let best: Option<String> = best.map(|m| m.to_string());
        SolveReport {
            stopped,
            lower: Some(lower),
            upper: Some(upper),
            pv: best.iter().cloned().collect(),
            best,
            ..SolveReport::blank(pos, stats)
        }
    }

    /// The report of an analysis (iterative deepening): the value (exact or an estimate) with
    /// its depth, or the position's whole payoff range when stopped before any iteration.
    pub fn from_analysis(pos: &Position, analysis: Analysis<Move>) -> SolveReport {
        let exact = matches!(analysis, Analysis::Exact { .. });
        match analysis {
            Analysis::Exact { line, depth, stats }
            | Analysis::Estimate {
                line, depth, stats, ..
            } => SolveReport {
                value: Some(line.value),
                exact,
                best: line.best.map(|m| m.to_string()),
                pv: names(&line.pv),
                depth: Some(depth),
                ..SolveReport::blank(pos, stats)
            },
            Analysis::Stopped { stats, .. } => {
                let (lower, upper) = pos.value_bounds();
                SolveReport {
                    stopped: true,
                    lower: Some(lower),
                    upper: Some(upper),
                    ..SolveReport::blank(pos, stats)
                }
            }
        }
    }
}

impl OptionValue {
    /// One slider option's value (`solve --options`): exact where proven, else the most balls
    /// it can leave.
    pub fn from_move_value(v: &MoveValue<Move>) -> OptionValue {
        OptionValue {
            mv: v.mv.to_string(),
            value: v.value,
            at_most: v.value.is_none().then_some(v.bound),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tabula_solver::Stop;

    #[test]
    fn an_analysis_stopped_before_any_iteration_reports_the_whole_payoff_range() {
        let pos = Position::start_with(tabula_engine::bilitaire::Rules::default());
        let stats = Stats {
            nodes: 3,
            time: Duration::from_millis(2),
        };
        let stopped = Analysis::Stopped {
            reason: Stop::Interrupted,
            stats,
        };
        let r = SolveReport::from_analysis(&pos, stopped);
        let (lower, upper) = pos.value_bounds();
        assert_eq!((r.lower, r.upper), (Some(lower), Some(upper)));
        assert!(r.stopped && !r.exact && r.value.is_none() && r.depth.is_none());
        assert_eq!(
            (r.side_to_move.as_str(), r.nodes, r.time_ms),
            ("ball", 3, 2)
        );
    }

    /// A stopped test reports the table's bounds at the root, unless they fall outside the
    /// position's own range (a damaged entry); a decided test reports its own bound.
    #[test]
    fn a_stopped_test_reports_the_tables_bounds_within_the_positions_range() {
        let pos = Position::start_with(tabula_engine::bilitaire::Rules::default());
        let (lo, hi) = pos.value_bounds();
        let stats = Stats {
            nodes: 1,
            time: Duration::ZERO,
        };
        let stopped = || Proof::Stopped {
            reason: Stop::Nodes,
            holds: None,
        };
        let bounds = |proof, known| {
            let r = SolveReport::from_at_least(&pos, 34, proof, known, stats);
            (r.lower.unwrap(), r.upper.unwrap(), r.stopped)
        };
        assert_eq!(bounds(stopped(), (33, hi)), (33, hi, true));
        assert_eq!(bounds(stopped(), (lo, hi)), (lo, hi, true));
        assert_eq!(bounds(stopped(), (lo - 1, 40)), (lo, hi, true));
        assert_eq!(bounds(stopped(), (36, 35)), (lo, hi, true));
        let proven = Proof::Proven {
            holds: true,
            best: None,
        };
        assert_eq!(bounds(proven, (33, hi)), (34, hi, false));
    }
}
