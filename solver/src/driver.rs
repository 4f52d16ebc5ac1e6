//! The driver layer: what library users, the command line, benches and servers call.
//!
//! One [`Driver`] runs searches over one table under one set of [`Limits`] (time, nodes, an
//! interrupt flag), counted from its creation. Every entry point answers with a value that says
//! whether it finished — [`Solve::Solved`] or [`Solve::Stopped`] with the bounds it had proven,
//! [`Analysis`] with the deepest iteration, [`Proof`] — rather than an error for "stopped".
//!
//! - [`Driver::solve`]: the exact value, best move and principal variation.
//! - [`Driver::analyze`]: anytime iterative deepening with a callback per finished depth.
//! - [`Driver::prove`]: one exact test "value ≥ x" (a win/loss verdict without its distance),
//!   with the first move that keeps the mover's side.
//! - [`Driver::move_values`]: what every move is worth (Bi-litaire's slider options, the first
//!   moves of a Pylos position).
//!
//! Whether an unbounded solve is worth starting is [`refusal`]'s answer (from the game's
//! [`SolvePolicy`]): callers check it first.

use crate::games::{NoOracle, Oracle, SolvePolicy};
use crate::search::{
    MoveValue, Progress, ProofNumbers, SearchOptions, SearchReport, Searchable, Searcher,
};
use crate::tt::{AtomicTable, Table};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tabula_engine::Role;

/// When a search must stop. All limits are optional; with none a search runs until it is done.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Wall time from the driver's creation.
    pub time: Option<Duration>,
    /// Nodes searched, over every call of the driver.
    pub nodes: Option<u64>,
    /// A flag set from outside (e.g. by a Ctrl-C handler) that stops the search.
    pub interrupt: Option<&'static AtomicBool>,
}

impl Limits {
    /// No limit at all.
    pub fn none() -> Limits {
        Limits::default()
    }

    /// True when a time or node limit bounds the search (an interrupt flag alone does not).
    pub fn is_bounded(&self) -> bool {
        self.time.is_some() || self.nodes.is_some()
    }
}

/// How a search is run (not when it stops: that is [`Limits`]).
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Worker threads (1 = no parallelism).
    pub threads: usize,
    /// Key the table by the canonical image under the game's symmetries.
    pub symmetry: bool,
    /// Split work between threads while fewer than this many plies from the root.
    pub split_plies: u32,
    /// Share the exact solve's tests with proof-number search ([`ProofNumbers`]).
    pub proof_numbers: Option<ProofNumbers>,
}

impl Default for Config {
    fn default() -> Self {
        let o = SearchOptions::default();
        Config {
            threads: o.threads,
            symmetry: o.symmetry,
            split_plies: o.split_plies,
            proof_numbers: o.proof_numbers,
        }
    }
}

/// Why a search ended before it was done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// [`Limits::time`] ran out.
    Time,
    /// [`Limits::nodes`] were spent.
    Nodes,
    /// The interrupt flag was set, or [`Driver::stop`] was called.
    Interrupted,
}

/// What a search cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Positions searched.
    pub nodes: u64,
    /// Wall time since the driver was created.
    pub time: Duration,
}

/// A value with the best move and the line that reaches it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line<M> {
    /// The payoff (absolute, as [`tabula_engine::Scored`] defines it).
    pub value: i32,
    pub best: Option<M>,
    pub pv: Vec<M>,
}

/// The answer of [`Driver::solve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Solve<M> {
    /// The exact value, proven.
    Solved { line: Line<M>, stats: Stats },
    /// A limit stopped the solve; the value lies in `lower..=upper` (proven).
    Stopped {
        reason: Stop,
        lower: i32,
        upper: i32,
        stats: Stats,
    },
}

/// The answer of [`Driver::analyze`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Analysis<M> {
    /// The value was proven exact at `depth` (the search stopped there).
    Exact {
        line: Line<M>,
        depth: u32,
        stats: Stats,
    },
    /// A heuristic estimate from the deepest finished iteration; `stopped` says which limit
    /// ended the deepening (`None`: the deepest iteration asked for was reached).
    Estimate {
        line: Line<M>,
        depth: u32,
        stopped: Option<Stop>,
        stats: Stats,
    },
    /// A limit stopped the search before the first iteration finished.
    Stopped { reason: Stop, stats: Stats },
}

