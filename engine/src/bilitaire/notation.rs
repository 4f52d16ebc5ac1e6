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
    pub reason: Rejection,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {:?}: {}", self.text, self.reason)
    }
}

impl std::error::Error for MoveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.reason)
    }
}

/// Why a move text is malformed or illegal in its position: one variant per check.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// The text after `!` is not a number of at least 2.
    BadAnnouncement { text: String },
    /// The text after `x` is neither a hole nor a slot.
    BadRemovalTarget { text: String },
    /// No `-` and no `x`: not a move in any form.
    Unrecognised,
    /// A part of a path that is not a hole (and the text is not a slide of two slots).
    NotAHole { text: String },
    /// The ball player has no jump left.
    RoundOver,
    /// A ball move with an announcement.
    BallPlayerAnnounces,
    /// A ball removal after the opening (`side` is to move).
    NotOpening { side: Side },
    /// No ball on the square.
    NoBall { square: Square },
    /// No tile in the slot.
    NoTile { slot: Slot },
    /// The tile to remove still carries balls.
    TileCarriesBalls { slot: Slot },
    /// A slide that is neither along a row nor along a column.
    NotStraight,
    /// The group led by `from` cannot reach `to`.
    SlideBlocked { from: Slot, to: Slot },
    /// A slider move when `side` is to move.
    NotSlidersTurn { side: Side },
    /// An announcement longer than the longest chain after the action.
    AnnouncementTooLong { announce: u8, longest: u32 },
    /// A jump when `side` is to move.
    NotBallPlayersTurn { side: Side },
    /// More jumps than any game allows.
    ChainTooLong { jumps: usize },
    /// A chain where only one simple jump is allowed.
    OneJumpOnly { jumps: usize },
    /// A chain of another length than the slider announced.
    WrongChainLength { announced: u8, jumps: usize },
    /// A step that is not two holes straight along a rank or file.
    NotAJump,
    /// A jump over a square with no ball.
    JumpOverEmpty {
        from: Square,
        to: Square,
        over: Square,
    },
    /// A jump that lands where there is no hole.
    LandsOffTheBoard { from: Square, to: Square },
    /// A jump that lands on a ball.
    LandsOnBall { from: Square, to: Square },
}

/// The name of the side to move, as the messages say it.
fn side_name(side: Side) -> &'static str {
    match side {
        Side::OpeningRemoval => "opening removal",
        Side::Slider => "slider",
        Side::Ball(_) => "ball player",
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::BadAnnouncement { text } => {
                write!(f, "announcement '!{text}' must be a number of at least 2")
            }
            Rejection::BadRemovalTarget { text } => write!(
                f,
                "'{text}' after 'x' is neither a hole (a1-h8) nor a slot (A1-D4)"
            ),
            Rejection::Unrecognised => f.write_str(
                "expected xd4, d2-d4, d2-d4-f4…, xB2 or A2-C2 (with !N for an announcement)",
            ),
            Rejection::NotAHole { text } => write!(
                f,
                "'{text}' is not a hole (a1-h8); a slide names two slots (A1-D4)"
            ),
            Rejection::RoundOver => {
                f.write_str("the round is over: the ball player has no jump left")
            }
            Rejection::BallPlayerAnnounces => f.write_str("only the slider announces (!N)"),
            Rejection::NotOpening { side } => write!(
                f,
                "a ball is removed only at the opening ({} to move)",
                side_name(*side)
            ),
            Rejection::NoBall { square } => write!(f, "no ball on {square}"),
            Rejection::NoTile { slot } => write!(f, "no tile in slot {slot}"),
            Rejection::TileCarriesBalls { slot } => {
                write!(f, "the tile in {slot} still carries balls")
            }
            Rejection::NotStraight => f.write_str("tiles slide along a row or a column only"),
            Rejection::SlideBlocked { from, to } => write!(
                f,
                "the group led by {from} cannot reach {to}: the way is blocked or leaves the tray"
            ),
            Rejection::NotSlidersTurn { side } => write!(
                f,
                "a slider move, but it is the {}'s turn",
                side_name(*side)
            ),
            Rejection::AnnouncementTooLong { announce, longest } => write!(
                f,
                "announcement !{announce} is not allowed: after this action the longest chain has {longest} jump(s)"
            ),
            Rejection::NotBallPlayersTurn { side } => {
                write!(f, "a jump, but it is the {}'s turn", side_name(*side))
            }
            Rejection::ChainTooLong { jumps } => {
                write!(f, "a chain of {jumps} jumps is longer than any game allows")
            }
            Rejection::OneJumpOnly { jumps } => write!(
                f,
                "only one simple jump is allowed (no announcement), this path has {jumps}"
            ),
            Rejection::WrongChainLength { announced, jumps } => write!(
                f,
                "the slider announced exactly {announced} jumps, this path has {jumps}"
            ),
            Rejection::NotAJump => {
                f.write_str("each jump goes two holes straight along a rank or file")
            }
            Rejection::JumpOverEmpty { from, to, over } => {
                write!(f, "{from}-{to} jumps over {over}, which has no ball")
            }
            Rejection::LandsOffTheBoard { from, to } => {
                write!(f, "{from}-{to} lands on {to}, where there is no hole")
            }
            Rejection::LandsOnBall { from, to } => {
                write!(f, "{from}-{to} lands on {to}, which is not empty")
            }
        }
    }
}

impl std::error::Error for Rejection {}

/// What the text says, before looking at the position.
enum Syntax {
    RemoveBall(Square),
    RemoveTile(Slot),
    Path(Vec<Square>),
    Slide(Slot, Slot),
}

