//! Reading: the header checked first, then the payload with the checksums of its blocks.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{ErrorKind, PayloadError, StoreError};
use crate::{
    block_count, header_len, valid_block_size, xxh64, Kind, MAGIC, MAX_CONTEXT, PREFIX, VERSION,
};

/// A validated header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub kind: Kind,
    pub context: String,
    pub len: u64,
    pub payload_len: u64,
    pub block_size: u32,
    pub sums: Vec<u64>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

/// The fixed part of the header: magic and version checked, lengths consistent.
struct Prefix {
    kind: u32,
    header_len: u64,
    context_len: usize,
    payload_len: u64,
    block_size: u32,
}

/// Checks the first `min(40, file_len)` bytes of a file of `file_len` bytes.
fn parse_prefix(b: &[u8], file_len: u64) -> Result<Prefix, ErrorKind> {
    let n = b.len().min(MAGIC.len());
    if b[..n] != MAGIC[..n] {
        return Err(ErrorKind::BadMagic);
    }
    if b.len() < PREFIX {
        return Err(ErrorKind::Truncated {
            expected: PREFIX as u64,
            actual: file_len,
        });
    }
    let version = u32_at(b, 8);
    if version != VERSION {
        return Err(ErrorKind::UnsupportedVersion { found: version });
    }
    let header = |field| ErrorKind::CorruptHeader { field };
    let p = Prefix {
        kind: u32_at(b, 12),
        header_len: u32_at(b, 16) as u64,
        context_len: u32_at(b, 20) as usize,
        payload_len: u64_at(b, 24),
        block_size: u32_at(b, 32),
    };
    if u32_at(b, 36) != 0 {
        return Err(header("reserved field"));
    }
    if p.context_len > MAX_CONTEXT {
        return Err(header("context length"));
    }
    if !valid_block_size(p.block_size) {
        return Err(header("block size"));
    }
    if header_len(p.context_len, p.payload_len, p.block_size) != Some(p.header_len) {
        return Err(header("lengths"));
    }
    if file_len < p.header_len {
        return Err(ErrorKind::Truncated {
            expected: p.header_len.saturating_add(p.payload_len),
            actual: file_len,
        });
    }
    Ok(p)
}

/// Checks the whole header `b` (its checksum, then kind and context) against the expectation.
fn parse_header(b: &[u8], p: &Prefix, kind: Kind, context: &str) -> Result<Header, ErrorKind> {
    let end = b.len() - 8;
    if xxh64(&b[..end]) != u64_at(b, end) {
        return Err(ErrorKind::CorruptHeader { field: "checksum" });
    }
    // Kind and context are checked after the checksum, so that a damaged file is called damaged.
    if p.kind != kind.code() {
        return Err(ErrorKind::WrongKind {
            expected: kind,
            found: p.kind,
        });
    }
    let found = std::str::from_utf8(&b[PREFIX..PREFIX + p.context_len])
        .map_err(|_| ErrorKind::CorruptHeader { field: "context" })?;
    if found != context {
        return Err(ErrorKind::WrongContext {
            expected: context.to_string(),
            found: found.to_string(),
        });
    }
    let sums = b[PREFIX + p.context_len..end]
        .chunks_exact(8)
        .map(|c| u64_at(c, 0))
        .collect();
    Ok(Header {
        kind,
        context: found.to_string(),
        len: p.header_len,
        payload_len: p.payload_len,
        block_size: p.block_size,
        sums,
    })
}

/// Checks that a file of `file_len` bytes is exactly header and payload.
fn check_length(h: &Header, file_len: u64) -> Result<(), ErrorKind> {
    let expected = h.len + h.payload_len;
    if file_len < expected {
        return Err(ErrorKind::Truncated {
            expected,
            actual: file_len,
        });
    }
    if file_len > expected {
        return Err(ErrorKind::TrailingBytes {
            expected,
            actual: file_len,
        });
    }
    Ok(())
}

