//! Match play: score, cube, Crawford rule, doubling rights and game results.

use std::fmt;

use super::match_id::{GameState, MatchId};
use super::met;
use super::position::{nibble, total, Position, BAR};

/// The largest cube value: Tabula caps the cube at 64, as game servers do (`docs/rules/backgammon.md`).
pub const MAX_CUBE: u32 = 64;

/// The longest match supported (the extent of the match equity table).
pub const MAX_MATCH_LENGTH: u32 = 25;

/// How a game was won, when played out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameKind {
    /// The loser has borne off at least one checker: 1 point × cube.
    Single = 1,
    /// The loser has borne off no checker: 2 points × cube.
    Gammon = 2,
    /// No checker off and one on the bar or in the winner's home board: 3 points × cube.
    Backgammon = 3,
}

impl GameKind {
    /// Points per cube unit.
    pub fn multiplier(self) -> u32 {
        self as u32
    }
}

impl Position {
    /// When the opponent (who just played) has borne off all 15 checkers: how the player on roll
    /// has lost. `None` while the opponent still has checkers.
    pub fn loss_kind(&self) -> Option<GameKind> {
        if self.opp != 0 {
            return None;
        }
        if total(self.me) < 15 {
            return Some(GameKind::Single);
        }
        // The winner's home board is the loser's points 19..24 (slots 18..=23), or the bar.
        let back = (18..=BAR).any(|i| nibble(self.me, i) > 0);
        Some(if back {
            GameKind::Backgammon
        } else {
            GameKind::Gammon
        })
    }
}

/// Why a player may not double now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DoubleDenied {
    /// The game is over or a double is already pending.
    NotNow,
    /// Only the player on roll may double, before rolling.
    NotOnRoll,
    /// No double on the first move of a game.
    FirstMove,
    /// No cube in the Crawford game.
    Crawford,
    /// The opponent owns the cube.
    NotOwner,
    /// The cube is at its maximum.
    MaxCube,
    /// The player is 1 point from winning the match: doubling cannot help.
    OneAway,
    /// The cube already wins the match for the player (dead cube).
    DeadCube,
}

/// A rule or usage violation in match play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchError {
    /// Match length outside 1..=25.
    Length(u32),
    /// A score at or beyond the match length, or a cube value that is not a power of two.
    State(InvalidState),
    /// The double is not allowed.
    Double(DoubleDenied),
    /// Take or drop without a pending double, or a play while one is pending.
    NoDouble,
    /// The game (or match) is over.
    Over,
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatchError::Length(n) => {
                write!(
                    f,
                    "match length {n} is not 1 to {MAX_MATCH_LENGTH} (0 = money)"
                )
            }
            MatchError::State(s) => write!(f, "invalid match state: {s}"),
            MatchError::Double(why) => write!(f, "no double allowed: {why:?}"),
            MatchError::NoDouble => write!(f, "no double is pending"),
            MatchError::Over => write!(f, "the game is over"),
        }
    }
}

impl std::error::Error for MatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MatchError::State(s) => Some(s),
            _ => None,
        }
    }
}

/// Why a score, Crawford flags and cube are not a possible match state.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidState {
    /// A score at or beyond the match length.
    Score { score: [u32; 2], length: u32 },
    /// Crawford or post-Crawford with no player 1-away.
    CrawfordNotOneAway,
    /// Both Crawford and post-Crawford.
    CrawfordAndPostCrawford,
    /// A player 1-away in a game that is neither Crawford nor post-Crawford.
    OneAwayNotCrawford,
    /// Both players 1-away in the Crawford game.
    BothOneAwayCrawford,
    /// A cube value that is not a power of two up to the maximum.
    CubeValue { value: u32 },
    /// A cube above 1 in the Crawford game.
    CubeInCrawford,
}

