//! Proven table entries on disk, so that a long exact solve that is stopped (Ctrl-C, a limit, a
//! crash between checkpoints) resumes from what it had proven instead of from nothing.
//!
//! Only [`Entry::PROVEN`] entries are saved: they are facts about positions (bounds proven
//! without a heuristic leaf), valid for any root and any later search under the same rules and
//! keying, while depth-limited bounds depend on the evaluation of the build that made them.
//! The move hint is kept: the search checks it against the move list before using it.
//!
//! Layout (little-endian): magic `TABULATT`, format version (u32), context length (u32) and
//! context (UTF-8: the game, rules and keying the entries belong to; a file made under other
//! ones is refused), entry count (u64), then per entry the key (u128), lower and upper bound
//! (i16 each), move hint (u16), symmetry (u8) and work (u8), and last the FNV-1a 64 checksum of
//! everything before it. Files are written to `FILE.tmp` and renamed into place.

use std::fmt;
use std::fs;
use std::path::Path;

use tabula_tablebase::format::{write_atomic, Fnv1a};

use crate::tt::{AtomicTable, Entry, Table};

const MAGIC: &[u8; 8] = b"TABULATT";
const VERSION: u32 = 1;
const ENTRY_BYTES: usize = 24;

/// Why a table file could not be read or written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableFileError {
    Io(String),
    BadMagic,
    Version(u32),
    /// Made for other rules or keying: `found` is the file's context.
    OtherContext {
        found: String,
        expected: String,
    },
    Truncated,
    Checksum,
    /// Well formed but with an impossible entry or extra bytes.
    Corrupt(String),
}

impl fmt::Display for TableFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableFileError::Io(e) => f.write_str(e),
            TableFileError::BadMagic => f.write_str("not a Tabula table file (bad magic)"),
            TableFileError::Version(v) => {
                write!(f, "table file version {v}, this build reads {VERSION}")
            }
            TableFileError::OtherContext { found, expected } => write!(
                f,
                "the table file was made for `{found}`, this search is `{expected}`"
            ),
            TableFileError::Truncated => f.write_str("the table file is truncated"),
            TableFileError::Checksum => f.write_str("the table file's checksum does not match"),
            TableFileError::Corrupt(e) => write!(f, "the table file is corrupt: {e}"),
        }
    }
}

impl std::error::Error for TableFileError {}

/// Writes the proven entries of `table` to `path` (atomically) under `context`; returns how
/// many. Safe while a search is running: entries being written are skipped.
pub fn save_proven(
    table: &AtomicTable,
    context: &str,
    path: &Path,
) -> Result<usize, TableFileError> {
    let entries: Vec<(u128, Entry)> = table
        .entries()
        .filter(|(_, e)| e.depth == Entry::PROVEN)
        .collect();
    let mut out = Vec::with_capacity(32 + context.len() + entries.len() * ENTRY_BYTES);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(context.len() as u32).to_le_bytes());
    out.extend_from_slice(context.as_bytes());
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for (key, e) in &entries {
        out.extend_from_slice(&key.to_le_bytes());
        out.extend_from_slice(&e.lower.to_le_bytes());
        out.extend_from_slice(&e.upper.to_le_bytes());
        out.extend_from_slice(&e.best.to_le_bytes());
        out.push(e.sym);
        out.push(e.work);
    }
    let mut sum = Fnv1a::new();
    sum.update(&out);
    out.extend_from_slice(&sum.finish().to_le_bytes());

    write_atomic(path, &[&out]).map_err(|e| TableFileError::Io(format!("cannot write {e}")))?;
    Ok(entries.len())
}

/// Checks the file at `path` (magic, version, context, length, checksum, every entry) and stores
/// its entries in `table`; returns how many. Nothing is stored from a file that fails a check.
pub fn load_proven(
    table: &AtomicTable,
    context: &str,
    path: &Path,
) -> Result<usize, TableFileError> {
    let bytes = fs::read(path)
        .map_err(|e| TableFileError::Io(format!("cannot read {}: {e}", path.display())))?;
    let entries = decode(&bytes, context)?;
    for &(key, entry) in &entries {
        table.store(key, entry);
    }
    Ok(entries.len())
}