/// Checks an in-memory file (e.g. one compiled into the program) and returns its payload.
pub fn decode<'a>(bytes: &'a [u8], kind: Kind, context: &str) -> Result<&'a [u8], StoreError> {
    let len = bytes.len() as u64;
    let p = parse_prefix(&bytes[..bytes.len().min(PREFIX)], len).map_err(StoreError::in_memory)?;
    let h = parse_header(&bytes[..p.header_len as usize], &p, kind, context)
        .map_err(StoreError::in_memory)?;
    check_length(&h, len).map_err(StoreError::in_memory)?;
    let payload = &bytes[h.len as usize..];
    for (i, (block, &sum)) in payload
        .chunks(h.block_size as usize)
        .zip(&h.sums)
        .enumerate()
    {
        if xxh64(block) != sum {
            return Err(StoreError::in_memory(ErrorKind::Corrupt {
                block: i as u64,
            }));
        }
    }
    Ok(payload)
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// An open file whose header has been checked; the payload is read on demand.
#[derive(Debug)]
pub struct StoreFile {
    file: File,
    path: PathBuf,
    header: Header,
    /// One bit per block whose checksum has been verified since opening.
    verified: Vec<AtomicU64>,
}

impl StoreFile {
    /// Opens `path` and checks its header (see the [crate documentation](crate)): it must be a
    /// regular file of `kind` made for `context`, exactly as long as its header announces.
    /// Nothing of the payload is read.
    pub fn open(
        path: impl AsRef<Path>,
        kind: Kind,
        context: &str,
    ) -> Result<StoreFile, StoreError> {
        let path = path.as_ref();
        let err = |k| StoreError::new(path, k);
        let file = File::open(path).map_err(|e| StoreError::io(path, e))?;
        let meta = file.metadata().map_err(|e| StoreError::io(path, e))?;
        if !meta.is_file() {
            return Err(err(ErrorKind::NotAFile));
        }
        let len = meta.len();
        let mut prefix = vec![0u8; PREFIX.min(len as usize)];
        read_exact_at(&file, &mut prefix, 0).map_err(|e| read_error(path, e, PREFIX as u64))?;
        let p = parse_prefix(&prefix, len).map_err(err)?;
        let mut bytes = vec![0u8; p.header_len as usize];
        read_exact_at(&file, &mut bytes, 0).map_err(|e| read_error(path, e, p.header_len))?;
        let header = parse_header(&bytes, &p, kind, context).map_err(err)?;
        check_length(&header, len).map_err(err)?;
        let words = block_count(header.payload_len, header.block_size).div_ceil(64);
        Ok(StoreFile {
            file,
            path: path.to_path_buf(),
            verified: (0..words).map(|_| AtomicU64::new(0)).collect(),
            header,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The payload's length in bytes.
    pub fn payload_len(&self) -> u64 {
        self.header.payload_len
    }

    /// The block size of the checksums.
    pub fn block_size(&self) -> u32 {
        self.header.block_size
    }

    /// The file's context string.
    pub fn context(&self) -> &str {
        &self.header.context
    }

    fn total_len(&self) -> u64 {
        self.header.len + self.header.payload_len
    }

    fn is_verified(&self, block: u64) -> bool {
        self.verified[(block / 64) as usize].load(Ordering::Relaxed) & (1 << (block % 64)) != 0
    }

    /// The payload range of block `block`.
    fn block_range(&self, block: u64) -> (u64, u64) {
        let size = self.header.block_size as u64;
        let start = block * size;
        (start, (start + size).min(self.header.payload_len))
    }

    /// Reads block `block` whole into `buf` (resized) and verifies its checksum.
    fn read_block(&self, block: u64, buf: &mut Vec<u8>) -> Result<(), StoreError> {
        let (start, end) = self.block_range(block);
        buf.resize((end - start) as usize, 0);
        read_exact_at(&self.file, buf, self.header.len + start)
            .map_err(|e| read_error(&self.path, e, self.total_len()))?;
        if xxh64(buf) != self.header.sums[block as usize] {
            return Err(StoreError::new(&self.path, ErrorKind::Corrupt { block }));
        }
        self.verified[(block / 64) as usize].fetch_or(1 << (block % 64), Ordering::Relaxed);
        Ok(())
    }

    /// Fills `buf` with the payload bytes from `offset`, verifying the checksum of every block
    /// it touches (once per block and open file: later reads of a verified block read only
    /// what they ask for). Safe to call from several threads.
    pub fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), StoreError> {
        let end = offset
            .checked_add(buf.len() as u64)
            .filter(|&e| e <= self.header.payload_len)
            .ok_or_else(|| {
                StoreError::bad_payload(
                    Some(&self.path),
                    PayloadError::ReadPastEnd {
                        offset,
                        len: buf.len(),
                        payload_len: self.header.payload_len,
                    },
                )
            })?;
        if buf.is_empty() {
            return Ok(());
        }
        let size = self.header.block_size as u64;
        let mut scratch = Vec::new();
        for block in offset / size..=(end - 1) / size {
            let (b_start, b_end) = self.block_range(block);
            let (from, to) = (offset.max(b_start), end.min(b_end));
            let dst = &mut buf[(from - offset) as usize..(to - offset) as usize];
            if self.is_verified(block) {
                read_exact_at(&self.file, dst, self.header.len + from)
                    .map_err(|e| read_error(&self.path, e, self.total_len()))?;
            } else {
                self.read_block(block, &mut scratch)?;
                dst.copy_from_slice(&scratch[(from - b_start) as usize..(to - b_start) as usize]);
            }
        }
        Ok(())
    }

    /// A stream over the whole payload that verifies it block by block. Its errors are
    /// `io::Error`s wrapping a [`StoreError`] (see [`PayloadReader::store_error`]).
    pub fn reader(&self) -> PayloadReader<'_> {
        PayloadReader {
            file: self,
            block: 0,
            buf: Vec::new(),
            at: 0,
        }
    }

    /// The whole payload, verified (for small files: the length is the file's, bounded by
    /// the file system).
    pub fn read_all(&self) -> Result<Vec<u8>, StoreError> {
        let mut out = vec![0u8; self.header.payload_len as usize];
        self.read_at(0, &mut out)?;
        Ok(out)
    }
}

/// A read error: end of file means the file shrank after it was opened (it should be
/// `expected` bytes long).
fn read_error(path: &Path, e: io::Error, expected: u64) -> StoreError {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        let actual = std::fs::metadata(path).map_or(0, |m| m.len());
        StoreError::new(path, ErrorKind::Truncated { expected, actual })
    } else {
        StoreError::io(path, e)
    }
}

