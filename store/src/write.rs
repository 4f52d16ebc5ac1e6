//! Writing: a unique temporary file, fsync, atomic rename, directory fsync, under a lock.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{ErrorKind, PayloadError, StoreError};
use crate::{
    header_len, valid_block_size, xxh64, Kind, DEFAULT_BLOCK, MAGIC, MAX_CONTEXT, VERSION,
};

/// What a writer does when the target file exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Fail with [`ErrorKind::Exists`].
    Refuse,
    /// Replace it (atomically: readers see the old file or the new one, never a mix).
    Replace,
}

/// What a file will hold: kind, context, payload length and block size.
#[derive(Clone, Copy, Debug)]
pub struct Spec<'a> {
    pub kind: Kind,
    pub context: &'a str,
    pub payload_len: u64,
    pub block_size: u32,
}

impl<'a> Spec<'a> {
    /// A payload of `payload_len` bytes in blocks of [`DEFAULT_BLOCK`].
    pub fn new(kind: Kind, context: &'a str, payload_len: u64) -> Spec<'a> {
        Spec {
            kind,
            context,
            payload_len,
            block_size: DEFAULT_BLOCK,
        }
    }

    /// The same with blocks of `block_size` bytes (a power of two, 512 B to 1 GiB).
    pub fn block_size(self, block_size: u32) -> Spec<'a> {
        Spec { block_size, ..self }
    }

    /// The header length, or why the spec is unusable.
    fn header_len(&self) -> Result<u64, PayloadError> {
        if self.context.len() > MAX_CONTEXT {
            return Err(PayloadError::ContextTooLong {
                len: self.context.len(),
            });
        }
        if !valid_block_size(self.block_size) {
            return Err(PayloadError::BadBlockSize {
                size: self.block_size,
            });
        }
        header_len(self.context.len(), self.payload_len, self.block_size).ok_or(
            PayloadError::PayloadTooLarge {
                len: self.payload_len,
            },
        )
    }
}

/// The header bytes for `spec` and the block checksums `sums`.
fn header(spec: &Spec, len: u64, sums: &[u64]) -> Vec<u8> {
    let mut h = Vec::with_capacity(len as usize);
    h.extend_from_slice(&MAGIC);
    h.extend_from_slice(&VERSION.to_le_bytes());
    h.extend_from_slice(&spec.kind.code().to_le_bytes());
    h.extend_from_slice(&(len as u32).to_le_bytes());
    h.extend_from_slice(&(spec.context.len() as u32).to_le_bytes());
    h.extend_from_slice(&spec.payload_len.to_le_bytes());
    h.extend_from_slice(&spec.block_size.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes());
    h.extend_from_slice(spec.context.as_bytes());
    for s in sums {
        h.extend_from_slice(&s.to_le_bytes());
    }
    let sum = xxh64(&h);
    h.extend_from_slice(&sum.to_le_bytes());
    h
}

/// A whole file in memory: header and `payload` (for data compiled into a program, and tests).
///
/// # Panics
///
/// When the context is longer than [`MAX_CONTEXT`] or the block size is not valid.
pub fn encode(kind: Kind, context: &str, payload: &[u8], block_size: u32) -> Vec<u8> {
    let spec = Spec::new(kind, context, payload.len() as u64).block_size(block_size);
    let len = spec.header_len().expect("a valid spec");
    let sums: Vec<u64> = payload.chunks(block_size as usize).map(xxh64).collect();
    let mut out = header(&spec, len, &sums);
    out.extend_from_slice(payload);
    out
}

/// `NAME` + `suffix`, next to `target`.
fn sibling(target: &Path, suffix: &str) -> PathBuf {
    let mut name: OsString = target.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    target.with_file_name(name)
}

