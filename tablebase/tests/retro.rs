//! The retrograde builder against an independent computation on toy loopy games (seeded
//! random directed graphs with cycles, self-loops, dead ends, holes, and a symmetric variant),
//! and its long-build machinery: thread-independence, interrupt and resume, checkpoints, and
//! the defences of its files.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tabula_engine::retro::{Outcome, Retrograde};
use tabula_store::{ErrorKind, Existing, Kind, StoreError};
use tabula_tablebase::retro::{
    build, table_context, BuildError, BuildOptions, Longest, Phase, Relation, RetroPayloadError,
    Summary, Table, Value, MAX_CHILDREN, MAX_PLIES,
};

// ---------------------------------------------------------------------------------------------
// The toy game: an explicit directed graph. A node is a position; its out-edges are its moves.
// With `sym`, nodes 2m and 2m + 1 are mirror images (every edge a → b has its mirror
// a^1 → b^1), and the game ranks a node to the smaller of the two: the class's canonical index.
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Graph {
    /// Raw out-edges of each node (distinct).
    kids: Vec<Vec<u64>>,
    prim: Vec<Option<Outcome>>,
    hole: Vec<bool>,
    sym: bool,
    parents: bool,
    name: String,
    /// Children of each canonical index, as the game reports them (editable to inject bugs).
    qkids: Vec<Vec<u64>>,
    /// Parents of each canonical index (editable to inject bugs).
    qparents: Vec<Vec<u64>>,
    /// A game bug to inject: `rank` of this node answers one more.
    bad_rank: Option<u64>,
}

impl Graph {
    fn new(
        kids: Vec<Vec<u64>>,
        prim: Vec<Option<Outcome>>,
        hole: Vec<bool>,
        sym: bool,
        name: &str,
    ) -> Graph {
        let n = kids.len();
        let mut g = Graph {
            kids,
            prim,
            hole,
            sym,
            parents: true,
            name: name.to_string(),
            qkids: vec![Vec::new(); n],
            qparents: vec![Vec::new(); n],
            bad_rank: None,
        };
        for i in 0..n as u64 {
            if g.canonical_node(i) {
                let mut q: Vec<u64> = g.kids[i as usize].iter().map(|&k| g.canon(k)).collect();
                q.sort_unstable();
                q.dedup();
                g.qkids[i as usize] = q;
            }
        }
        for i in 0..n {
            for k in g.qkids[i].clone() {
                g.qparents[k as usize].push(i as u64);
            }
        }
        g
    }

    fn canon(&self, x: u64) -> u64 {
        if self.sym {
            x & !1
        } else {
            x
        }
    }

    fn canonical_node(&self, i: u64) -> bool {
        !self.hole[i as usize] && self.canon(i) == i
    }

    fn without_parents(mut self) -> Graph {
        self.parents = false;
        self
    }
}

impl Retrograde for Graph {
    type Position = u64;

    fn size(&self) -> u64 {
        self.kids.len() as u64
    }

    fn unrank(&self, index: u64) -> Option<u64> {
        ((index as usize) < self.kids.len() && self.canonical_node(index)).then_some(index)
    }

    fn rank(&self, pos: &u64) -> u64 {
        self.canon(*pos) + (self.bad_rank == Some(*pos)) as u64
    }

    fn primitive(&self, pos: &u64) -> Option<Outcome> {
        self.prim[*pos as usize]
    }

    fn children(&self, pos: &u64, out: &mut Vec<u64>) {
        out.extend(&self.qkids[self.canon(*pos) as usize]);
    }

    fn has_parents(&self) -> bool {
        self.parents
    }

    fn parents(&self, pos: &u64, out: &mut Vec<u64>) {
        out.extend(&self.qparents[self.canon(*pos) as usize]);
    }

    fn context(&self) -> String {
        format!("game=toy;graph={}", self.name)
    }
}

