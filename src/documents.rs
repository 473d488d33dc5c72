//! The document source: how the index reads JSON documents and hashes of the selected
//! database, for the indexer and for query results ([`RedisDocs`]), and the JSON document a
//! reader that holds the GIL read last ([`LastJson`]).

use std::cell::RefCell;

use json::path::JsonPath;
use json::Value;
use redis_module::{raw, Context};
use search::document::{DocumentSource, FieldValue, KeyType};

use crate::read_key::ReadKey;

/// Reads documents of the database selected in `ctx`, for the indexer and for query results.
pub struct RedisDocs<'c> {
    ctx: &'c Context,
    /// The command's caller, resolved on first use (the indexer never asks).
    caller: std::cell::OnceCell<crate::acl::Caller>,
    /// The JSON document read last, for a reader that holds the GIL between its reads.
    last: Option<&'c LastJson>,
    /// The keys changed since a worker query read the index: its rows whose document changed
    /// are left out ([`DocumentSource::row_unchanged`]).
    changes: Option<&'c crate::workers::changes::Tracker>,
    /// Keys opened ahead by [`DocumentSource::prefetch_rows`], taken by the reads that follow
    /// (so each row's key is looked up once). Valid as [`LastJson`] is: the reader holds the
    /// GIL from the prefetch to the reads, so no command runs in between.
    ahead: RefCell<Vec<(Vec<u8>, ReadKey)>>,
}

/// The JSON document a reader read last: its key and value. Valid only while the reader holds
/// the GIL without a break since the document was read (no command, so no write, can run in
/// between); the reader empties it whenever it lets the GIL go.
#[derive(Default)]
pub struct LastJson(std::cell::RefCell<Option<(Vec<u8>, *const Value)>>);

impl LastJson {
    /// Forgets the document (the GIL is being given up).
    pub fn clear(&self) {
        self.0.borrow_mut().take();
    }
}

impl<'c> RedisDocs<'c> {
    /// A document source over the selected database of `ctx`.
    pub fn new(ctx: &'c Context) -> RedisDocs<'c> {
        RedisDocs {
            ctx,
            caller: std::cell::OnceCell::new(),
            last: None,
            changes: None,
            ahead: RefCell::default(),
        }
    }

    /// Like [`RedisDocs::new`], for the reply of a worker query that tracks `changes`.
    pub fn tracking(ctx: &'c Context, changes: &'c crate::workers::changes::Tracker) -> RedisDocs<'c> {
        RedisDocs { changes: Some(changes), ..RedisDocs::new(ctx) }
    }

    /// Like [`RedisDocs::new`], remembering the JSON document read last in `last` (see
    /// [`LastJson`] for when that is valid).
    pub fn remembering(ctx: &'c Context, last: &'c LastJson) -> RedisDocs<'c> {
        RedisDocs { last: Some(last), ..RedisDocs::new(ctx) }
    }

    fn caller(&self) -> &crate::acl::Caller {
        self.caller.get_or_init(|| crate::acl::Caller::of(self.ctx))
    }

    fn read(&self, key: &[u8]) -> ReadKey {
        let mut ahead = self.ahead.borrow_mut();
        match ahead.iter().position(|(k, _)| k.as_slice() == key) {
            Some(i) => ahead.swap_remove(i).1,
            None => ReadKey::open(self.ctx, key),
        }
    }

    fn with_json<R>(&self, key: &[u8], f: impl FnOnce(&Value) -> R) -> Option<R> {
        self.with_doc(key, |doc| Some(f(doc)), |_| None)
    }

    /// Runs `json` on the JSON document of `key` (the one remembered, or read and remembered),
    /// else `other` on the key, opened once whatever its type.
    fn with_doc<R>(
        &self,
        key: &[u8],
        json: impl FnOnce(&Value) -> R,
        other: impl FnOnce(&ReadKey) -> R,
    ) -> R {
        if let Some(doc) = self.remembered(key) {
            return json(doc);
        }
        let k = self.read(key);
        match k.json() {
            Some(doc) => {
                self.remember(key, doc);
                json(doc)
            }
            None => other(&k),
        }
    }

    /// The JSON document [`LastJson`] remembers, when it is the one of `key`.
    fn remembered(&self, key: &[u8]) -> Option<&Value> {
        let last = self.last?;
        let found = last.0.borrow().as_ref().filter(|(k, _)| k.as_slice() == key).map(|(_, v)| *v)?;
        // SAFETY: the value was read from the keyspace under the GIL, which this thread has
        // held since (LastJson's contract): nothing can have freed it.
        Some(unsafe { &*found })
    }

    /// Remembers `v` as the document of `key` (see [`LastJson`]).
    fn remember(&self, key: &[u8], v: &Value) {
        if let Some(last) = self.last {
            *last.0.borrow_mut() = Some((key.to_vec(), v as *const Value));
        }
    }

    /// Runs `f` with `path` compiled, through the JSON commands' cache of compiled paths (a
    /// write re-reads every field path of every index, so the same few paths repeat).
    pub(crate) fn with_path<R>(&self, path: &str, f: impl FnOnce(&JsonPath) -> R) -> Option<R> {
        let dotted;
        let path = match json::path::api_spelling(path) {
            Some(p) => {
                dotted = p;
                dotted.as_str()
            }
            None => path,
        };
        crate::commands::json::compile(path.as_bytes()).ok().map(|p| f(&p))
    }

    fn hash_field(&self, key: &[u8], field: &str) -> Option<Vec<u8>> {
        self.read(key).hash_get(field.as_bytes()).map(|s| s.as_slice().to_vec())
    }
}

