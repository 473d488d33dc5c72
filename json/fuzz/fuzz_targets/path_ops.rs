//! Splits the input into a document and a path and runs every op: must never panic, and a
//! failed op must leave the document unchanged.
#![no_main]

use json::ops::{array, clear, del, num, set, string, toggle};
use json::path::JsonPath;
use json::Value;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(split) = data.iter().position(|&b| b == 0) else {
        return;
    };
    let (doc, path) = (&data[..split], &data[split + 1..]);
    let Ok(mut doc) = Value::parse(doc) else {
        return;
    };
    let Ok(path) = std::str::from_utf8(path) else {
        return;
    };
    let Ok(path) = JsonPath::parse(path) else {
        return;
    };
    let before = doc.clone();
    if num::num_incr_by(&mut doc, &path, "3").is_err() {
        assert!(doc == before);
    }
    let before = doc.clone();
    if array::arr_insert(&mut doc, &path, -2, &[Value::null()]).is_err() {
        assert!(doc == before);
    }
    let _ = set::set(
        &mut doc,
        &path,
        Value::from(1i64),
        set::SetCondition::Always,
    );
    let patch = doc.clone();
    let _ = set::merge(&mut doc, &path, &patch);
    let _ = string::str_append(&mut doc, &path, "\"z\"");
    let _ = array::arr_append(&mut doc, &path, &[Value::from(true)]);
    let _ = array::arr_pop(&mut doc, &path, -1);
    let _ = array::arr_trim(&mut doc, &path, 1, -2);
    let _ = toggle::toggle(&mut doc, &path);
    let _ = clear::clear(&mut doc, &path);
    let _ = del::del(&mut doc, &path);
});
