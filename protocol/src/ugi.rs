//! UGI mode: Bi-litaire and Pylos over a protocol modelled on UCI and the cutegames Universal
//! Game Interface (UCI plus `query`).
//!
//! | command | answer |
//! |---|---|
//! | `ugi` | `id name …`, `id author …`, `option …` lines, `ugiok` |
//! | `isready` | `readyok` (the table is allocated first when its size changed) |
//! | `setoption name Hash\|Threads\|Game\|Rules\|Takeback value V` | nothing |
//! | `uginewgame` | nothing (the table is cleared, the position reset) |
//! | `game bilitaire\|pylos [rules R] [takeback T]` | nothing (a new game at the start) |
//! | `position startpos\|start\|fen <position string>\|<position string> [moves M…]` | nothing |
//! | `validmoves` | `validmoves M…` |
//! | `perft N` | `perft N nodes X` (N ≤ [`MAX_PERFT`]; the first moves counted on `Threads` threads) |
//! | `go [movetime MS] [nodes N] [depth D] [infinite]` | `info depth … score … nodes … nps … time … pv …` lines, then `bestmove M` |
//! | `stop` | the running search ends and sends its `bestmove` |
//! | `query gameover\|result\|p1turn\|tomove` | `response …` |
//! | `quit` | nothing; the session ends |
//!
//! `score` is `balls N` for Bi-litaire (balls left under best play, the slider's payoff),
//! `win P`/`loss P`/`draw` for Pylos when proven (P plies, for the side to move) and `cp V`
//! (the heuristic value for the side to move) otherwise; a proven score is followed by
//! `exact`. The search runs on a thread of its own; `bestmove` is sent when it ends: when the
//! value is proven, a limit is reached, or `stop` is received (also under `infinite`).

use crate::{first_word, shorten, ErrorCode, Flag, ProtocolError, Reply, SessionConfig, Sink};
use std::fmt::Display;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use tabula_engine::{bilitaire, pylos, Game};
use tabula_solver::driver::{refusal, Analysis, Config, Driver, Limits, Solve};
use tabula_solver::games::verdict;
use tabula_solver::{AtomicTable, Searchable};

/// The deepest `perft` served (deeper counts take minutes and cannot be stopped).
pub const MAX_PERFT: u32 = 8;

/// The deepest iteration of a `go` without `depth`.
const MAX_DEPTH: u8 = 254;

/// The game and rules being played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameKind {
    Bilitaire(bilitaire::Rules),
    Pylos(pylos::Rules),
}

impl GameKind {
    fn start(self) -> Pos {
        match self {
            GameKind::Bilitaire(r) => Pos::Bilitaire(bilitaire::Position::start_with(r)),
            GameKind::Pylos(r) => Pos::Pylos(pylos::Position::start(r)),
        }
    }

    fn name(self) -> &'static str {
        match self {
            GameKind::Bilitaire(_) => "bilitaire",
            GameKind::Pylos(_) => "pylos",
        }
    }
}

/// A position of either game.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pos {
    Bilitaire(bilitaire::Position),
    Pylos(pylos::Position),
}

/// What the UGI commands need of a game.
trait UgiGame: Searchable + Display + 'static {
    /// Parses a move of this position.
    fn parse(&self, text: &str) -> Result<Self::Move, String>;
    /// The score words of a value (`balls 12 exact`, `win 15 exact`, `cp -40`).
    fn score(&self, value: i32, exact: bool) -> String;
    fn over(&self) -> bool;
    /// `query result`: the result of a finished game.
    fn result(&self) -> String;
    /// `query tomove`.
    fn to_move_name(&self) -> &'static str;
    /// `query p1turn`: the first player (Bi-litaire's ball player, Pylos's black) moves.
    fn p1_turn(&self) -> bool;
}

impl UgiGame for bilitaire::Position {
    fn parse(&self, text: &str) -> Result<Self::Move, String> {
        self.parse_move(text).map_err(|e| e.to_string())
    }
    fn score(&self, value: i32, exact: bool) -> String {
        format!("balls {value}{}", if exact { " exact" } else { "" })
    }
    fn over(&self) -> bool {
        self.is_over()
    }
    fn result(&self) -> String {
        format!("balls {}", self.ball_count())
    }
    fn to_move_name(&self) -> &'static str {
        match self.side() {
            bilitaire::Side::Slider => "slider",
            _ => "ball",
        }
    }
    fn p1_turn(&self) -> bool {
        self.side() != bilitaire::Side::Slider
    }
}

impl UgiGame for pylos::Position {
    fn parse(&self, text: &str) -> Result<Self::Move, String> {
        self.parse_move(text).map_err(|e| e.to_string())
    }
    fn score(&self, value: i32, exact: bool) -> String {
        let v = verdict(self, value, exact);
        match (v.result, v.plies) {
            (r, Some(p)) => format!("{r} {p} exact"),
            ("draw", None) if v.exact => "draw exact".into(),
            _ => format!("cp {}", v.value),
        }
    }
    fn over(&self) -> bool {
        self.winner().is_some()
    }
    fn result(&self) -> String {
        match self.winner() {
            Some(c) => format!("{} wins", color(c)),
            None => "none".into(),
        }
    }
    fn to_move_name(&self) -> &'static str {
        color(self.turn())
    }
    fn p1_turn(&self) -> bool {
        self.turn() == pylos::Color::Black
    }
}

