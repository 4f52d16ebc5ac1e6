//! Depth-first proof-number search (df-pn, Nagai 2002) for one boolean test "value ≥ x", beside
//! the null-window alpha-beta of [`crate::search`]: an experiment of issue 17 (the hard proofs
//! of Bi-litaire, where the slider and the ball player have very different strategies).
//!
//! The test is an AND/OR tree: a Max node holds when one child holds (OR), a Min node when
//! every child holds (AND). Each node carries a proof number (how many open leaves at least
//! must be proven to prove it) and a disproof number; the search always expands a most-proving
//! node, depth-first, under thresholds that send it back up only when a sibling became more
//! promising. With the 1+ε trick (Pawlewicz & Lew 2007) a child's threshold is
//! `max(second + 1, ⌈second · (1 + ε)⌉)` instead of `second + 1`, so the search switches between
//! siblings less often.
//!
//! Leaves use the same game hooks as alpha-beta: [`tabula_engine::Scored::terminal_value`],
//! [`tabula_engine::Scored::value_bounds`], [`crate::TestShortcuts::decide_test`] and
//! [`crate::TestShortcuts::decide_test_deeper`] answer a test exactly, and
//! [`crate::TestShortcuts::legal_moves_for_test`] leaves out the moves that cannot decide it. A leaf is
//! proven or disproven only by those, so an answer is a fact about the game: it agrees with
//! [`crate::Searcher::prove_at_least`] whatever the table keeps (`solver/tests/dfpn.rs`).
//!
//! The proof and disproof numbers live in a table of their own ([`Dfpn`] owns it): a fixed-size
//! array of 4-slot buckets, keyed by the position's (canonical) key and the threshold `x`, where
//! a new entry replaces the one of least work. Fixed size, like [`crate::AtomicTable`], because
//! the hard proofs expand tens of millions of nodes: a growing map would grow without bound,
//! while losing an entry only costs its re-expansion. The alpha-beta [`Table`] has no room for
//! the numbers (a 64-bit entry), but it can be shared for what both searches prove: with
//! [`Dfpn::with_shared_table`] a node that table already settles with a proven bound is a leaf,
//! and every node df-pn proves or disproves is stored there as a proven bound, for a later
//! MTD(f) test or principal variation to use.
//!
//! The game must be finite ([`crate::SolvePolicy::finite`]): df-pn here knows nothing of
//! repetitions. Bi-litaire's positions never repeat (every ball turn removes a ball); Pylos
//! under `children` rules neither.

use crate::search::{Aborted, Searchable};
use crate::tt::{Entry, Table};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tabula_engine::Role;

/// A proof or disproof number that settles a node: the other number is 0.
pub const INFINITE: u32 = u32::MAX;
/// The largest number an open node carries: sums saturate here, below [`INFINITE`].
const LARGEST_OPEN: u32 = u32::MAX - 1;

/// What a caller may set.
#[derive(Clone, Debug)]
pub struct DfpnOptions {
    /// Size of the proof-number table (MiB; 32 bytes an entry).
    pub megabytes: usize,
    /// Key positions by their canonical image under the game's symmetries (as
    /// [`crate::SearchOptions::symmetry`]; a shared table must be keyed the same way).
    pub symmetry: bool,
    /// The ε of the 1+ε trick; 0 is plain df-pn. Default 0.25 with `leaf_weight` 3: on the
    /// first 8 jumper positions of 23 balls the proofs "≥ v" took × 0.52 the nodes of
    /// alpha-beta in total, against × 0.80 with 0 and 1 (docs/bilitaire.md).
    pub epsilon: f64,
    /// The proof-number search's guess at a new leaf (df-pn+): a leaf whose heuristic
    /// evaluation passes the test starts at proof number 1 and disproof number `leaf_weight`,
    /// one that fails it the other way round; 1 is plain df-pn (every new leaf at 1, 1).
    pub leaf_weight: u32,
    /// Stop after this many nodes ([`DfpnStats::nodes`]).
    pub nodes: Option<u64>,
    /// A flag set from outside (e.g. by a Ctrl-C handler) that stops the search.
    pub interrupt: Option<&'static AtomicBool>,
    /// Stop at this instant (checked at each expansion).
    pub deadline: Option<Instant>,
}

impl Default for DfpnOptions {
    fn default() -> Self {
        DfpnOptions {
            megabytes: 64,
            symmetry: true,
            epsilon: 0.25,
            leaf_weight: 3,
            nodes: None,
            interrupt: None,
            deadline: None,
        }
    }
}

