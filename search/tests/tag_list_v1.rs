//! Tag lists as RediSearch 2.10.5 reads them in dialect 1 (and, the same table, dialect 2):
//! v1's lexer tokenizes the text between `{` and `}` (`{hello.world}` is the terms
//! `hello world`; `"`, `$p`, `-`, `@` there are syntax errors; a list needs no `}`), and
//! text affixes keep their case in FT.EXPLAIN. Every expected reply below is the
//! reference's, taken side by side (FT.EXPLAIN, and FT.SEARCH NOCONTENT's ids).

mod common;

use common::{ids, Db};
use search::Reply;

/// The tag values of the table's documents `d:0`… (SEPARATOR `;`, so `a,b` is one value).
const VALUES: &[&str] = &[
    "hello.world", "hello world", "hello", "world", "1.2", "a,b", "Hello World", "the", "hello world foo",
    "x y", "hello,world", "über", "1", "$p", "hello-world", "\"1.2\"", "x y z",
];

fn corpus() -> Db {
    let mut db = Db::new();
    let create =
        ["FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA", "t", "TAG", "SEPARATOR", ";"];
    let mut create = create.to_vec();
    create.extend_from_slice(&["txt", "TEXT"]);
    assert_eq!(db.cmd(&create), Reply::ok());
    for (i, v) in VALUES.iter().enumerate() {
        db.hset(&format!("d:{i}"), &[("t", v), ("txt", v)]);
    }
    db
}

/// A reply as the table writes it: an error `ERR <text>`, a bulk string its text.
fn text(r: Reply) -> String {
    match r {
        Reply::Bulk(b) => String::from_utf8(b).unwrap(),
        Reply::Error(e) => format!("ERR {}", e.strip_prefix("ERR ").unwrap_or(&e)),
        other => format!("{other:?}"),
    }
}

fn run(db: &mut Db, cmd: &str, q: &str, dialect: &str, extra: &[&str]) -> Reply {
    let params: &[&str] = if q.contains('$') { &["PARAMS", "2", "p", "hello"] } else { &[] };
    let mut args = vec![cmd, "idx", q];
    args.extend_from_slice(extra);
    args.extend_from_slice(params);
    args.extend_from_slice(&["DIALECT", dialect]);
    db.cmd(&args)
}

