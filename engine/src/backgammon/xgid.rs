//! eXtreme Gammon's XGID: `XGID=<26 board chars>:<cube log2>:<cube owner>:<turn>:<dice>:
//! <score bottom>:<score top>:<Crawford/Jacoby>:<match length>:<max cube log2>`.
//!
//! The board is written from the bottom player's side: character 0 is the top player's bar,
//! 1..=24 the bottom player's points 1..=24, 25 the bottom player's bar; `-` is empty, `A`..`O`
//! 1..15 bottom checkers, `a`..`o` top checkers. Turn, cube owner: 1 = bottom, -1 = top (owner
//! 0 = centred). Dice: `00` not rolled, `D` double offered (`B` beaver, `R` raccoon), else the
//! two dice. In a match the Crawford field is 1 in the Crawford game; in money play it holds
//! Jacoby (1) + beavers (2).
//!
//! gnubg 1.07 reads an XGID (`set xgid`) with the player on roll (the `turn` player) as its
//! player 1 and the other as player 0; [`Xgid::match_id`] gives the Match ID it makes of it.

use std::fmt;

use super::match_id::{GameState, MatchId};
use super::position::{Position, BAR};

/// The dice field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XgDice {
    /// `00`: the player on roll has not rolled.
    NotRolled,
    /// Two dice as written.
    Rolled(u8, u8),
    /// `D`: the player on roll doubled; the opponent is to take or drop.
    Doubled,
    /// `B`: beavered.
    Beaver,
    /// `R`: raccooned.
    Raccoon,
}

/// A parsed XGID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Xgid {
    /// The position seen from the player on roll.
    pub position: Position,
    /// 1 when the bottom player is on roll, -1 for the top player.
    pub turn: i8,
    /// Cube value.
    pub cube: u32,
    /// 1 bottom, -1 top, 0 centred.
    pub cube_owner: i8,
    /// The dice field.
    pub dice: XgDice,
    /// Bottom player's score.
    pub score_bottom: u32,
    /// Top player's score.
    pub score_top: u32,
    /// Matches: 1 in the Crawford game. Money: Jacoby (1) + beavers (2).
    pub crawford_jacoby: u8,
    /// Match length, 0 for money.
    pub match_length: u32,
    /// log2 of the highest cube allowed (XG writes 10).
    pub max_cube_log2: u32,
}

/// Why a string is not an XGID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XgidError(pub String);

impl fmt::Display for XgidError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad XGID: {}", self.0)
    }
}

impl std::error::Error for XgidError {}

fn err(msg: impl Into<String>) -> XgidError {
    XgidError(msg.into())
}

impl Xgid {
    /// An XGID for `position` with the bottom player on roll, money play, cube centred, dice not
    /// rolled.
    pub fn new(position: Position) -> Xgid {
        Xgid {
            position,
            turn: 1,
            cube: 1,
            cube_owner: 0,
            dice: XgDice::NotRolled,
            score_bottom: 0,
            score_top: 0,
            crawford_jacoby: 0,
            match_length: 0,
            max_cube_log2: 10,
        }
    }

    /// Parses an XGID, with or without the `XGID=` prefix.
    pub fn parse(text: &str) -> Result<Xgid, XgidError> {
        let text = text.trim();
        let body = text.strip_prefix("XGID=").unwrap_or(text);
        let fields: Vec<&str> = body.split(':').collect();
        if fields.len() < 9 || fields.len() > 10 {
            return Err(err(format!(
                "expected 10 ':'-separated fields, found {}",
                fields.len()
            )));
        }
        let board: Vec<char> = fields[0].chars().collect();
        if board.len() != 26 {
            return Err(err(format!(
                "the board field has {} characters, not 26",
                board.len()
            )));
        }
        let int = |i: usize, name: &str| -> Result<i64, XgidError> {
            fields[i]
                .parse::<i64>()
                .map_err(|_| err(format!("{name} {:?} is not a number", fields[i])))
        };
        let cube_log = int(1, "cube")?;
        if !(0..=15).contains(&cube_log) {
            return Err(err(format!("cube 2^{cube_log} out of range")));
        }
        let cube_owner = int(2, "cube owner")?;
        if !(-1..=1).contains(&cube_owner) {
            return Err(err(format!("cube owner {cube_owner} is not -1, 0 or 1")));
        }
        let turn = int(3, "turn")?;
        if turn != 1 && turn != -1 {
            return Err(err(format!("turn {turn} is not 1 or -1")));
        }
        let dice = match fields[4] {
            "00" => XgDice::NotRolled,
            "D" => XgDice::Doubled,
            "B" => XgDice::Beaver,
            "R" => XgDice::Raccoon,
            d => {
                let b = d.as_bytes();
                if b.len() != 2 || !(b'1'..=b'6').contains(&b[0]) || !(b'1'..=b'6').contains(&b[1])
                {
                    return Err(err(format!("dice {d:?}")));
                }
                XgDice::Rolled(b[0] - b'0', b[1] - b'0')
            }
        };
        let score_bottom = int(5, "score")?;
        let score_top = int(6, "score")?;
        let crawford_jacoby = int(7, "Crawford/Jacoby")?;
        let match_length = int(8, "match length")?;
        let max_cube_log2 = if fields.len() == 10 {
            int(9, "max cube")?
        } else {
            10
        };
        if !(0..=3).contains(&crawford_jacoby) {
            return Err(err(format!("Crawford/Jacoby field {crawford_jacoby}")));
        }
        if !(0..=32767).contains(&match_length) || !(0..=15).contains(&max_cube_log2) {
            return Err(err("match length or max cube out of range"));
        }
        for s in [score_bottom, score_top] {
            if s < 0 || (match_length > 0 && s >= match_length) {
                return Err(err(format!(
                    "score {s} out of range for match length {match_length}"
                )));
            }
        }
        let mut bottom = [0u8; 25];
        let mut top = [0u8; 25];
        for (i, &c) in board.iter().enumerate() {
            let (n, is_bottom) = match c {
                '-' => continue,
                'A'..='O' => (c as u8 - b'A' + 1, true),
                'a'..='o' => (c as u8 - b'a' + 1, false),
                _ => return Err(err(format!("board character {c:?}"))),
            };
            match (i, is_bottom) {
                (0, true) | (25, false) => {
                    return Err(err(format!("{c:?} on the other player's bar")));
                }
                (0, false) => top[BAR] += n,
                (25, true) => bottom[BAR] += n,
                (p, true) => bottom[p - 1] += n,
                (p, false) => top[24 - p] += n,
            }
        }
        let (me, opp) = if turn == 1 {
            (bottom, top)
        } else {
            (top, bottom)
        };
        let position = Position::from_counts(me, opp).map_err(|e| err(e.to_string()))?;
        Ok(Xgid {
            position,
            turn: turn as i8,
            cube: 1 << cube_log,
            cube_owner: cube_owner as i8,
            dice,
            score_bottom: score_bottom as u32,
            score_top: score_top as u32,
            crawford_jacoby: crawford_jacoby as u8,
            match_length: match_length as u32,
            max_cube_log2: max_cube_log2 as u32,
        })
    }

