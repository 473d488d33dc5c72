//! Which keys changed while a worker's query was in flight: a query's rows are read from the
//! documents after its index stage, and a row whose document changed in between is left out
//! rather than shown at a version the query did not match.
//!
//! Every query on the workers registers a [`Tracker`] at dispatch; every key change (on the
//! main thread, under the GIL) is noted in the trackers of its database. A worker checks a row
//! under the GIL and reads it in the same hold, so no write can come between.

use std::collections::HashSet;
use std::hash::{BuildHasher, BuildHasherDefault};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

/// The keys of one database changed since a query was dispatched.
pub struct Tracker {
    db: i32,
    keys: Mutex<HashSet<u64>>,
    /// Everything changed (a flush, SWAPDB, loading).
    all: AtomicBool,
}

/// Past this many keys a tracker gives up and counts every key as changed.
const MAX_KEYS: usize = 1 << 22;

static INFLIGHT: Mutex<Vec<Weak<Tracker>>> = Mutex::new(Vec::new());
static COUNT: AtomicUsize = AtomicUsize::new(0);

fn hash(key: &[u8]) -> u64 {
    BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(key)
}

/// A tracker for a query of database `db`, registered until it is dropped.
pub fn track(db: i32) -> Arc<Tracker> {
    let t = Arc::new(Tracker { db, keys: Mutex::new(HashSet::new()), all: AtomicBool::new(false) });
    let mut v = INFLIGHT.lock();
    v.retain(|w| w.strong_count() > 0);
    v.push(Arc::downgrade(&t));
    COUNT.store(v.len(), Ordering::Release);
    t
}

fn each(f: impl Fn(&Tracker)) {
    if COUNT.load(Ordering::Acquire) == 0 {
        return;
    }
    let mut v = INFLIGHT.lock();
    v.retain(|w| match w.upgrade() {
        Some(t) => {
            f(&t);
            true
        }
        None => false,
    });
    COUNT.store(v.len(), Ordering::Release);
}

/// `key` of database `db` changed.
pub fn changed(db: i32, key: &[u8]) {
    each(|t| {
        if t.db == db {
            let mut keys = t.keys.lock();
            if keys.len() < MAX_KEYS {
                keys.insert(hash(key));
            } else {
                t.all.store(true, Ordering::Release);
            }
        }
    });
}

/// Every key may have changed (FLUSHDB, FLUSHALL, SWAPDB, loading).
pub fn changed_all() {
    each(|t| t.all.store(true, Ordering::Release));
}

impl Tracker {
    /// True when `key` has not changed since the query was dispatched (a hash collision only
    /// leaves a row out).
    pub fn unchanged(&self, key: &[u8]) -> bool {
        !self.all.load(Ordering::Acquire) && !self.keys.lock().contains(&hash(key))
    }
}
