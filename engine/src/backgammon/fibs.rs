//! The FIBS `board:` line as GNU Backgammon 1.07 sends it to an external player
//! (`set player N external host:port`; gnubg's `FIBSBoard`).
//!
//! Orientation, as gnubg 1.07 writes it (checked against lines captured from gnubg, see
//! `scripts/gnubg-fixtures.py`): the board is always seen from gnubg's **player 1** (`X`, the
//! bottom player): its checkers are positive, player 0's negative; field `i` (1..=24) of the
//! 26 board fields is player 1's point `i`, field 0 holds player 0's bar (negative) and field 25
//! player 1's bar. The turn field is 1 when player 1 is on roll, -1 when player 0 is. Names and
//! scores are player 0's then player 1's; the may-double flags are "cube not owned by player 0"
//! and "cube not owned by player 1"; the borne-off counts are player 1's then player 0's. The
//! last two fields are 1 after the Crawford game (post-Crawford) and 0 in the Crawford game
//! (otherwise 0 and 1). The fixed fields colour 1, direction -1, home 0, bar 25 never change.
//!
//! ```text
//! board:gnubg:root:7:3:5:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:4:2:4:2:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1
//! ```

use std::fmt;

use super::position::{Position, PositionError, Side, BAR};

/// A FIBS board line (gnubg's dialect).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FibsBoard {
    /// Names of gnubg's players 0 and 1 (`:` is written as `_`).
    pub names: [String; 2],
    /// Match length, 0 for money (FIBS's 9999 is read as money).
    pub match_length: u32,
    /// Scores of players 0 and 1.
    pub score: [u32; 2],
    /// The position seen from the player on roll.
    pub position: Position,
    /// The player on roll: 0 or 1.
    pub on_roll: u8,
    /// The dice in the order rolled, (0, 0) before rolling.
    pub dice: (u8, u8),
    /// Cube value.
    pub cube: u32,
    /// Cube owner, `None` when centred.
    pub cube_owner: Option<u8>,
    /// A double is pending: gnubg writes -1 (player on roll is player 1 doubled) or 1.
    pub doubled: i8,
    /// The Crawford game.
    pub crawford: bool,
    /// After the Crawford game.
    pub post_crawford: bool,
}

/// Why a line is not a FIBS board: one variant per check, with the values that failed it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FibsError {
    /// The line does not start with `board:`.
    NoPrefix,
    /// Not 52 fields after `board:`.
    FieldCount { found: usize },
    /// Field `field` (1-based, after `board:`) is not a number.
    NotANumber { field: usize, text: String },
    /// The match length or a score is outside 0..=32767.
    MatchOrScoreOutOfRange { match_length: i64, score: [i64; 2] },
    /// More than 15 checkers on one point.
    TooManyCheckers { count: i64 },
    /// The turn is not 1 or -1.
    Turn { found: i64 },
    /// Dice outside 0..=6, or one die rolled and not the other.
    Dice { first: i64, second: i64 },
    /// The cube is not a power of two from 1 to 2^15.
    Cube { found: i64 },
    /// The doubled flag is not -1, 0 or 1.
    Doubled { found: i64 },
    /// The counts are not a backgammon position.
    Position(PositionError),
}

impl fmt::Display for FibsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("bad FIBS board line: ")?;
        match self {
            FibsError::NoPrefix => f.write_str("no 'board:' prefix"),
            FibsError::FieldCount { found } => {
                write!(f, "{found} fields after 'board:', expected 52")
            }
            FibsError::NotANumber { field, text } => {
                write!(f, "field {field} {text:?} is not a number")
            }
            FibsError::MatchOrScoreOutOfRange { .. } => {
                f.write_str("match length or score out of range")
            }
            FibsError::TooManyCheckers { count } => write!(f, "{count} checkers on a point"),
            FibsError::Turn { found } => write!(f, "turn {found} is not 1 or -1"),
            FibsError::Dice { first, second } => write!(f, "dice {first} {second}"),
            FibsError::Cube { found } => write!(f, "cube {found}"),
            FibsError::Doubled { found } => write!(f, "doubled flag {found}"),
            FibsError::Position(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FibsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FibsError::Position(e) => Some(e),
            _ => None,
        }
    }
}

impl FibsBoard {
    /// The counts of players 0 and 1, each from its own side.
    fn players(&self) -> [[u8; 25]; 2] {
        let me = self.position.counts(Side::OnRoll);
        let opp = self.position.counts(Side::Opponent);
        if self.on_roll == 1 {
            [opp, me]
        } else {
            [me, opp]
        }
    }

