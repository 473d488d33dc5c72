//! How FT.SEARCH returns JSON values: as text before DIALECT 3, as the JSON array of every
//! match from DIALECT 3, and with FORMAT EXPAND (RESP3, JSON indexes) as native RESP3 maps,
//! arrays, integers and doubles; with RediSearch 2.10's errors for the invalid combinations.

mod common;

use common::*;

fn b(x: &str) -> Resp {
    Resp::bulk(x)
}

const DOC: &str =
    r#"{"name":"Ada","tags":["a","b"],"n":3,"x":2.5,"ok":true,"nil":null,"obj":{"k":[1,{"z":"w"}]}}"#;

fn server() -> (Server, Conn) {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "j", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.name", "AS", "name", "TEXT",
            "$.tags[*]", "AS", "tags", "TAG", "$.n", "AS", "n", "NUMERIC"
        ]),
        ok()
    );
    assert_eq!(c.call(&["FT.CREATE", "h", "PREFIX", "1", "h:", "SCHEMA", "t", "TEXT"]), ok());
    assert_eq!(c.call(&["JSON.SET", "j:1", "$", DOC]), ok());
    (s, c)
}

/// The field list of the only document of a RESP2 search.
fn fields(r: &Resp) -> Resp {
    assert_eq!(r.items()[0], Resp::Int(1), "{r:?}");
    r.items()[2].clone()
}

#[test]
fn dialect_3_returns_every_match_as_a_json_array() {
    let (_s, mut c) = server();
    let r = c.call(&["FT.SEARCH", "j", "*", "DIALECT", "3"]);
    assert_eq!(fields(&r), arr(vec![b("$"), b(&format!("[{DOC}]"))]));
    let r = c.call(&["FT.SEARCH", "j", "*", "RETURN", "3", "name", "tags", "$.obj.k[*]", "DIALECT", "3"]);
    assert_eq!(
        fields(&r),
        arr(vec![
            b("name"),
            b(r#"["Ada"]"#),
            b("tags"),
            b(r#"["a","b"]"#),
            b("$.obj.k[*]"),
            b(r#"[1,{"z":"w"}]"#)
        ])
    );
    // Before dialect 3: the first value, a string as its text.
    let r = c.call(&["FT.SEARCH", "j", "*", "RETURN", "2", "name", "tags", "DIALECT", "2"]);
    assert_eq!(fields(&r), arr(vec![b("name"), b("Ada"), b("tags"), b("a")]));
    let r = c.call(&["FT.SEARCH", "j", "*"]);
    assert_eq!(fields(&r), arr(vec![b("$"), b(DOC)]));
    // Any JSONPath before dialect 3: only its first match; booleans as 1/0.
    let r = c.call(&["FT.SEARCH", "j", "*", "RETURN", "3", "$.tags[*]", "$.ok", "$.obj"]);
    assert_eq!(
        fields(&r),
        arr(vec![b("$.tags[*]"), b("a"), b("$.ok"), b("1"), b("$.obj"), b(r#"{"k":[1,{"z":"w"}]}"#)])
    );
}

#[test]
fn format_expand_returns_native_values() {
    let (_s, mut c) = server();
    // RESP2 cannot carry it.
    assert_eq!(
        c.call(&["FT.SEARCH", "j", "*", "FORMAT", "EXPAND"]).err(),
        "EXPAND format is only supported with RESP3"
    );
    assert_eq!(c.call(&["FT.SEARCH", "j", "*", "FORMAT", "BOGUS"]).err(), "FORMAT BOGUS is not supported");
    c.resp3();
    assert_eq!(
        c.call(&["FT.SEARCH", "h", "*", "FORMAT", "EXPAND"]).err(),
        "EXPAND format is only supported with JSON"
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "j", "*", "FORMAT", "EXPAND", "DIALECT", "2"]).err(),
        "EXPAND format requires dialect 3 or greater"
    );
    let r = c.call(&["FT.SEARCH", "j", "*", "FORMAT", "EXPAND"]);
    let Resp::Map(top) = &r else { panic!("{r:?}") };
    let get = |k: &str| top.iter().find(|(key, _)| key.text() == k).map(|(_, v)| v.clone()).unwrap();
    assert_eq!(get("format"), Resp::Simple("EXPAND".into()));
    let results = get("results");
    let Resp::Map(doc) = &results.items()[0] else { panic!() };
    let attrs = doc.iter().find(|(k, _)| k.text() == "extra_attributes").map(|(_, v)| v.clone()).unwrap();
    let expanded = Resp::Map(vec![
        (b("name"), b("Ada")),
        (b("tags"), arr(vec![b("a"), b("b")])),
        (b("n"), Resp::Int(3)),
        (b("x"), Resp::Double("2.5".into())),
        (b("ok"), Resp::Int(1)),
        (b("nil"), Resp::Nil),
        (b("obj"), Resp::Map(vec![(b("k"), arr(vec![Resp::Int(1), Resp::Map(vec![(b("z"), b("w"))])]))])),
    ]);
    assert_eq!(attrs, Resp::Map(vec![(b("$"), arr(vec![expanded]))]));
    let r = c.call(&["FT.SEARCH", "j", "ada", "FORMAT", "EXPAND", "RETURN", "4", "tags", "$.n", "AS", "num"]);
    let Resp::Map(top) = &r else { panic!("{r:?}") };
    let results = top.iter().find(|(k, _)| k.text() == "results").map(|(_, v)| v.clone()).unwrap();
    let Resp::Map(doc) = &results.items()[0] else { panic!() };
    let attrs = doc.iter().find(|(k, _)| k.text() == "extra_attributes").map(|(_, v)| v.clone()).unwrap();
    assert_eq!(
        attrs,
        Resp::Map(vec![(b("tags"), arr(vec![b("a"), b("b")])), (b("num"), arr(vec![Resp::Int(3)]))])
    );
    // FORMAT STRING on RESP3 keeps text values.
    let r = c.call(&["FT.SEARCH", "j", "*", "FORMAT", "STRING", "RETURN", "1", "n"]);
    let Resp::Map(top) = &r else { panic!("{r:?}") };
    assert!(top.iter().any(|(k, v)| k.text() == "format" && *v == Resp::Simple("STRING".into())));
}
