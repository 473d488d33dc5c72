//! An in-memory [`DocumentSource`]: the test double of the glue's trait (hashes and JSON
//! documents, with a small JSONPath subset: `$`, `.name`, `[n]`, `.*`, `[*]`).

#![allow(dead_code)]

use std::collections::BTreeMap;

use search::{Catalog, Config, DocumentSource, FieldValue, KeyType, Protocol, Reply};
use serde_json::Value;

/// A stored document.
#[derive(Clone, Debug)]
pub enum Doc {
    Hash(Vec<(String, String)>),
    /// Parsed value and compact original text (key order preserved).
    Json(Value, String),
}

/// A database of documents plus the catalog and config the glue would own.
#[derive(Default)]
pub struct Db {
    pub docs: BTreeMap<Vec<u8>, Doc>,
    pub cat: Catalog,
    pub config: Config,
}

/// Read-only view passed to the catalog.
pub struct View<'a>(pub &'a BTreeMap<Vec<u8>, Doc>);

fn select<'v>(v: &'v Value, path: &str) -> Option<Vec<&'v Value>> {
    let rest = path.strip_prefix('$')?;
    let mut cur = vec![v];
    let mut s = rest;
    while !s.is_empty() {
        let mut next = Vec::new();
        if let Some(r) = s.strip_prefix(".*").or_else(|| s.strip_prefix("[*]")) {
            for c in &cur {
                match c {
                    Value::Array(a) => next.extend(a.iter()),
                    Value::Object(o) => next.extend(o.values()),
                    _ => {}
                }
            }
            s = r;
        } else if let Some(r) = s.strip_prefix('[') {
            let end = r.find(']')?;
            let n: i64 = r[..end].parse().ok()?;
            for c in &cur {
                if let Value::Array(a) = c {
                    let i = if n < 0 { a.len() as i64 + n } else { n };
                    if let Some(x) = usize::try_from(i).ok().and_then(|i| a.get(i)) {
                        next.push(x);
                    }
                }
            }
            s = &r[end + 1..];
        } else if let Some(r) = s.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let name = &r[..end];
            for c in &cur {
                if let Some(x) = c.get(name) {
                    next.push(x);
                }
            }
            s = &r[end..];
        } else {
            return None;
        }
        cur = next;
    }
    Some(cur)
}

fn to_field_value(v: &Value) -> FieldValue {
    match v {
        Value::Null => FieldValue::Null,
        Value::Bool(b) => FieldValue::Bool(*b),
        Value::Number(n) => FieldValue::Number(n.as_f64().unwrap_or(0.0), n.to_string()),
        Value::String(s) => FieldValue::String(s.clone()),
        Value::Array(a) => FieldValue::Array(a.iter().map(to_field_value).collect()),
        Value::Object(_) => FieldValue::Object(v.to_string()),
    }
}

impl DocumentSource for View<'_> {
    fn key_type(&self, key: &[u8]) -> Option<KeyType> {
        self.0.get(key).map(|d| match d {
            Doc::Hash(_) => KeyType::Hash,
            Doc::Json(..) => KeyType::Json,
        })
    }

    fn values(&self, key: &[u8], source: &str) -> Result<Vec<FieldValue>, String> {
        match self.0.get(key) {
            None => Ok(Vec::new()),
            Some(Doc::Hash(h)) => Ok(h
                .iter()
                .filter(|(k, _)| k == source)
                .map(|(_, v)| FieldValue::String(v.clone()))
                .collect()),
            Some(Doc::Json(v, _)) => {
                let path = if source.starts_with('$') { source.to_string() } else { format!("$.{source}") };
                Ok(select(v, &path).ok_or("bad path")?.into_iter().map(to_field_value).collect())
            }
        }
    }

    fn json_at(&self, key: &[u8], path: &str) -> Option<Vec<String>> {
        match self.0.get(key)? {
            Doc::Json(v, _) => Some(select(v, path)?.into_iter().map(|x| x.to_string()).collect()),
            Doc::Hash(_) => None,
        }
    }

    fn whole(&self, key: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        match self.0.get(key)? {
            Doc::Json(_, text) => Some(vec![(b"$".to_vec(), text.clone().into_bytes())]),
            Doc::Hash(h) => {
                Some(h.iter().map(|(k, v)| (k.clone().into_bytes(), v.clone().into_bytes())).collect())
            }
        }
    }
}

