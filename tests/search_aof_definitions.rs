//! An AOF rewritten without the RDB preamble (`aof-use-rdb-preamble no`) carries every index
//! definition, alias, synonym group and dictionary (`src/aof_definitions.rs`): after a
//! restart (or DEBUG LOADAOF) FT.INFO, FT._LIST, FT.SYNDUMP, FT.DICTDUMP, FT.SUGGET and queries
//! answer as before it. Also with hashes only (no module key exists), with many keys (the
//! replayed FT.CREATE scans them all while loading), when `appendonly` is switched on at run
//! time, and when the rewrite begins while clients are paused.

mod common;

use common::{wait_until, Conn, Resp, Server, ServerOptions};

fn ok(r: Resp) {
    assert!(matches!(&r, Resp::Simple(s) if s == "OK"), "{r:?}");
}

fn aof_server(preamble: &str) -> Server {
    Server::with(ServerOptions {
        args: ["--appendonly", "yes", "--aof-use-rdb-preamble", preamble, "--appendfsync", "always"]
            .map(String::from)
            .to_vec(),
        ..Default::default()
    })
}

/// BGREWRITEAOF, then waits until it is done (and succeeded).
fn rewrite(s: &Server, c: &mut Conn) {
    let r = c.call(&["BGREWRITEAOF"]);
    assert!(!r.is_error(), "{r:?}");
    wait_rewritten(s, c);
}

fn wait_rewritten(s: &Server, c: &mut Conn) {
    assert!(
        wait_until(30, || {
            let info = c.call(&["INFO", "persistence"]).text();
            info.contains("aof_rewrite_in_progress:0")
                && !info.contains("aof_rewrite_scheduled:1")
                && info.contains("aof_last_bgrewrite_status:ok")
        }),
        "AOF rewrite did not finish: {}",
        s.log()
    );
}

/// The FT.INFO fields not compared: how the index was used, how long indexing took and its
/// collector's runs, not what it holds; and `max_doc_id`, since ids are given out afresh, densely, as keys load
/// (from an RDB too), where before the restart a deleted document's id may have been left
/// behind.
const VOLATILE: &[&str] =
    &["total_indexing_time", "number_of_uses", "dialect_stats", "max_doc_id", "gc_stats"];

/// A reply compared as equal or, for FT.INFO's memory estimates, a number. Those depend on the
/// history of the index, not only on what it holds: updates leave postings blocks with room to
/// spare, and documents' ids, which follow the order keys are indexed in (after a load, the
/// order of the keyspace's hash table), change how postings pack. So a restart is compared with
/// the server before it on everything but them, and with a reload from an RDB (which has the
/// same history, a load) on them too.
#[derive(Debug)]
enum Cmp {
    Exact(Resp),
    Memory(String, f64),
}

/// FT.INFO's memory estimates (the other `…_avg` figures divide counts).
fn is_memory(name: &str) -> bool {
    name.ends_with("_mb") || name == "bytes_per_record_avg" || name == "offset_bits_per_record_avg"
}

fn info(c: &mut Conn, index: &str) -> Vec<Cmp> {
    let r = c.call(&["FT.INFO", index]);
    let Resp::Array(items) = r else { panic!("FT.INFO {index}: {r:?}") };
    let mut kept = Vec::new();
    for pair in items.chunks(2) {
        let name = pair[0].text();
        if VOLATILE.contains(&name.as_str()) {
            continue;
        }
        if is_memory(&name) {
            let v: f64 = pair[1].text().parse().unwrap_or_else(|_| panic!("{name}: {:?}", pair[1]));
            kept.push(Cmp::Memory(name, v));
        } else {
            kept.push(Cmp::Exact(Resp::Array(pair.to_vec())));
        }
    }
    kept
}

/// An FT.SEARCH reply with its results (each `width` items, the key first) in key order: ties
/// (equal scores, `*`) come in id order, and ids follow the order keys are indexed in.
fn by_key(r: Resp, width: usize) -> Resp {
    let Resp::Array(items) = r else { return r };
    let Some((total, rest)) = items.split_first() else { return Resp::Array(items) };
    let mut rows: Vec<&[Resp]> = rest.chunks(width).collect();
    rows.sort_by_key(|row| format!("{:?}", row[0]));
    let mut out = vec![total.clone()];
    for row in rows {
        out.extend(row.iter().map(by_name));
    }
    Resp::Array(out)
}

