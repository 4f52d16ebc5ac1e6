//! Transposition tables: the fixed-size, lock-free [`AtomicTable`] the search uses, and the
//! [`DashTable`] it was measured against (`benches/benches/solver.rs`).
//!
//! Keys are full `u128` position keys and a probe only hits on a full-key match, so a table can
//! never hand the search a value that belongs to another position.

use dashmap::DashMap;
use std::sync::atomic::{fence, AtomicU64, AtomicU8, Ordering};

/// What the search knows about a position: bounds on its value, how deep they were searched
/// ([`Entry::PROVEN`] for bounds proven without heuristic leaves), and a best-move hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub lower: i16,
    pub upper: i16,
    pub depth: u8,
    /// Index of the best move in the position's move list, or [`Entry::NO_MOVE`].
    pub best: u16,
    /// The symmetry under which the key was taken; the move hint is only valid for the same one.
    pub sym: u8,
    /// log2 of the nodes spent on this position: what replacement protects.
    pub work: u8,
}

impl Entry {
    /// The depth of bounds that hold whatever the depth asked for.
    pub const PROVEN: u8 = u8::MAX;
    pub const NO_MOVE: u16 = 0xfff;

    /// The entry in 64 bits. The bounds are stored as their two's-complement bit patterns
    /// (`cast_unsigned`, lossless); `best` (at most [`Entry::NO_MOVE`], 12 bits: the search
    /// stores no larger index), `sym` (below 8) and `work` (saturated at 31) are masked to
    /// their fields, as is the generation (it wraps by design).
    fn pack(self, generation: u8) -> u64 {
        debug_assert!(self.best <= Entry::NO_MOVE && self.sym < 8);
        u64::from(self.lower.cast_unsigned())
            | u64::from(self.upper.cast_unsigned()) << 16
            | u64::from(self.depth) << 32
            | u64::from(self.best & 0xfff) << 40
            | u64::from(self.sym & 7) << 52
            | u64::from(self.work.min(31)) << 55
            | u64::from(generation & 0xf) << 60
    }

    fn unpack(data: u64) -> (Entry, u8) {
        (
            Entry {
                // Truncations select the fields packed above.
                lower: (data as u16).cast_signed(),
                upper: ((data >> 16) as u16).cast_signed(),
                depth: (data >> 32) as u8,
                best: ((data >> 40) & 0xfff) as u16,
                sym: ((data >> 52) & 7) as u8,
                work: ((data >> 55) & 31) as u8,
            },
            (data >> 60) as u8,
        )
    }
}

/// A table the search can share between threads.
pub trait Table: Sync + Send {
    fn probe(&self, key: u128) -> Option<Entry>;
    /// Starts loading the memory a probe of `key` will read (a hint; no effect on results).
    fn prefetch(&self, key: u128) {
        let _ = key;
    }
    fn store(&self, key: u128, entry: Entry);
    /// Starts a new search: older entries become the first to be replaced.
    fn new_generation(&self) {}
    /// Entries in use, per mille of capacity (for progress reports).
    fn hashfull(&self) -> u32 {
        0
    }
    /// Forgets everything (between independent solves).
    fn clear(&mut self);
}

/// One entry under a sequence lock: odd `version` while a writer is inside.
#[derive(Debug, Default)]
struct Slot {
    version: AtomicU64,
    key_lo: AtomicU64,
    key_hi: AtomicU64,
    data: AtomicU64,
}

const SLOTS_PER_BUCKET: usize = 2;

/// Two slots in one 64-byte cache line.
#[derive(Debug, Default)]
#[repr(align(64))]
struct Bucket {
    slots: [Slot; SLOTS_PER_BUCKET],
}

/// Fixed-size, lock-free transposition table.
///
/// Each slot is a seqlock made of atomics: a reader takes the version, the fields and the
/// version again, and trusts the fields only if the version was even and unchanged — a torn
/// entry (a write racing the read) is never seen. A writer that finds the slot busy skips the
/// write: this is a cache. Replacement prefers the same key, then an empty slot, then the slot
/// with the least work from an older generation.
#[derive(Debug)]
pub struct AtomicTable {
    buckets: Vec<Bucket>,
    generation: AtomicU8,
}

impl AtomicTable {
    /// A table of about `megabytes` MiB (at least one bucket).
    pub fn with_megabytes(megabytes: usize) -> AtomicTable {
        let buckets = megabytes.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>();
        AtomicTable::with_buckets(buckets.max(1))
    }

    pub fn with_buckets(n: usize) -> AtomicTable {
        match AtomicTable::try_with_buckets(n, |_, _| {}) {
            Ok(table) => table,
            Err(e) => panic!("transposition table of {n} buckets: {e}"),
        }
    }

