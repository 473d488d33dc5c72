//! FORMAT EXPAND and the values FT.SEARCH and FT.AGGREGATE load from JSON documents, held
//! against RediSearch 2.10.5's replies (each expected reply below is RediSearch 2.10.5 +
//! RedisJSON 2.8.3's, recorded on Redis 7.4.1; RediSearch's test_resp3.py testExpandJson and
//! testExpandJsonVector cover the same rules):
//! - the SORTBY attribute RediSearch's sorter loads is returned before the document, under
//!   FORMAT EXPAND as the array of its matches (`getKeyCommonJSON` -> `jsonIterToValue`, whose
//!   third duo value `jsonIterToValueExpanded` is what `RSValue_SendReply` sends expanded);
//! - LOAD * of a JSON document (`RLookup_JSON_GetAll`) is such a duo value too;
//! - a RETURN/LOAD name that is neither a schema attribute nor a JSONPath (`$...`) is not
//!   looked up in a JSON document (`getKeyCommonJSON`: `*kk->path == '$'`);
//! - from DIALECT 3 (which FORMAT EXPAND implies) a path whose first match is an empty array
//!   has no value (`jsonIterToValue` takes the first element of a first match that is an
//!   array, and that element is the duo's own value, what APPLY reads);
//! - a JSON boolean read as one value is the integer 1 or 0, a null is nil (`jsonValToValue`).

mod common;

use common::*;

fn b(x: &str) -> Resp {
    Resp::bulk(x)
}

fn s(x: &str) -> Resp {
    Resp::Simple(x.into())
}

fn d(x: &str) -> Resp {
    Resp::Double(x.into())
}

fn map(pairs: Vec<(Resp, Resp)>) -> Resp {
    Resp::Map(pairs)
}