/// A row's fields (name, value, ...) by name: RediSearch lists a page's fields in the order it
/// met their names over the page's rows, so tied rows coming in another order (their ids
/// follow the order the documents were loaded in) list them in another order.
fn by_name(fields: &Resp) -> Resp {
    let Resp::Array(items) = fields else { return fields.clone() };
    if items.len() % 2 != 0 {
        return fields.clone();
    }
    let mut pairs: Vec<&[Resp]> = items.chunks(2).collect();
    pairs.sort_by_key(|p| format!("{:?}", p[0]));
    Resp::Array(pairs.concat())
}

/// Every index, its FT.INFO, synonyms and a few queries; the dictionaries and suggestions.
/// Taken after a GC run of each index: until one, FT.INFO's `num_records` counts the numeric
/// entries of replaced documents, which a restart does not bring back (in RediSearch too).
fn snapshot(
    c: &mut Conn,
    indexes: &[&str],
    queries: &[(&str, &str)],
    dicts: &[&str],
    sugs: &[&str],
) -> Vec<Cmp> {
    c.call(&["FT.CONFIG", "SET", "FORK_GC_CLEAN_THRESHOLD", "0"]);
    for i in indexes {
        c.call(&["FT.DEBUG", "GC_FORCEINVOKE", i]);
    }
    let mut out = vec![Cmp::Exact(c.call(&["FT._LIST"]))];
    // Terms emptied by updates count until a garbage collection (as in RediSearch), and a
    // restart replays only the rewritten final documents: collect before comparing.
    c.call(&["FT.CONFIG", "SET", "FORK_GC_CLEAN_THRESHOLD", "0"]);
    for i in indexes {
        c.call(&["FT.DEBUG", "GC_FORCEINVOKE", i]);
        out.extend(info(c, i));
        out.push(Cmp::Exact(c.call(&["FT.SYNDUMP", i])));
        out.push(Cmp::Exact(by_key(c.call(&["FT.SEARCH", i, "*", "NOCONTENT", "LIMIT", "0", "100000"]), 1)));
    }
    for (i, q) in queries {
        out.push(Cmp::Exact(by_key(c.call(&["FT.SEARCH", i, q, "WITHSCORES", "LIMIT", "0", "100"]), 3)));
    }
    for d in dicts {
        out.push(Cmp::Exact(c.call(&["FT.DICTDUMP", d])));
    }
    for s in sugs {
        out.push(Cmp::Exact(
            c.call(&["FT.SUGGET", s, "a", "FUZZY", "WITHSCORES", "WITHPAYLOADS", "MAX", "100"]),
        ));
        out.push(Cmp::Exact(c.call(&["FT.SUGLEN", s])));
    }
    out
}

/// A reply as lines of text, bulk strings readable.
fn lines(r: &Resp, depth: usize, out: &mut Vec<String>) {
    let pad = "  ".repeat(depth);
    match r {
        Resp::Array(items) | Resp::Set(items) => {
            out.push(format!("{pad}["));
            for i in items {
                lines(i, depth + 1, out);
            }
            out.push(format!("{pad}]"));
        }
        Resp::Bulk(b) => out.push(format!("{pad}{:?}", String::from_utf8_lossy(b))),
        other => out.push(format!("{pad}{other:?}")),
    }
}

/// Every reply equal, but memory estimates; those too (within 1%) after a reload.
fn assert_same(before: &[Cmp], after: &[Cmp]) {
    compare(before, after, false);
}

/// Every reply equal, memory estimates within 1% (two servers that loaded the same data).
fn assert_same_loads(a: &[Cmp], b: &[Cmp]) {
    compare(a, b, true);
}

