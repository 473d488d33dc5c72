//! FT.SPELLCHECK and the dictionaries (FT.DICTADD / FT.DICTDEL / FT.DICTDUMP) end to end:
//! every option, RESP2 and RESP3, errors, persistence (DEBUG RELOAD, restart), FLUSHALL and
//! replication. Every expected reply below was taken from RediSearch 2.10 (redisearch.so
//! on Redis 7.2) with the same commands; scores are compared as numbers because Redis 7.0
//! and 7.2 print doubles with different digits.

mod common;

use common::*;

fn b(x: &str) -> Resp {
    Resp::bulk(x)
}

/// The corpus every test starts from (3 documents).
fn server() -> (Server, Conn) {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT", "u", "TEXT"]),
        Resp::Simple("OK".into())
    );
    c.call(&["HSET", "d:1", "t", "hello world running", "u", "help"]);
    c.call(&["HSET", "d:2", "t", "hell yeah"]);
    c.call(&["HSET", "d:3", "t", "held hello"]);
    (s, c)
}

type Suggestions = Vec<(String, Vec<(f64, String)>)>;

/// A RESP2 FT.SPELLCHECK reply as (word, [(score, suggestion)]).
fn resp2(r: &Resp) -> Suggestions {
    r.items()
        .iter()
        .map(|t| {
            let it = t.items();
            assert_eq!(it[0], Resp::Simple("TERM".into()), "{r:?}");
            let s = it[2]
                .items()
                .iter()
                .map(|p| (p.items()[0].text().parse().unwrap(), p.items()[1].text()))
                .collect();
            (it[1].text(), s)
        })
        .collect()
}

/// A RESP3 FT.SPELLCHECK reply (`{results: {word: [{suggestion: score}]}}`) in the same shape.
fn resp3(r: &Resp) -> Suggestions {
    let Resp::Map(root) = r else { panic!("{r:?}") };
    assert_eq!(root.len(), 1);
    assert_eq!(root[0].0, Resp::Simple("results".into()));
    let Resp::Map(words) = &root[0].1 else { panic!("{r:?}") };
    words
        .iter()
        .map(|(w, s)| {
            let s = s
                .items()
                .iter()
                .map(|m| {
                    let Resp::Map(kv) = m else { panic!("{m:?}") };
                    (kv[0].1.text().parse().unwrap(), kv[0].0.text())
                })
                .collect();
            (w.text(), s)
        })
        .collect()
}

fn word(w: &str, s: &[(f64, &str)]) -> (String, Vec<(f64, String)>) {
    (w.to_string(), s.iter().map(|(x, t)| (*x, t.to_string())).collect())
}

const THIRD: f64 = 1.0 / 3.0;
const TWO_THIRDS: f64 = 2.0 / 3.0;

fn helo() -> (String, Vec<(f64, String)>) {
    word("helo", &[(TWO_THIRDS, "hello"), (THIRD, "hell"), (THIRD, "held"), (THIRD, "help")])
}

