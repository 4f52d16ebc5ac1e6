//! Bi-litaire and Pylos: legal moves, the best move under a budget, and the GamesmanOne-style
//! analysis (the exact value, then every move's value).

use crate::error::ApiError;
use crate::params::{json_body, shorten, Query};
use crate::slots::run_search;
use crate::{ServerConfig, Shared};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::fmt::Display;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use tabula_api::report::{MoveEntry, MovesReport};
use tabula_api::server::{AnalyzeReport, Budget, MoveAnalysis, SearchRequest};
use tabula_api::{bilitaire as api_bilitaire, build, pylos as api_pylos};
use tabula_engine::{bilitaire, pylos};
use tabula_solver::driver::Config;
use tabula_solver::games::verdict;
use tabula_solver::{Analysis, AtomicTable, Driver, Limits, Searchable, Solve};

/// The deepest iteration of a best-move search.
const MAX_DEPTH: u8 = 254;

/// The game of a `/api/{game}/…` path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Bilitaire,
    Pylos,
}

fn which(game: &str) -> Result<Which, ApiError> {
    match game {
        "bilitaire" => Ok(Which::Bilitaire),
        "pylos" => Ok(Which::Pylos),
        "backgammon" => Err(ApiError::bad(
            "game: backgammon is served by /api/backgammon/move and /api/backgammon/evaluate",
        )),
        other => Err(ApiError::bad(format!(
            "game: unknown game {:?}: expected bilitaire or pylos",
            shorten(other)
        ))),
    }
}

/// What the endpoints need of a game.
trait ServedGame: Searchable + Display + Send + Sync + 'static {
    const NAME: &'static str;
    /// The position of a request: `position` (default: the start) under the rule options.
    fn from_request(position: Option<&str>, options: RuleOptions) -> Result<Self, ApiError>;
    fn side_to_move(&self) -> String;
    fn over(&self) -> bool;
    /// The best-move report of an analysis (the game's `SolveReport`).
    fn best_report(&self, analysis: Analysis<Self::Move>) -> Response;
    /// A proven value (the search's payoff) as `(value, result, plies)` in the report's terms.
    fn proven(&self, value: i32) -> (i32, Option<String>, Option<u32>);
    /// A bound on a move's payoff in the report's terms.
    fn bound(&self, bound: i32) -> i32;
}

impl ServedGame for bilitaire::Position {
    const NAME: &'static str = "bilitaire";

    fn from_request(position: Option<&str>, options: RuleOptions) -> Result<Self, ApiError> {
        if options.takeback.is_some() {
            return Err(ApiError::bad("takeback: a Pylos option, not Bi-litaire's"));
        }
        if options.board.is_some() {
            return Err(ApiError::bad("board: a Pylos option, not Bi-litaire's"));
        }
        let free_chains = match options.rules.unwrap_or("standard") {
            "standard" => false,
            "free-chains" => true,
            other => {
                return Err(ApiError::bad(format!(
                    "rules: {:?}: expected standard or free-chains",
                    shorten(other)
                )))
            }
        };
        let rules = bilitaire::Rules { free_chains };
        match position {
            None => Ok(bilitaire::Position::start_with(rules)),
            Some(text) => bilitaire::Position::parse_with(text, rules).map_err(|e| {
                ApiError::bad(format!(
                    "position: invalid Bi-litaire position {:?}: {e}",
                    shorten(text)
                ))
            }),
        }
    }

    fn side_to_move(&self) -> String {
        build::bilitaire::side_to_move(self).into()
    }

    fn over(&self) -> bool {
        self.is_over()
    }

    fn best_report(&self, analysis: Analysis<bilitaire::Move>) -> Response {
        Json(api_bilitaire::SolveReport::from_analysis(self, analysis)).into_response()
    }

    fn proven(&self, value: i32) -> (i32, Option<String>, Option<u32>) {
        (value, None, None)
    }

    fn bound(&self, bound: i32) -> i32 {
        bound
    }
}

impl ServedGame for pylos::Position {
    const NAME: &'static str = "pylos";

