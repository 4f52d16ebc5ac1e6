//! The state of a build (values, counters and where the build is) and its checkpoints.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU8, Ordering};
use std::time::Duration;

use tabula_store::{Existing, Spec, StoreFile, TargetLock};

use super::{bad, BuildError, RetroPayloadError, CHECKPOINT_KIND, MAX_PLIES};

/// The counter of an index that has none: a hole or a primitive position.
pub(crate) const NO_COUNTER: u16 = u16::MAX;

/// Where a build is: the phase and the next index of it to process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    Holes { next: u64 },
    Children { next: u64 },
    Level { level: u32, next: u64 },
}

/// Everything a build needs to continue.
#[derive(Debug)]
pub(crate) struct State {
    pub values: Vec<AtomicU8>,
    /// One per index with un-moves; empty when sweeping.
    pub counters: Vec<AtomicU16>,
    pub stage: Stage,
    /// In a level, the positions it has decided so far.
    pub decided: u64,
    /// Time spent in earlier sessions of this build.
    pub elapsed_before: Duration,
}

/// Bytes of the checkpoint record.
const RECORD: u64 = 64;
/// The checkpoint record's format.
const FORMAT: u64 = 1;
/// Bytes per chunk when streaming arrays to and from files.
const IO_CHUNK: usize = 1 << 20;

fn alloc<T>(n: u64, bytes_each: u64, make: impl Fn() -> T) -> Result<Vec<T>, BuildError> {
    let oom = BuildError::OutOfMemory {
        bytes: n.saturating_mul(bytes_each),
    };
    let len = usize::try_from(n).map_err(|_| BuildError::OutOfMemory {
        bytes: n.saturating_mul(bytes_each),
    })?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| oom)?;
    v.extend(std::iter::repeat_with(make).take(len));
    Ok(v)
}

impl State {
    /// A fresh build of `n` indices, with counters when `parents`.
    pub fn new(n: u64, parents: bool) -> Result<State, BuildError> {
        let values = alloc(n, 1, || AtomicU8::new(0))?;
        let counters = if parents {
            alloc(n, 2, || AtomicU16::new(NO_COUNTER))?
        } else {
            Vec::new()
        };
        Ok(State {
            values,
            counters,
            stage: Stage::Holes { next: 0 },
            decided: 0,
            elapsed_before: Duration::ZERO,
        })
    }

    fn payload_len(n: u64, parents: bool) -> u64 {
        RECORD + n + if parents { 2 * n } else { 0 }
    }

    fn record(&self, elapsed: Duration) -> [u8; RECORD as usize] {
        let (stage, level, next) = match self.stage {
            Stage::Holes { next } => (0, 0, next),
            Stage::Children { next } => (1, 0, next),
            Stage::Level { level, next } => (2, level as u64, next),
        };
        let fields = [
            FORMAT,
            self.values.len() as u64,
            stage,
            level,
            next,
            self.decided,
            elapsed.as_millis() as u64,
            !self.counters.is_empty() as u64,
        ];
        let mut out = [0u8; RECORD as usize];
        for (i, f) in fields.iter().enumerate() {
            out[8 * i..8 * i + 8].copy_from_slice(&f.to_le_bytes());
        }
        out
    }

    /// Writes the checkpoint under `lock` (replacing the previous one atomically), `elapsed`
    /// being the build's whole time so far.
    pub fn save(
        &self,
        lock: &TargetLock,
        context: &str,
        elapsed: Duration,
    ) -> Result<(), BuildError> {
        let n = self.values.len() as u64;
        let parents = !self.counters.is_empty();
        let spec = Spec::new(CHECKPOINT_KIND, context, State::payload_len(n, parents));
        let mut w = lock.writer(spec, Existing::Replace)?;
        w.write_payload(&self.record(elapsed))?;
        let mut buf = Vec::with_capacity(IO_CHUNK);
        for chunk in self.values.chunks(IO_CHUNK) {
            buf.clear();
            buf.extend(chunk.iter().map(|v| v.load(Ordering::Relaxed)));
            w.write_payload(&buf)?;
        }
        for chunk in self.counters.chunks(IO_CHUNK / 2) {
            buf.clear();
            buf.extend(
                chunk
                    .iter()
                    .flat_map(|c| c.load(Ordering::Relaxed).to_le_bytes()),
            );
            w.write_payload(&buf)?;
        }
        w.finish()?;
        Ok(())
    }

    /// Reads the checkpoint at `path` of a build of `n` indices with `context` (mode
    /// included), refusing one of another kind, context or size, or a damaged one.
    pub fn load(path: &Path, context: &str, n: u64, parents: bool) -> Result<State, BuildError> {
        let file = StoreFile::open(path, CHECKPOINT_KIND, context)?;
        let expected = State::payload_len(n, parents);
        if file.payload_len() != expected {
            return Err(bad(
                path,
                RetroPayloadError::WrongLength {
                    len: file.payload_len(),
                    expected,
                },
            )
            .into());
        }
        let mut reader = file.reader();
        let mut record = [0u8; RECORD as usize];
        let read = |reader: &mut tabula_store::PayloadReader, buf: &mut [u8]| {
            reader
                .read_exact(buf)
                .map_err(|e| BuildError::Store(reader.store_error(e)))
        };
        read(&mut reader, &mut record)?;
        let field = |i: usize| {
            let mut x = [0u8; 8];
            x.copy_from_slice(&record[8 * i..8 * i + 8]);
            u64::from_le_bytes(x)
        };
        let refuse =
            |field| -> BuildError { bad(path, RetroPayloadError::BadRecord { field }).into() };
        if field(0) != FORMAT {
            return Err(refuse("format"));
        }
        if field(1) != n {
            return Err(refuse("size"));
        }
        if field(7) != parents as u64 {
            return Err(refuse("mode"));
        }
        let (level, next) = (field(3), field(4));
        if next > n {
            return Err(refuse("next index"));
        }
        let stage = match field(2) {
            0 => Stage::Holes { next },
            1 if parents => Stage::Children { next },
            2 if level <= MAX_PLIES as u64 => Stage::Level {
                level: level as u32,
                next,
            },
            _ => return Err(refuse("stage")),
        };
        if field(5) > n {
            return Err(refuse("decided"));
        }
        let mut state = State::new(n, parents)?;
        state.stage = stage;
        state.decided = field(5);
        state.elapsed_before = Duration::from_millis(field(6));
        let mut buf = vec![0u8; IO_CHUNK];
        for chunk in state.values.chunks(IO_CHUNK) {
            let buf = &mut buf[..chunk.len()];
            read(&mut reader, buf)?;
            for (v, &b) in chunk.iter().zip(buf.iter()) {
                v.store(b, Ordering::Relaxed);
            }
        }
        for chunk in state.counters.chunks(IO_CHUNK / 2) {
            let buf = &mut buf[..2 * chunk.len()];
            read(&mut reader, buf)?;
            for (c, b) in chunk.iter().zip(buf.chunks_exact(2)) {
                c.store(u16::from_le_bytes([b[0], b[1]]), Ordering::Relaxed);
            }
        }
        Ok(state)
    }
}
