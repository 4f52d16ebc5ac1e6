//! One on-disk container for every file Tabula writes: bearoff databases, solver tables, net
//! weights, retrograde tables (Pylos) and their build checkpoints.
//!
//! A file is a header and a payload. The header says what the payload is — a [`Kind`] and a
//! context string naming the game, rules, database or keying it belongs to — and carries an
//! XXH64 checksum of every payload block, so a multi-GB payload can be verified piece by piece,
//! and a checksum of the header itself.
//!
//! # Layout (integers little-endian)
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 8 | magic `TABULAST` |
//! | 8 | 4 | format version ([`VERSION`], 1) |
//! | 12 | 4 | kind ([`Kind::code`]) |
//! | 16 | 4 | header length `H` in bytes (all of this table) |
//! | 20 | 4 | context length `C` (at most [`MAX_CONTEXT`]) |
//! | 24 | 8 | payload length `P` in bytes |
//! | 32 | 4 | block size `B` (a power of two, 512 B to 1 GiB) |
//! | 36 | 4 | reserved, zero |
//! | 40 | `C` | context, UTF-8 (`key=value` pairs joined by `;`, see [`context`]) |
//! | 40 + `C` | 8 · `N` | XXH64 of each payload block, `N` = ⌈`P` / `B`⌉ |
//! | `H` − 8 | 8 | XXH64 of header bytes 0 to `H` − 8 |
//! | `H` | `P` | payload |
//!
//! # Reading
//!
//! [`StoreFile::open`] checks, before it reads or allocates anything of the payload, that the
//! path is a regular file, then the magic, version, header length (bounded by
//! [`MAX_HEADER`]), header checksum, kind and context, and that the file is exactly `H + P`
//! bytes long. So `/dev/zero`, a directory, a huge foreign file or a file of another kind is
//! refused at once. The payload is then read positionally ([`StoreFile::read_at`]), as a
//! stream ([`StoreFile::reader`]) or whole ([`StoreFile::read_all`], [`read`]); each verifies
//! the checksums of the blocks it touches.
//!
//! # Writing
//!
//! A [`Writer`] streams the payload to a temporary file of a unique name next to the target
//! (`NAME.tmp-<pid>-<n>`), fsyncs it, renames it over the target and fsyncs the directory; the
//! temporary file is removed on failure or when the writer is dropped unfinished. Every writer
//! holds the target's lock (`NAME.lock`, see [`TargetLock`]), so two processes writing one file
//! get [`ErrorKind::Locked`] instead of racing, and temporary files left by a killed writer
//! are removed by the next one to take the lock. Whether an existing target is replaced is the
//! caller's explicit choice ([`Existing`]).
//!
//! Every failure is a [`StoreError`] with an [`ErrorKind`], never a panic.

mod error;
mod hash;
mod read;
mod write;

#[cfg(test)]
mod tests_files;

use std::fmt;

pub use error::{ErrorKind, PayloadError, StoreError};
pub use hash::xxh64;
pub use read::{decode, read, PayloadReader, StoreFile};
pub use write::{encode, write, Existing, Spec, TargetLock, Writer, LOCK_MARK};

/// The first eight bytes of every file.
pub const MAGIC: [u8; 8] = *b"TABULAST";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// The longest context string.
pub const MAX_CONTEXT: usize = 1024;
/// The longest header: room for the checksums of 2^21 blocks (2 TiB at the default block size).
pub const MAX_HEADER: u64 = 16 << 20;
/// The block size writers use unless told otherwise (1 MiB).
pub const DEFAULT_BLOCK: u32 = 1 << 20;
/// The smallest block size.
pub const MIN_BLOCK: u32 = 512;
/// The largest block size.
pub const MAX_BLOCK: u32 = 1 << 30;

/// Bytes of the header before the context.
pub(crate) const PREFIX: usize = 40;

