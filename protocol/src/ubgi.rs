//! UBGI mode: backgammon over the UBGI v0.1 draft (`docs/ubgi-v0.1-spec.md` of
//! `bungogood/bgci`), answered by the gammon [`Advisor`].
//!
//! Players are `p0` and `p1`; `setturn` says who is on roll. A gnubg Position ID is read from
//! the side of the player on roll (gnubg's convention); an XGID also sets the cube, the score,
//! the match length, the player on roll (bottom is `p0`) and, when rolled, the dice.
//!
//! | command | answer |
//! |---|---|
//! | `ubgi` | `id name …`, `id author …`, `option …` lines, `ubgiok` |
//! | `isready` | `readyok` |
//! | `setoption name Plies\|CubeRollouts\|Seed\|Deterministic\|Variant value V` | nothing |
//! | `newgame` | nothing (cube centred at 1, position and dice cleared) |
//! | `newsession type money\|match [length N] [jacoby on\|off] [crawford on\|off]` | nothing |
//! | `setscore <p0> <p1>`, `setcube value <N> owner center\|p0\|p1`, `setturn p0\|p1` | nothing |
//! | `position gnubgid <ID>` \| `position xgid <XGID>` | nothing |
//! | `dice <d1> <d2>` | nothing |
//! | `go role chequer` | `info …`, `bestmove <from/to …>` (`bestmove pass` when no play is legal) |
//! | `go role cube` | `info …`, `bestcube double\|nodouble` |
//! | `go role take` (Tabula's extension: the position is the doubler's, on roll) | `info …`, `bestcube take\|drop` |
//! | `go role turn` | `bestturn cube=<double\|nodouble> move=<from/to …>` |
//! | `stop` | nothing (every UBGI search here returns before the next command is read) |
//! | `quit` | nothing; the session ends |
//!
//! `go` takes `movetime`, `depth`, `nodes` and `trials`: `depth N` searches N plies (0 to
//! [`MAX_PLIES`]) for this request; `trials N` sets the trials of the cube rollouts of back
//! games (`CubeRollouts`) for this request; the others, and `trials` with `role chequer`, are
//! accepted and not used (a search here is a fixed-depth expectimax, not budgeted by time),
//! which the answer's first line says
//! (`info string go movetime: not supported, ignored …`). With the Crawford rule on, a game where one
//! player is 1-away and the other is not is taken as the Crawford game (an XGID says it
//! exactly).

use crate::{first_word, shorten, ErrorCode, ProtocolError, Reply};
use tabula_engine::backgammon::{Dice, Play, Position, XgDice, Xgid};
use tabula_gammon::advisor::{
    Advisor, CubeRollouts, CUBE_ROLLOUT_TRIALS, MAX_CUBE_ROLLOUT_TRIALS as MAX_CUBE_ROLLOUTS,
};
use tabula_gammon::cube::{CubeState, DEFAULT_CUBE_EFFICIENCY};
use tabula_gammon::search::MAX_PLIES;
use tabula_gammon::{weights, Evaluator, Probabilities, SearchOptions};

/// The largest cube value accepted (2^15).
const MAX_CUBE: u32 = 1 << 15;

/// The longest match accepted.
const MAX_MATCH: u32 = 64;

/// The move text of a roll with no legal play, as bgci (bkgm's move text) and wildbg's UBGI
/// engine write and read it.
const NO_PLAY: &str = "pass";

/// A UBGI session: the match context, position, dice and the advisor (its cache stays warm
/// over a session).
pub struct Ubgi {
    plies: u8,
    /// Trials of the cube rollouts in back games (`CubeRollouts`; see
    /// [`CubeRollouts::for_depth`]).
    cube_rollouts: u64,
    /// `None`: the built-in nets alone.
    evaluator: Option<&'static Evaluator>,
    advisor: Option<Advisor<'static>>,
    /// 0 for money.
    match_length: u32,
    jacoby: bool,
    crawford_rule: bool,
    score: [u32; 2],
    cube: u32,
    owner: Option<usize>,
    turn: usize,
    /// Set from an XGID: whether this game is the Crawford game.
    crawford_game: Option<bool>,
    position: Option<Position>,
    dice: Option<Dice>,
    quit: bool,
}

