//! Tabula's engine protocol: a long-running engine behind a line protocol of the UCI family.
//!
//! - **UGI mode** (first line `ugi`, see [`ugi`]): Bi-litaire and Pylos, modelled on UCI and
//!   the cutegames Universal Game Interface (UCI plus `query`). Searches run on a thread of
//!   their own so that `stop` and `isready` are answered while one runs; the transposition
//!   table stays warm between the `go`s of a game.
//! - **UBGI mode** (first line `ubgi`, see [`ubgi`]): backgammon, following the UBGI v0.1 draft
//!   (`docs/ubgi-v0.1-spec.md` of `bungogood/bgci`), answered by the gammon advisor.
//!
//! [`Session`] is the protocol as a state machine: [`Session::handle`] takes one line and
//! returns the lines to send; lines produced later by a background search (`info`,
//! `bestmove`) go to the session's [`Sink`]. [`serve`] runs a session over any reader and
//! writer (stdin/stdout, a socket) with a bounded line length; [`net::listen`] serves TCP
//! clients, one thread each, with a read timeout and a connection limit.
//!
//! Errors never end a session: each is one line `error <code> <message>` (the codes of
//! [`ErrorCode`], UBGI's), and the engine goes on.

pub mod net;
pub mod ubgi;
pub mod ugi;

use std::fmt;
use std::io::{self, BufRead, Write};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

/// The longest line accepted, in bytes (without its line end). Longer lines are refused with
/// one error and discarded as they are read, never stored.
pub const MAX_LINE: usize = 64 * 1024;

/// Where a session sends the lines a background search produces (one line, without its end).
pub type Sink = Arc<dyn Fn(String) + Send + Sync>;

/// The error codes of UBGI v0.1 (section 5), used in both modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// The command is not known (in this mode).
    UnknownCommand,
    /// The command is known but an argument is missing, malformed or out of range.
    BadArgument,
    /// The command needs state that was not given (a position, dice).
    MissingContext,
    /// Known to the protocol but not implemented by Tabula.
    UnsupportedFeature,
    /// Refused while a search runs (only `stop`, `isready`, `quit` and queries are served).
    SearchInProgress,
}

impl ErrorCode {
    /// The code as it is written on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::UnknownCommand => "unknown_command",
            ErrorCode::BadArgument => "bad_argument",
            ErrorCode::MissingContext => "missing_context",
            ErrorCode::UnsupportedFeature => "unsupported_feature",
            ErrorCode::SearchInProgress => "search_in_progress",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One protocol error: its code and a message in words (one line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError {
    pub code: ErrorCode,
    pub message: String,
}

impl ProtocolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ProtocolError {
        ProtocolError {
            code,
            message: message.into(),
        }
    }

    pub fn bad(message: impl Into<String>) -> ProtocolError {
        ProtocolError::new(ErrorCode::BadArgument, message)
    }

    /// The `error <code> <message>` line (line breaks in the message become spaces).
    pub fn line(&self) -> String {
        let message: String = self
            .message
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        format!("error {} {message}", self.code)
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ProtocolError {}

/// The result of one command: the lines to send, or one error.
pub type Reply = Result<Vec<String>, ProtocolError>;

/// What one session may use (the TCP server gives each connection less than stdin/stdout).
#[derive(Clone, Copy, Debug)]
pub struct SessionConfig {
    /// The largest `Hash` (MiB of transposition table) a client may set.
    pub max_hash_mib: u64,
    /// The most search threads a client may set.
    pub max_threads: usize,
    /// The backgammon evaluator of UBGI sessions. `None`: the built-in nets alone
    /// ([`tabula_gammon::weights::shipped`], with their cube nets), without the exact race
    /// endings; `tabula engine` gives them with the bearoff database, as `hint` and
    /// `play` use them.
    pub evaluator: Option<&'static tabula_gammon::Evaluator>,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            max_hash_mib: 65536,
            max_threads: 256,
            evaluator: None,
        }
    }
}

enum Mode {
    /// Before the first command: `ugi` or `ubgi` chooses.
    Undecided,
    Ugi(Box<ugi::Ugi>),
    Ubgi(Box<ubgi::Ubgi>),
}

/// One client's conversation with the engine. The first line chooses the protocol: `ugi`
/// (Bi-litaire, Pylos) or `ubgi` (backgammon). Dropping a session stops its search.
pub struct Session {
    mode: Mode,
    sink: Sink,
    config: SessionConfig,
    quit: bool,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = match self.mode {
            Mode::Undecided => "undecided",
            Mode::Ugi(_) => "ugi",
            Mode::Ubgi(_) => "ubgi",
        };
        f.debug_struct("Session")
            .field("mode", &mode)
            .field("config", &self.config)
            .field("quit", &self.quit)
            .finish()
    }
}

