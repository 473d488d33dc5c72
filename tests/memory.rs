//! Memory: documents and indexes give back what they took (create/delete cycles return
//! `used_memory` to where it was), and `maxmemory` with the deny-oom command flags refuses
//! growing writes while reads and deletes keep working.

mod common;

use common::{Conn, Resp, Server};

fn ok(r: Resp) {
    assert_eq!(r, Resp::Simple("OK".into()));
}

/// `used_memory` without client buffers (a large argument grows the query buffer of its
/// connection for a while; that is Redis's memory, not folio's).
fn used_memory(c: &mut Conn) -> i64 {
    let info = c.cmd("INFO memory").text();
    let field = |name: &str| -> i64 {
        info.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}:")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("INFO memory has {name}"))
    };
    field("used_memory") - field("mem_clients_normal")
}

/// One cycle: two indexes, 400 JSON documents and 400 hashes, queries (a cursor left
/// open, then deleted), then everything deleted again.
fn cycle(c: &mut Conn) {
    ok(c.cmd(
        "FT.CREATE jidx ON JSON PREFIX 1 j: SCHEMA $.t AS t TEXT $.n AS n NUMERIC SORTABLE $.g[*] AS g TAG",
    ));
    ok(c.cmd("FT.CREATE hidx ON HASH PREFIX 1 h: SCHEMA t TEXT n NUMERIC g TAG"));
    ok(c.cmd("FT.ALIASADD al jidx"));
    for i in 0..400 {
        let doc = format!(
            r#"{{"t":"word{} shared text number {i}","n":{i},"g":["a{}","b"],"pad":"{}"}}"#,
            i % 37,
            i % 5,
            "p".repeat(i % 50)
        );
        c.send(&["JSON.SET", &format!("j:{i}"), "$", &doc]);
        c.send(&[
            "HSET",
            &format!("h:{i}"),
            "t",
            &format!("hash word{} text", i % 41),
            "n",
            &i.to_string(),
            "g",
            "x",
        ]);
    }
    for _ in 0..400 {
        assert_eq!(c.read(), Resp::Simple("OK".into()));
        assert_eq!(c.read(), Resp::Int(3));
    }
    c.call(&["JSON.ARRAPPEND", "j:1", "$.g", "\"c\""]);
    c.call(&["JSON.SET", "j:2", "$.t", "\"replaced words\""]);
    for q in ["shared", "word1*", "@n:[10 20]", "@g:{a1}", "%%wrd%%"] {
        assert!(!c.call(&["FT.SEARCH", "jidx", q]).is_error(), "{q}");
        assert!(!c.call(&["FT.SEARCH", "hidx", q]).is_error(), "{q}");
    }
    let agg = c.call(&[
        "FT.AGGREGATE", "al", "*", "LOAD", "1", "@n", "GROUPBY", "1", "@g", "REDUCE", "COUNT", "0", "AS", "c",
    ]);
    assert!(!agg.is_error(), "{agg:?}");
    let cur = c.call(&["FT.AGGREGATE", "jidx", "*", "LOAD", "1", "@n", "WITHCURSOR", "COUNT", "10"]);
    let id = cur.items()[1].int();
    assert!(id != 0, "{cur:?}");
    ok(c.call(&["FT.CURSOR", "DEL", "jidx", &id.to_string()]));
    ok(c.cmd("FT.ALIASDEL al"));
    ok(c.cmd("FT.DROPINDEX jidx DD"));
    ok(c.cmd("FT.DROPINDEX hidx"));
    for i in 0..400 {
        c.send(&["DEL", &format!("h:{i}")]);
    }
    for _ in 0..400 {
        assert_eq!(c.read(), Resp::Int(1));
    }
    assert_eq!(c.cmd("DBSIZE"), Resp::Int(0));
}

#[test]
fn create_delete_cycles_return_memory() {
    let server = Server::start();
    let mut c = server.conn();
    for _ in 0..3 {
        cycle(&mut c);
    }
    let before = used_memory(&mut c);
    for _ in 0..10 {
        cycle(&mut c);
    }
    let after = used_memory(&mut c);
    // Ten cycles each allocate several MB; a leak of even 1% per cycle would show here.
    assert!((after - before).abs() < 256 * 1024, "used_memory moved from {before} to {after} over 10 cycles");
}

