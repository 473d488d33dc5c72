//! FT.AGGREGATE and FT.SEARCH replies held against RediSearch 2.10.5's (each expected reply
//! below is RediSearch 2.10.5 + RedisJSON 2.8.3's, recorded side by side on Redis 7.4.1):
//! - a hash TAG read without LOAD is its whole list (the sorting vector's, normalized, when
//!   SORTABLE), which APPLY and SORTBY see as RediSearch does; only GROUPBY splits it
//!   (README's differences, #1258);
//! - SORTBY comparing a number with a value that is not one fails the query
//!   (`RSValue_Cmp` in `value.c` sets `Error converting string '%s' to number`);
//! - FT.SEARCH rows list their fields in the order the page's loader first met their names,
//!   the SORTBY attribute first (one `RLookup` for the page);
//! - an unknown symbol or function name that ends an expression leaves a NULL child in
//!   RediSearch's tree (`parser.y`), reported when the tree is bound
//!   (`ExprAST_GetLookupKeys`: `Missing (or badly formatted) value for expr->op.right`).

mod common;

use common::*;

fn b(x: &str) -> Resp {
    Resp::bulk(x)
}

fn row(kv: &[&str]) -> Resp {
    arr(kv.iter().map(|x| b(x)).collect())
}

fn err(c: &mut Conn, args: &[&str]) -> String {
    let r = c.call(args);
    assert!(r.is_error(), "{args:?} gave {r:?}");
    r.err().to_string()
}

#[test]
fn hash_tag_list_read_without_load_is_the_whole_list() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE idx ON HASH SCHEMA g TAG SORTABLE s TEXT SORTABLE t TAG"), ok());
    c.call(&["HSET", "d1", "g", "Ab,c", "s", "Hello", "t", "Xy,z"]);
    // RediSearch: [1, [g, ab,c, u, AB,C]] (before: folio's u was nil, g the array [ab, c]).
    assert_eq!(
        c.cmd("FT.AGGREGATE idx * APPLY upper(@g) AS u"),
        arr(vec![Resp::Int(1), row(&["g", "ab,c", "u", "AB,C"])])
    );
    assert_eq!(
        c.cmd("FT.AGGREGATE idx * APPLY @g AS u"),
        arr(vec![Resp::Int(1), row(&["g", "ab,c", "u", "ab,c"])])
    );
    assert_eq!(c.cmd("FT.AGGREGATE idx * SORTBY 1 @g"), arr(vec![Resp::Int(1), row(&["g", "ab,c"])]));
    assert_eq!(
        c.cmd("FT.AGGREGATE idx * GROUPBY 0 REDUCE TOLIST 1 @g AS l"),
        arr(vec![Resp::Int(1), arr(vec![b("l"), arr(vec![b("ab,c")])])])
    );
    // LOAD * put the hash's own value in the row: property reads find it there.
    assert_eq!(
        c.cmd("FT.AGGREGATE idx * LOAD * APPLY upper(@g) AS u"),
        arr(vec![Resp::Int(1), row(&["g", "Ab,c", "u", "AB,C", "s", "Hello", "t", "Xy,z"])])
    );
    assert_eq!(
        c.cmd("FT.AGGREGATE idx * LOAD * APPLY @s AS u"),
        arr(vec![Resp::Int(1), row(&["s", "Hello", "u", "Hello", "g", "Ab,c", "t", "Xy,z"])])
    );
    // An APPLY that replaced the list is not split by GROUPBY.
    assert_eq!(
        c.cmd("FT.AGGREGATE idx * APPLY upper(@g) AS g GROUPBY 1 @g"),
        arr(vec![Resp::Int(1), row(&["g", "AB,C"])])
    );
    // README's documented difference: GROUPBY makes one group per value (RediSearch: one
    // group `ab,c`).
    let r = c.cmd("FT.AGGREGATE idx * GROUPBY 1 @g SORTBY 1 @g");
    assert_eq!(r, arr(vec![Resp::Int(2), row(&["g", "ab"]), row(&["g", "c"])]));
}