/// The answer of [`Driver::prove`]: is the value at least `x`?
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proof<M> {
    /// Proven. Where the side to move gets its side of `x` (Max: it holds; Min: it fails),
    /// `best` is the first move in move-list order that keeps it.
    Proven { holds: bool, best: Option<M> },
    /// A limit stopped the proof: `holds` is the answer if it was proven before the search for
    /// the move was stopped.
    Stopped { reason: Stop, holds: Option<bool> },
}

/// Why an exact solve of `pos` under `limits` should not start: a position known to be out of
/// reach of a search without a time or node limit. `None` when it may start.
pub fn refusal<G: SolvePolicy>(pos: &G, limits: &Limits) -> Option<String> {
    if limits.is_bounded() {
        return None;
    }
    pos.out_of_reach()
}

/// Searches over one table under one set of limits. `Sync`: another thread may watch
/// [`Driver::stats`] and [`Driver::proven_bounds`] or call [`Driver::stop`] while it runs.
pub struct Driver<'t, T: Table = AtomicTable, O = NoOracle> {
    searcher: Searcher<'t, T, O>,
    limits: Limits,
    stopped_by_caller: AtomicBool,
}

impl<T: Table, O> std::fmt::Debug for Driver<'_, T, O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("searcher", &self.searcher)
            .field("limits", &self.limits)
            .finish()
    }
}

fn options(config: Config, limits: Limits) -> SearchOptions {
    SearchOptions {
        threads: config.threads.max(1),
        symmetry: config.symmetry,
        time: limits.time,
        nodes: limits.nodes,
        split_plies: config.split_plies,
        interrupt: limits.interrupt,
        proof_numbers: config.proof_numbers,
    }
}

impl<'t, T: Table> Driver<'t, T> {
    /// A driver over `table`; the limits count from now.
    pub fn new(table: &'t T, config: Config, limits: Limits) -> Driver<'t, T> {
        Driver::with_oracle(table, config, limits, NoOracle)
    }
}

impl<'t, T: Table, O> Driver<'t, T, O> {
    /// A driver whose searches ask `oracle` (a database) for exact values first.
    pub fn with_oracle(table: &'t T, config: Config, limits: Limits, oracle: O) -> Self {
        Driver {
            searcher: Searcher::with_oracle(table, options(config, limits), oracle),
            limits,
            stopped_by_caller: AtomicBool::new(false),
        }
    }

    /// The limits this driver runs under.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Nodes and time so far.
    pub fn stats(&self) -> Stats {
        Stats {
            nodes: self.searcher.nodes(),
            time: self.searcher.elapsed(),
        }
    }

    /// The bounds on the root value proven so far by the running (or last) exact solve.
    pub fn proven_bounds(&self) -> Option<(i32, i32)> {
        self.searcher.proven_bounds()
    }

    /// The bounds on the value of `pos` that its game bounds and the table's proven entry for
    /// it give: after a test stopped undecided, what the table (this run's and any loaded
    /// from a file) still proves about the root.
    pub fn known_bounds<G: Searchable>(&self, pos: &G) -> (i32, i32)
    where
        O: Oracle<G>,
    {
        self.searcher.known_bounds(pos)
    }

    /// Stops the running search (from another thread); it answers as stopped.
    pub fn stop(&self) {
        self.stopped_by_caller.store(true, Ordering::Relaxed);
        self.searcher.stop();
    }

    /// Why the search stopped (called once it has).
    fn reason(&self) -> Stop {
        if self.stopped_by_caller.load(Ordering::Relaxed) || self.searcher.interrupted() {
            Stop::Interrupted
        } else if self
            .limits
            .nodes
            .is_some_and(|n| self.searcher.nodes() >= n)
        {
            Stop::Nodes
        } else {
            Stop::Time
        }
    }

