//! The exact replies of the RedisJSON docs' "Search/Indexing JSON documents" section.

mod common;

use common::{arr, b, Db};
use search::Reply;

fn user_db() -> Db {
    let mut db = Db::new();
    assert_eq!(
        db.cmd(&[
            "FT.CREATE", "userIdx", "ON", "JSON", "SCHEMA", "$.user.name", "AS", "name", "TEXT",
            "$.user.tag", "AS", "country", "TAG"
        ]),
        Reply::ok()
    );
    db.json_set("myDoc", r#"{"user":{"name":"John Smith","tag":"foo,bar","hp":1000, "dmg":150}}"#);
    db
}

#[test]
fn search_returns_whole_document() {
    let mut db = user_db();
    assert_eq!(
        db.cmd(&["FT.SEARCH", "userIdx", "@name:(John)"]),
        arr(vec![
            Reply::Int(1),
            b("myDoc"),
            arr(vec![b("$"), b(r#"{"user":{"name":"John Smith","tag":"foo,bar","hp":1000,"dmg":150}}"#)])
        ])
    );
}

#[test]
fn return_attribute_and_jsonpath_projection() {
    let mut db = user_db();
    assert_eq!(
        db.cmd(&["FT.SEARCH", "userIdx", "@name:(John)", "RETURN", "1", "name"]),
        // The docs page shows `"\"John Smith\""`; RediSearch itself (its test_json.py, redis-py's
        // test_search_return_fields) returns a string attribute as its text.
        arr(vec![Reply::Int(1), b("myDoc"), arr(vec![b("name"), b("John Smith")])])
    );
    assert_eq!(
        db.cmd(&["FT.SEARCH", "userIdx", "@name:(John)", "RETURN", "1", "$.user.hp"]),
        arr(vec![Reply::Int(1), b("myDoc"), arr(vec![b("$.user.hp"), b("1000")])])
    );
    assert_eq!(
        db.cmd(&["FT.SEARCH", "userIdx", "@name:(John)", "RETURN", "3", "$.user.hp", "AS", "hitpoints"]),
        arr(vec![Reply::Int(1), b("myDoc"), arr(vec![b("hitpoints"), b("1000")])])
    );
    assert_eq!(
        db.cmd(&["FT.SEARCH", "userIdx", "@name:(John)", "RETURN", "3", "$.user.name", "AS", "n"]),
        arr(vec![Reply::Int(1), b("myDoc"), arr(vec![b("n"), b("John Smith")])])
    );
}

#[test]
fn highlight_on_returned_attribute() {
    let mut db = user_db();
    assert_eq!(
        db.cmd(&[
            "FT.SEARCH", "userIdx", "@name:(John)", "RETURN", "1", "name", "HIGHLIGHT", "FIELDS", "1",
            "name", "TAGS", "<b>", "</b>"
        ]),
        // As RediSearch's test_MOD1544 (the docs page shows the text JSON-quoted).
        arr(vec![Reply::Int(1), b("myDoc"), arr(vec![b("name"), b("<b>John</b> Smith")])])
    );
}

#[test]
fn json_tag_without_separator_is_one_value() {
    let mut db = user_db();
    assert_eq!(common::total(&db.cmd(&["FT.SEARCH", "userIdx", "@country:{foo\\,bar}", "NOCONTENT"])), 1);
    assert_eq!(common::total(&db.cmd(&["FT.SEARCH", "userIdx", "@country:{foo}", "NOCONTENT"])), 0);
}

#[test]
fn array_of_tags() {
    let mut db = Db::new();
    db.cmd(&[
        "FT.CREATE", "blog-idx", "ON", "JSON", "PREFIX", "1", "Blog:", "SCHEMA", "$.tags.*", "AS", "tags",
        "TAG",
    ]);
    db.json_set(
        "Blog:1",
        r#"{"title":"Using RedisJson is Easy and Fun", "tags":["redis","json","redisjson"]}"#,
    );
    assert_eq!(
        db.cmd(&["FT.SEARCH", "blog-idx", "@tags:{redis}"]),
        arr(vec![
            Reply::Int(1),
            b("Blog:1"),
            arr(vec![
                b("$"),
                b(r#"{"title":"Using RedisJson is Easy and Fun","tags":["redis","json","redisjson"]}"#)
            ])
        ])
    );
}

#[test]
fn array_elements_as_separate_text_attributes() {
    let mut db = Db::new();
    assert_eq!(
        db.cmd(&[
            "FT.CREATE", "orgIdx", "ON", "JSON", "SCHEMA", "$.address[0]", "AS", "a1", "TEXT",
            "$.address[1]", "AS", "a2", "TEXT"
        ]),
        Reply::ok()
    );
    db.json_set(
        "org:1",
        r#"{"name": "Headquarters","address": ["Suite 250","Mountain View"],"cp": "CA 94040"}"#,
    );
    assert_eq!(
        db.cmd(&["FT.SEARCH", "orgIdx", "suite 250"]),
        arr(vec![
            Reply::Int(1),
            b("org:1"),
            arr(vec![
                b("$"),
                b(r#"{"name":"Headquarters","address":["Suite 250","Mountain View"],"cp":"CA 94040"}"#)
            ])
        ])
    );
}

#[test]
fn json_type_rules_fail_the_document() {
    let mut db = Db::new();
    db.cmd(&[
        "FT.CREATE", "i", "ON", "JSON", "SCHEMA", "$.t", "AS", "t", "TAG", "$.n", "AS", "n", "NUMERIC",
        "$.b", "AS", "b", "TAG",
    ]);
    db.json_set("ok", r#"{"t":"x","n":3,"b":true}"#);
    db.json_set("bad", r#"{"t":5}"#);
    db.json_set("nul", r#"{"t":null,"n":null}"#);
    let r = db.cmd(&["FT.SEARCH", "i", "*", "NOCONTENT"]);
    assert_eq!(common::ids(&r), vec!["ok", "nul"]);
    assert_eq!(common::total(&db.cmd(&["FT.SEARCH", "i", "@b:{true}", "NOCONTENT"])), 1);
    let info = db.cmd(&["FT.INFO", "i"]);
    let Reply::Map(pairs) = info else { panic!() };
    let failures = pairs
        .iter()
        .find(|(k, _)| *k == Reply::Simple("hash_indexing_failures".into()))
        .map(|(_, v)| v.clone());
    assert_eq!(failures, Some(Reply::Int(1)));
}