    fn from_request(position: Option<&str>, options: RuleOptions) -> Result<Self, ApiError> {
        let defaults = pylos::Rules::default();
        let variant = match options.rules {
            None => defaults.variant,
            Some(r) => r.parse().map_err(|_| {
                ApiError::bad(format!(
                    "rules: {:?}: expected children, standard or mature",
                    shorten(r)
                ))
            })?,
        };
        let takeback = match options.takeback {
            None => defaults.takeback,
            Some(t) => t.parse().map_err(|_| {
                ApiError::bad(format!(
                    "takeback: {:?}: expected optional or compulsory",
                    shorten(t)
                ))
            })?,
        };
        let board = match options.board {
            None => defaults.board,
            Some(b) => b
                .parse()
                .map_err(|_| ApiError::bad(format!("board: {:?}: expected 4 or 3", shorten(b))))?,
        };
        let rules = pylos::Rules::new(variant, takeback).on(board);
        match position {
            None => Ok(pylos::Position::start(rules)),
            Some(text) => pylos::Position::parse(text, rules).map_err(|e| {
                ApiError::bad(format!(
                    "position: invalid Pylos position {:?}: {e}",
                    shorten(text)
                ))
            }),
        }
    }

    fn side_to_move(&self) -> String {
        build::pylos::color_name(self.turn()).into()
    }

    fn over(&self) -> bool {
        self.winner().is_some()
    }

    fn best_report(&self, analysis: Analysis<pylos::Move>) -> Response {
        Json(api_pylos::SolveReport::from_analysis(self, analysis)).into_response()
    }

    fn proven(&self, value: i32) -> (i32, Option<String>, Option<u32>) {
        let v = verdict(self, value, true);
        (v.value, Some(v.result.into()), v.plies)
    }

    fn bound(&self, bound: i32) -> i32 {
        build::pylos::for_mover(self, bound)
    }
}

/// The rule options of a request, as given (`board` and `takeback`: Pylos only).
#[derive(Clone, Copy, Debug, Default)]
struct RuleOptions<'a> {
    rules: Option<&'a str>,
    takeback: Option<&'a str>,
    board: Option<&'a str>,
}