#[test]
fn suggestions_scores_order_and_which_words_are_checked() {
    let (_s, mut c) = server();
    let r = c.call(&["FT.SPELLCHECK", "idx", "helo wrld runnin"]);
    assert_eq!(
        resp2(&r),
        vec![helo(), word("wrld", &[(THIRD, "world")]), word("runnin", &[(THIRD, "running")])]
    );
    assert_eq!(resp2(&c.call(&["FT.SPELLCHECK", "idx", "helo", "DISTANCE", "2"])), vec![helo()]);
    // Stems are index terms too; equal scores keep the trie's order.
    assert_eq!(
        resp2(&c.call(&["FT.SPELLCHECK", "idx", "hel run"])),
        vec![
            word("hel", &[(THIRD, "held"), (THIRD, "hell"), (THIRD, "help")]),
            word("run", &[(THIRD, "+run")])
        ]
    );
    // A field modifier keeps suggestions found in that field only.
    assert_eq!(resp2(&c.call(&["FT.SPELLCHECK", "idx", "@u:helo"])), vec![word("helo", &[(THIRD, "help")])]);
    // Words of the index are not reported; a repeated word is reported each time.
    assert_eq!(resp2(&c.call(&["FT.SPELLCHECK", "idx", "hello helo helo"])), vec![helo(), helo()]);
    // Stopwords, negated, optional and phrase words are checked; prefix and fuzzy terms not.
    let r = c.call(&["FT.SPELLCHECK", "idx", "the helo -wrld ~runnin hel* %helo% \"yeahh wrld\""]);
    let wrld = word("wrld", &[(THIRD, "world")]);
    assert_eq!(
        resp2(&r),
        vec![
            word("the", &[]),
            helo(),
            wrld.clone(),
            word("runnin", &[(THIRD, "running")]),
            word("yeahh", &[(THIRD, "yeah")]),
            wrld,
        ]
    );
    assert_eq!(resp2(&c.call(&["FT.SPELLCHECK", "idx", "a"])), vec![word("a", &[])]);
    // DISTANCE 3 (RediSearch's trie walk also yields `yeah` for `the`, one edit farther).
    let r = c.call(&[
        "FT.SPELLCHECK",
        "idx",
        "the helo -wrld ~runnin hel* %helo% \"yeahh wrld\"",
        "DISTANCE",
        "3",
    ]);
    let wrld3 =
        word("wrld", &[(THIRD, "+run"), (THIRD, "held"), (THIRD, "hell"), (THIRD, "help"), (THIRD, "world")]);
    let helo3 = word(
        "helo",
        &[(TWO_THIRDS, "hello"), (THIRD, "hell"), (THIRD, "held"), (THIRD, "help"), (THIRD, "yeah")],
    );
    assert_eq!(
        resp2(&r),
        vec![
            word("the", &[(THIRD, "held"), (THIRD, "hell"), (THIRD, "help"), (THIRD, "yeah")]),
            helo3,
            wrld3.clone(),
            word("runnin", &[(THIRD, "running")]),
            word("yeahh", &[(THIRD, "yeah")]),
            wrld3,
        ]
    );
    // DISTANCE 3 reaches stems (`+run`); equal scores in the trie's order.
    let r = c.call(&["FT.SPELLCHECK", "idx", "wrld", "DISTANCE", "3"]);
    assert_eq!(
        resp2(&r),
        vec![word(
            "wrld",
            &[(THIRD, "+run"), (THIRD, "held"), (THIRD, "hell"), (THIRD, "help"), (THIRD, "world")]
        )]
    );
    // Unknown arguments are ignored; transpositions count 2.
    assert_eq!(resp2(&c.call(&["FT.SPELLCHECK", "idx", "helo", "FOO"])), vec![helo()]);
    assert_eq!(resp2(&c.call(&["FT.SPELLCHECK", "idx", "ehllo"])), vec![word("ehllo", &[])]);
    // RESP3.
    c.resp3();
    let r = c.call(&["FT.SPELLCHECK", "idx", "helo wrld"]);
    assert_eq!(resp3(&r), vec![helo(), word("wrld", &[(THIRD, "world")])]);
    let r = c.call(&["FT.SPELLCHECK", "idx", "hello"]);
    assert_eq!(r, Resp::Map(vec![(Resp::Simple("results".into()), Resp::Map(vec![]))]));
}

#[test]
fn full_score_info_reports_raw_frequencies() {
    let (_s, mut c) = server();
    let r = c.call(&["FT.SPELLCHECK", "idx", "helo hello", "FULLSCOREINFO"]);
    let it = r.items();
    assert_eq!(it[0], Resp::Int(3));
    assert_eq!(
        resp2(&arr(vec![it[1].clone()])),
        vec![word("helo", &[(2.0, "hello"), (1.0, "hell"), (1.0, "held"), (1.0, "help")])]
    );
    assert_eq!(
        it[2],
        arr(vec![Resp::Simple("TERM".into()), b("hello"), Resp::Simple("term exists in index".into())])
    );
    c.resp3();
    let r = c.call(&["FT.SPELLCHECK", "idx", "helo hello", "FULLSCOREINFO"]);
    let Resp::Map(root) = &r else { panic!("{r:?}") };
    assert_eq!(root[0], (Resp::Simple("total_docs".into()), Resp::Int(3)));
    let Resp::Map(words) = &root[1].1 else { panic!("{r:?}") };
    assert_eq!(words[1], (b("hello"), Resp::Error("term exists in index".into())));
}

