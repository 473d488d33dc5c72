//! The document-reading interface the glue implements ([`DocumentSource`]) and the
//! neutral value type it yields.

/// The type of a key as far as indexing is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyType {
    /// A RedisJSON document.
    Json,
    /// A Redis hash.
    Hash,
}

/// One value found at a field source.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue {
    /// JSON `null` (skipped by indexing).
    Null,
    /// JSON boolean (TAG only).
    Bool(bool),
    /// JSON number: the value and its original text.
    Number(f64, String),
    /// A string (JSON string or hash field value).
    String(String),
    /// JSON array, serialized (only reached when a path selects an array itself).
    Array(Vec<FieldValue>),
    /// JSON object, serialized (never indexable).
    Object(String),
}

/// A JSON array of numbers read for a VECTOR field ([`DocumentSource::number_arrays`]).
#[derive(Debug, Clone, PartialEq)]
pub struct NumberArray {
    /// The numbers, in order.
    pub values: Vec<f64>,
    /// Where the first element that is not an integer (of `i64`) is, if any: INT8 and UINT8
    /// vectors take integers only.
    pub first_non_integer: Option<usize>,
}

/// What the glue implements to let the index read documents of one database.
pub trait DocumentSource {
    /// `Some(Json)`/`Some(Hash)`, or `None` when the key is missing or of another type.
    fn key_type(&self, key: &[u8]) -> Option<KeyType>;

    /// Values at a field source: for JSON every match of the JSONPath `source` (a match
    /// that is an array is returned as [`FieldValue::Array`] with its elements), for a
    /// hash the value of field `source` (zero or one [`FieldValue::String`]).
    /// `Err(text)` when the path cannot be evaluated.
    fn values(&self, key: &[u8], source: &str) -> Result<Vec<FieldValue>, String>;

    /// A hint that the JSON documents of `keys` are about to be read one after the other (a
    /// result page): a source may start loading them into the cache all at once. Changes
    /// nothing; the default does nothing.
    fn prefetch_rows(&self, _keys: &[&[u8]]) {}

    /// JSON only: the serialized JSON of each match of `path` (RedisJSON's compact
    /// serialization); `None` when the key is not JSON or the path is invalid.
    fn json_at(&self, key: &[u8], path: &str) -> Option<Vec<String>>;

    /// Hash only: the raw bytes of field `field` (VECTOR blobs are binary, so they cannot
    /// go through [`DocumentSource::values`]' text). The default reads them through
    /// `values`, which suits sources whose hash values are all text.
    fn hash_bytes(&self, key: &[u8], field: &str) -> Option<Vec<u8>> {
        match self.values(key, field).ok()?.into_iter().next()? {
            FieldValue::String(s) => Some(s.into_bytes()),
            _ => None,
        }
    }

    /// JSON only, for VECTOR fields: every match of the JSONPath `source` as a
    /// [`NumberArray`], when every match is an array of numbers; `None` when a match is
    /// anything else, the key is not JSON, or the source does not offer this (the caller then
    /// reads [`DocumentSource::values`], whose messages it keeps). Saves building a
    /// [`FieldValue`] and a text per element.
    fn number_arrays(&self, _key: &[u8], _source: &str) -> Option<Vec<NumberArray>> {
        None
    }

    /// True when the key exists, whatever its type (FT.ADD refuses keys of other types).
    fn key_exists(&self, key: &[u8]) -> bool {
        self.key_type(key).is_some()
    }

    /// The whole document: JSON → `[("$", serialized doc)]`, hash → all field/value pairs.
    fn whole(&self, key: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>>;

    /// True when the caller (the client running the command) may read `key`: its ACL key
    /// permissions. Every reply that carries a document's key or content, or a figure derived
    /// from documents, asks this through [`crate::access`]; sources without a caller (the
    /// indexer, tests) allow every key.
    fn may_read(&self, _key: &[u8]) -> bool {
        true
    }

    /// True when the caller may read every key (the default user, `~*`, `allkeys`): then no
    /// per-key check is made. Asked once per command.
    fn may_read_all(&self) -> bool {
        true
    }

    /// For a query whose rows are read after it has let the index go (on a worker thread):
    /// false when the document at `key` may have changed since the query read the index, so
    /// that its row, read now, would not be the version the query matched (the row is then
    /// left out). It also marks the start of the row's reads: a source that reads documents
    /// in slices of a lock keeps the row's reads in one slice.
    fn row_unchanged(&self, _key: &[u8]) -> bool {
        true
    }

    /// The field sources ([`DocumentSource::values`]) every row will read, told before the
    /// rows come (a source that reads rows ahead reads these).
    fn expect_reads(&self, _sources: &[String]) {}

    /// The caller's ACL user name, when there is a caller (cursors remember who opened them).
    fn caller(&self) -> Option<String> {
        None
    }
}
