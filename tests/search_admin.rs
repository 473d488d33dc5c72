//! The rest of the search-core surface end to end, each option checked by what it changes:
//! MAXTEXTFIELDS, NOFIELDS, NOFREQS, SKIPINITIALSCAN, TEMPORARY, TAG/NUMERIC SORTABLE and
//! NOINDEX; FT.CONFIG GET/SET/HELP, FT._LIST, aliases, FT.TAGVALS, FT.ALTER; NOSTOPWORDS, tag
//! escapes, dialect 1 vs 2 parsing, RESP3 replies; indexes rebuilt from a pure AOF.

mod common;

use std::time::{Duration, Instant};

use common::*;

fn s(x: &str) -> Resp {
    Resp::Simple(x.into())
}

fn b(x: &str) -> Resp {
    Resp::bulk(x)
}

/// Sorted ids of a NOCONTENT search.
fn ids(c: &mut Conn, idx: &str, query: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["FT.SEARCH", idx, query];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["NOCONTENT", "LIMIT", "0", "1000"]);
    let r = c.call(&args);
    assert!(!r.is_error(), "{query}: {r:?}");
    let mut v: Vec<String> = r.items()[1..].iter().map(|i| i.text()).collect();
    v.sort();
    v
}

/// Ids in reply order.
fn ordered(c: &mut Conn, idx: &str, query: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["FT.SEARCH", idx, query];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["NOCONTENT"]);
    c.call(&args).items()[1..].iter().map(|i| i.text()).collect()
}

