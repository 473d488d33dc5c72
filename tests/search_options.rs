//! FT.SEARCH and the index-management commands end to end: every option of the search-core issue
//! against a real server, on HASH and JSON indexes, RESP2 and RESP3.

mod common;

use common::*;

fn b(s: &str) -> Resp {
    Resp::bulk(s)
}

/// Ids of a RESP2 FT.SEARCH reply, in reply order (with or without content/scores).
fn ids_in_order(reply: &Resp, per_doc: usize) -> Vec<String> {
    reply.items()[1..].chunks(per_doc).map(|c| c[0].text()).collect()
}

fn catalog() -> (Server, Conn) {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "books", "ON", "HASH", "PREFIX", "1", "book:", "SCHEMA", "title", "TEXT", "WEIGHT",
            "2", "SORTABLE", "body", "TEXT", "year", "NUMERIC", "SORTABLE", "genre", "TAG", "SEPARATOR", "|",
            "loc", "GEO"
        ]),
        ok()
    );
    let books: &[(&str, &str, &str, &str, &str, &str)] = &[
        (
            "book:1", "The quick brown fox", "a fox jumps over the lazy dog", "1999", "fiction|animals",
            "2.35,48.85",
        ),
        ("book:2", "Slow brown turtles", "turtles are slow and calm", "2005", "animals", "13.40,52.52"),
        (
            "book:3", "Foxes of the north", "arctic foxes running in snow", "2012", "nature|animals",
            "-0.12,51.50",
        ),
        ("book:4", "Cooking with fire", "recipes for the quick cook", "2020", "food", "2.36,48.86"),
        ("book:5", "Running", "running fast and running far", "2012", "sport", "139.69,35.68"),
    ];
    for (k, t, body, y, g, loc) in books {
        assert_eq!(
            c.call(&["HSET", k, "title", t, "body", body, "year", y, "genre", g, "loc", loc]),
            Resp::Int(5)
        );
    }
    (s, c)
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn q(c: &mut Conn, args: &[&str]) -> Vec<String> {
    let mut full = vec!["FT.SEARCH", "books"];
    full.extend_from_slice(args);
    full.extend_from_slice(&["NOCONTENT", "LIMIT", "0", "100"]);
    let r = c.call(&full);
    assert!(!r.is_error(), "{args:?}: {r:?}");
    sorted(ids_in_order(&r, 1))
}

fn v(ids: &[&str]) -> Vec<String> {
    sorted(ids.iter().map(|s| s.to_string()).collect())
}

