//! The shared search: boolean null-window tests ("is the value at least x?") with a
//! transposition table, driven by a galloping MTD(f) for exact values and by iterative deepening
//! with a heuristic cut-off for anytime analysis. Parallel by young-brothers-wait splitting on
//! rayon near the root.
//!
//! Exactness: every test result carries a `proven` flag (no heuristic leaf below it); proven
//! bounds are stored at [`Entry::PROVEN`] depth and are the only ones an exact solve uses.
//! A test's answer is a fact about the position, so the value does not depend on the number of
//! threads or on what the table happened to keep.

use crate::dfpn::{Dfpn, DfpnOptions};
use crate::eval::Evaluate;
use crate::games::{Backup, Keying, NoOracle, Oracle, SolvePolicy, TestShortcuts};
use crate::tt::{Entry, Table};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tabula_engine::{Role, Scored};

/// What a caller may set.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Worker threads (1 = no parallelism).
    pub threads: usize,
    /// Key the table by the canonical image under the game's symmetries (where it has any,
    /// see [`Keying`]).
    pub symmetry: bool,
    /// Stop after this much time.
    pub time: Option<Duration>,
    /// Stop after this many nodes.
    pub nodes: Option<u64>,
    /// Split work between threads while fewer than this many plies from the root.
    pub split_plies: u32,
    /// A flag set from outside (e.g. by a Ctrl-C handler) that stops the search.
    pub interrupt: Option<&'static AtomicBool>,
    /// Decide the exact solve's tests by alpha-beta and proof-number search in turns, for
    /// the games that ask for it ([`SolvePolicy::proof_numbers`]); `None`: alpha-beta alone.
    pub proof_numbers: Option<ProofNumbers>,
}

/// How an exact solve shares its tests between alpha-beta and proof-number search (df-pn):
/// each test starts with a turn of alpha-beta; if it is not decided within the turn, df-pn
/// gets a turn, then alpha-beta again with twice the nodes, and so on. Whichever decides the
/// test first answers it; both keep what they learnt between turns (alpha-beta in the shared
/// table, df-pn in its own proof-number table, and every bound either proves in the shared
/// one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProofNumbers {
    /// Size of df-pn's proof-number table (MiB), allocated at the first test it takes a turn.
    pub megabytes: usize,
    /// Nodes of alpha-beta's first turn on a test.
    pub first_turn: u64,
    /// df-pn's turn, in percent of the alpha-beta turn before it.
    pub share_percent: u64,
}

impl Default for ProofNumbers {
    /// Measured on the Bi-litaire suites (docs/bilitaire.md, "Alpha-beta and df-pn in turns"):
    /// a first turn of 500,000 nodes leaves the tests alpha-beta settles sooner untouched (the
    /// 23-ball suites' nodes within 1%); df-pn's turn at 25% of alpha-beta's costs at most a
    /// quarter more on the tests alpha-beta wins (at 100%: jumper 23 × 1.08 nodes in all,
    /// at 25% × 1.00) and still finds the slider's proofs that alpha-beta misses (27 balls,
    /// first 20 random and jumper positions at 10 M nodes: one more solved, four more with a
    /// proven lower bound). A table of 16 MiB did as well as one of 64 there.
    fn default() -> Self {
        ProofNumbers {
            megabytes: 16,
            first_turn: 500_000,
            share_percent: 25,
        }
    }
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threads: 1,
            symmetry: true,
            time: None,
            nodes: None,
            split_plies: 6,
            interrupt: None,
            proof_numbers: Some(ProofNumbers::default()),
        }
    }
}

/// The search stopped before it had an answer (time or node limit, or an outside stop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aborted;

/// The answer of one null-window test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Outcome {
    holds: bool,
    proven: bool,
}

impl Outcome {
    /// The bound the test "value of `pos` ≥ x" established: a lower bound when it holds, an
    /// upper bound when it fails. A proven bound is a fact about the game, so it may jump to
    /// the nearest payoff an exact result can have ([`crate::games::Backup::exact_at_least`]).
    fn bound<G: Searchable>(self, pos: &G, x: i32) -> i32 {
        match (self.holds, self.proven) {
            (true, true) => pos.exact_at_least(x),
            (true, false) => x,
            (false, true) => pos.exact_at_most(x - 1),
            (false, false) => x - 1,
        }
    }
}

/// A cancellation flag for one split point, linked to the flags above it.
struct Cancel<'a> {
    flag: AtomicBool,
    parent: Option<&'a Cancel<'a>>,
}

impl<'a> Cancel<'a> {
    fn new(parent: Option<&'a Cancel<'a>>) -> Cancel<'a> {
        Cancel {
            flag: AtomicBool::new(false),
            parent,
        }
    }

    fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed) || self.parent.is_some_and(Cancel::is_set)
    }
}

/// Per-task counters, merged into the shared ones every few thousand nodes.
#[derive(Default)]
struct Ctx {
    nodes: u64,
    unflushed: u64,
}

const FLUSH_EVERY: u64 = 2048;

/// A searched node as the table sees it: its key (under symmetry `sym`), the entry it had,
/// its game bounds, the depth searched and the nodes spent.
struct Visit {
    key: u128,
    sym: u8,
    stored: Option<Entry>,
    bounds: (i32, i32),
    depth: u8,
    spent: u64,
}

/// A child ready to search, with its table key.
struct Child<G> {
    index: usize,
    pos: G,
    key: Option<(u128, u8)>,
}

