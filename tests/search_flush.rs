//! Flushes drop indexes as RediSearch 2.10 does, so client test suites that flush between tests
//! can create the same index again: FLUSHALL drops every index (definition and contents, aliases,
//! synonyms, cursors) and the FT.DICTADD dictionaries; FLUSHDB drops the indexes of the flushed
//! database only (RediSearch has indexes in db 0 alone), and the dictionaries when it flushes db 0.
//! Replies were taken from RediSearch 2.10.5 on Redis 7.4.1 (`idx: no such index`,
//! `Cursor not found`, `could not open dict key`, `Unknown index name`).

mod common;

use common::*;

fn err(text: &str) -> Resp {
    Resp::Error(text.into())
}

fn create(c: &mut Conn, name: &str, prefix: &str) -> Resp {
    c.call(&["FT.CREATE", name, "ON", "HASH", "PREFIX", "1", prefix, "SCHEMA", "t", "TEXT", "n", "NUMERIC"])
}

fn total(c: &mut Conn, idx: &str, query: &str) -> i64 {
    c.call(&["FT.SEARCH", idx, query, "NOCONTENT"]).items()[0].int()
}

fn list(c: &mut Conn) -> Vec<String> {
    let mut names: Vec<String> = c.call(&["FT._LIST"]).items().iter().map(Resp::text).collect();
    names.sort();
    names
}

