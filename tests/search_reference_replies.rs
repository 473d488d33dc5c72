//! Replies that RediSearch 2.10 gives and its documentation does not say, found by the
//! differential tester (tests/compat/search_difftest.py) against redisearch.so 2.10.5 on
//! Redis 7.2. Every expected value here was read off that server for the same commands.

mod common;

use common::*;

fn keys_of_map(r: &Resp) -> Vec<String> {
    match r {
        Resp::Map(pairs) => pairs.iter().map(|(k, _)| k.text()).collect(),
        other => panic!("not a map: {other:?}"),
    }
}

/// (key, score text) of a RESP2 `WITHSCORES NOCONTENT` reply.
fn scored(c: &mut Conn, args: &[&str]) -> Vec<(String, String)> {
    let mut all = vec!["FT.SEARCH"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["WITHSCORES", "NOCONTENT"]);
    let r = c.call(&all);
    assert!(!r.is_error(), "{args:?}: {r:?}");
    r.items()[1..].chunks(2).map(|p| (p[0].text(), p[1].text())).collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn resp3_search_and_aggregate_maps_put_total_results_second() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "i", "SCHEMA", "t", "TEXT"]), ok());
    c.call(&["HSET", "d", "t", "hello"]);
    c.resp3();
    let want = ["attributes", "total_results", "format", "results", "warning"];
    assert_eq!(keys_of_map(&c.call(&["FT.SEARCH", "i", "hello"])), want);
    assert_eq!(keys_of_map(&c.call(&["FT.AGGREGATE", "i", "hello"])), want);
}

#[test]
fn resp3_tagvals_and_list_are_sets() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "t1", "PREFIX", "1", "x:", "SCHEMA", "tag", "TAG", "title", "TEXT"]),
        ok()
    );
    c.call(&["HSET", "x:1", "tag", "A,b", "title", "hello"]);
    c.resp3();
    // RediSearch 2.10: `~2 a b` and `~1 +t1`.
    assert_eq!(c.call(&["FT.TAGVALS", "t1", "tag"]), Resp::Set(vec![Resp::bulk("a"), Resp::bulk("b")]));
    assert_eq!(c.call(&["FT._LIST"]), Resp::Set(vec![Resp::Simple("t1".into())]));
}

#[test]
fn sortby_returns_the_sort_attribute_first_then_the_document() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "h", "PREFIX", "1", "h:", "SCHEMA", "title", "AS", "tt", "TEXT", "num", "AS", "nn",
            "NUMERIC"
        ]),
        ok()
    );
    assert_eq!(
        c.call(&[
            "FT.CREATE", "j", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.title", "AS", "title", "TEXT",
            "$.num", "AS", "num", "NUMERIC", "SORTABLE"
        ]),
        ok()
    );
    c.call(&["HSET", "h:9", "title", "Zebra Title", "num", "5.25"]);
    c.call(&["JSON.SET", "j:9", "$", r#"{"title":"Zebra Title","num":5.25,"tags":["X"]}"#]);
    let doc = r#"{"title":"Zebra Title","num":5.25,"tags":["X"]}"#;
    // The alias comes first; the hash's own fields follow, all of them.
    assert_eq!(
        c.call(&["FT.SEARCH", "h", "zebra", "SORTBY", "nn"]),
        arr(vec![
            Resp::Int(1),
            Resp::bulk("h:9"),
            arr(vec![
                Resp::bulk("nn"),
                Resp::bulk("5.25"),
                Resp::bulk("title"),
                Resp::bulk("Zebra Title"),
                Resp::bulk("num"),
                Resp::bulk("5.25")
            ])
        ])
    );
    // JSON: the attribute (first match, as RETURN gives it before DIALECT 3), then `$`.
    assert_eq!(
        c.call(&["FT.SEARCH", "j", "zebra", "SORTBY", "title"]),
        arr(vec![
            Resp::Int(1),
            Resp::bulk("j:9"),
            arr(vec![Resp::bulk("title"), Resp::bulk("Zebra Title"), Resp::bulk("$"), Resp::bulk(doc)])
        ])
    );
    // Even from DIALECT 3 the sort value is the first match, not an array.
    assert_eq!(
        c.call(&["FT.SEARCH", "j", "zebra", "SORTBY", "num", "DIALECT", "3"]),
        arr(vec![
            Resp::Int(1),
            Resp::bulk("j:9"),
            arr(vec![
                Resp::bulk("num"),
                Resp::bulk("5.25"),
                Resp::bulk("$"),
                Resp::bulk(&format!("[{doc}]"))
            ])
        ])
    );
    // With RETURN, only what RETURN names.
    assert_eq!(
        c.call(&["FT.SEARCH", "j", "zebra", "SORTBY", "title", "RETURN", "1", "num"]),
        arr(vec![Resp::Int(1), Resp::bulk("j:9"), arr(vec![Resp::bulk("num"), Resp::bulk("5.25")])])
    );
}

#[test]
fn sortby_desc_reverses_the_order_of_equal_keys() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "t", "PREFIX", "1", "t:", "SCHEMA", "n", "NUMERIC", "SORTABLE"]), ok());
    for i in 1..=4 {
        c.call(&["HSET", &format!("t:{i}"), "n", "7"]);
    }
    let ids = |r: Resp| r.items()[1..].iter().map(Resp::text).collect::<Vec<_>>();
    assert_eq!(
        ids(c.call(&["FT.SEARCH", "t", "*", "SORTBY", "n", "ASC", "NOCONTENT"])),
        ["t:1", "t:2", "t:3", "t:4"]
    );
    assert_eq!(
        ids(c.call(&["FT.SEARCH", "t", "*", "SORTBY", "n", "DESC", "NOCONTENT"])),
        ["t:4", "t:3", "t:2", "t:1"]
    );
}

