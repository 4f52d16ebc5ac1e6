//! The command line's errors are [`tabula_api::Error`]s: a kind (which decides the exit code: 2
//! bad input, 1 I/O or internal failure, 130 interrupted) and a one-line message, printed as
//! `error: …` on stderr, or as `{"error": {"kind": …, "message": …}}` on stdout under `--json`.

pub use tabula_api::Error as CliError;

/// What every command returns.
pub type CliResult = Result<(), CliError>;

/// Exit code for every input error.
pub const EXIT_BAD_INPUT: i32 = 2;
