//! Proven table entries on disk, so that a long exact solve that is stopped (Ctrl-C, a limit, a
//! crash between checkpoints) resumes from what it had proven instead of from nothing.
//!
//! Only [`Entry::PROVEN`] entries are saved: they are facts about positions (bounds proven
//! without a heuristic leaf), valid for any root and any later search under the same rules and
//! keying, while depth-limited bounds depend on the evaluation of the build that made them.
//! The move hint is kept: the search checks it against the move list before using it.
//!
//! Files are [`tabula_store`] containers of kind [`Kind::SolverTable`]; the context names the
//! game, the rules and the keying ([`context`]), and a file made under other ones is refused.
//! Payload (little-endian): per entry the key (u128), lower and upper bound (i16 each), move
//! hint (u16), symmetry (u8) and work (u8), 24 bytes. Writes go through a unique temporary
//! file and an atomic rename under the file's lock ([`TargetLock`]), which a solve holds for
//! as long as it runs, so two solves on one file cannot race.

use std::io::Read;
use std::path::Path;

use tabula_store::{Existing, Kind, Spec, StoreError, StoreFile, TargetLock};

use crate::tt::{AtomicTable, Entry, Table};

const ENTRY_BYTES: usize = 24;

/// Why a table file could not be read or written.
pub type TableFileError = StoreError;

/// Why an intact table file's payload was refused: the detail of a [`StoreError`] of kind
/// [`tabula_store::ErrorKind::BadPayload`] (downcast it to tell the causes apart).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TablePayloadError {
    /// A payload of `len` bytes: not a whole number of entries.
    PartialEntry { len: u64 },
    /// An entry no search writes (bounds crossed, symmetry, move or work out of range).
    ImpossibleEntry { key: u128 },
}

impl std::fmt::Display for TablePayloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TablePayloadError::PartialEntry { len } => write!(
                f,
                "{len} bytes, not a whole number of {ENTRY_BYTES}-byte entries"
            ),
            TablePayloadError::ImpossibleEntry { key } => {
                write!(f, "impossible entry for key {key:#x}")
            }
        }
    }
}

impl std::error::Error for TablePayloadError {}

/// The context of a table file: `game=G;` the rules' `key=value` codes, then
/// `keying=d4` (positions keyed up to the board's symmetries) or `keying=plain`.
pub fn context(game: &str, rules: &[(&str, &str)], symmetry: bool) -> String {
    let mut pairs = vec![("game", game)];
    pairs.extend_from_slice(rules);
    pairs.push(("keying", if symmetry { "d4" } else { "plain" }));
    tabula_store::context(&pairs)
}

/// Writes the proven entries of `table` to `path` under `context`, taking the file's lock for
/// the write; returns how many. See [`save_proven_locked`].
pub fn save_proven(
    table: &AtomicTable,
    context: &str,
    path: &Path,
) -> Result<usize, TableFileError> {
    save_proven_locked(table, context, &TargetLock::acquire(path)?)
}

/// Writes the proven entries of `table` to the target of `lock` (held by the caller) under
/// `context`, replacing it atomically; returns how many. Safe while a search is running:
/// entries being written are skipped.
pub fn save_proven_locked(
    table: &AtomicTable,
    context: &str,
    lock: &TargetLock,
) -> Result<usize, TableFileError> {
    let entries: Vec<(u128, Entry)> = table
        .entries()
        .filter(|(_, e)| e.depth == Entry::PROVEN)
        .collect();
    let len = (entries.len() * ENTRY_BYTES) as u64;
    let mut w = lock.writer(
        Spec::new(Kind::SolverTable, context, len),
        Existing::Replace,
    )?;
    let mut chunk = Vec::with_capacity(1 << 16);
    for (key, e) in &entries {
        chunk.extend_from_slice(&key.to_le_bytes());
        chunk.extend_from_slice(&e.lower.to_le_bytes());
        chunk.extend_from_slice(&e.upper.to_le_bytes());
        chunk.extend_from_slice(&e.best.to_le_bytes());
        chunk.push(e.sym);
        chunk.push(e.work);
        if chunk.len() + ENTRY_BYTES > chunk.capacity() {
            w.write_payload(&chunk)?;
            chunk.clear();
        }
    }
    w.write_payload(&chunk)?;
    w.finish()?;
    Ok(entries.len())
}

/// Checks the file at `path` (header, kind, context, length, every block's checksum, every
/// entry) and stores its entries in `table`; returns how many. Nothing is stored from a file
/// that fails a check.
pub fn load_proven(
    table: &AtomicTable,
    context: &str,
    path: &Path,
) -> Result<usize, TableFileError> {
    let file = StoreFile::open(path, Kind::SolverTable, context)?;
    let entries = decode(&file)?;
    for &(key, entry) in &entries {
        table.store(key, entry);
    }
    Ok(entries.len())
}

