//! gnubg's Position ID: the 80-bit position key in base64 (14 characters).
//!
//! The key lists, for the opponent and then for the player on roll (gnubg's `anBoard[0]` then
//! `anBoard[1]`, as gnubg 1.07 writes it), each of the 25 slots (points 1..24 from that side's
//! view, then the bar) as that many 1 bits followed by a 0 bit. Bit `k` of the key is bit
//! `k % 8` of byte `k / 8`; the 10 bytes are written in base64 without padding.

use std::fmt;

use super::position::{nibble, Position, PositionError, CHECKERS};

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Why a string is not a valid Position ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionIdError {
    /// Not 14 characters.
    Length(usize),
    /// A character outside the base64 alphabet.
    Character(char),
    /// The bits run out before both sides are complete, or a side has more than 15 checkers.
    Overflow,
    /// The decoded counts do not form a position.
    Position(PositionError),
}

impl fmt::Display for PositionIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionIdError::Length(n) => {
                write!(f, "a Position ID has 14 characters, not {n}")
            }
            PositionIdError::Character(c) => write!(f, "{c:?} is not a base64 character"),
            PositionIdError::Overflow => {
                write!(
                    f,
                    "the Position ID describes more than 15 checkers for a side"
                )
            }
            PositionIdError::Position(e) => write!(f, "not a position: {e}"),
        }
    }
}

impl std::error::Error for PositionIdError {}

/// Decodes base64 (no padding) into bytes; `None` on a bad character (returned in `Err`).
pub(crate) fn base64_decode(s: &str) -> Result<Vec<u8>, char> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.chars() {
        let v = B64.iter().position(|&b| b as char == c).ok_or(c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// Encodes bytes in base64 without padding.
pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        let chars = chunk.len() + 1;
        for k in 0..chars {
            out.push(B64[(n >> (18 - 6 * k)) as usize & 63] as char);
        }
    }
    out
}

/// The 80-bit key (bit `k` = bit `k` of the result).
pub(crate) fn key(pos: &Position) -> u128 {
    let mut key = 0u128;
    let mut bit = 0u32;
    for side in [pos.opp, pos.me] {
        for i in 0..25 {
            let n = nibble(side, i) as u32;
            if n > 0 {
                key |= ((1u128 << n) - 1) << bit;
            }
            bit += n + 1;
        }
    }
    key
}

/// The position of an 80-bit key.
pub(crate) fn from_key(key: u128) -> Result<Position, PositionIdError> {
    let mut sides = [[0u8; 25]; 2];
    let mut bit = 0u32;
    for side in sides.iter_mut() {
        let mut total = 0u32;
        for slot in side.iter_mut() {
            let mut n = 0u8;
            loop {
                if bit >= 80 {
                    return Err(PositionIdError::Overflow);
                }
                let set = (key >> bit) & 1 == 1;
                bit += 1;
                if !set {
                    break;
                }
                n += 1;
                total += 1;
                if total > CHECKERS as u32 {
                    return Err(PositionIdError::Overflow);
                }
            }
            *slot = n;
        }
    }
    let [opp, me] = sides;
    Position::from_counts(me, opp).map_err(PositionIdError::Position)
}

/// The Position ID of a position.
pub fn encode(pos: &Position) -> String {
    let k = key(pos);
    base64_encode(&k.to_le_bytes()[..10])
}

/// Parses a Position ID (surrounding whitespace allowed).
pub fn decode(id: &str) -> Result<Position, PositionIdError> {
    let id = id.trim();
    let len = id.chars().count();
    if len != 14 {
        return Err(PositionIdError::Length(len));
    }
    let bytes = base64_decode(id).map_err(PositionIdError::Character)?;
    let mut buf = [0u8; 16];
    buf[..10].copy_from_slice(&bytes[..10]);
    from_key(u128::from_le_bytes(buf))
}
