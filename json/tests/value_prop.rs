//! Property tests: serialize -> parse is the identity; clones use the same memory.

use json::{Format, Value};
use proptest::prelude::*;

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::null()),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO).prop_map(Value::from),
        ".{0,40}".prop_map(|s: String| Value::from(s.as_str())),
        "[a-z\"\\\\\u{0}-\u{1f}]{0,20}".prop_map(|s: String| Value::from(s.as_str())),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(6, 200, 12, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..12).prop_map(Value::array),
            prop::collection::vec((".{0,20}", inner), 0..12).prop_map(Value::object),
        ]
    })
}

/// Exact equality: like `==` but floats compared bit for bit (so -0.0 != 0.0).
fn identical(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_f64() && b.is_f64() => return x.to_bits() == y.to_bits(),
        _ => {}
    }
    if a.is_array() {
        return a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| identical(&x, &y));
    }
    if a.is_object() {
        return a.obj_keys().eq(b.obj_keys())
            && a.obj_iter().zip(b.obj_iter()).all(|((_, x), (_, y))| identical(x, y));
    }
    a == b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn serialize_then_parse_is_identity(v in value()) {
        let text = v.to_json();
        let back = Value::parse(text.as_bytes()).map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
        prop_assert!(identical(&back, &v), "{} vs {}", back, text);
        prop_assert_eq!(back.to_json(), text);
        // serde_json agrees that the text is valid JSON.
        prop_assert!(serde_json::from_str::<serde_json::Value>(&v.to_json()).is_ok());
    }

    #[test]
    fn pretty_output_parses_back(v in value()) {
        let mut out = Vec::new();
        v.write_json(&mut out, &Format { indent: b"\t", newline: b"\n", space: b" " });
        let back = Value::parse(&out).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(identical(&back, &v));
    }

    #[test]
    fn clone_is_equal_and_same_size(v in value()) {
        let c = v.clone();
        prop_assert!(identical(&c, &v));
        prop_assert_eq!(c.mem_usage(), v.mem_usage());
    }
}
