//! Pylos as text. A leaf module (from the rest
//! of the CLI it uses only `common`), shared by the commands and the terminal game.

use tabula_engine::pylos::Color;

/// A colour's name, as the reports spell it.
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

impl crate::common::Reported for tabula_engine::pylos::Position {
    const GAME: &'static str = "pylos";

    fn side_to_move(&self) -> &'static str {
        color_name(self.turn())
    }
}

/// "1 ply", "n plies".
pub fn plies(n: u32) -> String {
    format!("{n} {}", if n == 1 { "ply" } else { "plies" })
}