impl std::fmt::Debug for Ubgi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ubgi")
            .field("plies", &self.plies)
            .field("cube_rollouts", &self.cube_rollouts)
            .field("match_length", &self.match_length)
            .field("score", &self.score)
            .field("cube", &self.cube)
            .field("owner", &self.owner)
            .field("turn", &self.turn)
            .field("position", &self.position.map(|p| p.position_id()))
            .field("dice", &self.dice)
            .finish()
    }
}

fn bad(message: impl Into<String>) -> ProtocolError {
    ProtocolError::bad(message)
}

fn missing(message: impl Into<String>) -> ProtocolError {
    ProtocolError::new(ErrorCode::MissingContext, message)
}

fn player(text: &str) -> Result<usize, ProtocolError> {
    match text {
        "p0" => Ok(0),
        "p1" => Ok(1),
        other => Err(bad(format!("expected p0 or p1, not {:?}", shorten(other)))),
    }
}

fn on_off(what: &str, text: Option<&&str>) -> Result<bool, ProtocolError> {
    match text.copied() {
        Some("on") => Ok(true),
        Some("off") => Ok(false),
        Some(other) => Err(bad(format!(
            "{what}: expected on or off, not {:?}",
            shorten(other)
        ))),
        None => Err(bad(format!("{what}: expected on or off"))),
    }
}

fn number(what: &str, text: Option<&&str>) -> Result<u32, ProtocolError> {
    let text = text.ok_or_else(|| bad(format!("{what}: a number is missing")))?;
    text.parse()
        .map_err(|_| bad(format!("{what}: {:?} is not a number", shorten(text))))
}

/// [`number`], from 0 to `max`.
fn number_to(what: &str, text: Option<&&str>, max: u64) -> Result<u32, ProtocolError> {
    let n = number(what, text)?;
    if u64::from(n) > max {
        return Err(bad(format!("{what} {n}: expected 0 to {max}")));
    }
    Ok(n)
}

