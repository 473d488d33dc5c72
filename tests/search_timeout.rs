//! A query's TIMEOUT as RediSearch 2.10 applies it (search/src/timeout.rs): past it while
//! terms are expanded, an error under either ON_TIMEOUT policy; past it while documents are
//! walked, under FAIL an error, under RETURN the documents walked by then with the warning
//! `Timeout limit was reached` (RESP3).
//!
//! Each query here costs far more than its 1 ms (20,000 documents loaded, or five expansions
//! of 20,000 terms each), so the timeout fires on any machine; the same queries with
//! TIMEOUT 0 complete.

mod common;

use common::{Conn, Resp, Server};

const DOCS: usize = 20_000;
const TIMEOUT: &str = "Timeout limit was reached";

fn ok(r: Resp) {
    assert_eq!(r, Resp::Simple("OK".into()), "{r:?}");
}

/// 20,000 hashes `doc<i>` with `t` = `aa<i>` (20,000 distinct words), an index over them
/// with MAXPREFIXEXPANSIONS large enough to take every word.
fn setup(c: &mut Conn) {
    ok(c.cmd("FT.CONFIG SET MAXPREFIXEXPANSIONS 100000"));
    ok(c.cmd("FT.CREATE idx ON HASH PREFIX 1 doc SCHEMA t TEXT n NUMERIC SORTABLE"));
    for chunk in (0..DOCS).collect::<Vec<_>>().chunks(1000) {
        for i in chunk {
            c.send(&[
                "HSET".to_string(),
                format!("doc{i}"),
                "t".into(),
                format!("aa{i}"),
                "n".into(),
                i.to_string(),
            ]);
        }
        for _ in chunk {
            assert_eq!(c.read(), Resp::Int(2));
        }
    }
}

const EXPANDING: &str = "aa*|aa*|aa*|aa* aa*";

/// The rows of a RESP3 reply (FT.SEARCH's and FT.AGGREGATE's `results`), and its warnings.
fn resp3_parts(r: &Resp) -> (usize, Vec<String>) {
    let Resp::Map(m) = r else { panic!("not a map: {r:?}") };
    let get = |k: &str| m.iter().find(|(n, _)| n.text() == k).map(|(_, v)| v.clone());
    let rows = get("results").map_or(0, |v| v.items().len());
    let warnings = get("warning").map_or(Vec::new(), |v| v.items().iter().map(Resp::text).collect());
    (rows, warnings)
}

#[test]
fn expanding_past_the_timeout_fails_under_both_policies() {
    let server = Server::start();
    let mut c = server.conn();
    setup(&mut c);
    for policy in ["RETURN", "FAIL"] {
        ok(c.cmd(&format!("FT.CONFIG SET ON_TIMEOUT {policy}")));
        let r = c.call(&["FT.SEARCH", "idx", EXPANDING, "LIMIT", "0", "0", "TIMEOUT", "1"]);
        assert_eq!(r, Resp::Error(TIMEOUT.into()), "FT.SEARCH under {policy}");
        let r = c.call(&["FT.AGGREGATE", "idx", EXPANDING, "TIMEOUT", "1"]);
        assert_eq!(r, Resp::Error(TIMEOUT.into()), "FT.AGGREGATE under {policy}");
        // Without a timeout the same query answers every document.
        let r = c.call(&["FT.SEARCH", "idx", EXPANDING, "LIMIT", "0", "0", "TIMEOUT", "0"]);
        assert_eq!(r, Resp::Array(vec![Resp::Int(DOCS as i64)]), "TIMEOUT 0 under {policy}");
    }
}

#[test]
fn walking_past_the_timeout_returns_what_it_found_under_return() {
    let server = Server::start();
    let mut c = server.conn();
    setup(&mut c);
    let limit = DOCS.to_string();
    // RESP2: part of the rows, no warning to carry.
    let r = c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", &limit, "TIMEOUT", "1"]);
    let rows = (r.items().len() - 1) / 2;
    assert!(rows > 0 && rows < DOCS, "{rows} rows");
    let r = c.call(&["FT.AGGREGATE", "idx", "*", "LOAD", "1", "@t", "TIMEOUT", "1"]);
    let rows = r.items().len() - 1;
    assert!(rows > 0 && rows < DOCS, "{rows} rows");

    c.resp3();
    let r = c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", &limit, "TIMEOUT", "1"]);
    let (rows, warnings) = resp3_parts(&r);
    assert!(rows > 0 && rows < DOCS, "{rows} rows");
    assert_eq!(warnings, vec![TIMEOUT.to_string()]);
    let r = c.call(&["FT.AGGREGATE", "idx", "*", "LOAD", "1", "@t", "TIMEOUT", "1"]);
    let (rows, warnings) = resp3_parts(&r);
    assert!(rows > 0 && rows < DOCS, "{rows} rows");
    assert_eq!(warnings, vec![TIMEOUT.to_string()]);
    // A SORTBY after the cut sees every row the cut let through.
    let r = c.call(&[
        "FT.AGGREGATE", "idx", "*", "LOAD", "1", "@t", "SORTBY", "2", "@t", "DESC", "MAX", "5", "TIMEOUT",
        "1",
    ]);
    let (rows, warnings) = resp3_parts(&r);
    assert_eq!((rows, warnings), (5, vec![TIMEOUT.to_string()]));

    // TIMEOUT 0: everything, no warning.
    let r = c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", &limit, "TIMEOUT", "0"]);
    assert_eq!(resp3_parts(&r), (DOCS, Vec::new()));
    let r = c.call(&["FT.AGGREGATE", "idx", "*", "LOAD", "1", "@t", "TIMEOUT", "0"]);
    assert_eq!(resp3_parts(&r), (DOCS, Vec::new()));
}

#[test]
fn walking_past_the_timeout_fails_under_fail() {
    let server = Server::start();
    let mut c = server.conn();
    setup(&mut c);
    ok(c.cmd("FT.CONFIG SET ON_TIMEOUT FAIL"));
    let limit = DOCS.to_string();
    let err = Resp::Error(TIMEOUT.into());
    assert_eq!(c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", &limit, "TIMEOUT", "1"]), err);
    assert_eq!(c.call(&["FT.SEARCH", "idx", "*", "SORTBY", "n", "LIMIT", "0", &limit, "TIMEOUT", "1"]), err);
    assert_eq!(c.call(&["FT.AGGREGATE", "idx", "*", "LOAD", "1", "@t", "TIMEOUT", "1"]), err);
    assert_eq!(
        c.call(&["FT.AGGREGATE", "idx", "*", "LOAD", "1", "@t", "GROUPBY", "1", "@t", "TIMEOUT", "1"]),
        err
    );
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "idx", "*", "LOAD", "1", "@t", "WITHCURSOR", "COUNT", &limit, "TIMEOUT", "1"
        ]),
        err
    );
    // The TIMEOUT option is the default for queries without one.
    ok(c.cmd("FT.CONFIG SET TIMEOUT 1"));
    assert_eq!(c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", &limit]), err);
    ok(c.cmd("FT.CONFIG SET TIMEOUT 0"));
    let r = c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", &limit]);
    assert_eq!(r.items().len(), 1 + 2 * DOCS);
}
