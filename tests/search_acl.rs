//! ACL key permissions in search replies, end to end: a user restricted to `~a:*` sees, from
//! every FT.* command that answers with documents or figures derived from them, only what `a:*`
//! documents hold (keys, fields, totals, groups, tag values, spelling suggestions, KNN
//! neighbours), while `~*` users and the default user see everything; the all-or-nothing switch;
//! the index name as the commands' key; ACL categories where the server has them (7.2+).
//!
//! Reference facts (measured on RediSearch 2.10.5 / Redis 7.4.1): the index name is each
//! command's key (a user without a pattern for it gets `NOPERM No permissions to access a key`),
//! and RediSearch 2.10 checks nothing else: with the index name allowed, `b:*` documents come
//! back to a `~a:*` user. folio filters them (README, "Differences").

mod common;

use common::*;

/// RediSearch 8's text (RediSearch 2.10 has no such check).
const NOPERM_INDEX: &str = "NOPERM User does not have the required permissions to query the index";

/// A test document: key, text, tag, number, vector.
type Doc = (&'static str, &'static str, &'static str, &'static str, (f32, f32));

fn blob(x: f32, y: f32) -> Vec<u8> {
    [x.to_le_bytes(), y.to_le_bytes()].concat()
}

/// Server with index `i` over `a:` and `b:` hashes, users `alice` (`~a:* ~i ~s:*`), `root`
/// (`~*`) and `nobody` (`~a:*`, not the index name).
fn setup() -> Server {
    let s = Server::start();
    let mut c = s.conn();
    let created = c.cmd(
        "FT.CREATE i PREFIX 2 a: b: SCHEMA t TEXT g TAG n NUMERIC SORTABLE v VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2",
    );
    assert_eq!(created, Resp::Simple("OK".into()));
    let docs: [Doc; 5] = [
        ("a:1", "hello world", "red", "1", (10.0, 10.0)),
        ("a:2", "hello planet", "green", "2", (20.0, 20.0)),
        ("b:1", "hello secretword", "hidden", "3", (0.0, 0.0)),
        ("b:2", "hello secretword again", "hidden", "4", (0.5, 0.5)),
        ("b:3", "privateonly", "hushed", "5", (1.0, 1.0)),
    ];
    for (k, t, g, n, (x, y)) in docs {
        let v = blob(x, y);
        let r = c.call(&[
            b"HSET".as_ref(),
            k.as_bytes(),
            b"t",
            t.as_bytes(),
            b"g",
            g.as_bytes(),
            b"n",
            n.as_bytes(),
            b"v",
            &v,
        ]);
        assert_eq!(r, Resp::Int(4));
    }
    for user in [
        "ACL SETUSER alice on >pw ~a:* ~i ~s:* +@all",
        "ACL SETUSER root on >pw ~* +@all",
        "ACL SETUSER nobody on >pw ~a:* +@all",
    ] {
        assert_eq!(c.cmd(user), Resp::Simple("OK".into()));
    }
    assert_eq!(c.cmd("FT.SUGADD s:dict hello 1"), Resp::Int(1));
    assert_eq!(c.cmd("FT.SUGADD b:dict secretword 1"), Resp::Int(1));
    s
}

fn login(s: &Server, user: &str) -> Conn {
    let mut c = s.conn();
    assert_eq!(c.call(&["AUTH", user, "pw"]), Resp::Simple("OK".into()));
    c
}

/// Every string of a reply, flattened.
fn strings(r: &Resp) -> Vec<String> {
    match r {
        Resp::Bulk(b) | Resp::Verbatim(b) => vec![String::from_utf8_lossy(b).into_owned()],
        Resp::Simple(s) | Resp::Error(s) | Resp::Double(s) | Resp::BigNumber(s) => vec![s.clone()],
        Resp::Array(v) | Resp::Set(v) | Resp::Push(v) => v.iter().flat_map(strings).collect(),
        Resp::Map(m) => m.iter().flat_map(|(k, v)| strings(k).into_iter().chain(strings(v))).collect(),
        _ => Vec::new(),
    }
}