fn color(c: pylos::Color) -> &'static str {
    match c {
        pylos::Color::Black => "black",
        pylos::Color::White => "white",
    }
}

/// The limits of one `go`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Go {
    movetime: Option<u64>,
    nodes: Option<u64>,
    depth: Option<u8>,
    infinite: bool,
}

/// A UGI session: the game, the position, the options, the table and the running search.
pub struct Ugi {
    sink: Sink,
    config: SessionConfig,
    game: GameKind,
    pos: Pos,
    hash_mib: u64,
    threads: usize,
    table: Option<Arc<AtomicTable>>,
    flag: Flag,
    job: Option<JoinHandle<()>>,
    /// Set by the running search just before it sends `bestmove`: from then on the session
    /// takes commands (it waits for the search's thread to end, a moment, instead of answering
    /// `search_in_progress` to a client that answered the `bestmove` at once).
    job_done: Arc<AtomicBool>,
    /// The running search ends by itself (not `go infinite`).
    job_bounded: bool,
    quit: bool,
}

impl std::fmt::Debug for Ugi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ugi")
            .field("game", &self.game)
            .field("pos", &self.pos)
            .field("hash_mib", &self.hash_mib)
            .field("threads", &self.threads)
            .finish()
    }
}

impl Drop for Ugi {
    fn drop(&mut self) {
        self.stop_search();
    }
}

/// The perft count of `pos` to `depth`, its first moves shared among `threads` threads (the
/// count is the same for any number).
fn count<G: Game>(pos: &G, depth: u32, threads: usize) -> u64 {
    if depth < 2 {
        return tabula_engine::perft::perft(pos, depth);
    }
    // Never stopped, so every first move comes with its count.
    let never = AtomicBool::new(false);
    tabula_solver::perft::divide_on_threads(pos, depth, threads, &never, |_| {})
        .iter()
        .map(|(_, n)| n.unwrap_or(0))
        .sum()
}

fn bad(message: impl Into<String>) -> ProtocolError {
    ProtocolError::bad(message)
}

fn parse_num<T: std::str::FromStr>(what: &str, text: Option<&str>) -> Result<T, ProtocolError> {
    let text = text.ok_or_else(|| bad(format!("{what}: a number is missing")))?;
    text.parse()
        .map_err(|_| bad(format!("{what}: {:?} is not a number", shorten(text))))
}

impl Ugi {
    /// A session playing Bi-litaire (standard rules) from the start until `game` says
    /// otherwise.
    pub fn new(sink: Sink, config: SessionConfig) -> Ugi {
        let game = GameKind::Bilitaire(bilitaire::Rules::default());
        Ugi {
            sink,
            config,
            game,
            pos: game.start(),
            hash_mib: 64.min(config.max_hash_mib),
            threads: 1,
            table: None,
            flag: Flag::take(),
            job: None,
            job_done: Arc::new(AtomicBool::new(false)),
            job_bounded: false,
            quit: false,
        }
    }

    pub(crate) fn quit_requested(&self) -> bool {
        self.quit
    }

    /// True while a search runs (a finished one, or one that has sent its `bestmove`, is
    /// collected).
    pub fn searching(&mut self) -> bool {
        let done = self.job_done.load(Ordering::SeqCst);
        if self.job.as_ref().is_some_and(|j| done || j.is_finished()) {
            if let Some(j) = self.job.take() {
                let _ = j.join();
            }
        }
        self.job.is_some()
    }

    /// Stops the running search and waits for its `bestmove`.
    pub fn stop_search(&mut self) {
        if let Some(job) = self.job.take() {
            self.flag.get().store(true, Ordering::SeqCst);
            let _ = job.join();
        }
    }

    /// The end of input: a search that ends by itself is waited for, `go infinite` stopped.
    pub fn finish(&mut self) {
        if self.job_bounded {
            if let Some(job) = self.job.take() {
                let _ = job.join();
            }
        }
        self.stop_search();
    }

    /// Handles one command line.
    pub fn handle(&mut self, line: &str) -> Reply {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = words.split_first() else {
            return Ok(Vec::new());
        };
        let searching = self.searching();
        match cmd {
            "isready" => {
                if !searching {
                    self.ensure_table()?;
                }
                return Ok(vec!["readyok".into()]);
            }
            "stop" => {
                self.stop_search();
                return Ok(Vec::new());
            }
            "quit" => {
                self.stop_search();
                self.quit = true;
                return Ok(Vec::new());
            }
            "query" => return self.query(args),
            _ => {}
        }
        if searching {
            return Err(ProtocolError::new(
                ErrorCode::SearchInProgress,
                format!("`{cmd}` while a search runs: send `stop` first"),
            ));
        }
        match cmd {
            "ugi" => Ok(self.hello()),
            "setoption" => self.setoption(args),
            "uginewgame" => {
                self.table = None;
                self.pos = self.game.start();
                Ok(Vec::new())
            }
            "game" => self.game_command(args),
            "position" => self.position(args),
            "validmoves" => Ok(vec![self.validmoves()]),
            "perft" => self.perft(args),
            "go" => self.go(args),
            _ => Err(ProtocolError::new(
                ErrorCode::UnknownCommand,
                format!("unknown command {:?}", first_word(line)),
            )),
        }
    }

