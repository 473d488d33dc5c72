//! `maxmemory` with the noeviction, allkeys-lru and volatile-ttl policies: writes Redis refuses
//! get its own OOM error and leave nothing in any index; keys Redis evicts leave every index;
//! after each burst every index holds exactly the keys that exist (checked against a SCAN);
//! FT.CREATE and FT.ALTER over a keyspace at the limit neither crash the server nor leave an
//! index that says it is complete while it is not. `index_share_of_used_memory` prints what
//! share of `used_memory` an index takes (run with `--nocapture` to see it).
//!
//! Each test stays small (a few MB of `maxmemory`, a few seconds).

mod common;

use std::collections::BTreeSet;

use common::{wait_until, Conn, Resp, Server};

/// Redis's text for a write refused under `maxmemory` (`server.c`, `shared.oomerr`).
const OOM: &str = "OOM command not allowed when used memory > 'maxmemory'.";

fn ok(r: Resp) {
    assert_eq!(r, Resp::Simple("OK".into()));
}

fn info_number(c: &mut Conn, section: &str, field: &str) -> i64 {
    let info = c.call(&["INFO", section]).text();
    info.lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("INFO {section} has no {field}"))
}

/// `used_memory` without client buffers (pipelines grow them for a while: Redis's memory, not
/// the data's).
fn used_memory(c: &mut Conn) -> i64 {
    info_number(c, "memory", "used_memory") - info_number(c, "memory", "mem_clients_normal")
}

/// Every key with this prefix, by SCAN.
fn scan(c: &mut Conn, prefix: &str) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let mut cursor = "0".to_string();
    loop {
        let r = c.call(&["SCAN", &cursor, "MATCH", &format!("{prefix}*"), "COUNT", "1000"]);
        let items = r.items();
        cursor = items[0].text();
        keys.extend(items[1].items().iter().map(|k| k.text()));
        if cursor == "0" {
            return keys;
        }
    }
}

/// Every key the index holds, and its total.
fn indexed(c: &mut Conn, index: &str) -> (i64, BTreeSet<String>) {
    let r = c.call(&["FT.SEARCH", index, "*", "NOCONTENT", "LIMIT", "0", "100000"]);
    let items = r.items();
    (items[0].int(), items[1..].iter().map(|k| k.text()).collect())
}

/// The index holds exactly the keys with its prefix, and each as the key holds it now.
fn assert_index_is_keyspace(c: &mut Conn, index: &str, prefix: &str) {
    let keys = scan(c, prefix);
    let (total, held) = indexed(c, index);
    let missing: Vec<&String> = keys.difference(&held).take(5).collect();
    let extra: Vec<&String> = held.difference(&keys).take(5).collect();
    assert_eq!(total as usize, keys.len(), "{index}: total vs SCAN; missing {missing:?}, extra {extra:?}");
    assert_eq!(held, keys, "{index}: keys vs SCAN");
    // No partial document: the number each key holds is found under its own value.
    for k in keys.iter().take(50) {
        let n: String = k.rsplit(':').next().unwrap().to_string();
        let r = c.call(&["FT.SEARCH", index, &format!("@n:[{n} {n}]"), "NOCONTENT"]);
        assert!(r.items().iter().any(|x| x == &Resp::bulk(k)), "{index}: {k} not found by its value: {r:?}");
    }
}

/// Over `maxmemory`, Redis evicts before every command (reads too, and a large reply can take
/// memory over again), so the keyspace would change under a check made of several commands:
/// waits until three commands in a row evicted nothing, then lifts the limit for the check.
fn settle(c: &mut Conn) {
    let mut last = -1;
    let mut calm = 0;
    assert!(
        wait_until(20, || {
            let evicted = info_number(c, "stats", "evicted_keys");
            calm = if evicted == last { calm + 1 } else { 0 };
            last = evicted;
            calm >= 3
        }),
        "evictions did not stop"
    );
    set_limit(c, 0);
}