#[test]
fn dictionaries_include_and_exclude() {
    let (_s, mut c) = server();
    assert_eq!(c.call(&["FT.DICTADD", "d1", "foo", "bar", "foo", "Foo", "helo0", "hel"]), Resp::Int(5));
    assert_eq!(c.call(&["FT.DICTDUMP", "d1"]), arr(vec![b("Foo"), b("bar"), b("foo"), b("hel"), b("helo0")]));
    assert_eq!(c.call(&["FT.DICTDEL", "d1", "foo", "zzz"]), Resp::Int(1));
    // Dictionary words score 0 and come after the index's.
    let with_dict = word(
        "helo",
        &[
            (TWO_THIRDS, "hello"),
            (THIRD, "hell"),
            (THIRD, "held"),
            (THIRD, "help"),
            (0.0, "hel"),
            (0.0, "helo0"),
        ],
    );
    let r = c.call(&["FT.SPELLCHECK", "idx", "helo bar", "TERMS", "INCLUDE", "d1"]);
    assert_eq!(resp2(&r), vec![with_dict.clone(), word("bar", &[(0.0, "bar")])]);
    let r = c.call(&["FT.SPELLCHECK", "idx", "helo bar", "TERMS", "EXCLUDE", "d1", "TERMS", "INCLUDE", "d1"]);
    assert_eq!(resp2(&r), vec![with_dict.clone()]);
    // An empty index divides by 1.
    c.call(&["FT.CREATE", "empty", "SCHEMA", "x", "TEXT"]);
    let r = c.call(&["FT.SPELLCHECK", "empty", "helo", "TERMS", "INCLUDE", "d1"]);
    assert_eq!(resp2(&r), vec![word("helo", &[(0.0, "hel"), (0.0, "helo0")])]);
    // Dictionary words are matched and excluded up to case; a word suggested already, up to
    // case, is not repeated.
    c.call(&["FT.DICTADD", "up", "Hellp", "HELLX", "Hell"]);
    c.call(&["FT.DICTADD", "ex", "Helo"]);
    let r = c.call(&["FT.SPELLCHECK", "idx", "hellq", "TERMS", "INCLUDE", "up"]);
    assert_eq!(
        resp2(&r),
        vec![word("hellq", &[(TWO_THIRDS, "hello"), (THIRD, "hell"), (0.0, "HELLX"), (0.0, "Hellp")])]
    );
    assert_eq!(resp2(&c.call(&["FT.SPELLCHECK", "idx", "helo", "TERMS", "EXCLUDE", "ex"])), vec![]);
    // Dictionary-only words come in the order the dictionaries were named.
    c.call(&["FT.DICTADD", "db", "bx"]);
    c.call(&["FT.DICTADD", "da", "ax"]);
    let r = c.call(&["FT.SPELLCHECK", "empty", "cx", "TERMS", "INCLUDE", "db", "TERMS", "INCLUDE", "da"]);
    assert_eq!(resp2(&r), vec![word("cx", &[(0.0, "bx"), (0.0, "ax")])]);
    let r = c.call(&["FT.SPELLCHECK", "empty", "cx", "TERMS", "INCLUDE", "da", "TERMS", "INCLUDE", "db"]);
    assert_eq!(resp2(&r), vec![word("cx", &[(0.0, "ax"), (0.0, "bx")])]);
    // FT.DICTDEL of a missing dictionary creates it, empty.
    assert_eq!(c.call(&["FT.DICTDUMP", "nod"]), Resp::Error("could not open dict key".into()));
    assert_eq!(c.call(&["FT.DICTDEL", "nod", "x"]), Resp::Int(0));
    assert_eq!(c.call(&["FT.DICTDUMP", "nod"]), arr(vec![]));
    c.resp3();
    assert_eq!(c.call(&["FT.DICTDUMP", "d1"]), Resp::Set(vec![b("Foo"), b("bar"), b("hel"), b("helo0")]));
    let r = c.call(&["FT.SPELLCHECK", "idx", "helo bar", "TERMS", "INCLUDE", "d1"]);
    assert_eq!(resp3(&r), vec![with_dict, word("bar", &[(0.0, "bar")])]);
}

