//! The text cache of documents read whole (src/text_cache.rs) never serves stale text: after every
//! kind of write, and after the document goes away and another takes its place, a whole read shows
//! the document as it is now. Each check reads the document whole three times first, so its text
//! is in the cache when the write happens.

mod common;

use common::*;

/// Reads `key` whole in every cached form (no path, `.`, `$`) three times each; returns the text.
fn warm(conn: &mut Conn, key: &str) -> Resp {
    let whole = conn.call(&["JSON.GET", key]);
    for _ in 0..3 {
        assert_eq!(conn.call(&["JSON.GET", key]), whole, "{key}");
        assert_eq!(conn.call(&["JSON.GET", key, "."]), whole, "{key} .");
        if let Resp::Bulk(text) = &whole {
            let wrapped = format!("[{}]", String::from_utf8_lossy(text));
            assert_eq!(conn.call(&["JSON.GET", key, "$"]), Resp::bulk(&wrapped), "{key} $");
        }
    }
    whole
}

/// The whole text as a path read sees it (a route that never uses the cache).
fn fresh(conn: &mut Conn, key: &str) -> Resp {
    match conn.call(&["JSON.GET", key, "$"]) {
        Resp::Bulk(wrapped) => {
            let text = String::from_utf8_lossy(&wrapped).into_owned();
            Resp::bulk(&text[1..text.len() - 1])
        }
        other => other,
    }
}