impl Session {
    /// A session whose background searches send their lines to `sink`.
    pub fn new(sink: Sink, config: SessionConfig) -> Session {
        Session {
            mode: Mode::Undecided,
            sink,
            config,
            quit: false,
        }
    }

    /// Handles one line (without its line end) and returns the lines to send now. Errors are
    /// `error <code> <message>` lines; the session goes on after them.
    pub fn handle(&mut self, line: &str) -> Vec<String> {
        let line = line.trim();
        if line.is_empty() || self.quit {
            return Vec::new();
        }
        let reply = match &mut self.mode {
            Mode::Undecided => self.choose(line),
            Mode::Ugi(s) => s.handle(line),
            Mode::Ubgi(s) => s.handle(line),
        };
        let quit = match &self.mode {
            Mode::Undecided => false,
            Mode::Ugi(s) => s.quit_requested(),
            Mode::Ubgi(s) => s.quit_requested(),
        };
        self.quit |= quit;
        reply.unwrap_or_else(|e| vec![e.line()])
    }

    fn choose(&mut self, line: &str) -> Reply {
        match line {
            "ugi" => {
                let mut s = ugi::Ugi::new(self.sink.clone(), self.config);
                let reply = s.handle(line);
                self.mode = Mode::Ugi(Box::new(s));
                reply
            }
            "ubgi" => {
                let mut s = match self.config.evaluator {
                    Some(eval) => ubgi::Ubgi::with_evaluator(eval),
                    None => ubgi::Ubgi::new(),
                };
                let reply = s.handle(line);
                self.mode = Mode::Ubgi(Box::new(s));
                reply
            }
            "quit" => {
                self.quit = true;
                Ok(Vec::new())
            }
            _ => Err(ProtocolError::new(
                ErrorCode::UnknownCommand,
                format!(
                    "expected `ugi` (Bi-litaire, Pylos) or `ubgi` (backgammon) first, not {:?}",
                    first_word(line)
                ),
            )),
        }
    }

    /// True once `quit` was received: the caller closes the conversation.
    pub fn is_quit(&self) -> bool {
        self.quit
    }

    /// True while a background search runs.
    pub fn searching(&mut self) -> bool {
        match &mut self.mode {
            Mode::Ugi(s) => s.searching(),
            _ => false,
        }
    }

    /// The end of input: waits for a running search to send its `bestmove`, after stopping it
    /// first if it was started by `go infinite`.
    pub fn finish(&mut self) {
        if let Mode::Ugi(s) = &mut self.mode {
            s.finish();
        }
    }

    /// Stops a running search (its `bestmove` is sent) and waits for it.
    pub fn stop(&mut self) {
        if let Mode::Ugi(s) = &mut self.mode {
            s.stop_search();
        }
    }
}

/// The first word of a line, shortened for messages.
pub(crate) fn first_word(line: &str) -> String {
    let word = line.split_whitespace().next().unwrap_or("");
    shorten(word)
}

/// At most 40 characters of `text` for an error message.
pub(crate) fn shorten(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(MAX).collect();
        s.push('…');
        s
    }
}