#[test]
fn query_language() {
    let (_s, mut c) = catalog();
    assert_eq!(q(&mut c, &["brown"]), v(&["book:1", "book:2"]));
    assert_eq!(q(&mut c, &["brown fox"]), v(&["book:1"]));
    assert_eq!(q(&mut c, &["turtles | cooking"]), v(&["book:2", "book:4"]));
    assert_eq!(q(&mut c, &["brown -fox"]), v(&["book:2"]));
    assert_eq!(q(&mut c, &["\"quick brown\""]), v(&["book:1"]));
    assert_eq!(q(&mut c, &["\"brown quick\""]), v(&[]));
    // "for" in book:4 is a stopword, so it is not in the index.
    assert_eq!(q(&mut c, &["fo*"]), v(&["book:1", "book:3"]));
    assert_eq!(q(&mut c, &["%turtle%"]), v(&["book:2"]));
    // Stemming (words of MINSTEMLEN=4 or more): "turtle" finds "turtles", not under VERBATIM.
    assert_eq!(q(&mut c, &["turtle"]), v(&["book:2"]));
    assert_eq!(q(&mut c, &["turtle", "VERBATIM"]), v(&[]));
    assert_eq!(q(&mut c, &["foxes", "VERBATIM"]), v(&["book:3"]));
    // MINSTEMLEN is for indexing only: the query word "fox" still expands to +fox, which
    // "Foxes" left in the index (RediSearch 2.10 answers book:1 and book:3).
    assert_eq!(q(&mut c, &["@title:fox"]), v(&["book:1", "book:3"]));
    assert_eq!(q(&mut c, &["@body:quick"]), v(&["book:4"]));
    assert_eq!(q(&mut c, &["@title|body:quick"]), v(&["book:1", "book:4"]));
    assert_eq!(q(&mut c, &["@genre:{animals}"]), v(&["book:1", "book:2", "book:3"]));
    assert_eq!(q(&mut c, &["@genre:{food | sport}"]), v(&["book:4", "book:5"]));
    assert_eq!(q(&mut c, &["@genre:{animals} @genre:{nature}"]), v(&["book:3"]));
    assert_eq!(q(&mut c, &["@year:[2005 2012]"]), v(&["book:2", "book:3", "book:5"]));
    assert_eq!(q(&mut c, &["@year:[(2005 +inf]"]), v(&["book:3", "book:4", "book:5"]));
    assert_eq!(q(&mut c, &["@year:[-inf (2005]"]), v(&["book:1"]));
    assert_eq!(q(&mut c, &["@loc:[2.35 48.85 5 km]"]), v(&["book:1", "book:4"]));
    assert_eq!(q(&mut c, &["*"]).len(), 5);
    assert_eq!(
        q(&mut c, &["@year:[$lo $hi]", "PARAMS", "4", "lo", "2012", "hi", "2020", "DIALECT", "2"]),
        v(&["book:3", "book:4", "book:5"])
    );
    assert_eq!(q(&mut c, &["brown", "INKEYS", "2", "book:2", "book:9"]), v(&["book:2"]));
    assert_eq!(q(&mut c, &["quick", "INFIELDS", "1", "body"]), v(&["book:4"]));
    assert_eq!(q(&mut c, &["brown", "FILTER", "year", "2000", "2010"]), v(&["book:2"]));
    assert_eq!(q(&mut c, &["*", "GEOFILTER", "loc", "13.4", "52.5", "10", "km"]), v(&["book:2"]));
    // Stopwords are dropped from queries unless NOSTOPWORDS.
    assert_eq!(q(&mut c, &["the fox"]), v(&["book:1", "book:3"]));
    assert_eq!(q(&mut c, &["the brown"]), v(&["book:1", "book:2"]));
    let err = c.call(&["FT.SEARCH", "books", "@title:(", "NOCONTENT"]);
    assert!(err.err().starts_with("Syntax error at offset"), "{err:?}");
    assert!(c.call(&["FT.SEARCH", "nosuch", "x"]).err().contains("no such index"));
}

#[test]
fn result_options() {
    let (_s, mut c) = catalog();
    // NOCONTENT: ids only; WITHSCORES: a score after each id.
    let r = c.call(&["FT.SEARCH", "books", "brown", "NOCONTENT", "WITHSCORES"]);
    assert_eq!(r.items()[0], Resp::Int(2));
    let scores: Vec<f64> = r.items()[1..].chunks(2).map(|p| p[1].text().parse().unwrap()).collect();
    assert!(scores.iter().all(|s| *s > 0.0) && scores[0] >= scores[1], "{r:?}");
    // RETURN with AS, and field values.
    let r = c.call(&["FT.SEARCH", "books", "turtles", "RETURN", "3", "title", "AS", "t"]);
    assert_eq!(r, arr(vec![Resp::Int(1), b("book:2"), arr(vec![b("t"), b("Slow brown turtles")])]));
    let r = c.call(&["FT.SEARCH", "books", "turtles", "RETURN", "0"]);
    assert_eq!(r, arr(vec![Resp::Int(1), b("book:2")]));
    // SORTBY ASC/DESC on a sortable field, LIMIT paging.
    let r = c.call(&["FT.SEARCH", "books", "*", "SORTBY", "year", "DESC", "NOCONTENT"]);
    assert_eq!(ids_in_order(&r, 1)[0], "book:4");
    let r = c.call(&["FT.SEARCH", "books", "*", "SORTBY", "year", "ASC", "NOCONTENT", "LIMIT", "0", "2"]);
    assert_eq!(r, arr(vec![Resp::Int(5), b("book:1"), b("book:2")]));
    let r = c.call(&["FT.SEARCH", "books", "*", "SORTBY", "title", "ASC", "NOCONTENT", "LIMIT", "1", "1"]);
    assert_eq!(r.items().len(), 2);
    let r = c.call(&["FT.SEARCH", "books", "*", "LIMIT", "0", "0"]);
    assert_eq!(r, arr(vec![Resp::Int(5)]));
    // HIGHLIGHT and SUMMARIZE.
    let r = c.call(&[
        "FT.SEARCH", "books", "fox", "RETURN", "1", "title", "HIGHLIGHT", "FIELDS", "1", "title", "TAGS",
        "[", "]", "INKEYS", "1", "book:1",
    ]);
    assert_eq!(r.items()[2], arr(vec![b("title"), b("The quick brown [fox]")]));
    let r = c.call(&[
        "FT.SEARCH", "books", "running", "RETURN", "1", "body", "SUMMARIZE", "FIELDS", "1", "body", "LEN",
        "3", "INKEYS", "1", "book:5",
    ]);
    assert!(r.items()[2].items()[1].text().contains("running"), "{r:?}");
    // Scorers: all accepted, all rank the double match first.
    for scorer in ["TFIDF", "TFIDF.DOCNORM", "BM25", "DISMAX", "DOCSCORE"] {
        let r = c.call(&["FT.SEARCH", "books", "running | fast", "SCORER", scorer, "NOCONTENT"]);
        assert!(!r.is_error(), "{scorer}: {r:?}");
    }
    let r = c.call(&["FT.SEARCH", "books", "running", "SCORER", "BM25", "NOCONTENT", "WITHSCORES"]);
    assert_eq!(r.items()[1], b("book:5"));
    assert!(c.call(&["FT.SEARCH", "books", "x", "LIMIT", "0", "2000000"]).is_error());
}