fn compare(before: &[Cmp], after: &[Cmp], memory: bool) {
    assert_eq!(before.len(), after.len());
    for (n, (b, a)) in before.iter().zip(after).enumerate() {
        match (b, a) {
            (Cmp::Exact(b), Cmp::Exact(a)) if b != a => {
                assert!(!b.is_error(), "{b:?}");
                let (mut x, mut y) = (Vec::new(), Vec::new());
                lines(b, 0, &mut x);
                lines(a, 0, &mut y);
                let diff: Vec<String> = x
                    .iter()
                    .zip(y.iter().chain(std::iter::repeat(&String::new())))
                    .filter(|(p, q)| p != q)
                    .map(|(p, q)| format!("{p}  =>  {q}"))
                    .take(12)
                    .collect();
                panic!("reply {n} differs ({} vs {} lines):\n{}", x.len(), y.len(), diff.join("\n"));
            }
            (Cmp::Exact(b), Cmp::Exact(_)) => assert!(!b.is_error(), "{b:?}"),
            (Cmp::Memory(m, x), Cmp::Memory(k, y)) => {
                assert_eq!(m, k, "reply {n}");
                let near =
                    x == y || (x - y).abs() <= 0.01 * x.abs().max(y.abs()) || (x.is_nan() && y.is_nan());
                assert!(!memory || near, "reply {n}: {m} {x} vs {y}");
            }
            _ => panic!("reply {n}: {b:?} vs {a:?}"),
        }
    }
}

