//! Issue 25: the expression language (APPLY / FILTER) and the query-text tokenizer on
//! the cases the differential tester measured against RediSearch 2.10.5 (46,000
//! recorded DIALECT 2 queries). Expected replies: the issue's (read off the reference),
//! and for the siblings RediSearch's source (`aggregate/expr/lexer.c`, `value.c`
//! `RSValue_ToNumber`, `functions/string.c`, `functions/date.c`, `rlookup.c`,
//! `query_parser/v2/lexer.c`).

mod common;

use common::*;

fn setup(c: &mut Conn) {
    assert!(!c.call(&["FT.CREATE", "i", "SCHEMA", "t", "TEXT", "n", "NUMERIC"]).is_error());
    c.call(&["HSET", "d1", "t", "hello equal lity swim pass", "n", "5"]);
}

/// The value of the one APPLY alias `x` of a one-row FT.AGGREGATE, or the error text.
fn apply(c: &mut Conn, expr: &str) -> String {
    let r = c.call(&["FT.AGGREGATE", "i", "*", "LOAD", "1", "@t", "APPLY", expr, "AS", "x", "DIALECT", "2"]);
    if r.is_error() {
        return format!("ERR {}", r.err());
    }
    let row = r.items()[1].items();
    let i = row.iter().position(|v| v.text() == "x").expect("x in row");
    match &row[i + 1] {
        Resp::Nil => "nil".into(),
        v => v.text(),
    }
}

#[test]
fn signed_inf_literals_are_numbers() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    assert_eq!(apply(&mut c, "(0.5)+(+inf)"), "inf");
    assert_eq!(apply(&mut c, "(0.5)+(-inf)"), "-inf");
    assert_eq!(apply(&mut c, "(+inf)>(1)"), "1");
    // RediSearch's scanner reads a bare `inf` as a symbol.
    assert!(apply(&mut c, "inf").contains("Unknown symbol 'inf'"));
    let r = c.call(&["FT.AGGREGATE", "i", "*", "LOAD", "1", "@n", "FILTER", "(@n)<(+inf)", "DIALECT", "2"]);
    assert_eq!(r.items()[0].int(), 1, "{r:?}");
}

#[test]
fn empty_string_is_zero_as_a_number() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    assert_eq!(apply(&mut c, "(0)+(\"\")"), "0");
    assert_eq!(apply(&mut c, "(0)<(\"\")"), "0");
    assert_eq!(apply(&mut c, "(0)==(\"\")"), "1");
    assert_eq!(apply(&mut c, "year(\"\")"), "1970");
    assert_eq!(apply(&mut c, "timefmt(\"\")"), "1970-01-01T00:00:00Z");
    assert_eq!(apply(&mut c, "abs(\"\")"), "0");
    assert_eq!(apply(&mut c, "log(\"\")"), "-inf");
    // A space is not a number (strtod converts nothing and stops before it).
    assert!(apply(&mut c, "(0)+(\" \")").contains("Could not convert value to a number"));
}

#[test]
fn substr_of_a_far_negative_offset_is_empty() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    assert_eq!(apply(&mut c, "substr(@t, -1000, 2)"), "");
    assert_eq!(apply(&mut c, "substr(@t, -4, 2)"), "pa");
    assert_eq!(apply(&mut c, "substr(@t, 0, 2)"), "he");
}

#[test]
fn query_text_semicolons_quotes_and_equals() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    let search = |c: &mut Conn, q: &str| c.call(&["FT.SEARCH", "i", q, "NOCONTENT", "DIALECT", "2"]);
    let r = search(&mut c, "swim;pass");
    assert_eq!(r.err(), "Syntax error at offset 4 near swim");
    let r = search(&mut c, "it's bob's");
    assert_eq!(r.err(), "Syntax error at offset 2 near s bob");
    let r = search(&mut c, "equal=lity");
    assert!(!r.is_error(), "{r:?}");
    assert_eq!(r.items()[0].int(), 1);
    // Escaped, `;` is text; a lone quote is skipped punctuation.
    assert!(!search(&mut c, "swim\\;pass").is_error());
    assert!(!search(&mut c, "swim'").is_error());
}

