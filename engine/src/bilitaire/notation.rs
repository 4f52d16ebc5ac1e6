//! Move notation: reading a move in a position, with the reason when it is not legal.
//!
//! `xd4` opening removal · `d2-d4` jump · `d2-d4-f4-f6` chain · `xB2` tile removal ·
//! `A2-C2` slide (the named tile is the rearmost of its group) · `!N` appended: announcement.

use super::chain::{Chain, MAX_CHAIN};
use super::geometry::{Slot, Square};
use super::movegen::slide_result;
use super::mv::Move;
use super::position::{Position, Side};
use std::fmt;

/// Why a move was rejected: the text and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveError {
    pub text: String,
    pub reason: String,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {:?}: {}", self.text, self.reason)
    }
}

impl std::error::Error for MoveError {}

/// What the text says, before looking at the position.
enum Syntax {
    RemoveBall(Square),
    RemoveTile(Slot),
    Path(Vec<Square>),
    Slide(Slot, Slot),
}

fn parse_syntax(text: &str) -> Result<(Syntax, u8), String> {
    let (body, announce) = match text.split_once('!') {
        Some((body, n)) => {
            let n: u8 = n
                .parse()
                .ok()
                .filter(|&n| n >= 2)
                .ok_or_else(|| format!("announcement '!{n}' must be a number of at least 2"))?;
            (body, n)
        }
        None => (text, 0),
    };
    if let Some(target) = body.strip_prefix('x') {
        if let Some(sq) = Square::parse(target) {
            return Ok((Syntax::RemoveBall(sq), announce));
        }
        if let Some(slot) = Slot::parse(target) {
            return Ok((Syntax::RemoveTile(slot), announce));
        }
        return Err(format!(
            "'{target}' after 'x' is neither a hole (a1-h8) nor a slot (A1-D4)"
        ));
    }
    let parts: Vec<&str> = body.split('-').collect();
    if parts.len() < 2 {
        return Err(
            "expected xd4, d2-d4, d2-d4-f4…, xB2 or A2-C2 (with !N for an announcement)".into(),
        );
    }
    if parts.iter().all(|p| Square::parse(p).is_some()) {
        let squares: Vec<Square> = parts.iter().filter_map(|p| Square::parse(p)).collect();
        return Ok((Syntax::Path(squares), announce));
    }
    if let [from, to] = parts[..] {
        if let (Some(from), Some(to)) = (Slot::parse(from), Slot::parse(to)) {
            return Ok((Syntax::Slide(from, to), announce));
        }
    }
    let bad = parts
        .iter()
        .find(|p| Square::parse(p).is_none())
        .unwrap_or(&body);
    Err(format!(
        "'{bad}' is not a hole (a1-h8); a slide names two slots (A1-D4)"
    ))
}

impl Position {
    /// Reads `text` as a move in this position; the error says why it is malformed or illegal.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let error = |reason: String| MoveError {
            text: text.to_string(),
            reason,
        };
        let (syntax, announce) = parse_syntax(text).map_err(error)?;
        if self.is_over() {
            return Err(error(
                "the round is over: the ball player has no jump left".into(),
            ));
        }
        let is_ball_move = matches!(syntax, Syntax::RemoveBall(_) | Syntax::Path(_));
        if is_ball_move && announce != 0 {
            return Err(error("only the slider announces (!N)".into()));
        }
        let mv = match syntax {
            Syntax::RemoveBall(sq) => {
                if self.side != Side::OpeningRemoval {
                    return Err(error(format!(
                        "a ball is removed only at the opening ({} to move)",
                        self.side_name()
                    )));
                }
                if !self.has_ball(sq) {
                    return Err(error(format!("no ball on {sq}")));
                }
                Move::RemoveBall(sq)
            }
            Syntax::Path(squares) => self.check_path(&squares).map_err(error)?,
            Syntax::RemoveTile(slot) => {
                self.expect_slider().map_err(error)?;
                if !self.has_tile(slot) {
                    return Err(error(format!("no tile in slot {slot}")));
                }
                if self.balls() & slot.holes() != 0 {
                    return Err(error(format!("the tile in {slot} still carries balls")));
                }
                let after = self.play(Move::RemoveTile { slot, announce: 0 });
                self.check_announcement(&after, announce).map_err(error)?;
                Move::RemoveTile { slot, announce }
            }
            Syntax::Slide(from, to) => {
                self.expect_slider().map_err(error)?;
                if !self.has_tile(from) {
                    return Err(error(format!("no tile in slot {from}")));
                }
                if from.rank() != to.rank() && from.file() != to.file() {
                    return Err(error("tiles slide along a row or a column only".into()));
                }
                let after = slide_result(self, from, to).ok_or_else(|| {
                    error(format!(
                        "the group led by {from} cannot reach {to}: the way is blocked or leaves the tray"
                    ))
                })?;
                self.check_announcement(&after, announce).map_err(error)?;
                Move::Slide { from, to, announce }
            }
        };
        Ok(mv)
    }

    fn side_name(&self) -> &'static str {
        match self.side {
            Side::OpeningRemoval => "opening removal",
            Side::Slider => "slider",
            Side::Ball(_) => "ball player",
        }
    }

    fn expect_slider(&self) -> Result<(), String> {
        if self.side == Side::Slider {
            Ok(())
        } else {
            Err(format!(
                "a slider move, but it is the {}'s turn",
                self.side_name()
            ))
        }
    }

    fn check_announcement(&self, after: &Position, announce: u8) -> Result<(), String> {
        let longest = after.longest_chain();
        if announce != 0 && u32::from(announce) > longest {
            return Err(format!(
                "announcement !{announce} is not allowed: after this action the longest chain has {longest} jump(s)"
            ));
        }
        Ok(())
    }

    fn check_path(&self, squares: &[Square]) -> Result<Move, String> {
        let Side::Ball(announced) = self.side else {
            return Err(format!("a jump, but it is the {}'s turn", self.side_name()));
        };
        let jumps = squares.len() - 1;
        if jumps > MAX_CHAIN {
            return Err(format!(
                "a chain of {jumps} jumps is longer than any game allows"
            ));
        }
        match announced {
            0 if self.rules.free_chains => {}
            0 | 1 if jumps != 1 => {
                return Err(format!(
                    "only one simple jump is allowed (no announcement), this path has {jumps}"
                ))
            }
            n if n >= 2 && jumps != n as usize => {
                return Err(format!(
                    "the slider announced exactly {n} jumps, this path has {jumps}"
                ))
            }
            _ => {}
        }
        let chain = Chain::from_holes(squares)
            .ok_or_else(|| "each jump goes two holes straight along a rank or file".to_string())?;
        let mut pos = *self;
        let mut at = squares[0];
        if !pos.has_ball(at) {
            return Err(format!("no ball on {at}"));
        }
        for (&to, dir) in squares[1..].iter().zip(chain.directions()) {
            let over = at.offset(dir, 1).expect("two steps on the grid imply one");
            if !pos.has_ball(over) {
                return Err(format!("{at}-{to} jumps over {over}, which has no ball"));
            }
            if !pos.has_hole(to) {
                return Err(format!("{at}-{to} lands on {to}, where there is no hole"));
            }
            if pos.has_ball(to) {
                return Err(format!("{at}-{to} lands on {to}, which is not empty"));
            }
            pos.balls ^= at.bit() | over.bit() | to.bit();
            at = to;
        }
        Ok(Move::Jump(chain))
    }
}
