//! Query text RediSearch 2.10.5 reads differently from a plain split into words: a text
//! `$param`'s value and an escaped space are one term, stopwords inside a tag phrase.
//! FT.EXPLAIN and what FT.SEARCH finds, held against the reference's replies (side by side).

mod common;

use common::{ids, Db};
use search::Reply;

fn corpus() -> Db {
    let mut db = Db::new();
    assert_eq!(db.cmd(&["FT.CREATE", "idx", "SCHEMA", "t", "TEXT", "t1", "TEXT", "tg", "TAG"]), Reply::ok());
    db.hset("d1", &[("t", "Hello World"), ("tg", "hello world")]);
    db.hset("d3", &[("t", "world hello 5"), ("t1", "a b"), ("tg", "a b the c")]);
    db.hset("d4", &[("t", "a b c the"), ("t1", "the a b"), ("tg", "a b c")]);
    db.hset("d5", &[("t", "hello the world of x"), ("tg", "hello the world of x")]);
    db.hset("d6", &[("t1", "x b"), ("tg", "hello world of x")]);
    db
}

fn explain(db: &mut Db, q: &str, dialect: &str, params: &[&str]) -> String {
    let mut args = vec!["FT.EXPLAIN", "idx", q];
    args.extend_from_slice(params);
    args.extend_from_slice(&["DIALECT", dialect]);
    match db.cmd(&args) {
        Reply::Bulk(b) => String::from_utf8(b).unwrap(),
        other => format!("{other:?}"),
    }
}

fn found(db: &mut Db, q: &str, dialect: &str, params: &[&str]) -> Vec<String> {
    let mut args = vec!["FT.SEARCH", "idx", q, "NOCONTENT"];
    args.extend_from_slice(params);
    args.extend_from_slice(&["DIALECT", dialect]);
    let mut v = ids(&db.cmd(&args));
    v.sort();
    v
}

#[test]
fn a_text_param_is_one_lowercased_term() {
    // `QueryParam_Resolve` substitutes the whole value (`rm_strdupcase`) as one token node.
    let mut db = corpus();
    let p = ["PARAMS", "2", "p", "Hello World"];
    for d in ["2", "3"] {
        assert_eq!(
            explain(&mut db, "@t:$p", d, &p),
            "@t:UNION {\n  @t:hello world\n  @t:+hello world(expanded)\n}\n"
        );
        assert_eq!(explain(&mut db, "$p", d, &p), "UNION {\n  hello world\n  +hello world(expanded)\n}\n");
        assert_eq!(found(&mut db, "@t:$p", d, &p), Vec::<String>::new());
        assert_eq!(found(&mut db, "$p", d, &p), Vec::<String>::new());
    }
    // Stopwords inside the value are text of the term; its stem is the whole value's.
    let p = ["PARAMS", "2", "p", "a b the"];
    assert_eq!(
        explain(&mut db, "$p", "2", &p),
        "UNION {\n  a b the\n  +a b th(expanded)\n  a b th(expanded)\n}\n"
    );
    // A tag value was one already.
    assert_eq!(
        explain(&mut db, "@tg:{ $p }", "2", &["PARAMS", "2", "p", "Hello World"]),
        "TAG:@tg {\n  hello world\n}\n"
    );
    assert_eq!(found(&mut db, "@tg:{$p}", "2", &["PARAMS", "2", "p", "Hello World"]), ["d1"]);
}

#[test]
fn an_escaped_space_stays_in_the_term() {
    // `escaped_character = escape (punct | space | escape)` in both lexers.
    let mut db = corpus();
    for d in ["1", "2"] {
        assert_eq!(
            explain(&mut db, "@t:hello\\ world", d, &[]),
            "@t:UNION {\n  @t:hello world\n  @t:+hello world(expanded)\n}\n"
        );
        assert_eq!(found(&mut db, "@t:hello\\ world", d, &[]), Vec::<String>::new());
        // A vertical tab is a space to C's `isspace`: escaped, it stays in the term too.
        assert_eq!(explain(&mut db, "a\\\x0bb", d, &[]), "UNION {\n  a\x0bb\n  +a\x0bb(expanded)\n}\n");
    }
}