fn decode(bytes: &[u8], context: &str) -> Result<Vec<(u128, Entry)>, TableFileError> {
    let mut at = 0;
    let mut take = |n: usize| -> Result<&[u8], TableFileError> {
        let piece = bytes.get(at..at + n).ok_or(TableFileError::Truncated)?;
        at += n;
        Ok(piece)
    };
    if take(8).map_err(|_| TableFileError::BadMagic)? != MAGIC {
        return Err(TableFileError::BadMagic);
    }
    let u32_of = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap());
    let version = u32_of(take(4)?);
    if version != VERSION {
        return Err(TableFileError::Version(version));
    }
    let context_len = u32_of(take(4)?) as usize;
    let found = String::from_utf8_lossy(take(context_len)?).into_owned();
    let count = u64::from_le_bytes(take(8)?.try_into().unwrap());
    let body = usize::try_from(count)
        .ok()
        .and_then(|c| c.checked_mul(ENTRY_BYTES))
        .ok_or(TableFileError::Truncated)?;
    let raw = take(body)?;
    let end = 24 + context_len + body;
    let stored = u64::from_le_bytes(take(8)?.try_into().unwrap());
    let mut sum = Fnv1a::new();
    sum.update(&bytes[..end]);
    if sum.finish() != stored {
        return Err(TableFileError::Checksum);
    }
    if bytes.len() > end + 8 {
        return Err(TableFileError::Corrupt(format!(
            "{} bytes after the checksum",
            bytes.len() - end - 8
        )));
    }
    // The context is checked after the checksum, so that a damaged file is called damaged.
    if found != context {
        return Err(TableFileError::OtherContext {
            found,
            expected: context.to_string(),
        });
    }
    raw.chunks_exact(ENTRY_BYTES)
        .map(|c| {
            let key = u128::from_le_bytes(c[..16].try_into().unwrap());
            let i16_at = |o: usize| i16::from_le_bytes([c[o], c[o + 1]]);
            let entry = Entry {
                lower: i16_at(16),
                upper: i16_at(18),
                depth: Entry::PROVEN,
                best: u16::from_le_bytes([c[20], c[21]]),
                sym: c[22],
                work: c[23],
            };
            let valid = entry.lower <= entry.upper
                && entry.sym < 8
                && entry.best <= Entry::NO_MOVE
                && entry.work <= 31;
            if valid {
                Ok((key, entry))
            } else {
                Err(TableFileError::Corrupt(format!(
                    "impossible entry for key {key:#x}"
                )))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proven(lower: i16, upper: i16, best: u16) -> Entry {
        Entry {
            lower,
            upper,
            depth: Entry::PROVEN,
            best,
            sym: 2,
            work: 9,
        }
    }

    fn sample_table() -> AtomicTable {
        let table = AtomicTable::with_buckets(64);
        table.store(11, proven(-3, 5, 4));
        table.store(1 << 90 | 7, proven(2, 2, Entry::NO_MOVE));
        // Depth-limited: not a fact, not saved.
        table.store(
            12,
            Entry {
                depth: 6,
                ..proven(0, 1, 1)
            },
        );
        table
    }

    fn temp_file(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("tabula-tt-file-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn proven_entries_survive_a_round_trip_and_others_are_left_out() {
        let path = temp_file("round-trip.tt");
        let n = save_proven(&sample_table(), "game x", &path).unwrap();
        assert_eq!(n, 2);
        assert!(!tabula_tablebase::format::temp_path(&path).exists());
        let table = AtomicTable::with_buckets(64);
        assert_eq!(load_proven(&table, "game x", &path), Ok(2));
        assert_eq!(table.probe(11), Some(proven(-3, 5, 4)));
        assert_eq!(table.probe(1 << 90 | 7), Some(proven(2, 2, Entry::NO_MOVE)));
        assert_eq!(table.probe(12), None);
        fs::remove_file(&path).unwrap();
    }

    #[test]
    fn damaged_or_foreign_files_are_refused_and_store_nothing() {
        let path = temp_file("damaged.tt");
        save_proven(&sample_table(), "game x", &path).unwrap();
        let good = fs::read(&path).unwrap();
        let check = |bytes: &[u8], context: &str| decode(bytes, context).map(|e| e.len());
        assert_eq!(check(&good, "game x"), Ok(2));
        assert!(matches!(
            check(&good, "game y"),
            Err(TableFileError::OtherContext { .. })
        ));
        for cut in [0, 5, 20, good.len() - 30, good.len() - 1] {
            let err = check(&good[..cut], "game x").unwrap_err();
            assert!(
                matches!(err, TableFileError::Truncated | TableFileError::BadMagic),
                "cut at {cut}: {err:?}"
            );
        }
        let mut flipped = good.clone();
        flipped[40] ^= 0x10;
        assert_eq!(check(&flipped, "game x"), Err(TableFileError::Checksum));
        let mut longer = good.clone();
        longer.push(0);
        assert!(matches!(
            check(&longer, "game x"),
            Err(TableFileError::Corrupt(_))
        ));
        let mut magic = good.clone();
        magic[0] = b'X';
        assert_eq!(check(&magic, "game x"), Err(TableFileError::BadMagic));
        // Through the file: a refused file leaves the table as it was.
        fs::write(&path, &flipped).unwrap();
        let table = AtomicTable::with_buckets(64);
        assert_eq!(
            load_proven(&table, "game x", &path),
            Err(TableFileError::Checksum)
        );
        assert_eq!(table.entries().count(), 0);
        fs::remove_file(&path).unwrap();
    }
}