/// A node's children for one test, or the child that settles it without a search.
enum Expansion<G> {
    Cut {
        index: usize,
        proven: bool,
    },
    Children {
        children: Vec<Child<G>>,
        settled_proven: bool,
    },
}

/// The proof-number side of an exact solve's tests ([`ProofNumbers`]).
struct SharedTests<'a> {
    pn: ProofNumbers,
    dfpn: Option<Dfpn<'a>>,
}

/// Bounds on a value found by the root driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The value the search settled on (exact when `exact`).
    pub value: i32,
    /// True when proven without any heuristic leaf.
    pub exact: bool,
}

/// A finished search.
#[derive(Clone, Debug)]
pub struct SearchReport<M> {
    pub value: i32,
    pub exact: bool,
    pub best: Option<M>,
    pub pv: Vec<M>,
    pub nodes: u64,
    pub time: Duration,
    /// Depth of the last completed iteration (`None` for an exact solve).
    pub depth: Option<u32>,
}

/// What one move is worth (see [`Searcher::move_values`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveValue<M> {
    pub mv: M,
    /// The exact value, where proven.
    pub value: Option<i32>,
    /// A bound on the value that holds in any case: at most this for the maximising side to
    /// move, at least this for the minimising side.
    pub bound: i32,
}

/// One line of anytime progress.
#[derive(Clone, Debug)]
pub struct Progress<M> {
    pub depth: u32,
    pub value: i32,
    pub exact: bool,
    pub best: Option<M>,
    pub nodes: u64,
    pub time: Duration,
}

/// The search over one table. Create one per job; the table may outlive it. `O` is the
/// database consulted at every open node ([`crate::games::Oracle`]; none by default).
pub struct Searcher<'t, T: Table, O = NoOracle> {
    table: &'t T,
    oracle: O,
    options: SearchOptions,
    pool: Option<rayon::ThreadPool>,
    stop: AtomicBool,
    /// Set by [`Searcher::stop`]: a stop from outside, not the end of a turn.
    requested: AtomicBool,
    /// The node count at which the running alpha-beta turn of a shared test ends
    /// ([`ProofNumbers`]); `u64::MAX` outside such turns.
    turn_ends: AtomicU64,
    /// Set when `stop` was raised because the turn ended.
    turn_over: AtomicBool,
    /// Of `nodes`, those df-pn searched in its turns of shared tests.
    proof_number_nodes: AtomicU64,
    /// The running solve's df-pn count ([`crate::DfpnStats::nodes`]) as far as `nodes`
    /// includes it; reset for each solve's new df-pn.
    dfpn_counted: AtomicU64,
    nodes: AtomicU64,
    started: Instant,
    /// History heuristic: how often a move (by hash) caused a cut-off. Ties in the evaluation
    /// are broken in favour of moves that cut elsewhere; it only orders, never decides.
    history: Vec<AtomicU32>,
    hasher: ahash::RandomState,
    /// Proven bounds on the root value of the latest [`Searcher::value`] call, kept up to date
    /// as its tests finish, so that a stopped search can still say what it proved.
    root_bounds: (AtomicI32, AtomicI32),
}

const HISTORY_SLOTS: usize = 1 << 14;

/// Probing every child's table entry before searching any (enhanced transposition cutoff) costs
/// a cache miss per child; it pays only at nodes whose subtree is large. Those are the ones near
/// the root and those whose last search took many nodes (`Entry::work` is its log2).
/// 23-ball Bi-litaire suite: probing below ply 8 or after 2^10 nodes took about 60% of the CPU
/// time of probing everywhere, for about 15% more nodes.
fn etc_worthwhile(ply: u32, stored: Option<Entry>) -> bool {
    const ETC_PLIES: u32 = 8;
    const ETC_MIN_WORK: u8 = 10;
    ply < ETC_PLIES || stored.is_some_and(|e| e.work >= ETC_MIN_WORK)
}

/// Depth of the heuristic iterations an exact solve starts with.
const PRESEARCH_PLIES: u8 = 4;

impl<T: Table, O> std::fmt::Debug for Searcher<'_, T, O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Searcher")
            .field("options", &self.options)
            .field("nodes", &self.nodes)
            .finish_non_exhaustive()
    }
}

/// The games the search accepts: rules ([`Scored`], keys) and the solver-side policy of
/// [`crate::games`] (evaluation, shortcuts, payoff backup, keying, driver hints).
pub trait Searchable: Evaluate + TestShortcuts + Backup + Keying + SolvePolicy {}

impl<G: Evaluate + TestShortcuts + Backup + Keying + SolvePolicy> Searchable for G {}

/// Proven at compile time for each game searched: its whole payoff range fits the `i16` bounds
/// of a table [`Entry`], so storing a payoff (clamped to the range) loses nothing.
struct PayoffFits<G>(std::marker::PhantomData<G>);

impl<G: Scored> PayoffFits<G> {
    const OK: () = assert!(
        i16::MIN as i32 <= G::MIN_VALUE
            && G::MIN_VALUE <= G::MAX_VALUE
            && G::MAX_VALUE <= i16::MAX as i32,
        "the game's payoff range does not fit a table entry's i16 bounds"
    );
}

