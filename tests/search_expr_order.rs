//! FT.AGGREGATE's and FT.CREATE's expressions where RediSearch 2.10.5 parses them: an
//! APPLY's or FILTER's expression when the pipeline is built, step by step
//! (`buildOutputPipeline`), after every argument was read; FT.CREATE's FILTER without binding
//! it. Its grammar's only unary minus is `number ::= MINUS NUMBER`.
//! Every expected reply was read off RediSearch 2.10.5, side by side with folio.

mod common;

use common::*;

fn setup(c: &mut Conn) {
    let r = c.call(&[
        "FT.CREATE", "i", "ON", "HASH", "PREFIX", "1", "d", "SCHEMA", "n", "NUMERIC", "SORTABLE", "t", "TEXT",
    ]);
    assert!(!r.is_error(), "{r:?}");
    c.call(&["HSET", "d1", "n", "5", "t", "hello"]);
}

fn err(c: &mut Conn, args: &[&str]) -> String {
    let mut all = vec!["FT.AGGREGATE", "i"];
    all.extend_from_slice(args);
    let r = c.call(&all);
    assert!(r.is_error(), "{args:?}: {r:?}");
    r.err().to_string()
}

/// The value of APPLY `expr` AS y on the one document, or the error text.
fn apply(c: &mut Conn, expr: &str) -> String {
    let r = c.call(&["FT.AGGREGATE", "i", "*", "APPLY", expr, "AS", "y"]);
    if r.is_error() {
        return r.err().to_string();
    }
    let row = r.items()[1].items();
    row[row.len() - 1].text()
}

#[test]
fn expression_errors_come_when_the_pipeline_is_built() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    // The APPLY's hole is reported before the later FILTER's syntax error.
    let e = err(&mut c, &["*", "APPLY", "@n+x", "AS", "y", "FILTER", "@n=="]);
    assert_eq!(e, "Missing (or badly formatted) value for expr->op.right");
    let e = err(&mut c, &["*", "FILTER", "@n==", "APPLY", "@n+x", "AS", "y"]);
    assert_eq!(e, "Syntax error at offset 2 near 'n'");
    // Arguments and the query come first.
    assert_eq!(
        err(&mut c, &["*", "APPLY", "1+", "AS", "y", "LIMIT", "a", "b"]),
        "LIMIT needs two numeric arguments"
    );
    assert_eq!(
        err(&mut c, &["*", "APPLY", "1+", "AS", "y", "BOGUS"]),
        "Unknown argument `BOGUS` at position 5 for <main>"
    );
    assert_eq!(
        err(&mut c, &["*", "APPLY", "1+", "AS", "y", "PARAMS", "1", "x"]),
        "Parameters must be specified in PARAM VALUE pairs"
    );
    assert_eq!(err(&mut c, &["(", "APPLY", "1+", "AS", "y"]), "Syntax error at offset 0 near ");
    // A GROUPBY before it still fails first, one after it second.
    assert_eq!(err(&mut c, &["*", "GROUPBY", "1", "@zz", "APPLY", "1+", "AS", "y"]), "No such property `zz`");
    assert_eq!(
        err(&mut c, &["*", "APPLY", "1+", "AS", "y", "GROUPBY", "1", "@zz"]),
        "Syntax error at offset 1 near '1'"
    );
}

#[test]
fn a_minus_negates_numbers_only() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    assert_eq!(apply(&mut c, "-x"), "Syntax error at offset 1 near 'x'");
    assert_eq!(apply(&mut c, "-@n"), "Syntax error at offset 1 near 'n'");
    assert_eq!(apply(&mut c, "- @n"), "Syntax error at offset 2 near 'n'");
    assert_eq!(apply(&mut c, "--@n"), "Syntax error at offset 1 near ''");
    assert_eq!(apply(&mut c, "-(1)"), "Syntax error at offset 1 near ''");
    assert_eq!(apply(&mut c, "-upper(1)"), "Syntax error at offset 1 near 'upper'");
    assert_eq!(apply(&mut c, "- inf"), "Syntax error at offset 2 near 'inf'");
    assert_eq!(apply(&mut c, "- 5"), "-5");
    assert_eq!(apply(&mut c, "--5"), "5");
    assert_eq!(apply(&mut c, "-+inf"), "-inf");
    assert_eq!(apply(&mut c, "2^-1"), "0.5");
    assert_eq!(apply(&mut c, "1+-2"), "-1");
}

/// `case()` is Redis 8.2's (backported to late 2.10 builds; RediSearch 2.10.5 has none):
/// folio keeps it, as README lists.
#[test]
fn case_is_the_redis_8_function() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    assert_eq!(apply(&mut c, "case(1,2,3)"), "2");
    assert_eq!(err(&mut c, &["*", "FILTER", "case(1,2)"]), "Function `case()` requires exactly 3 arguments");
}

#[test]
fn an_index_filter_with_a_hole_is_accepted_and_admits_nothing() {
    let s = Server::start();
    let mut c = s.conn();
    c.call(&["HSET", "z:0", "n", "3"]);
    let r = c.call(&[
        "FT.CREATE", "f", "ON", "HASH", "PREFIX", "1", "z:", "FILTER", "@n+x", "SCHEMA", "n", "NUMERIC",
    ]);
    assert_eq!(r, ok());
    let r = c.call(&[
        "FT.CREATE", "g", "ON", "HASH", "PREFIX", "1", "z:", "FILTER", "x", "SCHEMA", "n", "NUMERIC",
    ]);
    assert_eq!(r.err(), "Unknown symbol 'x'");
    c.call(&["HSET", "z:1", "n", "5"]);
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(c.call(&["FT.SEARCH", "f", "*", "NOCONTENT"]).items()[0].int(), 0);
}
