//! The library's allocator: Redis's (`RedisModule_Alloc`, so documents and indexes show in
//! `INFO memory` and count against `maxmemory`), with a small cache of freed small blocks per
//! thread in front of it.
//!
//! Why: a Redis module allocation is `RM_Alloc` -> `zmalloc` -> jemalloc, then
//! `je_malloc_usable_size` and an atomic add for Redis's memory count, and a free the same
//! way back. A query over a few dozen rows makes a few hundred short-lived allocations, and
//! those layers were a third of its time (perf of `FT.AGGREGATE ... GROUPBY` over 40 hashes:
//! `je_malloc_usable_size` 10 %, `RM_Alloc` 8 %, `RM_Free` 7 %, jemalloc and `zmalloc` 12 %).
//! A freed block of at most [`MAX_CACHED`] bytes goes onto its thread's list for its size
//! class instead, and the next allocation of that class on the thread takes it back.
//!
//! The invariants:
//! - Every block on a list was allocated by the backend with its class's whole size
//!   ([`class_size`]), so it serves any request of the class; a request of a cached size is
//!   always allocated that way, whether a list serves it or the backend does.
//! - A list is its thread's alone (a thread-local; the main thread's in a static only it
//!   reaches, [`claim_main_thread`]), so taking and giving back need no synchronisation; a
//!   block allocated on one thread and freed on another joins the second's list (the backend
//!   is thread-safe, and the block is a backend block either way).
//! - A list holds at most [`limit`] blocks (about [`BUDGET`] bytes a class, 160 kB a thread
//!   at most); past it a freed block goes back to the backend. Redis counts the cached
//!   blocks as used, as jemalloc's own thread caches are not: that bounded amount is the
//!   whole difference in `used_memory`. A thread that ends leaves its lists (a worker thread
//!   empties them first: [`release_thread_cache`]).
//! - The size classes are jemalloc's up to 512 bytes as Redis builds it (8-byte quantum), so a
//!   cached block is the size jemalloc would have given the request anyway and Redis's count
//!   of it is unchanged. (16-byte classes rounded a 24-byte request to 32: 8 more bytes a
//!   vector in `used_memory` at 50,000 vectors, all of them live blocks.)

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Largest request served from the lists.
pub const MAX_CACHED: usize = 512;

/// Number of size classes: jemalloc's up to 512 bytes as Redis builds it (an 8-byte quantum:
/// 8-byte steps to 64, then 16, 32 and 64-byte steps).
const CLASSES: usize = 20;

/// Bytes of blocks a thread keeps per class, at most (and at least 8 blocks).
const BUDGET: usize = 8 * 1024;

/// The largest alignment served from the lists: a class's blocks are aligned to the largest
/// power of two dividing its size (jemalloc's slabs; glibc's are 16-aligned anyway), so a
/// 16-aligned request takes a class whose size is a multiple of 16.
const ALIGN: usize = 16;

/// The size class of a request of `size` bytes (1..=[`MAX_CACHED`]) aligned to `align`
/// (at most [`ALIGN`]).
#[inline(always)]
fn class_of(size: usize, align: usize) -> usize {
    let size = if align > 8 { size.next_multiple_of(16) } else { size.max(1) };
    if size <= 64 {
        size.div_ceil(8) - 1
    } else if size <= 128 {
        8 + (size - 65) / 16
    } else if size <= 256 {
        12 + (size - 129) / 32
    } else {
        16 + (size - 257) / 64
    }
}

/// The bytes a block of class `c` has.
#[inline(always)]
const fn class_size(c: usize) -> usize {
    match c {
        0..=7 => (c + 1) * 8,
        8..=11 => 64 + (c - 7) * 16,
        12..=15 => 128 + (c - 11) * 32,
        _ => 256 + (c - 15) * 64,
    }
}

/// Per class, how many freed blocks a thread keeps (a table: a division per free was a
/// third of `dealloc`'s time).
const LIMITS: [u16; CLASSES] = {
    let mut l = [0u16; CLASSES];
    let mut c = 0;
    while c < CLASSES {
        let n = BUDGET / class_size(c);
        l[c] = if n < 8 {
            8
        } else if n > 512 {
            512
        } else {
            n as u16
        };
        c += 1;
    }
    l
};

