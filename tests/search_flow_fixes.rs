//! Replies RediSearch 2.10.5's flow tests check and folio answered otherwise (test_issues.py:
//! FT.CREATE without fields, SORTBY … MAX in FT.SEARCH, RETURN __key, and names with CR/LF
//! sent as simple strings; test_issues.py and test_search_params.py: SORTABLE strings case
//! folded). Every expectation was measured on RediSearch 2.10.5 (Redis 7.4.1).

mod common;

use common::*;

fn s(x: &str) -> Resp {
    Resp::Simple(x.into())
}

#[test]
fn create_without_fields_and_sortby_max() {
    let server = Server::start();
    let mut c = server.conn();
    let missing = Resp::Error("Fields arguments are missing".into());
    assert_eq!(c.call(&["FT.CREATE", "idx", "ON", "HASH", "SCHEMA"]), missing);
    assert_eq!(c.call(&["FT.CREATE", "idx", "STOPWORDS", "0", "SCHEMA"]), missing);
    let arity = c.call(&["FT.CREATE", "idx", "SCHEMA"]);
    assert!(arity.err().contains("wrong number of arguments"), "{arity:?}");
    assert_eq!(c.call(&["FT.CREATE", "idx", "SCHEMA", "t", "TEXT", "SORTABLE", "n", "NUMERIC"]), s("OK"));
    c.call(&["HSET", "doc", "t", "Hello", "n", "1"]);
    let max = Resp::Error("SORTBY MAX is not supported by FT.SEARCH".into());
    assert_eq!(c.call(&["FT.SEARCH", "idx", "*", "SORTBY", "t", "DESC", "MAX", "1"]), max);
    assert_eq!(c.call(&["FT.SEARCH", "idx", "*", "SORTBY", "t", "MAX", "1"]), max);
    let doc = |name: &str| {
        arr(vec![Resp::Int(1), Resp::bulk("doc"), arr(vec![Resp::bulk(name), Resp::bulk("doc")])])
    };
    assert_eq!(c.call(&["FT.SEARCH", "idx", "*", "RETURN", "1", "__key"]), doc("__key"));
    assert_eq!(c.call(&["FT.SEARCH", "idx", "*", "RETURN", "3", "__key", "AS", "key_name"]), doc("key_name"));
}

#[test]
fn cr_lf_in_simple_strings_are_escaped() {
    let server = Server::start();
    let mut c = server.conn();
    c.resp3();
    let create = ["FT.CREATE", "unsafe\r\nindex", "PREFIX", "1", "unsafe\r\nvalue", "SCHEMA", "t", "TEXT"];
    assert_eq!(c.call(&create), s("OK"));
    assert_eq!(c.call(&["FT._LIST"]), Resp::Set(vec![s("unsafe\\r\\nindex")]));
    assert_eq!(
        c.call(&[
            "FT.ALTER", "unsafe\r\nindex", "SCHEMA", "ADD", "unsafe\r\nfield", "TAG", "SEPARATOR", "\n"
        ]),
        s("OK")
    );
    let Resp::Map(info) = c.call(&["FT.INFO", "unsafe\r\nindex"]) else { panic!("FT.INFO") };
    let get = |k: &str| info.iter().find(|(n, _)| *n == s(k)).map(|(_, v)| v.clone()).unwrap();
    assert_eq!(get("index_name"), s("unsafe\\r\\nindex"));
    let Resp::Array(attrs) = get("attributes") else { panic!("attributes") };
    let Some(Resp::Map(tag)) = attrs.last() else { panic!("tag attribute") };
    assert!(tag.contains(&(s("identifier"), s("unsafe\\r\\nfield"))), "{tag:?}");
    assert!(tag.contains(&(s("SEPARATOR"), s("\\n"))), "{tag:?}");
}

