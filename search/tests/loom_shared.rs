//! The concurrency core (`search::shared`) under the loom model checker, which runs each test
//! in every interleaving of its threads (up to a bound on preemptions) and with every outcome
//! the memory orderings allow. Run with `make loom` (`RUSTFLAGS="--cfg loom"`); without that
//! cfg this file is empty.
//!
//! The model is folio's server in miniature:
//! - the **main thread** holds Redis's GIL (`gil`, which also guards the keyspace: one
//!   document whose version is the number of writes so far) for each command. A write bumps
//!   the document and hands the change to [`Shared::change`]; releasing the GIL is its reply.
//!   A query is dispatched (sent to a worker) after the writes before it replied.
//! - **workers** take [`Shared::worker_read`] for the index stage and check what they see.
//!   Then, with the state released, they take the GIL to read documents, as folio's do.
//!
//! What is checked, in every interleaving:
//! - a query sees every write that replied before it was dispatched (read-your-writes);
//! - it never sees half of a write: the document's two fields carry the same version;
//! - changes are applied once each, in the order they were made;
//! - the main thread's reads after its writes see all of them;
//! - no thread waits for another in a cycle (loom fails a run in which every thread blocks).
//!
//! One model breaks the GIL rule on purpose (a worker takes the GIL while it holds the state)
//! and must deadlock: the checker can fail. Each model also counts the paths its changes took
//! (applied at once, queued behind others, queued beside queries), and the tests require every
//! path to be reached: a model whose writes never meet a query would check nothing.
#![cfg(loom)]

use std::sync::atomic::{AtomicUsize, Ordering};

use loom::sync::mpsc::channel;
use loom::sync::{Arc, Mutex};
use loom::thread;
use search::shared::{ChangePath, Changes, Shared};

/// The index in miniature: one document's two fields, and the versions applied in order.
#[derive(Default)]
struct Index {
    title: u64,
    body: u64,
    applied: Vec<u64>,
}

impl Index {
    fn set(&mut self, version: u64) {
        self.title = version;
        self.body = version;
        self.applied.push(version);
    }

    /// Checks what any reader may see.
    fn check_whole(&self) {
        assert_eq!(self.title, self.body, "half of a write is visible");
        assert!(
            self.applied.windows(2).all(|w| w[1] == w[0] + 1) && self.applied.first().is_none_or(|&v| v == 1),
            "changes applied out of order or twice: {:?}",
            self.applied
        );
        assert_eq!(self.applied.last().copied().unwrap_or(0), self.title);
    }
}

impl Changes for Index {
    type Change = u64;
    fn apply(&mut self, version: u64) {
        self.set(version);
    }
}

/// How many changes took each [`ChangePath`] over all the runs of a model (std atomics: they
/// count across runs, outside the model).
static PATHS: [AtomicUsize; 3] = [AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0)];

/// The main thread's write: the document changes under the GIL, then the index hears of it.
fn write(shared: &Shared<Index>, gil: &Mutex<u64>) {
    let mut doc = gil.lock().unwrap();
    *doc += 1;
    let version = *doc;
    let path = shared.change(|s| s.set(version), |_| Some(version));
    PATHS[path as usize].fetch_add(1, Ordering::Relaxed);
    // The GIL is released: the write has replied.
}

/// Work done while the state is held. loom switches threads only at its own operations, so a
/// hold with none inside would be atomic to the model and no write would ever find the state
/// held (a model that checks nothing): this lets the other threads run in the middle.
fn busy() {
    thread::yield_now();
}

/// A query on a worker: the index stage under the state, then documents under the GIL.
fn query(shared: &Shared<Index>, gil: &Mutex<u64>, dispatched_after: u64) {
    let seen = {
        let s = shared.worker_read();
        busy();
        s.check_whole();
        assert!(
            s.title >= dispatched_after,
            "a query dispatched after write {dispatched_after} sees only {}",
            s.title
        );
        s.title
    };
    // The document stage: the state is released first.
    let doc = gil.lock().unwrap();
    assert!(*doc >= seen);
}

/// What a model explored: interleavings, and changes by the path they took.
struct Explored {
    runs: usize,
    applied: usize,
    queued: usize,
    beside_queries: usize,
}

/// Runs `f` in every interleaving (at most 3 preemptions unless LOOM_MAX_PREEMPTIONS says
/// otherwise).
fn model(f: impl Fn() + Sync + Send + 'static) -> Explored {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    RUNS.store(0, Ordering::Relaxed);
    for p in &PATHS {
        p.store(0, Ordering::Relaxed);
    }
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(3);
    }
    builder.check(move || {
        RUNS.fetch_add(1, Ordering::Relaxed);
        f()
    });
    let count = |p: ChangePath| PATHS[p as usize].load(Ordering::Relaxed);
    let explored = Explored {
        runs: RUNS.load(Ordering::Relaxed),
        applied: count(ChangePath::Applied),
        queued: count(ChangePath::Queued),
        beside_queries: count(ChangePath::BesideQueries),
    };
    eprintln!(
        "{} interleavings; changes applied at once {}, queued behind others {}, queued beside queries {}",
        explored.runs, explored.applied, explored.queued, explored.beside_queries
    );
    explored
}

