//! Pylos in words, shared by the commands and the terminal game (a leaf module: it imports
//! nothing of its parent).

use tabula_engine::pylos::Color;

/// A colour's name, as reports and prompts write it.
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// "1 ply", "n plies".
pub fn plies(n: u32) -> String {
    format!("{n} {}", if n == 1 { "ply" } else { "plies" })
}
