//! Deep, type-strict equality of [`Value`]s (RedisJSON `ARRINDEX` semantics).
//!
//! Integers equal integers of the same value; an integer never equals a float
//! (`1 != 1.0`); floats compare with IEEE `==`. Objects are equal when they have
//! the same keys with equal values, whatever their order.

use super::{Repr, Value};

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (&self.0, &other.0) {
            (Repr::Null, Repr::Null) => true,
            (Repr::Bool(a), Repr::Bool(b)) => a == b,
            (Repr::I64(a), Repr::I64(b)) => a == b,
            (Repr::U64(a), Repr::U64(b)) => a == b,
            (Repr::F64(a), Repr::F64(b)) => a == b,
            (Repr::Array(a), Repr::Array(b)) => a.as_slice() == b.as_slice(),
            (Repr::Array(_) | Repr::Packed(_), Repr::Array(_) | Repr::Packed(_)) => {
                match (self.as_array(), other.as_array()) {
                    (Some(a), Some(b)) => a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| *x == *y),
                    _ => false,
                }
            }
            (Repr::Object(a), Repr::Object(b)) if a.same_keys(b) => a.values().eq(b.values()),
            (Repr::Object(a), Repr::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v == w))
            }
            _ => match (self.as_str(), other.as_str()) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        }
    }
}
