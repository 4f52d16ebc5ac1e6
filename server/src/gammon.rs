//! Backgammon: wildbg's `/move` (same query parameters and answer) and an evaluation with the
//! cube decision and match context, both answered by the gammon advisor.

use crate::error::ApiError;
use crate::params::{json_body, shorten, Query};
use crate::slots::run_search;
use crate::Shared;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{RawQuery, State};
use axum::Json;
use serde::{Deserialize, Serialize};
use tabula_api::server::{EvaluateReport, EvaluateRequest};
use tabula_engine::backgammon::{Dice, GameKind, MatchId, Position, Side, Xgid};
use tabula_gammon::advisor::{cube_state, Advisor, CubeRollouts, CUBE_ROLLOUT_TRIALS};
use tabula_gammon::cube::DEFAULT_CUBE_EFFICIENCY;
use tabula_gammon::net::{invert, Probabilities};
use tabula_gammon::{weights, Evaluator, SearchOptions};

/// wildbg's probabilities: `win` includes gammons and backgammons, `winG` backgammons.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[allow(non_snake_case)]
pub struct WildbgProbabilities {
    pub win: f32,
    pub winG: f32,
    pub winBg: f32,
    pub loseG: f32,
    pub loseBg: f32,
}

impl From<Probabilities> for WildbgProbabilities {
    fn from(p: Probabilities) -> Self {
        WildbgProbabilities {
            win: p[0],
            winG: p[1],
            winBg: p[2],
            loseG: p[3],
            loseBg: p[4],
        }
    }
}

/// One checker moved by one die: `from` 25..=1 (25: the bar), `to` 24..=0 (0: off).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WildbgDetail {
    pub from: u8,
    pub to: u8,
}

/// One play of wildbg's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WildbgMove {
    /// 0 to 4 checker moves; empty when no play is legal.
    pub play: Vec<WildbgDetail>,
    /// For the mover after the play.
    pub probabilities: WildbgProbabilities,
}

/// wildbg's `/move` answer: the plays, best first (one empty play when none is legal).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WildbgMoveResponse {
    pub moves: Vec<WildbgMove>,
}

/// The server's evaluator: the configured one, else the shipped nets alone (with their cube
/// nets, [`weights::shipped`]).
fn evaluator(state: &Shared) -> Result<&'static Evaluator, ApiError> {
    match state.config.evaluator {
        Some(eval) => Ok(eval),
        None => {
            weights::shipped().map_err(|e| ApiError::internal(format!("the built-in weights: {e}")))
        }
    }
}

fn options(plies: u8) -> SearchOptions {
    SearchOptions {
        plies,
        // A small cache per request: 2^16 slots.
        cache_slots: 1 << 16,
        ..SearchOptions::default()
    }
}

/// A request's number under one of the server's caps: `default` when the request leaves it
/// out, a 400 naming `field` above `max`.
fn capped<T: Copy + PartialOrd + std::fmt::Display>(
    asked: Option<T>,
    default: T,
    max: T,
    field: &str,
) -> Result<T, ApiError> {
    match asked {
        None => Ok(default),
        Some(n) if n <= max => Ok(n),
        Some(n) => Err(ApiError::bad(format!("{field}: {n}: at most {max}"))),
    }
}

fn plies_of(state: &Shared, asked: Option<u8>, field: &str) -> Result<u8, ApiError> {
    let config = &state.config;
    capped(asked, config.default_plies, config.max_plies, field)
}

/// The position of wildbg's `p0`..`p25`: positive counts are the player on roll's (`x`, moving
/// from 24 down to 1, `p25` its bar), negative the opponent's (`p0` its bar).
fn wildbg_position(q: &Query) -> Result<Position, ApiError> {
    let mut on_roll = [0u8; 25];
    let mut opponent = [0u8; 25];
    for p in 0..=25usize {
        let name = format!("p{p}");
        let range = match p {
            0 => -15..=0,
            25 => 0..=15,
            _ => -15..=15,
        };
        let n: i8 = q.number(&name, range)?.unwrap_or(0);
        let count = n.unsigned_abs();
        match (p, n.signum()) {
            (_, 0) => {}
            (25, _) => on_roll[24] = count,
            (0, _) => opponent[24] = count,
            (_, 1) => on_roll[p - 1] = count,
            _ => opponent[24 - p] = count,
        }
    }
    for (who, counts) in [
        ("x (positive counts)", &on_roll),
        ("o (negative counts)", &opponent),
    ] {
        let total: u32 = counts.iter().map(|&c| u32::from(c)).sum();
        if total > 15 {
            return Err(ApiError::bad(format!(
                "p0..p25: {total} checkers of {who}: at most 15"
            )));
        }
    }
    Position::from_counts(on_roll, opponent)
        .map_err(|e| ApiError::bad(format!("p0..p25: invalid position: {e}")))
}