/// `GET /api/{game}/moves?position=…&rules=…&takeback=…&board=…`.
pub(crate) async fn moves(
    Path(game): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<MovesReport>, ApiError> {
    let q = Query::parse(
        query.as_deref(),
        Some(&["position", "rules", "takeback", "board"]),
    )?;
    let position = q.get("position");
    let options = RuleOptions {
        rules: q.get("rules"),
        takeback: q.get("takeback"),
        board: q.get("board"),
    };
    match which(&game)? {
        Which::Bilitaire => moves_of(bilitaire::Position::from_request(position, options)?),
        Which::Pylos => moves_of(pylos::Position::from_request(position, options)?),
    }
}

fn moves_of<G: ServedGame>(pos: G) -> Result<Json<MovesReport>, ApiError> {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    Ok(Json(MovesReport {
        game: G::NAME.into(),
        position: pos.to_string(),
        side_to_move: pos.side_to_move(),
        moves: moves
            .into_iter()
            .map(|m| MoveEntry {
                mv: m.to_string(),
                position: pos.play(m).to_string(),
            })
            .collect(),
    }))
}

/// The limits of one search: the request's budget within the server's caps.
fn limits(config: &ServerConfig, budget: &Budget, interrupt: &'static AtomicBool) -> Limits {
    let time = match (budget.time_ms, budget.nodes) {
        (Some(t), _) => t.min(config.max_time_ms),
        (None, Some(_)) => config.max_time_ms,
        (None, None) => config.default_time_ms,
    };
    let nodes = match (budget.nodes, config.max_nodes) {
        (Some(n), Some(max)) => Some(n.min(max)),
        (Some(n), None) => Some(n),
        (None, max) => max,
    };
    Limits {
        time: Some(Duration::from_millis(time)),
        nodes,
        interrupt: Some(interrupt),
    }
}

fn check_budget(budget: &Budget) -> Result<(), ApiError> {
    if budget.time_ms == Some(0) {
        return Err(ApiError::bad("budget.time_ms: must be at least 1"));
    }
    if budget.nodes == Some(0) {
        return Err(ApiError::bad("budget.nodes: must be at least 1"));
    }
    Ok(())
}

/// The request's position, checked: a finished game has nothing to search.
fn searched<G: ServedGame>(request: &SearchRequest) -> Result<G, ApiError> {
    check_budget(&request.budget)?;
    let board = request.board.map(|b| b.to_string());
    let options = RuleOptions {
        rules: request.rules.as_deref(),
        takeback: request.takeback.as_deref(),
        board: board.as_deref(),
    };
    let pos = G::from_request(request.position.as_deref(), options)?;
    if pos.over() {
        return Err(ApiError::bad(format!(
            "position: the game is over ({}): no move to search",
            pos
        )));
    }
    Ok(pos)
}

fn table(config: &ServerConfig) -> Result<AtomicTable, ApiError> {
    let mib = usize::try_from(config.table_mib).unwrap_or(1);
    AtomicTable::try_with_megabytes(mib, |_, _| {})
        .map_err(|e| ApiError::internal(format!("cannot allocate the search's table: {e}")))
}

fn search_config(config: &ServerConfig) -> Config {
    Config {
        threads: config.threads,
        ..Config::default()
    }
}

/// `POST /api/{game}/best`: the best move under the budget (iterative deepening; exact when
/// proven): the game's `SolveReport`.
pub(crate) async fn best(
    State(state): State<Shared>,
    Path(game): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let which = which(&game)?;
    let request: SearchRequest = json_body(body)?;
    match which {
        Which::Bilitaire => best_of::<bilitaire::Position>(state, request).await,
        Which::Pylos => best_of::<pylos::Position>(state, request).await,
    }
}

async fn best_of<G: ServedGame>(
    state: Shared,
    request: SearchRequest,
) -> Result<Response, ApiError> {
    let pos: G = searched(&request)?;
    let config = state.config.clone();
    run_search(&state, move |interrupt| {
        let table = table(&config)?;
        let driver = Driver::new(
            &table,
            search_config(&config),
            limits(&config, &request.budget, interrupt),
        );
        Ok(pos.best_report(driver.analyze(&pos, MAX_DEPTH, |_| {})))
    })
    .await
}

/// `POST /api/{game}/analyze`: the exact value within the budget, then every move's value
/// within what is left of it (GamesmanOne-style).
pub(crate) async fn analyze(
    State(state): State<Shared>,
    Path(game): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let which = which(&game)?;
    let request: SearchRequest = json_body(body)?;
    match which {
        Which::Bilitaire => analyze_of::<bilitaire::Position>(state, request).await,
        Which::Pylos => analyze_of::<pylos::Position>(state, request).await,
    }
}

async fn analyze_of<G: ServedGame>(
    state: Shared,
    request: SearchRequest,
) -> Result<Response, ApiError> {
    let pos: G = searched(&request)?;
    let config = state.config.clone();
    let report = run_search(&state, move |interrupt| {
        let table = table(&config)?;
        let driver = Driver::new(
            &table,
            search_config(&config),
            limits(&config, &request.budget, interrupt),
        );
        Ok(analysis_report(&pos, &driver))
    })
    .await?;
    Ok(Json(report).into_response())
}

/// The analysis report of `pos`: solve, then value the moves with the same driver.
fn analysis_report<G: ServedGame>(pos: &G, driver: &Driver) -> AnalyzeReport {
    let mut legal = Vec::new();
    pos.legal_moves(&mut legal);
    let unvalued = |m: &G::Move| MoveAnalysis {
        mv: m.to_string(),
        position: pos.play(*m).to_string(),
        value: None,
        result: None,
        plies: None,
        bound: None,
    };
    match driver.solve(pos) {
        Solve::Solved { line, .. } => {
            let values = driver.move_values(pos, line.value);
            let moves = values
                .iter()
                .map(|v| {
                    let mut entry = unvalued(&v.mv);
                    match v.value {
                        Some(value) => {
                            let (value, result, plies) = pos.proven(value);
                            entry.value = Some(value);
                            entry.result = result;
                            entry.plies = plies;
                        }
                        None => entry.bound = Some(pos.bound(v.bound)),
                    }
                    entry
                })
                .collect();
            let (value, result, plies) = pos.proven(line.value);
            let stats = driver.stats();
            AnalyzeReport {
                game: G::NAME.into(),
                position: pos.to_string(),
                side_to_move: pos.side_to_move(),
                value: Some(value),
                result,
                plies,
                exact: true,
                stopped: false,
                lower: None,
                upper: None,
                best: line.best.map(|m| m.to_string()),
                pv: build::names(&line.pv),
                moves,
                nodes: stats.nodes,
                time_ms: build::millis(stats.time),
            }
        }
        Solve::Stopped {
            lower,
            upper,
            stats,
            ..
        } => {
            let (a, b) = (pos.bound(lower), pos.bound(upper));
            AnalyzeReport {
                game: G::NAME.into(),
                position: pos.to_string(),
                side_to_move: pos.side_to_move(),
                value: None,
                result: (G::NAME == "pylos").then(|| "unknown".into()),
                plies: None,
                exact: false,
                stopped: true,
                lower: Some(a.min(b)),
                upper: Some(a.max(b)),
                best: None,
                pv: Vec::new(),
                moves: legal.iter().map(unvalued).collect(),
                nodes: stats.nodes,
                time_ms: build::millis(stats.time),
            }
        }
    }
}