fn vector(x: f32, y: f32) -> Vec<u8> {
    [x, y].iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// Documents and definitions with most of what a definition can hold.
fn populate(c: &mut Conn) {
    for i in 0..40 {
        let words = ["alpha beta", "gamma delta", "hello world", "quick brown fox", "lazy dog"][i % 5];
        let v = vector(i as f32, (i % 7) as f32);
        let hash: Vec<Vec<u8>> = [
            b"HSET".to_vec(),
            format!("h:{i}").into_bytes(),
            b"title".to_vec(),
            format!("{words} number{i}").into_bytes(),
            b"body".to_vec(),
            format!("body text {}", i * 3).into_bytes(),
            b"n".to_vec(),
            i.to_string().into_bytes(),
            b"tags".to_vec(),
            format!("t{},T{}", i % 3, i % 4).into_bytes(),
            b"loc".to_vec(),
            format!("{},{}", -122.0 + i as f64 / 100.0, 37.0 + i as f64 / 100.0).into_bytes(),
            b"v".to_vec(),
            v,
            b"sc".to_vec(),
            format!("0.{}", i % 10).into_bytes(),
            b"lang".to_vec(),
            if i % 2 == 0 { b"english".to_vec() } else { b"german".to_vec() },
        ]
        .to_vec();
        assert!(!c.call(&hash).is_error());
        let doc = format!(
            r#"{{"name":"{words} {i}","price":{},"tags":["x{}","y"],"vec":[{}.0,1.5],"nested":{{"city":"c{}"}}}}"#,
            i * 10,
            i % 3,
            i,
            i % 4
        );
        ok(c.call(&["JSON.SET", &format!("j:{i}"), "$", &doc]));
    }
    ok(c.call(&[
        "FT.CREATE", "hidx", "ON", "HASH", "PREFIX", "2", "h:", "other:", "FILTER", "@n >= 2", "LANGUAGE",
        "english", "LANGUAGE_FIELD", "lang", "SCORE", "0.8", "SCORE_FIELD", "sc", "PAYLOAD_FIELD", "pl",
        "STOPWORDS", "2", "the", "number3", "SCHEMA", "title", "TEXT", "WEIGHT", "2.5", "SORTABLE", "body",
        "TEXT", "NOSTEM", "PHONETIC", "dm:en", "n", "NUMERIC", "SORTABLE", "tags", "TAG", "SEPARATOR", ",",
        "CASESENSITIVE", "loc", "GEO", "v", "VECTOR", "HNSW", "10", "TYPE", "FLOAT32", "DIM", "2",
        "DISTANCE_METRIC", "COSINE", "M", "8", "EF_CONSTRUCTION", "50",
    ]));
    ok(c.call(&[
        "FT.CREATE", "jidx", "ON", "JSON", "PREFIX", "1", "j:", "NOOFFSETS", "NOFREQS", "SCHEMA", "$.name",
        "AS", "name", "TEXT", "NOINDEX", "SORTABLE", "$.name", "AS", "name2", "TEXT", "$.price", "AS",
        "price", "NUMERIC", "$.tags[*]", "AS", "tags", "TAG", "$.vec", "AS", "vec", "VECTOR", "FLAT", "6",
        "TYPE", "FLOAT32", "DIM", "2", "DISTANCE_METRIC", "L2", "$.nested.city", "AS", "city", "TAG",
        "SORTABLE",
    ]));
    ok(c.call(&["FT.CREATE", "plain", "MAXTEXTFIELDS", "SCHEMA", "title", "TEXT"]));
    // Keys written after an index created with SKIPINITIALSCAN are indexed; after a restart
    // (from an RDB too) it holds every key that matches, so only those exist here.
    ok(c.call(&[
        "FT.CREATE", "skipped", "ON", "HASH", "PREFIX", "1", "s:", "SKIPINITIALSCAN", "SCHEMA", "title",
        "TEXT",
    ]));
    for i in 0..5 {
        assert_eq!(c.call(&["HSET", &format!("s:{i}"), "title", "skip me not"]), Resp::Int(1));
    }
    ok(c.call(&["FT.ALTER", "jidx", "SCHEMA", "ADD", "$.nested.city", "AS", "nest", "TEXT"]));
    ok(c.call(&["FT.SYNUPDATE", "hidx", "g2", "fox", "dog"]));
    ok(c.call(&["FT.SYNUPDATE", "hidx", "g1", "dog", "hound", "canine"]));
    ok(c.call(&["FT.SYNUPDATE", "jidx", "s1", "alpha", "gamma"]));
    ok(c.call(&["FT.ALIASADD", "halias", "hidx"]));
    ok(c.call(&["FT.ALIASADD", "jalias", "jidx"]));
    assert_eq!(c.call(&["FT.DICTADD", "dict1", "apple", "banana", "Cherry"]), Resp::Int(3));
    assert_eq!(c.call(&["FT.DICTDEL", "emptied", "nothing"]), Resp::Int(0));
    for (s, score) in [("alpha", "1"), ("alpine", "2.5"), ("apex", "0.5")] {
        assert!(!c.call(&["FT.SUGADD", "sug", s, score, "PAYLOAD", &format!("p-{s}")]).is_error());
    }
    // Database 1 has an index of its own.
    ok(c.call(&["SELECT", "1"]));
    assert_eq!(c.call(&["HSET", "k:1", "f", "one"]), Resp::Int(1));
    ok(c.call(&["FT.CREATE", "db1idx", "PREFIX", "1", "k:", "SCHEMA", "f", "TEXT"]));
    ok(c.call(&["SELECT", "0"]));
    wait_scanned(c, &["hidx", "jidx", "plain", "skipped"]);
}

/// Waits until no initial scan of these indexes is running.
fn wait_scanned(c: &mut Conn, indexes: &[&str]) {
    for i in indexes {
        assert!(wait_until(30, || info_value(c, i, "indexing") == Resp::Int(0)), "{i} still indexing");
    }
}

const INDEXES: &[&str] = &["hidx", "jidx", "plain", "skipped", "halias", "jalias"];
const QUERIES: &[(&str, &str)] = &[
    ("hidx", "hello"),
    ("hidx", "hound"),
    ("hidx", "@n:[5 20] @tags:{t1}"),
    ("hidx", "@loc:[-122 37 50 km]"),
    ("hidx", "@title:number3"),
    ("jidx", "@tags:{x1}"),
    ("jidx", "@price:[100 200]"),
    ("jidx", "gamma"),
    ("jidx", "@city:{c2}"),
    ("plain", "fox"),
];

fn full_snapshot(c: &mut Conn) -> Vec<Cmp> {
    let mut out = snapshot(c, INDEXES, QUERIES, &["dict1", "emptied"], &["sug"]);
    // A point no two documents are equally near (ties would come in id order).
    let blob = vector(3.1, 2.9);
    let knn: Vec<&[u8]> = vec![
        b"FT.SEARCH", b"hidx", b"*=>[KNN 5 @v $b AS d]", b"PARAMS", b"2", b"b", &blob, b"SORTBY", b"d",
        b"RETURN", b"1", b"d", b"DIALECT", b"2",
    ];
    out.push(Cmp::Exact(by_key(c.call(&knn), 2)));
    let knn: Vec<&[u8]> = vec![
        b"FT.SEARCH", b"jidx", b"*=>[KNN 3 @vec $b AS d]", b"PARAMS", b"2", b"b", &blob, b"SORTBY", b"d",
        b"RETURN", b"1", b"d", b"DIALECT", b"2",
    ];
    out.push(Cmp::Exact(by_key(c.call(&knn), 2)));
    out.push(Cmp::Exact(c.call(&[
        "FT.AGGREGATE", "jidx", "*", "GROUPBY", "1", "@city", "REDUCE", "COUNT", "0", "AS", "n", "SORTBY",
        "2", "@city", "ASC",
    ])));
    ok(c.call(&["SELECT", "1"]));
    out.push(Cmp::Exact(c.call(&["FT._LIST"])));
    out.extend(info(c, "db1idx"));
    out.push(Cmp::Exact(c.call(&["FT.SEARCH", "db1idx", "one"])));
    ok(c.call(&["SELECT", "0"]));
    out
}

/// Writes after the rewrite: they follow the definitions in the new incremental file.
fn write_after_rewrite(c: &mut Conn) {
    assert_eq!(
        c.call(&["HSET", "h:100", "title", "hello late hound", "n", "15", "tags", "t1"]),
        Resp::Int(3)
    );
    assert_eq!(c.call(&["DEL", "h:7"]), Resp::Int(1));
    ok(c.call(&[
        "JSON.SET",
        "j:100",
        "$",
        r#"{"name":"late gamma","price":150,"tags":["x1"],"vec":[3.0,3.0],"nested":{"city":"c2"}}"#,
    ]));
    ok(c.call(&["FT.CREATE", "late", "PREFIX", "1", "h:1", "SCHEMA", "title", "TEXT"]));
    assert_eq!(c.call(&["FT.DICTADD", "late", "zebra"]), Resp::Int(1));
    assert_eq!(c.call(&["FT.DICTDEL", "dict1", "banana"]), Resp::Int(1));
    ok(c.call(&["FT.SYNUPDATE", "jidx", "s2", "delta"]));
    wait_scanned(c, &["late"]);
}

#[test]
fn restart_from_an_aof_without_preamble_keeps_every_definition() {
    let mut s = aof_server("no");
    let mut c = s.conn();
    populate(&mut c);
    rewrite(&s, &mut c);
    write_after_rewrite(&mut c);
    let late = |c: &mut Conn| {
        let mut out = full_snapshot(c);
        out.extend(snapshot(c, &["late"], &[("late", "hello")], &["late"], &[]));
        out
    };
    let before = late(&mut c);
    s.restart();
    let mut c = s.conn();
    let restarted = late(&mut c);
    assert_same(&before, &restarted);
    // A reload from an RDB (the definitions in its aux records) answers the same. (Its memory
    // figures differ: here the indexes with synonym groups were indexed twice, see
    // `search::restore`, and updates leave postings with room to spare.)
    ok(c.call(&["DEBUG", "RELOAD"]));
    assert_same(&restarted, &late(&mut c));
    assert!(!s.log().contains("folio: could not"), "{}", s.log());
    // A second rewrite, from the restarted server, carries them again.
    rewrite(&s, &mut c);
    s.restart();
    let mut c = s.conn();
    assert_same(&before, &late(&mut c));
}

#[test]
fn debug_loadaof_from_an_aof_without_preamble() {
    let s = aof_server("no");
    let mut c = s.conn();
    populate(&mut c);
    rewrite(&s, &mut c);
    let before = full_snapshot(&mut c);
    ok(c.call(&["DEBUG", "LOADAOF"]));
    assert_same(&before, &full_snapshot(&mut c));
}

#[test]
fn hash_only_database() {
    let mut s = aof_server("no");
    let mut c = s.conn();
    for i in 0..20 {
        assert_eq!(
            c.call(&["HSET", &format!("p:{i}"), "name", &format!("item {i}"), "n", &i.to_string()]),
            Resp::Int(2)
        );
    }
    ok(c.call(&[
        "FT.CREATE", "p", "PREFIX", "1", "p:", "SCHEMA", "name", "TEXT", "n", "NUMERIC", "SORTABLE",
    ]));
    ok(c.call(&["FT.ALIASADD", "pa", "p"]));
    rewrite(&s, &mut c);
    let base = std::fs::read_dir(s.dir.join("appendonlydir"))
        .unwrap()
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().ends_with(".base.aof"))
        .expect("a base file");
    let base = std::fs::read(base.path()).unwrap();
    assert!(!base.windows(9).any(|w| w == b"ReJSON-RL" || w == b"JSON.SET "), "no module key in the base");
    // The definitions are in the incremental file, and the command that started the rewrite
    // is not (it would start another rewrite while the AOF loads).
    let incr: Vec<u8> = std::fs::read_dir(s.dir.join("appendonlydir"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".incr.aof"))
        .flat_map(|e| std::fs::read(e.path()).unwrap())
        .collect();
    assert!(incr.windows(14).any(|w| w == b"FT._CREATEIFNX"), "{}", String::from_utf8_lossy(&incr));
    assert!(!incr.windows(12).any(|w| w == b"BGREWRITEAOF"), "{}", String::from_utf8_lossy(&incr));
    let queries = [("p", "item"), ("pa", "@n:[3 9]")];
    let before = snapshot(&mut c, &["p", "pa"], &queries, &[], &[]);
    s.restart();
    let mut c = s.conn();
    let restarted = snapshot(&mut c, &["p", "pa"], &queries, &[], &[]);
    assert_same(&before, &restarted);
    // The same index, memory figures included, as a reload from an RDB builds.
    ok(c.call(&["DEBUG", "RELOAD"]));
    assert_same_loads(&restarted, &snapshot(&mut c, &["p", "pa"], &queries, &[], &[]));
}