/// A field's weight multiplies each occurrence's frequency (truncated to an integer, at
/// least 1; a fifth for stems), across all fields of the document, and the document's norm
/// is the largest such frequency (TFIDF) or the weighted token count (TFIDF.DOCNORM).
#[test]
fn frequencies_are_weighted_by_field_over_the_whole_document() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "w", "PREFIX", "1", "w:", "SCHEMA", "title", "TEXT", "WEIGHT", "2.0", "body", "TEXT"
        ]),
        ok()
    );
    c.call(&[
        "HSET",
        "w:1",
        "title",
        "the brown dogs",
        "body",
        "module database jumped brown world 2024 banana fast",
    ]);
    c.call(&["HSET", "w:2", "title", "quick", "body", "slow"]);
    c.call(&["HSET", "w:3", "title", "lazy", "body", "cat"]);
    c.call(&["HSET", "w:4", "title", "other", "body", "words"]);
    // brown: TF 2 (title) + 1 (body) = 3, idf floor(log2(1 + 4/1)) = 2, norm 3 -> 2.
    assert_eq!(scored(&mut c, &["w", "brown"]), pairs(&[("w:1", "2")]));
    // A field modifier does not narrow the frequency: still 3.
    assert_eq!(scored(&mut c, &["w", "@body:brown"]), pairs(&[("w:1", "2")]));
    // DOCNORM: 6 / (2 tokens x 2 + 8 tokens x 1 = 12) = 0.5.
    assert_eq!(scored(&mut c, &["w", "brown", "SCORER", "TFIDF.DOCNORM"]), pairs(&[("w:1", "0.5")]));
    // dogs: 2 (title) plus its stem +dog 1 (a fifth of 2, at least 1), idf 2: 6 / 3 = 2.
    assert_eq!(scored(&mut c, &["w", "dogs"]), pairs(&[("w:1", "2")]));
}

/// Prefix expansions are a "quick exit" union: a document scores by the first expansion (in
/// term order) it contains.
#[test]
fn a_prefix_scores_by_the_first_expansion_a_document_has() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "s", "PREFIX", "1", "zz", "SCHEMA", "t", "TEXT"]), ok());
    for i in 0..10 {
        c.call(&["HSET", &format!("zzd{i}"), "t", &format!("ww{i}")]);
    }
    c.call(&["HSET", "zzdA", "t", "ww0 ww0 ww1"]);
    assert_eq!(
        scored(&mut c, &["s", "ww*", "INKEYS", "2", "zzdA", "zzd2"]),
        pairs(&[("zzd2", "3"), ("zzdA", "2")])
    );
    assert_eq!(scored(&mut c, &["s", "ww0 | ww1", "LIMIT", "0", "1"]), pairs(&[("zzdA", "3")]));
}

/// `*`, numeric and geo clauses are results of frequency 1 for the scorers: `FT.SEARCH idx *`
/// comes back ordered by 1 / (largest term frequency), not by document id.
#[test]
fn wildcard_and_numeric_results_score_one_over_the_norm() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "v", "PREFIX", "1", "v:", "SCHEMA", "t", "TEXT", "n", "NUMERIC"]), ok());
    c.call(&["HSET", "v:1", "t", "apple apple", "n", "1"]);
    c.call(&["HSET", "v:2", "t", "pear", "n", "2"]);
    c.call(&["HSET", "v:3", "t", "plum plum plum banana", "n", "3"]);
    assert_eq!(
        scored(&mut c, &["v", "*"]),
        pairs(&[("v:2", "1"), ("v:1", "0.5"), ("v:3", "0.3333333333333333")])
    );
    assert_eq!(
        scored(&mut c, &["v", "*", "SCORER", "TFIDF.DOCNORM"]),
        pairs(&[("v:2", "1"), ("v:1", "0.5"), ("v:3", "0.25")])
    );
    assert_eq!(
        scored(&mut c, &["v", "@n:[1 3]", "SCORER", "DISMAX"]),
        pairs(&[("v:1", "1"), ("v:2", "1"), ("v:3", "1")])
    );
    // BM25 of `*`: 1 / (1 + k1 * (0.5 + 0.5 * average length 7/3)) with k1 the float 1.2:
    // not quite 1/3.
    let r = scored(&mut c, &["v", "*", "SCORER", "BM25", "LIMIT", "0", "1"]);
    assert_eq!(r, pairs(&[("v:1", "0.3333333245030158")]));
}