    /// The counts of the bottom and top players, each from its own side.
    fn sides(&self) -> ([u8; 25], [u8; 25]) {
        let me = self.position.counts(super::Side::OnRoll);
        let opp = self.position.counts(super::Side::Opponent);
        if self.turn == 1 {
            (me, opp)
        } else {
            (opp, me)
        }
    }

    /// The gnubg Match ID of this state, as gnubg 1.07's `set xgid` builds it (the player on
    /// roll is gnubg's player 1, Jacoby setting on).
    pub fn match_id(&self) -> MatchId {
        let player = |side: i8| if side == self.turn { 1u8 } else { 0u8 };
        let on_roll = 1;
        let (dice, doubled, turn) = match self.dice {
            XgDice::Rolled(a, b) => ((a, b), false, on_roll),
            XgDice::NotRolled => ((0, 0), false, on_roll),
            XgDice::Doubled | XgDice::Beaver | XgDice::Raccoon => ((0, 0), true, 1 - on_roll),
        };
        let crawford = self.match_length > 0 && self.crawford_jacoby & 1 == 1;
        MatchId {
            // No cube in the Crawford game: gnubg resets its value (the owner field stays).
            cube: if crawford { 1 } else { self.cube },
            cube_owner: if self.cube_owner == 0 {
                None
            } else {
                Some(player(self.cube_owner))
            },
            on_roll,
            crawford,
            game_state: GameState::Playing,
            turn,
            doubled,
            resigned: 0,
            dice,
            match_length: self.match_length,
            score: if self.turn == 1 {
                [self.score_top, self.score_bottom]
            } else {
                [self.score_bottom, self.score_top]
            },
            jacoby: true,
        }
    }
}

impl fmt::Display for Xgid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (bottom, top) = self.sides();
        let ch = |n: u8, upper: bool| -> char {
            if n == 0 {
                '-'
            } else {
                ((if upper { b'A' } else { b'a' }) + n - 1) as char
            }
        };
        let mut board = String::with_capacity(26);
        board.push(ch(top[BAR], false));
        for p in 1..=24 {
            if bottom[p - 1] > 0 {
                board.push(ch(bottom[p - 1], true));
            } else {
                board.push(ch(top[24 - p], false));
            }
        }
        board.push(ch(bottom[BAR], true));
        let dice = match self.dice {
            XgDice::NotRolled => "00".to_string(),
            XgDice::Rolled(a, b) => format!("{a}{b}"),
            XgDice::Doubled => "D".to_string(),
            XgDice::Beaver => "B".to_string(),
            XgDice::Raccoon => "R".to_string(),
        };
        write!(
            f,
            "XGID={board}:{}:{}:{}:{dice}:{}:{}:{}:{}:{}",
            self.cube.trailing_zeros(),
            self.cube_owner,
            self.turn,
            self.score_bottom,
            self.score_top,
            self.crawford_jacoby,
            self.match_length,
            self.max_cube_log2
        )
    }
}

impl std::str::FromStr for Xgid {
    type Err = XgidError;

    fn from_str(s: &str) -> Result<Xgid, XgidError> {
        Xgid::parse(s)
    }
}
