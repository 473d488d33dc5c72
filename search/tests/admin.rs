//! FT.INFO, FT._LIST, FT.DROPINDEX, FT.ALTER, aliases, FT.TAGVALS, FT.CONFIG, FT.EXPLAIN,
//! FILTER, clear (FLUSHDB) and definition persistence.

mod common;

use common::{b, ids, total, Db};
use search::{Catalog, Config, Reply};

fn info_field(r: &Reply, name: &str) -> Reply {
    let Reply::Map(pairs) = r else { panic!("{r:?}") };
    pairs
        .iter()
        .find(|(k, _)| *k == Reply::Simple(name.into()))
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn info_list_drop_alias() {
    let mut db = Db::new();
    db.hset("a:1", &[("t", "hello"), ("g", "x,y")]);
    db.cmd(&["FT.CREATE", "i1", "PREFIX", "1", "a:", "SCHEMA", "t", "TEXT", "g", "TAG"]);
    db.cmd(&["FT.CREATE", "i0", "SCHEMA", "t", "TEXT"]);
    assert_eq!(
        db.cmd(&["FT._LIST"]),
        Reply::Set(vec![Reply::Simple("i0".into()), Reply::Simple("i1".into())])
    );
    let info = db.cmd(&["FT.INFO", "i1"]);
    let simple = |s: &str| Reply::Simple(s.into());
    assert_eq!(info_field(&info, "index_name"), simple("i1"));
    assert_eq!(info_field(&info, "num_docs"), Reply::Int(1));
    assert_eq!(info_field(&info, "indexing"), Reply::Int(0));
    assert_eq!(
        info_field(&info, "index_definition"),
        Reply::map(vec![
            ("key_type", simple("HASH")),
            ("prefixes", Reply::Array(vec![simple("a:")])),
            ("default_score", Reply::Double(1.0)),
        ])
    );
    assert_eq!(db.cmd(&["FT.TAGVALS", "i1", "g"]), Reply::Set(vec![b("x"), b("y")]));
    assert_eq!(db.cmd(&["FT.ALIASADD", "al", "i1"]), Reply::ok());
    assert_eq!(db.cmd(&["FT.ALIASADD", "al", "i1"]), Reply::Error("Alias already exists".into()));
    assert_eq!(
        db.cmd(&["FT.ALIASADD", "al2", "al"]),
        Reply::Error("Unknown index name (or name is an alias itself)".into())
    );
    assert_eq!(total(&db.cmd(&["FT.SEARCH", "al", "hello"])), 1);
    assert_eq!(db.cmd(&["FT.ALIASUPDATE", "al", "i0"]), Reply::ok());
    assert_eq!(db.cmd(&["FT.ALIASDEL", "al"]), Reply::ok());
    assert_eq!(db.cmd(&["FT.ALIASDEL", "al"]), Reply::Error("Alias does not exist".into()));
    let out = db.cat.execute_full(
        "FT.DROPINDEX",
        &[b"i1", b"DD"],
        &common::View(&db.docs),
        &mut db.config,
        search::Protocol::Resp2,
    );
    assert_eq!(out.reply, Reply::ok());
    assert_eq!(out.delete_keys, vec![b"a:1".to_vec()]);
    assert_eq!(db.cmd(&["FT.INFO", "i1"]), Reply::Error("Unknown index name".into()));
}

#[test]
fn alter_adds_fields_and_rescans() {
    let mut db = Db::new();
    db.hset("k", &[("t", "hello"), ("n", "5")]);
    db.cmd(&["FT.CREATE", "i", "SCHEMA", "t", "TEXT"]);
    assert_eq!(db.cmd(&["FT.ALTER", "i", "SCHEMA", "ADD", "n", "NUMERIC"]), Reply::ok());
    assert_eq!(total(&db.cmd(&["FT.SEARCH", "i", "@n:[5 5]"])), 1);
    assert_eq!(
        db.cmd(&["FT.ALTER", "i", "ADD", "x", "TEXT"]),
        Reply::Error("ALTER must be followed by SCHEMA".into())
    );
}

#[test]
fn filter_expression_selects_documents() {
    let mut db = Db::new();
    db.cmd(&[
        "FT.CREATE", "i", "FILTER", "@n > 3 && startswith(@__key, \"k\")", "SCHEMA", "t", "TEXT", "n",
        "NUMERIC",
    ]);
    db.hset("k1", &[("t", "a"), ("n", "5")]);
    db.hset("k2", &[("t", "a"), ("n", "1")]);
    db.hset("x3", &[("t", "a"), ("n", "9")]);
    assert_eq!(ids(&db.cmd(&["FT.SEARCH", "i", "*", "NOCONTENT"])), ["k1"]);
    db.hset("k1", &[("n", "0")]);
    assert_eq!(total(&db.cmd(&["FT.SEARCH", "i", "*", "NOCONTENT"])), 0);
    assert!(matches!(db.cmd(&["FT.CREATE", "j", "FILTER", "@n >", "SCHEMA", "t", "TEXT"]), Reply::Error(_)));
}

#[test]
fn config_and_explain() {
    let mut db = Db::new();
    db.cmd(&["FT.CREATE", "i", "SCHEMA", "t", "TEXT"]);
    assert_eq!(
        db.cmd(&["FT.CONFIG", "GET", "MINPREFIX"]),
        Reply::Array(vec![Reply::Array(vec![Reply::Simple("MINPREFIX".into()), b("2")])])
    );
    assert_eq!(db.cmd(&["FT.CONFIG", "SET", "MINPREFIX", "1"]), Reply::ok());
    db.hset("k", &[("t", "boat")]);
    assert_eq!(total(&db.cmd(&["FT.SEARCH", "i", "b*"])), 1);
    assert_eq!(db.cmd(&["FT.CONFIG", "SET", "BOGUS", "1"]), Reply::Error("Invalid option".into()));
    // RediSearch 2.10's text for these (stopword `a` dropped, every word with its expansions).
    assert_eq!(db.cmd(&["FT.EXPLAIN", "i", "a | b"]), b("UNION {\n  b\n  +b(expanded)\n}\n"));
    assert_eq!(
        db.cmd(&["FT.EXPLAIN", "i", "x | y"]),
        b("UNION {\n  UNION {\n    x\n    +x(expanded)\n  }\n  UNION {\n    y\n    +y(expanded)\n  }\n}\n")
    );
}

#[test]
fn clear_keeps_definitions_and_definitions_round_trip() {
    let mut db = Db::new();
    db.cmd(&["FT.CREATE", "i", "ON", "HASH", "PREFIX", "1", "p:", "SCHEMA", "t", "TEXT"]);
    db.cmd(&["FT.ALTER", "i", "SCHEMA", "ADD", "n", "NUMERIC"]);
    db.cmd(&["FT.ALIASADD", "al", "i"]);
    db.hset("p:1", &[("t", "hi"), ("n", "2")]);
    db.cat.clear();
    assert_eq!(total(&db.cmd(&["FT.SEARCH", "i", "*"])), 0);
    let bytes = db.cat.to_definitions();
    let mut cat = Catalog::from_definitions(&bytes, &Config::default()).unwrap();
    assert_eq!(cat.scan_prefixes(), vec![b"p:".to_vec()]);
    cat.scan_key(b"p:1", &common::View(&db.docs));
    cat.scan_done();
    db.cat = cat;
    assert_eq!(total(&db.cmd(&["FT.SEARCH", "al", "@n:[2 2] hi"])), 1);
    assert!(Catalog::from_definitions(b"garbage", &Config::default()).is_err());
    assert!(Catalog::from_definitions(&bytes[..bytes.len() - 1], &Config::default()).is_err());
}

/// FT.INFO as RediSearch 2.10's `info_command.c` writes it: options named by what is not
/// stored (NOOFFSETS implies NOHL), attributes with their flags in its order, integer
/// counters, custom stopwords, per-field `Index Errors`.
#[test]
fn info_matches_redisearch_layout() {
    let mut db = Db::new();
    let simple = |s: &str| Reply::Simple(s.into());
    db.cmd(&[
        "FT.CREATE", "o", "NOOFFSETS", "NOFREQS", "NOFIELDS", "STOPWORDS", "2", "foo", "bar", "SCORE_FIELD",
        "__score", "SCHEMA", "t", "TEXT", "NOSTEM", "INDEXEMPTY", "SORTABLE", "g", "TAG", "CASESENSITIVE",
        "SORTABLE", "n", "NUMERIC", "SORTABLE",
    ]);
    let info = db.cmd(&["FT.INFO", "o"]);
    assert_eq!(
        info_field(&info, "index_options"),
        Reply::Array(vec![simple("NOFREQS"), simple("NOFIELDS"), simple("NOOFFSETS"), simple("NOHL")])
    );
    // SCORE_FIELD shows because it was given (even with the legacy default name).
    assert_eq!(
        info_field(&info, "index_definition"),
        Reply::map(vec![
            ("key_type", simple("HASH")),
            ("prefixes", Reply::Array(vec![simple("")])),
            ("default_score", Reply::Double(1.0)),
            ("score_field", simple("__score")),
        ])
    );
    let Reply::Array(attrs) = info_field(&info, "attributes") else { panic!() };
    assert_eq!(
        attrs[0],
        Reply::Array(vec![
            simple("identifier"),
            simple("t"),
            simple("attribute"),
            simple("t"),
            simple("type"),
            simple("TEXT"),
            simple("WEIGHT"),
            Reply::Double(1.0),
            simple("SORTABLE"),
            simple("NOSTEM"),
            simple("INDEXEMPTY"),
        ])
    );
    assert_eq!(
        attrs[1],
        Reply::Array(vec![
            simple("identifier"),
            simple("g"),
            simple("attribute"),
            simple("g"),
            simple("type"),
            simple("TAG"),
            simple("SEPARATOR"),
            simple(","),
            simple("CASESENSITIVE"),
            simple("SORTABLE"),
            simple("UNF"),
        ])
    );
    // NUMERIC sortables are implicitly UNF.
    assert_eq!(
        attrs[2],
        Reply::Array(vec![
            simple("identifier"),
            simple("n"),
            simple("attribute"),
            simple("n"),
            simple("type"),
            simple("NUMERIC"),
            simple("SORTABLE"),
            simple("UNF"),
        ])
    );
    assert_eq!(info_field(&info, "stopwords_list"), Reply::Array(vec![b("bar"), b("foo")]));
    assert_eq!(info_field(&info, "max_doc_id"), Reply::Int(0));
    assert!(matches!(info_field(&info, "records_per_doc_avg"), Reply::Double(d) if d.is_nan()));
    // A type failure is counted on the index and on the field.
    db.hset("d1", &[("t", "x"), ("n", "notanumber")]);
    let info = db.cmd(&["FT.INFO", "o"]);
    assert_eq!(info_field(&info, "hash_indexing_failures"), Reply::Int(1));
    let Reply::Array(fields) = info_field(&info, "field statistics") else { panic!() };
    let Reply::Map(n_stats) = &fields[2] else { panic!() };
    let Reply::Map(errs) = &n_stats[2].1 else { panic!() };
    assert_eq!(errs[0], (simple("indexing failures"), Reply::Int(1)));
    assert_eq!(errs[2], (simple("last indexing error key"), b("d1")));
    let Reply::Map(t_stats) = &fields[0] else { panic!() };
    let Reply::Map(t_errs) = &t_stats[2].1 else { panic!() };
    assert_eq!(t_errs[0], (simple("indexing failures"), Reply::Int(0)));
    assert_eq!(t_errs[1], (simple("last indexing error"), simple("N/A")));
    // Unknown index: RediSearch 2.10's wording.
    assert_eq!(db.cmd(&["FT.INFO", "nope"]), Reply::Error("Unknown index name".into()));
    assert_eq!(db.cmd(&["FT.TAGVALS", "o", "t"]), Reply::Error("Not a tag field".into()));
    assert_eq!(db.cmd(&["FT.TAGVALS", "o", "zz"]), Reply::Error("No such field".into()));
}
