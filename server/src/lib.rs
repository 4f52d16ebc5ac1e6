//! Tabula's HTTP JSON API (`tabula serve --http ADDR`), on axum and tokio.
//!
//! - `GET /api/{game}/moves`, `POST /api/{game}/best`, `POST /api/{game}/analyze` for Bi-litaire
//!   and Pylos: legal moves with the positions they lead to, the best move under a budget
//!   (the solver's [`Driver::analyze`](tabula_solver::Driver::analyze)), and the exact value
//!   with every move's value (GamesmanOne-style, [`Driver::move_values`](tabula_solver::Driver::move_values)).
//! - `GET /api/backgammon/move` (the query parameters and answer of wildbg's `/move`) and
//!   `POST /api/backgammon/evaluate` (probabilities, equity, cube decision, ranked plays, with
//!   the match context of a gnubg ID, Match ID or XGID), from the gammon advisor.
//!   `GET /api/backgammon/plays`: the board and the legal plays of a roll with the positions they
//!   lead to.
//! - `GET /health`, `GET /version`, `GET /openapi.json` (an OpenAPI 3.0 description).
//! - `GET /` (with `/static/app.js` and `/static/style.css`): a web page to play each game
//!   against the engine and analyse positions, compiled into the binary.
//!
//! Limits ([`ServerConfig`]): a request body size, a cap on each search's time and nodes, a
//! bounded number of searches at once (more are answered `503` with `Retry-After`), one
//! transposition table of bounded size per search, and a timeout per request. Bad input is a
//! `400` with `{"error":{"kind":"bad_input","message":"…"}}` whose message names the field.
//! Each connection must send a request's head within a header timeout (a client that trickles
//! its headers, slowloris-style, or sits idle is closed), and the connections open at once are
//! capped (more wait in the listener's backlog).
//! Searches run on tokio's blocking threads; a client that goes away stops its search.

mod error;
mod games;
mod gammon;
mod openapi;
mod params;
mod slots;
mod web;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::sync::Arc;
use std::time::Duration;
use tabula_api::server::{HealthReport, LimitsReport, VersionReport};
use tabula_gammon::advisor::{CUBE_ROLLOUT_TRIALS, MAX_CUBE_ROLLOUT_TRIALS};
use tokio::sync::Semaphore;

pub use error::ApiError;
pub use openapi::openapi;
pub use slots::MAX_SEARCHES;

/// The largest transposition table one search may have, in MiB.
pub const MAX_TABLE_MIB: u64 = 64;

/// The deepest backgammon search served (plies).
pub const MAX_PLIES: u8 = 2;

/// The default cap on an evaluate's back-game cube rollout: twice the default trials. A
/// rollout of [`CUBE_ROLLOUT_TRIALS`] (324) holds a search slot about 10 s on one core of the
/// project's machine (docs/results.md, "Back games' cube by rollout"), so 648 stays within
/// the default request timeout (30 s) where the library's own cap, 11,664, would not.
pub const DEFAULT_MAX_CUBE_ROLLOUTS: u64 = 2 * CUBE_ROLLOUT_TRIALS;

