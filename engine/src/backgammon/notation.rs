//! gnubg's move notation: writing a play (`FormatMove`) and reading one (`ParseMove`).

use std::fmt;

use super::dice::Dice;
use super::play::Step;
use super::position::{nibble, Position, BAR};

/// Why a written play was rejected: one variant per check, with the values that failed it.
///
/// The first group (up to [`PlayError::TooManyMoves`]) are syntax errors: the text is not
/// gnubg notation; `text` is the whole play as given, trimmed. The rest are notation that is
/// not a legal play of this position and roll.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlayError {
    /// A `(` with no `)` closing the word.
    UnclosedParen { text: String },
    /// The repeat count between `(` and `)` is not a number.
    BadRepeatCount { text: String, count: String },
    /// The repeat count is outside 1..=4.
    RepeatOutOfRange { text: String, count: usize },
    /// A point that is not 1..=25, `bar`/`b` or `off`/`o` (as written, lowercased).
    BadPoint { text: String, point: String },
    /// A word with fewer than two points.
    NoSlash { text: String, word: String },
    /// A step starting from off the board.
    FromOff { text: String },
    /// A step landing on the bar.
    ToBar { text: String },
    /// A step that does not move towards home (`from`, `to`: 25 is the bar, 0 off).
    Backwards { text: String, from: u8, to: u8 },
    /// No step at all.
    NoMove { text: String },
    /// More than 8 steps.
    TooManyMoves { text: String, steps: usize },
    /// A step from a point (25 = the bar) where the player has no checker left.
    NoChecker { point: u8 },
    /// A step landing on a point the opponent holds with two or more checkers.
    Blocked { point: u8 },
    /// The steps are playable but not a legal play of `dice` (e.g. they leave a die unused).
    NotLegal { text: String, dice: Dice },
}

impl PlayError {
    /// True for the syntax errors (the text is not gnubg notation), false for illegal plays.
    pub fn is_syntax(&self) -> bool {
        !matches!(
            self,
            PlayError::NoChecker { .. } | PlayError::Blocked { .. } | PlayError::NotLegal { .. }
        )
    }
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const READ: &str = "cannot read the play:";
        const ILLEGAL: &str = "illegal play:";
        match self {
            PlayError::UnclosedParen { text } => write!(f, "{READ} unclosed '(' in {text:?}"),
            PlayError::BadRepeatCount { text, .. } => {
                write!(f, "{READ} bad repeat count in {text:?}")
            }
            PlayError::RepeatOutOfRange { text, .. } => {
                write!(f, "{READ} repeat count out of 1..4 in {text:?}")
            }
            PlayError::BadPoint { text, point } => {
                write!(f, "{READ} bad point {point:?} in {text:?}")
            }
            PlayError::NoSlash { text, word } => {
                write!(f, "{READ} {word:?} has no '/' in {text:?}")
            }
            PlayError::FromOff { text } => write!(
                f,
                "{READ} a checker cannot move from off the board in {text:?}"
            ),
            PlayError::ToBar { text } => {
                write!(f, "{READ} a checker cannot move to the bar in {text:?}")
            }
            PlayError::Backwards { text, from, to } => write!(
                f,
                "{READ} {}/{} moves backwards in {text:?}",
                point_name(*from),
                point_name(*to)
            ),
            PlayError::NoMove { text } => write!(f, "{READ} no move in {text:?}"),
            PlayError::TooManyMoves { text, .. } => write!(f, "{READ} too many moves in {text:?}"),
            PlayError::NoChecker { point } => {
                write!(f, "{ILLEGAL} no checker on {}", point_name(*point))
            }
            PlayError::Blocked { point } => write!(f, "{ILLEGAL} point {point} is blocked"),
            PlayError::NotLegal { text, dice } => {
                write!(f, "{ILLEGAL} {text} is not a legal play of {dice} here")
            }
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
    let given = || text.trim().to_string();
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
                    .ok_or_else(|| PlayError::UnclosedParen { text: given() })?;
                let count = &close[open + 1..];
                let n: usize = count.parse().map_err(|_| PlayError::BadRepeatCount {
                    text: given(),
                    count: count.to_string(),
                })?;
                if !(1..=4).contains(&n) {
                    return Err(PlayError::RepeatOutOfRange {
                        text: given(),
                        count: n,
                    });
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
                    _ => {
                        return Err(PlayError::BadPoint {
                            text: given(),
                            point: part.to_string(),
                        })
                    }
                },
            };
            points.push(p);
        }
        if points.len() < 2 {
            return Err(PlayError::NoSlash {
                text: given(),
                word: word.to_string(),
            });
        }
        for _ in 0..repeat {
            for w in points.windows(2) {
                if w[0] == 0 {
                    return Err(PlayError::FromOff { text: given() });
                }
                if w[1] == 25 {
                    return Err(PlayError::ToBar { text: given() });
                }
                if w[1] >= w[0] {
                    return Err(PlayError::Backwards {
                        text: given(),
                        from: w[0],
                        to: w[1],
                    });
                }
                steps.push(Step {
                    from: w[0],
                    to: w[1],
                });
            }
        }
    }
    if steps.is_empty() {
        return Err(PlayError::NoMove { text: given() });
    }
    if steps.len() > 8 {
        return Err(PlayError::TooManyMoves {
            text: given(),
            steps: steps.len(),
        });
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
            return Err(PlayError::NoChecker { point: s.from });
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
                _ => return Err(PlayError::Blocked { point: s.to }),
            }
            me += 1u128 << (4 * to);
        }
    }
    Ok(Position { me: opp, opp: me })
}

