//! Process-wide interning of immutable, refcounted heap blocks.
//!
//! Long strings ([`super::string`]) and object shapes ([`super::shape`]) are
//! stored once per distinct content: every block starts with an
//! `AtomicU32` reference count, and a global table (one per kind, behind a
//! `Mutex`) finds the block holding given bytes. Further copies of a document
//! then share its strings and key lists instead of owning them.
//!
//! Concurrency rule (what makes the table sound from any thread):
//! - a new reference is taken either from an existing one (clone: atomic
//!   increment, no lock, the count is already >= 1) or by a lookup under the lock;
//! - a reference is released without the lock only while others remain
//!   (compare-and-swap from `c > 1` to `c - 1`); the last reference is
//!   released under the lock, and the block leaves the table in the same
//!   critical section, so a lookup can never revive a dying block.

use std::hash::BuildHasher;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};

use hashbrown::HashTable;

/// What a table needs to know about one kind of block.
pub(crate) trait BlockKind {
    /// The content the table is keyed by.
    ///
    /// # Safety
    /// `p` must point at a live block of this kind; the slice lives as long as the block.
    unsafe fn content<'a>(p: NonNull<u8>) -> &'a [u8];

    /// Frees a block whose count reached zero.
    ///
    /// # Safety
    /// `p` must be a live block of this kind that nothing references any more.
    unsafe fn free(p: NonNull<u8>);
}

/// The reference count at the start of every block.
///
/// # Safety
/// `p` must point at a live block whose first field is an `AtomicU32` count.
#[inline]
unsafe fn count<'a>(p: NonNull<u8>) -> &'a AtomicU32 {
    // SAFETY: 1. guaranteed by the caller: the block starts with an aligned AtomicU32.
    unsafe { &*p.as_ptr().cast::<AtomicU32>() }
}

/// Adds a reference to a live block (the caller holds one already).
///
/// # Safety
/// `p` must point at a live block the caller holds a reference to.
#[inline]
pub(crate) unsafe fn retain(p: NonNull<u8>) {
    // SAFETY: 1. `p` is live (caller's reference).
    let c = unsafe { count(p) };
    // Relaxed like `Arc::clone`: the caller's reference keeps the block alive.
    if c.fetch_add(1, Ordering::Relaxed) == u32::MAX {
        // 4 billion references to one block: cannot happen within Redis memory;
        // refuse to wrap (that would free a live block).
        super::string::capacity_overflow();
    }
}

/// Releases one reference without the table: true when the caller held the last one.
/// Used for blocks that are not in any table (uniquely owned shapes).
///
/// # Safety
/// `p` must point at a live block the caller holds a reference to, and the
/// caller gives that reference up.
#[inline]
pub(crate) unsafe fn release_unlisted(p: NonNull<u8>) -> bool {
    // SAFETY: 1. `p` is live (caller's reference).
    let c = unsafe { count(p) };
    if c.fetch_sub(1, Ordering::Release) == 1 {
        std::sync::atomic::fence(Ordering::Acquire);
        return true;
    }
    false
}

/// True when the caller's reference is the only one (so the block may be changed in place,
/// if it is not in a table).
///
/// # Safety
/// `p` must point at a live block the caller holds a reference to.
#[inline]
pub(crate) unsafe fn is_unique(p: NonNull<u8>) -> bool {
    // SAFETY: 1. `p` is live (caller's reference).
    unsafe { count(p) }.load(Ordering::Acquire) == 1
}

/// Shared blocks already counted by one memory measurement (see `Value::mem_usage`).
#[derive(Default)]
pub(crate) struct Counted(hashbrown::HashSet<usize, foldhash::fast::FixedState>);

impl Counted {
    /// True the first time `p` is seen by this measurement.
    #[inline]
    pub(crate) fn first(&mut self, p: NonNull<u8>) -> bool {
        self.0.insert(p.as_ptr() as usize)
    }
}

/// A block pointer held by a table.
struct Entry(NonNull<u8>);

// SAFETY: 1. the table only reads immutable content and the atomic count of
// blocks, which are `Sync`; entries move between threads only inside the Mutex.
unsafe impl Send for Entry {}

struct Inner {
    set: HashTable<Entry>,
    /// Seeded on first use (random per process, against collision flooding).
    state: Option<foldhash::fast::RandomState>,
}

/// A process-wide set of blocks of kind `K`, by content.
pub(crate) struct Table<K> {
    inner: Mutex<Inner>,
    _kind: std::marker::PhantomData<fn() -> K>,
}

impl<K: BlockKind> Table<K> {
    /// An empty table (no allocation until the first insert).
    pub(crate) const fn new() -> Self {
        Table {
            inner: Mutex::new(Inner { set: HashTable::new(), state: None }),
            _kind: std::marker::PhantomData,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the set inconsistent in a
        // way that matters more than aborting Redis would; keep going.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A reference to the block holding `content`: an existing one (count + 1)
    /// or the one `make` allocates (count 1, content equal to `content`).
    pub(crate) fn intern(&self, content: &[u8], make: impl FnOnce() -> NonNull<u8>) -> NonNull<u8> {
        let mut g = self.lock();
        let inner = &mut *g;
        let state = inner.state.get_or_insert_with(foldhash::fast::RandomState::default);
        let hash = state.hash_one(content);
        // SAFETY: 1. every entry is a live block of kind K (entries leave the
        // table before their block is freed, under this lock).
        let found = inner.set.find(hash, |e| unsafe { K::content(e.0) } == content);
        if let Some(e) = found {
            // SAFETY: 1. the entry is live (see above), and its count cannot reach
            // zero while we hold the lock (the last release takes the lock).
            unsafe { retain(e.0) };
            return e.0;
        }
        let p = make();
        inner.set.insert_unique(hash, Entry(p), |e| {
            // SAFETY: 1. entries are live blocks (see above).
            state.hash_one(unsafe { K::content(e.0) })
        });
        p
    }

    /// Releases one reference to a block of this table, freeing it with the last one.
    ///
    /// # Safety
    /// `p` must be a block returned by [`Table::intern`] of this table (or a
    /// retained copy of it), and the caller gives up one reference.
    pub(crate) unsafe fn release(&self, p: NonNull<u8>) {
        // SAFETY: 1. `p` is live: the caller still holds its reference.
        let c = unsafe { count(p) };
        let mut cur = c.load(Ordering::Relaxed);
        while cur > 1 {
            match c.compare_exchange_weak(cur, cur - 1, Ordering::Release, Ordering::Relaxed) {
                Ok(_) => return,
                Err(now) => cur = now,
            }
        }
        let mut g = self.lock();
        if c.fetch_sub(1, Ordering::AcqRel) != 1 {
            // Another reference was taken (by a lookup) before we got the lock.
            return;
        }
        let inner = &mut *g;
        // SAFETY: 1. `p` is still live (only freed below), its content unchanged.
        let content = unsafe { K::content(p) };
        if let Some(state) = &inner.state {
            let hash = state.hash_one(content);
            if let Ok(entry) = inner.set.find_entry(hash, |e| e.0 == p) {
                entry.remove();
            }
        }
        drop(g);
        // SAFETY: 1. the count is zero and the block left the table under the
        // lock: no reference remains and none can be created.
        unsafe { K::free(p) };
    }

    /// Number of blocks in the table and the bytes of the table itself.
    pub(crate) fn stats(&self) -> (usize, usize) {
        let g = self.lock();
        (g.set.len(), g.set.allocation_size())
    }
}
