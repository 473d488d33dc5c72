//! The json crate's fuzz entry points, shared by the libFuzzer targets (`fuzz_targets/`) and by
//! the corpus replay in the root crate's `tests/fuzz_corpora.rs` (which `make test` runs).

use json::ops::{array, clear, del, num, set, string, toggle};
use json::path::JsonPath;
use json::Value;

const DOC: &[u8] = br#"{"a":[1,{"a":2,"b":[true,null]},"s"],"b":{"a":{"b":"x"},"c":[[]]},"0":1.5,"k y":-1}"#;

/// Compiles arbitrary text as a path and evaluates it on a fixed document: must never panic, and
/// every way of selecting agrees.
pub fn path_parse_eval(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(path) = JsonPath::parse(text) else { return };
    let Ok(doc) = Value::parse(DOC) else { return };
    let all = path.select(&doc);
    let located = path.select_located(&doc);
    assert_eq!(all.len(), located.len());
    if let Some(first) = path.first(&doc) {
        match (first.as_ref_value(), all[0].as_ref_value()) {
            (Some(a), Some(b)) => assert!(std::ptr::eq(a, b)),
            _ => assert!(*first == *all[0]),
        }
    }
}

/// Splits the input at the first NUL into a document and a path and runs every op: must never
/// panic, and a failed op must leave the document unchanged.
pub fn path_ops(data: &[u8]) {
    let Some(split) = data.iter().position(|&b| b == 0) else { return };
    let (doc, path) = (&data[..split], &data[split + 1..]);
    let Ok(mut doc) = Value::parse(doc) else { return };
    let Ok(path) = std::str::from_utf8(path) else { return };
    let Ok(path) = JsonPath::parse(path) else { return };
    let before = doc.clone();
    if num::num_incr_by(&mut doc, &path, "3").is_err() {
        assert!(doc == before);
    }
    let before = doc.clone();
    if array::arr_insert(&mut doc, &path, -2, &[Value::null()]).is_err() {
        assert!(doc == before);
    }
    let _ = set::set(&mut doc, &path, Value::from(1i64), set::SetCondition::Always);
    let patch = doc.clone();
    let _ = set::merge(&mut doc, &path, &patch);
    let _ = string::str_append(&mut doc, &path, "\"z\"");
    let _ = array::arr_append(&mut doc, &path, &[Value::from(true)]);
    let _ = array::arr_pop(&mut doc, &path, -1);
    let _ = array::arr_trim(&mut doc, &path, 1, -2);
    let _ = toggle::toggle(&mut doc, &path);
    let _ = clear::clear(&mut doc, &path);
    let _ = del::del(&mut doc, &path);
}
