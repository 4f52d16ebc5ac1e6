//! Rule options: the board, which patterns allow a take-back, and whether taking back is
//! optional.

use std::fmt;
use std::str::FromStr;

/// Which completed patterns allow a take-back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Variant {
    /// No take-backs at all.
    Children,
    /// Own-colour 2×2 squares on levels 0–2.
    #[default]
    Standard,
    /// Squares, and own-colour rows or columns: 4 on level 0, 3 on level 1.
    Mature,
}

/// How many balls the mover takes back after completing a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Takeback {
    /// 0, 1 or 2.
    #[default]
    Optional,
    /// 1 or 2. The ball just moved is always free afterwards, so there is always one to take.
    Compulsory,
}

/// The size of the pyramid.
///
/// The 3×3 pyramid (levels 3×3, 2×2 and the apex; 7 balls each) is the sub-pyramid of the
/// 30-cell numbering at files a–c, ranks 1–3 of level 0, a–b, 1–2 of level 1 and a1 of level 2
/// (its apex), so one mask arithmetic serves both boards and only the tables of
/// [`Board::cells`], [`Board::apex`], the patterns and the symmetries differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[repr(u8)]
pub enum Board {
    /// The game's board: a 4×4 base, 30 cells, 15 balls each.
    #[default]
    Four = 0,
    /// The small board for tests: a 3×3 base, 14 cells, 7 balls each.
    Three = 1,
}

impl Board {
    /// Both boards, the full one first.
    pub const ALL: [Board; 2] = [Board::Four, Board::Three];

    /// The width of the base (4 or 3).
    pub const fn size(self) -> u8 {
        match self {
            Board::Four => 4,
            Board::Three => 3,
        }
    }

    /// The number of levels (the width of the base: the apex is the last).
    pub const fn levels(self) -> u8 {
        self.size()
    }

    /// The cells in play, as a mask of the 30-cell numbering.
    #[inline]
    pub const fn cells(self) -> u32 {
        // Branch-free (move generation calls it for every position).
        let three = self as u32;
        super::cell::ALL ^ (three.wrapping_neg() & (super::cell::ALL ^ super::cell::CELLS3))
    }

    /// The apex, as a one-cell mask.
    #[inline]
    pub const fn apex(self) -> u32 {
        // Cell 29 on the full board, 25 on the 3×3 board (branch-free).
        super::cell::APEX >> (4 * self as u32)
    }

    /// The apex cell (`3a1` on the full board, `2a1` on the 3×3 board).
    pub const fn apex_cell(self) -> super::cell::Cell {
        match self {
            Board::Four => super::cell::Cell::APEX,
            Board::Three => super::cell::Cell::APEX3,
        }
    }

    /// Balls of each colour (15 or 7: together they fill the pyramid).
    #[inline]
    pub const fn balls(self) -> u32 {
        15 - 8 * self as u32
    }

    /// The cell at `level`, `file`, `rank` when it is on this board.
    pub const fn cell(self, level: u8, file: u8, rank: u8) -> Option<super::cell::Cell> {
        let n = self.size();
        if level >= n || file >= n - level || rank >= n - level {
            return None;
        }
        super::cell::Cell::new(level, file, rank)
    }

    /// Whether a cell is on this board.
    pub const fn contains(self, cell: super::cell::Cell) -> bool {
        self.cells() & cell.bit() != 0
    }

    /// The 2×2 squares (levels 0–2 on the full board, 0–1 on the 3×3 board).
    pub const fn squares(self) -> &'static [u32] {
        match self {
            Board::Four => &super::cell::SQUARES,
            Board::Three => &super::cell::SQUARES3,
        }
    }

    /// `SYMMETRY[s][c]`: the image of cell `c` under `D4::ALL[s]` on this board (the two
    /// boards' centres differ).
    #[inline]
    pub const fn symmetry(self) -> &'static [[u8; super::cell::NUM_CELLS]; 8] {
        match self {
            Board::Four => &super::cell::SYMMETRY,
            Board::Three => &super::cell::SYMMETRY3,
        }
    }

    /// The same symmetries as byte tables ([`super::cell::MaskMap`]), for mapping whole masks.
    #[inline]
    pub fn symmetry_maps(self) -> &'static [super::cell::MaskMap; 8] {
        match self {
            Board::Four => &super::cell::SYMMETRY_MAPS,
            Board::Three => &super::cell::SYMMETRY3_MAPS,
        }
    }
}

impl fmt::Display for Board {
    /// `4` or `3`, the width of the base.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.size())
    }
}

impl FromStr for Board {
    type Err = ParseRulesError;

    fn from_str(s: &str) -> Result<Board, ParseRulesError> {
        match s {
            "4" => Ok(Board::Four),
            "3" => Ok(Board::Three),
            _ => Err(ParseRulesError::UnknownBoard {
                text: s.to_string(),
            }),
        }
    }
}