/// A payoff of `G` as a table entry stores it. Bounds and stored results always lie in the
/// game's declared range (they come from [`Scored::value_bounds`] and tests it leaves open);
/// the clamp makes that a fact the compile-time check above covers, so the cast is lossless.
#[inline]
fn entry_payoff<G: Scored>(value: i32) -> i16 {
    let () = PayoffFits::<G>::OK;
    debug_assert!((G::MIN_VALUE..=G::MAX_VALUE).contains(&value), "{value}");
    value.clamp(G::MIN_VALUE, G::MAX_VALUE) as i16
}

/// A move index as a table entry stores it: [`Entry::NO_MOVE`] for an index that does not fit
/// (possible only for games whose [`Scored::MAX_MOVES`] exceeds it; they lose that hint, never
/// a result).
#[inline]
fn entry_move<G: Scored>(index: usize) -> u16 {
    const { assert!(Entry::NO_MOVE as usize <= u16::MAX as usize) };
    if G::MAX_MOVES <= Entry::NO_MOVE as usize {
        // Proven by the game's bound: every index is below NO_MOVE.
        index as u16
    } else {
        u16::try_from(index)
            .ok()
            .filter(|&i| i < Entry::NO_MOVE)
            .unwrap_or(Entry::NO_MOVE)
    }
}

impl<'t, T: Table> Searcher<'t, T> {
    /// A search over `table` without a database.
    pub fn new(table: &'t T, options: SearchOptions) -> Searcher<'t, T> {
        Searcher::with_oracle(table, options, NoOracle)
    }
}

impl<'t, T: Table, O> Searcher<'t, T, O> {
    /// A search over `table` that asks `oracle` for exact values first.
    pub fn with_oracle(table: &'t T, options: SearchOptions, oracle: O) -> Searcher<'t, T, O> {
        let pool = (options.threads > 1).then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(options.threads)
                .build()
                .expect("thread pool")
        });
        Searcher {
            table,
            oracle,
            options,
            pool,
            stop: AtomicBool::new(false),
            requested: AtomicBool::new(false),
            turn_ends: AtomicU64::new(u64::MAX),
            turn_over: AtomicBool::new(false),
            proof_number_nodes: AtomicU64::new(0),
            dfpn_counted: AtomicU64::new(0),
            nodes: AtomicU64::new(0),
            started: Instant::now(),
            history: (0..HISTORY_SLOTS).map(|_| AtomicU32::new(0)).collect(),
            hasher: ahash::RandomState::with_seeds(1, 2, 3, 4),
            root_bounds: (AtomicI32::new(i32::MIN), AtomicI32::new(i32::MAX)),
        }
    }

    fn history_slot<M: std::hash::Hash>(&self, mv: &M) -> usize {
        self.hasher.hash_one(mv) as usize % HISTORY_SLOTS
    }