    fn hello(&self) -> Vec<String> {
        vec![
            format!("id name Tabula {}", env!("CARGO_PKG_VERSION")),
            "id author the Tabula developers".into(),
            format!(
                "option name Hash type spin default {} min 1 max {}",
                64.min(self.config.max_hash_mib),
                self.config.max_hash_mib
            ),
            format!(
                "option name Threads type spin default 1 min 1 max {}",
                self.config.max_threads
            ),
            "option name Game type combo default bilitaire var bilitaire var pylos".into(),
            "option name Rules type string default standard".into(),
            "option name Takeback type combo default optional var optional var compulsory".into(),
            "ugiok".into(),
        ]
    }

    /// The table, allocated at the size of `Hash` when it is missing or of another size.
    fn ensure_table(&mut self) -> Result<Arc<AtomicTable>, ProtocolError> {
        if let Some(t) = &self.table {
            return Ok(t.clone());
        }
        let mib = usize::try_from(self.hash_mib).unwrap_or(usize::MAX);
        let table = AtomicTable::try_with_megabytes(mib, |_, _| {}).map_err(|e| {
            bad(format!(
                "Hash {}: the table cannot be allocated ({e}); set a smaller Hash",
                self.hash_mib
            ))
        })?;
        let table = Arc::new(table);
        self.table = Some(table.clone());
        Ok(table)
    }

    fn setoption(&mut self, args: &[&str]) -> Reply {
        // setoption name <Name> [value <Value>]
        let (name, value) = match args {
            ["name", name, "value", value @ ..] if !value.is_empty() => (*name, value.join(" ")),
            ["name", name] => (*name, String::new()),
            _ => return Err(bad("expected `setoption name <Name> value <Value>`")),
        };
        match name.to_ascii_lowercase().as_str() {
            "hash" => {
                let mib: u64 = parse_num("Hash", Some(&value))?;
                if !(1..=self.config.max_hash_mib).contains(&mib) {
                    return Err(bad(format!(
                        "Hash {mib}: expected 1 to {} (MiB)",
                        self.config.max_hash_mib
                    )));
                }
                if mib != self.hash_mib {
                    self.hash_mib = mib;
                    self.table = None;
                }
            }
            "threads" => {
                let n: usize = parse_num("Threads", Some(&value))?;
                if !(1..=self.config.max_threads).contains(&n) {
                    return Err(bad(format!(
                        "Threads {n}: expected 1 to {}",
                        self.config.max_threads
                    )));
                }
                self.threads = n;
            }
            "game" => return self.game_command(&[value.as_str()]),
            "rules" => {
                let words = ["rules", value.as_str()];
                return self.game_command(&[&[self.game.name()], &words[..]].concat());
            }
            "takeback" => {
                let words = ["takeback", value.as_str()];
                return self.game_command(&[&[self.game.name()], &words[..]].concat());
            }
            _ => {
                return Err(ProtocolError::new(
                    ErrorCode::UnsupportedFeature,
                    format!("no option named {:?}", shorten(name)),
                ))
            }
        }
        Ok(Vec::new())
    }

