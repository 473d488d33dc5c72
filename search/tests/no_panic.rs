//! Robustness: random query strings and random FT.* argument lists never panic (a panic
//! in a module kills Redis); they either answer or return an error reply.

mod common;

use common::Db;
use proptest::prelude::*;
use proptest::test_runner::{Config as PtConfig, RngSeed};
use search::Reply;

fn corpus() -> Db {
    let mut db = Db::new();
    db.cmd(&["FT.CREATE", "idx", "SCHEMA", "t", "TEXT", "g", "TAG", "n", "NUMERIC", "SORTABLE", "p", "GEO"]);
    db.hset("a", &[("t", "hello world foo"), ("g", "x,y"), ("n", "3"), ("p", "1,2")]);
    db.hset("b", &[("t", "bar baz"), ("g", "y"), ("n", "-1")]);
    db
}

const PIECES: &[&str] = &[
    "@t:", "@g:", "@n:", "@p:", "{", "}", "[", "]", "(", ")", "|", "-", "~", "*", "%", "%%", "$x", "\"",
    "\\", " ", "hello", "wor", "x", "y", "1", "-inf", "(2", "inf", "=>", "{$weight:2}", "$slop:", ";", ":",
    "km", "ismissing(", "é", "\u{100}", "0.5", "@", "w'", "'",
];

const OPTS: &[&str] = &[
    "NOCONTENT", "WITHSCORES", "VERBATIM", "LIMIT", "0", "1", "-1", "99999999999999999999", "SORTBY", "n",
    "t", "DESC", "RETURN", "2", "AS", "HIGHLIGHT", "FIELDS", "TAGS", "SUMMARIZE", "FRAGS", "LEN",
    "SEPARATOR", "INKEYS", "INFIELDS", "FILTER", "GEOFILTER", "PARAMS", "x", "DIALECT", "3", "SCORER",
    "BM25", "SLOP", "INORDER", "EXPLAINSCORE", "WITHSORTKEYS", "TIMEOUT", "FORMAT", "STRING",
];

proptest! {
    #![proptest_config(PtConfig {
        cases: 400,
        rng_seed: RngSeed::Fixed(0xF00D),
        failure_persistence: None,
        ..PtConfig::default()
    })]

    #[test]
    fn random_queries_and_options_do_not_panic(
        q in proptest::collection::vec(proptest::sample::select(PIECES), 0..12),
        opts in proptest::collection::vec(proptest::sample::select(OPTS), 0..10),
        dialect in 1u32..5,
    ) {
        let mut db = corpus();
        let query: String = q.concat();
        let d = dialect.to_string();
        let mut args = vec!["FT.SEARCH", "idx", query.as_str()];
        args.extend(opts.iter().copied());
        let r = db.cmd(&args);
        prop_assert!(matches!(r, Reply::Array(_) | Reply::Error(_)));
        let r = db.cmd(&["FT.SEARCH", "idx", &query, "DIALECT", &d, "PARAMS", "2", "x", "hello"]);
        prop_assert!(matches!(r, Reply::Array(_) | Reply::Error(_)));
        let r = db.cmd(&["FT.EXPLAIN", "idx", &query, "DIALECT", &d]);
        prop_assert!(matches!(r, Reply::Bulk(_) | Reply::Error(_)));
    }

    #[test]
    fn random_create_and_alter_arguments_do_not_panic(
        words in proptest::collection::vec(proptest::sample::select(&[
            "ON", "HASH", "JSON", "PREFIX", "1", "2", "SCHEMA", "t", "TEXT", "TAG", "NUMERIC", "GEO", "AS", "SORTABLE",
            "UNF", "NOINDEX", "WEIGHT", "SEPARATOR", ",", ",,", "STOPWORDS", "0", "FILTER", "@t==1", "LANGUAGE",
            "french", "SCORE", "0.5", "2", "TEMPORARY", "NOOFFSETS", "INDEXMISSING", "INDEXEMPTY", "PHONETIC", "dm:en",
            "$.a", "$..x", "",
        ][..]), 0..14),
    ) {
        let mut db = corpus();
        let mut args = vec!["FT.CREATE", "new"];
        args.extend(words.iter().copied());
        let _ = db.cmd(&args);
        let mut alter = vec!["FT.ALTER", "idx", "SCHEMA", "ADD"];
        alter.extend(words.iter().copied());
        let _ = db.cmd(&alter);
        db.hset("c", &[("t", "x"), ("$.a", "1")]);
        let r = db.cmd(&["FT.SEARCH", "idx", "*"]);
        prop_assert!(matches!(r, Reply::Array(_)));
        let _ = db.cmd(&["FT.INFO", "new"]);
    }
}
