//! The one-sided bearoff database the backgammon AI uses by default: loaded from a cache file,
//! or built (a few seconds) and cached there on first use.
//!
//! The cache lives in `$TABULA_CACHE_DIR`, else `$XDG_CACHE_HOME/tabula`, else
//! `$HOME/.cache/tabula`. Unlike a `--bearoff FILE` the user names, a cache file that does not
//! load (corrupt, truncated, an older format) is rebuilt and overwritten rather than an error.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use tabula_tablebase::bearoff::OneSided;

/// The cache file's name, the default name of `tabula tablebase build bearoff-os`.
const FILE_NAME: &str = "bearoff-os.tdb";

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
        Err(_) if !path.exists() => {
            eprintln!(
                "bearoff database: building it once, into {} (about 2 s in a release build)",
                path.display()
            );
        }
        Err(e) => eprintln!("bearoff database {}: {e}; rebuilding it", path.display()),
    }
    let table = OneSided::build();
    if let Err(e) = save(&table, &path) {
        eprintln!("warning: bearoff database not cached ({e}); using it from memory");
    }
    table
}

/// Saves under a name of this process's own, then renames over `path`: two processes that
/// build at once each rename a complete file, whichever comes last wins. (`OneSided::save`
/// alone writes through the fixed `<path>.tmp`, which they would share.)
fn save(table: &OneSided, path: &Path) -> Result<(), String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut name = OsString::from(FILE_NAME);
    name.push(format!(".{}", std::process::id()));
    let own = path.with_file_name(name);
    table.save(&own).map_err(|e| e.to_string())?;
    fs::rename(&own, path).map_err(|e| {
        let _ = fs::remove_file(&own);
        format!("{}: {e}", path.display())
    })
}
