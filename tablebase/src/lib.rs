//! Tabula's endgame databases, built by retrograde analysis.
//!
//! - [`bearoff`]: backgammon bearoff databases in GNU Backgammon's conventions, one-sided
//!   ([`bearoff::OneSided`]: roll distributions for up to 15 checkers on 6 points) and
//!   two-sided ([`bearoff::TwoSided`]: cubeless winning chances for up to 6 checkers a side).
//!
//! Builds are parallel (rayon) and take seconds, so they have no interrupt/resume. Files are
//! [`tabula_store`] containers (kinds [`Kind::BearoffOneSided`] and
//! [`Kind::BearoffTwoSided`]), written atomically under a lock; loading checks the header
//! before the payload, every block's checksum and every value, and returns a [`StoreError`]
//! for a bad file.

pub mod bearoff;

pub use tabula_store::{Existing, Kind, StoreError, TargetLock};

/// Little-endian `f64`s from a byte slice whose length is a multiple of 8.
pub(crate) fn f64s(bytes: &[u8]) -> impl Iterator<Item = f64> + '_ {
    bytes.chunks_exact(8).map(|c| {
        let mut x = [0u8; 8];
        x.copy_from_slice(c);
        f64::from_le_bytes(x)
    })
}

/// Writes `payload` as a `kind` file under `lock`.
pub(crate) fn save_locked(
    lock: &TargetLock,
    kind: Kind,
    context: &str,
    payload: &[u8],
    existing: Existing,
) -> Result<(), StoreError> {
    let mut w = lock.writer(
        tabula_store::Spec::new(kind, context, payload.len() as u64),
        existing,
    )?;
    w.write_payload(payload)?;
    w.finish()
}

/// The payload of the `kind` file at `path`, if it is at most `max` bytes.
pub(crate) fn load(
    path: &std::path::Path,
    kind: Kind,
    context: &str,
    max: u64,
) -> Result<Vec<u8>, StoreError> {
    let file = tabula_store::StoreFile::open(path, kind, context)?;
    if file.payload_len() > max {
        return Err(StoreError::bad_payload(
            Some(path),
            format!(
                "a payload of {} bytes, at most {max} possible",
                file.payload_len()
            ),
        ));
    }
    file.read_all()
}