#[test]
fn every_json_write_is_seen_by_the_next_whole_read() {
    let server = Server::start();
    let mut c = server.conn();
    let base = r#"{"n":1,"s":"ab","b":true,"a":[1,2,3],"o":{"x":1},"f":1.5,"e":""}"#;
    let writes: &[&[&str]] = &[
        &["JSON.SET", "d", "$.n", "2"],
        &["JSON.SET", "d", ".", r#"{"n":9}"#],
        &["JSON.SET", "d", "$.new", "[]"],
        &["JSON.MSET", "d", "$.n", "7", "other", "$", "1"],
        &["JSON.MERGE", "d", "$", r#"{"o":{"y":2},"n":null}"#],
        &["JSON.DEL", "d", "$.a[0]"],
        &["JSON.FORGET", "d", "$.s"],
        &["JSON.CLEAR", "d", "$.a"],
        &["JSON.TOGGLE", "d", "$.b"],
        &["JSON.NUMINCRBY", "d", "$.n", "5"],
        &["JSON.NUMMULTBY", "d", "$.f", "3"],
        &["JSON.NUMPOWBY", "d", "$.f", "2"],
        &["JSON.STRAPPEND", "d", "$.s", r#""cd""#],
        &["JSON.ARRAPPEND", "d", "$.a", "4"],
        &["JSON.ARRINSERT", "d", "$.a", "0", "0"],
        &["JSON.ARRPOP", "d", "$.a"],
        &["JSON.ARRTRIM", "d", "$.a", "0", "0"],
    ];
    for write in writes {
        assert_eq!(c.call(&["JSON.SET", "d", "$", base]), Resp::Simple("OK".into()));
        let before = warm(&mut c, "d");
        let reply = c.call(write);
        assert!(!reply.is_error(), "{write:?}: {reply:?}");
        let after = c.call(&["JSON.GET", "d"]);
        assert_ne!(after, before, "{write:?} changed nothing?");
        assert_eq!(after, fresh(&mut c, "d"), "stale whole read after {write:?}");
        assert_eq!(warm(&mut c, "d"), after, "{write:?}");
    }
}

#[test]
fn keys_that_go_away_or_move_show_their_current_document() {
    let server = Server::start();
    let mut c = server.conn();
    // Delete and recreate, many times: a new document may well land at the freed address.
    for round in 0..200 {
        let doc = format!(r#"{{"round":{round},"pad":"{}"}}"#, "x".repeat(round % 50));
        assert_eq!(c.call(&["JSON.SET", "k", "$", &doc]), Resp::Simple("OK".into()));
        assert_eq!(warm(&mut c, "k"), Resp::bulk(&doc));
        match round % 5 {
            0 => assert_eq!(c.cmd("DEL k"), Resp::Int(1)),
            1 => assert_eq!(c.cmd("UNLINK k"), Resp::Int(1)),
            2 => assert_eq!(c.cmd("JSON.DEL k"), Resp::Int(1)),
            3 => assert_eq!(c.cmd("FLUSHALL ASYNC"), Resp::Simple("OK".into())),
            _ => {
                assert_eq!(c.cmd("SET k plain"), Resp::Simple("OK".into()));
                assert_eq!(c.cmd("DEL k"), Resp::Int(1));
            }
        }
    }
    // RENAME, MOVE and SWAPDB keep the document, and its text.
    c.cmd("FLUSHALL");
    let doc = r#"{"a":"moving"}"#;
    c.call(&["JSON.SET", "k", "$", doc]);
    warm(&mut c, "k");
    assert_eq!(c.cmd("RENAME k k2"), Resp::Simple("OK".into()));
    assert_eq!(warm(&mut c, "k2"), Resp::bulk(doc));
    c.cmd("JSON.SET k2 $.a 1");
    assert_eq!(warm(&mut c, "k2"), Resp::bulk(r#"{"a":1}"#));
    assert_eq!(c.cmd("MOVE k2 1"), Resp::Int(1));
    c.cmd("SELECT 1");
    assert_eq!(warm(&mut c, "k2"), Resp::bulk(r#"{"a":1}"#));
    c.cmd("JSON.SET k2 $.a 2");
    assert_eq!(c.cmd("SWAPDB 0 1"), Resp::Simple("OK".into()));
    c.cmd("SELECT 0");
    assert_eq!(warm(&mut c, "k2"), Resp::bulk(r#"{"a":2}"#));
    // COPY makes a second document; writing one leaves the other as it was.
    assert_eq!(c.cmd("COPY k2 k3"), Resp::Int(1));
    c.cmd("JSON.SET k3 $.a 3");
    assert_eq!(warm(&mut c, "k2"), Resp::bulk(r#"{"a":2}"#));
    assert_eq!(warm(&mut c, "k3"), Resp::bulk(r#"{"a":3}"#));
    // DEBUG RELOAD frees every document and loads new ones.
    assert_eq!(c.cmd("DEBUG RELOAD"), Resp::Simple("OK".into()));
    c.cmd("JSON.SET k2 $.a 4");
    assert_eq!(warm(&mut c, "k2"), Resp::bulk(r#"{"a":4}"#));
    // Many documents read whole at once (more than the cache's slots), each then changed.
    for i in 0..600 {
        c.call(&["JSON.SET", &format!("m{i}"), "$", &format!(r#"{{"i":{i}}}"#)]);
        warm(&mut c, &format!("m{i}"));
    }
    for i in 0..600 {
        c.call(&["JSON.NUMINCRBY", &format!("m{i}"), "$.i", "1000"]);
    }
    for i in 0..600 {
        assert_eq!(c.call(&["JSON.GET", &format!("m{i}")]), Resp::bulk(&format!(r#"{{"i":{}}}"#, i + 1000)));
    }
}

/// FT.SEARCH's `$` of a JSON document comes from the same cache: a result page read again and
/// again, then a write, shows the document as it is now.
#[test]
fn search_results_show_the_document_after_a_write() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "i", "ON", "JSON", "PREFIX", "1", "d:", "SCHEMA", "$.t", "AS", "t", "TEXT"]),
        ok()
    );
    assert_eq!(c.call(&["JSON.SET", "d:1", "$", r#"{"t":"hello","n":1}"#]), ok());
    let page = |c: &mut Conn| c.call(&["FT.SEARCH", "i", "hello"]);
    let want = |doc: &str| {
        Resp::Array(vec![
            Resp::Int(1),
            Resp::bulk("d:1"),
            Resp::Array(vec![Resp::bulk("$"), Resp::bulk(doc)]),
        ])
    };
    for _ in 0..3 {
        assert_eq!(page(&mut c), want(r#"{"t":"hello","n":1}"#));
    }
    assert_eq!(c.call(&["JSON.NUMINCRBY", "d:1", "$.n", "41"]), Resp::bulk("[42]"));
    assert_eq!(page(&mut c), want(r#"{"t":"hello","n":42}"#));
    assert_eq!(c.call(&["JSON.GET", "d:1"]), Resp::bulk(r#"{"t":"hello","n":42}"#));
}
