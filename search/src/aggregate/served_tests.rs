//! NUMERIC values answered from the index ([`IndexLoader::served`]) against the document
//! itself: for random documents of every shape a NUMERIC field meets (JSON numbers, nulls,
//! arrays, strings and booleans that fail; hash strings in every notation the two number
//! parsers read), a value the index serves is exactly what LOAD and a property read of the
//! document give, under DIALECT 2 and 3; and the index serves the common shapes.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::{IndexLoader, Indexed};
use crate::aggregate::value::Value;
use crate::catalog::Catalog;
use crate::config::Config;
use crate::document::{DocumentSource, FieldValue, KeyType};
use crate::query::vector::Distances;
use crate::reply::{Protocol, Reply};

/// The value of a document's field `n`.
#[derive(Clone, Debug)]
enum Doc {
    Hash(String),
    Json(FieldValue),
}

struct Docs(BTreeMap<Vec<u8>, Doc>);

fn json_text(v: &FieldValue) -> String {
    match v {
        FieldValue::Null => "null".into(),
        FieldValue::Bool(b) => b.to_string(),
        FieldValue::Number(_, t) => t.clone(),
        FieldValue::String(s) => format!("\"{s}\""),
        FieldValue::Array(items) => {
            format!("[{}]", items.iter().map(json_text).collect::<Vec<_>>().join(","))
        }
        FieldValue::Object(o) => o.clone(),
    }
}

impl DocumentSource for Docs {
    fn key_type(&self, key: &[u8]) -> Option<KeyType> {
        self.0.get(key).map(|d| match d {
            Doc::Hash(_) => KeyType::Hash,
            Doc::Json(_) => KeyType::Json,
        })
    }

    fn values(&self, key: &[u8], source: &str) -> Result<Vec<FieldValue>, String> {
        Ok(match (self.0.get(key), source) {
            (Some(Doc::Hash(v)), "n") => vec![FieldValue::String(v.clone())],
            (Some(Doc::Json(v)), "$.n") => vec![v.clone()],
            _ => Vec::new(),
        })
    }

    fn json_at(&self, key: &[u8], path: &str) -> Option<Vec<String>> {
        match (self.0.get(key)?, path) {
            (Doc::Json(v), "$.n") => Some(vec![json_text(v)]),
            (Doc::Json(_), _) => Some(Vec::new()),
            _ => None,
        }
    }

    fn whole(&self, _key: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        None
    }
}

fn num(x: f64, text: &str) -> FieldValue {
    FieldValue::Number(x, text.into())
}

fn json_value() -> impl Strategy<Value = FieldValue> {
    let scalars = vec![
        num(1.0, "1"),
        num(1.5, "1.5"),
        num(-0.0, "-0.0"),
        num(9007199254740993.0, "9007199254740993"),
        num(1e300, "1e300"),
        num(0.1, "0.1"),
        num(-42.0, "-42"),
        FieldValue::Null,
        FieldValue::String("12".into()),
        FieldValue::Bool(true),
    ];
    let one = proptest::sample::select(scalars);
    prop_oneof![
        4 => one.clone(),
        1 => proptest::collection::vec(one, 0..4).prop_map(FieldValue::Array),
    ]
}

fn hash_value() -> impl Strategy<Value = String> {
    proptest::sample::select(vec![
        "12", " 12 ", "1.50", "0x10", "1e999", "inf", "-inf", "-0", "9007199254740993", "abc", "", "+5",
        "1e5", "\t7", "nan", "1_0", ".5", "5.",
    ])
    .prop_map(str::to_string)
}

fn docs() -> impl Strategy<Value = (bool, Vec<Doc>)> {
    prop_oneof![
        proptest::collection::vec(json_value().prop_map(Doc::Json), 1..24).prop_map(|d| (true, d)),
        proptest::collection::vec(hash_value().prop_map(Doc::Hash), 1..24).prop_map(|d| (false, d)),
    ]
}

/// The same value, numbers compared bit for bit.
fn same(a: &Option<Value>, b: &Option<Value>) -> bool {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => x.to_bits() == y.to_bits(),
        (Some(Value::Number(_)), _) | (_, Some(Value::Number(_))) => false,
        _ => format!("{a:?}") == format!("{b:?}"),
    }
}

/// Indexes `docs` (field `n` NUMERIC, SORTABLE or not) and checks every indexed document;
/// returns how many had their value served.
fn check(json: bool, docs: Vec<Doc>, sortable: bool) -> usize {
    let on = if json { "JSON" } else { "HASH" };
    let path = if json { "$.n" } else { "n" };
    let mut args = vec!["idx", "ON", on, "PREFIX", "1", "d:", "SCHEMA", path, "AS", "n", "NUMERIC"];
    if sortable {
        args.push("SORTABLE");
    }
    let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    let mut cat = Catalog::default();
    let mut config = Config::default();
    let source =
        Docs(docs.iter().enumerate().map(|(i, d)| (format!("d:{i}").into_bytes(), d.clone())).collect());
    assert_eq!(cat.execute("FT.CREATE", &args, &source, &mut config, Protocol::Resp2), Reply::ok());
    for key in source.0.keys() {
        cat.on_key_changed(key, &source);
    }
    let entry = cat.entry("idx").expect("the index");
    let (fi, f) = entry.index.spec.field("n").expect("field n");
    let distances = Distances::default();
    let mut served = 0;
    for dialect in [2, 3] {
        if json && dialect >= 3 {
            // From DIALECT 3 a JSON value is a duo shown as the array of its matches: read
            // from the document, never served.
            assert!(super::shows_all_matches(&entry.index.spec, dialect));
            assert!(super::read_from_document(&entry.index.spec, "n", true, dialect, |_| true, |_| true));
            continue;
        }
        let loader = IndexLoader {
            spec: &entry.index.spec,
            docs: &source,
            dialect,
            indexed: Indexed::Live { idx: &entry.index, distances: &distances },
        };
        for id in 0..=entry.index.docs.max_id() {
            let Some(rec) = entry.index.docs.get(id) else { continue };
            let key = rec.key();
            let Some(x) = loader.served(id, fi, f) else { continue };
            served += usize::from(dialect == 2);
            let from_index = Some(Value::Number(x));
            let load = loader.explicit(key, &f.path, Some(f));
            assert!(
                same(&from_index, &load),
                "LOAD of {:?}: index {x}, document {load:?}",
                source.0.get(key)
            );
            let read = loader.implicit_from_document(key, f);
            assert!(
                same(&from_index, &read),
                "read of {:?}: index {x}, document {read:?}",
                source.0.get(key)
            );
        }
    }
    served
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn served_values_are_the_documents((json, docs) in docs(), sortable in any::<bool>()) {
        check(json, docs, sortable);
    }
}

#[test]
fn common_shapes_are_served() {
    let json = vec![Doc::Json(num(1.5, "1.5")), Doc::Json(num(-42.0, "-42")), Doc::Json(FieldValue::Null)];
    assert_eq!(check(true, json, false), 2);
    // An array (even of one number) is LOADed as its JSON text: not served.
    assert_eq!(check(true, vec![Doc::Json(FieldValue::Array(vec![num(1.0, "1")]))], false), 0);
    let hash = ["12", " 12 ", "1.50", "-0", "abc", "0x10", "1e999"].map(|s| Doc::Hash(s.into()));
    // "abc" and "0x10" fail indexing; "1e999" is infinity to the index, not a number to LOAD.
    assert_eq!(check(false, hash.to_vec(), true), 4);
}
