//! gnubg's Match ID: 66 bits of match and game state in base64 (12 characters).
//!
//! Bit layout (bit `k` = bit `k % 8` of byte `k / 8`), as gnubg's `MatchIDFromKey`:
//! cube log2 (4 bits), cube owner (2: 0, 1 or 3 = centred), player on roll (1), Crawford game
//! (1), game state (3), player to decide (1), double offered (1), resignation offered (2),
//! the two dice as rolled (3 + 3; 0 = not rolled), match length (15; 0 = money), score of
//! player 0 (15), score of player 1 (15), the Jacoby rule setting (1; gnubg 1.07 writes its
//! session setting there, on by default, in matches too). Players are gnubg's 0 and 1; the Position ID that goes
//! with a Match ID is seen from `on_roll`.

use std::fmt;

use super::position_id::{base64_decode, base64_encode};

/// The game state field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameState {
    /// No game started.
    NoGame = 0,
    /// A game in progress.
    Playing = 1,
    /// The game is over.
    Over = 2,
    /// The game ended by resignation.
    Resigned = 3,
    /// The game ended by a dropped double.
    Dropped = 4,
}

/// Everything a gnubg Match ID holds.
///
/// The default is a money game in progress, cube centred, player 0 on roll, dice not rolled,
/// Jacoby on (gnubg's defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatchId {
    /// Cube value (1, 2, 4, … 2^15).
    pub cube: u32,
    /// Cube owner: `None` when centred, else player 0 or 1.
    pub cube_owner: Option<u8>,
    /// The player on roll (whose point of view the Position ID takes).
    pub on_roll: u8,
    /// This game is the Crawford game.
    pub crawford: bool,
    /// The state of the game.
    pub game_state: GameState,
    /// The player who has to act now (differs from `on_roll` when a double is offered).
    pub turn: u8,
    /// A double is offered.
    pub doubled: bool,
    /// Resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon.
    pub resigned: u8,
    /// The dice, (0, 0) before rolling; gnubg writes the higher die first.
    pub dice: (u8, u8),
    /// Match length; 0 for money play.
    pub match_length: u32,
    /// Scores of players 0 and 1.
    pub score: [u32; 2],
    /// Whether the Jacoby rule is in force (money play). gnubg 1.07 keeps it in bit 66, past
    /// the 66 bits its manual documents, **set when the rule is off**: with `set jacoby on`
    /// it writes `cAkFAAAAAAAA` for a new money game, with `set jacoby off` `cAkAAAAAAAAE`.
    pub jacoby: bool,
}

/// Why a string is not a valid Match ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchIdError {
    /// Not 12 characters.
    Length(usize),
    /// A character outside the base64 alphabet.
    Character(char),
    /// A field holds a value gnubg never writes.
    Field(&'static str, u32),
    /// The Crawford flag set in a money game (the rule belongs to match play).
    CrawfordMoney,
}

impl fmt::Display for MatchIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatchIdError::Length(n) => write!(f, "a Match ID has 12 characters, not {n}"),
            MatchIdError::Character(c) => write!(f, "{c:?} is not a base64 character"),
            MatchIdError::Field(name, v) => write!(f, "invalid {name} {v} in the Match ID"),
            MatchIdError::CrawfordMoney => {
                f.write_str("the Crawford flag is set in a money game (match length 0)")
            }
        }
    }
}

impl std::error::Error for MatchIdError {}

/// gnubg's new money session: cube 1 centred, player 0 on roll, the Jacoby rule on (gnubg's
/// default, while Tabula's own money default, `CubeState::money()` in the backgammon AI, is
/// without it).
impl Default for MatchId {
    fn default() -> Self {
        MatchId {
            cube: 1,
            cube_owner: None,
            on_roll: 0,
            crawford: false,
            game_state: GameState::Playing,
            turn: 0,
            doubled: false,
            resigned: 0,
            dice: (0, 0),
            match_length: 0,
            score: [0, 0],
            jacoby: true,
        }
    }
}

