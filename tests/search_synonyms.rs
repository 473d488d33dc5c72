//! Synonym groups end to end: FT.SYNUPDATE (with and without SKIPINITIALSCAN), FT.SYNDUMP in
//! RESP2 and RESP3, matching and scoring, errors, persistence (DEBUG RELOAD, restart) and
//! replication. Every expected reply below was taken from RediSearch 2.10 (redisearch.so on
//! Redis 7.2) with the same commands (FT.SYNDUMP's order there is its hash table's, so the
//! dump is compared as a set).

mod common;

use common::*;

fn server() -> (Server, Conn) {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "s", "ON", "HASH", "PREFIX", "1", "s:", "SCHEMA", "t", "TEXT", "n", "NUMERIC"]),
        ok()
    );
    assert_eq!(c.call(&["FT.SYNUPDATE", "s", "g1", "boy", "child", "baby"]), ok());
    assert_eq!(c.call(&["FT.SYNUPDATE", "s", "g2", "child", "kid", "Kiddo"]), ok());
    for (k, t, n) in [
        ("s:1", "the boy plays", "1"),
        ("s:2", "a small child runs running", "2"),
        ("s:3", "baby baby sleeps", "3"),
        ("s:4", "kiddo and kid", "4"),
        ("s:5", "nothing here", "5"),
    ] {
        c.call(&["HSET", k, "t", t, "n", n]);
    }
    (s, c)
}

fn ids(c: &mut Conn, q: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["FT.SEARCH", "s", q, "NOCONTENT"];
    args.extend_from_slice(extra);
    let r = c.call(&args);
    assert!(!r.is_error(), "{q}: {r:?}");
    r.items()[1..].iter().map(|i| i.text()).collect()
}

fn sc(v: &[(&str, f64)]) -> Vec<(String, f64)> {
    v.iter().map(|(k, s)| (k.to_string(), *s)).collect()
}

/// FT.SYNDUMP as sorted (word, groups) pairs, from RESP2's flat list or RESP3's map.
fn dump(c: &mut Conn) -> Vec<(String, Vec<String>)> {
    let r = c.call(&["FT.SYNDUMP", "s"]);
    let pairs: Vec<(Resp, Resp)> = match r {
        Resp::Map(m) => m,
        Resp::Array(v) => v.chunks(2).map(|p| (p[0].clone(), p[1].clone())).collect(),
        other => panic!("{other:?}"),
    };
    let mut out: Vec<(String, Vec<String>)> =
        pairs.into_iter().map(|(w, g)| (w.text(), g.items().iter().map(|x| x.text()).collect())).collect();
    out.sort();
    out
}

fn want_dump() -> Vec<(String, Vec<String>)> {
    [("baby", &["g1"][..]), ("boy", &["g1"]), ("child", &["g1", "g2"]), ("kid", &["g2"]), ("kiddo", &["g2"])]
        .iter()
        .map(|(w, g)| (w.to_string(), g.iter().map(|x| x.to_string()).collect()))
        .collect()
}

#[test]
fn synonyms_match_and_score_like_redisearch() {
    let (_s, mut c) = server();
    assert_eq!(scored(&mut c, "s", "boy", &[]), sc(&[("s:1", 3.0), ("s:3", 1.0), ("s:2", 0.5)]));
    assert_eq!(
        scored(&mut c, "s", "child", &[]),
        sc(&[("s:4", 2.0), ("s:2", 1.25), ("s:1", 1.0), ("s:3", 1.0)])
    );
    assert_eq!(scored(&mut c, "s", "kid", &[]), sc(&[("s:4", 3.0), ("s:2", 1.0)]));
    assert_eq!(scored(&mut c, "s", "child sleeps", &[]), sc(&[("s:3", 3.0)]));
    // VERBATIM, negation and optional words are not expanded.
    assert_eq!(ids(&mut c, "boy", &["VERBATIM"]), ["s:1"]);
    assert_eq!(ids(&mut c, "-boy", &[]), ["s:2", "s:3", "s:4", "s:5"]);
    assert_eq!(
        scored(&mut c, "s", "~boy", &[]),
        sc(&[("s:1", 2.0), ("s:2", 0.0), ("s:3", 0.0), ("s:4", 0.0), ("s:5", 0.0)])
    );
    assert_eq!(ids(&mut c, "@t:kid", &[]), ["s:4", "s:2"]);
    // Every word of the groups is highlighted.
    let r = c.call(&["FT.SEARCH", "s", "kid", "HIGHLIGHT", "RETURN", "1", "t"]);
    assert_eq!(r.items()[2].items()[1].text(), "<b>kiddo</b> and <b>kid</b>");
    assert_eq!(r.items()[4].items()[1].text(), "a small <b>child</b> runs running");
    // Spell checking suggests group words by their own frequency (1 of 5 documents).
    let r = c.call(&["FT.SPELLCHECK", "s", "chld kd"]);
    let got: Vec<(String, f64, String)> = r
        .items()
        .iter()
        .map(|t| {
            (
                t.items()[1].text(),
                t.items()[2].items()[0].items()[0].text().parse().unwrap(),
                t.items()[2].items()[0].items()[1].text(),
            )
        })
        .collect();
    assert_eq!(got, [("chld".to_string(), 0.2, "child".to_string()), ("kd".into(), 0.2, "kid".into())]);
}