/// Interrupt flags for the solver's [`tabula_solver::Limits::interrupt`], which takes a
/// `&'static AtomicBool`. Each flag is leaked once (`Box::leak`) and recycled through a free
/// list when its session ends, so the memory leaked is bounded by the most sessions ever alive
/// at once (one byte each), not by the number of sessions served.
pub(crate) struct Flag(&'static AtomicBool);

static FREE_FLAGS: Mutex<Vec<&'static AtomicBool>> = Mutex::new(Vec::new());

impl Flag {
    pub(crate) fn take() -> Flag {
        let recycled = FREE_FLAGS.lock().ok().and_then(|mut free| free.pop());
        let flag = recycled.unwrap_or_else(|| Box::leak(Box::new(AtomicBool::new(false))));
        flag.store(false, std::sync::atomic::Ordering::SeqCst);
        Flag(flag)
    }

    pub(crate) fn get(&self) -> &'static AtomicBool {
        self.0
    }
}

impl Drop for Flag {
    fn drop(&mut self) {
        if let Ok(mut free) = FREE_FLAGS.lock() {
            free.push(self.0);
        }
    }
}

/// One line read by [`read_line`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A line, without its line end.
    Text(String),
    /// A line longer than the maximum: discarded (its length, at least, in bytes).
    TooLong(usize),
    /// A line that is not UTF-8: discarded.
    NotUtf8,
    /// The end of input.
    Eof,
}

/// Reads one line of at most `max` bytes. A longer line is consumed to its end without being
/// stored and answered [`Line::TooLong`]; a last line without a line end counts.
pub fn read_line(reader: &mut impl BufRead, max: usize) -> io::Result<Line> {
    let mut buf = Vec::new();
    let mut skipped = 0usize;
    let mut seen_any = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            if !seen_any {
                return Ok(Line::Eof);
            }
            break;
        }
        seen_any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        if skipped > 0 || buf.len() + part.len() > max {
            skipped += buf.len() + part.len();
            buf.clear();
        } else {
            buf.extend_from_slice(part);
        }
        let used = done.unwrap_or(chunk.len());
        reader.consume(used);
        if done.is_some() {
            break;
        }
    }
    if skipped > 0 {
        return Ok(Line::TooLong(skipped));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    match String::from_utf8(buf) {
        Ok(s) => Ok(Line::Text(s)),
        Err(_) => Ok(Line::NotUtf8),
    }
}

/// The error line for a line that was not read as a command.
pub fn refused_line(line: &Line) -> Option<String> {
    match line {
        Line::TooLong(n) => Some(
            ProtocolError::bad(format!(
                "line of {n}+ bytes refused (at most {MAX_LINE}); discarded"
            ))
            .line(),
        ),
        Line::NotUtf8 => Some(ProtocolError::bad("line is not UTF-8; discarded").line()),
        _ => None,
    }
}

/// A writer shared by a session's replies and its search thread; each line is written whole
/// and flushed. After a failed write (the client went away) `broken` is set and the session
/// ends.
struct Shared<W> {
    out: Mutex<W>,
    broken: AtomicBool,
}

impl<W: Write> Shared<W> {
    fn send(&self, line: &str) {
        use std::sync::atomic::Ordering;
        let Ok(mut out) = self.out.lock() else {
            self.broken.store(true, Ordering::SeqCst);
            return;
        };
        let ok = out
            .write_all(line.as_bytes())
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        if ok.is_err() {
            self.broken.store(true, Ordering::SeqCst);
        }
    }
}