/// RETURN: a name already returned is returned once (read from its first source); `AS` with no
/// name inside the count is an error (test_json.py's label redefinitions).
#[test]
fn return_names_are_outputs_once() {
    let server = Server::start();
    let mut c = server.conn();
    let create = [
        "FT.CREATE", "i", "ON", "JSON", "SCHEMA", "$.t", "AS", "labelT", "TEXT", "$.n", "AS", "labelN",
        "NUMERIC",
    ];
    assert_eq!(c.call(&create), s("OK"));
    assert_eq!(c.call(&["JSON.SET", "doc:1", "$", r#"{"t":"riceratops","n":9072}"#]), s("OK"));
    let one = |name: &str, v: &str| {
        arr(vec![Resp::Int(1), Resp::bulk("doc:1"), arr(vec![Resp::bulk(name), Resp::bulk(v)])])
    };
    assert_eq!(
        c.call(&["FT.SEARCH", "i", "*", "RETURN", "4", "$.n", "AS", "labelT", "labelT"]),
        one("labelT", "9072")
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "i", "*", "RETURN", "2", "labelT", "labelT"]),
        one("labelT", "riceratops")
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "i", "*", "RETURN", "3", "labelN", "labelT", "AS"]),
        Resp::Error("RETURN path AS name - must be accompanied with NAME".into())
    );
}

/// `-` before a number is its sign, not a negation: `-20` is the term `-20` (which nothing
/// indexed matches, the indexer splitting at `-`), `-20*` a prefix, `-20abc` the term `-20`
/// then `abc` (test_issues.py test_1304; explains and results from RediSearch 2.10.5).
#[test]
fn minus_before_a_number_is_a_sign() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.call(&["FT.CREATE", "idx", "SCHEMA", "txt1", "TEXT"]), s("OK"));
    c.call(&["HSET", "a", "txt1", "x 20"]);
    c.call(&["HSET", "b", "txt1", "x -20 y-20"]);
    c.call(&["HSET", "c", "txt1", "x 30"]);
    assert_eq!(c.call(&["FT.EXPLAIN", "idx", "-20*"]), Resp::bulk("PREFIX{-20*}\n"));
    assert_eq!(c.call(&["FT.EXPLAIN", "idx", "-\\20*"]), Resp::bulk("NOT{\n  PREFIX{20*}\n}\n"));
    assert_eq!(
        c.call(&["FT.EXPLAIN", "idx", "-20", "DIALECT", "1"]),
        Resp::bulk("UNION {\n  -20\n  +-20(expanded)\n}\n")
    );
    for q in ["-20", "x -20", "y-20", "-20abc", "-1e3"] {
        for d in ["1", "2"] {
            assert_eq!(
                c.call(&["FT.SEARCH", "idx", q, "NOCONTENT", "DIALECT", d]),
                arr(vec![Resp::Int(0)]),
                "{q} {d}"
            );
        }
    }
    let not = c.call(&["FT.SEARCH", "idx", "-abc", "NOCONTENT"]);
    assert_eq!(not.items()[0], Resp::Int(3), "a word after - is still negated");
}

/// test_tags.py testTagUNF: a SORTABLE TAG sorts by the field's value as the document holds
/// it, case-folded unless UNF, and the whole value, not its first tag (measured on RediSearch
/// 2.10.5: "America,b" sorts after "America", which its first tag would tie).
#[test]
fn sortable_tags_sort_by_the_whole_value_case_folded_unless_unf() {
    let server = Server::start();
    let mut c = server.conn();
    for def in [
        "FT.CREATE idx ON HASH PREFIX 1 {doc}: SCHEMA tag TAG SORTABLE",
        "FT.CREATE idx_unf ON HASH PREFIX 1 {doc}: SCHEMA tag TAG SORTABLE UNF",
    ] {
        assert_eq!(c.cmd(def), s("OK"));
    }
    for (k, v) in
        [("{doc}:0", "America,b"), ("{doc}:1", "america"), ("{doc}:2", "aMerica"), ("{doc}:3", "America")]
    {
        c.call(&["HSET", k, "tag", v]);
    }
    let mut q = |idx: &str, dir: &str| -> Vec<String> {
        let r = c.call(&["FT.SEARCH", idx, "@tag:{america}", "NOCONTENT", "SORTBY", "tag", dir]);
        assert_eq!(r.items()[0], Resp::Int(4));
        r.items()[1..].iter().map(Resp::text).collect()
    };
    assert_eq!(q("idx", "ASC"), ["{doc}:1", "{doc}:2", "{doc}:3", "{doc}:0"]);
    assert_eq!(q("idx", "DESC"), ["{doc}:0", "{doc}:3", "{doc}:2", "{doc}:1"]);
    assert_eq!(q("idx_unf", "ASC"), ["{doc}:3", "{doc}:0", "{doc}:2", "{doc}:1"]);
    assert_eq!(q("idx_unf", "DESC"), ["{doc}:1", "{doc}:2", "{doc}:0", "{doc}:3"]);
}