#[cfg(test)]
mod tests {
    use super::super::{Dice, Position};
    use super::PlayError;

    fn parse(text: &str) -> Result<super::super::Play, PlayError> {
        let roll: Dice = "31".parse().unwrap();
        Position::START.parse_play(roll, text)
    }

    #[test]
    fn syntax_errors_carry_the_text_and_the_values() {
        let e = parse(" 13/11(5) ").unwrap_err();
        assert_eq!(
            e,
            PlayError::RepeatOutOfRange {
                text: "13/11(5)".to_string(),
                count: 5
            }
        );
        assert!(e.is_syntax());
        assert_eq!(
            e.to_string(),
            "cannot read the play: repeat count out of 1..4 in \"13/11(5)\""
        );
        let e = parse("6/8 bar/off").unwrap_err();
        assert_eq!(
            e,
            PlayError::Backwards {
                text: "6/8 bar/off".to_string(),
                from: 6,
                to: 8
            }
        );
        assert_eq!(
            e.to_string(),
            "cannot read the play: 6/8 moves backwards in \"6/8 bar/off\""
        );
        assert_eq!(
            parse("8/x").unwrap_err().to_string(),
            "cannot read the play: bad point \"x\" in \"8/x\""
        );
        assert_eq!(
            parse("8/5 6").unwrap_err().to_string(),
            "cannot read the play: \"6\" has no '/' in \"8/5 6\""
        );
        assert_eq!(
            parse(" ").unwrap_err().to_string(),
            "cannot read the play: no move in \"\""
        );
    }

    #[test]
    fn illegal_plays_carry_the_point_or_the_roll() {
        let e = parse("24/19").unwrap_err();
        assert_eq!(e, PlayError::Blocked { point: 19 });
        assert!(!e.is_syntax());
        assert_eq!(e.to_string(), "illegal play: point 19 is blocked");
        let e = parse("bar/22").unwrap_err();
        assert_eq!(e, PlayError::NoChecker { point: 25 });
        assert_eq!(e.to_string(), "illegal play: no checker on bar");
        let e = parse(" 8/5 6/4 ").unwrap_err();
        assert_eq!(
            e,
            PlayError::NotLegal {
                text: "8/5 6/4".to_string(),
                dice: "31".parse().unwrap()
            }
        );
        assert_eq!(
            e.to_string(),
            "illegal play: 8/5 6/4 is not a legal play of 31 here"
        );
    }
}
