//! The HTTP API in process: a server on 127.0.0.1:0 and plain HTTP/1.1 requests over TCP.
//! Every answer is compared with what the engine, the driver or the advisor gives directly.

use serde_json::Value;
use std::net::SocketAddr;
use std::time::Duration;
use tabula_engine::backgammon::{Dice, Position as Gammon, Side};
use tabula_engine::{bilitaire, pylos, Game};
use tabula_server::{ServerConfig, DEFAULT_MAX_CUBE_ROLLOUTS, MAX_PLIES};
use tabula_solver::driver::Config;
use tabula_solver::{AtomicTable, Driver, Limits, Solve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A 23-ball Bi-litaire position of the benchmark suite (value 18, solved in tenths of a second).
const BILITAIRE: &str = "--..o.--/--....--/......../..oo..../--..o.oo/--ooo.oo/oooooo--/oooooo-- s";

/// A Pylos position under children's rules: level 0 full, six balls on level 1.
fn pylos_late() -> pylos::Position {
    let rules = pylos::Rules::new(pylos::Variant::Children, pylos::Takeback::Optional);
    let mut pos = pylos::Position::start(rules);
    let moves = "0a1 0b1 0c1 0d1 0a2 0b2 0c2 0d2 0a3 0b3 0c3 0d3 0a4 0b4 0c4 0d4 \
                 1a1 1b1 1c1 1a2 1b2 1c2";
    for m in moves.split_whitespace() {
        pos = pos.play(pos.parse_move(m).unwrap());
    }
    pos
}

async fn start(config: ServerConfig) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(tabula_server::run(listener, config));
    addr
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn request_text(method: &str, path: &str, body: Option<&str>) -> String {
    let body = body.unwrap_or("");
    format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

async fn send(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> Answer {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(request_text(method, path, body).as_bytes())
        .await
        .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("a complete HTTP answer");
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

async fn get(addr: SocketAddr, path: &str) -> Answer {
    send(addr, "GET", path, None).await
}

async fn post(addr: SocketAddr, path: &str, body: &str) -> Answer {
    send(addr, "POST", path, Some(body)).await
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The routes the server must serve, with a request that reaches each.
const ROUTES: [(&str, &str, &str); 10] = [
    ("get", "/health", "/health"),
    ("get", "/version", "/version"),
    ("get", "/openapi.json", "/openapi.json"),
    ("get", "/api/{game}/moves", "/api/pylos/moves"),
    ("post", "/api/{game}/best", "/api/pylos/best"),
    ("post", "/api/{game}/analyze", "/api/pylos/analyze"),
    (
        "get",
        "/api/backgammon/move",
        "/api/backgammon/move?die1=3&die2=1&p24=2&p1=-2",
    ),
    (
        "post",
        "/api/backgammon/evaluate",
        "/api/backgammon/evaluate",
    ),
    (
        "get",
        "/api/backgammon/plays",
        "/api/backgammon/plays?dice=31",
    ),
    // Listed to check the fallback below, not in the document.
    ("get", "/nowhere", "/nowhere"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_lists_every_route_and_every_listed_route_is_served() {
    let addr = start(ServerConfig::default()).await;
    let doc = get(addr, "/openapi.json").await;
    assert_eq!(doc.status, 200);
    let doc = doc.json();
    assert_eq!(doc["openapi"], "3.0.3");
    let paths = doc["paths"].as_object().unwrap();
    for (method, route, _) in &ROUTES[..9] {
        assert!(
            paths.get(*route).and_then(|p| p.get(*method)).is_some(),
            "{method} {route} missing from /openapi.json"
        );
    }
    assert_eq!(
        paths.len(),
        9,
        "a path in the document that the test does not know"
    );
    for (method, route, path) in ROUTES {
        let body = (method == "post").then_some(r#"{"budget":{"nodes":1000}}"#);
        let body = if route.contains("evaluate") {
            Some("{}")
        } else {
            body
        };
        let answer = send(addr, &method.to_uppercase(), path, body).await;
        if route == "/nowhere" {
            assert_eq!(answer.status, 404);
            assert_eq!(answer.json()["error"]["kind"], "bad_input");
        } else {
            assert_eq!(answer.status, 200, "{method} {path}: {}", answer.body);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_version() {
    let addr = start(ServerConfig::default()).await;
    let h = get(addr, "/health").await.json();
    assert_eq!(h["status"], "ok");
    assert_eq!(h["searches"], 0);
    assert_eq!(h["max_searches"], 2);
    let v = get(addr, "/version").await.json();
    assert_eq!(v["name"], "tabula");
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["limits"]["table_mib"], 16);
}

fn expected_moves<G: Game + std::fmt::Display>(pos: &G) -> Vec<(String, String)> {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves
        .into_iter()
        .map(|m| (m.to_string(), pos.play(m).to_string()))
        .collect()
}

fn listed(v: &Value) -> Vec<(String, String)> {
    v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                m["position"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_are_the_engine_s_with_the_positions_they_lead_to() {
    let addr = start(ServerConfig::default()).await;
    let v = get(addr, "/api/bilitaire/moves").await.json();
    assert_eq!(v["game"], "bilitaire");
    let start = bilitaire::Position::start_with(bilitaire::Rules::default());
    assert_eq!(listed(&v), expected_moves(&start));
    let path = format!("/api/bilitaire/moves?position={}", encode(BILITAIRE));
    let v = get(addr, &path).await.json();
    let pos = bilitaire::Position::parse(BILITAIRE).unwrap();
    assert_eq!(v["side_to_move"], "slider");
    assert_eq!(listed(&v), expected_moves(&pos));
    assert!(!listed(&v).is_empty());

    let late = pylos_late();
    let path = format!(
        "/api/pylos/moves?rules=children&position={}",
        encode(&late.to_string())
    );
    let v = get(addr, &path).await.json();
    assert_eq!(v["position"], late.to_string());
    assert_eq!(listed(&v), expected_moves(&late));

    // The small board: nine first moves, the 3×3 start's.
    let small = pylos::Rules::default().on(pylos::Board::Three);
    let v = get(addr, "/api/pylos/moves?board=3").await.json();
    assert_eq!(v["position"], ".../.../...|../..|. b");
    assert_eq!(listed(&v), expected_moves(&pylos::Position::start(small)));
    assert_eq!(listed(&v).len(), 9);
}

/// The driver's exact value of `pos`, with no limit.
fn solved<G: tabula_solver::Searchable>(
    pos: &G,
) -> (i32, Vec<tabula_solver::search::MoveValue<G::Move>>) {
    let table = AtomicTable::with_megabytes(16);
    let config = Config {
        threads: 1,
        ..Config::default()
    };
    let driver = Driver::new(&table, config, Limits::none());
    let Solve::Solved { line, .. } = driver.solve(pos) else {
        panic!("not solved")
    };
    let values = driver.move_values(pos, line.value);
    (line.value, values)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn best_and_analyze_agree_with_the_driver() {
    let addr = start(ServerConfig::default()).await;
    // Bi-litaire: the value is proven within the budget.
    let body = format!(r#"{{"position":"{BILITAIRE}","budget":{{"time_ms":10000}}}}"#);
    let v = post(addr, "/api/bilitaire/best", &body).await.json();
    assert_eq!(v["exact"], true, "{v}");
    assert_eq!(v["value"], 18, "{v}");
    let pos = bilitaire::Position::parse(BILITAIRE).unwrap();
    let best = pos
        .parse_move(v["best"].as_str().unwrap())
        .expect("a legal best move");
    assert_eq!(v["pv"][0].as_str().unwrap(), best.to_string());

    // The analysis of a position small enough to value every move within the budget.
    let small = "--.o----/--..----/--..oo../--....o./--..----/--.o----/--..--.o/--.o--.. s";
    let body = format!(r#"{{"position":"{small}","budget":{{"time_ms":10000}}}}"#);
    let a = post(addr, "/api/bilitaire/analyze", &body).await.json();
    let pos = bilitaire::Position::parse(small).unwrap();
    let (value, values) = solved(&pos);
    assert_eq!(a["value"], value);
    assert_eq!(a["exact"], true);
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), values.len());
    for (m, v) in moves.iter().zip(&values) {
        assert_eq!(m["move"].as_str().unwrap(), v.mv.to_string());
        assert_eq!(m["position"].as_str().unwrap(), pos.play(v.mv).to_string());
        assert_eq!(m["value"], v.value.expect("proven"), "{m}");
    }
    // The best moves reach the value.
    assert!(moves.iter().any(|m| m["value"] == value));

    // Pylos: values for the side to move, with the distance.
    let late = pylos_late();
    let body =
        format!(r#"{{"position":"{late}","rules":"children","budget":{{"time_ms":10000}}}}"#);
    let v = post(addr, "/api/pylos/best", &body).await.json();
    assert_eq!(v["exact"], true, "{v}");
    let (black, values) = solved(&late);
    let mover = if late.turn() == pylos::Color::Black {
        black
    } else {
        -black
    };
    assert_eq!(v["value"], mover);
    let a = post(addr, "/api/pylos/analyze", &body).await.json();
    assert_eq!(a["value"], mover, "{a}");
    assert_eq!(a["result"], v["result"]);
    assert_eq!(a["plies"], v["plies"]);
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), values.len());
    for (m, v) in moves.iter().zip(&values) {
        assert_eq!(m["move"].as_str().unwrap(), v.mv.to_string());
        if let Some(x) = v.value {
            let x = if late.turn() == pylos::Color::Black {
                x
            } else {
                -x
            };
            assert_eq!(m["value"], x, "{m}");
            assert!(m["result"].is_string());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_small_pylos_board_is_solved_as_the_driver_solves_it() {
    let addr = start(ServerConfig::default()).await;
    let rules = pylos::Rules::new(pylos::Variant::Children, pylos::Takeback::Optional)
        .on(pylos::Board::Three);
    let start_pos = pylos::Position::start(rules);
    let (black, _) = solved(&start_pos);
    let body = r#"{"rules":"children","board":3,"budget":{"time_ms":20000}}"#;
    let v = post(addr, "/api/pylos/best", body).await.json();
    assert_eq!(v["exact"], true, "{v}");
    assert_eq!(v["position"], start_pos.to_string());
    assert_eq!(v["value"], black, "{v}");
    assert!(start_pos.parse_move(v["best"].as_str().unwrap()).is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_too_small_gives_an_honest_stopped_answer() {
    let addr = start(ServerConfig::default()).await;
    let body = r#"{"budget":{"nodes":50}}"#;
    let a = post(addr, "/api/bilitaire/analyze", body).await.json();
    assert_eq!(a["exact"], false, "{a}");
    assert_eq!(a["stopped"], true);
    assert!(a["value"].is_null());
    let start = bilitaire::Position::start_with(bilitaire::Rules::default());
    assert_eq!(
        a["moves"].as_array().unwrap().len(),
        expected_moves(&start).len()
    );
}

const START_WILDBG: &str = "p6=5&p8=3&p13=5&p24=2&p1=-2&p12=-5&p17=-3&p19=-5";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backgammon_move_is_wildbg_s_shape_with_the_advisor_s_plays() {
    use tabula_engine::backgammon::{Dice, Position};
    use tabula_gammon::advisor::Advisor;
    use tabula_gammon::cube::DEFAULT_CUBE_EFFICIENCY;
    let addr = start(ServerConfig::default()).await;
    let v = get(
        addr,
        &format!("/api/backgammon/move?die1=3&die2=1&{START_WILDBG}"),
    )
    .await;
    assert_eq!(v.status, 200, "{}", v.body);
    let v = v.json();
    let moves = v["moves"].as_array().unwrap();
    let eval = tabula_gammon::weights::shipped().unwrap();
    let options = tabula_gammon::SearchOptions {
        plies: 1,
        cache_slots: 1 << 16,
        ..Default::default()
    };
    let advisor = Advisor::new(eval, options, DEFAULT_CUBE_EFFICIENCY);
    let dice: Dice = "31".parse().unwrap();
    let ranked = advisor.plays(&Position::START, dice);
    assert_eq!(moves.len(), ranked.len());
    for (m, r) in moves.iter().zip(&ranked) {
        let steps: Vec<(u64, u64)> = m["play"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| (d["from"].as_u64().unwrap(), d["to"].as_u64().unwrap()))
            .collect();
        let expected: Vec<(u64, u64)> = r
            .play
            .steps()
            .iter()
            .map(|s| (s.from.into(), s.to.into()))
            .collect();
        assert_eq!(steps, expected);
        let p = &m["probabilities"];
        assert!((p["win"].as_f64().unwrap() - f64::from(r.probabilities[0])).abs() < 1e-6);
        assert!((p["loseBg"].as_f64().unwrap() - f64::from(r.probabilities[4])).abs() < 1e-6);
    }
    // 8/5 6/5, as `backgammon hint` answers.
    assert_eq!(ranked[0].play.notation(), "8/5 6/5");
    // Dancing on a closed board: one empty play.
    let v = get(
        addr,
        "/api/backgammon/move?die1=6&die2=6&p25=1&p19=-2&p20=-2&p21=-2&p22=-2&p23=-2&p24=-2&p6=14",
    )
    .await
    .json();
    assert_eq!(v["moves"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["moves"][0]["play"], serde_json::json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backgammon_evaluate_gives_the_cube_and_the_match_context() {
    use tabula_engine::backgammon::{MatchId, Position};
    use tabula_gammon::advisor::{cube_state, Advisor};
    use tabula_gammon::cube::DEFAULT_CUBE_EFFICIENCY;
    let addr = start(ServerConfig::default()).await;
    let v = post(addr, "/api/backgammon/evaluate", r#"{"plies":0}"#).await;
    assert_eq!(v.status, 200, "{}", v.body);
    let v = v.json();
    let eval = tabula_gammon::weights::shipped().unwrap();
    let options = tabula_gammon::SearchOptions {
        plies: 0,
        cache_slots: 1 << 16,
        ..Default::default()
    };
    let advisor = Advisor::new(eval, options, DEFAULT_CUBE_EFFICIENCY);
    let cube = advisor.cube(&Position::START, &cube_state(None));
    let p0 = (f64::from(cube.probabilities[0]) * 1e6).round() / 1e6;
    assert_eq!(v["probabilities"][0], p0);
    assert_eq!(v["cube"]["action"], cube.decision.action_text());
    assert!(v["plays"].is_null());
    assert!(v.get("match").is_none());
    // A match to 5 at 2-1 with dice 31 rolled, as a gnubg ID.
    let m = MatchId {
        match_length: 5,
        score: [2, 1],
        dice: (3, 1),
        ..MatchId::default()
    };
    let body = format!(
        r#"{{"position":"4HPwATDgc/ABMA:{}","plies":0}}"#,
        m.encode()
    );
    let v = post(addr, "/api/backgammon/evaluate", &body).await.json();
    assert_eq!(v["match"]["length"], 5, "{v}");
    assert_eq!(v["match"]["score"], serde_json::json!([2, 1]));
    assert!(v["match"]["match_equity"].as_f64().is_some());
    assert_eq!(v["dice"], "31");
    assert_eq!(v["plays"][0]["play"], "8/5 6/5");
    assert_eq!(v["side_to_move"], "o");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_a_400_naming_the_field() {
    let addr = start(ServerConfig::default()).await;
    let too_deep = format!(r#"{{"plies":{}}}"#, MAX_PLIES + 1);
    let cases: Vec<(&str, String, Option<String>, &str)> = vec![
        ("GET", "/api/chess/moves".into(), None, "game"),
        ("GET", "/api/backgammon/moves".into(), None, "game"),
        (
            "GET",
            "/api/pylos/moves?position=xyz".into(),
            None,
            "position",
        ),
        ("GET", "/api/pylos/moves?rules=kids".into(), None, "rules"),
        (
            "GET",
            "/api/pylos/moves?takeback=sometimes".into(),
            None,
            "takeback",
        ),
        (
            "GET",
            "/api/bilitaire/moves?takeback=optional".into(),
            None,
            "takeback",
        ),
        ("GET", "/api/pylos/moves?board=5".into(), None, "board"),
        ("GET", "/api/bilitaire/moves?board=3".into(), None, "board"),
        (
            "POST",
            "/api/pylos/best".into(),
            Some(r#"{"board":"three"}"#.into()),
            "board",
        ),
        (
            "POST",
            "/api/pylos/best".into(),
            Some(r#"{"board":5}"#.into()),
            "board",
        ),
        (
            "GET",
            "/api/bilitaire/moves?rules=free".into(),
            None,
            "rules",
        ),
        (
            "GET",
            "/api/bilitaire/moves?posiiton=x".into(),
            None,
            "posiiton",
        ),
        (
            "GET",
            "/api/bilitaire/moves?rules=a&rules=b".into(),
            None,
            "rules",
        ),
        (
            "POST",
            "/api/bilitaire/best".into(),
            Some("{".into()),
            "body",
        ),
        (
            "POST",
            "/api/bilitaire/best".into(),
            Some("[]".into()),
            "body",
        ),
        (
            "POST",
            "/api/bilitaire/best".into(),
            Some(r#"{"postion":"x"}"#.into()),
            "postion",
        ),
        (
            "POST",
            "/api/bilitaire/best".into(),
            Some(r#"{"position":7}"#.into()),
            "position",
        ),
        (
            "POST",
            "/api/bilitaire/best".into(),
            Some(r#"{"position":"nope"}"#.into()),
            "position",
        ),
        (
            "POST",
            "/api/pylos/analyze".into(),
            Some(r#"{"budget":{"time_ms":-1}}"#.into()),
            "budget.time_ms",
        ),
        (
            "POST",
            "/api/pylos/analyze".into(),
            Some(r#"{"budget":{"time_ms":0}}"#.into()),
            "budget.time_ms",
        ),
        (
            "POST",
            "/api/pylos/analyze".into(),
            Some(r#"{"budget":{"nodes":"many"}}"#.into()),
            "budget.nodes",
        ),
        (
            "POST",
            "/api/pylos/analyze".into(),
            Some(r#"{"budget":{"depth":3}}"#.into()),
            "depth",
        ),
        (
            "POST",
            "/api/pylos/best".into(),
            Some(r#"{"rules":"kids"}"#.into()),
            "rules",
        ),
        ("GET", "/api/backgammon/move?die2=1".into(), None, "die1"),
        (
            // A misspelt point (wildbg's points are p0..p25) is not dropped silently.
            "GET",
            "/api/backgammon/move?die1=3&die2=1&p6=5&p1=-2&p26=4".into(),
            None,
            "p26: unknown query parameter",
        ),
        (
            "GET",
            "/api/backgammon/move?die1=7&die2=1".into(),
            None,
            "die1",
        ),
        (
            "GET",
            "/api/backgammon/move?die1=3&die2=x".into(),
            None,
            "die2",
        ),
        (
            "GET",
            "/api/backgammon/move?die1=3&die2=1&p3=16".into(),
            None,
            "p3",
        ),
        (
            "GET",
            "/api/backgammon/move?die1=3&die2=1&p0=2".into(),
            None,
            "p0",
        ),
        (
            "GET",
            "/api/backgammon/move?die1=3&die2=1&p25=-1".into(),
            None,
            "p25",
        ),
        (
            "GET",
            "/api/backgammon/move?die1=3&die2=1&p1=9&p2=9".into(),
            None,
            "p0..p25",
        ),
        (
            "GET",
            "/api/backgammon/move?die1=3&die2=1".into(),
            None,
            "p0..p25",
        ),
        (
            "GET",
            "/api/backgammon/move?die1=3&die2=1&p1=1&plies=9".into(),
            None,
            "plies",
        ),
        (
            "POST",
            "/api/backgammon/evaluate".into(),
            Some(r#"{"position":"garbage"}"#.into()),
            "position",
        ),
        (
            "POST",
            "/api/backgammon/evaluate".into(),
            Some(r#"{"position":"XGID=junk"}"#.into()),
            "position",
        ),
        (
            "POST",
            "/api/backgammon/evaluate".into(),
            Some(r#"{"match_id":"!!"}"#.into()),
            "match_id",
        ),
        (
            "POST",
            "/api/backgammon/evaluate".into(),
            Some(r#"{"dice":"71"}"#.into()),
            "dice",
        ),
        (
            "POST",
            "/api/backgammon/evaluate".into(),
            Some(too_deep),
            "plies",
        ),
        (
            "POST",
            "/api/backgammon/evaluate".into(),
            Some(r#"{"plies":300}"#.into()),
            "plies",
        ),
    ];
    for (method, path, body, field) in cases {
        let answer = send(addr, method, &path, body.as_deref()).await;
        assert_eq!(
            answer.status, 400,
            "{method} {path} {body:?}: {}",
            answer.body
        );
        let v = answer.json();
        assert_eq!(v["error"]["kind"], "bad_input", "{v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(field),
            "{method} {path} {body:?}: {message}"
        );
    }
    // An endpoint asked with another method: 405 with the JSON error (and `Allow`).
    for (method, path) in [
        ("PUT", "/api/bilitaire/best"),
        ("GET", "/api/bilitaire/best"),
        ("POST", "/api/bilitaire/moves"),
        ("DELETE", "/health"),
    ] {
        let answer = send(addr, method, path, None).await;
        assert_eq!(answer.status, 405, "{method} {path}: {}", answer.body);
        let v = answer.json();
        assert_eq!(v["error"]["kind"], "bad_input", "{v}");
        assert!(
            v["error"]["message"].as_str().unwrap().contains(method),
            "{v}"
        );
    }
    // The server still serves.
    assert_eq!(get(addr, "/health").await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_body_is_a_413() {
    let config = ServerConfig {
        max_body_bytes: 1024,
        ..ServerConfig::default()
    };
    let addr = start(config).await;
    let big = format!(r#"{{"position":"{}"}}"#, "o".repeat(4096));
    let answer = post(addr, "/api/bilitaire/best", &big).await;
    assert_eq!(answer.status, 413, "{}", answer.body);
    assert_eq!(answer.json()["error"]["kind"], "bad_input");
    assert_eq!(get(addr, "/health").await.status, 200);
}

/// Polls `/health` until `searches` is `n` (at most 600 polls, 50 ms apart).
async fn wait_for_searches(addr: SocketAddr, n: u64) {
    for _ in 0..600 {
        if get(addr, "/health").await.json()["searches"] == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the server never reached {n} running searches");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_server_answers_503_and_a_client_that_leaves_stops_its_search() {
    let config = ServerConfig {
        max_searches: 1,
        max_time_ms: 120_000,
        request_timeout: Duration::from_secs(300),
        ..ServerConfig::default()
    };
    let addr = start(config).await;
    // A search of the Bi-litaire start that cannot end within its budget.
    let long = r#"{"budget":{"time_ms":120000}}"#;
    let mut first = TcpStream::connect(addr).await.unwrap();
    first
        .write_all(request_text("POST", "/api/bilitaire/best", Some(long)).as_bytes())
        .await
        .unwrap();
    wait_for_searches(addr, 1).await;
    for path in ["/api/pylos/best", "/api/backgammon/evaluate"] {
        let busy = post(addr, path, "{}").await;
        assert_eq!(busy.status, 503, "{}", busy.body);
        let retry: u64 = busy
            .header("retry-after")
            .expect("Retry-After")
            .parse()
            .unwrap();
        assert!(retry >= 1);
        assert_eq!(busy.json()["error"]["kind"], "interrupted");
    }
    // Cheap requests are still served.
    assert_eq!(get(addr, "/api/pylos/moves").await.status, 200);
    // The client goes away: its search stops and frees the slot.
    drop(first);
    wait_for_searches(addr, 0).await;
    let ok = post(addr, "/api/pylos/best", r#"{"budget":{"nodes":1000}}"#).await;
    assert_eq!(ok.status, 200, "{}", ok.body);
}

/// Reads what the server sends until it closes the connection (a reset counts as a close),
/// failing the test if it has not closed it within `bound` (a hang, not a speed limit).
async fn read_until_closed(stream: &mut TcpStream, bound: Duration) -> Vec<u8> {
    let mut raw = Vec::new();
    match tokio::time::timeout(bound, stream.read_to_end(&mut raw)).await {
        Ok(_) => raw,
        Err(_) => panic!("the server did not close the connection within {bound:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_trickling_its_request_head_is_cut_off_while_others_are_served() {
    let config = ServerConfig {
        header_read_timeout: Duration::from_millis(300),
        ..ServerConfig::default()
    };
    let addr = start(config).await;
    // Half a request line, then nothing; and a client that never sends a byte.
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"GET /api/pylos/mo").await.unwrap();
    let mut silent = TcpStream::connect(addr).await.unwrap();
    // Others are served meanwhile.
    assert_eq!(get(addr, "/health").await.status, 200);
    let ok = post(addr, "/api/pylos/best", r#"{"budget":{"nodes":1000}}"#).await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    // Both are closed after the header timeout, with no answer but perhaps a 408.
    for stream in [&mut slow, &mut silent] {
        let raw = read_until_closed(stream, Duration::from_secs(60)).await;
        let text = String::from_utf8_lossy(&raw);
        assert!(raw.is_empty() || text.starts_with("HTTP/1.1 408"), "{text}");
    }
    assert_eq!(get(addr, "/health").await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_leaving_mid_body_frees_its_connection() {
    // One connection at once: the next request is served only once the first is closed.
    let config = ServerConfig {
        max_connections: 1,
        ..ServerConfig::default()
    };
    let addr = start(config).await;
    for _ in 0..3 {
        let mut leaver = TcpStream::connect(addr).await.unwrap();
        leaver
            .write_all(
                b"POST /api/bilitaire/best HTTP/1.1\r\nHost: localhost\r\n\
                  Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"budget\":",
            )
            .await
            .unwrap();
        drop(leaver);
        let ok = post(addr, "/api/pylos/best", r#"{"budget":{"nodes":1000}}"#).await;
        assert_eq!(ok.status, 200, "{}", ok.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_bytes_get_a_400_or_a_close_and_others_are_served() {
    let addr = start(ServerConfig::default()).await;
    let garbage: [&[u8]; 4] = [
        b"\x00\xff\xfe\x16\x03\x01 not http at all\r\n\r\n",
        b"GET / HTTP/9.9\r\n\r\n",
        b"GET /health HTTP/1.1\r\nHost: localhost\r\nContent-Length: lots\r\n\r\n",
        b"\r\n\r\n\r\n\x7f\x7f\x7f\r\n\r\n",
    ];
    for bytes in garbage {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(bytes).await.unwrap();
        let raw = read_until_closed(&mut stream, Duration::from_secs(60)).await;
        let text = String::from_utf8_lossy(&raw);
        assert!(
            raw.is_empty() || text.starts_with("HTTP/1.1 400"),
            "{:?}: {text}",
            String::from_utf8_lossy(bytes)
        );
        assert_eq!(get(addr, "/health").await.status, 200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_and_its_assets_are_served_with_their_types_and_no_other_origin() {
    let addr = start(ServerConfig::default()).await;
    let page = get(addr, "/").await;
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert!(page.body.contains(r#"<svg id="board""#), "{}", page.body);
    let csp = page.header("content-security-policy").unwrap_or("");
    assert!(csp.contains("default-src 'self'"), "{csp}");
    // Everything the page loads is one of the assets below or inline data.
    let mut refs = Vec::new();
    for attr in ["src=\"", "href=\""] {
        for (i, _) in page.body.match_indices(attr) {
            let rest = &page.body[i + attr.len()..];
            refs.push(rest[..rest.find('"').unwrap()].to_string());
        }
    }
    assert!(refs.contains(&"/static/app.js".to_string()), "{refs:?}");
    assert!(refs.contains(&"/static/style.css".to_string()), "{refs:?}");
    for r in &refs {
        assert!(r.starts_with('/') || r.starts_with("data:"), "{r}");
    }
    for (path, kind, mark) in [
        (
            "/static/app.js",
            "text/javascript; charset=utf-8",
            "/api/backgammon/plays",
        ),
        ("/static/style.css", "text/css; charset=utf-8", "#board"),
    ] {
        let asset = get(addr, path).await;
        assert_eq!(asset.status, 200, "{path}");
        assert_eq!(asset.header("content-type"), Some(kind), "{path}");
        assert_eq!(asset.header("x-content-type-options"), Some("nosniff"));
        assert!(asset.body.contains(mark), "{path} lacks {mark}");
        // No other origin: the only absolute address is the SVG namespace.
        let outside = asset
            .body
            .replace("http://www.w3.org/2000/svg", "")
            .contains("://");
        assert!(!outside, "{path} names another origin");
    }
    assert_eq!(get(addr, "/static/nothing.js").await.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backgammon_plays_are_the_engine_s_with_the_positions_they_lead_to() {
    let addr = start(ServerConfig::default()).await;
    for dice in ["31", "66", "52"] {
        let d: Dice = dice.parse().unwrap();
        let answer = get(addr, &format!("/api/backgammon/plays?dice={dice}")).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        let v = answer.json();
        assert_eq!(v["position"], Gammon::START.position_id());
        assert_eq!(v["dice"], d.to_string());
        assert_eq!(v["game_over"], false);
        for (side, key) in [(Side::OnRoll, "on_roll"), (Side::Opponent, "opponent")] {
            let counts = Gammon::START.counts(side);
            let listed: Vec<u8> = v[key]["points"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_u64().unwrap() as u8)
                .collect();
            assert_eq!(listed, counts[..24].to_vec());
            assert_eq!(v[key]["pips"], Gammon::START.pips(side));
        }
        let mut expected: Vec<(String, String)> = Gammon::START
            .plays(d)
            .iter()
            .map(|p| (p.notation(), p.result().position_id()))
            .collect();
        let plays = v["plays"].as_array().unwrap();
        let mut got: Vec<(String, String)> = plays
            .iter()
            .map(|p| {
                (
                    p["play"].as_str().unwrap().to_string(),
                    p["position"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "dice {dice}");
        // Each play's steps, applied as a play, give the same position.
        for p in plays {
            let text: Vec<String> = p["steps"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    let point = |n: u64| match n {
                        25 => "bar".to_string(),
                        0 => "off".to_string(),
                        n => n.to_string(),
                    };
                    format!(
                        "{}/{}",
                        point(s["from"].as_u64().unwrap()),
                        point(s["to"].as_u64().unwrap())
                    )
                })
                .collect();
            let played = Gammon::START.parse_play(d, &text.join(" ")).unwrap();
            assert_eq!(played.result().position_id(), p["position"], "{text:?}");
        }
    }
    // Without dice: the board alone.
    let v = get(addr, "/api/backgammon/plays").await.json();
    assert_eq!(v["plays"].as_array().unwrap().len(), 0);
    assert_eq!(v["dice"], Value::Null);
    // A closed board with a checker on the bar: the one empty play passes the turn.
    let mut on_roll = [0u8; 25];
    let mut opponent = [0u8; 25];
    on_roll[24] = 1;
    on_roll[0] = 14;
    opponent[..6].fill(2);
    let closed = Gammon::from_counts(on_roll, opponent).unwrap();
    let d: Dice = "64".parse().unwrap();
    assert!(closed.plays(d).is_empty());
    let path = format!(
        "/api/backgammon/plays?dice=64&position={}",
        encode(&closed.position_id())
    );
    let v = get(addr, &path).await.json();
    assert_eq!(v["on_roll"]["bar"], 1);
    assert_eq!(v["plays"].as_array().unwrap().len(), 1);
    assert_eq!(v["plays"][0]["play"], "");
    assert_eq!(v["plays"][0]["position"], closed.swapped().position_id());
    // A finished game: how the player on roll lost, and no plays even with dice.
    let mut loser = [0u8; 25];
    loser[0] = 15;
    let over = Gammon::from_counts(loser, [0; 25]).unwrap();
    let path = format!(
        "/api/backgammon/plays?dice=31&position={}",
        encode(&over.position_id())
    );
    let v = get(addr, &path).await.json();
    assert_eq!(v["game_over"], true);
    let kind = format!("{:?}", over.loss_kind().unwrap()).to_lowercase();
    assert_eq!(v["loss"], kind.as_str());
    assert_eq!(v["plays"].as_array().unwrap().len(), 0);
    // An XGID gives its position and its dice.
    let xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10";
    let v = get(
        addr,
        &format!("/api/backgammon/plays?position={}", encode(xgid)),
    )
    .await
    .json();
    assert_eq!(v["dice"], "52");
    assert!(!v["plays"].as_array().unwrap().is_empty());
    // Bad input names the field.
    for (query, field) in [
        ("dice=71", "dice"),
        ("position=nonsense", "position"),
        ("dice=31&dice=42", "dice"),
        ("die=31", "die"),
    ] {
        let a = get(addr, &format!("/api/backgammon/plays?{query}")).await;
        assert_eq!(a.status, 400, "{query}: {}", a.body);
        let message = a.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(message.starts_with(field), "{query}: {message}");
    }
}

/// In a back game at 2 plies the cube comes from a rollout of `cube_rollouts` trials (324 by
/// default) and the answer says so; 0 leaves it to the search; more than the server's cap is
/// a 400 naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backgammon_evaluate_rolls_out_a_back_games_cube() {
    let addr = start(ServerConfig::default()).await;
    // An ace-deuce back game: the opponent holds the roller's 1- and 2-points.
    let ask = |trials: u64| {
        format!(r#"{{"position":"0HMAwDvc3ZYAAA","plies":2,"cube_rollouts":{trials}}}"#)
    };
    let v = post(addr, "/api/backgammon/evaluate", &ask(36)).await;
    assert_eq!(v.status, 200, "{}", v.body);
    let v = v.json();
    assert_eq!(v["cube"]["rollout"]["trials"], 36, "{v}");
    let searched = post(addr, "/api/backgammon/evaluate", &ask(0)).await.json();
    assert!(searched["cube"].get("rollout").is_none(), "{searched}");
    assert_ne!(searched["probabilities"], v["probabilities"]);
    for too_many in [DEFAULT_MAX_CUBE_ROLLOUTS + 1, 11665] {
        let r = post(addr, "/api/backgammon/evaluate", &ask(too_many)).await;
        assert_eq!(r.status, 400, "{}", r.body);
        assert!(r.body.contains("cube_rollouts"), "{}", r.body);
    }
    let v = get(addr, "/version").await.json();
    assert_eq!(v["limits"]["max_cube_rollouts"], DEFAULT_MAX_CUBE_ROLLOUTS);
}

/// The server's cap on the cube rollout: a request without the field gets the default trials
/// or the cap if lower (0: the search decides every cube); one asking more than the cap is a
/// 400 naming the field; `/version` and the OpenAPI document state the cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backgammon_evaluate_keeps_the_servers_rollout_cap() {
    let ask = |trials: Option<u64>| match trials {
        None => r#"{"position":"0HMAwDvc3ZYAAA","plies":2}"#.to_string(),
        Some(t) => format!(r#"{{"position":"0HMAwDvc3ZYAAA","plies":2,"cube_rollouts":{t}}}"#),
    };
    for cap in [36, 0] {
        let addr = start(ServerConfig {
            max_cube_rollouts: cap,
            ..ServerConfig::default()
        })
        .await;
        let v = post(addr, "/api/backgammon/evaluate", &ask(None)).await;
        assert_eq!(v.status, 200, "{}", v.body);
        let rollout = &v.json()["cube"]["rollout"];
        if cap == 0 {
            assert!(rollout.is_null(), "{}", v.body);
        } else {
            assert_eq!(rollout["trials"], cap, "{}", v.body);
        }
        let r = post(addr, "/api/backgammon/evaluate", &ask(Some(cap + 1))).await;
        assert_eq!(r.status, 400, "{}", r.body);
        let message = r.json()["error"]["message"].as_str().unwrap().to_string();
        let expected = format!("cube_rollouts: {}: at most {cap}", cap + 1);
        assert!(message.starts_with(&expected), "{message}");
        let version = get(addr, "/version").await.json();
        assert_eq!(version["limits"]["max_cube_rollouts"], cap, "{version}");
        let doc = get(addr, "/openapi.json").await.json();
        let field = &doc["components"]["schemas"]["EvaluateRequest"]["properties"]["cube_rollouts"];
        assert_eq!(field["maximum"], cap, "{field}");
    }
}