/// test.py `testNumericRange`, `testGeoErrors`, `testMathFunctions`: FILTER and GEOFILTER
/// argument errors in RediSearch's words, and punctuation between a range's numbers skipped
/// as its lexer skips it (`[0..inf]` is `[0 inf]`).
#[test]
fn filter_errors_and_punctuation_in_ranges() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE idx ON HASH SCHEMA title TEXT score NUMERIC loc GEO"), ok());
    c.call(&["HSET", "doc1", "title", "hello", "score", "12234556", "loc", "-0.1757,51.5156"]);
    let err = |c: &mut Conn, args: &[&str]| {
        let mut all = vec!["FT.SEARCH", "idx", "hello"];
        all.extend(args);
        c.call(&all).err().to_string()
    };
    for (args, want) in [
        (&["FILTER", "score", "5"][..], "FILTER requires 3 arguments"),
        (&["FILTER", "score", "5", "-inf"], "Bad upper range: -inf"),
        (&["FILTER", "score", "5", "(-inf"], "Bad upper range: -inf"),
        (&["FILTER", "score", "inf", "5"], "Bad lower range: inf"),
        (&["FILTER", "score", "(+inf", "5"], "Bad lower range: +inf"),
        (
            &["GEOFILTER", "loc", "lon", "51.5", "1", "km"],
            "Bad arguments for <lon>: Could not convert argument to expected type",
        ),
        (
            &["GEOFILTER", "loc", "1", "lat", "1", "km"],
            "Bad arguments for <lat>: Could not convert argument to expected type",
        ),
        (
            &["GEOFILTER", "loc", "1", "2", "radius", "km"],
            "Bad arguments for <radius>: Could not convert argument to expected type",
        ),
        (&["GEOFILTER", "loc", "1", "2", "1", "fake"], "Unknown distance unit fake"),
        (&["GEOFILTER", "loc", "1", "2", "1"], "GEOFILTER requires 5 arguments"),
    ] {
        assert_eq!(err(&mut c, args), want, "{args:?}");
    }
    let r = c.call(&["FT.SEARCH", "idx", "hello", "FILTER", "score", "-inf", "+inf", "NOCONTENT"]);
    assert_eq!(r, arr(vec![Resp::Int(1), Resp::bulk("doc1")]));
    let r = c.call(&[
        "FT.AGGREGATE", "idx", "@score:[0..inf]", "LOAD", "1", "@score", "APPLY", "ceil(@score)", "AS", "a",
    ]);
    assert_eq!(
        r,
        arr(vec![
            Resp::Int(1),
            arr(vec![Resp::bulk("score"), Resp::bulk("12234556"), Resp::bulk("a"), Resp::bulk("12234556")])
        ])
    );
}

/// test.py `test_empty_field_name`, `testIssue_865`, `testSchemaWithAs`: a field named "", a
/// field named `1` sorted by `SORTBY 1 ASC` (not folio's counted SORTBY, which needs an
/// `@property` after the count), and `AS` refused as a RETURN alias.
#[test]
fn empty_and_numeric_field_names() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.call(&["FT.CREATE", "e", "SCHEMA", "", "TEXT"]), ok());
    c.call(&["HSET", "doc1", "", "foo"]);
    let r = c.call(&["FT.SEARCH", "e", "foo"]);
    assert_eq!(r, arr(vec![Resp::Int(1), Resp::bulk("doc1"), arr(vec![Resp::bulk(""), Resp::bulk("foo")])]));
    assert_eq!(c.cmd("FT.CREATE idx ON HASH PREFIX 1 d: SCHEMA 1 TEXT SORTABLE"), ok());
    c.call(&["HSET", "d:1", "1", "foo1"]);
    c.call(&["HSET", "d:2", "1", "foo2"]);
    let keys = |r: Resp| r.items().iter().skip(1).step_by(2).map(Resp::text).collect::<Vec<_>>();
    assert_eq!(keys(c.call(&["FT.SEARCH", "idx", "foo*", "SORTBY", "1", "ASC"])), ["d:1", "d:2"]);
    assert_eq!(keys(c.call(&["FT.SEARCH", "idx", "foo*", "SORTBY", "1", "DESC"])), ["d:2", "d:1"]);
    assert!(c.call(&["FT.SEARCH", "idx", "foo*", "SORTBY", "1", "bad"]).is_error());
    assert_eq!(
        c.call(&["FT.SEARCH", "idx", "foo*", "RETURN", "3", "1", "as", "as"]).err(),
        "Alias for RETURN cannot be `AS`"
    );
}

