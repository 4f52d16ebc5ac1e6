//! gnubg's move notation: writing a play (`FormatMove`) and reading one (`ParseMove`).

use std::fmt;

use super::play::Step;
use super::position::{nibble, Position, BAR};

/// Why a written play was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The text is not gnubg notation.
    Syntax(String),
    /// The text is notation but not a legal play of this position and roll.
    Illegal(String),
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::Syntax(s) => write!(f, "cannot read the play: {s}"),
            PlayError::Illegal(s) => write!(f, "illegal play: {s}"),
        }
    }
}

impl std::error::Error for PlayError {}

fn point_name(p: u8) -> String {
    match p {
        0 => "off".to_string(),
        25 => "bar".to_string(),
        _ => p.to_string(),
    }
}

/// True when the opponent has a checker on the mover's point `p` (1..=24) in `pos`.
fn opp_on(pos: &Position, p: u8) -> bool {
    (1..=24).contains(&p) && nibble(pos.opp, 24 - p as usize) > 0
}

/// gnubg's `FormatMove`: steps sorted by decreasing start (then landing) point, steps of one
/// checker joined (an intermediate point is kept, starred, only where it hit), identical
/// checker paths counted as `(n)`, a `*` after a landing point that hit.
pub(crate) fn format_steps(before: &Position, steps: &[Step]) -> String {
    let mut rows: Vec<(u8, u8)> = steps.iter().map(|s| (s.from, s.to)).collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let mut paths: Vec<Option<Vec<u8>>> = rows.iter().map(|&(f, t)| Some(vec![f, t])).collect();
    let n = paths.len();
    for i in 0..n {
        for j in i..n {
            let (Some(pi), Some(pj)) = (&paths[i], &paths[j]) else {
                continue;
            };
            if i == j || *pi.last().expect("path") != pj[0] {
                continue;
            }
            let next = pj[1];
            let pi = paths[i].as_mut().expect("path");
            let last = *pi.last().expect("path");
            if opp_on(before, last) {
                pi.push(next);
            } else {
                *pi.last_mut().expect("path") = next;
            }
            paths[j] = None;
        }
    }
    let paths: Vec<Vec<u8>> = paths.into_iter().flatten().collect();
    let mut counted: Vec<(Vec<u8>, usize)> = Vec::new();
    for p in paths {
        if let Some(entry) = counted.iter_mut().find(|(q, _)| *q == p) {
            entry.1 += 1;
        } else {
            counted.push((p, 1));
        }
    }
    let mut flagged = 0u32;
    let mut out = String::new();
    for (k, (path, count)) in counted.iter().enumerate() {
        if k > 0 {
            out.push(' ');
        }
        out.push_str(&point_name(path[0]));
        for &mid in &path[1..path.len() - 1] {
            out.push('/');
            out.push_str(&point_name(mid));
            out.push('*');
            flagged |= 1 << mid;
        }
        let dst = *path.last().expect("path");
        out.push('/');
        out.push_str(&point_name(dst));
        if dst != 0 && opp_on(before, dst) && flagged & (1 << dst) == 0 {
            out.push('*');
            flagged |= 1 << dst;
        }
        if *count > 1 {
            out.push_str(&format!("({count})"));
        }
    }
    out
}

/// Reads gnubg notation into (from, to) steps: points 1..=24, `bar` (25), `off` (0); chains
/// `24/18/14`, repeats `13/11(2)`; `*` and `,` are ignored.
pub(crate) fn parse_steps(text: &str) -> Result<Vec<Step>, PlayError> {
    let syntax = |why: &str| PlayError::Syntax(format!("{why} in {:?}", text.trim()));
    let mut steps = Vec::new();
    for word in text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
    {
        let lower = word.to_ascii_lowercase();
        let (body, repeat) = match lower.find('(') {
            Some(open) => {
                let close = lower
                    .strip_suffix(')')
                    .ok_or_else(|| syntax("unclosed '('"))?;
                let n: usize = close[open + 1..]
                    .parse()
                    .map_err(|_| syntax("bad repeat count"))?;
                if !(1..=4).contains(&n) {
                    return Err(syntax("repeat count out of 1..4"));
                }
                (&lower[..open], n)
            }
            None => (&lower[..], 1),
        };
        let mut points = Vec::new();
        for part in body.split('/') {
            let part = part.trim_end_matches('*');
            let p = match part {
                "bar" | "b" => 25,
                "off" | "o" => 0,
                _ => match part.parse::<u8>() {
                    Ok(p) if (1..=25).contains(&p) => p,
                    _ => return Err(syntax(&format!("bad point {part:?}"))),
                },
            };
            points.push(p);
        }
        if points.len() < 2 {
            return Err(syntax(&format!("{word:?} has no '/'")));
        }
        for _ in 0..repeat {
            for w in points.windows(2) {
                if w[0] == 0 {
                    return Err(syntax("a checker cannot move from off the board"));
                }
                if w[1] == 25 {
                    return Err(syntax("a checker cannot move to the bar"));
                }
                if w[1] >= w[0] {
                    return Err(syntax(&format!(
                        "{}/{} moves backwards",
                        point_name(w[0]),
                        point_name(w[1])
                    )));
                }
                steps.push(Step {
                    from: w[0],
                    to: w[1],
                });
            }
        }
    }
    if steps.is_empty() {
        return Err(syntax("no move"));
    }
    if steps.len() > 8 {
        return Err(syntax("too many moves"));
    }
    Ok(steps)
}

/// Applies written steps literally (a step of several pips jumps straight to its landing point,
/// hitting there only) and returns the position after them with the opponent on roll.
pub(crate) fn apply_steps(pos: &Position, steps: &[Step]) -> Result<Position, PlayError> {
    let mut me = pos.me;
    let mut opp = pos.opp;
    for s in steps {
        let from = s.from as usize - 1;
        if nibble(me, from) == 0 {
            return Err(PlayError::Illegal(format!(
                "no checker on {}",
                point_name(s.from)
            )));
        }
        me -= 1u128 << (4 * from);
        if s.to > 0 {
            let to = s.to as usize - 1;
            match nibble(opp, 23 - to) {
                0 => {}
                1 => {
                    opp -= 1u128 << (4 * (23 - to));
                    opp += 1u128 << (4 * BAR);
                }
                _ => return Err(PlayError::Illegal(format!("point {} is blocked", s.to))),
            }
            me += 1u128 << (4 * to);
        }
    }
    Ok(Position { me: opp, opp: me })
}