/// (query, dialect, FT.EXPLAIN, FT.SEARCH ids in document order or the error).
#[rustfmt::skip]
const CASES: &[(&str, u32, &str, &str)] = &[
    ("@t:{hello.world}", 1, "TAG:@t {\n  INTERSECT {\n    hello\n    world\n  }\n}\n", "d:1,d:6"),
    ("@t:{hello.world}", 2, "TAG:@t {\n  INTERSECT {\n    hello\n    world\n  }\n}\n", "d:1,d:6"),
    ("@t:{hello,world}", 1, "TAG:@t {\n  INTERSECT {\n    hello\n    world\n  }\n}\n", "d:1,d:6"),
    ("@t:{hello,world}", 2, "TAG:@t {\n  INTERSECT {\n    hello\n    world\n  }\n}\n", "d:1,d:6"),
    ("@t:{hello#world}", 1, "TAG:@t {\n  INTERSECT {\n    hello\n    world\n  }\n}\n", "d:1,d:6"),
    ("@t:{hello#world}", 2, "TAG:@t {\n  INTERSECT {\n    hello\n    world\n  }\n}\n", "d:1,d:6"),
    ("@t:{hello world*}", 1, "ERR Syntax error at offset 16 near world", "ERR Syntax error at offset 16 near world"),
    ("@t:{hello world*}", 2, "ERR Syntax error at offset 10 near world", "ERR Syntax error at offset 10 near world"),
    ("@t:{$p}", 1, "ERR Syntax error at offset 4 near p", "ERR Syntax error at offset 4 near p"),
    ("@t:{$p}", 2, "TAG:@t {\n  hello\n}\n", "d:2"),
    ("@t:{hello $p}", 1, "ERR Syntax error at offset 10 near p", "ERR Syntax error at offset 10 near p"),
    ("@t:{hello $p}", 2, "TAG:@t {\n  INTERSECT {\n    hello\n    hello\n  }\n}\n", ""),
    ("@t:{\"1.2\"}", 1, "ERR Syntax error at offset 4 near t", "ERR Syntax error at offset 4 near t"),
    ("@t:{\"1.2\"}", 2, "TAG:@t {\n  1.2\n}\n", "d:4"),
    ("@t:{\"hello world\"}", 1, "ERR Syntax error at offset 4 near t", "ERR Syntax error at offset 4 near t"),
    ("@t:{\"hello world\"}", 2, "TAG:@t {\n  hello world\n}\n", "d:1,d:6"),
    ("@t:{1.2}", 1, "TAG:@t {\n  1.2\n}\n", "d:4"),
    ("@t:{1.2}", 2, "TAG:@t {\n  1.2\n}\n", "d:4"),
    ("@t:{1.2.3}", 1, "TAG:@t {\n  INTERSECT {\n    1.2\n    3\n  }\n}\n", ""),
    ("@t:{1.2.3}", 2, "TAG:@t {\n  INTERSECT {\n    1.2\n    3\n  }\n}\n", ""),
    ("@t:{+1}", 1, "TAG:@t {\n  1\n}\n", "d:12"),
    ("@t:{+1}", 2, "TAG:@t {\n  +1\n}\n", ""),
    ("@t:{-x}", 1, "ERR Syntax error at offset 4 near t", "ERR Syntax error at offset 4 near t"),
    ("@t:{-x}", 2, "ERR Syntax error at offset 4 near t", "ERR Syntax error at offset 4 near t"),
    ("@t:{1.5b}", 1, "TAG:@t {\n  INTERSECT {\n    1.5\n    b\n  }\n}\n", ""),
    ("@t:{1.5b}", 2, "TAG:@t {\n  INTERSECT {\n    1.5\n    b\n  }\n}\n", ""),
    ("@t:{a,b}", 1, "ERR Syntax error at offset 7 near b", "ERR Syntax error at offset 7 near b"),
    ("@t:{a,b}", 2, "TAG:@t {\n  INTERSECT {\n    a\n    b\n  }\n}\n", ""),
    ("@t:{a\\,b}", 1, "TAG:@t {\n  a,b\n}\n", "d:5"),
    ("@t:{a\\,b}", 2, "TAG:@t {\n  a,b\n}\n", "d:5"),
    ("@t:{hello\\.world}", 1, "TAG:@t {\n  hello.world\n}\n", "d:0"),
    ("@t:{hello\\.world}", 2, "TAG:@t {\n  hello.world\n}\n", "d:0"),
    ("@t:{hello\\ world}", 1, "TAG:@t {\n  hello world\n}\n", "d:1,d:6"),
    ("@t:{hello\\ world}", 2, "TAG:@t {\n  hello world\n}\n", "d:1,d:6"),
    ("@t:{Hello\\ World}", 1, "TAG:@t {\n  hello world\n}\n", "d:1,d:6"),
    ("@t:{Hello\\ World}", 2, "TAG:@t {\n  hello world\n}\n", "d:1,d:6"),
    ("@t:{ hello | world }", 1, "TAG:@t {\n  hello\n  world\n}\n", "d:2,d:3"),
    ("@t:{ hello | world }", 2, "TAG:@t {\n  hello\n  world\n}\n", "d:2,d:3"),
    ("@t:{}", 1, "ERR Syntax error at offset 4 near t", "ERR Syntax error at offset 4 near t"),
    ("@t:{}", 2, "ERR Syntax error at offset 4 near t", "ERR Syntax error at offset 4 near t"),
    ("@t:{ }", 1, "ERR Syntax error at offset 5 near t", "ERR Syntax error at offset 5 near t"),
    ("@t:{ }", 2, "ERR Syntax error at offset 5 near t", "ERR Syntax error at offset 5 near t"),
    ("@t:{...}", 1, "ERR Syntax error at offset 7 near t", "ERR Syntax error at offset 7 near t"),
    ("@t:{...}", 2, "ERR Syntax error at offset 7 near t", "ERR Syntax error at offset 7 near t"),
    ("@t:{_}", 1, "ERR Syntax error at offset 5 near t", "ERR Syntax error at offset 5 near t"),
    ("@t:{_}", 2, "ERR Syntax error at offset 5 near t", "ERR Syntax error at offset 5 near t"),
    ("@t:{*}", 1, "ERR Syntax error at offset 4 near t", "ERR Syntax error at offset 4 near t"),
    ("@t:{*}", 2, "ERR Syntax error at offset 4 near t", "ERR Syntax error at offset 4 near t"),
    ("@t:{hello!}", 1, "TAG:@t {\n  hello\n}\n", "d:2"),
    ("@t:{hello!}", 2, "TAG:@t {\n  hello\n}\n", "d:2"),
    ("@t:{.hello}", 1, "TAG:@t {\n  hello\n}\n", "d:2"),
    ("@t:{.hello}", 2, "TAG:@t {\n  hello\n}\n", "d:2"),
    ("@t:{hello-world}", 1, "ERR Syntax error at offset 15 near world", "ERR Syntax error at offset 15 near world"),
    ("@t:{hello-world}", 2, "ERR Syntax error at offset 9 near hello", "ERR Syntax error at offset 9 near hello"),
    ("@t:{hello\\-world}", 1, "TAG:@t {\n  hello-world\n}\n", "d:14"),
    ("@t:{hello\\-world}", 2, "TAG:@t {\n  hello-world\n}\n", "d:14"),
    ("@t:{hello:world}", 1, "ERR Syntax error at offset 9 near hello", "ERR Syntax error at offset 9 near hello"),
    ("@t:{hello:world}", 2, "ERR Syntax error at offset 9 near hello", "ERR Syntax error at offset 9 near hello"),
    ("@t:{hello(world)}", 1, "ERR Syntax error at offset 16 near world", "ERR Syntax error at offset 16 near world"),
    ("@t:{hello(world)}", 2, "ERR Syntax error at offset 9 near hello", "ERR Syntax error at offset 9 near hello"),
    ("@t:{hello[x]}", 1, "ERR Syntax error at offset 9 near hello", "ERR Syntax error at offset 9 near hello"),
    ("@t:{hello[x]}", 2, "ERR Syntax error at offset 9 near hello", "ERR Syntax error at offset 9 near hello"),
    ("@t:{hello~}", 1, "ERR Syntax error at offset 10 near hello", "ERR Syntax error at offset 10 near hello"),
    ("@t:{hello~}", 2, "ERR Syntax error at offset 9 near hello", "ERR Syntax error at offset 9 near hello"),
    ("@t:{@hello}", 1, "ERR Syntax error at offset 4 near hello", "ERR Syntax error at offset 4 near hello"),
    ("@t:{@hello}", 2, "ERR Syntax error at offset 4 near hello", "ERR Syntax error at offset 4 near hello"),
    ("@t:{hello.wor*}", 1, "ERR Syntax error at offset 14 near wor", "ERR Syntax error at offset 14 near wor"),
    ("@t:{hello.wor*}", 2, "ERR Syntax error at offset 10 near wor", "ERR Syntax error at offset 10 near wor"),
    ("@t:{hello\\.wor*}", 1, "TAG:@t {\n  PREFIX{hello.wor*}\n}\n", "d:0"),
    ("@t:{hello\\.wor*}", 2, "TAG:@t {\n  PREFIX{hello.wor*}\n}\n", "d:0"),
    ("@t:{Hello\\ Wor*}", 1, "TAG:@t {\n  PREFIX{hello wor*}\n}\n", "d:1,d:6,d:8"),
    ("@t:{Hello\\ Wor*}", 2, "TAG:@t {\n  PREFIX{hello wor*}\n}\n", "d:1,d:6,d:8"),
    ("@t:{*llo}", 1, "TAG:@t {\n  SUFFIX{*llo}\n}\n", "d:2"),
    ("@t:{*llo}", 2, "TAG:@t {\n  SUFFIX{*llo}\n}\n", "d:2"),
    ("@t:{*ell*}", 1, "TAG:@t {\n  INFIX{*ell*}\n}\n", "d:0,d:1,d:2,d:6,d:8,d:10,d:14"),
    ("@t:{*ell*}", 2, "TAG:@t {\n  INFIX{*ell*}\n}\n", "d:0,d:1,d:2,d:6,d:8,d:10,d:14"),
    ("@t:{x y*}", 1, "ERR Syntax error at offset 8 near y", "ERR Syntax error at offset 8 near y"),
    ("@t:{x y*}", 2, "ERR Syntax error at offset 6 near y", "ERR Syntax error at offset 6 near y"),
    ("@t:{*x y}", 1, "ERR Syntax error at offset 8 near y", "ERR Syntax error at offset 8 near y"),
    ("@t:{*x y}", 2, "ERR Syntax error at offset 7 near y", "ERR Syntax error at offset 7 near y"),
    ("@t:{the}", 1, "TAG:@t {\n  the\n}\n", "d:7"),
    ("@t:{the}", 2, "TAG:@t {\n  the\n}\n", "d:7"),
    ("@t:{the|x}", 1, "TAG:@t {\n  the\n  x\n}\n", "d:7"),
    ("@t:{the|x}", 2, "TAG:@t {\n  the\n  x\n}\n", "d:7"),
    ("@t:{x the y}", 1, "ERR Syntax error at offset 11 near y", "ERR Syntax error at offset 11 near y"),
    ("@t:{x the y}", 2, "TAG:@t {\n  INTERSECT {\n    x\n    the\n    y\n  }\n}\n", ""),
    ("@t:{x y the z}", 1, "TAG:@t {\n  INTERSECT {\n    x\n    y\n    z\n  }\n}\n", "d:16"),
    ("@t:{x y the z}", 2, "TAG:@t {\n  INTERSECT {\n    x\n    y\n    z\n  }\n}\n", "d:16"),
    ("@t:{HELLO.WORLD}", 1, "TAG:@t {\n  INTERSECT {\n    hello\n    world\n  }\n}\n", "d:1,d:6"),
    ("@t:{HELLO.WORLD}", 2, "TAG:@t {\n  INTERSECT {\n    hello\n    world\n  }\n}\n", "d:1,d:6"),
    ("@t:{hello", 1, "TAG:@t {\n  hello\n}\n", "d:2"),
    ("@t:{hello", 2, "ERR Syntax error at offset 4 near hello", "ERR Syntax error at offset 4 near hello"),
    ("@t:{hello world", 1, "TAG:@t {\n  INTERSECT {\n    hello\n    world\n  }\n}\n", "d:1,d:6"),
    ("@t:{hello world", 2, "ERR Syntax error at offset 10 near world", "ERR Syntax error at offset 10 near world"),
    ("(@t:{x y)", 1, "TAG:@t {\n  INTERSECT {\n    x\n    y\n  }\n}\n", "d:9"),
    ("(@t:{x y)", 2, "ERR Syntax error at offset 8 near y", "ERR Syntax error at offset 8 near y"),
    ("@t:{hello|", 1, "ERR Syntax error at offset 9 near hello", "ERR Syntax error at offset 9 near hello"),
    ("@t:{hello|", 2, "ERR Syntax error at offset 9 near hello", "ERR Syntax error at offset 9 near hello"),
    ("@t:{hello}} world", 1, "INTERSECT {\n  TAG:@t {\n    hello\n  }\n  UNION {\n    world\n    +world(expanded)\n  }\n}\n", ""),
    ("@t:{hello}} world", 2, "ERR Syntax error at offset 10 near hello", "ERR Syntax error at offset 10 near hello"),
    ("@t:{hello} | x y", 1, "TAG:@t {\n  hello\n  INTERSECT {\n    x\n    y\n  }\n}\n", "d:2,d:9"),
    ("@t:{hello} | x y", 2, "UNION {\n  TAG:@t {\n    hello\n  }\n  INTERSECT {\n    UNION {\n      x\n      +x(expanded)\n    }\n    UNION {\n      y\n      +y(expanded)\n    }\n  }\n}\n", "d:2,d:9,d:16"),
    ("@t:{hello.world} | x", 1, "TAG:@t {\n  INTERSECT {\n    hello\n    world\n  }\n  x\n}\n", "d:1,d:6"),
    ("@t:{hello.world} | x", 2, "UNION {\n  TAG:@t {\n    INTERSECT {\n      hello\n      world\n    }\n  }\n  UNION {\n    x\n    +x(expanded)\n  }\n}\n", "d:1,d:6,d:9,d:16"),
    ("@t:{hello} | (world)", 1, "ERR Syntax error at offset 13 near hello", "ERR Syntax error at offset 13 near hello"),
    ("@t:{hello} | (world)", 2, "UNION {\n  TAG:@t {\n    hello\n  }\n  UNION {\n    world\n    +world(expanded)\n  }\n}\n", "d:0,d:1,d:2,d:3,d:6,d:8,d:10,d:14"),
    ("@t:{x (y)}", 1, "ERR Syntax error at offset 9 near y", "ERR Syntax error at offset 9 near y"),
    ("@t:{x (y)}", 2, "ERR Syntax error at offset 6 near x", "ERR Syntax error at offset 6 near x"),
    ("@t:{x [1 2]}", 1, "ERR Syntax error at offset 6 near x", "ERR Syntax error at offset 6 near x"),
    ("@t:{x [1 2]}", 2, "ERR Syntax error at offset 6 near x", "ERR Syntax error at offset 6 near x"),
    ("@t:{hello.world} foo", 1, "INTERSECT {\n  TAG:@t {\n    INTERSECT {\n      hello\n      world\n    }\n  }\n  UNION {\n    foo\n    +foo(expanded)\n  }\n}\n", ""),
    ("@t:{hello.world} foo", 2, "INTERSECT {\n  TAG:@t {\n    INTERSECT {\n      hello\n      world\n    }\n  }\n  UNION {\n    foo\n    +foo(expanded)\n  }\n}\n", ""),
    ("-@t:{hello.world}", 1, "NOT{\n  TAG:@t {\n    INTERSECT {\n      hello\n      world\n    }\n  }\n}\n", "d:0,d:2,d:3,d:4,d:5,d:7,d:8,d:9,d:10,d:11,d:12,d:13,d:14,d:15,d:16"),
    ("-@t:{hello.world}", 2, "NOT{\n  TAG:@t {\n    INTERSECT {\n      hello\n      world\n    }\n  }\n}\n", "d:0,d:2,d:3,d:4,d:5,d:7,d:8,d:9,d:10,d:11,d:12,d:13,d:14,d:15,d:16"),
];

