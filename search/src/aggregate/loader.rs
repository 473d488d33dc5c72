//! Loading row values for the aggregation pipeline: from the index (SORTABLE values, NUMERIC
//! values it holds as the documents'), else from the documents, as RediSearch's loader reads
//! them (JSON's first match, or from DIALECT 3 a duo value; hash TAG lists split).

use super::pipeline::{DocRef, FieldInfo, FieldLoader, LoadRequest};
use super::value::Value;
use crate::commands::expand::first_element_text;
use crate::document::{DocumentSource, FieldValue, KeyType};
use crate::index::docs::{Several, SortRef};
use crate::index::Index;
use crate::query::vector::Distances;
use crate::schema::{FieldSpec, FieldType, IndexSpec};

/// Loads row values from the index (SORTABLE values) and the documents.
pub(crate) struct IndexLoader<'a> {
    pub(crate) spec: &'a IndexSpec,
    pub(crate) docs: &'a dyn DocumentSource,
    pub(crate) dialect: u32,
    /// Where what the index holds of a document comes from.
    pub(crate) indexed: Indexed<'a>,
}

/// What the index holds of the pipeline's documents: read from it as rows are made, or
/// copied out beforehand (a query whose rows are made once the index is released).
pub(crate) enum Indexed<'a> {
    /// The index itself, and the distances the query yields.
    Live { idx: &'a Index, distances: &'a Distances },
    /// Copies, by document position.
    Copied(&'a super::staged::Copied),
}

impl FieldLoader for IndexLoader<'_> {
    fn field(&self, name: &str) -> Option<FieldInfo> {
        self.spec.field(name).map(|(_, f)| FieldInfo::of(self.spec, f))
    }

    fn load(&self, doc: DocRef<'_>, what: LoadRequest<'_>) -> Option<Value> {
        let key = doc.key;
        match what {
            LoadRequest::Attribute(name) => {
                let (fi, f) = self.spec.field(name)?;
                if !self.duos() {
                    if let Some(n) = self.served(doc.id, fi, f) {
                        return Some(Value::Number(n));
                    }
                }
                self.explicit(key, &f.path, Some(f))
            }
            LoadRequest::Path(path) => self.explicit(key, path, None),
            LoadRequest::SortValue(name) | LoadRequest::Implicit(name) => self.implicit(key, doc.id, name),
        }
    }

    fn gone(&self, doc: DocRef<'_>) -> bool {
        !self.docs.key_exists(doc.key)
    }

    fn yielded(&self) -> Vec<String> {
        match &self.indexed {
            Indexed::Live { distances, .. } => distances.fields.iter().map(|(n, _)| n.clone()).collect(),
            Indexed::Copied(c) => c.yielded.clone(),
        }
    }

    fn yielded_value(&self, doc: DocRef<'_>, name: &str) -> Option<Value> {
        match &self.indexed {
            Indexed::Live { distances, .. } => distances.get(name, doc.id).map(Value::Number),
            Indexed::Copied(c) => c.yielded_value(doc.id, name).map(Value::Number),
        }
    }

    fn load_all_names_fields(&self) -> bool {
        !self.json()
    }

    fn load_all(&self, doc: DocRef<'_>) -> Vec<(String, Value)> {
        self.docs
            .whole(doc.key)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(k, v)| {
                let name = String::from_utf8_lossy(&k).into_owned();
                if !self.duos() {
                    return Some((name, Value::bytes(&v)));
                }
                // From DIALECT 3 a JSON document is a duo value like any path's
                // (`RLookup_JSON_GetAll` reads `$` through `jsonIterToValue`): shown as the
                // array of its matches, under FORMAT EXPAND expanded; a document that is an
                // array is its first element (none when empty: then no `$`).
                if v.first() == Some(&b'[') {
                    let vals = self.docs.values(doc.key, "$").ok()?;
                    return self.duo(doc.key, "$", vals, None).map(|d| (name, d));
                }
                let shown = [&b"["[..], &v, b"]"].concat();
                Some((name, Value::duo(Value::bytes(&v), Value::bytes(&shown))))
            })
            // RediSearch leaves the language, score and payload fields out of LOAD *.
            .filter(|(k, _)| !self.spec.is_rule_field(k))
            .collect()
    }
}

