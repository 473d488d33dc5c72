//! INDEXEMPTY end to end: empty TEXT and TAG values indexed only on fields that ask for it, the
//! dialect 2 empty-string queries (`@t:""`, `@t:''`, `""`, `@g:{""}`, an empty `$param`), and
//! RediSearch 2.10's error for `""` on a field that does not index empty values.

mod common;

use common::*;

const NO_EMPTY: &str = "Use `INDEXEMPTY` in field creation in order to index and query for empty strings";

/// Sorted ids of a NOCONTENT search in dialect 2 (extra arguments go before DIALECT).
fn ids(c: &mut Conn, idx: &str, query: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["FT.SEARCH", idx, query];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["NOCONTENT", "LIMIT", "0", "100", "DIALECT", "2"]);
    let r = c.call(&args);
    assert!(!r.is_error(), "{query}: {r:?}");
    let mut v: Vec<String> = r.items()[1..].iter().map(|i| i.text()).collect();
    v.sort();
    v
}

fn err(c: &mut Conn, idx: &str, query: &str) -> String {
    let r = c.call(&["FT.SEARCH", idx, query, "DIALECT", "2"]);
    r.err().to_string()
}

fn v(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

#[test]
fn empty_text_and_tag_values_on_hashes() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "idx", "PREFIX", "1", "h:", "SCHEMA", "t", "TEXT", "INDEXEMPTY", "g", "TAG",
            "INDEXEMPTY", "plain", "TEXT", "ptag", "TAG"
        ]),
        ok()
    );
    c.call(&["HSET", "h:1", "t", "", "g", "", "plain", "", "ptag", ""]);
    c.call(&["HSET", "h:2", "t", "hello", "g", "bar,", "plain", "x", "ptag", "y"]);
    c.call(&["HSET", "h:3", "t", "world", "g", "bat, , bat2", "plain", "", "ptag", "z"]);
    c.call(&["HSET", "h:4", "t", "again", "g", "solo"]);

    // The empty string, as `""`, `''`, in parentheses, or without a field.
    assert_eq!(ids(&mut c, "idx", "@t:\"\"", &[]), v(&["h:1"]));
    assert_eq!(ids(&mut c, "idx", "@t:''", &[]), v(&["h:1"]));
    assert_eq!(ids(&mut c, "idx", "@t:(\"\")", &[]), v(&["h:1"]));
    assert_eq!(ids(&mut c, "idx", "\"\"", &[]), v(&["h:1"]));
    assert_eq!(ids(&mut c, "idx", "-@t:\"\"", &[]), v(&["h:2", "h:3", "h:4"]));
    assert_eq!(ids(&mut c, "idx", "@t:\"\" | @t:hello", &[]), v(&["h:1", "h:2"]));
    assert_eq!(ids(&mut c, "idx", "@t:\"\" @t:hello", &[]), v(&[]));
    // One of several fields indexing empty values is enough.
    assert_eq!(ids(&mut c, "idx", "@t|plain:\"\"", &[]), v(&["h:1"]));
    // Tags: an empty value, a trailing separator and a blank piece all hold the empty tag.
    assert_eq!(ids(&mut c, "idx", "@g:{\"\"}", &[]), v(&["h:1", "h:2", "h:3"]));
    assert_eq!(ids(&mut c, "idx", "@g:{''}", &[]), v(&["h:1", "h:2", "h:3"]));
    assert_eq!(ids(&mut c, "idx", "@g:{\"\"} @g:{bar}", &[]), v(&["h:2"]));
    assert_eq!(ids(&mut c, "idx", "-@g:{\"\"}", &[]), v(&["h:4"]));
    assert_eq!(ids(&mut c, "idx", "@g:{$p}", &["PARAMS", "2", "p", ""]), v(&["h:1", "h:2", "h:3"]));
    assert_eq!(ids(&mut c, "idx", "@t:($p)", &["PARAMS", "2", "p", ""]), v(&["h:1"]));
    // Fuzzy terms reach the empty term from dialect 2.
    assert_eq!(ids(&mut c, "idx", "@t:%s%", &[]), v(&["h:1"]));
    let d1 = c.call(&["FT.SEARCH", "idx", "@t:%s%", "NOCONTENT", "DIALECT", "1"]);
    assert_eq!(d1, arr(vec![Resp::Int(0)]));

    // Fields without INDEXEMPTY: asking them for "" is an error, and their empty values are
    // not indexed.
    assert_eq!(err(&mut c, "idx", "@plain:\"\""), NO_EMPTY);
    assert_eq!(err(&mut c, "idx", "@ptag:{\"\"}"), NO_EMPTY);
    let r = c.call(&["FT.SEARCH", "idx", "@plain:($p)", "PARAMS", "2", "p", "", "DIALECT", "2"]);
    assert_eq!(r.err(), NO_EMPTY);
    assert_eq!(
        c.call(&["FT.CREATE", "plainidx", "PREFIX", "1", "h:", "SCHEMA", "plain", "TEXT", "ptag", "TAG"]),
        ok()
    );
    assert!(wait_until(10, || info_int(&mut c, "plainidx", "indexing") == 0));
    assert_eq!(ids(&mut c, "plainidx", "\"\"", &[]), v(&[]));
    assert_eq!(ids(&mut c, "plainidx", "*", &[]), v(&["h:1", "h:2", "h:3", "h:4"]));

    // HIGHLIGHT of a matched empty value is an empty match; an update leaves the empty set.
    let r = c.call(&[
        "FT.SEARCH", "idx", "@t:(\"\")", "RETURN", "1", "t", "HIGHLIGHT", "FIELDS", "1", "t", "DIALECT", "2",
    ]);
    assert_eq!(
        r,
        arr(vec![Resp::Int(1), Resp::bulk("h:1"), arr(vec![Resp::bulk("t"), Resp::bulk("<b></b>")])])
    );
    c.call(&["HSET", "h:1", "t", "filled now", "g", "full"]);
    assert_eq!(ids(&mut c, "idx", "@t:\"\"", &[]), v(&[]));
    assert_eq!(ids(&mut c, "idx", "@g:{\"\"}", &[]), v(&["h:2", "h:3"]));

    // The empty query matches nothing (RediSearch's grammar accepts it).
    assert_eq!(c.call(&["FT.SEARCH", "idx", "", "NOCONTENT"]), arr(vec![Resp::Int(0)]));
}

