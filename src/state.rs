//! The search state (the configuration and one [`search::Catalog`] per database) and the rules
//! by which Redis's main thread and the query workers (`crate::workers`) share it.
//!
//! # The invariant
//! The state sits in one [`search::shared::Shared`]: a readers-writer lock with a queue of key
//! changes, whose rules (a write never waits for a query; changes apply whole and in order; a
//! query sees every write that replied before it was dispatched) are written down there and
//! checked by `make loom`. Every change is made by the main thread, or read by it from the
//! documents and queued (a worker may apply the queue, in order, never anything else). What
//! this glue adds:
//! - **Workers never wait for Redis's GIL while they hold the state**: a worker reads documents
//!   only after it has let the state go (`crate::workers::gil`). So a main thread waiting for
//!   the lock (it holds the GIL) waits for index work alone, and no cycle lock → GIL → lock can
//!   form. (An aggregate that reads no document runs its whole pipeline in that shared hold:
//!   still index work, with no GIL.)
//! - **Commands that only read definitions** (`search::READ_ONLY`: FT.INFO, FT._LIST, ...)
//!   take a shared hold beside the queries when no change is queued (`read_shared`); with
//!   changes queued they are other main-thread work.
//! - **Other main-thread work** (FT.CREATE, FT.CONFIG SET, flushes, loading, inline queries)
//!   holds the lock exclusively (`with_state`), which waits for the workers' index phases in
//!   flight; each wait is measured (`lock_waits`, INFO `search_main_thread_lock_wait_*`).
//! - Replies a worker prepared are finished on the main thread under a shared hold that jumps
//!   waiting writers (`finish_read`), so a finishing reply never queues behind a drain that
//!   waits for other queries.
//! - **An RDB save in a fork child** (BGSAVE, a replica's sync, an AOF preamble) reads the
//!   definitions without the lock (`for_save`): the workers that may have held it at the fork
//!   do not exist in the child, and drains never change a definition.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::LazyLock;
use std::time::Instant;

use redis_module::Context;
use search::document::DocumentSource;
use search::shared::{ChangePath, Changes, Shared, WriteGuard};
use search::{Catalog, Config, PreparedChange};

/// Search state: the configuration and one catalog per database number.
#[derive(Default)]
pub struct SearchState {
    /// FT.CONFIG values.
    pub config: Config,
    /// Indexes per database.
    pub catalogs: HashMap<i32, Catalog>,
}

impl Changes for SearchState {
    /// A key change of one database, read while queries held the state.
    type Change = (i32, PreparedChange);

    fn apply(&mut self, (db, change): (i32, PreparedChange)) {
        if let Some(c) = self.catalogs.get_mut(&db) {
            c.apply(change);
        }
    }
}

static STATE: LazyLock<Shared<SearchState>> = LazyLock::new(|| Shared::new(SearchState::default()));

/// False while no database has a catalog: key changes then skip the state entirely (the common
/// case of a server used for JSON only).
static ANY_CATALOG: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread is inside `with_state`: a key that changes now (reading a key can expire it)
    /// is looked at again before the exclusive hold ends (`AGAIN`).
    static INSIDE: Cell<bool> = const { Cell::new(false) };
    /// Keys that changed inside `with_state` (database, key).
    static AGAIN: std::cell::RefCell<Vec<(i32, Vec<u8>)>> = const { std::cell::RefCell::new(Vec::new()) };
    /// This worker holds the state (it must not wait for the GIL).
    static WORKER_HOLDS: Cell<bool> = const { Cell::new(false) };
}

/// How long the main thread waited for the state lock: count, total and longest, in µs; for
/// the FT commands and events that hold it exclusively, and for writes (a key change queued
/// while queries hold the state waits only for a drain slice).
pub struct LockWaits {
    pub count: AtomicU64,
    pub total_us: AtomicU64,
    pub max_us: AtomicU64,
    pub write_count: AtomicU64,
    pub write_total_us: AtomicU64,
    pub write_max_us: AtomicU64,
    /// Key changes queued because a query held the state.
    pub deferred: AtomicU64,
}

/// The main thread's waits for the state lock.
pub static LOCK_WAITS: LockWaits = LockWaits {
    count: AtomicU64::new(0),
    total_us: AtomicU64::new(0),
    max_us: AtomicU64::new(0),
    write_count: AtomicU64::new(0),
    write_total_us: AtomicU64::new(0),
    write_max_us: AtomicU64::new(0),
    deferred: AtomicU64::new(0),
};

