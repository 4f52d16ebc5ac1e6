//! The on-disk container shared by every database: a fixed header, then the payload.
//!
//! Header (48 bytes, integers little-endian):
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 8 | magic `TABULATB` |
//! | 8 | 4 | format version (1) |
//! | 12 | 4 | kind (1 = one-sided bearoff, 2 = two-sided bearoff) |
//! | 16 | 4 | points (6) |
//! | 20 | 4 | checkers per side (15 one-sided, 6 two-sided) |
//! | 24 | 8 | positions (54,264 or 924 × 924) |
//! | 32 | 8 | payload length in bytes |
//! | 40 | 8 | FNV-1a 64 of bytes 0..40 followed by the payload |
//!
//! Files are written atomically (`<file>.tmp`, fsync, rename) and read back with every field
//! checked before the payload is trusted: a bad file is an error, never a panic.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// The first eight bytes of every file.
pub const MAGIC: [u8; 8] = *b"TABULATB";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// Bytes before the payload.
pub const HEADER_LEN: usize = 48;

/// Which database a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// One-sided bearoff: roll distributions for up to 15 checkers on 6 points.
    BearoffOneSided,
    /// Two-sided bearoff: cubeless win probabilities, up to 6 checkers a side on 6 points.
    BearoffTwoSided,
}

impl Kind {
    /// The code stored in the header.
    pub fn code(self) -> u32 {
        match self {
            Kind::BearoffOneSided => 1,
            Kind::BearoffTwoSided => 2,
        }
    }

    /// The kind with header code `code`, if any.
    pub fn from_code(code: u32) -> Option<Kind> {
        match code {
            1 => Some(Kind::BearoffOneSided),
            2 => Some(Kind::BearoffTwoSided),
            _ => None,
        }
    }

    /// The command-line name (`bearoff-os`, `bearoff-ts`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::BearoffOneSided => "bearoff-os",
            Kind::BearoffTwoSided => "bearoff-ts",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a database could not be written or read.
#[derive(Debug)]
pub enum TablebaseError {
    /// The file could not be opened, read or written.
    Io { path: PathBuf, source: io::Error },
    /// The file does not start with the magic bytes.
    NotATablebase,
    /// A format version this build does not read.
    UnsupportedVersion(u32),
    /// A valid file of another kind (or an unknown kind code).
    WrongKind { expected: Kind, found: String },
    /// The file is shorter than its header says.
    Truncated { expected: u64, actual: u64 },
    /// The header or payload is inconsistent (bad counts, checksum, values, trailing bytes).
    Corrupt(String),
}

impl fmt::Display for TablebaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TablebaseError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            TablebaseError::NotATablebase => f.write_str("not a Tabula tablebase (bad magic)"),
            TablebaseError::UnsupportedVersion(v) => {
                write!(
                    f,
                    "unsupported tablebase format version {v} (this build reads {VERSION})"
                )
            }
            TablebaseError::WrongKind { expected, found } => {
                write!(
                    f,
                    "wrong kind of tablebase: expected {expected}, found {found}"
                )
            }
            TablebaseError::Truncated { expected, actual } => write!(
                f,
                "truncated tablebase: {actual} bytes, the header announces {expected}"
            ),
            TablebaseError::Corrupt(why) => write!(f, "corrupt tablebase: {why}"),
        }
    }
}

impl std::error::Error for TablebaseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TablebaseError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> TablebaseError + '_ {
    move |source| TablebaseError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// 64-bit FNV-1a, fed in pieces.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(u64);

impl Fnv1a {
    pub fn new() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }

    pub fn update(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a::new()
    }
}

/// What a kind of file must announce.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub kind: Kind,
    pub points: u32,
    pub checkers: u32,
    pub positions: u64,
    /// The largest payload a valid file can have.
    pub max_payload: u64,
}

fn header(shape: &Shape, payload: &[u8]) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&shape.kind.code().to_le_bytes());
    h[16..20].copy_from_slice(&shape.points.to_le_bytes());
    h[20..24].copy_from_slice(&shape.checkers.to_le_bytes());
    h[24..32].copy_from_slice(&shape.positions.to_le_bytes());
    h[32..40].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    let mut sum = Fnv1a::new();
    sum.update(&h[..40]);
    sum.update(payload);
    h[40..48].copy_from_slice(&sum.finish().to_le_bytes());
    h
}

/// `<path>.tmp`: the name a file is written under before it is renamed into place.
pub fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Writes header and payload to `path` atomically (see [`write_atomic`]).
pub fn write(path: &Path, shape: &Shape, payload: &[u8]) -> Result<(), TablebaseError> {
    write_atomic(path, &[&header(shape, payload), payload])
}