/// Runs one session over `input` and `output` until `quit`, the end of input, or a failed
/// write. Lines over [`MAX_LINE`] bytes and lines that are not UTF-8 are answered with one
/// error each and discarded. At the end of input a bounded search is waited for (its
/// `bestmove` is sent) and an unbounded one stopped. A read error (e.g. a socket's read
/// timeout) ends the session after an error line; it is returned.
pub fn serve<R, W>(mut input: R, output: W, config: SessionConfig) -> io::Result<()>
where
    R: BufRead,
    W: Write + Send + 'static,
{
    use std::sync::atomic::Ordering;
    let shared = Arc::new(Shared {
        out: Mutex::new(output),
        broken: AtomicBool::new(false),
    });
    let sink_out = shared.clone();
    let sink: Sink = Arc::new(move |line: String| sink_out.send(&line));
    let mut session = Session::new(sink, config);
    let result = loop {
        if shared.broken.load(Ordering::SeqCst) {
            break Ok(());
        }
        let line = match read_line(&mut input, MAX_LINE) {
            Ok(l) => l,
            Err(e) => {
                let why = match e.kind() {
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                        "no command within the read timeout; closing".to_string()
                    }
                    _ => format!("read failed: {e}; closing"),
                };
                shared.send(&ProtocolError::bad(why).line());
                session.stop();
                break Err(e);
            }
        };
        match line {
            Line::Eof => {
                session.finish();
                break Ok(());
            }
            Line::Text(text) => {
                for reply in session.handle(&text) {
                    shared.send(&reply);
                }
                if session.is_quit() {
                    break Ok(());
                }
            }
            other => {
                if let Some(err) = refused_line(&other) {
                    shared.send(&err);
                }
            }
        }
    };
    drop(session);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut r = io::BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        loop {
            let l = read_line(&mut r, max).unwrap();
            if l == Line::Eof {
                return out;
            }
            out.push(l);
        }
    }

    #[test]
    fn long_lines_are_discarded_and_the_next_line_is_read() {
        let got = lines(b"isready\r\n0123456789abc\nquit", 8);
        assert_eq!(
            got,
            vec![
                Line::Text("isready".into()),
                Line::TooLong(13),
                Line::Text("quit".into())
            ]
        );
        assert_eq!(lines(b"\xff\xfe\nok\n", 8)[0], Line::NotUtf8);
        assert_eq!(lines(b"", 8), vec![]);
        assert!(refused_line(&Line::TooLong(9))
            .unwrap()
            .starts_with("error bad_argument line of 9+ bytes"));
    }

    #[test]
    fn the_first_line_chooses_the_protocol() {
        let sink: Sink = Arc::new(|_| {});
        let mut s = Session::new(sink, SessionConfig::default());
        let r = s.handle("uci");
        assert_eq!(r.len(), 1);
        assert!(r[0].starts_with("error unknown_command expected `ugi`"));
        assert!(s.handle("   ").is_empty());
        let r = s.handle("ubgi");
        assert_eq!(r.last().unwrap(), "ubgiok");
        // Once chosen, `ugi` is just an unknown command of UBGI.
        assert!(s.handle("ugi")[0].starts_with("error unknown_command"));
        assert!(s.handle("quit").is_empty());
        assert!(s.is_quit());
        assert!(s.handle("isready").is_empty(), "nothing after quit");
    }

    #[test]
    fn error_lines_are_one_line() {
        let e = ProtocolError::bad("two\nlines");
        assert_eq!(e.line(), "error bad_argument two lines");
    }

    #[test]
    fn serve_answers_each_line_and_survives_garbage() {
        let mut input = b"ubgi\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        input.extend(b"\n\xff\nisready\n");
        let out = Arc::new(Mutex::new(Vec::<u8>::new()));
        struct W(Arc<Mutex<Vec<u8>>>);
        impl Write for W {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        serve(&input[..], W(out.clone()), SessionConfig::default()).unwrap();
        let text = String::from_utf8(out.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let n = lines.len();
        assert!(lines[n - 3].starts_with("error bad_argument line of 65546+ bytes"));
        assert_eq!(
            lines[n - 2],
            "error bad_argument line is not UTF-8; discarded"
        );
        assert_eq!(lines[n - 1], "readyok");
    }
}