#[test]
fn errors() {
    let (_s, mut c) = server();
    c.call(&["FT.DICTADD", "d1", "x"]);
    let cases: &[(&[&str], &str)] = &[
        (&["FT.SPELLCHECK", "nope", "helo"], "Unknown Index name"),
        (&["FT.SPELLCHECK", "idx"], "ERR wrong number of arguments for 'FT.SPELLCHECK' command"),
        (&["FT.SPELLCHECK", "idx", "helo", "DISTANCE"], "DISTANCE arg is given but no DISTANCE comes after"),
        (
            &["FT.SPELLCHECK", "idx", "helo", "DISTANCE", "0"],
            "bad distance given, distance must be a natural number between 1 to 4",
        ),
        (
            &["FT.SPELLCHECK", "idx", "helo", "DISTANCE", "5"],
            "bad distance given, distance must be a natural number between 1 to 4",
        ),
        (
            &["FT.SPELLCHECK", "idx", "helo", "DISTANCE", "x"],
            "bad distance given, distance must be a natural number between 1 to 4",
        ),
        (
            &["FT.SPELLCHECK", "idx", "helo", "TERMS", "INCLUDE"],
            "TERM arg is given but no TERM params comes after",
        ),
        (
            &["FT.SPELLCHECK", "idx", "helo", "TERMS", "FOO", "d"],
            "bad format, exlude/include operation was not given",
        ),
        (&["FT.SPELLCHECK", "idx", "helo", "TERMS", "INCLUDE", "nodict"], "Dict does not exist: nodict"),
        (&["FT.SPELLCHECK", "idx", "helo", "TERMS", "EXCLUDE", "nodict"], "Dict does not exist: nodict"),
        (
            &["FT.SPELLCHECK", "idx", "helo", "DIALECT", "0"],
            "DIALECT requires a non negative integer >=1 and <= 4",
        ),
        (
            &["FT.SPELLCHECK", "idx", "helo", "DIALECT", "5"],
            "DIALECT requires a non negative integer >=1 and <= 4",
        ),
        (&["FT.SPELLCHECK", "idx", "helo", "DIALECT"], "Need an argument for DIALECT"),
        (&["FT.DICTADD", "d"], "ERR wrong number of arguments for 'FT.DICTADD' command"),
        (&["FT.DICTDEL", "d"], "ERR wrong number of arguments for 'FT.DICTDEL' command"),
        (&["FT.DICTDUMP"], "ERR wrong number of arguments for 'FT.DICTDUMP' command"),
        (&["FT.DICTDUMP", "nod"], "could not open dict key"),
    ];
    for (args, want) in cases {
        assert_eq!(c.call(args), Resp::Error(want.to_string()), "{args:?}");
    }
}

#[test]
fn dictionaries_persist_replicate_and_go_with_flushall() {
    let (mut s, mut c) = server();
    let replica = Server::start();
    let mut r = replica.conn();
    r.call(&["REPLICAOF", "127.0.0.1", &s.port.to_string()]);
    assert!(wait_until(30, || r.call(&["INFO", "replication"]).text().contains("master_link_status:up")));
    assert_eq!(c.call(&["FT.DICTADD", "d1", "alpha", "beta", "gamma"]), Resp::Int(3));
    assert_eq!(c.call(&["FT.DICTDEL", "d1", "beta"]), Resp::Int(1));
    let want = arr(vec![b("alpha"), b("gamma")]);
    assert!(wait_until(30, || r.call(&["FT.DICTDUMP", "d1"]) == want), "replica has the dictionary");
    assert_eq!(c.cmd("DEBUG RELOAD"), Resp::Simple("OK".into()));
    assert_eq!(c.call(&["FT.DICTDUMP", "d1"]), want, "after DEBUG RELOAD");
    assert_eq!(c.cmd("SAVE"), Resp::Simple("OK".into()));
    s.restart();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.DICTDUMP", "d1"]), want, "after restart");
    let r = c.call(&["FT.SPELLCHECK", "idx", "alpa", "TERMS", "INCLUDE", "d1"]);
    assert_eq!(resp2(&r), vec![word("alpa", &[(0.0, "alpha")])]);
    // RediSearch empties its dictionaries on a flush.
    c.cmd("FLUSHALL");
    assert_eq!(c.call(&["FT.DICTDUMP", "d1"]), Resp::Error("could not open dict key".into()));
}

/// RediSearch scores a suggestion by its inverted index's entry count, which keeps the versions
/// of documents its GC has not collected (each rewrite re-indexes a document under a new id).
/// Expected reply taken from RediSearch 2.10.5 with the same commands.
#[test]
fn scores_count_the_versions_the_gc_has_not_collected() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "i", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT"]),
        Resp::Simple("OK".into())
    );
    for k in 0..6 {
        c.call(&["HSET", &format!("d:{k}"), "t", if k < 3 { "hello world" } else { "help wordy" }]);
    }
    for round in 0..3 {
        for k in 3..6 {
            c.call(&["HSET", &format!("d:{k}"), "t", &format!("help wordy {round}")]);
        }
    }
    c.call(&["DEL", "d:0"]);
    // help: 3 documents, 12 entries; hello: 2 documents, 3 entries; 5 documents.
    assert_eq!(
        resp2(&c.call(&["FT.SPELLCHECK", "i", "helo wordl"])),
        vec![
            word("helo", &[(2.4, "help"), (0.6, "hello")]),
            word("wordl", &[(2.4, "wordy"), (0.6, "world")])
        ]
    );
}
