//! SORTBY's keys: a document's value of the sort field (its sortable copy, else as loaded)
//! and RediSearch's order of two of them.

use std::cmp::Ordering;

use crate::document::{DocumentSource, FieldValue, KeyType};
use crate::index::docs::{Several, SortRef};
use crate::index::Index;
use crate::schema::FieldType;

/// A sort key value for ordering.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Key {
    Num(f64),
    Str(String),
    /// The first of a JSON SORTABLE attribute's several values (RediSearch's duo value in
    /// the sorting vector; `None` for a JSON `null`), see [`cmp_keys`].
    Several(Option<Box<Key>>),
}

/// RediSearch's `RSValue_Cmp` of two sort keys, ascending. Two duos ([`Key::Several`])
/// compare by their first values; a duo against a string is the empty string (it is not a
/// string to `RSValue_ConvertStringPtrLen`), so it sorts first, and against a number it is
/// its first value as a number. (A duo sorts before even an empty string and a `null`
/// first before anything, so that the order stays total.)
fn cmp_key(x: &Key, y: &Key) -> Ordering {
    match (x, y) {
        (Key::Num(p), Key::Num(q)) => crate::query::score::score_order(*p, *q),
        (Key::Str(p), Key::Str(q)) => p.cmp(q),
        (Key::Num(_), Key::Str(_)) => Ordering::Less,
        (Key::Str(_), Key::Num(_)) => Ordering::Greater,
        (Key::Several(p), Key::Several(q)) => match (p, q) {
            (Some(p), Some(q)) => cmp_key(p, q),
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
        },
        (Key::Several(Some(p)), Key::Num(_)) if matches!(**p, Key::Num(_)) => cmp_key(p, y),
        (Key::Num(_), Key::Several(Some(q))) if matches!(**q, Key::Num(_)) => cmp_key(x, q),
        (Key::Several(_), _) => Ordering::Less,
        (_, Key::Several(_)) => Ordering::Greater,
    }
}

pub(crate) fn cmp_keys(a: &Option<Key>, b: &Option<Key>, asc: bool) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => {
            let o = cmp_key(x, y);
            if asc {
                o
            } else {
                o.reverse()
            }
        }
    }
}

/// The sort key of document `d` for the field at schema position `field`.
pub(super) fn sort_key(
    idx: &Index,
    d: u32,
    field: Option<usize>,
    docs: &dyn DocumentSource,
    dialect: u32,
) -> Option<Key> {
    let fi = field?;
    if let Some(v) = idx.docs.sortable(d, fi as u16) {
        return Some(match v {
            SortRef::Num(n) => Key::Num(n),
            SortRef::Str(s) => Key::Str(s.to_string()),
            SortRef::Several(first) => Key::Several(match first {
                Several::Num(n) => Some(Box::new(Key::Num(n))),
                Several::Str(s) => Some(Box::new(Key::Str(s.to_string()))),
                Several::Null => None,
            }),
        });
    }
    let f = idx.spec.fields.get(fi)?;
    let key = idx.docs.get(d)?.key();
    let vals = docs.values(key, &f.path).ok()?;
    let first = vals.into_iter().find(|v| !matches!(v, FieldValue::Null))?;
    match (first, f.kind) {
        // Before DIALECT 3 RediSearch loads a JSON array of a NUMERIC attribute as its JSON
        // text, and sorts by that text (its flow tests call it the backward-compatible order).
        (FieldValue::Array(_), FieldType::Numeric) if dialect < 3 && idx.spec.on == KeyType::Json => {
            docs.json_at(key, &f.path)?.into_iter().next().map(Key::Str)
        }
        (FieldValue::Number(n, _), _) => Some(Key::Num(n)),
        (FieldValue::String(s), FieldType::Numeric) => {
            crate::suggest::args::redis_double(s.as_bytes()).map(Key::Num)
        }
        // As loaded: RediSearch compares a field without a sortable copy by its raw bytes
        // (`Bravo` before `alpha`), whatever UNF says.
        (FieldValue::String(s), _) => Some(Key::Str(s)),
        (FieldValue::Bool(b), _) => Some(Key::Str(b.to_string())),
        (FieldValue::Array(items), _) => items.into_iter().find_map(|v| match v {
            FieldValue::Number(n, _) => Some(Key::Num(n)),
            FieldValue::String(s) => Some(Key::Str(s)),
            _ => None,
        }),
        _ => None,
    }
}