/// How many freed blocks of class `c` a thread keeps.
#[inline(always)]
fn limit(c: usize) -> usize {
    LIMITS.get(c).map_or(0, |&n| usize::from(n))
}

/// Where blocks come from and go back to: Redis's allocator in the module, the system's in
/// tests. It must be thread-safe and align a block of a class's size to the largest power of
/// two dividing that size, up to [`ALIGN`] (jemalloc's slabs do; glibc aligns everything to 16).
pub trait Backend {
    /// A block of `size` bytes (null when out of memory).
    ///
    /// # Safety
    /// `size` is not 0.
    unsafe fn alloc(&self, size: usize) -> *mut u8;
    /// Gives back a block [`Backend::alloc`] made.
    ///
    /// # Safety
    /// `p` came from [`Backend::alloc`] and is not used after.
    unsafe fn free(&self, p: *mut u8);
    /// Resizes a block [`Backend::alloc`] made to `size` bytes, keeping its first bytes (in
    /// place when the backend can); null when out of memory (`p` untouched then).
    ///
    /// # Safety
    /// `p` came from [`Backend::alloc`] and is not used after unless null is returned;
    /// `size` is not 0.
    unsafe fn realloc(&self, p: *mut u8, size: usize) -> *mut u8;
}

/// One thread's lists: per class, the first free block (each free block holds the address of
/// the next in its first word) and their number.
struct Lists {
    head: [Cell<*mut u8>; CLASSES],
    count: [Cell<u16>; CLASSES],
}

impl Lists {
    const fn new() -> Lists {
        Lists {
            head: [const { Cell::new(ptr::null_mut()) }; CLASSES],
            count: [const { Cell::new(0) }; CLASSES],
        }
    }
}

thread_local! {
    // Constant-initialised, without a destructor: reading it never allocates and is valid
    // until the thread's very end.
    static LISTS: Lists = const { Lists::new() };
}

/// The main thread's lists, outside thread-local storage: a library's thread-local is
/// reached through `__tls_get_addr`, a call per allocation (3 % of a small query). Only the
/// thread whose thread pointer is [`MAIN`] touches them.
struct MainLists(Lists);

// SAFETY: one thread only uses the lists (`lists`): the one whose thread pointer, unique
// among live threads, was recorded in `MAIN`.
unsafe impl Sync for MainLists {}

static MAIN_LISTS: MainLists = MainLists(Lists::new());

/// The main thread's thread pointer (0 until [`claim_main_thread`]).
static MAIN: AtomicUsize = AtomicUsize::new(0);

/// The calling thread's thread pointer: on Linux x86-64 and AArch64 a register read, unique
/// among the process's live threads (0 elsewhere: every thread uses its thread-local).
#[inline(always)]
fn thread_pointer() -> usize {
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    {
        let tp: usize;
        // SAFETY: the x86-64 TLS ABI puts the thread control block at the FS base, its first
        // word pointing at itself; reading it touches nothing else.
        unsafe { std::arch::asm!("mov {}, fs:0", out(reg) tp, options(nostack, readonly, preserves_flags)) };
        tp
    }
    #[cfg(all(target_os = "linux", target_arch = "aarch64"))]
    {
        let tp: usize;
        // SAFETY: TPIDR_EL0 holds the thread pointer; reading it has no effect.
        unsafe {
            std::arch::asm!("mrs {}, tpidr_el0", out(reg) tp, options(nomem, nostack, preserves_flags))
        };
        tp
    }
    #[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))))]
    {
        0
    }
}

/// Makes the calling thread the one that uses the main lists (Redis's main thread, at load;
/// a forked child's only thread is a copy of it, with its thread pointer and lists).
pub fn claim_main_thread() {
    let tp = thread_pointer();
    if tp != 0 {
        MAIN.store(tp, Ordering::Relaxed);
    }
}

/// The calling thread's lists: `f` of them (`None` while thread-locals are torn down).
#[inline(always)]
fn with_lists<R>(f: impl FnOnce(&Lists) -> R) -> Option<R> {
    let tp = thread_pointer();
    if tp != 0 && tp == MAIN.load(Ordering::Relaxed) {
        return Some(f(&MAIN_LISTS.0));
    }
    LISTS.try_with(f).ok()
}

/// [`Backend`]'s allocations behind per-thread lists of freed small blocks. One per process
/// (the lists are per thread, not per allocator).
pub struct Cached<B>(pub B);

