//! Fuzz entry points of folio's command layer, shared by the libFuzzer targets in
//! `fuzz_targets/` and by the corpus replay test (root `tests/fuzz_corpora.rs`), which
//! includes this file with `#[path]`. Each entry must never panic on any input.
//!
//! - [`json_parse`]: JSON input parsing, serialization round trip, serde_json as oracle.
//! - [`json_ops`]: every JSON.* operation on a fuzzed document, path and argument.
//! - [`ft_command`]: FT.* argument vectors through `search::Catalog::execute` with an
//!   in-memory [`search::DocumentSource`] backed by the json crate.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use json::ops::{array, clear, del, num, object, set, string, toggle};
use json::path::JsonPath;
use json::value::Format;
use json::Value;
use search::{Catalog, Config, DocumentSource, FieldValue, KeyType, Protocol};

/// Documents larger than this (bytes of `mem_usage`) stop growing in [`json_ops`], so
/// self-merges cannot double the document for every op.
const MAX_FUZZ_DOC_BYTES: usize = 1 << 20;

/// Parses the input as command input and as stored data; accepted values must serialize,
/// re-parse to an equal value, and agree with serde_json on acceptance.
pub fn json_parse(data: &[u8]) {
    let parsed = Value::parse(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let oracle = serde_json::from_str::<serde_json::Value>(text);
        assert_eq!(
            parsed.is_ok(),
            oracle.is_ok(),
            "folio and serde_json disagree on {text:?}: {:?} vs {:?}",
            parsed.as_ref().err().map(|e| e.to_string()),
            oracle.as_ref().err().map(|e| e.to_string())
        );
    }
    let unlimited = Value::parse_unlimited(data);
    if let Ok(v) = &parsed {
        assert!(unlimited.as_ref().is_ok_and(|u| u == v), "parse_unlimited differs from parse");
    }
    if let Ok(v) = unlimited {
        let text = v.to_json();
        let again = Value::parse_unlimited(text.as_bytes()).expect("own output parses");
        assert!(again == v, "round trip changed the value: {text}");
        let mut pretty = Vec::new();
        v.write_json(&mut pretty, &Format { indent: b"  ", newline: b"\n", space: b" " });
        let again = Value::parse_unlimited(&pretty).expect("own pretty output parses");
        assert!(again == v, "pretty round trip changed the value");
        let _ = v.mem_usage();
        assert!(v.clone() == v);
    }
}

/// Input layout: `ops \0 document \0 path \0 argument`. Each byte of `ops` runs one JSON.*
/// operation (chosen by the byte) on the document at the path, with the argument as the
/// operation's JSON value, number or string. Failed NUMINCRBY/ARRINSERT/SET must leave the
/// document unchanged; the document must always serialize and re-parse to itself.
pub fn json_ops(data: &[u8]) {
    let mut parts = data.splitn(4, |&b| b == 0);
    let (Some(ops), Some(doc), Some(path), Some(arg)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return;
    };
    let Ok(mut doc) = Value::parse(doc) else {
        return;
    };
    let Ok(path) = std::str::from_utf8(path) else {
        return;
    };
    let Ok(path) = JsonPath::parse(path) else {
        return;
    };
    let arg_text = String::from_utf8_lossy(arg);
    let arg_value = Value::parse(arg).ok();
    let int = |i: usize| -> i64 {
        let b = arg.get(i).copied().unwrap_or(0) as i8 as i64;
        if b == -128 {
            i64::MIN
        } else if b == 127 {
            i64::MAX
        } else {
            b
        }
    };
    for &op in ops.iter().take(16) {
        if doc.mem_usage() > MAX_FUZZ_DOC_BYTES {
            break;
        }
        let before = doc.clone();
        match op % 24 {
            0 => {
                if num::num_incr_by(&mut doc, &path, &arg_text).is_err() {
                    assert!(doc == before, "failed NUMINCRBY changed the document");
                }
            }
            1 => drop(num::num_mult_by(&mut doc, &path, &arg_text)),
            2 => drop(num::num_pow_by(&mut doc, &path, &arg_text)),
            3..=5 => {
                if let Some(v) = &arg_value {
                    let cond = [set::SetCondition::Always, set::SetCondition::Nx, set::SetCondition::Xx]
                        [usize::from(op % 24 - 3)];
                    if set::set(&mut doc, &path, v.clone(), cond).is_err() {
                        assert!(doc == before, "failed SET changed the document");
                    }
                }
            }
            6 => {
                if let Some(v) = &arg_value {
                    let _ = set::merge(&mut doc, &path, v);
                }
            }
            7 => {
                let patch = doc.clone();
                let _ = set::merge(&mut doc, &path, &patch);
            }
            8 => drop(string::str_append(&mut doc, &path, &arg_text)),
            9 => drop(string::str_len(&doc, &path)),
            10 => {
                let values: Vec<Value> = arg_value.iter().cloned().chain([Value::null()]).collect();
                let _ = array::arr_append(&mut doc, &path, &values);
            }
            11 => {
                let values: Vec<Value> = arg_value.iter().cloned().collect();
                if array::arr_insert(&mut doc, &path, int(0), &values).is_err() {
                    assert!(doc == before, "failed ARRINSERT changed the document");
                }
            }
            12 => {
                if let Some(v) = &arg_value {
                    let _ = array::arr_index(&doc, &path, v, int(0), int(1));
                }
            }
            13 => drop(array::arr_len(&doc, &path)),
            14 => drop(array::arr_pop(&mut doc, &path, int(0))),
            15 => drop(array::arr_trim(&mut doc, &path, int(0), int(1))),
            16 => drop(object::obj_keys(&doc, &path)),
            17 => drop(object::obj_len(&doc, &path)),
            18 => drop(toggle::toggle(&mut doc, &path)),
            19 => {
                clear::clear(&mut doc, &path);
            }
            20 => {
                del::del(&mut doc, &path);
            }
            21 => {
                let _ = path.select_located(&doc);
                let _ = path.first(&doc);
            }
            22 => {
                let mut patch = arg_value.clone().unwrap_or_else(Value::null);
                set::merge_patch(&mut patch, &doc);
            }
            _ => drop(array::arr_pop(&mut doc, &path, int(1))),
        }
        let text = doc.to_json();
        let again = Value::parse_unlimited(text.as_bytes()).expect("document serializes to valid JSON");
        assert!(again == doc, "document does not round-trip: {text}");
    }
}