#[test]
fn every_key_is_indexed_when_many_precede_the_definition() {
    // More keys than one 10 ms scan slice reads: the replayed FT._CREATEIFNX must scan them
    // all while loading (timers do not run then).
    let mut s = aof_server("no");
    let mut c = s.conn();
    const N: usize = 30_000;
    for chunk in (0..N).collect::<Vec<_>>().chunks(1000) {
        for i in chunk {
            c.send(&[
                "HSET",
                &format!("m:{i}"),
                "t",
                &format!("word{} common", i % 100),
                "n",
                &i.to_string(),
            ]);
        }
        for _ in chunk {
            assert_eq!(c.read(), Resp::Int(2));
        }
    }
    ok(c.call(&["FT.CREATE", "m", "PREFIX", "1", "m:", "SCHEMA", "t", "TEXT", "n", "NUMERIC"]));
    assert!(wait_until(60, || info_value(&mut c, "m", "indexing") == Resp::Int(0)));
    rewrite(&s, &mut c);
    // Scores without what RediSearch's numeric trees add: a tree rebuilt in another order
    // (RediSearch re-indexes in hash-table order on load) splits elsewhere, and whether
    // `[0 2000]` reads as one range or a union changes `word7`'s score in RediSearch too.
    let artifacts_off = |c: &mut Conn| ok(c.call(&["FT.CONFIG", "SET", "ITERATOR_SCORES", "false"]));
    artifacts_off(&mut c);
    let queries = [("m", "word7 @n:[0 2000]"), ("m", "@n:[100 150]")];
    let count = |c: &mut Conn| c.call(&["FT.SEARCH", "m", "common", "LIMIT", "0", "0"]);
    let before = (count(&mut c), snapshot(&mut c, &["m"], &queries, &[], &[]));
    assert_eq!(before.0.items()[0], Resp::Int(N as i64));
    s.restart();
    let mut c = s.conn();
    artifacts_off(&mut c);
    assert_eq!(info_value(&mut c, "m", "indexing"), Resp::Int(0));
    assert_eq!(count(&mut c), before.0);
    let restarted = snapshot(&mut c, &["m"], &queries, &[], &[]);
    assert_same(&before.1, &restarted);
    ok(c.call(&["DEBUG", "RELOAD"]));
    assert_same_loads(&restarted, &snapshot(&mut c, &["m"], &queries, &[], &[]));
}

