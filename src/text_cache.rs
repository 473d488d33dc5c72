//! The compact JSON text of documents that are read whole again and again.
//!
//! `JSON.GET key` (or `key .` / `key $`) of a document that does not change is the cache pattern of
//! shared/seeds/004: a plain `GET` of a string would send stored bytes, a JSON document has to be
//! serialized on every read. This cache keeps the compact text of documents read whole at least
//! twice in a row without a write in between, so further reads cost one copy, as a plain `GET` does.
//!
//! Correctness rests on one rule: **every route to a mutable document drops its entry first**.
//! The routes are [`crate::keys::JsonKey`]'s `value` / `existing` / `put` / `delete` (all JSON
//! writes go through them) and the data type's `free` callback (DEL, expiry, eviction, FLUSHALL
//! including its background form, overwrite by another type, DEBUG RELOAD). Entries are keyed by
//! the document's address, which stays put while the document lives (RENAME, MOVE and SWAPDB keep
//! it, and its text with it) and can only be reused after `free` dropped the entry.
//!
//! The cache is small and bounded: [`SLOTS`] slots, two ways per address (a document goes in one
//! of two neighbouring slots, so two hot documents of one slot do not evict each other on every
//! read: with one way, a page of 10 documents read again and again had one chance in six to
//! hold such a pair, serialized on every read), entries up to [`MAX_ENTRY`]
//! bytes, [`MAX_TOTAL`] bytes in all; a document is admitted on its second whole read since its
//! last write, so a scan that reads every key once caches nothing. A global mutex guards it because
//! `free` can run on Redis's lazy-free thread.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use json::Value;

/// Number of slots (a power of two).
const SLOTS: usize = 256;
/// Largest text kept, in bytes.
const MAX_ENTRY: usize = 512 * 1024;
/// Most bytes kept in all.
const MAX_TOTAL: usize = 8 * 1024 * 1024;

#[derive(Default)]
enum Slot {
    #[default]
    Empty,
    /// The document at this address was read whole once since its last write.
    Seen(usize),
    /// Its compact text.
    Text(usize, Box<[u8]>),
}

/// The slots and the bytes they hold.
struct Cache {
    slots: Vec<Slot>,
    bytes: usize,
}

static CACHE: Mutex<Cache> = Mutex::new(Cache { slots: Vec::new(), bytes: 0 });

/// Slots in use (`Seen` or `Text`): while it is 0, [`forget`] returns without taking the lock (a
/// server that writes documents and never reads them whole pays one atomic load per write).
/// Only grows under the lock on the main thread; a document being freed on the lazy-free thread
/// is no longer reachable by readers, so a stale 0 seen there cannot hide its own entry.
static IN_USE: AtomicUsize = AtomicUsize::new(0);

fn slot_of(addr: usize) -> usize {
    // Documents are at least 16-byte aligned heap blocks: mix the bits above the alignment.
    let x = (addr >> 4).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (x >> 56) & (SLOTS - 1)
}

fn address(doc: &Value) -> usize {
    doc as *const Value as usize
}

fn lock() -> std::sync::MutexGuard<'static, Cache> {
    // A panic while holding the lock cannot leave the slots inconsistent (every update is a
    // single assignment), so a poisoned lock is still usable.
    CACHE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The two slots an address may take.
fn ways(addr: usize) -> [usize; 2] {
    let i = slot_of(addr);
    [i, i ^ 1]
}

impl Slot {
    fn holds(&self, addr: usize) -> bool {
        matches!(self, Slot::Seen(a) | Slot::Text(a, _) if *a == addr)
    }
}

impl Cache {
    /// The slot holding `addr`'s entry.
    fn find(&self, addr: usize) -> Option<usize> {
        ways(addr).into_iter().find(|&i| self.slots.get(i).is_some_and(|s| s.holds(addr)))
    }

    fn take(&mut self, addr: usize) {
        let Some(i) = self.find(addr) else { return };
        self.set(i, Slot::Empty);
    }

    /// Puts `slot` at `i`, keeping the byte total and [`IN_USE`] right.
    fn set(&mut self, i: usize, slot: Slot) {
        let Some(old) = self.slots.get_mut(i) else { return };
        let was_empty = matches!(old, Slot::Empty);
        let is_empty = matches!(slot, Slot::Empty);
        if let Slot::Text(_, t) = &*old {
            self.bytes -= t.len();
        }
        if let Slot::Text(_, t) = &slot {
            self.bytes += t.len();
        }
        *old = slot;
        match (was_empty, is_empty) {
            (true, false) => {
                IN_USE.fetch_add(1, Ordering::Relaxed);
            }
            (false, true) => {
                IN_USE.fetch_sub(1, Ordering::Relaxed);
            }
            _ => {}
        }
    }
}

/// Drops the entry of the document at `doc` (call before the document changes or is freed).
pub fn forget(doc: *const Value) {
    if IN_USE.load(Ordering::Relaxed) == 0 {
        return;
    }
    lock().take(doc as usize);
}