fn bits(key: u128, at: u32, len: u32) -> u32 {
    ((key >> at) & ((1u128 << len) - 1)) as u32
}

impl MatchId {
    /// The 66-bit key.
    pub fn key(&self) -> u128 {
        let mut k = 0u128;
        let mut at = 0u32;
        let mut put = |v: u32, len: u32| {
            k |= ((v as u128) & ((1u128 << len) - 1)) << at;
            at += len;
        };
        put(self.cube.max(1).trailing_zeros(), 4);
        put(self.cube_owner.map_or(3, u32::from), 2);
        put(self.on_roll as u32, 1);
        put(self.crawford as u32, 1);
        put(self.game_state as u32, 3);
        put(self.turn as u32, 1);
        put(self.doubled as u32, 1);
        put(self.resigned as u32, 2);
        // gnubg 1.07 writes the higher die first whatever the order rolled.
        let (a, b) = (self.dice.0.max(self.dice.1), self.dice.0.min(self.dice.1));
        put(a as u32, 3);
        put(b as u32, 3);
        put(self.match_length, 15);
        put(self.score[0], 15);
        put(self.score[1], 15);
        put(!self.jacoby as u32, 1);
        k
    }

    /// The Match ID string.
    pub fn encode(&self) -> String {
        base64_encode(&self.key().to_le_bytes()[..9])
    }

    /// Parses a Match ID (surrounding whitespace allowed).
    pub fn decode(id: &str) -> Result<MatchId, MatchIdError> {
        let id = id.trim();
        let len = id.chars().count();
        if len != 12 {
            return Err(MatchIdError::Length(len));
        }
        let bytes = base64_decode(id).map_err(MatchIdError::Character)?;
        let mut buf = [0u8; 16];
        buf[..9].copy_from_slice(&bytes[..9]);
        let k = u128::from_le_bytes(buf);
        let cube_log = bits(k, 0, 4);
        let owner = bits(k, 4, 2);
        let state = bits(k, 8, 3);
        let dice = (bits(k, 15, 3), bits(k, 18, 3));
        let game_state = match state {
            0 => GameState::NoGame,
            1 => GameState::Playing,
            2 => GameState::Over,
            3 => GameState::Resigned,
            4 => GameState::Dropped,
            s => return Err(MatchIdError::Field("game state", s)),
        };
        if owner == 2 {
            return Err(MatchIdError::Field("cube owner", owner));
        }
        for d in [dice.0, dice.1] {
            if d > 6 {
                return Err(MatchIdError::Field("die", d));
            }
        }
        if (dice.0 == 0) != (dice.1 == 0) {
            return Err(MatchIdError::Field("die", 0));
        }
        let m = MatchId {
            cube: 1 << cube_log,
            cube_owner: if owner == 3 { None } else { Some(owner as u8) },
            on_roll: bits(k, 6, 1) as u8,
            crawford: bits(k, 7, 1) == 1,
            game_state,
            turn: bits(k, 11, 1) as u8,
            doubled: bits(k, 12, 1) == 1,
            resigned: bits(k, 13, 2) as u8,
            dice: (dice.0 as u8, dice.1 as u8),
            match_length: bits(k, 21, 15),
            score: [bits(k, 36, 15), bits(k, 51, 15)],
            jacoby: bits(k, 66, 1) == 0,
        };
        if m.match_length == 0 && m.crawford {
            return Err(MatchIdError::CrawfordMoney);
        }
        if m.match_length > 0 {
            for s in m.score {
                if s > m.match_length {
                    return Err(MatchIdError::Field("score", s));
                }
            }
        }
        Ok(m)
    }
}

impl fmt::Display for MatchId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.encode())
    }
}

impl std::str::FromStr for MatchId {
    type Err = MatchIdError;

    fn from_str(s: &str) -> Result<MatchId, MatchIdError> {
        MatchId::decode(s)
    }
}
