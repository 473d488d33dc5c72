//! FT.* on a real Redis Cluster of folio servers (3 masters, 3 replicas): definitions reach
//! every master, and FT.SEARCH from any node equals a single server holding the same
//! documents (only tied results may come in another order: by key on the cluster).

#[path = "../common/mod.rs"]
mod common;
mod harness;
mod workload;

use std::time::{Duration, Instant};

use common::{Conn, Resp, Server};
use harness::{slot, Cluster};
use workload::{document, vocabulary, Query, Rng, SCHEMA};

/// Loads `docs` (HSET argument lists) into the cluster, each on its slot's master, pipelined.
fn load_cluster(c: &Cluster, docs: &[Vec<Vec<u8>>]) {
    let owners = c.slot_owners(c.nodes[0].port);
    let mut by_port: std::collections::HashMap<u16, Vec<&Vec<Vec<u8>>>> = Default::default();
    for d in docs {
        by_port.entry(owners[slot(&d[1])]).or_default().push(d);
    }
    for (port, list) in by_port {
        load(&mut Conn::open(port).unwrap(), &list);
    }
}

fn load(conn: &mut Conn, docs: &[&Vec<Vec<u8>>]) {
    for chunk in docs.chunks(500) {
        for d in chunk {
            conn.send(d);
        }
        for _ in chunk {
            let r = conn.read();
            assert!(!r.is_error(), "{r:?}");
        }
    }
}

fn list(conn: &mut Conn) -> Vec<String> {
    let mut v: Vec<String> = conn.call(&["FT._LIST"]).items().iter().map(|i| i.text()).collect();
    v.sort();
    v
}

#[test]
fn definitions_apply_on_every_master() {
    let c = Cluster::start();
    let masters = c.masters();
    assert_eq!(masters.len(), 3);
    let mut first = Conn::open(masters[1]).unwrap();
    assert_eq!(first.cmd("FT.CREATE idx ON HASH PREFIX 1 d: SCHEMA t TEXT g TAG"), Resp::Simple("OK".into()));
    assert_eq!(first.cmd("FT.ALIASADD al idx"), Resp::Simple("OK".into()));
    assert_eq!(first.cmd("FT.ALTER idx SCHEMA ADD n NUMERIC"), Resp::Simple("OK".into()));
    assert_eq!(first.cmd("FT.DICTADD dict foo bar"), Resp::Int(2));
    assert_eq!(first.cmd("FT.CONFIG SET MINPREFIX 3"), Resp::Simple("OK".into()));
    // Every node, replicas included (they get it from their master).
    for port in c.live_ports() {
        let mut conn = Conn::open(port).unwrap();
        assert!(common::wait_until(5, || list(&mut conn) == ["idx"]), "FT._LIST on {port}");
        let info = conn.cmd("FT.INFO al");
        assert!(format!("{info:?}").contains("\"n\""), "{port}: {info:?}");
        assert_eq!(conn.cmd("FT.DICTDUMP dict").items().len(), 2, "{port}");
        assert_eq!(conn.cmd("FT.CONFIG GET MINPREFIX").items()[0].items()[1].text(), "3", "{port}");
    }
    // A document on each master, found from every node.
    for i in 0..9 {
        let key = format!("d:{i}");
        let owners = c.slot_owners(masters[0]);
        let mut conn = Conn::open(owners[slot(key.as_bytes())]).unwrap();
        assert_eq!(conn.call(&["HSET", &key, "t", "hello world", "g", "x"]), Resp::Int(2));
    }
    for port in c.live_ports() {
        let r = Conn::open(port).unwrap().cmd("FT.SEARCH al hello NOCONTENT LIMIT 0 0");
        assert_eq!(r.items()[0], Resp::Int(9), "{port}");
    }
    assert_eq!(first.cmd("FT.DROPINDEX idx"), Resp::Simple("OK".into()));
    for port in c.live_ports() {
        let mut conn = Conn::open(port).unwrap();
        assert!(common::wait_until(5, || list(&mut conn).is_empty()), "FT._LIST on {port} after drop");
        assert_eq!(conn.cmd("FT.SEARCH idx hello").err(), "idx: no such index");
    }
}