    /// A table of about `megabytes` MiB, or an error (instead of an abort) when the memory
    /// cannot be reserved. The memory is touched chunk by chunk, and `progress(done, total)`
    /// (bytes) is called after each chunk: a multi-GiB table takes seconds to zero.
    pub fn try_with_megabytes(
        megabytes: usize,
        progress: impl FnMut(usize, usize),
    ) -> Result<AtomicTable, std::collections::TryReserveError> {
        let buckets = megabytes.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>();
        AtomicTable::try_with_buckets(buckets.max(1), progress)
    }

    fn try_with_buckets(
        n: usize,
        mut progress: impl FnMut(usize, usize),
    ) -> Result<AtomicTable, std::collections::TryReserveError> {
        /// Buckets zeroed between two progress calls: 64 MiB.
        const CHUNK: usize = (64 << 20) / std::mem::size_of::<Bucket>();
        let n = n.max(1);
        let size = std::mem::size_of::<Bucket>();
        let mut buckets: Vec<Bucket> = Vec::new();
        buckets.try_reserve_exact(n)?;
        advise_huge_pages(buckets.as_ptr() as usize, n * size);
        while buckets.len() < n {
            let chunk = CHUNK.min(n - buckets.len());
            buckets.extend((0..chunk).map(|_| Bucket::default()));
            progress(buckets.len() * size, n * size);
        }
        Ok(AtomicTable {
            buckets,
            generation: AtomicU8::new(1),
        })
    }