/// SplitMix64: the test's own seeded generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random graph of `n` nodes (even): about 5% holes, 7% dead ends (primitive losses), 2%
/// primitive wins, 1% primitive draws; the rest have 1 to 4 moves, mostly a few nodes ahead
/// (long forced lines), some anywhere (cycles), some to themselves (self-loops).
fn random_graph(seed: u64, n: usize, sym: bool) -> Graph {
    let mut rng = Rng(seed);
    let step = if sym { 2 } else { 1 };
    let mut hole = vec![false; n];
    let mut prim = vec![None; n];
    for i in (0..n).step_by(step) {
        let r = rng.below(100);
        hole[i] = r < 5;
        prim[i] = match r {
            5..12 => Some(Outcome::Loss),
            12..14 => Some(Outcome::Win),
            14 => Some(Outcome::Draw),
            _ => None,
        };
        if sym {
            hole[i + 1] = hole[i];
            prim[i + 1] = prim[i];
        }
    }
    let mut kids = vec![Vec::new(); n];
    for i in (0..n).step_by(step) {
        if hole[i] || prim[i].is_some() {
            continue;
        }
        let degree = 1 + rng.below(4);
        let mut k: Vec<u64> = Vec::new();
        while (k.len() as u64) < degree {
            let t = match rng.below(20) {
                0 => i as u64,
                1..=5 => rng.below(n as u64),
                _ => (i as u64 + 1 + rng.below(8)) % n as u64,
            };
            if !hole[t as usize] && !k.contains(&t) {
                k.push(t);
            }
        }
        if sym {
            kids[i + 1] = k.iter().map(|&t| t ^ 1).collect();
        }
        kids[i] = k;
    }
    let name = format!("random-{seed}-{n}-{}", sym as u8);
    Graph::new(kids, prim, hole, sym, &name)
}

