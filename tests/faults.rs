//! Faults: the server killed mid-burst, flushes/drops/swaps during an initial scan, a replica
//! that loses its link and resyncs, DEBUG RELOAD while another client writes. After each,
//! every acknowledged write is there and the indexes agree with the documents.

mod common;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{wait_until, Conn, Resp, Server, ServerOptions};

fn ok(r: Resp) {
    assert_eq!(r, Resp::Simple("OK".into()), "expected OK");
}

fn doc(i: usize) -> String {
    format!(r#"{{"t":"word{} burst","n":{i}}}"#, i % 10)
}

/// The field/value list of a RESP2 FT.INFO reply, as text pairs.
fn info_field(c: &mut Conn, index: &str, field: &str) -> Option<String> {
    let r = c.call(&["FT.INFO", index]);
    let Resp::Array(items) = r else { return None };
    items.chunks(2).find(|p| p[0] == Resp::Simple(field.into()) || p[0] == Resp::bulk(field)).map(
        |p| match &p[1] {
            Resp::Int(i) => i.to_string(),
            other => other.text(),
        },
    )
}

fn wait_indexed(c: &mut Conn, index: &str) {
    assert!(
        wait_until(60, || info_field(c, index, "indexing").is_some_and(|v| v == "0")),
        "{index} never finished its scan"
    );
}

/// `FT.SEARCH index query NOCONTENT` ids, all of them.
fn search_ids(c: &mut Conn, index: &str, query: &str) -> BTreeSet<String> {
    let r = c.call(&["FT.SEARCH", index, query, "NOCONTENT", "LIMIT", "0", "1000000"]);
    let items = r.items();
    let total = items[0].int() as usize;
    let ids: BTreeSet<String> = items[1..].iter().map(Resp::text).collect();
    assert_eq!(ids.len(), total, "{index} {query}: total {total} but {} ids", ids.len());
    ids
}

/// Every key with `prefix` in the selected database (SCAN).
fn keys(c: &mut Conn, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut cursor = "0".to_string();
    loop {
        let r = c.call(&["SCAN", &cursor, "MATCH", &format!("{prefix}*"), "COUNT", "10000"]);
        let items = r.items();
        cursor = items[0].text();
        out.extend(items[1].items().iter().map(Resp::text));
        if cursor == "0" {
            return out;
        }
    }
}

/// Equal sets, or a failure naming a few differences (never the whole sets).
fn assert_same_set(got: &BTreeSet<String>, want: &BTreeSet<String>, what: &str) {
    let extra: Vec<&String> = got.difference(want).take(5).collect();
    let missing: Vec<&String> = want.difference(got).take(5).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "{what}: {} vs {} entries; extra {extra:?}, missing {missing:?}",
        got.len(),
        want.len()
    );
}

/// The index holds exactly the documents with its prefix, and a field query agrees with the
/// stored values.
fn assert_index_agrees(c: &mut Conn, index: &str, prefix: &str) {
    wait_indexed(c, index);
    let docs = keys(c, prefix);
    assert_same_set(&search_ids(c, index, "*"), &docs, &format!("{index}: index vs keyspace"));
    let docs: Vec<String> = docs.into_iter().collect();
    let mut word3 = BTreeSet::new();
    for chunk in docs.chunks(1000) {
        for k in chunk {
            c.send(&["JSON.GET", k, "$.t"]);
        }
        for k in chunk {
            if c.read().text().contains("word3 ") {
                word3.insert(k.clone());
            }
        }
    }
    assert_same_set(&search_ids(c, index, "@t:word3"), &word3, &format!("{index}: @t:word3 vs documents"));
}

