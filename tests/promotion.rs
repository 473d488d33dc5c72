//! A replica promoted (REPLICAOF NO ONE) while its primary takes pipelined JSON.SET, HSET,
//! HDEL and DEL into indexed keys: whatever prefix of the stream the replica had applied when
//! it was cut off, its indexes must describe exactly its keyspace (same documents, same field
//! values, same totals for a fixed set of queries), and keep doing so as it takes writes of
//! its own. `make faults-loop` runs it 20 times in a row.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use common::{wait_until, Conn, Resp, Server, ServerOptions};

const KEYS: u64 = 3000;

/// A small deterministic generator (the tests carry no rand dependency).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// One random write: a JSON document replaced or partly updated or deleted, a hash written,
/// stripped of its text field, or deleted.
fn random_write(rng: &mut Lcg) -> Vec<String> {
    let (k, v) = (rng.below(KEYS), rng.below(1000));
    let s = |a: &[&str]| a.iter().map(|x| x.to_string()).collect();
    match rng.below(10) {
        0..=2 => {
            s(&["JSON.SET", &format!("d:{k}"), "$", &format!(r#"{{"t":"word{} burst","n":{v}}}"#, v % 10)])
        }
        3 => s(&["JSON.SET", &format!("d:{k}"), "$.n", &v.to_string()]),
        4 => s(&["DEL", &format!("d:{k}")]),
        5..=7 => s(&["HSET", &format!("h:{k}"), "t", &format!("word{} x", v % 10), "n", &v.to_string()]),
        8 => s(&["HDEL", &format!("h:{k}"), "t"]),
        _ => s(&["DEL", &format!("h:{k}")]),
    }
}

/// Pipelines random writes (32 at a time) into the server on `port` until `stop`; counts the
/// replies. Every reply is a success, or JSON.SET's nil/error for a path into a missing key.
fn writer(port: u16, seed: u64, stop: Arc<AtomicBool>, done: Arc<AtomicUsize>) {
    let mut c = Conn::open(port).expect("connect the writer");
    let mut rng = Lcg(seed);
    while !stop.load(Ordering::Relaxed) {
        let batch: Vec<Vec<String>> = (0..32).map(|_| random_write(&mut rng)).collect();
        for w in &batch {
            c.send(w);
        }
        for w in &batch {
            match c.read() {
                Resp::Error(e) if w[0] == "JSON.SET" && w[2] != "$" => {
                    assert!(e.contains("new objects must be created at the root"), "{w:?}: {e}")
                }
                Resp::Error(e) => panic!("{w:?}: {e}"),
                _ => {}
            }
        }
        done.fetch_add(batch.len(), Ordering::Relaxed);
    }
}

/// What the keyspace holds under `prefix`: key → (text field, number field), read with SCAN
/// and JSON.GET / HMGET.
fn keyspace(c: &mut Conn, prefix: &str) -> BTreeMap<String, (Option<String>, Option<f64>)> {
    let mut keys = Vec::new();
    let mut cursor = "0".to_string();
    loop {
        let r = c.call(&["SCAN", &cursor, "MATCH", &format!("{prefix}*"), "COUNT", "10000"]);
        cursor = r.items()[0].text();
        keys.extend(r.items()[1].items().iter().map(Resp::text));
        if cursor == "0" {
            break;
        }
    }
    let json = prefix == "d:";
    for k in &keys {
        if json {
            c.send(&["JSON.GET", k, "$.t", "$.n"]);
        } else {
            c.send(&["HMGET", k, "t", "n"]);
        }
    }
    let mut out = BTreeMap::new();
    for k in keys {
        let r = c.read();
        let (t, n) = if json {
            let text = r.text();
            let pick = |path: &str| -> Option<String> {
                let at = text.find(&format!("\"{path}\":["))? + path.len() + 4;
                let inner = &text[at..at + text[at..].find(']')?];
                (!inner.is_empty()).then(|| inner.trim_matches('"').to_string())
            };
            (pick("$.t"), pick("$.n").and_then(|n| n.parse().ok()))
        } else {
            let it = r.items();
            let field = |i: usize| (it[i] != Resp::Nil).then(|| it[i].text());
            (field(0), field(1).and_then(|n| n.parse().ok()))
        };
        out.insert(k, (t, n));
    }
    out
}

/// `FT.SEARCH index query NOCONTENT`, every id; the total must equal the ids returned.
fn ids(c: &mut Conn, index: &str, query: &str) -> BTreeSet<String> {
    let r = c.call(&["FT.SEARCH", index, query, "NOCONTENT", "LIMIT", "0", "1000000"]);
    assert!(!r.is_error(), "{index} {query}: {r:?}");
    let items = r.items();
    let got: BTreeSet<String> = items[1..].iter().map(Resp::text).collect();
    assert_eq!(items[0].int() as usize, got.len(), "{index} {query}: total vs ids");
    got
}

fn assert_same(got: &BTreeSet<String>, want: &BTreeSet<String>, what: &str) {
    let extra: Vec<_> = got.difference(want).take(5).collect();
    let missing: Vec<_> = want.difference(got).take(5).collect();
    assert!(extra.is_empty() && missing.is_empty(), "{what}: extra {extra:?}, missing {missing:?}");
}

/// The index over `prefix` agrees with the keyspace: the same documents (every key under the
/// prefix: both fields are optional), those whose text holds word3, those whose number is in
/// [100, 200], and the COUNT of an aggregate. Returns the number of documents.
fn assert_index_is_keyspace(c: &mut Conn, index: &str, prefix: &str) -> usize {
    let docs = keyspace(c, prefix);
    let all: BTreeSet<String> = docs.keys().cloned().collect();
    assert_same(&ids(c, index, "*"), &all, &format!("{index}: * vs keyspace"));
    let word3: BTreeSet<String> = docs
        .iter()
        .filter(|(_, (t, _))| t.as_deref().is_some_and(|t| t.starts_with("word3 ")))
        .map(|(k, _)| k.clone())
        .collect();
    assert_same(&ids(c, index, "@t:word3"), &word3, &format!("{index}: @t:word3 vs values"));
    let range: BTreeSet<String> = docs
        .iter()
        .filter(|(_, (_, n))| n.is_some_and(|n| (100.0..=200.0).contains(&n)))
        .map(|(k, _)| k.clone())
        .collect();
    assert_same(&ids(c, index, "@n:[100 200]"), &range, &format!("{index}: @n:[100 200] vs values"));
    let count = c.call(&["FT.AGGREGATE", index, "*", "GROUPBY", "0", "REDUCE", "COUNT", "0", "AS", "c"]);
    assert_eq!(count.items()[1].items()[1], Resp::bulk(&docs.len().to_string()), "{index}: COUNT");
    docs.len()
}

fn repl_field(c: &mut Conn, name: &str) -> Option<String> {
    let info = c.cmd("INFO replication").text();
    info.lines().find_map(|l| l.strip_prefix(&format!("{name}:")).map(|v| v.trim().to_string()))
}

#[test]
fn replica_promoted_mid_write_keeps_its_indexes_equal_to_its_keyspace() {
    let primary = Server::start();
    let mut p = primary.conn();
    for def in [
        "FT.CREATE jidx ON JSON PREFIX 1 d: SCHEMA $.t AS t TEXT $.n AS n NUMERIC SORTABLE",
        "FT.CREATE hidx ON HASH PREFIX 1 h: SCHEMA t TEXT n NUMERIC SORTABLE",
    ] {
        assert_eq!(p.cmd(def), Resp::Simple("OK".into()), "{def}");
    }
    let replica = Server::with(ServerOptions {
        args: vec!["--replicaof".into(), "127.0.0.1".into(), primary.port.to_string()],
        ..Default::default()
    });
    let mut r = replica.conn();
    assert!(
        wait_until(60, || repl_field(&mut r, "master_link_status").is_some_and(|s| s == "up")),
        "the replica never linked"
    );

    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = (0..3)
        .map(|seed| {
            let (port, stop, done) = (primary.port, stop.clone(), done.clone());
            std::thread::spawn(move || writer(port, seed + 1, stop, done))
        })
        .collect();
    assert!(wait_until(60, || done.load(Ordering::Relaxed) >= 20_000), "the writes never got going");
    // Cut off in the middle of the stream: the primary goes on writing.
    assert_eq!(r.cmd("REPLICAOF NO ONE"), Resp::Simple("OK".into()));
    let at_promotion = done.load(Ordering::Relaxed);
    assert!(wait_until(60, || done.load(Ordering::Relaxed) >= at_promotion + 5_000));
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().expect("writer");
    }
    assert_eq!(repl_field(&mut r, "role").as_deref(), Some("master"));

    let json = assert_index_is_keyspace(&mut r, "jidx", "d:");
    let hash = assert_index_is_keyspace(&mut r, "hidx", "h:");
    assert!(json > 100 && hash > 100, "too few documents to mean anything: {json} JSON, {hash} hashes");
    // The primary's own indexes agree with its own keyspace too.
    assert_index_is_keyspace(&mut p, "jidx", "d:");
    assert_index_is_keyspace(&mut p, "hidx", "h:");

    // The promoted server indexes its own writes.
    let mut rng = Lcg(99);
    for _ in 0..2000 {
        let w = random_write(&mut rng);
        let _ = r.call(&w);
    }
    assert_index_is_keyspace(&mut r, "jidx", "d:");
    assert_index_is_keyspace(&mut r, "hidx", "h:");
    eprintln!("promoted after {at_promotion} writes: {json} JSON documents and {hash} hashes agree");
}
