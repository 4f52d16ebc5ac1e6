//! Net weights files (`.tnet`) and the weights shipped with Tabula.
//!
//! A weights file is a [`tabula_store`] container of kind [`Kind::NetWeights`] with context
//! [`CONTEXT`]. Payload (integers and floats little-endian):
//!
//! | bytes | what |
//! | --- | --- |
//! | 4 | number of nets `n`: 2 (contact, then race) or 3 (contact, race, then crashed) |
//! | n × 12 | per net: inputs ([`INPUTS`], or an earlier count of [`LAYOUTS`]), hidden units, outputs ([`OUTPUTS`]) |
//! | 8 | self-play games trained |
//! | 8 | training RNG state (so that `--resume` continues the same games) |
//! | 4 | 1 when the learning rate and trace decay follow, 2 when they do and the race net was frozen (`TrainOptions::freeze_race`), 0 when they are unknown |
//! | 4 | learning rate α (f32; 0 when unknown) |
//! | 4 | trace decay λ (f32; 0 when unknown) |
//! | … | per net: `w1` (inputs × hidden, input-major), `b1`, `w2` (outputs × hidden), `b2`, f32 |
//!
//! Weights with a crashed net of their own ([`Evaluator::crashed`]) are written with 3 nets;
//! weights without one with 2, byte for byte as before there were crashed nets, so that such
//! files still load in older builds (which refuse a 3-net file: "3 nets, expected 2"). A 2-net
//! file loads without a crashed net: the contact net evaluates crashed positions, as it did.
//!
//! Files of the first format (magic `TABULANN`, version 1: the same nets, games and RNG state
//! without α and λ, and one FNV-1a 64 checksum at the end) still load through a small legacy
//! reader; they are never written.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::OnceLock;

use crate::inputs::{INPUTS, LAYOUTS};
use crate::net::{Evaluator, Net, MAX_HIDDEN, OUTPUTS};
use crate::train::TrainOptions;
use tabula_store::{ErrorKind, Existing, Kind, Spec, StoreError, StoreFile, TargetLock};

/// The context string of a weights file.
pub const CONTEXT: &str = "game=backgammon;nets=contact,race";

/// The magic bytes of the first weights format (read, never written).
pub const LEGACY_MAGIC: &[u8; 8] = b"TABULANN";

/// Bytes of the payload before the floats, for `nets` nets.
const fn preamble(nets: usize) -> usize {
    4 + nets * 12 + 8 + 8 + 12
}
/// The shortest preamble (2 nets).
const PREAMBLE: usize = preamble(2);
/// Bytes of a first-format file before the floats.
const LEGACY_HEADER: usize = 8 + 4 + 4 + 2 * 12 + 8 + 8;

/// The weights shipped in `gammon/data/backgammon.tnet`: the nets that choose the plays.
pub static BUILTIN: &[u8] = include_bytes!("../data/backgammon.tnet");

/// The weights shipped in `gammon/data/cube.tnet`: the nets of cube decisions
/// ([`builtin_cube`]).
pub static BUILTIN_CUBE: &[u8] = include_bytes!("../data/cube.tnet");

/// The nets with the training state that produced them.
#[derive(Clone, Debug, PartialEq)]
pub struct NetFile {
    pub evaluator: Evaluator,
    /// Self-play games trained so far.
    pub games: u64,
    /// The training RNG state after those games.
    pub rng_state: u64,
    /// The learning parameters of that training, when known (not in first-format files).
    pub training: Option<TrainOptions>,
}

/// Why a file or bytes are not weights this build can use.
#[derive(Debug)]
pub enum WeightsError {
    /// The container: missing, not a regular file, damaged, truncated, of another kind, or an
    /// I/O failure.
    Store(StoreError),
    /// Not a weights file of either format.
    BadMagic,
    /// A first-format file of a version this build does not know.
    Version(u32),
    /// A first-format file that ends early.
    Truncated { expected: usize, found: usize },
    /// Net shapes this build cannot use, or a payload of the wrong length.
    Shape(ShapeError),
    /// A first-format file whose checksum does not match its contents.
    Checksum { stored: u64, computed: u64 },
    /// Bytes after a first-format file's checksum.
    TrailingBytes(usize),
    /// A weight is NaN or infinite.
    NonFinite,
}