    /// Asks a running search to stop (from another thread, e.g. on Ctrl-C).
    pub fn stop(&self) {
        self.requested.store(true, Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
    }

    /// A flag another thread may set to stop the search.
    pub fn stop_flag(&self) -> &AtomicBool {
        &self.stop
    }

    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    /// Of [`Searcher::nodes`], those searched by df-pn in the turns of shared tests
    /// ([`ProofNumbers`]).
    pub fn proof_number_nodes(&self) -> u64 {
        self.proof_number_nodes.load(Ordering::Relaxed)
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The bounds on the root value that the latest [`Searcher::value`] call (as used by
    /// [`Searcher::solve`]) had proven when it returned or was stopped: `(lower, upper)`,
    /// inclusive. A solve starts from what the table already proves at its root, so these are
    /// never looser than that. `None` before any call.
    pub fn proven_bounds(&self) -> Option<(i32, i32)> {
        let lo = self.root_bounds.0.load(Ordering::Relaxed);
        let hi = self.root_bounds.1.load(Ordering::Relaxed);
        (lo != i32::MIN).then_some((lo, hi))
    }

    /// True once the search has been stopped (by a limit, the interrupt flag or [`Searcher::stop`]).
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// True when the search was stopped from outside (its interrupt flag), not by its limits.
    pub fn interrupted(&self) -> bool {
        self.options
            .interrupt
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    fn run<R: Send>(&self, job: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(pool) => pool.install(job),
            None => job(),
        }
    }

    fn flush(&self, ctx: &mut Ctx) {
        let nodes = self.nodes.fetch_add(ctx.unflushed, Ordering::Relaxed) + ctx.unflushed;
        ctx.unflushed = 0;
        if self.over_limits() {
            self.stop.store(true, Ordering::Relaxed);
        } else if nodes >= self.turn_ends.load(Ordering::Relaxed) {
            self.turn_over.store(true, Ordering::Relaxed);
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    /// True when a limit, the interrupt flag or [`Searcher::stop`] ends the search.
    fn over_limits(&self) -> bool {
        let over_nodes = self
            .options
            .nodes
            .is_some_and(|limit| self.nodes.load(Ordering::Relaxed) >= limit);
        let over_time = self
            .options
            .time
            .is_some_and(|limit| self.started.elapsed() >= limit);
        over_nodes || over_time || self.interrupted() || self.requested.load(Ordering::Relaxed)
    }

    /// Ends an alpha-beta turn of a shared test: lowers the stop flag if only the turn raised
    /// it. True when the search must stop.
    fn end_turn(&self) -> bool {
        self.turn_ends.store(u64::MAX, Ordering::Relaxed);
        if self.over_limits() {
            self.stop.store(true, Ordering::Relaxed);
        } else if self.turn_over.swap(false, Ordering::Relaxed) {
            self.stop.store(false, Ordering::Relaxed);
        }
        self.stop.load(Ordering::Relaxed)
    }

    /// The df-pn side of an exact solve's shared tests, where the options and the game ask
    /// for it; its table is allocated at df-pn's first turn.
    fn proof_number_search<G: Searchable>(&self, pos: &G) -> Option<SharedTests<'_>> {
        let pn = self.options.proof_numbers?;
        (pos.proof_numbers() && pos.finite()).then_some(SharedTests { pn, dfpn: None })
    }

    fn new_dfpn(&self, megabytes: usize) -> Dfpn<'_> {
        let options = DfpnOptions {
            megabytes,
            symmetry: self.options.symmetry,
            interrupt: self.options.interrupt,
            deadline: self.options.time.map(|t| self.started + t),
            ..DfpnOptions::default()
        };
        let mut dfpn = Dfpn::with_shared_table(options, self.table);
        // Its own count starts at 0, whatever an earlier solve's df-pn counted.
        self.dfpn_counted.store(0, Ordering::Relaxed);
        dfpn.watch(&self.requested);
        // The node count a caller sees (progress lines, the node limit's reason) grows during
        // df-pn's turns too.
        dfpn.on_progress(Duration::from_millis(50), |stats| {
            self.count_dfpn(stats.nodes)
        });
        dfpn
    }

    /// Adds df-pn's nodes since the last call (`total`: its own count so far) to the search's.
    fn count_dfpn(&self, total: u64) {
        let new = total.saturating_sub(self.dfpn_counted.swap(total, Ordering::Relaxed));
        self.nodes.fetch_add(new, Ordering::Relaxed);
        self.proof_number_nodes.fetch_add(new, Ordering::Relaxed);
    }

    /// The exact test "value of `pos` ≥ x" in turns of alpha-beta and df-pn
    /// ([`ProofNumbers`]).
    fn shared_test<'s, G: Searchable>(
        &'s self,
        pos: &G,
        x: i32,
        shared: &mut SharedTests<'s>,
    ) -> Result<Outcome, Aborted>
    where
        O: Oracle<G>,
    {
        let pn = shared.pn;
        let mut turn = pn.first_turn.max(1);
        loop {
            self.turn_ends
                .store(self.nodes().saturating_add(turn), Ordering::Relaxed);
            let r = self.root_test(pos, x, Entry::PROVEN);
            let must_stop = self.end_turn();
            match r {
                Ok(outcome) => return Ok(outcome),
                Err(Aborted) if must_stop => return Err(Aborted),
                Err(Aborted) => {}
            }
            let dfpn = shared
                .dfpn
                .get_or_insert_with(|| self.new_dfpn(pn.megabytes));
            let before = dfpn.stats().nodes;
            let left = self
                .options
                .nodes
                .map_or(u64::MAX, |n| n.saturating_sub(self.nodes()));
            let share = (turn.saturating_mul(pn.share_percent) / 100).min(left);
            dfpn.limit_nodes(Some(before.saturating_add(share)));
            let r = dfpn.prove_at_least(pos, x);
            self.count_dfpn(dfpn.stats().nodes);
            match r {
                Ok(holds) => {
                    return Ok(Outcome {
                        holds,
                        proven: true,
                    })
                }
                Err(Aborted) if self.over_limits() => {
                    self.stop.store(true, Ordering::Relaxed);
                    return Err(Aborted);
                }
                Err(Aborted) => {}
            }
            turn = turn.saturating_mul(2);
        }
    }

    /// The exact root test, shared with df-pn where `dfpn` is set, else alpha-beta's.
    fn exact_test<'s, G: Searchable>(
        &'s self,
        pos: &G,
        x: i32,
        depth: u8,
        dfpn: &mut Option<SharedTests<'s>>,
    ) -> Result<Outcome, Aborted>
    where
        O: Oracle<G>,
    {
        match dfpn {
            Some(d) if depth == Entry::PROVEN => self.shared_test(pos, x, d),
            _ => self.root_test(pos, x, depth),
        }
    }

    /// The table key of a position and the symmetry it was taken under.
    fn table_key<G: Searchable>(&self, pos: &G) -> (u128, u8)
    where
        O: Oracle<G>,
    {
        match pos.symmetric_key().filter(|_| self.options.symmetry) {
            // The index of a symmetry of the square is below 8 (a 3-bit field of the entry).
            Some((key, sym)) => (key.into(), (sym & 7) as u8),
            None => (pos.key().into(), 0),
        }
    }

    /// Expands a node for the test "value ≥ x": makes every child, settles those whose game
    /// bounds or table entry already answer, and orders the rest (the table's best move first,
    /// then by evaluation, best for the mover first). A child that settles the node at once is
    /// returned as a cut. `probe_children` turns the table probes of the children on.
    #[allow(clippy::too_many_arguments)]
    fn expand<G: Searchable>(
        &self,
        pos: &G,
        moves: &[G::Move],
        x: i32,
        child_depth: u8,
        searched: Option<usize>,
        cut_when: bool,
        probe_children: bool,
    ) -> Expansion<G>
    where
        O: Oracle<G>,
    {
        let mut settled_proven = true;
        // First every child with its game bounds, prefetching the table slots of those to probe;
        // then the probes, whose cache misses now overlap.
        let mut open: Vec<(G::Move, Child<G>)> = Vec::with_capacity(moves.len());
        for (index, &mv) in moves.iter().enumerate() {
            if Some(index) == searched {
                continue;
            }
            let child = pos.play(mv);
            let (lo, hi) = child.value_bounds();
            if lo >= x || hi < x {
                if (lo >= x) == cut_when {
                    return Expansion::Cut {
                        index,
                        proven: true,
                    };
                }
                continue;
            }
            // A child at the top of its bounds is left to `Scored::decide_test`, cheaper than
            // a probe.
            let key = (probe_children && hi != x).then(|| self.table_key(&child));
            if let Some((key, _)) = key {
                self.table.prefetch(key);
            }
            open.push((
                mv,
                Child {
                    index,
                    pos: child,
                    key,
                },
            ));
        }
        let mut scored: Vec<(i32, u32, usize)> = Vec::with_capacity(open.len());
        let mut children: Vec<Option<Child<G>>> = Vec::with_capacity(open.len());
        for (mv, child) in open {
            // Enhanced transposition cutoff: a child the table already settles is not searched.
            if let Some(e) = child
                .key
                .and_then(|key| self.table.probe(key.0))
                .filter(|e| e.depth >= child_depth)
            {
                let (elo, ehi) = (i32::from(e.lower), i32::from(e.upper));
                if elo >= x || ehi < x {
                    let proven = e.depth == Entry::PROVEN;
                    if (elo >= x) == cut_when {
                        return Expansion::Cut {
                            index: child.index,
                            proven,
                        };
                    }
                    settled_proven &= proven;
                    continue;
                }
            }
            let eval = if cut_when {
                -child.pos.evaluate()
            } else {
                child.pos.evaluate()
            };
            let history = self.history[self.history_slot(&mv)].load(Ordering::Relaxed);
            // Sort small keys, not the children: ties go to the earlier move.
            scored.push((eval, u32::MAX - history, children.len()));
            children.push(Some(child));
        }
        scored.sort_unstable();
        Expansion::Children {
            children: scored
                .into_iter()
                .filter_map(|(_, _, i)| children[i].take())
                .collect(),
            settled_proven,
        }
    }

    /// Is the value of `pos` at least `x`? Searched `depth` plies deep ([`Entry::PROVEN`]:
    /// to the end), with the heuristic evaluation at the depth limit.
    #[allow(clippy::too_many_arguments)]
    fn test<G: Searchable>(
        &self,
        pos: &G,
        key: Option<(u128, u8)>,
        x: i32,
        depth: u8,
        ply: u32,
        cancel: &Cancel,
        ctx: &mut Ctx,
    ) -> Result<Outcome, Aborted>
    where
        O: Oracle<G>,
    {
        if self.stop.load(Ordering::Relaxed) || cancel.is_set() {
            return Err(Aborted);
        }
        ctx.nodes += 1;
        ctx.unflushed += 1;
        if ctx.unflushed >= FLUSH_EVERY {
            self.flush(ctx);
        }
        if let Some(v) = pos.terminal_value() {
            return Ok(Outcome {
                holds: v >= x,
                proven: true,
            });
        }
        let (lo, hi) = pos.value_bounds();
        if lo >= x || hi < x {
            return Ok(Outcome {
                holds: lo >= x,
                proven: true,
            });
        }
        if let Some(v) = self.oracle.probe(pos) {
            return Ok(Outcome {
                holds: v >= x,
                proven: true,
            });
        }
        if let Some(holds) = pos.decide_test(x) {
            return Ok(Outcome {
                holds,
                proven: true,
            });
        }
        let (key, sym) = key.unwrap_or_else(|| self.table_key(pos));
        let stored = self.table.probe(key);
        if let Some(e) = stored.filter(|e| e.depth >= depth) {
            if i32::from(e.lower) >= x || i32::from(e.upper) < x {
                return Ok(Outcome {
                    holds: i32::from(e.lower) >= x,
                    proven: e.depth == Entry::PROVEN,
                });
            }
        }
        // This node as the table will see it, once `spent` nodes have gone into it.
        let visit = move |spent: u64| Visit {
            key,
            sym,
            stored,
            bounds: (lo, hi),
            depth,
            spent,
        };
        if let Some(holds) = pos.decide_test_deeper(x) {
            let outcome = Outcome {
                holds,
                proven: true,
            };
            self.record(pos, visit(1), x, outcome, None);
            return Ok(outcome);
        }
        if depth == 0 {
            return Ok(Outcome {
                holds: pos.evaluate() >= x,
                proven: false,
            });
        }
        let hint = stored.filter(|e| e.sym == sym && e.best != Entry::NO_MOVE);
        let child_depth = if depth == Entry::PROVEN {
            depth
        } else {
            depth - 1
        };
        // A Max node holds as soon as one child holds; a Min node fails as soon as one fails.
        let cut_when = pos.to_move() == Role::Max;
        let nodes_before = ctx.nodes;
        // Children are tested against the threshold their backed-up value must reach.
        let child_x = G::child_threshold(x);
        let mut moves = Vec::new();
        pos.legal_moves_for_test(x, &mut moves);
        // The table's best move first, before paying for the other children.
        let hint = hint
            .map(|e| usize::from(e.best))
            .filter(|&i| i < moves.len());
        let mut hint_outcome = None;
        if let Some(index) = hint {
            let child = pos.play(moves[index]);
            hint_outcome = Some((
                index,
                self.test(&child, None, child_x, child_depth, ply + 1, cancel, ctx)?,
            ));
        }
        let (children, mut all_proven, mut cut) = match hint_outcome {
            Some((index, r)) if r.holds == cut_when => (Vec::new(), true, Some((index, r.proven))),
            _ => match self.expand(
                pos,
                &moves,
                child_x,
                child_depth,
                hint,
                cut_when,
                etc_worthwhile(ply, stored),
            ) {
                Expansion::Cut { index, proven } => (Vec::new(), true, Some((index, proven))),
                Expansion::Children {
                    children,
                    settled_proven,
                } => (children, settled_proven, None),
            },
        };
        if let Some((_, r)) = hint_outcome {
            all_proven &= r.proven;
        }

        let parallel = self.pool.is_some() && ply < self.options.split_plies && children.len() > 1;
        let sequential = if parallel { 1 } else { children.len() };
        for child in children.iter().take(sequential) {
            if cut.is_some() {
                break;
            }
            let r = self.test(
                &child.pos,
                child.key,
                child_x,
                child_depth,
                ply + 1,
                cancel,
                ctx,
            )?;
            if r.holds == cut_when {
                cut = Some((child.index, r.proven));
                break;
            }
            all_proven &= r.proven;
        }
        if cut.is_none() && parallel {
            use rayon::prelude::*;
            let local = Cancel::new(Some(cancel));
            let results: Vec<Result<(usize, Outcome), Aborted>> = children[1..]
                .par_iter()
                .map(|child| {
                    let mut task = Ctx::default();
                    let r = self.test(
                        &child.pos,
                        child.key,
                        child_x,
                        child_depth,
                        ply + 1,
                        &local,
                        &mut task,
                    );
                    self.flush(&mut task);
                    if let Ok(o) = r {
                        if o.holds == cut_when {
                            local.flag.store(true, Ordering::Relaxed);
                        }
                    }
                    r.map(|o| (child.index, o))
                })
                .collect();
            // The first cutting child in search order, whichever thread found it.
            cut = results
                .iter()
                .flatten()
                .find(|(_, o)| o.holds == cut_when)
                .map(|&(i, o)| (i, o.proven));
            if cut.is_none() {
                for r in results {
                    all_proven &= r?.1.proven;
                }
            }
        }
        let outcome = match cut {
            Some((_, proven)) => Outcome {
                holds: cut_when,
                proven,
            },
            None => Outcome {
                holds: !cut_when,
                proven: all_proven,
            },
        };
        if let Some((index, _)) = cut {
            if let Some(mv) = moves.get(index) {
                self.history[self.history_slot(mv)].fetch_add(1, Ordering::Relaxed);
            }
        }
        let spent = ctx.nodes - nodes_before + 1;
        self.record(pos, visit(spent), x, outcome, cut.map(|(index, _)| index));
        Ok(outcome)
    }

    /// Stores what the test "value of `pos` ≥ x" found, merged with what the table had.
    fn record<G: Searchable>(
        &self,
        pos: &G,
        visit: Visit,
        x: i32,
        outcome: Outcome,
        best: Option<usize>,
    ) where
        O: Oracle<G>,
    {
        let stored_depth = if outcome.proven {
            Entry::PROVEN
        } else {
            visit.depth
        };
        let mut entry = match visit.stored {
            Some(e) if e.depth == stored_depth => e,
            Some(e) if e.depth > stored_depth => return,
            _ => Entry {
                lower: entry_payoff::<G>(visit.bounds.0),
                upper: entry_payoff::<G>(visit.bounds.1),
                depth: stored_depth,
                best: Entry::NO_MOVE,
                sym: visit.sym,
                work: 0,
            },
        };
        let bound = entry_payoff::<G>(outcome.bound(pos, x));
        if outcome.holds {
            entry.lower = entry.lower.max(bound);
        } else {
            entry.upper = entry.upper.min(bound);
        }
        if let Some(index) = best {
            entry.best = entry_move::<G>(index);
            entry.sym = visit.sym;
        }
        // log2 of the nodes spent: at most 64, so the narrowing is lossless.
        entry.work = entry.work.max((64 - visit.spent.leading_zeros()) as u8);
        self.table.store(visit.key, entry);
    }

    fn root_test<G: Searchable>(&self, pos: &G, x: i32, depth: u8) -> Result<Outcome, Aborted>
    where
        O: Oracle<G>,
    {
        self.run(|| {
            let root = Cancel::new(None);
            let mut ctx = Ctx::default();
            let r = self.test(pos, None, x, depth, 0, &root, &mut ctx);
            self.flush(&mut ctx);
            r
        })
    }

    /// The value of `pos` searched to `depth` ([`Entry::PROVEN`]: exactly), found by tests that
    /// gallop from `guess` and then bisect.
    pub fn value<G: Searchable>(&self, pos: &G, depth: u8, guess: i32) -> Result<Bounds, Aborted>
    where
        O: Oracle<G>,
    {
        self.value_within(pos, depth, guess, pos.value_bounds(), &mut None)
    }

    /// [`Searcher::value`] where the value is already known to lie in `(lo, hi)`, inclusive.
    fn value_within<'s, G: Searchable>(
        &'s self,
        pos: &G,
        depth: u8,
        guess: i32,
        (mut lo, mut hi): (i32, i32),
        dfpn: &mut Option<SharedTests<'s>>,
    ) -> Result<Bounds, Aborted>
    where
        O: Oracle<G>,
    {
        let (mut proven_lo, mut proven_hi) = (lo, hi);
        let exact_search = depth == Entry::PROVEN;
        if exact_search {
            self.root_bounds.0.store(lo, Ordering::Relaxed);
            self.root_bounds.1.store(hi, Ordering::Relaxed);
        }
        let mut x = guess;
        let mut step = 1;
        let mut last: Option<bool> = None;
        let mut bracketed = false;
        while lo < hi {
            x = x.clamp(lo + 1, hi);
            let r = self.exact_test(pos, x, depth, dfpn)?;
            if r.holds {
                lo = r.bound(pos, x);
                if r.proven {
                    proven_lo = proven_lo.max(lo);
                }
            } else {
                hi = r.bound(pos, x);
                if r.proven {
                    proven_hi = proven_hi.min(hi);
                }
            }
            if exact_search {
                self.root_bounds.0.store(proven_lo, Ordering::Relaxed);
                self.root_bounds.1.store(proven_hi, Ordering::Relaxed);
            }
            bracketed |= last.is_some_and(|l| l != r.holds);
            last = Some(r.holds);
            if bracketed {
                // Both sides seen: bisect what is left.
                x = lo + (hi - lo + 1) / 2;
            } else {
                // Still moving away from the guess: double the step.
                x = if r.holds { x + step } else { x - step };
                step *= 2;
            }
        }
        Ok(Bounds {
            value: lo,
            exact: proven_lo == proven_hi,
        })
    }