impl<B: Backend> Cached<B> {
    /// Takes a block of class `c` from this thread's list, if it has one.
    #[inline(always)]
    fn take(c: usize) -> *mut u8 {
        with_lists(|l| {
            let (Some(head), Some(count)) = (l.head.get(c), l.count.get(c)) else {
                return ptr::null_mut();
            };
            let p = head.get();
            if !p.is_null() {
                // SAFETY: a block on the list is a live backend block of at least 8 bytes,
                // 8-aligned, whose first word holds the next block's address (by `give`).
                head.set(unsafe { p.cast::<*mut u8>().read() });
                count.set(count.get() - 1);
            }
            p
        })
        .unwrap_or(ptr::null_mut())
    }

    /// Puts block `p` of class `c` on this thread's list; false when the list is full.
    #[inline(always)]
    fn give(c: usize, p: *mut u8) -> bool {
        with_lists(|l| {
            let (Some(head), Some(count)) = (l.head.get(c), l.count.get(c)) else { return false };
            if usize::from(count.get()) >= limit(c) {
                return false;
            }
            // SAFETY: `p` is a block of class `c` (at least 8 bytes, 8-aligned) that its
            // owner gave up: its first word is ours to use as the link.
            unsafe { p.cast::<*mut u8>().write(head.get()) };
            head.set(p);
            count.set(count.get() + 1);
            true
        })
        .unwrap_or(false)
    }

    /// Gives every block on this thread's lists back to the backend.
    pub fn release(&self) {
        for c in 0..CLASSES {
            loop {
                let p = Self::take(c);
                if p.is_null() {
                    break;
                }
                // SAFETY: `p` came off a list: a backend block nobody else holds.
                unsafe { self.0.free(p) };
            }
        }
    }

    /// The number of blocks on this thread's lists (tests).
    pub fn cached_blocks(&self) -> usize {
        with_lists(|l| l.count.iter().map(|c| usize::from(c.get())).sum()).unwrap_or(0)
    }
}

/// Whether `layout` is served through the lists.
#[inline(always)]
fn cached(layout: Layout) -> bool {
    layout.size() <= MAX_CACHED && layout.align() <= ALIGN
}

// SAFETY: blocks come from the backend, sized and aligned for their layout (a cached size gets
// its whole class, whose blocks are aligned for the request: `class_of`; others the size
// rounded up to the alignment, as redis-module's allocator does), and each is handed out once
// until freed: a list's block is unlinked before it is returned, and a freed block is linked
// only by the thread freeing it.
unsafe impl<B: Backend> GlobalAlloc for Cached<B> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if cached(layout) {
            let c = class_of(layout.size(), layout.align());
            let p = Self::take(c);
            if !p.is_null() {
                return p;
            }
            // SAFETY: a class size is not 0.
            return unsafe { self.0.alloc(class_size(c)) };
        }
        let size = (layout.size() + layout.align() - 1) & !(layout.align() - 1);
        // SAFETY: the size is at least the layout's, which is not 0.
        unsafe { self.0.alloc(size) }
    }

    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if cached(layout) && Self::give(class_of(layout.size(), layout.align()), p) {
            return;
        }
        // SAFETY: `p` came from `alloc` with this layout, so from the backend.
        unsafe { self.0.free(p) }
    }

    #[inline]
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Within its class a block already has the bytes (and is freed as that class).
        if cached(layout)
            && new_size <= MAX_CACHED
            && class_of(layout.size(), layout.align()) == class_of(new_size, layout.align())
        {
            return p;
        }
        if layout.align() <= ALIGN && layout.size() > MAX_CACHED && new_size > MAX_CACHED {
            // Large to large: the backend resizes it, in place when it can. (Small blocks go
            // through the lists: a backend resize costs more than a list's alloc and free.)
            // SAFETY: `p` came from the backend; `new_size` is not 0.
            return unsafe { self.0.realloc(p, new_size) };
        }
        // SAFETY: `new_size` with the layout's alignment is a valid layout (the caller's
        // contract); allocate, copy the kept bytes, free the old block.
        unsafe {
            let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
            let q = self.alloc(new_layout);
            if !q.is_null() {
                ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                self.dealloc(p, layout);
            }
            q
        }
    }
}

