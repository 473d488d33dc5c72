//! [`GilDocs`]: how a worker reads documents once it has let the search state go: under
//! Redis's GIL, in short holds, so the main thread never waits long for it.
//!
//! FT.AGGREGATE's rows come in the order the index stage found them, and every row asks for
//! the same fields, so the reads are done ahead, a batch of rows at a time: one GIL hold reads
//! the fields rows asked for so far of the next rows, for [`BATCH_HOLD`] (and checks, in the same hold,
//! that each document is the version the query matched), then the GIL goes back and the rows
//! are made and aggregated without it. A hold lasts about a batch's reads (a few hundred µs at
//! most, [`SLICE`] for reads outside batches); after each, the worker lets the main thread take
//! the GIL before it asks again.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use redis_module::{raw, Context};
use search::document::{DocumentSource, FieldValue, KeyType};

use super::changes::Tracker;
use crate::blocked::Blocked;
use crate::events::MAIN_TURNS;
use crate::indexing::{LastJson, RedisDocs};

/// The most rows whose fields one GIL hold reads.
pub const BATCH: usize = 4096;
/// A batch ends once its hold has lasted this long.
pub const BATCH_HOLD: Duration = Duration::from_micros(400);
/// The longest a worker holds the GIL for reads outside batches.
pub const SLICE: Duration = Duration::from_micros(250);
/// The longest a worker waits, after giving the GIL up, for the main thread to take it.
const HANDOVER: Duration = Duration::from_micros(30);

/// Workers waiting for the GIL now.
static WANTED: AtomicUsize = AtomicUsize::new(0);
/// Times a worker took the GIL.
static TAKEN: AtomicUsize = AtomicUsize::new(0);
/// The longest the main thread lends the GIL before it takes it back (the worker then holds it
/// for one batch, after which it gives it back).
const LEND: Duration = Duration::from_micros(100);

/// Called by the main thread right after its event loop woke up and took the GIL back: when a
/// worker waits for the GIL, lends it (releases it until that worker took it, at most [`LEND`]),
/// then takes it back once the worker is done. Without this a waiting worker seldom gets the
/// GIL while clients keep the main thread busy: the main thread releases it only while it
/// polls, and takes it back before a woken worker can. At this point of the loop the main
/// thread is between events, as while it polls, so lending it here is lending a poll.
pub(crate) fn lend_gil(ctx: *mut raw::RedisModuleCtx) {
    if WANTED.load(Ordering::Acquire) == 0 {
        return;
    }
    static LENDER: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    // SAFETY: ctx is the event's live context; the detached context lives as long as the module.
    let lender = *LENDER.get_or_init(|| unsafe {
        raw::RedisModule_GetDetachedThreadSafeContext.map_or(0, |g| g(ctx) as usize)
    }) as *mut raw::RedisModuleCtx;
    if lender.is_null() {
        return;
    }
    let taken = TAKEN.load(Ordering::Acquire);
    // SAFETY: the main thread holds the GIL here (after-sleep); it releases it and takes it
    // back before returning, so Redis finds it held as it left it.
    unsafe {
        let (Some(unlock), Some(lock)) =
            (raw::RedisModule_ThreadSafeContextUnlock, raw::RedisModule_ThreadSafeContextLock)
        else {
            return;
        };
        unlock(lender);
        spin_until(LEND, || TAKEN.load(Ordering::Acquire) != taken);
        lock(lender);
    }
}

/// Spins until `done` or for `at_most`, whichever comes first (the waits here are tens of
/// µs: shorter than a sleep's wake-up).
fn spin_until(at_most: Duration, done: impl Fn() -> bool) {
    let since = Instant::now();
    while !done() && since.elapsed() < at_most {
        for _ in 0..64 {
            std::hint::spin_loop();
        }
    }
}

/// One row read ahead: its key, whether its document is the version the query matched, and
/// the values of the fields asked for.
struct Ahead {
    key: Arc<[u8]>,
    unchanged: bool,
    /// Taken by the row's first ask for each.
    values: Vec<Option<Result<Vec<FieldValue>, String>>>,
}