    /// Every entry the table holds, as of reading it (a slot a writer is inside is skipped).
    pub fn entries(&self) -> impl Iterator<Item = (u128, Entry)> + '_ {
        self.buckets
            .iter()
            .flat_map(|b| b.slots.iter())
            .filter_map(|slot| match Self::read(slot) {
                Some((key, data)) if data != 0 => Some((key, Entry::unpack(data).0)),
                _ => None,
            })
    }

    /// Capacity in entries.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * SLOTS_PER_BUCKET
    }

    fn bucket(&self, key: u128) -> &Bucket {
        // Mix both halves, then map onto the bucket range by a multiply (no power of two needed).
        let mut h = (key as u64) ^ ((key >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^= h >> 29;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 32;
        let index = ((u128::from(h) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Reads a slot consistently: `None` while a writer is inside or if one came and went.
    fn read(slot: &Slot) -> Option<(u128, u64)> {
        let before = slot.version.load(Ordering::Acquire);
        if before & 1 == 1 {
            return None;
        }
        let lo = slot.key_lo.load(Ordering::Relaxed);
        let hi = slot.key_hi.load(Ordering::Relaxed);
        let data = slot.data.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        let after = slot.version.load(Ordering::Relaxed);
        (before == after).then_some((u128::from(lo) | u128::from(hi) << 64, data))
    }

    fn write(slot: &Slot, key: u128, data: u64) {
        let version = slot.version.load(Ordering::Relaxed);
        if version & 1 == 1
            || slot
                .version
                .compare_exchange(version, version + 1, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return; // another writer holds it: skip, the table is only a cache
        }
        fence(Ordering::Release);
        slot.key_lo.store(key as u64, Ordering::Relaxed);
        slot.key_hi.store((key >> 64) as u64, Ordering::Relaxed);
        slot.data.store(data, Ordering::Relaxed);
        slot.version.store(version + 2, Ordering::Release);
    }
}

/// Asks Linux to back `bytes` from `start` (memory this process allocated and has not touched
/// yet) with 2 MiB pages: probes land at random, and with 4 KiB pages nearly every one also
/// misses the TLB. A hint; where huge pages are off it changes nothing.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn advise_huge_pages(start: usize, bytes: usize) {
    const PAGE: usize = 4096;
    let first = start.next_multiple_of(PAGE);
    let len = (start + bytes).saturating_sub(first) / PAGE * PAGE;
    if len >= 2 << 20 {
        // SAFETY: madvise only changes how the kernel backs the pages of [first, first + len),
        // a page-aligned range inside one live allocation of ours; MADV_HUGEPAGE never changes
        // their contents, and a failure (e.g. huge pages disabled) leaves everything as it was.
        unsafe {
            libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: usize, _bytes: usize) {}

impl Table for AtomicTable {
    // One of the few `unsafe` blocks of the workspace (the lints deny it elsewhere).
    #[allow(unsafe_code)]
    fn prefetch(&self, key: u128) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let bucket: *const Bucket = self.bucket(key);
            // SAFETY: `_mm_prefetch` is unsafe only because it needs SSE, which every x86_64
            // CPU has (it is in the x86_64 baseline the compiler assumes anyway). A prefetch
            // reads nothing the program sees and cannot fault; the pointer is a live bucket.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    fn probe(&self, key: u128) -> Option<Entry> {
        self.bucket(key)
            .slots
            .iter()
            .find_map(|slot| match Self::read(slot) {
                Some((k, data)) if k == key && data != 0 => Some(Entry::unpack(data).0),
                _ => None,
            })
    }

    fn store(&self, key: u128, entry: Entry) {
        let generation = self.generation.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut victim_worth = u32::MAX;
        for (i, slot) in bucket.slots.iter().enumerate() {
            let Some((k, data)) = Self::read(slot) else {
                continue;
            };
            if data == 0 || k == key {
                victim = i;
                break;
            }
            let (old, old_generation) = Entry::unpack(data);
            let current = u32::from(old_generation == generation & 0xf);
            let worth = current << 16 | u32::from(old.depth) << 5 | u32::from(old.work);
            if worth < victim_worth {
                victim_worth = worth;
                victim = i;
            }
        }
        Self::write(&bucket.slots[victim], key, entry.pack(generation));
    }

    fn new_generation(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn clear(&mut self) {
        for slot in self.buckets.iter_mut().flat_map(|b| b.slots.iter_mut()) {
            *slot = Slot::default();
        }
    }

    fn hashfull(&self) -> u32 {
        let sample = self.buckets.len().min(500);
        let used: usize = self.buckets[..sample]
            .iter()
            .flat_map(|b| b.slots.iter())
            .filter(|s| s.data.load(Ordering::Relaxed) != 0)
            .count();
        (used * 1000 / (sample * SLOTS_PER_BUCKET)) as u32
    }
}

/// An unbounded concurrent map of entries: never evicts, so its memory grows with the search.
/// Kept as the measured alternative to [`AtomicTable`] and for stores that must never forget.
#[derive(Debug, Default)]
pub struct DashTable {
    map: DashMap<u128, u64>,
}

impl DashTable {
    pub fn new() -> DashTable {
        DashTable::default()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl Table for DashTable {
    fn probe(&self, key: u128) -> Option<Entry> {
        self.map.get(&key).map(|data| Entry::unpack(*data).0)
    }

    fn store(&self, key: u128, entry: Entry) {
        self.map.insert(key, entry.pack(0));
    }

    fn clear(&mut self) {
        self.map.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(lower: i16, upper: i16, work: u8) -> Entry {
        Entry {
            lower,
            upper,
            depth: Entry::PROVEN,
            best: 7,
            sym: 3,
            work,
        }
    }

    #[test]
    fn entries_pack_losslessly() {
        let e = Entry {
            lower: -300,
            upper: 1200,
            depth: 17,
            best: 4000,
            sym: 5,
            work: 31,
        };
        assert_eq!(Entry::unpack(e.pack(9)), (e, 9));
    }

    #[test]
    fn fallible_allocation_reports_progress_to_the_end() {
        let mut calls = Vec::new();
        let table = AtomicTable::try_with_megabytes(130, |done, total| calls.push((done, total)))
            .expect("130 MiB");
        let bytes = table.capacity() / SLOTS_PER_BUCKET * std::mem::size_of::<Bucket>();
        assert_eq!(calls.len(), 3, "{calls:?}");
        assert_eq!(calls.last(), Some(&(bytes, bytes)));
        // Far more than any machine has: an error, not an abort.
        assert!(AtomicTable::try_with_megabytes(usize::MAX >> 21, |_, _| {}).is_err());
    }

    #[test]
    fn probe_hits_only_the_full_key() {
        let table = AtomicTable::with_buckets(1);
        let key = 0x1234_5678_9abc_def0_u128 | 1 << 100;
        table.store(key, entry(3, 9, 1));
        assert_eq!(table.probe(key), Some(entry(3, 9, 1)));
        // Same low word, other high word: a different position, so a miss.
        assert_eq!(table.probe(key ^ 1 << 100), None);
    }

    #[test]
    fn replacement_keeps_the_most_work() {
        let table = AtomicTable::with_buckets(1);
        table.store(1, entry(0, 0, 20));
        table.store(2, entry(0, 0, 2));
        table.store(3, entry(0, 0, 5)); // evicts key 2, the cheapest
        assert!(table.probe(1).is_some());
        assert!(table.probe(2).is_none());
        assert!(table.probe(3).is_some());
    }

    #[test]
    fn concurrent_writers_never_produce_torn_entries() {
        let table = AtomicTable::with_buckets(4);
        std::thread::scope(|s| {
            for t in 0..2u8 {
                let table = &table;
                s.spawn(move || {
                    for i in 0..200_000u32 {
                        // Each key's entry is derived from the key: a torn read would break this.
                        let key = u128::from(i % 64) * 0x0101_0101_0101_0101_0101_0101_0101_0101;
                        let v = (i % 64) as i16;
                        if (i + u32::from(t)) % 2 == 0 {
                            table.store(key, entry(v, v + 1, (i % 31) as u8));
                        } else if let Some(e) = table.probe(key) {
                            assert_eq!((e.lower, e.upper), (v, v + 1));
                        }
                    }
                });
            }
        });
    }
}