/// Asserts `r` is not an error and names nothing of the `b:` documents.
fn hides_b(r: &Resp, what: &str) {
    assert!(!r.is_error(), "{what}: {r:?}");
    for s in strings(r) {
        for secret in ["b:", "secretword", "hidden", "hushed", "privateonly"] {
            assert!(!s.contains(secret), "{what}: {secret} leaked in {r:?}");
        }
    }
}

fn shows_b(r: &Resp, what: &str) {
    assert!(
        strings(r).iter().any(|s| s.contains("b:") || s.contains("secretword") || s.contains("hidden")),
        "{what}: {r:?}"
    );
}

const SEARCHES: &[&str] = &[
    "FT.SEARCH i hello NOCONTENT",
    "FT.SEARCH i hello",
    "FT.SEARCH i hello RETURN 2 t g",
    "FT.SEARCH i hello HIGHLIGHT",
    "FT.SEARCH i hello SUMMARIZE",
    "FT.SEARCH i hello SORTBY n DESC WITHSORTKEYS WITHSCORES",
    "FT.SEARCH i * SORTBY n",
    "FT.SEARCH i @g:{hidden|red}",
    "FT.AGGREGATE i hello LOAD 1 @__key",
    "FT.AGGREGATE i * LOAD 2 @t @g",
    "FT.AGGREGATE i * GROUPBY 1 @g REDUCE COUNT 0 AS c",
    "FT.AGGREGATE i * LOAD 1 @t APPLY upper(@t) AS u SORTBY 2 @n DESC",
    "FT.TAGVALS i g",
    "FT.SPELLCHECK i secretwurd",
];

#[test]
fn a_restricted_user_sees_only_its_documents_and_others_see_everything() {
    let s = setup();
    let mut alice = login(&s, "alice");
    let mut root = login(&s, "root");
    let mut default = s.conn();
    for q in SEARCHES {
        hides_b(&alice.cmd(q), q);
        for c in [&mut root, &mut default] {
            shows_b(&c.cmd(q), q);
        }
    }
    // A word only hidden documents have is misspelled for alice, found for root.
    let spell = alice.cmd("FT.SPELLCHECK i privateonly");
    assert_eq!(
        spell,
        arr(vec![arr(vec![Resp::Simple("TERM".into()), Resp::bulk("privateonly"), arr(vec![])])])
    );
    assert_eq!(root.cmd("FT.SPELLCHECK i privateonly"), arr(vec![]));
    // Totals count what the caller may read, before paging.
    let r = alice.cmd("FT.SEARCH i hello NOCONTENT LIMIT 0 1");
    assert_eq!(r, arr(vec![Resp::Int(2), Resp::bulk("a:1")]));
    assert_eq!(root.cmd("FT.SEARCH i hello NOCONTENT LIMIT 0 1").items()[0], Resp::Int(4));
    assert_eq!(alice.cmd("FT.SEARCH i secretword NOCONTENT"), arr(vec![Resp::Int(0)]));
    assert_eq!(alice.cmd("FT.SEARCH i * LIMIT 0 0"), arr(vec![Resp::Int(2)]));
    assert_eq!(default.cmd("FT.SEARCH i * LIMIT 0 0"), arr(vec![Resp::Int(5)]));
    let count = alice.cmd("FT.AGGREGATE i * GROUPBY 0 REDUCE COUNT 0 AS c");
    assert_eq!(count, arr(vec![Resp::Int(1), arr(vec![Resp::bulk("c"), Resp::bulk("2")])]));
    let count = root.cmd("FT.AGGREGATE i * GROUPBY 0 REDUCE COUNT 0 AS c");
    assert_eq!(count, arr(vec![Resp::Int(1), arr(vec![Resp::bulk("c"), Resp::bulk("5")])]));
    let tags = alice.cmd("FT.TAGVALS i g");
    assert_eq!(tags, arr(vec![Resp::bulk("green"), Resp::bulk("red")]));
    // Spelling: the hidden documents' words are neither found nor suggested, and the scores
    // divide by the documents the caller may read.
    let spell = alice.cmd("FT.SPELLCHECK i hellp");
    assert_eq!(
        spell,
        arr(vec![arr(vec![
            Resp::Simple("TERM".into()),
            Resp::bulk("hellp"),
            arr(vec![arr(vec![Resp::bulk("1"), Resp::bulk("hello")])])
        ])])
    );
    // KNN takes its nearest among the readable documents (the b: vectors are nearer).
    let knn = [
        b"FT.SEARCH".as_ref(),
        b"i",
        b"*=>[KNN 2 @v $q]",
        b"PARAMS",
        b"2",
        b"q",
        &blob(0.0, 0.0),
        b"NOCONTENT",
        b"DIALECT",
        b"2",
    ];
    assert_eq!(alice.call(&knn), arr(vec![Resp::Int(2), Resp::bulk("a:1"), Resp::bulk("a:2")]));
    assert_eq!(root.call(&knn), arr(vec![Resp::Int(2), Resp::bulk("b:1"), Resp::bulk("b:2")]));
    // RESP3 too.
    alice.resp3();
    hides_b(&alice.cmd("FT.SEARCH i hello"), "RESP3 FT.SEARCH");
    hides_b(&alice.cmd("FT.AGGREGATE i hello LOAD 1 @t"), "RESP3 FT.AGGREGATE");
}