/// Why a payload's nets or length do not fit this build: one variant per check, with the
/// numbers that failed it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ShapeError {
    /// Net `net` (0 contact, 1 race, 2 crashed) has inputs not in [`LAYOUTS`] or outputs not
    /// [`OUTPUTS`].
    Layout {
        net: usize,
        inputs: u32,
        hidden: u32,
        outputs: u32,
    },
    /// Net `net` has no hidden units or more than [`MAX_HIDDEN`].
    Hidden { net: usize, hidden: u32 },
    /// A payload shorter than its fixed preamble.
    ShortPayload { len: usize },
    /// Neither 2 nets (contact and race) nor 3 (and crashed).
    NetCount { found: u32 },
    /// Learning parameters out of range (alpha must be positive, lambda 0 to 1).
    Training { alpha: f32, lambda: f32 },
    /// The training-parameters flag is none of 0, 1 and 2.
    TrainingFlag { found: u32 },
    /// The weights are not as many bytes as the shapes need.
    WeightsLength { found: usize, expected: usize },
    /// A first-format file longer than any usable one.
    LegacyTooLong { len: u64, max: u64 },
    /// A pruning net ([`crate::prune`]) of another shape than this build's.
    PrunerShape { inputs: usize, hidden: usize },
    /// A weight that is not a finite number (its index among the floats).
    NotFinite { at: usize },
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::Layout {
                net,
                inputs,
                hidden,
                outputs,
            } => write!(
                f,
                "net {net} is {inputs}-{hidden}-{outputs}, this build needs {LAYOUTS:?} inputs \
                 and {OUTPUTS} outputs"
            ),
            ShapeError::Hidden { net, hidden } => {
                write!(f, "net {net} has {hidden} hidden units (1 to {MAX_HIDDEN})")
            }
            ShapeError::ShortPayload { len } => write!(f, "a payload of {len} bytes"),
            ShapeError::NetCount { found } => {
                write!(
                    f,
                    "{found} nets, expected 2 (contact and race) or 3 (and crashed)"
                )
            }
            ShapeError::Training { alpha, lambda } => write!(
                f,
                "alpha {alpha} and lambda {lambda} (alpha positive, lambda 0 to 1)"
            ),
            ShapeError::TrainingFlag { found } => write!(f, "training-parameters flag {found}"),
            ShapeError::WeightsLength { found, expected } => {
                write!(f, "{found} bytes of weights, the shapes need {expected}")
            }
            ShapeError::PrunerShape { inputs, hidden } => write!(
                f,
                "a pruning net of {inputs} inputs and {hidden} hidden units, this build needs \
                 {} and {}",
                crate::inputs::RAW_INPUTS,
                crate::prune::PRUNE_HIDDEN
            ),
            ShapeError::NotFinite { at } => write!(f, "weight {at} is not a finite number"),
            ShapeError::LegacyTooLong { len, max } => {
                write!(
                    f,
                    "a first-format file of {len} bytes, at most {max} possible"
                )
            }
        }
    }
}

impl std::error::Error for ShapeError {}

impl From<ShapeError> for WeightsError {
    fn from(e: ShapeError) -> WeightsError {
        WeightsError::Shape(e)
    }
}

impl WeightsError {
    /// True when the fault is the file (or the path given), not an operating-system failure.
    pub fn is_bad_input(&self) -> bool {
        match self {
            WeightsError::Store(e) => e.is_bad_input(),
            _ => true,
        }
    }
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::Store(e) => match e.kind() {
                ErrorKind::NotFound
                | ErrorKind::NotAFile
                | ErrorKind::BadName { .. }
                | ErrorKind::Io { .. } => {
                    write!(f, "cannot read {e}")
                }
                _ => write!(f, "{e}"),
            },
            WeightsError::BadMagic => f.write_str("not a Tabula weights file (bad magic)"),
            WeightsError::Version(v) => {
                write!(f, "weights format version {v} (this build reads 1)")
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

impl std::error::Error for WeightsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WeightsError::Store(e) => Some(e),
            WeightsError::Shape(e) => Some(e),
            _ => None,
        }
    }
}

impl From<StoreError> for WeightsError {
    fn from(e: StoreError) -> WeightsError {
        WeightsError::Store(e)
    }
}

/// 64-bit FNV-1a, the checksum of first-format files.
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
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

/// The largest first-format file: two nets of the most inputs and hidden units.
fn legacy_max_len() -> u64 {
    (LEGACY_HEADER + 8 * net_floats(INPUTS, MAX_HIDDEN) + 8) as u64
}

/// Reads the shapes of `n` nets at `bytes[0..12 n]`: inputs and hidden units of each.
fn shapes(bytes: &[u8], n: usize) -> Result<Vec<(usize, usize)>, WeightsError> {
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let mut out = vec![(0, 0); n];
    for (k, shape) in out.iter_mut().enumerate() {
        let o = 12 * k;
        let (i, n, outputs) = (u32_at(o), u32_at(o + 4), u32_at(o + 8));
        if !LAYOUTS.contains(&(i as usize)) || outputs as usize != OUTPUTS {
            return Err(ShapeError::Layout {
                net: k,
                inputs: i,
                hidden: n,
                outputs,
            }
            .into());
        }
        if n == 0 || n as usize > MAX_HIDDEN {
            return Err(ShapeError::Hidden { net: k, hidden: n }.into());
        }
        *shape = (i as usize, n as usize);
    }
    Ok(out)
}

/// The bytes of the floats of nets of `shapes`.
fn floats_len(shapes: &[(usize, usize)]) -> usize {
    4 * shapes.iter().map(|&(i, n)| net_floats(i, n)).sum::<usize>()
}

/// The nets from their floats (`bytes` exactly as long as [`floats_len`]): contact, race and,
/// of a third shape, crashed.
fn nets(bytes: &[u8], shapes: &[(usize, usize)]) -> Result<Evaluator, WeightsError> {
    let mut at = 0;
    let mut floats = |n: usize| -> Vec<f32> {
        let v = bytes[at..at + 4 * n]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        at += 4 * n;
        v
    };
    let mut nets = Vec::with_capacity(shapes.len());
    for &(i, n) in shapes {
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
            w1: w1.into(),
            b1,
            w2,
            b2,
        });
    }
    let crashed = if nets.len() == 3 { nets.pop() } else { None };
    let race = nets.pop().unwrap();
    let contact = nets.pop().unwrap();
    Ok(Evaluator {
        contact,
        crashed,
        race,
        bearoff: None,
        cube: None,
        cube_gammons: None,
        pruner: None,
    })
}