/// FT.EXPLAIN in RediSearch's layout (`QueryNode_DumpSds`): every word with the expansions
/// its expander adds, field masks on each node, `%f` numbers, attributes after the node.
#[test]
fn explain_prints_the_reference_layout() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "e", "ON", "HASH", "PREFIX", "1", "e:", "SCHEMA", "title", "TEXT", "body", "TEXT",
            "tag", "TAG", "num", "NUMERIC", "loc", "GEO"
        ]),
        ok()
    );
    let explain = |c: &mut Conn, q: &str| c.call(&["FT.EXPLAIN", "e", q]).text();
    // Each expected text is RediSearch 2.10.5's reply to the same FT.EXPLAIN.
    assert_eq!(explain(&mut c, "running"), "UNION {\n  running\n  +run(expanded)\n  run(expanded)\n}\n");
    assert_eq!(
        explain(&mut c, "@body|title:x"),
        "@title|body:UNION {\n  @title|body:x\n  @title|body:+x(expanded)\n}\n"
    );
    assert_eq!(
        explain(&mut c, "(hello world)=>{$weight:2; $slop:1; $inorder:true}"),
        "INTERSECT {\n  UNION {\n    hello\n    +hello(expanded)\n  }\n  UNION {\n    world\n    +world(expanded)\n  }\n} => { $weight: 2; $slop: 1; $inorder: true; }\n"
    );
    assert_eq!(
        explain(&mut c, "@title:\"hello world\""),
        "@title:EXACT {\n  @title:hello\n  @title:world\n}\n"
    );
    assert_eq!(explain(&mut c, "-hello"), "NOT{\n  hello\n}\n");
    assert_eq!(explain(&mut c, "@num:[(1 +inf]"), "NUMERIC {1.000000 < @num <= inf}\n");
    assert_eq!(explain(&mut c, "@loc:[2.5 48 10 km]"), "GEO loc:{2.500000,48.000000 --> 10.000000 km}\n");
    assert_eq!(explain(&mut c, "@tag:{Hello|B*}"), "TAG:@tag {\n  Hello\n  PREFIX{B*}\n}\n");
    // Once the field has held a value, its tag index exists and the values are case-folded.
    c.call(&["HSET", "e:1", "tag", "x"]);
    c.call(&["DEL", "e:1"]);
    assert_eq!(explain(&mut c, "@tag:{Hello|B*}"), "TAG:@tag {\n  hello\n  PREFIX{b*}\n}\n");
    assert_eq!(
        explain(&mut c, "hello=>{$weight:2}"),
        "UNION {\n  hello => {$weight: 2;}\n  +hello(expanded)\n}\n"
    );
    // A tag inside a field modifier carries its mask, on the node and on each value.
    assert_eq!(
        explain(&mut c, "@title:(@tag:{a} @num:[1 2])"),
        "@title:INTERSECT {\n  @title:TAG:@tag {\n    @title:a\n  }\n  NUMERIC {1.000000 <= @num <= 2.000000}\n}\n"
    );
    assert_eq!(
        explain(&mut c, "@body:(engine | banana) | @tag:{black}"),
        "@body:UNION {\n  @body:UNION {\n    @body:engine\n    @body:+engin(expanded)\n    @body:engin(expanded)\n  }\n  @body:UNION {\n    @body:banana\n    @body:+banana(expanded)\n  }\n  @body:TAG:@tag {\n    @body:black\n  }\n}\n"
    );
    assert_eq!(explain(&mut c, "the"), "<empty>\n");
    assert_eq!(explain(&mut c, "%%hello%%"), "FUZZY{hello}\n");
    // EXPLAINCLI: a simple string per line, then an empty one.
    let s = |t: &str| Resp::Simple(t.into());
    assert_eq!(c.call(&["FT.EXPLAINCLI", "e", "-hello"]), arr(vec![s("NOT{"), s("  hello"), s("}"), s("")]));
}

#[test]
fn a_returned_sortby_attribute_comes_first() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "e", "PREFIX", "1", "e:", "SCHEMA", "title", "TEXT", "body", "TEXT", "tag", "TAG",
            "num", "NUMERIC"
        ]),
        ok()
    );
    c.call(&["HSET", "e:1", "title", "Abc", "tag", "x", "body", "b", "num", "3"]);
    c.call(&["HSET", "e:2", "title", "Bcd", "tag", "y", "body", "c", "num", "4"]);
    // RediSearch 2.10: `2 e:2 [num 4 tag y body c]` and `2 e:2 [tag y body c num 4]`.
    let row = |r: Resp| r.items()[2].items().iter().map(Resp::text).collect::<Vec<_>>();
    let r = c.call(&[
        "FT.SEARCH", "e", "*", "SORTBY", "num", "DESC", "RETURN", "3", "tag", "num", "body", "LIMIT", "0",
        "1",
    ]);
    assert_eq!(row(r), ["num", "4", "tag", "y", "body", "c"]);
    let r = c.call(&[
        "FT.SEARCH", "e", "*", "SORTBY", "title", "DESC", "RETURN", "3", "tag", "body", "num", "LIMIT", "0",
        "1",
    ]);
    assert_eq!(row(r), ["tag", "y", "body", "c", "num", "4"]);
}

/// Inside an intersection a prefix is a quick-exit union too: its first expansion (in term
/// order) the document has gives both the frequency and the positions for the slop divisor.
#[test]
fn a_prefix_in_an_intersection_measures_slop_from_its_first_expansion() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "s3", "PREFIX", "1", "s3:", "SCHEMA", "t", "TEXT", "NOSTEM"]), ok());
    c.call(&["HSET", "s3:1", "t", "jumps rust xa xb xc xd xe jumped"]);
    c.call(&["HSET", "s3:2", "t", "other words"]);
    c.call(&["HSET", "s3:3", "t", "more words here"]);
    // RediSearch 2.10: words TFIDF 4 / norm 1 / slop 6 (rust to `jumped`, not to `jumps`).
    assert_eq!(scored(&mut c, &["s3", "rust jump*"]), pairs(&[("s3:1", "0.6666666666666666")]));
}

/// A negated word is not expanded, inside an intersection as alone: `dogs -dogs` keeps the
/// documents that have `dog` (reached through `+dog`) but not the word `dogs`.
#[test]
fn negated_words_inside_an_intersection_are_not_expanded() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "nd", "PREFIX", "1", "nd:", "SCHEMA", "t", "TEXT"]), ok());
    c.call(&["HSET", "nd:1", "t", "dog"]);
    c.call(&["HSET", "nd:2", "t", "dogs"]);
    c.call(&["HSET", "nd:3", "t", "dogs dog"]);
    // RediSearch 2.10: `1 nd:1` for both.
    for q in ["dogs -dogs", "dog -(dogs)"] {
        assert_eq!(
            c.call(&["FT.SEARCH", "nd", q, "NOCONTENT"]),
            arr(vec![Resp::Int(1), Resp::bulk("nd:1")]),
            "{q}"
        );
    }
}