fn record_wait(since: Instant) {
    let us = since.elapsed().as_micros() as u64;
    LOCK_WAITS.count.fetch_add(1, Ordering::Relaxed);
    LOCK_WAITS.total_us.fetch_add(us, Ordering::Relaxed);
    LOCK_WAITS.max_us.fetch_max(us, Ordering::Relaxed);
}

/// An acquisition that did not wait.
fn record_no_wait() {
    LOCK_WAITS.count.fetch_add(1, Ordering::Relaxed);
}

fn record_write_wait(waited: std::time::Duration) {
    let us = waited.as_micros() as u64;
    LOCK_WAITS.write_count.fetch_add(1, Ordering::Relaxed);
    LOCK_WAITS.write_total_us.fetch_add(us, Ordering::Relaxed);
    LOCK_WAITS.write_max_us.fetch_max(us, Ordering::Relaxed);
}

/// What the RDB hooks must know after a change of the state.
fn after_change(state: &SearchState) {
    ANY_CATALOG.store(!state.catalogs.is_empty(), Ordering::Relaxed);
    crate::rdb::arm(crate::rdb::Contents {
        indexes_db0: state.catalogs.get(&0).is_some_and(|c| !c.is_empty()),
        indexes_other: state.catalogs.iter().any(|(db, c)| *db != 0 && !c.is_empty()),
        dictionaries: !state.config.dictionaries.is_empty(),
    });
}

/// Runs `f` with the search state held exclusively, on the main thread (commands, events,
/// timers, RDB callbacks). Must not be re-entered: code inside `f` must not trigger keyspace
/// events (no writes), so callers collect work and write after `f` returns.
pub fn with_state<R>(ctx: &Context, f: impl FnOnce(&mut SearchState) -> R) -> R {
    // Free, with nothing queued (the main thread alone queues changes): no wait to time (two
    // clock reads were a few percent of a small query).
    let free = if STATE.pending() == 0 { STATE.try_write() } else { None };
    let mut guard = match free {
        Some(guard) => {
            record_no_wait();
            guard
        }
        None => {
            let started = Instant::now();
            // (The wait includes applying the changes still queued, main-thread time all the same.)
            let guard = STATE.write();
            record_wait(started);
            guard
        }
    };
    exclusive(ctx, &mut guard, f)
}

/// Like [`with_state`], but only if no query holds the state now (initial scans, which can
/// come back on their next tick).
pub fn try_with_state<R>(ctx: &Context, f: impl FnOnce(&mut SearchState) -> R) -> Option<R> {
    let mut guard = STATE.try_write()?;
    Some(exclusive(ctx, &mut guard, f))
}

fn exclusive<R>(
    ctx: &Context,
    guard: &mut WriteGuard<'_, SearchState>,
    f: impl FnOnce(&mut SearchState) -> R,
) -> R {
    INSIDE.set(true);
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(guard)));
    // Keys that changed meanwhile, as they are now (looking at one may expire others).
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loop {
        let again = AGAIN.with(|a| std::mem::take(&mut *a.borrow_mut()));
        if again.is_empty() {
            break;
        }
        let current = crate::indexing::selected_db(ctx);
        for (db, key) in again {
            if db != current && !crate::indexing::select_db(ctx, db) {
                continue;
            }
            let docs = crate::indexing::RedisDocs::new(ctx);
            if let Some(catalog) = guard.catalogs.get_mut(&db) {
                if docs.key_type(&key).is_some() {
                    catalog.on_key_changed(&key, &docs);
                } else {
                    catalog.on_key_removed(&key);
                }
            }
            if db != current {
                crate::indexing::select_db(ctx, current);
            }
        }
    }));
    INSIDE.set(false);
    after_change(guard);
    match out {
        Ok(r) => r,
        Err(p) => std::panic::resume_unwind(p),
    }
}

/// The id of the process folio was loaded into: an RDB callback that runs under another one
/// runs in a fork child (BGSAVE, a replica's full sync, an AOF rewrite with its RDB preamble).
static MAIN_PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();

/// Notes the process folio was loaded into (module load).
pub fn note_main_process() {
    let _ = MAIN_PID.set(std::process::id());
}