/// Redis's allocator (`RedisModule_Alloc` / `RedisModule_Free`), as redis-module's
/// `RedisAlloc` calls it.
pub struct Redis;

impl Backend for Redis {
    #[inline]
    unsafe fn alloc(&self, size: usize) -> *mut u8 {
        // SAFETY: the API's function pointers are set once, at load, before any allocation
        // of the module's code.
        match unsafe { redis_module::raw::RedisModule_Alloc } {
            // SAFETY: RM_Alloc takes any size.
            Some(alloc) => unsafe { alloc(size) }.cast(),
            None => std::process::abort(),
        }
    }

    #[inline]
    unsafe fn free(&self, p: *mut u8) {
        // SAFETY: as in `alloc`.
        match unsafe { redis_module::raw::RedisModule_Free } {
            // SAFETY: `p` came from RM_Alloc.
            Some(free) => unsafe { free(p.cast()) },
            None => std::process::abort(),
        }
    }

    #[inline]
    unsafe fn realloc(&self, p: *mut u8, size: usize) -> *mut u8 {
        // SAFETY: as in `alloc`.
        match unsafe { redis_module::raw::RedisModule_Realloc } {
            // SAFETY: `p` came from RM_Alloc (RM_Realloc keeps Redis's count right).
            Some(realloc) => unsafe { realloc(p.cast(), size) }.cast(),
            None => std::process::abort(),
        }
    }
}