#[test]
fn fuzzy_and_suffix_expansions_reach_stem_terms() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "i", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT"]), ok());
    c.call(&["HSET", "d:1", "t", "indexing"]);
    c.call(&["HSET", "d:2", "t", "hello"]);
    c.call(&["HSET", "d:3", "t", "runs"]);
    // RediSearch 2.10.5's replies: "indexing" is indexed with its stem term "+index", which a
    // fuzzy or suffix expansion walks like any other term.
    for (q, want) in [
        ("*ndex", vec![("d:1", "2")]),
        ("%index%", vec![("d:1", "2")]),
        ("%%ndex%%", vec![("d:1", "2")]),
        ("%+run%", vec![("d:3", "2")]),
        ("*un", vec![("d:3", "2")]),
    ] {
        assert_eq!(scored(&mut c, &["i", q]), pairs(&want), "{q}");
    }
    assert_eq!(c.call(&["FT.SEARCH", "i", "%inde%", "NOCONTENT", "DIALECT", "2"]), arr(vec![Resp::Int(0)]));
}

#[test]
fn legacy_filters_are_clauses_of_the_query() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "i", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT", "n", "NUMERIC", "g",
            "GEO"
        ]),
        ok()
    );
    c.call(&["HSET", "d:1", "t", "apples apples pear", "n", "20", "g", "2.35,48.85"]);
    c.call(&["HSET", "d:2", "t", "apples fig", "n", "30", "g", "2.36,48.86"]);
    c.call(&["HSET", "d:3", "t", "pear apple fig fig", "n", "40", "g", "2.5,48.9"]);
    // Each expected list is RediSearch 2.10.5's reply: a FILTER or GEOFILTER scores as the
    // range clause it becomes (frequency 1, a child without positions), INKEYS adds nothing to
    // the score but counts as a child, and a filter on a field that is not numeric matches
    // nothing.
    type Case<'a> = (Vec<&'a str>, Vec<(&'a str, &'a str)>);
    let cases: Vec<Case> = vec![
        (vec!["apples", "FILTER", "n", "12", "61"], vec![("d:2", "3"), ("d:1", "2.5"), ("d:3", "1")]),
        (
            vec!["apples", "FILTER", "n", "12", "61", "INKEYS", "2", "d:1", "d:2"],
            vec![("d:2", "1.5"), ("d:1", "1.25")],
        ),
        (vec!["apples", "INKEYS", "2", "d:1", "d:2"], vec![("d:1", "2"), ("d:2", "2")]),
        (
            vec!["pear|fig", "FILTER", "n", "0", "100", "FILTER", "n", "10", "50"],
            vec![("d:2", "1.5"), ("d:3", "1.25"), ("d:1", "0.75")],
        ),
        (
            vec!["pear apples", "FILTER", "n", "0", "100", "FILTER", "n", "10", "50"],
            vec![("d:1", "3.5"), ("d:3", "2")],
        ),
        (vec!["\"pear apple\"", "FILTER", "n", "0", "100"], vec![("d:3", "2")]),
        (vec!["*", "FILTER", "n", "0", "100"], vec![("d:2", "2"), ("d:1", "1"), ("d:3", "1")]),
        (vec!["pear -fig", "FILTER", "n", "0", "100"], vec![("d:1", "0.5")]),
        (
            vec!["pear", "GEOFILTER", "g", "2.35", "48.85", "5", "km", "FILTER", "n", "0", "100"],
            vec![("d:1", "0.75")],
        ),
        (vec!["pear", "GEOFILTER", "g", "2.35", "48.85", "5", "km"], vec![("d:1", "1")]),
        (vec!["pear", "GEOFILTER", "nope", "2.35", "48.85", "5", "km"], vec![]),
        (vec!["pear", "FILTER", "nope", "1", "2"], vec![]),
        (vec!["pear", "FILTER", "t", "1", "2"], vec![]),
    ];
    for (mut args, want) in cases {
        args.insert(0, "i");
        assert_eq!(scored(&mut c, &args), pairs(&want), "{args:?}");
    }
    assert_eq!(
        c.call(&["FT.SEARCH", "i", "pear", "NOCONTENT", "LIMIT", "0", "1", "BOGUS", "1"]),
        Resp::Error("Unknown argument `BOGUS` at position 5 for <main>".into())
    );
}

#[test]
fn an_intersections_slop_pairs_its_children_fewest_results_first() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "i", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT", "NOSTEM"]),
        ok()
    );
    c.call(&["HSET", "d:1", "t", "apple banana cherry date"]);
    c.call(&["HSET", "d:2", "t", "apple banana"]);
    c.call(&["HSET", "d:3", "t", "apple zzz cherry yyy banana date"]);
    c.call(&["HSET", "d:4", "t", "apple x y cherry"]);
    // RediSearch 2.10.5's replies: its intersection sorts its children by estimated results
    // (date 2, banana 3, cherry 3, apple 4; equal estimates keep query order) and measures
    // the distance between consecutive children in that order.
    for (q, want) in [
        ("apple cherry banana", vec![("d:1", "3"), ("d:3", "0.75")]),
        ("cherry apple banana", vec![("d:1", "3"), ("d:3", "0.75")]),
        ("banana apple cherry", vec![("d:1", "1.5"), ("d:3", "1.5")]),
        ("date apple cherry banana", vec![("d:1", "4"), ("d:3", "0.8")]),
        ("apple date banana", vec![("d:1", "1.5"), ("d:3", "0.75")]),
    ] {
        assert_eq!(scored(&mut c, &["i", q]), pairs(&want), "{q}");
    }
}

