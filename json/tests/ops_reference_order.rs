//! The orders RedisJSON 2.8.3 leaves behind, as pure functions: key order after removals
//! (swap-remove, deletions of several members in its sort order) and the BSON input reader.
//! Expected values were taken from rejson.so 2.8.3 (`JSON.DEL` / `JSON.MERGE` /
//! `JSON.SET … FORMAT BSON` followed by `JSON.GET`).

use json::path::JsonPath;
use json::Value;

fn after_del(doc: &str, path: &str) -> (usize, String) {
    let mut v = Value::parse(doc.as_bytes()).expect("doc");
    let p = JsonPath::parse(path).expect("path");
    let n = json::ops::del::del(&mut v, &p);
    (n, v.to_json())
}

#[test]
fn deletions_of_several_members_go_names_first_then_numbers_highest_first() {
    let five = r#"{"k":1,"a":2,"b":3,"c":4,"e":5}"#;
    assert_eq!(after_del(five, "$.k"), (1, r#"{"e":5,"a":2,"b":3,"c":4}"#.into()));
    assert_eq!(after_del(five, r#"$["a","k"]"#), (2, r#"{"c":4,"e":5,"b":3}"#.into()));
    assert_eq!(after_del(five, r#"$["k","a"]"#), (2, r#"{"c":4,"e":5,"b":3}"#.into()));
    assert_eq!(after_del(five, "$.*"), (5, "{}".into()));
    // Keys that read as unsigned integers ("+3" too) sort after names, the highest first.
    let mixed = r#"{"5":0,"a":1,"+3":2,"9":3,"z":4,"b":5}"#;
    assert_eq!(after_del(mixed, r#"$["9","a","5"]"#), (3, r#"{"z":4,"b":5,"+3":2}"#.into()));
    assert_eq!(after_del(mixed, r#"$["+3","z"]"#), (2, r#"{"5":0,"a":1,"b":5,"9":3}"#.into()));
    // Nested: deeper locations in other objects are independent of the order.
    let nested = r#"{"x":{"x":1,"y":2,"z":3},"a":{"x":1,"y":2,"z":3}}"#;
    assert_eq!(after_del(nested, "$..x"), (2, r#"{"a":{"z":3,"y":2}}"#.into()));
    // Arrays keep shifting (highest index first).
    assert_eq!(after_del("[0,1,2,3,4]", "$[0,3,1]"), (3, "[2,4]".into()));
}

#[test]
fn merge_nulls_remove_in_the_patchs_order() {
    let mut v = Value::parse(br#"{"k":1,"a":2,"b":3,"c":4,"e":5}"#).expect("doc");
    let patch = Value::parse(br#"{"b":null,"k":null,"z":1}"#).expect("patch");
    json::ops::set::merge_patch(&mut v, &patch);
    assert_eq!(v.to_json(), r#"{"c":4,"a":2,"e":5,"z":1}"#);
}

fn bson(elements: &[u8]) -> Vec<u8> {
    let mut out = ((elements.len() + 5) as i32).to_le_bytes().to_vec();
    out.extend_from_slice(elements);
    out.push(0);
    out
}

#[test]
fn bson_documents_read_as_relaxed_extended_json() {
    let text = |b: &[u8]| json::bson::to_json_text(b);
    assert_eq!(text(&bson(b"")), Ok("null".into()));
    assert_eq!(text(&bson(b"\x10a\x00\x05\x00\x00\x00\x10b\x00\x06\x00\x00\x00")), Ok("5".into()));
    assert_eq!(text(&bson(b"\x10a\x00\x01\x00\x00\x00\x10a\x00\x03\x00\x00\x00")), Ok("3".into()));
    let sub = bson(b"\x10y\x00\x01\x00\x00\x00\x10x\x00\x02\x00\x00\x00\x10y\x00\x03\x00\x00\x00");
    assert_eq!(text(&bson(&[b"\x03a\x00".as_slice(), &sub].concat())), Ok(r#"{"y":3,"x":2}"#.into()));
    assert_eq!(
        text(&bson(b"\x09a\x00\x00\x00\x00\x00\x00\x00\x00\x7f")),
        Ok(r#"{"$date":{"$numberLong":"9151314442816847872"}}"#.into())
    );
    assert_eq!(
        text(&bson(b"\x13a\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x50\x30")),
        Ok(r#"{"$numberDecimal":"5E+8"}"#.into())
    );
    assert_eq!(
        text(&bson(b"\x13a\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x30")),
        Ok(r#"{"$numberDecimal":"5E-32"}"#.into())
    );
    assert_eq!(
        text(&bson(b"\x0fa\x00\x01\x00\x00\x00")),
        Err("invalid length 1, expected CodeWithScope to be at least 14 bytes".into())
    );
    assert_eq!(
        text(&bson(&[b"\x03a\x00".as_slice(), b"\x05\x00\x00\x00\x10b\x00\x01\x00\x00\x00\x00"].concat())),
        Err("length of document too short".into())
    );
    assert_eq!(text(b"\x14\x00\x00\x00\x00"), Err("failed to fill whole buffer".into()));
    assert_eq!(text(&[bson(b"").as_slice(), b"xx"].concat()), Ok("null".into()), "bytes after the document");
}

/// A BSON document nested 100,000 deep neither exhausts the stack nor passes the JSON nesting
/// limit.
#[test]
fn deep_bson_is_refused_without_recursing_all_the_way() {
    let levels = 100_000usize;
    let mut prefix = Vec::with_capacity(levels * 7);
    for k in (1..=levels).rev() {
        prefix.extend_from_slice(&((5 + 8 * k) as i32).to_le_bytes());
        prefix.extend_from_slice(b"\x03a\x00");
    }
    let mut doc = prefix;
    doc.extend_from_slice(&bson(b""));
    doc.extend(std::iter::repeat_n(0u8, levels));
    let text = json::bson::to_json_text(&doc).expect("well formed");
    let err = Value::parse(text.as_bytes()).expect_err("too deep");
    assert!(err.to_string().starts_with("recursion limit exceeded"), "{err}");
}
