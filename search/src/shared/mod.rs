//! State shared between one writer thread and query threads: a readers-writer lock over the
//! state, and a queue of changes that could not wait for it.
//!
//! The server's search state sits in one [`Shared`]: Redis's main thread (which holds Redis's
//! GIL) writes it, the query workers read it. The rules, which `make loom` checks under the
//! loom model checker (`search/tests/loom_shared.rs`):
//! - **A change never waits for a query.** [`Shared::change`] applies a change under an
//!   exclusive hold when the lock is free. When queries hold it, the change is read now
//!   (under a shared hold, which waits only for a drain in progress) and queued.
//! - **Changes apply whole, in the order they were made.** A change is applied under one
//!   exclusive hold. The queue is applied first-in first-out, and before a change that finds
//!   the lock free (which is queued behind the others while any remain).
//! - **A query sees every change made before it was dispatched.** [`Shared::worker_read`]
//!   first applies every change queued before it started. It does so in exclusive holds of at
//!   most [`DRAIN_SLICE`], so a writer waiting to queue the next change waits at most that long.
//! - **The writer's own reads see everything**: [`Shared::write`] applies the queue first;
//!   [`Shared::read_current`] reads only when nothing is queued; [`Shared::finish_read`] applies
//!   what it can without waiting for a query, for replies that tolerate changes still queued.
//!
//! The writer must never wait for a query to end, and a query must never wait for the writer
//! while it holds the state (the writer may be waiting for the state, which is the glue's rule
//! about Redis's GIL). Under those two rules no thread can wait for another in a cycle; the
//! model checks that too.

mod sync;

use sync::{AtomicU64, AtomicUsize, Mutex, RwLock};
pub use sync::{ReadGuard, WriteGuard};

use std::sync::atomic::Ordering;

/// State whose changes can be queued: [`Shared`] applies them in order.
pub trait Changes {
    /// One change, read while the state could not be written.
    type Change: Send;
    /// Applies a change read earlier.
    fn apply(&mut self, change: Self::Change);
}

/// The longest a drain by [`Shared::worker_read`], [`Shared::finish_read`] or
/// [`Shared::change`] holds the state exclusively (at least one batch of changes).
pub const DRAIN_SLICE: std::time::Duration = std::time::Duration::from_micros(500);

/// Changes applied between two looks at the clock. Under the model, one at a time, so that
/// every slice boundary is explored.
const BATCH: usize = if cfg!(loom) { 1 } else { 16 };

/// How a change reached the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangePath {
    /// Applied at once: nothing else held the state, and nothing was queued.
    Applied,
    /// Queued behind changes queued earlier (the state was free, the queue not empty).
    Queued,
    /// Queued beside the queries holding the state (read under a shared hold, which may have
    /// waited for a drain in progress).
    BesideQueries,
}

/// The state, its lock and its queue of changes.
pub struct Shared<S: Changes> {
    state: RwLock<S>,
    pending: Mutex<Vec<S::Change>>,
    /// `pending.len()`, readable without its lock.
    pending_len: AtomicUsize,
    /// Changes queued so far, and applied so far (both only grow).
    queued: AtomicU64,
    applied: AtomicU64,
}

/// When a drain must stop: after its first batch once the slice is over.
struct Slice {
    #[cfg(not(loom))]
    until: std::time::Instant,
}

impl Slice {
    fn start() -> Slice {
        Slice {
            #[cfg(not(loom))]
            until: std::time::Instant::now() + DRAIN_SLICE,
        }
    }

    /// Under the model a slice is one batch: the clock would make runs differ.
    fn over(&self) -> bool {
        #[cfg(not(loom))]
        return std::time::Instant::now() >= self.until;
        #[cfg(loom)]
        return true;
    }
}

impl<S: Changes> Shared<S> {
    /// Shares `state`.
    pub fn new(state: S) -> Shared<S> {
        Shared {
            state: RwLock::new(state),
            pending: Mutex::new(Vec::new()),
            pending_len: AtomicUsize::new(0),
            queued: AtomicU64::new(0),
            applied: AtomicU64::new(0),
        }
    }

    /// Changes queued and not yet applied.
    pub fn pending(&self) -> usize {
        self.pending_len.load(Ordering::Acquire)
    }