/// Two JSON indexes (`idx` over doc1..doc3, `sidx` with SORTABLE attributes over s:1, s:2).
fn server() -> (Server, Conn) {
    let srv = Server::start();
    let mut c = srv.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "idx", "ON", "JSON", "PREFIX", "1", "doc", "SCHEMA", "$.arr", "AS", "arr",
            "NUMERIC", "$.num", "AS", "num", "NUMERIC", "$.str", "AS", "str", "TEXT", "$..arr[*]", "AS",
            "multi", "NUMERIC"
        ]),
        s("OK")
    );
    assert_eq!(
        c.call(&[
            "FT.CREATE", "sidx", "ON", "JSON", "PREFIX", "1", "s:", "SCHEMA", "$.num", "AS", "num",
            "NUMERIC", "SORTABLE", "$.t", "AS", "t", "TAG", "SORTABLE"
        ]),
        s("OK")
    );
    assert_eq!(
        c.call(&["JSON.SET", "doc1", "$", r#"{"arr":[1.0,2.5,3.25],"num":1,"str":"foo","sub":{"s1":false},"sub2":{"arr":[10,20,33.5]},"empty_arr":[],"empty_obj":{}}"#]),
        s("OK")
    );
    assert_eq!(
        c.call(&["JSON.SET", "doc2", "$", r#"{"arr":[3,4,null],"num":2,"str":"bar","sub":{"s2":true},"sub2":{"arr":[40,50,66.5]},"empty_arr":[],"empty_obj":{}}"#]),
        s("OK")
    );
    assert_eq!(
        c.call(&[
            "JSON.SET",
            "doc3",
            "$",
            r#"{"arr":[],"num":3.5,"str":"baaz","b":true,"n":null,"empty_arr":[[]],"empty_obj":{}}"#
        ]),
        s("OK")
    );
    assert_eq!(c.call(&["JSON.SET", "s:1", "$", r#"{"num":1,"t":"Ab"}"#]), s("OK"));
    assert_eq!(c.call(&["JSON.SET", "s:2", "$", r#"{"num":2,"t":["x","Y"]}"#]), s("OK"));
    (srv, c)
}

/// RESP2: EXPAND is refused; a JSON null read as one value (before DIALECT 3) is nil.
#[test]
fn resp2_refuses_expand_and_sends_a_json_null_as_nil() {
    let (_s, mut c) = server();
    assert_eq!(
        c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", "1", "FORMAT", "EXPAND"]),
        Resp::Error("EXPAND format is only supported with RESP3".into())
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "idx", "baaz", "RETURN", "2", "$.n", "$.b"]),
        arr(vec![Resp::Int(1), b("doc3"), arr(vec![b("$.n"), Resp::Nil, b("$.b"), b("1")])])
    );
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "idx", "*", "LOAD", "2", "$.n", "$.b", "SORTBY", "2", "@num", "DESC", "LIMIT",
            "0", "1"
        ]),
        arr(vec![Resp::Int(3), arr(vec![b("$.n"), Resp::Nil, b("$.b"), b("1"), b("num"), b("3.5")]),])
    );
}

/// The SORTBY attribute RediSearch's sorter loads comes first: as the document's value before
/// DIALECT 3, as the array of its matches from DIALECT 3, expanded under FORMAT EXPAND.
#[test]
fn the_sortby_attribute_the_sorter_loads_comes_first() {
    let (_s, mut c) = server();
    c.resp3();
    assert_eq!(
        c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", "1", "SORTBY", "num"]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("STRING")),
            (
                s("results"),
                arr(vec![map(vec![
                    (s("id"), b("doc1")),
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("num"), b("1")),
                            (
                                b("$"),
                                b(
                                    r#"{"arr":[1.0,2.5,3.25],"num":1,"str":"foo","sub":{"s1":false},"sub2":{"arr":[10,20,33.5]},"empty_arr":[],"empty_obj":{}}"#
                                )
                            ),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", "1", "SORTBY", "num", "DIALECT", "3"]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("STRING")),
            (
                s("results"),
                arr(vec![map(vec![
                    (s("id"), b("doc1")),
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("num"), b("[1]")),
                            (
                                b("$"),
                                b(
                                    r#"[{"arr":[1.0,2.5,3.25],"num":1,"str":"foo","sub":{"s1":false},"sub2":{"arr":[10,20,33.5]},"empty_arr":[],"empty_obj":{}}]"#
                                )
                            ),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", "1", "FORMAT", "EXPAND", "SORTBY", "num"]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("EXPAND")),
            (
                s("results"),
                arr(vec![map(vec![
                    (s("id"), b("doc1")),
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("num"), arr(vec![Resp::Int(1)])),
                            (
                                b("$"),
                                arr(vec![map(vec![
                                    (b("arr"), arr(vec![Resp::Int(1), d("2.5"), d("3.25")])),
                                    (b("num"), Resp::Int(1)),
                                    (b("str"), b("foo")),
                                    (b("sub"), map(vec![(b("s1"), Resp::Int(0))])),
                                    (
                                        b("sub2"),
                                        map(vec![(
                                            b("arr"),
                                            arr(vec![Resp::Int(10), Resp::Int(20), d("33.5")])
                                        )])
                                    ),
                                    (b("empty_arr"), arr(vec![])),
                                    (b("empty_obj"), map(vec![])),
                                ]),])
                            ),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&[
            "FT.SEARCH", "idx", "*", "LIMIT", "0", "1", "FORMAT", "EXPAND", "SORTBY", "num", "WITHSORTKEYS"
        ]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("EXPAND")),
            (
                s("results"),
                arr(vec![map(vec![
                    (s("id"), b("doc1")),
                    (s("sortkey"), b("#1")),
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("num"), arr(vec![Resp::Int(1)])),
                            (
                                b("$"),
                                arr(vec![map(vec![
                                    (b("arr"), arr(vec![Resp::Int(1), d("2.5"), d("3.25")])),
                                    (b("num"), Resp::Int(1)),
                                    (b("str"), b("foo")),
                                    (b("sub"), map(vec![(b("s1"), Resp::Int(0))])),
                                    (
                                        b("sub2"),
                                        map(vec![(
                                            b("arr"),
                                            arr(vec![Resp::Int(10), Resp::Int(20), d("33.5")])
                                        )])
                                    ),
                                    (b("empty_arr"), arr(vec![])),
                                    (b("empty_obj"), map(vec![])),
                                ]),])
                            ),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
}

/// A SORTABLE attribute (JSON: always UNF) comes from the sorting vector: one value when the
/// document has one (a TAG too), else the array of its values.
#[test]
fn a_sortable_attribute_comes_from_the_sorting_vector() {
    let (_s, mut c) = server();
    c.resp3();
    assert_eq!(
        c.call(&["FT.SEARCH", "sidx", "*", "FORMAT", "EXPAND", "SORTBY", "num"]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(2)),
            (s("format"), s("EXPAND")),
            (
                s("results"),
                arr(vec![
                    map(vec![
                        (s("id"), b("s:1")),
                        (
                            s("extra_attributes"),
                            map(vec![
                                (b("num"), Resp::Int(1)),
                                (b("$"), arr(vec![map(vec![(b("num"), Resp::Int(1)), (b("t"), b("Ab"))])])),
                            ])
                        ),
                        (s("values"), arr(vec![])),
                    ]),
                    map(vec![
                        (s("id"), b("s:2")),
                        (
                            s("extra_attributes"),
                            map(vec![
                                (b("num"), Resp::Int(2)),
                                (
                                    b("$"),
                                    arr(vec![map(vec![
                                        (b("num"), Resp::Int(2)),
                                        (b("t"), arr(vec![b("x"), b("Y")]))
                                    ])])
                                ),
                            ])
                        ),
                        (s("values"), arr(vec![])),
                    ]),
                ])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "sidx", "*", "SORTBY", "num", "DIALECT", "3"]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(2)),
            (s("format"), s("STRING")),
            (
                s("results"),
                arr(vec![
                    map(vec![
                        (s("id"), b("s:1")),
                        (
                            s("extra_attributes"),
                            map(vec![(b("num"), b("1")), (b("$"), b(r#"[{"num":1,"t":"Ab"}]"#))])
                        ),
                        (s("values"), arr(vec![])),
                    ]),
                    map(vec![
                        (s("id"), b("s:2")),
                        (
                            s("extra_attributes"),
                            map(vec![(b("num"), b("2")), (b("$"), b(r#"[{"num":2,"t":["x","Y"]}]"#))])
                        ),
                        (s("values"), arr(vec![])),
                    ]),
                ])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "sidx", "*", "FORMAT", "EXPAND", "RETURN", "2", "t", "num"]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(2)),
            (s("format"), s("EXPAND")),
            (
                s("results"),
                arr(vec![
                    map(vec![
                        (s("id"), b("s:1")),
                        (s("extra_attributes"), map(vec![(b("t"), b("Ab")), (b("num"), Resp::Int(1))])),
                        (s("values"), arr(vec![])),
                    ]),
                    map(vec![
                        (s("id"), b("s:2")),
                        (
                            s("extra_attributes"),
                            map(vec![
                                (b("t"), arr(vec![arr(vec![b("x"), b("Y")])])),
                                (b("num"), Resp::Int(2))
                            ])
                        ),
                        (s("values"), arr(vec![])),
                    ]),
                ])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
}

/// LOAD * under FORMAT EXPAND: the document as the (expanded) array of its matches.
#[test]
fn load_all_expands_the_document() {
    let (_s, mut c) = server();
    c.resp3();
    assert_eq!(
        c.call(&["FT.AGGREGATE", "idx", "*", "LIMIT", "0", "1", "LOAD", "*", "SORTBY", "2", "@num", "ASC"]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("STRING")),
            (
                s("results"),
                arr(vec![map(vec![
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("num"), b("1")),
                            (
                                b("$"),
                                b(
                                    r#"{"arr":[1.0,2.5,3.25],"num":1,"str":"foo","sub":{"s1":false},"sub2":{"arr":[10,20,33.5]},"empty_arr":[],"empty_obj":{}}"#
                                )
                            ),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "idx", "*", "LIMIT", "0", "1", "LOAD", "*", "SORTBY", "2", "@num", "ASC",
            "DIALECT", "3"
        ]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("STRING")),
            (
                s("results"),
                arr(vec![map(vec![
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("num"), b("[1]")),
                            (
                                b("$"),
                                b(
                                    r#"[{"arr":[1.0,2.5,3.25],"num":1,"str":"foo","sub":{"s1":false},"sub2":{"arr":[10,20,33.5]},"empty_arr":[],"empty_obj":{}}]"#
                                )
                            ),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "idx", "*", "LIMIT", "0", "1", "FORMAT", "EXPAND", "LOAD", "*", "SORTBY", "2",
            "@num", "ASC"
        ]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("EXPAND")),
            (
                s("results"),
                arr(vec![map(vec![
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("num"), arr(vec![Resp::Int(1)])),
                            (
                                b("$"),
                                arr(vec![map(vec![
                                    (b("arr"), arr(vec![Resp::Int(1), d("2.5"), d("3.25")])),
                                    (b("num"), Resp::Int(1)),
                                    (b("str"), b("foo")),
                                    (b("sub"), map(vec![(b("s1"), Resp::Int(0))])),
                                    (
                                        b("sub2"),
                                        map(vec![(
                                            b("arr"),
                                            arr(vec![Resp::Int(10), Resp::Int(20), d("33.5")])
                                        )])
                                    ),
                                    (b("empty_arr"), arr(vec![])),
                                    (b("empty_obj"), map(vec![])),
                                ]),])
                            ),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
}

/// RETURN/LOAD names: schema aliases, JSONPaths; a name that is neither is not looked up in a
/// JSON document at all (`*kk->path == '$'`). From DIALECT 3 a path whose first match is an
/// empty array has no value.
#[test]
fn return_and_load_names_and_empty_arrays() {
    let (_s, mut c) = server();
    c.resp3();
    assert_eq!(
        c.call(&[
            "FT.SEARCH", "idx", "*", "LIMIT", "0", "1", "FORMAT", "EXPAND", "RETURN", "6", "$.arr[?(@>2)]",
            "str", "multi", "arr", "empty_arr", "empty_obj", "DIALECT", "3"
        ]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("EXPAND")),
            (
                s("results"),
                arr(vec![map(vec![
                    (s("id"), b("doc1")),
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("$.arr[?(@>2)]"), arr(vec![d("2.5"), d("3.25")])),
                            (b("str"), arr(vec![b("foo")])),
                            (
                                b("multi"),
                                arr(vec![
                                    Resp::Int(1),
                                    d("2.5"),
                                    d("3.25"),
                                    Resp::Int(10),
                                    Resp::Int(20),
                                    d("33.5")
                                ])
                            ),
                            (b("arr"), arr(vec![arr(vec![Resp::Int(1), d("2.5"), d("3.25")])])),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&[
            "FT.SEARCH", "idx", "*", "LIMIT", "0", "1", "RETURN", "6", "$.arr[?(@>2)]", "str", "multi",
            "arr", "empty_arr", "empty_obj"
        ]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("STRING")),
            (
                s("results"),
                arr(vec![map(vec![
                    (s("id"), b("doc1")),
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("$.arr[?(@>2)]"), b("2.5")),
                            (b("str"), b("foo")),
                            (b("multi"), b("1")),
                            (b("arr"), b("[1.0,2.5,3.25]")),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&[
            "FT.SEARCH", "idx", "*", "LIMIT", "0", "1", "RETURN", "6", "$.arr[?(@>2)]", "str", "multi",
            "arr", "empty_arr", "empty_obj", "DIALECT", "3"
        ]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("STRING")),
            (
                s("results"),
                arr(vec![map(vec![
                    (s("id"), b("doc1")),
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("$.arr[?(@>2)]"), b("[2.5,3.25]")),
                            (b("str"), b(r#"["foo"]"#)),
                            (b("multi"), b("[1.0,2.5,3.25,10,20,33.5]")),
                            (b("arr"), b("[[1.0,2.5,3.25]]")),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&[
            "FT.SEARCH", "idx", "*", "LIMIT", "0", "1", "FORMAT", "STRING", "RETURN", "6", "$.arr[?(@>2)]",
            "str", "multi", "arr", "empty_arr", "empty_obj", "DIALECT", "3"
        ]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("STRING")),
            (
                s("results"),
                arr(vec![map(vec![
                    (s("id"), b("doc1")),
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("$.arr[?(@>2)]"), b("[2.5,3.25]")),
                            (b("str"), b(r#"["foo"]"#)),
                            (b("multi"), b("[1.0,2.5,3.25,10,20,33.5]")),
                            (b("arr"), b("[[1.0,2.5,3.25]]")),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "idx", "baaz", "RETURN", "4", "$.empty_arr", "$.empty_obj", "arr", "$.n"]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(1)),
            (s("format"), s("STRING")),
            (
                s("results"),
                arr(vec![map(vec![
                    (s("id"), b("doc3")),
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("$.empty_arr"), b("[[]]")),
                            (b("$.empty_obj"), b("{}")),
                            (b("arr"), b("[]")),
                            (b("$.n"), Resp::Nil),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&[
            "FT.SEARCH", "idx", "baaz", "FORMAT", "EXPAND", "RETURN", "4", "$.empty_arr", "$.empty_obj",
            "arr", "$.n"
        ]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(1)),
            (s("format"), s("EXPAND")),
            (
                s("results"),
                arr(vec![map(vec![
                    (s("id"), b("doc3")),
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("$.empty_arr"), arr(vec![arr(vec![arr(vec![])])])),
                            (b("$.empty_obj"), arr(vec![map(vec![])])),
                            (b("$.n"), arr(vec![Resp::Nil])),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "idx", "*", "LIMIT", "0", "1", "FORMAT", "EXPAND", "LOAD", "6", "$.arr[?(@>2)]",
            "str", "multi", "arr", "empty_arr", "empty_obj", "SORTBY", "2", "@str", "DESC"
        ]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("EXPAND")),
            (
                s("results"),
                arr(vec![map(vec![
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("str"), arr(vec![b("foo")])),
                            (b("$.arr[?(@>2)]"), arr(vec![d("2.5"), d("3.25")])),
                            (
                                b("multi"),
                                arr(vec![
                                    Resp::Int(1),
                                    d("2.5"),
                                    d("3.25"),
                                    Resp::Int(10),
                                    Resp::Int(20),
                                    d("33.5")
                                ])
                            ),
                            (b("arr"), arr(vec![arr(vec![Resp::Int(1), d("2.5"), d("3.25")])])),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "idx", "*", "LIMIT", "0", "1", "LOAD", "6", "$.arr[?(@>2)]", "str", "multi",
            "arr", "empty_arr", "empty_obj", "SORTBY", "2", "@str", "DESC", "DIALECT", "3"
        ]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("STRING")),
            (
                s("results"),
                arr(vec![map(vec![
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("str"), b(r#"["foo"]"#)),
                            (b("$.arr[?(@>2)]"), b("[2.5,3.25]")),
                            (b("multi"), b("[1.0,2.5,3.25,10,20,33.5]")),
                            (b("arr"), b("[[1.0,2.5,3.25]]")),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "idx", "*", "LIMIT", "0", "1", "LOAD", "6", "$.arr[?(@>2)]", "str", "multi",
            "arr", "empty_arr", "empty_obj", "SORTBY", "2", "@str", "DESC"
        ]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("STRING")),
            (
                s("results"),
                arr(vec![map(vec![
                    (
                        s("extra_attributes"),
                        map(vec![
                            (b("str"), b("foo")),
                            (b("$.arr[?(@>2)]"), b("2.5")),
                            (b("multi"), b("1")),
                            (b("arr"), b("[1.0,2.5,3.25]")),
                        ])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "idx", "*", "FORMAT", "EXPAND", "LOAD", "2", "@num", "@arr", "SORTBY", "2",
            "@num", "DESC", "LIMIT", "0", "1"
        ]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("EXPAND")),
            (
                s("results"),
                arr(vec![map(vec![
                    (s("extra_attributes"), map(vec![(b("num"), arr(vec![d("3.5")]))])),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
}

/// A duo value's own value (what APPLY reads) is the first element of a first match that is an
/// array; a JSON boolean is the integer 1 or 0.
#[test]
fn a_duo_value_reads_as_its_first_element_and_booleans_as_integers() {
    let (_s, mut c) = server();
    c.resp3();
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "idx", "*", "LOAD", "1", "@arr", "APPLY", "@arr+1", "AS", "x", "SORTBY", "2",
            "@x", "ASC", "DIALECT", "3"
        ]),
        Resp::Error("arr: has no value, consider using EXISTS if applicable".into())
    );
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "idx", "*", "FORMAT", "EXPAND", "LOAD", "1", "@arr", "APPLY", "@arr+1", "AS",
            "x", "SORTBY", "2", "@x", "ASC"
        ]),
        Resp::Error("arr: has no value, consider using EXISTS if applicable".into())
    );
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "idx", "*", "LOAD", "2", "$.b", "$.n", "APPLY", "@$.b+1", "AS", "x", "FILTER",
            "exists(@$.b)"
        ]),
        Resp::Error("Unknown symbol 'b'".into())
    );
}

/// Only a row's own values are expanded: a duo value inside TOLIST's array is its JSON text.
#[test]
fn only_a_rows_own_values_are_expanded() {
    let (_s, mut c) = server();
    c.resp3();
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "idx", "*", "FORMAT", "EXPAND", "GROUPBY", "1", "@num", "REDUCE", "TOLIST", "1",
            "@str", "AS", "l", "SORTBY", "2", "@num", "ASC", "LIMIT", "0", "1"
        ]),
        map(vec![
            (s("attributes"), arr(vec![])),
            (s("total_results"), Resp::Int(3)),
            (s("format"), s("EXPAND")),
            (
                s("results"),
                arr(vec![map(vec![
                    (
                        s("extra_attributes"),
                        map(vec![(b("num"), arr(vec![Resp::Int(1)])), (b("l"), arr(vec![b(r#"["foo"]"#)]))])
                    ),
                    (s("values"), arr(vec![])),
                ]),])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
}
