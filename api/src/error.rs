//! Errors at Tabula's boundary: a kind, a one-line message and an optional source.
//!
//! Libraries keep their own typed errors (a position that does not parse, a damaged file); the
//! command line and the server turn each into an [`Error`] of the right [`ErrorKind`], which
//! decides the exit code (`2` bad input, `1` I/O or internal failure, `130` interrupted) and
//! the JSON form `{"error": {"kind": "bad_input", "message": "…"}}`.

use serde::Serialize;
use std::fmt;

/// What kind of failure an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The input was wrong: a position, move, option value or input file (damaged, foreign,
    /// missing). The user can fix it.
    BadInput,
    /// Reading or writing failed for a reason outside the input (disk full, permissions).
    Io,
    /// A failure of Tabula itself (a thread pool that could not start, an invariant broken).
    Internal,
    /// Stopped by Ctrl-C (or another outside stop) before it finished.
    Interrupted,
}

impl ErrorKind {
    /// The process exit code for this kind: 2, 1, 1, 130.
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::BadInput => 2,
            ErrorKind::Io | ErrorKind::Internal => 1,
            ErrorKind::Interrupted => 130,
        }
    }

    /// The kind's name as JSON writes it (`bad_input`, `io`, `internal`, `interrupted`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::BadInput => "bad_input",
            ErrorKind::Io => "io",
            ErrorKind::Internal => "internal",
            ErrorKind::Interrupted => "interrupted",
        }
    }
}

/// A failure as a user or a calling program sees it.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

/// The longest message [`Error::message`] gives whole; a longer one is cut there.
pub const MESSAGE_MAX: usize = 1000;

impl Error {
    /// An error of `kind` with `message` (folded onto one line when shown).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// Bad input: exit code 2.
    pub fn bad_input(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::BadInput, message)
    }

    /// An I/O failure: exit code 1.
    pub fn io(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Io, message)
    }

    /// A failure of Tabula itself: exit code 1.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Internal, message)
    }

    /// Stopped from outside: exit code 130.
    pub fn interrupted(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Interrupted, message)
    }

    /// The same error with `source` as its cause (kept for [`std::error::Error::source`]; the
    /// message should already say what it means for the user).
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Error {
        self.source = Some(Box::new(source));
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message on one line.
    pub fn message(&self) -> String {
        let line = self
            .message
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if line.len() <= MESSAGE_MAX {
            return line;
        }
        // A message quoting a huge input (a 2 MB line of a label file, a 100 KB argument)
        // keeps its start, which names the problem.
        let mut end = MESSAGE_MAX;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}… ({} bytes in all)", &line[..end], line.len())
    }

    /// The process exit code (see [`ErrorKind::exit_code`]).
    pub fn exit_code(&self) -> i32 {
        self.kind.exit_code()
    }

    /// `{"error": {"kind": …, "message": …}}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "error": { "kind": self.kind, "message": self.message() } })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::io(e.to_string()).with_source(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_map_to_exit_codes_and_json() {
        let e = Error::bad_input("bad\nposition");
        assert_eq!(e.exit_code(), 2);
        assert_eq!(e.to_string(), "bad position");
        assert_eq!(
            e.to_json().to_string(),
            r#"{"error":{"kind":"bad_input","message":"bad position"}}"#
        );
        assert_eq!(Error::io("disk").exit_code(), 1);
        assert_eq!(Error::internal("bug").exit_code(), 1);
        assert_eq!(Error::interrupted("stop").exit_code(), 130);
        assert_eq!(ErrorKind::Io.name(), "io");
    }

    #[test]
    fn io_errors_keep_their_source() {
        use std::error::Error as _;
        let e = Error::from(std::io::Error::new(std::io::ErrorKind::NotFound, "gone"));
        assert_eq!(e.kind(), ErrorKind::Io);
        assert!(e.source().is_some());
    }
}