/// One in-memory database: documents plus the catalog and config the glue would own.
struct Db {
    docs: BTreeMap<Vec<u8>, Doc>,
    cat: Catalog,
    config: Config,
}

enum Doc {
    Json(Value),
    Hash(Vec<(Vec<u8>, Vec<u8>)>),
}

/// The [`DocumentSource`] over [`Db::docs`], evaluating JSONPath with the json crate as the
/// glue does.
struct View<'a>(&'a BTreeMap<Vec<u8>, Doc>);

fn field_value(v: &Value) -> FieldValue {
    match v.kind() {
        json::Kind::Null => FieldValue::Null,
        json::Kind::Bool => FieldValue::Bool(v.as_bool().unwrap_or(false)),
        json::Kind::Integer | json::Kind::Number => {
            FieldValue::Number(v.as_f64().unwrap_or(f64::NAN), v.to_json())
        }
        json::Kind::String => FieldValue::String(v.as_str().unwrap_or_default().to_owned()),
        json::Kind::Array => FieldValue::Array(v.iter().map(|x| field_value(&x)).collect()),
        json::Kind::Object => FieldValue::Object(v.to_json()),
    }
}

impl DocumentSource for View<'_> {
    fn key_type(&self, key: &[u8]) -> Option<KeyType> {
        self.0.get(key).map(|d| match d {
            Doc::Json(_) => KeyType::Json,
            Doc::Hash(_) => KeyType::Hash,
        })
    }

    fn values(&self, key: &[u8], source: &str) -> Result<Vec<FieldValue>, String> {
        match self.0.get(key) {
            None => Ok(Vec::new()),
            Some(Doc::Json(doc)) => {
                let path = JsonPath::parse(source).map_err(|_| format!("Invalid JSONPath '{source}'"))?;
                Ok(path.select(doc).iter().map(|v| field_value(v)).collect())
            }
            Some(Doc::Hash(h)) => Ok(h
                .iter()
                .filter(|(f, _)| f == source.as_bytes())
                .map(|(_, v)| FieldValue::String(String::from_utf8_lossy(v).into_owned()))
                .collect()),
        }
    }

    fn json_at(&self, key: &[u8], path: &str) -> Option<Vec<String>> {
        match self.0.get(key)? {
            Doc::Json(doc) => {
                let path = JsonPath::parse(path).ok()?;
                Some(path.select(doc).into_iter().map(|v| v.to_json()).collect())
            }
            Doc::Hash(_) => None,
        }
    }

    fn whole(&self, key: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        match self.0.get(key)? {
            Doc::Json(doc) => Some(vec![(b"$".to_vec(), doc.to_json().into_bytes())]),
            Doc::Hash(h) => Some(h.clone()),
        }
    }
}