impl fmt::Display for InvalidState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidState::Score { score, length } => {
                write!(f, "score {score:?} in a match to {length}")
            }
            InvalidState::CrawfordNotOneAway => {
                f.write_str("Crawford and post-Crawford need a player 1-away")
            }
            InvalidState::CrawfordAndPostCrawford => {
                f.write_str("a game cannot be both Crawford and post-Crawford")
            }
            InvalidState::OneAwayNotCrawford => {
                f.write_str("a player 1-away: the game is Crawford or post-Crawford")
            }
            InvalidState::BothOneAwayCrawford => {
                f.write_str("both 1-away: the Crawford game is over")
            }
            InvalidState::CubeValue { value } => write!(f, "cube value {value}"),
            InvalidState::CubeInCrawford => f.write_str("no cube in the Crawford game"),
        }
    }
}

impl std::error::Error for InvalidState {}

/// The end of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// Player 0 or 1.
    pub winner: usize,
    /// Points won (cube × kind, or the cube value on a drop).
    pub points: u32,
    /// How it was won; `None` for a dropped double.
    pub kind: Option<GameKind>,
}

/// The state of a match (or money session) between games and during one.
///
/// Players are 0 and 1. The cube starts centred at 1 each game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatchState {
    length: u32,
    score: [u32; 2],
    cube: u32,
    cube_owner: Option<usize>,
    crawford: bool,
    post_crawford: bool,
    on_roll: usize,
    first_move: bool,
    double_pending: bool,
    game_over: bool,
}

impl MatchState {
    /// Money play (no match length), player `on_roll` to start.
    pub fn money(on_roll: usize) -> MatchState {
        MatchState {
            length: 0,
            score: [0, 0],
            cube: 1,
            cube_owner: None,
            crawford: false,
            post_crawford: false,
            on_roll: on_roll & 1,
            first_move: true,
            double_pending: false,
            game_over: false,
        }
    }

    /// A match to `length` points (1..=25), first game, player `on_roll` to start.
    pub fn new(length: u32, on_roll: usize) -> Result<MatchState, MatchError> {
        if !(1..=MAX_MATCH_LENGTH).contains(&length) {
            return Err(MatchError::Length(length));
        }
        Ok(MatchState {
            length,
            ..MatchState::money(on_roll)
        })
    }

    /// A state in the middle of a match: `score`, whether this game is the Crawford game or
    /// post-Crawford, the cube. Checks the combination is possible.
    pub fn at_score(
        length: u32,
        score: [u32; 2],
        crawford: bool,
        post_crawford: bool,
    ) -> Result<MatchState, MatchError> {
        let mut m = MatchState::new(length, 0)?;
        if score.iter().any(|&s| s >= length) {
            return Err(MatchError::State(InvalidState::Score { score, length }));
        }
        let one_away = score.iter().any(|&s| s + 1 == length);
        if (crawford || post_crawford) && !one_away {
            return Err(MatchError::State(InvalidState::CrawfordNotOneAway));
        }
        if crawford && post_crawford {
            return Err(MatchError::State(InvalidState::CrawfordAndPostCrawford));
        }
        if one_away && !crawford && !post_crawford {
            return Err(MatchError::State(InvalidState::OneAwayNotCrawford));
        }
        if crawford && score.iter().all(|&s| s + 1 == length) {
            return Err(MatchError::State(InvalidState::BothOneAwayCrawford));
        }
        m.score = score;
        m.crawford = crawford;
        m.post_crawford = post_crawford;
        Ok(m)
    }

    /// Sets the cube (value a power of two up to 64; owner `None` = centred).
    pub fn set_cube(&mut self, value: u32, owner: Option<usize>) -> Result<(), MatchError> {
        if !value.is_power_of_two() || value > MAX_CUBE {
            return Err(MatchError::State(InvalidState::CubeValue { value }));
        }
        if self.crawford && value != 1 {
            return Err(MatchError::State(InvalidState::CubeInCrawford));
        }
        self.cube = value;
        self.cube_owner = owner.map(|o| o & 1);
        Ok(())
    }

    /// Match length, 0 for money.
    pub fn length(&self) -> u32 {
        self.length
    }

    /// Scores of players 0 and 1.
    pub fn score(&self) -> [u32; 2] {
        self.score
    }