#[test]
fn explain_quoted_words_and_unprepared_tags() {
    // RediSearch 2.10.5: dialect 2 prints a quoted word as a one-word phrase; an exact tag
    // value prints as written until the field's tag index exists (its first document).
    let s = Server::start();
    let mut c = s.conn();
    c.call(&["FT.CREATE", "idx", "SCHEMA", "t", "TEXT", "t2", "TAG"]);
    let ex = |c: &mut Conn, q: &str, d: &str| c.call(&["FT.EXPLAIN", "idx", q, "DIALECT", d]).text();
    assert_eq!(ex(&mut c, "\"foo\"", "2"), "EXACT {\n  foo\n}\n");
    assert_eq!(ex(&mut c, "\"foo\"", "1"), "foo\n");
    assert_eq!(ex(&mut c, "\"$hello\"", "2"), "EXACT {\n  $hello\n}\n");
    assert_eq!(ex(&mut c, "\"foo\"=>{$weight:2}", "2"), "EXACT {\n  foo\n} => { $weight: 2; }\n");
    assert_eq!(ex(&mut c, "@t2:{ free\\ world }", "1"), "TAG:@t2 {\n  free\\ world\n}\n");
    assert_eq!(ex(&mut c, "@t2:{ a\\-b\\,c }", "2"), "TAG:@t2 {\n  a\\-b\\,c\n}\n");
    assert_eq!(ex(&mut c, "@t2:{ free\\ wor* }", "1"), "TAG:@t2 {\n  PREFIX{free wor*}\n}\n");
    c.call(&["HSET", "zz", "t2", "foo"]);
    c.call(&["DEL", "zz"]);
    assert_eq!(ex(&mut c, "@t2:{ free\\ world }", "1"), "TAG:@t2 {\n  free world\n}\n");
}

#[test]
fn profile_counts_iterator_reads() {
    // RediSearch 2.10.5's FT.PROFILE counters: how often each iterator was read or skipped
    // (the read that found the end not counted), a missing term as no iterator.
    let sm = |x: &str| Resp::Simple(x.into());
    let s = Server::start();
    let mut c = s.conn();
    c.call(&["FT.CONFIG", "SET", "_PRINT_PROFILE_CLOCK", "false"]);
    c.call(&["FT.CREATE", "idx", "SCHEMA", "t", "TEXT"]);
    for (k, t) in
        [("doc1", "hello world"), ("doc2", "hello"), ("doc4", "help hell"), ("doc3", "hello there world")]
    {
        c.call(&["HSET", k, "t", t]);
    }
    let prof = |c: &mut Conn, q: &str| {
        c.call(&["FT.PROFILE", "idx", "SEARCH", "QUERY", q, "NOCONTENT"]).items()[1].items()[4].items()[1]
            .clone()
    };
    let text = |t: &str, n: i64, size: i64| {
        arr(vec![
            sm("Type"),
            sm("TEXT"),
            sm("Term"),
            sm(t),
            sm("Counter"),
            Resp::Int(n),
            sm("Size"),
            Resp::Int(size),
        ])
    };
    assert_eq!(
        prof(&mut c, "hello world"),
        arr(vec![
            sm("Type"),
            sm("INTERSECT"),
            sm("Counter"),
            Resp::Int(2),
            sm("Child iterators"),
            text("world", 2, 2),
            text("hello", 2, 3)
        ])
    );
    assert_eq!(
        prof(&mut c, "hello new world"),
        arr(vec![
            sm("Type"),
            sm("INTERSECT"),
            sm("Counter"),
            Resp::Int(0),
            sm("Child iterators"),
            Resp::Nil,
            text("world", 0, 2),
            text("hello", 0, 3)
        ])
    );
    // A missing term leaves a union; one left is the union.
    assert_eq!(prof(&mut c, "hello | new"), text("hello", 3, 3));
}

#[test]
fn dialect_4_counts_as_withoutcount() {
    // RediSearch 2.10.5 (test_optimizer.py testOptimizeArgs): DIALECT 4 implies WITHOUTCOUNT
    // unless WITHCOUNT is given; DIALECT 3 counts every match.
    let s = Server::start();
    let mut c = s.conn();
    c.call(&["FT.CREATE", "idx", "SCHEMA", "n", "NUMERIC"]);
    for i in 0..20 {
        c.call(&["HSET", &i.to_string(), "n", &i.to_string()]);
    }
    let q = |c: &mut Conn, extra: &[&str]| {
        let mut args = vec!["FT.SEARCH", "idx", "*", "NOCONTENT", "LIMIT", "0", "10"];
        args.extend_from_slice(extra);
        c.call(&args)
    };
    let without = q(&mut c, &["WITHOUTCOUNT"]);
    let with = q(&mut c, &["WITHCOUNT"]);
    assert_ne!(without, with);
    assert_eq!(q(&mut c, &["DIALECT", "4"]), without);
    assert_eq!(q(&mut c, &["WITHCOUNT", "DIALECT", "4"]), with);
    assert_eq!(q(&mut c, &["DIALECT", "3"]), with);
    assert_eq!(q(&mut c, &["WITHOUTCOUNT", "DIALECT", "3"]), without);
    assert_eq!(with.items()[0], Resp::Int(20));
}