/// A play in UBGI's shape: one `from/to` per checker step, highest first, `bar` and `off`.
pub fn play_text(play: &Play) -> String {
    let mut steps: Vec<_> = play.steps().to_vec();
    steps.sort_by(|a, b| b.from.cmp(&a.from).then(b.to.cmp(&a.to)));
    let point = |p: u8, bar: bool| match (p, bar) {
        (25, true) => "bar".to_string(),
        (0, false) => "off".to_string(),
        (p, _) => p.to_string(),
    };
    steps
        .iter()
        .map(|s| format!("{}/{}", point(s.from, true), point(s.to, false)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn probabilities_text(p: &Probabilities) -> String {
    format!(
        "pwin {:.4} pgammon {:.4} pbg {:.4} plgammon {:.4} plbg {:.4}",
        p[0], p[1], p[2], p[3], p[4]
    )
}

impl Default for Ubgi {
    fn default() -> Self {
        Ubgi::new()
    }
}

impl Ubgi {
    /// A money session, cube centred at 1, `p0` on roll, no position yet.
    pub fn new() -> Ubgi {
        Ubgi {
            plies: SearchOptions::default().plies,
            cube_rollouts: CUBE_ROLLOUT_TRIALS,
            evaluator: None,
            advisor: None,
            match_length: 0,
            jacoby: false,
            crawford_rule: true,
            score: [0, 0],
            cube: 1,
            owner: None,
            turn: 0,
            crawford_game: None,
            position: None,
            dice: None,
            quit: false,
        }
    }

    /// The same, answering with `eval` (for instance the nets with the exact race endings of
    /// the bearoff database) instead of the built-in nets alone.
    pub fn with_evaluator(eval: &'static Evaluator) -> Ubgi {
        Ubgi {
            evaluator: Some(eval),
            ..Ubgi::new()
        }
    }

    pub(crate) fn quit_requested(&self) -> bool {
        self.quit
    }

    /// Handles one command line.
    pub fn handle(&mut self, line: &str) -> Reply {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = words.split_first() else {
            return Ok(Vec::new());
        };
        match cmd {
            "ubgi" => Ok(self.hello()),
            "isready" => {
                self.advisor()?;
                Ok(vec!["readyok".into()])
            }
            "quit" => {
                self.quit = true;
                Ok(Vec::new())
            }
            "stop" => Ok(Vec::new()),
            "setoption" => self.setoption(args),
            "newgame" => {
                self.cube = 1;
                self.owner = None;
                self.crawford_game = None;
                self.position = None;
                self.dice = None;
                Ok(Vec::new())
            }
            "newsession" => self.newsession(args),
            "setscore" => self.setscore(args),
            "setcube" => self.setcube(args),
            "setturn" => match args {
                [p] => {
                    self.turn = player(p)?;
                    Ok(Vec::new())
                }
                _ => Err(bad("expected `setturn p0|p1`")),
            },
            "position" => self.position(args),
            "dice" => self.dice(args),
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
                "option name Plies type spin default {} min 0 max {MAX_PLIES}",
                SearchOptions::default().plies
            ),
            format!(
                "option name CubeRollouts type spin default {CUBE_ROLLOUT_TRIALS} min 0 max {MAX_CUBE_ROLLOUTS}"
            ),
            "option name Deterministic type check default true".into(),
            "option name Seed type spin default 0 min 0 max 4294967295".into(),
            "option name Variant type combo default backgammon var backgammon".into(),
            "ubgiok".into(),
        ]
    }

    fn advisor(&mut self) -> Result<&Advisor<'static>, ProtocolError> {
        if self.advisor.as_ref().is_some_and(|a| {
            a.plies() != self.plies
                || a.cube_rollouts() != CubeRollouts::for_depth(self.plies, self.cube_rollouts)
        }) {
            self.advisor = None;
        }
        if self.advisor.is_none() {
            let eval = match self.evaluator {
                Some(eval) => eval,
                None => weights::shipped().map_err(|e| {
                    ProtocolError::new(
                        ErrorCode::UnsupportedFeature,
                        format!("the built-in weights do not load: {e}"),
                    )
                })?,
            };
            let options = SearchOptions {
                plies: self.plies,
                ..SearchOptions::default()
            };
            self.advisor = Some(
                Advisor::new(eval, options, DEFAULT_CUBE_EFFICIENCY)
                    .with_cube_rollouts(CubeRollouts::for_depth(self.plies, self.cube_rollouts)),
            );
        }
        Ok(self.advisor.as_ref().expect("set above"))
    }

    fn setoption(&mut self, args: &[&str]) -> Reply {
        let (name, value) = match args {
            ["name", name, "value", value] => (*name, *value),
            _ => return Err(bad("expected `setoption name <Name> value <Value>`")),
        };
        match name {
            "Plies" => {
                self.plies = number_to("Plies", Some(&value), MAX_PLIES.into())? as u8;
            }
            "CubeRollouts" => {
                self.cube_rollouts =
                    number_to("CubeRollouts", Some(&value), MAX_CUBE_ROLLOUTS)?.into();
            }
            // Every answer is deterministic already: there is no randomness to seed.
            "Seed" => {
                number("Seed", Some(&value))?;
            }
            "Deterministic" => match value {
                "true" => {}
                "false" => {
                    return Err(ProtocolError::new(
                        ErrorCode::UnsupportedFeature,
                        "Tabula is always deterministic",
                    ))
                }
                other => {
                    return Err(bad(format!(
                        "Deterministic: expected true or false, not {:?}",
                        shorten(other)
                    )))
                }
            },
            // bgci's and wildbg's option (not in the v0.1 draft): bgci's `check` sets it.
            "Variant" => {
                if value != "backgammon" {
                    return Err(ProtocolError::new(
                        ErrorCode::UnsupportedFeature,
                        format!("Variant {:?}: only backgammon is played", shorten(value)),
                    ));
                }
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

    fn newsession(&mut self, args: &[&str]) -> Reply {
        let mut kind = None;
        let (mut length, mut jacoby, mut crawford) = (None, None, None);
        let mut rest = args;
        while let Some((&key, tail)) = rest.split_first() {
            let value = tail.first();
            match key {
                "type" => {
                    kind = Some(match value.copied() {
                        Some("money") => false,
                        Some("match") => true,
                        _ => return Err(bad("newsession: type money or match")),
                    })
                }
                "length" => length = Some(number("newsession length", value)?),
                "jacoby" => jacoby = Some(on_off("newsession jacoby", value)?),
                "crawford" => crawford = Some(on_off("newsession crawford", value)?),
                other => {
                    return Err(bad(format!(
                        "newsession: unknown parameter {:?}",
                        shorten(other)
                    )))
                }
            }
            rest = tail.get(1..).unwrap_or(&[]);
        }
        let Some(is_match) = kind else {
            return Err(bad("newsession: expected `type money|match`"));
        };
        let length = match (is_match, length) {
            (true, Some(n)) if (1..=MAX_MATCH).contains(&n) => n,
            (true, Some(n)) => {
                return Err(bad(format!(
                    "newsession: match length {n}: expected 1 to {MAX_MATCH}"
                )))
            }
            (true, None) => return Err(bad("newsession type match needs `length N`")),
            (false, Some(_)) => return Err(bad("newsession type money takes no length")),
            (false, None) => 0,
        };
        if is_match && jacoby == Some(true) {
            return Err(bad("newsession: the Jacoby rule is for money play"));
        }
        self.match_length = length;
        self.jacoby = jacoby.unwrap_or(false);
        self.crawford_rule = crawford.unwrap_or(true);
        self.score = [0, 0];
        self.cube = 1;
        self.owner = None;
        self.crawford_game = None;
        Ok(Vec::new())
    }

    fn setscore(&mut self, args: &[&str]) -> Reply {
        let [a, b] = args else {
            return Err(bad("expected `setscore <p0> <p1>`"));
        };
        let score = [number("setscore", Some(a))?, number("setscore", Some(b))?];
        if self.match_length > 0 && score.iter().any(|&s| s >= self.match_length) {
            return Err(bad(format!(
                "setscore {} {}: each score must be below the match length {}",
                score[0], score[1], self.match_length
            )));
        }
        self.score = score;
        self.crawford_game = None;
        Ok(Vec::new())
    }

    fn setcube(&mut self, args: &[&str]) -> Reply {
        let ["value", value, "owner", owner] = args else {
            return Err(bad("expected `setcube value <N> owner center|p0|p1`"));
        };
        let value = number("setcube value", Some(value))?;
        if !value.is_power_of_two() || value > MAX_CUBE {
            return Err(bad(format!(
                "setcube value {value}: expected a power of two up to {MAX_CUBE}"
            )));
        }
        let owner = match *owner {
            "center" | "centre" => None,
            p => Some(player(p)?),
        };
        self.cube = value;
        self.owner = owner;
        Ok(Vec::new())
    }

    fn position(&mut self, args: &[&str]) -> Reply {
        match args {
            ["gnubgid", id] => {
                let pos = Position::from_position_id(id)
                    .map_err(|e| bad(format!("invalid gnubg Position ID: {e}")))?;
                self.position = Some(pos);
                self.dice = None;
                Ok(Vec::new())
            }
            ["xgid", text] => {
                let x = Xgid::parse(text).map_err(|e| bad(format!("invalid XGID: {e}")))?;
                let turn = if x.turn == 1 { 0 } else { 1 };
                self.turn = turn;
                self.position = Some(x.position);
                self.cube = x.cube;
                self.owner = match x.cube_owner {
                    0 => None,
                    1 => Some(0),
                    _ => Some(1),
                };
                self.match_length = x.match_length;
                self.score = [x.score_bottom, x.score_top];
                if x.match_length == 0 {
                    self.jacoby = x.crawford_jacoby & 1 == 1;
                    self.crawford_game = None;
                } else {
                    self.crawford_game = Some(x.crawford_jacoby & 1 == 1);
                }
                self.dice = match x.dice {
                    XgDice::Rolled(a, b) => {
                        Some(Dice::new(a, b).map_err(|e| bad(format!("invalid XGID dice: {e}")))?)
                    }
                    _ => None,
                };
                Ok(Vec::new())
            }
            ["gnubgid" | "xgid"] => Err(bad("position: the ID is missing")),
            [kind, ..] if *kind == "gnubgid" || *kind == "xgid" => {
                Err(bad("position: one ID without spaces"))
            }
            _ => Err(bad(
                "expected `position gnubgid <ID>` or `position xgid <XGID>`",
            )),
        }
    }

    fn dice(&mut self, args: &[&str]) -> Reply {
        let dice = match args {
            [a, b] => {
                let die = |t: &str| {
                    t.parse::<u8>()
                        .map_err(|_| bad(format!("dice: {:?} is not a die", shorten(t))))
                };
                Dice::new(die(a)?, die(b)?)
            }
            [ab] => ab.parse(),
            _ => return Err(bad("expected `dice <d1> <d2>`")),
        }
        .map_err(|e| bad(format!("dice: {e}")))?;
        self.dice = Some(dice);
        Ok(Vec::new())
    }

    /// The cube seen from the player on roll.
    fn cube_state(&self) -> CubeState {
        let crawford = self.crawford_game.unwrap_or_else(|| {
            let away = |p: usize| self.match_length - self.score[p];
            self.match_length > 0 && self.crawford_rule && ((away(0) == 1) != (away(1) == 1))
        });
        CubeState::for_player(
            self.turn,
            self.cube,
            self.owner,
            self.match_length,
            self.score,
            crawford,
            self.jacoby,
        )
    }

    fn go(&mut self, args: &[&str]) -> Reply {
        let mut role = None;
        let mut plies = None;
        let mut trials = None;
        let mut unused = Vec::new();
        let mut rest = args;
        while let Some((&key, tail)) = rest.split_first() {
            let value = tail.first();
            match key {
                "role" => {
                    role = Some(match value.copied() {
                        Some(r @ ("chequer" | "checker" | "cube" | "take" | "turn")) => r,
                        Some(other) => {
                            return Err(bad(format!(
                                "go role {:?}: expected chequer, cube or turn",
                                shorten(other)
                            )))
                        }
                        None => return Err(bad("go role: expected chequer, cube or turn")),
                    })
                }
                "depth" => {
                    plies = Some(number_to("go depth", value, MAX_PLIES.into())? as u8);
                }
                "trials" => {
                    trials = Some(number_to("go trials", value, MAX_CUBE_ROLLOUTS)?.into());
                }
                "movetime" | "nodes" => {
                    number(&format!("go {key}"), value)?;
                    unused.push(key);
                }
                other => return Err(bad(format!("go: unknown parameter {:?}", shorten(other)))),
            }
            rest = tail.get(1..).unwrap_or(&[]);
        }
        let Some(role) = role else {
            return Err(bad("go: expected `role chequer|cube|turn`"));
        };
        // `trials` are the cube rollouts' (`CubeRollouts` for this request): a play is searched.
        if trials.is_some() && matches!(role, "chequer" | "checker") {
            unused.push("trials");
        }
        let Some(pos) = self.position else {
            return Err(missing("no position: send `position gnubgid <ID>` first"));
        };
        if pos.is_game_over() {
            return Err(missing("the game is over in this position"));
        }
        let saved = (self.plies, self.cube_rollouts);
        self.plies = plies.unwrap_or(saved.0);
        self.cube_rollouts = trials.unwrap_or(saved.1);
        let answer = self.answer(role, pos);
        let depth = self.plies;
        (self.plies, self.cube_rollouts) = saved;
        // Said, not refused: match runners send a time control with every `go`.
        answer.map(|mut lines| {
            if !unused.is_empty() {
                lines.insert(
                    0,
                    format!(
                        "info string go {}: not supported, ignored (a fixed-depth search of \
                         {depth} plies; `go depth N` sets it)",
                        unused.join(", ")
                    ),
                );
            }
            lines
        })
    }

    fn answer(&mut self, role: &str, pos: Position) -> Reply {
        let state = self.cube_state();
        let dice = self.dice;
        let advisor = self.advisor()?;
        let plies = advisor.plies();
        let need_dice = || missing("no dice: send `dice <d1> <d2>` first");
        match role {
            "chequer" | "checker" => {
                let dice = dice.ok_or_else(need_dice)?;
                let plays = advisor.plays(&pos, dice);
                let Some(best) = plays.first() else {
                    return Ok(vec![
                        "info role chequer string no legal play".into(),
                        format!("bestmove {NO_PLAY}"),
                    ]);
                };
                Ok(vec![
                    format!(
                        "info role chequer depth {} eq {:.4} {} pv {}",
                        best.plies,
                        best.equity,
                        probabilities_text(&best.probabilities),
                        play_text(&best.play)
                    ),
                    format!("bestmove {}", play_text(&best.play)),
                ])
            }
            "cube" | "take" => {
                let cube = advisor.cube(&pos, &state);
                let d = cube.decision;
                let rollout = cube
                    .rollout
                    .map_or(String::new(), |r| format!(" trials {}", r.trials));
                let info = format!(
                    "info role {role} depth {plies}{rollout} nd {:.4} dt {:.4} dp {:.4} {}",
                    d.no_double,
                    d.double_take,
                    d.double_pass,
                    probabilities_text(&cube.probabilities)
                );
                let answer = match role {
                    "cube" if d.offers_double() => "double",
                    "cube" => "nodouble",
                    _ if d.take => "take",
                    _ => "drop",
                };
                Ok(vec![info, format!("bestcube {answer}")])
            }
            _ => {
                let dice = dice.ok_or_else(need_dice)?;
                let cube = advisor.cube(&pos, &state);
                let double = cube.decision.offers_double();
                let best = advisor.best_play(&pos, dice);
                Ok(vec![format!(
                    "bestturn cube={} move={}",
                    if double { "double" } else { "nodouble" },
                    best.map(|p| play_text(&p))
                        .unwrap_or_else(|| NO_PLAY.into())
                )])
            }
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &mut Ubgi, line: &str) -> Vec<String> {
        s.handle(line).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    fn err(s: &mut Ubgi, line: &str) -> ErrorCode {
        match s.handle(line) {
            Err(e) => e.code,
            Ok(r) => panic!("{line}: expected an error, got {r:?}"),
        }
    }

    fn session() -> Ubgi {
        let mut s = Ubgi::new();
        assert_eq!(ok(&mut s, "ubgi").last().unwrap(), "ubgiok");
        ok(&mut s, "setoption name Plies value 0");
        assert_eq!(ok(&mut s, "isready"), vec!["readyok"]);
        s
    }

    #[test]
    fn the_opening_31_is_the_advisors_best_play() {
        let mut s = session();
        ok(&mut s, "newgame");
        ok(
            &mut s,
            &format!("position gnubgid {}", Position::START.position_id()),
        );
        ok(&mut s, "dice 3 1");
        let r = ok(&mut s, "go role chequer");
        assert_eq!(r.last().unwrap(), "bestmove 8/5 6/5");
        assert!(r[0].starts_with("info role chequer depth 0 eq "));
        assert_eq!(
            ok(&mut s, "go role cube").last().unwrap(),
            "bestcube nodouble"
        );
        assert_eq!(ok(&mut s, "go role take").last().unwrap(), "bestcube take");
        assert_eq!(
            ok(&mut s, "go role turn"),
            vec!["bestturn cube=nodouble move=8/5 6/5"]
        );
        // Doubles: one token per checker step, never gnubg's `(2)`.
        ok(&mut s, "dice 66");
        let r = ok(&mut s, "go role chequer");
        let mv = r.last().unwrap().strip_prefix("bestmove ").unwrap();
        assert_eq!(mv.split(' ').count(), 4, "{mv}");
        assert!(!mv.contains('('));
    }

    /// `CubeRollouts`: at 2 plies the cube of a back game comes from a rollout of that many
    /// trials, and the `info` line says so; 0 trials, or 1 ply, leave it to the search.
    #[test]
    fn back_games_cube_by_rollout_as_the_option_says() {
        let mut s = session();
        assert!(ok(&mut s, "ubgi")
            .iter()
            .any(|l| l.starts_with("option name CubeRollouts type spin default 324 ")));
        ok(&mut s, "setoption name Plies value 2");
        ok(&mut s, "setoption name CubeRollouts value 36");
        // An ace-deuce back game: the taker holds the doubler's 1- and 2-points.
        ok(&mut s, "position gnubgid 0HMAwDvc3ZYAAA");
        let rolled = ok(&mut s, "go role take");
        assert!(rolled[0].starts_with("info role take depth 2 trials 36 nd "));
        let searched = |s: &mut Ubgi| ok(s, "go role take")[0].clone();
        ok(&mut s, "setoption name CubeRollouts value 0");
        let none = searched(&mut s);
        assert!(none.starts_with("info role take depth 2 nd "), "{none}");
        // `go … trials N`: N trials for this request only.
        let asked = ok(&mut s, "go role take trials 36");
        assert_eq!(asked, rolled);
        assert_eq!(searched(&mut s), none);
        ok(&mut s, "setoption name CubeRollouts value 36");
        ok(&mut s, "setoption name Plies value 1");
        let one = searched(&mut s);
        assert!(one.starts_with("info role take depth 1 nd "), "{one}");
    }

    /// bgci (through bkgm's move text) and wildbg's UBGI engine write and read `pass` for a
    /// roll with no legal play; the old `(none)` made bgci abort the duel with "engine
    /// returned invalid move text: (none)".
    #[test]
    fn no_legal_play_is_pass() {
        let mut s = session();
        // On the bar against a closed board.
        let mut me = [0u8; 25];
        let mut opp = [0u8; 25];
        me[24] = 1;
        me[5] = 14;
        opp[..6].fill(2);
        opp[12] = 3;
        let closed = Position::from_counts(me, opp).unwrap();
        ok(
            &mut s,
            &format!("position gnubgid {}", closed.position_id()),
        );
        ok(&mut s, "dice 6 5");
        assert_eq!(
            ok(&mut s, "go role chequer").last().unwrap(),
            "bestmove pass"
        );
        let turn = ok(&mut s, "go role turn");
        assert!(turn[0].ends_with(" move=pass"), "{turn:?}");
    }

    /// `bgci check` sends `setoption name Variant value backgammon` and failed on the old
    /// "no option named" error.
    #[test]
    fn the_variant_option_is_backgammon() {
        let mut s = Ubgi::new();
        let hello = ok(&mut s, "ubgi");
        assert!(hello
            .iter()
            .any(|l| l == "option name Variant type combo default backgammon var backgammon"));
        assert_eq!(
            ok(&mut s, "setoption name Variant value backgammon"),
            Vec::<String>::new()
        );
        assert_eq!(
            err(&mut s, "setoption name Variant value nackgammon"),
            ErrorCode::UnsupportedFeature
        );
    }

    #[test]
    fn bar_and_off_are_words() {
        let mut s = session();
        // An XGID with a checker on the bar for the player on roll (bottom), dice 52.
        ok(
            &mut s,
            "position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10",
        );
        let r = ok(&mut s, "go role chequer");
        assert!(r.last().unwrap().starts_with("bestmove "));
        assert!(!r.last().unwrap().contains("25/"));
        let play = Position::START.plays("31".parse().unwrap())[0];
        assert!(!play_text(&play).contains("bar"));
    }

    #[test]
    fn bad_input_of_every_kind_is_one_error() {
        let mut s = session();
        use ErrorCode::*;
        for (line, code) in [
            ("frob", UnknownCommand),
            ("go role chequer", MissingContext),
            ("setoption name Plies value 9", BadArgument),
            ("setoption name CubeRollouts value 11665", BadArgument),
            ("setoption name CubeRollouts value some", BadArgument),
            (
                "setoption name Deterministic value false",
                UnsupportedFeature,
            ),
            ("setoption name EvalMode value cubeless", UnsupportedFeature),
            ("setoption name", BadArgument),
            ("newsession", BadArgument),
            ("newsession type poker", BadArgument),
            ("newsession type match", BadArgument),
            ("newsession type match length 0", BadArgument),
            ("newsession type match length 5 jacoby on", BadArgument),
            ("newsession type money length 5", BadArgument),
            ("newsession type money jacoby maybe", BadArgument),
            ("setscore 1", BadArgument),
            ("setscore a b", BadArgument),
            ("setcube value 3 owner p0", BadArgument),
            ("setcube value 2 owner p2", BadArgument),
            ("setcube 2", BadArgument),
            ("setturn p3", BadArgument),
            ("position gnubgid", BadArgument),
            ("position gnubgid !!!!", BadArgument),
            ("position xgid XGID=nonsense", BadArgument),
            ("position fen x", BadArgument),
            ("dice 0 3", BadArgument),
            ("dice 7 1", BadArgument),
            ("dice x y", BadArgument),
            ("dice", BadArgument),
            ("go", BadArgument),
            ("go role", BadArgument),
            ("go role dance", BadArgument),
            ("go role cube depth 9", BadArgument),
            ("go role cube movetime soon", BadArgument),
            ("go role cube trials 11665", BadArgument),
            ("go role cube trials many", BadArgument),
            ("go role cube sideways 1", BadArgument),
        ] {
            assert_eq!(err(&mut s, line), code, "{line}");
        }
        ok(&mut s, "newsession type match length 5");
        assert_eq!(err(&mut s, "setscore 5 0"), BadArgument);
        ok(
            &mut s,
            &format!("position gnubgid {}", Position::START.position_id()),
        );
        assert_eq!(
            err(&mut s, "go role chequer"),
            MissingContext,
            "no dice yet"
        );
        assert_eq!(err(&mut s, "go role turn"), MissingContext);
        ok(&mut s, "dice 4 2");
        assert_eq!(
            ok(&mut s, "go role chequer").last().unwrap(),
            "bestmove 8/4 6/4"
        );
    }

    #[test]
    fn a_time_or_node_budget_is_answered_as_not_supported_and_the_search_goes_on() {
        let mut s = session();
        ok(
            &mut s,
            &format!("position gnubgid {}", Position::START.position_id()),
        );
        ok(&mut s, "dice 4 2");
        let plain = ok(&mut s, "go role chequer");
        assert!(plain.iter().all(|l| !l.starts_with("info string")));
        let budgeted = ok(&mut s, "go role chequer movetime 100 nodes 5000");
        assert!(
            budgeted[0].starts_with("info string go movetime, nodes: not supported"),
            "{budgeted:?}"
        );
        // The same search answers: the budget changed nothing.
        assert_eq!(budgeted[1..], plain[..]);
        let chequer = ok(&mut s, "go role chequer trials 10 depth 0");
        assert!(
            chequer[0].contains("trials") && chequer[0].contains("0 plies"),
            "{chequer:?}"
        );
        // For the cube, `trials` are the back games' rollouts: used, not reported.
        let cube = ok(&mut s, "go role cube trials 10 depth 0");
        assert!(
            cube[0].starts_with("info role cube depth 0 nd "),
            "{cube:?}"
        );
    }

    #[test]
    fn the_match_context_reaches_the_cube() {
        let mut s = session();
        ok(&mut s, "newsession type match length 5 crawford on");
        ok(&mut s, "setscore 4 2");
        ok(&mut s, "setturn p1");
        ok(&mut s, "setcube value 2 owner p0");
        let c = s.cube_state();
        assert_eq!(c.value, 2);
        assert_eq!(c.owner, tabula_gammon::cube::CubeOwner::Opponent);
        assert_eq!(
            c.match_score.unwrap().score,
            [2, 4],
            "the player on roll's score first"
        );
        // p0 is 1-away, p1 is not: the Crawford game.
        assert_eq!(
            c,
            CubeState::for_player(1, 2, Some(0), 5, [4, 2], true, false)
        );
        ok(&mut s, "newsession type money jacoby on");
        assert!(s.cube_state().jacoby);
        assert_eq!(s.cube_state().match_score, None);
    }
}
