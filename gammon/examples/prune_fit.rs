//! Fits the pruning net ([`tabula_gammon::prune`]) to the shipped nets and measures how well it
//! picks each roll's best play.
//!
//! ```sh
//! cargo run --release -p tabula-gammon --example prune_fit -- OUT.tnet [GAMES] [EPOCHS] [SEED] [WEIGHTS]
//! ```
//!
//! WEIGHTS is a weights file whose play nets the pruning net is fitted to (default: the
//! shipped ones). The shipped `prune.tnet` was fitted to the nets of commit 2025244; those
//! differ from today's in the race net alone, which decides how self-play goes on once contact
//! is broken and so the dice of every later game: `git show
//! 2025244:gammon/data/backgammon.tnet > before.tnet` and `prune_fit prune.tnet 3000 40 1
//! before.tnet` write its bytes again.
//!
//! Self-play at 0 plies by those nets (the best play, or one of the four best in one
//! turn of seven), from the start; every result of every turn of a contact position that is
//! itself in contact is a sample, its target those nets' cubeless equity for the player
//! on roll. Every tenth game is held out: for each of its turns with more plays than K, how
//! often the pruning net's best K hold the full nets' best, and what taking the best of those K
//! instead costs (equity, the full nets' own). Writes OUT (refused if it exists).

use std::time::Instant;

use tabula_engine::backgammon::{Dice, Position};
use tabula_gammon::inputs::is_contact;
use tabula_gammon::net::{equity, game_over};
use tabula_gammon::prune::Pruner;
use tabula_gammon::{weights, Evaluator, Rng};

/// The results of one turn, with the full nets' equity of each for the player on roll there.
struct Turn {
    results: Vec<Position>,
    equities: Vec<f32>,
}

fn play_games(nets: &Evaluator, games: usize, rng: &mut Rng) -> (Vec<Turn>, Vec<Turn>) {
    let (mut train, mut held) = (Vec::new(), Vec::new());
    for game in 0..games {
        let mut pos = Position::START;
        for _ in 0..400 {
            if game_over(&pos).is_some() {
                break;
            }
            let dice = Dice::new(rng.die(), rng.die()).expect("dice");
            let plays = pos.plays(dice);
            if plays.is_empty() {
                pos = pos.swapped();
                continue;
            }
            let results: Vec<Position> = plays.iter().map(|p| p.result()).collect();
            let equities: Vec<f32> = results.iter().map(|r| equity(&nets.evaluate(r))).collect();
            let mut order: Vec<usize> = (0..results.len()).collect();
            order.sort_by(|&a, &b| equities[a].total_cmp(&equities[b]).then(a.cmp(&b)));
            let pick = if rng.below(7) == 0 {
                order[rng.below(order.len().min(4) as u64) as usize]
            } else {
                order[0]
            };
            let next = results[pick];
            if is_contact(&pos) {
                let keep: Vec<usize> = (0..results.len())
                    .filter(|&i| is_contact(&results[i]) && game_over(&results[i]).is_none())
                    .collect();
                let turn = Turn {
                    results: keep.iter().map(|&i| results[i]).collect(),
                    equities: keep.iter().map(|&i| equities[i]).collect(),
                };
                if game % 10 == 9 {
                    held.push(turn);
                } else {
                    train.push(turn);
                }
            }
            pos = next;
        }
    }
    (train, held)
}

fn report(pruner: &Pruner, held: &[Turn]) {
    println!(
        "K  turns  best kept  mean loss  loss > 0.01  (held-out turns with more than K plays)"
    );
    for k in [2usize, 3, 4, 5, 6, 8, 10] {
        let (mut turns, mut kept, mut loss, mut big) = (0u64, 0u64, 0.0f64, 0u64);
        for t in held.iter().filter(|t| t.results.len() > k) {
            // Lower equity for the player on roll after the play is better for the mover.
            let quick: Vec<f32> = t.results.iter().map(|r| pruner.equity(r)).collect();
            let mut order: Vec<usize> = (0..t.results.len()).collect();
            order.sort_by(|&a, &b| quick[a].total_cmp(&quick[b]).then(a.cmp(&b)));
            let best = t.equities.iter().copied().fold(f32::INFINITY, f32::min);
            let best_kept = order[..k]
                .iter()
                .map(|&i| t.equities[i])
                .fold(f32::INFINITY, f32::min);
            turns += 1;
            kept += u64::from(best_kept == best);
            let l = f64::from(best_kept - best);
            loss += l;
            big += u64::from(l > 0.01);
        }
        println!(
            "{k:<2} {turns:>6}  {:>8.4}  {:>9.5}  {:>10.4}",
            kept as f64 / turns.max(1) as f64,
            loss / turns.max(1) as f64,
            big as f64 / turns.max(1) as f64
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first() else {
        eprintln!("usage: prune_fit OUT.tnet [GAMES] [EPOCHS] [SEED] [WEIGHTS]");
        std::process::exit(2);
    };
    let num = |i: usize, default: u64| -> u64 {
        args.get(i).map_or(default, |s| {
            s.parse().unwrap_or_else(|_| {
                eprintln!("argument {i}: expected a whole number, got {s:?}");
                std::process::exit(2)
            })
        })
    };
    let (games, epochs, seed) = (num(1, 3000) as usize, num(2, 40) as usize, num(3, 1));
    // The first step; it falls linearly to a tenth over the epochs.
    let alpha = 0.05;
    if std::path::Path::new(out).exists() {
        eprintln!("{out}: exists; not overwritten");
        std::process::exit(2);
    }
    // The play nets alone (not `builtin`, which needs the pruning net this makes).
    let nets = match args.get(4) {
        None => {
            weights::NetFile::decode(weights::BUILTIN)
                .expect("the shipped weights")
                .evaluator
        }
        // The weights errors name the file already.
        Some(path) => match weights::NetFile::load(std::path::Path::new(path)) {
            Ok(file) => file.evaluator,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        },
    };
    let mut rng = Rng::new(seed);
    let start = Instant::now();
    let (train, held) = play_games(&nets, games, &mut rng);
    let positions: Vec<Position> = train.iter().flat_map(|t| t.results.clone()).collect();
    let targets: Vec<f32> = train.iter().flat_map(|t| t.equities.clone()).collect();

    eprintln!(
        "{} training samples ({} turns), {} held-out turns, {:.1} s",
        positions.len(),
        train.len(),
        held.len(),
        start.elapsed().as_secs_f64()
    );
    let mut pruner = Pruner::random(&mut rng);
    for round in 0..epochs {
        let mse = pruner.fit(
            &positions,
            &targets,
            1,
            alpha * (1.0 - 0.9 * round as f32 / epochs as f32),
            &mut rng,
        );
        eprintln!(
            "epoch {}: mean squared error {mse:.5}, {:.1} s",
            round + 1,
            start.elapsed().as_secs_f64()
        );
    }
    report(&pruner, &held);
    if let Err(e) = std::fs::write(out, pruner.encode()) {
        eprintln!("{out}: cannot write: {e}");
        std::process::exit(2);
    }
    let back = Pruner::decode(&std::fs::read(out).expect("read back")).expect("decode");
    assert_eq!(back, pruner);
    eprintln!("wrote {out}");
}