impl Db {
    fn new() -> Db {
        let mut db = Db { docs: BTreeMap::new(), cat: Catalog::new(), config: Config::default() };
        // Queries that run into the timeout must still end quickly under the fuzzer.
        db.config.timeout_ms = 50;
        db.json_set(b"doc:1", br#"{"title":"hello world","n":3,"tags":["a","b"],"loc":"1.5,2.5","v":[1,2]}"#);
        db.json_set(
            b"doc:2",
            br#"{"title":"running runners run","n":-1.5e3,"tags":"c","nested":{"x":[true,null]}}"#,
        );
        db.hset(b"h:1", &[(b"title", b"hash document"), (b"n", b"42"), (b"tags", b"x,y")]);
        db.run(&[
            b"FT.CREATE", b"jidx", b"ON", b"JSON", b"PREFIX", b"1", b"doc:", b"SCHEMA", b"$.title", b"AS",
            b"title", b"TEXT", b"SORTABLE", b"$.n", b"AS", b"n", b"NUMERIC", b"SORTABLE", b"$.tags[*]",
            b"AS", b"tags", b"TAG", b"$.loc", b"AS", b"loc", b"GEO",
        ]);
        db.run(&[
            b"FT.CREATE", b"hidx", b"ON", b"HASH", b"SCHEMA", b"title", b"TEXT", b"WEIGHT", b"2", b"n",
            b"NUMERIC", b"tags", b"TAG", b"SEPARATOR", b",",
        ]);
        db
    }

    fn json_set(&mut self, key: &[u8], text: &[u8]) {
        if let Ok(v) = Value::parse(text) {
            self.docs.insert(key.to_vec(), Doc::Json(v));
            let view = View(&self.docs);
            self.cat.on_key_changed(key, &view);
        }
    }

    fn hset(&mut self, key: &[u8], pairs: &[(&[u8], &[u8])]) {
        let entry = self.docs.entry(key.to_vec()).or_insert_with(|| Doc::Hash(Vec::new()));
        if let Doc::Json(_) = entry {
            *entry = Doc::Hash(Vec::new());
        }
        if let Doc::Hash(h) = entry {
            for (f, v) in pairs {
                match h.iter_mut().find(|(hf, _)| hf == f) {
                    Some(slot) => slot.1 = v.to_vec(),
                    None => h.push((f.to_vec(), v.to_vec())),
                }
            }
        }
        let view = View(&self.docs);
        self.cat.on_key_changed(key, &view);
    }

    fn del(&mut self, key: &[u8]) {
        self.docs.remove(key);
        self.cat.on_key_removed(key);
    }

    /// Runs one argument vector: `JSON.SET k v`, `HSET k f v…`, `DEL k`, `FLUSHDB`, `RELOAD`
    /// act on the documents like the glue; anything else goes to the catalog.
    fn run(&mut self, argv: &[&[u8]]) {
        let Some((name, args)) = argv.split_first() else {
            return;
        };
        let name = String::from_utf8_lossy(name).to_ascii_uppercase();
        match (name.as_str(), args) {
            ("JSON.SET", [key, value, ..]) => self.json_set(key, value),
            ("HSET", [key, rest @ ..]) => {
                let pairs: Vec<(&[u8], &[u8])> = rest.chunks_exact(2).map(|p| (p[0], p[1])).collect();
                self.hset(key, &pairs);
            }
            ("DEL", [key, ..]) => self.del(key),
            ("FLUSHDB", _) => {
                self.docs.clear();
                self.cat.clear();
            }
            ("RELOAD", _) => {
                let defs = self.cat.to_definitions();
                match Catalog::from_definitions(&defs, &self.config) {
                    Ok(cat) => self.cat = cat,
                    Err(e) => panic!("definitions do not reload: {e}"),
                }
            }
            ("EXPIRE", _) => {
                // As the module's timer: each expired TEMPORARY index dropped with its documents.
                for name in self.cat.expired_temporary(Instant::now() + Duration::from_secs(1 << 20)) {
                    let view = View(&self.docs);
                    let args: [&[u8]; 2] = [name.as_bytes(), b"DD"];
                    let out = self.cat.execute_full("FT.DROPINDEX", &args, &view, &mut self.config, proto(2));
                    for key in out.delete_keys {
                        self.del(&key);
                    }
                }
            }
            _ => {
                let view = View(&self.docs);
                let out = self.cat.execute_full(&name, args, &view, &mut self.config, proto(args.len()));
                for key in out.delete_keys {
                    self.del(&key);
                }
            }
        }
        self.scan();
    }

    /// The glue's initial scan, done synchronously.
    fn scan(&mut self) {
        let prefixes = self.cat.scan_prefixes();
        if prefixes.is_empty() {
            return;
        }
        let keys: Vec<Vec<u8>> =
            self.docs.keys().filter(|k| prefixes.iter().any(|p| k.starts_with(p))).cloned().collect();
        let total = keys.len().max(1);
        for (i, k) in keys.iter().enumerate() {
            let view = View(&self.docs);
            self.cat.scan_key(k, &view);
            self.cat.scan_progress(i as f64 / total as f64);
        }
        self.cat.scan_done();
    }
}

fn proto(n: usize) -> Protocol {
    if n.is_multiple_of(2) {
        Protocol::Resp2
    } else {
        Protocol::Resp3
    }
}

/// Input: commands separated by `\n`, arguments by a space. A fixed database (two indexes,
/// JSON and hash documents) is built first; document commands (`JSON.SET`, `HSET`, `DEL`,
/// `FLUSHDB`) change it, `RELOAD` round-trips the index definitions, `EXPIRE` expires
/// TEMPORARY indexes, and every other vector goes to `Catalog::execute` (RESP2 or RESP3 by
/// argument count).
pub fn ft_command(data: &[u8]) {
    let mut db = Db::new();
    for line in data.split(|&b| b == b'\n').take(32) {
        let argv: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
        db.run(&argv);
    }
}
