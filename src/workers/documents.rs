//! How a worker reads documents.
//!
//! - [`Detached`]: while the worker holds the search state it reads none (it must not wait for
//!   the GIL then, see `crate::state`); a query that asks anyway is noticed and run again on
//!   the main thread.
//! - [`GilDocs`]: once the state is released, documents are read under the GIL in slices: the
//!   worker takes the GIL at its first read and gives it back after [`SLICE`] of reads, so the
//!   main thread never waits longer than a slice for it.

use std::cell::Cell;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use redis_module::{raw, Context};
use search::document::{DocumentSource, FieldValue, KeyType};

use crate::blocked::Blocked;
use crate::events::MAIN_TURNS;
use crate::indexing::{LastJson, RedisDocs};
use super::changes::Tracker;

/// The longest a worker holds the GIL at a time.
pub const SLICE: Duration = Duration::from_micros(250);
/// The longest a worker waits, after giving the GIL up, for the main thread to take it.
const HANDOVER: Duration = Duration::from_micros(30);

/// A document source that has no documents and remembers being asked for one.
pub struct Detached {
    asked: Cell<bool>,
    owner: Option<String>,
}

impl Detached {
    /// For a caller called `owner` who may read every key.
    pub fn new(owner: Option<String>) -> Detached {
        Detached { asked: Cell::new(false), owner }
    }

    /// True when the query asked for a document.
    pub fn asked(&self) -> bool {
        self.asked.get()
    }

    fn ask<T>(&self, none: T) -> T {
        self.asked.set(true);
        none
    }
}

impl DocumentSource for Detached {
    fn key_type(&self, _key: &[u8]) -> Option<KeyType> {
        self.ask(None)
    }

    fn values(&self, _key: &[u8], _source: &str) -> Result<Vec<FieldValue>, String> {
        self.ask(Ok(Vec::new()))
    }

    fn json_at(&self, _key: &[u8], _path: &str) -> Option<Vec<String>> {
        self.ask(None)
    }

    fn whole(&self, _key: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        self.ask(None)
    }

    fn caller(&self) -> Option<String> {
        self.owner.clone()
    }
}

/// Documents of one database read under the GIL in slices, through a thread-safe context
/// bound to a blocked client. The caller may read every key (checked at dispatch).
pub struct GilDocs<'t> {
    ts: *mut raw::RedisModuleCtx,
    db: i32,
    /// Since when this thread holds the GIL, if it does.
    held: Cell<Option<Instant>>,
    /// Reads refused because the thread held the search state (a bug if ever non-zero).
    refused: Cell<u64>,
    /// The JSON document read last in the current GIL slice.
    last: LastJson,
    /// The keys changed since the query was dispatched.
    changes: &'t Tracker,
    /// Reads come in rows ([`DocumentSource::row_unchanged`] starts each): the GIL is given
    /// back only between rows.
    rows: Cell<bool>,
}

/// Runs `f` with the documents of database `db`, read under the GIL in slices; the GIL is
/// given back before this returns.
pub fn with_documents<R>(blocked: &Blocked, db: i32, changes: &Tracker, f: impl FnOnce(&GilDocs) -> R) -> R {
    // SAFETY: the handle is a live blocked client; the context is freed below.
    let ts = unsafe { raw::RedisModule_GetThreadSafeContext.map_or(std::ptr::null_mut(), |g| g(blocked.raw())) };
    let docs = GilDocs {
        ts,
        db,
        held: Cell::new(None),
        refused: Cell::new(0),
        last: LastJson::default(),
        changes,
        rows: Cell::new(false),
    };
    let out = f(&docs);
    docs.release();
    if docs.refused.get() > 0 {
        log::warn("folio: a worker read a document while it held the search state; reads refused");
    }
    if !ts.is_null() {
        // SAFETY: `ts` came from GetThreadSafeContext and is freed once, without the GIL held.
        unsafe {
            if let Some(free) = raw::RedisModule_FreeThreadSafeContext {
                free(ts);
            }
        }
    }
    out
}

mod log {
    /// Logs through Redis without a context (a worker has none of its own).
    pub fn warn(text: &str) {
        redis_module::logging::log_warning(text);
    }
}