impl IndexLoader<'_> {
    fn json(&self) -> bool {
        self.spec.on == KeyType::Json
    }

    /// Whether JSON values are read as duo values ([`shows_all_matches`]).
    fn duos(&self) -> bool {
        shows_all_matches(self.spec, self.dialect)
    }

    /// A JSON value from DIALECT 3 on, as RediSearch's `jsonIterToValue` makes it, shown as
    /// the JSON array of every match: its own value (what APPLY, SORTBY, GROUPBY read) is
    /// the first match, or the first element of a first match that is an array (an array
    /// or object as its JSON text); a first match that is an empty array gives no value at
    /// all (the field is left out of the row).
    /// `vals` are the path's matches, as the caller read them.
    fn duo(&self, key: &[u8], path: &str, vals: Vec<FieldValue>, attr: Option<&FieldSpec>) -> Option<Value> {
        let all = self.docs.json_at(key, path)?;
        let first = match vals.into_iter().next()? {
            FieldValue::Array(items) => {
                let element = items.into_iter().next()?;
                first_match(vec![element], || first_element_text(all.first()?), attr)?
            }
            v => first_match(vec![v], || all.first().cloned(), attr)?,
        };
        Some(Value::duo(first, Value::str(&format!("[{}]", all.join(",")))))
    }

    /// A NUMERIC field's value as the index holds it when it is the document's one value,
    /// which LOAD and property reads would read back as this same number
    /// ([`crate::index::docs::DocRecord::served_number`]): no document read needed.
    fn served(&self, id: u32, fi: usize, f: &FieldSpec) -> Option<f64> {
        if f.kind != FieldType::Numeric {
            return None;
        }
        match &self.indexed {
            Indexed::Live { idx, .. } => idx.docs.get(id)?.served_number(fi as u16),
            Indexed::Copied(c) => c.served(id, fi),
        }
    }

    /// LOAD: the document's value as RediSearch returns it (JSON: the first
    /// match before DIALECT 3, else a duo value; nothing for a path that is not a JSONPath,
    /// which RediSearch's loader does not look up).
    fn explicit(&self, key: &[u8], path: &str, attr: Option<&FieldSpec>) -> Option<Value> {
        if self.json() && !path.starts_with('$') {
            return None;
        }
        let vals = self.docs.values(key, path).ok()?;
        if vals.is_empty() {
            return None;
        }
        if !self.json() {
            // A value that is not text (a VECTOR blob) is its bytes, as RediSearch loads it.
            if let Some(FieldValue::String(s)) = vals.first() {
                if s.contains(char::REPLACEMENT_CHARACTER) {
                    if let Some(raw) = self.docs.hash_bytes(key, path) {
                        return Some(Value::bytes(&raw));
                    }
                }
            }
            return vals.into_iter().next().and_then(|v| scalar(v, attr));
        }
        if self.duos() && !single_sortable(attr, &vals) {
            return self.duo(key, path, vals, attr);
        }
        self.json_first(key, path, vals, attr)
    }

    /// A JSON value before DIALECT 3: its first match (an array or object as its JSON text).
    fn json_first(
        &self,
        key: &[u8],
        path: &str,
        vals: Vec<FieldValue>,
        attr: Option<&FieldSpec>,
    ) -> Option<Value> {
        first_match(vals, || self.docs.json_at(key, path)?.into_iter().next(), attr)
    }

    /// GROUPBY/REDUCE/SORTBY/APPLY reads of an attribute: the SORTABLE
    /// value when there is one, else the document's
    /// value (a hash's TAG list whole, which GROUPBY splits), a JSON
    /// attribute is read as LOAD reads it (its first match, or from DIALECT 3 a duo value
    /// unless it is a SORTABLE one holding a single value).
    fn implicit(&self, key: &[u8], id: u32, name: &str) -> Option<Value> {
        let (fi, f) = self.spec.field(name)?;
        if self.duos() {
            // (The document is at hand: `read_from_document` asks for it from DIALECT 3.)
            let vals = self.docs.values(key, &f.path).ok()?;
            let single =
                matches!(vals.as_slice(), [v] if !matches!(v, FieldValue::Array(_) | FieldValue::Object(_)));
            if !(single && property_from_sortable(self.spec, f)) {
                return self.duo(key, &f.path, vals, Some(f));
            }
        }
        if property_from_sortable(self.spec, f) {
            match &self.indexed {
                Indexed::Live { idx, .. } => {
                    if let Some(v) = idx.docs.sortable(id, fi as u16) {
                        return Some(sort_value(v));
                    }
                }
                Indexed::Copied(c) => {
                    if let Some(v) = c.sortable(id, fi) {
                        return Some(v.clone());
                    }
                }
            }
        }
        if let Some(n) = self.served(id, fi, f) {
            return Some(Value::Number(n));
        }
        self.implicit_from_document(key, f)
    }

    /// A property read of field `f` from the document itself.
    fn implicit_from_document(&self, key: &[u8], f: &FieldSpec) -> Option<Value> {
        if self.json() {
            let vals = self.docs.values(key, &f.path).ok()?;
            let first = self.json_first(key, &f.path, vals, Some(f))?;
            if f.kind == FieldType::Tag {
                return split_tags(vec![first], None, f.sortable && !f.unf).pop();
            }
            return Some(first);
        }
        let mut out = Vec::new();
        for v in self.docs.values(key, &f.path).ok()? {
            flatten(v, f, &mut out);
        }
        // (A hash TAG is its list as the hash holds it, as RediSearch reads it; GROUPBY
        // splits it.)
        match out.len() {
            0 => None,
            1 => out.pop(),
            _ => Some(Value::array(out)),
        }
    }
}