/// test_wildcard.py `testBasic`, test.py `testExplain`: `w'pattern'` (dialect 2) matches the
/// terms (or a TAG field's values) a glob matches, `*` any run and `?` one character.
#[test]
fn wildcard_patterns() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA t TEXT g TAG"), ok());
    for (i, w) in ["hello", "hell", "helen", "help", "olah", "heal", "hall", "hallo"].iter().enumerate() {
        c.call(&["HSET", &format!("doc{}", i + 1), "t", w, "g", w]);
    }
    let keys = |c: &mut Conn, q: &str| {
        let r = c.call(&["FT.SEARCH", "idx", q, "NOCONTENT", "DIALECT", "2"]);
        let mut k: Vec<String> = r.items()[1..].iter().map(Resp::text).collect();
        k.sort();
        k
    };
    assert_eq!(keys(&mut c, "w'*el*'"), ["doc1", "doc2", "doc3", "doc4"]);
    assert_eq!(keys(&mut c, "w'*ll*'"), ["doc1", "doc2", "doc7", "doc8"]);
    assert_eq!(keys(&mut c, "w'*llo'"), ["doc1", "doc8"]);
    assert_eq!(keys(&mut c, "w'he*'"), ["doc1", "doc2", "doc3", "doc4", "doc6"]);
    assert_eq!(keys(&mut c, "@g:{w'h?ll'}"), ["doc2", "doc7"]);
    assert_eq!(keys(&mut c, "@g:{w'he*' | w'*ah'}"), ["doc1", "doc2", "doc3", "doc4", "doc5", "doc6"]);
    let r = c.call(&["FT.EXPLAIN", "idx", "@t:(w'*')=>{$weight: 5; $inorder: true;}", "DIALECT", "2"]);
    assert_eq!(r.text(), "@t:WILDCARD{*} => { $weight: 5; $inorder: true; }\n");
}

/// test_contains.py `testContainsMixedWithSuffix`: once a TEXT field has WITHSUFFIXTRIE, a
/// suffix, infix or wildcard term restricted to fields without one is refused.
#[test]
fn contains_on_fields_without_a_suffix_trie() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA t1 TEXT WITHSUFFIXTRIE t2 TEXT"), ok());
    c.call(&["HSET", "doc1", "t1", "hello", "t2", "hello"]);
    let one = arr(vec![Resp::Int(1), Resp::bulk("doc1")]);
    assert_eq!(c.call(&["FT.SEARCH", "idx", "@t1:*ell*", "NOCONTENT"]), one);
    assert_eq!(c.call(&["FT.SEARCH", "idx", "*ell*", "NOCONTENT"]), one);
    const ERR: &str = "Contains query on fields without WITHSUFFIXTRIE support";
    for q in ["@t2:*ell*", "@t2:*llo", "@t1|t2:*ell*", "@t2:w'*ll*'"] {
        assert_eq!(c.call(&["FT.SEARCH", "idx", q, "NOCONTENT", "DIALECT", "2"]).err(), ERR, "{q}");
    }
}