    /// Parses a `board:` line.
    pub fn parse(line: &str) -> Result<FibsBoard, FibsError> {
        let line = line.trim_matches(|c: char| c.is_whitespace() || c == '\0');
        let body = line.strip_prefix("board:").ok_or(FibsError::NoPrefix)?;
        let f: Vec<&str> = body.split(':').collect();
        if f.len() != 52 {
            return Err(FibsError::FieldCount { found: f.len() });
        }
        let num = |i: usize| -> Result<i64, FibsError> {
            f[i].trim()
                .parse::<i64>()
                .map_err(|_| FibsError::NotANumber {
                    field: i + 1,
                    text: f[i].to_string(),
                })
        };
        let mut match_length = num(2)?;
        if match_length == 9999 {
            match_length = 0;
        }
        let (s0, s1) = (num(3)?, num(4)?);
        if !(0..=32767).contains(&match_length) || s0 < 0 || s1 < 0 || s0 > 32767 || s1 > 32767 {
            return Err(FibsError::MatchOrScoreOutOfRange {
                match_length,
                score: [s0, s1],
            });
        }
        let mut p = [[0u8; 25]; 2];
        for i in 0..26 {
            let v = num(5 + i)?;
            if v.abs() > 15 {
                return Err(FibsError::TooManyCheckers { count: v });
            }
            let n = v.unsigned_abs() as u8;
            match (i, v.signum()) {
                (_, 0) => {}
                (0, _) => p[0][BAR] = n,
                (25, _) => p[1][BAR] = n,
                (i, 1) => p[1][i - 1] = n,
                (i, _) => p[0][24 - i] = n,
            }
        }
        let turn = num(31)?;
        let on_roll = match turn {
            1 => 1u8,
            -1 => 0u8,
            t => return Err(FibsError::Turn { found: t }),
        };
        let (d0, d1) = (num(32)?, num(33)?);
        let die_ok = |d: i64| (0..=6).contains(&d);
        if !die_ok(d0) || !die_ok(d1) || ((d0 == 0) != (d1 == 0)) {
            return Err(FibsError::Dice {
                first: d0,
                second: d1,
            });
        }
        let cube = num(36)?;
        if !(1..=1 << 15).contains(&cube) || (cube & (cube - 1)) != 0 {
            return Err(FibsError::Cube { found: cube });
        }
        let cube_owner = match (num(37)?, num(38)?) {
            (0, 1) => Some(0),
            (1, 0) => Some(1),
            _ => None,
        };
        let doubled = num(39)?;
        if !(-1..=1).contains(&doubled) {
            return Err(FibsError::Doubled { found: doubled });
        }
        let (post, not_crawford) = (num(50)?, num(51)?);
        let (me, opp) = if on_roll == 1 {
            (p[1], p[0])
        } else {
            (p[0], p[1])
        };
        let position = Position::from_counts(me, opp).map_err(FibsError::Position)?;
        Ok(FibsBoard {
            names: [f[0].to_string(), f[1].to_string()],
            match_length: match_length as u32,
            score: [s0 as u32, s1 as u32],
            position,
            on_roll,
            dice: (d0 as u8, d1 as u8),
            cube: cube as u32,
            cube_owner,
            doubled: doubled as i8,
            crawford: match_length > 0 && not_crawford == 0,
            post_crawford: post == 1,
        })
    }
}

impl fmt::Display for FibsBoard {
    /// The line exactly as gnubg 1.07 writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [p0, p1] = self.players();
        let clean = |s: &str| s.replace(':', "_");
        write!(
            f,
            "board:{}:{}:{}:{}:{}:",
            clean(&self.names[0]),
            clean(&self.names[1]),
            self.match_length,
            self.score[0],
            self.score[1]
        )?;
        write!(f, "{}:", -(p0[BAR] as i32))?;
        for i in 0..24 {
            let theirs = p0[23 - i] as i32;
            write!(f, "{}:", if theirs > 0 { -theirs } else { p1[i] as i32 })?;
        }
        write!(f, "{}:", p1[BAR])?;
        write!(f, "{}:", if self.on_roll == 1 { 1 } else { -1 })?;
        let off = |side: &[u8; 25]| 15 - side.iter().map(|&c| c as u32).sum::<u32>();
        let (d0, d1) = self.dice;
        write!(
            f,
            "{d0}:{d1}:{d0}:{d1}:{}:{}:{}:{}:1:-1:0:25:{}:{}:0:0:0:0:{}:{}",
            self.cube,
            (self.cube_owner != Some(0)) as u8,
            (self.cube_owner != Some(1)) as u8,
            self.doubled,
            off(&p1),
            off(&p0),
            self.post_crawford as u8,
            (!self.crawford) as u8
        )
    }
}

impl std::str::FromStr for FibsBoard {
    type Err = FibsError;

    fn from_str(s: &str) -> Result<FibsBoard, FibsError> {
        FibsBoard::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error;

    const LINE: &str = "board:gnubg:root:7:3:5:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:4:2:4:2:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1";

    #[test]
    fn errors_name_the_check_and_keep_the_message() {
        assert!(FibsBoard::parse(LINE).is_ok());
        let e = FibsBoard::parse(&LINE.replace("board:", "bored:")).unwrap_err();
        assert_eq!(e, FibsError::NoPrefix);
        assert_eq!(e.to_string(), "bad FIBS board line: no 'board:' prefix");
        let e = FibsBoard::parse(&LINE.replacen(":7:", ":x:", 1)).unwrap_err();
        assert_eq!(
            e,
            FibsError::NotANumber {
                field: 3,
                text: "x".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "bad FIBS board line: field 3 \"x\" is not a number"
        );
        assert!(e.source().is_none());
    }
}
