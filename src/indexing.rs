//! The search side of the glue: one [`search::Catalog`] per database and the single route by
//! which key changes reach the indexes (the document source they read keys through is
//! [`crate::documents`]).
//!
//! Every change to a key, whatever made it (a JSON.* write, HSET, DEL, EXPIRE, eviction, RENAME,
//! RESTORE, a type overwrite, RDB loading), arrives here as a keyspace event and is handled the same
//! way: look at the key now; if it is a JSON document or a hash, (re)index it in every index of its
//! database whose rules admit it, otherwise drop it from them. FLUSHDB and SWAPDB arrive as server
//! events.

use std::cell::RefCell;
use std::collections::HashMap;

use json::path::JsonPath;
use redis_module::key::RedisKey;
use redis_module::{raw, Context, RedisString};
use search::document::KeyType;
use search::Catalog;

pub use crate::documents::{LastJson, RedisDocs};
pub use crate::state::{peek_state, with_state, SearchState};

/// The database selected in `ctx`.
pub fn selected_db(ctx: &Context) -> i32 {
    // SAFETY: ctx.ctx is a live context; GetSelectedDb only reads it.
    unsafe { raw::RedisModule_GetSelectedDb.map(|f| f(ctx.ctx)).unwrap_or(0) }
}

/// A key of the selected database changed in some way: re-evaluate it against every index.
pub fn key_event(ctx: &Context, key: &[u8]) {
    key_written(ctx, key, None);
}

/// Like [`key_event`], for a JSON write that landed at `path` (None: anywhere): the indexes
/// keep the fields whose paths are independent of it (`JsonPath::independent_of`).
pub fn key_written(ctx: &Context, key: &[u8], path: Option<&JsonPath>) {
    if !crate::state::any_catalog() {
        return;
    }
    // The indexer reads the document once per field of every index: the key is opened once.
    // Valid as LastJson asks: nothing runs between those reads (the write command that
    // changed the key is still running, under the GIL), and `last` goes with this call.
    let last = LastJson::default();
    let docs = RedisDocs::remembering(ctx, &last);
    let db = selected_db(ctx);
    match path {
        Some(write) => {
            let unchanged = |spec: &search::schema::IndexSpec, field: &search::schema::FieldSpec| {
                spec.on == KeyType::Json
                    && docs.with_path(&field.path, |p| p.independent_of(write)).unwrap_or(false)
            };
            crate::state::key_changed_keeping(ctx, db, key, &docs, &unchanged);
        }
        None => crate::state::key_changed(ctx, db, key, &docs),
    }
}

/// FLUSHDB (one database) or FLUSHALL (`db == -1`), as RediSearch does it: the flushed databases'
/// indexes go, definitions and contents, with their aliases, synonyms and cursors, so a test suite
/// that flushes between tests can create the same index again. FLUSHALL also empties the
/// spell-check dictionaries (FT.DICTADD), and so does a FLUSHDB of database 0, where RediSearch
/// keeps its indexes; a FLUSHDB of another database leaves them, and the other databases' indexes,
/// alone (RediSearch would empty them on any flush). Any flush forgets which dialects were used
/// (INFO's `search_dialect_statistics`), as in RediSearch.
pub fn flushed(ctx: &Context, db: i32) {
    crate::workers::changes::changed_all();
    with_state(ctx, |state| {
        state.config.used_dialects.set(0);
        if db == -1 || db == 0 {
            state.config.dictionaries.clear();
        }
        state.catalogs.retain(|n, _| db != -1 && *n != db);
    });
    SCANS.with(|s| s.borrow_mut().retain(|n, _| db != -1 && *n != db));
}

/// SWAPDB: the indexes move with their data, so a dataset built and indexed in a staging
/// database goes live with its indexes in one step.
pub fn swapped(ctx: &Context, a: i32, b: i32) {
    crate::workers::changes::changed_all();
    with_state(ctx, |state| {
        let ca = state.catalogs.remove(&a);
        let cb = state.catalogs.remove(&b);
        if let Some(c) = ca {
            state.catalogs.insert(b, c);
        }
        if let Some(c) = cb {
            state.catalogs.insert(a, c);
        }
    });
    // A scan in progress continues over the same database number, which now holds the other
    // dataset, and its catalog moved with the data: both scans start over.
    SCANS.with(|s| {
        let mut s = s.borrow_mut();
        let ja = s.remove(&a);
        let jb = s.remove(&b);
        if let Some(j) = ja {
            s.insert(b, j);
        }
        if let Some(j) = jb {
            s.insert(a, j);
        }
    });
    restart_scans(ctx, &[a, b]);
}

/// Work done per slice of an initial scan, so the server keeps answering meanwhile.
const SCAN_SLICE: std::time::Duration = std::time::Duration::from_millis(10);
/// Pause between slices.
const SCAN_PAUSE: std::time::Duration = std::time::Duration::from_millis(1);

/// An initial scan in progress over one database.
struct ScanJob {
    cursor: redis_module::KeysCursor,
    scanned: usize,
    total: usize,
}