    /// Cube value.
    pub fn cube(&self) -> u32 {
        self.cube
    }

    /// Cube owner, `None` when centred.
    pub fn cube_owner(&self) -> Option<usize> {
        self.cube_owner
    }

    /// This game is the Crawford game.
    pub fn is_crawford(&self) -> bool {
        self.crawford
    }

    /// This game comes after the Crawford game.
    pub fn is_post_crawford(&self) -> bool {
        self.post_crawford
    }

    /// The player on roll.
    pub fn on_roll(&self) -> usize {
        self.on_roll
    }

    /// A double is waiting for take or drop (by the player not on roll).
    pub fn double_pending(&self) -> bool {
        self.double_pending
    }

    /// The current game is over.
    pub fn is_game_over(&self) -> bool {
        self.game_over
    }

    /// Points `player` still needs (`None` in money play).
    pub fn away(&self, player: usize) -> Option<u32> {
        (self.length > 0).then(|| self.length.saturating_sub(self.score[player & 1]))
    }

    /// The match is over (a player reached the match length).
    pub fn is_match_over(&self) -> bool {
        self.length > 0 && self.score.iter().any(|&s| s >= self.length)
    }

    /// Why `player` may not double now, or `None` when they may.
    pub fn double_denied(&self, player: usize) -> Option<DoubleDenied> {
        let player = player & 1;
        if self.game_over || self.double_pending || self.is_match_over() {
            return Some(DoubleDenied::NotNow);
        }
        if player != self.on_roll {
            return Some(DoubleDenied::NotOnRoll);
        }
        if self.first_move {
            return Some(DoubleDenied::FirstMove);
        }
        if self.crawford {
            return Some(DoubleDenied::Crawford);
        }
        if self.cube_owner.is_some_and(|o| o != player) {
            return Some(DoubleDenied::NotOwner);
        }
        if self.cube >= MAX_CUBE {
            return Some(DoubleDenied::MaxCube);
        }
        if let Some(away) = self.away(player) {
            if away == 1 {
                return Some(DoubleDenied::OneAway);
            }
            if self.cube >= away {
                return Some(DoubleDenied::DeadCube);
            }
        }
        None
    }

    /// `player` may double now.
    pub fn may_double(&self, player: usize) -> bool {
        self.double_denied(player).is_none()
    }

    /// The player on roll doubles.
    pub fn double(&mut self) -> Result<(), MatchError> {
        if let Some(why) = self.double_denied(self.on_roll) {
            return Err(MatchError::Double(why));
        }
        self.double_pending = true;
        Ok(())
    }

    /// The opponent takes: the cube doubles and the taker owns it.
    pub fn take(&mut self) -> Result<(), MatchError> {
        if !self.double_pending {
            return Err(MatchError::NoDouble);
        }
        self.double_pending = false;
        self.cube *= 2;
        self.cube_owner = Some(1 - self.on_roll);
        Ok(())
    }

    /// The opponent drops: the doubler wins the current cube value (no gammons on a drop).
    pub fn drop_double(&mut self) -> Result<GameResult, MatchError> {
        if !self.double_pending {
            return Err(MatchError::NoDouble);
        }
        self.double_pending = false;
        Ok(self.finish(GameResult {
            winner: self.on_roll,
            points: self.cube,
            kind: None,
        }))
    }

    /// The player on roll has played (or could not): the turn passes.
    pub fn played(&mut self) -> Result<(), MatchError> {
        if self.game_over {
            return Err(MatchError::Over);
        }
        if self.double_pending {
            return Err(MatchError::NoDouble);
        }
        self.first_move = false;
        self.on_roll = 1 - self.on_roll;
        Ok(())
    }

    /// `winner` has borne off all checkers, winning a game of `kind`.
    pub fn win(&mut self, winner: usize, kind: GameKind) -> Result<GameResult, MatchError> {
        if self.game_over {
            return Err(MatchError::Over);
        }
        let result = GameResult {
            winner: winner & 1,
            points: self.cube * kind.multiplier(),
            kind: Some(kind),
        };
        Ok(self.finish(result))
    }