/// The shape of a client library's test suite: each test creates its index, writes, queries, and
/// the suite flushes before the next test, which creates the same index again.
#[test]
fn a_test_suite_can_create_the_same_index_after_each_flush() {
    let s = Server::start();
    let mut c = s.conn();
    for (round, flush) in ["FLUSHALL", "FLUSHDB", "FLUSHALL ASYNC", "FLUSHDB SYNC"].iter().enumerate() {
        assert_eq!(create(&mut c, "idx", "d:"), ok(), "round {round}");
        assert_eq!(
            c.call(&[
                "FT.CREATE", "jdx", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.t", "AS", "t", "TEXT"
            ]),
            ok()
        );
        for i in 0..=round {
            c.call(&["HSET", &format!("d:{i}"), "t", "hello", "n", &i.to_string()]);
            c.call(&["JSON.SET", &format!("j:{i}"), "$", r#"{"t":"hello"}"#]);
        }
        assert_eq!(total(&mut c, "idx", "hello"), round as i64 + 1);
        assert_eq!(total(&mut c, "jdx", "hello"), round as i64 + 1);
        assert_eq!(c.cmd(flush), ok());
        assert_eq!(list(&mut c), Vec::<String>::new(), "after {flush}");
        assert_eq!(c.call(&["FT.SEARCH", "idx", "hello"]), err("idx: no such index"));
        assert_eq!(c.call(&["FT.INFO", "jdx"]), err("Unknown index name"));
    }
}

#[test]
fn flushall_drops_aliases_synonyms_cursors_and_dictionaries() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(create(&mut c, "idx", "d:"), ok());
    c.call(&["HSET", "d:1", "t", "hello", "n", "1"]);
    c.call(&["HSET", "d:2", "t", "hello", "n", "2"]);
    assert_eq!(c.call(&["FT.ALIASADD", "al", "idx"]), ok());
    assert_eq!(c.call(&["FT.SYNUPDATE", "idx", "g1", "hello", "hi"]), ok());
    assert_eq!(c.call(&["FT.DICTADD", "dict", "alpha", "beta"]), Resp::Int(2));
    let r = c.call(&["FT.AGGREGATE", "idx", "hello", "LOAD", "1", "@t", "WITHCURSOR", "COUNT", "1"]);
    let cursor = r.items()[1].int();
    assert!(cursor > 0, "a cursor is open: {r:?}");

    assert_eq!(c.call(&["FLUSHALL"]), ok());
    assert_eq!(c.call(&["FT.SEARCH", "al", "hello"]), err("al: no such index"));
    assert_eq!(c.call(&["FT.CURSOR", "READ", "idx", &cursor.to_string()]), err("Cursor not found"));
    assert_eq!(c.call(&["FT.DICTDUMP", "dict"]), err("could not open dict key"));

    // Everything can be made again under the same names, and starts empty.
    assert_eq!(create(&mut c, "idx", "d:"), ok());
    assert_eq!(c.call(&["FT.ALIASADD", "al", "idx"]), ok());
    assert_eq!(c.call(&["FT.SYNDUMP", "idx"]), arr(vec![]));
    c.call(&["HSET", "d:3", "t", "hi"]);
    assert_eq!(total(&mut c, "al", "hello"), 0, "the old synonym group went with the index");
    assert_eq!(total(&mut c, "al", "hi"), 1);
}

#[test]
fn flushdb_drops_only_the_flushed_databases_indexes() {
    let s = Server::start();
    let mut c0 = s.conn();
    let mut c1 = s.conn();
    assert_eq!(c1.call(&["SELECT", "1"]), ok());
    assert_eq!(create(&mut c0, "idx", "d:"), ok());
    assert_eq!(create(&mut c1, "other", "d:"), ok());
    c0.call(&["HSET", "d:1", "t", "hello"]);
    c1.call(&["HSET", "d:1", "t", "hello"]);
    assert_eq!(c0.call(&["FT.DICTADD", "dict", "alpha"]), Resp::Int(1));

    // A flush of db 1 leaves db 0's indexes, contents and the dictionaries alone.
    assert_eq!(c1.call(&["FLUSHDB"]), ok());
    assert_eq!(list(&mut c1), Vec::<String>::new());
    assert_eq!(list(&mut c0), vec!["idx".to_string()]);
    assert_eq!(total(&mut c0, "idx", "hello"), 1);
    assert_eq!(c0.call(&["FT.DICTDUMP", "dict"]), arr(vec![Resp::bulk("alpha")]));
    assert_eq!(create(&mut c1, "other", "d:"), ok(), "the same FT.CREATE succeeds in db 1");

    // A flush of db 0 drops its indexes and the dictionaries (RediSearch keeps both in db 0),
    // and leaves db 1's index.
    c1.call(&["HSET", "d:2", "t", "hello"]);
    assert_eq!(c0.call(&["FLUSHDB"]), ok());
    assert_eq!(list(&mut c0), Vec::<String>::new());
    assert_eq!(c0.call(&["FT.DICTDUMP", "dict"]), err("could not open dict key"));
    assert_eq!(total(&mut c1, "other", "hello"), 1);
    assert_eq!(create(&mut c0, "idx", "d:"), ok());
}

#[test]
fn a_flushed_index_does_not_come_back_after_a_reload_or_on_a_replica() {
    let s = Server::start();
    let replica = Server::start();
    let mut c = s.conn();
    let mut r = replica.conn();
    assert_eq!(create(&mut c, "idx", "d:"), ok());
    c.call(&["HSET", "d:1", "t", "hello"]);
    r.call(&["REPLICAOF", "127.0.0.1", &s.port.to_string()]);
    assert!(wait_until(30, || r.call(&["INFO", "replication"]).text().contains("master_link_status:up")));
    assert!(wait_until(30, || list(&mut r) == vec!["idx".to_string()]), "the replica has the index");

    assert_eq!(c.call(&["FLUSHALL"]), ok());
    assert!(wait_until(30, || list(&mut r).is_empty()), "FLUSHALL reaches the replica's indexes");
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    assert_eq!(list(&mut c), Vec::<String>::new(), "nothing comes back from the RDB");
    assert_eq!(create(&mut c, "idx", "d:"), ok());
    c.call(&["HSET", "d:2", "t", "hello"]);
    assert!(wait_until(30, || r.call(&["FT.SEARCH", "idx", "hello", "NOCONTENT"]).items().first()
        == Some(&Resp::Int(1))));
}
