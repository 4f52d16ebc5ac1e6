//! Pylos as text. A leaf module (from the rest
//! of the CLI it uses only `common`), shared by the commands and the terminal game.

/// A colour's name, as the reports spell it.
pub use tabula_api::build::pylos::color_name;

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