/// Opens `path` (see [`StoreFile::open`]) and returns its whole payload, verified.
pub fn read(path: impl AsRef<Path>, kind: Kind, context: &str) -> Result<Vec<u8>, StoreError> {
    StoreFile::open(path, kind, context)?.read_all()
}

/// The payload of a [`StoreFile`] as a stream, verified block by block before any byte of a
/// block is handed out.
#[derive(Debug)]
pub struct PayloadReader<'a> {
    file: &'a StoreFile,
    block: u64,
    buf: Vec<u8>,
    at: usize,
}

impl PayloadReader<'_> {
    /// The [`StoreError`] inside an error this reader returned (an I/O error of another
    /// origin becomes an [`ErrorKind::Io`] about the file).
    pub fn store_error(&self, e: io::Error) -> StoreError {
        if e.get_ref().is_some_and(|inner| inner.is::<StoreError>()) {
            if let Some(Ok(s)) = e.into_inner().map(|inner| inner.downcast::<StoreError>()) {
                return *s;
            }
            return StoreError::new(
                &self.file.path,
                ErrorKind::Io {
                    source: io::Error::other("read failed"),
                },
            );
        }
        read_error(&self.file.path, e, self.file.total_len())
    }
}

impl Read for PayloadReader<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.at == self.buf.len() {
            if self.block == block_count(self.file.payload_len(), self.file.block_size()) {
                return Ok(0);
            }
            self.file
                .read_block(self.block, &mut self.buf)
                .map_err(io::Error::other)?;
            self.block += 1;
            self.at = 0;
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
