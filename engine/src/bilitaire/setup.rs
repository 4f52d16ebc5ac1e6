//! The position string: parsing into a validated [`Position`] with typed errors, and printing.
//!
//! Format: the 8 ranks from rank 8 down to rank 1 separated by `/`, each 8 characters for files
//! a–h (`o` ball, `.` empty hole, `-` no hole), a space, and the side to move: `r` opening
//! removal, `s` slider, `b` ball player, `bN` ball player under an announcement of N.

use super::geometry::{holes_of, tiles_of, Slot, Square, SLOT_HOLES};
use super::position::{Position, Rules, Side};
use std::fmt;
use std::str::FromStr;

/// Why a position string was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// Not `<board> <side>`.
    Shape(usize),
    /// The board does not have 8 ranks.
    RankCount(usize),
    /// A rank does not have 8 cells (rank number 1–8, cells found).
    RankLength(u32, usize),
    /// A character other than `o`, `.`, `-`.
    Character(char, Square),
    /// A slot with some but not all of its 4 holes.
    PartialTile(Slot),
    /// More than the game's 12 tiles.
    TooManyTiles(u32),
    /// Not `r`, `s`, `b` or `bN`.
    Side(String),
    /// `bN` with N below 2.
    AnnouncementTooSmall(u32),
    /// `bN` when no chain of exactly N jumps exists (the longest is given).
    AnnouncementImpossible(u32, u32),
    /// `r` with an empty hole.
    RemovalNotFull(Square),
    /// No ball on the board: every jump leaves a ball, so a round always ends with one or more.
    NoBalls,
    /// The slider to move with every hole filled: the slider moves after the opening removal
    /// or a jump, and each of those leaves an empty hole.
    SliderWithoutEmptyHole,
    /// The ball player to move with all 48 balls: the opening removal (`r`) comes first.
    BallPlayerBeforeRemoval,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Shape(n) => write!(
                f,
                "expected '<ranks> <side>' (two fields separated by a space), found {n} field(s)"
            ),
            PositionError::RankCount(n) => {
                write!(f, "expected 8 ranks separated by '/', found {n}")
            }
            PositionError::RankLength(rank, n) => {
                write!(f, "rank {rank} has {n} cells, expected 8")
            }
            PositionError::Character(c, sq) => write!(
                f,
                "unexpected character {c:?} at {sq} (use 'o' ball, '.' empty hole, '-' no hole)"
            ),
            PositionError::PartialTile(slot) => write!(
                f,
                "holes must form whole 2x2 tiles, but slot {slot} has only some of its holes"
            ),
            PositionError::TooManyTiles(n) => {
                write!(f, "{n} tiles on the board, the game has only 12")
            }
            PositionError::Side(s) => write!(
                f,
                "unknown side to move {s:?} (expected r, s, b or bN with N >= 2)"
            ),
            PositionError::AnnouncementTooSmall(n) => {
                write!(f, "announcement b{n} must be at least 2 (plain 'b' is one jump)")
            }
            PositionError::AnnouncementImpossible(n, longest) => write!(
                f,
                "announcement b{n} is impossible: no chain of exactly {n} jumps exists (longest is {longest})"
            ),
            PositionError::RemovalNotFull(sq) => write!(
                f,
                "side 'r' (opening removal) needs every hole filled, but {sq} is empty"
            ),
            PositionError::NoBalls => f.write_str(
                "no ball on the board: a round always ends with at least one ball left",
            ),
            PositionError::SliderWithoutEmptyHole => f.write_str(
                "the slider cannot be to move with every hole filled (the opening removal and every jump leave an empty hole)",
            ),
            PositionError::BallPlayerBeforeRemoval => f.write_str(
                "48 balls with the ball player to move: the opening removal comes first (side 'r')",
            ),
        }
    }
}

impl std::error::Error for PositionError {}

impl Position {
    /// Parses a position string under the default rules.
    pub fn parse(text: &str) -> Result<Position, PositionError> {
        Position::parse_with(text, Rules::default())
    }

    /// Parses a position string under the given rules.
    pub fn parse_with(text: &str, rules: Rules) -> Result<Position, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [board, side] = fields[..] else {
            return Err(PositionError::Shape(fields.len()));
        };
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != 8 {
            return Err(PositionError::RankCount(ranks.len()));
        }
        let (mut balls, mut holes) = (0u64, 0u64);
        for (i, row) in ranks.iter().enumerate() {
            let rank = 7 - i as u32;
            let cells = row.chars().count();
            if cells != 8 {
                return Err(PositionError::RankLength(rank + 1, cells));
            }
            for (file, c) in row.chars().enumerate() {
                let sq = Square::new(file as u32, rank);
                match c {
                    'o' => {
                        balls |= sq.bit();
                        holes |= sq.bit();
                    }
                    '.' => holes |= sq.bit(),
                    '-' => {}
                    other => return Err(PositionError::Character(other, sq)),
                }
            }
        }
        for (slot, &mask) in SLOT_HOLES.iter().enumerate() {
            let present = holes & mask;
            if present != 0 && present != mask {
                return Err(PositionError::PartialTile(Slot::from_index(slot as u32)));
            }
        }
        let tiles = tiles_of(holes);
        debug_assert_eq!(holes_of(tiles), holes);
        if tiles.count_ones() > 12 {
            return Err(PositionError::TooManyTiles(tiles.count_ones()));
        }
        let side = parse_side(side)?;
        match side {
            Side::OpeningRemoval => {
                if let Some(sq) = Square::iter(holes & !balls).next() {
                    return Err(PositionError::RemovalNotFull(sq));
                }
            }
            Side::Ball(n) if n >= 2 => {
                let longest = super::movegen::longest_chain(balls, holes);
                if longest < u32::from(n) {
                    return Err(PositionError::AnnouncementImpossible(n.into(), longest));
                }
            }
            _ => {}
        }
        // Reachability, after the checks above (an impossible announcement is named first).
        if balls == 0 {
            return Err(PositionError::NoBalls);
        }
        match side {
            Side::Slider if holes & !balls == 0 => {
                return Err(PositionError::SliderWithoutEmptyHole);
            }
            Side::Ball(_) if balls.count_ones() == 48 => {
                return Err(PositionError::BallPlayerBeforeRemoval);
            }
            _ => {}
        }
        Ok(Position::from_parts(balls, tiles, side, rules)
            .expect("balls lie in holes, at most 12 tiles, announcement checked"))
    }
}