/// test_issues.py `testUNF`: SORTABLE strings are normalized by Unicode case folding
/// (`Maße` groups as `masse`), UNF ones kept; test_search_params.py `test_sortable_NOunf`:
/// FT.SEARCH's SORTBY field comes first with the sorter's (normalized) value, a RETURNed one
/// with the document's.
#[test]
fn sortable_strings_are_case_folded() {
    let server = Server::start();
    let mut c = server.conn();
    let create = [
        "FT.CREATE", "idx", "SCHEMA", "txt", "TEXT", "SORTABLE", "txt_unf", "TEXT", "SORTABLE", "UNF", "tag",
        "TAG", "SORTABLE", "tag_unf", "TAG", "SORTABLE", "UNF",
    ];
    assert_eq!(c.call(&create), s("OK"));
    c.call(&["HSET", "doc1", "txt", "Maße", "txt_unf", "Maße", "tag", "Maße", "tag_unf", "Maße"]);
    let row = |v: &[&str]| arr(v.iter().map(|x| Resp::bulk(x)).collect());
    assert_eq!(
        c.call(&["FT.AGGREGATE", "idx", "*", "GROUPBY", "4", "@txt", "@txt_unf", "@tag", "@tag_unf"]),
        arr(vec![Resp::Int(1), row(&["txt", "masse", "txt_unf", "Maße", "tag", "masse", "tag_unf", "Maße"])])
    );
    let create =
        ["FT.CREATE", "i2", "PREFIX", "1", "key", "SCHEMA", "text", "AS", "text_name", "TEXT", "SORTABLE"];
    assert_eq!(c.call(&create), s("OK"));
    c.call(&["HSET", "key1", "text", "Meow"]);
    c.call(&["HSET", "key2", "text", "aMeow"]);
    assert_eq!(
        c.call(&["FT.SEARCH", "i2", "*", "SORTBY", "text_name", "ASC"]),
        arr(vec![
            Resp::Int(2),
            Resp::bulk("key2"),
            row(&["text_name", "ameow", "text", "aMeow"]),
            Resp::bulk("key1"),
            row(&["text_name", "meow", "text", "Meow"]),
        ])
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "i2", "*", "SORTBY", "text_name", "ASC", "RETURN", "1", "text_name"]),
        arr(vec![
            Resp::Int(2),
            Resp::bulk("key2"),
            row(&["text_name", "aMeow"]),
            Resp::bulk("key1"),
            row(&["text_name", "Meow"]),
        ])
    );
}

/// test_optimizer.py (`range and filter w/o sort`): with WITHOUTCOUNT the total is the
/// results RediSearch's optimizer collected for the page (`[2, '10', '12']` for LIMIT 0 2),
/// not every match; WITHCOUNT (the default) counts them all.
#[test]
fn withoutcount_reports_the_collected_results() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.call(&["FT.CREATE", "idx", "SCHEMA", "n", "NUMERIC", "t", "TEXT", "tag", "TAG"]), s("OK"));
    for i in (0..400).step_by(2) {
        let n = (i % 100).to_string();
        c.call(&["HSET", &i.to_string(), "t", "foo", "tag", "foo", "n", &n]);
        c.call(&["HSET", &(i + 1).to_string(), "t", "bar", "tag", "bar", "n", &n]);
    }
    let search = |c: &mut Conn, extra: &[&str]| {
        let mut cmd = vec!["FT.SEARCH", "idx", "foo @n:[10 20]", "NOCONTENT"];
        cmd.extend_from_slice(extra);
        c.call(&cmd).items()[0].int()
    };
    assert_eq!(search(&mut c, &["LIMIT", "0", "2", "WITHOUTCOUNT"]), 2);
    assert_eq!(search(&mut c, &["LIMIT", "0", "3", "WITHOUTCOUNT"]), 3);
    assert_eq!(search(&mut c, &["LIMIT", "0", "2", "WITHCOUNT"]), 24);
    assert_eq!(search(&mut c, &["LIMIT", "0", "2"]), 24);
    assert_eq!(search(&mut c, &["LIMIT", "0", "0", "WITHOUTCOUNT"]), 24);
}

