//! The retrograde builder (`tabula_tablebase::retro`) on a seeded random loopy graph of 2^18
//! nodes: the whole build (holes, children, levels, table write) with un-moves and without
//! (sweeps). The summary is asserted before it is timed: the two modes agree, and the graph
//! has wins, losses and draws.

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tabula_engine::retro::{Outcome, Retrograde};
use tabula_tablebase::retro::{build, BuildOptions, Summary};
use tabula_tablebase::Existing;

/// A random directed graph: a quarter of the nodes have no moves (lost), the others 4 to 10,
/// mostly anywhere, some a few nodes ahead. Sparser graphs have forced lines longer than the
/// encoding's 126 plies (136 at 2^16 nodes with 8% dead ends and 1 to 4 moves, by plain value
/// iteration); these stay near 22 even at 2^22 nodes. Parents are the reversed edges.
struct Graph {
    kids: Vec<Vec<u64>>,
    parents: Vec<Vec<u64>>,
    un_moves: bool,
}

impl Graph {
    fn new(n: usize, seed: u64) -> Graph {
        let mut s = seed;
        let mut next = move || {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut kids = vec![Vec::new(); n];
        for (i, k) in kids.iter_mut().enumerate() {
            if next() % 100 < 25 {
                continue;
            }
            let degree = 4 + next() % 7;
            while (k.len() as u64) < degree {
                let t = if next() % 4 != 0 {
                    next() % n as u64
                } else {
                    (i as u64 + 1 + next() % 8) % n as u64
                };
                if !k.contains(&t) {
                    k.push(t);
                }
            }
        }
        let mut parents = vec![Vec::new(); n];
        for (i, k) in kids.iter().enumerate() {
            for &t in k {
                parents[t as usize].push(i as u64);
            }
        }
        Graph {
            kids,
            parents,
            un_moves: true,
        }
    }
}

impl Retrograde for Graph {
    type Position = u64;

    fn size(&self) -> u64 {
        self.kids.len() as u64
    }

    fn unrank(&self, index: u64) -> Option<u64> {
        Some(index)
    }

    fn rank(&self, pos: &u64) -> u64 {
        *pos
    }

    fn primitive(&self, pos: &u64) -> Option<Outcome> {
        self.kids[*pos as usize].is_empty().then_some(Outcome::Loss)
    }

    fn children(&self, pos: &u64, out: &mut Vec<u64>) {
        out.extend(&self.kids[*pos as usize]);
    }

    fn has_parents(&self) -> bool {
        self.un_moves
    }

    fn parents(&self, pos: &u64, out: &mut Vec<u64>) {
        out.extend(&self.parents[*pos as usize]);
    }

    fn context(&self) -> String {
        "game=bench-graph".to_string()
    }
}

fn run(g: &Graph, path: &PathBuf) -> Summary {
    let mut o = BuildOptions::new(path);
    o.existing = Existing::Replace;
    build(g, &o, |_| {}).expect("the build")
}

fn bench_retro(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("tabula-bench-retro-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let path = dir.join("table");
    let mut g = Graph::new(1 << 18, 7);
    let with = run(&g, &path);
    g.un_moves = false;
    let without = run(&g, &path);
    assert_eq!(
        (with.won, with.lost, with.drawn),
        (without.won, without.lost, without.drawn)
    );
    assert!(with.won > 0 && with.lost > 0 && with.drawn > 0);

    let mut group = c.benchmark_group("retro");
    group.sample_size(10);
    group.throughput(Throughput::Elements(g.size()));
    for un_moves in [true, false] {
        g.un_moves = un_moves;
        let name = if un_moves {
            "graph-2^18-parents"
        } else {
            "graph-2^18-sweep"
        };
        group.bench_function(name, |b| b.iter(|| run(&g, &path)));
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench_retro);
criterion_main!(benches);
