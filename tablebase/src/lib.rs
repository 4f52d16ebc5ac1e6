//! Tabula's endgame databases, built by retrograde analysis.
//!
//! - [`bearoff`]: backgammon bearoff databases in GNU Backgammon's conventions, one-sided
//!   ([`bearoff::OneSided`]: roll distributions for up to 15 checkers on 6 points) and
//!   two-sided ([`bearoff::TwoSided`]: cubeless winning chances for up to 6 checkers a side),
//!   and [`bearoff::FewCheckers`] (roll distributions for up to 4 checkers anywhere on 24
//!   points, in a race; built in memory in milliseconds), and [`bearoff::RaceTable`] (roll
//!   distributions for up to 15 checkers on a side's first 7 to 12 points, in a race).
//! - [`retro`]: retrograde tables of loopy games (win/loss/draw with the distance in plies for
//!   every index of a game's rank space), generic over
//!   [`Retrograde`](tabula_engine::retro::Retrograde): a parallel builder that shows progress,
//!   checkpoints, resumes and can be interrupted, and lazy probing by positional reads.
//!
//! Bearoff builds are parallel (rayon) and take seconds, so they have no interrupt/resume. Files are
//! [`tabula_store`] containers (kinds [`Kind::BearoffOneSided`] and
//! [`Kind::BearoffTwoSided`]), written atomically under a lock; loading checks the header
//! before the payload, every block's checksum and every value, and returns a [`StoreError`]
//! for a bad file.

pub mod bearoff;
pub mod pylos;
pub mod retro;

pub use tabula_store::{Existing, Kind, StoreError, TargetLock};

/// Why a bearoff database's payload was refused: the detail of a [`StoreError`] of kind
/// [`tabula_store::ErrorKind::BadPayload`] (downcast it to tell the causes apart).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum PayloadError {
    /// Larger than any database of its kind can be.
    TooLarge { len: u64, max: u64 },
    /// A two-sided payload of another length than the database's.
    WrongLength { len: usize, expected: u64 },
    /// A two-sided value outside [0, 1].
    NotAProbability { position: usize, value: f64 },
    /// A one-sided payload shorter than its index.
    TooShort { len: usize },
    /// A one-sided index entry that is empty or runs past the last roll.
    BadSpan { position: usize, start: u8, len: u8 },
    /// One-sided probabilities of another length than the index needs.
    DataLength { found: usize, needed: usize },
    /// A one-sided probability outside [0, 1].
    OutOfRange { position: usize },
    /// A one-sided distribution that does not sum to one.
    BadSum { position: usize, sum: f64 },
    /// A race database of a number of points no build makes, or not the one asked for.
    BadPoints { points: usize },
}

impl std::fmt::Display for PayloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PayloadError::TooLarge { len, max } => {
                write!(f, "a payload of {len} bytes, at most {max} possible")
            }
            PayloadError::WrongLength { len, expected } => {
                write!(f, "payload of {len} bytes, expected {expected}")
            }
            PayloadError::NotAProbability { position, value } => {
                write!(f, "position {position}: {value} is not a probability")
            }
            PayloadError::TooShort { len } => write!(f, "payload of {len} bytes"),
            PayloadError::BadSpan {
                position,
                start,
                len,
            } => write!(f, "position {position}: bad span {start}+{len}"),
            PayloadError::DataLength { found, needed } => write!(
                f,
                "{found} bytes of probabilities, the index needs {needed}"
            ),
            PayloadError::OutOfRange { position } => {
                write!(f, "position {position}: a probability out of [0, 1]")
            }
            PayloadError::BadSum { position, sum } => {
                write!(f, "position {position}: probabilities sum to {sum}")
            }
            PayloadError::BadPoints { points } => {
                write!(f, "a race database of {points} points")
            }
        }
    }
}

impl std::error::Error for PayloadError {}

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
            PayloadError::TooLarge {
                len: file.payload_len(),
                max,
            },
        ));
    }
    file.read_all()
}