/// The directory `target` is in.
fn parent(target: &Path) -> &Path {
    match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Checks that `target` names a file: not empty, not ending in `..` or `/`.
fn check_name(target: &Path) -> Result<(), StoreError> {
    match target.file_name() {
        Some(_) => Ok(()),
        None => Err(StoreError::new(target, ErrorKind::NotAFile)),
    }
}

/// The lock of one target file: `NAME.lock` next to it, held with an exclusive advisory lock
/// ([`File::try_lock`]) for as long as this value lives, and removed when it is dropped.
/// Taking it removes the temporary files (`NAME.tmp-*`, and the `NAME.tmp` of earlier
/// versions) that a killed writer left: a writer holds the lock until its temporary file is
/// renamed or removed, so while the lock is held no other one is live.
///
/// Files of those names that Tabula did not make are the user's, and are never removed: a lock
/// file holds [`LOCK_MARK`] (or nothing, for a writer killed between creating and marking it),
/// and a lock file with anything else in it refuses the lock ([`ErrorKind::LockInTheWay`]); a
/// temporary file is removed only when it starts as a writer's does (zeros, the place of the
/// header, or the header's magic).
///
/// Hold it across a long job to fail at its start, not its end, when the file cannot be
/// written: [`TargetLock::check`] also tells whether the target may be written, and
/// [`TargetLock::writer`] writes under the held lock.
#[derive(Debug)]
pub struct TargetLock {
    target: PathBuf,
    lock_path: PathBuf,
    /// Open for as long as the lock is held: closing it releases the lock.
    _file: File,
}

impl TargetLock {
    /// Takes the lock of `target`, or fails with [`ErrorKind::Locked`] when another process
    /// (or another lock in this one) holds it, [`ErrorKind::NotFound`] when the directory does
    /// not exist, [`ErrorKind::NotAFile`] when `target` is a directory.
    pub fn acquire(target: impl AsRef<Path>) -> Result<TargetLock, StoreError> {
        let target = target.as_ref();
        check_name(target)?;
        if target.is_dir() {
            return Err(StoreError::new(target, ErrorKind::NotAFile));
        }
        let lock_path = sibling(target, ".lock");
        // The holder removes the lock file before releasing it: a lock taken on a removed
        // file is retried on the new one.
        for _ in 0..8 {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&lock_path)
                .map_err(|e| StoreError::io(&lock_path, e).with_path(target))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(StoreError::new(target, ErrorKind::Locked))
                }
                Err(fs::TryLockError::Error(e)) => return Err(StoreError::io(&lock_path, e)),
            }
            if same_file(&file, &lock_path) {
                mark_lock(&file, &lock_path, target)?;
                let lock = TargetLock {
                    target: target.to_path_buf(),
                    lock_path,
                    _file: file,
                };
                lock.remove_stale_temps();
                return Ok(lock);
            }
        }
        Err(StoreError::new(target, ErrorKind::Locked))
    }

    /// The file this lock is for.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Checks that the target can be written with `existing`: it is not a directory or
    /// another non-regular file, and with [`Existing::Refuse`] it does not exist.
    pub fn check(&self, existing: Existing) -> Result<(), StoreError> {
        match fs::symlink_metadata(&self.target) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StoreError::io(&self.target, e)),
            Ok(m) if !m.is_file() && !m.file_type().is_symlink() => {
                Err(StoreError::new(&self.target, ErrorKind::NotAFile))
            }
            Ok(_) if existing == Existing::Refuse => {
                Err(StoreError::new(&self.target, ErrorKind::Exists))
            }
            Ok(_) => Ok(()),
        }
    }

    /// A writer of the target under this lock.
    pub fn writer(&self, spec: Spec, existing: Existing) -> Result<Writer<'_>, StoreError> {
        Writer::start(Hold::Borrowed(self), spec, existing)
    }

    fn remove_stale_temps(&self) {
        let Some(name) = self.target.file_name().and_then(|n| n.to_str()) else {
            return;
        };
        let (prefix, legacy) = (format!("{name}.tmp-"), format!("{name}.tmp"));
        let Ok(entries) = fs::read_dir(parent(&self.target)) else {
            return;
        };
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let Some(n) = file_name.to_str() else {
                continue;
            };
            if (n.starts_with(&prefix) || n == legacy) && is_stale_temp(&entry.path()) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

impl Drop for TargetLock {
    fn drop(&mut self) {
        // Removed while still locked; the lock is released when `_file` closes.
        if cfg!(unix) {
            let _ = fs::remove_file(&self.lock_path);
        }
    }
}

/// What a lock file holds, so that a file of its name that a user made is told apart.
pub const LOCK_MARK: &[u8] = b"tabula lock file: removed when its writer is done\n";

/// Marks the lock file `file` (at `lock_path`, held) as Tabula's, or refuses it when it holds
/// anything but the mark: it is then a user's file, and `file` is closed without the lock
/// (only a [`TargetLock`] removes its file).
fn mark_lock(mut file: &File, lock_path: &Path, target: &Path) -> Result<(), StoreError> {
    use std::io::Read;
    let in_the_way = || {
        StoreError::new(
            target,
            ErrorKind::LockInTheWay {
                lock: lock_path.to_path_buf(),
            },
        )
    };
    let len = file
        .metadata()
        .map_err(|e| StoreError::io(lock_path, e))?
        .len();
    if len > 0 {
        if len != LOCK_MARK.len() as u64 {
            return Err(in_the_way());
        }
        let mut held = Vec::with_capacity(LOCK_MARK.len());
        file.read_to_end(&mut held)
            .map_err(|e| StoreError::io(lock_path, e))?;
        return if held == LOCK_MARK {
            Ok(())
        } else {
            Err(in_the_way())
        };
    }
    file.write_all(LOCK_MARK)
        .map_err(|e| StoreError::io(lock_path, e))
}

/// True when the file at `path` starts as a writer's temporary file does: nothing yet, zeros
/// (the header's place, filled in last) or the magic (killed after the header was written).
fn is_stale_temp(path: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = File::open(path) else {
        return false;
    };
    let mut start = Vec::with_capacity(MAGIC.len());
    if file
        .take(MAGIC.len() as u64)
        .read_to_end(&mut start)
        .is_err()
    {
        return false;
    }
    start.iter().all(|&b| b == 0) || start == MAGIC
}

/// True when `path` is still the file `file` has open.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &File, _path: &Path) -> bool {
    true
}

