//! Numbers in query text, as RediSearch 2.10.5's lexers read them (`number` in
//! `query_parser/v1/lexer.rl` and `v2/lexer.rl`, `term ::= NUMBER` in both grammars): FT.EXPLAIN
//! and what FT.SEARCH finds, held against the reference's replies.

mod common;

use common::{ids, Db};
use search::Reply;

fn corpus() -> Db {
    let mut db = Db::new();
    assert_eq!(
        db.cmd(&["FT.CREATE", "idx", "SCHEMA", "title", "TAG", "t1", "TEXT", "t2", "TEXT", "num", "NUMERIC"]),
        Reply::ok()
    );
    db.hset("d1", &[("t1", "version 1.2e+3 released"), ("t2", "alpha"), ("num", "1200"), ("title", "1.5")]);
    db.hset("d2", &[("t1", "value 1.2 and 5"), ("t2", "beta 5.5"), ("num", "1.2"), ("title", "-2")]);
    db.hset("d3", &[("t1", "-5 degrees below"), ("t2", "gamma"), ("num", "-5"), ("title", "1e3")]);
    db.hset("d5", &[("t1", "inf infinity running"), ("t2", "1e3"), ("num", "1000"), ("title", "inf")]);
    db.hset("d8", &[("t1", "5 running men 1E3"), ("t2", "+3 e 1"), ("num", "5"), ("title", "5.5")]);
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

fn found(db: &mut Db, q: &str, dialect: &str) -> Vec<String> {
    let mut v = ids(&db.cmd(&["FT.SEARCH", "idx", q, "NOCONTENT", "DIALECT", dialect]));
    v.sort();
    v
}

#[test]
fn dialect_2_numbers_are_verbatim_terms() {
    let mut db = corpus();
    // One NUMBER token, as written (not case-folded), never expanded.
    assert_eq!(explain(&mut db, "1.2e+3", "2", &[]), "1.2e+3\n");
    assert_eq!(explain(&mut db, "1.2E3", "2", &[]), "1.2E3\n");
    assert_eq!(explain(&mut db, "705", "2", &[]), "705\n");
    assert_eq!(explain(&mut db, "-5", "2", &[]), "-5\n");
    assert_eq!(explain(&mut db, "+5", "3", &[]), "+5\n");
    assert_eq!(explain(&mut db, "inf", "2", &[]), "inf\n");
    assert_eq!(explain(&mut db, "-inf", "2", &[]), "-inf\n");
    assert_eq!(explain(&mut db, "@t1:5.5", "2", &[]), "@t1:5.5\n");
    assert_eq!(explain(&mut db, "5=>{$weight:2}", "2", &[]), "5 => {$weight: 2;}\n");
    // `1.` is 1 then punctuation; `+3` a number of its own (NUMBER binds tighter than AND).
    assert_eq!(
        explain(&mut db, "1.e+3", "2", &[]),
        "INTERSECT {\n  1\n  INTERSECT {\n    UNION {\n      e\n      +e(expanded)\n    }\n    +3\n  }\n}\n"
    );
    // The longest match: `a1.5b` is the terms `a1` and `5b`, `1.5b` the number 1.5 and `b`.
    assert_eq!(
        explain(&mut db, "1.5b", "2", &[]),
        "INTERSECT {\n  1.5\n  UNION {\n    b\n    +b(expanded)\n  }\n}\n"
    );
    assert_eq!(
        explain(&mut db, "a1.5b", "2", &[]),
        "INTERSECT {\n  UNION {\n    a1\n    +a1(expanded)\n  }\n  UNION {\n    5b\n    +5b(expanded)\n  }\n}\n"
    );
    assert_eq!(explain(&mut db, "1.2*", "2", &[]), "PREFIX{1.2*}\n");
    assert_eq!(explain(&mut db, "%5.5%", "2", &[]), "FUZZY{5.5}\n");
    // The documents were tokenized at the point: no term `1.2e+3`, `1.2` or `+5` is indexed.
    assert!(found(&mut db, "1.2e+3", "2").is_empty());
    assert!(found(&mut db, "1.2", "2").is_empty());
    assert!(found(&mut db, "+5", "2").is_empty());
    assert!(found(&mut db, "1E3", "2").is_empty());
    assert_eq!(found(&mut db, "1e3", "2"), ["d5", "d8"]);
    assert_eq!(found(&mut db, "5", "2"), ["d2", "d3", "d8"]);
    // Numeric ranges read their numbers as before.
    assert_eq!(explain(&mut db, "@num:[1.5 2e3]", "2", &[]), "NUMERIC {1.500000 <= @num <= 2000.000000}\n");
    assert_eq!(found(&mut db, "@num:[1.5 2e3]", "2"), ["d1", "d5", "d8"]);
}

#[test]
fn dialect_2_number_params_are_verbatim() {
    let mut db = corpus();
    // `ParseDouble` reads the whole value: the term is lower-cased, not expanded.
    assert_eq!(explain(&mut db, "$p", "2", &["PARAMS", "2", "p", "1.2e-3"]), "1.2e-3\n");
    assert_eq!(explain(&mut db, "$p", "2", &["PARAMS", "2", "p", "-inf"]), "-inf\n");
    assert_eq!(explain(&mut db, "$p", "2", &["PARAMS", "2", "p", "0x10"]), "0x10\n");
    assert_eq!(explain(&mut db, "@t1:$p", "2", &["PARAMS", "2", "p", "705"]), "@t1:705\n");
    assert_eq!(
        explain(&mut db, "$p", "2", &["PARAMS", "2", "p", "cherry1"]),
        "UNION {\n  cherry1\n  +cherry1(expanded)\n}\n"
    );
}

#[test]
fn dialect_1_numbers_are_terms() {
    let mut db = corpus();
    let u = |t: &str| format!("  UNION {{\n    {t}\n    +{t}(expanded)\n  }}\n");
    assert_eq!(
        explain(&mut db, "1.2e+3", "1", &[]),
        format!("INTERSECT {{\n{}{}{}}}\n", u("1.2"), u("e"), u("3"))
    );
    assert_eq!(explain(&mut db, "1.2E3", "1", &[]), "UNION {\n  1.2e3\n  +1.2e3(expanded)\n}\n");
    assert_eq!(explain(&mut db, "-inf", "1", &[]), "UNION {\n  -inf\n  +-inf(expanded)\n}\n");
    assert_eq!(explain(&mut db, "\"value 1.2\"", "1", &[]), "EXACT {\n  value\n  1.2\n}\n");
    assert_eq!(explain(&mut db, "\"-5 degrees\"", "1", &[]), "EXACT {\n  -5\n  degrees\n}\n");
    assert!(found(&mut db, "1.2", "1").is_empty());
    assert!(found(&mut db, "\"value 1.2\"", "1").is_empty());
    // Not a phrase: `1`, `e` and `3` anywhere.
    assert_eq!(found(&mut db, "1.e+3", "1"), ["d8"]);
    // v1's exponent takes no `+`: `1e` is a term, which no range rule takes.
    assert_eq!(explain(&mut db, "@num:[1e+3 2e3]", "1", &[]), "Error(\"Syntax error at offset 6 near 1e\")");
    assert_eq!(
        explain(&mut db, "@num:[1.2e+3 +inf]", "1", &[]),
        "Error(\"Syntax error at offset 9 near e\")"
    );
    assert_eq!(explain(&mut db, "@num:[-1.5e-1 inf]", "1", &[]), "NUMERIC {-0.150000 <= @num <= inf}\n");
}

#[test]
fn punctuation_separates_terms() {
    let mut db = corpus();
    // `men.running` is two terms (an intersection), not a phrase.
    assert_eq!(found(&mut db, "men.running", "1"), ["d8"]);
    assert_eq!(found(&mut db, "men.running", "2"), ["d8"]);
}

/// The bulk strings of a reply, depth-first.
fn strings(r: &Reply, out: &mut Vec<String>) {
    match r {
        Reply::Bulk(b) => out.push(String::from_utf8_lossy(b).into_owned()),
        Reply::Array(v) => v.iter().for_each(|x| strings(x, out)),
        _ => {}
    }
}

#[test]
fn spellcheck_reads_numbers_as_terms() {
    let mut db = corpus();
    let mut check = |q: &str, d: &str| {
        let mut v = Vec::new();
        strings(&db.cmd(&["FT.SPELLCHECK", "idx", q, "DIALECT", d]), &mut v);
        v
    };
    // Every token node is checked: a number too, whole, as written (RediSearch's trie lookup
    // folds case: `1E3` is in the index).
    assert!(check("1.2e+3", "2").contains(&"1.2e+3".to_string()));
    assert!(check("1.2", "1").contains(&"1.2".to_string()));
    assert!(check("1E3", "2").is_empty());
}
