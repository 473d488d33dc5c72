//! A master killed with kill -9 (no manual failover: its replica takes over when the cluster
//! declares it failed) while writes and queries run. Queries on a fixed set of documents give
//! the right answer or a clear error, never a wrong total; afterwards the index over the
//! written keys equals the cluster's keyspace, from every node, and no write acknowledged by a
//! surviving master is missing. `make faults-loop` runs it 20 times in a row.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{wait_until, Conn, Resp};
use crate::harness::{slot, Cluster};
use crate::{hello_docs, list, load_cluster, query_loop, replica_of};

/// What the writer saw: each acknowledged key with the master that acknowledged it, and the
/// errors it retried after.
#[derive(Default)]
struct Written {
    acked: Vec<(usize, u16)>,
    retried: Vec<String>,
}

/// HSETs `w:i` for i = 0.. on its slot's master until `stop`, one at a time. A refused
/// connection, a MOVED or a CLUSTERDOWN refreshes the slot map and retries the same key (HSET
/// is idempotent); any other error fails the test.
fn writer(seed_ports: Vec<u16>, stop: Arc<AtomicBool>, out: Arc<Mutex<Written>>) {
    let owners = |ports: &[u16]| -> Option<Vec<u16>> {
        ports.iter().find_map(|&p| {
            let r = Conn::open(p).ok()?.try_call(&["CLUSTER", "SLOTS"]).ok()?;
            let mut owners = vec![0; 16384];
            for range in r.items() {
                let it = range.items();
                let p = it[2].items()[1].int() as u16;
                owners[it[0].int() as usize..=it[1].int() as usize].iter_mut().for_each(|o| *o = p);
            }
            Some(owners)
        })
    };
    let mut map = owners(&seed_ports).expect("a slot map");
    let mut conns: HashMap<u16, Conn> = HashMap::new();
    let mut i = 0;
    while !stop.load(Ordering::Relaxed) {
        let key = format!("w:{i}");
        let port = map[slot(key.as_bytes())];
        let n = i.to_string();
        let text = format!("word{} w", i % 10);
        let reply = match conns.entry(port) {
            std::collections::hash_map::Entry::Occupied(e) => Some(e.into_mut()),
            std::collections::hash_map::Entry::Vacant(v) => Conn::open(port).ok().map(|c| v.insert(c)),
        }
        .map(|c| c.try_call(&["HSET", &key, "t", &text, "n", &n]));
        match reply {
            Some(Ok(Resp::Int(_))) => {
                out.lock().unwrap().acked.push((i, port));
                i += 1;
                continue;
            }
            Some(Ok(Resp::Error(e))) => {
                let clear = ["MOVED", "CLUSTERDOWN", "TRYAGAIN", "READONLY"].iter().any(|p| e.starts_with(p));
                assert!(clear, "HSET {key} on {port}: {e}");
                out.lock().unwrap().retried.push(e);
            }
            Some(Ok(other)) => panic!("HSET {key} on {port}: {other:?}"),
            Some(Err(e)) => {
                conns.remove(&port);
                out.lock().unwrap().retried.push(format!("{port}: {e}"));
            }
            None => out.lock().unwrap().retried.push(format!("{port}: connection refused")),
        }
        std::thread::sleep(Duration::from_millis(50));
        if let Some(m) = owners(&seed_ports) {
            map = m;
        }
    }
}

/// Every key under `w:` on the masters, with its text field (SCAN and HGET on each master).
fn cluster_keyspace(c: &Cluster) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut all, mut word3) = (BTreeSet::new(), BTreeSet::new());
    for port in c.masters() {
        let mut conn = Conn::open(port).unwrap();
        let mut cursor = "0".to_string();
        loop {
            let r = conn.call(&["SCAN", &cursor, "MATCH", "w:*", "COUNT", "10000"]);
            cursor = r.items()[0].text();
            for k in r.items()[1].items().iter().map(Resp::text) {
                if conn.call(&["HGET", &k, "t"]).text().starts_with("word3 ") {
                    word3.insert(k.clone());
                }
                all.insert(k);
            }
            if cursor == "0" {
                break;
            }
        }
    }
    (all, word3)
}