#[test]
fn profile_of_a_negated_or_optional_stopword() {
    // `~the`: the OPTIONAL's clause is a stopword, so it has no child node; the profile's
    // replay read it as an empty iterator instead of failing the query.
    let s = Server::start();
    let mut c = s.conn();
    c.call(&["FT.CREATE", "idx", "SCHEMA", "t", "TEXT"]);
    c.call(&["HSET", "d1", "t", "hello"]);
    for q in ["~the", "hello ~the", "-the", "hello -the", "-(the a)"] {
        let r = c.call(&["FT.PROFILE", "idx", "SEARCH", "QUERY", q, "NOCONTENT"]);
        assert!(!r.is_error(), "{q}: {r:?}");
    }
}

/// An intersection with attributes takes what follows it as its own children, as RediSearch's
/// grammar appends to an intersection on its left: `(a b)=>{$weight:2} -c` is one
/// intersection weighing 2, and a `$slop` given to `(a b)` binds a word after it too. Replies
/// read off RediSearch 2.10.5 for both dialects.
#[test]
fn attributes_of_a_left_intersection_cover_what_follows() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "i", "SCHEMA", "t", "TEXT"]), ok());
    c.call(&["HSET", "d1", "t", "apple faster"]);
    c.call(&["HSET", "d2", "t", "apple faster indexing"]);
    c.call(&["HSET", "d3", "t", "apple faster x y z"]);
    c.call(&["HSET", "s1", "t", "abx cde abc"]);
    c.call(&["HSET", "s2", "t", "abx cde zzz zzz zzz abc"]);
    for d in ["1", "2"] {
        let q = "(apple faster)=>{$weight:2} -indexing";
        assert_eq!(
            c.call(&["FT.EXPLAIN", "i", q, "DIALECT", d]).text(),
            "INTERSECT {\n  UNION {\n    apple\n    +appl(expanded)\n    appl(expanded)\n  }\n  UNION {\n    \
             faster\n    +faster(expanded)\n  }\n  NOT{\n    indexing\n  }\n} => { $weight: 2; }\n"
        );
        assert_eq!(scored(&mut c, &["i", q, "DIALECT", d]), pairs(&[("d1", "6"), ("d3", "6")]));
        for q in
            ["((abx cde)=>{$slop: 1; $inorder: false}) abc", "(abx cde)=>{$slop: 1; $inorder: false} abc"]
        {
            let r = c.call(&["FT.SEARCH", "i", q, "NOCONTENT", "DIALECT", d]);
            assert_eq!(r, arr(vec![Resp::Int(1), Resp::bulk("s1")]), "{q} DIALECT {d}");
        }
    }
}

/// `@n:[0 10000] word` over 6,000 hashes (n = 0..5999), d:0 {t "a b c d e f g h i word"} and
/// d:1 {t "word x"}: RediSearch 2.10.5 scores d:0 `12 / norm 1 / slop 10` = 1.2 and d:1
/// `12 / 1 / slop 2` = 6, and `@n:[0 0] word` scores d:0 `12 / 1 / slop 1` = 12. The numeric
/// clause has no positions, but once it spans several ranges of RediSearch's numeric tree it is a
/// union whose type mask (`Numeric`) differs from `RS_RESULT_NUMERIC` (`Numeric | Metric`), so
/// `IndexResult_MinOffsetDelta` takes it for a child with offsets; its offset iterator is at EOF
/// at once, and `__absdelta(first position, UINT32_MAX)` wraps to `-(position + 1)` in an `int`,
/// whose square becomes the "distance" (word at position 9, stopword `a` skipped: slop 10). The
/// order of results under a FILTER or a range clause depends on it; folio reads the same ranges
/// off its model of the tree and scores alike.
#[test]
fn a_numeric_clause_over_several_ranges_divides_by_the_words_position() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "i", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT", "n", "NUMERIC"]),
        ok()
    );
    for k in 0..6000 {
        let t = match k {
            0 => "a b c d e f g h i word",
            1 => "word x",
            _ => "x",
        };
        c.call(&["HSET", &format!("d:{k}"), "t", t, "n", &k.to_string()]);
    }
    for q in ["@n:[0 10000] word", "word @n:[0 10000]"] {
        assert_eq!(scored(&mut c, &["i", q]), pairs(&[("d:1", "6"), ("d:0", "1.2")]), "{q}");
    }
    assert_eq!(
        scored(&mut c, &["i", "word", "FILTER", "n", "0", "10000"]),
        pairs(&[("d:1", "6"), ("d:0", "1.2")])
    );
    assert_eq!(scored(&mut c, &["i", "@n:[0 0] word"]), pairs(&[("d:0", "12")]));
    assert_eq!(scored(&mut c, &["i", "@n:[0 1] word"]), pairs(&[("d:0", "12"), ("d:1", "12")]));
}

