//! The protocol over TCP: one thread per connection, each a [`crate::serve`] session with a
//! read timeout, at most [`ServerConfig::max_connections`] at once (a client beyond that gets
//! one `error busy …` line and is closed).

use crate::{serve, SessionConfig};
use std::io::{self, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The limits of a TCP server.
#[derive(Clone, Copy, Debug)]
pub struct ServerConfig {
    /// Connections served at once.
    pub max_connections: usize,
    /// A connection that sends no line for this long is closed (after an error line).
    pub read_timeout: Duration,
    /// What each session may use.
    pub session: SessionConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_connections: 8,
            read_timeout: Duration::from_secs(300),
            session: SessionConfig {
                max_hash_mib: 1024,
                max_threads: 4,
                evaluator: None,
            },
        }
    }
}

/// Counts a connection for as long as it lives.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Serves every connection `listener` accepts, for ever (an accept error is reported on
/// stderr and the server goes on).
pub fn listen(listener: TcpListener, config: ServerConfig) -> io::Result<()> {
    let live = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(e) => {
                eprintln!("engine: accept failed: {e}");
                // Out of file descriptors and the like: do not spin.
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        if live.fetch_add(1, Ordering::SeqCst) >= config.max_connections {
            live.fetch_sub(1, Ordering::SeqCst);
            refuse(stream, config.max_connections);
            continue;
        }
        let slot = Slot(live.clone());
        let spawned = std::thread::Builder::new()
            .name("tabula-engine-conn".into())
            .spawn(move || {
                let _slot = slot;
                if let Err(e) = connection(stream, &config) {
                    if !matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) {
                        eprintln!("engine: connection ended: {e}");
                    }
                }
            });
        if let Err(e) = spawned {
            eprintln!("engine: cannot start a connection thread: {e}");
        }
    }
    Ok(())
}

fn refuse(mut stream: TcpStream, max: usize) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let _ = writeln!(
        stream,
        "error busy {max} connections already served; try again later"
    );
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

fn connection(stream: TcpStream, config: &ServerConfig) -> io::Result<()> {
    stream.set_read_timeout(Some(config.read_timeout))?;
    // A client that does not read its answers cannot hold the connection's thread for ever.
    stream.set_write_timeout(Some(config.read_timeout))?;
    stream.set_nodelay(true)?;
    let reader = BufReader::new(stream.try_clone()?);
    serve(reader, stream, config.session)
}
