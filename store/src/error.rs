//! [`StoreError`]: why a file could not be read or written, by kind, with the file's path.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::{Kind, VERSION};

/// What went wrong (see [`StoreError`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file, or the directory it is to be written in, does not exist.
    NotFound,
    /// The path is a directory, a device, a pipe: not a regular file.
    NotAFile,
    /// The path cannot name a file here: a name longer than the file system allows, or one
    /// holding a character it refuses (the operating system's error is the source).
    BadName { source: io::Error },
    /// The operating system failed to read or write it.
    Io { source: io::Error },
    /// It does not start with Tabula's magic bytes: not a Tabula file.
    BadMagic,
    /// A format version this build does not read.
    UnsupportedVersion { found: u32 },
    /// A Tabula file of another kind (`found` is the header's code).
    WrongKind { expected: Kind, found: u32 },
    /// A file of the right kind made for other rules, database or keying.
    WrongContext { expected: String, found: String },
    /// Shorter than its header announces (`actual` bytes, `expected` announced).
    Truncated { expected: u64, actual: u64 },
    /// Longer than its header announces: bytes after the payload.
    TrailingBytes { expected: u64, actual: u64 },
    /// The header is damaged: its checksum or its fields do not hold together.
    CorruptHeader { field: &'static str },
    /// Payload block `block` (of `block_size` bytes from the payload's start) is damaged.
    Corrupt { block: u64 },
    /// The payload is intact but holds something its kind does not allow (a user's check:
    /// a probability above one, a shape this build cannot use), or a payload this crate was
    /// asked to write or read that does not fit the file ([`PayloadError`]). `detail` is the
    /// checker's typed error (downcast it to tell the causes apart); it is also the source.
    BadPayload {
        detail: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Another process is writing the file (its lock file is held).
    Locked,
    /// The file exists and the writer was asked not to replace it.
    Exists,
    /// The lock file the writer needs (`NAME.lock`, next to the file) is a file Tabula did
    /// not make: it is left alone, and the write refused.
    LockInTheWay { lock: PathBuf },
}

/// Why a file could not be read or written: the path (none for bytes in memory) and the kind.
#[derive(Debug)]
pub struct StoreError {
    path: Option<PathBuf>,
    kind: ErrorKind,
}

impl StoreError {
    /// An error about `path`.
    pub fn new(path: &Path, kind: ErrorKind) -> StoreError {
        StoreError {
            path: Some(path.to_path_buf()),
            kind,
        }
    }

    /// An error about bytes that came from no file (e.g. data compiled into the program).
    pub fn in_memory(kind: ErrorKind) -> StoreError {
        StoreError { path: None, kind }
    }

    /// An I/O error about `path`; `NotFound` becomes [`ErrorKind::NotFound`].
    pub fn io(path: &Path, source: io::Error) -> StoreError {
        let kind = match source.kind() {
            // A missing directory, or a file where a directory should be.
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => ErrorKind::NotFound,
            io::ErrorKind::IsADirectory => ErrorKind::NotAFile,
            // A name too long (ENAMETOOLONG) or refused: the user's path, not the system.
            io::ErrorKind::InvalidFilename => ErrorKind::BadName { source },
            _ => ErrorKind::Io { source },
        };
        StoreError::new(path, kind)
    }

    /// A [`ErrorKind::BadPayload`] about `path` (a check of the payload's contents), with the
    /// checker's error as `detail`.
    pub fn bad_payload(
        path: Option<&Path>,
        detail: impl std::error::Error + Send + Sync + 'static,
    ) -> StoreError {
        StoreError {
            path: path.map(Path::to_path_buf),
            kind: ErrorKind::BadPayload {
                detail: Box::new(detail),
            },
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// What went wrong, by value.
    pub fn into_kind(self) -> ErrorKind {
        self.kind
    }

    /// The file, if the error is about one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// True when the fault is the file's content or the path given (damaged, foreign,
    /// truncated, of another kind or context, missing, not a regular file, a name the file
    /// system refuses, locked, existing):
    /// what a command line reports as bad input. False for an operating-system failure.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self.kind, ErrorKind::Io { .. })
    }

    /// True when the file, or its directory, does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self.kind, ErrorKind::NotFound)
    }

    pub(crate) fn with_path(mut self, path: &Path) -> StoreError {
        self.path = Some(path.to_path_buf());
        self
    }
}

/// A payload that does not fit the file this crate was asked to write or read (the
/// [`ErrorKind::BadPayload`] detail of the writer and of [`crate::StoreFile::read_at`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PayloadError {
    /// A context longer than [`crate::MAX_CONTEXT`] bytes.
    ContextTooLong { len: usize },
    /// A block size that is not a power of two from 512 B to 1 GiB.
    BadBlockSize { size: u32 },
    /// A payload too large for a header to describe.
    PayloadTooLarge { len: u64 },
    /// A read of `len` bytes at `offset` that passes the payload's end.
    ReadPastEnd {
        offset: u64,
        len: usize,
        payload_len: u64,
    },
    /// A writer finished with another payload length than it announced.
    LengthMismatch { written: u64, announced: u64 },
}