/// What a search has done so far (cumulative over the tests of one [`Dfpn`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DfpnStats {
    /// Nodes, counted as the alpha-beta search counts them: every expansion (a visit that
    /// generates the moves, repeated visits included) and every new child whose game bounds
    /// leave the test open (the ones a shortcut or the tables may answer).
    pub nodes: u64,
    /// Expansions alone (visits that generate the moves and play every child).
    pub expansions: u64,
    /// Children made by those expansions (a measure of the work per node: df-pn plays every
    /// child of a node it visits, again at each visit).
    pub children: u64,
    /// Entries of the proof-number table replaced by another position's.
    pub replaced: u64,
}

/// One slot of the proof-number table. `work == 0`: empty.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    key: u128,
    x: i32,
    pn: u32,
    dn: u32,
    /// Nodes spent on the position (saturating): what replacement protects.
    work: u32,
}

const WAYS: usize = 4;

/// The fixed-size proof-number table (one thread: plain memory).
struct PnTable {
    buckets: Vec<[Slot; WAYS]>,
}

impl PnTable {
    fn with_megabytes(megabytes: usize) -> PnTable {
        let n = (megabytes.saturating_mul(1 << 20) / std::mem::size_of::<[Slot; WAYS]>()).max(1);
        PnTable {
            buckets: vec![[Slot::default(); WAYS]; n],
        }
    }

    fn bucket(&self, key: u128, x: i32) -> usize {
        let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29) ^ u64::from(x as u32);
        let mixed = folded.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        ((u128::from(mixed ^ (mixed >> 31)) * self.buckets.len() as u128) >> 64) as usize
    }

    fn probe(&self, key: u128, x: i32) -> Option<Slot> {
        self.buckets[self.bucket(key, x)]
            .iter()
            .find(|s| s.work > 0 && s.key == key && s.x == x)
            .copied()
    }

    /// Stores `slot`; returns true when it replaced another position's entry.
    fn store(&mut self, slot: Slot) -> bool {
        let b = self.bucket(slot.key, slot.x);
        let bucket = &mut self.buckets[b];
        if let Some(s) = bucket
            .iter_mut()
            .find(|s| s.work > 0 && s.key == slot.key && s.x == slot.x)
        {
            *s = slot;
            return false;
        }
        let victim = bucket
            .iter_mut()
            .min_by_key(|s| s.work)
            .expect("a bucket has slots");
        let replaced = victim.work > 0;
        *victim = slot;
        replaced
    }
}

/// A child of an expanded node, with its numbers.
struct Kid<G> {
    /// The heuristic evaluation, best for the mover first: ties of the numbers go to the
    /// child that looks best.
    order: i32,
    pos: G,
    key: u128,
    sym: u8,
    pn: u32,
    dn: u32,
}

/// A leaf's numbers: settled by the hooks or the tables, or the `(1, 1)` of an unknown leaf.
fn settled(holds: bool) -> (u32, u32) {
    if holds {
        (0, INFINITE)
    } else {
        (INFINITE, 0)
    }
}

fn sum(values: impl Iterator<Item = u32>) -> u32 {
    let mut total: u32 = 0;
    for v in values {
        if v == INFINITE {
            return INFINITE;
        }
        total = total.saturating_add(v).min(LARGEST_OPEN);
    }
    total
}

/// df-pn over one proof-number table, optionally sharing proven bounds with an alpha-beta
/// table. One thread. Create one per job; tests on it share what it learnt.
pub struct Dfpn<'t> {
    table: PnTable,
    shared: Option<&'t dyn Table>,
    /// Another flag that stops the search when set (a caller's stop, not only a Ctrl-C).
    stop: Option<&'t AtomicBool>,
    options: DfpnOptions,
    stats: DfpnStats,
    progress: Option<Progress<'t>>,
}

/// A report called now and then during a long test ([`Dfpn::on_progress`]).
struct Progress<'t> {
    every: Duration,
    last: Instant,
    report: Box<dyn FnMut(&DfpnStats) + 't>,
}

impl std::fmt::Debug for Dfpn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dfpn")
            .field("options", &self.options)
            .field("stats", &self.stats)
            .field("shared", &self.shared.is_some())
            .finish_non_exhaustive()
    }
}

impl Dfpn<'static> {
    /// A df-pn search with a proof-number table of its own only.
    pub fn new(options: DfpnOptions) -> Dfpn<'static> {
        Dfpn {
            table: PnTable::with_megabytes(options.megabytes),
            shared: None,
            stop: None,
            options,
            stats: DfpnStats::default(),
            progress: None,
        }
    }
}

