//! Every kind of damage, the lock, stale temporary files and clean-up on failure.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::*;

const CTX: &str = "game=test;rules=x";

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tabula-store-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn payload(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + i / 256) as u8).collect()
}

/// 2,000 bytes in blocks of 512: four blocks, the last one short.
fn sample(path: &Path) -> Vec<u8> {
    let data = payload(2000);
    let mut w = Writer::create(
        path,
        Spec::new(Kind::SolverTable, CTX, 2000).block_size(512),
        Existing::Refuse,
    )
    .unwrap();
    // In uneven pieces, across block boundaries.
    for piece in data.chunks(333) {
        w.write_all(piece).unwrap();
    }
    w.finish().unwrap();
    data
}

fn kind_of(r: Result<impl Sized, StoreError>) -> ErrorKind {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            e.into_kind()
        }
    }
}

fn entries(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn round_trip_positional_streaming_and_whole() {
    let d = dir("round-trip");
    let path = d.join("t.bin");
    let data = sample(&path);
    assert_eq!(entries(&d), ["t.bin"], "no temp or lock file left");
    let f = StoreFile::open(&path, Kind::SolverTable, CTX).unwrap();
    assert_eq!(f.payload_len(), 2000);
    assert_eq!(f.context(), CTX);
    assert_eq!(f.read_all().unwrap(), data);
    for (at, n) in [
        (0, 1),
        (500, 30),
        (511, 2),
        (100, 1500),
        (1999, 1),
        (2000, 0),
    ] {
        let mut buf = vec![0; n];
        f.read_at(at as u64, &mut buf).unwrap();
        assert_eq!(buf, data[at..at + n], "{at}+{n}");
    }
    let mut streamed = Vec::new();
    f.reader().read_to_end(&mut streamed).unwrap();
    assert_eq!(streamed, data);
    assert!(f.read_at(1990, &mut [0; 11]).is_err());
    assert_eq!(read(&path, Kind::SolverTable, CTX).unwrap(), data);
    // The same bytes as the in-memory encoder's, and they decode.
    let bytes = fs::read(&path).unwrap();
    assert_eq!(bytes, encode(Kind::SolverTable, CTX, &data, 512));
    assert_eq!(decode(&bytes, Kind::SolverTable, CTX).unwrap(), &data[..]);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn empty_payload() {
    let d = dir("empty");
    let path = d.join("e");
    write(&path, Kind::NetWeights, "", &[], Existing::Refuse).unwrap();
    assert_eq!(read(&path, Kind::NetWeights, "").unwrap(), Vec::<u8>::new());
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn every_damaged_header_byte_is_refused() {
    let bytes = encode(Kind::SolverTable, CTX, &payload(2000), 512);
    let header_len = bytes.len() - 2000;
    for at in 0..header_len {
        let mut bad = bytes.clone();
        bad[at] ^= 0x20;
        let k = kind_of(decode(&bad, Kind::SolverTable, CTX));
        let expected = match at {
            0..8 => matches!(k, ErrorKind::BadMagic),
            8..12 => matches!(k, ErrorKind::UnsupportedVersion { .. }),
            _ => matches!(k, ErrorKind::CorruptHeader { .. }),
        };
        assert!(expected, "byte {at}: {k:?}");
    }
}

#[test]
fn a_damaged_block_is_named_and_the_others_still_read() {
    let d = dir("blocks");
    let path = d.join("t");
    let data = sample(&path);
    let good = fs::read(&path).unwrap();
    let header_len = good.len() - data.len();
    for block in 0..4u64 {
        let mut bad = good.clone();
        bad[header_len + block as usize * 512 + 17] ^= 1;
        fs::write(&path, &bad).unwrap();
        let f = StoreFile::open(&path, Kind::SolverTable, CTX).unwrap();
        assert!(matches!(kind_of(f.read_all()), ErrorKind::Corrupt { block: b } if b == block));
        let mut streamed = Vec::new();
        let e = f.reader().read_to_end(&mut streamed).unwrap_err();
        let e = f.reader().store_error(e);
        assert!(matches!(e.kind(), ErrorKind::Corrupt { block: b } if *b == block));
        // Only the verified blocks before the damaged one were handed out.
        assert_eq!(streamed.len() as u64, 512 * block);
        let other = (block + 1) % 4;
        let mut buf = [0u8; 5];
        f.read_at(other * 512, &mut buf).unwrap();
        assert_eq!(buf, data[other as usize * 512..][..5]);
        assert!(matches!(
            kind_of(decode(&bad, Kind::SolverTable, CTX)),
            ErrorKind::Corrupt { block: b } if b == block
        ));
    }
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn truncated_or_extended_files_are_refused_before_the_payload_is_read() {
    let d = dir("lengths");
    let path = d.join("t");
    sample(&path);
    let good = fs::read(&path).unwrap();
    for cut in [0, 3, 8, 39, 40, 60, good.len() - 2000, good.len() - 1] {
        fs::write(&path, &good[..cut]).unwrap();
        let k = kind_of(StoreFile::open(&path, Kind::SolverTable, CTX));
        assert!(
            matches!(k, ErrorKind::Truncated { .. }),
            "cut at {cut}: {k:?}"
        );
    }
    let mut longer = good.clone();
    longer.extend_from_slice(b"xyz");
    fs::write(&path, &longer).unwrap();
    let k = kind_of(StoreFile::open(&path, Kind::SolverTable, CTX));
    assert!(matches!(k, ErrorKind::TrailingBytes { .. }), "{k:?}");
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn wrong_kind_context_magic_or_version() {
    let d = dir("foreign");
    let path = d.join("t");
    sample(&path);
    assert!(matches!(
        kind_of(StoreFile::open(&path, Kind::NetWeights, CTX)),
        ErrorKind::WrongKind {
            expected: Kind::NetWeights,
            found: 3
        }
    ));
    let k = kind_of(StoreFile::open(
        &path,
        Kind::SolverTable,
        "game=test;rules=y",
    ));
    assert!(
        matches!(&k, ErrorKind::WrongContext { found, .. } if found == CTX),
        "{k:?}"
    );
    fs::write(
        &path,
        b"#!/bin/sh\necho hello, this is no Tabula file at all\n",
    )
    .unwrap();
    assert!(matches!(
        kind_of(StoreFile::open(&path, Kind::SolverTable, CTX)),
        ErrorKind::BadMagic
    ));
    let mut v2 = encode(Kind::SolverTable, CTX, b"abc", 512);
    v2[8] = 2;
    assert!(matches!(
        kind_of(decode(&v2, Kind::SolverTable, CTX)),
        ErrorKind::UnsupportedVersion { found: 2 }
    ));
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn huge_announced_lengths_are_refused_without_allocating() {
    let mut h = encode(Kind::SolverTable, CTX, b"abc", 512);
    // A payload of 2^62 bytes would need a header of 2^56 bytes of checksums.
    h[24..32].copy_from_slice(&(1u64 << 62).to_le_bytes());
    assert!(matches!(
        kind_of(decode(&h, Kind::SolverTable, CTX)),
        ErrorKind::CorruptHeader { field: "lengths" }
    ));
    let mut h = encode(Kind::SolverTable, CTX, b"abc", 512);
    h[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        kind_of(decode(&h, Kind::SolverTable, CTX)),
        ErrorKind::CorruptHeader {
            field: "context length"
        }
    ));
}

#[test]
fn devices_directories_and_missing_files() {
    #[cfg(unix)]
    assert!(matches!(
        kind_of(StoreFile::open("/dev/zero", Kind::SolverTable, CTX)),
        ErrorKind::NotAFile
    ));
    let d = dir("not-files");
    assert!(matches!(
        kind_of(StoreFile::open(&d, Kind::SolverTable, CTX)),
        ErrorKind::NotAFile
    ));
    assert!(matches!(
        kind_of(StoreFile::open(d.join("missing"), Kind::SolverTable, CTX)),
        ErrorKind::NotFound
    ));
    // Writing: over a directory, into a missing directory.
    assert!(matches!(
        kind_of(write(&d, Kind::SolverTable, CTX, b"x", Existing::Replace)),
        ErrorKind::NotAFile
    ));
    assert!(matches!(
        kind_of(write(
            d.join("no/such"),
            Kind::SolverTable,
            CTX,
            b"x",
            Existing::Replace
        )),
        ErrorKind::NotFound
    ));
    fs::remove_dir_all(&d).unwrap();
}

/// A name longer than the file system allows (255 bytes on Linux's file systems) is the
/// user's bad path, not a failure of the system: reading and writing say so by kind.
#[test]
#[cfg(target_os = "linux")]
fn names_too_long_are_bad_input() {
    let d = dir("long-names");
    let long = d.join("n".repeat(300));
    let read = StoreFile::open(&long, Kind::SolverTable, CTX).unwrap_err();
    assert!(matches!(read.kind(), ErrorKind::BadName { .. }), "{read:?}");
    assert!(read.is_bad_input());
    assert!(std::error::Error::source(&read).is_some());
    let written = write(&long, Kind::SolverTable, CTX, b"x", Existing::Replace).unwrap_err();
    assert!(
        matches!(written.kind(), ErrorKind::BadName { .. }),
        "{written:?}"
    );
    assert!(written.is_bad_input());
    // Nothing was left behind.
    assert!(entries(&d).is_empty());
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn the_lock_refuses_a_second_writer() {
    let d = dir("lock");
    let path = d.join("t");
    let held = TargetLock::acquire(&path).unwrap();
    assert!(d.join("t.lock").exists());
    assert!(matches!(
        kind_of(TargetLock::acquire(&path)),
        ErrorKind::Locked
    ));
    assert!(matches!(
        kind_of(write(
            &path,
            Kind::SolverTable,
            CTX,
            b"x",
            Existing::Replace
        )),
        ErrorKind::Locked
    ));
    // The holder writes under its lock.
    let mut w = held
        .writer(Spec::new(Kind::SolverTable, CTX, 1), Existing::Refuse)
        .unwrap();
    w.write_payload(b"y").unwrap();
    w.finish().unwrap();
    drop(held);
    assert_eq!(entries(&d), ["t"], "the lock file is removed with the lock");
    write(&path, Kind::SolverTable, CTX, b"z", Existing::Replace).unwrap();
    assert_eq!(read(&path, Kind::SolverTable, CTX).unwrap(), b"z");
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn stale_temporary_files_are_removed_by_the_next_writer() {
    let d = dir("stale");
    let path = d.join("t");
    // As a killed writer leaves them: the header's place still zeros, the header written, or
    // nothing yet.
    let mut written = MAGIC.to_vec();
    written.extend_from_slice(b"and the rest");
    fs::write(d.join("t.tmp-4242-0"), [0u8; 300]).unwrap();
    fs::write(d.join("t.tmp-1-17"), &written).unwrap();
    fs::write(d.join("t.tmp"), b"").unwrap();
    fs::write(d.join("other.tmp-1-1"), [0u8; 300]).unwrap();
    // Files of those names that a user made are theirs: kept.
    fs::write(d.join("t.tmp-backup"), b"my notes").unwrap();
    write(&path, Kind::SolverTable, CTX, b"x", Existing::Refuse).unwrap();
    assert_eq!(entries(&d), ["other.tmp-1-1", "t", "t.tmp-backup"]);
    assert_eq!(fs::read(d.join("t.tmp-backup")).unwrap(), b"my notes");
    fs::remove_dir_all(&d).unwrap();
}

/// A lock file Tabula did not make (`NAME.lock` with a user's contents) refuses the lock and
/// is kept as it is; an empty one (a writer killed before marking it, or an older Tabula's) and
/// a marked one left by a killed writer are taken.
#[test]
fn a_users_file_where_the_lock_goes_is_kept() {
    let d = dir("user-lock");
    let path = d.join("t");
    fs::write(d.join("t.lock"), b"my notes").unwrap();
    let e = TargetLock::acquire(&path).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LockInTheWay { .. }), "{e}");
    assert!(e.to_string().contains("t.lock is in the way"), "{e}");
    assert!(matches!(
        kind_of(write(
            &path,
            Kind::SolverTable,
            CTX,
            b"x",
            Existing::Replace
        )),
        ErrorKind::LockInTheWay { .. }
    ));
    assert_eq!(fs::read(d.join("t.lock")).unwrap(), b"my notes");
    assert_eq!(entries(&d), ["t.lock"]);
    for left in [&b""[..], LOCK_MARK] {
        fs::write(d.join("t.lock"), left).unwrap();
        write(&path, Kind::SolverTable, CTX, b"x", Existing::Replace).unwrap();
        assert_eq!(entries(&d), ["t"]);
    }
    // While held, the lock file holds the mark.
    let held = TargetLock::acquire(&path).unwrap();
    assert_eq!(fs::read(d.join("t.lock")).unwrap(), LOCK_MARK);
    drop(held);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn failures_remove_the_temporary_file_and_keep_the_target() {
    let d = dir("failures");
    let path = d.join("t");
    write(&path, Kind::SolverTable, CTX, b"old", Existing::Refuse).unwrap();
    // Refusing an existing target.
    assert!(matches!(
        kind_of(write(
            &path,
            Kind::SolverTable,
            CTX,
            b"new",
            Existing::Refuse
        )),
        ErrorKind::Exists
    ));
    // Dropped unfinished.
    let mut w = Writer::create(
        &path,
        Spec::new(Kind::SolverTable, CTX, 10),
        Existing::Replace,
    )
    .unwrap();
    w.write_payload(b"12345").unwrap();
    assert_eq!(
        entries(&d).len(),
        3,
        "target, lock and temp: {:?}",
        entries(&d)
    );
    drop(w);
    assert_eq!(entries(&d), ["t"]);
    // Too short, too long.
    let w = Writer::create(
        &path,
        Spec::new(Kind::SolverTable, CTX, 10),
        Existing::Replace,
    )
    .unwrap();
    assert!(matches!(kind_of(w.finish()), ErrorKind::BadPayload { .. }));
    let mut w = Writer::create(
        &path,
        Spec::new(Kind::SolverTable, CTX, 2),
        Existing::Replace,
    )
    .unwrap();
    assert!(w.write_payload(b"abc").is_err());
    drop(w);
    assert_eq!(entries(&d), ["t"]);
    assert_eq!(read(&path, Kind::SolverTable, CTX).unwrap(), b"old");
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn payload_misuse_is_a_typed_detail_with_the_old_message() {
    let d = dir("misuse");
    let path = d.join("t");
    let long = "x".repeat(MAX_CONTEXT + 1);
    let Err(e) = Writer::create(
        &path,
        Spec::new(Kind::SolverTable, &long, 0),
        Existing::Replace,
    ) else {
        panic!("a context too long is refused");
    };
    assert_eq!(
        e.to_string(),
        format!(
            "{}: invalid contents: cannot write a context of {} bytes",
            path.display(),
            MAX_CONTEXT + 1
        )
    );
    let ErrorKind::BadPayload { detail } = e.kind() else {
        panic!("{e:?}");
    };
    assert_eq!(
        detail.downcast_ref::<PayloadError>(),
        Some(&PayloadError::ContextTooLong {
            len: MAX_CONTEXT + 1
        })
    );
    assert!(std::error::Error::source(&e).is_some());
    let w = Writer::create(
        &path,
        Spec::new(Kind::SolverTable, CTX, 10),
        Existing::Replace,
    )
    .unwrap();
    let e = w.finish().unwrap_err();
    assert!(
        e.to_string()
            .ends_with("invalid contents: 0 payload bytes written, 10 announced"),
        "{e}"
    );
    fs::remove_dir_all(&d).unwrap();
}