    fn finish(&mut self, result: GameResult) -> GameResult {
        self.game_over = true;
        self.score[result.winner] += result.points;
        result
    }

    /// Starts the next game with `on_roll` to play first: cube centred at 1, the Crawford game
    /// when a player has just reached 1-away, post-Crawford after it.
    pub fn new_game(&mut self, on_roll: usize) -> Result<(), MatchError> {
        if self.is_match_over() {
            return Err(MatchError::Over);
        }
        if self.length > 0 {
            if self.crawford {
                self.crawford = false;
                self.post_crawford = true;
            } else if !self.post_crawford && self.score.iter().any(|&s| s + 1 == self.length) {
                self.crawford = true;
            }
        }
        self.cube = 1;
        self.cube_owner = None;
        self.on_roll = on_roll & 1;
        self.first_move = true;
        self.double_pending = false;
        self.game_over = false;
        Ok(())
    }

    /// The gnubg Match ID of this state with `dice` rolled ((0, 0) before rolling).
    pub fn to_match_id(&self, dice: (u8, u8)) -> MatchId {
        MatchId {
            cube: self.cube,
            cube_owner: self.cube_owner.map(|o| o as u8),
            on_roll: self.on_roll as u8,
            crawford: self.crawford,
            game_state: if self.game_over {
                GameState::Over
            } else {
                GameState::Playing
            },
            turn: if self.double_pending {
                1 - self.on_roll as u8
            } else {
                self.on_roll as u8
            },
            doubled: self.double_pending,
            resigned: 0,
            dice,
            match_length: self.length,
            score: self.score,
            // The state does not hold the rule: no Jacoby, Tabula's default for money (and
            // what gnubg writes in matches); a caller playing with it sets the field.
            jacoby: false,
        }
    }

    /// The state a gnubg Match ID describes (post-Crawford when a player is 1-away outside the
    /// Crawford game; the first-move flag is unknown and taken as false).
    pub fn from_match_id(m: &MatchId) -> Result<MatchState, MatchError> {
        let mut s = if m.match_length == 0 {
            MatchState::money(m.on_roll as usize)
        } else {
            let one_away = m.score.iter().any(|&x| x + 1 == m.match_length);
            let mut s =
                MatchState::at_score(m.match_length, m.score, m.crawford, one_away && !m.crawford)?;
            s.on_roll = m.on_roll as usize;
            s
        };
        if m.cube > MAX_CUBE || !m.cube.is_power_of_two() || (s.crawford && m.cube != 1) {
            return Err(MatchError::State(InvalidState::CubeValue { value: m.cube }));
        }
        s.cube = m.cube;
        s.cube_owner = m.cube_owner.map(usize::from);
        s.first_move = false;
        s.double_pending = m.doubled;
        s.game_over = m.game_state != GameState::Playing;
        Ok(s)
    }

    /// `player`'s match winning chance before the game at this score (Kazaross-XG2), or `None`
    /// in money play.
    pub fn match_equity(&self, player: usize) -> Option<f64> {
        let (a, b) = (self.away(player)?, self.away(1 - (player & 1))?);
        met::match_equity(a, b, self.post_crawford)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error;

    #[test]
    fn an_impossible_state_is_typed_and_keeps_its_message() {
        let e = MatchState::at_score(5, [5, 0], false, false).unwrap_err();
        assert_eq!(
            e,
            MatchError::State(InvalidState::Score {
                score: [5, 0],
                length: 5
            })
        );
        assert_eq!(
            e.to_string(),
            "invalid match state: score [5, 0] in a match to 5"
        );
        assert!(e.source().is_some());
        let e = MatchState::at_score(5, [4, 0], true, true).unwrap_err();
        assert_eq!(e, MatchError::State(InvalidState::CrawfordAndPostCrawford));
        let mut m = MatchState::at_score(5, [0, 0], false, false).unwrap();
        let e = m.set_cube(3, None).unwrap_err();
        assert_eq!(e.to_string(), "invalid match state: cube value 3");
    }
}