#[test]
fn search_and_aggregate_from_every_node_equal_a_single_server() {
    let c = Cluster::start();
    let single = Server::start();
    let mut s = single.conn();
    assert_eq!(s.cmd(SCHEMA), Resp::Simple("OK".into()));
    assert_eq!(c.conn(0).cmd(SCHEMA), Resp::Simple("OK".into()));
    let words = vocabulary(300);
    let mut rng = Rng::new(0x5eed);
    let docs: Vec<Vec<Vec<u8>>> = (0..10_000).map(|i| document(&mut rng, i, &words)).collect();
    load(&mut s, &docs.iter().collect::<Vec<_>>());
    load_cluster(&c, &docs);
    let mut conns: Vec<Conn> = (0..c.nodes.len()).map(|i| c.conn(i)).collect();
    let mut failures = Vec::new();
    let started = Instant::now();
    for n in 0..1000 {
        let q = Query::random(&mut rng, &words);
        let want = s.call(&q.args(false));
        let node = n % conns.len();
        let got = conns[node].call(&q.args(false));
        if let Err(e) = workload::compare(&q, &got, &want, &mut s) {
            failures
                .push(format!("node {node}: {:?}: {e}", String::from_utf8_lossy(&q.args(false).concat())));
        }
    }
    eprintln!("1000 queries in {:?}", started.elapsed());
    let shown = failures[..failures.len().min(10)].join("\n");
    assert!(failures.is_empty(), "{} of 1000 differ:\n{shown}", failures.len());
    let started = Instant::now();
    let (mut errors, mut rows) = (0, 0);
    for n in 0..500 {
        let (args, ordered) = workload::random_aggregate(&mut rng, &words);
        let want = s.call(&args);
        let node = n % conns.len();
        let got = conns[node].call(&args);
        errors += usize::from(want.is_error());
        rows += if want.is_error() { 0 } else { want.items().len().saturating_sub(1) };
        let same =
            if ordered { got == want } else { workload::sorted_rows(&got) == workload::sorted_rows(&want) };
        if !same {
            let text = String::from_utf8_lossy(&args.concat()).into_owned();
            failures.push(format!("node {node}: {text:?}:\n  cluster {got:?}\n  single  {want:?}"));
        }
    }
    eprintln!("500 aggregations in {:?}: {errors} errors, {rows} rows", started.elapsed());
    assert!(errors < 25, "{errors} of 500 aggregations failed on both");
    let shown = failures[..failures.len().min(6)].join("\n");
    assert!(failures.is_empty(), "{} of 500 differ:\n{shown}", failures.len());
}

#[test]
fn stopped_shard_answers_within_the_timeout() {
    let mut c = Cluster::start();
    let masters = c.masters();
    let mut conn = Conn::open(masters[0]).unwrap();
    assert_eq!(conn.cmd("FT.CREATE idx ON HASH PREFIX 1 d: SCHEMA t TEXT"), Resp::Simple("OK".into()));
    let owners = c.slot_owners(masters[0]);
    let mut per_master = std::collections::HashMap::new();
    for i in 0..60 {
        let key = format!("d:{i}");
        let port = owners[slot(key.as_bytes())];
        *per_master.entry(port).or_insert(0) += 1;
        assert_eq!(Conn::open(port).unwrap().call(&["HSET", &key, "t", "hello"]), Resp::Int(1));
    }
    let stopped = masters[2];
    c.signal(stopped, "STOP");
    let expected_partial = 60 - per_master[&stopped];
    // ON_TIMEOUT RETURN (the default): the other shards' results; RESP3 adds the warning.
    let t = Instant::now();
    let r = conn.cmd("FT.SEARCH idx hello NOCONTENT LIMIT 0 0 TIMEOUT 300");
    let took = t.elapsed();
    assert_eq!(r.items()[0], Resp::Int(expected_partial));
    assert!(took < Duration::from_millis(1000), "took {took:?}");
    let mut r3 = Conn::open(masters[0]).unwrap();
    r3.resp3();
    let r = r3.cmd("FT.SEARCH idx hello NOCONTENT TIMEOUT 300");
    assert!(format!("{r:?}").contains("Timeout limit was reached"), "{r:?}");
    // The node serves other clients while a query waits for the stopped shard.
    let mut waiting = Conn::open(masters[0]).unwrap();
    waiting.send(&["FT.SEARCH", "idx", "hello", "TIMEOUT", "400"]);
    let mut other = Conn::open(masters[0]).unwrap();
    let t = Instant::now();
    assert_eq!(other.cmd("PING"), Resp::Simple("PONG".into()));
    let ping = t.elapsed();
    assert!(ping < Duration::from_millis(100), "PING took {ping:?}");
    assert!(!waiting.read().is_error());
    eprintln!("query with a stopped shard: {took:?}; PING meanwhile: {ping:?}");
    c.signal(stopped, "CONT");
    // ON_TIMEOUT FAIL: the reference's error (set while every shard answers).
    assert_eq!(conn.cmd("FT.CONFIG SET ON_TIMEOUT FAIL"), Resp::Simple("OK".into()));
    c.signal(stopped, "STOP");
    let r = conn.cmd("FT.SEARCH idx hello TIMEOUT 300");
    assert_eq!(r.err(), "Timeout limit was reached");
    c.signal(stopped, "CONT");
    let r = conn.cmd("FT.SEARCH idx hello NOCONTENT LIMIT 0 0");
    assert_eq!(r.items()[0], Resp::Int(60));
}