#[test]
fn tag_lists_read_as_the_reference_does() {
    let mut db = corpus();
    let mut bad = Vec::new();
    for &(q, d, want_explain, want_found) in CASES {
        let d = d.to_string();
        let explain = text(run(&mut db, "FT.EXPLAIN", q, &d, &[]));
        let found = match run(&mut db, "FT.SEARCH", q, &d, &["NOCONTENT", "LIMIT", "0", "100"]) {
            r @ Reply::Array(_) => {
                let mut v = ids(&r);
                v.sort_by_key(|id| id[2..].parse::<u32>().unwrap_or(0));
                v.join(",")
            }
            other => text(other),
        };
        if explain != want_explain || found != want_found {
            bad.push(format!("{q:?} d{d}: explain {explain:?} (want {want_explain:?}), found {found:?} (want {want_found:?})"));
        }
    }
    assert!(bad.is_empty(), "{} of {} differ:\n{}", bad.len(), CASES.len(), bad.join("\n"));
}

/// Text affixes keep their case in FT.EXPLAIN (`NewPrefixNode_WithParams` only unescapes),
/// while matching folds it; a parameter's value is lower-cased (`*$p`, `$p*`), a wildcard's
/// kept. The reference's replies.
#[test]
fn text_affixes_keep_their_case_in_explain() {
    let mut db = corpus();
    let cases: &[(&str, &str, &str)] = &[
        ("Hello\\ World*", "1", "PREFIX{Hello World*}\n"),
        ("Hello\\ World*", "2", "PREFIX{Hello World*}\n"),
        ("@txt:Hello\\ World*", "2", "@txt:PREFIX{Hello World*}\n"),
        ("Hello\\.World*", "1", "PREFIX{Hello.World*}\n"),
        ("HELLO*", "2", "PREFIX{HELLO*}\n"),
        ("*World", "1", "SUFFIX{*World}\n"),
        ("*Wor*", "2", "INFIX{*Wor*}\n"),
        ("-Hello*", "1", "NOT{\n  PREFIX{Hello*}\n}\n"),
        ("Hello*=>{$weight:2}", "2", "PREFIX{Hello*} => { $weight: 2; }\n"),
        ("w'Hel*'", "2", "WILDCARD{Hel*}\n"),
        // Inside a tag list the value is folded (the tag field is not CASESENSITIVE).
        ("@t:{Hello\\ Wor*}", "1", "TAG:@t {\n  PREFIX{hello wor*}\n}\n"),
        ("%Helo%", "2", "FUZZY{helo}\n"),
    ];
    for &(q, d, want) in cases {
        assert_eq!(text(run(&mut db, "FT.EXPLAIN", q, d, &[])), want, "{q} d{d}");
    }
    // Matching folds the case (the reference: 7 documents for `Hello*`, the tag prefix
    // finds d:1, d:6, d:8).
    let total = |r: Reply| common::total(&r);
    assert_eq!(total(run(&mut db, "FT.SEARCH", "Hello*", "1", &["NOCONTENT", "LIMIT", "0", "0"])), 7);
    let mut tags = ids(&run(&mut db, "FT.SEARCH", "@t:{Hello\\ Wor*}", "1", &["NOCONTENT"]));
    tags.sort();
    assert_eq!(tags, ["d:1", "d:6", "d:8"]);
    let p = ["PARAMS", "2", "p", "HeLLo"];
    for (q, want) in [
        ("$p*", "PREFIX{hello*}\n"),
        ("*$p", "SUFFIX{*hello}\n"),
        ("*$p*", "INFIX{*hello*}\n"),
        ("w'$p'", "WILDCARD{HeLLo}\n"),
    ] {
        let r = db.cmd(&["FT.EXPLAIN", "idx", q, p[0], p[1], p[2], p[3], "DIALECT", "2"]);
        assert_eq!(text(r), want, "{q}");
    }
}