/// Calls `send` with the compact JSON text of `doc`: from the cache when it holds it, else written
/// by `doc.write_json` into `scratch` (and kept if this is the document's second whole read).
pub fn with_text<R>(doc: &Value, scratch: &mut Vec<u8>, send: impl FnOnce(&[u8]) -> R) -> R {
    let send = match cached(doc, send) {
        Ok(r) => return r,
        Err(send) => send,
    };
    scratch.clear();
    doc.write_json(scratch, &json::Format::COMPACT);
    remember(doc, scratch);
    send(scratch)
}

/// The compact JSON text of `doc` as an owned buffer (a search row's document): a copy of the
/// cached text, else a copy of the text written into this thread's reused buffer (one
/// allocation of the right size, where writing into a new buffer grows it several times).
pub fn owned_text(doc: &Value) -> Vec<u8> {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        let text = with_text(doc, &mut s, <[u8]>::to_vec);
        if s.capacity() > MAX_ENTRY {
            *s = Vec::new();
        }
        text
    })
}

/// `send(text)` when the cache holds the text of `doc`, else `send` back.
fn cached<R, F: FnOnce(&[u8]) -> R>(doc: &Value, send: F) -> Result<R, F> {
    let addr = address(doc);
    let cache = lock();
    match cache.find(addr).and_then(|i| cache.slots.get(i)) {
        Some(Slot::Text(_, text)) => Ok(send(text)),
        _ => Err(send),
    }
}

/// Records a whole read of `doc`, whose text is `text`: its second since its last write keeps
/// the text.
fn remember(doc: &Value, text: &[u8]) {
    let addr = address(doc);
    let mut cache = lock();
    if cache.slots.is_empty() {
        cache.slots.resize_with(SLOTS, Slot::default);
    }
    if let Some(i) = cache.find(addr) {
        // Read whole again since its last write: kept, when there is room.
        let fits = text.len() <= MAX_ENTRY && cache.bytes + text.len() <= MAX_TOTAL;
        cache.set(i, if fits { Slot::Text(addr, text.into()) } else { Slot::Empty });
        return;
    }
    // A first read: an empty way, else one only seen, else the first way.
    let way =
        |want: fn(&Slot) -> bool| ways(addr).into_iter().find(|&i| cache.slots.get(i).is_some_and(want));
    let at = way(|s| matches!(s, Slot::Empty))
        .or_else(|| way(|s| matches!(s, Slot::Seen(_))))
        .unwrap_or(slot_of(addr));
    cache.set(at, Slot::Seen(addr));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(doc: &Value) -> Vec<u8> {
        let mut scratch = Vec::new();
        with_text(doc, &mut scratch, |t| t.to_vec())
    }

    #[test]
    fn a_document_is_kept_from_its_second_read_and_forgotten_on_write() {
        let mut doc = Box::new(Value::parse(br#"{"a":[1,2,"x"]}"#).unwrap());
        let addr = address(&doc);
        assert_eq!(text(&doc), br#"{"a":[1,2,"x"]}"#);
        let at = |addr| lock().find(addr).expect("an entry");
        let i = at(addr);
        assert!(matches!(lock().slots[i], Slot::Seen(a) if a == addr));
        assert_eq!(text(&doc), br#"{"a":[1,2,"x"]}"#);
        let i = at(addr);
        assert!(matches!(lock().slots[i], Slot::Text(a, _) if a == addr));
        // A write goes through `forget` first; the next read sees the new text.
        forget(&*doc);
        *doc = Value::parse(br#"{"b":true}"#).unwrap();
        assert_eq!(text(&doc), br#"{"b":true}"#);
        assert_eq!(text(&doc), br#"{"b":true}"#);
        assert_eq!(text(&doc), br#"{"b":true}"#);
        forget(&*doc);
        assert!(lock().find(addr).is_none());
    }

    #[test]
    fn two_documents_of_one_slot_are_both_kept() {
        // Documents until two share a first way.
        let docs: Vec<Box<Value>> =
            (0..2000).map(|i| Box::new(Value::parse(format!("[{i}]").as_bytes()).unwrap())).collect();
        let mut by_slot = std::collections::HashMap::new();
        let pair = docs.iter().find_map(|d| {
            let first = by_slot.insert(slot_of(address(d)), d);
            first.map(|f| (f, d))
        });
        let (x, y) = pair.expect("two documents in one slot");
        for _ in 0..2 {
            text(x);
            text(y);
        }
        assert!(cached(x, |_| ()).is_ok(), "the first document's text is kept");
        assert!(cached(y, |_| ()).is_ok(), "the second document's text is kept");
        assert_eq!(text(x), text(x));
        forget(&**x);
        forget(&**y);
        let gone = |d: &Value| lock().find(address(d)).is_none();
        assert!(gone(x));
        assert!(gone(y));
    }

    #[test]
    fn slots_spread_addresses() {
        let mut used = std::collections::HashSet::new();
        for k in 0..1024usize {
            used.insert(slot_of(0x7f00_0000_0000 + k * 16));
        }
        assert!(used.len() > SLOTS / 2, "only {} slots used", used.len());
    }
}