/// Whether a DIALECT 3 LOAD of attribute `attr` shows its one match plain rather than as
/// the array of its matches: a SORTABLE attribute (any type) whose path matched one value
/// that is not an array or object (RediSearch 2.10.5: `LOAD 1 @title` gives `Hello World`
/// for a SORTABLE title, `[8]` for a number that is not SORTABLE, `[3,1,2]` for three).
fn single_sortable(attr: Option<&FieldSpec>, vals: &[FieldValue]) -> bool {
    attr.is_some_and(|f| f.sortable)
        && matches!(vals, [v] if !matches!(v, FieldValue::Array(_) | FieldValue::Object(_)))
}

/// Whether the pipeline's property reads of field `f` (GROUPBY, SORTBY, APPLY) take its
/// SORTABLE value, as RediSearch's `RLookup_GetItem` does for a key of a SORTABLE field the
/// row has no value for (a JSON array as its first value; a hash's TAG as its whole list,
/// `Ab,c` read as `ab,c`, which only GROUPBY splits: README's differences, "FT.AGGREGATE
/// GROUPBY on a hash's multi-value TAG", and [`super::group::Grouper::lists`]).
pub(crate) fn property_from_sortable(_spec: &IndexSpec, f: &FieldSpec) -> bool {
    f.sortable
}

/// Whether the pipeline's read of field `name` (`explicit`: a LOAD of it, else a property
/// read) goes to the document, given which fields the index answers for every row: `served`,
/// a NUMERIC value held as the document's; `sortable`, a SORTABLE value (property reads only).
/// An unknown name is read from the document.
pub(crate) fn read_from_document(
    spec: &IndexSpec,
    name: &str,
    explicit: bool,
    dialect: u32,
    served: impl Fn(usize) -> bool,
    sortable: impl Fn(usize) -> bool,
) -> bool {
    let Some((fi, f)) = spec.field(name) else { return true };
    if shows_all_matches(spec, dialect) {
        return true;
    }
    !(served(fi) || !explicit && property_from_sortable(spec, f) && sortable(fi))
}