fn decode(file: &StoreFile) -> Result<Vec<(u128, Entry)>, TableFileError> {
    let bad = |why: TablePayloadError| StoreError::bad_payload(Some(file.path()), why);
    let len = file.payload_len();
    if !len.is_multiple_of(ENTRY_BYTES as u64) {
        return Err(bad(TablePayloadError::PartialEntry { len }));
    }
    let mut reader = file.reader();
    let mut entries = Vec::with_capacity((len / ENTRY_BYTES as u64) as usize);
    let mut c = [0u8; ENTRY_BYTES];
    for _ in 0..len / ENTRY_BYTES as u64 {
        reader
            .read_exact(&mut c)
            .map_err(|e| reader.store_error(e))?;
        let mut k = [0u8; 16];
        k.copy_from_slice(&c[..16]);
        let key = u128::from_le_bytes(k);
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
        if !valid {
            return Err(bad(TablePayloadError::ImpossibleEntry { key }));
        }
        entries.push((key, entry));
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use tabula_store::ErrorKind;

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
    fn contexts_are_stable_codes() {
        assert_eq!(
            context(
                "pylos",
                &[("rules", "standard"), ("takeback", "optional")],
                true
            ),
            "game=pylos;rules=standard;takeback=optional;keying=d4"
        );
        assert_eq!(
            context("bilitaire", &[("rules", "standard")], false),
            "game=bilitaire;rules=standard;keying=plain"
        );
    }

    #[test]
    fn proven_entries_survive_a_round_trip_and_others_are_left_out() {
        let path = temp_file("round-trip.tt");
        let n = save_proven(&sample_table(), "game=x", &path).unwrap();
        assert_eq!(n, 2);
        let table = AtomicTable::with_buckets(64);
        assert_eq!(load_proven(&table, "game=x", &path).unwrap(), 2);
        assert_eq!(table.probe(11), Some(proven(-3, 5, 4)));
        assert_eq!(table.probe(1 << 90 | 7), Some(proven(2, 2, Entry::NO_MOVE)));
        assert_eq!(table.probe(12), None);
        fs::remove_file(&path).unwrap();
    }

    #[test]
    fn damaged_or_foreign_files_are_refused_and_store_nothing() {
        let path = temp_file("damaged.tt");
        save_proven(&sample_table(), "game=x", &path).unwrap();
        let good = fs::read(&path).unwrap();
        let check = |bytes: &[u8], context: &str| {
            fs::write(&path, bytes).unwrap();
            let table = AtomicTable::with_buckets(64);
            let r = load_proven(&table, context, &path).map_err(StoreError::into_kind);
            if r.is_err() {
                assert_eq!(table.entries().count(), 0, "a refused file stores nothing");
            }
            r
        };
        assert_eq!(check(&good, "game=x").unwrap(), 2);
        assert!(matches!(
            check(&good, "game=y"),
            Err(ErrorKind::WrongContext { .. })
        ));
        for cut in [0, 5, 20, good.len() - 30, good.len() - 1] {
            let err = check(&good[..cut], "game=x").unwrap_err();
            assert!(
                matches!(err, ErrorKind::Truncated { .. }),
                "cut at {cut}: {err:?}"
            );
        }
        let mut flipped = good.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 0x10;
        assert!(matches!(
            check(&flipped, "game=x"),
            Err(ErrorKind::Corrupt { block: 0 })
        ));
        let mut longer = good.clone();
        longer.push(0);
        assert!(matches!(
            check(&longer, "game=x"),
            Err(ErrorKind::TrailingBytes { .. })
        ));
        let mut magic = good.clone();
        magic[0] = b'X';
        assert!(matches!(check(&magic, "game=x"), Err(ErrorKind::BadMagic)));
        // An intact file with an impossible entry (lower above upper).
        let mut payload = Vec::new();
        payload.extend_from_slice(&5u128.to_le_bytes());
        payload.extend_from_slice(&[3, 0, 1, 0, 0, 0, 0, 0]);
        let bytes = tabula_store::encode(Kind::SolverTable, "game=x", &payload, 4096);
        let Err(ErrorKind::BadPayload { detail }) = check(&bytes, "game=x") else {
            panic!("an impossible entry is refused");
        };
        assert_eq!(
            detail.downcast_ref::<TablePayloadError>(),
            Some(&TablePayloadError::ImpossibleEntry { key: 5 })
        );
        assert_eq!(detail.to_string(), "impossible entry for key 0x5");
        let bytes = tabula_store::encode(Kind::SolverTable, "game=x", &payload[..20], 4096);
        let Err(ErrorKind::BadPayload { detail }) = check(&bytes, "game=x") else {
            panic!("a partial entry is refused");
        };
        assert_eq!(
            detail.to_string(),
            "20 bytes, not a whole number of 24-byte entries"
        );
        fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_held_lock_refuses_another_save() {
        let path = temp_file("locked.tt");
        let lock = TargetLock::acquire(&path).unwrap();
        let err = save_proven(&sample_table(), "game=x", &path).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Locked), "{err}");
        assert_eq!(
            save_proven_locked(&sample_table(), "game=x", &lock).unwrap(),
            2
        );
        drop(lock);
        fs::remove_file(&path).unwrap();
    }
}
