//! The principal variation of an exact Bi-litaire solve: a best line, and the same line
//! whatever the threads and the table size (its moves are tried in an order that depends on
//! the position only).

use tabula_engine::bilitaire::{Position, Side};
use tabula_engine::playout::random_playout;
use tabula_engine::{Game, Scored};
use tabula_solver::{AtomicTable, SearchOptions, Searcher, Table};

fn line<T: Table>(table: &T, pos: &Position, options: SearchOptions) -> (i32, Vec<String>) {
    let report = Searcher::new(table, options)
        .solve(pos)
        .expect("no limits set");
    assert!(report.exact, "{pos}");
    (
        report.value,
        report.pv.iter().map(ToString::to_string).collect(),
    )
}

#[test]
fn the_line_does_not_depend_on_threads_or_table_size() {
    // Positions of 15 balls from seeded random games, both sides to move.
    let positions: Vec<Position> = (0..)
        .filter_map(|seed| {
            random_playout(&Position::start(), 900 + seed, |p| p.ball_count() <= 15)
                .filter(|p| p.ball_count() == 15 && !p.is_terminal())
        })
        .take(4)
        .collect();
    assert!(positions.iter().any(|p| p.side() == Side::Slider));
    let mut longest = 0;
    for pos in positions {
        let (value, pv) = line(
            &AtomicTable::with_megabytes(16),
            &pos,
            SearchOptions::default(),
        );
        // A best line: it is legal, ends the round, and ends with the value's balls.
        let mut end = pos;
        for text in &pv {
            let mv = end.parse_move(text).expect("a legal move");
            end = end.play(mv);
        }
        assert!(end.is_terminal(), "{pos}: the line stops early");
        longest = longest.max(pv.len());
        assert_eq!(end.terminal_value(), Some(value), "{pos}");
        let two = SearchOptions {
            threads: 2,
            ..SearchOptions::default()
        };
        assert_eq!(
            line(&AtomicTable::with_megabytes(16), &pos, two),
            (value, pv.clone()),
            "{pos}: two threads"
        );
        assert_eq!(
            line(
                &AtomicTable::with_megabytes(1),
                &pos,
                SearchOptions::default()
            ),
            (value, pv),
            "{pos}: a table of 1 MiB"
        );
    }
    // Lines long enough for the order of the moves tried to matter.
    assert!(longest >= 4, "longest line {longest} plies");
}