/// Runs `f` with the search state for an RDB save, which reads definitions only (indexes,
/// aliases, synonyms, dictionaries).
///
/// In Redis's own process (SAVE, DEBUG RELOAD, SHUTDOWN) that is [`with_state`]. In a fork
/// child it is the snapshot read without the lock: the child has one thread, and a worker
/// that held the lock at the fork, shared for a query or exclusively for a drain, does not
/// exist there to let it go, so taking it could wait forever (the BGSAVE would never end).
/// Reading without it is sound because nothing else runs in the child and the memory is the
/// child's own copy; a drain the fork interrupted may have left an index's contents half
/// changed, but drains apply key changes only, never a definition.
pub fn for_save<R>(ctx: &Context, f: impl FnOnce(&SearchState) -> R) -> R {
    if MAIN_PID.get().is_some_and(|&pid| pid != std::process::id()) {
        if let Some(g) = STATE.try_peek() {
            return f(&g);
        }
        // SAFETY: see above: this process has no other thread, so no one writes the state
        // while `f` reads it, and the fields read are not the ones a drain changes.
        return f(unsafe { STATE.unlocked() });
    }
    with_state(ctx, |s| f(s))
}

/// Runs `f` with the search state shared, on the main thread, outside a command (the INFO
/// callback): changes still queued are not in it.
pub fn peek_state<R>(f: impl FnOnce(&SearchState) -> R) -> R {
    f(&STATE.peek())
}

/// Runs `f` with the search state shared, on the main thread, for a command that only reads
/// it (`search::READ_ONLY`), beside the queries in flight: when no change is queued (so
/// nothing waits to be applied before the read). `None` when changes are queued: the caller
/// then takes the state exclusively.
pub fn read_shared<R>(f: impl FnOnce(&SearchState) -> R) -> Option<R> {
    STATE.read_current().map(|s| f(&s))
}

/// Runs `f` with the search state shared, on the main thread, to finish a reply a worker
/// prepared. It applies the queued changes first when the state is free; it never waits for a
/// query (only for a drain in progress).
pub fn finish_read<R>(f: impl FnOnce(&SearchState) -> R) -> R {
    f(&STATE.finish_read())
}

/// Runs `f` with the search state shared, on a worker thread, once every change queued before
/// now is applied (a query sees every write that replied before it was dispatched).
pub fn worker_read<R>(f: impl FnOnce(&SearchState) -> R) -> R {
    let guard = STATE.worker_read();
    WORKER_HOLDS.set(true);
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&guard)));
    WORKER_HOLDS.set(false);
    drop(guard);
    match out {
        Ok(r) => r,
        Err(p) => std::panic::resume_unwind(p),
    }
}

/// True on a worker that holds the state (it must not wait for the GIL now).
pub fn worker_holds_state() -> bool {
    WORKER_HOLDS.get()
}

/// False while no database has an index.
pub fn any_catalog() -> bool {
    ANY_CATALOG.load(Ordering::Relaxed)
}

/// A key of database `db` changed (the GIL is held; `docs` reads it): re-evaluates it against
/// every index, now if no query holds the state, else read now and queued.
pub fn key_changed(ctx: &Context, db: i32, key: &[u8], docs: &dyn DocumentSource) {
    key_changed_keeping(ctx, db, key, docs, &|_, _| false);
}

/// Like [`key_changed`], for a write that cannot have changed the fields `unchanged` names
/// (the indexes keep what they can of them: `search::index::Kept`).
pub fn key_changed_keeping(
    _ctx: &Context,
    db: i32,
    key: &[u8],
    docs: &dyn DocumentSource,
    unchanged: search::Unchanged,
) {
    crate::workers::changes::changed(db, key);
    if INSIDE.get() {
        AGAIN.with(|a| a.borrow_mut().push((db, key.to_vec())));
        return;
    }
    let started = Instant::now();
    let apply = |s: &mut SearchState| {
        if let Some(catalog) = s.catalogs.get_mut(&db) {
            if docs.key_type(key).is_some() {
                catalog.on_key_changed_keeping(key, docs, unchanged);
            } else {
                catalog.on_key_removed(key);
            }
        }
    };
    // The wait ends when the change can be read (a shared hold on the path beside queries).
    let waited = Cell::new(started);
    let read = |s: &SearchState| {
        waited.set(Instant::now());
        let change = s.catalogs.get(&db)?.prepare_key_change_keeping(key, docs, unchanged);
        LOCK_WAITS.deferred.fetch_add(1, Ordering::Relaxed);
        Some((db, change))
    };
    if STATE.change(apply, read) == ChangePath::BesideQueries {
        record_write_wait(waited.get().duration_since(started));
    }
}