#[test]
fn skipinitialscan_leaves_existing_documents_alone() {
    let (_s, mut c) = server();
    assert_eq!(c.call(&["FT.SYNUPDATE", "s", "g3", "SKIPINITIALSCAN", "plays", "nothing"]), ok());
    assert_eq!(ids(&mut c, "plays", &[]), ["s:1"]);
    assert_eq!(ids(&mut c, "nothing", &[]), ["s:5"]);
    assert_eq!(c.call(&["FT.SYNUPDATE", "s", "g3", "here"]), ok());
    assert_eq!(ids(&mut c, "plays", &[]), ["s:1", "s:5"]);
    assert_eq!(ids(&mut c, "here", &[]), ["s:5", "s:1"]);
    // A document written after the update is indexed with its groups at once.
    c.call(&["HSET", "s:6", "t", "Kiddo"]);
    // (`Kiddo` is in g2 with `kid`, not in g1 with `boy`.)
    assert!(ids(&mut c, "kid", &[]).contains(&"s:6".to_string()));
    assert_eq!(ids(&mut c, "boy", &[]).len(), 3);
}

#[test]
fn syndump_errors_persistence_and_replication() {
    let (mut s, mut c) = server();
    assert_eq!(dump(&mut c), want_dump());
    let mut c3 = s.conn();
    c3.resp3();
    assert!(matches!(c3.call(&["FT.SYNDUMP", "s"]), Resp::Map(_)));
    assert_eq!(dump(&mut c3), want_dump());
    let errors: &[(&[&str], &str)] = &[
        (&["FT.SYNUPDATE", "nope", "g", "a"], "Unknown index name"),
        (&["FT.SYNUPDATE", "s", "g"], "ERR wrong number of arguments for 'FT.SYNUPDATE' command"),
        (&["FT.SYNDUMP", "nope"], "Unknown index name"),
        (&["FT.SYNDUMP"], "ERR wrong number of arguments for 'FT.SYNDUMP' command"),
        (&["FT.SYNADD", "s", "a", "b"], "No longer suppoted, use FT.SYNUPDATE"),
    ];
    for (args, want) in errors {
        assert_eq!(c.call(args), Resp::Error(want.to_string()), "{args:?}");
    }
    // An index without synonyms dumps an empty map; aliases work.
    c.call(&["FT.CREATE", "plain", "SCHEMA", "x", "TEXT"]);
    assert_eq!(c3.call(&["FT.SYNDUMP", "plain"]), Resp::Map(vec![]));
    assert_eq!(c.call(&["FT.ALIASADD", "al", "s"]), ok());
    assert!(matches!(c3.call(&["FT.SYNDUMP", "al"]), Resp::Map(m) if m.len() == 5));

    let replica = Server::start();
    let mut r = replica.conn();
    r.call(&["REPLICAOF", "127.0.0.1", &s.port.to_string()]);
    assert!(wait_until(30, || r.call(&["INFO", "replication"]).text().contains("master_link_status:up")));
    assert_eq!(c.call(&["FT.SYNUPDATE", "s", "g4", "nothing", "plays"]), ok());
    assert!(wait_until(30, || r.call(&["FT.SEARCH", "s", "plays", "NOCONTENT"]).items().len() == 3));
    assert!(wait_until(30, || {
        let r = r.call(&["FT.SEARCH", "s", "child", "NOCONTENT"]);
        !r.is_error() && r.items()[0] == Resp::Int(4)
    }));

    // Equal scores may come in another order once documents are reloaded: compare as sets.
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    let before = sorted(ids(&mut c, "child", &[]));
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    assert_eq!(sorted(ids(&mut c, "child", &[])), before, "after DEBUG RELOAD");
    assert_eq!(ids(&mut c, "plays", &[]).len(), 2);
    assert_eq!(c.cmd("SAVE"), ok());
    s.restart();
    let mut c = s.conn();
    assert_eq!(sorted(ids(&mut c, "child", &[])), before, "after restart");
    let mut want = want_dump();
    want.push(("nothing".into(), vec!["g4".into()]));
    want.push(("plays".into(), vec!["g4".into()]));
    want.sort();
    assert_eq!(dump(&mut c), want);
}
