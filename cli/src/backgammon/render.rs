//! Rendering for the backgammon commands: the board diagram, chances, cube advice and ranked
//! plays as text (the typed JSON reports are built by `tabula_api::build::backgammon`). A
//! leaf: it uses no sibling module.

use tabula_engine::backgammon::{MatchId, Position, Side, BAR};
use tabula_gammon::advisor::{match_equity, CubeAdvice};
use tabula_gammon::{Probabilities, RankedPlay};

/// The board in gnubg's text layout: the player on roll is X and moves from the top left
/// round to its home board at the bottom right; O is the opponent.
pub(crate) fn board_diagram(pos: &Position) -> String {
    board_diagram_as(pos, 'X', 'O')
}

/// One cell of the diagram: `c` for `n` checkers at `row` (from the edge; row 4 shows a count
/// above 5).
fn cell(c: char, n: u8, row: u8) -> String {
    if n > row && (row < 4 || n <= 5) {
        format!(" {c} ")
    } else if row == 4 && n > 5 {
        format!("{n:^3}")
    } else {
        "   ".to_string()
    }
}

/// [`board_diagram`] with the letters of the player on roll and of the opponent.
pub(crate) fn board_diagram_as(pos: &Position, mine: char, theirs: char) -> String {
    let me = pos.counts(Side::OnRoll);
    let opp = pos.counts(Side::Opponent);
    // The letter and count on X's point p.
    let point = |p: usize, row: u8| -> String {
        if me[p - 1] > 0 {
            cell(mine, me[p - 1], row)
        } else if opp[24 - p] > 0 {
            cell(theirs, opp[24 - p], row)
        } else {
            "   ".to_string()
        }
    };
    let half = |points: [usize; 12], row: u8, bar: String| -> String {
        let left: String = points[..6].iter().map(|&p| point(p, row)).collect();
        let right: String = points[6..].iter().map(|&p| point(p, row)).collect();
        format!(" |{left}|{bar}|{right}|\n")
    };
    let top = [13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24];
    let bottom = [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1];
    let mut out = String::from(" +13-14-15-16-17-18------19-20-21-22-23-24-+\n");
    for row in 0..5 {
        out.push_str(&half(top, row, cell(theirs, opp[BAR], row)));
    }
    out.push_str(" |                  |BAR|                  |\n");
    for row in (0..5).rev() {
        out.push_str(&half(bottom, row, cell(mine, me[BAR], row)));
    }
    out.push_str(" +12-11-10--9--8--7-------6--5--4--3--2--1-+\n");
    out
}

/// The match state of a Match ID in words, one line each.
pub(crate) fn match_lines(m: &MatchId) -> Vec<String> {
    let mut lines = Vec::new();
    let owner = match m.cube_owner {
        None => "centred".to_string(),
        Some(p) => format!("owned by player {p}"),
    };
    if m.match_length == 0 {
        lines.push(format!("Money game; cube {} {owner}", m.cube));
    } else {
        lines.push(format!(
            "Match to {}; score {}-{} (players 0-1); cube {} {owner}{}",
            m.match_length,
            m.score[0],
            m.score[1],
            m.cube,
            if m.crawford { "; Crawford game" } else { "" }
        ));
    }
    let dice = if m.dice.0 > 0 {
        format!(", rolled {}{}", m.dice.0, m.dice.1)
    } else {
        String::new()
    };
    lines.push(format!("Player {} on roll{dice}", m.on_roll));
    if let Some(eq) = match_equity(m) {
        lines.push(format!(
            "Match winning chance of player {} (Kazaross-XG2): {eq:.5}",
            m.on_roll
        ));
    }
    lines
}

/// The five chances on one line.
pub(crate) fn probabilities_text(p: &Probabilities) -> String {
    format!(
        "win {:.3} (g {:.3} bg {:.3})  lose {:.3} (g {:.3} bg {:.3})",
        p[0],
        p[1],
        p[2],
        1.0 - p[0],
        p[3],
        p[4]
    )
}

/// The cubeless chances and the cube decision of the player on roll, two indented lines (a
/// third when a rollout decided).
pub(crate) fn cube_advice(a: &CubeAdvice) -> String {
    let d = &a.decision;
    let rollout = a.rollout.map_or(String::new(), |r| {
        format!(
            "\n  a back game: chances and cube by a rollout of {} trials (cubeless equity ± {:.3})",
            r.trials, r.equity_se
        )
    });
    format!(
        "  {}\n  cube: {}; the opponent should {} (cubeful: no double {:+.3}, double/take {:+.3}, double/pass {:+.3}){rollout}",
        probabilities_text(&a.probabilities),
        d.action_text(),
        if d.take { "take" } else { "pass" },
        d.no_double,
        d.double_take,
        d.double_pass
    )
}

/// The first `limit` ranked plays, best first, two lines each: the play with its depth and
/// equity (and its difference from the best), then its chances.
pub(crate) fn ranked_text(ranked: &[RankedPlay], limit: usize) -> String {
    let shown = &ranked[..ranked.len().min(limit)];
    let width = shown
        .iter()
        .map(|r| r.play.notation().len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (n, r) in shown.iter().enumerate() {
        let diff = if n == 0 {
            String::new()
        } else {
            format!(" ({:+.3})", r.equity - ranked[0].equity)
        };
        out.push_str(&format!(
            "{:>3}. {:width$}  {}-ply  eq {:+.3}{diff}\n     {}\n",
            n + 1,
            r.play.notation(),
            r.plies,
            r.equity,
            probabilities_text(&r.probabilities)
        ));
    }
    out
}

/// Prints a report as one line of JSON.
pub(crate) fn print_json<T: serde::Serialize>(report: &T) -> crate::error::CliResult {
    let text = serde_json::to_string(report).map_err(|e| {
        crate::error::CliError::internal(format!("cannot write the JSON report: {e}"))
    })?;
    println!("{text}");
    Ok(())
}
