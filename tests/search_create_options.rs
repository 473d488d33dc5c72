//! FT.CREATE's index and field options end to end, each checked by what it changes in results.

mod common;

use common::*;

fn ids(c: &mut Conn, idx: &str, args: &[&str]) -> Vec<String> {
    let mut full = vec!["FT.SEARCH", idx];
    full.extend_from_slice(args);
    full.extend_from_slice(&["NOCONTENT", "LIMIT", "0", "100"]);
    let r = c.call(&full);
    assert!(!r.is_error(), "{args:?}: {r:?}");
    r.items()[1..].iter().map(|i| i.text()).collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn v(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

#[test]
fn stopwords_stemming_language_and_weights() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "none", "PREFIX", "1", "a:", "STOPWORDS", "0", "SCHEMA", "t", "TEXT"]),
        ok()
    );
    assert_eq!(
        c.call(&[
            "FT.CREATE", "custom", "PREFIX", "1", "a:", "STOPWORDS", "1", "apple", "SCHEMA", "t", "TEXT"
        ]),
        ok()
    );
    assert_eq!(c.call(&["FT.CREATE", "nostem", "PREFIX", "1", "a:", "SCHEMA", "t", "TEXT", "NOSTEM"]), ok());
    assert_eq!(
        c.call(&["FT.CREATE", "es", "PREFIX", "1", "a:", "LANGUAGE", "spanish", "SCHEMA", "t", "TEXT"]),
        ok()
    );
    c.call(&["HSET", "a:1", "t", "the apple of my eye"]);
    c.call(&["HSET", "a:2", "t", "turtles and gatos"]);
    // Default stopwords drop "the"; STOPWORDS 0 keeps it; a custom list drops only its words.
    assert_eq!(ids(&mut c, "none", &["the"]), v(&["a:1"]));
    assert_eq!(ids(&mut c, "custom", &["the"]), v(&["a:1"]));
    assert_eq!(ids(&mut c, "custom", &["apple"]), v(&[]));
    assert_eq!(ids(&mut c, "none", &["apple"]), v(&["a:1"]));
    // NOSTEM: no stem expansion for that field.
    assert_eq!(ids(&mut c, "none", &["turtle"]), v(&["a:2"]));
    assert_eq!(ids(&mut c, "nostem", &["turtle"]), v(&[]));
    // LANGUAGE spanish stems Spanish words ("gato" meets "gatos").
    assert_eq!(ids(&mut c, "es", &["gato"]), v(&["a:2"]));

    assert_eq!(
        c.call(&[
            "FT.CREATE", "w", "PREFIX", "1", "w:", "SCHEMA", "title", "TEXT", "WEIGHT", "10", "body", "TEXT"
        ]),
        ok()
    );
    c.call(&["HSET", "w:1", "title", "other", "body", "zebra"]);
    c.call(&["HSET", "w:2", "title", "zebra", "body", "other"]);
    assert_eq!(ids(&mut c, "w", &["zebra"]), v(&["w:2", "w:1"]), "the heavier field ranks first");
}

#[test]
fn sortable_noindex_unf_casesensitive_and_missing() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "p", "PREFIX", "1", "p:", "SCHEMA", "name", "TEXT", "SORTABLE", "UNF", "hidden",
            "TEXT", "NOINDEX", "SORTABLE", "code", "TAG", "CASESENSITIVE", "opt", "TAG", "INDEXMISSING"
        ]),
        ok()
    );
    c.call(&["HSET", "p:1", "name", "banana", "hidden", "zz", "code", "AbC", "opt", "x"]);
    c.call(&["HSET", "p:2", "name", "Apple", "hidden", "aa", "code", "abc"]);
    // NOINDEX: not searchable, still sortable.
    assert_eq!(ids(&mut c, "p", &["@hidden:zz"]), v(&[]));
    assert_eq!(ids(&mut c, "p", &["*", "SORTBY", "hidden", "ASC"]), v(&["p:2", "p:1"]));
    // UNF keeps case for sorting: "Apple" < "banana" by bytes either way; check DESC too.
    assert_eq!(ids(&mut c, "p", &["*", "SORTBY", "name", "DESC"]), v(&["p:1", "p:2"]));
    // CASESENSITIVE tags.
    assert_eq!(ids(&mut c, "p", &["@code:{AbC}"]), v(&["p:1"]));
    assert_eq!(ids(&mut c, "p", &["@code:{abc}"]), v(&["p:2"]));
    // INDEXMISSING: ismissing() finds documents without the field (dialect 2).
    assert_eq!(ids(&mut c, "p", &["ismissing(@opt)", "DIALECT", "2"]), v(&["p:2"]));
}

