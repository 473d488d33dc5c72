//! Helpers shared by the `value_*` integration tests.

use json::{Num, Value};

/// Structural comparison with serde_json's reading of the same text.
pub fn same_as_serde(ours: &Value, theirs: &serde_json::Value) -> bool {
    use serde_json::Value as S;
    match theirs {
        S::Null => ours.is_null(),
        S::Bool(b) => ours.as_bool() == Some(*b),
        S::Number(n) => match (ours.as_num(), n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(Num::I64(a)), Some(b), _, _) => a == b,
            (Some(Num::U64(a)), None, Some(b), _) => a == b,
            (Some(Num::F64(a)), None, None, Some(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        },
        S::String(s) => ours.as_str() == Some(s.as_str()),
        S::Array(items) => {
            ours.len() == Some(items.len()) && ours.iter().zip(items).all(|(a, b)| same_as_serde(&a, b))
        }
        S::Object(map) => {
            ours.obj_len() == Some(map.len())
                && map.iter().all(|(k, b)| ours.obj_get(k).is_some_and(|a| same_as_serde(a, b)))
        }
    }
}