impl NetFile {
    /// The payload of the file (see the module documentation).
    pub fn payload(&self) -> Vec<u8> {
        let e = &self.evaluator;
        let nets: Vec<&Net> = [&e.contact, &e.race]
            .into_iter()
            .chain(e.crashed.as_ref())
            .collect();
        let mut out = Vec::with_capacity(
            preamble(nets.len())
                + 4 * nets
                    .iter()
                    .map(|n| net_floats(INPUTS, n.hidden))
                    .sum::<usize>(),
        );
        put_u32(&mut out, nets.len() as u32);
        for n in &nets {
            put_u32(&mut out, INPUTS as u32);
            put_u32(&mut out, n.hidden as u32);
            put_u32(&mut out, OUTPUTS as u32);
        }
        out.extend_from_slice(&self.games.to_le_bytes());
        out.extend_from_slice(&self.rng_state.to_le_bytes());
        let (known, alpha, lambda) = match self.training {
            Some(t) => (1 + t.freeze_race as u32, t.alpha, t.lambda),
            None => (0, 0.0, 0.0),
        };
        put_u32(&mut out, known);
        out.extend_from_slice(&alpha.to_le_bytes());
        out.extend_from_slice(&lambda.to_le_bytes());
        for n in nets {
            put_f32s(&mut out, &n.w1);
            put_f32s(&mut out, &n.b1);
            put_f32s(&mut out, &n.w2);
            put_f32s(&mut out, &n.b2);
        }
        out
    }