fn v(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

fn none() -> Vec<String> {
    Vec::new()
}

#[test]
fn index_options_change_results() {
    let srv = Server::start();
    let mut c = srv.conn();
    // MAXTEXTFIELDS: 40 TEXT fields, each still searchable on its own.
    let mut args: Vec<String> = ["FT.CREATE", "wide", "MAXTEXTFIELDS", "PREFIX", "1", "w:", "SCHEMA"]
        .iter()
        .map(|x| x.to_string())
        .collect();
    for i in 0..40 {
        args.push(format!("f{i}"));
        args.push("TEXT".into());
    }
    assert_eq!(c.call(&args), ok());
    c.call(&["HSET", "w:1", "f39", "needle", "f0", "hay"]);
    assert_eq!(ids(&mut c, "wide", "@f39:needle", &[]), v(&["w:1"]));
    assert_eq!(ids(&mut c, "wide", "@f0:needle", &[]), none());

    // NOFIELDS: no field flags are kept, so a TEXT field restriction matches any field.
    assert_eq!(
        c.call(&[
            "FT.CREATE", "nf", "NOFIELDS", "PREFIX", "1", "n:", "SCHEMA", "title", "TEXT", "body", "TEXT"
        ]),
        ok()
    );
    assert_eq!(
        c.call(&["FT.CREATE", "f", "PREFIX", "1", "n:", "SCHEMA", "title", "TEXT", "body", "TEXT"]),
        ok()
    );
    c.call(&["HSET", "n:1", "title", "apple", "body", "pear"]);
    assert_eq!(ids(&mut c, "nf", "@title:pear", &[]), v(&["n:1"]));
    assert_eq!(ids(&mut c, "f", "@title:pear", &[]), none());

    // NOFREQS: every matching term counts once (DISMAX scores are frequencies).
    assert_eq!(c.call(&["FT.CREATE", "nq", "NOFREQS", "PREFIX", "1", "q:", "SCHEMA", "t", "TEXT"]), ok());
    assert_eq!(c.call(&["FT.CREATE", "fq", "PREFIX", "1", "q:", "SCHEMA", "t", "TEXT"]), ok());
    c.call(&["HSET", "q:1", "t", "kiwi kiwi kiwi"]);
    let score = |c: &mut Conn, idx: &str| -> String {
        c.call(&["FT.SEARCH", idx, "kiwi", "SCORER", "DISMAX", "WITHSCORES", "NOCONTENT", "VERBATIM"]).items()
            [2]
        .text()
    };
    assert_eq!(score(&mut c, "nq"), "1");
    assert_eq!(score(&mut c, "fq"), "3");

    // NOHL and NOOFFSETS: no byte offsets, so HIGHLIGHT and SUMMARIZE are RediSearch 2.10.5's
    // error; NOOFFSETS: no positions either, so a phrase matches its words anywhere.
    assert_eq!(c.call(&["FT.CREATE", "nohl", "NOHL", "PREFIX", "1", "hl:", "SCHEMA", "t", "TEXT"]), ok());
    assert_eq!(c.call(&["FT.CREATE", "hl", "PREFIX", "1", "hl:", "SCHEMA", "t", "TEXT"]), ok());
    assert_eq!(
        c.call(&["FT.CREATE", "nooff", "NOOFFSETS", "PREFIX", "1", "hl:", "SCHEMA", "t", "TEXT"]),
        ok()
    );
    c.call(&["HSET", "hl:1", "t", "alpha  gamma beta delta"]);
    let field = |c: &mut Conn, idx: &str, extra: &[&str]| -> String {
        let mut args = vec!["FT.SEARCH", idx, "beta", "RETURN", "1", "t"];
        args.extend_from_slice(extra);
        c.call(&args).items()[2].items()[1].text()
    };
    assert_eq!(field(&mut c, "hl", &["HIGHLIGHT"]), "alpha  gamma <b>beta</b> delta");
    let no_offsets =
        Resp::Error("Cannot use highlight/summarize because NOOFSETS was specified at index level".into());
    for idx in ["nohl", "nooff"] {
        for extra in [&["HIGHLIGHT"][..], &["SUMMARIZE", "FRAGS", "2", "LEN", "1"]] {
            let mut args = vec!["FT.SEARCH", idx, "beta"];
            args.extend_from_slice(extra);
            assert_eq!(c.call(&args), no_offsets, "{idx} {extra:?}");
        }
    }
    assert_eq!(ids(&mut c, "hl", "\"beta alpha\"", &[]), none());
    assert_eq!(ids(&mut c, "nooff", "\"beta alpha\"", &[]), v(&["hl:1"]));

    // SKIPINITIALSCAN: existing keys stay out, later writes come in.
    c.call(&["HSET", "k:1", "t", "old"]);
    assert_eq!(
        c.call(&["FT.CREATE", "skip", "SKIPINITIALSCAN", "PREFIX", "1", "k:", "SCHEMA", "t", "TEXT"]),
        ok()
    );
    c.call(&["HSET", "k:2", "t", "old"]);
    assert_eq!(ids(&mut c, "skip", "old", &[]), v(&["k:2"]));
    c.call(&["HSET", "k:1", "t", "old again"]);
    assert_eq!(ids(&mut c, "skip", "old", &[]), v(&["k:1", "k:2"]));

    // TAG SORTABLE sorts by the normalized tag; NUMERIC NOINDEX SORTABLE sorts but is not
    // searchable.
    assert_eq!(
        c.call(&[
            "FT.CREATE", "so", "PREFIX", "1", "s:", "SCHEMA", "tag", "TAG", "SORTABLE", "n", "NUMERIC",
            "NOINDEX", "SORTABLE"
        ]),
        ok()
    );
    c.call(&["HSET", "s:1", "tag", "Banana", "n", "3"]);
    c.call(&["HSET", "s:2", "tag", "apple", "n", "1"]);
    c.call(&["HSET", "s:3", "tag", "cherry", "n", "2"]);
    assert_eq!(ordered(&mut c, "so", "*", &["SORTBY", "tag", "ASC"]), v(&["s:2", "s:1", "s:3"]));
    assert_eq!(ordered(&mut c, "so", "*", &["SORTBY", "n", "DESC"]), v(&["s:1", "s:3", "s:2"]));
    assert_eq!(ids(&mut c, "so", "@n:[0 10]", &[]), none());

    // TEMPORARY: each use resets the idle clock; dropping the index takes its documents.
    assert_eq!(
        c.call(&["FT.CREATE", "tmp", "TEMPORARY", "3", "PREFIX", "1", "t:", "SCHEMA", "f", "TEXT"]),
        ok()
    );
    c.call(&["HSET", "t:1", "f", "lime"]);
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(5) {
        assert_eq!(ids(&mut c, "tmp", "lime", &[]), v(&["t:1"]), "used every 200 ms: still alive");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(c.call(&["FT.DROPINDEX", "tmp"]), ok());
    assert_eq!(c.call(&["EXISTS", "t:1"]), Resp::Int(0), "a TEMPORARY index's documents go with it");
}

#[test]
fn config_list_aliases_tagvals_and_alter() {
    let srv = Server::start();
    let mut c = srv.conn();
    // FT.CONFIG: names as simple strings, values as bulk strings.
    let all = c.call(&["FT.CONFIG", "GET", "*"]);
    assert!(all.items().len() > 10, "{all:?}");
    assert!(all.items().iter().any(|p| *p == arr(vec![s("TIMEOUT"), b("500")])), "{all:?}");
    assert!(all.items().iter().any(|p| *p == arr(vec![s("DEFAULT_DIALECT"), b("1")])), "{all:?}");
    assert_eq!(c.call(&["FT.CONFIG", "GET", "NOSUCH"]), arr(vec![]));
    assert_eq!(c.call(&["FT.CONFIG", "SET", "TIMEOUT", "700"]), ok());
    assert_eq!(c.call(&["FT.CONFIG", "GET", "TIMEOUT"]), arr(vec![arr(vec![s("TIMEOUT"), b("700")])]));
    assert_eq!(c.call(&["FT.CONFIG", "SET", "TIMEOUT", "800", "extra"]), s("EXCESSARGS"));
    assert_eq!(c.call(&["FT.CONFIG", "SET", "NOSUCH", "1"]).err(), "Invalid option");
    assert_eq!(c.call(&["FT.CONFIG", "FROB", "TIMEOUT"]), s("No such configuration action"));
    let help = c.call(&["FT.CONFIG", "HELP", "TIMEOUT"]);
    assert_eq!(help.items()[0].items()[0], s("TIMEOUT"));
    // DEFAULT_DIALECT changes how queries parse.
    assert_eq!(c.call(&["FT.CREATE", "d", "PREFIX", "1", "d:", "SCHEMA", "f", "TEXT", "g", "TEXT"]), ok());
    c.call(&["HSET", "d:1", "f", "x", "g", "y"]);
    c.call(&["HSET", "d:2", "f", "x y"]);
    assert_eq!(ids(&mut c, "d", "@f:x y", &[]), v(&["d:2"]), "dialect 1: @f:(x y)");
    // A stopword ends dialect 1's run of terms, its field with it (RediSearch 2.10.5: `@f:a b`
    // is `b` in any field, d:1 and d:2).
    c.call(&["HSET", "d:3", "f", "a", "g", "b"]);
    c.call(&["HSET", "d:4", "f", "a b"]);
    assert_eq!(ids(&mut c, "d", "@f:a b", &[]), v(&["d:3", "d:4"]), "dialect 1: (@f:a) b, a stopword");
    assert_eq!(c.call(&["FT.CONFIG", "SET", "DEFAULT_DIALECT", "2"]), ok());
    assert_eq!(ids(&mut c, "d", "@f:x y", &[]), v(&["d:1", "d:2"]), "dialect 2: (@f:x) y");
    assert_eq!(ids(&mut c, "d", "@f:x y", &["DIALECT", "1"]), v(&["d:2"]));

    // FT._LIST: simple strings.
    assert_eq!(c.call(&["FT._LIST"]), arr(vec![s("d")]));

    // Aliases work everywhere an index name does; FT.INFO names the index itself.
    assert_eq!(c.call(&["FT.ALIASADD", "al", "d"]), ok());
    assert_eq!(c.call(&["FT.INFO", "al"]).items()[1], s("d"));
    let agg = c.call(&["FT.AGGREGATE", "al", "*", "GROUPBY", "0", "REDUCE", "COUNT", "0", "AS", "n"]);
    assert_eq!(agg.items()[1], arr(vec![b("n"), b("4")]));
    assert_eq!(
        c.call(&["FT.ALIASADD", "al2", "nosuch"]).err(),
        "Unknown index name (or name is an alias itself)"
    );
    assert_eq!(c.call(&["FT.ALIASDEL", "nosuch"]).err(), "Alias does not exist");
    assert_eq!(c.call(&["FT.DROPINDEX", "al"]), ok(), "DROPINDEX through an alias");
    assert_eq!(c.call(&["FT._LIST"]), arr(vec![]));

    // FT.TAGVALS: distinct normalized values; RediSearch's errors.
    assert_eq!(c.call(&["FT.CREATE", "t", "PREFIX", "1", "t:", "SCHEMA", "tag", "TAG", "txt", "TEXT"]), ok());
    c.call(&["HSET", "t:1", "tag", "Red, blue", "txt", "x"]);
    c.call(&["HSET", "t:2", "tag", "red,GREEN"]);
    let mut vals: Vec<String> =
        c.call(&["FT.TAGVALS", "t", "tag"]).items().iter().map(|x| x.text()).collect();
    vals.sort();
    assert_eq!(vals, v(&["blue", "green", "red"]));
    c.call(&["DEL", "t:2"]);
    let mut vals: Vec<String> =
        c.call(&["FT.TAGVALS", "t", "tag"]).items().iter().map(|x| x.text()).collect();
    vals.sort();
    assert_eq!(vals, v(&["blue", "red"]), "values without documents are gone");
    assert_eq!(c.call(&["FT.TAGVALS", "t", "txt"]).err(), "Not a tag field");
    assert_eq!(c.call(&["FT.TAGVALS", "t", "nope"]).err(), "No such field");
    assert_eq!(c.call(&["FT.TAGVALS", "nope", "tag"]).err(), "Unknown Index name");
    // Exact arities, as RediSearch checks them.
    for bad in [
        &["FT.TAGVALS", "t", "tag", "extra"][..],
        &["FT.ALIASDEL", "a", "b"][..],
        &["FT.ALIASADD", "a"][..],
        &["FT.DROPINDEX", "t", "DD", "extra"][..],
        &["FT._LIST", "x"][..],
    ] {
        assert!(c.call(bad).err().contains("wrong number of arguments"), "{bad:?}");
    }

    // FT.ALTER: SKIPINITIALSCAN leaves existing documents unindexed for the new field.
    c.call(&["HSET", "t:4", "tag", "x", "n", "7"]);
    assert_eq!(c.call(&["FT.ALTER", "t", "SKIPINITIALSCAN", "SCHEMA", "ADD", "n", "NUMERIC"]), ok());
    assert_eq!(ids(&mut c, "t", "@n:[7 7]", &[]), none());
    c.call(&["HSET", "t:1", "n", "5"]);
    c.call(&["HSET", "t:3", "n", "5", "tag", "x"]);
    assert_eq!(ids(&mut c, "t", "@n:[5 5]", &[]), v(&["t:1", "t:3"]), "rewritten documents are reindexed");
    assert_eq!(
        c.call(&["FT.ALTER", "t", "SCHEMA", "DROP", "n"]).err(),
        "Unknown action passed to ALTER SCHEMA"
    );
    assert_eq!(c.call(&["FT.ALTER", "t", "ADD", "n", "NUMERIC"]).err(), "ALTER must be followed by SCHEMA");
    assert_eq!(
        c.call(&["FT.ALTER", "t", "SCHEMA", "ADD", "n", "TEXT"]).err(),
        "Duplicate field in schema - n"
    );
}

#[test]
fn query_options_and_resp3_replies() {
    let srv = Server::start();
    let mut c = srv.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "q", "PREFIX", "1", "q:", "SCHEMA", "t", "TEXT", "code", "TAG", "city", "TAG",
            "SEPARATOR", ";"
        ]),
        ok()
    );
    c.call(&["HSET", "q:1", "t", "the quick fox", "code", "foo-bar", "city", "new york;paris"]);
    c.call(&["HSET", "q:2", "t", "a slow fox", "code", "foo", "city", "rome"]);
    // NOSTOPWORDS keeps "the" in the query; stopwords are not indexed, so nothing matches.
    assert_eq!(ids(&mut c, "q", "the fox", &[]), v(&["q:1", "q:2"]));
    assert_eq!(ids(&mut c, "q", "the fox", &["NOSTOPWORDS"]), none());
    // So in a phrase, where dialect 1 otherwise refuses a stopword as first or second word.
    assert_eq!(ids(&mut c, "q", "\"quick the fox\"", &["NOSTOPWORDS"]), none());
    assert_eq!(c.call(&["FT.SEARCH", "q", "\"quick the fox\""]).err(), "Syntax error at offset 7 near the");
    // Tag escapes: punctuation, and spaces in dialect 1 (dialect 2 takes them as they are).
    assert_eq!(ids(&mut c, "q", "@code:{foo\\-bar}", &[]), v(&["q:1"]));
    assert_eq!(ids(&mut c, "q", "@city:{new\\ york}", &[]), v(&["q:1"]));
    assert_eq!(ids(&mut c, "q", "@city:{new york | rome}", &["DIALECT", "2"]), v(&["q:1", "q:2"]));
    // Dialect 1 vs 2: `-a b` and `a b | c` (results as RediSearch 2.10 gives them: in
    // dialect 1 runs of words bind before `|`, so both dialects read the second one alike).
    assert_eq!(ids(&mut c, "q", "-quick slow", &["DIALECT", "1"]), v(&["q:1", "q:2"]), "-(quick slow)");
    assert_eq!(ids(&mut c, "q", "-quick slow", &["DIALECT", "2"]), v(&["q:2"]), "(-quick) slow");
    assert_eq!(
        ids(&mut c, "q", "slow fox | quick brown", &["DIALECT", "1"]),
        v(&["q:2"]),
        "(slow fox) | (quick brown)"
    );
    assert_eq!(
        ids(&mut c, "q", "slow fox | quick brown", &["DIALECT", "2"]),
        v(&["q:2"]),
        "(slow fox) | (quick brown)"
    );
    assert!(c
        .call(&["FT.SEARCH", "q", "x", "DIALECT", "5"])
        .err()
        .contains("DIALECT requires a non negative integer"));

    // RESP3: FT.SEARCH with scores and no content; FT.CONFIG GET; FT._LIST.
    c.resp3();
    let r = c.call(&["FT.SEARCH", "q", "fox", "WITHSCORES", "NOCONTENT", "SORTBY", "t", "ASC"]);
    let Resp::Map(top) = &r else { panic!("{r:?}") };
    let get = |k: &str| top.iter().find(|(key, _)| key.text() == k).map(|(_, v)| v.clone()).unwrap();
    assert_eq!(get("total_results"), Resp::Int(2));
    let first = get("results").items()[0].clone();
    let Resp::Map(fields) = first else { panic!() };
    let keys: Vec<String> = fields.iter().map(|(k, _)| k.text()).collect();
    assert_eq!(keys, v(&["id", "score", "values"]));
    assert!(matches!(fields[1].1, Resp::Double(_)), "{fields:?}");
    assert_eq!(c.call(&["FT.CONFIG", "GET", "MINPREFIX"]), Resp::Map(vec![(s("MINPREFIX"), b("2"))]));
    assert_eq!(c.call(&["FT._LIST"]), Resp::Set(vec![s("q")]), "a set, as RediSearch 2.10 sends it");
}

