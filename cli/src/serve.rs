//! `tabula serve --http ADDR`: the HTTP JSON API of `tabula_server`, on a tokio runtime.

use crate::backgammon::args::EvaluatorArgs;
use crate::error::{CliError, CliResult};
use clap::Args as ClapArgs;
use std::time::Duration;
use tabula_gammon::advisor::MAX_CUBE_ROLLOUT_TRIALS;
use tabula_server::{
    ServerConfig, DEFAULT_MAX_CUBE_ROLLOUTS, MAX_PLIES, MAX_SEARCHES, MAX_TABLE_MIB,
};

#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Serve HTTP at ADDR (port 0 picks a free port, printed on stderr). Keep it on loopback
    /// unless a proxy in front limits who may call it.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    http: String,
    /// Searches at once; more are answered 503 with Retry-After.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=MAX_SEARCHES as u64))]
    max_searches: u64,
    /// The longest search a request may ask, in milliseconds.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    max_time: u64,
    /// The most nodes a request may ask (default: only time bounds a search).
    #[arg(long, value_parser = crate::common::parse_positive::<u64>)]
    max_nodes: Option<u64>,
    /// A search's time when the request gives no budget, in milliseconds.
    #[arg(long, default_value_t = 1_000, value_parser = crate::common::parse_positive::<u64>)]
    default_time: u64,
    /// The transposition table of each search, in MiB.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=MAX_TABLE_MIB))]
    hash: u64,
    /// Threads per search.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=64))]
    threads: u64,
    /// The largest request body, in bytes (larger: 413).
    #[arg(long, default_value_t = 65_536, value_parser = clap::value_parser!(u64).range(64..=16_777_216))]
    max_body: u64,
    /// Backgammon's default search depth (a request may ask up to 2).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=MAX_PLIES as i64))]
    plies: u8,
    /// The most trials of the rollout that decides a back game's cube at 2 plies that a
    /// request may ask (`cube_rollouts`; more is a 400; a request without it gets 324 or
    /// this cap if lower). 0: the search decides every cube. The default, 648, takes about
    /// 20 s a decision on one core.
    #[arg(long, default_value_t = DEFAULT_MAX_CUBE_ROLLOUTS,
        value_parser = clap::value_parser!(u64).range(0..=MAX_CUBE_ROLLOUT_TRIALS))]
    max_cube_rollouts: u64,
    /// Seconds a request may take, searches included (then 503).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout: u64,
    /// Seconds a connection may take to send a request's head (request line and headers),
    /// from its start or its previous answer; then it is closed (slowloris, idle keep-alive).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3_600))]
    header_timeout: u64,
    /// Connections open at once; more wait, unaccepted, in the listener's backlog.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=65_536))]
    max_connections: u64,
    #[command(flatten, next_help_heading = "Backgammon evaluator")]
    evaluator: EvaluatorArgs,
}

pub fn run(args: Args) -> CliResult {
    if args.default_time > args.max_time {
        return Err(CliError::bad_input(format!(
            "--default-time {}: more than --max-time {}",
            args.default_time, args.max_time
        )));
    }
    let config = ServerConfig {
        max_time_ms: args.max_time,
        max_nodes: args.max_nodes,
        default_time_ms: args.default_time,
        max_searches: usize::try_from(args.max_searches).unwrap_or(1),
        table_mib: args.hash,
        threads: usize::try_from(args.threads).unwrap_or(1),
        max_body_bytes: usize::try_from(args.max_body).unwrap_or(65_536),
        default_plies: args.plies,
        max_plies: MAX_PLIES,
        max_cube_rollouts: args.max_cube_rollouts,
        request_timeout: Duration::from_secs(args.timeout),
        header_read_timeout: Duration::from_secs(args.header_timeout),
        max_connections: usize::try_from(args.max_connections).unwrap_or(256),
        // The nets with the exact race endings, as `backgammon hint` answers: read (or built
        // into the cache) before the server listens, so that a bad file is an error at start.
        evaluator: Some(args.evaluator.load_for_process()?),
    };
    // Before the runtime's threads exist, so that none of them gets an arena past the cap.
    tabula_server::tune_allocator();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::internal(format!("serve: cannot start the runtime: {e}")))?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.http)
            .await
            .map_err(|e| CliError::bad_input(format!("--http {}: {e}", args.http)))?;
        let local = listener
            .local_addr()
            .map_err(|e| CliError::io(format!("--http {}: {e}", args.http)))?;
        eprintln!("serve: listening on http://{local}");
        tabula_server::run(listener, config)
            .await
            .map_err(|e| CliError::io(format!("serve: {e}")))
    })
}
