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
///
/// The entries are counted in a first pass over the table and written in a second, so that
/// nothing but the table is held in memory: collecting them first took 32 bytes an entry, 4.3
/// GB for the 134 M proven entries of a 4 GiB table, and made a resumed 4 GiB df-pn test peak
/// at 12.6 GB (two tables of 4 GiB and the collection). The file announces its length before
/// its payload, so a running search that changes the table between the passes is met by
/// `write_records`: the file holds at most the counted entries, and where fewer are found
/// the first one counted is repeated to the announced length (loading an entry twice stores
/// it once); every record is a proven entry either way.
pub fn save_proven_locked(
    table: &AtomicTable,
    context: &str,
    lock: &TargetLock,
) -> Result<usize, TableFileError> {
    let proven = || table.entries().filter(|(_, e)| e.depth == Entry::PROVEN);
    let mut first = None;
    let count = proven().inspect(|&r| _ = first.get_or_insert(r)).count();
    let len = (count * ENTRY_BYTES) as u64;
    let mut w = lock.writer(
        Spec::new(Kind::SolverTable, context, len),
        Existing::Replace,
    )?;
    let written = write_records(count, proven(), first, |bytes| w.write_payload(bytes))?;
    w.finish()?;
    Ok(written)
}

/// Hands `write` exactly `count` records, in chunks: the first `count` of `entries`, then, if
/// these run out first, `spare` as often as is left (without one, fewer: the writer then
/// refuses the file as shorter than announced). Returns how many came from `entries`.
fn write_records(
    count: usize,
    entries: impl Iterator<Item = (u128, Entry)>,
    spare: Option<(u128, Entry)>,
    mut write: impl FnMut(&[u8]) -> Result<(), TableFileError>,
) -> Result<usize, TableFileError> {
    let mut chunk = Vec::with_capacity(1 << 16);
    let mut put = |(key, e): (u128, Entry)| -> Result<(), TableFileError> {
        chunk.extend_from_slice(&key.to_le_bytes());
        chunk.extend_from_slice(&e.lower.to_le_bytes());
        chunk.extend_from_slice(&e.upper.to_le_bytes());
        chunk.extend_from_slice(&e.best.to_le_bytes());
        chunk.push(e.sym);
        chunk.push(e.work);
        if chunk.len() + ENTRY_BYTES > chunk.capacity() {
            write(&chunk)?;
            chunk.clear();
        }
        Ok(())
    };
    let mut from_entries = 0;
    for record in entries.take(count) {
        put(record)?;
        from_entries += 1;
    }
    for record in std::iter::repeat_n(spare, count - from_entries).flatten() {
        put(record)?;
    }
    write(&chunk)?;
    Ok(from_entries)
}

/// Checks the file at `path` (header, kind, context, length, every block's checksum, every
/// entry) and stores its entries in `table`; returns how many. Nothing is stored from a file
/// that fails a check.
///
/// The payload is read twice, checked in full and then stored, instead of being collected
/// between the two (32 bytes an entry: 4.3 GB for 134 M). The promise above assumes that the
/// file does not change between the reads; a solve's lock on it rules that out for other
/// solves.
pub fn load_proven(
    table: &AtomicTable,
    context: &str,
    path: &Path,
) -> Result<usize, TableFileError> {
    let file = StoreFile::open(path, Kind::SolverTable, context)?;
    let n = for_each_record(&file, |_, _| {})?;
    for_each_record(&file, |key, entry| table.store(key, entry))?;
    Ok(n)
}

/// Reads every record of `file`'s payload, checking it, and hands each to `visit`; returns how
/// many. Stops at the first record (or block) that fails a check.
fn for_each_record(
    file: &StoreFile,
    mut visit: impl FnMut(u128, Entry),
) -> Result<usize, TableFileError> {
    let bad = |why: TablePayloadError| StoreError::bad_payload(Some(file.path()), why);
    let len = file.payload_len();
    if !len.is_multiple_of(ENTRY_BYTES as u64) {
        return Err(bad(TablePayloadError::PartialEntry { len }));
    }
    let mut reader = file.reader();
    let mut c = [0u8; ENTRY_BYTES];
    let records = len / ENTRY_BYTES as u64;
    for _ in 0..records {
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
        visit(key, entry);
    }
    Ok(records as usize)
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
        // An intact file with a valid entry, then an impossible one (lower above upper): the
        // first is not stored either.
        let mut payload = Vec::new();
        write_records(1, [(9, proven(1, 2, 3))].into_iter(), None, |b| {
            payload.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
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
        let bytes = tabula_store::encode(Kind::SolverTable, "game=x", &payload[24..44], 4096);
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
    fn a_damaged_later_block_stores_nothing_of_the_earlier_ones() {
        // 400 entries in blocks of 4096 bytes: the third block is damaged, the first two are
        // intact and were checked before it.
        let entries = (0..400u128).map(|k| (k, proven(0, 1, 2)));
        let mut payload = Vec::new();
        write_records(400, entries, None, |b| {
            payload.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
        let mut bytes = tabula_store::encode(Kind::SolverTable, "game=x", &payload, 4096);
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        let path = temp_file("later-block.tt");
        fs::write(&path, &bytes).unwrap();
        let table = AtomicTable::with_buckets(256);
        let err = load_proven(&table, "game=x", &path).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Corrupt { block: 2 }),
            "{err}"
        );
        assert_eq!(table.entries().count(), 0);
        fs::remove_file(&path).unwrap();
    }

    /// What a save writes when a running search changes the table between counting its proven
    /// entries and writing them: the counted number of records, each a proven entry.
    #[test]
    fn a_save_writes_the_counted_records_whatever_the_second_pass_finds() {
        let records = |count: usize, found: u128, spare: Option<(u128, Entry)>| {
            let mut bytes = Vec::new();
            let entries = (0..found).map(|k| (k, proven(0, 1, 2)));
            let from_entries = write_records(count, entries, spare, |b| {
                bytes.extend_from_slice(b);
                Ok(())
            })
            .unwrap();
            let keys: Vec<u128> = bytes
                .chunks(ENTRY_BYTES)
                .map(|c| u128::from_le_bytes(c[..16].try_into().unwrap()))
                .collect();
            (from_entries, keys)
        };
        let spare = Some((77, proven(5, 5, 0)));
        // As counted; more found than counted (the rest is left out); fewer (the first
        // counted entry fills the rest); none counted.
        assert_eq!(records(3, 3, spare), (3, vec![0, 1, 2]));
        assert_eq!(records(3, 5, spare), (3, vec![0, 1, 2]));
        assert_eq!(records(4, 1, spare), (1, vec![0, 77, 77, 77]));
        assert_eq!(records(0, 2, None), (0, vec![]));
        // Chunks are written whole, however many records.
        let (n, keys) = records(6000, 6000, None);
        assert_eq!((n, keys.len()), (6000, 6000));
        assert!(keys.iter().copied().eq(0..6000));
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
