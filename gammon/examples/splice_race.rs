//! Puts one weights file's race net into another: the contact net, the games counter and the
//! training state of `CONTACT`, the race net of `RACE`, written to `OUT` (refused if it
//! exists). How the shipped weights got back their fitted race net after a training stage
//! that trained both nets (docs/results.md, "gnubg's kind of inputs"). The race net is then
//! recorded as frozen, so that `train --resume` leaves it alone.
//!
//! ```sh
//! cargo run --release -p tabula-gammon --example splice_race -- CONTACT.tnet RACE.tnet OUT.tnet
//! ```
use std::path::Path;
use std::process::ExitCode;

use tabula_gammon::NetFile;
use tabula_store::Existing;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [contact, race, out] = args.as_slice() else {
        eprintln!("usage: splice_race CONTACT.tnet RACE.tnet OUT.tnet");
        return ExitCode::from(2);
    };
    // The weights errors name the file already.
    let load = |p: &str| NetFile::load(Path::new(p)).map_err(|e| e.to_string());
    let result = load(contact).and_then(|mut file| {
        file.evaluator.race = load(race)?.evaluator.race;
        if let Some(t) = file.training.as_mut() {
            t.freeze_race = true;
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