/// Writes `parts`, one after the other, to `path` atomically: `<path>.tmp`, fsync, rename, then
/// a best-effort fsync of the directory. On failure the temporary file is removed. Databases,
/// net weights and solver tables are written through here; the CLI's bearoff cache is not, as
/// several processes may build it at once and each needs its own temporary name.
pub fn write_atomic(path: &Path, parts: &[&[u8]]) -> Result<(), TablebaseError> {
    let tmp = temp_path(path);
    let result = (|| {
        let mut file = File::create(&tmp).map_err(io_error(&tmp))?;
        for part in parts {
            file.write_all(part).map_err(io_error(&tmp))?;
        }
        file.sync_all().map_err(io_error(&tmp))?;
        drop(file);
        fs::rename(&tmp, path).map_err(io_error(path))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
        return result;
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(x)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

/// Reads a file of the given shape and returns its payload, after checking magic, version,
/// kind, counts, size and checksum.
pub fn read(path: &Path, shape: &Shape) -> Result<Vec<u8>, TablebaseError> {
    let mut file = File::open(path).map_err(io_error(path))?;
    let len = file.metadata().map_err(io_error(path))?.len();
    let mut h = [0u8; HEADER_LEN];
    let got = read_up_to(&mut file, &mut h).map_err(io_error(path))?;
    if got >= 8 && h[0..8] != MAGIC {
        return Err(TablebaseError::NotATablebase);
    }
    if got < HEADER_LEN {
        if got < 8 && h[..got] != MAGIC[..got] {
            return Err(TablebaseError::NotATablebase);
        }
        return Err(TablebaseError::Truncated {
            expected: HEADER_LEN as u64,
            actual: got as u64,
        });
    }
    let version = u32_at(&h, 8);
    if version != VERSION {
        return Err(TablebaseError::UnsupportedVersion(version));
    }
    let code = u32_at(&h, 12);
    match Kind::from_code(code) {
        Some(k) if k == shape.kind => {}
        Some(k) => {
            return Err(TablebaseError::WrongKind {
                expected: shape.kind,
                found: k.to_string(),
            })
        }
        None => {
            return Err(TablebaseError::WrongKind {
                expected: shape.kind,
                found: format!("unknown kind {code}"),
            })
        }
    }
    let (points, checkers, positions) = (u32_at(&h, 16), u32_at(&h, 20), u64_at(&h, 24));
    if (points, checkers, positions) != (shape.points, shape.checkers, shape.positions) {
        return Err(TablebaseError::Corrupt(format!(
            "header announces {points} points, {checkers} checkers, {positions} positions; \
             a {} database has {}, {}, {}",
            shape.kind, shape.points, shape.checkers, shape.positions
        )));
    }
    let payload_len = u64_at(&h, 32);
    if payload_len > shape.max_payload {
        return Err(TablebaseError::Corrupt(format!(
            "payload of {payload_len} bytes announced, at most {} possible",
            shape.max_payload
        )));
    }
    let expected = HEADER_LEN as u64 + payload_len;
    if len < expected {
        return Err(TablebaseError::Truncated {
            expected,
            actual: len,
        });
    }
    if len > expected {
        return Err(TablebaseError::Corrupt(format!(
            "{} bytes after the payload",
            len - expected
        )));
    }
    let mut payload = vec![0u8; payload_len as usize];
    let got = read_up_to(&mut file, &mut payload).map_err(io_error(path))?;
    if got < payload.len() {
        // The file shrank while we read it.
        return Err(TablebaseError::Truncated {
            expected,
            actual: (HEADER_LEN + got) as u64,
        });
    }
    let mut sum = Fnv1a::new();
    sum.update(&h[..40]);
    sum.update(&payload);
    if sum.finish() != u64_at(&h, 40) {
        return Err(TablebaseError::Corrupt("checksum mismatch".into()));
    }
    Ok(payload)
}

/// Reads until `buf` is full or the file ends; returns the bytes read.
fn read_up_to(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Little-endian `f64`s from a byte slice whose length is a multiple of 8.
pub fn f64s(bytes: &[u8]) -> impl Iterator<Item = f64> + '_ {
    bytes.chunks_exact(8).map(|c| {
        let mut x = [0u8; 8];
        x.copy_from_slice(c);
        f64::from_le_bytes(x)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_reference_values() {
        let mut h = Fnv1a::new();
        assert_eq!(h.finish(), 0xcbf2_9ce4_8422_2325);
        h.update(b"a");
        assert_eq!(h.finish(), 0xaf63_dc4c_8601_ec8c);
        let mut h = Fnv1a::new();
        h.update(b"foobar");
        assert_eq!(h.finish(), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn temp_name_is_next_to_the_file() {
        assert_eq!(
            temp_path(Path::new("dir/bearoff-os.tdb")),
            PathBuf::from("dir/bearoff-os.tdb.tmp")
        );
        assert_eq!(temp_path(Path::new("x")), PathBuf::from("x.tmp"));
    }
}