/// A GEO clause or GEOFILTER intersected with a word: RediSearch reads a radius as a numeric
/// filter per geohash box around the centre (the box and its neighbours the radius reaches),
/// a union once several boxes, or one box's several tree ranges, hold points; such a union
/// divides TFIDF as a numeric one does (above). 60 hashes around Paris, `word` first, fourth
/// or absent; every expected score read off RediSearch 2.10.5.
#[test]
fn a_geo_clause_read_as_a_union_divides_by_the_words_position() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "g", "ON", "HASH", "PREFIX", "1", "g:", "SCHEMA", "t", "TEXT", "loc", "GEO"]),
        ok()
    );
    for i in 0..60u32 {
        let lon = 2.20 + f64::from(i * 37 % 60) * 0.005;
        let lat = 48.75 + f64::from(i * 23 % 60) * 0.004;
        let t = ["word x", "a b c word", "x y"][i as usize % 3];
        let loc = format!("{},{}", (lon * 1e4).round() / 1e4, (lat * 1e4).round() / 1e4);
        c.call(&["HSET", &format!("g:{i}"), "t", t, "loc", &loc]);
    }
    assert_eq!(
        scored(&mut c, &["g", "word @loc:[2.35 48.85 10 km]", "LIMIT", "0", "100"]),
        pairs(&[
            ("g:6", "1"),
            ("g:9", "1"),
            ("g:12", "1"),
            ("g:24", "1"),
            ("g:27", "1"),
            ("g:30", "1"),
            ("g:33", "1"),
            ("g:45", "1"),
            ("g:48", "1"),
            ("g:51", "1"),
            ("g:54", "1"),
            ("g:1", "0.5"),
            ("g:4", "0.5"),
            ("g:7", "0.5"),
            ("g:19", "0.5"),
            ("g:22", "0.5"),
            ("g:25", "0.5"),
            ("g:28", "0.5"),
            ("g:37", "0.5"),
            ("g:40", "0.5"),
            ("g:43", "0.5"),
            ("g:46", "0.5"),
            ("g:58", "0.5")
        ])
    );
    assert_eq!(
        scored(&mut c, &["g", "@loc:[2.2 48.75 300 m] word", "LIMIT", "0", "100"]),
        pairs(&[("g:0", "1")])
    );
    assert_eq!(
        scored(&mut c, &["g", "word @loc:[2.35 48.85 100 km]", "LIMIT", "0", "100"]),
        pairs(&[
            ("g:0", "1"),
            ("g:3", "1"),
            ("g:6", "1"),
            ("g:9", "1"),
            ("g:12", "1"),
            ("g:15", "1"),
            ("g:18", "1"),
            ("g:21", "1"),
            ("g:24", "1"),
            ("g:27", "1"),
            ("g:30", "1"),
            ("g:33", "1"),
            ("g:36", "1"),
            ("g:39", "1"),
            ("g:42", "1"),
            ("g:45", "1"),
            ("g:48", "1"),
            ("g:51", "1"),
            ("g:54", "1"),
            ("g:57", "1"),
            ("g:1", "0.5"),
            ("g:4", "0.5"),
            ("g:7", "0.5"),
            ("g:10", "0.5"),
            ("g:13", "0.5"),
            ("g:16", "0.5"),
            ("g:19", "0.5"),
            ("g:22", "0.5"),
            ("g:25", "0.5"),
            ("g:28", "0.5"),
            ("g:31", "0.5"),
            ("g:34", "0.5"),
            ("g:37", "0.5"),
            ("g:40", "0.5"),
            ("g:43", "0.5"),
            ("g:46", "0.5"),
            ("g:49", "0.5"),
            ("g:52", "0.5"),
            ("g:55", "0.5"),
            ("g:58", "0.5")
        ])
    );
    assert_eq!(scored(&mut c, &["g", "word @loc:[2.26 48.79 2 km]", "LIMIT", "0", "100"]), pairs(&[]));
    assert_eq!(
        scored(&mut c, &["g", "word", "GEOFILTER", "loc", "2.35", "48.85", "5", "km", "LIMIT", "0", "100"]),
        pairs(&[
            ("g:9", "1"),
            ("g:27", "1"),
            ("g:30", "1"),
            ("g:48", "1"),
            ("g:51", "1"),
            ("g:1", "0.5"),
            ("g:4", "0.5"),
            ("g:22", "0.5"),
            ("g:25", "0.5"),
            ("g:40", "0.5"),
            ("g:43", "0.5")
        ])
    );
}

/// A word's expansions skipped onto a document. Over s:1 {x}, s:2 {running runs x},
/// s:3 {x runs running}, s:4 {runs}, s:5 {running}, s:6 {running x runs}, `x running` reads `x`
/// first (fewer documents); the union of `running` and its stem `+run`, skipped to s:1, lacks
/// it and lands on s:2 with only its first child there, so s:2 scores `running` alone (and its
/// distance to `x`): RediSearch 2.10.5 answers s:3 2, s:6 2, s:2 0.5, EXPLAINSCORE included.
/// With `ITERATOR_SCORES false` (folio's own option, what cluster shards do) s:2 scores 2.
#[test]
fn a_union_skipped_onto_a_document_counts_its_first_child_there() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "s", "ON", "HASH", "PREFIX", "1", "s:", "SCHEMA", "t", "TEXT"]), ok());
    for (k, t) in
        ["x", "running runs x", "x runs running", "runs", "running", "running x runs", "y"].iter().enumerate()
    {
        c.call(&["HSET", &format!("s:{}", k + 1), "t", t]);
    }
    let want = pairs(&[("s:3", "2"), ("s:6", "2"), ("s:2", "0.5")]);
    for q in ["x running", "running x", "x @t:running"] {
        assert_eq!(scored(&mut c, &["s", q]), want, "{q}");
    }
    assert_eq!(scored(&mut c, &["s", "x runs"]), pairs(&[("s:3", "2"), ("s:6", "2"), ("s:2", "1")]));
    let r = c
        .call(&["FT.SEARCH", "s", "x running", "WITHSCORES", "EXPLAINSCORE", "NOCONTENT", "LIMIT", "2", "1"]);
    let explained = format!("{:?}", r.items()[2]);
    for line in [
        "Final TFIDF : words TFIDF 2.00 * document score 1.00 / norm 2 / slop 2",
        "(Weight 1.00 * total children TFIDF 1.00)",
    ] {
        assert!(explained.contains(line), "{line}: {explained}");
    }
    assert_eq!(c.call(&["FT.CONFIG", "SET", "ITERATOR_SCORES", "false"]), ok());
    assert_eq!(scored(&mut c, &["s", "x running"]), pairs(&[("s:2", "2"), ("s:3", "2"), ("s:6", "2")]));
}