fn ids(conn: &mut Conn, query: &str) -> BTreeSet<String> {
    let r = conn.call(&["FT.SEARCH", "widx", query, "NOCONTENT", "LIMIT", "0", "1000000"]);
    assert!(!r.is_error(), "{query}: {r:?}");
    let got: BTreeSet<String> = r.items()[1..].iter().map(Resp::text).collect();
    assert_eq!(r.items()[0].int() as usize, got.len(), "{query}: total vs ids");
    got
}

#[test]
fn a_master_killed_under_load_fails_over_with_correct_answers() {
    let mut c = Cluster::start();
    let masters = c.masters();
    let mut conn = Conn::open(masters[0]).unwrap();
    for def in [
        "FT.CREATE idx ON HASH PREFIX 1 d: SCHEMA t TEXT n NUMERIC SORTABLE",
        "FT.CREATE widx ON HASH PREFIX 1 w: SCHEMA t TEXT n NUMERIC",
    ] {
        assert_eq!(conn.cmd(def), Resp::Simple("OK".into()), "{def}");
    }
    for port in c.live_ports() {
        let mut conn = Conn::open(port).unwrap();
        assert!(wait_until(5, || list(&mut conn) == ["idx", "widx"]), "FT._LIST on {port}");
    }
    load_cluster(&c, &hello_docs(3000));
    c.wait_stable();

    let stop = Arc::new(AtomicBool::new(false));
    let written = Arc::new(Mutex::new(Written::default()));
    let querier = {
        let (ports, stop) = (c.live_ports(), stop.clone());
        std::thread::spawn(move || query_loop(ports, stop))
    };
    let write = {
        let (ports, stop, written) = (c.live_ports(), stop.clone(), written.clone());
        std::thread::spawn(move || writer(ports, stop, written))
    };
    assert!(wait_until(30, || written.lock().unwrap().acked.len() >= 500), "the writes never got going");

    let victim = masters[2];
    let replica = replica_of(&c, victim);
    c.signal(victim, "KILL");
    assert!(wait_until(60, || c.masters().contains(&replica)), "the replica never took over");
    c.wait_stable();
    let after = written.lock().unwrap().acked.len();
    assert!(wait_until(30, || written.lock().unwrap().acked.len() >= after + 200), "writes did not resume");
    stop.store(true, Ordering::Relaxed);
    let seen = querier.join().unwrap();
    write.join().expect("writer");
    let written = std::mem::take(&mut *written.lock().unwrap());

    // Clear errors: as for a manual failover, and CLUSTERDOWN while the cluster has not yet
    // declared the killed master failed.
    seen.assert_correct_or_clear(&["TRYAGAIN", "ERR shard unreachable", "UNBLOCKED", "CLUSTERDOWN"]);

    // The index over the written keys is the cluster's keyspace, from every node.
    let (all, word3) = cluster_keyspace(&c);
    for port in c.live_ports() {
        let mut conn = Conn::open(port).unwrap();
        assert_eq!(ids(&mut conn, "*"), all, "widx * from {port} vs the keyspace");
        assert_eq!(ids(&mut conn, "@t:word3"), word3, "widx @t:word3 from {port} vs the values");
        let r = conn.cmd("FT.SEARCH idx hello NOCONTENT LIMIT 0 0");
        assert_eq!(r.items()[0], Resp::Int(3000), "idx from {port}");
    }
    // Replication is asynchronous: the killed master may take its last acknowledgements with
    // it, but what a surviving master acknowledged is there.
    let lost_elsewhere: Vec<usize> = written
        .acked
        .iter()
        .filter(|&&(i, port)| port != victim && !all.contains(&format!("w:{i}")))
        .map(|&(i, _)| i)
        .take(5)
        .collect();
    assert!(lost_elsewhere.is_empty(), "writes acknowledged by a surviving master lost: {lost_elsewhere:?}");
    let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
    for e in &seen.errors {
        *kinds.entry(e.split(" (").next().unwrap_or(e).to_string()).or_default() += 1;
    }
    eprintln!("errors by kind: {kinds:?}");
    let lost = written.acked.iter().filter(|&&(i, _)| !all.contains(&format!("w:{i}"))).count();
    eprintln!(
        "kill -9 of a master: {} queries correct, {} clear errors, 0 wrong; {} writes acknowledged, \
         {} retried, {} lost with the killed master; {} documents indexed",
        seen.ok,
        seen.errors.len(),
        written.acked.len(),
        written.retried.len(),
        lost,
        all.len()
    );
}
