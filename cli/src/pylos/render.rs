//! Pylos as text. A leaf module (it imports nothing from the rest of the CLI), shared by the
//! commands and the terminal game.

use tabula_engine::pylos::Color;

/// A colour's name, as the reports spell it.
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}
