//! FT.AGGREGATE and FT.CURSOR through the catalog (query engine + document
//! loading), including the seeds' JSON example.

mod common;

use common::Db;
use search::{Protocol, Reply};

fn b(s: &str) -> Reply {
    Reply::Bulk(s.as_bytes().to_vec())
}

fn arr(v: Vec<Reply>) -> Reply {
    Reply::Array(v)
}

#[test]
fn seed_json_example() {
    let mut db = Db::new();
    assert_eq!(
        db.cmd(&[
            "FT.CREATE", "userIdx", "ON", "JSON", "SCHEMA", "$.user.name", "AS", "name", "TEXT",
            "$.user.tag", "AS", "country", "TAG",
        ]),
        Reply::ok()
    );
    db.json_set("myDoc", r#"{"user":{"name":"John Smith","tag":"foo,bar","hp":1000, "dmg":150}}"#);
    let r = db.cmd(&[
        "FT.AGGREGATE", "userIdx", "*", "LOAD", "6", "$.user.hp", "AS", "hp", "$.user.dmg", "AS", "dmg",
        "APPLY", "@hp-@dmg", "AS", "points",
    ]);
    assert_eq!(
        r,
        arr(vec![Reply::Int(1), arr(vec![b("hp"), b("1000"), b("dmg"), b("150"), b("points"), b("850")])])
    );
    // LOAD of an attribute returns the document's string.
    let r = db.cmd(&["FT.AGGREGATE", "userIdx", "@name:(john)", "LOAD", "1", "@name"]);
    assert_eq!(r, arr(vec![Reply::Int(1), arr(vec![b("name"), b("John Smith")])]));
}

fn shop() -> Db {
    let mut db = Db::new();
    assert_eq!(
        db.cmd(&[
            "FT.CREATE", "shop", "ON", "HASH", "PREFIX", "1", "p:", "SCHEMA", "title", "TEXT", "brand",
            "TAG", "SORTABLE", "price", "NUMERIC", "SORTABLE", "tags", "TAG",
        ]),
        Reply::ok()
    );
    db.hset("p:1", &[("title", "red anvil"), ("brand", "Acme"), ("price", "10"), ("tags", "tool,heavy")]);
    db.hset("p:2", &[("title", "blue rocket"), ("brand", "Acme"), ("price", "30"), ("tags", "fast")]);
    db.hset("p:3", &[("title", "red magnet"), ("brand", "Zeta"), ("price", "20"), ("tags", "tool")]);
    db
}

#[test]
fn groupby_over_query_results() {
    let mut db = shop();
    let r = db.cmd(&[
        "FT.AGGREGATE", "shop", "*", "GROUPBY", "1", "@brand", "REDUCE", "SUM", "1", "@price", "AS", "total",
        "SORTBY", "2", "@total", "DESC",
    ]);
    // SORTABLE TAG values are normalized (lower-cased), as RediSearch's sort vector holds them.
    assert_eq!(
        r,
        arr(vec![
            Reply::Int(2),
            arr(vec![b("brand"), b("acme"), b("total"), b("40")]),
            arr(vec![b("brand"), b("zeta"), b("total"), b("20")]),
        ])
    );
    let r = db.cmd(&["FT.AGGREGATE", "shop", "red", "GROUPBY", "0", "REDUCE", "COUNT", "0", "AS", "n"]);
    assert_eq!(r, arr(vec![Reply::Int(1), arr(vec![b("n"), b("2")])]));
}

#[test]
fn groupby_splits_hash_tag_lists() {
    let mut db = shop();
    let r = db.cmd(&[
        "FT.AGGREGATE", "shop", "*", "GROUPBY", "1", "@tags", "REDUCE", "COUNT", "0", "AS", "n", "SORTBY",
        "2", "@tags", "ASC",
    ]);
    assert_eq!(
        r,
        arr(vec![
            Reply::Int(3),
            arr(vec![b("tags"), b("fast"), b("n"), b("1")]),
            arr(vec![b("tags"), b("heavy"), b("n"), b("1")]),
            arr(vec![b("tags"), b("tool"), b("n"), b("2")]),
        ])
    );
}

#[test]
fn apply_filter_and_errors() {
    let mut db = shop();
    let r = db.cmd(&["FT.AGGREGATE", "shop", "*", "FILTER", "@price >= 20", "SORTBY", "2", "@price", "ASC"]);
    assert_eq!(r, arr(vec![Reply::Int(3), arr(vec![b("price"), b("20")]), arr(vec![b("price"), b("30")])]));
    assert_eq!(
        db.cmd(&["FT.AGGREGATE", "shop", "*", "APPLY", "upper(@title)", "AS", "t"]),
        Reply::Error("Property `title` not loaded nor in pipeline".into())
    );
    assert_eq!(db.cmd(&["FT.AGGREGATE", "nope", "*"]), Reply::Error("nope: no such index".into()));
    assert_eq!(
        db.cmd(&["FT.AGGREGATE", "shop", "*", "GROUPBY", "1", "@brand", "REDUCE", "NOPE", "0"]),
        Reply::Error("No such reducer: NOPE".into())
    );
}

#[test]
fn resp3_shape() {
    let mut db = shop();
    let r = db.cmd_proto(&["FT.AGGREGATE", "shop", "blue", "LOAD", "1", "@brand"], Protocol::Resp3);
    let s = |x: &str| Reply::Simple(x.to_string());
    assert_eq!(
        r,
        Reply::Map(vec![
            // RediSearch 2.10's key order (checked against it on Redis 7.2).
            (s("attributes"), arr(vec![])),
            (s("total_results"), Reply::Int(1)),
            (s("format"), s("STRING")),
            (
                s("results"),
                arr(vec![Reply::Map(vec![
                    (s("extra_attributes"), Reply::Map(vec![(b("brand"), b("Acme"))])),
                    (s("values"), arr(vec![])),
                ])])
            ),
            (s("warning"), arr(vec![])),
        ])
    );
}

#[test]
fn cursors_through_the_catalog() {
    let mut db = shop();
    let r = db.cmd(&["FT.AGGREGATE", "shop", "*", "LOAD", "1", "@__key", "WITHCURSOR", "COUNT", "2"]);
    let Reply::Array(parts) = r else { panic!("not an array") };
    let Reply::Int(id) = parts[1] else { panic!("no cursor id") };
    assert!(id > 0);
    let Reply::Array(first) = &parts[0] else { panic!() };
    assert_eq!(first.len(), 3);
    let id_s = id.to_string();
    let r = db.cmd(&["FT.CURSOR", "READ", "shop", &id_s]);
    let Reply::Array(parts) = r else { panic!() };
    assert_eq!(parts[1], Reply::Int(0));
    assert_eq!(db.cmd(&["FT.CURSOR", "READ", "shop", &id_s]), Reply::Error("Cursor not found".into()));
    assert_eq!(db.cmd(&["FT.CURSOR", "READ", "shop", "abc"]), Reply::Error("Bad cursor ID".into()));
    assert_eq!(db.cmd(&["FT.CURSOR", "DEL", "shop", "12"]), Reply::Error("Cursor does not exist".into()));
    assert_eq!(db.cmd(&["FT.CURSOR", "GC", "shop", "0"]), Reply::Int(0));
    assert_eq!(db.cmd(&["FT.CURSOR", "NOPE", "shop", "0"]), Reply::Error("Unknown subcommand".into()));

    let r = db.cmd(&["FT.AGGREGATE", "shop", "*", "WITHCURSOR", "COUNT", "1"]);
    let Reply::Array(parts) = r else { panic!() };
    let Reply::Int(id) = parts[1] else { panic!() };
    assert_eq!(db.cmd(&["FT.CURSOR", "DEL", "shop", &id.to_string()]), Reply::ok());
    let r = db.cmd(&["FT.AGGREGATE", "shop", "*", "WITHCURSOR", "COUNT", "1"]);
    let Reply::Array(parts) = r else { panic!() };
    let Reply::Int(id) = parts[1] else { panic!() };
    db.cmd(&["FT.DROPINDEX", "shop"]);
    assert_eq!(
        db.cmd(&["FT.CURSOR", "READ", "shop", &id.to_string(), "COUNT", "5"]),
        Reply::Error("The index was dropped while the cursor was idle".into())
    );
}

#[test]
fn matched_terms_lists_the_query_terms_found() {
    let mut db = shop();
    let r = db.cmd(&[
        "FT.AGGREGATE", "shop", "red|blue", "LOAD", "1", "@__key", "APPLY", "matched_terms()", "AS", "m",
        "SORTBY", "2", "@__key", "ASC",
    ]);
    assert_eq!(
        r,
        arr(vec![
            Reply::Int(3),
            arr(vec![b("__key"), b("p:1"), b("m"), arr(vec![b("red")])]),
            arr(vec![b("__key"), b("p:2"), b("m"), arr(vec![b("blue")])]),
            arr(vec![b("__key"), b("p:3"), b("m"), arr(vec![b("red")])]),
        ])
    );
}

#[test]
fn matched_terms_hides_stem_entries() {
    let mut db = shop();
    db.hset("p:4", &[("title", "running shoes"), ("brand", "Fleet"), ("price", "5")]);
    let r = db.cmd(&["FT.AGGREGATE", "shop", "running", "APPLY", "matched_terms()", "AS", "m"]);
    let Reply::Array(items) = r else { panic!() };
    let Reply::Array(row) = &items[1] else { panic!() };
    let Reply::Array(terms) = &row[1] else { panic!("{row:?}") };
    assert!(terms.iter().all(|t| !matches!(t, Reply::Bulk(b) if b.starts_with(b"+"))), "{terms:?}");
    assert!(terms.contains(&b("running")));
}
