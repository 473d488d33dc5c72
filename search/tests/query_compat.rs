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
    }
}