/// `GET /api/backgammon/move?die1=3&die2=1&p1=…`: wildbg's `/move`.
pub(crate) async fn wildbg_move(
    State(state): State<Shared>,
    RawQuery(query): RawQuery,
) -> Result<Json<WildbgMoveResponse>, ApiError> {
    let points: Vec<String> = (0..=25).map(|i| format!("p{i}")).collect();
    let mut known = vec!["die1", "die2", "plies"];
    known.extend(points.iter().map(String::as_str));
    let q = Query::parse(query.as_deref(), Some(&known))?;
    let die = |name: &str| -> Result<u8, ApiError> {
        q.number(name, 1..=6)?
            .ok_or_else(|| ApiError::bad(format!("{name}: missing (a die from 1 to 6)")))
    };
    let (d1, d2) = (die("die1")?, die("die2")?);
    let dice = Dice::new(d1, d2).map_err(|e| ApiError::bad(format!("die1, die2: {e}")))?;
    let pos = wildbg_position(&q)?;
    let plies = plies_of(&state, q.number("plies", 0..=u8::MAX)?, "plies")?;
    let eval = evaluator(&state)?;
    let moves = run_search(&state, move |_| {
        let advisor = Advisor::new(eval, options(plies), DEFAULT_CUBE_EFFICIENCY);
        let ranked = advisor.plays(&pos, dice);
        if ranked.is_empty() {
            // No legal play: the position passes to the opponent as it is.
            let theirs = advisor.searcher().evaluate(&pos.swapped(), plies);
            return Ok(vec![WildbgMove {
                play: Vec::new(),
                probabilities: invert(&theirs).into(),
            }]);
        }
        Ok(ranked
            .iter()
            .map(|r| WildbgMove {
                play: r
                    .play
                    .steps()
                    .iter()
                    .map(|s| WildbgDetail {
                        from: s.from,
                        to: s.to,
                    })
                    .collect(),
                probabilities: r.probabilities.into(),
            })
            .collect())
    })
    .await?;
    Ok(Json(WildbgMoveResponse { moves }))
}

/// The position and match context of a request (as `backgammon hint` reads them).
fn input(request: &EvaluateRequest) -> Result<(Position, Option<MatchId>), ApiError> {
    let text = request
        .position
        .as_deref()
        .unwrap_or("4HPwATDgc/ABMA")
        .trim();
    let position_id = |id: &str| {
        Position::from_position_id(id).map_err(|e| {
            ApiError::bad(format!(
                "position: invalid Position ID {:?}: {e}",
                shorten(id)
            ))
        })
    };
    let match_id = |id: &str, field: &str| {
        MatchId::decode(id)
            .map_err(|e| ApiError::bad(format!("{field}: invalid Match ID {:?}: {e}", shorten(id))))
    };
    let (pos, mut m) = if text.starts_with("XGID=") || text.len() > 40 {
        let x =
            Xgid::parse(text).map_err(|e| ApiError::bad(format!("position: invalid XGID: {e}")))?;
        (x.position, Some(x.match_id()))
    } else if let Some((p, id)) = text.split_once(':') {
        (position_id(p)?, Some(match_id(id, "position")?))
    } else {
        (position_id(text)?, None)
    };
    if let Some(id) = &request.match_id {
        m = Some(match_id(id.trim(), "match_id")?);
    }
    Ok((pos, m))
}

fn dice_of(request: &EvaluateRequest, m: Option<&MatchId>) -> Result<Option<Dice>, ApiError> {
    match (&request.dice, m) {
        (Some(d), _) => d
            .trim()
            .parse()
            .map(Some)
            .map_err(|e| ApiError::bad(format!("dice: {:?}: {e}", shorten(d)))),
        (None, Some(m)) if m.dice.0 > 0 => Dice::new(m.dice.0, m.dice.1)
            .map(Some)
            .map_err(|e| ApiError::bad(format!("position: the dice of the Match ID: {e}"))),
        _ => Ok(None),
    }
}

