//! The worker threads: a fixed set of named threads taking jobs from one queue, in arrival
//! order. The set grows or shrinks at run time (`WORKERS`): a thread whose number is past the
//! wanted size leaves once its job is done.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::{Condvar, Mutex};

/// A job for a worker.
pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// Jobs waiting beyond which a query runs on the main thread instead (a server flooded with
/// queries answers them slower, never with an error).
pub const MAX_QUEUED: usize = 10_000;

struct Queue {
    jobs: VecDeque<Job>,
    /// Threads started (numbered `0..started`).
    started: usize,
}

static QUEUE: Mutex<Queue> = Mutex::new(Queue { jobs: VecDeque::new(), started: 0 });
static READY: Condvar = Condvar::new();
/// The wanted number of threads.
static WANTED: AtomicUsize = AtomicUsize::new(0);
/// Jobs running now.
static BUSY: AtomicUsize = AtomicUsize::new(0);

/// The wanted number of workers (0: none, queries stay on the main thread).
pub fn size() -> usize {
    WANTED.load(Ordering::Relaxed)
}

/// Jobs queued and running now.
pub fn load() -> (usize, usize) {
    (QUEUE.lock().jobs.len(), BUSY.load(Ordering::Relaxed))
}

/// Sets the number of workers, starting threads as needed (extra ones leave when idle).
pub fn resize(n: usize) {
    WANTED.store(n, Ordering::Relaxed);
    let mut q = QUEUE.lock();
    while q.started < n {
        let id = q.started;
        let spawned = std::thread::Builder::new().name(format!("folio-worker-{id}")).spawn(move || run(id));
        if spawned.is_err() {
            break;
        }
        q.started += 1;
    }
    drop(q);
    READY.notify_all();
}

/// Queues `job`; false (the job dropped) when there are no workers or the queue is full.
pub fn submit(job: Job) -> bool {
    let mut q = QUEUE.lock();
    if size() == 0 || q.jobs.len() >= MAX_QUEUED {
        return false;
    }
    q.jobs.push_back(job);
    drop(q);
    READY.notify_one();
    true
}

/// True when a job submitted now would be taken.
pub fn has_room() -> bool {
    size() > 0 && QUEUE.lock().jobs.len() < MAX_QUEUED
}

fn run(id: usize) {
    loop {
        let job = {
            let mut q = QUEUE.lock();
            loop {
                if id >= size() && id + 1 == q.started {
                    // The highest-numbered thread leaves first, so `started` stays a count.
                    q.started -= 1;
                    READY.notify_all();
                    drop(q);
                    crate::alloc::release_thread_cache();
                    return;
                }
                if id < size() {
                    if let Some(job) = q.jobs.pop_front() {
                        break job;
                    }
                }
                READY.wait(&mut q);
            }
        };
        BUSY.fetch_add(1, Ordering::Relaxed);
        // A job answers its client whatever happens; a panic in it is its own (see `workers`).
        let _ = catch_unwind(AssertUnwindSafe(job));
        BUSY.fetch_sub(1, Ordering::Relaxed);
    }
}