#[test]
fn cursors_hold_the_openers_rows_and_are_the_openers() {
    let s = setup();
    let mut alice = login(&s, "alice");
    let mut root = login(&s, "root");
    // alice's cursor: every page hides b:.
    let mut r = alice.cmd("FT.AGGREGATE i * LOAD 1 @__key WITHCURSOR COUNT 1");
    let mut keys = Vec::new();
    loop {
        hides_b(&r, "FT.CURSOR READ");
        let parts = r.items().to_vec();
        keys.extend(strings(&parts[0]).into_iter().filter(|s| s.starts_with("a:")));
        let id = parts[1].int();
        if id == 0 {
            break;
        }
        r = alice.call(&["FT.CURSOR", "READ", "i", &id.to_string()]);
    }
    keys.sort();
    assert_eq!(keys, ["a:1", "a:2"]);
    // root's cursor cannot be read or deleted by alice; root reads on.
    let r = root.cmd("FT.AGGREGATE i * LOAD 1 @__key WITHCURSOR COUNT 1");
    let id = r.items()[1].int().to_string();
    assert_eq!(alice.call(&["FT.CURSOR", "READ", "i", &id]), Resp::Error("Cursor not found".into()));
    assert_eq!(alice.call(&["FT.CURSOR", "DEL", "i", &id]), Resp::Error("Cursor does not exist".into()));
    let more = root.call(&["FT.CURSOR", "READ", "i", &id]);
    assert!(!more.is_error(), "{more:?}");
}

#[test]
fn the_index_name_and_suggestion_keys_are_checked_by_redis() {
    let s = setup();
    let mut nobody = login(&s, "nobody");
    let mut alice = login(&s, "alice");
    // As RediSearch 2.10: the index name is the key (Redis 7.0 and 7.4 word the error apart).
    for q in ["FT.SEARCH i hello", "FT.AGGREGATE i hello", "FT.TAGVALS i g", "FT.INFO i", "FT.SPELLCHECK i x"]
    {
        let r = nobody.cmd(q);
        assert!(r.is_error() && r.err().starts_with("NOPERM"), "{q}: {r:?}");
    }
    assert_eq!(alice.cmd("FT.SUGGET s:dict hel"), arr(vec![Resp::bulk("hello")]));
    let r = alice.cmd("FT.SUGGET b:dict sec");
    assert!(r.is_error() && r.err().starts_with("NOPERM"), "{r:?}");
}