fn info_value(c: &mut Conn, index: &str, field: &str) -> Resp {
    let r = c.call(&["FT.INFO", index]);
    let items = r.items();
    items.chunks(2).find(|p| p[0] == Resp::Simple(field.into())).map(|p| p[1].clone()).unwrap_or(Resp::Nil)
}

#[test]
fn appendonly_switched_on_at_run_time() {
    let mut s = Server::with(ServerOptions {
        args: ["--appendonly", "no", "--aof-use-rdb-preamble", "no", "--appendfsync", "always"]
            .map(String::from)
            .to_vec(),
        ..Default::default()
    });
    let mut c = s.conn();
    populate(&mut c);
    // The first rewrite runs while the AOF waits for it (a temporary incremental file).
    ok(c.call(&["CONFIG", "SET", "appendonly", "yes"]));
    wait_rewritten(&s, &mut c);
    write_after_rewrite(&mut c);
    let before = full_snapshot(&mut c);
    // The next start must read the AOF: the configuration file has none, so say so again.
    s.kill();
    let mut s = Server::with(ServerOptions {
        args: ["--appendonly", "yes", "--aof-use-rdb-preamble", "no"].map(String::from).to_vec(),
        dir: Some(s.dir.clone()),
        ..Default::default()
    });
    let mut c = s.conn();
    assert_same(&before, &full_snapshot(&mut c));
    s.kill();
}