/// Whether the pipeline reads JSON attributes as duo values, shown as the JSON array of
/// every match (JSON, from DIALECT 3): read from the document, the index holds one value.
pub(crate) fn shows_all_matches(spec: &IndexSpec, dialect: u32) -> bool {
    spec.on == KeyType::Json && dialect >= 3
}

/// A SORTABLE value as the pipeline reads it before DIALECT 3: the first of several values
/// is a duo shown as that value (RediSearch's duo, `serializeResult` showing its first value
/// before DIALECT 3), which sorts and compares as a duo does ([`Value::compare`]).
pub(crate) fn sort_value(v: SortRef<'_>) -> Value {
    match v {
        SortRef::Num(n) => Value::Number(n),
        SortRef::Str(s) => Value::str(s),
        SortRef::Several(first) => {
            let first = match first {
                Several::Num(n) => Value::Number(n),
                Several::Str(s) => Value::str(s),
                Several::Null => Value::Null,
            };
            Value::duo(first.clone(), first)
        }
    }
}

/// A JSON path's first match as a value: an array or object as its JSON text (`text`, read
/// only then), anything else as [`scalar`].
fn first_match(
    vals: Vec<FieldValue>,
    text: impl FnOnce() -> Option<String>,
    attr: Option<&FieldSpec>,
) -> Option<Value> {
    match vals.into_iter().next()? {
        FieldValue::Array(_) | FieldValue::Object(_) => text().map(|s| Value::str(&s)),
        v => scalar(v, attr),
    }
}

/// A scalar document value; NUMERIC attributes of hashes become numbers, and so do JSON
/// booleans (RediSearch's `jsonValToValue` reads `true` as the integer 1, `false` as 0).
fn scalar(v: FieldValue, attr: Option<&FieldSpec>) -> Option<Value> {
    Some(match v {
        FieldValue::Null => Value::Null,
        FieldValue::Bool(b) => Value::Number(if b { 1.0 } else { 0.0 }),
        FieldValue::Number(n, _) => Value::Number(n),
        FieldValue::String(s) => {
            let numeric = attr.is_some_and(|f| f.kind == FieldType::Numeric);
            match numeric.then(|| super::value::parse_number(s.trim().as_bytes())).flatten() {
                Some(n) => Value::Number(n),
                None => Value::str(&s),
            }
        }
        FieldValue::Array(items) => Value::array(items.into_iter().filter_map(|x| scalar(x, attr)).collect()),
        FieldValue::Object(o) => Value::str(&o),
    })
}

fn flatten(v: FieldValue, f: &FieldSpec, out: &mut Vec<Value>) {
    match v {
        FieldValue::Null | FieldValue::Object(_) => {}
        FieldValue::Array(items) => items.into_iter().for_each(|x| flatten(x, f, out)),
        other => out.extend(scalar(other, Some(f))),
    }
}

/// TAG values: split hash strings on the separator, trim, and normalize as the sortable
/// value would be.
fn split_tags(vals: Vec<Value>, sep: Option<char>, lower: bool) -> Vec<Value> {
    let mut out = Vec::new();
    for v in vals {
        let Value::String(b) = &v else {
            out.push(v);
            continue;
        };
        let s = String::from_utf8_lossy(b);
        if s.is_empty() {
            // An empty value is a value: it groups as "" (test_empty.py), not as missing.
            out.push(v.clone());
            continue;
        }
        let parts: Vec<&str> = match sep {
            Some(c) => s.split(c).collect(),
            None => vec![&s],
        };
        for p in parts {
            let t = p.trim();
            if t.is_empty() {
                continue;
            }
            out.push(Value::str(&if lower {
                crate::index::extract::normalize_sortable(t)
            } else {
                t.to_string()
            }));
        }
    }
    out
}

#[cfg(test)]
#[path = "served_tests.rs"]
mod served_tests;
