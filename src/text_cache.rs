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
//! The cache is small and bounded: [`SLOTS`] direct-mapped slots, entries up to [`MAX_ENTRY`]
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

impl Cache {
    fn take(&mut self, addr: usize) {
        let Some(slot) = self.slots.get_mut(slot_of(addr)) else { return };
        match slot {
            Slot::Seen(a) if *a == addr => {}
            Slot::Text(a, text) if *a == addr => self.bytes -= text.len(),
            _ => return,
        }
        *slot = Slot::Empty;
        IN_USE.fetch_sub(1, Ordering::Relaxed);
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
    match cache.slots.get(slot_of(addr)) {
        Some(Slot::Text(a, text)) if *a == addr => Ok(send(text)),
        _ => Err(send),
    }
}

/// Records a whole read of `doc`, whose text is `text`: its second since its last write keeps
/// the text.
fn remember(doc: &Value, text: &[u8]) {
    let addr = address(doc);
    let i = slot_of(addr);
    let mut cache = lock();
    if cache.slots.is_empty() {
        cache.slots.resize_with(SLOTS, Slot::default);
    }
    let seen_before = matches!(cache.slots[i], Slot::Seen(a) if a == addr);
    match std::mem::take(&mut cache.slots[i]) {
        Slot::Empty => {
            IN_USE.fetch_add(1, Ordering::Relaxed);
        }
        Slot::Text(_, t) => cache.bytes -= t.len(),
        Slot::Seen(_) => {}
    }
    cache.slots[i] = if !seen_before {
        Slot::Seen(addr)
    } else if text.len() <= MAX_ENTRY && cache.bytes + text.len() <= MAX_TOTAL {
        cache.bytes += text.len();
        Slot::Text(addr, text.into())
    } else {
        IN_USE.fetch_sub(1, Ordering::Relaxed);
        Slot::Empty
    };
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
        assert!(matches!(lock().slots[slot_of(addr)], Slot::Seen(a) if a == addr));
        assert_eq!(text(&doc), br#"{"a":[1,2,"x"]}"#);
        assert!(matches!(lock().slots[slot_of(addr)], Slot::Text(a, _) if a == addr));
        // A write goes through `forget` first; the next read sees the new text.
        forget(&*doc);
        *doc = Value::parse(br#"{"b":true}"#).unwrap();
        assert_eq!(text(&doc), br#"{"b":true}"#);
        assert_eq!(text(&doc), br#"{"b":true}"#);
        assert_eq!(text(&doc), br#"{"b":true}"#);
        forget(&*doc);
        assert!(matches!(lock().slots[slot_of(addr)], Slot::Empty));
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