/// The independent computation: plain value iteration over the raw graph (no symmetry, no
/// counters, no un-moves). Round k recomputes every node from round k − 1: won in 1 + the
/// least loss distance among its children, lost in 1 + the largest win distance when all its
/// children are won, unknown otherwise; a fixpoint's unknowns are draws.
fn value_iteration(g: &Graph) -> Vec<Value> {
    let n = g.kids.len();
    let base: Vec<Option<Value>> = (0..n)
        .map(|i| match (g.hole[i], g.prim[i]) {
            (true, _) => Some(Value::Hole),
            (_, Some(Outcome::Win)) => Some(Value::Win(0)),
            (_, Some(Outcome::Loss)) => Some(Value::Loss(0)),
            (_, Some(Outcome::Draw)) => Some(Value::Draw),
            _ => None,
        })
        .collect();
    let mut v = base.clone();
    loop {
        let next: Vec<Option<Value>> = (0..n)
            .map(|i| {
                if base[i].is_some() {
                    return base[i];
                }
                let kids = &g.kids[i];
                let fastest = kids
                    .iter()
                    .filter_map(|&c| match v[c as usize] {
                        Some(Value::Loss(d)) => Some(d),
                        _ => None,
                    })
                    .min();
                if let Some(d) = fastest {
                    return Some(Value::Win(d + 1));
                }
                let wins: Option<Vec<u32>> = kids
                    .iter()
                    .map(|&c| match v[c as usize] {
                        Some(Value::Win(d)) => Some(d),
                        _ => None,
                    })
                    .collect();
                wins.map(|w| Value::Loss(1 + w.into_iter().max().unwrap()))
            })
            .collect();
        if next == v {
            return v.into_iter().map(|x| x.unwrap_or(Value::Draw)).collect();
        }
        v = next;
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("retro-tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Options for small tests: batches of 97 indices (many batches, checkpoints and progress
/// reports per phase), two threads.
fn options(path: &Path) -> BuildOptions<'static> {
    let mut o = BuildOptions::new(path);
    o.batch = 97;
    o.threads = Some(2);
    o
}

fn build_quiet<G: Retrograde>(g: &G, o: &BuildOptions) -> Result<Summary, BuildError> {
    build(g, o, |_| {})
}

/// Every index of the table at `path` against the value iteration of `g`'s raw graph.
fn check_against_value_iteration(g: &Graph, path: &Path) -> Vec<Value> {
    let expected = value_iteration(g);
    let table = Table::open(path, g).unwrap();
    let mut by_index = Vec::new();
    for i in 0..g.size() {
        let want = if g.canonical_node(i) {
            expected[i as usize]
        } else {
            Value::Hole
        };
        let got = table.value(i).unwrap();
        assert_eq!(got, want, "{}: index {i}", g.name);
        by_index.push(want);
        if !g.hole[i as usize] {
            // Any node, canonical or not, probes to its own value.
            assert_eq!(table.probe(g, &i).unwrap(), expected[i as usize]);
        }
    }
    by_index
}

fn expected_summary(values: &[Value]) -> Summary {
    let count = |f: fn(&Value) -> bool| values.iter().filter(|v| f(v)).count() as u64;
    let longest = |f: fn(Value) -> Option<u32>| {
        let max = values.iter().filter_map(|&v| f(v)).max()?;
        let index = values.iter().position(|&v| f(v) == Some(max))? as u64;
        Some(Longest { plies: max, index })
    };
    Summary {
        size: values.len() as u64,
        won: count(|v| matches!(v, Value::Win(_))),
        lost: count(|v| matches!(v, Value::Loss(_))),
        drawn: count(|v| matches!(v, Value::Draw)),
        holes: count(|v| matches!(v, Value::Hole)),
        longest_win: longest(|v| match v {
            Value::Win(d) => Some(d),
            _ => None,
        }),
        longest_loss: longest(|v| match v {
            Value::Loss(d) => Some(d),
            _ => None,
        }),
        build_time: None,
    }
}

fn store_kind(e: &BuildError) -> &ErrorKind {
    match e {
        BuildError::Store(s) => s.kind(),
        other => panic!("expected a store error, got {other}"),
    }
}

fn payload_detail(e: &StoreError) -> &RetroPayloadError {
    match e.kind() {
        ErrorKind::BadPayload { detail } => detail.downcast_ref().expect("a retro payload error"),
        other => panic!("expected a bad payload, got {other}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

/// A graph small enough to solve by hand; the expected values are worked out in the comments.
#[test]
fn hand_solved_graph() {
    use Outcome::*;
    let kids: Vec<Vec<u64>> = vec![
        vec![],       // 0: no moves, lost
        vec![0],      // 1: moves to a lost position: won in 1
        vec![1],      // 2: only move to a win: lost in 2
        vec![2, 4],   // 3: a child lost in 2: won in 3 (4 is a draw)
        vec![4],      // 4: a self-loop only: draw
        vec![1, 6],   // 5: to 1 (won) or to 6, whose only move is back to 5: draw
        vec![5],      // 6: draw
        vec![],       // 7: hole
        vec![1, 9],   // 8: children won in 1 and 0: lost in 2
        vec![],       // 9: primitive win
        vec![2, 8],   // 10: children lost in 2 and 2: won in 3
        vec![11, 0],  // 11: a self-loop and a lost child: won in 1
        vec![],       // 12: primitive draw
        vec![12],     // 13: only move to a draw: draw
        vec![3, 1],   // 14: children won in 3 and 1: lost in 4
        vec![14, 13], // 15: a child lost in 4 and a draw: won in 5
    ];
    let mut prim = vec![None; kids.len()];
    prim[0] = Some(Loss);
    prim[9] = Some(Win);
    prim[12] = Some(Draw);
    let mut hole = vec![false; kids.len()];
    hole[7] = true;
    let g = Graph::new(kids, prim, hole, false, "hand");
    let want = [
        Value::Loss(0),
        Value::Win(1),
        Value::Loss(2),
        Value::Win(3),
        Value::Draw,
        Value::Draw,
        Value::Draw,
        Value::Hole,
        Value::Loss(2),
        Value::Win(0),
        Value::Win(3),
        Value::Win(1),
        Value::Draw,
        Value::Draw,
        Value::Loss(4),
        Value::Win(5),
    ];
    let dir = scratch("hand");
    for (name, game) in [("parents", g.clone()), ("sweep", g.without_parents())] {
        let path = dir.join(name);
        let summary = build_quiet(&game, &options(&path)).unwrap();
        let table = Table::open(&path, &game).unwrap();
        for (i, w) in want.iter().enumerate() {
            assert_eq!(table.value(i as u64).unwrap(), *w, "{name}: index {i}");
        }
        assert_eq!(
            (summary.won, summary.lost, summary.drawn, summary.holes),
            (6, 4, 5, 1)
        );
        assert_eq!(
            summary.longest_win,
            Some(Longest {
                plies: 5,
                index: 15
            })
        );
        assert_eq!(
            summary.longest_loss,
            Some(Longest {
                plies: 4,
                index: 14
            })
        );
        assert!(summary.build_time.is_some());
    }
}

#[test]
fn tables_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Table>();
}

#[test]
fn random_graphs_match_value_iteration() {
    let dir = scratch("random");
    for seed in 1..=6 {
        for sym in [false, true] {
            let g = random_graph(seed, 3000, sym);
            for game in [g.clone(), g.clone().without_parents()] {
                let path = dir.join(format!("{seed}-{sym}-{}", game.parents));
                let summary = build_quiet(&game, &options(&path)).unwrap();
                let values = check_against_value_iteration(&game, &path);
                let mut want = expected_summary(&values);
                assert_eq!(Table::open(&path, &game).unwrap().summary(), &want);
                want.build_time = summary.build_time;
                assert_eq!(summary, want);
                // The fixture exercises every kind of value and lines of some length.
                assert!(want.won > 0 && want.lost > 0 && want.drawn > 0 && want.holes > 0);
                assert!(want.longest_win.unwrap().plies >= 5, "{want:?}");
                Table::open(&path, &game).unwrap().verify().unwrap();
            }
        }
    }
}

#[test]
fn parents_and_sweep_give_identical_files() {
    let dir = scratch("modes");
    for (seed, sym) in [(11, false), (12, true)] {
        let g = random_graph(seed, 2000, sym);
        let (a, b) = (dir.join(format!("p{seed}")), dir.join(format!("s{seed}")));
        build_quiet(&g, &options(&a)).unwrap();
        build_quiet(&g.clone().without_parents(), &options(&b)).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    }
}

#[test]
fn thread_counts_and_batches_give_identical_files() {
    let dir = scratch("threads");
    let g = random_graph(21, 5000, true);
    let reference = dir.join("reference");
    let mut o = options(&reference);
    o.threads = Some(1);
    o.batch = 1 << 20;
    build_quiet(&g, &o).unwrap();
    let reference = std::fs::read(&reference).unwrap();
    for (threads, batch) in [(1, 7), (2, 97), (4, 1000), (4, 3)] {
        let path = dir.join(format!("t{threads}-b{batch}"));
        let mut o = options(&path);
        o.threads = Some(threads);
        o.batch = batch;
        build_quiet(&g, &o).unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            reference,
            "{threads} threads"
        );
    }
}

#[test]
fn progress_reports_every_phase() {
    let dir = scratch("progress");
    let g = random_graph(5, 1000, false);
    let mut phases = Vec::new();
    let mut last_done = 0;
    build(&g, &options(&dir.join("t")), |p| {
        assert!(p.done <= p.total);
        if phases.last() != Some(&p.phase) {
            phases.push(p.phase);
        } else {
            assert!(p.done > last_done, "{p}");
        }
        last_done = p.done;
    })
    .unwrap();
    assert_eq!(phases[0], Phase::Holes);
    assert_eq!(phases[1], Phase::Children);
    assert_eq!(phases[2], Phase::Propagate { level: 0 });
    assert_eq!(phases.last(), Some(&Phase::Write));
}

// ---------------------------------------------------------------------------------------------
// Interrupt, checkpoints, resume
// ---------------------------------------------------------------------------------------------

/// Interrupted again and again (through every phase), each time resumed: the same file as an
/// uninterrupted build.
#[test]
fn interrupted_builds_resume_to_the_identical_file() {
    let dir = scratch("interrupt");
    for game in [
        random_graph(31, 3000, false),
        random_graph(32, 3000, true).without_parents(),
    ] {
        let reference = dir.join("reference");
        let _ = std::fs::remove_file(&reference);
        build_quiet(&game, &options(&reference)).unwrap();
        let path = dir.join("interrupted");
        let _ = std::fs::remove_file(&path);
        let stop = AtomicBool::new(false);
        let mut o = options(&path);
        o.interrupt = Some(&stop);
        let mut sessions = 0;
        let mut phases = Vec::new();
        loop {
            stop.store(false, Ordering::Relaxed);
            o.resume = sessions > 0;
            let mut calls = 0;
            let r = build(&game, &o, |p| {
                phases.push(p.phase);
                calls += 1;
                if calls == 7 {
                    stop.store(true, Ordering::Relaxed);
                }
            });
            sessions += 1;
            match r {
                Ok(_) => break,
                Err(BuildError::Interrupted { checkpoint }) => {
                    assert_eq!(checkpoint, o.checkpoint_path());
                    assert!(checkpoint.exists());
                    assert!(!path.exists(), "no table before the build is done");
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert!(sessions > 5, "{sessions}");
        assert!(phases.iter().any(|p| matches!(p, Phase::Holes)));
        assert!(phases.iter().any(|p| matches!(
            p,
            Phase::Propagate { level: 1.. } | Phase::Sweep { level: 1.. }
        )));
        assert!(!o.checkpoint_path().exists(), "the checkpoint is removed");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(&reference).unwrap()
        );
    }
}

/// A build killed at any point resumes from the last checkpoint it wrote: the checkpoint is
/// copied away from inside the progress callback (what a `kill -9` right then would leave), the
/// build completes, then the table is removed, the copy put back and resumed.
#[test]
fn killed_builds_resume_from_their_last_checkpoint() {
    let dir = scratch("kill");
    let g = random_graph(41, 3000, true);
    let path = dir.join("table");
    let mut o = options(&path);
    // Few large batches: a checkpoint after every one (each is fsynced: milliseconds).
    o.batch = 500;
    o.checkpoint_every = Duration::ZERO;
    let saved = dir.join("saved");
    let mut total = 0;
    build(&g, &o, |_| total += 1).unwrap();
    let reference = std::fs::read(&path).unwrap();
    for kill_at in [1, total / 2, total - 3] {
        std::fs::remove_file(&path).unwrap();
        let mut calls = 0;
        build(&g, &o, |_| {
            calls += 1;
            if calls == kill_at {
                std::fs::copy(o.checkpoint_path(), &saved).unwrap();
            }
        })
        .unwrap();
        std::fs::remove_file(&path).unwrap();
        std::fs::rename(&saved, o.checkpoint_path()).unwrap();
        let mut resume = o.clone();
        resume.resume = true;
        build_quiet(&g, &resume).unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            reference,
            "killed at {kill_at}"
        );
    }
}

#[test]
fn checkpoints_are_refused_when_missing_stale_foreign_or_damaged() {
    let dir = scratch("checkpoints");
    let g = random_graph(51, 2000, false);
    let path = dir.join("table");
    let stop = AtomicBool::new(false);
    let mut o = options(&path);
    o.interrupt = Some(&stop);
    // Resume without a checkpoint.
    let mut resume = o.clone();
    resume.resume = true;
    assert!(matches!(
        build_quiet(&g, &resume),
        Err(BuildError::NoCheckpoint { .. })
    ));
    // Interrupted in the first level.
    let e = build(&g, &o, |p| {
        if matches!(p.phase, Phase::Propagate { .. }) {
            stop.store(true, Ordering::Relaxed);
        }
    })
    .unwrap_err();
    assert!(e.is_interrupted(), "{e}");
    stop.store(false, Ordering::Relaxed);
    let ckpt = o.checkpoint_path();
    let good = std::fs::read(&ckpt).unwrap();
    // A fresh build does not discard it.
    assert!(matches!(
        build_quiet(&g, &o),
        Err(BuildError::CheckpointExists { .. })
    ));
    // Another game, or the same game in the other mode, refuses it.
    let other = random_graph(52, 2000, false);
    let e = build_quiet(&other, &resume).unwrap_err();
    assert!(
        matches!(store_kind(&e), ErrorKind::WrongContext { .. }),
        "{e}"
    );
    let e = build_quiet(&g.clone().without_parents(), &resume).unwrap_err();
    assert!(
        matches!(store_kind(&e), ErrorKind::WrongContext { .. }),
        "{e}"
    );
    // A flipped byte in the values, a truncated file.
    let mut bad = good.clone();
    let at = bad.len() - 3000;
    bad[at] ^= 0x40;
    std::fs::write(&ckpt, &bad).unwrap();
    let e = build_quiet(&g, &resume).unwrap_err();
    assert!(matches!(store_kind(&e), ErrorKind::Corrupt { .. }), "{e}");
    std::fs::write(&ckpt, &good[..good.len() - 1]).unwrap();
    let e = build_quiet(&g, &resume).unwrap_err();
    assert!(matches!(store_kind(&e), ErrorKind::Truncated { .. }), "{e}");
    // A table file is not a checkpoint.
    std::fs::remove_file(&ckpt).unwrap();
    let table = dir.join("other-table");
    build_quiet(&g, &options(&table)).unwrap();
    std::fs::copy(&table, &ckpt).unwrap();
    let e = build_quiet(&g, &resume).unwrap_err();
    assert!(matches!(store_kind(&e), ErrorKind::WrongKind { .. }), "{e}");
    // The intact checkpoint still resumes to the right table.
    std::fs::write(&ckpt, &good).unwrap();
    build_quiet(&g, &resume).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&table).unwrap()
    );
}

#[test]
fn an_existing_table_is_replaced_only_when_asked() {
    let dir = scratch("existing");
    let g = random_graph(61, 500, false);
    let path = dir.join("table");
    std::fs::write(&path, b"a user's file").unwrap();
    let mut o = options(&path);
    let e = build_quiet(&g, &o).unwrap_err();
    assert!(matches!(store_kind(&e), ErrorKind::Exists), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), b"a user's file");
    o.existing = Existing::Replace;
    build_quiet(&g, &o).unwrap();
    Table::open(&path, &g).unwrap().verify().unwrap();
}

// ---------------------------------------------------------------------------------------------
// Damaged and foreign tables
// ---------------------------------------------------------------------------------------------

#[test]
fn damaged_or_foreign_tables_are_errors() {
    let dir = scratch("damaged");
    // Large enough for several 64 KiB blocks, so that damage is found lazily, block by block.
    let g = random_graph(71, 300_000, false);
    let path = dir.join("table");
    let mut o = options(&path);
    o.batch = 1 << 16;
    build_quiet(&g, &o).unwrap();
    let good = std::fs::read(&path).unwrap();
    let table = Table::open(&path, &g).unwrap();
    table.verify().unwrap();
    let header = good.len() - 300_000 - 72;
    let s = table.summary().clone();
    // A block that holds neither example position (nor the summary, at the end).
    let examples = [s.longest_win.unwrap().index, s.longest_loss.unwrap().index];
    let block = (0..4u64)
        .find(|b| examples.iter().all(|&i| i >> 16 != *b))
        .unwrap();
    let victim = block * 65536 + 100;
    let mut bad = good.clone();
    bad[header + victim as usize] ^= 0x01;
    std::fs::write(&path, &bad).unwrap();
    let table = Table::open(&path, &g).unwrap();
    let e = table.value(victim).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Corrupt { block: b } if *b == block),
        "{e}"
    );
    // Other blocks still answer, the damaged one never does.
    let elsewhere = ((block + 1) % 4) * 65536;
    assert_eq!(
        table.value(elsewhere).unwrap(),
        Value::from_byte(good[header + elsewhere as usize])
    );
    assert!(table.value(victim + 1).is_err());
    assert!(table.verify().is_err());
    // Damage in the summary block is found at open.
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 40] ^= 0x01;
    std::fs::write(&path, &bad).unwrap();
    let e = Table::open(&path, &g).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Corrupt { .. }), "{e}");
    // Truncated, or with bytes after the end.
    std::fs::write(&path, &good[..good.len() - 1]).unwrap();
    let e = Table::open(&path, &g).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Truncated { .. }), "{e}");
    let mut longer = good.clone();
    longer.push(0);
    std::fs::write(&path, &longer).unwrap();
    let e = Table::open(&path, &g).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::TrailingBytes { .. }), "{e}");
    // Another game's table.
    std::fs::write(&path, &good).unwrap();
    let other = random_graph(72, 300_000, false);
    let e = Table::open(&path, &other).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::WrongContext { .. }), "{e}");
    // Out of range.
    let table = Table::open(&path, &g).unwrap();
    let e = table.value(300_000).unwrap_err();
    assert_eq!(
        payload_detail(&e),
        &RetroPayloadError::IndexOutOfRange {
            index: 300_000,
            size: 300_000
        }
    );
}

