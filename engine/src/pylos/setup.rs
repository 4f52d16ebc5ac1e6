//! The position string: reading (with typed errors) and writing.
//!
//! The four levels from level 0 to level 3 separated by `|`; within a level its rows from the
//! highest rank down to rank 1 separated by `/`, each row its cells from file a onwards: `b`
//! black, `w` white, `.` empty; then one space and the side to move, `b` or `w`. Reserves are 15
//! minus the balls on the board. Start: `..../..../..../....|.../.../...|../..|. b`.

use super::cell::{Cell, SUPPORTS};
use super::position::{Color, Position, BALLS_PER_COLOR};
use super::rules::Rules;
use std::fmt;

/// Why a position string or a pair of masks is not a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// Not `<board> <side>`.
    MissingSide,
    /// The side to move is not `b` or `w`.
    BadSide(String),
    /// Not four levels separated by `|`.
    LevelCount(usize),
    /// A level has the wrong number of rows.
    RowCount { level: u8, found: usize },
    /// A row has the wrong number of cells.
    RowLength { level: u8, row: usize, found: usize },
    /// A character other than `b`, `w`, `.`.
    BadChar(char),
    /// A ball whose four supports are not all filled.
    Unsupported(Cell),
    /// More than 15 balls of one colour.
    TooMany { color: Color, count: u32 },
    /// A cell holding both colours, or a bit outside the 30 cells (mask input only).
    BadMask,
    /// The apex holds a ball of the side to move: whoever places the apex ends the game, so
    /// the other side is to move (and has lost).
    ApexOfMover,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::MissingSide => {
                f.write_str("expected the board, one space and the side to move (b or w)")
            }
            SetupError::BadSide(s) => write!(f, "side to move must be b or w, not '{s}'"),
            SetupError::LevelCount(n) => {
                write!(f, "expected 4 levels separated by '|', found {n}")
            }
            SetupError::RowCount { level, found } => write!(
                f,
                "level {level} must have {} rows separated by '/', found {found}",
                4 - level
            ),
            SetupError::RowLength { level, row, found } => write!(
                f,
                "level {level}, row {} from the top must have {} cells, found {found}",
                row + 1,
                4 - level
            ),
            SetupError::BadChar(c) => write!(f, "bad character '{c}' (expected b, w or .)"),
            SetupError::Unsupported(c) => {
                write!(f, "the ball on {c} does not rest on four balls")
            }
            SetupError::TooMany { color, count } => write!(
                f,
                "{count} {} balls on the board (at most {BALLS_PER_COLOR})",
                match color {
                    Color::Black => "black",
                    Color::White => "white",
                }
            ),
            SetupError::BadMask => f.write_str("overlapping or out-of-range masks"),
            SetupError::ApexOfMover => f.write_str(
                "the apex ball is of the side to move, but placing the apex ends the game with the other side to move",
            ),
        }
    }
}

impl std::error::Error for SetupError {}

/// Checks the position invariants on two colour masks.
pub(crate) fn validate(black: u32, white: u32) -> Result<(), SetupError> {
    if black & white != 0 || (black | white) & !super::cell::ALL != 0 {
        return Err(SetupError::BadMask);
    }
    let occ = black | white;
    for c in Cell::iter_mask(occ) {
        if SUPPORTS[c.index()] & !occ != 0 {
            return Err(SetupError::Unsupported(c));
        }
    }
    for (color, mask) in [(Color::Black, black), (Color::White, white)] {
        if mask.count_ones() > BALLS_PER_COLOR {
            return Err(SetupError::TooMany {
                color,
                count: mask.count_ones(),
            });
        }
    }
    Ok(())
}

impl Position {
    /// Reads a position string under the given rules.
    pub fn parse(text: &str, rules: Rules) -> Result<Position, SetupError> {
        let text = text.trim();
        let (board, side) = text.split_once(' ').ok_or(SetupError::MissingSide)?;
        let turn = match side.trim() {
            "b" => Color::Black,
            "w" => Color::White,
            other => return Err(SetupError::BadSide(other.to_string())),
        };
        let levels: Vec<&str> = board.split('|').collect();
        if levels.len() != 4 {
            return Err(SetupError::LevelCount(levels.len()));
        }
        let (mut black, mut white) = (0u32, 0u32);
        for (level, text) in levels.iter().enumerate() {
            let n = 4 - level;
            let rows: Vec<&str> = text.split('/').collect();
            if rows.len() != n {
                return Err(SetupError::RowCount {
                    level: level as u8,
                    found: rows.len(),
                });
            }
            for (row, cells) in rows.iter().enumerate() {
                let count = cells.chars().count();
                if let Some(bad) = cells.chars().find(|ch| !matches!(ch, 'b' | 'w' | '.')) {
                    return Err(SetupError::BadChar(bad));
                }
                if count != n {
                    return Err(SetupError::RowLength {
                        level: level as u8,
                        row,
                        found: count,
                    });
                }
                let rank = (n - 1 - row) as u8;
                for (file, ch) in cells.bytes().enumerate() {
                    let c = Cell::new(level as u8, file as u8, rank).expect("shape checked");
                    match ch {
                        b'b' => black |= c.bit(),
                        b'w' => white |= c.bit(),
                        _ => {}
                    }
                }
            }
        }
        validate(black, white)?;
        let apex = super::cell::APEX;
        let mover = match turn {
            Color::Black => black,
            Color::White => white,
        };
        if mover & apex != 0 {
            return Err(SetupError::ApexOfMover);
        }
        Ok(Position {
            black,
            white,
            turn,
            rules,
        })
    }

