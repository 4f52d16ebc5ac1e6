//! A diagnostic of the cube model: Tabula's cube decisions on given positions, side by side at
//! several depths, with the cubeless probabilities converted at the root and with the cubeful
//! n-ply search.
//!
//! ```sh
//! cargo run --release -p tabula-gammon --example cube_probe -- [PLIES...] < positions.txt
//! ```
//!
//! Reads lines `POSITION_ID MATCH_ID` (`-` for a centred money cube without the Jacoby rule)
//! and prints one JSON object per line: the cubeless probabilities at each depth and, per
//! depth, `ND DT DP take` of both methods. `X` in the environment sets the cube efficiency
//! (default [`DEFAULT_CUBE_EFFICIENCY`]); `INNER` the plays searched deeper at each inner roll
//! ([`SearchOptions::inner_candidates`]).
use std::io::BufRead;
use std::sync::Arc;

use tabula_engine::backgammon::{MatchId, Position};
use tabula_gammon::advisor::{cube_state, Advisor};
use tabula_gammon::cube::{CubeDecision, DEFAULT_CUBE_EFFICIENCY};
use tabula_gammon::{weights, SearchOptions};
use tabula_tablebase::bearoff::OneSided;

fn json(d: &CubeDecision) -> String {
    format!(
        "[{:.6},{:.6},{:.6},{}]",
        d.no_double, d.double_take, d.double_pass, d.take
    )
}

fn main() {
    let x: f64 = std::env::var("X")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_CUBE_EFFICIENCY);
    let mut plies: Vec<u8> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("plies"))
        .collect();
    if plies.is_empty() {
        plies = vec![0, 1, 2];
    }
    let eval = weights::shipped()
        .expect("shipped weights")
        .clone()
        .with_bearoff(Arc::new(OneSided::build()));
    let advisors: Vec<Advisor> = plies
        .iter()
        .map(|&k| {
            let mut options = SearchOptions {
                plies: k,
                ..SearchOptions::default()
            };
            if let Some(n) = std::env::var("INNER").ok().and_then(|s| s.parse().ok()) {
                options.inner_candidates = n;
            }
            // The search's cube, also in back games (no cube rollouts): the model is probed.
            Advisor::new(&eval, options, x).with_cube_rollouts(None)
        })
        .collect();
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            continue;
        }
        let pos = Position::from_position_id(f[0]).expect("position id");
        let m: Option<MatchId> = f
            .get(1)
            .filter(|s| **s != "-")
            .map(|s| s.parse().expect("match id"));
        let state = cube_state(m.as_ref());
        let mut parts = Vec::new();
        for (k, a) in plies.iter().zip(&advisors) {
            let search = a.cube(&pos, &state);
            let root = a.cube_cubeless_root(&pos, &state);
            let p = search.probabilities;
            parts.push(format!(
                "\"{k}\":{{\"p\":[{:.6},{:.6},{:.6},{:.6},{:.6}],\"search\":{},\"root\":{}}}",
                p[0],
                p[1],
                p[2],
                p[3],
                p[4],
                json(&search.decision),
                json(&root.decision)
            ));
        }
        println!("{{\"position\":\"{}\",{}}}", f[0], parts.join(","));
    }
}