/// What the server allows. [`ServerConfig::default`] suits a small machine.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The longest search, in milliseconds (a request asking more gets this).
    pub max_time_ms: u64,
    /// The most nodes of one search (`None`: only time bounds it).
    pub max_nodes: Option<u64>,
    /// A search's time when the request gives no budget.
    pub default_time_ms: u64,
    /// Searches at once (1 to [`MAX_SEARCHES`]); more are answered 503 with `Retry-After`.
    pub max_searches: usize,
    /// The transposition table of each search, in MiB (1 to [`MAX_TABLE_MIB`]).
    pub table_mib: u64,
    /// Threads per search.
    pub threads: usize,
    /// The largest request body, in bytes (larger: 413).
    pub max_body_bytes: usize,
    /// Backgammon's search depth when the request gives none, and the deepest allowed (at most
    /// [`MAX_PLIES`]).
    pub default_plies: u8,
    pub max_plies: u8,
    /// The most trials of the rollout that decides a back game's cube at 2 plies (the
    /// evaluate body's `cube_rollouts`; more is a 400); a request without the field gets
    /// [`CUBE_ROLLOUT_TRIALS`] or this cap if lower. 0: the search decides every cube. At most
    /// [`MAX_CUBE_ROLLOUT_TRIALS`].
    pub max_cube_rollouts: u64,
    /// The longest a request may take, searches included (then 503).
    pub request_timeout: Duration,
    /// The longest a connection may take to send a request's head (request line and headers),
    /// counted from the connection's start or the end of its previous answer; then it is closed.
    pub header_read_timeout: Duration,
    /// Connections open at once (at least 1); more wait, unaccepted, in the listener's backlog.
    pub max_connections: usize,
    /// The backgammon evaluator. `None`: the built-in nets alone
    /// ([`tabula_gammon::weights::shipped`], with their cube nets), without the exact race
    /// endings; `tabula serve` gives them with the bearoff database, as `backgammon hint` and
    /// `play` use them.
    pub evaluator: Option<&'static tabula_gammon::Evaluator>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_time_ms: 10_000,
            max_nodes: None,
            default_time_ms: 1_000,
            max_searches: 2,
            table_mib: 16,
            threads: 1,
            max_body_bytes: 64 * 1024,
            default_plies: 1,
            max_plies: MAX_PLIES,
            max_cube_rollouts: DEFAULT_MAX_CUBE_ROLLOUTS,
            request_timeout: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(10),
            max_connections: 256,
            evaluator: None,
        }
    }
}

impl ServerConfig {
    /// The configuration with every limit brought within the server's hard caps.
    fn clamped(mut self) -> ServerConfig {
        self.max_searches = self.max_searches.clamp(1, MAX_SEARCHES);
        self.table_mib = self.table_mib.clamp(1, MAX_TABLE_MIB);
        self.threads = self.threads.clamp(1, 64);
        self.max_time_ms = self.max_time_ms.max(1);
        self.default_time_ms = self.default_time_ms.clamp(1, self.max_time_ms);
        self.max_plies = self.max_plies.min(MAX_PLIES);
        self.default_plies = self.default_plies.min(self.max_plies);
        self.max_cube_rollouts = self.max_cube_rollouts.min(MAX_CUBE_ROLLOUT_TRIALS);
        self.max_connections = self.max_connections.max(1);
        self.header_read_timeout = self.header_read_timeout.max(Duration::from_millis(1));
        self
    }

    fn limits_report(&self) -> LimitsReport {
        LimitsReport {
            max_time_ms: self.max_time_ms,
            max_nodes: self.max_nodes,
            default_time_ms: self.default_time_ms,
            max_searches: self.max_searches,
            table_mib: self.table_mib,
            max_body_bytes: self.max_body_bytes,
            max_plies: self.max_plies,
            max_cube_rollouts: self.max_cube_rollouts,
        }
    }
}

/// What every handler shares.
#[derive(Debug)]
pub(crate) struct AppState {
    pub(crate) config: ServerConfig,
    pub(crate) searches: Arc<Semaphore>,
}

pub(crate) type Shared = Arc<AppState>;

/// The API's routes, with its limits, over `config` (clamped to the hard caps).
pub fn router(config: ServerConfig) -> Router {
    let config = config.clamped();
    let body_limit = config.max_body_bytes;
    let timeout = config.request_timeout;
    let state = Arc::new(AppState {
        searches: Arc::new(Semaphore::new(config.max_searches)),
        config,
    });
    Router::new()
        .route("/", get(web::index))
        .route("/static/app.js", get(web::app_js))
        .route("/static/style.css", get(web::style_css))
        .route("/health", get(health))
        .route("/version", get(version))
        .route("/openapi.json", get(openapi_json))
        .route("/api/backgammon/move", get(gammon::wildbg_move))
        .route("/api/backgammon/evaluate", post(gammon::evaluate))
        .route("/api/backgammon/plays", get(gammon::plays))
        .route("/api/{game}/moves", get(games::moves))
        .route("/api/{game}/best", post(games::best))
        .route("/api/{game}/analyze", post(games::analyze))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(middleware::from_fn(move |req: Request, next: Next| {
            with_timeout(timeout, req, next)
        }))
        .with_state(state)
}

