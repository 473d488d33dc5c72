//! Cache hints for reading many documents one after the other (a search result page).
//!
//! Serializing a document that is not in the cache waits for each block of its tree in turn:
//! the value, its object block, its key list, each string's block. A reader that is about to
//! read several documents can ask for the blocks of all of them first, level by level
//! ([`Value::prefetch`] on each, then [`Value::prefetch_children`] on each), so that those
//! waits overlap instead of adding up. Hints only: nothing is read but the blocks already
//! asked for, and nothing changes.

use super::{Repr, Value};

/// Cache lines asked for at the start of a long string (its header and first bytes; the
/// hardware's own prefetcher follows a copy of the rest: asking for every line of a string
/// measured no faster).
const STRING_LINES: usize = 2;

/// Asks the CPU to start loading the cache line of `p` (no effect for null, nor off x86-64).
#[inline(always)]
fn line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    if !p.is_null() {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: 1. a prefetch is a hint that never faults, whatever the address. SSE is
        // part of every x86-64 CPU.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

impl Value {
    /// Asks the CPU to start loading the value itself (its 16 bytes, where a document's
    /// root is held out of line).
    #[inline]
    pub fn prefetch_self(&self) {
        line((self as *const Value).cast::<u8>());
    }

    /// Asks the CPU to start loading this value's own block: an object's or an array's
    /// block, the start of a long string. Reads only the value itself.
    #[inline]
    pub fn prefetch(&self) {
        match &self.0 {
            Repr::Object(o) => line(o.addr()),
            Repr::Array(a) => line(a.addr()),
            Repr::HeapStr(s) => {
                for i in 0..STRING_LINES {
                    line(s.addr().wrapping_add(64 * i));
                }
            }
            _ => {}
        }
    }

    /// For an object or an array: asks for its key list and for the block of every child
    /// ([`Value::prefetch`]). Reads the container's block, so [`Value::prefetch`] it first.
    pub fn prefetch_children(&self) {
        match &self.0 {
            Repr::Object(o) => {
                line(o.keys_addr());
                o.values().for_each(Value::prefetch);
            }
            Repr::Array(a) => a.iter().for_each(Value::prefetch),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_change_nothing() {
        let text = r#"{"a":"a string longer than the inline capacity of a value","b":[1,2,{"c":null}],"d":{},"e":[],"f":1.5}"#;
        let v = Value::parse(text.as_bytes()).unwrap();
        v.prefetch_self();
        v.prefetch();
        v.prefetch_children();
        for (_, child) in v.as_object().unwrap().iter() {
            child.prefetch();
            child.prefetch_children();
        }
        Value::null().prefetch_children();
        assert_eq!(v.to_json(), text);
    }
}