    /// Applies queued changes in order: all of them, or with a `slice`, those it has time for
    /// (at least one batch). The caller holds the state exclusively.
    fn drain(&self, state: &mut S, slice: Option<Slice>) {
        while self.pending_len.load(Ordering::Acquire) > 0 {
            let batch: Vec<S::Change> = {
                let mut q = sync::lock(&self.pending);
                let n = if slice.is_some() { q.len().min(BATCH) } else { q.len() };
                let batch = q.drain(..n).collect();
                self.pending_len.store(q.len(), Ordering::Release);
                batch
            };
            let n = batch.len() as u64;
            for change in batch {
                state.apply(change);
            }
            self.applied.fetch_add(n, Ordering::AcqRel);
            if slice.as_ref().is_some_and(Slice::over) {
                return;
            }
        }
    }

    fn queue(&self, change: S::Change) {
        let mut q = sync::lock(&self.pending);
        q.push(change);
        self.pending_len.store(q.len(), Ordering::Release);
        self.queued.fetch_add(1, Ordering::AcqRel);
    }

    /// The writer's exclusive hold, with every queued change applied. It waits for the queries
    /// reading the state now.
    pub fn write(&self) -> WriteGuard<'_, S> {
        let mut guard = sync::write(&self.state);
        self.drain(&mut guard, None);
        guard
    }

    /// Like [`Shared::write`], but only if no query holds the state now.
    pub fn try_write(&self) -> Option<WriteGuard<'_, S>> {
        let mut guard = sync::try_write(&self.state)?;
        self.drain(&mut guard, None);
        Some(guard)
    }

    /// A shared hold for the writer, beside the queries, when no change is queued (so the
    /// state is current). `None` when changes are queued: take [`Shared::write`] instead.
    pub fn read_current(&self) -> Option<ReadGuard<'_, S>> {
        if self.pending() > 0 {
            return None;
        }
        Some(sync::read_eager(&self.state))
    }

    /// A shared hold for the writer that may miss changes still queued (statistics).
    pub fn peek(&self) -> ReadGuard<'_, S> {
        sync::read_eager(&self.state)
    }

    /// A shared hold for the writer to finish a reply a query prepared. It applies the queued
    /// changes first when the state is free (for at most a slice); it never waits for a query,
    /// only for a drain in progress.
    pub fn finish_read(&self) -> ReadGuard<'_, S> {
        if self.pending() > 0 {
            if let Some(mut w) = sync::try_write(&self.state) {
                self.drain(&mut w, Some(Slice::start()));
                return sync::downgrade(&self.state, w);
            }
        }
        sync::read_eager(&self.state)
    }

    /// A query's shared hold, once every change queued before now is applied: a query sees
    /// every change made before it was dispatched. The changes are applied in exclusive holds
    /// of at most a slice each, since the writer may be waiting to queue another meanwhile.
    pub fn worker_read(&self) -> ReadGuard<'_, S> {
        let target = self.queued.load(Ordering::Acquire);
        loop {
            if self.applied.load(Ordering::Acquire) >= target {
                return sync::read_fair(&self.state);
            }
            let mut w = sync::write(&self.state);
            self.drain(&mut w, Some(Slice::start()));
            if self.applied.load(Ordering::Acquire) >= target {
                return sync::downgrade(&self.state, w);
            }
        }
    }

    /// The writer changes the state: with `apply` now if no query holds it and nothing is
    /// queued, else with the change `read` returns (from the state as it is), queued. `read`
    /// returns `None` when the change concerns nothing in the state.
    pub fn change(
        &self,
        apply: impl FnOnce(&mut S),
        read: impl FnOnce(&S) -> Option<S::Change>,
    ) -> ChangePath {
        if let Some(mut w) = sync::try_write(&self.state) {
            // Changes queued before this one come first; a long queue is applied a slice at a
            // time, this change then queued behind it.
            self.drain(&mut w, Some(Slice::start()));
            if self.pending() == 0 {
                apply(&mut w);
                return ChangePath::Applied;
            }
            if let Some(change) = read(&w) {
                self.queue(change);
            }
            return ChangePath::Queued;
        }
        let shared = sync::read_eager(&self.state);
        if let Some(change) = read(&shared) {
            self.queue(change);
        }
        ChangePath::BesideQueries
    }

    /// A shared hold if one can be had now without waiting (a fork child, whose lock may be
    /// held by a thread the fork did not copy).
    #[cfg(not(loom))]
    pub fn try_peek(&self) -> Option<ReadGuard<'_, S>> {
        self.state.try_read_recursive()
    }

    /// The state without its lock.
    ///
    /// # Safety
    /// No other thread may write the state while the reference lives (a fork child, which
    /// has one thread).
    #[cfg(not(loom))]
    pub unsafe fn unlocked(&self) -> &S {
        // SAFETY: as promised by the caller.
        unsafe { &*self.state.data_ptr() }
    }
}
