//! The index is never stale: every way a key can change reaches the indexes before the command
//! returns, including the three RediSearch misses (JSON.CLEAR, JSON.NUMPOWBY, JSON.MERGE), and
//! indexes belong to their database (FLUSHDB elsewhere leaves them alone, SWAPDB moves them, a
//! flush of their own database drops them as RediSearch does).

mod common;

use common::*;

/// The ids FT.SEARCH returns (NOCONTENT), sorted.
fn ids(c: &mut Conn, idx: &str, query: &str) -> Vec<String> {
    let r = c.call(&["FT.SEARCH", idx, query, "NOCONTENT", "LIMIT", "0", "1000"]);
    let items = r.items();
    let mut out: Vec<String> = items[1..].iter().map(|i| i.text()).collect();
    out.sort();
    assert_eq!(items[0].int() as usize, out.len(), "total vs ids: {r:?}");
    out
}

fn v(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

fn json_server() -> (Server, Conn) {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "idx", "ON", "JSON", "PREFIX", "1", "doc:", "SCHEMA", "$.name", "AS", "name",
            "TEXT", "$.n", "AS", "n", "NUMERIC", "$.tags[*]", "AS", "tags", "TAG", "$.on", "AS", "on", "TAG"
        ]),
        ok()
    );
    (s, c)
}

