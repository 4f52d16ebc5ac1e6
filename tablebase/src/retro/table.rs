//! Probing a table: [`Table`], lazily, by positional reads.

use std::io::Read;
use std::path::Path;

use tabula_engine::retro::Retrograde;
use tabula_store::{StoreError, StoreFile};

use super::solve::summarize_bytes;
use super::{
    bad, table_context, Longest, RetroPayloadError, Summary, Value, MAX_PLIES, TABLE_KIND,
};

/// Bytes of the summary record after the values.
pub(crate) const SUMMARY_LEN: u64 = 72;
/// The summary record's format.
const FORMAT: u64 = 1;
/// The table's checksum block: a first probe of a block reads and hashes 64 KiB (tens of
/// microseconds), and the header holds 8 bytes per block (190 KB for the 1.56 GB Pylos table).
pub(crate) const TABLE_BLOCK: u32 = 64 << 10;

/// The summary record of a table.
pub(crate) fn encode_summary(s: &Summary) -> [u8; SUMMARY_LEN as usize] {
    let longest = |l: Option<Longest>| l.map_or((u64::MAX, 0), |l| (l.plies as u64, l.index));
    let (wp, wi) = longest(s.longest_win);
    let (lp, li) = longest(s.longest_loss);
    let fields = [FORMAT, s.won, s.lost, s.drawn, s.holes, wp, wi, lp, li];
    let mut out = [0u8; SUMMARY_LEN as usize];
    for (i, f) in fields.iter().enumerate() {
        out[8 * i..8 * i + 8].copy_from_slice(&f.to_le_bytes());
    }
    out
}

/// The summary a record describes, checked against a table of `size` indices.
fn decode_summary(b: &[u8; SUMMARY_LEN as usize], size: u64) -> Result<Summary, RetroPayloadError> {
    let field = |i: usize| {
        let mut x = [0u8; 8];
        x.copy_from_slice(&b[8 * i..8 * i + 8]);
        u64::from_le_bytes(x)
    };
    let refuse = |field| RetroPayloadError::BadRecord { field };
    if field(0) != FORMAT {
        return Err(refuse("format"));
    }
    let (won, lost, drawn, holes) = (field(1), field(2), field(3), field(4));
    let total = [lost, drawn, holes]
        .iter()
        .try_fold(won, |a, &b| a.checked_add(b));
    if total != Some(size) {
        return Err(refuse("counts"));
    }
    let longest = |plies: u64, index: u64, count: u64, name| match plies {
        u64::MAX if count == 0 => Ok(None),
        p if count > 0 && p <= MAX_PLIES as u64 && index < size => Ok(Some(Longest {
            plies: p as u32,
            index,
        })),
        _ => Err(refuse(name)),
    };
    Ok(Summary {
        size,
        won,
        lost,
        drawn,
        holes,
        longest_win: longest(field(5), field(6), won, "longest win")?,
        longest_loss: longest(field(7), field(8), lost, "longest loss")?,
        build_time: None,
    })
}

/// An open table: its header, length and summary checked; values read on demand.
#[derive(Debug)]
pub struct Table {
    file: StoreFile,
    size: u64,
    summary: Summary,
}

impl Table {
    /// Opens the table of `game` at `path`: a [`tabula_store::Kind::RetroTable`] file made for
    /// [`table_context`]`(game)`, with a value for each of `game.size()` indices and an intact,
    /// consistent summary (whose example positions are read to check that they hold the
    /// longest distances). Reads a few blocks, not the whole file.
    pub fn open<G: Retrograde>(path: impl AsRef<Path>, game: &G) -> Result<Table, StoreError> {
        let path = path.as_ref();
        let file = StoreFile::open(path, TABLE_KIND, &table_context(game))?;
        let size = game.size();
        let expected = size.saturating_add(SUMMARY_LEN);
        if file.payload_len() != expected {
            return Err(bad(
                path,
                RetroPayloadError::WrongLength {
                    len: file.payload_len(),
                    expected,
                },
            ));
        }
        let mut record = [0u8; SUMMARY_LEN as usize];
        file.read_at(size, &mut record)?;
        let summary = decode_summary(&record, size).map_err(|why| bad(path, why))?;
        let table = Table {
            file,
            size,
            summary,
        };
        let s = &table.summary;
        for (longest, value, field) in [
            (s.longest_win, Value::Win as fn(u32) -> Value, "longest win"),
            (s.longest_loss, Value::Loss, "longest loss"),
        ] {
            if let Some(l) = longest {
                if table.value(l.index)? != value(l.plies) {
                    return Err(bad(path, RetroPayloadError::BadRecord { field }));
                }
            }
        }
        Ok(table)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The number of indices.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The summary stored in the file (without a build time).
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The value of `index`: one positional read (its block's checksum verified on the first
    /// read of the block). An index outside `0..size()` is a
    /// [`RetroPayloadError::IndexOutOfRange`].
    pub fn value(&self, index: u64) -> Result<Value, StoreError> {
        if index >= self.size {
            return Err(bad(
                self.path(),
                RetroPayloadError::IndexOutOfRange {
                    index,
                    size: self.size,
                },
            ));
        }
        let mut b = [0u8; 1];
        self.file.read_at(index, &mut b)?;
        Ok(Value::from_byte(b[0]))
    }

    /// The value of `pos` (through `game.rank`; `game` is the game the table was opened for).
    pub fn probe<G: Retrograde>(&self, game: &G, pos: &G::Position) -> Result<Value, StoreError> {
        self.value(game.rank(pos))
    }

    /// Reads the whole file once, verifying every block's checksum and that the values add up
    /// to the summary.
    pub fn verify(&self) -> Result<(), StoreError> {
        let mut counted = Summary {
            size: self.size,
            won: 0,
            lost: 0,
            drawn: 0,
            holes: 0,
            longest_win: None,
            longest_loss: None,
            build_time: None,
        };
        self.for_each_block(|start, values| summarize_bytes(start, values, &mut counted))?;
        if counted != self.summary {
            return Err(bad(self.path(), RetroPayloadError::SummaryMismatch));
        }
        Ok(())
    }

    /// Streams the values in index order, a MiB at a time (`f(first index, value bytes)`),
    /// verifying every block's checksum, and checks that nothing follows them.
    pub(crate) fn for_each_block(&self, mut f: impl FnMut(u64, &[u8])) -> Result<(), StoreError> {
        let mut reader = self.file.reader();
        let mut buf = vec![0u8; 1 << 20];
        let mut at = 0;
        while at < self.size {
            let len = (self.size - at).min(buf.len() as u64) as usize;
            reader
                .read_exact(&mut buf[..len])
                .map_err(|e| reader.store_error(e))?;
            f(at, &buf[..len]);
            at += len as u64;
        }
        let mut rest = Vec::new();
        reader
            .read_to_end(&mut rest)
            .map_err(|e| reader.store_error(e))?;
        Ok(())
    }
}
