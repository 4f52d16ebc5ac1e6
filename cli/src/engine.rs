//! `tabula engine`: the engine protocol (UGI for Bi-litaire and Pylos, UBGI for backgammon; see
//! `tabula_protocol`) on stdin/stdout, or with `--listen ADDR` over TCP.

use crate::backgammon::args::EvaluatorArgs;
use crate::error::{CliError, CliResult};
use clap::Args as ClapArgs;
use std::time::Duration;
use tabula_protocol::net::{listen, ServerConfig};
use tabula_protocol::SessionConfig;

#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Serve TCP clients at ADDR (e.g. 127.0.0.1:7777; port 0 picks a free port, printed on
    /// stderr) instead of stdin/stdout: one session per connection.
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// With --listen: connections served at once; more are told `error busy …` and closed.
    #[arg(long, requires = "listen", default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=1024))]
    max_connections: u64,
    /// With --listen: seconds a connection may stay silent before it is closed.
    #[arg(long, requires = "listen", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86400))]
    timeout: u64,
    /// With --listen: the largest Hash (MiB) one connection may set.
    #[arg(long, requires = "listen", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=65536))]
    max_hash: u64,
    #[command(flatten, next_help_heading = "Backgammon evaluator (UBGI sessions)")]
    evaluator: EvaluatorArgs,
}

pub fn run(args: Args) -> CliResult {
    // Read (or built into the cache) before the first line, so that a bad `--bearoff` or
    // `--race-db` is an error at start rather than a session's.
    let evaluator = Some(args.evaluator.load_for_process()?);
    let Some(addr) = args.listen else {
        let stdin = std::io::stdin();
        let config = SessionConfig {
            evaluator,
            ..SessionConfig::default()
        };
        return tabula_protocol::serve(stdin.lock(), std::io::stdout(), config)
            .map_err(|e| CliError::io(format!("engine: {e}")));
    };
    let listener = std::net::TcpListener::bind(&addr)
        .map_err(|e| CliError::bad_input(format!("--listen {addr}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| CliError::io(format!("--listen {addr}: {e}")))?;
    eprintln!("engine: listening on {local}");
    let config = ServerConfig {
        max_connections: usize::try_from(args.max_connections).unwrap_or(usize::MAX),
        read_timeout: Duration::from_secs(args.timeout),
        session: SessionConfig {
            max_hash_mib: args.max_hash,
            evaluator,
            ..ServerConfig::default().session
        },
    };
    listen(listener, config).map_err(|e| CliError::io(format!("engine: {e}")))
}
