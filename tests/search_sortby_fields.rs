//! FT.SEARCH SORTBY on several fields, which RediSearch 2.10 does not have (its FT.SEARCH
//! takes one field): `SORTBY <count> @a ASC @b DESC`, counted as FT.AGGREGATE's SORTBY.
//! Later fields break the ties of earlier ones; documents equal on every key keep document
//! order, reversed when the first field is DESC (the one-field rule). The one-field form is
//! unchanged.

mod common;

use common::*;

fn keys(r: &Resp) -> Vec<String> {
    r.items().iter().skip(1).map(Resp::text).collect()
}

fn setup(c: &mut Conn) {
    let r = c.call(&[
        "FT.CREATE", "i", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT", "a", "NUMERIC",
        "SORTABLE", "b", "TAG", "SORTABLE", "n", "NUMERIC",
    ]);
    assert_eq!(r, Resp::Simple("OK".into()));
    // (key, a, b, n): a has ties, b breaks some of them, n is not sortable.
    for (k, a, b, n) in [
        ("d:1", "2", "x", "5"),
        ("d:2", "1", "y", "4"),
        ("d:3", "2", "z", "3"),
        ("d:4", "1", "x", "2"),
        ("d:5", "2", "x", "1"),
        ("d:6", "3", "w", "0"),
    ] {
        c.call(&["HSET", k, "t", "hello", "a", a, "b", b, "n", n]);
    }
}

#[test]
fn later_fields_break_the_ties_of_earlier_ones() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    let q = |c: &mut Conn, extra: &[&str]| {
        let mut args = vec!["FT.SEARCH", "i", "hello", "NOCONTENT"];
        args.extend_from_slice(extra);
        keys(&c.call(&args))
    };
    assert_eq!(
        q(&mut c, &["SORTBY", "4", "@a", "ASC", "@b", "DESC"]),
        ["d:2", "d:4", "d:3", "d:1", "d:5", "d:6"]
    );
    assert_eq!(
        q(&mut c, &["SORTBY", "4", "@a", "DESC", "@b", "ASC"]),
        ["d:6", "d:5", "d:1", "d:3", "d:4", "d:2"]
    );
    // A direction defaults to ASC; a non-sortable field is read from the document.
    assert_eq!(q(&mut c, &["SORTBY", "2", "@a", "@n"]), ["d:4", "d:2", "d:5", "d:3", "d:1", "d:6"]);
    // Ties on every key: document order (d:1 before d:5 ascending).
    assert_eq!(q(&mut c, &["SORTBY", "3", "@a", "@b", "ASC", "LIMIT", "2", "2"]), ["d:1", "d:5"]);
    // The count covers exactly the arguments: LIMIT after it is read as LIMIT.
    assert_eq!(q(&mut c, &["SORTBY", "2", "@b", "DESC", "LIMIT", "0", "2"]), ["d:3", "d:2"]);
    // The one-field form is RediSearch's (equal keys in document order, reversed for DESC).
    assert_eq!(q(&mut c, &["SORTBY", "a", "DESC"]), ["d:6", "d:5", "d:3", "d:1", "d:4", "d:2"]);
    assert_eq!(q(&mut c, &["SORTBY", "a"]), ["d:2", "d:4", "d:1", "d:3", "d:5", "d:6"]);
}

#[test]
fn counted_sortby_errors() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    let r = c.call(&["FT.SEARCH", "i", "hello", "SORTBY", "4", "@a", "ASC", "@nope", "DESC"]);
    assert_eq!(r, Resp::Error("Property `nope` not loaded nor in schema".into()));
    let r = c.call(&["FT.SEARCH", "i", "hello", "SORTBY", "3", "@a"]);
    assert!(r.is_error(), "{r:?}");
    // Without an `@property` after it, the number is a field's name, as in RediSearch.
    let r = c.call(&["FT.SEARCH", "i", "hello", "SORTBY", "1", "ASC"]);
    assert_eq!(r, Resp::Error("Property `1` not loaded nor in schema".into()));
    let r = c.call(&["FT.SEARCH", "i", "hello", "SORTBY", "0"]);
    assert_eq!(r, Resp::Error("Property `0` not loaded nor in schema".into()));
}

/// SORTBY on a field without a sortable copy compares the values as stored, byte by byte
/// (RediSearch 2.10.5: `Bravo`, `Charlie`, `alpha` for TEXT, `Bravo`, `alpha`, `charlie` for
/// TAG, on HASH and on JSON alike).
#[test]
fn sortby_an_unsortable_field_compares_raw_values() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE s SCHEMA t TEXT g TAG"), ok());
    assert_eq!(c.cmd("FT.CREATE j ON JSON SCHEMA $.t AS t TEXT $.g AS g TAG"), ok());
    for (k, t, g) in [("a", "Bravo", "Bravo"), ("b", "alpha", "alpha"), ("c", "Charlie", "charlie")] {
        assert_eq!(c.call(&["HSET", k, "t", t, "g", g]), Resp::Int(2));
        let doc = format!(r#"{{"t":"{t}","g":"{g}"}}"#);
        assert_eq!(c.call(&["JSON.SET", &format!("j{k}"), "$", &doc]), ok());
    }
    let order = |c: &mut Conn, idx: &str, by: &str| -> Vec<String> {
        c.call(&["FT.SEARCH", idx, "*", "SORTBY", by, "NOCONTENT"]).items()[1..]
            .iter()
            .map(|i| i.text())
            .collect()
    };
    assert_eq!(order(&mut c, "s", "t"), ["a", "c", "b"]);
    assert_eq!(order(&mut c, "s", "g"), ["a", "b", "c"]);
    assert_eq!(order(&mut c, "j", "t"), ["ja", "jc", "jb"]);
    assert_eq!(order(&mut c, "j", "g"), ["ja", "jb", "jc"]);
}