/// test_contains.py testWITHSUFFIXTRIEParam*, test_fuzzy.py testStopwords and
/// testFuzzySyntaxError, test_parser.py test_modifier_v1, test_tags.py
/// testDialect2SpecialChars: replies measured on RediSearch 2.10.5.
#[test]
fn field_option_order_fuzzy_reach_and_escapes() {
    let server = Server::start();
    let mut c = server.conn();
    // After SORTABLE only SORTABLE [UNF] and NOINDEX: the next word is the next field's name.
    let e = |x: &str| Resp::Error(x.into());
    assert_eq!(
        c.call(&["FT.CREATE", "x", "SCHEMA", "t", "TEXT", "SORTABLE", "WITHSUFFIXTRIE"]),
        e("Field `WITHSUFFIXTRIE` does not have a type")
    );
    assert_eq!(
        c.call(&["FT.CREATE", "x", "SCHEMA", "t", "TEXT", "SORTABLE", "WEIGHT", "2"]),
        e("Invalid field type for field `WEIGHT`")
    );
    assert_eq!(c.call(&["FT.CREATE", "x", "SCHEMA", "t", "TEXT", "WITHSUFFIXTRIE", "SORTABLE"]), s("OK"));
    // The fuzzy trie walk reaches `ta` from `at` (a stopword) at distance 1.
    assert_eq!(c.call(&["FT.CREATE", "f", "PREFIX", "1", "f:", "SCHEMA", "t1", "TEXT"]), s("OK"));
    for t in ["iwth", "ta", "foo", "rof", "whhch", "witha"] {
        c.call(&["HSET", &format!("f:{t}"), "t1", t]);
    }
    assert_eq!(c.call(&["FT.SEARCH", "f", "%at%", "NOCONTENT"]), arr(vec![Resp::Int(1), Resp::bulk("f:ta")]));
    assert_eq!(
        c.call(&["FT.SEARCH", "f", "%for%", "NOCONTENT"]),
        arr(vec![Resp::Int(1), Resp::bulk("f:foo")])
    );
    // A fuzzy term ends at punctuation; the error names the next token.
    for (q, err) in [
        ("%%wor*d%%", "Syntax error at offset 2 near wor"),
        ("%%wor$d%%", "Syntax error at offset 5 near d"),
        ("%%wor~d%%", "Syntax error at offset 5 near wor"),
        ("%%wor&d%%", "Syntax error at offset 6 near d"),
        ("%%wor@d%%", "Syntax error at offset 5 near d"),
        ("%%wor!d%%", "Syntax error at offset 6 near d"),
    ] {
        assert_eq!(c.call(&["FT.SEARCH", "f", q]), e(err), "{q}");
    }
    // Dialect 2: `%""%` / `%''%` fuzzy-match from the empty string, `%"a"%` is `%a%`.
    assert_eq!(
        c.call(&["FT.CREATE", "em", "PREFIX", "1", "e:", "SCHEMA", "t", "TEXT", "INDEXEMPTY", "t2", "TEXT"]),
        s("OK")
    );
    c.call(&["HSET", "e:h1", "t", ""]);
    c.call(&["HSET", "e:h2", "t", "sr"]);
    let both = arr(vec![Resp::Int(2), Resp::bulk("e:h1"), Resp::bulk("e:h2")]);
    let h1 = arr(vec![Resp::Int(1), Resp::bulk("e:h1")]);
    for (q, want) in [("%%''%%", &both), ("%%\"\"%%", &both), ("%''%", &h1), ("%\"a\"%", &h1), ("%s%", &both)]
    {
        assert_eq!(&c.call(&["FT.SEARCH", "em", q, "NOCONTENT", "DIALECT", "2"]), want, "{q}");
    }
    // Punctuation that starts no token is skipped around a fuzzy word (dialect 1 and 2), a
    // dialect-2 `'…'` is a VERBATIM token (RediSearch 2.10.5, live).
    c.call(&["HSET", "f:runs", "t1", "runs"]);
    let runs = arr(vec![Resp::Int(1), Resp::bulk("f:runs")]);
    for q in ["%+run%", "%run.%", "%!run%"] {
        assert_eq!(c.call(&["FT.SEARCH", "f", q, "NOCONTENT"]), runs, "{q}");
    }
    assert_eq!(c.call(&["FT.SEARCH", "f", "%'run'%", "NOCONTENT", "DIALECT", "1"]), runs);
    assert_eq!(
        c.call(&["FT.SEARCH", "f", "%'run'%", "NOCONTENT", "DIALECT", "2"]),
        e("Syntax error at offset 1 near run")
    );
    // NOSTEM keeps stems out of the index, not out of the query's expansion.
    assert_eq!(c.call(&["FT.CREATE", "n", "PREFIX", "1", "n:", "SCHEMA", "t1", "TEXT", "NOSTEM"]), s("OK"));
    assert_eq!(
        c.call(&["FT.EXPLAIN", "n", "@t1:mars"]),
        Resp::bulk("@t1:UNION {\n  @t1:mars\n  @t1:+mar(expanded)\n  @t1:mar(expanded)\n}\n")
    );
    // An escaped character joins its token; a backslash before a letter, or a control
    // character, separates query words.
    assert_eq!(c.call(&["FT.CREATE", "s", "PREFIX", "1", "s:", "SCHEMA", "text", "TEXT"]), s("OK"));
    c.call(&["HSET", "s:95", "text", "single\\_term"]);
    c.call(&["HSET", "s:999", "text", "two words"]);
    for q in ["@text:(single\\_*)", "@text:(*le\\_te*)", "@text:(single\\_term)"] {
        assert_eq!(
            c.call(&["FT.SEARCH", "s", q, "NOCONTENT", "DIALECT", "2"]),
            arr(vec![Resp::Int(1), Resp::bulk("s:95")]),
            "{q}"
        );
    }
    for q in ["@text:(two\\words)", "@text:(two\u{1}words)"] {
        assert_eq!(
            c.call(&["FT.SEARCH", "s", q, "NOCONTENT", "DIALECT", "2"]),
            arr(vec![Resp::Int(1), Resp::bulk("s:999")]),
            "{q}"
        );
    }
}

