//! Exact solves of the fixed Bi-litaire suite, one line per position:
//! `solve_suite BALLS COUNT [THREADS]`; environment: `HASH` (MiB, default 64), `NOSYM` (no
//! symmetry reduction), `TABLE=dash` (the dashmap table instead of the fixed lock-free one),
//! `LIMIT` (seconds per position; an unsolved one counts as slowest in the median), `SPLIT`
//! (plies from the root where threads split the work).
use tabula_solver::driver::{Config, Driver, Limits, Solve};
use tabula_solver::{AtomicTable, DashTable, Table};

fn solve_all<T: Table>(balls: u32, count: usize, threads: usize, make: impl Fn() -> T) {
    let mut times = Vec::new();
    for pos in tabula_benches::bilitaire_suite(balls, count) {
        let table = make();
        let config = Config {
            threads,
            symmetry: std::env::var("NOSYM").is_err(),
            split_plies: std::env::var("SPLIT")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(Config::default().split_plies),
            ..Config::default()
        };
        let limits = Limits {
            time: limit_s()
                .is_finite()
                .then(|| std::time::Duration::from_secs_f64(limit_s())),
            ..Limits::none()
        };
        match Driver::new(&table, config, limits).solve(&pos) {
            Solve::Solved { line, stats } => {
                println!(
                    "{pos} value {} nodes {} time {:.3}s",
                    line.value,
                    stats.nodes,
                    stats.time.as_secs_f64()
                );
                times.push(stats.time.as_secs_f64());
            }
            Solve::Stopped {
                lower,
                upper,
                stats,
                ..
            } => {
                println!(
                    "{pos} unsolved after {:.0}s, nodes {}, value {lower}..={upper}",
                    limit_s(),
                    stats.nodes
                );
                times.push(f64::INFINITY);
            }
        }
    }
    times.sort_by(f64::total_cmp);
    if let Some(&median) = times.get(times.len() / 2) {
        println!(
            "{balls} balls: median {median:.3}s over {} positions ({threads} threads)",
            times.len()
        );
    }
}

fn limit_s() -> f64 {
    std::env::var("LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::INFINITY)
}

fn main() {
    let arg = |i: usize| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse::<usize>().ok())
    };
    let (Some(balls), Some(count)) = (arg(1), arg(2)) else {
        eprintln!("usage: solve_suite BALLS COUNT [THREADS]");
        std::process::exit(2);
    };
    let threads = arg(3).unwrap_or(1);
    let mb = std::env::var("HASH")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    if std::env::var("TABLE").is_ok_and(|t| t == "dash") {
        solve_all(balls as u32, count, threads, DashTable::new);
    } else {
        solve_all(balls as u32, count, threads, || {
            AtomicTable::with_megabytes(mb)
        });
    }
}