thread_local! {
    /// Scans in progress, per database. Only the main thread (commands, timers) touches them.
    static SCANS: RefCell<HashMap<i32, ScanJob>> = RefCell::new(HashMap::new());
}

pub(crate) fn select_db(ctx: &Context, db: i32) -> bool {
    // SAFETY: ctx is a live context; SelectDb changes only its own client's database.
    unsafe { raw::RedisModule_SelectDb.map(|f| f(ctx.ctx, db)) == Some(raw::REDISMODULE_OK as i32) }
}

fn db_size(ctx: &Context) -> usize {
    // SAFETY: ctx is a live context.
    unsafe { raw::RedisModule_DbSize.map(|f| f(ctx.ctx) as usize).unwrap_or(0) }
}

/// Starts (or restarts) the initial scan of the selected database for its pending indexes: a
/// first slice now, then slices on a timer until every key was seen. FT.INFO shows `indexing`
/// and `percent_indexed` meanwhile.
///
/// While an AOF loads (FT.CREATE or FT.ALTER replayed, or the definitions an AOF without RDB
/// preamble carries after its keys, `crate::aof_definitions`) the scan runs to its end at once:
/// timers do not run while loading, and loading's end marks every scan done, so a scan left to
/// the timer would leave the index with the keys of its first slice only. The replay then also
/// sees the index as the original command left it (an FT.DROPINDEX DD that follows deletes
/// every document).
pub fn initial_scan(ctx: &Context) {
    let db = selected_db(ctx);
    let job = ScanJob { cursor: redis_module::KeysCursor::new(), scanned: 0, total: db_size(ctx) };
    let fresh = SCANS.with(|s| s.borrow_mut().insert(db, job).is_none());
    if ctx.get_flags().contains(redis_module::ContextFlags::LOADING) {
        while scan_slice(ctx, db) {}
        return;
    }
    if scan_slice(ctx, db) && fresh {
        ctx.create_timer(SCAN_PAUSE, continue_scan, db);
    }
}

fn continue_scan(ctx: &Context, db: i32) {
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| select_db(ctx, db) && scan_slice(ctx, db)));
    match outcome {
        Ok(true) => {
            ctx.create_timer(SCAN_PAUSE, continue_scan, db);
        }
        Ok(false) => {}
        Err(_) => {
            SCANS.with(|s| s.borrow_mut().remove(&db));
            ctx.log_warning("folio: internal error during an initial index scan; scan stopped");
        }
    }
}

/// Runs one slice of the scan of `db` (selected in `ctx`); true when more remains.
fn scan_slice(ctx: &Context, db: i32) -> bool {
    // While queries hold the indexes, the scan waits for its next tick rather than for them.
    let Some(pending) = crate::state::try_with_state(ctx, |s| {
        s.catalogs.get(&db).map(|c| c.scan_prefixes()).unwrap_or_default()
    }) else {
        return SCANS.with(|s| s.borrow().contains_key(&db));
    };
    if pending.is_empty() {
        SCANS.with(|s| s.borrow_mut().remove(&db));
        return false;
    }
    let started = std::time::Instant::now();
    let docs = RedisDocs::new(ctx);
    let more = SCANS.with(|scans| {
        let mut scans = scans.borrow_mut();
        let Some(job) = scans.get_mut(&db) else { return false };
        let mut more = true;
        while more && started.elapsed() < SCAN_SLICE {
            let keys = RefCell::new(Vec::new());
            let cb = |_ctx: &Context, name: &RedisString, _key: Option<&RedisKey>| {
                let k = name.as_slice();
                if pending.iter().any(|p| k.starts_with(p)) {
                    keys.borrow_mut().push(k.to_vec());
                }
            };
            more = job.cursor.scan(ctx, &cb);
            let keys = keys.into_inner();
            job.scanned += keys.len();
            let fraction = if job.total == 0 { 1.0 } else { job.scanned as f64 / job.total as f64 };
            with_state(ctx, |s| {
                if let Some(c) = s.catalogs.get_mut(&db) {
                    for k in &keys {
                        c.scan_key(k, &docs);
                    }
                    c.scan_progress(fraction.min(0.99));
                }
            });
        }
        if !more {
            scans.remove(&db);
        }
        more
    });
    if !more {
        with_state(ctx, |s| {
            if let Some(c) = s.catalogs.get_mut(&db) {
                c.scan_done();
            }
        });
    }
    more
}

/// Restarts the scans of the given databases from their first key (after SWAPDB), each with a
/// timer of its own (a second timer on the same job only makes it finish sooner).
fn restart_scans(ctx: &Context, dbs: &[i32]) {
    for db in dbs {
        let restarted = SCANS.with(|s| match s.borrow_mut().get_mut(db) {
            Some(job) => {
                job.cursor.restart();
                job.scanned = 0;
                true
            }
            None => false,
        });
        if restarted {
            ctx.create_timer(SCAN_PAUSE, continue_scan, *db);
        }
    }
}

