//! The weight-by-weight mean of one net class over several weights files ([`Net::mean`]): the
//! first file keeps everything else. A lab tool for measuring "model soups" of nets fitted
//! from one another (docs/results.md).
//!
//! ```sh
//! cargo run --release -p tabula-gammon --example soup -- race OUT.tnet A.tnet B.tnet [C.tnet …]
//! ```
use std::path::Path;
use std::process::ExitCode;

use tabula_gammon::net::NetClass;
use tabula_gammon::{Net, NetFile};
use tabula_store::Existing;

const USAGE: &str = "usage: soup race|contact|crashed OUT.tnet A.tnet B.tnet [C.tnet ...]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parsed = match args.as_slice() {
        [name, out, inputs @ ..] if inputs.len() >= 2 => {
            NetClass::from_name(name).map(|class| (class, out, inputs))
        }
        _ => None,
    };
    let Some((class, out, inputs)) = parsed else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = (|| -> Result<(), String> {
        let files = inputs
            .iter()
            .map(|p| NetFile::load(Path::new(p)).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        let nets: Vec<&Net> = files
            .iter()
            .map(|f| match class {
                NetClass::Crashed => f
                    .evaluator
                    .crashed
                    .as_ref()
                    .ok_or("a file without a crashed net"),
                _ => Ok(f.evaluator.net(class)),
            })
            .collect::<Result<_, _>>()?;
        let mean = Net::mean(&nets).ok_or("the nets' hidden layers differ")?;
        let mut base = files.into_iter().next().expect("two files or more");
        match class {
            NetClass::Race => base.evaluator.race = mean,
            NetClass::Contact => base.evaluator.contact = mean,
            NetClass::Crashed => base.evaluator.crashed = Some(mean),
        }
        base.save(Path::new(out), Existing::Refuse)
            .map_err(|e| e.to_string())
    })();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("soup: {e}");
            ExitCode::from(2)
        }
    }
}