#[test]
fn queries_see_the_writes_that_replied_before_them() {
    let explored = model(|| {
        let shared = Arc::new(Shared::new(Index::default()));
        let gil = Arc::new(Mutex::new(0u64));
        let (to_worker, jobs) = channel::<u64>();
        // A query already running (dispatched before any write): writes may find it holding
        // the state and queue beside it.
        let early = {
            let (shared, gil) = (shared.clone(), gil.clone());
            thread::spawn(move || query(&shared, &gil, 0))
        };
        let worker = {
            let (shared, gil) = (shared.clone(), gil.clone());
            thread::spawn(move || {
                let after = jobs.recv().unwrap();
                query(&shared, &gil, after);
            })
        };
        write(&shared, &gil);
        write(&shared, &gil);
        // Dispatched after two writes replied (from the main thread, as a blocked client is).
        to_worker.send(2).unwrap();
        write(&shared, &gil);
        {
            // FT.INFO or FT.CREATE: the main thread's exclusive hold, under the GIL.
            let _gil = gil.lock().unwrap();
            let s = shared.write();
            busy();
            s.check_whole();
            assert_eq!(s.title, 3);
        }
        early.join().unwrap();
        worker.join().unwrap();
        let s = shared.write();
        assert_eq!(s.applied, vec![1, 2, 3]);
    });
    // The model reached every path a change can take: it is not checking a case that never
    // comes up.
    assert!(explored.applied > 0 && explored.queued > 0 && explored.beside_queries > 0);
}

#[test]
fn replies_finished_on_the_main_thread_never_wait_for_a_query() {
    let explored = model(|| {
        let shared = Arc::new(Shared::new(Index::default()));
        let gil = Arc::new(Mutex::new(0u64));
        let (release, released) = channel::<()>();
        // A query that holds the state until the main thread is done: if any of the main
        // thread's reads below waited for it, no thread could go on, and loom fails the run.
        let worker = {
            let (shared, gil) = (shared.clone(), gil.clone());
            thread::spawn(move || {
                let seen = {
                    let s = shared.worker_read();
                    s.check_whole();
                    released.recv().unwrap();
                    s.title
                };
                assert!(*gil.lock().unwrap() >= seen);
            })
        };
        // A query dispatched after the first write: when that write was queued beside the
        // first query, this one waits to apply it (a writer waiting for a reader), and the
        // main thread's reads below must not queue up behind it.
        let (dispatch, dispatched) = channel::<u64>();
        let second = {
            let (shared, gil) = (shared.clone(), gil.clone());
            thread::spawn(move || {
                let after = dispatched.recv().unwrap();
                query(&shared, &gil, after);
            })
        };
        write(&shared, &gil);
        dispatch.send(1).unwrap();
        {
            // A reply a worker prepared, finished under the GIL: sees every write before it
            // once it can apply them, never sees half a write.
            let _gil = gil.lock().unwrap();
            let s = shared.finish_read();
            busy();
            s.check_whole();
            if shared.pending() == 0 {
                assert_eq!(s.title, 1);
            }
        }
        write(&shared, &gil);
        {
            let _gil = gil.lock().unwrap();
            if let Some(s) = shared.read_current() {
                busy();
                s.check_whole();
                assert_eq!(s.title, 2, "read_current answered with a change still queued");
            }
            let _ = shared.peek().title;
        }
        release.send(()).unwrap();
        worker.join().unwrap();
        second.join().unwrap();
        assert_eq!(shared.write().applied, vec![1, 2]);
    });
    assert!(explored.applied > 0 && explored.beside_queries > 0);
}

/// Breaks the GIL rule on purpose: a worker takes the GIL while it holds the state. Run by
/// the next test, in a process of its own (a failed model unwinds through loom's threads,
/// which aborts the process it runs in).
#[test]
#[ignore = "run by the_checker_finds_the_deadlock_a_worker_holding_the_state_would_cause"]
fn a_worker_waiting_for_the_gil_while_it_holds_the_state() {
    model(|| {
        let shared = Arc::new(Shared::new(Index::default()));
        let gil = Arc::new(Mutex::new(0u64));
        let worker = {
            let (shared, gil) = (shared.clone(), gil.clone());
            thread::spawn(move || {
                let _s = shared.worker_read();
                // Wrong: documents read while the state is held.
                let _doc = gil.lock().unwrap();
            })
        };
        {
            let _gil = gil.lock().unwrap();
            let _s = shared.write();
        }
        worker.join().unwrap();
    });
}

#[test]
fn the_checker_finds_the_deadlock_a_worker_holding_the_state_would_cause() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "a_worker_waiting_for_the_gil_while_it_holds_the_state"])
        .args(["--test-threads", "1", "--nocapture"])
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the wrong model passed:\n{text}");
    assert!(text.contains("deadlock"), "the wrong model failed, but not for the deadlock:\n{text}");
}