#[test]
fn filter_score_payload_and_flags() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "f", "PREFIX", "1", "f:", "FILTER", "@n > 5", "SCHEMA", "t", "TEXT", "n", "NUMERIC"
        ]),
        ok()
    );
    c.call(&["HSET", "f:1", "t", "kiwi", "n", "3"]);
    c.call(&["HSET", "f:2", "t", "kiwi", "n", "9"]);
    assert_eq!(ids(&mut c, "f", &["kiwi"]), v(&["f:2"]));
    c.call(&["HSET", "f:1", "n", "10"]);
    assert_eq!(sorted(ids(&mut c, "f", &["kiwi"])), v(&["f:1", "f:2"]), "FILTER re-evaluated on update");

    assert_eq!(
        c.call(&[
            "FT.CREATE", "s", "PREFIX", "1", "s:", "SCORE", "0.5", "SCORE_FIELD", "myscore", "PAYLOAD_FIELD",
            "pl", "SCHEMA", "t", "TEXT"
        ]),
        ok()
    );
    c.call(&["HSET", "s:1", "t", "fig", "myscore", "0.1", "pl", "one"]);
    c.call(&["HSET", "s:2", "t", "fig", "myscore", "0.9", "pl", "two"]);
    c.call(&["HSET", "s:3", "t", "fig"]);
    let r = c.call(&["FT.SEARCH", "s", "fig", "SCORER", "DOCSCORE", "WITHSCORES", "NOCONTENT"]);
    let got: Vec<(String, f64)> =
        r.items()[1..].chunks(2).map(|p| (p[0].text(), p[1].text().parse().unwrap())).collect();
    assert_eq!(got.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), vec!["s:2", "s:3", "s:1"]);
    // Document scores are single precision, as in RediSearch.
    for ((_, got), want) in got.iter().zip([0.9f32, 0.5, 0.1]) {
        assert_eq!(*got, f64::from(want));
    }
    let r = c.call(&["FT.SEARCH", "s", "fig", "WITHPAYLOADS", "NOCONTENT", "INKEYS", "1", "s:2"]);
    assert_eq!(r, arr(vec![Resp::Int(1), Resp::bulk("s:2"), Resp::bulk("two")]));

    // Index flags are accepted and shown by FT.INFO.
    assert_eq!(
        c.call(&[
            "FT.CREATE", "flags", "PREFIX", "1", "g:", "NOOFFSETS", "NOHL", "NOFIELDS", "NOFREQS", "SCHEMA",
            "t", "TEXT"
        ]),
        ok()
    );
    c.call(&["HSET", "g:1", "t", "plum tree"]);
    assert_eq!(ids(&mut c, "flags", &["plum"]), v(&["g:1"]));
    let info = c.call(&["FT.INFO", "flags"]);
    let items = info.items();
    let at = items.iter().position(|x| matches!(x, Resp::Simple(s) if s == "index_options")).unwrap();
    let options: Vec<String> = items[at + 1].items().iter().map(|o| o.text()).collect();
    for flag in ["NOOFFSETS", "NOFIELDS", "NOFREQS"] {
        assert!(options.iter().any(|o| o == flag), "{flag} missing from FT.INFO index_options: {options:?}");
    }
    assert_eq!(c.call(&["FT.CREATE", "wide", "MAXTEXTFIELDS", "SCHEMA", "t", "TEXT"]), ok());
    assert_eq!(
        c.call(&["FT.CREATE", "bad", "MAXTEXTFIELDS", "NOFIELDS", "SCHEMA", "t", "TEXT"]).err(),
        "MAXTEXTFIELDS cannot be used with NOFIELDS"
    );
    assert!(c.call(&["FT.CREATE", "bad2", "SCHEMA"]).is_error());
    assert!(c.call(&["FT.CREATE", "bad3", "SCHEMA", "t", "NOTATYPE"]).is_error());
}