/// `PATTERNS[board][variant]`: the take-back patterns (one indexed load in move generation).
static PATTERNS: [[&[u32]; 3]; 2] = [
    [&[], &super::cell::SQUARES, &super::cell::SQUARES_AND_LINES],
    [
        &[],
        &super::cell::SQUARES3,
        &super::cell::SQUARES_AND_LINES3,
    ],
];

/// The rule options that apply to a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Rules {
    /// Which patterns allow a take-back.
    pub variant: Variant,
    /// Whether taking back is optional.
    pub takeback: Takeback,
    /// The pyramid's size.
    pub board: Board,
}

impl Rules {
    /// Every combination of options on the full board, `children` first.
    pub const ALL: [Rules; 6] = [
        Rules::new(Variant::Children, Takeback::Optional),
        Rules::new(Variant::Children, Takeback::Compulsory),
        Rules::new(Variant::Standard, Takeback::Optional),
        Rules::new(Variant::Standard, Takeback::Compulsory),
        Rules::new(Variant::Mature, Takeback::Optional),
        Rules::new(Variant::Mature, Takeback::Compulsory),
    ];

    /// Rules from their two options, on the full board.
    pub const fn new(variant: Variant, takeback: Takeback) -> Rules {
        Rules {
            variant,
            takeback,
            board: Board::Four,
        }
    }

    /// The same options on another board.
    pub const fn on(self, board: Board) -> Rules {
        Rules { board, ..self }
    }

    /// Every combination of the take-back options on `board`, `children` first.
    pub const fn all_on(board: Board) -> [Rules; 6] {
        let mut t = Rules::ALL;
        let mut i = 0;
        while i < 6 {
            t[i] = t[i].on(board);
            i += 1;
        }
        t
    }

    /// A number in 0..6, distinct for each combination of variant and take-back (the board is
    /// not part of it).
    pub const fn code(self) -> u8 {
        (self.variant as u8) * 2 + self.takeback as u8
    }

    /// The patterns whose completion allows a take-back.
    #[inline]
    pub fn patterns(self) -> &'static [u32] {
        PATTERNS[self.board as usize][self.variant as usize]
    }
}

/// An option value that is not one of the names.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseRulesError {
    /// Not `children`, `standard` or `mature`.
    UnknownVariant { text: String },
    /// Not `optional` or `compulsory`.
    UnknownTakeback { text: String },
    /// Not `4` or `3`.
    UnknownBoard { text: String },
}

impl fmt::Display for ParseRulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseRulesError::UnknownVariant { text } => write!(
                f,
                "unknown rules '{text}' (expected children, standard or mature)"
            ),
            ParseRulesError::UnknownTakeback { text } => write!(
                f,
                "unknown take-back option '{text}' (expected optional or compulsory)"
            ),
            ParseRulesError::UnknownBoard { text } => {
                write!(f, "unknown board '{text}' (expected 4 or 3)")
            }
        }
    }
}

impl std::error::Error for ParseRulesError {}

impl FromStr for Variant {
    type Err = ParseRulesError;

    fn from_str(s: &str) -> Result<Variant, ParseRulesError> {
        match s {
            "children" => Ok(Variant::Children),
            "standard" => Ok(Variant::Standard),
            "mature" => Ok(Variant::Mature),
            _ => Err(ParseRulesError::UnknownVariant {
                text: s.to_string(),
            }),
        }
    }
}

impl FromStr for Takeback {
    type Err = ParseRulesError;

    fn from_str(s: &str) -> Result<Takeback, ParseRulesError> {
        match s {
            "optional" => Ok(Takeback::Optional),
            "compulsory" => Ok(Takeback::Compulsory),
            _ => Err(ParseRulesError::UnknownTakeback {
                text: s.to_string(),
            }),
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Variant::Children => "children",
            Variant::Standard => "standard",
            Variant::Mature => "mature",
        })
    }
}

impl fmt::Display for Takeback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Takeback::Optional => "optional",
            Takeback::Compulsory => "compulsory",
        })
    }
}

impl fmt::Display for Rules {
    /// `standard optional`; on the 3×3 board `standard optional board 3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.variant, self.takeback)?;
        if self.board != Board::Four {
            write!(f, " board {}", self.board)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_say_which_option_and_keep_the_message() {
        assert_eq!("mature".parse::<Variant>(), Ok(Variant::Mature));
        let e = "adult".parse::<Variant>().unwrap_err();
        assert_eq!(
            e,
            ParseRulesError::UnknownVariant {
                text: "adult".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "unknown rules 'adult' (expected children, standard or mature)"
        );
        let e = "never".parse::<Takeback>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown take-back option 'never' (expected optional or compulsory)"
        );
        assert!(matches!(e, ParseRulesError::UnknownTakeback { .. }));
    }
}
