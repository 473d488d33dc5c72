//! What a worker query reads documents through, besides `super::gil::GilDocs`.
//!
//! - [`Detached`]: while the worker holds the search state it reads none (it must not wait for
//!   the GIL then, see `crate::state`); a query that asks anyway is noticed and run again on
//!   the main thread.
//!
//! The reply's documents, on the main thread, are `RedisDocs::tracking` (rows whose document
//! changed since the index stage are left out).

use std::cell::Cell;

use search::document::{DocumentSource, FieldValue, KeyType};

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