#[test]
fn json_score_field_is_a_jsonpath() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "j", "ON", "JSON", "PREFIX", "1", "j:", "SCORE", "0.5", "SCORE_FIELD", "$.rank",
            "SCHEMA", "$.t", "AS", "t", "TEXT"
        ]),
        ok()
    );
    c.call(&["JSON.SET", "j:1", "$", r#"{"t":"pear","rank":0.25}"#]);
    c.call(&["JSON.SET", "j:2", "$", r#"{"t":"pear","rank":0.75}"#]);
    c.call(&["JSON.SET", "j:3", "$", r#"{"t":"pear"}"#]);
    let r = c.call(&["FT.SEARCH", "j", "pear", "SCORER", "DOCSCORE", "WITHSCORES", "NOCONTENT"]);
    let got: Vec<(String, f64)> =
        r.items()[1..].chunks(2).map(|p| (p[0].text(), p[1].text().parse().unwrap())).collect();
    assert_eq!(got, vec![("j:2".into(), 0.75), ("j:3".into(), 0.5), ("j:1".into(), 0.25)]);
    // Without SCORE_FIELD, a JSON index uses the index SCORE for every document.
    assert_eq!(
        c.call(&["FT.CREATE", "k", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.t", "AS", "t", "TEXT"]),
        ok()
    );
    let r = c.call(&["FT.SEARCH", "k", "pear", "SCORER", "DOCSCORE", "WITHSCORES", "NOCONTENT"]);
    assert!(r.items()[1..].chunks(2).all(|p| p[1].text() == "1"), "{r:?}");
}

#[test]
fn language_field_stems_each_document_in_its_language() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "l", "PREFIX", "1", "l:", "LANGUAGE_FIELD", "lang", "SCHEMA", "t", "TEXT"]),
        ok()
    );
    c.call(&["HSET", "l:1", "t", "corriendo", "lang", "spanish"]);
    c.call(&["HSET", "l:2", "t", "corriendo"]);
    c.call(&["HSET", "l:3", "t", "running quickly", "lang", "english"]);
    // The Spanish document was stemmed in Spanish ("corriendo" -> "corr"), the other in English.
    assert_eq!(ids(&mut c, "l", &["corrido", "LANGUAGE", "spanish"]), v(&["l:1"]));
    assert_eq!(ids(&mut c, "l", &["corriendo", "VERBATIM"]).len(), 2);
    assert_eq!(ids(&mut c, "l", &["runs"]), v(&["l:3"]));
    // JSON: LANGUAGE_FIELD is a JSONPath.
    assert_eq!(
        c.call(&[
            "FT.CREATE", "lj", "ON", "JSON", "PREFIX", "1", "lj:", "LANGUAGE_FIELD", "$.lang", "SCHEMA",
            "$.t", "AS", "t", "TEXT"
        ]),
        ok()
    );
    c.call(&["JSON.SET", "lj:1", "$", r#"{"t":"corriendo","lang":"spanish"}"#]);
    assert_eq!(ids(&mut c, "lj", &["corrido", "LANGUAGE", "spanish"]), v(&["lj:1"]));
}

/// FT.CREATE's argument errors as RediSearch 2.10.5 replies them: SCORE without a number in
/// 0..1, a FILTER that does not parse (before any later argument is looked at), and the path
/// of a TEXT or VECTOR field ON JSON that is no JSONPath (other types take any path).
#[test]
fn create_argument_errors_as_redisearch() {
    let s = Server::start();
    let mut c = s.conn();
    let err = |m: &str| Resp::Error(m.to_string());
    let vector = "VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2";
    for (line, want) in [
        ("FT.CREATE i SCORE SCHEMA t TEXT", err("Invalid score")),
        ("FT.CREATE i SCORE x SCHEMA t TEXT", err("Invalid score")),
        ("FT.CREATE i SCORE 10 SCHEMA t TEXT", err("Invalid score")),
        ("FT.CREATE i FILTER aSCHEMA foo text", err("Unknown symbol 'aSCHEMA'")),
        (
            "FT.CREATE i ON JSON SCHEMA $.a[ AS v TEXT",
            err("Invalid JSONPath '$.a[' in attribute 'v' in index 'i'"),
        ),
        (
            &format!("FT.CREATE i ON JSON SCHEMA $.a[ AS v {vector}"),
            err("Invalid JSONPath '$.a[' in attribute 'v' in index 'i'"),
        ),
        ("FT.CREATE i1 ON JSON SCHEMA $.a[ AS v TAG", ok()),
        ("FT.CREATE i2 ON JSON SCHEMA $.a[ AS v NUMERIC", ok()),
        ("FT.CREATE i3 ON JSON SCHEMA $..a AS v TEXT", ok()),
        ("FT.CREATE i4 ON JSON SCHEMA title TEXT", ok()),
    ] {
        assert_eq!(c.cmd(line), want, "{line}");
    }
}