/// What a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// One-sided backgammon bearoff database (code 1).
    BearoffOneSided,
    /// Two-sided backgammon bearoff database (code 2).
    BearoffTwoSided,
    /// Proven entries of a solver's transposition table (code 3).
    SolverTable,
    /// Backgammon net weights with their training state (code 4).
    NetWeights,
    /// A retrograde table of a game (the `retro` module of tabula-tablebase: one value byte
    /// per index of the game's rank space, then a summary) (code 5, once reserved for a Pylos
    /// tablebase tier: Pylos tables are retrograde tables).
    RetroTable,
    /// The checkpoint of an unfinished retrograde build, which `--resume` continues (code 6).
    RetroCheckpoint,
    /// The checkpoint of an unfinished race database build (`race-os`), which `--resume`
    /// continues (code 7).
    RaceCheckpoint,
}

impl Kind {
    /// The code stored in the header.
    pub fn code(self) -> u32 {
        match self {
            Kind::BearoffOneSided => 1,
            Kind::BearoffTwoSided => 2,
            Kind::SolverTable => 3,
            Kind::NetWeights => 4,
            Kind::RetroTable => 5,
            Kind::RetroCheckpoint => 6,
            Kind::RaceCheckpoint => 7,
        }
    }

    /// The kind with header code `code`, if this build knows it.
    pub fn from_code(code: u32) -> Option<Kind> {
        match code {
            1 => Some(Kind::BearoffOneSided),
            2 => Some(Kind::BearoffTwoSided),
            3 => Some(Kind::SolverTable),
            4 => Some(Kind::NetWeights),
            5 => Some(Kind::RetroTable),
            6 => Some(Kind::RetroCheckpoint),
            7 => Some(Kind::RaceCheckpoint),
            _ => None,
        }
    }

    /// A short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            // The race database (race-os) is a one-sided database too, told apart by its
            // context.
            Kind::BearoffOneSided => "bearoff-os or race-os",
            Kind::BearoffTwoSided => "bearoff-ts",
            Kind::SolverTable => "solver table",
            Kind::NetWeights => "net weights",
            Kind::RetroTable => "retrograde table",
            Kind::RetroCheckpoint => "retrograde checkpoint",
            Kind::RaceCheckpoint => "race-os checkpoint",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A context string from `key=value` pairs: `game=pylos;rules=standard;keying=d4`. Keys and
/// values are stable codes chosen by the caller (never `Debug` text), without `=` or `;`.
///
/// # Panics
///
/// When a key or value contains `=` or `;` (a programming error: the codes are constants).
pub fn context(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (i, (k, v)) in pairs.iter().enumerate() {
        assert!(
            !k.contains(['=', ';']) && !v.contains(['=', ';']),
            "context codes contain no '=' or ';': {k}={v}"
        );
        if i > 0 {
            out.push(';');
        }
        out.push_str(k);
        out.push('=');
        out.push_str(v);
    }
    out
}

/// The number of blocks of a payload.
pub(crate) fn block_count(payload_len: u64, block_size: u32) -> u64 {
    payload_len.div_ceil(block_size as u64)
}

/// The header length for a context and payload, if it is within [`MAX_HEADER`].
pub(crate) fn header_len(context_len: usize, payload_len: u64, block_size: u32) -> Option<u64> {
    let sums = block_count(payload_len, block_size).checked_mul(8)?;
    let len = (PREFIX as u64 + context_len as u64 + 8).checked_add(sums)?;
    (len <= MAX_HEADER).then_some(len)
}

pub(crate) fn valid_block_size(b: u32) -> bool {
    b.is_power_of_two() && (MIN_BLOCK..=MAX_BLOCK).contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_codes_round_trip() {
        for k in [
            Kind::BearoffOneSided,
            Kind::BearoffTwoSided,
            Kind::SolverTable,
            Kind::NetWeights,
            Kind::RetroTable,
            Kind::RetroCheckpoint,
            Kind::RaceCheckpoint,
        ] {
            assert_eq!(Kind::from_code(k.code()), Some(k));
        }
        assert_eq!(Kind::from_code(0), None);
        assert_eq!(Kind::from_code(8), None);
    }

    #[test]
    fn context_strings() {
        assert_eq!(
            context(&[("game", "pylos"), ("rules", "standard"), ("keying", "d4")]),
            "game=pylos;rules=standard;keying=d4"
        );
        assert_eq!(context(&[]), "");
    }

    #[test]
    #[should_panic]
    fn context_codes_cannot_hold_separators() {
        context(&[("game", "a;b")]);
    }
}
