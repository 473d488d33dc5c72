//! Memory accounting and leak checks with a counting global allocator.
//!
//! `mem_usage()` must equal 16 + the bytes the value really holds on the heap
//! (intern tables aside),
//! and heavy drop/clone/insert/remove sequences must return every byte.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use json::Value;

struct Counting;

thread_local! {
    /// Bytes this thread holds. Counted per thread: the test harness's own threads (output
    /// capture, the timer that reports slow tests) allocate too, and a global counter made the
    /// test flaky.
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

fn add(delta: isize) {
    // `try_with`: TLS may be gone while a thread exits; such allocations are not ours.
    let _ = LIVE.try_with(|l| l.set(l.get() + delta));
}

// SAFETY: 1. forwards every call to `System` unchanged; only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        add(l.size() as isize);
        // SAFETY: 1. same contract as our caller's.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        add(-(l.size() as isize));
        // SAFETY: 1. same contract as our caller's.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        add(l.size() as isize);
        // SAFETY: 1. same contract as our caller's.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        add(new as isize - l.size() as isize);
        // SAFETY: 1. same contract as our caller's.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn live() -> isize {
    LIVE.with(Cell::get)
}

const DOCS: &[&str] = &[
    "null",
    "\"short\"",
    "\"a string long enough for the heap\"",
    "[1,2.5,\"x\",[],{},[[[\"deep\"]]]]",
    r#"{"a":1,"b":{"c":[1,2,{"d":"a long string value here"}]},"a long key name here":null}"#,
];

fn big_object(n: usize) -> String {
    let members: Vec<String> = (0..n).map(|i| format!("\"k{i}\":[{i},\"value number {i}\"]")).collect();
    format!("{{{}}}", members.join(","))
}

/// One test function, so no other test thread allocates while we count.
#[test]
fn allocation_accounting() {
    mem_usage_equals_live_heap_bytes();
    no_leaks_under_heavy_mutation();
}

/// Bytes of the process-wide intern tables (not part of any value's `mem_usage`).
fn table_bytes() -> isize {
    let (_, strings, _, shapes) = Value::interned_stats();
    (strings + shapes) as isize
}

/// Live heap bytes outside the intern tables.
fn live_in_values() -> isize {
    live() - table_bytes()
}

fn mem_usage_equals_live_heap_bytes() {
    let mut docs: Vec<String> = DOCS.iter().map(|s| s.to_string()).collect();
    docs.push(big_object(10));
    docs.push(big_object(100));
    for d in &docs {
        // The parser keeps its scratch buffers per thread: grow them first.
        drop(Value::parse(d.as_bytes()));
        // Nothing else is alive, so every block the value holds is its own.
        let before = live_in_values();
        let v = Value::parse(d.as_bytes()).expect("valid");
        let held = live_in_values() - before;
        assert_eq!(v.mem_usage() as isize, 16 + held, "{d}");
        // A copy shares the interned blocks: it allocates less, reports the same.
        let before = live_in_values();
        let c = v.clone();
        assert_eq!(c.mem_usage(), v.mem_usage(), "clone of {d}");
        assert!(16 + live_in_values() - before <= c.mem_usage() as isize, "clone of {d}");
        drop(c);
        drop(v);
    }
}

fn no_leaks_under_heavy_mutation() {
    // The parser keeps its scratch buffers per thread: grow them first.
    drop(Value::parse(big_object(50).as_bytes()));
    let start = live_in_values();
    {
        let mut seed = 99u64;
        let mut rnd = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let mut root = Value::parse(big_object(50).as_bytes()).expect("valid");
        let mut arr = Value::empty_array();
        for step in 0..20_000usize {
            let key = format!("k{}", rnd() % 80);
            let doc = Value::parse(DOCS[rnd() % DOCS.len()].as_bytes()).expect("valid");
            match rnd() % 9 {
                0 => {
                    let _ = root.obj_insert(&key, doc);
                }
                1 => {
                    root.obj_remove(&key);
                }
                2 => {
                    let _ = arr.push(doc);
                }
                3 => {
                    let n = arr.len().unwrap_or(0);
                    let _ = arr.insert(rnd() % (n + 1), doc);
                }
                4 => {
                    let n = arr.len().unwrap_or(0).max(1);
                    arr.remove(rnd() % n);
                }
                5 => {
                    let n = arr.len().unwrap_or(0);
                    arr.retain_range(rnd() % (n + 1), rnd() % (n + 2));
                }
                6 => {
                    let copy = root.clone();
                    assert_eq!(copy, root);
                    let _ = arr.push(copy);
                    arr.truncate(50);
                }
                7 => {
                    if let Some(x) = root.obj_get_mut(&key) {
                        if !x.str_append("appended text") {
                            *x = Value::from(format!("s{step}").as_str());
                        }
                    }
                }
                _ => {
                    let t = arr.take();
                    arr = t;
                }
            }
        }
    }
    assert_eq!(live_in_values(), start, "bytes leaked");
    let (strings, _, shapes, _) = Value::interned_stats();
    assert_eq!((strings, shapes), (0, 0), "interned blocks leaked");
}