fn parse_syntax(text: &str) -> Result<(Syntax, u8), Rejection> {
    let (body, announce) =
        match text.split_once('!') {
            Some((body, n)) => {
                let n: u8 = n.parse().ok().filter(|&n| n >= 2).ok_or_else(|| {
                    Rejection::BadAnnouncement {
                        text: n.to_string(),
                    }
                })?;
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
        return Err(Rejection::BadRemovalTarget {
            text: target.to_string(),
        });
    }
    let parts: Vec<&str> = body.split('-').collect();
    if parts.len() < 2 {
        return Err(Rejection::Unrecognised);
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
    Err(Rejection::NotAHole {
        text: bad.to_string(),
    })
}

impl Position {
    /// Reads `text` as a move in this position; the error says why it is malformed or illegal.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let error = |reason: Rejection| MoveError {
            text: text.to_string(),
            reason,
        };
        let (syntax, announce) = parse_syntax(text).map_err(error)?;
        if self.is_over() {
            return Err(error(Rejection::RoundOver));
        }
        let is_ball_move = matches!(syntax, Syntax::RemoveBall(_) | Syntax::Path(_));
        if is_ball_move && announce != 0 {
            return Err(error(Rejection::BallPlayerAnnounces));
        }
        let mv = match syntax {
            Syntax::RemoveBall(sq) => {
                if self.side != Side::OpeningRemoval {
                    return Err(error(Rejection::NotOpening { side: self.side }));
                }
                if !self.has_ball(sq) {
                    return Err(error(Rejection::NoBall { square: sq }));
                }
                Move::RemoveBall(sq)
            }
            Syntax::Path(squares) => self.check_path(&squares).map_err(error)?,
            Syntax::RemoveTile(slot) => {
                self.expect_slider().map_err(error)?;
                if !self.has_tile(slot) {
                    return Err(error(Rejection::NoTile { slot }));
                }
                if self.balls() & slot.holes() != 0 {
                    return Err(error(Rejection::TileCarriesBalls { slot }));
                }
                let after = self.play(Move::RemoveTile { slot, announce: 0 });
                self.check_announcement(&after, announce).map_err(error)?;
                Move::RemoveTile { slot, announce }
            }
            Syntax::Slide(from, to) => {
                self.expect_slider().map_err(error)?;
                if !self.has_tile(from) {
                    return Err(error(Rejection::NoTile { slot: from }));
                }
                if from.rank() != to.rank() && from.file() != to.file() {
                    return Err(error(Rejection::NotStraight));
                }
                let after = slide_result(self, from, to)
                    .ok_or_else(|| error(Rejection::SlideBlocked { from, to }))?;
                self.check_announcement(&after, announce).map_err(error)?;
                Move::Slide { from, to, announce }
            }
        };
        Ok(mv)
    }

    fn expect_slider(&self) -> Result<(), Rejection> {
        if self.side == Side::Slider {
            Ok(())
        } else {
            Err(Rejection::NotSlidersTurn { side: self.side })
        }
    }

    fn check_announcement(&self, after: &Position, announce: u8) -> Result<(), Rejection> {
        let longest = after.longest_chain();
        if announce != 0 && u32::from(announce) > longest {
            return Err(Rejection::AnnouncementTooLong { announce, longest });
        }
        Ok(())
    }

    fn check_path(&self, squares: &[Square]) -> Result<Move, Rejection> {
        let Side::Ball(announced) = self.side else {
            return Err(Rejection::NotBallPlayersTurn { side: self.side });
        };
        let jumps = squares.len() - 1;
        if jumps > MAX_CHAIN {
            return Err(Rejection::ChainTooLong { jumps });
        }
        match announced {
            0 if self.rules.free_chains => {}
            0 | 1 if jumps != 1 => return Err(Rejection::OneJumpOnly { jumps }),
            n if n >= 2 && jumps != n as usize => {
                return Err(Rejection::WrongChainLength {
                    announced: n,
                    jumps,
                })
            }
            _ => {}
        }
        let chain = Chain::from_holes(squares).ok_or(Rejection::NotAJump)?;
        let mut pos = *self;
        let mut at = squares[0];
        if !pos.has_ball(at) {
            return Err(Rejection::NoBall { square: at });
        }
        for (&to, dir) in squares[1..].iter().zip(chain.directions()) {
            let over = at.offset(dir, 1).expect("two steps on the grid imply one");
            if !pos.has_ball(over) {
                return Err(Rejection::JumpOverEmpty { from: at, to, over });
            }
            if !pos.has_hole(to) {
                return Err(Rejection::LandsOffTheBoard { from: at, to });
            }
            if pos.has_ball(to) {
                return Err(Rejection::LandsOnBall { from: at, to });
            }
            pos.balls ^= at.bit() | over.bit() | to.bit();
            at = to;
        }
        Ok(Move::Jump(chain))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error;

    #[test]
    fn a_rejected_move_carries_a_typed_reason_and_the_old_message() {
        let pos = Position::parse(
            "--oooo--/--oooo--/oooooooo/oooooooo/oooo.ooo/oooooooo/--oooo--/--oooo-- b",
        )
        .unwrap();
        let e = pos.parse_move("B1-A1").unwrap_err();
        assert!(
            matches!(
                e.reason,
                Rejection::NotSlidersTurn {
                    side: Side::Ball(_)
                }
            ),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "move \"B1-A1\": a slider move, but it is the ball player's turn"
        );
        assert!(e.source().is_some());
        let e = pos.parse_move("e1-e3").unwrap_err();
        assert_eq!(
            e.reason.to_string(),
            "e1-e3 lands on e3, which is not empty"
        );
        let e = pos.parse_move("e6-e4!x").unwrap_err();
        assert_eq!(e.reason, Rejection::BadAnnouncement { text: "x".into() });
    }
}