#[test]
fn a_rewrite_while_clients_are_paused() {
    // Redis aborts if anything is propagated while writes are paused: the definitions wait for
    // the pause to end, and the writes paused with them come after them.
    let mut s = aof_server("no");
    let mut c = s.conn();
    populate(&mut c);
    ok(c.call(&["CLIENT", "PAUSE", "1500", "WRITE"]));
    let r = c.call(&["BGREWRITEAOF"]);
    assert!(!r.is_error(), "{r:?}");
    let port = s.port;
    let paused_write = std::thread::spawn(move || {
        let mut w = Conn::open(port).unwrap();
        w.call(&["FT.CREATE", "during", "PREFIX", "1", "h:2", "SCHEMA", "title", "TEXT"])
    });
    ok(paused_write.join().unwrap());
    assert!(s.alive(), "{}", s.log());
    wait_rewritten(&s, &mut c);
    let mut indexes = INDEXES.to_vec();
    indexes.push("during");
    let before = snapshot(&mut c, &indexes, QUERIES, &["dict1", "emptied"], &["sug"]);
    s.restart();
    let mut c = s.conn();
    assert_same(&before, &snapshot(&mut c, &indexes, QUERIES, &["dict1", "emptied"], &["sug"]));
}

#[test]
fn replicas_get_no_definitions_from_a_rewrite() {
    // The definitions go to the AOF only: a replica's stream carries nothing new (at most an
    // empty MULTI/EXEC), and its indexes stay as they were.
    let primary = aof_server("no");
    let replica = Server::start();
    let mut p = primary.conn();
    let mut r = replica.conn();
    populate(&mut p);
    ok(r.call(&["REPLICAOF", "127.0.0.1", &primary.port.to_string()]));
    let synced = |p: &mut Conn, r: &mut Conn| {
        wait_until(30, || {
            if !r.call(&["INFO", "replication"]).text().contains("master_link_status:up") {
                return false;
            }
            let offset = |c: &mut Conn, f: &str| {
                let info = c.call(&["INFO", "replication"]).text();
                info.lines().find_map(|l| l.strip_prefix(f).map(|v| v.trim().to_string()))
            };
            let po = offset(p, "master_repl_offset:");
            po.is_some() && po == offset(r, "slave_repl_offset:")
        })
    };
    assert!(synced(&mut p, &mut r));
    let before = snapshot(&mut r, INDEXES, QUERIES, &["dict1"], &["sug"]);
    let mut monitor = replica.conn();
    monitor.send(&["MONITOR"]);
    assert_eq!(monitor.read(), Resp::Simple("OK".into()));
    rewrite(&primary, &mut p);
    ok(p.call(&["SET", "marker", "1"]));
    assert!(synced(&mut p, &mut r));
    // Everything the replica ran from its primary up to the marker.
    let mut seen = Vec::new();
    loop {
        let line = monitor.read().text();
        if line.contains("\"marker\"") {
            break;
        }
        seen.push(line);
    }
    assert!(seen.iter().all(|l| !l.contains("FT.") && !l.contains("BGREWRITEAOF")), "{seen:?}");
    assert_same(&before, &snapshot(&mut r, INDEXES, QUERIES, &["dict1"], &["sug"]));
}

#[test]
fn with_the_preamble_nothing_is_added() {
    let mut s = aof_server("yes");
    let mut c = s.conn();
    populate(&mut c);
    rewrite(&s, &mut c);
    ok(c.call(&["SET", "after", "1"]));
    let incr: Vec<u8> = std::fs::read_dir(s.dir.join("appendonlydir"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".incr.aof"))
        .flat_map(|e| std::fs::read(e.path()).unwrap())
        .collect();
    assert!(!incr.windows(3).any(|w| w == b"FT."), "{}", String::from_utf8_lossy(&incr));
    let before = full_snapshot(&mut c);
    s.restart();
    let mut c = s.conn();
    assert_same(&before, &full_snapshot(&mut c));
}