#[test]
fn resp3_search_reply_is_a_map() {
    let (_s, mut c) = catalog();
    c.resp3();
    let r = c.call(&["FT.SEARCH", "books", "turtles", "RETURN", "1", "title"]);
    let Resp::Map(pairs) = &r else { panic!("{r:?}") };
    let get = |k: &str| pairs.iter().find(|(key, _)| key.text() == k).map(|(_, v)| v.clone()).unwrap();
    assert_eq!(get("total_results"), Resp::Int(1));
    let results = get("results");
    let Resp::Map(doc) = &results.items()[0] else { panic!("{results:?}") };
    assert!(doc.iter().any(|(k, v)| k.text() == "id" && v.text() == "book:2"));
    assert!(doc.iter().any(|(k, v)| k.text() == "extra_attributes"
        && *v == Resp::Map(vec![(b("title"), b("Slow brown turtles"))])));
}

#[test]
fn index_management_commands() {
    let (_s, mut c) = catalog();
    assert_eq!(c.call(&["FT._LIST"]), arr(vec![Resp::Simple("books".into())]));
    assert_eq!(c.call(&["FT.CREATE", "books", "SCHEMA", "t", "TEXT"]).err(), "Index already exists");
    let info = c.call(&["FT.INFO", "books"]);
    let items = info.items();
    let is = |x: &Resp, name: &str| matches!(x, Resp::Simple(_) | Resp::Bulk(_)) && x.text() == name;
    let field = |name: &str| items.iter().position(|x| is(x, name)).map(|i| items[i + 1].clone()).unwrap();
    assert_eq!(field("index_name"), Resp::Simple("books".into()));
    assert_eq!(field("num_docs"), Resp::Int(5));
    assert!(c.call(&["FT.INFO", "nosuch"]).is_error());
    let mut tags: Vec<String> =
        c.call(&["FT.TAGVALS", "books", "genre"]).items().iter().map(|t| t.text()).collect();
    tags.sort();
    assert_eq!(tags, vec!["animals", "fiction", "food", "nature", "sport"]);
    // Aliases.
    assert_eq!(c.call(&["FT.ALIASADD", "shelf", "books"]), ok());
    assert_eq!(c.call(&["FT.ALIASADD", "shelf", "books"]).err(), "Alias already exists");
    assert_eq!(q(&mut c, &["turtles"]), v(&["book:2"]));
    let r = c.call(&["FT.SEARCH", "shelf", "turtles", "NOCONTENT"]);
    assert_eq!(r, arr(vec![Resp::Int(1), b("book:2")]));
    assert_eq!(c.call(&["FT.CREATE", "books2", "PREFIX", "1", "book:", "SCHEMA", "body", "TEXT"]), ok());
    assert_eq!(c.call(&["FT.ALIASUPDATE", "shelf", "books2"]), ok());
    assert_eq!(
        c.call(&["FT.SEARCH", "shelf", "@body:calm", "NOCONTENT"]),
        arr(vec![Resp::Int(1), b("book:2")])
    );
    assert_eq!(c.call(&["FT.ALIASDEL", "shelf"]), ok());
    assert!(c.call(&["FT.SEARCH", "shelf", "x"]).is_error());
    // ALTER SCHEMA ADD indexes existing documents.
    assert_eq!(c.call(&["FT.ALTER", "books2", "SCHEMA", "ADD", "genre", "TAG", "SEPARATOR", "|"]), ok());
    assert_eq!(
        c.call(&["FT.SEARCH", "books2", "@genre:{food}", "NOCONTENT"]),
        arr(vec![Resp::Int(1), b("book:4")])
    );
    // CONFIG.
    assert_eq!(c.call(&["FT.CONFIG", "SET", "MINPREFIX", "3"]), ok());
    assert_eq!(
        c.call(&["FT.CONFIG", "GET", "MINPREFIX"]),
        arr(vec![arr(vec![Resp::Simple("MINPREFIX".into()), b("3")])])
    );
    // DROPINDEX keeps documents; DD deletes them.
    assert_eq!(c.call(&["FT.DROPINDEX", "books2"]), ok());
    assert_eq!(c.call(&["EXISTS", "book:1"]), Resp::Int(1));
    assert_eq!(c.call(&["FT.DROPINDEX", "books", "DD"]), ok());
    assert_eq!(c.call(&["EXISTS", "book:1"]), Resp::Int(0));
    assert_eq!(c.call(&["FT._LIST"]), arr(vec![]));
}

