//! The OpenAPI 3.0 description served at `/openapi.json`, written by hand (no code generator):
//! every route of [`crate::router`] with its parameters and answers.

use crate::ServerConfig;
use serde_json::{json, Value};

fn error_response(what: &str) -> Value {
    json!({
        "description": what,
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
    })
}

fn ok(description: &str, schema: &str) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{schema}") } } }
    })
}

fn search_responses(schema: &str) -> Value {
    json!({
        "200": ok("the answer", schema),
        "400": error_response("bad input: the message names the field"),
        "413": error_response("the body is larger than the server's limit"),
        "503": error_response("every search slot is taken (see Retry-After), or the request timed out"),
    })
}

fn query(name: &str, description: &str, required: bool, schema: Value) -> Value {
    json!({ "name": name, "in": "query", "required": required, "description": description, "schema": schema })
}

fn game_param() -> Value {
    json!({
        "name": "game", "in": "path", "required": true,
        "schema": { "type": "string", "enum": ["bilitaire", "pylos"] }
    })
}

fn search_body() -> Value {
    json!({
        "required": false,
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/SearchRequest" } } }
    })
}

/// The OpenAPI 3.0 document of the API served under `config`.
pub fn openapi(config: &ServerConfig) -> Value {
    let position_params = vec![
        query(
            "position",
            "the position string (default: the start position)",
            false,
            json!({"type": "string"}),
        ),
        query(
            "rules",
            "Bi-litaire: standard or free-chains; Pylos: children, standard or mature",
            false,
            json!({"type": "string"}),
        ),
        query(
            "takeback",
            "Pylos: optional or compulsory",
            false,
            json!({"type": "string"}),
        ),
        query(
            "board",
            "Pylos: the base's size, 4 (the game, default) or 3 (the small board)",
            false,
            json!({"type": "integer", "enum": [4, 3]}),
        ),
    ];
    let moves_params: Vec<Value> = std::iter::once(game_param())
        .chain(position_params)
        .collect();
    let mut wildbg_params = vec![
        query(
            "die1",
            "the first die",
            true,
            json!({"type": "integer", "minimum": 1, "maximum": 6}),
        ),
        query(
            "die2",
            "the second die",
            true,
            json!({"type": "integer", "minimum": 1, "maximum": 6}),
        ),
        query(
            "p0",
            "the opponent's (o) bar, as a negative count",
            false,
            json!({"type": "integer", "minimum": -15, "maximum": 0}),
        ),
    ];
    for p in 1..=24 {
        wildbg_params.push(query(
            &format!("p{p}"),
            "checkers on this point, seen from x (on roll, moving from 24 to 1): positive x's, negative o's",
            false,
            json!({"type": "integer", "minimum": -15, "maximum": 15}),
        ));
    }
    wildbg_params.push(query(
        "p25",
        "x's bar",
        false,
        json!({"type": "integer", "minimum": 0, "maximum": 15}),
    ));
    wildbg_params.push(query(
        "plies",
        "search depth (Tabula's addition; default the server's)",
        false,
        json!({"type": "integer", "minimum": 0, "maximum": config.max_plies}),
    ));
    let plays_params = vec![
        query(
            "position",
            "Position ID, gnubg ID (position:match) or XGID (default: the opening position)",
            false,
            json!({"type": "string"}),
        ),
        query(
            "dice",
            "the roll, e.g. 31 (default: one rolled in the Match ID or XGID, else no plays)",
            false,
            json!({"type": "string"}),
        ),
    ];
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "Tabula HTTP API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": format!(
                "Legal moves, best moves and analyses of Bi-litaire and Pylos; backgammon moves \
                 (wildbg-compatible) and evaluations. Searches are capped at {} ms{} each, {} at \
                 once (more: 503 with Retry-After); bodies at {} bytes. Errors: \
                 {{\"error\":{{\"kind\":…,\"message\":…}}}}.",
                config.max_time_ms,
                config.max_nodes.map(|n| format!(" and {n} nodes")).unwrap_or_default(),
                config.max_searches,
                config.max_body_bytes
            )
        },
        "paths": {
            "/health": { "get": {
                "summary": "liveness and the searches running",
                "responses": { "200": ok("the server answers", "Health") }
            }},
            "/version": { "get": {
                "summary": "the version, the games and the limits",
                "responses": { "200": ok("the version", "Version") }
            }},
            "/openapi.json": { "get": {
                "summary": "this document",
                "responses": { "200": { "description": "the OpenAPI 3.0 document", "content": { "application/json": {} } } }
            }},
            "/api/{game}/moves": { "get": {
                "summary": "the legal moves, each with the position it leads to",
                "parameters": moves_params,
                "responses": {
                    "200": ok("the moves", "Moves"),
                    "400": error_response("bad input: the message names the field"),
                }
            }},
            "/api/{game}/best": { "post": {
                "summary": "the best move under a budget (iterative deepening; exact when proven)",
                "parameters": [game_param()],
                "requestBody": search_body(),
                "responses": search_responses("SolveReport")
            }},
            "/api/{game}/analyze": { "post": {
                "summary": "the exact value, then every move's value and distance or balls left (GamesmanOne-style)",
                "parameters": [game_param()],
                "requestBody": search_body(),
                "responses": search_responses("Analysis")
            }},
            "/api/backgammon/move": { "get": {
                "summary": "wildbg's /move: the legal plays of the dice, best first",
                "parameters": wildbg_params,
                "responses": search_responses("WildbgMoves")
            }},
            "/api/backgammon/plays": { "get": {
                "summary": "the board and the legal plays of a roll, each with the position it leads to",
                "parameters": plays_params,
                "responses": {
                    "200": ok("the board and the plays", "Plays"),
                    "400": error_response("bad input: the message names the field"),
                }
            }},
            "/api/backgammon/evaluate": { "post": {
                "summary": "probabilities, equity and cube decision before the roll; ranked plays with dice",
                "requestBody": {
                    "required": false,
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/EvaluateRequest" } } }
                },
                "responses": search_responses("Evaluation")
            }},
        },
        "components": { "schemas": schemas(config) }
    })
}