/// A match that is an array of numbers, read as numbers (a packed array without building a
/// `Value` per element); `None` for anything else.
fn number_array(v: &json::Node) -> Option<search::NumberArray> {
    let arr = v.array()?;
    let mut values = Vec::with_capacity(arr.len());
    let mut first_non_integer = None;
    let mut read = |i: usize, n: json::Num| {
        if first_non_integer.is_none() && !matches!(n, json::Num::I64(_)) {
            first_non_integer = Some(i);
        }
        values.push(n.as_f64());
    };
    match arr.as_packed() {
        Some(p) => {
            let mut i = 0;
            p.for_each_num(|n| {
                read(i, n);
                i += 1;
            });
        }
        None => {
            for (i, item) in arr.as_values()?.iter().enumerate() {
                read(i, item.as_num()?);
            }
        }
    }
    Some(search::NumberArray { values, first_non_integer })
}

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

impl DocumentSource for RedisDocs<'_> {
    fn row_unchanged(&self, key: &[u8]) -> bool {
        self.changes.is_none_or(|c| c.unchanged(key))
    }

    fn may_read(&self, key: &[u8]) -> bool {
        self.caller().may_read(key)
    }

    fn may_read_all(&self) -> bool {
        self.caller().may_read_all()
    }

    fn caller(&self) -> Option<String> {
        RedisDocs::caller(self).name()
    }

    fn key_type(&self, key: &[u8]) -> Option<KeyType> {
        let k = self.read(key);
        match k.key_type() {
            raw::KeyType::Hash => Some(KeyType::Hash),
            raw::KeyType::Module => k.json().map(|_| KeyType::Json),
            _ => None,
        }
    }

    fn key_exists(&self, key: &[u8]) -> bool {
        self.read(key).key_type() != raw::KeyType::Empty
    }

    fn values(&self, key: &[u8], source: &str) -> Result<Vec<FieldValue>, String> {
        let json = |doc: &Value| {
            self.with_path(source, |p| p.select(doc).into_iter().map(|v| field_value(&v)).collect::<Vec<_>>())
                .ok_or_else(|| format!("Invalid JSONPath '{source}'"))
        };
        self.with_doc(key, json, |k| {
            let value = k.hash_get(source.as_bytes());
            Ok(value
                .map(|v| vec![FieldValue::String(String::from_utf8_lossy(v.as_slice()).into_owned())])
                .unwrap_or_default())
        })
    }

    fn hash_bytes(&self, key: &[u8], field: &str) -> Option<Vec<u8>> {
        self.hash_field(key, field)
    }

    fn number_arrays(&self, key: &[u8], source: &str) -> Option<Vec<search::NumberArray>> {
        self.with_json(key, |doc| {
            self.with_path(source, |p| p.select(doc).iter().map(number_array).collect::<Option<Vec<_>>>())
        })??
    }

    fn json_at(&self, key: &[u8], path: &str) -> Option<Vec<String>> {
        self.with_json(key, |doc| {
            self.with_path(path, |p| p.select(doc).iter().map(|v| v.to_json()).collect())
        })?
    }

    fn prefetch_rows(&self, keys: &[&[u8]]) {
        if keys.len() < 2 {
            return;
        }
        // Level by level over all the documents (see json's `prefetch` module): each level's
        // cache misses overlap across the documents instead of adding up one by one. An expired
        // key is neither deleted here nor kept: the row opens it as before, where it expires
        // (RediSearch shows such a row with no fields).
        let mut open: Vec<(Vec<u8>, ReadKey)> = Vec::with_capacity(keys.len());
        for k in keys {
            let Some(key) = ReadKey::open_keeping_expired(self.ctx, k) else { return };
            if key.key_type() != raw::KeyType::Empty {
                open.push((k.to_vec(), key));
            }
        }
        let docs: Vec<&Value> = open.iter().filter_map(|(_, k)| k.json()).collect();
        docs.iter().for_each(|d| d.prefetch_self());
        docs.iter().for_each(|d| d.prefetch());
        docs.iter().for_each(|d| d.prefetch_children());
        drop(docs);
        // The keys of an earlier prefetch that were not read are closed here.
        *self.ahead.borrow_mut() = open;
    }

    fn whole(&self, key: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        // A JSON document's compact text, from the text cache of documents read whole again
        // and again (a search result page shown to many readers, as JSON.GET's).
        let json = |doc: &Value| vec![(b"$".to_vec(), crate::text_cache::owned_text(doc))];
        // A hash's fields in the order RediSearch loads them (ReadKey::hash_pairs).
        self.with_doc(
            key,
            |doc| Some(json(doc)),
            |k| (k.key_type() == raw::KeyType::Hash).then(|| k.hash_pairs()),
        )
    }
}
