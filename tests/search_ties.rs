//! Ties and unsorted rows in RediSearch 2.10.5's document order: by its document ids, which
//! grow with every document indexed (a rewritten document gets a new, larger one; a deleted
//! one's is never reused), where folio's own ids are kept by a rewrite and reused. And the slop
//! divisor of a query with a clause of several tag values (a union RediSearch reads offsets
//! from, which end at once). Every expected reply is RediSearch 2.10.5's (with RedisJSON 2.8,
//! on Redis 7.4.1).

mod common;

use common::*;

fn keys(r: &Resp, step: usize) -> Vec<String> {
    r.items().iter().skip(1).step_by(step).map(Resp::text).collect()
}

/// d1..d4 indexed, d1 rewritten, d2 deleted, d5 added (folio gives it d2's id), a TTL on d3
/// (no new document id): RediSearch's order is d3, d4, d1, d5.
fn setup(c: &mut Conn) {
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA t TEXT n NUMERIC SORTABLE g TAG"), ok());
    c.cmd("HSET d1 t hello n 1 g a");
    c.cmd("HSET d2 t hello n 1 g b");
    c.cmd("HSET d3 t hello n 1 g a");
    c.cmd("HSET d4 t hello n 2 g b");
    c.cmd("HSET d1 t hello n 1 g a");
    c.cmd("DEL d2");
    c.cmd("HSET d5 t hello n 1 g c");
    c.cmd("PEXPIRE d3 100000");
}

#[test]
fn search_ties_go_by_redisearch_document_id() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    assert_eq!(keys(&c.cmd("FT.SEARCH idx * NOCONTENT"), 1), ["d3", "d4", "d1", "d5"]);
    assert_eq!(keys(&c.cmd("FT.SEARCH idx hello NOCONTENT"), 1), ["d3", "d4", "d1", "d5"]);
    assert_eq!(keys(&c.cmd("FT.SEARCH idx hello NOCONTENT LIMIT 0 2"), 1), ["d3", "d4"]);
    assert_eq!(keys(&c.cmd("FT.SEARCH idx hello NOCONTENT LIMIT 2 2"), 1), ["d1", "d5"]);
    // Equal sort keys: ascending by document id, DESC the other way round.
    assert_eq!(keys(&c.cmd("FT.SEARCH idx * NOCONTENT SORTBY n ASC"), 1), ["d3", "d1", "d5", "d4"]);
    assert_eq!(keys(&c.cmd("FT.SEARCH idx * NOCONTENT SORTBY n DESC"), 1), ["d4", "d5", "d1", "d3"]);
}

#[test]
fn aggregate_rows_come_in_redisearch_document_order() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    let rows = |c: &mut Conn, q: &str| -> Vec<String> {
        c.cmd(q).items().iter().skip(1).map(|r| r.items()[1].text()).collect()
    };
    assert_eq!(rows(&mut c, "FT.AGGREGATE idx * LOAD 1 @__key"), ["d3", "d4", "d1", "d5"]);
    assert_eq!(rows(&mut c, "FT.AGGREGATE idx * LOAD 1 @__key LIMIT 0 2"), ["d3", "d4"]);
    assert_eq!(rows(&mut c, "FT.AGGREGATE idx * LOAD 1 @__key SORTBY 2 @n ASC"), ["d3", "d1", "d5", "d4"]);
    assert_eq!(rows(&mut c, "FT.AGGREGATE idx * LOAD 1 @__key SORTBY 2 @n DESC"), ["d4", "d5", "d1", "d3"]);
    assert_eq!(rows(&mut c, "FT.AGGREGATE idx * LOAD 1 @__key SORTBY 2 @n ASC MAX 2"), ["d3", "d1"]);
    // A cursor reads them in the same order.
    let first = c.cmd("FT.AGGREGATE idx * LOAD 1 @__key WITHCURSOR COUNT 3");
    let page: Vec<String> = first.items()[0].items().iter().skip(1).map(|r| r.items()[1].text()).collect();
    assert_eq!(page, ["d3", "d4", "d1"]);
}

#[test]
fn a_clause_of_several_tag_values_counts_in_the_slop() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA t TEXT g TAG"), ok());
    c.call(&["HSET", "t:1", "t", "hello world foo", "g", "a"]);
    c.call(&["HSET", "t:2", "t", "foo bar baz hello", "g", "a,b"]);
    c.call(&["HSET", "t:3", "t", "x y z w v hello", "g", "b"]);
    c.call(&["HSET", "t:4", "t", "hello", "g", "c"]);
    c.call(&["HSET", "t:5", "t", "world world hello foo", "g", "c,a"]);
    let scored = |c: &mut Conn, q: &str| -> Vec<(String, String)> {
        let r = c.call(&["FT.SEARCH", "idx", q, "WITHSCORES", "NOCONTENT"]);
        r.items()[1..].chunks(2).map(|p| (p[0].text(), p[1].text())).collect()
    };
    let want = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter().map(|(k, s)| (k.to_string(), s.to_string())).collect()
    };
    assert_eq!(
        scored(&mut c, "hello @g:{a|b}"),
        want(&[("t:1", "1"), ("t:2", "0.8"), ("t:3", "0.42857142857142855"), ("t:5", "0.25")])
    );
    assert_eq!(
        scored(&mut c, "hello @g:{a|c}"),
        want(&[("t:4", "1.5"), ("t:1", "1"), ("t:5", "0.5"), ("t:2", "0.4")])
    );
    // One value: a tag reader, no offsets.
    assert_eq!(scored(&mut c, "hello @g:{a}"), want(&[("t:1", "2"), ("t:2", "2"), ("t:5", "1")]));
    assert_eq!(
        scored(&mut c, "hello | @g:{a|b}"),
        want(&[("t:1", "1"), ("t:4", "1"), ("t:2", "0.8"), ("t:3", "0.42857142857142855"), ("t:5", "0.25")])
    );
    // Three children, ordered by their estimates (a union's is the sum of its readers').
    assert_eq!(scored(&mut c, "foo hello @g:{a|b}"), want(&[("t:1", "1.5"), ("t:2", "1"), ("t:5", "0.375")]));
    assert_eq!(
        scored(&mut c, "@g:{a|b} foo hello"),
        want(&[("t:2", "2.5"), ("t:1", "1.5"), ("t:5", "0.375")])
    );
}