#[test]
fn indexes_are_rebuilt_from_a_pure_aof() {
    let mut srv = Server::with(ServerOptions {
        args: vec!["--appendonly".into(), "yes".into(), "--aof-use-rdb-preamble".into(), "no".into()],
        ..ServerOptions::default()
    });
    let mut c = srv.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "a", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.t", "AS", "t", "TEXT", "$.n",
            "AS", "n", "NUMERIC"
        ]),
        ok()
    );
    for i in 0..30 {
        c.call(&[
            "JSON.SET",
            &format!("j:{i}"),
            "$",
            &format!(r#"{{"t":"plum {}","n":{i}}}"#, if i % 3 == 0 { "red" } else { "blue" }),
        ]);
    }
    c.call(&["JSON.NUMINCRBY", "j:4", "$.n", "100"]);
    c.call(&["DEL", "j:5"]);
    assert_eq!(c.call(&["FT.ALIASADD", "al", "a"]), ok());
    let queries = ["red", "@n:[100 200]", "plum -blue", "*"];
    let before: Vec<Vec<String>> = queries.iter().map(|q| ids(&mut c, "a", q, &[])).collect();
    assert_eq!(before[1], v(&["j:4"]));
    srv.restart();
    let mut c = srv.conn();
    assert!(wait_until(20, || !c.call(&["FT.SEARCH", "a", "*", "LIMIT", "0", "0"]).is_error()));
    for (q, want) in queries.iter().zip(&before) {
        assert_eq!(&ids(&mut c, "a", q, &[]), want, "after AOF load: {q}");
    }
    assert_eq!(ids(&mut c, "al", "red", &[]), before[0], "the alias came back too");
}

