//! What a worker query reads documents through, besides `super::gil::GilDocs`.
//!
//! - [`Detached`]: while the worker holds the search state it reads none (it must not wait for
//!   the GIL then, see `crate::state`); a query that asks anyway is noticed and run again on
//!   the main thread.
//! - [`Tracked`]: the main thread's documents for the reply, leaving out rows whose document
//!   changed since the index stage.

use std::cell::Cell;

use search::document::{DocumentSource, FieldValue, KeyType};

use super::changes::Tracker;
use crate::indexing::RedisDocs;

/// A document source that has no documents and remembers being asked for one.
pub struct Detached {
    asked: Cell<bool>,
    owner: Option<String>,
}

impl Detached {
    /// For a caller called `owner` who may read every key.
    pub fn new(owner: Option<String>) -> Detached {
        Detached { asked: Cell::new(false), owner }
    }

    /// True when the query asked for a document.
    pub fn asked(&self) -> bool {
        self.asked.get()
    }

    fn ask<T>(&self, none: T) -> T {
        self.asked.set(true);
        none
    }
}

impl DocumentSource for Detached {
    fn key_type(&self, _key: &[u8]) -> Option<KeyType> {
        self.ask(None)
    }

    fn values(&self, _key: &[u8], _source: &str) -> Result<Vec<FieldValue>, String> {
        self.ask(Ok(Vec::new()))
    }

    fn json_at(&self, _key: &[u8], _path: &str) -> Option<Vec<String>> {
        self.ask(None)
    }

    fn whole(&self, _key: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        self.ask(None)
    }

    fn caller(&self) -> Option<String> {
        self.owner.clone()
    }
}

/// The main thread's documents for a worker query's reply: rows whose document changed since
/// the query read the index are left out.
pub struct Tracked<'c, 't> {
    pub docs: RedisDocs<'c>,
    pub changes: &'t Tracker,
}

impl DocumentSource for Tracked<'_, '_> {
    fn row_unchanged(&self, key: &[u8]) -> bool {
        self.changes.unchanged(key)
    }

    fn key_type(&self, key: &[u8]) -> Option<KeyType> {
        self.docs.key_type(key)
    }

    fn values(&self, key: &[u8], source: &str) -> Result<Vec<FieldValue>, String> {
        self.docs.values(key, source)
    }

    fn json_at(&self, key: &[u8], path: &str) -> Option<Vec<String>> {
        self.docs.json_at(key, path)
    }

    fn hash_bytes(&self, key: &[u8], field: &str) -> Option<Vec<u8>> {
        self.docs.hash_bytes(key, field)
    }

    fn key_exists(&self, key: &[u8]) -> bool {
        self.docs.key_exists(key)
    }

    fn whole(&self, key: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        self.docs.whole(key)
    }

    fn may_read(&self, key: &[u8]) -> bool {
        self.docs.may_read(key)
    }

    fn may_read_all(&self) -> bool {
        self.docs.may_read_all()
    }

    fn caller(&self) -> Option<String> {
        DocumentSource::caller(&self.docs)
    }
}