fn parse_side(text: &str) -> Result<Side, PositionError> {
    match text {
        "r" => Ok(Side::OpeningRemoval),
        "s" => Ok(Side::Slider),
        "b" => Ok(Side::Ball(0)),
        _ => {
            let digits = text
                .strip_prefix('b')
                .filter(|d| !d.is_empty() && d.len() <= 3 && d.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| PositionError::Side(text.to_string()))?;
            let n: u32 = digits
                .parse()
                .map_err(|_| PositionError::Side(text.to_string()))?;
            if n < 2 {
                return Err(PositionError::AnnouncementTooSmall(n));
            }
            // A chain removes one ball per jump: 47 is the most there can ever be.
            if n > 47 {
                return Err(PositionError::AnnouncementImpossible(n, 0));
            }
            Ok(Side::Ball(n as u8))
        }
    }
}

impl FromStr for Position {
    type Err = PositionError;
    fn from_str(s: &str) -> Result<Position, PositionError> {
        Position::parse(s)
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Side::OpeningRemoval => f.write_str("r"),
            Side::Slider => f.write_str("s"),
            Side::Ball(0) => f.write_str("b"),
            Side::Ball(n) => write!(f, "b{n}"),
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            for file in 0..8 {
                let sq = Square::new(file, rank);
                let c = if self.has_ball(sq) {
                    'o'
                } else if self.has_hole(sq) {
                    '.'
                } else {
                    '-'
                };
                write!(f, "{c}")?;
            }
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        write!(f, " {}", self.side)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "--oooo--/--oooo--/oooooooo/oooooooo/oooooooo/oooooooo/--oooo--/--oooo-- r";

    #[test]
    fn start_round_trips() {
        let pos = Position::parse(START).unwrap();
        assert_eq!(pos, Position::start());
        assert_eq!(pos.to_string(), START);
    }

    #[test]
    fn rejects_malformed_strings() {
        let cases = [
            ("", PositionError::Shape(0)),
            ("--oooo--/--oooo-- r", PositionError::RankCount(2)),
            (
                "--oooo--/--oooo--/oooooooo/oooooooo/oooooooo/oooooooo/--oooo--/--oooo- r",
                PositionError::RankLength(1, 7),
            ),
            (
                "--oooo--/--oooo--/oooooooo/oooooooo/oooooooo/oooooooo/--oooo--/--oooo-- q",
                PositionError::Side("q".into()),
            ),
            (
                "--oooo--/--oooo--/oooooooo/oooooooo/oooooooo/oooooooo/--oooo--/--oooo-- b1",
                PositionError::AnnouncementTooSmall(1),
            ),
            (
                "--oooo--/--oooo--/oooooooo/oooooooo/oooooooo/oooooooo/--oooo--/---ooo-- s",
                PositionError::PartialTile(Slot::parse("B1").unwrap()),
            ),
            (
                "--oooo--/--oooo--/oooooooo/oooooooo/oooo.ooo/oooooooo/--oooo--/--oooo-- r",
                PositionError::RemovalNotFull(Square::parse("e4").unwrap()),
            ),
            (
                "--oooo--/--oooo--/oooooooo/oooooooo/oooo.ooo/oooooooo/--oooo--/--oooo-- b2",
                PositionError::AnnouncementImpossible(2, 1),
            ),
            (
                "oooooooo/oooooooo/oooooooo/oooooooo/oooooooo/oooooooo/--oooo--/--oooo-- s",
                PositionError::TooManyTiles(14),
            ),
            (
                "--....--/--....--/......../......../......../......../--....--/--....-- s",
                PositionError::NoBalls,
            ),
            (
                "--oooo--/--oooo--/oooooooo/oooooooo/oooooooo/oooooooo/--oooo--/--oooo-- s",
                PositionError::SliderWithoutEmptyHole,
            ),
            (
                "--oooo--/--oooo--/oooooooo/oooooooo/oooooooo/oooooooo/--oooo--/--oooo-- b",
                PositionError::BallPlayerBeforeRemoval,
            ),
        ];
        for (text, err) in cases {
            assert_eq!(Position::parse(text), Err(err), "{text:?}");
        }
        assert!(matches!(
            Position::parse(
                "--oooo--/--oooo--/ooooxooo/oooooooo/oooooooo/oooooooo/--oooo--/--oooo-- r"
            ),
            Err(PositionError::Character('x', _))
        ));
    }
}