fn json_doc(i: usize) -> String {
    format!(r#"{{"t":"word{} shared text {}","n":{i},"g":["a{}","b"]}}"#, i % 37, "x".repeat(200), i % 5)
}

/// Two indexes, JSON and hash.
fn create_indexes(c: &mut Conn) {
    ok(c.call(&[
        "FT.CREATE", "jidx", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.t", "AS", "t", "TEXT", "$.n",
        "AS", "n", "NUMERIC", "$.g[*]", "AS", "g", "TAG",
    ]));
    ok(c.call(&[
        "FT.CREATE", "hidx", "ON", "HASH", "PREFIX", "1", "h:", "SCHEMA", "t", "TEXT", "n", "NUMERIC",
        "SORTABLE",
    ]));
}

/// What a burst of writes did.
#[derive(Default)]
struct Written {
    /// The error replies.
    errors: Vec<String>,
    /// The JSON documents whose JSON.SET succeeded.
    json: BTreeSet<String>,
}

/// Writes `n` JSON documents and `n` hashes from `start` (pipelined), the hashes with `ttl`
/// seconds when given.
fn write(c: &mut Conn, start: usize, n: usize, ttl: Option<u64>) -> Written {
    let mut out = Written::default();
    for chunk in (start..start + n).collect::<Vec<_>>().chunks(200) {
        for i in chunk {
            c.send(&["JSON.SET", &format!("j:{i}"), "$", &json_doc(*i)]);
            let key = format!("h:{i}");
            let text = format!("hash word{} {}", i % 41, "y".repeat(200));
            c.send(&["HSET", &key, "t", &text, "n", &i.to_string()]);
            if let Some(s) = ttl {
                c.send(&["EXPIRE", &key, &s.to_string()]);
            }
        }
        for i in chunk {
            for reply in 0..(2 + usize::from(ttl.is_some())) {
                match c.read() {
                    Resp::Error(e) => out.errors.push(e),
                    _ if reply == 0 => {
                        out.json.insert(format!("j:{i}"));
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

fn server_with_limit(policy: &str) -> (Server, Conn) {
    let s = Server::start();
    let mut c = s.conn();
    ok(c.call(&["CONFIG", "SET", "maxmemory-policy", policy]));
    (s, c)
}

fn set_limit(c: &mut Conn, bytes: i64) {
    ok(c.call(&["CONFIG", "SET", "maxmemory", &bytes.to_string()]));
}

#[test]
fn noeviction_refuses_writes_with_redis_text_and_indexes_hold_what_exists() {
    let (mut s, mut c) = server_with_limit("noeviction");
    create_indexes(&mut c);
    let limit = used_memory(&mut c) + 3_000_000;
    set_limit(&mut c, limit);
    let errors = write(&mut c, 0, 6000, None).errors;
    assert!(!errors.is_empty(), "no write was refused under {limit} bytes");
    assert!(errors.iter().all(|e| e == OOM), "{:?}", errors.iter().find(|e| *e != OOM));
    assert!(s.alive());
    assert_index_is_keyspace(&mut c, "jidx", "j:");
    assert_index_is_keyspace(&mut c, "hidx", "h:");
    // Every deny-oom command is refused the same way, and changes nothing.
    let list = c.call(&["FT._LIST"]);
    for cmd in [
        vec!["JSON.SET", "j:new", "$", r#"{"n":1}"#],
        vec!["HSET", "h:new", "n", "1"],
        vec!["FT.CREATE", "more", "SCHEMA", "t", "TEXT"],
        vec!["FT.DICTADD", "d", "word"],
        vec!["FT.SUGADD", "sug", "word", "1"],
        vec!["JSON.ARRAPPEND", "j:1", "$.g", "\"c\""],
    ] {
        assert_eq!(c.call(&cmd), Resp::Error(OOM.into()), "{cmd:?}");
    }
    assert_eq!(c.call(&["FT._LIST"]), list);
    assert_eq!(c.call(&["EXISTS", "j:new", "h:new", "sug"]), Resp::Int(0));
    // Writes that do not grow (not deny-oom) still run, and the indexes follow them.
    let some = scan(&mut c, "j:").into_iter().next().unwrap();
    assert!(!c.call(&["JSON.NUMINCRBY", &some, "$.n", "0"]).is_error());
    assert_eq!(c.call(&["DEL", &some]), Resp::Int(1));
    let some = scan(&mut c, "h:").into_iter().next().unwrap();
    assert_eq!(c.call(&["UNLINK", &some]), Resp::Int(1));
    assert_index_is_keyspace(&mut c, "jidx", "j:");
    assert_index_is_keyspace(&mut c, "hidx", "h:");
}

#[test]
fn allkeys_lru_evicts_and_every_index_follows() {
    let (mut s, mut c) = server_with_limit("allkeys-lru");
    create_indexes(&mut c);
    let limit = used_memory(&mut c) + 3_000_000;
    set_limit(&mut c, limit);
    let errors = write(&mut c, 0, 8000, None).errors;
    assert!(errors.is_empty(), "{:?}", errors.first());
    assert!(info_number(&mut c, "stats", "evicted_keys") > 0, "nothing was evicted");
    assert!(s.alive());
    settle(&mut c);
    let (j, h) = (scan(&mut c, "j:"), scan(&mut c, "h:"));
    assert!(j.len() < 8000 || h.len() < 8000);
    assert_index_is_keyspace(&mut c, "jidx", "j:");
    assert_index_is_keyspace(&mut c, "hidx", "h:");
}

#[test]
fn volatile_ttl_evicts_keys_with_a_ttl_only_then_refuses() {
    let (mut s, mut c) = server_with_limit("volatile-ttl");
    create_indexes(&mut c);
    let limit = used_memory(&mut c) + 3_000_000;
    set_limit(&mut c, limit);
    // Hashes with a TTL (the only keys volatile-ttl may evict), JSON documents without.
    let written = write(&mut c, 0, 9000, Some(3600));
    let errors = &written.errors;
    assert!(info_number(&mut c, "stats", "evicted_keys") > 0, "nothing was evicted");
    // Once the hashes with a TTL are gone, writes are refused with Redis's text.
    assert!(!errors.is_empty(), "no write was refused");
    assert!(errors.iter().all(|e| e == OOM), "{:?}", errors.iter().find(|e| *e != OOM));
    assert!(s.alive());
    settle(&mut c);
    // Only hashes were evicted: every JSON document written is still there.
    assert_eq!(scan(&mut c, "j:"), written.json);
    assert!(scan(&mut c, "h:").len() < 9000);
    assert_index_is_keyspace(&mut c, "jidx", "j:");
    assert_index_is_keyspace(&mut c, "hidx", "h:");
}

#[test]
fn index_share_of_used_memory() {
    // The same keys before and after FT.CREATE over them: what the index adds to used_memory.
    let s = Server::start();
    let mut c = s.conn();
    assert!(write(&mut c, 0, 5000, None).errors.is_empty());
    let keys = used_memory(&mut c);
    create_indexes(&mut c);
    assert!(wait_until(30, || ["jidx", "hidx"].iter().all(|i| scanning(&mut c, i) == Resp::Int(0))));
    let with_index = used_memory(&mut c);
    let index = with_index - keys;
    let share = index as f64 / with_index as f64;
    println!(
        "index share of used_memory: {index} of {with_index} bytes ({:.1}%); keys {keys} bytes, 10,000 keys (5,000 JSON of ~290 bytes, 5,000 hashes of ~230), 2 indexes",
        share * 100.0
    );
    assert!(index > 0, "the index does not show in used_memory");
    // FT.INFO's estimate of the indexes should be of the same order as what used_memory saw.
    let estimate: f64 = ["jidx", "hidx"]
        .iter()
        .map(|i| {
            info_field(&mut c, i, "total_index_memory_sz_mb").text().parse::<f64>().unwrap() * 1024.0 * 1024.0
        })
        .sum();
    println!("FT.INFO total_index_memory_sz_mb of both: {estimate:.0} bytes");
    assert!(estimate > 0.2 * index as f64 && estimate < 5.0 * index as f64, "{estimate} vs {index}");
}

fn info_field(c: &mut Conn, index: &str, field: &str) -> Resp {
    let r = c.call(&["FT.INFO", index]);
    let items = r.items();
    items.chunks(2).find(|p| p[0] == Resp::Simple(field.into())).map(|p| p[1].clone()).unwrap_or(Resp::Nil)
}

fn scanning(c: &mut Conn, index: &str) -> Resp {
    info_field(c, index, "indexing")
}

/// While an index's initial scan runs, FT.INFO says so; once it says it is done, the index
/// holds every key.
fn wait_complete(c: &mut Conn, index: &str, prefix: &str) {
    wait_scanned(c, index);
    assert_index_is_keyspace(c, index, prefix);
}

/// Waits for the initial scan's end; FT.INFO never says 100% before it.
fn wait_scanned(c: &mut Conn, index: &str) {
    loop {
        let r = c.call(&["FT.INFO", index]);
        let field = |name: &str| {
            r.items().chunks(2).find(|p| p[0] == Resp::Simple(name.into())).map(|p| p[1].clone()).unwrap()
        };
        let percent: f64 = field("percent_indexed").text().parse().unwrap();
        if field("indexing") == Resp::Int(0) {
            assert_eq!(percent, 1.0);
            return;
        }
        assert!(percent < 1.0, "{index}: indexing with percent_indexed {percent}");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn create_and_alter_at_the_limit() {
    let (mut s, mut c) = server_with_limit("noeviction");
    // Keys first, no index: then the limit just above what they take.
    assert!(write(&mut c, 0, 8000, None).errors.is_empty());
    let limit = used_memory(&mut c) + 200_000;
    set_limit(&mut c, limit);
    // Under the limit FT.CREATE runs; its scan takes memory beyond the limit (Redis does not
    // stop a module's allocations), and the server keeps answering meanwhile.
    ok(c.call(&[
        "FT.CREATE", "jidx", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.t", "AS", "t", "TEXT", "$.n",
        "AS", "n", "NUMERIC", "$.g[*]", "AS", "g", "TAG",
    ]));
    assert_eq!(c.call(&["PING"]), Resp::Simple("PONG".into()));
    wait_complete(&mut c, "jidx", "j:");
    assert!(used_memory(&mut c) > limit, "the index took no memory");
    // Over the limit: FT.CREATE is refused (deny-oom), and nothing is created.
    let list = c.call(&["FT._LIST"]);
    let create =
        ["FT.CREATE", "hidx", "ON", "HASH", "PREFIX", "1", "h:", "SCHEMA", "t", "TEXT", "n", "NUMERIC"];
    assert_eq!(c.call(&create), Resp::Error(OOM.into()));
    assert_eq!(c.call(&["FT._LIST"]), list);
    assert_eq!(c.call(&["FT.INFO", "hidx"]), Resp::Error("Unknown index name".into()));
    // FT.ALTER is no deny-oom command (as in RediSearch): it runs, and its scan completes.
    ok(c.call(&["FT.ALTER", "jidx", "SCHEMA", "ADD", "$.g[0]", "AS", "first", "TAG"]));
    wait_complete(&mut c, "jidx", "j:");
    let r = c.call(&["FT.SEARCH", "jidx", "@first:{a3}", "LIMIT", "0", "0"]);
    assert_eq!(r.items()[0], Resp::Int(1600), "{r:?}");
    // Room again (the limit raised): the refused index can be created and fills.
    set_limit(&mut c, 0);
    ok(c.call(&create));
    wait_complete(&mut c, "hidx", "h:");
    assert!(s.alive());
}

#[test]
fn create_at_the_limit_with_allkeys_lru() {
    // The scan's memory makes Redis evict keys while the index fills: evicted before or after
    // the scan reached them, they are in no index at the end.
    let (mut s, mut c) = server_with_limit("allkeys-lru");
    assert!(write(&mut c, 0, 8000, None).errors.is_empty());
    let limit = used_memory(&mut c) + 200_000;
    set_limit(&mut c, limit);
    create_indexes(&mut c);
    for index in ["jidx", "hidx"] {
        wait_scanned(&mut c, index);
    }
    assert!(info_number(&mut c, "stats", "evicted_keys") > 0, "nothing was evicted");
    settle(&mut c);
    assert_index_is_keyspace(&mut c, "jidx", "j:");
    assert_index_is_keyspace(&mut c, "hidx", "h:");
    // More writes at the limit: more evictions, and the indexes follow.
    set_limit(&mut c, limit);
    let evicted = info_number(&mut c, "stats", "evicted_keys");
    assert!(write(&mut c, 8000, 2000, None).errors.is_empty());
    assert!(info_number(&mut c, "stats", "evicted_keys") > evicted, "nothing more was evicted");
    settle(&mut c);
    assert_index_is_keyspace(&mut c, "jidx", "j:");
    assert_index_is_keyspace(&mut c, "hidx", "h:");
    assert!(s.alive());
}
