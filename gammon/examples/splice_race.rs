//! Puts one weights file's race net into another: the contact net, the games counter and the
//! training state of `CONTACT`, the race net of `RACE`, written to `OUT` (refused if it
//! exists). How the shipped weights got back their fitted race net after a training stage
//! that trained both nets (docs/results.md, "gnubg's kind of inputs"). The race net is then
//! recorded as frozen, so that `train --resume` leaves it alone.
//!
//! With `--net contact` or `--net crashed` the same for that net instead: the first file keeps
//! everything else (the race net and training state included) and the second gives the named
//! net (a crashed net must exist there). How a contact net fitted
//! from the play weights was put into the cube weights beside their own crashed net, to be
//! judged (docs/results.md, "The cube's contact net on fresh rollouts").
//!
//! ```sh
//! cargo run --release -p tabula-gammon --example splice_race -- CONTACT.tnet RACE.tnet OUT.tnet
//! cargo run --release -p tabula-gammon --example splice_race -- --net contact BASE.tnet FROM.tnet OUT.tnet
//! ```
use std::path::Path;
use std::process::ExitCode;

use tabula_gammon::net::NetClass;
use tabula_gammon::NetFile;
use tabula_store::Existing;

const USAGE: &str = "usage: splice_race [--net race|contact|crashed] BASE.tnet FROM.tnet OUT.tnet";

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let net = match args.first().map(String::as_str) {
        Some("--net") if args.len() > 1 => {
            let net = args[1].clone();
            args.drain(..2);
            net
        }
        _ => "race".to_string(),
    };
    let class = NetClass::from_name(&net);
    let ([base, from, out], Some(class)) = (args.as_slice(), class) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    // The weights errors name the file already.
    let load = |p: &str| NetFile::load(Path::new(p)).map_err(|e| e.to_string());
    let result = load(base).and_then(|mut file| {
        let donor = load(from)?.evaluator;
        // Not `Evaluator::net_mut`: without a crashed net it names the contact net.
        match class {
            NetClass::Race => {
                file.evaluator.race = donor.race;
                if let Some(t) = file.training.as_mut() {
                    t.freeze_race = true;
                }
            }
            NetClass::Contact => file.evaluator.contact = donor.contact,
            NetClass::Crashed => {
                file.evaluator.crashed = Some(
                    donor
                        .crashed
                        .ok_or(format!("{from}: no crashed net to take"))?,
                )
            }
        }
        file.save(Path::new(out), Existing::Refuse)
            .map_err(|e| e.to_string())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("splice_race: {e}");
            ExitCode::from(2)
        }
    }
}
