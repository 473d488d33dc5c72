//! PHONETIC text fields (`dm:en|fr|pt|es`, Double Metaphone): a word of such a field matches
//! the words that sound alike, unless `$phonetic: false`; `$phonetic` on fields none of
//! which is PHONETIC is an error. Every expectation was measured on RediSearch 2.10.5
//! (Redis 7.4.1); the cases are those of its test_phonetics.py.

mod common;

use common::*;

fn ids(r: Resp) -> Vec<String> {
    let items = r.items();
    let mut out = vec![items[0].int().to_string()];
    out.extend(items[1..].iter().map(Resp::text));
    out
}

#[test]
fn phonetic_fields_match_words_that_sound_alike() {
    let server = Server::start();
    let mut c = server.conn();
    let create = "FT.CREATE idx ON HASH SCHEMA text TEXT PHONETIC dm:en SORTABLE text1 TEXT SORTABLE";
    assert_eq!(c.cmd(create), Resp::Simple("OK".into()));
    c.call(&["HSET", "doc1", "text", "morfix", "text1", "phonetic"]);
    c.call(&["HSET", "doc2", "text", "this is 2015 test"]);
    c.call(&["HSET", "doc3", "text", "jon smith"]);
    let mut q = |query: &str, extra: &[&str]| {
        let mut args = vec!["FT.SEARCH", "idx", query, "NOCONTENT"];
        args.extend(extra);
        c.call(&args)
    };
    for (query, want) in [
        ("morphix", vec!["1", "doc1"]),
        ("@text:morphix", vec!["1", "doc1"]),
        ("@text:morphix=>{$phonetic:true}", vec!["1", "doc1"]),
        ("@text:morphix=>{$phonetic:false}", vec!["0"]),
        ("fonetic", vec!["0"]),
        ("@text1:morphix", vec!["0"]),
        ("@text:(john=>{$phonetic:true})", vec!["1", "doc3"]),
        ("04", vec!["0"]),
        ("\"morphix\"", vec!["0"]),
        ("morph*", vec!["0"]),
    ] {
        assert_eq!(ids(q(query, &[])), want, "{query}");
    }
    assert_eq!(ids(q("morphix", &["VERBATIM"])), ["0"]);
    for query in ["@text1:morphix=>{$phonetic:true}", "@text1:morphix=>{$phonetic:false}"] {
        assert_eq!(q(query, &[]), Resp::Error("field does not support phonetics".into()), "{query}");
    }
    assert_eq!(
        q("@text:morphix=>{$phonetic:yes}", &[]),
        Resp::Error("Invalid value (yes) for `phonetic`".into())
    );
    // Scores: the document's own word, and the word that sounds like it.
    let scored =
        |c: &mut Conn, w: &str| c.call(&["FT.SEARCH", "idx", w, "WITHSCORES", "NOCONTENT"]).items()[2].text();
    assert_eq!(scored(&mut c, "morfix"), "4");
    assert_eq!(scored(&mut c, "morphix"), "2");
    // FT.INFO counts the phonetic terms (RediSearch: 11 here).
    let info = c.cmd("FT.INFO idx");
    let terms = info.items().chunks(2).find(|p| p[0].text() == "num_terms").map(|p| p[1].int());
    assert_eq!(terms, Some(11));
    assert_eq!(
        c.cmd("FT.DEBUG DUMP_PHONETIC_HASH morfix"),
        arr(vec![Resp::bulk("<MRFK"), Resp::bulk("<MRFK")])
    );
    assert_eq!(c.cmd("FT.DEBUG DUMP_PHONETIC_HASH john"), arr(vec![Resp::bulk("<JN"), Resp::bulk("<AN")]));
}

#[test]
fn phonetic_matchers_and_alter() {
    let server = Server::start();
    let mut c = server.conn();
    for m in ["something", "kk:tt", "dm:tt", "ll:en", "DM:EN"] {
        let r = c.call(&["FT.CREATE", "bad", "ON", "HASH", "SCHEMA", "t", "TEXT", "PHONETIC", m]);
        assert!(r.err().starts_with("Matcher Format"), "{m}: {r:?}");
    }
    assert_eq!(c.cmd("FT.CREATE idx ON HASH SCHEMA text TEXT text1 TEXT"), Resp::Simple("OK".into()));
    assert_eq!(c.cmd("FT.ALTER idx SCHEMA ADD text2 TEXT PHONETIC dm:fr"), Resp::Simple("OK".into()));
    c.call(&["HSET", "doc1", "text", "morfix", "text1", "check", "text2", "phonetic"]);
    for (query, n) in [
        ("fonetic", 1),
        ("@text2:fonetic", 1),
        ("@text1:fonetic", 0),
        ("@text2:fonetic=>{$phonetic:false}", 0),
        ("@text2:fonetic=>{$phonetic:true}", 1),
    ] {
        assert_eq!(c.call(&["FT.SEARCH", "idx", query, "NOCONTENT"]).items()[0], Resp::Int(n), "{query}");
    }
}

/// FT.EXPLAIN lists a word's phonetic code among its expansions, after its synonym groups and
/// before its stems, on PHONETIC fields (all fields when none is named) unless `$phonetic:
/// false` (RediSearch 2.10.5's replies).
#[test]
fn explain_lists_the_phonetic_expansion() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE px SCHEMA text TEXT PHONETIC dm:en body TEXT"), Resp::Simple("OK".into()));
    c.call(&["FT.SYNUPDATE", "px", "g1", "running", "jogging"]);
    let explain = |c: &mut Conn, q: &str| c.call(&["FT.EXPLAIN", "px", q, "DIALECT", "2"]).text();
    assert_eq!(
        explain(&mut c, "running"),
        "UNION {\n  running\n  ~g1(expanded)\n  <RNNK(expanded)\n  +run(expanded)\n  run(expanded)\n}\n"
    );
    assert_eq!(
        explain(&mut c, "@text:running"),
        "@text:UNION {\n  @text:running\n  @text:~g1(expanded)\n  @text:<RNNK(expanded)\n  @text:+run(expanded)\n  @text:run(expanded)\n}\n"
    );
    let unphonetic = "UNION {\n  running\n  ~g1(expanded)\n  +run(expanded)\n  run(expanded)\n}\n";
    assert_eq!(explain(&mut c, "running=>{$phonetic:false}"), unphonetic);
    assert_eq!(
        explain(&mut c, "@body:running"),
        "@body:UNION {\n  @body:running\n  @body:~g1(expanded)\n  @body:+run(expanded)\n  @body:run(expanded)\n}\n"
    );
}
