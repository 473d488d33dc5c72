//! Reads a VECTOR field's value from a document: a HASH holds a raw little-endian blob of
//! DIM × element-size bytes; a JSON document holds an array of numbers, or several of them
//! (a path with several matches) for a multi-vector field. Any other shape fails the
//! document, with RediSearch's message where it gives one (a JSON array of the wrong length
//! or with a bad element, an empty one) and none where it does not (a match that is not
//! an array: `last indexing error` stays `N/A`).

use crate::document::{DocumentSource, FieldValue, NumberArray};
use crate::index::extract::FieldValues;
use crate::vector_spec::VectorSpec;

/// The vectors of field `path` of `key`, or the indexing failure's message.
pub fn extract_vectors(
    spec: &VectorSpec,
    path: &str,
    key: &[u8],
    docs: &dyn DocumentSource,
    json: bool,
) -> Result<FieldValues, String> {
    if !json {
        let Some(blob) = docs.hash_bytes(key, path) else { return Ok(FieldValues::Missing) };
        return match spec.decode_blob(&blob) {
            Some(v) => Ok(FieldValues::Vector(vec![v])),
            None => Err(format!(
                "Could not add vector with blob size {} (expected size {})",
                blob.len(),
                spec.blob_size()
            )),
        };
    }
    if let Some(arrays) = docs.number_arrays(key, path) {
        // Every match is an array of numbers: the same checks as below, without a
        // `FieldValue` per element.
        let single = arrays.len() == 1;
        let mut out = Vec::with_capacity(arrays.len());
        for a in arrays {
            if single && a.values.is_empty() {
                return Err("Empty array for vector field on JSON document".into());
            }
            out.push(number_array(spec, a, single)?);
        }
        return Ok(if out.is_empty() { FieldValues::Missing } else { FieldValues::Vector(out) });
    }
    let matches = docs.values(key, path)?;
    // One match is one vector, with RediSearch's messages (`JSON_StoreVectorInDocField`);
    // the vectors of several matches fail without one, but for a bad element.
    let single = matches.len() == 1;
    let mut out = Vec::new();
    for m in matches {
        match m {
            FieldValue::Null => {}
            FieldValue::Array(items) if single && items.is_empty() => {
                return Err("Empty array for vector field on JSON document".into());
            }
            FieldValue::Array(items) if single && !matches!(items[0], FieldValue::Number(..)) => {
                return Err(String::new());
            }
            FieldValue::Array(items) => out.push(numbers(spec, &items, single)?),
            _ => return Err(String::new()),
        }
    }
    Ok(if out.is_empty() { FieldValues::Missing } else { FieldValues::Vector(out) })
}

/// [`numbers`] for an array known to hold numbers only.
fn number_array(spec: &VectorSpec, a: NumberArray, say_length: bool) -> Result<Vec<f64>, String> {
    if a.values.len() != spec.dim {
        return Err(if say_length {
            format!("Invalid vector length. Expected {}, got {}", spec.dim, a.values.len())
        } else {
            String::new()
        });
    }
    if let Some((lo, hi)) = spec.ty.int_range() {
        let bad = |at: usize| format!("Invalid vector element at index {at}");
        // Integers are exact in `f64` within the INT8/UINT8 ranges.
        let out_of_range = a.values.iter().position(|&v| !(lo as f64..=hi as f64).contains(&v));
        match (a.first_non_integer, out_of_range) {
            (Some(i), Some(j)) => return Err(bad(i.min(j))),
            (Some(i), None) | (None, Some(i)) => return Err(bad(i)),
            (None, None) => {}
        }
    }
    Ok(a.values)
}

/// One JSON array as a vector: exactly DIM numbers (nulls and nested arrays fail). INT8
/// and UINT8 take integers only (RediSearch 8.4 reads them with RedisJSON's `getInt`, which
/// fails on `1.5` and `1.0`), in the type's range (folio's rule: RediSearch 8.4 casts, so
/// `300` would be stored as UINT8 `44`). A wrong length says so when `say_length`.
fn numbers(spec: &VectorSpec, items: &[FieldValue], say_length: bool) -> Result<Vec<f64>, String> {
    if items.len() != spec.dim {
        return Err(if say_length {
            format!("Invalid vector length. Expected {}, got {}", spec.dim, items.len())
        } else {
            String::new()
        });
    }
    let range = spec.ty.int_range();
    items
        .iter()
        .enumerate()
        .map(|(at, i)| {
            match (i, range) {
                (FieldValue::Number(n, _), None) => Some(*n),
                (FieldValue::Number(_, text), Some((lo, hi))) => {
                    text.parse::<i64>().ok().filter(|v| (lo..=hi).contains(v)).map(|v| v as f64)
                }
                _ => None,
            }
            .ok_or_else(|| format!("Invalid vector element at index {at}"))
        })
        .collect()
}
