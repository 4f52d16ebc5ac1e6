//! The position string: reading (with typed errors) and writing.
//!
//! The four levels from level 0 to level 3 separated by `|`; within a level its rows from the
//! highest rank down to rank 1 separated by `/`, each row its cells from file a onwards: `b`
//! black, `w` white, `.` empty; then one space and the side to move, `b` or `w`. Reserves are 15
//! minus the balls on the board. Start: `..../..../..../....|.../.../...|../..|. b`.
//!
//! On the 3×3 board ([`Board::Three`]) the same with its three levels and 7 balls each; start
//! `.../.../...|../..|. b`.

use super::cell::{Cell, SUPPORTS};
use super::position::{Color, Position};
use super::rules::{Board, Rules};
use std::fmt;

/// Why a position string or a pair of masks is not a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// Not `<board> <side>`.
    MissingSide,
    /// The side to move is not `b` or `w`.
    BadSide(String),
    /// Not as many levels separated by `|` as the board has.
    LevelCount { expected: u8, found: usize },
    /// A well-formed position string of the other board.
    OtherBoard { found: Board, expected: Board },
    /// A level has the wrong number of rows.
    RowCount {
        level: u8,
        expected: u8,
        found: usize,
    },
    /// A row has the wrong number of cells.
    RowLength {
        level: u8,
        row: usize,
        expected: u8,
        found: usize,
    },
    /// A character other than `b`, `w`, `.`.
    BadChar(char),
    /// A ball whose four supports are not all filled.
    Unsupported(Cell),
    /// More balls of one colour than the board has (15, or 7 on the 3×3 board).
    TooMany { color: Color, count: u32, max: u32 },
    /// A cell holding both colours, or a bit outside the board's cells (mask input only).
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
            SetupError::LevelCount { expected, found } => {
                write!(f, "expected {expected} levels separated by '|', found {found}")
            }
            SetupError::OtherBoard { found, expected } => write!(
                f,
                "a position of the {found}x{found} board, but the board is {expected}x{expected} \
                 (board option {found})"
            ),
            SetupError::RowCount {
                level,
                expected,
                found,
            } => write!(
                f,
                "level {level} must have {expected} rows separated by '/', found {found}"
            ),
            SetupError::RowLength {
                level,
                row,
                expected,
                found,
            } => write!(
                f,
                "level {level}, row {} from the top must have {expected} cells, found {found}",
                row + 1,
            ),
            SetupError::BadChar(c) => write!(f, "bad character '{c}' (expected b, w or .)"),
            SetupError::Unsupported(c) => {
                write!(f, "the ball on {c} does not rest on four balls")
            }
            SetupError::TooMany { color, count, max } => write!(
                f,
                "{count} {} balls on the board (at most {max})",
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
pub(crate) fn validate(black: u32, white: u32, board: Board) -> Result<(), SetupError> {
    if black & white != 0 || (black | white) & !board.cells() != 0 {
        return Err(SetupError::BadMask);
    }
    let occ = black | white;
    for c in Cell::iter_mask(occ) {
        if SUPPORTS[c.index()] & !occ != 0 {
            return Err(SetupError::Unsupported(c));
        }
    }
    for (color, mask) in [(Color::Black, black), (Color::White, white)] {
        if mask.count_ones() > board.balls() {
            return Err(SetupError::TooMany {
                color,
                count: mask.count_ones(),
                max: board.balls(),
            });
        }
    }
    Ok(())
}

/// Whether the levels of a position string have the shape of `board`'s (row counts and
/// lengths; the characters are not checked).
fn shape_fits(levels: &[&str], board: Board) -> bool {
    levels.len() == board.levels() as usize
        && levels.iter().enumerate().all(|(level, text)| {
            let n = board.size() as usize - level;
            let rows: Vec<&str> = text.split('/').collect();
            rows.len() == n && rows.iter().all(|r| r.chars().count() == n)
        })
}

impl Position {
    /// Reads a position string under the given rules (on their board).
    pub fn parse(text: &str, rules: Rules) -> Result<Position, SetupError> {
        let text = text.trim();
        let (board, side) = text.split_once(' ').ok_or(SetupError::MissingSide)?;
        let turn = match side.trim() {
            "b" => Color::Black,
            "w" => Color::White,
            other => return Err(SetupError::BadSide(other.to_string())),
        };
        let levels: Vec<&str> = board.split('|').collect();
        let board = rules.board;
        if levels.len() != board.levels() as usize {
            for other in Board::ALL {
                if other != board && shape_fits(&levels, other) {
                    return Err(SetupError::OtherBoard {
                        found: other,
                        expected: board,
                    });
                }
            }
            return Err(SetupError::LevelCount {
                expected: board.levels(),
                found: levels.len(),
            });
        }
        let (mut black, mut white) = (0u32, 0u32);
        for (level, text) in levels.iter().enumerate() {
            let n = (board.size() as usize) - level;
            let rows: Vec<&str> = text.split('/').collect();
            if rows.len() != n {
                return Err(SetupError::RowCount {
                    level: level as u8,
                    expected: n as u8,
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
                        expected: n as u8,
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
        validate(black, white, board)?;
        let apex = board.apex();
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

    /// An ASCII picture of the levels side by side, each with its own rank numbers (highest
    /// rank on top) and files.
    pub fn diagram(&self) -> String {
        let size = self.rules.board.size();
        let mut lines = vec![String::new(); size as usize + 2];
        for level in 0..size {
            let n = size - level;
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
            while block.len() < size as usize + 1 {
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
        let size = self.rules.board.size();
        for level in 0..size {
            if level > 0 {
                f.write_str("|")?;
            }
            let n = size - level;
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
                SetupError::LevelCount {
                    expected: 4,
                    found: 3,
                },
            ),
            (
                ".../.../...|../..|. b",
                SetupError::OtherBoard {
                    found: Board::Three,
                    expected: Board::Four,
                },
            ),
            (
                "..../..../....|.../.../...|../..|. b",
                SetupError::RowCount {
                    level: 0,
                    expected: 4,
                    found: 3,
                },
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
                    expected: 4,
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
                    max: 15,
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

    #[test]
    fn three_board_strings() {
        let rules = Rules::default().on(Board::Three);
        let start = Position::parse(".../.../...|../..|. b", rules).unwrap();
        assert_eq!(start, Position::start(rules));
        assert_eq!(start.to_string(), ".../.../...|../..|. b");
        assert_eq!(start.reserve(Color::Black), 7);
        let pos = Position::parse("b../www/b.w|w./..|. b", rules).unwrap_err();
        assert_eq!(pos, SetupError::Unsupported("1a2".parse().unwrap()));
        let pos = Position::parse("bb./wwb/bww|w./..|. b", rules).unwrap();
        assert_eq!(pos.at("0a3".parse().unwrap()), Some(Color::Black));
        assert_eq!(pos.at("0c1".parse().unwrap()), Some(Color::White));
        assert_eq!(pos.at("1a2".parse().unwrap()), Some(Color::White));
        assert_eq!(pos.reserve(Color::Black), 3);
        assert_eq!(pos.reserve(Color::White), 2);
        assert_eq!(pos.to_string(), "bb./wwb/bww|w./..|. b");
        assert_eq!(pos.diagram().lines().count(), 5);
        let cases: &[(&str, SetupError)] = &[
            (
                "..../..../..../....|.../.../...|../..|. b",
                SetupError::OtherBoard {
                    found: Board::Four,
                    expected: Board::Three,
                },
            ),
            (
                ".../.../...|../.. b",
                SetupError::LevelCount {
                    expected: 3,
                    found: 2,
                },
            ),
            (
                "bbb/bbb/bb.|../..|. b",
                SetupError::TooMany {
                    color: Color::Black,
                    count: 8,
                    max: 7,
                },
            ),
            ("bwb/wbw/bwb|bw/wb|w w", SetupError::ApexOfMover),
        ];
        for (text, err) in cases {
            assert_eq!(Position::parse(text, rules).as_ref(), Err(err), "{text}");
        }
        assert!(SetupError::OtherBoard {
            found: Board::Four,
            expected: Board::Three
        }
        .to_string()
        .contains("4x4 board, but the board is 3x3"));
        // Masks off the small board are refused.
        assert_eq!(
            Position::from_masks(1 << 3, 0, Color::White, rules),
            Err(SetupError::BadMask)
        );
    }
}
