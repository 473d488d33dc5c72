//! Queries off the main thread. FT.SEARCH, FT.AGGREGATE, FT.HYBRID (staged as FT.AGGREGATE),
//! FT.PROFILE, FT.SPELLCHECK and FT.TAGVALS block their client (`RedisModule_BlockClient`)
//! and run on a pool of `WORKERS` threads, in three stages:
//! 1. **Index** (worker, search state shared): parse, match, score, sort, page: everything that
//!    reads the index ([`search::Catalog::stage`]), with no document at hand ([`Detached`]).
//! 2. **Documents** (worker, state released): FT.AGGREGATE's pipeline loads fields under the
//!    GIL in slices ([`documents::GilDocs`]) and aggregates without it.
//! 3. **Reply** (main thread, the blocked client's reply callback): FT.SEARCH reads its page's
//!    documents and renders; FT.AGGREGATE hands its rows to the client or a cursor.
//!
//! A query that asked for a document in stage 1 (SORTBY on a field that is not SORTABLE,
//! FT.PROFILE of a search with content) runs again, whole, in stage 3 as it would with
//! `WORKERS 0`. Clients that cannot block (MULTI, scripts, `RM_Call`), callers whose ACL limits
//! the keys they may read, and a full queue run inline as well.

pub mod changes;
pub mod documents;
pub mod gil;
pub mod pool;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use redis_module::Context;
use search::{Catalog, Protocol as SearchProtocol, Reply as SearchReply, Staged, STAGED};

use crate::blocked::{self, Blocked, Finish};
use crate::commands::ft::local;
use crate::indexing::{selected_db, RedisDocs};
use crate::reply::{Protocol, Reply};
use crate::state;
use documents::Detached;
use gil::with_documents;

/// Where the workers' queries spend their time (INFO `search_threads`), in µs.
pub struct Times {
    /// Queries run on a worker.
    pub queries: AtomicU64,
    /// Of those, queries run again on the main thread (they needed documents while they read
    /// the index).
    pub fell_back: AtomicU64,
    /// Waiting in the queue (dispatch to a worker taking the job).
    pub queued_us: AtomicU64,
    /// The index stage, the state held shared.
    pub index_us: AtomicU64,
    /// FT.AGGREGATE's pipeline with documents, the state released.
    pub documents_us: AtomicU64,
    /// Of that, holding the GIL.
    pub gil_us: AtomicU64,
    /// The reply made on the main thread.
    pub reply_us: AtomicU64,
}

/// The workers' time.
pub static TIMES: Times = Times {
    queries: AtomicU64::new(0),
    fell_back: AtomicU64::new(0),
    queued_us: AtomicU64::new(0),
    index_us: AtomicU64::new(0),
    documents_us: AtomicU64::new(0),
    gil_us: AtomicU64::new(0),
    reply_us: AtomicU64::new(0),
};

fn add(counter: &AtomicU64, since: Instant) {
    counter.fetch_add(since.elapsed().as_micros() as u64, Ordering::Relaxed);
}

/// A query for the workers, as it arrived.
struct Query {
    name: String,
    args: Vec<Vec<u8>>,
    db: i32,
    proto: SearchProtocol,
    /// The caller's user name (cursors are theirs).
    owner: Option<String>,
    arrived: Instant,
    /// The keys that change while it is in flight.
    changes: std::sync::Arc<changes::Tracker>,
}

