//! The `.tnet` weights file and the weights shipped with Tabula.
//!
//! Layout (all integers and floats little-endian):
//!
//! | bytes | what |
//! | --- | --- |
//! | 8 | magic `TABULANN` |
//! | 4 | format version, [`VERSION`] |
//! | 4 | number of nets, 2 (contact, then race) |
//! | 2 × 12 | per net: inputs ([`INPUTS`], or an earlier count of [`LAYOUTS`]), hidden units, outputs ([`OUTPUTS`]) |
//! | 8 | self-play games trained |
//! | 8 | training RNG state (so that `--resume` continues the same games) |
//! | … | per net: `w1` (inputs × hidden, input-major), `b1`, `w2` (outputs × hidden), `b2`, f32 |
//! | 8 | FNV-1a 64 of every byte before it |

use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

use crate::inputs::{INPUTS, LAYOUTS};
use crate::net::{Evaluator, Net, MAX_HIDDEN, OUTPUTS};
use tabula_tablebase::format::{write_atomic, Fnv1a};

/// The magic bytes at the start of a weights file.
pub const MAGIC: &[u8; 8] = b"TABULANN";
/// The format version this build reads and writes.
pub const VERSION: u32 = 1;

const HEADER: usize = 8 + 4 + 4 + 2 * 12 + 8 + 8;

/// The weights shipped in `solver/data/backgammon.tnet`.
pub static BUILTIN: &[u8] = include_bytes!("../data/backgammon.tnet");

/// Two nets with the training state that produced them.
#[derive(Clone, Debug, PartialEq)]
pub struct NetFile {
    pub evaluator: Evaluator,
    /// Self-play games trained so far.
    pub games: u64,
    /// The training RNG state after those games.
    pub rng_state: u64,
}

/// Why bytes are not a weights file this build can use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightsError {
    /// Reading or writing the file failed.
    Io(String),
    /// Not a Tabula weights file.
    BadMagic,
    /// A format version this build does not know.
    Version(u32),
    /// The file ends early.
    Truncated { expected: usize, found: usize },
    /// Net shapes this build cannot use.
    Shape(String),
    /// The checksum does not match the contents.
    Checksum { stored: u64, computed: u64 },
    /// Bytes after the checksum.
    TrailingBytes(usize),
    /// A weight is NaN or infinite.
    NonFinite,
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::Io(e) => write!(f, "{e}"),
            WeightsError::BadMagic => f.write_str("not a Tabula weights file (bad magic)"),
            WeightsError::Version(v) => {
                write!(f, "weights format version {v} (this build reads {VERSION})")
            }
            WeightsError::Truncated { expected, found } => {
                write!(
                    f,
                    "truncated weights file: {found} bytes, expected {expected}"
                )
            }
            WeightsError::Shape(s) => write!(f, "unusable net shape: {s}"),
            WeightsError::Checksum { stored, computed } => write!(
                f,
                "weights checksum mismatch (stored {stored:016x}, computed {computed:016x}): \
                 the file is corrupt"
            ),
            WeightsError::TrailingBytes(n) => {
                write!(f, "{n} unexpected bytes after the weights checksum")
            }
            WeightsError::NonFinite => f.write_str("a weight is not a finite number"),
        }
    }
}

impl std::error::Error for WeightsError {}