    /// `game bilitaire|pylos [rules R] [takeback T] [board 4|3]`: a new game at the start
    /// position.
    fn game_command(&mut self, args: &[&str]) -> Reply {
        let Some((&name, mut rest)) = args.split_first() else {
            return Err(bad(
                "expected `game bilitaire|pylos [rules R] [takeback T] [board 4|3]`",
            ));
        };
        let (mut rules, mut takeback, mut board) = (None, None, None);
        while let Some((&key, tail)) = rest.split_first() {
            let Some((&value, tail)) = tail.split_first() else {
                return Err(bad(format!("game: `{}` needs a value", shorten(key))));
            };
            match key {
                "rules" => rules = Some(value),
                "takeback" => takeback = Some(value),
                "board" => board = Some(value),
                _ => return Err(bad(format!("game: unknown option {:?}", shorten(key)))),
            }
            rest = tail;
        }
        let game = match name {
            "bilitaire" => {
                if takeback.is_some() || board.is_some() {
                    return Err(bad(
                        "game bilitaire: `takeback` and `board` are Pylos options",
                    ));
                }
                let free_chains = match rules.unwrap_or("standard") {
                    "standard" => false,
                    "free-chains" => true,
                    other => {
                        return Err(bad(format!(
                            "game bilitaire: rules {:?}: expected standard or free-chains",
                            shorten(other)
                        )))
                    }
                };
                GameKind::Bilitaire(bilitaire::Rules { free_chains })
            }
            "pylos" => {
                let current = match self.game {
                    GameKind::Pylos(r) => r,
                    GameKind::Bilitaire(_) => pylos::Rules::default(),
                };
                let variant = match rules {
                    Some(r) => r.parse().map_err(|_| {
                        bad(format!(
                            "game pylos: rules {:?}: expected children, standard or mature",
                            shorten(r)
                        ))
                    })?,
                    None if args.len() == 1 => pylos::Rules::default().variant,
                    None => current.variant,
                };
                let takeback = match takeback {
                    Some(t) => t.parse().map_err(|_| {
                        bad(format!(
                            "game pylos: takeback {:?}: expected optional or compulsory",
                            shorten(t)
                        ))
                    })?,
                    None if args.len() == 1 => pylos::Rules::default().takeback,
                    None => current.takeback,
                };
                let board = match board {
                    Some(b) => b.parse().map_err(|_| {
                        bad(format!(
                            "game pylos: board {:?}: expected 4 or 3",
                            shorten(b)
                        ))
                    })?,
                    None if args.len() == 1 => pylos::Board::Four,
                    None => current.board,
                };
                GameKind::Pylos(pylos::Rules::new(variant, takeback).on(board))
            }
            other => {
                return Err(bad(format!(
                "unknown game {:?}: expected bilitaire or pylos (backgammon: start with `ubgi`)",
                shorten(other)
            )))
            }
        };
        if game != self.game {
            self.table = None;
        }
        self.game = game;
        self.pos = game.start();
        Ok(Vec::new())
    }

