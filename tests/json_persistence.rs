//! Documents survive every way Redis persists and copies data: DEBUG RELOAD, restart from RDB, AOF
//! rewrite and restart (with and without the RDB preamble), a replica, COPY, and RedisJSON 1.x's
//! encoding-0 RDB (`backward.rdb`).

mod common;

use common::*;

/// A few documents covering every value kind, deep nesting, and numbers that must print back as sent.
fn corpus() -> Vec<(String, String)> {
    let mut docs = vec![
        (
            "doc:nums".to_string(),
            r#"{"i":-12,"u":18446744073709551615,"f":1e-28,"g":3.646623134613037,"z":0.0,"e":1.5e300}"#
                .to_string(),
        ),
        ("doc:str".to_string(), r#"{"s":"h\u00e9llo \"q\" \\ \n\t","emoji":"😀","empty":""}"#.to_string()),
        (
            "doc:mixed".to_string(),
            r#"[true,false,null,[],{},[[1,[2,[3]]]],{"a":{"b":{"c":null}}}]"#.to_string(),
        ),
        ("doc:scalar".to_string(), r#""just a string""#.to_string()),
    ];
    for name in ["pass-100.json", "pass-jsonsl-1.json", "pass-json-parser-0000.json", "pass-jsonsl-yelp.json"]
    {
        let text = std::fs::read_to_string(fixture(name)).expect("fixture");
        docs.push((format!("file:{name}"), text));
    }
    docs
}

/// Loads the corpus and returns each key with its serialized form as folio prints it.
fn load(conn: &mut Conn) -> Vec<(String, Resp)> {
    corpus()
        .into_iter()
        .map(|(k, v)| {
            assert_eq!(conn.call(&["JSON.SET", &k, "$", &v]), Resp::Simple("OK".into()), "SET {k}");
            let got = conn.call(&["JSON.GET", &k]);
            assert!(matches!(got, Resp::Bulk(_)), "GET {k}: {got:?}");
            (k, got)
        })
        .collect()
}

fn assert_same(conn: &mut Conn, expected: &[(String, Resp)]) {
    for (k, v) in expected {
        assert_eq!(&conn.call(&["JSON.GET", k]), v, "document {k} changed");
        assert_eq!(conn.call(&["TYPE", k]), Resp::Simple("ReJSON-RL".into()));
    }
}

#[test]
fn debug_reload_keeps_documents_byte_identical() {
    let s = Server::start();
    let mut c = s.conn();
    let docs = load(&mut c);
    for _ in 0..3 {
        assert_eq!(c.cmd("DEBUG RELOAD"), Resp::Simple("OK".into()));
        assert_same(&mut c, &docs);
    }
}

#[test]
fn restart_from_rdb_keeps_documents() {
    let mut s = Server::start();
    let mut c = s.conn();
    let docs = load(&mut c);
    assert_eq!(c.cmd("SAVE"), Resp::Simple("OK".into()));
    s.restart();
    let mut c = s.conn();
    assert_same(&mut c, &docs);
}

fn aof_round_trip(preamble: &str) {
    let opts = ServerOptions {
        args: vec!["--appendonly".into(), "yes".into(), "--aof-use-rdb-preamble".into(), preamble.into()],
        ..Default::default()
    };
    let mut s = Server::with(opts);
    let mut c = s.conn();
    let docs = load(&mut c);
    // A later change must also survive: it lands in the AOF after the rewrite.
    assert!(!c.call(&["BGREWRITEAOF"]).is_error());
    assert!(
        wait_until(30, || {
            let info = c.call(&["INFO", "persistence"]).text();
            info.contains("aof_rewrite_in_progress:0") && info.contains("aof_last_bgrewrite_status:ok")
        }),
        "AOF rewrite did not finish: {}",
        s.log()
    );
    assert!(s.alive(), "server died during AOF rewrite");
    assert!(!s.log().contains("panic"), "{}", s.log());
    assert_eq!(c.call(&["JSON.SET", "late", "$", r#"{"after":"rewrite"}"#]), Resp::Simple("OK".into()));
    let late = c.call(&["JSON.GET", "late"]);
    s.restart();
    let mut c = s.conn();
    assert_same(&mut c, &docs);
    assert_eq!(c.call(&["JSON.GET", "late"]), late);
}

#[test]
fn aof_rewrite_without_rdb_preamble_uses_the_rewrite_callback() {
    aof_round_trip("no");
}

#[test]
fn aof_rewrite_with_rdb_preamble() {
    aof_round_trip("yes");
}

#[test]
fn replica_receives_identical_documents() {
    let primary = Server::start();
    let replica = Server::start();
    let mut p = primary.conn();
    let mut r = replica.conn();
    // Some data before the replica attaches (full sync through RDB), some after (replicated commands).
    let before = load(&mut p);
    assert_eq!(r.call(&["REPLICAOF", "127.0.0.1", &primary.port.to_string()]), Resp::Simple("OK".into()));
    assert!(wait_until(30, || r.call(&["INFO", "replication"]).text().contains("master_link_status:up")));
    assert_eq!(p.call(&["JSON.SET", "after", "$", r#"{"a":[1,2,3]}"#]), Resp::Simple("OK".into()));
    assert_eq!(p.call(&["JSON.SET", "after", "$.a[1]", "20"]), Resp::Simple("OK".into()));
    assert_eq!(p.call(&["JSON.DEL", "doc:str", "$.emoji"]), Resp::Int(1));
    let offset = p.call(&["INFO", "replication"]).text();
    let want = offset.lines().find(|l| l.starts_with("master_repl_offset:")).unwrap().to_string();
    let want = want.trim_start_matches("master_repl_offset:").trim().to_string();
    assert!(wait_until(30, || {
        r.call(&["INFO", "replication"]).text().contains(&format!("slave_repl_offset:{want}"))
    }));
    for (k, _) in &before {
        assert_eq!(r.call(&["JSON.GET", k]), p.call(&["JSON.GET", k]), "{k}");
    }
    assert_eq!(r.call(&["JSON.GET", "after"]), Resp::bulk(r#"{"a":[1,20,3]}"#));
    // A write that changes nothing is not replicated as a change either way, and the replica refuses writes.
    assert!(r.call(&["JSON.SET", "x", "$", "1"]).is_error());
}

#[test]
fn copy_duplicates_a_document() {
    let s = Server::start();
    let mut c = s.conn();
    c.call(&["JSON.SET", "src", "$", r#"{"a":[1,{"b":"c"}]}"#]);
    assert_eq!(c.call(&["COPY", "src", "dst"]), Resp::Int(1));
    c.call(&["JSON.SET", "src", "$.a[0]", "2"]);
    assert_eq!(c.call(&["JSON.GET", "dst"]), Resp::bulk(r#"{"a":[1,{"b":"c"}]}"#));
    assert_eq!(c.call(&["JSON.GET", "src"]), Resp::bulk(r#"{"a":[2,{"b":"c"}]}"#));
    let usage = c.call(&["MEMORY", "USAGE", "dst"]).int();
    assert!(usage > 0);
}

#[test]
fn redisjson_1x_rdb_loads() {
    let dir = std::env::temp_dir().join(format!("folio-backward-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixture("backward.rdb"), dir.join("dump.rdb")).unwrap();
    let s = Server::with(ServerOptions { dir: Some(dir.clone()), ..Default::default() });
    let mut c = s.conn();
    // Expected documents decoded by hand from the file's encoding-0 node stream (tags 0x1 null,
    // 0x2 string, 0x4 double, 0x8 integer, 0x10 boolean, 0x20 dict, 0x40 array, 0x80 key/value).
    assert_eq!(
        c.call(&["JSON.GET", "simple"]),
        Resp::bulk(r#"{"a":1,"b":"1","c":true,"d":[],"e":{},"f":null}"#),
        "{}",
        s.log()
    );
    assert_eq!(
        c.call(&["JSON.GET", "complex"]),
        Resp::bulk(r#"{"a":{"b":[{"c":{"d":[1,"2"],"e":null}},true],"a":"a"},"b":1,"c":true,"d":null}"#)
    );
    assert_eq!(c.call(&["DBSIZE"]), Resp::Int(2));
    assert_eq!(c.call(&["TYPE", "simple"]), Resp::Simple("ReJSON-RL".into()));
    // Saved again, it is written in the current encoding and reads back the same.
    assert_eq!(c.cmd("DEBUG RELOAD"), Resp::Simple("OK".into()));
    assert_eq!(c.call(&["JSON.GET", "complex", "$.a.b[0].c.d[1]"]), Resp::bulk(r#"["2"]"#));
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}
