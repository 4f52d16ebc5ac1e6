//! How far the net's 0-ply probabilities are from Tabula's own rollouts of the same positions:
//! the bias of each output, by class. Tabula's own measure of its net (no outside judge).
//!
//! ```sh
//! cargo run --release -p tabula-gammon --example gammon_bias -- TRIALS < ids.txt > bias.jsonl
//! ```
//!
//! Reads one gnubg Position ID per line (the first field; `#` lines skipped: a `label` file
//! serves) and prints one JSON object a position: its class, the net's probabilities and a
//! cubeless rollout's (0-ply players to the end, first rolls stratified, luck-corrected unless
//! `PLAIN=1`), with their standard errors. `WEIGHTS=FILE` replaces the shipped weights; exact
//! bear-offs from the one-sided database in both. Positions run in parallel (rayon); each
//! rollout's seed is the line number, so the output does not depend on the threads.
use std::io::BufRead;
use std::sync::Arc;

use rayon::prelude::*;
use tabula_engine::backgammon::Position;
use tabula_gammon::net::NetClass;
use tabula_gammon::rollout::{Rollout, RolloutOptions};
use tabula_gammon::weights;
use tabula_tablebase::bearoff::OneSided;

fn list(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:.5}")).collect();
    format!("[{}]", items.join(","))
}

/// The one-line error of bad input, exit code 2.
fn fail(message: String) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2)
}

fn main() {
    let trials: u64 = match std::env::args().nth(1) {
        None => 144,
        Some(a) => match a.parse() {
            Ok(t) if t > 0 => t,
            _ => fail(format!("TRIALS {a:?}: expected a positive whole number")),
        },
    };
    let plain = std::env::var("PLAIN").is_ok();
    let eval = match std::env::var("WEIGHTS") {
        Ok(path) => {
            weights::NetFile::load(path.as_ref())
                .unwrap_or_else(|e| fail(format!("WEIGHTS {path}: {e}")))
                .evaluator
        }
        Err(_) => weights::builtin().expect("shipped weights").clone(),
    }
    .with_bearoff(Arc::new(OneSided::build()));
    let ids: Vec<Position> = std::io::stdin()
        .lock()
        .lines()
        .map_while(Result::ok)
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| Position::from_position_id(l.split_whitespace().next()?).ok())
        .filter(|p| !p.is_game_over())
        .collect();
    let lines: Vec<String> = ids
        .par_iter()
        .enumerate()
        .map(|(i, pos)| {
            let net = eval.evaluate(pos);
            let rollout = Rollout::new(
                &eval,
                RolloutOptions {
                    trials,
                    seed: i as u64 + 1,
                    luck_correction: !plain,
                    ..RolloutOptions::default()
                },
            );
            let r = rollout.position(pos, None, &mut |_| {}).result;
            let e = r.estimate();
            let net: Vec<f64> = net.iter().map(|&p| f64::from(p)).collect();
            format!(
                "{{\"id\":\"{}\",\"class\":\"{}\",\"net\":{},\"rollout\":{},\"se\":{}}}",
                pos.position_id(),
                NetClass::of(pos).name(),
                list(&net),
                list(&e.probabilities),
                list(&e.probabilities_se)
            )
        })
        .collect();
    for line in lines {
        println!("{line}");
    }
}