impl<'t> Dfpn<'t> {
    /// A df-pn search that also reads proven bounds from `shared` (an alpha-beta table keyed
    /// the same way, [`DfpnOptions::symmetry`]) and stores there every bound it proves.
    pub fn with_shared_table(options: DfpnOptions, shared: &'t dyn Table) -> Dfpn<'t> {
        Dfpn {
            table: PnTable::with_megabytes(options.megabytes),
            shared: Some(shared),
            stop: None,
            options,
            stats: DfpnStats::default(),
            progress: None,
        }
    }

    /// Calls `report` with the statistics about every `every` while a test runs (checked at
    /// each expansion): progress lines or a checkpoint of the shared table.
    pub fn on_progress(&mut self, every: Duration, report: impl FnMut(&DfpnStats) + 't) {
        self.progress = Some(Progress {
            every,
            last: Instant::now(),
            report: Box::new(report),
        });
    }

    /// The move that decides "value ≥ x" at `pos` for the side to move: for Max a move whose
    /// child holds, for Min one whose child fails. The first child in the order of
    /// [`crate::TestShortcuts::legal_moves_for_test`] that a shortcut or the tables settle
    /// that way, else the first that a new test settles so. `Ok(None)` where no move does (the
    /// test goes the other side's way) or the game is over. Follows a proof move by move, e.g.
    /// for an independent check by [`crate::proof::check_bound`]; which move it picks depends
    /// on what the tables keep, the proof does not.
    pub fn proof_move<G: Searchable>(
        &mut self,
        pos: &G,
        x: i32,
    ) -> Result<Option<G::Move>, Aborted> {
        if pos.terminal_value().is_some() {
            return Ok(None);
        }
        let wanted = pos.to_move() == Role::Max;
        let child_x = G::child_threshold(x);
        let mut moves = Vec::new();
        pos.legal_moves_for_test(x, &mut moves);
        for &mv in &moves {
            let child = pos.play(mv);
            let (ckey, csym) = self.key(&child);
            if self.leaf(&child, ckey, csym, child_x) == Some(wanted) {
                return Ok(Some(mv));
            }
        }
        for &mv in &moves {
            if self.prove_at_least(&pos.play(mv), child_x)? == wanted {
                return Ok(Some(mv));
            }
        }
        Ok(None)
    }

    /// Lifts the node limit and the deadline (the interrupt flag stays): for following a
    /// proof after the test that found it.
    pub fn without_limits(&mut self) {
        self.options.nodes = None;
        self.options.deadline = None;
    }

    /// Stops the search after `nodes` in all ([`DfpnStats::nodes`], counted over every test
    /// of this search), or never with `None`: a budget for the next test.
    pub fn limit_nodes(&mut self, nodes: Option<u64>) {
        self.options.nodes = nodes;
    }

    /// Also stops when `flag` is set (checked at each expansion, as the interrupt flag).
    pub fn watch(&mut self, flag: &'t AtomicBool) {
        self.stop = Some(flag);
    }

    /// What the search has done so far.
    pub fn stats(&self) -> DfpnStats {
        self.stats
    }

    /// Is the value of `pos` at least `x`? Exact (the same answer as
    /// [`crate::Searcher::prove_at_least`]), or [`Aborted`] when the node limit or the
    /// interrupt flag stopped it first.
    /// The game must be finite ([`crate::SolvePolicy::finite`]).
    pub fn prove_at_least<G: Searchable>(&mut self, pos: &G, x: i32) -> Result<bool, Aborted> {
        debug_assert!(pos.finite(), "df-pn needs a finite game");
        let (key, sym) = self.key(pos);
        if let Some(holds) = self.leaf(pos, key, sym, x) {
            return Ok(holds);
        }
        let (pn, dn) = match self.table.probe(key, x) {
            Some(s) => (s.pn, s.dn),
            None => (1, 1),
        };
        if pn == 0 || dn == 0 {
            return Ok(pn == 0);
        }
        let (pn, _) = self.mid(pos, key, sym, x, INFINITE, INFINITE)?;
        Ok(pn == 0)
    }

    fn key<G: Searchable>(&self, pos: &G) -> (u128, u8) {
        match pos.symmetric_key().filter(|_| self.options.symmetry) {
            Some((key, sym)) => (key.into(), (sym & 7) as u8),
            None => (pos.key().into(), 0),
        }
    }

    fn check_limits(&mut self) -> Result<(), Aborted> {
        if let Some(p) = self
            .progress
            .as_mut()
            .filter(|p| p.last.elapsed() >= p.every)
        {
            p.last = Instant::now();
            (p.report)(&self.stats);
        }
        let late = self.options.deadline.is_some_and(|d| Instant::now() >= d);
        let over_nodes = self
            .options
            .nodes
            .is_some_and(|limit| self.stats.nodes >= limit);
        let interrupted = self
            .options
            .interrupt
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
            || self.stop.is_some_and(|flag| flag.load(Ordering::Relaxed));
        if over_nodes || interrupted || late {
            Err(Aborted)
        } else {
            Ok(())
        }
    }

    /// The answer of a position's test without an expansion, where the game's bounds and
    /// shortcuts or the shared table give one (counted as a node once the bounds leave it open).
    fn leaf<G: Searchable>(&mut self, pos: &G, key: u128, sym: u8, x: i32) -> Option<bool> {
        if let Some(v) = pos.terminal_value() {
            return Some(v >= x);
        }
        let (lo, hi) = pos.value_bounds();
        if lo >= x || hi < x {
            return Some(lo >= x);
        }
        self.stats.nodes += 1;
        if let Some(holds) = pos.decide_test(x) {
            return Some(holds);
        }
        let known = self.table.probe(key, x);
        if let Some(slot) = known.filter(|s| s.pn == 0 || s.dn == 0) {
            return Some(slot.pn == 0);
        }
        if let Some(e) = self
            .shared
            .and_then(|t| t.probe(key))
            .filter(|e| e.depth == Entry::PROVEN)
        {
            if i32::from(e.lower) >= x || i32::from(e.upper) < x {
                return Some(i32::from(e.lower) >= x);
            }
        }
        if known.is_some() {
            // Open and known: no deeper shortcut can apply (it would have settled it).
            return None;
        }
        if let Some(holds) = pos.decide_test_deeper(x) {
            let (pn, dn) = settled(holds);
            self.remember(pos, key, sym, x, pn, dn, 1);
            return Some(holds);
        }
        None
    }

    /// Stores a node's numbers, and a settled node's bound in the shared table.
    #[allow(clippy::too_many_arguments)]
    fn remember<G: Searchable>(
        &mut self,
        pos: &G,
        key: u128,
        sym: u8,
        x: i32,
        pn: u32,
        dn: u32,
        work: u32,
    ) {
        let slot = Slot {
            key,
            x,
            pn,
            dn,
            work: work.max(1),
        };
        if self.table.store(slot) {
            self.stats.replaced += 1;
        }
        let Some(shared) = self.shared.filter(|_| pn == 0 || dn == 0) else {
            return;
        };
        let payoff = |v: i32| v.clamp(G::MIN_VALUE, G::MAX_VALUE) as i16;
        let mut entry = match shared.probe(key) {
            Some(e) if e.depth == Entry::PROVEN => e,
            _ => {
                let (lo, hi) = pos.value_bounds();
                Entry {
                    lower: payoff(lo),
                    upper: payoff(hi),
                    depth: Entry::PROVEN,
                    best: Entry::NO_MOVE,
                    sym,
                    work: 0,
                }
            }
        };
        if pn == 0 {
            entry.lower = entry.lower.max(payoff(pos.exact_at_least(x)));
        } else {
            entry.upper = entry.upper.min(payoff(pos.exact_at_most(x - 1)));
        }
        entry.work = entry.work.max((32 - work.leading_zeros()) as u8);
        shared.store(key, entry);
    }

    /// The threshold of a child that becomes second best at `second`.
    fn beyond(&self, second: u32) -> u64 {
        let plain = u64::from(second) + 1;
        if self.options.epsilon > 0.0 {
            plain.max((f64::from(second) * (1.0 + self.options.epsilon)).ceil() as u64)
        } else {
            plain
        }
    }

    /// Multiple iterative deepening at an open node: searches below it until its proof number
    /// reaches `th_pn` or its disproof number `th_dn`; returns its numbers.
    fn mid<G: Searchable>(
        &mut self,
        pos: &G,
        key: u128,
        sym: u8,
        x: i32,
        th_pn: u32,
        th_dn: u32,
    ) -> Result<(u32, u32), Aborted> {
        self.check_limits()?;
        self.stats.nodes += 1;
        self.stats.expansions += 1;
        let nodes_before = self.stats.nodes;
        let earlier_work = self.table.probe(key, x).map_or(0, |s| s.work);
        let or_node = pos.to_move() == Role::Max;
        let child_x = G::child_threshold(x);
        let mut moves = Vec::new();
        pos.legal_moves_for_test(x, &mut moves);
        let mut kids: Vec<Kid<G>> = Vec::with_capacity(moves.len());
        let mut decided = None;
        for &mv in &moves {
            let child = pos.play(mv);
            self.stats.children += 1;
            let (ckey, csym) = self.key(&child);
            let mut eval = None;
            let (pn, dn) = match self.leaf(&child, ckey, csym, child_x) {
                Some(holds) => settled(holds),
                None => match self.table.probe(ckey, child_x) {
                    Some(s) => (s.pn, s.dn),
                    None => {
                        let e = child.evaluate();
                        eval = Some(e);
                        let w = self.options.leaf_weight.max(1);
                        if e >= child_x {
                            (1, w)
                        } else {
                            (w, 1)
                        }
                    }
                },
            };
            // A child that holds settles an OR node, one that fails an AND node; the others
            // settled add nothing to the numbers and are left out.
            if (or_node && pn == 0) || (!or_node && dn == 0) {
                decided = Some(pn == 0);
                break;
            }
            if pn != 0 && dn != 0 {
                let e = eval.unwrap_or_else(|| child.evaluate());
                kids.push(Kid {
                    order: if or_node { -e } else { e },
                    pos: child,
                    key: ckey,
                    sym: csym,
                    pn,
                    dn,
                });
            }
        }
        kids.sort_by_key(|k| k.order);
        let (mut pn, mut dn) = match decided {
            Some(holds) => settled(holds),
            // No child left open: every one went the mover's wrong way (OR) or right way (AND).
            None if kids.is_empty() => settled(!or_node),
            None => (1, 1),
        };
        while decided.is_none() && !kids.is_empty() {
            // Children settled elsewhere in the meantime (transpositions) are seen here.
            for kid in kids.iter_mut() {
                if let Some(s) = self.table.probe(kid.key, child_x) {
                    (kid.pn, kid.dn) = (s.pn, s.dn);
                }
            }
            let (phi, delta): (Vec<u32>, Vec<u32>) = if or_node {
                kids.iter().map(|k| (k.pn, k.dn)).unzip()
            } else {
                kids.iter().map(|k| (k.dn, k.pn)).unzip()
            };
            // phi: the number the mover minimises over its children, delta: the sum.
            let node_phi = phi.iter().copied().min().unwrap_or(INFINITE);
            let node_delta = sum(delta.iter().copied());
            (pn, dn) = if or_node {
                (node_phi, node_delta)
            } else {
                (node_delta, node_phi)
            };
            let (th_phi, th_delta) = if or_node {
                (th_pn, th_dn)
            } else {
                (th_dn, th_pn)
            };
            if node_phi >= th_phi || node_delta >= th_delta {
                break;
            }
            // The most proving child (first of the smallest phi) and the second smallest phi.
            let mut best = 0;
            let mut second = INFINITE;
            for (i, &p) in phi.iter().enumerate().skip(1) {
                if p < phi[best] {
                    second = phi[best];
                    best = i;
                } else if p < second {
                    second = p;
                }
            }
            let child_th_phi = u64::from(th_phi).min(self.beyond(second));
            let child_th_delta = if th_delta == INFINITE {
                u64::from(INFINITE)
            } else {
                u64::from(th_delta) - u64::from(node_delta) + u64::from(delta[best])
            };
            let (cth_phi, cth_delta) = (
                child_th_phi.min(u64::from(INFINITE)) as u32,
                child_th_delta.min(u64::from(INFINITE)) as u32,
            );
            let (cth_pn, cth_dn) = if or_node {
                (cth_phi, cth_delta)
            } else {
                (cth_delta, cth_phi)
            };
            let kid = &kids[best];
            let (kpos, kkey, ksym) = (kid.pos.clone(), kid.key, kid.sym);
            let (kpn, kdn) = self.mid(&kpos, kkey, ksym, child_x, cth_pn, cth_dn)?;
            kids[best].pn = kpn;
            kids[best].dn = kdn;
            if (or_node && kpn == 0) || (!or_node && kdn == 0) {
                decided = Some(kpn == 0);
                (pn, dn) = settled(kpn == 0);
            } else if kpn == 0 || kdn == 0 {
                kids.remove(best);
                if kids.is_empty() {
                    (pn, dn) = settled(!or_node);
                }
            }
        }
        let spent = self.stats.nodes - nodes_before + 1;
        let work = u64::from(earlier_work)
            .saturating_add(spent)
            .min(u64::from(u32::MAX)) as u32;
        self.remember(pos, key, sym, x, pn, dn, work);
        Ok((pn, dn))
    }
}