/// A numeric or geo filter stands in RediSearch's intersection by its estimate, the documents
/// of the range-tree ranges it reaches (not the ones it matches). Over s:1 {running, n 5},
/// s:2 {x, n 0}, s:3 {running, n 5}, s:4..s:8 {y, n 0}, `@n:[5 5]` matches two documents but
/// reads one range of eight, so `running` (its union with `+run`: four) is read first; asked
/// past s:1 it lands on s:3 with its first child alone, and s:3 scores `running` without
/// `+run`: RediSearch 2.10.5 answers s:1 5, s:3 3 (folio answered s:3 5 when it ordered the
/// filter by its matches). The geo radius (s:4..s:8 just outside it, one range) alike.
#[test]
fn a_range_filter_is_read_after_a_word_with_fewer_estimated_documents() {
    let s = Server::start();
    let mut c = s.conn();
    let create = [
        "FT.CREATE", "s", "ON", "HASH", "PREFIX", "1", "s:", "SCHEMA", "t", "TEXT", "n", "NUMERIC", "loc",
        "GEO",
    ];
    assert_eq!(c.call(&create), ok());
    let docs = [("running", "5", "2.35,48.85"), ("x", "0", "2.35,48.85"), ("running", "5", "2.35,48.85")];
    let filler = [("y", "0", "2.36,48.86"); 5];
    for (k, (t, n, loc)) in docs.iter().chain(filler.iter()).enumerate() {
        c.call(&["HSET", &format!("s:{}", k + 1), "t", t, "n", n, "loc", loc]);
    }
    assert_eq!(scored(&mut c, &["s", "running @n:[5 5]"]), pairs(&[("s:1", "5"), ("s:3", "3")]));
    assert_eq!(
        scored(&mut c, &["s", "running @loc:[2.35 48.85 1 km]"]),
        pairs(&[("s:1", "2.5"), ("s:3", "1.5")])
    );
}

/// An OR of words skipped onto a document, as a word's expansions are. Over s:1 {x},
/// s:2 {x hello world}, s:3 {hello world}, s:4 {x world hello}, `x (hello | world)` reads `x`
/// first (two documents against the OR's four); the OR, asked for s:1, lands on s:2 with its
/// first word alone there, so s:2 scores `hello` without `world` (and in `x (world | hello)`
/// `world` alone, two positions from `x`): RediSearch 2.10.5 answers s:4 3, s:2 2 (s:2 1),
/// EXPLAINSCORE's OR holding the one term result itself. folio counted both words (s:2 3).
#[test]
fn an_or_of_words_skipped_onto_a_document_counts_its_first_word_there() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "s", "ON", "HASH", "PREFIX", "1", "s:", "SCHEMA", "t", "TEXT"]), ok());
    for (k, t) in ["x", "x hello world", "hello world", "x world hello"].iter().enumerate() {
        c.call(&["HSET", &format!("s:{}", k + 1), "t", t]);
    }
    for q in ["x (hello | world)", "x @t:(hello | world)"] {
        assert_eq!(scored(&mut c, &["s", q]), pairs(&[("s:4", "3"), ("s:2", "2")]), "{q}");
    }
    assert_eq!(scored(&mut c, &["s", "x (world | hello)"]), pairs(&[("s:4", "3"), ("s:2", "1")]));
    let r = c.call(&[
        "FT.SEARCH", "s", "x (hello | world)", "WITHSCORES", "EXPLAINSCORE", "NOCONTENT", "LIMIT", "1", "1",
    ]);
    let explained = format!("{:?}", r.items()[2]);
    let or_part = "Simple(\"(Weight 1.00 * total children TFIDF 1.00)\"), \
                   Array([Simple(\"(TFIDF 1.00 = Weight 1.00 * TF 1 * IDF 1.00)\")])";
    assert!(explained.contains("words TFIDF 2.00 * document score 1.00 / norm 1 / slop 1"), "{explained}");
    assert!(explained.contains(or_part), "{explained}");
}

/// A word's union inside an OR keeps the record its own missed skip left. Over s:1 {running,
/// n 5}, s:2 {running, n 0}, s:3 {x, n 5}, s:4 {running, n 5} and eight {y, n 0},
/// `(running | x) @n:[5 5]` reads the OR first (seven estimated documents against the
/// range's twelve); asked for s:3, the word's union (`running`, `+run`) misses and lands on
/// s:4 with `running` alone while `x` holds s:3; asked for s:4 next, the OR finds the word's
/// union already there and takes its record as it stands, so s:4 scores `running` without
/// `+run`: RediSearch 2.10.5 answers s:1 5, s:3 4, s:4 3 (read as one flat union of the OR's
/// expansions, the OR finds s:4 and s:4 scores 5).
#[test]
fn a_word_union_inside_an_or_keeps_the_record_of_its_missed_skip() {
    let s = Server::start();
    let mut c = s.conn();
    let create = ["FT.CREATE", "s", "ON", "HASH", "PREFIX", "1", "s:", "SCHEMA", "t", "TEXT", "n", "NUMERIC"];
    assert_eq!(c.call(&create), ok());
    let docs = [("running", "5"), ("running", "0"), ("x", "5"), ("running", "5")];
    for (k, (t, n)) in docs.iter().chain([("y", "0"); 8].iter()).enumerate() {
        c.call(&["HSET", &format!("s:{}", k + 1), "t", t, "n", n]);
    }
    let want = pairs(&[("s:1", "5"), ("s:3", "4"), ("s:4", "3")]);
    assert_eq!(scored(&mut c, &["s", "(running | x) @n:[5 5]"]), want);
    assert_eq!(scored(&mut c, &["s", "(running | x)", "FILTER", "n", "5", "5"]), want);
}
