//! SORTABLE attributes of a JSON index holding several values (an array, or a path with
//! several matches), held against RediSearch 2.10.5's replies (each expected reply below is
//! RediSearch 2.10.5 + RedisJSON 2.8's, recorded side by side with folio). The rule
//! (`JSON_LoadDocumentField` in json.c, `RSSortingVector_Put` with `RS_SORTABLE_RSVAL` in
//! document.c's preprocessors): the sorting vector holds a duo value made by
//! `jsonIterToValue` at DIALECT 3, its first value (the first match, or an array match's
//! first item, as the document holds it: never case-folded) and the JSON text of every
//! match. So:
//! - FT.SEARCH's SORTBY attribute, returned before the document, is that first value before
//!   DIALECT 3 (`serializeResult`), the text of every match from DIALECT 3; WITHSORTKEYS
//!   shows the first value (`reeval_key`);
//! - sorting compares two duos by their first values, but a duo against a single string is
//!   the empty string to `RSValue_Cmp` (`RSValue_ConvertStringPtrLen`), so every
//!   several-valued document sorts before the single-valued ones (ASC);
//! - GROUPBY, SORTBY and APPLY read a SORTABLE attribute from the sorting vector
//!   (`RLookup_GetItem` falls back to it), a TAG too: a JSON array groups by its first value
//!   (`Ab`, `ab` and `x` apart); a hash's `Ab,c` groups by its case-folded whole value `ab,c`
//!   there, one group per value in folio (README's differences, the last test);
//! - a duo never equals a string (`@g=="Bb"` is 0 for `["Bb","a"]`), and `upper()` reads its
//!   first value (`RSValue_StringPtrLen`).
//!
//! A hash's SORTABLE TEXT attribute named as its hash field shows the field itself (`Hello`:
//! the whole-hash load overwrites the sorter's `hello`).

mod common;

use common::*;

fn b(x: &str) -> Resp {
    Resp::bulk(x)
}

fn s(x: &str) -> Resp {
    Resp::Simple(x.into())
}

fn map(pairs: Vec<(Resp, Resp)>) -> Resp {
    Resp::Map(pairs)
}