#[test]
fn all_or_nothing_refuses_a_query_with_a_hidden_hit() {
    let s = setup();
    let mut alice = login(&s, "alice");
    let mut root = login(&s, "root");
    assert_eq!(
        root.cmd("FT.CONFIG GET ACL_ALL_OR_NOTHING"),
        arr(vec![arr(vec![Resp::Simple("ACL_ALL_OR_NOTHING".into()), Resp::bulk("false")])])
    );
    assert_eq!(root.cmd("FT.CONFIG SET ACL_ALL_OR_NOTHING true"), Resp::Simple("OK".into()));
    for q in ["FT.SEARCH i hello", "FT.AGGREGATE i * LOAD 1 @t", "FT.TAGVALS i g", "FT.SPELLCHECK i hellp"] {
        assert_eq!(alice.cmd(q), Resp::Error(NOPERM_INDEX.into()), "{q}");
        assert!(!root.cmd(q).is_error(), "{q}");
    }
    // Nothing hidden among the hits: answered.
    assert_eq!(alice.cmd("FT.SEARCH i world NOCONTENT"), arr(vec![Resp::Int(1), Resp::bulk("a:1")]));
    assert_eq!(root.cmd("FT.CONFIG SET ACL_ALL_OR_NOTHING false"), Resp::Simple("OK".into()));
    assert_eq!(alice.cmd("FT.SEARCH i hello NOCONTENT").items()[0], Resp::Int(2));
}

#[test]
fn scripts_run_as_their_caller() {
    let s = setup();
    let mut alice = login(&s, "alice");
    let r = alice.call(&["EVAL", "return redis.call('FT.SEARCH','i','hello','NOCONTENT')", "0"]);
    assert_eq!(r, arr(vec![Resp::Int(2), Resp::bulk("a:1"), Resp::bulk("a:2")]));
}