/// Rows still to come and rows read ahead.
#[derive(Default)]
struct Rows {
    /// The rows' keys, in order.
    keys: Vec<Arc<[u8]>>,
    /// The first row not read ahead yet.
    next: usize,
    /// Rows started so far.
    started: usize,
    /// The field sources rows asked for, in the order first asked.
    sources: Vec<String>,
    ahead: VecDeque<Ahead>,
    /// The row being made.
    current: Option<Ahead>,
}

/// Documents of one database read under the GIL, through a thread-safe context bound to a
/// blocked client. The caller may read every key (checked at dispatch).
pub struct GilDocs<'t> {
    ts: *mut raw::RedisModuleCtx,
    db: i32,
    /// Since when this thread holds the GIL, if it does.
    held: Cell<Option<Instant>>,
    /// Reads refused because the thread held the search state (a bug if ever non-zero).
    refused: Cell<u64>,
    /// The JSON document read last in the current hold.
    last: LastJson,
    /// The keys changed since the query was dispatched.
    changes: &'t Tracker,
    rows: RefCell<Rows>,
}

/// Runs `f` with the documents of database `db` under the GIL, FT.AGGREGATE's rows (`rows`,
/// their keys in order) read ahead in batches; the GIL is given back before this returns.
pub fn with_documents<R>(
    blocked: &Blocked,
    db: i32,
    changes: &Tracker,
    rows: Vec<Arc<[u8]>>,
    f: impl FnOnce(&GilDocs) -> R,
) -> R {
    // SAFETY: the handle is a live blocked client; the context is freed below.
    let ts =
        unsafe { raw::RedisModule_GetThreadSafeContext.map_or(std::ptr::null_mut(), |g| g(blocked.raw())) };
    let docs = GilDocs {
        ts,
        db,
        held: Cell::new(None),
        refused: Cell::new(0),
        last: LastJson::default(),
        changes,
        rows: RefCell::new(Rows { keys: rows, ..Rows::default() }),
    };
    let out = f(&docs);
    docs.release();
    if docs.refused.get() > 0 {
        redis_module::logging::log_warning(
            "folio: a worker read a document while it held the search state; reads refused",
        );
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

impl GilDocs<'_> {
    /// Takes the GIL unless this thread holds it; false when reading is not allowed now.
    fn enter(&self) -> bool {
        if self.ts.is_null() || crate::state::worker_holds_state() {
            self.refused.set(self.refused.get() + 1);
            return false;
        }
        if self.held.get().is_none() {
            WANTED.fetch_add(1, Ordering::AcqRel);
            // SAFETY: `ts` is a live thread-safe context; this thread does not hold the GIL.
            unsafe {
                if let Some(lock) = raw::RedisModule_ThreadSafeContextLock {
                    lock(self.ts);
                }
                WANTED.fetch_sub(1, Ordering::AcqRel);
                TAKEN.fetch_add(1, Ordering::AcqRel);
                if let Some(select) = raw::RedisModule_SelectDb {
                    select(self.ts, self.db);
                }
            }
            self.held.set(Some(Instant::now()));
        }
        true
    }

    /// Gives the GIL back; with `handover`, then waits (briefly) for the main thread to take
    /// it: a mutex gives no turns, and taken again at once the GIL would go back to this thread
    /// before the main thread, woken by the unlock, could take it. (After a batch no wait is
    /// needed: the worker makes the batch's rows before it asks again.)
    fn release(&self) {
        self.release_with(true);
    }

    fn release_with(&self, handover: bool) {
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
            if handover {
                spin_until(HANDOVER, || MAIN_TURNS.load(Ordering::Acquire) != turn);
            }
        }
    }

    /// A read outside the batches, in a hold of at most [`SLICE`].
    fn read<T>(&self, none: T, f: impl FnOnce(&RedisDocs<'_>) -> T) -> T {
        if !self.enter() {
            return none;
        }
        let ctx = Context::new(self.ts);
        let out = f(&RedisDocs::remembering(&ctx, &self.last));
        if self.held.get().is_some_and(|since| since.elapsed() >= SLICE) {
            self.release();
        }
        out
    }

    /// Reads the next batch of rows ahead, in one hold.
    fn read_ahead(&self, rows: &mut Rows) {
        if !self.enter() {
            return;
        }
        let ctx = Context::new(self.ts);
        let docs = RedisDocs::remembering(&ctx, &self.last);
        let end = (rows.next + BATCH).min(rows.keys.len());
        let started = Instant::now();
        let mut at = rows.next;
        while at < end {
            let key = rows.keys[at].clone();
            let unchanged = self.changes.unchanged(&key);
            let values = if unchanged {
                rows.sources.iter().map(|s| Some(docs.values(&key, s))).collect()
            } else {
                Vec::new()
            };
            rows.ahead.push_back(Ahead { key, unchanged, values });
            at += 1;
            if at.is_multiple_of(32) && started.elapsed() >= BATCH_HOLD {
                break;
            }
        }
        rows.next = at;
        self.release_with(false);
    }
}

impl DocumentSource for GilDocs<'_> {
    fn expect_reads(&self, sources: &[String]) {
        let mut rows = self.rows.borrow_mut();
        for s in sources {
            if !rows.sources.contains(s) {
                rows.sources.push(s.clone());
            }
        }
    }

    /// The next row starts: its read-ahead values become current (reading the next batch
    /// first when none is left).
    fn row_unchanged(&self, key: &[u8]) -> bool {
        let mut rows = self.rows.borrow_mut();
        if rows.ahead.is_empty() && rows.next < rows.keys.len() {
            self.read_ahead(&mut rows);
        }
        rows.started += 1;
        match rows.ahead.pop_front() {
            Some(a) if &*a.key == key => {
                let unchanged = a.unchanged;
                rows.current = Some(a);
                unchanged
            }
            // Rows out of the expected order: read this one now.
            _ => {
                rows.current = None;
                rows.ahead.clear();
                rows.next = rows.keys.len();
                drop(rows);
                self.read(false, |_| self.changes.unchanged(key))
            }
        }
    }

    fn values(&self, key: &[u8], source: &str) -> Result<Vec<FieldValue>, String> {
        {
            let mut rows = self.rows.borrow_mut();
            let at = rows.sources.iter().position(|s| s == source);
            if let (Some(at), Some(cur)) = (at, rows.current.as_mut()) {
                if &*cur.key == key {
                    if let Some(v) = cur.values.get_mut(at).and_then(Option::take) {
                        return v;
                    }
                }
            }
            if at.is_none() && !rows.keys.is_empty() {
                // A field asked for the first time: the rows read ahead are read again with it.
                rows.sources.push(source.to_string());
                rows.next = rows.started;
                rows.ahead.clear();
            }
        }
        // Read now, in a hold of its own: a document changed since its row started reads as
        // absent rather than as another version.
        self.read(Ok(Vec::new()), |d| {
            if self.changes.unchanged(key) {
                d.values(key, source)
            } else {
                Ok(Vec::new())
            }
        })
    }

    fn key_type(&self, key: &[u8]) -> Option<KeyType> {
        self.read(None, |d| d.key_type(key))
    }

    fn json_at(&self, key: &[u8], path: &str) -> Option<Vec<String>> {
        self.read(None, |d| self.changes.unchanged(key).then(|| d.json_at(key, path)).flatten())
    }

    fn hash_bytes(&self, key: &[u8], field: &str) -> Option<Vec<u8>> {
        self.read(None, |d| d.hash_bytes(key, field))
    }

    fn key_exists(&self, key: &[u8]) -> bool {
        self.read(false, |d| d.key_exists(key))
    }

    fn whole(&self, key: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        self.read(None, |d| self.changes.unchanged(key).then(|| d.whole(key)).flatten())
    }
}
