//! Bi-litaire as text: the board diagram and the side to move in words. A leaf module (from the rest
//! of the CLI it uses only `common`), shared by the commands and the terminal game.

use tabula_engine::bilitaire::{Position, Side, Square};

/// The side to move in words, e.g. "slider to move".
pub fn side_description(pos: &Position) -> String {
    match pos.side() {
        Side::OpeningRemoval => "ball player to remove one ball (opening)".into(),
        Side::Slider => "slider to move".into(),
        Side::Ball(0) => "ball player to make one jump".into(),
        Side::Ball(n) => format!("ball player to make a chain of exactly {n} jumps"),
    }
}

/// The board as text: holes by file and rank, tiles set apart by spaces.
pub fn board_diagram(pos: &Position) -> String {
    let mut out = String::from("     a b   c d   e f   g h\n");
    for rank in (0..8).rev() {
        if rank % 2 == 1 && rank != 7 {
            out.push('\n');
        }
        out.push_str(&format!("  {}  ", rank + 1));
        for file in 0..8 {
            let sq = Square::new(file, rank);
            out.push(if pos.has_ball(sq) {
                'o'
            } else if pos.has_hole(sq) {
                '.'
            } else {
                '-'
            });
            out.push_str(if file == 7 {
                ""
            } else if file % 2 == 1 {
                "   "
            } else {
                " "
            });
        }
        out.push_str(&format!("  {}\n", rank + 1));
    }
    out.push_str("     a b   c d   e f   g h\n");
    out
}

impl crate::common::Reported for Position {
    const GAME: &'static str = "bilitaire";

    /// `slider`, or `ball` (the opening removal and every jump).
    fn side_to_move(&self) -> &'static str {
        tabula_api::build::bilitaire::side_to_move(self)
    }
}