/// `redis_version` as (major, minor).
fn version(c: &mut Conn) -> (u32, u32) {
    let info = c.cmd("INFO server").text();
    let v = info.lines().find_map(|l| l.strip_prefix("redis_version:")).unwrap().trim().to_string();
    let mut parts = v.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

#[test]
fn acl_categories_where_the_server_has_them() {
    let s = setup();
    let mut c = s.conn();
    if version(&mut c) < (7, 2) {
        // Redis 7.0 has no module ACL categories: the commands register without them.
        let r = c.cmd("ACL SETUSER cat on >pw ~* +@search");
        assert!(r.is_error(), "{r:?}");
        return;
    }
    assert_eq!(c.cmd("ACL SETUSER searcher on >pw ~* -@all +@search -@admin"), Resp::Simple("OK".into()));
    let mut searcher = login(&s, "searcher");
    assert_eq!(searcher.cmd("FT.SEARCH i hello NOCONTENT").items()[0], Resp::Int(4));
    for q in ["FT.CONFIG GET TIMEOUT", "FT._LIST", "FT.TAGVALS i g", "HGET a:1 t", "JSON.GET x"] {
        let r = searcher.cmd(q);
        assert!(r.is_error() && r.err().starts_with("NOPERM"), "{q}: {r:?}");
    }
    // `ACL CAT search` lists no module command on 7.x (RediSearch 2.10 on 7.4.1 lists none
    // either: there the category is unknown), yet the category holds every FT.* command.
    let listed = strings(&c.cmd("ACL CAT search"));
    assert!(listed.iter().all(|n| !n.to_ascii_uppercase().starts_with("FT.")), "{listed:?}");
    // RediSearch 8's categories (2.10 declares none).
    let info = c.cmd("COMMAND INFO FT.SEARCH FT.CONFIG FT.DROPINDEX");
    let cats: Vec<Vec<String>> = info.items().iter().map(|cmd| strings(&cmd.items()[6])).collect();
    assert_eq!(
        cats,
        [
            vec!["@read", "@search"],
            vec!["@admin", "@search"],
            vec!["@write", "@slow", "@dangerous", "@search"]
        ]
    );
}

#[test]
fn many_hits_follow_the_same_rules_as_a_few() {
    // Past 256 checks in a command folio matches literal-prefix patterns itself: the counts
    // must be those of Redis's own matching for every shape of pattern.
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE i PREFIX 2 a: b: SCHEMA t TEXT"), Resp::Simple("OK".into()));
    for i in 0..600 {
        for p in ["a", "b"] {
            assert_eq!(c.call(&["HSET", &format!("{p}:{i}"), "t", "hello"]), Resp::Int(1));
        }
    }
    // (Redis refuses patterns with a space: `ACL GETUSER`'s list of patterns is unambiguous.)
    let users: [(&str, &[&str], usize); 5] = [
        ("prefix", &["~a:*"], 600),
        ("two", &["~a:1*", "%R~b:7", "%W~b:*"], 1 + 10 + 100 + 1),
        ("glob", &["~a:1?*"], 10 + 100),
        ("exact", &["~a:1", "~b:2"], 2),
        ("writeonly", &["%W~a:*"], 0),
    ];
    for (name, patterns, _) in &users {
        let mut args = vec!["ACL", "SETUSER", name, "on", ">pw", "~i", "+@all"];
        args.extend(patterns.iter().copied());
        assert_eq!(c.call(&args), Resp::Simple("OK".into()), "{name}");
    }
    for (name, _, expected) in users {
        let mut u = login(&s, name);
        let r = u.cmd("FT.SEARCH i hello NOCONTENT LIMIT 0 2000");
        assert_eq!(r.items()[0], Resp::Int(expected as i64), "{name}");
        assert_eq!(r.items().len(), expected + 1, "{name}");
        // Every key returned is one Redis lets the user read.
        for k in &r.items()[1..] {
            let got = u.call(&[b"HGET".as_ref(), &k.text().into_bytes(), b"t"]);
            assert_eq!(got, Resp::bulk("hello"), "{name} {k:?}");
        }
    }
}

#[test]
fn key_positions_and_flags_are_redisearchs_but_writes_say_write() {
    let s = Server::start();
    let mut c = s.conn();
    // (name, flags, first, last, step): RediSearch 2.10.5's COMMAND INFO on Redis 7.4.1, except
    // FT.ALIAS* and FT.DICTADD/DICTDEL, which RediSearch flags `readonly`.
    let expected: [(&str, &[&str], i64, i64, i64); 9] = [
        ("ft.search", &["readonly", "module"], 1, 1, 1),
        ("ft.aggregate", &["readonly", "module"], 1, 1, 1),
        ("ft.cursor", &["readonly", "module"], 2, 2, 1),
        ("ft.create", &["write", "denyoom", "module"], 1, 1, 1),
        ("ft.config", &["readonly", "module"], 0, 0, 0),
        ("ft._list", &["readonly", "module"], 0, 0, 0),
        ("ft.aliasadd", &["write", "module"], 1, 2, 1),
        ("ft.dictadd", &["write", "denyoom", "module"], 0, 0, 0),
        ("ft.sugget", &["readonly", "module"], 1, 1, 1),
    ];
    for (name, flags, first, last, step) in expected {
        let info = c.call(&["COMMAND", "INFO", name]);
        let cmd = info.items()[0].items();
        assert_eq!(cmd[0].text().to_ascii_lowercase(), name);
        assert_eq!(strings(&cmd[2]), flags.iter().map(|f| f.to_string()).collect::<Vec<_>>(), "{name}");
        assert_eq!([cmd[3].int(), cmd[4].int(), cmd[5].int()], [first, last, step], "{name}");
    }
}