    /// An ASCII picture of the four levels side by side, each with its own rank numbers
    /// (highest rank on top) and files.
    pub fn diagram(&self) -> String {
        let mut lines = vec![String::new(); 6];
        for level in 0..4u8 {
            let n = 4 - level;
            let width = (2 * n as usize + 1).max(7) + 3;
            let mut block = vec![format!("level {level}")];
            for rank in (0..n).rev() {
                let cells: Vec<&str> = (0..n)
                    .map(|file| {
                        let c = Cell::new(level, file, rank).expect("in range");
                        match self.at(c) {
                            Some(Color::Black) => "b",
                            Some(Color::White) => "w",
                            None => ".",
                        }
                    })
                    .collect();
                block.push(format!("{} {}", rank + 1, cells.join(" ")));
            }
            let files: Vec<String> = (0..n).map(|f| ((b'a' + f) as char).to_string()).collect();
            block.push(format!("  {}", files.join(" ")));
            // The file row goes on the last line; empty rows pad the shorter levels.
            let files_row = block.pop().unwrap_or_default();
            while block.len() < 5 {
                block.push(String::new());
            }
            block.push(files_row);
            for (line, text) in lines.iter_mut().zip(block) {
                line.push_str(&format!("{text:width$}"));
            }
        }
        let mut out = String::new();
        for line in lines {
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for level in 0..4u8 {
            if level > 0 {
                f.write_str("|")?;
            }
            let n = 4 - level;
            for rank in (0..n).rev() {
                if rank + 1 < n {
                    f.write_str("/")?;
                }
                for file in 0..n {
                    let c = Cell::new(level, file, rank).expect("in range");
                    f.write_str(match self.at(c) {
                        Some(Color::Black) => "b",
                        Some(Color::White) => "w",
                        None => ".",
                    })?;
                }
            }
        }
        write!(f, " {}", self.turn.char())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "..../..../..../....|.../.../...|../..|. b";

    #[test]
    fn start_round_trips() {
        let pos = Position::parse(START, Rules::default()).unwrap();
        assert_eq!(pos, Position::start(Rules::default()));
        assert_eq!(pos.to_string(), START);
    }

    #[test]
    fn cells_land_where_the_string_says() {
        // b on a4 and b4 (start of the first row), w on d1 (last of the last row), b on level 1 a3.
        let pos = Position::parse(
            "bb../bbww/bbww/...w|b../.../...|../..|. w",
            Rules::default(),
        )
        .unwrap();
        assert_eq!(pos.at("0a4".parse().unwrap()), Some(Color::Black));
        assert_eq!(pos.at("0d1".parse().unwrap()), Some(Color::White));
        assert_eq!(pos.at("1a3".parse().unwrap()), Some(Color::Black));
        assert_eq!(pos.turn(), Color::White);
        assert_eq!(pos.reserve(Color::Black), 8);
        assert_eq!(pos.reserve(Color::White), 10);
        assert_eq!(pos.to_string(), "bb../bbww/bbww/...w|b../.../...|../..|. w");
    }

    #[test]
    fn bad_strings_are_rejected() {
        let cases: &[(&str, SetupError)] = &[
            (
                "..../..../..../....|.../.../...|../..|.",
                SetupError::MissingSide,
            ),
            (
                "..../..../..../....|.../.../...|../..|. x",
                SetupError::BadSide("x".into()),
            ),
            (
                "..../..../..../....|.../.../...|../.. b",
                SetupError::LevelCount(3),
            ),
            (
                "..../..../....|.../.../...|../..|. b",
                SetupError::RowCount { level: 0, found: 3 },
            ),
            (
                "bwbw/wbwb/bwbw/wbwb|bwb/wbw/bwb|ww/bw|b b",
                SetupError::ApexOfMover,
            ),
            (
                "..../..../..../...|.../.../...|../..|. b",
                SetupError::RowLength {
                    level: 0,
                    row: 3,
                    found: 3,
                },
            ),
            (
                "..../..../..../..x.|.../.../...|../..|. b",
                SetupError::BadChar('x'),
            ),
            (
                "..../..../..../....|b../.../...|../..|. b",
                SetupError::Unsupported("1a3".parse().unwrap()),
            ),
            (
                "bbbb/bbbb/bbbb/bbbb|.../.../...|../..|. b",
                SetupError::TooMany {
                    color: Color::Black,
                    count: 16,
                },
            ),
        ];
        for (text, err) in cases {
            assert_eq!(
                Position::parse(text, Rules::default()).as_ref(),
                Err(err),
                "{text}"
            );
            assert!(!err.to_string().is_empty());
        }
    }
}