/// Gives the calling thread's cached blocks back to Redis (a worker thread about to end; the
/// module's global allocator is a `Cached<Redis>`, and the lists are the thread's).
pub fn release_thread_cache() {
    Cached(Redis).release();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::System;
    use std::sync::atomic::{AtomicIsize, Ordering};

    /// The system allocator, counting its live blocks.
    struct Counting(AtomicIsize);

    impl Backend for Counting {
        unsafe fn alloc(&self, size: usize) -> *mut u8 {
            self.0.fetch_add(1, Ordering::Relaxed);
            // SAFETY: size is not 0; 16 is a valid alignment.
            unsafe { System.alloc(Layout::from_size_align_unchecked(size, ALIGN)) }
        }
        unsafe fn free(&self, p: *mut u8) {
            self.0.fetch_sub(1, Ordering::Relaxed);
            // SAFETY: System's dealloc ignores the size on this platform's malloc; the
            // alignment is the one `alloc` used.
            unsafe { System.dealloc(p, Layout::from_size_align_unchecked(1, ALIGN)) }
        }
        unsafe fn realloc(&self, p: *mut u8, size: usize) -> *mut u8 {
            // SAFETY: `alloc`'s blocks are malloc's (16-byte alignment, at most the size).
            unsafe { libc::realloc(p.cast(), size) }.cast()
        }
    }

    #[test]
    fn classes_are_jemallocs_and_hold_their_requests() {
        let sizes: Vec<usize> = (0..CLASSES).map(class_size).collect();
        assert_eq!(
            sizes,
            [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512]
        );
        for size in 1..=MAX_CACHED {
            for align in [1, 2, 4, 8, 16] {
                let c = class_of(size, align);
                let fits = |c: usize| class_size(c) >= size && class_size(c).is_multiple_of(align.max(8));
                assert!(fits(c), "{size} aligned to {align}: class {c}");
                assert!((0..c).all(|k| !fits(k)), "{size} aligned to {align} not in its smallest class");
            }
        }
    }

    /// Random allocations, reallocations and frees of sizes around the classes, each block
    /// filled with a pattern of its own and checked before it goes: a block handed out twice,
    /// or too small for its request, shows as a broken pattern (and under a sanitizer).
    #[test]
    fn blocks_are_never_shared_and_all_go_back() {
        let a = Cached(Counting(AtomicIsize::new(0)));
        let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let check = |p: *mut u8, l: Layout, tag: u8| {
            // SAFETY: `p` is a live block of `l.size()` bytes.
            let bytes = unsafe { std::slice::from_raw_parts(p, l.size()) };
            assert!(bytes.iter().all(|&b| b == tag), "a block's bytes changed under it");
        };
        for step in 0..200_000u32 {
            let r = next();
            if live.len() < 3_000 && (r % 3 != 0 || live.is_empty()) {
                let size = match r % 4 {
                    0 => 1 + (r >> 8) as usize % 64,
                    1 => 1 + (r >> 8) as usize % MAX_CACHED,
                    2 => 100 + (r >> 8) as usize % 1_000,
                    _ => 1 + (r >> 8) as usize % 32,
                };
                let align = if r % 97 == 0 { 64 } else { 1 << ((r >> 40) % 5) };
                let l = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a non-zero size.
                let p = unsafe { a.alloc(l) };
                assert!(!p.is_null());
                assert_eq!(p as usize % align.min(ALIGN), 0, "misaligned");
                let tag = step as u8;
                // SAFETY: a fresh block of `size` bytes.
                unsafe { ptr::write_bytes(p, tag, size) };
                live.push((p, l, tag));
            } else {
                let i = (r >> 16) as usize % live.len();
                let (p, l, tag) = live.swap_remove(i);
                check(p, l, tag);
                if r % 5 == 0 {
                    // Reallocate (GlobalAlloc's default: alloc, copy, dealloc).
                    let new = 1 + (r >> 24) as usize % 700;
                    // SAFETY: `p` is live with layout `l`; `new` is not 0.
                    let q = unsafe { a.realloc(p, l, new) };
                    let nl = Layout::from_size_align(new, l.align()).unwrap();
                    // SAFETY: the kept prefix holds the old tag; the rest is ours to fill.
                    unsafe {
                        let kept = std::slice::from_raw_parts(q, new.min(l.size()));
                        assert!(kept.iter().all(|&b| b == tag));
                        ptr::write_bytes(q, tag, new);
                    }
                    live.push((q, nl, tag));
                } else {
                    // SAFETY: `p` is live with layout `l`.
                    unsafe { a.dealloc(p, l) };
                }
            }
            let cached = a.cached_blocks();
            assert!(cached <= (0..CLASSES).map(limit).sum::<usize>());
        }
        for (p, l, tag) in live.drain(..) {
            check(p, l, tag);
            // SAFETY: live with layout `l`.
            unsafe { a.dealloc(p, l) };
        }
        assert!(a.cached_blocks() > 0, "the lists kept nothing: the cache was never used");
        a.release();
        assert_eq!(a.cached_blocks(), 0);
        assert_eq!(a.0 .0.load(Ordering::Relaxed), 0, "blocks not given back to the backend");
    }

    /// The claimed main thread keeps its blocks on the main lists, not in its thread-local.
    #[test]
    fn the_main_thread_uses_the_main_lists() {
        std::thread::spawn(|| {
            let a = Cached(Counting(AtomicIsize::new(0)));
            claim_main_thread();
            let l = Layout::from_size_align(24, 8).unwrap();
            // SAFETY: a non-zero size; the block is freed with its layout.
            unsafe { a.dealloc(a.alloc(l), l) };
            let c = class_of(24, 8);
            let on_main = MAIN_LISTS.0.count[c].get();
            let on_thread = LISTS.with(|t| t.count[c].get());
            a.release();
            // Unclaimed before the thread ends (a later thread may get its thread pointer).
            MAIN.store(0, Ordering::Relaxed);
            assert_eq!(a.0 .0.load(Ordering::Relaxed), 0);
            if thread_pointer() != 0 {
                assert_eq!((on_main, on_thread), (1, 0));
            }
        })
        .join()
        .unwrap();
    }

    /// A block freed on another thread joins that thread's list and is reused there.
    #[test]
    fn a_block_freed_on_another_thread_stays_a_backend_block() {
        let a = std::sync::Arc::new(Cached(Counting(AtomicIsize::new(0))));
        let l = Layout::from_size_align(40, 8).unwrap();
        // SAFETY: a non-zero size.
        let p = unsafe { a.alloc(l) } as usize;
        let b = a.clone();
        std::thread::spawn(move || {
            // SAFETY: `p` is live with layout `l`, handed over to this thread.
            unsafe { b.dealloc(p as *mut u8, l) };
            assert_eq!(b.cached_blocks(), 1);
            // SAFETY: a non-zero size.
            let q = unsafe { b.alloc(l) };
            assert_eq!(q as usize, p, "the list's block is taken first");
            // SAFETY: live with layout `l`.
            unsafe { b.dealloc(q, l) };
            b.release();
        })
        .join()
        .unwrap();
        assert_eq!(a.cached_blocks(), 0);
        assert_eq!(a.0 .0.load(Ordering::Relaxed), 0);
    }
}