#[test]
fn every_json_write_reindexes() {
    let (_s, mut c) = json_server();
    c.call(&["JSON.SET", "doc:1", "$", r#"{"name":"red apple","n":1,"tags":["a","b"],"on":true}"#]);
    c.call(&["JSON.SET", "other:1", "$", r#"{"name":"red herring","n":1}"#]);
    assert_eq!(ids(&mut c, "idx", "@name:red"), v(&["doc:1"]));
    c.call(&["JSON.SET", "doc:1", "$.name", r#""green apple""#]);
    assert_eq!(ids(&mut c, "idx", "@name:red"), v(&[]));
    assert_eq!(ids(&mut c, "idx", "@name:green"), v(&["doc:1"]));
    c.call(&["JSON.NUMINCRBY", "doc:1", "$.n", "4"]);
    assert_eq!(ids(&mut c, "idx", "@n:[5 5]"), v(&["doc:1"]));
    c.call(&["JSON.NUMMULTBY", "doc:1", "$.n", "2"]);
    assert_eq!(ids(&mut c, "idx", "@n:[10 10]"), v(&["doc:1"]));
    // RediSearch misses NUMPOWBY: the index would still say 10.
    c.call(&["JSON.NUMPOWBY", "doc:1", "$.n", "2"]);
    assert_eq!(ids(&mut c, "idx", "@n:[100 100]"), v(&["doc:1"]));
    assert_eq!(ids(&mut c, "idx", "@n:[10 10]"), v(&[]));
    c.call(&["JSON.STRAPPEND", "doc:1", "$.name", r#"" pie""#]);
    assert_eq!(ids(&mut c, "idx", "@name:pie"), v(&["doc:1"]));
    c.call(&["JSON.ARRAPPEND", "doc:1", "$.tags", r#""c""#]);
    assert_eq!(ids(&mut c, "idx", "@tags:{c}"), v(&["doc:1"]));
    c.call(&["JSON.ARRPOP", "doc:1", "$.tags", "0"]);
    assert_eq!(ids(&mut c, "idx", "@tags:{a}"), v(&[]));
    c.call(&["JSON.ARRINSERT", "doc:1", "$.tags", "0", r#""z""#]);
    assert_eq!(ids(&mut c, "idx", "@tags:{z}"), v(&["doc:1"]));
    c.call(&["JSON.ARRTRIM", "doc:1", "$.tags", "0", "0"]);
    assert_eq!(ids(&mut c, "idx", "@tags:{c}"), v(&[]));
    c.call(&["JSON.TOGGLE", "doc:1", "$.on"]);
    assert_eq!(ids(&mut c, "idx", "@on:{false}"), v(&["doc:1"]));
    // RediSearch misses MERGE (before its fix) and CLEAR (still).
    c.call(&["JSON.MERGE", "doc:1", "$", r#"{"name":"blue plum"}"#]);
    assert_eq!(ids(&mut c, "idx", "@name:plum"), v(&["doc:1"]));
    c.call(&["JSON.CLEAR", "doc:1", "$.tags"]);
    assert_eq!(ids(&mut c, "idx", "@tags:{z}"), v(&[]));
    c.call(&["JSON.CLEAR", "doc:1", "$.n"]);
    assert_eq!(ids(&mut c, "idx", "@n:[0 0]"), v(&["doc:1"]));
    c.call(&["JSON.MSET", "doc:2", "$", r#"{"name":"blue sky"}"#, "doc:3", "$", r#"{"name":"grey sky"}"#]);
    assert_eq!(ids(&mut c, "idx", "@name:sky"), v(&["doc:2", "doc:3"]));
    c.call(&["JSON.DEL", "doc:2", "$.name"]);
    assert_eq!(ids(&mut c, "idx", "@name:sky"), v(&["doc:3"]));
    c.call(&["JSON.FORGET", "doc:3"]);
    assert_eq!(ids(&mut c, "idx", "@name:sky"), v(&[]));
}

#[test]
fn generic_key_events_keep_the_index_exact() {
    let (_s, mut c) = json_server();
    let put = |c: &mut Conn, k: &str, name: &str| {
        assert_eq!(c.call(&["JSON.SET", k, "$", &format!(r#"{{"name":"{name}"}}"#)]), ok());
    };
    for i in 1..=6 {
        put(&mut c, &format!("doc:{i}"), "kiwi");
    }
    c.call(&["DEL", "doc:1"]);
    c.call(&["UNLINK", "doc:2"]);
    assert_eq!(ids(&mut c, "idx", "kiwi"), v(&["doc:3", "doc:4", "doc:5", "doc:6"]));
    c.call(&["RENAME", "doc:3", "moved:3"]);
    assert_eq!(ids(&mut c, "idx", "kiwi"), v(&["doc:4", "doc:5", "doc:6"]));
    c.call(&["RENAME", "moved:3", "doc:33"]);
    assert_eq!(ids(&mut c, "idx", "kiwi"), v(&["doc:33", "doc:4", "doc:5", "doc:6"]));
    c.call(&["SET", "doc:4", "now a string"]);
    assert_eq!(ids(&mut c, "idx", "kiwi"), v(&["doc:33", "doc:5", "doc:6"]));
    let dump = c.call(&["DUMP", "doc:5"]);
    c.call(&["DEL", "doc:5"]);
    c.call(&[
        &b"RESTORE"[..],
        b"doc:55",
        b"0",
        match &dump {
            Resp::Bulk(d) => d,
            _ => panic!(),
        },
    ]);
    assert_eq!(ids(&mut c, "idx", "kiwi"), v(&["doc:33", "doc:55", "doc:6"]));
    c.call(&["COPY", "doc:6", "doc:66"]);
    assert_eq!(ids(&mut c, "idx", "kiwi"), v(&["doc:33", "doc:55", "doc:6", "doc:66"]));
    c.call(&["MOVE", "doc:66", "1"]);
    assert_eq!(ids(&mut c, "idx", "kiwi"), v(&["doc:33", "doc:55", "doc:6"]));
    c.call(&["PEXPIRE", "doc:6", "30"]);
    // While doc:6 expires a query may count it and yet leave its row out (a worker finds the
    // key gone when it reads the rows), so only the listed ids are awaited here.
    let listed = |c: &mut Conn| {
        let r = c.call(&["FT.SEARCH", "idx", "kiwi", "NOCONTENT", "LIMIT", "0", "1000"]);
        let mut out: Vec<String> = r.items()[1..].iter().map(|i| i.text()).collect();
        out.sort();
        out
    };
    assert!(wait_until(10, || listed(&mut c) == v(&["doc:33", "doc:55"])));
    assert_eq!(ids(&mut c, "idx", "kiwi"), v(&["doc:33", "doc:55"]));
    assert_eq!(c.call(&["EXISTS", "doc:6"]), Resp::Int(0));
}

#[test]
fn eviction_removes_documents() {
    let (_s, mut c) = json_server();
    for i in 0..200 {
        c.call(&["JSON.SET", &format!("doc:{i}"), "$", r#"{"name":"fig","pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"#]);
    }
    let used = c.call(&["INFO", "memory"]).text();
    let used: u64 =
        used.lines().find_map(|l| l.strip_prefix("used_memory:")).unwrap().trim().parse().unwrap();
    assert_eq!(c.call(&["CONFIG", "SET", "maxmemory-policy", "allkeys-random"]), ok());
    assert_eq!(c.call(&["CONFIG", "SET", "maxmemory", &(used - 20_000).to_string()]), ok());
    c.call(&["SET", "trigger", "x"]);
    let left = c.call(&["DBSIZE"]).int() as usize;
    assert!(left < 201, "nothing was evicted");
    let found = ids(&mut c, "idx", "fig");
    let keys = c.call(&["KEYS", "doc:*"]);
    let mut keys: Vec<String> = keys.items().iter().map(|k| k.text()).collect();
    keys.sort();
    assert_eq!(found, keys);
}

#[test]
fn hash_writes_reindex() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "h", "ON", "HASH", "PREFIX", "1", "h:", "SCHEMA", "title", "TEXT", "n", "NUMERIC",
            "t", "TAG"
        ]),
        ok()
    );
    c.call(&["HSET", "h:1", "title", "hello world", "n", "1", "t", "x"]);
    assert_eq!(ids(&mut c, "h", "hello"), v(&["h:1"]));
    c.call(&["HINCRBY", "h:1", "n", "5"]);
    assert_eq!(ids(&mut c, "h", "@n:[6 6]"), v(&["h:1"]));
    c.call(&["HINCRBYFLOAT", "h:1", "n", "0.5"]);
    assert_eq!(ids(&mut c, "h", "@n:[6.5 6.5]"), v(&["h:1"]));
    c.call(&["HSETNX", "h:1", "t", "y"]);
    c.call(&["HMSET", "h:1", "title", "bye moon"]);
    assert_eq!(ids(&mut c, "h", "hello"), v(&[]));
    assert_eq!(ids(&mut c, "h", "moon"), v(&["h:1"]));
    c.call(&["HDEL", "h:1", "title"]);
    assert_eq!(ids(&mut c, "h", "moon"), v(&[]));
    assert_eq!(ids(&mut c, "h", "@t:{x}"), v(&["h:1"]));
    c.call(&["HDEL", "h:1", "n", "t"]);
    assert_eq!(c.call(&["EXISTS", "h:1"]), Resp::Int(0));
    assert_eq!(ids(&mut c, "h", "@t:{x}"), v(&[]));
}

#[test]
fn indexes_belong_to_their_database() {
    let (s, mut c) = json_server();
    c.call(&["JSON.SET", "doc:1", "$", r#"{"name":"lime"}"#]);
    let mut c1 = s.conn();
    c1.call(&["SELECT", "1"]);
    // Writes in another database do not reach db 0's index.
    c1.call(&["JSON.SET", "doc:9", "$", r#"{"name":"lime"}"#]);
    assert_eq!(ids(&mut c, "idx", "lime"), v(&["doc:1"]));
    assert!(c1.call(&["FT.SEARCH", "idx", "lime"]).is_error(), "db 1 has no index named idx");
    // FLUSHDB elsewhere leaves db 0's index alone (RediSearch drops every index).
    assert_eq!(c1.call(&["FLUSHDB"]), ok());
    assert_eq!(ids(&mut c, "idx", "lime"), v(&["doc:1"]));
    // FLUSHDB here drops the index, definition and contents, as RediSearch does.
    assert_eq!(c.call(&["FLUSHDB"]), ok());
    assert_eq!(c.call(&["FT.SEARCH", "idx", "lime"]), Resp::Error("idx: no such index".into()));
    assert_eq!(
        c.call(&[
            "FT.CREATE", "idx", "ON", "JSON", "PREFIX", "1", "doc:", "SCHEMA", "$.name", "AS", "name", "TEXT"
        ]),
        ok()
    );
    c.call(&["JSON.SET", "doc:2", "$", r#"{"name":"lime"}"#]);
    assert_eq!(ids(&mut c, "idx", "lime"), v(&["doc:2"]));
    // An index built in a staging database goes live with SWAPDB.
    assert_eq!(
        c1.call(&[
            "FT.CREATE", "stage", "ON", "JSON", "PREFIX", "1", "doc:", "SCHEMA", "$.name", "AS", "name",
            "TEXT"
        ]),
        ok()
    );
    c1.call(&["JSON.SET", "doc:7", "$", r#"{"name":"lime"}"#]);
    assert_eq!(c.call(&["SWAPDB", "0", "1"]), ok());
    assert_eq!(ids(&mut c, "stage", "lime"), v(&["doc:7"]));
    assert_eq!(ids(&mut c1, "idx", "lime"), v(&["doc:2"]));
    assert_eq!(c.call(&["FLUSHALL"]), ok());
    assert_eq!(c.call(&["FT.SEARCH", "stage", "lime"]), Resp::Error("stage: no such index".into()));
    assert_eq!(c1.call(&["FT.SEARCH", "idx", "lime"]), Resp::Error("idx: no such index".into()));
}

#[test]
fn initial_scan_indexes_existing_keys() {
    let s = Server::start();
    let mut c = s.conn();
    for i in 0..500 {
        c.call(&["HSET", &format!("p:{i}"), "title", if i % 2 == 0 { "even" } else { "odd" }]);
    }
    assert_eq!(c.call(&["FT.CREATE", "p", "PREFIX", "1", "p:", "SCHEMA", "title", "TEXT"]), ok());
    assert_eq!(c.call(&["FT.SEARCH", "p", "even", "LIMIT", "0", "0"]).items()[0], Resp::Int(250));
    assert_eq!(
        c.call(&["FT.CREATE", "q", "PREFIX", "1", "p:", "SKIPINITIALSCAN", "SCHEMA", "title", "TEXT"]),
        ok()
    );
    assert_eq!(c.call(&["FT.SEARCH", "q", "even", "LIMIT", "0", "0"]).items()[0], Resp::Int(0));
}

#[test]
fn indexes_survive_reload_restart_and_reach_a_replica() {
    let (mut s, mut c) = json_server();
    for i in 0..50 {
        c.call(&[
            "JSON.SET",
            &format!("doc:{i}"),
            "$",
            &format!(r#"{{"name":"plum {i}","n":{i},"tags":["t{}"]}}"#, i % 5),
        ]);
    }
    assert_eq!(c.call(&["FT.ALIASADD", "fruit", "idx"]), ok());
    let queries = ["plum", "@n:[10 19]", "@tags:{t3}", "@name:plum @n:[(40 inf]"];
    let before: Vec<Vec<String>> = queries.iter().map(|q| ids(&mut c, "idx", q)).collect();
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    for (q, want) in queries.iter().zip(&before) {
        assert_eq!(&ids(&mut c, "idx", q), want, "after DEBUG RELOAD: {q}");
    }
    assert_eq!(ids(&mut c, "fruit", "plum").len(), 50, "alias survives");
    assert_eq!(c.cmd("SAVE"), ok());
    s.restart();
    let mut c = s.conn();
    for (q, want) in queries.iter().zip(&before) {
        assert_eq!(&ids(&mut c, "idx", q), want, "after restart: {q}");
    }
    let replica = Server::start();
    let mut r = replica.conn();
    r.call(&["REPLICAOF", "127.0.0.1", &s.port.to_string()]);
    assert!(wait_until(30, || r.call(&["INFO", "replication"]).text().contains("master_link_status:up")));
    c.call(&["JSON.SET", "doc:100", "$", r#"{"name":"plum late","n":100}"#]);
    c.call(&[
        "FT.CREATE", "idx2", "ON", "JSON", "PREFIX", "1", "doc:", "SCHEMA", "$.n", "AS", "n", "NUMERIC",
    ]);
    assert!(wait_until(30, || ids(&mut r, "idx", "late") == v(&["doc:100"])));
    for (q, want) in queries.iter().zip(&before) {
        assert_eq!(ids(&mut r, "idx", q), ids(&mut c, "idx", q), "replica: {q} (before: {want:?})");
    }
    assert!(wait_until(30, || !r.call(&["FT.SEARCH", "idx2", "*"]).is_error()));
    assert_eq!(ids(&mut r, "idx2", "@n:[0 1000]").len(), 51);
}

#[test]
fn large_initial_scan_is_time_sliced_and_survives_flush_and_swap() {
    let s = Server::start();
    let mut c = s.conn();
    // 60k hashes: several slices of scanning.
    for chunk in 0..60 {
        let mut args: Vec<String> = Vec::new();
        for i in 0..1000 {
            let n = chunk * 1000 + i;
            args.extend(["HSET".into(), format!("s:{n}"), "title".into(), format!("word{} common", n % 7)]);
            c.send(&args[args.len() - 4..]);
        }
        for _ in 0..1000 {
            c.read();
        }
    }
    assert_eq!(c.call(&["FT.CREATE", "big", "PREFIX", "1", "s:", "SCHEMA", "title", "TEXT"]), ok());
    // The server answers while the scan runs; FT.INFO reports progress until it is done.
    assert_eq!(c.call(&["PING"]), Resp::Simple("PONG".into()));
    let info_field = |c: &mut Conn, name: &str| -> String {
        let info = c.call(&["FT.INFO", "big"]);
        let items = info.items();
        let i = items
            .iter()
            .position(|x| matches!(x, Resp::Simple(_) | Resp::Bulk(_)) && x.text() == name)
            .unwrap();
        match &items[i + 1] {
            Resp::Int(n) => n.to_string(),
            other => other.text(),
        }
    };
    assert!(wait_until(60, || info_field(&mut c, "indexing") == "0"), "scan never finished");
    assert_eq!(info_field(&mut c, "percent_indexed"), "1");
    assert_eq!(c.call(&["FT.SEARCH", "big", "common", "LIMIT", "0", "0"]).items()[0], Resp::Int(60_000));
    assert_eq!(
        c.call(&["FT.SEARCH", "big", "word3", "LIMIT", "0", "0"]).items()[0],
        Resp::Int((0..60_000).filter(|n| n % 7 == 3).count() as i64)
    );

    // A new index over the same keys, then SWAPDB and FLUSHALL while it scans: no crash, no stall.
    assert_eq!(c.call(&["FT.CREATE", "big2", "PREFIX", "1", "s:", "SCHEMA", "title", "TEXT"]), ok());
    assert_eq!(c.call(&["SWAPDB", "0", "1"]), ok());
    let mut c1 = s.conn();
    c1.call(&["SELECT", "1"]);
    assert!(wait_until(60, || {
        let r = c1.call(&["FT.SEARCH", "big2", "common", "LIMIT", "0", "0"]);
        r.items()[0] == Resp::Int(60_000)
    }));
    assert_eq!(c1.call(&["FT.CREATE", "big3", "PREFIX", "1", "s:", "SCHEMA", "title", "TEXT"]), ok());
    assert_eq!(c1.call(&["FT.DROPINDEX", "big2"]), ok());
    assert_eq!(c.call(&["FLUSHALL"]), ok());
    assert!(c1.call(&["FT.SEARCH", "big3", "common"]).is_error(), "FLUSHALL drops every index");
    assert_eq!(c1.call(&["FT.CREATE", "big3", "PREFIX", "1", "s:", "SCHEMA", "title", "TEXT"]), ok());
    assert_eq!(c1.call(&["FT.SEARCH", "big3", "common", "LIMIT", "0", "0"]).items()[0], Resp::Int(0));
    assert_eq!(c1.call(&["HSET", "s:1", "title", "common"]), Resp::Int(1));
    assert_eq!(c1.call(&["FT.SEARCH", "big3", "common", "LIMIT", "0", "0"]).items()[0], Resp::Int(1));
}

#[test]
fn dropindex_dd_and_temporary_expiry_delete_documents_everywhere() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "a", "PREFIX", "1", "t:", "SCHEMA", "f", "TEXT"]), ok());
    assert_eq!(c.call(&["FT.CREATE", "b", "PREFIX", "1", "t:", "SCHEMA", "f", "TEXT"]), ok());
    c.call(&["HSET", "t:1", "f", "melon"]);
    c.call(&["HSET", "t:2", "f", "melon"]);
    assert_eq!(c.call(&["FT.DROPINDEX", "a", "DD"]), ok());
    assert_eq!(c.call(&["DBSIZE"]), Resp::Int(0));
    // The other index over the same keys saw them go.
    assert_eq!(ids(&mut c, "b", "melon"), v(&[]));
    // A TEMPORARY index expires when idle, taking its documents with it.
    assert_eq!(
        c.call(&["FT.CREATE", "tmp", "TEMPORARY", "1", "PREFIX", "1", "x:", "SCHEMA", "f", "TEXT"]),
        ok()
    );
    c.call(&["HSET", "x:1", "f", "kiwi"]);
    assert_eq!(ids(&mut c, "tmp", "kiwi"), v(&["x:1"]));
    assert!(wait_until(10, || c.call(&["FT._LIST"]).items().len() == 1), "TEMPORARY index did not expire");
    assert_eq!(c.call(&["EXISTS", "x:1"]), Resp::Int(0));
}