impl fmt::Display for PayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PayloadError::ContextTooLong { len } => {
                write!(f, "cannot write a context of {len} bytes")
            }
            PayloadError::BadBlockSize { size } => write!(f, "cannot write a block size of {size}"),
            PayloadError::PayloadTooLarge { len } => {
                write!(f, "cannot write a payload of {len} bytes")
            }
            PayloadError::ReadPastEnd {
                offset,
                len,
                payload_len,
            } => write!(
                f,
                "a read of {len} bytes at {offset} passes the payload's end ({payload_len})"
            ),
            PayloadError::LengthMismatch { written, announced } => {
                write!(f, "{written} payload bytes written, {announced} announced")
            }
        }
    }
}

impl std::error::Error for PayloadError {}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::NotFound => f.write_str("no such file or directory"),
            ErrorKind::NotAFile => f.write_str("not a regular file"),
            ErrorKind::BadName { source } => write!(f, "not a usable file name: {source}"),
            ErrorKind::Io { source } => write!(f, "{source}"),
            ErrorKind::BadMagic => f.write_str("not a Tabula file (bad magic)"),
            ErrorKind::UnsupportedVersion { found } => write!(
                f,
                "Tabula file format version {found}, this build reads {VERSION} (a file of \
                 another Tabula, or a damaged one)"
            ),
            ErrorKind::WrongKind { expected, found } => match Kind::from_code(*found) {
                Some(k) => write!(f, "a {k} file, expected a {expected} file"),
                None => write!(f, "unknown file kind {found}, expected a {expected} file"),
            },
            ErrorKind::WrongContext { expected, found } => {
                write!(f, "made for `{found}`, expected `{expected}`")
            }
            ErrorKind::Truncated { expected, actual } => write!(
                f,
                "truncated: {actual} bytes, the header announces {expected}"
            ),
            ErrorKind::TrailingBytes { expected, actual } => write!(
                f,
                "{} bytes after the end the header announces ({expected} bytes)",
                actual - expected
            ),
            ErrorKind::CorruptHeader { field } => write!(f, "damaged header ({field})"),
            ErrorKind::Corrupt { block } => {
                write!(f, "damaged: payload block {block} fails its checksum")
            }
            ErrorKind::BadPayload { detail } => write!(f, "invalid contents: {detail}"),
            ErrorKind::Locked => f.write_str("another process is writing this file"),
            ErrorKind::Exists => f.write_str("the file exists (not replacing it)"),
            ErrorKind::LockInTheWay { lock } => write!(
                f,
                "{} is in the way: a file Tabula did not make, where it keeps its lock (move \
                 it away)",
                lock.display()
            ),
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: {}", p.display(), self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Io { source } | ErrorKind::BadName { source } => Some(source),
            ErrorKind::BadPayload { detail } => Some(detail.as_ref()),
            _ => None,
        }
    }
}
