//! `tabula`: the command-line front end. Each game has its own directory of subcommands; all
//! share the error convention of [`error`]: one line on stderr (or a JSON error object on stdout
//! under `--json`), exit code 2 for bad input, 1 for I/O or internal failures, 130 when
//! interrupted.

mod backgammon;
mod bench;
mod bilitaire;
mod common;
mod engine;
mod error;
mod interactive;
mod pylos;
mod serve;
mod tablebase;

use clap::{Parser, Subcommand};
use error::{CliError, EXIT_BAD_INPUT};

#[derive(Parser, Debug)]
#[command(
    name = "tabula",
    version,
    about = "Analyse, solve and play Bi-litaire, Pylos and Backgammon"
)]
struct Cli {
    #[command(subcommand)]
    game: GameCommand,
}

#[derive(Subcommand, Debug)]
enum GameCommand {
    /// Backgammon (gnubg-compatible): positions, legal plays, IDs.
    Backgammon(backgammon::Args),
    /// Bi-litaire (Kris Burm): the ball player against the slider.
    Bilitaire(bilitaire::Args),
    /// Pylos (David G. Royffe): stack the pyramid, take back balls on own squares and lines.
    Pylos(pylos::Args),
    /// Endgame databases: build and probe the backgammon bearoff tablebases.
    Tablebase(tablebase::Args),
    /// Benchmark search speed on built-in suites, with a node signature.
    Bench(bench::Args),
    /// Run as an engine: the UGI protocol (first line `ugi`: Bi-litaire, Pylos) or UBGI
    /// (first line `ubgi`: backgammon) on stdin/stdout, or over TCP with --listen.
    Engine(engine::Args),
    /// Serve the HTTP JSON API (legal moves, best moves, analyses, backgammon evaluations;
    /// /openapi.json describes it) at --http ADDR, 127.0.0.1:8080 by default.
    Serve(serve::Args),
}

/// Output piped into a reader that stops early (`tabula … | head`) ends the process quietly, as
/// for other command-line tools, instead of `println!` panicking on the broken pipe. Rust starts
/// programs with SIGPIPE ignored; this puts back the default. Sockets are unaffected: the
/// standard library sends on them with `MSG_NOSIGNAL` and sees the error instead.
#[cfg(unix)]
#[allow(unsafe_code)]
fn die_quietly_on_broken_pipe() {
    // SAFETY: `signal` only changes this process's disposition of SIGPIPE, to the default the
    // kernel applies to every process that has not asked otherwise; it is called once, first
    // thing in `main`, before any other thread or handler exists, and takes no pointers.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() {
    #[cfg(unix)]
    die_quietly_on_broken_pipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            use clap::error::ErrorKind;
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) || matches!(
                err.kind(),
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = err.print();
                std::process::exit(
                    if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                        EXIT_BAD_INPUT
                    } else {
                        0
                    },
                );
            }
            // clap prints the problem, then usage; keep the problem, on one line.
            let text = err.to_string();
            let problem: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|line| !line.starts_with("Usage:") && !line.starts_with("For more"))
                .filter(|line| !line.is_empty() && !line.starts_with("tip:"))
                .collect();
            let problem = problem.join(" ");
            let problem = problem.strip_prefix("error: ").unwrap_or(&problem);
            fail(CliError::bad_input(format!("{problem} (see --help)")));
        }
    };
    let result = match cli.game {
        GameCommand::Backgammon(args) => backgammon::run(args),
        GameCommand::Bilitaire(args) => bilitaire::run(args),
        GameCommand::Pylos(args) => pylos::run(args),
        GameCommand::Tablebase(args) => tablebase::run(args),
        GameCommand::Bench(args) => bench::run(args),
        GameCommand::Engine(args) => engine::run(args),
        GameCommand::Serve(args) => serve::run(args),
    };
    if let Err(err) = result {
        fail(err);
    }
    // A search stopped by Ctrl-C has reported what it had; the exit code says it was cut short.
    if common::was_interrupted() {
        std::process::exit(130);
    }
}

/// Reports `err` and exits with its kind's code: one `error: …` line on stderr, or under
/// `--json` the JSON error object on stdout (so that a program reading the output sees it).
fn fail(err: CliError) -> ! {
    if std::env::args_os().any(|a| a == "--json") {
        println!("{}", err.to_json());
    } else {
        eprintln!("error: {err}");
    }
    std::process::exit(err.exit_code());
}
