//! The one error type of the command line: a one-line message and exit code 2.

use std::fmt;

/// A user-facing failure: bad input (position, move, option, file) or a failed job.
#[derive(Debug)]
pub struct CliError(pub String);

impl CliError {
    pub fn new(msg: impl Into<String>) -> Self {
        CliError(msg.into())
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Keep it to one line whatever the source error printed.
        let one_line = self.0.lines().collect::<Vec<_>>().join(" ");
        f.write_str(&one_line)
    }
}

/// Exit code for every input error.
pub const EXIT_BAD_INPUT: i32 = 2;

pub type CliResult = Result<(), CliError>;
