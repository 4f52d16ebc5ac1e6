//! The one-sided bearoff database the backgammon AI uses by default: loaded from a cache file,
//! or built (a few seconds) and cached there on first use.
//!
//! The cache lives in `$TABULA_CACHE_DIR`, else `$XDG_CACHE_HOME/tabula`, else
//! `$HOME/.cache/tabula`. Unlike a `--bearoff FILE` the user names, a cache file of this
//! database that does not load (damaged, truncated, an older format) is rebuilt and overwritten
//! rather than an error. A file there that is something else (not a Tabula file, a file of
//! another kind, another database such as a race database a user built there) is the user's:
//! it is left as it is, and the database is built in memory for the run.
//!
//! The one-sided race database (`race-os.tdb`, 216 MB and about 3 minutes to build) is never
//! built on first use: `tabula tablebase build race-os --install` puts it there, and from then
//! on the AI uses it by default ([`cached_race`]), as gnubg uses its larger one-sided database
//! when the file is present. A race database there that does not open is not used, with a
//! line on stderr saying why: it is the user's file, and never rebuilt or replaced unasked.

use std::fs;
use std::path::{Path, PathBuf};
use tabula_gammon::bearoff::RaceDb;
use tabula_store::ErrorKind;
use tabula_tablebase::bearoff::{OneSided, RaceTable};
use tabula_tablebase::StoreError;

/// The cache file's name, the default name of `tabula tablebase build bearoff-os`.
const FILE_NAME: &str = "bearoff-os.tdb";

/// The race database's name in the cache directory (`tablebase build race-os --install`).
const RACE_FILE_NAME: &str = "race-os.tdb";

/// The cache directory from the environment; `None` when no variable gives one.
fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("TABULA_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    // The XDG spec says to ignore a relative XDG_CACHE_HOME.
    if let Some(xdg) = var("XDG_CACHE_HOME").map(PathBuf::from) {
        if xdg.is_absolute() {
            return Some(xdg.join("tabula"));
        }
    }
    var("HOME").map(|home| PathBuf::from(home).join(".cache").join("tabula"))
}

/// The cached database, built and saved on first use or when the cache file does not load.
/// Problems are reported on stderr, one line each, and never fatal: the worst case is a
/// database built in memory for this run only.
pub(crate) fn cached() -> OneSided {
    let Some(path) = cache_dir().map(|dir| dir.join(FILE_NAME)) else {
        eprintln!(
            "bearoff database: no cache directory (set TABULA_CACHE_DIR or HOME); building it \
             in memory for this run"
        );
        return OneSided::build();
    };
    match OneSided::load(&path) {
        Ok(table) => return table,
        // Not there (or not reachable: then saving will say why).
        Err(e) if e.is_not_found() => {
            eprintln!(
                "bearoff database: building it once, into {} (about 2 s in a release build)",
                path.display()
            );
        }
        // The store error names the file already.
        Err(e) if is_damaged_cache(&e, &path) => eprintln!("bearoff database {e}; rebuilding it"),
        Err(e) => {
            eprintln!(
                "bearoff database {e}: not a cached bearoff database, so left as it is; building \
                 the database in memory for this run"
            );
            return OneSided::build();
        }
    }
    let table = OneSided::build();
    match save(&table, &path) {
        Ok(()) => {}
        // Another process is caching the same database: nothing to warn about.
        Err(e) if matches!(e.kind(), ErrorKind::Locked) => {}
        Err(e) => eprintln!("warning: bearoff database not cached ({e}); using it from memory"),
    }
    table
}

/// Where an installed race database is: what `tablebase build race-os --install` writes and
/// [`cached_race`] opens. `None` without a cache directory.
pub(crate) fn installed_race_path() -> Option<PathBuf> {
    cache_dir().map(|dir| dir.join(RACE_FILE_NAME))
}

/// The installed race database (`race-os.tdb` in the cache directory): `None` when there is
/// none, else the database opened (every block's checksum verified) on the first race that
/// could use it, so that an evaluation that meets no race never reads it (0.06 s and 30 MB of
/// a one-shot `hint`). One that does not open then (damaged, another kind of file, another
/// format) is not used, and one line on stderr says so: it is the user's file, so it is
/// neither trusted nor replaced.
pub(crate) fn cached_race() -> Option<RaceDb> {
    let path = installed_race_path()?;
    match fs::metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        // Anything else (a directory, no permission): the open says what.
        _ => {}
    }
    Some(RaceDb::deferred(move || match RaceTable::open(&path) {
        Ok(table) => Some(table),
        // The store error names the file already.
        Err(e) => {
            eprintln!(
                "race database {e}: not used (`tabula tablebase build race-os --install \
                 --replace` builds it again; --no-race-db silences this)"
            );
            None
        }
    }))
}

/// True when the cache file's error says it is a bearoff-os file of Tabula's that is damaged or
/// of an older format (or an empty file: nothing in it to lose), which a rebuild may replace.
fn is_damaged_cache(e: &StoreError, path: &Path) -> bool {
    match e.kind() {
        ErrorKind::Truncated { .. }
        | ErrorKind::TrailingBytes { .. }
        | ErrorKind::CorruptHeader { .. }
        | ErrorKind::Corrupt { .. }
        | ErrorKind::BadPayload { .. }
        | ErrorKind::UnsupportedVersion { .. } => true,
        ErrorKind::WrongContext { found, .. } => found.contains("db=bearoff-os;"),
        ErrorKind::BadMagic => fs::metadata(path).is_ok_and(|m| m.len() == 0),
        _ => false,
    }
}

/// Saves the database (a unique temporary name, then an atomic rename, under the file's lock:
/// when two processes build at once, the second one's save is refused and it keeps its copy in
/// memory).
fn save(table: &OneSided, path: &Path) -> Result<(), StoreError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
    table.save(path)
}
