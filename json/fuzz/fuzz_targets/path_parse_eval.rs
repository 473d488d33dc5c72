//! Compiles arbitrary text as a path and evaluates it on a fixed document: must never panic.
#![no_main]

use json::path::JsonPath;
use json::Value;
use libfuzzer_sys::fuzz_target;

const DOC: &[u8] =
    br#"{"a":[1,{"a":2,"b":[true,null]},"s"],"b":{"a":{"b":"x"},"c":[[]]},"0":1.5,"k y":-1}"#;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(path) = JsonPath::parse(text) else {
        return;
    };
    let Ok(doc) = Value::parse(DOC) else { return };
    let all = path.select(&doc);
    let located = path.select_located(&doc);
    assert_eq!(all.len(), located.len());
    if let Some(first) = path.first(&doc) {
        assert!(std::ptr::eq(first, all[0]));
    }
});