    /// The whole file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        tabula_store::encode(
            Kind::NetWeights,
            CONTEXT,
            &self.payload(),
            tabula_store::DEFAULT_BLOCK,
        )
    }

    /// Parses a payload, checking shapes, length and values.
    pub fn from_payload(p: &[u8]) -> Result<NetFile, WeightsError> {
        if p.len() < PREAMBLE {
            return Err(ShapeError::ShortPayload { len: p.len() }.into());
        }
        let u32_at = |o: usize| u32::from_le_bytes(p[o..o + 4].try_into().unwrap());
        let f32_at = |o: usize| f32::from_le_bytes(p[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(p[o..o + 8].try_into().unwrap());
        let n = match u32_at(0) {
            n @ (2 | 3) => n as usize,
            found => return Err(ShapeError::NetCount { found }.into()),
        };
        if p.len() < preamble(n) {
            return Err(ShapeError::ShortPayload { len: p.len() }.into());
        }
        let shapes = shapes(&p[4..4 + 12 * n], n)?;
        let at = 4 + 12 * n; // games, RNG state, training flag, α, λ
        let training = match u32_at(at + 16) {
            0 => None,
            flag @ (1 | 2) => {
                let t = TrainOptions {
                    alpha: f32_at(at + 20),
                    lambda: f32_at(at + 24),
                    freeze_race: flag == 2,
                };
                if !(t.alpha.is_finite() && t.alpha > 0.0 && (0.0..=1.0).contains(&t.lambda)) {
                    return Err(ShapeError::Training {
                        alpha: t.alpha,
                        lambda: t.lambda,
                    }
                    .into());
                }
                Some(t)
            }
            other => return Err(ShapeError::TrainingFlag { found: other }.into()),
        };
        let floats = &p[preamble(n)..];
        if floats.len() != floats_len(&shapes) {
            return Err(ShapeError::WeightsLength {
                found: floats.len(),
                expected: floats_len(&shapes),
            }
            .into());
        }
        Ok(NetFile {
            evaluator: nets(floats, &shapes)?,
            games: u64_at(at),
            rng_state: u64_at(at + 8),
            training,
        })
    }

    /// Parses a weights file's bytes, of either format.
    pub fn decode(bytes: &[u8]) -> Result<NetFile, WeightsError> {
        if bytes.starts_with(LEGACY_MAGIC) {
            return decode_legacy(bytes);
        }
        let payload =
            tabula_store::decode(bytes, Kind::NetWeights, CONTEXT).map_err(|e| match e.kind() {
                ErrorKind::BadMagic => WeightsError::BadMagic,
                _ => WeightsError::Store(e),
            })?;
        NetFile::from_payload(payload)
    }

    /// Reads and parses `path`: a regular file, its header checked before anything else is
    /// read (so a device or a huge foreign file is refused at once).
    pub fn load(path: &Path) -> Result<NetFile, WeightsError> {
        let store = |e| WeightsError::Store(StoreError::io(path, e));
        let mut file = File::open(path).map_err(store)?;
        let meta = file.metadata().map_err(store)?;
        if !meta.is_file() {
            return Err(StoreError::new(path, ErrorKind::NotAFile).into());
        }
        let mut magic = Vec::with_capacity(8);
        file.by_ref()
            .take(8)
            .read_to_end(&mut magic)
            .map_err(store)?;
        if magic == LEGACY_MAGIC {
            if meta.len() > legacy_max_len() {
                return Err(ShapeError::LegacyTooLong {
                    len: meta.len(),
                    max: legacy_max_len(),
                }
                .into());
            }
            let bytes = std::fs::read(path).map_err(store)?;
            return decode_legacy(&bytes);
        }
        let file = StoreFile::open(path, Kind::NetWeights, CONTEXT)?;
        NetFile::from_payload(&file.read_all()?)
    }

    /// Writes `path` atomically (a unique temporary file renamed over it), replacing it
    /// unless `existing` says not to; takes the file's lock for the write.
    pub fn save(&self, path: &Path, existing: Existing) -> Result<(), WeightsError> {
        self.save_locked(&TargetLock::acquire(path)?, existing)
    }

    /// Writes the target of `lock`, which the caller holds (e.g. for a whole training run).
    pub fn save_locked(&self, lock: &TargetLock, existing: Existing) -> Result<(), WeightsError> {
        let payload = self.payload();
        let mut w = lock.writer(
            Spec::new(Kind::NetWeights, CONTEXT, payload.len() as u64),
            existing,
        )?;
        w.write_payload(&payload)?;
        Ok(w.finish()?)
    }
}

/// Parses a first-format file: magic, version, shapes, length, checksum and values.
fn decode_legacy(bytes: &[u8]) -> Result<NetFile, WeightsError> {
    let truncated = |expected: usize| WeightsError::Truncated {
        expected,
        found: bytes.len(),
    };
    if bytes.len() < LEGACY_HEADER {
        return Err(truncated(LEGACY_HEADER + 8));
    }
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
    let version = u32_at(8);
    if version != 1 {
        return Err(WeightsError::Version(version));
    }
    if u32_at(12) != 2 {
        return Err(ShapeError::NetCount { found: u32_at(12) }.into());
    }
    let shapes = shapes(&bytes[16..40], 2)?;
    let total = LEGACY_HEADER + floats_len(&shapes) + 8;
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
    Ok(NetFile {
        evaluator: nets(&bytes[LEGACY_HEADER..total - 8], &shapes)?,
        games: u64_at(40),
        rng_state: u64_at(48),
        training: None,
    })
}

/// The shipped evaluator, parsed once, with the pruning net fitted to it
/// ([`crate::prune::BUILTIN`]).
pub fn builtin() -> Result<&'static Evaluator, &'static WeightsError> {
    static CELL: OnceLock<Result<Evaluator, WeightsError>> = OnceLock::new();
    CELL.get_or_init(|| {
        let nets = NetFile::decode(BUILTIN)?.evaluator;
        Ok(nets.with_pruner(crate::prune::Pruner::decode(crate::prune::BUILTIN)?))
    })
    .as_ref()
}

/// The shipped nets of cube decisions, parsed once: the contact and crashed nets of
/// [`builtin`] fitted further on Tabula's own rollouts of gammonish positions (its race net is
/// [`builtin`]'s). They judge doubles and takes better than the nets that play (docs/results.md,
/// "A cube evaluator of its own"), and they play worse, so they only decide the cube.
pub fn builtin_cube() -> Result<&'static Evaluator, &'static WeightsError> {
    static CELL: OnceLock<Result<Evaluator, WeightsError>> = OnceLock::new();
    CELL.get_or_init(|| NetFile::decode(BUILTIN_CUBE).map(|f| f.evaluator))
        .as_ref()
}

/// The gammon rate (won plus lost, by the play nets at 0 plies) from which the shipped cube
/// nets decide the cube ([`Evaluator::cube_gammons`]). They were fitted on rollouts of
/// positions drawn at this rate (`label --gammons 0.35`), and there they judge better than the
/// play nets; below it the play nets, fitted on eleven rounds of labels since, judge better.
/// Measured by gnubg 2-ply on 800 close take/pass decisions of eight sets (11.76 → 10.68
/// millipoints a decision), the threshold being the judge's own class of gammonish positions
/// (docs/results.md, "Which nets decide the cube").
pub const CUBE_GAMMONS: f32 = 0.35;

/// The evaluator Tabula plays with when no weights are given: [`builtin`]'s nets for the
/// plays, [`builtin_cube`]'s for the cube in gammonish positions and [`builtin`]'s for the
/// rest ([`Evaluator::with_cube`], [`CUBE_GAMMONS`]).
pub fn shipped() -> Result<&'static Evaluator, &'static WeightsError> {
    static CELL: OnceLock<Result<Evaluator, &'static WeightsError>> = OnceLock::new();
    CELL.get_or_init(|| {
        Ok(builtin()?
            .clone()
            .with_cube(builtin_cube()?.clone())
            .with_cube_gammons(CUBE_GAMMONS))
    })
    .as_ref()
    .map_err(|e| *e)
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
            training: Some(TrainOptions {
                alpha: 0.05,
                lambda: 0.6,
                freeze_race: false,
            }),
        }
    }

    /// A first-format file of `f` with nets of `inputs` inputs (the weights of later inputs
    /// left out).
    fn legacy_encode(f: &NetFile, inputs: usize) -> Vec<u8> {
        let nets = [&f.evaluator.contact, &f.evaluator.race];
        let mut old = Vec::new();
        old.extend_from_slice(LEGACY_MAGIC);
        put_u32(&mut old, 1);
        put_u32(&mut old, 2);
        for n in &nets {
            for v in [inputs, n.hidden, OUTPUTS] {
                put_u32(&mut old, v as u32);
            }
        }
        old.extend_from_slice(&f.games.to_le_bytes());
        old.extend_from_slice(&f.rng_state.to_le_bytes());
        for n in nets {
            put_f32s(&mut old, &n.w1[..inputs * n.hidden]);
            put_f32s(&mut old, &n.b1);
            put_f32s(&mut old, &n.w2);
            put_f32s(&mut old, &n.b2);
        }
        let sum = fnv1a64(&old);
        old.extend_from_slice(&sum.to_le_bytes());
        old
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("tabula-tnet-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    fn store_kind(r: Result<NetFile, WeightsError>) -> ErrorKind {
        match r {
            Err(WeightsError::Store(e)) => e.into_kind(),
            other => panic!("expected a container error, got {other:?}"),
        }
    }

    #[test]
    fn round_trip() {
        let f = sample();
        assert_eq!(NetFile::decode(&f.encode()).unwrap(), f);
        // A frozen race net is recorded too, and so is an unknown training.
        let mut frozen = f.clone();
        frozen.training.as_mut().unwrap().freeze_race = true;
        assert_eq!(NetFile::decode(&frozen.encode()).unwrap(), frozen);
        assert_ne!(frozen.encode(), f.encode());
        let untrained = NetFile {
            training: None,
            ..f.clone()
        };
        assert_eq!(NetFile::decode(&untrained.encode()).unwrap(), untrained);
        let path = scratch("w.tnet");
        let _ = std::fs::remove_file(&path);
        f.save(&path, Existing::Refuse).unwrap();
        assert_eq!(NetFile::load(&path).unwrap(), f);
        assert!(matches!(
            f.save(&path, Existing::Refuse),
            Err(WeightsError::Store(ref e)) if matches!(e.kind(), ErrorKind::Exists)
        ));
        f.save(&path, Existing::Replace).unwrap();
        std::fs::remove_file(&path).unwrap();
    }

    /// A crashed net of its own makes a 3-net file that loads back the same; weights without
    /// one are written with 2 nets, byte for byte as before there were crashed nets (the
    /// shipped file re-encodes to itself); other net counts are refused by name.
    #[test]
    fn crashed_nets_round_trip_and_two_net_files_are_unchanged() {
        let mut f = sample();
        f.evaluator.crashed = Some(Net::random(4, &mut Rng::new(8)));
        let bytes = f.encode();
        assert_eq!(NetFile::decode(&bytes).unwrap(), f);
        let payload = f.payload();
        assert_eq!(&payload[..4], &3u32.to_le_bytes());
        assert_eq!(
            payload.len(),
            sample().payload().len() + 12 + 4 * net_floats(INPUTS, 4)
        );
        let path = scratch("crashed.tnet");
        let _ = std::fs::remove_file(&path);
        f.save(&path, Existing::Refuse).unwrap();
        assert_eq!(NetFile::load(&path).unwrap(), f);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(NetFile::decode(BUILTIN).unwrap().encode(), BUILTIN);
        // Without a crashed net: 2 nets, the payload of the format before crashed nets (the
        // preamble of 2 shapes, the floats of contact then race), loading back without one.
        let mut two = NetFile::decode(BUILTIN).unwrap();
        two.evaluator.crashed = None;
        let p = two.payload();
        assert_eq!(&p[..4], &2u32.to_le_bytes());
        assert_eq!(&p[28..36], &two.games.to_le_bytes());
        let floats = |n: &Net| net_floats(INPUTS, n.hidden);
        assert_eq!(
            p.len(),
            PREAMBLE + 4 * (floats(&two.evaluator.contact) + floats(&two.evaluator.race))
        );
        assert_eq!(NetFile::decode(&two.encode()).unwrap(), two);
        for count in [1u32, 4] {
            let mut odd = payload.clone();
            odd[..4].copy_from_slice(&count.to_le_bytes());
            let odd = tabula_store::encode(Kind::NetWeights, CONTEXT, &odd, 512);
            let e = NetFile::decode(&odd).unwrap_err();
            assert!(
                matches!(e, WeightsError::Shape(ShapeError::NetCount { found }) if found == count),
                "{e:?}"
            );
        }
        // A 3-net count over a 2-net payload: the shapes' bytes do not add up.
        let mut odd = sample().payload();
        odd[..4].copy_from_slice(&3u32.to_le_bytes());
        let odd = tabula_store::encode(Kind::NetWeights, CONTEXT, &odd, 512);
        assert!(matches!(NetFile::decode(&odd), Err(WeightsError::Shape(_))));
    }

    #[test]
    fn damaged_files_rejected() {
        let bytes = sample().encode();
        for len in [0, 5, 8, 30, 100, bytes.len() / 2, bytes.len() - 1] {
            let k = store_kind(NetFile::decode(&bytes[..len]));
            assert!(
                matches!(k, ErrorKind::Truncated { .. }),
                "length {len}: {k:?}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            store_kind(NetFile::decode(&longer)),
            ErrorKind::TrailingBytes { .. }
        ));
        let header = bytes.len() - sample().payload().len();
        for at in (header..bytes.len()).step_by(97).chain([bytes.len() - 1]) {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            let k = store_kind(NetFile::decode(&bad));
            assert!(
                matches!(k, ErrorKind::Corrupt { block: 0 }),
                "byte {at}: {k:?}"
            );
        }
        let mut bad = bytes.clone();
        bad[0] ^= 1;
        assert!(matches!(NetFile::decode(&bad), Err(WeightsError::BadMagic)));
        // Another kind of Tabula file.
        let table = tabula_store::encode(Kind::SolverTable, CONTEXT, &[], 512);
        assert!(matches!(
            store_kind(NetFile::decode(&table)),
            ErrorKind::WrongKind { .. }
        ));
        // An intact container with an unusable shape.
        let mut payload = sample().payload();
        payload[4] = 7; // inputs of the contact net
        let odd = tabula_store::encode(Kind::NetWeights, CONTEXT, &payload, 512);
        assert!(matches!(
            NetFile::decode(&odd),
            Err(WeightsError::Shape(ShapeError::Layout { net: 0, inputs, hidden: 6, outputs: 5 }))
                if inputs == (INPUTS as u32 & !0xff) | 7
        ));
    }

    #[test]
    fn shape_errors_carry_the_numbers_that_did_not_fit() {
        let mut payload = sample().payload();
        payload[20..24].copy_from_slice(&0u32.to_le_bytes()); // hidden units of the race net
        let odd = tabula_store::encode(Kind::NetWeights, CONTEXT, &payload, 512);
        let e = NetFile::decode(&odd).unwrap_err();
        assert!(
            matches!(
                e,
                WeightsError::Shape(ShapeError::Hidden { net: 1, hidden: 0 })
            ),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "unusable net shape: net 1 has 0 hidden units (1 to 512)"
        );
        assert!(std::error::Error::source(&e).is_some());
        // One byte of weights too many.
        let mut payload = sample().payload();
        payload.push(0);
        let expected = payload.len() - 1 - PREAMBLE;
        let odd = tabula_store::encode(Kind::NetWeights, CONTEXT, &payload, 512);
        let e = NetFile::decode(&odd).unwrap_err();
        assert!(
            matches!(
                e,
                WeightsError::Shape(ShapeError::WeightsLength { found, expected: x })
                    if found == expected + 1 && x == expected
            ),
            "{e:?}"
        );
        assert_eq!(
            ShapeError::Training {
                alpha: -0.5,
                lambda: 2.0
            }
            .to_string(),
            "alpha -0.5 and lambda 2 (alpha positive, lambda 0 to 1)"
        );
    }

    #[test]
    fn devices_and_directories_are_refused_at_once() {
        #[cfg(unix)]
        assert!(matches!(
            NetFile::load(Path::new("/dev/zero")),
            Err(WeightsError::Store(ref e)) if matches!(e.kind(), ErrorKind::NotAFile)
        ));
        let dir = scratch("a-directory");
        std::fs::create_dir_all(&dir).unwrap();
        assert!(matches!(
            NetFile::load(&dir),
            Err(WeightsError::Store(ref e)) if matches!(e.kind(), ErrorKind::NotAFile)
        ));
    }

    /// First-format files of each input layout (the raw inputs only; without the blockade
    /// units; current) load with zero weights on the units they lack, so they evaluate as they
    /// did; damage to them is still caught.
    #[test]
    fn first_format_files_still_load() {
        for &inputs in &LAYOUTS {
            let mut f = sample();
            f.training = None;
            for n in [&mut f.evaluator.contact, &mut f.evaluator.race] {
                n.w1[inputs * n.hidden..].fill(0.0);
            }
            let old = legacy_encode(&f, inputs);
            assert_eq!(NetFile::decode(&old).unwrap(), f, "{inputs} inputs");
            let path = scratch("legacy.tnet");
            std::fs::write(&path, &old).unwrap();
            assert_eq!(NetFile::load(&path).unwrap(), f);
            let mut bad = old.clone();
            bad[LEGACY_HEADER + 3] ^= 1;
            assert!(matches!(
                NetFile::decode(&bad),
                Err(WeightsError::Checksum { .. })
            ));
            assert!(matches!(
                NetFile::decode(&old[..old.len() - 1]),
                Err(WeightsError::Truncated { .. })
            ));
            bad = old.clone();
            bad[8] = 9;
            assert!(matches!(
                NetFile::decode(&bad),
                Err(WeightsError::Version(9))
            ));
        }
    }

    #[test]
    fn builtin_weights_load() {
        let e = builtin().expect("the shipped weights parse");
        assert!(e.contact.hidden() > 0 && e.race.hidden() > 0);
    }

    /// FNV-1a 64 of a net's floats (`w1`, `b1`, `w2`, `b2`, little-endian), `w1` cut to
    /// the smallest of [`LAYOUTS`] beyond which every weight is zero (the padding a file of an
    /// earlier layout gets), so that a new layout does not change the hash of an old net.
    fn net_hash(net: &Net) -> u64 {
        let n = net.hidden;
        let inputs = *LAYOUTS
            .iter()
            .find(|&&i| net.w1[i * n..].iter().all(|&w| w == 0.0))
            .unwrap();
        let mut bytes = Vec::new();
        let w1 = &net.w1[..inputs * n];
        for v in w1.iter().chain(&net.b1).chain(&net.w2).chain(&net.b2) {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        fnv1a64(&bytes)
    }

    /// [`net_hash`] of the shipped nets.
    const CONTACT_HASH: u64 = 0xb4f4_da4b_cc25_bf05;
    const RACE_HASH: u64 = 0xfe76_51ad_8f21_2b0f;
    const CRASHED_HASH: u64 = 0xa24f_4c94_da60_ebcb;

    /// Where the shipped nets come from. The contact net: 3.7 M games of TD self-play on the
    /// 210-input layout (the first-format file of 103,784 bytes with FNV-1a 64
    /// `0xe54b302a5d8d6ceb`, converted float for float; its net hashed `0xb5a6_e1e8_5323_b3e1`),
    /// then 1.4 M more with the shape units (234 inputs): α 0.02 to 4.7 M games with the race
    /// net frozen, α 0.01 to 5.1 M with it training too, after which the race net below was put
    /// back (docs/results.md, "gnubg's kind of inputs"). The race net is that
    /// first file's race net fitted since on Tabula's own labels of race positions (`tabula
    /// backgammon label --races-only`, then `fit`; docs/results.md, "Training on Tabula's own
    /// labels"), then fitted again on the same labels with the race units (268 inputs;
    /// docs/results.md, "Race inputs"; hash `0xa0ae_ae0a_dca8_2225`, 40 units). Last it was
    /// split to 64 units and fitted on three runs of 2-ply sibling labels of race positions
    /// (`label --races-only --race-db race10.tdb`): `--siblings 4 --seed 101` over the
    /// shipped weights (840 chunks, 332,585 labels), `--siblings 6 --seed 102` over a 40-unit
    /// fit of the first (628 chunks, 306,515 labels) and `--siblings 6 --seed 103` over a
    /// 96-unit fit of the first two (516 chunks, 248,182 labels); the fit on the three from
    /// the 40-unit net: `fit --race-hidden 64 --rank 8 --alpha 0.03 --anneal --patience 8
    /// --epochs 150` (docs/results.md, "The race net on sibling labels"; hash
    /// `0x4f9e_b945_0e6d_d301`). Then a fourth run over it (`--siblings 6 --seed 104`, 526
    /// chunks, 260,178 labels, one thread) and the same fit on the four from it, 64 units kept
    /// (docs/results.md, "A fourth race round"; hash `0x1674_0dcd_fc67_1daf`). Last it was
    /// split to 160 units and fitted the same way on a fifth run made over it (`--seed 105`,
    /// 806 chunks, 390,140 labels, one thread), then from there on that run and a sixth made
    /// over the 160-unit net (`--seed 106 --weights`, 510 chunks, 249,293 labels;
    /// docs/results.md, "A wider race net"), then (hash `0x55fd_9ce4_2f71_561a` before) from
    /// there on those two and a seventh run made over it (`--seed 107`, 538 chunks, 263,148
    /// labels; docs/results.md, "A third round over the wider race net"). The crashed net is
    /// the contact net fitted on Tabula's
    /// own 2-ply labels of crashed positions, two rounds of them, each labelled over the
    /// crashed net fitted before it (`tabula backgammon label --crashed-only`, then `fit
    /// --crashed-net`; docs/results.md, "A crashed net"). The contact net was then fitted on
    /// Tabula's own 2-ply labels of contact positions (net hash `0xb10f_a5ff_6859_05e2`
    /// before): two label runs, the second over a net fitted on the first, and one fit on
    /// both from the weights before (`label --contact-only`, then `fit`; docs/results.md,
    /// "The contact net fitted on its own labels"). It was then replaced by a net of 160
    /// hidden units fitted on the same labels from the same start (net hash
    /// `0x7704_5981_10bd_c146` shipped between): each of the 80 units split in two (`fit
    /// --contact-hidden 160`, which splits) and a slower-falling step size (`--anneal
    /// --patience 8`, 300 epochs; `0x54d6_85cf_6b84_ceb8` with `--patience 4`, 150 epochs,
    /// shipped between). The crashed net (hash `0xf9b4_73dd_0186_5f0b` before) was then split
    /// to 160 units too and fitted the same way on a fresh run of crashed labels made over the
    /// weights with the 150-epoch contact net (docs/results.md, "A wider contact net").
    /// The crashed net (hash `0xa85a_a72e_8fde_55d5` before) was last fitted on Tabula's own
    /// rollouts of drawn late hits (`label --source late-hit --rollout-trials 144`), anchored
    /// by 2-ply labels of crashed positions from self-play, in two rounds, the second labelled
    /// over the first fit (`0x1172_c308_305c_790b`; docs/results.md, "A late-hit blind
    /// spot"). It (hash `0x207d_a90c_6621_1331` then) was fitted again the same way on
    /// Tabula's rollouts of drawn positions with 2 or 3 checkers back (`label --source
    /// back-checkers`), the late-hit rollouts kept among the labels, two rounds again
    /// (`0xd049_9e35_bfe3_ee26` between; docs/results.md, "Checkers back"). It (hash
    /// `0xec12_65d0_823c_2a2f` then) was last fitted on rollouts by 1-ply players (`label
    /// --rollout-plies 1 --rollout-trials 36`) of positions with checkers back against a
    /// side still in play (`--source back-in-play`) and of more back-checkers positions, the
    /// late-hit rollouts kept among the labels, one round (docs/results.md, "Checkers back
    /// against a side in play"). Last, the 160-unit contact net (hash `0xfcbd_3dc1_d581_b201`
    /// then) was fitted the same way on a third run of contact labels, made over the shipped
    /// weights of stop 40 (`label --contact-only --seed 43`, 354,689 labels; `fit --alpha 0.03
    /// --anneal --patience 8 --epochs 300`; docs/results.md, "The contact net on labels of its
    /// own 160-unit net"), and again (hash `0x536c_71b2_d807_589c` between) on a fourth run
    /// made over that net (`label --contact-only --seed 44`, 334,635 labels; the same fit;
    /// docs/results.md, "A fourth round of contact labels"). Last (hash
    /// `0xf509_e50d_d7b4_d2fb` before), it was fitted on a run of sibling labels made over those
    /// weights, each decision's results side by side (`label --contact-only --seed 46
    /// --siblings 3`, 556 chunks, 297,854 labels), with a loss on the differences between one
    /// decision's results (`fit --rank 8 --alpha 0.03 --anneal --patience 8 --epochs 150`;
    /// docs/results.md, "A loss on the differences between one roll's results"). Last (hash
    /// `0xdcd7_9cfb_788b_f913` before), it was fitted the same way on that run and a second
    /// sibling run made over it (`label --contact-only --seed 47 --siblings 3`, 612 chunks,
    /// 329,910 labels; docs/results.md, "A second sibling run"). Last (hash
    /// `0xec80_6d92_5a88_4800` before), it was fitted the same way on those runs and a third
    /// one made over it (`--seed 48`, 178,502 labels; `0x56d7_840d_3f63_0f7e` between), then
    /// from there on the four with a fourth run made over that net (`--seed 49`, 692 chunks,
    /// 368,722 labels; docs/results.md, "C8 decided, and a fourth sibling run"). Last (hash
    /// `0x205b_92da_7486_2a46` before), it was fitted the same way on the five runs, a fifth
    /// made over it (`--seed 50`, 696 chunks, 374,222 labels; docs/results.md, "A fifth
    /// sibling run"). The crashed net (hash `0xe490_658c_7bd3_c7bd` before) was then fitted
    /// the same way on a sibling run of crashed positions made over those weights (`label
    /// --crashed-only --siblings 3 --seed 61`, 312,633 labels; `0x76fa_8ccf_e1c6_de9a`
    /// after), then on it and a second run made over that net (`--seed 62`, 309,918 labels;
    /// `0x7a64_3381_dd94_34f1` after), then on both again from there, anchored (`--anchor`) by
    /// 2-ply labels of drawn late hits, checkers back and checkers back against a side in play
    /// made over the weights before this round, 30,000 of each (docs/results.md, "The crashed
    /// net on sibling labels"). Last, the contact net (hash `0xd1de_0146_ec82_b1b4` before) was
    /// fitted the same way on the five sibling runs, a sixth (`--seed 51`, 256 chunks, 138,450
    /// labels, made over the stop-53 weights) and a run of the leader's turns of holding games
    /// made over the weights before (`label --holding-lead 10 --siblings 3 --seed 70`, 2,452
    /// chunks, 184,453 labels), then from there on that run alone, anchored by the six
    /// (docs/results.md, "Holding games: the leader's turns as labels"). Last, the contact
    /// net (hash `0xce0c_4005_cb79_0da3` before) was fitted the same way on that holding run
    /// and a second one made over it (`--seed 71`, 1,688 chunks, 130,542 labels), anchored by
    /// the six; and the crashed net (hash `0x6b9d_b50a_147d_9756` before) was widened to 240
    /// units (`fit --crashed-hidden 240`, which splits) and fitted on a third sibling run of
    /// crashed positions made over the weights before (`label --crashed-only --siblings 3
    /// --seed 63`, 1,920 chunks, 213,628 labels), anchored by the first two runs and the
    /// drawn positions' labels (docs/results.md, "A second holding round, and a wider crashed
    /// net"). Last, the crashed net (hash `0x6e53_8147_bfde_bfff` before) was fitted the same
    /// way on a fourth crashed run made over the weights before (`--seed 64`, 1,616 chunks,
    /// 174,519 labels; `0x160c_d068_9064_5681` after), anchored by the three before it and the
    /// drawn positions' labels, then on a fifth run made over that net (`--seed 65`, 2,336
    /// chunks, 260,075 labels; `0x39f2_5d90_9fdc_188b` after), anchored by the four, then on
    /// a sixth made over that (`--seed 66`, 1,468 chunks, 157,699 labels;
    /// `0x1245_7f91_b19f_fa4a` after), anchored by the five (docs/results.md, "Three more
    /// crashed rounds"), then on a seventh made over that (`--seed 67`, 2,960 chunks, 329,039
    /// labels), anchored by the six (docs/results.md, "A seventh crashed round, and fresh
    /// sets").
    #[test]
    fn shipped_weights_provenance() {
        assert!(BUILTIN.starts_with(&tabula_store::MAGIC));
        let f = NetFile::decode(BUILTIN).unwrap();
        assert_eq!(f.games, 5_100_000);
        let (contact, race) = (net_hash(&f.evaluator.contact), net_hash(&f.evaluator.race));
        assert_eq!(contact, CONTACT_HASH, "{contact:#x}");
        assert_eq!(race, RACE_HASH, "{race:#x}");
        let crashed = f.evaluator.crashed.as_ref().expect("a crashed net");
        assert_eq!(net_hash(crashed), CRASHED_HASH, "{:#x}", net_hash(crashed));
    }

    /// [`net_hash`] of the shipped cube nets (their race net is [`RACE_HASH`]).
    const CUBE_CONTACT_HASH: u64 = 0x0060_6123_b437_1318;
    const CUBE_CRASHED_HASH: u64 = 0xa4cd_2cf5_4f60_b995;

    /// Where the shipped cube nets come from: the shipped contact and crashed nets above
    /// fitted on Tabula's own rollouts of gammonish positions (`tabula backgammon label
    /// --plies 1 --rollout-trials 36 --gammons 0.35 --seed 71`, 16,504 labels, its race
    /// labels left out), named 15 times, anchored by the 2-ply contact labels of the last two
    /// rounds above (`fit --anchor`), 30 epochs of `--alpha 0.01 --anneal --patience 4`
    /// (docs/results.md, "A cube evaluator of its own"). The race net was not trained: it is
    /// the play weights' own, put in by `cargo run --release -p tabula-gammon --example
    /// splice_race -- cube.tnet PLAY.tnet OUT.tnet` whenever that one changes. The
    /// crashed net (hash `0xf687_4be4_7706_1f4b` before) was then fitted as the play weights'
    /// last crashed net was, from itself: `fit --labels` on the two sibling runs of crashed
    /// positions, `--anchor` the 2-ply labels of drawn late hits and checkers back, `--rank 8
    /// --alpha 0.03 --anneal --patience 8 --epochs 150` (docs/results.md, "The cube's crashed
    /// net"). Last, the contact net (hash `0x89a1_3835_8dbf_68e0` before) was fitted from
    /// itself on fresh rollouts of gammonish contact positions, played to the end by the
    /// shipped play nets (`label --plies 1 --keep 0 --rollout-trials 36 --gammons 0.35
    /// --contact-only --seed 81`, 536 chunks, 10,093 labels), alone, 30 epochs of `--alpha
    /// 0.01 --anneal --patience 4` (docs/results.md, "The cube's contact net on fresh
    /// rollouts").
    #[test]
    fn shipped_cube_weights_provenance() {
        let f = NetFile::decode(BUILTIN_CUBE).unwrap();
        let e = &f.evaluator;
        let (contact, race) = (net_hash(&e.contact), net_hash(&e.race));
        assert_eq!(contact, CUBE_CONTACT_HASH, "{contact:#x}");
        assert_eq!(race, RACE_HASH, "{race:#x}");
        let crashed = net_hash(e.crashed.as_ref().expect("a crashed net"));
        assert_eq!(crashed, CUBE_CRASHED_HASH, "{crashed:#x}");
        // The evaluator Tabula plays with: the play nets, these for the cube in gammonish
        // positions (without a pruning net: the cube's searches value every play).
        let shipped = shipped().unwrap();
        assert_eq!(shipped.for_cube(), e);
        assert_eq!(shipped.cube_gammons, Some(CUBE_GAMMONS));
        assert_eq!(
            &Evaluator {
                cube: None,
                cube_gammons: None,
                ..shipped.clone()
            },
            builtin().unwrap()
        );
    }
}