impl GilDocs<'_> {
    /// Takes the GIL unless this thread holds it; false when reading is not allowed now.
    fn enter(&self) -> bool {
        if self.ts.is_null() || crate::state::worker_holds_state() {
            self.refused.set(self.refused.get() + 1);
            return false;
        }
        if self.held.get().is_none() {
            // SAFETY: `ts` is a live thread-safe context; this thread does not hold the GIL.
            unsafe {
                if let Some(lock) = raw::RedisModule_ThreadSafeContextLock {
                    lock(self.ts);
                }
                if let Some(select) = raw::RedisModule_SelectDb {
                    select(self.ts, self.db);
                }
            }
            self.held.set(Some(Instant::now()));
        }
        true
    }

    /// Gives the GIL back once the slice is spent (between rows, when reads come in rows).
    fn leave(&self) {
        if !self.rows.get() && self.spent() {
            self.release();
        }
    }

    fn spent(&self) -> bool {
        self.held.get().is_some_and(|since| since.elapsed() >= SLICE)
    }

    fn release(&self) {
        if let Some(since) = self.held.take() {
            self.last.clear();
            super::TIMES.gil_us.fetch_add(since.elapsed().as_micros() as u64, Ordering::Relaxed);
            let turn = MAIN_TURNS.load(Ordering::Acquire);
            // SAFETY: this thread holds the GIL through `ts` (taken in `enter`).
            unsafe {
                if let Some(unlock) = raw::RedisModule_ThreadSafeContextUnlock {
                    unlock(self.ts);
                }
            }
            // A mutex gives no turns: taken again at once, the GIL would go back to this
            // thread before the main thread, woken by the unlock, could take it. Wait until
            // the main thread has had it (or, idle in its event loop, shows it does not want it).
            let since = Instant::now();
            while MAIN_TURNS.load(Ordering::Acquire) == turn && since.elapsed() < HANDOVER {
                std::hint::spin_loop();
            }
        }
    }

    fn read<T>(&self, none: T, f: impl FnOnce(&RedisDocs<'_>) -> T) -> T {
        if !self.enter() {
            return none;
        }
        let ctx = Context::new(self.ts);
        let out = f(&RedisDocs::remembering(&ctx, &self.last));
        self.leave();
        out
    }
}

impl DocumentSource for GilDocs<'_> {
    fn row_unchanged(&self, key: &[u8]) -> bool {
        self.rows.set(true);
        if self.spent() {
            self.release();
        }
        // Checked under the GIL, which the row's reads then share: no write can come between.
        self.enter() && self.changes.unchanged(key)
    }

    fn key_type(&self, key: &[u8]) -> Option<KeyType> {
        self.read(None, |d| d.key_type(key))
    }

    fn values(&self, key: &[u8], source: &str) -> Result<Vec<FieldValue>, String> {
        self.read(Ok(Vec::new()), |d| d.values(key, source))
    }

    fn json_at(&self, key: &[u8], path: &str) -> Option<Vec<String>> {
        self.read(None, |d| d.json_at(key, path))
    }

    fn hash_bytes(&self, key: &[u8], field: &str) -> Option<Vec<u8>> {
        self.read(None, |d| d.hash_bytes(key, field))
    }

    fn key_exists(&self, key: &[u8]) -> bool {
        self.read(false, |d| d.key_exists(key))
    }

    fn whole(&self, key: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        self.read(None, |d| d.whole(key))
    }
}

/// The main thread's documents for a worker query's reply: rows whose document changed since
/// the query read the index are left out.
pub struct Tracked<'c, 't> {
    pub docs: RedisDocs<'c>,
    pub changes: &'t Tracker,
}

impl DocumentSource for Tracked<'_, '_> {
    fn row_unchanged(&self, key: &[u8]) -> bool {
        self.changes.unchanged(key)
    }

    fn key_type(&self, key: &[u8]) -> Option<KeyType> {
        self.docs.key_type(key)
    }

    fn values(&self, key: &[u8], source: &str) -> Result<Vec<FieldValue>, String> {
        self.docs.values(key, source)
    }

    fn json_at(&self, key: &[u8], path: &str) -> Option<Vec<String>> {
        self.docs.json_at(key, path)
    }

    fn hash_bytes(&self, key: &[u8], field: &str) -> Option<Vec<u8>> {
        self.docs.hash_bytes(key, field)
    }

    fn key_exists(&self, key: &[u8]) -> bool {
        self.docs.key_exists(key)
    }

    fn whole(&self, key: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        self.docs.whole(key)
    }

    fn may_read(&self, key: &[u8]) -> bool {
        self.docs.may_read(key)
    }

    fn may_read_all(&self) -> bool {
        self.docs.may_read_all()
    }

    fn caller(&self) -> Option<String> {
        DocumentSource::caller(&self.docs)
    }
}
