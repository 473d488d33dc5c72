//! The search examples of the RedisJSON documentation (shared seeds, "Search/Indexing JSON
//! documents"), reply for reply.

mod common;

use common::*;

fn b(s: &str) -> Resp {
    Resp::bulk(s)
}

#[test]
fn user_index_search_return_projection_highlight() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "userIdx", "ON", "JSON", "SCHEMA", "$.user.name", "AS", "name", "TEXT",
            "$.user.tag", "AS", "country", "TAG"
        ]),
        ok()
    );
    assert_eq!(
        c.call(&[
            "JSON.SET",
            "myDoc",
            "$",
            r#"{"user":{"name":"John Smith","tag":"foo,bar","hp":1000, "dmg":150}}"#
        ]),
        ok()
    );
    let doc = r#"{"user":{"name":"John Smith","tag":"foo,bar","hp":1000,"dmg":150}}"#;
    assert_eq!(
        c.call(&["FT.SEARCH", "userIdx", "@name:(John)"]),
        arr(vec![Resp::Int(1), b("myDoc"), arr(vec![b("$"), b(doc)])])
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "userIdx", "@name:(John)", "RETURN", "1", "name"]),
        // The docs page shows the text JSON-quoted; RediSearch itself returns a string as its text.
        arr(vec![Resp::Int(1), b("myDoc"), arr(vec![b("name"), b("John Smith")])])
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "userIdx", "@name:(John)", "RETURN", "1", "$.user.hp"]),
        arr(vec![Resp::Int(1), b("myDoc"), arr(vec![b("$.user.hp"), b("1000")])])
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "userIdx", "@name:(John)", "RETURN", "3", "$.user.hp", "AS", "hitpoints"]),
        arr(vec![Resp::Int(1), b("myDoc"), arr(vec![b("hitpoints"), b("1000")])])
    );
    assert_eq!(
        c.call(&[
            "FT.SEARCH", "userIdx", "@name:(John)", "RETURN", "1", "name", "HIGHLIGHT", "FIELDS", "1",
            "name", "TAGS", "<b>", "</b>"
        ]),
        arr(vec![Resp::Int(1), b("myDoc"), arr(vec![b("name"), b("<b>John</b> Smith")])])
    );
    // JSON TAG fields have no separator: "foo,bar" is one tag.
    assert_eq!(c.call(&["FT.SEARCH", "userIdx", "@country:{foo}", "NOCONTENT"]), arr(vec![Resp::Int(0)]));
    assert_eq!(
        c.call(&["FT.SEARCH", "userIdx", r"@country:{foo\,bar}", "NOCONTENT"]),
        arr(vec![Resp::Int(1), b("myDoc")])
    );
}

#[test]
fn tag_arrays_and_array_elements_as_fields() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "blog-idx", "ON", "JSON", "PREFIX", "1", "Blog:", "SCHEMA", "$.tags.*", "AS",
            "tags", "TAG"
        ]),
        ok()
    );
    let post = r#"{"title":"Using RedisJson is Easy and Fun", "tags":["redis","json","redisjson"]}"#;
    assert_eq!(c.call(&["JSON.SET", "Blog:1", ".", post]), ok());
    assert_eq!(
        c.call(&["FT.SEARCH", "blog-idx", "@tags:{redis}"]),
        arr(vec![
            Resp::Int(1),
            b("Blog:1"),
            arr(vec![
                b("$"),
                b(r#"{"title":"Using RedisJson is Easy and Fun","tags":["redis","json","redisjson"]}"#)
            ])
        ])
    );
    assert_eq!(
        c.call(&[
            "FT.CREATE", "orgIdx", "ON", "JSON", "SCHEMA", "$.address[0]", "AS", "a1", "TEXT",
            "$.address[1]", "AS", "a2", "TEXT"
        ]),
        ok()
    );
    let org = r#"{"name": "Headquarters","address": ["Suite 250","Mountain View"],"cp": "CA 94040"}"#;
    assert_eq!(c.call(&["JSON.SET", "org:1", "$", org]), ok());
    assert_eq!(
        c.call(&["FT.SEARCH", "orgIdx", "suite 250"]),
        arr(vec![
            Resp::Int(1),
            b("org:1"),
            arr(vec![
                b("$"),
                b(r#"{"name":"Headquarters","address":["Suite 250","Mountain View"],"cp":"CA 94040"}"#)
            ])
        ])
    );
}

#[test]
fn aggregate_with_jsonpath_load_and_apply() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "userIdx", "ON", "JSON", "SCHEMA", "$.user.name", "AS", "name", "TEXT",
            "$.user.tag", "AS", "country", "TAG"
        ]),
        ok()
    );
    assert_eq!(
        c.call(&[
            "JSON.SET",
            "myDoc",
            "$",
            r#"{"user":{"name":"John Smith","tag":"foo,bar","hp":1000, "dmg":150}}"#
        ]),
        ok()
    );
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "userIdx", "*", "LOAD", "6", "$.user.hp", "AS", "hp", "$.user.dmg", "AS", "dmg",
            "APPLY", "@hp-@dmg", "AS", "points"
        ]),
        arr(vec![Resp::Int(1), arr(vec![b("hp"), b("1000"), b("dmg"), b("150"), b("points"), b("850")])])
    );
    let missing = c.call(&["FT.AGGREGATE", "userIdx", "*", "APPLY", "@hp - 1", "AS", "points"]);
    assert!(missing.err().contains("`hp`"), "{missing:?}");
    // `-1` glued to the property is a signed number: RediSearch 2.10.5's syntax error.
    let glued = c.call(&["FT.AGGREGATE", "userIdx", "*", "APPLY", "@hp-1", "AS", "points"]);
    assert_eq!(glued.err(), "Syntax error at offset 3 near '-1'");
    assert_eq!(
        c.call(&[
            "FT.AGGREGATE", "userIdx", "*", "GROUPBY", "1", "@country", "REDUCE", "COUNT", "0", "AS", "n"
        ]),
        arr(vec![Resp::Int(1), arr(vec![b("country"), b("foo,bar"), b("n"), b("1")])])
    );
}

#[test]
fn aggregate_apply_on_a_missing_value_says_so() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "u", "ON", "JSON", "SCHEMA", "$.name", "AS", "name", "TEXT"]), ok());
    assert_eq!(c.call(&["JSON.SET", "b", "$", r#"{"name":"x"}"#]), ok());
    let r = c.call(&["FT.AGGREGATE", "u", "*", "LOAD", "3", "$.hp", "AS", "hp", "APPLY", "@hp+1", "AS", "p"]);
    assert!(r.err().ends_with("hp: has no value, consider using EXISTS if applicable"), "{r:?}");
    let r = c.call(&[
        "FT.AGGREGATE", "u", "*", "LOAD", "3", "$.hp", "AS", "hp", "APPLY", "exists(@hp)", "AS", "e",
    ]);
    assert_eq!(r, arr(vec![Resp::Int(1), arr(vec![b("e"), b("0")])]));
}
