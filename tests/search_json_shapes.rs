//! JSON values RediSearch refuses to index: the document fails (counted in FT.INFO, left out
//! of the index). Every expectation was measured on RediSearch 2.10.5 + RedisJSON 2.8.3.

mod common;

use common::*;

/// `(field type, path, document, indexed?, last indexing error)`.
const CASES: &[(&str, &str, &str, bool, &str)] = &[
    (
        "TEXT",
        "$.t",
        r#"{"t":{"inner_t":"Redis"}}"#,
        false,
        "Invalid JSON type: Object type can represent only GEOMETRY fields",
    ),
    ("TAG", "$.t", r#"{"t":["good",["bad"]]}"#, false, "TEXT/TAG fields can only contain strings or nulls"),
    (
        "TAG",
        "$.t[*]",
        r#"{"t":["good",{"a":"b"}]}"#,
        false,
        "TEXT/TAG fields can only contain strings or nulls",
    ),
    (
        "TEXT",
        "$.t[*]",
        r#"{"t":["good",["bad"]]}"#,
        false,
        "TEXT/TAG fields can only contain strings or nulls",
    ),
    ("TAG", "$.t[*]", r#"{"t":[["ok"]]}"#, true, "N/A"),
    ("TAG", "$.t", r#"{"t":["a",null]}"#, true, "N/A"),
    ("NUMERIC", "$.t", r#"{"t":["a",null]}"#, false, "NUMERIC fields can only contain numeric or nulls"),
    ("NUMERIC", "$.t", r#"{"t":[{"a":"b"}]}"#, false, "NUMERIC fields can only contain numeric or nulls"),
    ("NUMERIC", "$.t[*]", r#"{"t":{"a":1}}"#, true, "N/A"),
    // RediSearch reads a TEXT, TAG or GEO field's several values as text: strings and nulls
    // only (a TAG's one boolean is a value, a boolean among several is not).
    ("TAG", "$.t", r#"{"t":["a",true]}"#, false, "TEXT/TAG fields can only contain strings or nulls"),
    ("TAG", "$.t", r#"{"t":true}"#, true, "N/A"),
    ("TEXT", "$.t", r#"{"t":["a",1.5]}"#, false, "TEXT/TAG fields can only contain strings or nulls"),
    ("GEO", "$.t", r#"{"t":["1,2",{"o":1}]}"#, false, "TEXT/TAG fields can only contain strings or nulls"),
    ("GEO", "$.t[*]", r#"{"t":["1,2",["3,4"]]}"#, false, "TEXT/TAG fields can only contain strings or nulls"),
    ("GEO", "$.t", r#"{"t":["1,2",null]}"#, true, "N/A"),
    // A SORTABLE attribute's one value an empty array: no sort value, the document fails
    // without a message; not SORTABLE, or each element (`[*]`) of it, it is indexed.
    ("TAG SORTABLE", "$.t", r#"{"t":[]}"#, false, "N/A"),
    ("TEXT SORTABLE", "$.t", r#"{"t":[]}"#, false, "N/A"),
    ("NUMERIC SORTABLE", "$.t", r#"{"t":[]}"#, false, "N/A"),
    ("NUMERIC SORTABLE", "$.t[*]", r#"{"t":[]}"#, true, "N/A"),
    ("NUMERIC", "$.t", r#"{"t":[]}"#, true, "N/A"),
];

#[test]
fn refused_json_shapes_fail_the_document() {
    let server = Server::start();
    let mut c = server.conn();
    for (kind, path, doc, indexed, error) in CASES {
        c.call(&["FLUSHALL"]);
        let mut create = vec!["FT.CREATE", "j", "ON", "JSON", "SCHEMA", path, "AS", "t"];
        create.extend(kind.split(' '));
        assert_eq!(c.call(&create), Resp::Simple("OK".into()));
        assert_eq!(c.call(&["JSON.SET", "d", "$", doc]), Resp::Simple("OK".into()));
        let want = if *indexed { arr(vec![Resp::Int(1), Resp::bulk("d")]) } else { arr(vec![Resp::Int(0)]) };
        assert_eq!(c.call(&["FT.SEARCH", "j", "*", "NOCONTENT"]), want, "{kind} {path} {doc}");
        let info = c.call(&["FT.INFO", "j"]);
        let items = info.items();
        let at = items
            .iter()
            .position(|v| *v == Resp::Simple("Index Errors".into()) || *v == Resp::bulk("Index Errors"));
        let errors = &items[at.expect("Index Errors") + 1];
        let last = errors.items()[3].text();
        assert_eq!(last, *error, "{kind} {path} {doc}");
        // A JSON value refused while RediSearch loads it counts for the index, never for the
        // field (JSON_LoadDocumentField runs outside the field preprocessors).
        let fields = &items[at.unwrap() + 3];
        let field_errors = &fields.items()[0].items()[5];
        assert_eq!(field_errors.items()[1], Resp::Int(0), "{kind} {path} {doc}: {field_errors:?}");
    }
}

#[test]
fn a_bad_geo_string_is_the_fields_failure() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE j ON JSON SCHEMA $.g AS g GEO"), ok());
    assert_eq!(c.call(&["JSON.SET", "d", "$", r#"{"g":"1000,2000"}"#]), ok());
    let info = c.cmd("FT.INFO j");
    let items = info.items();
    let at = items
        .iter()
        .position(|v| *v == Resp::Simple("Index Errors".into()) || *v == Resp::bulk("Index Errors"));
    let field_errors = &items[at.expect("Index Errors") + 3].items()[0].items()[5];
    assert_eq!(field_errors.items()[1], Resp::Int(1));
    assert_eq!(field_errors.items()[3].text(), "Invalid geo coordinates: 1000.000000, 2000.000000");
}