/// Writes `doc(i)` to `d:i` for i = start.. until `stop`, pipelining 16 at a time; records
/// every acknowledged i. Stops quietly when the connection breaks (the server was killed).
fn writer(port: u16, start: usize, stop: Arc<AtomicBool>, acked: Arc<Mutex<Vec<usize>>>) {
    use std::io::{BufRead, BufReader, Write};
    let Ok(stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut w = stream.try_clone().expect("clone stream");
    let mut r = BufReader::new(stream);
    let mut i = start;
    while !stop.load(Ordering::Relaxed) {
        let mut buf = Vec::new();
        for j in i..i + 16 {
            let (key, val) = (format!("d:{j}"), doc(j));
            for a in [&["JSON.SET", key.as_str(), "$", val.as_str()][..]] {
                buf.extend(format!("*{}\r\n", a.len()).into_bytes());
                for x in a {
                    buf.extend(format!("${}\r\n{x}\r\n", x.len()).into_bytes());
                }
            }
        }
        if w.write_all(&buf).is_err() {
            return;
        }
        for j in i..i + 16 {
            let mut line = String::new();
            match r.read_line(&mut line) {
                Ok(n) if n > 0 && line == "+OK\r\n" => acked.lock().unwrap().push(j),
                // A DEBUG RELOAD past 2 MB serves events while it loads: Redis answers -LOADING
                // without running the write (so it is not acknowledged).
                Ok(n) if n > 0 && line.starts_with("-LOADING") => {}
                Ok(n) if n > 0 => panic!("unexpected reply to JSON.SET d:{j}: {line:?}"),
                _ => return,
            }
        }
        i += 16;
    }
}

#[test]
fn kill_9_during_a_write_burst_loses_no_acknowledged_write() {
    let mut server = Server::with(ServerOptions {
        args: ["--appendonly", "yes", "--appendfsync", "always"].map(String::from).to_vec(),
        ..Default::default()
    });
    let mut c = server.conn();
    ok(c.cmd("FT.CREATE idx ON JSON PREFIX 1 d: SCHEMA $.t AS t TEXT $.n AS n NUMERIC"));
    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(Mutex::new(Vec::new()));
    let t = {
        let (port, stop, acked) = (server.port, stop.clone(), acked.clone());
        std::thread::spawn(move || writer(port, 0, stop, acked))
    };
    assert!(wait_until(30, || acked.lock().unwrap().len() >= 500), "the burst never got going");
    server.kill();
    stop.store(true, Ordering::Relaxed);
    t.join().expect("writer thread");
    let acked = acked.lock().unwrap().clone();
    server.restart();
    let mut c = server.conn();
    for &i in &acked {
        let got = c.call(&["JSON.GET", &format!("d:{i}")]);
        assert_eq!(got, Resp::Bulk(doc(i).into_bytes()), "acknowledged write d:{i} lost");
    }
    assert_eq!(c.cmd("FT._LIST"), Resp::Array(vec![Resp::Simple("idx".into())]));
    assert_index_agrees(&mut c, "idx", "d:");
    eprintln!("kill -9: {} acknowledged writes survived", acked.len());
}

/// Loads `n` JSON documents `k:i` (pipelined).
fn load_docs(c: &mut Conn, n: usize) {
    for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
        for &i in chunk {
            c.send(&["JSON.SET", &format!("k:{i}"), "$", &doc(i)]);
        }
        for _ in chunk {
            assert_eq!(c.read(), Resp::Simple("OK".into()));
        }
    }
}

const SCAN_DOCS: usize = 60_000;

#[test]
fn flushall_during_an_initial_scan() {
    let server = Server::start();
    let mut c = server.conn();
    load_docs(&mut c, SCAN_DOCS);
    ok(c.cmd("FT.CREATE idx ON JSON PREFIX 1 k: SCHEMA $.t AS t TEXT $.n AS n NUMERIC"));
    assert_eq!(info_field(&mut c, "idx", "indexing").as_deref(), Some("1"), "the scan runs in slices");
    ok(c.cmd("FLUSHALL"));
    assert!(c.cmd("FT.INFO idx").is_error(), "FLUSHALL drops the index");
    ok(c.cmd("FT.CREATE idx ON JSON PREFIX 1 k: SCHEMA $.t AS t TEXT $.n AS n NUMERIC"));
    wait_indexed(&mut c, "idx");
    assert_eq!(search_ids(&mut c, "idx", "*"), BTreeSet::new());
    ok(c.call(&["JSON.SET", "k:new", "$", &doc(3)]));
    assert_index_agrees(&mut c, "idx", "k:");
}

#[test]
fn dropindex_during_an_initial_scan() {
    let server = Server::start();
    let mut c = server.conn();
    load_docs(&mut c, SCAN_DOCS);
    ok(c.cmd("FT.CREATE idx ON JSON PREFIX 1 k: SCHEMA $.t AS t TEXT"));
    ok(c.cmd("FT.DROPINDEX idx"));
    assert!(c.cmd("FT.INFO idx").is_error());
    // A second index created mid-scan of another, then dropped with its documents.
    ok(c.cmd("FT.CREATE a ON JSON PREFIX 1 k: SCHEMA $.t AS t TEXT"));
    ok(c.cmd("FT.CREATE b ON JSON PREFIX 1 k:1 SCHEMA $.t AS t TEXT"));
    ok(c.cmd("FT.DROPINDEX b DD"));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(c.cmd("PING"), Resp::Simple("PONG".into()));
    // DD deleted the documents b had indexed so far; a must have dropped them too (the
    // deletions used to fire no keyspace event, leaving them in a).
    assert!(keys(&mut c, "k:").len() < SCAN_DOCS, "DD deleted some of b's documents");
    assert_index_agrees(&mut c, "a", "k:");
}