/// An integer field of FT.INFO (RESP2).
fn info_int(c: &mut Conn, idx: &str, name: &str) -> i64 {
    let r = c.call(&["FT.INFO", idx]);
    let items = r.items();
    let at = items.iter().position(|x| matches!(x, Resp::Simple(s) if s == name)).unwrap();
    items[at + 1].int()
}

#[test]
fn empty_values_in_json_documents_and_arrays() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "j", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.t", "AS", "t", "TEXT",
            "INDEXEMPTY", "$.g", "AS", "g", "TAG", "INDEXEMPTY", "$.n", "AS", "n", "TEXT"
        ]),
        ok()
    );
    c.call(&["JSON.SET", "j:1", "$", r#"{"t":"","g":"","n":""}"#]);
    c.call(&["JSON.SET", "j:2", "$", r#"{"t":["a","","c"],"g":["a","","c"]}"#]);
    c.call(&["JSON.SET", "j:3", "$", r#"{"t":["a","b"],"g":["a","b"],"n":"x"}"#]);
    c.call(&["JSON.SET", "j:4", "$", r#"{"t":[],"g":[]}"#]);
    assert_eq!(ids(&mut c, "j", "@t:\"\"", &[]), v(&["j:1", "j:2"]));
    assert_eq!(ids(&mut c, "j", "@g:{\"\"}", &[]), v(&["j:1", "j:2"]));
    assert_eq!(ids(&mut c, "j", "@g:{a} -@g:{\"\"}", &[]), v(&["j:3"]));
    assert_eq!(err(&mut c, "j", "@n:\"\""), NO_EMPTY);
    // JSON.CLEAR empties the array: the document leaves the empty set at once.
    c.call(&["JSON.CLEAR", "j:2", "$.t"]);
    assert_eq!(ids(&mut c, "j", "@t:\"\"", &[]), v(&["j:1"]));
    c.call(&["JSON.SET", "j:3", "$.t", r#""""#]);
    assert_eq!(ids(&mut c, "j", "@t:''", &[]), v(&["j:1", "j:3"]));
}
