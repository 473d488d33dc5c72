//! FT.* on a real Redis Cluster of folio servers (3 masters, 3 replicas): definitions reach
//! every master, and FT.SEARCH (FT.HYBRID: `hybrid.rs`) from any node equals a single server
//! holding the same documents (only tied results may come in another order: by key on the
//! cluster).

#[path = "../common/mod.rs"]
mod common;
mod crash;
mod harness;
mod hybrid;
mod workload;

use std::time::{Duration, Instant};

use common::{Conn, Resp, Server};
use harness::{slot, Cluster};
use workload::{document, vocabulary, Query, Rng, SCHEMA};

/// Loads `docs` (HSET or JSON.SET argument lists) into the cluster, each on its slot's master,
/// pipelined (each master gets its documents in their order here).
fn load_cluster(c: &Cluster, docs: &[Vec<Vec<u8>>]) {
    let owners = c.slot_owners(c.nodes[0].port);
    let mut by_port: std::collections::HashMap<u16, Vec<&Vec<Vec<u8>>>> = Default::default();
    for d in docs {
        by_port.entry(owners[slot(&d[1])]).or_default().push(d);
    }
    for (port, list) in by_port {
        load(&mut Conn::open(port).unwrap(), &list);
    }
    c.wait_replicated();
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
        let g = format!("x{}", i % 3);
        assert_eq!(conn.call(&["HSET", &key, "t", "hello world", "g", &g]), Resp::Int(2));
    }
    for port in c.live_ports() {
        let mut conn = Conn::open(port).unwrap();
        let r = conn.cmd("FT.SEARCH al hello NOCONTENT LIMIT 0 0");
        assert_eq!(r.items()[0], Resp::Int(9), "{port}");
        // FT.INFO counts and FT.TAGVALS values over every shard.
        let info = conn.cmd("FT.INFO idx");
        let items = info.items();
        let at = items.iter().position(|i| *i == Resp::Simple("num_docs".into())).expect("num_docs");
        assert_eq!(items[at + 1], Resp::Int(9), "{port}");
        let tags: Vec<String> = conn.cmd("FT.TAGVALS idx g").items().iter().map(|i| i.text()).collect();
        assert_eq!(tags, ["x0", "x1", "x2"], "{port}");
        // FT.PROFILE: the cluster's results, then each shard's profile and the coordinator's
        // times (RediSearch's coordinator shape, RESP2).
        let r = conn.cmd("FT.PROFILE idx SEARCH QUERY hello NOCONTENT");
        let (results, profile) = (&r.items()[0], r.items()[1].items());
        assert_eq!(results.items()[0], Resp::Int(9), "{port}: {r:?}");
        let names: Vec<String> = profile
            .iter()
            .filter_map(|i| match i {
                Resp::Simple(s) if s.starts_with("Shard #") || s == "Coordinator" => Some(s.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(names, ["Shard #1", "Shard #2", "Shard #3", "Coordinator"], "{port}: {r:?}");
        // Each shard's index iterator counted its own documents: 9 over the three.
        let text = format!("{profile:?}");
        let counted: i64 = text
            .split("Simple(\"Iterators profile\")")
            .skip(1)
            .filter_map(|s| {
                s.split("Simple(\"Counter\"), Int(").nth(1)?.split(')').next()?.parse::<i64>().ok()
            })
            .sum();
        assert_eq!(counted, 9, "{port}: {text}");
        let r = conn.cmd("FT.PROFILE idx AGGREGATE QUERY hello GROUPBY 0 REDUCE COUNT 0 AS c");
        assert_eq!(r.items()[0].items()[1].items()[1].text(), "9", "{port}: {r:?}");
        let shape: Vec<String> = r.items()[1]
            .items()
            .iter()
            .filter_map(|i| match i {
                Resp::Simple(s) => Some(s.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(shape, ["Shards", "Coordinator"], "{port}: {r:?}");
    }
    assert_eq!(first.cmd("FT.DROPINDEX idx"), Resp::Simple("OK".into()));
    for port in c.live_ports() {
        let mut conn = Conn::open(port).unwrap();
        assert!(common::wait_until(5, || list(&mut conn).is_empty()), "FT._LIST on {port} after drop");
        assert_eq!(conn.cmd("FT.SEARCH idx hello").err(), "idx: no such index");
    }
}

#[test]
fn a_master_added_later_gets_the_definitions() {
    let mut c = Cluster::start();
    let masters = c.masters();
    let mut conn = Conn::open(masters[0]).unwrap();
    assert_eq!(conn.cmd("FT.CREATE idx ON HASH PREFIX 1 d: SCHEMA t TEXT"), Resp::Simple("OK".into()));
    assert_eq!(conn.cmd("FT.DICTADD dict helo"), Resp::Int(1));
    let docs: Vec<Vec<Vec<u8>>> = (0..300)
        .map(|i| {
            ["HSET", &format!("d:{i}"), "t", "hello world"].iter().map(|s| s.as_bytes().to_vec()).collect()
        })
        .collect();
    load_cluster(&c, &docs);
    // A new master gets slots, with their keys, before it has any definition.
    let added = c.add_master();
    c.reshard(masters[0], added, 3000);
    let mut fresh = Conn::open(added).unwrap();
    let keys = fresh.call(&["DBSIZE"]).int();
    assert!(keys > 0, "no keys moved");
    assert!(list(&mut fresh).is_empty());
    // The first query hands it the definitions (and the dictionaries) of a master that has
    // them, even when it is the node asked, and it indexes the keys it has: every total is
    // right from the first answer on.
    let mut ports = c.live_ports();
    ports.rotate_right(1);
    assert_eq!(ports[0], added);
    for port in ports {
        let r = Conn::open(port).unwrap().cmd("FT.SEARCH idx hello LIMIT 0 0");
        assert_eq!(r.items()[0], Resp::Int(300), "{port}: {r:?}");
    }
    assert_eq!(list(&mut fresh), ["idx"]);
    assert_eq!(fresh.cmd("FT.DICTDUMP dict").items().len(), 1);
    let r = fresh.cmd("FT.AGGREGATE idx * GROUPBY 0 REDUCE COUNT 0 AS c");
    assert_eq!(r.items()[1].items()[1].text(), "300", "{r:?}");
}

#[test]
fn search_and_aggregate_from_every_node_equal_a_single_server() {
    let c = Cluster::start();
    let single = Server::start();
    let mut s = single.conn();
    assert_eq!(s.cmd(SCHEMA), Resp::Simple("OK".into()));
    // A cluster's shards score without what RediSearch's iterators and trees add (which
    // depends on how documents spread over shards): the single server compares so too.
    assert_eq!(s.cmd("FT.CONFIG SET ITERATOR_SCORES false"), Resp::Simple("OK".into()));
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
    assert!(failures.is_empty(), "{} of 1000 differ:\n{shown}\n{}", failures.len(), c.describe());
    let started = Instant::now();
    let (mut errors, mut rows) = (0, 0);
    for n in 0..500 {
        let (args, ordered) = workload::random_aggregate(&mut rng, &words);
        let want = s.call(&args);
        let node = n % conns.len();
        let got = conns[node].call(&args);
        errors += usize::from(want.is_error());
        rows += if want.is_error() { 0 } else { want.items().len().saturating_sub(1) };
        let same = if ordered {
            workload::unordered_values(&got) == workload::unordered_values(&want)
        } else {
            workload::sorted_rows(&got) == workload::sorted_rows(&want)
        };
        if !same {
            let text = String::from_utf8_lossy(&args.concat()).into_owned();
            failures.push(format!("node {node}: {text:?}:\n  cluster {got:?}\n  single  {want:?}"));
        }
    }
    eprintln!("500 aggregations in {:?}: {errors} errors, {rows} rows", started.elapsed());
    assert!(errors < 25, "{errors} of 500 aggregations failed on both");
    let shown = failures[..failures.len().min(6)].join("\n");
    assert!(failures.is_empty(), "{} of 500 differ:\n{shown}", failures.len());
    // FT.SPELLCHECK: suggestions scored over all shards' documents, in a single server's order.
    let dict = ["FT.DICTADD", "dict", &words[3], "zzzz", &words[7].to_uppercase(), "bakab"];
    assert_eq!(s.call(&dict), Resp::Int(4));
    assert_eq!(conns[1].call(&dict), Resp::Int(4));
    let mut suggested = 0;
    for n in 0..200 {
        let args = workload::random_spellcheck(&mut rng, &words);
        let want = s.call(&args);
        let node = n % conns.len();
        let got = conns[node].call(&args);
        suggested += format!("{want:?}").matches("Bulk").count();
        if got != want {
            let text = String::from_utf8_lossy(&args.join(&b' ')).into_owned();
            failures.push(format!("node {node}: {text}:\n  cluster {got:?}\n  single  {want:?}"));
        }
    }
    let shown = failures[..failures.len().min(6)].join("\n");
    assert!(failures.is_empty(), "{} of 200 spellchecks differ:\n{shown}", failures.len());
    assert!(suggested > 400, "only {suggested} words and suggestions");
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

/// The node id of the server on `port`.
fn node_id(port: u16) -> String {
    Conn::open(port).unwrap().call(&["CLUSTER", "MYID"]).text()
}

/// What a querier saw: correct answers, clear errors, wrong answers (with the reply).
#[derive(Default)]
struct Seen {
    ok: usize,
    errors: Vec<String>,
    wrong: Vec<String>,
}

impl Seen {
    /// No wrong answer, no error but those starting with one of `clear`, some correct answer.
    fn assert_correct_or_clear(&self, clear: &[&str]) {
        let unclear: Vec<&String> =
            self.errors.iter().filter(|e| !clear.iter().any(|p| e.starts_with(p))).collect();
        assert!(self.wrong.is_empty(), "wrong answers: {:?}", &self.wrong[..self.wrong.len().min(5)]);
        assert!(unclear.is_empty(), "unclear errors: {unclear:?}");
        assert!(self.ok > 0, "no correct answer at all");
    }
}

/// `HSET d:i t "hello w<i % 10>" n i` for i in 0..n: the documents [`query_loop`] knows the
/// answers for (with n = 3000).
fn hello_docs(n: usize) -> Vec<Vec<Vec<u8>>> {
    (0..n)
        .map(|i| {
            let fields = [
                "HSET".to_string(),
                format!("d:{i}"),
                "t".into(),
                format!("hello w{}", i % 10),
                "n".into(),
                i.to_string(),
            ];
            fields.map(String::into_bytes).to_vec()
        })
        .collect()
}

/// The port of a replica of the master on `master`.
fn replica_of(c: &Cluster, master: u16) -> u16 {
    c.live_ports()
        .into_iter()
        .find(|&p| {
            let info = Conn::open(p).unwrap().call(&["INFO", "replication"]).text();
            info.contains(&format!("master_port:{master}"))
        })
        .expect("a replica of the master")
}

/// Queries in a loop from every node until `stop`: a count, a sorted page and an
/// aggregation, each with a known answer.
fn query_loop(ports: Vec<u16>, stop: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Seen {
    let mut seen = Seen::default();
    let mut conns: Vec<Option<Conn>> = ports.iter().map(|&p| Conn::open(p).ok()).collect();
    let mut n = 0;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let i = n % conns.len();
        n += 1;
        let Some(conn) = conns[i].as_mut() else { continue };
        type Check<'a> = (&'a [&'a str], fn(&Resp) -> bool);
        let checks: [Check; 3] = [
            (&["FT.SEARCH", "idx", "hello", "NOCONTENT", "LIMIT", "0", "0"], |r| {
                r.items()[0] == Resp::Int(3000)
            }),
            (&["FT.SEARCH", "idx", "@n:[0 999]", "SORTBY", "n", "NOCONTENT", "LIMIT", "0", "3"], |r| {
                r.items() == [Resp::Int(1000), Resp::bulk("d:0"), Resp::bulk("d:1"), Resp::bulk("d:2")]
            }),
            (&["FT.AGGREGATE", "idx", "*", "GROUPBY", "0", "REDUCE", "COUNT", "0", "AS", "c"], |r| {
                r.items().get(1).is_some_and(|row| row.items()[1] == Resp::bulk("3000"))
            }),
        ];
        for (cmd, good) in checks {
            match conn.try_call(cmd) {
                Ok(Resp::Error(e)) => seen.errors.push(format!("{e} ({} on {})", cmd[0], ports[i])),
                Ok(r) if good(&r) => seen.ok += 1,
                Ok(r) => seen.wrong.push(format!("{cmd:?} on {}: {r:?}", ports[i])),
                Err(_) => {
                    conns[i] = Conn::open(ports[i]).ok();
                    break;
                }
            }
        }
    }
    seen
}

#[test]
fn resharding_and_failover_give_correct_answers_or_a_clear_error() {
    let c = Cluster::start();
    let masters = c.masters();
    let mut conn = Conn::open(masters[0]).unwrap();
    assert_eq!(
        conn.cmd("FT.CREATE idx ON HASH PREFIX 1 d: SCHEMA t TEXT n NUMERIC SORTABLE"),
        Resp::Simple("OK".into())
    );
    for port in c.live_ports() {
        let mut conn = Conn::open(port).unwrap();
        assert!(common::wait_until(5, || list(&mut conn) == ["idx"]), "FT._LIST on {port}");
    }
    load_cluster(&c, &hello_docs(3000));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let querier = {
        let (ports, stop) = (c.live_ports(), stop.clone());
        std::thread::spawn(move || query_loop(ports, stop))
    };
    // 1,000 slots from the first master to the second, while the querier runs.
    let out = std::process::Command::new("redis-cli")
        .args(["--cluster", "reshard", &format!("127.0.0.1:{}", masters[0])])
        .args(["--cluster-from", &node_id(masters[0]), "--cluster-to", &node_id(masters[1])])
        .args(["--cluster-slots", "1000", "--cluster-yes"])
        .output()
        .expect("redis-cli --cluster reshard");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    c.wait_stable();
    // A manual failover of the third master to its replica.
    let replica = replica_of(&c, masters[2]);
    assert_eq!(Conn::open(replica).unwrap().cmd("CLUSTER FAILOVER"), Resp::Simple("OK".into()));
    assert!(common::wait_until(30, || c.masters().contains(&replica)), "failover did not happen");
    c.wait_stable();
    std::thread::sleep(Duration::from_millis(300));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let seen = querier.join().unwrap();
    eprintln!(
        "during resharding and failover: {} correct, {} errors, {} wrong",
        seen.ok,
        seen.errors.len(),
        seen.wrong.len()
    );
    // Clear errors: slots moving (TRYAGAIN), a master gone (unreachable), and Redis's own
    // UNBLOCKED for a query blocked on a master that became a replica.
    seen.assert_correct_or_clear(&["TRYAGAIN", "ERR shard unreachable", "UNBLOCKED"]);
    // Afterwards every node answers as before.
    for port in c.live_ports() {
        let r = Conn::open(port).unwrap().cmd("FT.SEARCH idx hello NOCONTENT LIMIT 0 0");
        assert_eq!(r.items()[0], Resp::Int(3000), "{port}");
    }
}
