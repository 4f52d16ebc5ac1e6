//! Search slots: a permit of the server's semaphore (searches at once) and an interrupt flag
//! that stops the search when the request goes away.
//!
//! The solver's [`Limits::interrupt`](tabula_solver::Limits) is a `&'static AtomicBool`, so the
//! flags are a fixed static array, lent out one per running search and returned when both the
//! request and its search are done with it: a late "stop" can never reach another search.

use crate::error::ApiError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The most searches at once, over every server of the process.
pub const MAX_SEARCHES: usize = 256;

static FLAGS: [AtomicBool; MAX_SEARCHES] = [const { AtomicBool::new(false) }; MAX_SEARCHES];

fn free_list() -> &'static Mutex<Vec<usize>> {
    static FREE: OnceLock<Mutex<Vec<usize>>> = OnceLock::new();
    FREE.get_or_init(|| Mutex::new((0..MAX_SEARCHES).rev().collect()))
}

/// One running search's permit and interrupt flag.
#[derive(Debug)]
pub(crate) struct Slot {
    index: usize,
    _permit: OwnedSemaphorePermit,
}

impl Slot {
    /// A slot, or 503 with `Retry-After` when `searches` has no permit left.
    pub(crate) fn acquire(
        searches: &Arc<Semaphore>,
        max: usize,
        retry_after_s: u64,
    ) -> Result<Arc<Slot>, ApiError> {
        let permit = searches
            .clone()
            .try_acquire_owned()
            .map_err(|_| ApiError::busy(max, retry_after_s))?;
        let index = free_list()
            .lock()
            .map_err(|_| ApiError::internal("the search slots are poisoned"))?
            .pop()
            .ok_or_else(|| ApiError::busy(MAX_SEARCHES, retry_after_s))?;
        FLAGS[index].store(false, Ordering::SeqCst);
        Ok(Arc::new(Slot {
            index,
            _permit: permit,
        }))
    }

    /// The flag that stops this slot's search.
    pub(crate) fn flag(&self) -> &'static AtomicBool {
        &FLAGS[self.index]
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Ok(mut free) = free_list().lock() {
            free.push(self.index);
        }
    }
}

/// Held by the request: dropping it (the request finished, or its client went away and the
/// handler was dropped) stops the search.
#[derive(Debug)]
pub(crate) struct StopOnDrop(pub(crate) Arc<Slot>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.flag().store(true, Ordering::SeqCst);
    }
}

/// Runs the blocking `search` on tokio's blocking pool in a slot of its own: 503 when none is
/// free; the search is stopped (its interrupt flag set) if this future is dropped.
pub(crate) async fn run_search<T, F>(state: &crate::AppState, search: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&'static AtomicBool) -> Result<T, ApiError> + Send + 'static,
{
    let retry = state.config.max_time_ms.div_ceil(1000).max(1);
    let slot = Slot::acquire(&state.searches, state.config.max_searches, retry)?;
    let guard = StopOnDrop(slot.clone());
    let handle = tokio::task::spawn_blocking(move || {
        let slot = slot;
        search(slot.flag())
    });
    let result = handle.await;
    drop(guard);
    match result {
        Ok(r) => r,
        Err(e) if e.is_panic() => Err(ApiError::internal("the search failed (a panic)")),
        Err(_) => Err(ApiError::internal("the search was cancelled")),
    }
}