/// Loading started (`ended == false`) or ended. At the start, every index and dictionary goes
/// (as in RediSearch): the file's aux records bring theirs. While an RDB or AOF loads, every key
/// arrives as a keyspace event and is indexed then; at the end, scans pending from restored
/// definitions are done.
pub fn loading(ctx: &Context, ended: bool) {
    crate::workers::changes::changed_all();
    if ended {
        with_state(ctx, |s| s.catalogs.values_mut().for_each(|c| c.scan_done()));
    } else {
        with_state(ctx, |s| {
            s.config.dictionaries.clear();
            s.catalogs.clear();
        });
        SCANS.with(|s| s.borrow_mut().clear());
    }
}

/// Index definitions of every database, for RDB aux data.
pub fn definitions(ctx: &Context) -> Vec<(i32, Vec<u8>)> {
    crate::state::for_save(ctx, |s| {
        let mut out: Vec<(i32, Vec<u8>)> = s
            .catalogs
            .iter()
            .filter(|(_, c)| !c.index_names().is_empty())
            .map(|(db, c)| (*db, c.to_definitions()))
            .collect();
        out.sort_by_key(|(db, _)| *db);
        out
    })
}

/// Database 0's index definitions and the dictionaries, when it has indexes (a cluster node
/// handing its definitions to a master that has none).
pub fn definitions_for_peer(ctx: &Context) -> Option<(Vec<u8>, Vec<u8>)> {
    with_state(ctx, |s| {
        let c = s.catalogs.get(&0).filter(|c| !c.is_empty())?;
        Some((c.to_definitions(), s.config.dictionaries.to_bytes()))
    })
}

/// `FT._LOCAL.DEFS`: takes a peer's definitions ([`definitions_for_peer`]) when database 0
/// has no index (a master added to the cluster, or one whose data is gone), and its
/// dictionaries when it has none; true when it took them (their scans then index the keys
/// already here).
pub fn take_peer_definitions(ctx: &Context, defs: &[u8], dicts: &[u8]) -> Result<bool, String> {
    with_state(ctx, |s| {
        if s.catalogs.get(&0).is_some_and(|c| !c.is_empty()) {
            return Ok(false);
        }
        let cat = Catalog::from_definitions(defs, &s.config)?;
        if s.config.dictionaries.is_empty() {
            s.config.dictionaries = search::dictionary::Dictionaries::from_bytes(dicts)?;
        }
        s.catalogs.insert(0, cat);
        Ok(true)
    })
}

/// Restores the catalogs of the databases in `defs` (folio-idx aux data), and the dictionaries
/// when `dicts` has them (folio-idx version 2); the indexes fill as the keys load (each key's
/// `loaded` event) and their scans end when loading ends.
pub fn restore_definitions(
    ctx: &Context,
    defs: Vec<(i32, Vec<u8>)>,
    dicts: Option<&[u8]>,
) -> Result<(), String> {
    with_state(ctx, |s| {
        let mut catalogs = Vec::new();
        for (db, bytes) in defs {
            catalogs.push((db, Catalog::from_definitions(&bytes, &s.config)?));
        }
        if let Some(bytes) = dicts {
            s.config.dictionaries = search::dictionary::Dictionaries::from_bytes(bytes)?;
        }
        s.catalogs.extend(catalogs);
        Ok(())
    })
}

/// Deletes keys on behalf of the indexes (FT.DROPINDEX DD, an expired TEMPORARY index), with the
/// `del` keyspace event Redis itself would send, so every other index drops them too.
pub fn delete_keys(ctx: &Context, keys: &[Vec<u8>]) {
    for key in keys {
        let name = ctx.create_string(key.as_slice());
        let deleted = ctx.open_key_writable(&name).delete().is_ok();
        if deleted {
            ctx.notify_keyspace_event(redis_module::NotifyEvent::GENERIC, "del", &name);
        }
    }
}

/// How often TEMPORARY indexes are checked for idleness.
const TEMPORARY_CHECK: std::time::Duration = std::time::Duration::from_secs(1);

/// Starts the periodic check that drops idle TEMPORARY indexes and deletes their documents.
pub fn start_temporary_expiry(ctx: &Context) {
    ctx.create_timer(TEMPORARY_CHECK, expire_temporary, ());
}

fn expire_temporary(ctx: &Context, _: ()) {
    // A replica drops nothing itself: its primary's FT.DROPINDEX … DD reaches it.
    if !ctx.get_flags().contains(redis_module::ContextFlags::SLAVE) {
        let now = std::time::Instant::now();
        let expired: Vec<(i32, Vec<String>)> = with_state(ctx, |s| {
            s.catalogs
                .iter()
                .map(|(db, c)| (*db, c.expired_temporary(now)))
                .filter(|(_, names)| !names.is_empty())
                .collect()
        });
        // As RediSearch's timer: FT.DROPINDEX name DD as a replicated call, so replicas and the
        // AOF drop the index and its documents too.
        let opts = redis_module::CallOptionsBuilder::new().replicate().build();
        for (db, names) in expired {
            if select_db(ctx, db) {
                for name in names {
                    let _: redis_module::CallResult =
                        ctx.call_ext("FT.DROPINDEX", &opts, &[name.as_bytes(), b"DD".as_slice()]);
                }
            }
        }
    }
    ctx.create_timer(TEMPORARY_CHECK, expire_temporary, ());
}