fn server() -> Server {
    let srv = Server::start();
    let mut c = srv.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "idx", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.t", "AS", "t", "TEXT",
            "SORTABLE", "$.g", "AS", "g", "TAG", "SORTABLE", "$.n", "AS", "n", "NUMERIC", "SORTABLE",
            "$.h[*]", "AS", "h", "TAG", "SORTABLE"
        ]),
        ok()
    );
    assert_eq!(
        c.call(&[
            "FT.CREATE", "hidx", "ON", "HASH", "PREFIX", "1", "h:", "SCHEMA", "t", "TEXT", "SORTABLE", "g",
            "TAG", "SORTABLE"
        ]),
        ok()
    );
    assert_eq!(
        c.call(&["JSON.SET", "j:1", "$", r#"{"t":"hello","g":["Ab","c"],"n":[3,1],"h":["Q","p"]}"#]),
        ok()
    );
    assert_eq!(
        c.call(&["JSON.SET", "j:2", "$", r#"{"t":["hello","World"],"g":"Bb","n":2,"h":["m"]}"#]),
        ok()
    );
    assert_eq!(
        c.call(&["JSON.SET", "j:3", "$", r#"{"t":"hello there","g":["x","Y"],"n":[5],"h":["A"]}"#]),
        ok()
    );
    assert_eq!(c.call(&["JSON.SET", "j:4", "$", r#"{"t":"hello","g":"a","n":10,"h":["Zeta","b"]}"#]), ok());
    assert_eq!(
        c.call(&["JSON.SET", "j:5", "$", r#"{"t":"hello","g":["Bb","a"],"n":[-1,4],"h":["ab","AB"]}"#]),
        ok()
    );
    assert_eq!(c.call(&["JSON.SET", "j:6", "$", r#"{"t":"hello"}"#]), ok());
    assert_eq!(c.call(&["HSET", "h:1", "t", "Hello", "g", "Ab,c"]), Resp::Int(2));
    assert_eq!(c.call(&["HSET", "h:2", "t", "World", "g", "Bb"]), Resp::Int(2));
    assert_eq!(c.call(&["HSET", "h:3", "t", "hello there", "g", "x, Y"]), Resp::Int(2));
    srv
}

/// Checks every case, each on a connection speaking its protocol.
fn check(cases: &[(u8, &[&str], Resp)]) {
    let srv = server();
    let (mut c2, mut c3) = (srv.conn(), srv.conn());
    c3.resp3();
    for (proto, args, want) in cases {
        let c = if *proto == 3 { &mut c3 } else { &mut c2 };
        assert_eq!(&c.call(args), want, "RESP{proto} {}", args.join(" "));
    }
}

/// FT.SEARCH: the SORTBY attribute shown, the order, WITHSORTKEYS.
#[test]
fn ft_search_sorts_and_shows_a_multi_value_sortable_as_its_sorting_vector_duo() {
    check(&[
        (
            2,
            &["FT.SEARCH", "idx", "hello", "SORTBY", "g", "DIALECT", "1"],
            arr(vec![
                Resp::Int(6),
                b("j:1"),
                arr(vec![
                    b("g"),
                    b("Ab"),
                    b("$"),
                    b(r#"{"t":"hello","g":["Ab","c"],"n":[3,1],"h":["Q","p"]}"#),
                ]),
                b("j:5"),
                arr(vec![
                    b("g"),
                    b("Bb"),
                    b("$"),
                    b(r#"{"t":"hello","g":["Bb","a"],"n":[-1,4],"h":["ab","AB"]}"#),
                ]),
                b("j:3"),
                arr(vec![
                    b("g"),
                    b("x"),
                    b("$"),
                    b(r#"{"t":"hello there","g":["x","Y"],"n":[5],"h":["A"]}"#),
                ]),
                b("j:2"),
                arr(vec![b("g"), b("Bb"), b("$"), b(r#"{"t":["hello","World"],"g":"Bb","n":2,"h":["m"]}"#)]),
                b("j:4"),
                arr(vec![b("g"), b("a"), b("$"), b(r#"{"t":"hello","g":"a","n":10,"h":["Zeta","b"]}"#)]),
                b("j:6"),
                arr(vec![b("$"), b(r#"{"t":"hello"}"#)]),
            ]),
        ),
        (
            3,
            &["FT.SEARCH", "idx", "hello", "SORTBY", "g", "DIALECT", "2"],
            map(vec![
                (s("attributes"), arr(vec![])),
                (s("total_results"), Resp::Int(6)),
                (s("format"), s("STRING")),
                (
                    s("results"),
                    arr(vec![
                        map(vec![
                            (s("id"), b("j:1")),
                            (
                                s("extra_attributes"),
                                map(vec![
                                    (b("g"), b("Ab")),
                                    (b("$"), b(r#"{"t":"hello","g":["Ab","c"],"n":[3,1],"h":["Q","p"]}"#)),
                                ]),
                            ),
                            (s("values"), arr(vec![])),
                        ]),
                        map(vec![
                            (s("id"), b("j:5")),
                            (
                                s("extra_attributes"),
                                map(vec![
                                    (b("g"), b("Bb")),
                                    (b("$"), b(r#"{"t":"hello","g":["Bb","a"],"n":[-1,4],"h":["ab","AB"]}"#)),
                                ]),
                            ),
                            (s("values"), arr(vec![])),
                        ]),
                        map(vec![
                            (s("id"), b("j:3")),
                            (
                                s("extra_attributes"),
                                map(vec![
                                    (b("g"), b("x")),
                                    (b("$"), b(r#"{"t":"hello there","g":["x","Y"],"n":[5],"h":["A"]}"#)),
                                ]),
                            ),
                            (s("values"), arr(vec![])),
                        ]),
                        map(vec![
                            (s("id"), b("j:2")),
                            (
                                s("extra_attributes"),
                                map(vec![
                                    (b("g"), b("Bb")),
                                    (b("$"), b(r#"{"t":["hello","World"],"g":"Bb","n":2,"h":["m"]}"#)),
                                ]),
                            ),
                            (s("values"), arr(vec![])),
                        ]),
                        map(vec![
                            (s("id"), b("j:4")),
                            (
                                s("extra_attributes"),
                                map(vec![
                                    (b("g"), b("a")),
                                    (b("$"), b(r#"{"t":"hello","g":"a","n":10,"h":["Zeta","b"]}"#)),
                                ]),
                            ),
                            (s("values"), arr(vec![])),
                        ]),
                        map(vec![
                            (s("id"), b("j:6")),
                            (s("extra_attributes"), map(vec![(b("$"), b(r#"{"t":"hello"}"#))])),
                            (s("values"), arr(vec![])),
                        ]),
                    ]),
                ),
                (s("warning"), arr(vec![])),
            ]),
        ),
        (
            2,
            &["FT.SEARCH", "idx", "hello", "SORTBY", "g", "DIALECT", "3"],
            arr(vec![
                Resp::Int(6),
                b("j:1"),
                arr(vec![
                    b("g"),
                    b(r#"[["Ab","c"]]"#),
                    b("$"),
                    b(r#"[{"t":"hello","g":["Ab","c"],"n":[3,1],"h":["Q","p"]}]"#),
                ]),
                b("j:5"),
                arr(vec![
                    b("g"),
                    b(r#"[["Bb","a"]]"#),
                    b("$"),
                    b(r#"[{"t":"hello","g":["Bb","a"],"n":[-1,4],"h":["ab","AB"]}]"#),
                ]),
                b("j:3"),
                arr(vec![
                    b("g"),
                    b(r#"[["x","Y"]]"#),
                    b("$"),
                    b(r#"[{"t":"hello there","g":["x","Y"],"n":[5],"h":["A"]}]"#),
                ]),
                b("j:2"),
                arr(vec![
                    b("g"),
                    b("Bb"),
                    b("$"),
                    b(r#"[{"t":["hello","World"],"g":"Bb","n":2,"h":["m"]}]"#),
                ]),
                b("j:4"),
                arr(vec![b("g"), b("a"), b("$"), b(r#"[{"t":"hello","g":"a","n":10,"h":["Zeta","b"]}]"#)]),
                b("j:6"),
                arr(vec![b("$"), b(r#"[{"t":"hello"}]"#)]),
            ]),
        ),
        (
            2,
            &["FT.SEARCH", "idx", "*", "SORTBY", "g", "ASC", "WITHSORTKEYS", "RETURN", "1", "g"],
            arr(vec![
                Resp::Int(6),
                b("j:1"),
                b("$Ab"),
                arr(vec![b("g"), b(r#"["Ab","c"]"#)]),
                b("j:5"),
                b("$Bb"),
                arr(vec![b("g"), b(r#"["Bb","a"]"#)]),
                b("j:3"),
                b("$x"),
                arr(vec![b("g"), b(r#"["x","Y"]"#)]),
                b("j:2"),
                b("$Bb"),
                arr(vec![b("g"), b("Bb")]),
                b("j:4"),
                b("$a"),
                arr(vec![b("g"), b("a")]),
                b("j:6"),
                Resp::Nil,
                arr(vec![]),
            ]),
        ),
        (
            2,
            &["FT.SEARCH", "idx", "*", "SORTBY", "g", "DESC", "NOCONTENT"],
            arr(vec![Resp::Int(6), b("j:4"), b("j:2"), b("j:3"), b("j:5"), b("j:1"), b("j:6")]),
        ),
        (
            2,
            &["FT.SEARCH", "idx", "*", "SORTBY", "t", "DESC", "NOCONTENT"],
            arr(vec![Resp::Int(6), b("j:3"), b("j:6"), b("j:5"), b("j:4"), b("j:1"), b("j:2")]),
        ),
        (
            2,
            &["FT.SEARCH", "idx", "*", "SORTBY", "h", "ASC", "NOCONTENT"],
            arr(vec![Resp::Int(6), b("j:1"), b("j:4"), b("j:5"), b("j:3"), b("j:2"), b("j:6")]),
        ),
        (
            2,
            &["FT.SEARCH", "idx", "*", "SORTBY", "n", "ASC", "RETURN", "1", "t"],
            arr(vec![
                Resp::Int(6),
                b("j:5"),
                arr(vec![b("t"), b("hello")]),
                b("j:2"),
                arr(vec![b("t"), b(r#"["hello","World"]"#)]),
                b("j:1"),
                arr(vec![b("t"), b("hello")]),
                b("j:3"),
                arr(vec![b("t"), b("hello there")]),
                b("j:4"),
                arr(vec![b("t"), b("hello")]),
                b("j:6"),
                arr(vec![b("t"), b("hello")]),
            ]),
        ),
    ]);
}

/// FT.AGGREGATE: GROUPBY, SORTBY, WITHSORTKEYS, comparisons and upper() of the duo.
#[test]
fn ft_aggregate_reads_a_multi_value_sortable_from_its_sorting_vector() {
    check(&[
        (
            2,
            &[
                "FT.AGGREGATE", "idx", "*", "GROUPBY", "1", "@g", "REDUCE", "COUNT", "0", "AS", "cnt",
                "SORTBY", "4", "@g", "ASC", "@cnt", "ASC", "DIALECT", "1",
            ],
            arr(vec![
                Resp::Int(5),
                arr(vec![b("g"), Resp::Nil, b("cnt"), b("1")]),
                arr(vec![b("g"), b("Ab"), b("cnt"), b("1")]),
                arr(vec![b("g"), b("x"), b("cnt"), b("1")]),
                arr(vec![b("g"), b("Bb"), b("cnt"), b("2")]),
                arr(vec![b("g"), b("a"), b("cnt"), b("1")]),
            ]),
        ),
        (
            3,
            &[
                "FT.AGGREGATE", "idx", "*", "GROUPBY", "1", "@g", "REDUCE", "COUNT", "0", "AS", "cnt",
                "SORTBY", "4", "@g", "ASC", "@cnt", "ASC", "DIALECT", "3",
            ],
            map(vec![
                (s("attributes"), arr(vec![])),
                (s("total_results"), Resp::Int(5)),
                (s("format"), s("STRING")),
                (
                    s("results"),
                    arr(vec![
                        map(vec![
                            (s("extra_attributes"), map(vec![(b("g"), Resp::Nil), (b("cnt"), b("1"))])),
                            (s("values"), arr(vec![])),
                        ]),
                        map(vec![
                            (
                                s("extra_attributes"),
                                map(vec![(b("g"), b(r#"[["Ab","c"]]"#)), (b("cnt"), b("1"))]),
                            ),
                            (s("values"), arr(vec![])),
                        ]),
                        map(vec![
                            (
                                s("extra_attributes"),
                                map(vec![(b("g"), b(r#"[["x","Y"]]"#)), (b("cnt"), b("1"))]),
                            ),
                            (s("values"), arr(vec![])),
                        ]),
                        map(vec![
                            (s("extra_attributes"), map(vec![(b("g"), b("Bb")), (b("cnt"), b("2"))])),
                            (s("values"), arr(vec![])),
                        ]),
                        map(vec![
                            (s("extra_attributes"), map(vec![(b("g"), b("a")), (b("cnt"), b("1"))])),
                            (s("values"), arr(vec![])),
                        ]),
                    ]),
                ),
                (s("warning"), arr(vec![])),
            ]),
        ),
        (
            2,
            &[
                "FT.AGGREGATE", "idx", "*", "GROUPBY", "1", "@t", "REDUCE", "COUNT", "0", "AS", "cnt",
                "SORTBY", "4", "@t", "DESC", "@cnt", "ASC", "DIALECT", "2",
            ],
            arr(vec![
                Resp::Int(2),
                arr(vec![b("t"), b("hello there"), b("cnt"), b("1")]),
                arr(vec![b("t"), b("hello"), b("cnt"), b("5")]),
            ]),
        ),
        (
            2,
            &["FT.AGGREGATE", "idx", "*", "LOAD", "1", "@__key", "SORTBY", "2", "@h", "ASC", "DIALECT", "1"],
            arr(vec![
                Resp::Int(6),
                arr(vec![b("__key"), b("j:1"), b("h"), b("Q")]),
                arr(vec![b("__key"), b("j:4"), b("h"), b("Zeta")]),
                arr(vec![b("__key"), b("j:5"), b("h"), b("ab")]),
                arr(vec![b("__key"), b("j:3"), b("h"), b("A")]),
                arr(vec![b("__key"), b("j:2"), b("h"), b("m")]),
                arr(vec![b("__key"), b("j:6")]),
            ]),
        ),
        (
            2,
            &[
                "FT.AGGREGATE", "idx", "*", "SORTBY", "2", "@g", "ASC", "WITHSORTKEYS", "LIMIT", "0", "3",
                "DIALECT", "3",
            ],
            arr(vec![
                Resp::Int(6),
                b("$Ab"),
                arr(vec![b("g"), b(r#"[["Ab","c"]]"#)]),
                b("$Bb"),
                arr(vec![b("g"), b(r#"[["Bb","a"]]"#)]),
                b("$x"),
                arr(vec![b("g"), b(r#"[["x","Y"]]"#)]),
            ]),
        ),
        (
            2,
            &[
                "FT.AGGREGATE", "idx", "@g:{bb}", "LOAD", "1", "@__key", "APPLY", r#"@g=="Bb""#, "AS", "eq",
                "APPLY", r#"@g>"B""#, "AS", "gt", "SORTBY", "2", "@__key", "ASC", "DIALECT", "3",
            ],
            arr(vec![
                Resp::Int(2),
                arr(vec![b("__key"), b("j:2"), b("g"), b("Bb"), b("eq"), b("1"), b("gt"), b("1")]),
                arr(vec![
                    b("__key"),
                    b("j:5"),
                    b("g"),
                    b(r#"[["Bb","a"]]"#),
                    b("eq"),
                    b("0"),
                    b("gt"),
                    b("0"),
                ]),
            ]),
        ),
        (
            2,
            &[
                "FT.AGGREGATE", "idx", "@g:{bb}", "LOAD", "1", "@__key", "APPLY", r#"@g=="Bb""#, "AS", "eq",
                "APPLY", r#"@g>"B""#, "AS", "gt", "SORTBY", "2", "@__key", "ASC", "DIALECT", "1",
            ],
            arr(vec![
                Resp::Int(2),
                arr(vec![b("__key"), b("j:2"), b("g"), b("Bb"), b("eq"), b("1"), b("gt"), b("1")]),
                arr(vec![b("__key"), b("j:5"), b("g"), b("Bb"), b("eq"), b("0"), b("gt"), b("0")]),
            ]),
        ),
        (
            2,
            &[
                "FT.AGGREGATE", "idx", "*", "LOAD", "2", "@__key", "@t", "APPLY", "upper(@t)", "AS", "up",
                "SORTBY", "2", "@__key", "ASC", "DIALECT", "3",
            ],
            arr(vec![
                Resp::Int(6),
                arr(vec![b("__key"), b("j:1"), b("t"), b("hello"), b("up"), b("HELLO")]),
                arr(vec![b("__key"), b("j:2"), b("t"), b(r#"[["hello","World"]]"#), b("up"), b("HELLO")]),
                arr(vec![b("__key"), b("j:3"), b("t"), b("hello there"), b("up"), b("HELLO THERE")]),
                arr(vec![b("__key"), b("j:4"), b("t"), b("hello"), b("up"), b("HELLO")]),
                arr(vec![b("__key"), b("j:5"), b("t"), b("hello"), b("up"), b("HELLO")]),
                arr(vec![b("__key"), b("j:6"), b("t"), b("hello"), b("up"), b("HELLO")]),
            ]),
        ),
    ]);
}

/// A hash's SORTABLE TAG groups one group per value: README's difference "FT.AGGREGATE GROUPBY on
/// a hash's multi-value TAG" (RediSearch 2.10.5 reads its sorting vector's whole list and gives
/// `ab,c` 1, `bb` 1, `x, y` 1, #1258). Its SORTABLE TEXT named as its field shows the field.
#[test]
fn hash_sortable_tag_groups_per_value_and_its_text_shows_the_field() {
    check(&[
        (
            2,
            &[
                "FT.AGGREGATE", "hidx", "*", "GROUPBY", "1", "@g", "REDUCE", "COUNT", "0", "AS", "cnt",
                "SORTBY", "2", "@g", "ASC",
            ],
            arr(vec![
                Resp::Int(5),
                arr(vec![b("g"), b("ab"), b("cnt"), b("1")]),
                arr(vec![b("g"), b("bb"), b("cnt"), b("1")]),
                arr(vec![b("g"), b("c"), b("cnt"), b("1")]),
                arr(vec![b("g"), b("x"), b("cnt"), b("1")]),
                arr(vec![b("g"), b("y"), b("cnt"), b("1")]),
            ]),
        ),
        (
            2,
            &["FT.SEARCH", "hidx", "*", "SORTBY", "t", "ASC"],
            arr(vec![
                Resp::Int(3),
                b("h:1"),
                arr(vec![b("t"), b("Hello"), b("g"), b("Ab,c")]),
                b("h:3"),
                arr(vec![b("t"), b("hello there"), b("g"), b("x, Y")]),
                b("h:2"),
                arr(vec![b("t"), b("World"), b("g"), b("Bb")]),
            ]),
        ),
    ]);
}