/// `POST /api/backgammon/evaluate`.
pub(crate) async fn evaluate(
    State(state): State<Shared>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<EvaluateReport>, ApiError> {
    let request: EvaluateRequest = json_body(body)?;
    let (pos, m) = input(&request)?;
    let dice = dice_of(&request, m.as_ref())?;
    let plies = plies_of(&state, request.plies, "plies")?;
    let max_trials = state.config.max_cube_rollouts;
    let trials = capped(
        request.cube_rollouts,
        CUBE_ROLLOUT_TRIALS.min(max_trials),
        max_trials,
        "cube_rollouts",
    )?;
    if pos.is_game_over() {
        return Err(ApiError::bad(
            "position: the game is over: nothing to evaluate",
        ));
    }
    let eval = evaluator(&state)?;
    let report = run_search(&state, move |stop| {
        // A back game's cube rollout (10 s or so) gives way when the client has gone.
        let advisor = Advisor::new(eval, options(plies), DEFAULT_CUBE_EFFICIENCY)
            .with_cube_rollouts(CubeRollouts::for_depth(plies, trials))
            .with_stop(stop);
        let cube = advisor.cube(&pos, &cube_state(m.as_ref()));
        let ranked = dice.map(|d| (d, advisor.plays(&pos, d)));
        let plays = ranked.as_ref().map(|(d, r)| (*d, r.as_slice()));
        Ok(EvaluateReport::new(&pos, m.as_ref(), plies, &cube, plays))
    })
    .await?;
    Ok(Json(report))
}

/// One side's checkers on the board of `GET /api/backgammon/plays`, from its own point of view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardSide {
    /// Checkers on the side's own points 1 to 24 (`points[0]` is its 1-point).
    pub points: Vec<u8>,
    pub bar: u8,
    pub off: u8,
    pub pips: u32,
}

impl BoardSide {
    fn of(pos: &Position, side: Side) -> BoardSide {
        let counts = pos.counts(side);
        BoardSide {
            points: counts[..24].to_vec(),
            bar: pos.bar(side),
            off: pos.off(side),
            pips: pos.pips(side),
        }
    }
}

/// One legal play of `GET /api/backgammon/plays`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayEntry {
    /// gnubg notation (`8/5 6/5`); empty for the pass when no play is legal.
    pub play: String,
    /// The checker moves of one sequence producing it, one per die (`from` 25: the bar, `to`
    /// 0: off), in the mover's numbering.
    pub steps: Vec<WildbgDetail>,
    /// The Position ID after the play, with the opponent on roll.
    pub position: String,
}

/// `GET /api/backgammon/plays`: the board of a position and the legal plays of a roll.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlaysResponse {
    /// Position ID (the player on roll's point of view).
    pub position: String,
    pub on_roll: BoardSide,
    pub opponent: BoardSide,
    /// A side has borne off all its checkers.
    pub game_over: bool,
    /// When over: how the player on roll lost (`single`, `gammon`, `backgammon`).
    pub loss: Option<String>,
    /// The roll whose plays are listed (the query's, else one rolled in a Match ID or XGID).
    pub dice: Option<String>,
    /// With dice: every legal play (gnubg's: one per resulting position), or one empty play
    /// (the pass) when none is legal; without dice: none.
    pub plays: Vec<PlayEntry>,
}

/// `GET /api/backgammon/plays?position=…&dice=31`: the board and the legal plays, each with the
/// position it leads to (the backgammon counterpart of `/api/{game}/moves`; no search).
pub(crate) async fn plays(RawQuery(query): RawQuery) -> Result<Json<PlaysResponse>, ApiError> {
    let q = Query::parse(query.as_deref(), Some(&["position", "dice"]))?;
    let request = EvaluateRequest {
        position: q.get("position").map(str::to_string),
        dice: q.get("dice").map(str::to_string),
        ..EvaluateRequest::default()
    };
    let (pos, m) = input(&request)?;
    let game_over = pos.is_game_over();
    let dice = if game_over {
        None
    } else {
        dice_of(&request, m.as_ref())?
    };
    let plays = match dice {
        None => Vec::new(),
        Some(d) => {
            let legal = pos.plays(d);
            if legal.is_empty() {
                vec![PlayEntry {
                    play: String::new(),
                    steps: Vec::new(),
                    position: pos.swapped().position_id(),
                }]
            } else {
                legal
                    .iter()
                    .map(|p| PlayEntry {
                        play: p.notation(),
                        steps: p
                            .steps()
                            .iter()
                            .map(|s| WildbgDetail {
                                from: s.from,
                                to: s.to,
                            })
                            .collect(),
                        position: p.result().position_id(),
                    })
                    .collect()
            }
        }
    };
    let loss = pos.loss_kind().map(|k| {
        match k {
            GameKind::Single => "single",
            GameKind::Gammon => "gammon",
            GameKind::Backgammon => "backgammon",
        }
        .to_string()
    });
    Ok(Json(PlaysResponse {
        position: pos.position_id(),
        on_roll: BoardSide::of(&pos, Side::OnRoll),
        opponent: BoardSide::of(&pos, Side::Opponent),
        game_over,
        loss,
        dice: dice.map(|d| d.to_string()),
        plays,
    }))
}