/// The lock a writer holds: its own, or one its caller holds.
#[derive(Debug)]
enum Hold<'a> {
    Owned(TargetLock),
    Borrowed(&'a TargetLock),
}

impl Hold<'_> {
    fn lock(&self) -> &TargetLock {
        match self {
            Hold::Owned(l) => l,
            Hold::Borrowed(l) => l,
        }
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Streams a payload into a new file (see the [crate documentation](crate)): write exactly
/// the announced number of bytes ([`Write`] or [`Writer::write_payload`]), then
/// [`Writer::finish`]. Dropped unfinished, it removes its temporary file.
#[derive(Debug)]
pub struct Writer<'a> {
    hold: Hold<'a>,
    kind: Kind,
    context: String,
    payload_len: u64,
    block_size: u32,
    header_len: u64,
    existing: Existing,
    temp: PathBuf,
    file: Option<File>,
    block: Vec<u8>,
    sums: Vec<u64>,
    written: u64,
}

impl Writer<'static> {
    /// Takes the lock of `target` (see [`TargetLock::acquire`]) and starts writing it.
    pub fn create(
        target: impl AsRef<Path>,
        spec: Spec,
        existing: Existing,
    ) -> Result<Writer<'static>, StoreError> {
        Writer::start(Hold::Owned(TargetLock::acquire(target)?), spec, existing)
    }
}