#[test]
fn load_all_resolves_schema_fields_on_hashes_and_only_sortables_on_json() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    let agg = |c: &mut Conn, idx: &str, expr: &str| {
        c.call(&["FT.AGGREGATE", idx, "*", "LOAD", "*", "APPLY", expr, "AS", "x", "DIALECT", "2"])
    };
    // Hash: LOAD * makes every schema field readable, but not other names.
    let r = agg(&mut c, "i", "exists(@n)");
    assert!(!r.is_error(), "{r:?}");
    assert!(agg(&mut c, "i", "exists(@zz)").err().contains("Property `zz` not loaded nor in pipeline"));
    // JSON: LOAD * loads the serialized document only.
    assert!(!c
        .call(&[
            "FT.CREATE", "j", "ON", "JSON", "SCHEMA", "$.n1", "AS", "n1", "NUMERIC", "$.s", "AS", "s",
            "NUMERIC", "SORTABLE"
        ])
        .is_error());
    c.call(&["JSON.SET", "jd", "$", r#"{"n1":1,"s":2}"#]);
    assert!(agg(&mut c, "j", "exists(@n1)").err().contains("Property `n1` not loaded nor in pipeline"));
    assert!(agg(&mut c, "j", "(@n1)||(1)").err().contains("Property `n1` not loaded nor in pipeline"));
    let r = agg(&mut c, "j", "exists(@s)");
    assert!(!r.is_error(), "{r:?}");
    // Loaded by name, it is there.
    let r = c.call(&["FT.AGGREGATE", "j", "*", "LOAD", "1", "@n1", "APPLY", "exists(@n1)", "AS", "x"]);
    assert!(!r.is_error(), "{r:?}");
}

#[test]
fn bad_expressions_get_error_replies() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    for e in
        ["", "(", "'", "\"", "+", "-", "@", "1 é", "+inf+", "((+inf", "substr(", "exists(", "1 # 2", "\\"]
    {
        let r = c.call(&["FT.AGGREGATE", "i", "*", "APPLY", e, "AS", "x"]);
        assert!(r.is_error(), "{e:?}: {r:?}");
    }
    assert!(s.conn().call(&["PING"]).text() == "PONG");
}

/// Sorting rows by a value that is `nan` for some of them (`log` of a negative number) is an
/// order like any other: every row comes back, `nan` above the numbers, then by the tie
/// order (a sort once saw an inconsistent comparison there and could fail).
#[test]
fn sorting_by_nan_values_returns_every_row() {
    let s = Server::start();
    let mut c = s.conn();
    assert!(!c.call(&["FT.CREATE", "i", "SCHEMA", "n", "NUMERIC", "SORTABLE"]).is_error());
    for k in 0..40 {
        c.call(&["HSET", &format!("d{k}"), "n", &((k * 7) % 23).to_string()]);
    }
    for dir in ["ASC", "DESC"] {
        let r = c.call(&[
            "FT.AGGREGATE", "i", "*", "LOAD", "1", "@n", "APPLY", "log(@n - 11)", "AS", "x", "SORTBY", "2",
            "@x", dir, "LIMIT", "0", "100",
        ]);
        assert!(!r.is_error(), "{r:?}");
        let xs: Vec<String> = r.items()[1..]
            .iter()
            .map(|row| {
                let row = row.items();
                let i = row.iter().position(|v| v.text() == "x").expect("x");
                row[i + 1].text()
            })
            .collect();
        assert_eq!(xs.len(), 40, "{dir}");
        // `log` of a negative number prints as C's `%g` of its NaN: `-nan`.
        let is_nan = |x: &String| x.ends_with("nan");
        let nans = xs.iter().filter(|x| is_nan(x)).count();
        assert!(nans > 0, "{xs:?}");
        // nan ranks above every number: last ascending, first descending.
        let at: Vec<usize> = xs.iter().enumerate().filter(|(_, x)| is_nan(x)).map(|(i, _)| i).collect();
        let want: Vec<usize> = if dir == "ASC" { (40 - nans..40).collect() } else { (0..nans).collect() };
        assert_eq!(at, want, "{dir}: {xs:?}");
    }
}