    /// `position startpos|start|fen <text>|<text> [moves …]`. On any error the position is
    /// unchanged.
    fn position(&mut self, args: &[&str]) -> Reply {
        let split = args.iter().position(|w| *w == "moves");
        let (spec, moves) = match split {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        let spec = match spec {
            ["fen", rest @ ..] => rest,
            other => other,
        };
        let start = match spec {
            [] => return Err(bad("position: expected startpos or a position string")),
            ["startpos"] | ["start"] => self.game.start(),
            words => {
                let text = words.join(" ");
                match self.game {
                    GameKind::Bilitaire(r) => bilitaire::Position::parse_with(&text, r)
                        .map(Pos::Bilitaire)
                        .map_err(|e| bad(format!("invalid Bi-litaire position: {e}")))?,
                    GameKind::Pylos(r) => pylos::Position::parse(&text, r)
                        .map(Pos::Pylos)
                        .map_err(|e| bad(format!("invalid Pylos position: {e}")))?,
                }
            }
        };
        self.pos = match start {
            Pos::Bilitaire(p) => Pos::Bilitaire(play_moves(p, moves)?),
            Pos::Pylos(p) => Pos::Pylos(play_moves(p, moves)?),
        };
        Ok(Vec::new())
    }

    fn validmoves(&self) -> String {
        fn list<G: Game>(pos: &G) -> String {
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            let mut line = String::from("validmoves");
            for m in moves {
                line.push(' ');
                line.push_str(&m.to_string());
            }
            line
        }
        match &self.pos {
            Pos::Bilitaire(p) => list(p),
            Pos::Pylos(p) => list(p),
        }
    }

    fn perft(&self, args: &[&str]) -> Reply {
        if args.len() > 1 {
            return Err(bad("expected `perft N`"));
        }
        let depth: u32 = parse_num("perft", args.first().copied())?;
        if depth > MAX_PERFT {
            return Err(bad(format!(
                "perft {depth}: at most {MAX_PERFT} here (use `tabula … perft` for deeper counts)"
            )));
        }
        let nodes = match &self.pos {
            Pos::Bilitaire(p) => count(p, depth, self.threads),
            Pos::Pylos(p) => count(p, depth, self.threads),
        };
        Ok(vec![format!("perft {depth} nodes {nodes}")])
    }

    fn parse_go(args: &[&str]) -> Result<Go, ProtocolError> {
        let mut go = Go::default();
        let mut rest = args;
        while let Some((&key, tail)) = rest.split_first() {
            rest = tail;
            let mut value = |what: &str| -> Result<u64, ProtocolError> {
                let (v, tail) = rest
                    .split_first()
                    .ok_or_else(|| bad(format!("go {what}: a number is missing")))?;
                rest = tail;
                let n: u64 = parse_num(&format!("go {what}"), Some(v))?;
                if n == 0 {
                    return Err(bad(format!("go {what}: must be at least 1")));
                }
                Ok(n)
            };
            match key {
                "movetime" => go.movetime = Some(value("movetime")?.min(1 << 40)),
                "nodes" => go.nodes = Some(value("nodes")?),
                "depth" => {
                    let d = value("depth")?;
                    go.depth = Some(
                        u8::try_from(d)
                            .ok()
                            .filter(|&d| d <= MAX_DEPTH)
                            .ok_or_else(|| {
                                bad(format!("go depth {d}: expected 1 to {MAX_DEPTH}"))
                            })?,
                    );
                }
                "infinite" => go.infinite = true,
                // UCI's clock parameters: accepted, not used (the engine plays by movetime).
                "wtime" | "btime" | "winc" | "binc" | "movestogo" | "p1time" | "p2time"
                | "p1inc" | "p2inc" => {
                    value(key)?;
                }
                other => return Err(bad(format!("go: unknown parameter {:?}", shorten(other)))),
            }
        }
        Ok(go)
    }

    fn go(&mut self, args: &[&str]) -> Reply {
        let go = Self::parse_go(args)?;
        let table = self.ensure_table()?;
        self.flag.get().store(false, Ordering::SeqCst);
        let limits = Limits {
            time: go.movetime.map(Duration::from_millis),
            nodes: go.nodes,
            interrupt: Some(self.flag.get()),
        };
        let config = Config {
            threads: self.threads,
            ..Config::default()
        };
        let bounded = !go.infinite;
        let depth = go.depth.unwrap_or(MAX_DEPTH);
        let done = Arc::new(AtomicBool::new(false));
        let sink: Sink = {
            let (inner, done) = (self.sink.clone(), done.clone());
            Arc::new(move |line: String| {
                if line.starts_with("bestmove") {
                    done.store(true, Ordering::SeqCst);
                }
                inner(line)
            })
        };
        let job = match &self.pos {
            Pos::Bilitaire(p) => spawn(*p, go, table, config, limits, depth, sink)?,
            Pos::Pylos(p) => spawn(*p, go, table, config, limits, depth, sink)?,
        };
        self.job = Some(job);
        self.job_done = done;
        self.job_bounded = bounded;
        Ok(Vec::new())
    }

    fn query(&self, args: &[&str]) -> Reply {
        fn answer<G: UgiGame>(pos: &G, what: &str) -> Reply {
            let r = match what {
                "gameover" => pos.over().to_string(),
                "result" if pos.over() => pos.result(),
                "result" => "none".into(),
                "p1turn" => pos.p1_turn().to_string(),
                "tomove" => pos.to_move_name().into(),
                "position" => pos.to_string(),
                other => {
                    return Err(bad(format!(
                        "query {:?}: expected gameover, result, p1turn, tomove or position",
                        shorten(other)
                    )))
                }
            };
            Ok(vec![format!("response {r}")])
        }
        let [what] = args else {
            return Err(bad(
                "expected `query gameover|result|p1turn|tomove|position`",
            ));
        };
        match &self.pos {
            Pos::Bilitaire(p) => answer(p, what),
            Pos::Pylos(p) => answer(p, what),
        }
    }
}

/// `bestmove M`: the search's move, else the first legal move (a search stopped before it
/// had one), else `(none)`.
fn bestmove<G: UgiGame>(pos: &G, best: Option<G::Move>) -> String {
    let best = best.or_else(|| {
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        moves.first().copied()
    });
    format!(
        "bestmove {}",
        best.map(|m| m.to_string())
            .unwrap_or_else(|| "(none)".into())
    )
}

/// Plays `moves` from `pos`; the error names the move that failed.
fn play_moves<G: UgiGame>(mut pos: G, moves: &[&str]) -> Result<G, ProtocolError> {
    for (i, text) in moves.iter().enumerate() {
        let mv = pos
            .parse(text)
            .map_err(|e| bad(format!("move #{} {:?}: {e}", i + 1, shorten(text))))?;
        pos = pos.play(mv);
    }
    Ok(pos)
}

/// Starts the search of `pos` on a thread of its own: `info` lines per finished depth, a last
/// `info` with the whole principal variation, then `bestmove`.
fn spawn<G: UgiGame>(
    pos: G,
    go: Go,
    table: Arc<AtomicTable>,
    config: Config,
    limits: Limits,
    depth: u8,
    sink: Sink,
) -> Result<JoinHandle<()>, ProtocolError> {
    if pos.over() {
        return Err(ProtocolError::new(
            ErrorCode::MissingContext,
            "the game is over: no move to search",
        ));
    }
    let plain = go == Go::default();
    if !go.infinite && go.depth.is_none() {
        if let Some(why) = refusal(&pos, &limits) {
            return Err(bad(format!(
                "{why} (give go movetime, nodes, depth or infinite)"
            )));
        }
    }
    std::thread::Builder::new()
        .name("tabula-search".into())
        .spawn(move || {
            let driver = Driver::new(&*table, config, limits);
            let nps = |nodes: u64, time: Duration| nodes as f64 / time.as_secs_f64().max(1e-3);
            // A plain `go` on a finite game tree is solved exactly (MTD(f)); any limit, or a
            // game whose positions repeat, deepens iteratively (anytime answers).
            if plain && pos.finite() {
                let best = match driver.solve(&pos) {
                    Solve::Solved { line, stats } => {
                        let pv: Vec<String> = line.pv.iter().map(|m| m.to_string()).collect();
                        sink(format!(
                            "info depth {} score {} nodes {} nps {:.0} time {} pv {}",
                            line.pv.len(),
                            pos.score(line.value, true),
                            stats.nodes,
                            nps(stats.nodes, stats.time),
                            stats.time.as_millis(),
                            pv.join(" ")
                        ));
                        line.best
                    }
                    Solve::Stopped {
                        lower,
                        upper,
                        stats,
                        ..
                    } => {
                        sink(format!(
                            "info string stopped: value between {lower} and {upper} (proven) nodes {} time {}",
                            stats.nodes,
                            stats.time.as_millis()
                        ));
                        None
                    }
                };
                sink(bestmove(&pos, best));
                return;
            }
            let analysis = driver.analyze(&pos, depth, |p| {
                sink(format!(
                    "info depth {} score {} nodes {} nps {:.0} time {} pv {}",
                    p.depth,
                    pos.score(p.value, p.exact),
                    p.nodes,
                    nps(p.nodes, p.time),
                    p.time.as_millis(),
                    p.best.map(|m| m.to_string()).unwrap_or_default()
                ));
            });
            let exact = matches!(analysis, Analysis::Exact { .. });
            let best = match analysis {
                Analysis::Exact { line, depth, stats }
                | Analysis::Estimate {
                    line, depth, stats, ..
                } => {
                    let pv: Vec<String> = line.pv.iter().map(|m| m.to_string()).collect();
                    sink(format!(
                        "info depth {depth} score {} nodes {} nps {:.0} time {} pv {}",
                        pos.score(line.value, exact),
                        stats.nodes,
                        nps(stats.nodes, stats.time),
                        stats.time.as_millis(),
                        pv.join(" ")
                    ));
                    line.best
                }
                Analysis::Stopped { stats, .. } => {
                    sink(format!(
                        "info string stopped before the first iteration ({} nodes, {} ms)",
                        stats.nodes,
                        stats.time.as_millis()
                    ));
                    None
                }
            };
            sink(bestmove(&pos, best));
        })
        .map_err(|e| {
            ProtocolError::new(
                ErrorCode::UnsupportedFeature,
                format!("cannot start the search thread: {e}"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A UGI session whose search lines are collected.
    fn session() -> (Ugi, Arc<Mutex<Vec<String>>>) {
        let got = Arc::new(Mutex::new(Vec::new()));
        let g = got.clone();
        let sink: Sink = Arc::new(move |l| g.lock().unwrap().push(l));
        let mut s = Ugi::new(sink, SessionConfig::default());
        assert_eq!(s.handle("setoption name Hash value 4"), Ok(vec![]));
        (s, got)
    }

    fn ok(s: &mut Ugi, line: &str) -> Vec<String> {
        s.handle(line).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    fn err(s: &mut Ugi, line: &str) -> ErrorCode {
        match s.handle(line) {
            Err(e) => e.code,
            Ok(r) => panic!("{line}: expected an error, got {r:?}"),
        }
    }

    /// Runs `go …` to its end and returns its lines.
    fn go(s: &mut Ugi, got: &Arc<Mutex<Vec<String>>>, line: &str) -> Vec<String> {
        got.lock().unwrap().clear();
        assert_eq!(ok(s, line), Vec::<String>::new());
        s.finish();
        got.lock().unwrap().clone()
    }

    fn nodes(lines: &[String]) -> u64 {
        let info = &lines[lines.len() - 2];
        let w: Vec<&str> = info.split(' ').collect();
        let i = w.iter().position(|x| *x == "nodes").unwrap();
        w[i + 1].parse().unwrap()
    }

    #[test]
    fn a_command_right_after_bestmove_is_taken() {
        // The search's thread lingers after sending `bestmove` (here: 1 s in the sink); a client
        // that answers the `bestmove` at once must not be told `search_in_progress`.
        let (tx, rx) = std::sync::mpsc::channel();
        let tx = Mutex::new(tx);
        let sink: Sink = Arc::new(move |l: String| {
            if l.starts_with("bestmove") {
                tx.lock().unwrap().send(l).unwrap();
                std::thread::sleep(Duration::from_secs(1));
            }
        });
        let mut s = Ugi::new(sink, SessionConfig::default());
        ok(&mut s, "setoption name Hash value 4");
        for _ in 0..3 {
            ok(&mut s, "go nodes 200");
            rx.recv_timeout(Duration::from_secs(60))
                .expect("a bestmove");
            ok(&mut s, "position startpos moves xd4");
        }
    }

    /// 8 balls: solved in a moment.
    const SMALL: &str = "--....--/--..o.--/.o..o.../...o.o../..o...../....o.o./--....--/--....-- s";

    #[test]
    fn handshake_and_ready() {
        let (mut s, _) = session();
        let hello = ok(&mut s, "ugi");
        assert!(hello[0].starts_with("id name Tabula"));
        assert!(hello.contains(&"option name Hash type spin default 64 min 1 max 65536".into()));
        assert_eq!(hello.last().unwrap(), "ugiok");
        assert_eq!(ok(&mut s, "isready"), vec!["readyok"]);
    }

    #[test]
    fn bad_input_of_every_kind_is_one_error_and_the_session_goes_on() {
        let (mut s, _) = session();
        use ErrorCode::*;
        for (line, code) in [
            ("frobnicate", UnknownCommand),
            ("setoption", BadArgument),
            ("setoption name Hash value 0", BadArgument),
            ("setoption name Hash value 70000", BadArgument),
            ("setoption name Hash value lots", BadArgument),
            ("setoption name Threads value 0", BadArgument),
            ("setoption name Colour value red", UnsupportedFeature),
            ("game", BadArgument),
            ("game chess", BadArgument),
            ("game bilitaire rules mature", BadArgument),
            ("game bilitaire takeback optional", BadArgument),
            ("game pylos rules", BadArgument),
            ("game pylos colour red", BadArgument),
            ("position", BadArgument),
            ("position fen nonsense", BadArgument),
            ("position startpos moves xd4 zz", BadArgument),
            ("perft", BadArgument),
            ("perft -1", BadArgument),
            ("perft 99", BadArgument),
            ("perft 1 2", BadArgument),
            ("go depth", BadArgument),
            ("go depth 0", BadArgument),
            ("go depth 300", BadArgument),
            ("go movetime soon", BadArgument),
            ("go nodes 0", BadArgument),
            ("go sideways", BadArgument),
            ("query", BadArgument),
            ("query weather", BadArgument),
        ] {
            assert_eq!(err(&mut s, line), code, "{line}");
        }
        // Nothing above changed the game or the position.
        assert_eq!(
            ok(&mut s, "query position"),
            vec![format!("response {}", bilitaire::START)]
        );
        // The start position (48 balls) is out of reach of an unbounded solve.
        assert_eq!(err(&mut s, "go"), BadArgument);
        assert_eq!(ok(&mut s, "isready"), vec!["readyok"]);
    }

    #[test]
    fn positions_moves_and_queries() {
        let (mut s, _) = session();
        ok(&mut s, "position startpos moves xd4");
        assert_eq!(ok(&mut s, "query tomove"), vec!["response slider"]);
        assert_eq!(ok(&mut s, "query p1turn"), vec!["response false"]);
        assert_eq!(ok(&mut s, "query gameover"), vec!["response false"]);
        assert_eq!(ok(&mut s, "query result"), vec!["response none"]);
        let moves = ok(&mut s, "validmoves");
        assert!(moves[0].starts_with("validmoves "));
        // Each listed move is playable.
        let first = moves[0].split(' ').nth(1).unwrap().to_string();
        ok(&mut s, &format!("position start moves xd4 {first}"));
        assert_eq!(ok(&mut s, "query tomove"), vec!["response ball"]);
        let n = perft_here(&s);
        assert!(n > 0);
        assert_eq!(ok(&mut s, "perft 1"), vec![format!("perft 1 nodes {n}")]);
        ok(&mut s, "game pylos rules children");
        assert_eq!(ok(&mut s, "query tomove"), vec!["response black"]);
        assert_eq!(ok(&mut s, "perft 1"), vec!["perft 1 nodes 16"]);
        // The Threads option shares the first moves; the count is the engine's.
        let one = match &s.pos {
            Pos::Pylos(p) => tabula_engine::perft::perft(p, 4),
            Pos::Bilitaire(_) => unreachable!("a Pylos game"),
        };
        for threads in [1, 2, 3] {
            ok(&mut s, &format!("setoption name Threads value {threads}"));
            assert_eq!(ok(&mut s, "perft 4"), vec![format!("perft 4 nodes {one}")]);
            assert_eq!(ok(&mut s, "perft 0"), vec!["perft 0 nodes 1"]);
        }
        ok(
            &mut s,
            "position fen ..../..../..../....|.../.../...|../..|. b moves 0a1",
        );
        assert_eq!(ok(&mut s, "query tomove"), vec!["response white"]);
        ok(&mut s, "setoption name Rules value mature");
        assert_eq!(
            s.game,
            GameKind::Pylos(pylos::Rules::new(
                pylos::Variant::Mature,
                pylos::Takeback::Optional
            ))
        );
        ok(&mut s, "game pylos board 3");
        assert_eq!(ok(&mut s, "perft 1"), vec!["perft 1 nodes 9"]);
        ok(&mut s, "position fen .../.../...|../..|. b moves 0a1");
        assert_eq!(ok(&mut s, "query tomove"), vec!["response white"]);
        ok(&mut s, "setoption name Rules value mature");
        assert_eq!(
            s.game,
            GameKind::Pylos(
                pylos::Rules::new(pylos::Variant::Mature, pylos::Takeback::Optional)
                    .on(pylos::Board::Three)
            )
        );
        ok(&mut s, "setoption name Game value bilitaire");
        assert_eq!(ok(&mut s, "query tomove"), vec!["response ball"]);
    }

    fn perft_here(s: &Ugi) -> u64 {
        match &s.pos {
            Pos::Bilitaire(p) => p.count_moves(),
            Pos::Pylos(p) => p.count_moves(),
        }
    }

    #[test]
    fn go_solves_and_the_table_stays_warm_until_uginewgame() {
        let (mut s, got) = session();
        ok(&mut s, &format!("position fen {SMALL}"));
        let lines = go(&mut s, &got, "go");
        // The value (8 balls, proven); the node count belongs to the search's move order.
        assert!(
            lines[0].starts_with("info depth 1 score balls 8 exact nodes "),
            "{lines:?}"
        );
        let count = lines[0]["info depth 1 score balls 8 exact nodes ".len()..]
            .split(' ')
            .next()
            .and_then(|n| n.parse::<u64>().ok());
        assert!(count.is_some_and(|n| n > 0), "{lines:?}");
        assert!(lines[0].ends_with(" pv B4-C4"), "{lines:?}");
        ok(&mut s, "game pylos rules children");
        ok(&mut s, &format!("position fen {LATE}"));
        let first = go(&mut s, &got, "go");
        let last = first.last().unwrap();
        assert!(last.starts_with("bestmove "), "{first:?}");
        let info = &first[first.len() - 2];
        assert!(info.contains(" exact "), "{info}");
        // The best move is legal here.
        let mv = last.strip_prefix("bestmove ").unwrap();
        assert!(ok(&mut s, "validmoves")[0].split(' ').any(|m| m == mv));
        let again = go(&mut s, &got, "go");
        let score = |l: &str| l.split(" nodes ").next().unwrap().to_string();
        assert_eq!(score(&again[again.len() - 2]), score(info));
        assert!(
            nodes(&again) < nodes(&first),
            "warm table: {again:?} vs {first:?}"
        );
        ok(&mut s, "uginewgame");
        ok(&mut s, &format!("position fen {LATE}"));
        let cold = go(&mut s, &got, "go");
        assert_eq!(nodes(&cold), nodes(&first), "uginewgame clears the table");
    }

    /// A Pylos position under children rules that takes a few thousand nodes to solve.
    const LATE: &str = "wwwb/b.wb/bwww/wbbw|..w/..b/..b|../..|. b";

    #[test]
    fn go_depth_and_nodes_end_with_a_legal_bestmove() {
        let (mut s, got) = session();
        ok(&mut s, "position startpos moves xd4");
        for line in [
            "go depth 2",
            "go nodes 500",
            "go movetime 50",
            "go depth 1 wtime 1000 btime 1000",
        ] {
            let lines = go(&mut s, &got, line);
            let mv = lines
                .last()
                .unwrap()
                .strip_prefix("bestmove ")
                .unwrap()
                .to_string();
            assert!(
                ok(&mut s, "validmoves")[0].split(' ').any(|m| m == mv),
                "{line}: {lines:?}"
            );
            assert!(lines[0].starts_with("info "), "{line}: {lines:?}");
        }
        // Pylos: a win or loss is reported with its distance once proven.
        ok(&mut s, "game pylos rules children");
        ok(&mut s, &format!("position fen {LATE}"));
        let lines = go(&mut s, &got, "go");
        assert!(lines.iter().any(|l| l.contains(" exact ")), "{lines:?}");
    }

    #[test]
    fn stop_ends_go_infinite_with_a_bestmove() {
        let (mut s, got) = session();
        ok(&mut s, "position startpos moves xd4");
        assert_eq!(ok(&mut s, "go infinite"), Vec::<String>::new());
        assert!(s.searching());
        // While it runs: isready and queries are served, other commands refused.
        assert_eq!(ok(&mut s, "isready"), vec!["readyok"]);
        assert_eq!(ok(&mut s, "query tomove"), vec!["response slider"]);
        assert_eq!(
            err(&mut s, "position startpos"),
            ErrorCode::SearchInProgress
        );
        assert_eq!(err(&mut s, "go depth 1"), ErrorCode::SearchInProgress);
        assert_eq!(ok(&mut s, "stop"), Vec::<String>::new());
        assert!(!s.searching());
        let lines = got.lock().unwrap().clone();
        let mv = lines
            .last()
            .unwrap()
            .strip_prefix("bestmove ")
            .unwrap()
            .to_string();
        assert!(
            ok(&mut s, "validmoves")[0].split(' ').any(|m| m == mv),
            "{lines:?}"
        );
        // A stop without a search does nothing; the session goes on.
        assert_eq!(ok(&mut s, "stop"), Vec::<String>::new());
        ok(&mut s, "position startpos");
    }

    #[test]
    fn quit_stops_the_search() {
        let (mut s, got) = session();
        ok(&mut s, "position startpos moves xd4");
        ok(&mut s, "go infinite");
        ok(&mut s, "quit");
        assert!(s.quit_requested());
        assert!(got.lock().unwrap().last().unwrap().starts_with("bestmove "));
    }

    #[test]
    fn a_finished_game_has_no_move_to_search() {
        let (mut s, _) = session();
        ok(&mut s, "game pylos");
        // Black has no reserve left and cannot move: white has won.
        ok(
            &mut s,
            "position fen bwbw/wbwb/bwbw/wbwb|bwb/wbw/bwb|wb/wb|. w",
        );
        if ok(&mut s, "query gameover") == vec!["response true"] {
            assert_eq!(err(&mut s, "go depth 1"), ErrorCode::MissingContext);
            assert!(ok(&mut s, "query result")[0].ends_with("wins"));
        }
    }
}