    fn line<M: Copy>(report: &SearchReport<M>) -> Line<M> {
        Line {
            value: report.value,
            best: report.best,
            pv: report.pv.clone(),
        }
    }

    /// Solves `pos` exactly, or until a limit stops it (then with the bounds proven so far).
    /// The tree must be finite ([`SolvePolicy::finite`]) or a limit set; see [`refusal`].
    pub fn solve<G: Searchable>(&self, pos: &G) -> Solve<G::Move>
    where
        O: Oracle<G>,
    {
        match self.searcher.solve(pos) {
            Ok(report) => Solve::Solved {
                line: Self::line(&report),
                stats: self.stats(),
            },
            Err(_) => {
                let (lower, upper) = self.proven_bounds().unwrap_or_else(|| pos.value_bounds());
                Solve::Stopped {
                    reason: self.reason(),
                    lower,
                    upper,
                    stats: self.stats(),
                }
            }
        }
    }

    /// Iterative deepening up to `max_depth` plies, calling `on_iteration` after each finished
    /// depth; stops early when the value is proven exact.
    pub fn analyze<G: Searchable>(
        &self,
        pos: &G,
        max_depth: u8,
        on_iteration: impl FnMut(&Progress<G::Move>),
    ) -> Analysis<G::Move>
    where
        O: Oracle<G>,
    {
        let last = self.searcher.analyze(pos, max_depth, on_iteration);
        let stats = self.stats();
        let stopped = self.searcher.stopped().then(|| self.reason());
        match last {
            None => Analysis::Stopped {
                reason: stopped.unwrap_or(Stop::Interrupted),
                stats,
            },
            Some(r) => {
                let depth = r.depth.unwrap_or(0);
                let line = Self::line(&r);
                if r.exact {
                    Analysis::Exact { line, depth, stats }
                } else {
                    Analysis::Estimate {
                        line,
                        depth,
                        stopped,
                        stats,
                    }
                }
            }
        }
    }

    /// Is the value of `pos` at least `x`? One exact null-window test (cheaper than the value
    /// when only its side of `x` matters: a win or loss without its distance). When the side
    /// to move gets its side of `x`, the first move that keeps it is found too.
    pub fn prove<G: Searchable>(&self, pos: &G, x: i32) -> Proof<G::Move>
    where
        O: Oracle<G>,
    {
        let Ok(holds) = self.searcher.prove_at_least(pos, x) else {
            return Proof::Stopped {
                reason: self.reason(),
                holds: None,
            };
        };
        let max = pos.to_move() == Role::Max;
        if holds != max {
            return Proof::Proven { holds, best: None };
        }
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        for mv in moves {
            match self
                .searcher
                .prove_at_least(&pos.play(mv), G::child_threshold(x))
            {
                Ok(child) if child == max => {
                    return Proof::Proven {
                        holds,
                        best: Some(mv),
                    }
                }
                Ok(_) => {}
                Err(_) => {
                    return Proof::Stopped {
                        reason: self.reason(),
                        holds: Some(holds),
                    }
                }
            }
        }
        Proof::Proven { holds, best: None }
    }

    /// What every move of `pos`, whose exact value is `value`, is worth, in move-list order:
    /// the best moves (those that reach `value`) first proven, then the others valued exactly
    /// as far as the limits allow (a move left unproven carries the bound known for it).
    pub fn move_values<G: Searchable>(&self, pos: &G, value: i32) -> Vec<MoveValue<G::Move>>
    where
        O: Oracle<G>,
    {
        self.searcher.move_values(pos, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_time_or_nodes_bound_a_search() {
        static FLAG: AtomicBool = AtomicBool::new(false);
        assert!(!Limits::none().is_bounded());
        let interrupt_only = Limits {
            interrupt: Some(&FLAG),
            ..Limits::none()
        };
        assert!(!interrupt_only.is_bounded());
        let nodes = Limits {
            nodes: Some(1),
            ..Limits::none()
        };
        assert!(nodes.is_bounded());
    }
}
