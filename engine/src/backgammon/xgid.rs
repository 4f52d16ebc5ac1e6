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
use super::position::{Position, PositionError, BAR};

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

/// Why a string is not an XGID: one variant per check, with the values that failed it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum XgidError {
    /// Not 9 or 10 `:`-separated fields.
    FieldCount { found: usize },
    /// The board field is not 26 characters long.
    BoardLength { found: usize },
    /// A numeric field (`field` names it) does not parse.
    NotANumber { field: &'static str, text: String },
    /// The cube's log2 is outside 0..=15.
    CubeOutOfRange { log2: i64 },
    /// The cube owner is not -1, 0 or 1.
    CubeOwner { found: i64 },
    /// The turn is not 1 or -1.
    Turn { found: i64 },
    /// The dice field is not `00`, `D`, `B`, `R` or two dice 1..=6.
    Dice { text: String },
    /// The Crawford/Jacoby field is outside 0..=3.
    CrawfordJacoby { found: i64 },
    /// The match length is outside 0..=32767 or the max cube's log2 outside 0..=15.
    MatchLengthOrMaxCube {
        match_length: i64,
        max_cube_log2: i64,
    },
    /// A score is negative or not below the match length.
    Score { score: i64, match_length: i64 },
    /// A board character other than `-`, `A`..`O`, `a`..`o`.
    BoardChar { found: char },
    /// Checkers on the other player's bar field.
    OtherBar { found: char },
    /// The counts are not a backgammon position.
    Position(PositionError),
}

impl fmt::Display for XgidError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("bad XGID: ")?;
        match self {
            XgidError::FieldCount { found } => {
                write!(f, "expected 10 ':'-separated fields, found {found}")
            }
            XgidError::BoardLength { found } => {
                write!(f, "the board field has {found} characters, not 26")
            }
            XgidError::NotANumber { field, text } => write!(f, "{field} {text:?} is not a number"),
            XgidError::CubeOutOfRange { log2 } => write!(f, "cube 2^{log2} out of range"),
            XgidError::CubeOwner { found } => write!(f, "cube owner {found} is not -1, 0 or 1"),
            XgidError::Turn { found } => write!(f, "turn {found} is not 1 or -1"),
            XgidError::Dice { text } => write!(f, "dice {text:?}"),
            XgidError::CrawfordJacoby { found } => write!(f, "Crawford/Jacoby field {found}"),
            XgidError::MatchLengthOrMaxCube { .. } => {
                f.write_str("match length or max cube out of range")
            }
            XgidError::Score {
                score,
                match_length,
            } => write!(
                f,
                "score {score} out of range for match length {match_length}"
            ),
            XgidError::BoardChar { found } => write!(f, "board character {found:?}"),
            XgidError::OtherBar { found } => write!(f, "{found:?} on the other player's bar"),
            XgidError::Position(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for XgidError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            XgidError::Position(e) => Some(e),
            _ => None,
        }
    }
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
            return Err(XgidError::FieldCount {
                found: fields.len(),
            });
        }
        let board: Vec<char> = fields[0].chars().collect();
        if board.len() != 26 {
            return Err(XgidError::BoardLength { found: board.len() });
        }
        let int = |i: usize, field: &'static str| -> Result<i64, XgidError> {
            fields[i].parse::<i64>().map_err(|_| XgidError::NotANumber {
                field,
                text: fields[i].to_string(),
            })
        };
        let cube_log = int(1, "cube")?;
        if !(0..=15).contains(&cube_log) {
            return Err(XgidError::CubeOutOfRange { log2: cube_log });
        }
        let cube_owner = int(2, "cube owner")?;
        if !(-1..=1).contains(&cube_owner) {
            return Err(XgidError::CubeOwner { found: cube_owner });
        }
        let turn = int(3, "turn")?;
        if turn != 1 && turn != -1 {
            return Err(XgidError::Turn { found: turn });
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
                    return Err(XgidError::Dice {
                        text: d.to_string(),
                    });
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
            return Err(XgidError::CrawfordJacoby {
                found: crawford_jacoby,
            });
        }
        if !(0..=32767).contains(&match_length) || !(0..=15).contains(&max_cube_log2) {
            return Err(XgidError::MatchLengthOrMaxCube {
                match_length,
                max_cube_log2,
            });
        }
        for s in [score_bottom, score_top] {
            if s < 0 || (match_length > 0 && s >= match_length) {
                return Err(XgidError::Score {
                    score: s,
                    match_length,
                });
            }
        }
        let mut bottom = [0u8; 25];
        let mut top = [0u8; 25];
        for (i, &c) in board.iter().enumerate() {
            let (n, is_bottom) = match c {
                '-' => continue,
                'A'..='O' => (c as u8 - b'A' + 1, true),
                'a'..='o' => (c as u8 - b'a' + 1, false),
                _ => return Err(XgidError::BoardChar { found: c }),
            };
            match (i, is_bottom) {
                (0, true) | (25, false) => {
                    return Err(XgidError::OtherBar { found: c });
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
        let position = Position::from_counts(me, opp).map_err(XgidError::Position)?;
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
            // XG's field 7 holds the Jacoby rule in money play (bit 0; bit 1 is beavers).
            jacoby: self.match_length == 0 && self.crawford_jacoby & 1 == 1,
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error;

    #[test]
    fn errors_name_the_field_and_keep_the_message() {
        let e = Xgid::parse("XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10").unwrap_err();
        assert_eq!(e, XgidError::Turn { found: 2 });
        assert_eq!(e.to_string(), "bad XGID: turn 2 is not 1 or -1");
        let e = Xgid::parse("XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10").unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad XGID: cube \"x\" is not a number",
            "{e:?}"
        );
        assert!(e.source().is_none());
    }

    #[test]
    fn an_impossible_position_is_the_source() {
        let e = Xgid::parse("XGID=--------------------------:0:0:1:00:0:0:0:0:10").unwrap_err();
        assert_eq!(e, XgidError::Position(PositionError::NoCheckers));
        assert!(e
            .to_string()
            .starts_with("bad XGID: neither side has a checker"));
        assert!(e.source().is_some());
    }
}
