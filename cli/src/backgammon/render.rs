//! Rendering for the backgammon commands: the board diagram, chances, cube advice and ranked
//! plays as text, and the typed JSON reports of `tabula_api::backgammon`. A leaf: it uses no
//! sibling module.

use tabula_api::backgammon::{
    CubeReport, EvaluationReport, MatchReport, PlaysReport, RankedPlayReport, ShowReport,
    SideReport,
};
use tabula_engine::backgammon::{Dice, MatchId, Position, Side, Xgid, BAR};
use tabula_gammon::advisor::{match_equity, CubeAdvice};
use tabula_gammon::{equity as cubeless_equity, Probabilities, RankedPlay};

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

/// The cubeless chances and the cube decision of the player on roll, two indented lines.
pub(crate) fn cube_advice(a: &CubeAdvice) -> String {
    let d = &a.decision;
    format!(
        "  {}\n  cube: {}; the opponent should {} (cubeful: no double {:+.3}, double/take {:+.3}, double/pass {:+.3})",
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

/// Rounds for JSON: 6 decimals are plenty, and keep the output short.
fn round6(x: f32) -> f64 {
    (x as f64 * 1e6).round() / 1e6
}

/// `hint --json` before the roll.
pub(crate) fn evaluation_report(pos: &Position, plies: u8, a: &CubeAdvice) -> EvaluationReport {
    let d = &a.decision;
    EvaluationReport {
        cube: CubeReport {
            action: d.action_text().to_string(),
            double_pass: d.double_pass,
            double_take: d.double_take,
            no_double: d.no_double,
            take: d.take,
        },
        equity: round6(cubeless_equity(&a.probabilities)),
        plies,
        position: pos.position_id(),
        probabilities: a.probabilities.map(round6),
    }
}

/// `hint --json` with dice.
pub(crate) fn plays_report(dice: Dice, plies: u8, ranked: &[RankedPlay]) -> PlaysReport {
    PlaysReport {
        dice: dice.to_string(),
        moves: ranked
            .iter()
            .map(|r| RankedPlayReport {
                equity: round6(r.equity),
                play: r.play.notation(),
                plies: r.plies,
                probabilities: r.probabilities.map(round6),
            })
            .collect(),
        plies,
    }
}

/// gnubg's name of the player on roll: `x` (player 1) or `o` (player 0); `x` without a Match
/// ID, as the board shows the player on roll.
pub(crate) fn side_to_move(match_id: Option<&MatchId>) -> &'static str {
    match match_id {
        Some(m) if m.on_roll == 0 => "o",
        _ => "x",
    }
}

fn side_report(pos: &Position, side: Side) -> SideReport {
    SideReport {
        pips: pos.pips(side),
        bar: pos.bar(side),
        off: pos.off(side),
        points: pos.counts(side)[..24].to_vec(),
    }
}

/// `show --json`.
pub(crate) fn show_report(pos: &Position, match_id: Option<&MatchId>) -> ShowReport {
    ShowReport {
        game: "backgammon".into(),
        position: pos.position_id(),
        side_to_move: side_to_move(match_id).into(),
        xgid: Xgid::new(*pos).to_string(),
        on_roll: side_report(pos, Side::OnRoll),
        opponent: side_report(pos, Side::Opponent),
        match_state: match_id.map(|m| MatchReport {
            match_id: m.encode(),
            length: m.match_length,
            score: m.score,
            cube: m.cube,
            cube_owner: m.cube_owner,
            crawford: m.crawford,
            on_roll: m.on_roll,
            dice: [m.dice.0, m.dice.1],
            match_equity: match_equity(m),
        }),
    }
}

/// Prints a report as one line of JSON.
pub(crate) fn print_json<T: serde::Serialize>(report: &T) -> crate::error::CliResult {
    let text = serde_json::to_string(report).map_err(|e| {
        crate::error::CliError::internal(format!("cannot write the JSON report: {e}"))
    })?;
    println!("{text}");
    Ok(())
}