#[test]
fn a_tag_phrase_drops_stopwords_from_its_third_word() {
    // v2 `termlist ::= termlist param_term` adds a TERM only when it is no stopword.
    let mut db = corpus();
    assert_eq!(
        explain(&mut db, "@tg:{a b the c}", "2", &[]),
        "TAG:@tg {\n  INTERSECT {\n    a\n    b\n    c\n  }\n}\n"
    );
    assert_eq!(found(&mut db, "@tg:{a b the c}", "2", &[]), ["d4"]);
    assert_eq!(
        explain(&mut db, "@tg:{hello the world of x}", "2", &[]),
        "TAG:@tg {\n  INTERSECT {\n    hello\n    the\n    world\n    x\n  }\n}\n"
    );
    assert_eq!(found(&mut db, "@tg:{hello the world of x}", "2", &[]), Vec::<String>::new());
    assert_eq!(
        explain(&mut db, "@tg:{the a b}", "2", &[]),
        "TAG:@tg {\n  INTERSECT {\n    the\n    a\n    b\n  }\n}\n"
    );
    // v1: the same termlist, but a stopword among the first two words is the syntax error at
    // the list's `}`, quoting the word before it.
    assert_eq!(
        explain(&mut db, "@tg:{hello world of x}", "1", &[]),
        "TAG:@tg {\n  INTERSECT {\n    hello\n    world\n    x\n  }\n}\n"
    );
    assert_eq!(found(&mut db, "@tg:{hello world of x}", "1", &[]), Vec::<String>::new());
    assert_eq!(
        explain(&mut db, "@tg:{x y the|z}", "1", &[]),
        "TAG:@tg {\n  INTERSECT {\n    x\n    y\n  }\n  z\n}\n"
    );
    assert_eq!(explain(&mut db, "@tg:{a b the c}", "1", &[]), "Error(\"Syntax error at offset 14 near c\")");
    assert_eq!(explain(&mut db, "@tg:{x of|y}", "1", &[]), "Error(\"Syntax error at offset 11 near y\")");
    assert_eq!(explain(&mut db, "@tg:{ x  of }", "1", &[]), "Error(\"Syntax error at offset 12 near of\")");
    assert_eq!(explain(&mut db, "@tg:{the}", "1", &[]), "TAG:@tg {\n  the\n}\n");
}

#[test]
fn a_phrase_keeps_its_stopwords_from_dialect_2() {
    let mut db = corpus();
    for d in ["2", "3"] {
        assert_eq!(explain(&mut db, "@t1:\"a b\"", d, &[]), "@t1:EXACT {\n  @t1:a\n  @t1:b\n}\n");
        assert_eq!(found(&mut db, "@t1:\"a b\"", d, &[]), Vec::<String>::new());
        assert_eq!(
            explain(&mut db, "@t:\"hello the world\"", d, &[]),
            "@t:EXACT {\n  @t:hello\n  @t:the\n  @t:world\n}\n"
        );
        assert_eq!(found(&mut db, "@t:\"hello the world\"", d, &[]), Vec::<String>::new());
    }
    // Dialect 1: a stopword as a phrase's first or second word is the syntax error there.
    assert_eq!(explain(&mut db, "@t1:\"a b\"", "1", &[]), "Error(\"Syntax error at offset 5 near a\")");
    assert_eq!(explain(&mut db, "\"the a\"", "1", &[]), "Error(\"Syntax error at offset 1 near the\")");
    assert_eq!(explain(&mut db, "@t1:\"x a b\"", "1", &[]), "Error(\"Syntax error at offset 7 near a\")");
    assert_eq!(explain(&mut db, "\"x y the z\"", "1", &[]), "EXACT {\n  x\n  y\n  z\n}\n");
}

#[test]
fn dialect_1_term_lists_end_before_a_stopword_or_a_third_number() {
    let mut db = corpus();
    assert_eq!(
        explain(&mut db, "@t:hello world 5", "1", &[]),
        "INTERSECT {\n  @t:INTERSECT {\n    @t:UNION {\n      @t:hello\n      @t:+hello(expanded)\n    }\n    @t:UNION {\n      @t:world\n      @t:+world(expanded)\n    }\n  }\n  UNION {\n    5\n    +5(expanded)\n  }\n}\n"
    );
    assert_eq!(
        explain(&mut db, "@t:hello the world", "1", &[]),
        "INTERSECT {\n  @t:UNION {\n    @t:hello\n    @t:+hello(expanded)\n  }\n  UNION {\n    world\n    +world(expanded)\n  }\n}\n"
    );
    assert_eq!(
        explain(&mut db, "@t:the hello world", "1", &[]),
        "INTERSECT {\n  UNION {\n    hello\n    +hello(expanded)\n  }\n  UNION {\n    world\n    +world(expanded)\n  }\n}\n"
    );
    // A STOPWORD is a NULL node the intersection passes over: `the y z 5` is one list.
    assert_eq!(
        explain(&mut db, "-the y z is q", "1", &[]),
        "NOT{\n  INTERSECT {\n    y\n    z\n    q\n  }\n}\n"
    );
    // A field modifier on a STOPWORD is NULL too.
    assert_eq!(
        explain(&mut db, "@t:the y z 5 r", "1", &[]),
        "INTERSECT {\n  UNION {\n    y\n    +y(expanded)\n  }\n  UNION {\n    z\n    +z(expanded)\n  }\n  INTERSECT {\n    UNION {\n      5\n      +5(expanded)\n    }\n    UNION {\n      r\n      +r(expanded)\n    }\n  }\n}\n"
    );
    // A number second is a term of the list.
    assert_eq!(
        explain(&mut db, "@t:hello 5 world", "1", &[]),
        "@t:INTERSECT {\n  @t:UNION {\n    @t:hello\n    @t:+hello(expanded)\n  }\n  @t:UNION {\n    @t:5\n    @t:+5(expanded)\n  }\n  @t:UNION {\n    @t:world\n    @t:+world(expanded)\n  }\n}\n"
    );
}