#[test]
fn swapdb_during_an_initial_scan() {
    let server = Server::start();
    let mut c = server.conn();
    load_docs(&mut c, SCAN_DOCS);
    ok(c.cmd("SELECT 1"));
    load_docs(&mut c, 1000);
    ok(c.cmd("SELECT 0"));
    ok(c.cmd("FT.CREATE idx ON JSON PREFIX 1 k: SCHEMA $.t AS t TEXT"));
    ok(c.cmd("SWAPDB 0 1"));
    ok(c.call(&["JSON.SET", "k:x", "$", r#"{"t":"word3 after"}"#]));
    for db in ["0", "1", "0"] {
        ok(c.cmd(&format!("SELECT {db}")));
        let list = c.cmd("FT._LIST");
        for name in list.items().iter().map(Resp::text) {
            assert_index_agrees(&mut c, &name, "k:");
        }
    }
    assert_eq!(c.cmd("PING"), Resp::Simple("PONG".into()));
}

/// Waits until the replica's link is up and it has processed everything the primary sent.
fn wait_synced(primary: &mut Conn, replica: &mut Conn) {
    let field = |c: &mut Conn, name: &str| -> Option<String> {
        let info = c.cmd("INFO replication").text();
        info.lines().find_map(|l| l.strip_prefix(&format!("{name}:")).map(|v| v.trim().to_string()))
    };
    let synced = wait_until(60, || {
        let up = field(replica, "master_link_status").is_some_and(|s| s == "up");
        let p = field(primary, "master_repl_offset");
        let r = field(replica, "slave_repl_offset");
        up && p.is_some() && p == r
    });
    assert!(synced, "replica never caught up");
}

fn assert_same(primary: &mut Conn, replica: &mut Conn) {
    wait_synced(primary, replica);
    assert_eq!(replica.cmd("FT._LIST"), primary.cmd("FT._LIST"));
    for q in ["*", "@t:word3", "@n:[100 200]"] {
        let (r, p) = (search_ids(replica, "idx", q), search_ids(primary, "idx", q));
        assert_same_set(&r, &p, &format!("replica vs primary on {q}"));
    }
    assert_index_agrees(replica, "idx", "d:");
}

fn write_range(c: &mut Conn, range: std::ops::Range<usize>) {
    for i in range.clone() {
        c.send(&["JSON.SET", &format!("d:{i}"), "$", &doc(i)]);
    }
    for _ in range {
        assert_eq!(c.read(), Resp::Simple("OK".into()));
    }
}

#[test]
fn replica_resyncs_with_matching_indexes() {
    let primary = Server::start();
    let mut p = primary.conn();
    ok(p.cmd("FT.CREATE idx ON JSON PREFIX 1 d: SCHEMA $.t AS t TEXT $.n AS n NUMERIC"));
    write_range(&mut p, 0..2000);
    let replica = Server::with(ServerOptions {
        args: vec!["--replicaof".into(), "127.0.0.1".into(), primary.port.to_string()],
        ..Default::default()
    });
    let mut r = replica.conn();
    assert_same(&mut p, &mut r);

    // The link drops while the primary keeps writing; the replica reconnects by itself.
    assert!(p.cmd("CLIENT KILL TYPE replica").int() >= 1);
    write_range(&mut p, 2000..3000);
    p.call(&["JSON.DEL", "d:5"]);
    p.call(&["JSON.SET", "d:6", "$.t", "\"word3 moved\""]);
    assert_same(&mut p, &mut r);

    // Promoted, written to on its own, then made a replica again: a full resync.
    ok(r.cmd("REPLICAOF NO ONE"));
    ok(r.call(&["JSON.SET", "d:stray", "$", &doc(3)]));
    ok(r.cmd("FT.CREATE stray ON JSON SCHEMA $.t AS t TEXT"));
    write_range(&mut p, 3000..3500);
    ok(r.call(&["REPLICAOF", "127.0.0.1", &primary.port.to_string()]));
    assert_same(&mut p, &mut r);
    assert_eq!(r.cmd("EXISTS d:stray"), Resp::Int(0));
}

#[test]
fn debug_reload_while_another_client_writes() {
    let server = Server::start();
    let mut c = server.conn();
    ok(c.cmd("FT.CREATE idx ON JSON PREFIX 1 d: SCHEMA $.t AS t TEXT $.n AS n NUMERIC"));
    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(Mutex::new(Vec::new()));
    let t = {
        let (port, stop, acked) = (server.port, stop.clone(), acked.clone());
        std::thread::spawn(move || writer(port, 0, stop, acked))
    };
    for _ in 0..5 {
        assert!(wait_until(30, || !acked.lock().unwrap().is_empty()));
        ok(c.cmd("DEBUG RELOAD"));
        let _ = search_ids(&mut c, "idx", "@t:word3");
    }
    stop.store(true, Ordering::Relaxed);
    t.join().expect("writer thread");
    let acked = acked.lock().unwrap().clone();
    for &i in &acked {
        assert_eq!(c.call(&["JSON.GET", &format!("d:{i}")]), Resp::Bulk(doc(i).into_bytes()), "d:{i}");
    }
    assert_index_agrees(&mut c, "idx", "d:");
}