#[test]
fn forged_tables_with_intact_checksums_are_refused() {
    let dir = scratch("forged");
    let g = random_graph(81, 1000, false);
    let path = dir.join("table");
    build_quiet(&g, &options(&path)).unwrap();
    let good = tabula_store::read(&path, Kind::RetroTable, &table_context(&g)).unwrap();
    let ctx = table_context(&g);
    let rewrite = |payload: &[u8], kind: Kind| {
        tabula_store::write(&path, kind, &ctx, payload, Existing::Replace).unwrap();
        Table::open(&path, &g).unwrap_err()
    };
    // Another kind with the same context.
    let e = rewrite(&good, Kind::SolverTable);
    assert!(matches!(e.kind(), ErrorKind::WrongKind { .. }), "{e}");
    // A payload of another length.
    let e = rewrite(&good[1..], Kind::RetroTable);
    assert!(matches!(
        payload_detail(&e),
        RetroPayloadError::WrongLength { .. }
    ));
    // Counts that do not add up to the size.
    let mut bad = good.clone();
    let won = bad.len() - 72 + 8;
    bad[won] ^= 1;
    let e = rewrite(&bad, Kind::RetroTable);
    assert_eq!(
        payload_detail(&e),
        &RetroPayloadError::BadRecord { field: "counts" }
    );
    // A longest win whose example position is not that win.
    let mut bad = good.clone();
    let plies = bad.len() - 72 + 40;
    bad[plies] = bad[plies].wrapping_sub(1);
    let e = rewrite(&bad, Kind::RetroTable);
    assert_eq!(
        payload_detail(&e),
        &RetroPayloadError::BadRecord {
            field: "longest win"
        }
    );
    // Values changed consistently with nothing: `verify` finds that they no longer add up.
    let mut bad = good.clone();
    let i = (0..1000).find(|&i| bad[i] == 0).unwrap();
    bad[i] = 2; // a draw made a loss in 0
    tabula_store::write(&path, Kind::RetroTable, &ctx, &bad, Existing::Replace).unwrap();
    let e = Table::open(&path, &g).unwrap().verify().unwrap_err();
    assert_eq!(payload_detail(&e), &RetroPayloadError::SummaryMismatch);
}