#[test]
fn argument_count_errors_as_redisearch_words_them() {
    // Replies of RediSearch 2.10.5 on Redis 7.4.1 (the registered name in upper case).
    let s = Server::start();
    let mut c = s.conn();
    let e = |m: &str| Resp::Error(m.into());
    let cases: &[(&[&str], Resp)] = &[
        (&["FT.SEARCH"], e("ERR wrong number of arguments for 'FT.SEARCH' command")),
        (&["FT.SEARCH", "idx"], e("No query string provided")),
        (&["FT.AGGREGATE"], e("ERR wrong number of arguments for 'FT.AGGREGATE' command")),
        (&["FT.AGGREGATE", "idx"], e("No query string provided")),
        (&["FT.INFO"], e("ERR wrong number of arguments for 'FT.INFO' command")),
        (&["FT.DROPINDEX"], e("ERR wrong number of arguments for 'FT.DROPINDEX' command")),
        (&["FT.ALIASDEL"], e("ERR wrong number of arguments for 'FT.ALIASDEL' command")),
        (&["FT.CONFIG"], e("ERR wrong number of arguments for 'FT.CONFIG' command")),
        (&["FT.CONFIG", "SET", "x"], e("Invalid option")),
        (&["FT.CONFIG", "SET", "TIMEOUT"], e("Expected an argument, but none provided")),
        (&["FT.SEARCH", "nosuch", "x", "BADARG"], e("Unknown argument `BADARG` at position 1 for <main>")),
    ];
    for (args, want) in cases {
        assert_eq!(&c.call(args), want, "{args:?}");
    }
}