fn schemas(config: &ServerConfig) -> Value {
    let string = json!({"type": "string"});
    let int = json!({"type": "integer"});
    let strings = json!({"type": "array", "items": {"type": "string"}});
    let probabilities = json!({"type": "array", "items": {"type": "number"}, "minItems": 5, "maxItems": 5,
        "description": "[win, win gammon, win backgammon, lose gammon, lose backgammon]"});
    json!({
        "Error": { "type": "object", "properties": { "error": { "type": "object", "properties": {
            "kind": { "type": "string", "enum": ["bad_input", "io", "internal", "interrupted"] },
            "message": string } } } },
        "Health": { "type": "object", "properties": {
            "status": string, "searches": int, "max_searches": int } },
        "Version": { "type": "object", "properties": {
            "name": string, "version": string, "games": strings, "limits": { "type": "object" } } },
        "Moves": { "type": "object", "properties": {
            "game": string, "position": string, "side_to_move": string,
            "moves": { "type": "array", "items": { "type": "object", "properties": {
                "move": string, "position": string } } } } },
        "Budget": { "type": "object", "additionalProperties": false, "properties": {
            "time_ms": { "type": "integer", "minimum": 1 }, "nodes": { "type": "integer", "minimum": 1 } } },
        "SearchRequest": { "type": "object", "additionalProperties": false, "properties": {
            "position": string, "rules": string, "takeback": string,
            "board": { "type": "integer", "enum": [4, 3] },
            "budget": { "$ref": "#/components/schemas/Budget" } } },
        "SolveReport": { "type": "object", "properties": {
            "position": string, "side_to_move": string, "value": int, "result": string,
            "plies": int, "exact": {"type": "boolean"}, "stopped": {"type": "boolean"},
            "lower": int, "upper": int, "best": string, "pv": strings, "depth": int,
            "nodes": int, "time_ms": int } },
        "Analysis": { "type": "object", "properties": {
            "game": string, "position": string, "side_to_move": string, "value": int,
            "result": string, "plies": int, "exact": {"type": "boolean"},
            "stopped": {"type": "boolean"}, "lower": int, "upper": int, "best": string,
            "pv": strings, "nodes": int, "time_ms": int,
            "moves": { "type": "array", "items": { "type": "object", "properties": {
                "move": string, "position": string, "value": int, "result": string,
                "plies": int, "bound": int } } } } },
        "WildbgMoves": { "type": "object", "properties": { "moves": { "type": "array", "items": {
            "type": "object", "properties": {
                "play": { "type": "array", "maxItems": 4, "items": { "type": "object", "properties": {
                    "from": { "type": "integer", "minimum": 1, "maximum": 25 },
                    "to": { "type": "integer", "minimum": 0, "maximum": 24 } } } },
                "probabilities": { "type": "object", "properties": {
                    "win": {"type": "number"}, "winG": {"type": "number"}, "winBg": {"type": "number"},
                    "loseG": {"type": "number"}, "loseBg": {"type": "number"} } } } } } } },
        "Plays": { "type": "object", "properties": {
            "position": string, "on_roll": { "$ref": "#/components/schemas/BoardSide" },
            "opponent": { "$ref": "#/components/schemas/BoardSide" },
            "game_over": {"type": "boolean"},
            "loss": { "type": "string", "nullable": true, "enum": ["single", "gammon", "backgammon"] },
            "dice": { "type": "string", "nullable": true },
            "plays": { "type": "array", "items": { "type": "object", "properties": {
                "play": string, "position": string,
                "steps": { "type": "array", "maxItems": 4, "items": { "type": "object", "properties": {
                    "from": { "type": "integer", "minimum": 1, "maximum": 25 },
                    "to": { "type": "integer", "minimum": 0, "maximum": 24 } } } } } } } } },
        "BoardSide": { "type": "object", "properties": {
            "points": { "type": "array", "minItems": 24, "maxItems": 24, "items": int },
            "bar": int, "off": int, "pips": int } },
        "EvaluateRequest": { "type": "object", "additionalProperties": false, "properties": {
            "position": { "type": "string", "description": "Position ID, gnubg ID (position:match) or XGID" },
            "match_id": string, "dice": string, "plies": int,
            "cube_rollouts": { "type": "integer", "minimum": 0, "maximum": config.max_cube_rollouts,
                "description": "trials of the rollout deciding a back game's cube at 2 plies or more (default 324 or the server's cap if lower, 0: none)" } } },
        "Evaluation": { "type": "object", "properties": {
            "position": string, "side_to_move": string, "plies": int,
            "probabilities": probabilities, "equity": {"type": "number"},
            "cube": { "type": "object", "properties": {
                "action": string, "no_double": {"type": "number"}, "double_take": {"type": "number"},
                "double_pass": {"type": "number"}, "take": {"type": "boolean"},
                "rollout": { "type": "object", "description": "present when a rollout decided (a back game, 2 plies or more)",
                    "properties": { "trials": int, "equity_se": {"type": "number"} } } } },
            "match": { "type": "object" }, "dice": string,
            "plays": { "type": "array", "items": { "type": "object", "properties": {
                "play": string, "equity": {"type": "number"}, "plies": int,
                "probabilities": probabilities } } } } },
    })
}