impl<'a> Writer<'a> {
    fn start(hold: Hold<'a>, spec: Spec, existing: Existing) -> Result<Writer<'a>, StoreError> {
        let lock = hold.lock();
        let target = lock.target.clone();
        let header_len = spec
            .header_len()
            .map_err(|why| StoreError::bad_payload(Some(&target), why))?;
        lock.check(existing)?;
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = sibling(&target, &format!(".tmp-{}-{n}", std::process::id()));
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| StoreError::io(&temp, e))?;
        let mut writer = Writer {
            hold,
            kind: spec.kind,
            context: spec.context.to_string(),
            payload_len: spec.payload_len,
            block_size: spec.block_size,
            header_len,
            existing,
            temp,
            file: None,
            block: Vec::with_capacity(spec.block_size.min(DEFAULT_BLOCK) as usize),
            sums: Vec::new(),
            written: 0,
        };
        // The header's place, filled in by `finish` once the checksums are known.
        let placeholder = vec![0u8; header_len as usize];
        file.write_all(&placeholder)
            .map_err(|e| StoreError::io(&writer.temp, e))?;
        writer.file = Some(file);
        Ok(writer)
    }

    /// The file being written.
    pub fn target(&self) -> &Path {
        &self.hold.lock().target
    }

    fn flush_block(&mut self) -> io::Result<()> {
        let file = self.file.as_mut().ok_or(io::ErrorKind::BrokenPipe)?;
        file.write_all(&self.block)?;
        self.sums.push(xxh64(&self.block));
        self.block.clear();
        Ok(())
    }

    /// Appends `bytes` to the payload.
    pub fn write_payload(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.write_all(bytes)
            .map_err(|e| StoreError::io(&self.temp, e).with_path(&self.hold.lock().target))
    }

    /// Completes the file: the last block, the header, fsync, rename over the target,
    /// directory fsync. Fails (and removes the temporary file) if the payload written is not
    /// the length announced.
    pub fn finish(mut self) -> Result<(), StoreError> {
        let target = self.hold.lock().target.clone();
        if self.written != self.payload_len {
            return Err(StoreError::bad_payload(
                Some(&target),
                PayloadError::LengthMismatch {
                    written: self.written,
                    announced: self.payload_len,
                },
            ));
        }
        if !self.block.is_empty() {
            self.flush_block()
                .map_err(|e| StoreError::io(&self.temp, e))?;
        }
        let spec = Spec {
            kind: self.kind,
            context: &self.context,
            payload_len: self.payload_len,
            block_size: self.block_size,
        };
        let header = header(&spec, self.header_len, &self.sums);
        let temp = self.temp.clone();
        let io_err = |e| StoreError::io(&temp, e);
        let mut file = self
            .file
            .take()
            .ok_or_else(|| io_err(io::Error::other("the writer's file is gone")))?;
        file.seek(SeekFrom::Start(0)).map_err(io_err)?;
        file.write_all(&header).map_err(io_err)?;
        file.sync_all().map_err(io_err)?;
        drop(file);
        // Checked again under the lock, in case something else created it meanwhile.
        self.hold.lock().check(self.existing)?;
        fs::rename(&temp, &target).map_err(|e| StoreError::io(&target, e))?;
        if let Ok(dir) = File::open(parent(&target)) {
            let _ = dir.sync_all();
        }
        // Renamed: nothing left to remove.
        self.temp = PathBuf::new();
        Ok(())
    }
}

impl Write for Writer<'_> {
    fn write(&mut self, mut bytes: &[u8]) -> io::Result<usize> {
        let n = bytes.len();
        if self.written + n as u64 > self.payload_len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("more payload than the {} bytes announced", self.payload_len),
            ));
        }
        while !bytes.is_empty() {
            let room = self.block_size as usize - self.block.len();
            let take = room.min(bytes.len());
            self.block.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.block.len() == self.block_size as usize {
                self.flush_block()?;
            }
        }
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Writer<'_> {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            self.file = None;
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// Writes `payload` as a file of `kind` and `context` at `target` (taking its lock).
pub fn write(
    target: impl AsRef<Path>,
    kind: Kind,
    context: &str,
    payload: &[u8],
    existing: Existing,
) -> Result<(), StoreError> {
    let mut w = Writer::create(
        target,
        Spec::new(kind, context, payload.len() as u64),
        existing,
    )?;
    w.write_payload(payload)?;
    w.finish()
}
