//! Pylos solved strongly: one retrograde table ([`crate::retro`]) per board and rule set, and
//! what the command line, the interactive game and the solver ask of it.
//!
//! A table holds every position of its board and rules, one byte per symmetry class (see
//! [`PylosSpace`]): won, lost or drawn for the side to move, with the distance in plies under
//! best play. [`PylosTable`] opens one lazily (header and summary only; values are read by
//! positional reads as they are asked for), answers a position ([`PylosTable::value`]) and
//! every move from it ([`PylosTable::moves`], best first), and serves any search as the
//! solver's [`Oracle`]. Files are named by their rules ([`file_name`]) inside one directory,
//! by default [`DEFAULT_DIR`] (or the directory named by `TABULA_TABLEBASES`).

use std::cmp::Ordering;
use std::fmt;
use std::path::{Path, PathBuf};

use tabula_engine::pylos::{self, Color, Move, Position, PylosSpace, Rules};
use tabula_engine::Game;
use tabula_solver::Oracle;
use tabula_store::StoreError;

use crate::retro::{Table, Value};

/// The directory the tables are looked for in when none is given (relative to the current
/// directory), unless the environment variable [`DIR_VARIABLE`] names another.
pub const DEFAULT_DIR: &str = "tablebases";

/// The environment variable that overrides [`DEFAULT_DIR`].
pub const DIR_VARIABLE: &str = "TABULA_TABLEBASES";

/// The default directory of the tables: `$TABULA_TABLEBASES`, else `./tablebases`.
pub fn default_dir() -> PathBuf {
    std::env::var_os(DIR_VARIABLE)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_DIR))
}

/// The file name of the table of `rules`: `pylos-<board>-<rules>-<takeback>.tb`, e.g.
/// `pylos-4-standard-optional.tb`.
pub fn file_name(rules: Rules) -> String {
    format!(
        "pylos-{}-{}-{}.tb",
        u32::from(rules.board.size()),
        rules.variant,
        rules.takeback
    )
}

/// One move and what it leads to, judged by the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    pub mv: Move,
    /// The position after the move.
    pub child: Position,
    /// The value of the move for the player making it: won in `d + 1` when the child is lost
    /// in `d` for the opponent, and so on.
    pub value: Value,
}

/// The value one ply earlier, for the other player: what a move to a position of value `v`
/// is worth to the player making it.
pub fn backed_up(v: Value) -> Value {
    match v {
        Value::Loss(d) => Value::Win(d + 1),
        Value::Win(d) => Value::Loss(d + 1),
        other => other,
    }
}

/// Orders values from the side to move's point of view, best first: the fastest win, then
/// slower wins, draws, and losses from the slowest to the fastest.
pub fn better(a: Value, b: Value) -> Ordering {
    fn rank(v: Value) -> (u8, i64) {
        match v {
            Value::Win(d) => (0, i64::from(d)),
            Value::Draw => (1, 0),
            Value::Loss(d) => (2, -i64::from(d)),
            Value::Hole => (3, 0),
        }
    }
    rank(a).cmp(&rank(b))
}

/// The solver's payoff of a position from its table value: black's view, `WIN - d` for a win
/// at distance `d` ([`pylos::WIN`]), 0 for a draw.
pub fn payoff(pos: &Position, v: Value) -> Option<i32> {
    let signed = match v {
        Value::Win(d) => pylos::WIN - d as i32,
        Value::Loss(d) => -(pylos::WIN - d as i32),
        Value::Draw => 0,
        Value::Hole => return None,
    };
    Some(match pos.turn() {
        Color::Black => signed,
        Color::White => -signed,
    })
}

/// Why a probe gave no value.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProbeError {
    /// The position is under other rules than the table.
    OtherRules { table: Rules, position: Rules },
    /// The file could not be read, or a block of it is damaged.
    Store(StoreError),
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeError::OtherRules { table, position } => write!(
                f,
                "the position is under other rules ({}) than the table ({})",
                file_name(*position),
                file_name(*table)
            ),
            ProbeError::Store(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ProbeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProbeError::Store(e) => Some(e),
            ProbeError::OtherRules { .. } => None,
        }
    }
}

impl From<StoreError> for ProbeError {
    fn from(e: StoreError) -> ProbeError {
        ProbeError::Store(e)
    }
}

/// An open Pylos table: the file is read lazily, by positional reads.
#[derive(Debug)]
pub struct PylosTable {
    space: PylosSpace,
    table: Table,
}

impl PylosTable {
    /// Opens the table of `rules` in `dir` ([`file_name`]).
    pub fn open(dir: impl AsRef<Path>, rules: Rules) -> Result<PylosTable, StoreError> {
        PylosTable::open_file(dir.as_ref().join(file_name(rules)), rules)
    }

    /// Opens the table of `rules` in `dir` if the file is there: `Ok(None)` when it is not, an
    /// error when it is there but cannot be used (damaged, another game or rules).
    pub fn find(dir: impl AsRef<Path>, rules: Rules) -> Result<Option<PylosTable>, StoreError> {
        match PylosTable::open(dir, rules) {
            Ok(t) => Ok(Some(t)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Opens a table file built for `rules`; a file of other rules is refused.
    pub fn open_file(path: impl AsRef<Path>, rules: Rules) -> Result<PylosTable, StoreError> {
        let space = PylosSpace::new(rules);
        let table = Table::open(path, &space)?;
        Ok(PylosTable { space, table })
    }

    /// The rules of the table.
    pub fn rules(&self) -> Rules {
        self.space.rules()
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        self.table.path()
    }

    /// The underlying table (summary, size, raw values by index).
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The index space of the table.
    pub fn space(&self) -> &PylosSpace {
        &self.space
    }

    /// The value of `pos` for the side to move. A position under other rules than the
    /// table's is an error ([`ProbeError::OtherRules`]), never a wrong answer.
    pub fn value(&self, pos: &Position) -> Result<Value, ProbeError> {
        if pos.rules() != self.rules() {
            return Err(ProbeError::OtherRules {
                table: self.rules(),
                position: pos.rules(),
            });
        }
        Ok(self.table.probe(&self.space, pos)?)
    }

    /// Every legal move of `pos` with its value for the mover, best first (ties in the
    /// engine's move order).
    pub fn moves(&self, pos: &Position) -> Result<Vec<MoveValue>, ProbeError> {
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        let mut out = Vec::with_capacity(moves.len());
        for mv in moves {
            let child = pos.play(mv);
            let value = backed_up(self.value(&child)?);
            out.push(MoveValue { mv, child, value });
        }
        out.sort_by(|a, b| better(a.value, b.value));
        Ok(out)
    }

    /// A principal variation from `pos`: best moves until the game ends, at most `max` plies
    /// (a drawn position's line never ends).
    pub fn line(&self, pos: &Position, max: usize) -> Result<Vec<Move>, ProbeError> {
        let mut line = Vec::new();
        let mut at = *pos;
        while line.len() < max {
            let Some(best) = self.moves(&at)?.into_iter().next() else {
                break;
            };
            line.push(best.mv);
            at = best.child;
        }
        Ok(line)
    }
}

impl Oracle<Position> for PylosTable {
    /// The exact payoff of positions under the table's rules. A read error (a damaged block)
    /// is a miss, never a value: the search then goes on without the table, and the commands
    /// that open a table probe its root first so that such errors are reported.
    fn probe(&self, pos: &Position) -> Option<i32> {
        if pos.rules() != self.rules() {
            return None;
        }
        let v = self.table.probe(&self.space, pos).ok()?;
        payoff(pos, v)
    }
}