#[test]
fn sortby_of_a_number_against_text_fails() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.cmd("FT.CREATE j ON JSON SCHEMA $.n AS n NUMERIC $.s AS s NUMERIC SORTABLE $.t AS t TEXT"),
        ok()
    );
    c.call(&["JSON.SET", "k1", "$", r#"{"n":[3,1],"s":[4,2],"t":"a","x":1}"#]);
    c.call(&["JSON.SET", "k2", "$", r#"{"n":[2],"s":1,"t":"a","x":"abc"}"#]);
    c.call(&["JSON.SET", "k3", "$", r#"{"n":5,"s":[7],"t":"a","x":"5"}"#]);
    let conv = |t: &str| format!("Error converting string '{t}' to number");
    assert_eq!(
        err(&mut c, &["FT.AGGREGATE", "j", "*", "LOAD", "1", "@n", "SORTBY", "1", "@n"]),
        conv("[3,1]")
    );
    assert_eq!(err(&mut c, &["FT.AGGREGATE", "j", "*", "SORTBY", "1", "@n", "DIALECT", "2"]), conv("[3,1]"));
    assert_eq!(
        err(&mut c, &["FT.AGGREGATE", "j", "*", "LOAD", "1", "@s", "SORTBY", "1", "@s"]),
        conv("[4,2]")
    );
    assert_eq!(
        err(&mut c, &["FT.AGGREGATE", "j", "*", "LOAD", "3", "$.x", "AS", "x", "SORTBY", "2", "@x", "DESC"]),
        conv("abc")
    );
    assert_eq!(
        err(
            &mut c,
            &[
                "FT.AGGREGATE", "j", "*", "LOAD", "3", "$.x", "AS", "x", "SORTBY", "2", "@x", "DESC", "MAX",
                "1"
            ]
        ),
        conv("abc")
    );
    assert_eq!(
        err(
            &mut c,
            &[
                "FT.AGGREGATE", "j", "*", "LOAD", "3", "$.x", "AS", "x", "GROUPBY", "1", "@x", "SORTBY", "1",
                "@x"
            ]
        ),
        conv("abc")
    );
    // DIALECT 3 values are the arrays of matches (duo values): they sort.
    let r = c.call(&["FT.AGGREGATE", "j", "*", "LOAD", "1", "@n", "SORTBY", "1", "@n", "DIALECT", "3"]);
    assert_eq!(r, arr(vec![Resp::Int(3), row(&["n", "[[2]]"]), row(&["n", "[[3,1]]"]), row(&["n", "[5]"])]));
}

#[test]
fn search_rows_list_fields_in_the_pages_load_order() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE h ON HASH SCHEMA n NUMERIC SORTABLE t TEXT"), ok());
    c.cmd("HSET d1 n 3 a 1 t x");
    c.cmd("HSET d2 t y z 2 n 1");
    c.cmd("HSET d3 b 5 n 2");
    let d = |k: &str, kv: &[&str]| vec![b(k), row(kv)];
    let page = |rows: Vec<Vec<Resp>>| {
        let mut v = vec![Resp::Int(3)];
        v.extend(rows.into_iter().flatten());
        arr(v)
    };
    assert_eq!(
        c.cmd("FT.SEARCH h * SORTBY n"),
        page(vec![
            d("d2", &["n", "1", "t", "y", "z", "2"]),
            d("d3", &["n", "2", "b", "5"]),
            d("d1", &["n", "3", "t", "x", "a", "1"])
        ])
    );
    assert_eq!(
        c.cmd("FT.SEARCH h * SORTBY t"),
        page(vec![
            d("d1", &["t", "x", "n", "3", "a", "1"]),
            d("d2", &["t", "y", "n", "1", "z", "2"]),
            d("d3", &["n", "2", "b", "5"])
        ])
    );
    assert_eq!(
        c.cmd("FT.SEARCH h *"),
        page(vec![
            d("d3", &["b", "5", "n", "2"]),
            d("d1", &["n", "3", "a", "1", "t", "x"]),
            d("d2", &["n", "1", "t", "y", "z", "2"])
        ])
    );
}

#[test]
fn an_unknown_name_ending_an_expression_is_a_missing_value() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE h ON HASH SCHEMA n NUMERIC SORTABLE t TEXT"), ok());
    c.cmd("HSET d1 n 3 t x");
    let apply = |c: &mut Conn, e: &str| err(c, &["FT.AGGREGATE", "h", "*", "APPLY", e, "AS", "y"]);
    let missing = |place: &str| format!("Missing (or badly formatted) value for {place}");
    // Errors inside a call's arguments come before its unknown name.
    assert_eq!(apply(&mut c, "tostr(@$.x)"), "Unknown symbol 'x'");
    assert_eq!(apply(&mut c, "foo(x)"), "Unknown symbol 'x'");
    assert_eq!(apply(&mut c, "tostr(@n)"), "Unknown function name 'tostr'");
    assert_eq!(apply(&mut c, "foo(@n)+1"), "Unknown function name 'foo'");
    assert_eq!(apply(&mut c, "x+1"), "Unknown symbol 'x'");
    assert_eq!(apply(&mut c, "x"), "Unknown symbol 'x'");
    // At the end of the text, below the root: a hole.
    assert_eq!(apply(&mut c, "@n+x"), missing("expr->op.right"));
    assert_eq!(apply(&mut c, "@n+$x"), missing("expr->op.right"));
    assert_eq!(apply(&mut c, "1+foo(@n)"), missing("expr->op.right"));
    assert_eq!(apply(&mut c, "!x"), missing("expr->inverted.child"));
    assert_eq!(apply(&mut c, "@n==x"), missing("expr->pred.right"));
    assert_eq!(apply(&mut c, "@n||foo()"), missing("expr->pred.right"));
    assert_eq!(err(&mut c, &["FT.AGGREGATE", "h", "*", "FILTER", "@n>x"]), missing("expr->pred.right"));
    // Properties bind left to right: an unknown one before the hole is the error.
    assert_eq!(apply(&mut c, "@q+x"), "Property `q` not loaded nor in pipeline");
    assert_eq!(apply(&mut c, "@x-y"), "Property `x` not loaded nor in pipeline");
}

#[test]
fn tolist_lists_values_in_redisearchs_dict_order() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE h ON HASH SCHEMA g TAG x NUMERIC SORTABLE w TEXT SORTABLE"), ok());
    for (i, (x, w)) in [
        ("7", "pear"),
        ("2", "apple"),
        ("9", "fig"),
        ("2", "kiwi"),
        ("4", "apple"),
        ("5", "plum"),
        ("11", "lime"),
    ]
    .iter()
    .enumerate()
    {
        c.call(&["HSET", &format!("d{}", i + 1), "g", "a", "x", x, "w", w]);
    }
    // RediSearch's dict buckets (`to_list.c`, `util/dict.c`); first-seen order was 7 2 9 4 5 11.
    let list = |items: &[&str]| arr(vec![Resp::Int(1), arr(vec![b("l"), row(items)])]);
    assert_eq!(
        c.cmd("FT.AGGREGATE h * GROUPBY 0 REDUCE TOLIST 1 @x AS l"),
        list(&["9", "2", "4", "7", "5", "11"])
    );
    assert_eq!(
        c.cmd("FT.AGGREGATE h * GROUPBY 0 REDUCE TOLIST 1 @w AS l"),
        list(&["pear", "apple", "lime", "fig", "plum", "kiwi"])
    );
}