/// Serves the API on `listener` until the process ends.
///
/// Each accepted connection is served by hyper's HTTP/1.1 server with the configuration's
/// header-read timeout, on its own task, while it holds one of `max_connections` permits.
/// Errors of one connection (a reset, garbage bytes, a timeout) end that connection only;
/// errors of `accept` are retried (after a pause when they are not about one connection, such
/// as running out of file descriptors).
pub async fn run(listener: tokio::net::TcpListener, config: ServerConfig) -> std::io::Result<()> {
    tune_allocator();
    let config = config.clamped();
    let header_read_timeout = config.header_read_timeout;
    let connections = Arc::new(Semaphore::new(config.max_connections));
    let app = router(config);
    loop {
        let Ok(permit) = connections.clone().acquire_owned().await else {
            unreachable!("the connection semaphore is never closed");
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) if is_connection_error(&e) => continue,
            Err(_) => {
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        // Small JSON answers: send them now rather than wait for Nagle's algorithm.
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let _permit = permit;
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_read_timeout)
                .serve_connection(TokioIo::new(stream), service);
            // A failed connection concerns its client alone.
            let _ = connection.await;
        });
    }
}

/// Tunes glibc's allocator for a long-running server; [`run`] calls it, and a program should
/// call it once more before it starts its runtime's threads (the CLI does), since a thread that
/// already has an arena keeps it. A no-op off glibc.
///
/// **Large blocks.** Every allocation of 1 MiB or more (each search's transposition table) gets
/// its own `mmap`, given back to the system when freed. By default glibc raises its mmap
/// threshold to the size of the last such block freed (up to 32 MiB), so after the first search
/// the tables of 16 MiB came from the per-thread heaps, where a freed table stays resident:
/// under load, 8 searches at once left 1.2 GiB resident (64 at once: 8.8 GiB) for 8 × 16 MiB of
/// live tables; with a fixed threshold, 139 MiB at the peak and 8 MiB once idle
/// (docs/results.md, "AI service under load").
///
/// **Arenas.** At most one malloc arena per core, where glibc allows eight per core. Searches
/// run on the runtime's blocking threads, which come and go; each new thread may take an
/// arena not used before, so the memory kept between bursts crept up for many minutes (a
/// 20-minute soak: +612, +108, +40, +28 KiB per 5 minutes). Under `MALLOC_ARENA_MAX=1` the
/// same soak was flat after its first minute (docs/results.md, "HTTP: soak").
///
/// `MALLOC_MMAP_THRESHOLD_` or `MALLOC_ARENA_MAX` set in the environment keeps its value.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn tune_allocator() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let arenas = libc::c_int::try_from(cores).unwrap_or(libc::c_int::MAX);
    // A setting in the environment (glibc's own variables) wins over ours.
    let unset = |name: &str| std::env::var_os(name).is_none();
    // SAFETY: mallopt only changes tunables of glibc's allocator, under glibc's own lock; it
    // touches no memory of ours, and a failure (return 0) leaves the default in place.
    unsafe {
        if unset("MALLOC_MMAP_THRESHOLD_") {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
        }
        if unset("MALLOC_ARENA_MAX") {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}

/// Tunes glibc's allocator for a long-running server (a no-op off glibc).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn tune_allocator() {}

/// Whether an `accept` error is about one connection only (retry at once).
fn is_connection_error(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}

async fn with_timeout(timeout: Duration, req: Request, next: Next) -> Response {
    match tokio::time::timeout(timeout, next.run(req)).await {
        Ok(response) => response,
        // Dropping the handler's future stops its search (see `slots`).
        Err(_) => ApiError::timeout(timeout).into_response(),
    }
}

async fn not_found() -> ApiError {
    ApiError::not_found()
}

async fn method_not_allowed(method: axum::http::Method) -> ApiError {
    ApiError::method_not_allowed(method.as_str())
}

async fn health(State(state): State<Shared>) -> Json<HealthReport> {
    let max = state.config.max_searches;
    Json(HealthReport {
        status: "ok".into(),
        searches: max - state.searches.available_permits().min(max),
        max_searches: max,
    })
}

async fn version(State(state): State<Shared>) -> Json<VersionReport> {
    Json(VersionReport {
        name: "tabula".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        games: ["bilitaire", "pylos", "backgammon"]
            .map(String::from)
            .to_vec(),
        limits: state.config.limits_report(),
    })
}

async fn openapi_json(State(state): State<Shared>) -> Json<serde_json::Value> {
    Json(openapi(&state.config))
}