/// FNV-1a, 64 bits, as the tablebase files use it.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut sum = Fnv1a::new();
    sum.update(bytes);
    sum.finish()
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_f32s(out: &mut Vec<u8>, v: &[f32]) {
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

fn net_floats(inputs: usize, hidden: usize) -> usize {
    inputs * hidden + hidden + OUTPUTS * hidden + OUTPUTS
}

impl NetFile {
    /// The file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let nets = [&self.evaluator.contact, &self.evaluator.race];
        let mut out = Vec::with_capacity(
            HEADER
                + 4 * nets
                    .iter()
                    .map(|n| net_floats(INPUTS, n.hidden))
                    .sum::<usize>()
                + 8,
        );
        out.extend_from_slice(MAGIC);
        put_u32(&mut out, VERSION);
        put_u32(&mut out, nets.len() as u32);
        for n in nets {
            put_u32(&mut out, INPUTS as u32);
            put_u32(&mut out, n.hidden as u32);
            put_u32(&mut out, OUTPUTS as u32);
        }
        out.extend_from_slice(&self.games.to_le_bytes());
        out.extend_from_slice(&self.rng_state.to_le_bytes());
        for n in nets {
            put_f32s(&mut out, &n.w1);
            put_f32s(&mut out, &n.b1);
            put_f32s(&mut out, &n.w2);
            put_f32s(&mut out, &n.b2);
        }
        let sum = fnv1a64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Parses a weights file, checking magic, version, shapes, length, checksum and values.
    pub fn decode(bytes: &[u8]) -> Result<NetFile, WeightsError> {
        let truncated = |expected: usize| WeightsError::Truncated {
            expected,
            found: bytes.len(),
        };
        if bytes.len() < 8 {
            return Err(if MAGIC.starts_with(bytes) {
                truncated(HEADER + 8)
            } else {
                WeightsError::BadMagic
            });
        }
        if &bytes[..8] != MAGIC {
            return Err(WeightsError::BadMagic);
        }
        if bytes.len() < HEADER {
            return Err(truncated(HEADER + 8));
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        let version = u32_at(8);
        if version != VERSION {
            return Err(WeightsError::Version(version));
        }
        if u32_at(12) != 2 {
            return Err(WeightsError::Shape(format!(
                "{} nets, expected 2 (contact and race)",
                u32_at(12)
            )));
        }
        let mut hidden = [0usize; 2];
        let mut inputs = [0usize; 2];
        for (k, h) in hidden.iter_mut().enumerate() {
            let o = 16 + 12 * k;
            let (i, n, out) = (u32_at(o), u32_at(o + 4), u32_at(o + 8));
            if !LAYOUTS.contains(&(i as usize)) || out as usize != OUTPUTS {
                return Err(WeightsError::Shape(format!(
                    "net {k} is {i}-{n}-{out}, this build needs {LAYOUTS:?} inputs and {OUTPUTS} outputs"
                )));
            }
            inputs[k] = i as usize;
            if n == 0 || n as usize > MAX_HIDDEN {
                return Err(WeightsError::Shape(format!(
                    "net {k} has {n} hidden units (1 to {MAX_HIDDEN})"
                )));
            }
            *h = n as usize;
        }
        let games = u64_at(40);
        let rng_state = u64_at(48);
        let total =
            HEADER + 4 * (net_floats(inputs[0], hidden[0]) + net_floats(inputs[1], hidden[1])) + 8;
        if bytes.len() < total {
            return Err(truncated(total));
        }
        let stored = u64_at(total - 8);
        let computed = fnv1a64(&bytes[..total - 8]);
        if stored != computed {
            return Err(WeightsError::Checksum { stored, computed });
        }
        if bytes.len() > total {
            return Err(WeightsError::TrailingBytes(bytes.len() - total));
        }
        let mut at = HEADER;
        let mut floats = |n: usize| -> Vec<f32> {
            let v = bytes[at..at + 4 * n]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            at += 4 * n;
            v
        };
        let mut nets = Vec::with_capacity(2);
        for (&i, &n) in inputs.iter().zip(&hidden) {
            let mut w1 = floats(i * n);
            // A net trained on an earlier layout: the units it lacks get zero weights, so it
            // evaluates exactly as before (and training can start from it).
            w1.resize(INPUTS * n, 0.0);
            let b1 = floats(n);
            let w2 = floats(OUTPUTS * n);
            let b2: [f32; OUTPUTS] = floats(OUTPUTS).try_into().unwrap();
            let finite = w1
                .iter()
                .chain(&b1)
                .chain(&w2)
                .chain(&b2)
                .all(|x| x.is_finite());
            if !finite {
                return Err(WeightsError::NonFinite);
            }
            nets.push(Net {
                hidden: n,
                w1,
                b1,
                w2,
                b2,
            });
        }
        let race = nets.pop().unwrap();
        let contact = nets.pop().unwrap();
        Ok(NetFile {
            evaluator: Evaluator {
                contact,
                race,
                bearoff: None,
            },
            games,
            rng_state,
        })
    }

    /// Reads and parses `path`.
    pub fn load(path: &Path) -> Result<NetFile, WeightsError> {
        let bytes = std::fs::read(path)
            .map_err(|e| WeightsError::Io(format!("cannot read {}: {e}", path.display())))?;
        NetFile::decode(&bytes)
    }

    /// Writes `path` atomically: `path.tmp` first, then a rename over `path`, so that an
    /// interrupted write never leaves a damaged file behind.
    pub fn save(&self, path: &Path) -> Result<(), WeightsError> {
        write_atomic(path, &[&self.encode()])
            .map_err(|e| WeightsError::Io(format!("cannot write {e}")))
    }
}

/// The shipped evaluator, parsed once.
pub fn builtin() -> Result<&'static Evaluator, WeightsError> {
    static CELL: OnceLock<Result<Evaluator, WeightsError>> = OnceLock::new();
    CELL.get_or_init(|| NetFile::decode(BUILTIN).map(|f| f.evaluator))
        .as_ref()
        .map_err(Clone::clone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn sample() -> NetFile {
        let mut rng = Rng::new(3);
        NetFile {
            evaluator: Evaluator::random(6, 3, &mut rng),
            games: 12345,
            rng_state: rng.state(),
        }
    }

    #[test]
    fn round_trip() {
        let f = sample();
        let bytes = f.encode();
        assert_eq!(NetFile::decode(&bytes), Ok(f.clone()));
        let dir = std::env::temp_dir().join(format!("tabula-tnet-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.tnet");
        f.save(&path).unwrap();
        assert_eq!(NetFile::load(&path), Ok(f));
        assert!(!dir.join("w.tnet.tmp").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn truncated_file_rejected() {
        let bytes = sample().encode();
        for len in [0, 5, 8, 30, HEADER, bytes.len() / 2, bytes.len() - 1] {
            let e = NetFile::decode(&bytes[..len]).unwrap_err();
            assert!(
                matches!(e, WeightsError::Truncated { .. }),
                "length {len}: {e:?}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            NetFile::decode(&longer),
            Err(WeightsError::TrailingBytes(1))
        );
    }

    #[test]
    fn flipped_byte_rejected() {
        let bytes = sample().encode();
        // Every byte of the payload and checksum, one bit at a time in a few positions.
        for at in (HEADER..bytes.len()).step_by(97).chain([bytes.len() - 1]) {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            let e = NetFile::decode(&bad).unwrap_err();
            assert!(
                matches!(e, WeightsError::Checksum { .. }),
                "byte {at}: {e:?}"
            );
        }
        let mut bad = bytes.clone();
        bad[0] ^= 1;
        assert_eq!(NetFile::decode(&bad), Err(WeightsError::BadMagic));
        let mut bad = bytes.clone();
        bad[8] = 9;
        assert_eq!(NetFile::decode(&bad), Err(WeightsError::Version(9)));
        let mut bad = bytes;
        bad[16] = 7; // inputs of the contact net
        assert!(matches!(NetFile::decode(&bad), Err(WeightsError::Shape(_))));
    }

    /// A file of each earlier input layout (the raw inputs only; without the blockade units)
    /// loads with zero weights on the units it lacks, so it evaluates as it did.
    #[test]
    fn earlier_layouts_load_with_zero_weights_on_later_inputs() {
        for &inputs in &LAYOUTS[..LAYOUTS.len() - 1] {
            let mut f = sample();
            let nets = [&mut f.evaluator.contact, &mut f.evaluator.race];
            let mut old = Vec::new();
            old.extend_from_slice(MAGIC);
            put_u32(&mut old, VERSION);
            put_u32(&mut old, 2);
            for n in &nets {
                for v in [inputs, n.hidden, OUTPUTS] {
                    put_u32(&mut old, v as u32);
                }
            }
            old.extend_from_slice(&f.games.to_le_bytes());
            old.extend_from_slice(&f.rng_state.to_le_bytes());
            for n in nets {
                n.w1[inputs * n.hidden..].fill(0.0);
                put_f32s(&mut old, &n.w1[..inputs * n.hidden]);
                put_f32s(&mut old, &n.b1);
                put_f32s(&mut old, &n.w2);
                put_f32s(&mut old, &n.b2);
            }
            let sum = fnv1a64(&old);
            old.extend_from_slice(&sum.to_le_bytes());
            assert_eq!(NetFile::decode(&old), Ok(f), "{inputs} inputs");
        }
    }

    #[test]
    fn builtin_weights_load() {
        let e = builtin().expect("the shipped weights parse");
        assert!(e.contact.hidden() > 0 && e.race.hidden() > 0);
    }
}