impl Db {
    pub fn new() -> Db {
        Db::default()
    }

    /// Runs a command given as separate arguments (RESP2).
    pub fn cmd(&mut self, args: &[&str]) -> Reply {
        self.cmd_proto(args, Protocol::Resp2)
    }

    pub fn cmd_proto(&mut self, args: &[&str], proto: Protocol) -> Reply {
        let bytes: Vec<&[u8]> = args[1..].iter().map(|a| a.as_bytes()).collect();
        let view = View(&self.docs);
        let r = self.cat.execute(args[0], &bytes, &view, &mut self.config, proto);
        if self.cat.scan_prefixes().is_empty() {
            return r;
        }
        // The glue's initial scan, done synchronously.
        let prefixes = self.cat.scan_prefixes();
        let keys: Vec<Vec<u8>> =
            self.docs.keys().filter(|k| prefixes.iter().any(|p| k.starts_with(p))).cloned().collect();
        for k in keys {
            let view = View(&self.docs);
            self.cat.scan_key(&k, &view);
        }
        self.cat.scan_done();
        r
    }

    pub fn json_set(&mut self, key: &str, json: &str) {
        let v: Value = serde_json::from_str(json).expect("test json");
        self.docs.insert(key.as_bytes().to_vec(), Doc::Json(v, compact(json)));
        let view = View(&self.docs);
        self.cat.on_key_changed(key.as_bytes(), &view);
    }

    pub fn hset(&mut self, key: &str, pairs: &[(&str, &str)]) {
        let entry = self.docs.entry(key.as_bytes().to_vec()).or_insert_with(|| Doc::Hash(Vec::new()));
        if let Doc::Json(..) = entry {
            *entry = Doc::Hash(Vec::new());
        }
        if let Doc::Hash(h) = entry {
            for (k, v) in pairs {
                match h.iter_mut().find(|(hk, _)| hk == k) {
                    Some(slot) => slot.1 = v.to_string(),
                    None => h.push((k.to_string(), v.to_string())),
                }
            }
        }
        let view = View(&self.docs);
        self.cat.on_key_changed(key.as_bytes(), &view);
    }

    pub fn del(&mut self, key: &str) {
        self.docs.remove(key.as_bytes());
        self.cat.on_key_removed(key.as_bytes());
    }
}

/// Removes whitespace outside strings.
fn compact(json: &str) -> String {
    let mut out = String::new();
    let (mut in_str, mut esc) = (false, false);
    for c in json.chars() {
        if in_str {
            out.push(c);
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if !c.is_whitespace() {
            in_str = c == '"';
            out.push(c);
        }
    }
    out
}

/// A seeded xorshift generator for the property tests (the same sequence on every machine).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// An element of `v`.
    pub fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.below(v.len() as u64) as usize]
    }
}

/// Shorthands for expected replies.
pub fn b(s: &str) -> Reply {
    Reply::Bulk(s.as_bytes().to_vec())
}

pub fn arr(v: Vec<Reply>) -> Reply {
    Reply::Array(v)
}

/// The ids of a RESP2 FT.SEARCH reply with NOCONTENT.
pub fn ids(r: &Reply) -> Vec<String> {
    match r {
        Reply::Array(v) => v
            .iter()
            .skip(1)
            .filter_map(|x| match x {
                Reply::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
                _ => None,
            })
            .collect(),
        other => panic!("not an array: {other:?}"),
    }
}

pub fn total(r: &Reply) -> i64 {
    match r {
        Reply::Array(v) => match v.first() {
            Some(Reply::Int(n)) => *n,
            other => panic!("no total: {other:?}"),
        },
        other => panic!("not an array: {other:?}"),
    }
}