/// A reply as nested lists of texts: `[TERM helo [[0.4 hello]]]`.
fn flat(r: &Reply) -> String {
    match r {
        Reply::Array(v) => format!("[{}]", v.iter().map(flat).collect::<Vec<_>>().join(" ")),
        Reply::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        Reply::Simple(s) => s.clone(),
        Reply::Double(d) => d.to_string(),
        other => format!("{other:?}"),
    }
}

/// FT.SPELLCHECK meets a tag list's values as RediSearch's walk of the parsed query does
/// (`QueryNode_ForEach` over every QN_TOKEN, a tag's children too): a lone value as written,
/// a run of words lower-cased; affixes are no tokens. The query is parsed without the
/// index's stopwords (`RSSearchOptions opts = {0}` in `SpellCheckCommand`), so `the` is
/// a word there. The reference's replies, both dialects.
#[test]
fn spellcheck_reads_tag_values() {
    let mut db = corpus();
    let (helo, wrld) =
        ("[TERM helo [[0.4117647058823529 hello]]]", "[TERM wrld [[0.4117647058823529 world]]]");
    let cases = [
        ("@t:{helo|wrld}", format!("[{helo} {wrld}]")),
        ("@t:{Helo}", "[[TERM Helo [[0.4117647058823529 hello]]]]".to_string()),
        ("@t:{HELO WRLD}", format!("[{helo} {wrld}]")),
        ("@t:{x the y}", "[[TERM the []]]".to_string()),
        ("@t:{helo*}", "[]".to_string()),
        ("@t:{helo} wrld", format!("[{helo} {wrld}]")),
        ("the helo", format!("[[TERM the []] {helo}]")),
        ("\"the helo\"", format!("[[TERM the []] {helo}]")),
    ];
    for (q, want) in &cases {
        for d in ["1", "2"] {
            assert_eq!(flat(&db.cmd(&["FT.SPELLCHECK", "idx", q, "DIALECT", d])), *want, "{q} d{d}");
        }
    }
}