#[test]
fn json_index_options() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "p", "ON", "JSON", "PREFIX", "1", "p:", "SCHEMA", "$.name", "AS", "name", "TEXT",
            "$.tags[*]", "AS", "tags", "TAG", "$.price", "AS", "price", "NUMERIC", "SORTABLE", "$.sizes[*]",
            "AS", "sizes", "NUMERIC", "$.ok", "AS", "ok", "TAG"
        ]),
        ok()
    );
    c.call(&[
        "JSON.SET",
        "p:1",
        "$",
        r#"{"name":"red shirt","tags":["cotton","summer"],"price":20,"sizes":[38,40],"ok":true}"#,
    ]);
    c.call(&[
        "JSON.SET",
        "p:2",
        "$",
        r#"{"name":"blue shirt","tags":["wool"],"price":35.5,"sizes":[42],"ok":false}"#,
    ]);
    // A type mismatch (a string where NUMERIC is declared) fails that document only.
    c.call(&["JSON.SET", "p:3", "$", r#"{"name":"broken","price":"cheap"}"#]);
    let r = c.call(&[
        "FT.SEARCH", "p", "shirt", "SORTBY", "price", "DESC", "RETURN", "3", "$.price", "AS", "cost",
    ]);
    assert_eq!(
        r,
        arr(vec![
            Resp::Int(2),
            b("p:2"),
            arr(vec![b("cost"), b("35.5")]),
            b("p:1"),
            arr(vec![b("cost"), b("20")])
        ])
    );
    assert_eq!(c.call(&["FT.SEARCH", "p", "@sizes:[40 41]", "NOCONTENT"]), arr(vec![Resp::Int(1), b("p:1")]));
    assert_eq!(c.call(&["FT.SEARCH", "p", "@ok:{true}", "NOCONTENT"]), arr(vec![Resp::Int(1), b("p:1")]));
    assert_eq!(c.call(&["FT.SEARCH", "p", "@tags:{wool}", "NOCONTENT"]), arr(vec![Resp::Int(1), b("p:2")]));
    assert_eq!(c.call(&["FT.SEARCH", "p", "broken", "NOCONTENT"]), arr(vec![Resp::Int(0)]));
    let r = c.call(&["FT.SEARCH", "p", "@name:red", "RETURN", "1", "$.tags"]);
    // One match: its JSON, as RediSearch returns `$.user.hp` as `1000`.
    assert_eq!(r.items()[2], arr(vec![b("$.tags"), b(r#"["cotton","summer"]"#)]));
}

/// WITHCOUNT and WITHOUTCOUNT (RediSearch's switch of its optimizer) are accepted by FT.SEARCH
/// and FT.AGGREGATE; the total stays exact either way.
#[test]
fn withcount_and_withoutcount_are_accepted() {
    let (_s, mut c) = catalog();
    let all = c.call(&["FT.SEARCH", "books", "@year:[2000 2020]", "NOCONTENT"]);
    assert_eq!(all.items()[0], Resp::Int(4));
    for opt in ["WITHCOUNT", "WITHOUTCOUNT"] {
        assert_eq!(c.call(&["FT.SEARCH", "books", "@year:[2000 2020]", "NOCONTENT", opt]), all, "{opt}");
        let agg = c.call(&["FT.AGGREGATE", "books", "@year:[2000 2020]", opt, "LIMIT", "0", "0"]);
        assert_eq!(agg.items()[0], Resp::Int(4), "{opt}");
    }
}

/// WITHRAWIDS gives each result's document id after its key and score (RESP3: a second `id`);
/// DIALECT without a value and FORMAT EXPAND on a HASH index are RediSearch 2.10.5's errors.
#[test]
fn withrawids_and_argument_errors() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA t TEXT"), ok());
    assert_eq!(c.cmd("HSET h t hello"), Resp::Int(1));
    assert_eq!(
        c.cmd("FT.SEARCH idx hello WITHRAWIDS WITHSCORES"),
        arr(vec![Resp::Int(1), b("h"), b("1"), Resp::Int(1), arr(vec![b("t"), b("hello")])])
    );
    for cmd in ["FT.SEARCH", "FT.AGGREGATE", "FT.EXPLAIN", "FT.SPELLCHECK"] {
        assert_eq!(
            c.call(&[cmd, "idx", "hello", "DIALECT"]),
            Resp::Error("Need an argument for DIALECT".into()),
            "{cmd}"
        );
    }
    c.resp3();
    let r = c.cmd("FT.SEARCH idx hello WITHRAWIDS");
    let Resp::Map(m) = &r else { panic!("{r:?}") };
    let results = &m.iter().find(|(k, _)| k.text() == "results").unwrap().1;
    let Resp::Map(row) = &results.items()[0] else { panic!("{results:?}") };
    let ids: Vec<String> =
        row.iter().filter(|(k, _)| k.text() == "id").map(|(_, v)| format!("{v:?}")).collect();
    assert_eq!(ids, vec![format!("{:?}", b("h")), format!("{:?}", Resp::Int(1))]);
    for cmd in ["FT.SEARCH", "FT.AGGREGATE"] {
        let r = c.call(&[cmd, "idx", "*", "FORMAT", "EXPAND"]);
        assert_eq!(r, Resp::Error("EXPAND format is only supported with JSON".into()), "{cmd}");
    }
}

/// HIGHLIGHT and SUMMARIZE FIELDS name attributes: a hash field known by an alias only, or no
/// field at all, is RediSearch 2.10.5's `No such property`. An aliased field is highlighted
/// (RediSearch accepts the alias but leaves the text unmarked: README's differences).
#[test]
fn highlight_fields_name_attributes() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA f1 AS f1_alias TEXT f2 AS f2_alias TEXT"), ok());
    assert_eq!(c.cmd("HSET doc f1 foo f2 baz"), Resp::Int(2));
    for (opt, name) in [("HIGHLIGHT", "f1"), ("SUMMARIZE", "f1"), ("HIGHLIGHT", "nosuch")] {
        let r = c.call(&["FT.SEARCH", "idx", "foo", opt, "FIELDS", "1", name]);
        assert_eq!(r, Resp::Error(format!("No such property `{name}`")), "{opt} {name}");
    }
    let r = c.call(&["FT.SEARCH", "idx", "foo", "HIGHLIGHT", "FIELDS", "1", "f1_alias"]);
    assert_eq!(r, arr(vec![Resp::Int(1), b("doc"), arr(vec![b("f1"), b("<b>foo</b>"), b("f2"), b("baz")])]));
}