/// test.py testSortkeyUnsortable: FT.AGGREGATE WITHSORTKEYS sends each row after its sort
/// key (the first key of the last SORTBY: `$` and a string, `#` and a number, else nil), as
/// RediSearch 2.10.5 does.
#[test]
fn aggregate_withsortkeys() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "sk", "PREFIX", "1", "sk:", "SCHEMA", "test", "TEXT", "n", "NUMERIC"]),
        s("OK")
    );
    c.call(&["HSET", "sk:1", "test", "foo", "n", "5.5"]);
    let row = |k: &str, v: &str| arr(vec![Resp::bulk(k), Resp::bulk(v)]);
    assert_eq!(
        c.call(&["FT.AGGREGATE", "sk", "foo", "WITHSORTKEYS", "LOAD", "1", "@test", "SORTBY", "1", "@test"]),
        arr(vec![Resp::Int(1), Resp::bulk("$foo"), row("test", "foo")])
    );
    assert_eq!(
        c.call(&["FT.AGGREGATE", "sk", "foo", "WITHSORTKEYS", "LOAD", "1", "@test"]),
        arr(vec![Resp::Int(1), Resp::Nil, row("test", "foo")])
    );
    assert_eq!(
        c.call(&["FT.AGGREGATE", "sk", "*", "WITHSORTKEYS", "LOAD", "1", "@n", "SORTBY", "1", "@n"]),
        arr(vec![Resp::Int(1), Resp::bulk("#5.5"), row("n", "5.5")])
    );
    // test.py testAggregateSortByMaxNumberOfFields: SORTASCMAP_MAXFIELDS is 8 in 2.10.5.
    let mut nine = vec!["FT.AGGREGATE", "sk", "*", "SORTBY", "9"];
    nine.extend(["@a", "@b", "@c", "@d", "@e", "@f", "@g", "@h", "@i"]);
    assert_eq!(c.call(&nine), Resp::Error("Cannot sort by more than 8 fields".into()));
    nine[4] = "8";
    nine.pop();
    assert_eq!(c.call(&nine), Resp::Error("Property `a` not loaded nor in schema".into()));
}