    /// One exact null-window test: is the value of `pos` at least `x`? Cheaper than the exact
    /// value when only its side of `x` matters (a win/loss verdict without its distance).
    pub fn prove_at_least<G: Searchable>(&self, pos: &G, x: i32) -> Result<bool, Aborted>
    where
        O: Oracle<G>,
    {
        Ok(self.root_test(pos, x, Entry::PROVEN)?.holds)
    }

    /// The principal variation of a position whose value at `depth` is `value`: at each step
    /// the first move that keeps the value, in the order of the evaluation (best for the mover
    /// first, ties in move-list order), followed to the end (or to `depth`) as long as each
    /// child's value is determined by its parent's. Every move tried before the one that keeps
    /// the value costs a proof that it does not; in move-list order that was about half the
    /// nodes of exact Bi-litaire solves (jumper suite, 23 balls: 1.18 M nodes with the line
    /// against 0.33 M in evaluation order, position #0; docs/bilitaire.md).
    pub fn principal_variation<G: Searchable>(
        &self,
        pos: &G,
        value: i32,
        depth: u8,
    ) -> Result<Vec<G::Move>, Aborted>
    where
        O: Oracle<G>,
    {
        self.principal_variation_with(pos, value, depth, &mut None)
    }

    /// [`Searcher::principal_variation`] with the exact tests shared with `dfpn`.
    fn principal_variation_with<'s, G: Searchable>(
        &'s self,
        pos: &G,
        mut value: i32,
        depth: u8,
        dfpn: &mut Option<SharedTests<'s>>,
    ) -> Result<Vec<G::Move>, Aborted>
    where
        O: Oracle<G>,
    {
        let mut pv = Vec::new();
        let mut pos = pos.clone();
        let mut depth = depth;
        while depth > 0 && pos.terminal_value().is_none() && pv.len() < 512 {
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            let child_depth = if depth == Entry::PROVEN {
                depth
            } else {
                depth - 1
            };
            let mut next = None;
            // Each child played once, ordered by (evaluation for the mover, move index).
            let max = pos.to_move() == Role::Max;
            let mut order: Vec<(i32, usize, G::Move, G)> = moves
                .iter()
                .enumerate()
                .map(|(i, &mv)| {
                    let child = pos.play(mv);
                    let e = child.evaluate();
                    (if max { -e } else { e }, i, mv, child)
                })
                .collect();
            order.sort_unstable_by_key(|&(e, i, ..)| (e, i));
            for (_, _, mv, child) in order {
                let keeps = match pos.to_move() {
                    Role::Max => {
                        self.exact_test(&child, G::child_threshold(value), child_depth, dfpn)?
                            .holds
                    }
                    Role::Min => {
                        !self
                            .exact_test(&child, G::child_threshold(value + 1), child_depth, dfpn)?
                            .holds
                    }
                };
                if keeps {
                    next = Some((mv, child));
                    break;
                }
            }
            let Some((mv, child)) = next else { break };
            pv.push(mv);
            pos = child;
            depth = child_depth;
            // The child's own value is the one that backs up to this one (a distance-scored
            // win one ply nearer the end). Where several child values back up alike (a
            // distance-scored 0 comes from -1, 0 or 1), the line cannot go on from `value`.
            let child_value = G::child_threshold(value);
            if [child_value - 1, child_value + 1]
                .iter()
                .any(|&other| G::backed_up(other) == value)
            {
                break;
            }
            value = child_value;
        }
        Ok(pv)
    }

    /// Solves `pos` exactly (or until a limit stops it), galloping from the game's
    /// [`SolvePolicy::exact_guess`] or, without one, from a short heuristic pre-search.
    pub fn solve<G: Searchable>(&self, pos: &G) -> Result<SearchReport<G::Move>, Aborted>
    where
        O: Oracle<G>,
    {
        self.table.new_generation();
        // What the table already proves about the root (a solve resumed from a `--table`
        // file, or an earlier solve over the same table) holds from the start, even if this
        // solve is stopped before its first test.
        let known = self.known_bounds(pos);
        self.root_bounds.0.store(known.0, Ordering::Relaxed);
        self.root_bounds.1.store(known.1, Ordering::Relaxed);
        let guess = match pos.exact_guess() {
            // The game knows a better start for the gallop (Pylos: the fast end of the side
            // its evaluation favours); no pre-search then.
            Some(guess) => guess,
            None => {
                // A few shallow heuristic iterations first: they fill the table with best-move
                // hints and a guess for the exact search (19-ball suite: 1.5 s instead of 2.4 s
                // of CPU).
                let mut guess = pos.evaluate();
                for depth in 1..=PRESEARCH_PLIES {
                    let b = self.value(pos, depth, guess)?;
                    guess = b.value;
                    if b.exact {
                        break;
                    }
                }
                guess
            }
        };
        let mut dfpn = self.proof_number_search(pos);
        let bounds = self.value_within(pos, Entry::PROVEN, guess, known, &mut dfpn)?;
        let pv = self.principal_variation_with(pos, bounds.value, Entry::PROVEN, &mut dfpn)?;
        Ok(SearchReport {
            value: bounds.value,
            exact: bounds.exact,
            best: pv.first().copied(),
            pv,
            nodes: self.nodes(),
            time: self.elapsed(),
            depth: None,
        })
    }

    /// The bounds on the value of `pos` that its game bounds and the table's proven entry for
    /// it give (the game bounds alone where the table has none): what a stopped test can still
    /// report, for the table holds what earlier tests (or a `--table` file) proved.
    pub fn known_bounds<G: Searchable>(&self, pos: &G) -> (i32, i32)
    where
        O: Oracle<G>,
    {
        let (lo, hi) = pos.value_bounds();
        let (key, _) = self.table_key(pos);
        match self.table.probe(key).filter(|e| e.depth == Entry::PROVEN) {
            // Both are proven, so they overlap; the check keeps a damaged entry (one whose
            // bounds cross, or miss the game's) from making an empty range.
            Some(e)
                if e.lower <= e.upper && i32::from(e.lower) <= hi && i32::from(e.upper) >= lo =>
            {
                (lo.max(e.lower.into()), hi.min(e.upper.into()))
            }
            _ => (lo, hi),
        }
    }

    /// Iterative deepening under the limits, reporting each completed depth; stops early when
    /// the value is proven exact. Returns the last completed iteration, or `None` if not even
    /// depth 1 finished.
    pub fn analyze<G: Searchable>(
        &self,
        pos: &G,
        max_depth: u8,
        mut report: impl FnMut(&Progress<G::Move>),
    ) -> Option<SearchReport<G::Move>>
    where
        O: Oracle<G>,
    {
        self.table.new_generation();
        let mut guess = pos.evaluate();
        let mut last: Option<SearchReport<G::Move>> = None;
        for depth in 1..=max_depth.min(Entry::PROVEN - 1) {
            let Ok(bounds) = self.value(pos, depth, guess) else {
                break;
            };
            let search_depth = if bounds.exact { Entry::PROVEN } else { depth };
            let Ok(pv) = self.principal_variation(pos, bounds.value, search_depth) else {
                break;
            };
            guess = bounds.value;
            let progress = Progress {
                depth: depth.into(),
                value: bounds.value,
                exact: bounds.exact,
                best: pv.first().copied(),
                nodes: self.nodes(),
                time: self.elapsed(),
            };
            report(&progress);
            last = Some(SearchReport {
                value: bounds.value,
                exact: bounds.exact,
                best: pv.first().copied(),
                pv,
                nodes: self.nodes(),
                time: self.elapsed(),
                depth: Some(depth.into()),
            });
            if bounds.exact {
                break;
            }
        }
        last.map(|mut r| {
            r.nodes = self.nodes();
            r.time = self.elapsed();
            r
        })
    }

    /// What every move of `pos`, whose exact value is `value`, is worth: the "both roles" view
    /// of each slide, removal and announcement, in move-list order. First every move is tested
    /// against `value` (no move is better for the mover, and the ones that reach it are the best
    /// moves); then the others are valued exactly, as far as the limits allow. A stopped search
    /// leaves a move's value unproven, with the bound known for it.
    pub fn move_values<G: Searchable>(&self, pos: &G, value: i32) -> Vec<MoveValue<G::Move>>
    where
        O: Oracle<G>,
    {
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        let max = pos.to_move() == Role::Max;
        // The child values that back up to `value` (or better, which cannot happen).
        let best_threshold = if max {
            G::child_threshold(value)
        } else {
            G::child_threshold(value + 1)
        };
        let mut values: Vec<MoveValue<G::Move>> = moves
            .iter()
            .map(|&mv| {
                let child = pos.play(mv);
                let reaches = self
                    .root_test(&child, best_threshold, Entry::PROVEN)
                    .ok()
                    .map(|r| r.holds == max);
                MoveValue {
                    mv,
                    value: (reaches == Some(true)).then_some(value),
                    bound: match (reaches, max) {
                        (Some(false), true) => value - 1,
                        (Some(false), false) => value + 1,
                        _ => value,
                    },
                }
            })
            .collect();
        for entry in values.iter_mut().filter(|v| v.value.is_none()) {
            let child = pos.play(entry.mv);
            let (lo, hi) = child.value_bounds();
            let known = if max {
                (lo, hi.min(best_threshold - 1))
            } else {
                (lo.max(best_threshold), hi)
            };
            let guess = if max { known.1 } else { known.0 };
            entry.value = self
                .value_within(&child, Entry::PROVEN, guess, known, &mut None)
                .ok()
                .filter(|b| b.exact)
                .map(|b| G::backed_up(b.value));
        }
        values
    }
}