// ---------------------------------------------------------------------------------------------
// Limits and game bugs
// ---------------------------------------------------------------------------------------------

/// A line: node 0 has no moves, node i's only move is to i − 1. Node i is decided in i plies.
fn line(n: usize) -> Graph {
    let kids = (0..n)
        .map(|i| if i == 0 { vec![] } else { vec![i as u64 - 1] })
        .collect();
    let mut prim = vec![None; n];
    prim[0] = Some(Outcome::Loss);
    Graph::new(kids, prim, vec![false; n], false, &format!("line-{n}"))
}

#[test]
fn distances_beyond_the_encoding_are_an_error() {
    let dir = scratch("overflow");
    let longest = MAX_PLIES as usize + 1;
    for game in [line(longest), line(longest).without_parents()] {
        let path = dir.join(format!("{}-{}", game.name, game.parents));
        let s = build_quiet(&game, &options(&path)).unwrap();
        assert_eq!(
            s.longest_loss,
            Some(Longest {
                plies: MAX_PLIES,
                index: MAX_PLIES as u64
            })
        );
    }
    for game in [line(longest + 1), line(longest + 1).without_parents()] {
        let path = dir.join(format!("{}-{}", game.name, game.parents));
        match build_quiet(&game, &options(&path)) {
            Err(BuildError::DistanceOverflow { index, plies }) => {
                assert_eq!((index, plies), (MAX_PLIES as u64 + 1, MAX_PLIES + 1))
            }
            other => panic!("{other:?}"),
        }
        assert!(!path.exists());
    }
}