/// test.py testExplain: a vector clause lists its options with their names as written, and
/// no word under it is expanded (FT.EXPLAIN of RediSearch 2.10.5).
#[test]
fn explain_vector_options_as_written() {
    let server = Server::start();
    let mut c = server.conn();
    let create = [
        "FT.CREATE", "ex", "SCHEMA", "t", "TEXT", "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "2",
        "DISTANCE_METRIC", "L2",
    ];
    assert_eq!(c.call(&create), s("OK"));
    let blob: &[u8] = b"\xa4\x21\xf5\x42\x18\x07\x00\xc7";
    let explain = |c: &mut Conn, q: &str, p: &[&[u8]]| {
        let mut a: Vec<&[u8]> = vec![b"FT.EXPLAIN", b"ex", q.as_bytes(), b"DIALECT", b"2", b"PARAMS"];
        let n = p.len().to_string();
        a.push(n.as_bytes());
        a.extend_from_slice(p);
        c.call(&a)
    };
    let kb: &[&[u8]] = &[b"k", b"10", b"B", blob];
    assert_eq!(
        explain(&mut c, "(@t:hello world) => [KNN $k @v $B ef_runtime 100]", kb),
        Resp::bulk(
            "VECTOR {\n  INTERSECT {\n    @t:hello\n    world\n  }\n} => {K=10 nearest vectors to `$B` in vector index associated with field @v, ef_runtime = 100, yields distance as `__v_score`}\n"
        )
    );
    let rb: &[&[u8]] = &[b"r", b"0.1", b"B", blob];
    assert_eq!(
        explain(&mut c, "@v:[VECTOR_RANGE $r $B]=>{$epsilon: 1.2; $yield_distance_as:dist}", rb),
        Resp::bulk(
            "VECTOR {Vectors that are within 0.1 distance radius from `$B` in vector index associated with field @v, epsilon = 1.2, yields distance as `dist`}\n"
        )
    );
    assert_eq!(
        explain(&mut c, "@t:hello world => [KNN $k @v $B]", kb),
        Resp::Error("Syntax error at offset 18 near > ".into())
    );
}

/// test.py testExpander: an EXPANDER RediSearch does not know (names are case-sensitive)
/// expands nothing, as if VERBATIM (RediSearch 2.10.5, live).
#[test]
fn unknown_expander_expands_nothing() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.call(&["FT.CREATE", "exi", "SCHEMA", "title", "TEXT"]), s("OK"));
    c.call(&["HSET", "exi:1", "title", "hello kitty"]);
    let found = arr(vec![Resp::Int(1), Resp::bulk("exi:1")]);
    let none = arr(vec![Resp::Int(0)]);
    for (e, want) in [("SBSTEM", &found), ("DEFAULT", &found), ("sbstem", &none), ("noexpander", &none)] {
        assert_eq!(&c.call(&["FT.SEARCH", "exi", "kitties", "NOCONTENT", "EXPANDER", e]), want, "{e}");
    }
    assert_eq!(c.call(&["FT.AGGREGATE", "exi", "kitties", "EXPANDER", "noexpander"]), none);
    assert_eq!(c.call(&["FT.EXPLAIN", "exi", "kitties", "EXPANDER", "noexpander"]), Resp::bulk("kitties\n"));
}

/// test_contains.py test_misc1: with a suffix trie (a TEXT field WITHSUFFIXTRIE) suffix,
/// contains and wildcard terms match no stem term; without one they do (RediSearch 2.10.5).
#[test]
fn suffix_trie_holds_no_stems() {
    let server = Server::start();
    let mut c = server.conn();
    let trie = ["FT.CREATE", "mi", "PREFIX", "1", "mi:", "SCHEMA", "t", "TEXT", "WITHSUFFIXTRIE", "SORTABLE"];
    assert_eq!(c.call(&trie), s("OK"));
    assert_eq!(
        c.call(&["FT.CREATE", "mi2", "PREFIX", "1", "mi:", "SCHEMA", "t", "TEXT", "SORTABLE"]),
        s("OK")
    );
    c.call(&["HSET", "mi:3", "t", "doctorless"]);
    c.call(&["HSET", "mi:5", "t", "colorlessness"]);
    c.call(&["HSET", "mi:7", "t", "indexing"]);
    let ids = |v: &[&str]| {
        let mut out = vec![Resp::Int(v.len() as i64)];
        out.extend(v.iter().map(|x| Resp::bulk(x)));
        arr(out)
    };
    for (ix, q, want) in [
        ("mi", "*less", ids(&["mi:3"])),
        ("mi2", "*less", ids(&["mi:3", "mi:5"])),
        ("mi", "*ndex", ids(&[])),
        ("mi2", "*ndex", ids(&["mi:7"])),
        ("mi", "w'*ndex'", ids(&[])),
        ("mi2", "w'*ndex'", ids(&["mi:7"])),
    ] {
        assert_eq!(c.call(&["FT.SEARCH", ix, q, "NOCONTENT", "DIALECT", "2"]), want, "{ix} {q}");
    }
}