/// Runs `name` (an FT command, upper case) on the workers when it is one they run and this
/// client can wait for it: blocks the client and returns [`Reply::Sent`]. None: run it here.
pub fn dispatch(ctx: &Context, name: &str, args: &[&[u8]]) -> Option<Reply> {
    if !STAGED.contains(&name) || !pool::has_room() || blocked::cannot_block(ctx) {
        return None;
    }
    let caller = crate::acl::Caller::of(ctx);
    if !caller.may_read_all() {
        return None;
    }
    let proto = match Protocol::of(ctx) {
        Protocol::Resp2 => SearchProtocol::Resp2,
        Protocol::Resp3 => SearchProtocol::Resp3,
    };
    let db = selected_db(ctx);
    let query = Query {
        name: name.to_string(),
        args: args.iter().map(|a| a.to_vec()).collect(),
        db,
        changes: changes::track(db),
        proto,
        owner: caller.name(),
        arrived: Instant::now(),
    };
    let blocked = blocked::block(ctx, Duration::ZERO)?;
    // The job takes the blocked client out of the slot; if the queue refuses the job, the main
    // thread takes it instead and answers inline.
    let slot = std::sync::Arc::new(parking_lot::Mutex::new(Some((blocked, query))));
    let job_slot = slot.clone();
    let queued = pool::submit(Box::new(move || {
        if let Some((blocked, query)) = job_slot.lock().take() {
            run(blocked, query);
        }
    }));
    if !queued {
        // The queue filled since `has_room`: answer from the main thread.
        if let Some((blocked, query)) = slot.lock().take() {
            blocked.finish(inline(query));
        }
    }
    Some(Reply::Sent)
}

/// The query run whole on the main thread, as with `WORKERS 0`.
fn inline(q: Query) -> Finish {
    Box::new(move |ctx: &Context| {
        let args: Vec<&[u8]> = q.args.iter().map(|a| a.as_slice()).collect();
        local(ctx, &q.name, &args).0
    })
}

/// A worker's part of a query; always answers the client.
fn run(blocked: Blocked, q: Query) {
    blocked.measure_start();
    TIMES.queries.fetch_add(1, Ordering::Relaxed);
    add(&TIMES.queued_us, q.arrived);
    let finish = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| stages(&blocked, q)))
        .unwrap_or_else(|_| {
            Box::new(|_: &Context| Reply::Error("ERR folio internal error in a query".into()))
        });
    blocked.measure_end();
    blocked.finish(Box::new(move |ctx: &Context| {
        let started = Instant::now();
        let reply = finish(ctx);
        add(&TIMES.reply_us, started);
        reply
    }));
}

fn stages(blocked: &Blocked, q: Query) -> Finish {
    let detached = Detached::new(q.owner.clone());
    let started = Instant::now();
    let staged = {
        let args: Vec<&[u8]> = q.args.iter().map(|a| a.as_slice()).collect();
        state::worker_read(|s| {
            let empty = Catalog::new();
            let cat = s.catalogs.get(&q.db).unwrap_or(&empty);
            let staged = cat.stage(&q.name, &args, &detached, &s.config, q.proto, q.arrived);
            if detached.asked() {
                // It runs again inline, where it counts its use again.
                if let Some(name) = args.first() {
                    cat.take_back_use(name);
                }
            }
            staged
        })
    };
    add(&TIMES.index_us, started);
    if detached.asked() {
        TIMES.fell_back.fetch_add(1, Ordering::Relaxed);
        return inline(q);
    }
    let (db, proto) = (q.db, q.proto);
    match staged {
        Staged::Reply(r) => Box::new(move |_: &Context| Reply::Search(r)),
        Staged::Search(page) => Box::new(move |ctx: &Context| {
            let docs = RedisDocs::tracking(ctx, &q.changes);
            let r = state::finish_read(|s| match s.catalogs.get(&db) {
                Some(c) => c.finish_search(*page, &docs, proto),
                None => Catalog::new().finish_search(*page, &docs, proto),
            });
            Reply::Search(r)
        }),
        Staged::Aggregate(work) => {
            let started = Instant::now();
            let done = with_documents(blocked, db, &q.changes, work.row_keys(), |docs| work.run(docs));
            add(&TIMES.documents_us, started);
            let owner = q.owner;
            Box::new(move |_: &Context| {
                let r = match done {
                    Ok(done) => state::finish_read(|s| {
                        let empty = Catalog::new();
                        s.catalogs.get(&db).unwrap_or(&empty).finish_aggregate(done, owner, &s.config, proto)
                    }),
                    Err(e) => SearchReply::Error(e.0),
                };
                Reply::Search(r)
            })
        }
    }
}

/// Applies `WORKERS` from the configuration (after it was loaded or set).
pub fn configure(workers: usize) {
    if workers != pool::size() {
        pool::resize(workers);
    }
}