#[test]
fn more_children_than_a_counter_holds_is_an_error() {
    let n = MAX_CHILDREN + 2;
    let mut kids = vec![Vec::new(); n];
    kids[0] = (1..n as u64).collect();
    let mut prim = vec![Some(Outcome::Loss); n];
    prim[0] = None;
    let g = Graph::new(kids, prim, vec![false; n], false, "wide");
    let dir = scratch("wide");
    match build_quiet(&g, &options(&dir.join("t"))) {
        Err(BuildError::TooManyChildren { index, children }) => {
            assert_eq!((index, children), (0, MAX_CHILDREN + 1))
        }
        other => panic!("{other:?}"),
    }
    // Without un-moves there are no counters: it builds.
    build_quiet(&g.without_parents(), &options(&dir.join("s"))).unwrap();
}

#[test]
fn game_bugs_are_errors_naming_the_index() {
    let dir = scratch("bugs");
    let base = random_graph(91, 1000, false);
    let n = base.size();
    let victim = (0..n)
        .find(|&i| base.canonical_node(i) && base.prim[i as usize].is_none())
        .unwrap();
    let hole = (0..n).find(|&i| base.hole[i as usize]).unwrap();
    // A lost primitive position with parents: level 0 visits them.
    let lost = (0..n)
        .find(|&i| {
            base.canonical_node(i)
                && base.prim[i as usize] == Some(Outcome::Loss)
                && !base.qparents[i as usize].is_empty()
        })
        .unwrap();
    let check = |g: &Graph, what: &str, ok: &dyn Fn(&BuildError) -> bool| {
        for game in [g.clone(), g.clone().without_parents()] {
            let path = dir.join("t");
            let e = build_quiet(&game, &options(&path)).unwrap_err();
            assert!(ok(&e), "{what} ({}): {e}", game.parents);
            assert!(e.is_game_bug(), "{e}");
            assert!(!path.exists());
        }
    };
    let mut g = base.clone();
    g.qkids[victim as usize].push(n + 5);
    check(&g, "child out of range", &|e| {
        matches!(e, BuildError::BadNeighbour { index, neighbour, relation: Relation::Child, .. }
            if *index == victim && *neighbour == n + 5)
    });
    let mut g = base.clone();
    g.qkids[victim as usize].push(hole);
    check(&g, "child at a hole", &|e| {
        matches!(e, BuildError::BadNeighbour { index, neighbour, relation: Relation::Child, why }
            if *index == victim && *neighbour == hole && *why == "a hole")
    });
    let mut g = base.clone();
    g.qkids[victim as usize].clear();
    check(
        &g,
        "no children",
        &|e| matches!(e, BuildError::NoChildren { index } if *index == victim),
    );
    let mut g = base.clone();
    g.bad_rank = Some(victim);
    check(
        &g,
        "rank",
        &|e| matches!(e, BuildError::RankMismatch { index, rank } if *index == victim && *rank == victim + 1),
    );
    // Bugs only un-moves can show.
    let run = |g: &Graph| build_quiet(g, &options(&dir.join("t"))).unwrap_err();
    let mut g = base.clone();
    g.qparents[lost as usize].push(n);
    assert!(
        matches!(run(&g), BuildError::BadNeighbour { index, neighbour, relation: Relation::Parent, .. }
        if index == lost && neighbour == n)
    );
    let mut g = base.clone();
    g.qparents[lost as usize].push(hole);
    assert!(
        matches!(run(&g), BuildError::BadNeighbour { index, neighbour, .. }
        if index == lost && neighbour == hole)
    );
    // A primitive parent.
    let other = (0..n)
        .find(|&i| i != lost && base.canonical_node(i) && base.prim[i as usize].is_some())
        .unwrap();
    let mut g = base.clone();
    g.qparents[lost as usize].push(other);
    assert!(matches!(
        run(&g),
        BuildError::BadNeighbour {
            why: "a hole or a primitive position",
            ..
        }
    ));
    // The same parent listed twice.
    let mut g = base.clone();
    let p = g.qparents[lost as usize][0];
    g.qparents[lost as usize].push(p);
    assert!(matches!(
        run(&g),
        BuildError::BadNeighbour {
            why: "listed twice",
            ..
        }
    ));
}