#[test]
fn json_memory_is_accounted_and_released() {
    let server = Server::start();
    let mut c = server.conn();
    // Distinct strings: equal ones would share one interned copy.
    let items: Vec<String> = (0..20_000).map(|i| format!("\"a fairly long string value {i}\"")).collect();
    let doc = format!("[{}]", items.join(","));
    // The document goes in over a connection that is closed before measuring: its query
    // buffer is Redis's memory and shrinks only when the client idles or leaves.
    let set_big = || {
        let mut writer = server.conn();
        ok(writer.call(&["JSON.SET", "big", "$", &doc]));
        drop(writer);
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    // Warm-up: buffers Redis and folio keep for reuse reach their size.
    set_big();
    assert_eq!(c.cmd("DEL big"), Resp::Int(1));
    let base = used_memory(&mut c);
    set_big();
    let grown = used_memory(&mut c);
    assert!(grown - base > 500_000, "a 600 kB document shows in used_memory ({base} -> {grown})");
    let usage = c.cmd("MEMORY USAGE big").int();
    assert!(usage > 500_000, "MEMORY USAGE {usage}");
    assert_eq!(c.cmd("DEL big"), Resp::Int(1));
    let after = used_memory(&mut c);
    assert!((after - base).abs() < 64 * 1024, "{base} -> {after}");
}

#[test]
fn maxmemory_denies_growing_writes_only() {
    let server = Server::start();
    let mut c = server.conn();
    ok(c.cmd("FT.CREATE idx ON JSON PREFIX 1 d: SCHEMA $.t AS t TEXT"));
    ok(c.call(&["JSON.SET", "d:keep", "$", r#"{"t":"kept words","a":[1],"s":"x","b":true}"#]));
    // Distinct texts: equal strings would share one interned copy.
    let chunk = |i: usize| format!(r#"{{"t":"filler {}{i}"}}"#, "z".repeat(100_000));
    let n = 20;
    for i in 0..n {
        ok(c.call(&["JSON.SET", &format!("d:{i}"), "$", &chunk(i)]));
    }
    // Below what the documents use now: no room for growth until some are deleted.
    let limit = used_memory(&mut c) - 500_000;
    ok(c.call(&["CONFIG", "SET", "maxmemory", &limit.to_string()]));
    ok(c.cmd("CONFIG SET maxmemory-policy noeviction"));
    let err = c.call(&["JSON.SET", "d:more", "$", &chunk(n)]);
    assert!(err.err().starts_with("OOM"), "{err:?}");
    // Every deny-oom JSON and FT command is refused now (FT.ALTER is not deny-oom in RediSearch 2.10)…
    for argv in [
        vec!["JSON.SET", "d:keep", "$.x", "1"],
        vec!["JSON.MSET", "d:keep", "$.x", "1"],
        vec!["JSON.MERGE", "d:keep", "$", "{\"x\":1}"],
        vec!["JSON.ARRAPPEND", "d:keep", "$.a", "2"],
        vec!["JSON.ARRINSERT", "d:keep", "$.a", "0", "2"],
        vec!["JSON.STRAPPEND", "d:keep", "$.s", "\"y\""],
        vec!["JSON.TOGGLE", "d:keep", "$.b"],
        vec!["FT.CREATE", "idx2", "SCHEMA", "t", "TEXT"],
    ] {
        let r = c.call(&argv);
        assert!(matches!(&r, Resp::Error(e) if e.starts_with("OOM")), "{argv:?}: {r:?}");
    }
    // …while reads, searches and deletes work, and deleting frees room to write again.
    assert_eq!(c.call(&["JSON.GET", "d:keep", "$.t"]), Resp::Bulk(br#"["kept words"]"#.to_vec()));
    assert_eq!(c.call(&["FT.SEARCH", "idx", "kept", "NOCONTENT"]).items()[0], Resp::Int(1));
    assert_eq!(c.call(&["JSON.DEL", "d:0"]), Resp::Int(1));
    assert!(c.call(&["JSON.SET", "d:keep", "$.x", "1"]).is_error(), "one delete is not enough room");
    for i in 1..n {
        assert_eq!(c.call(&["DEL", &format!("d:{i}")]), Resp::Int(1));
    }
    ok(c.call(&["JSON.SET", "d:keep", "$.x", "1"]));
    assert_eq!(c.call(&["FT.SEARCH", "idx", "filler", "NOCONTENT"]).items()[0], Resp::Int(0));
    assert_eq!(c.cmd("PING"), Resp::Simple("PONG".into()));
}
