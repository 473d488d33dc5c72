//! `JSON.ARRAPPEND`, `ARRINDEX`, `ARRINSERT`, `ARRLEN`, `ARRPOP`, `ARRTRIM`.
//!
//! Legacy error texts quote the path as RedisJSON does: the original spelling for ARRAPPEND
//! and ARRLEN, the converted one (`$.x`) for the others.

use super::{apply, matches, OpError, Outcome};
use crate::path::location::resolve;
use crate::path::JsonPath;
use crate::Value;

/// `JSON.ARRAPPEND root path value…`: appends clones of `values` to every array match; each
/// slot is the new length. A legacy path with no array match fails with
/// `ERR Path '<original path>' does not exist or not an array`.
pub fn arr_append(root: &mut Value, path: &JsonPath, values: &[Value]) -> Result<Outcome<usize>, OpError> {
    let found = matches(root, path, Value::is_array);
    let changed = found.iter().any(|(_, ok)| *ok);
    if !changed && path.is_legacy() {
        return Err(OpError::path_missing_or(path.original(), "not an array"));
    }
    let results = apply(root, &found, |node| {
        reserve(node, values);
        for v in values {
            node.push(v.clone()).ok()?;
        }
        node.pack();
        node.len()
    });
    Ok(Outcome { results, changed })
}

/// `JSON.ARRINDEX root path value [start [stop]]`: the first index in `[start, stop)` whose
/// element equals `value` (type-strict: `1` is not `1.0`), or -1. Negative bounds count from
/// the end, `stop == 0` means the end, an empty or inverted range gives -1.
///
/// Legacy paths report the first match: `ERR Path '<path>' does not exist` when nothing
/// matches, `WRONGTYPE … expected array but found <type>` when it is not an array.
pub fn arr_index(
    root: &Value,
    path: &JsonPath,
    value: &Value,
    start: i64,
    stop: i64,
) -> Result<Vec<Option<i64>>, OpError> {
    if path.is_legacy() {
        let first = path.first(root).ok_or_else(|| OpError::path_missing(path.converted()))?;
        let found =
            index_of(&first, value, start, stop).ok_or_else(|| OpError::wrong_type_of("array", &first))?;
        return Ok(vec![Some(found)]);
    }
    Ok(path.select(root).into_iter().map(|v| index_of(&v, value, start, stop)).collect())
}

/// Makes room in the array `node` for `values`, unless it is packed and they are all
/// numbers (then it stays packed, and its storage grows by itself).
fn reserve(node: &mut Value, values: &[Value]) {
    if node.is_packed() && values.iter().all(Value::is_number) {
        return;
    }
    if let Some(a) = node.as_array_mut() {
        a.reserve(values.len());
    }
}

/// The ARRINDEX search in one node (`None` if it is not an array).
fn index_of(node: &Value, value: &Value, start: i64, stop: i64) -> Option<i64> {
    let arr = node.as_array()?;
    let len = i64::try_from(arr.len()).unwrap_or(i64::MAX);
    if len == 0 {
        return Some(-1);
    }
    let start = if start < 0 { start.saturating_add(len).max(0) } else { start.min(len - 1) };
    let stop = match stop {
        0 => len,
        s if s < 0 => s.saturating_add(len).max(0),
        s => s.min(len),
    };
    let at = |i: i64| usize::try_from(i).ok().and_then(|i| arr.get(i));
    (start..stop.max(start)).find(|&i| at(i).is_some_and(|v| *v == *value)).or(Some(-1))
}

/// `JSON.ARRINSERT root path index value…`: inserts clones of `values` before `index` (negative
/// counts from the end, `len` appends) in every array match; each slot is the new length.
/// An index outside `-len..=len` of any match fails with `ERR index out of bounds` (before
/// anything changes). A legacy path with no array match fails with
/// `ERR Path '<path>' does not exist or not an array`.
pub fn arr_insert(
    root: &mut Value,
    path: &JsonPath,
    index: i64,
    values: &[Value],
) -> Result<Outcome<usize>, OpError> {
    let found = matches(root, path, Value::is_array);
    let changed = found.iter().any(|(_, ok)| *ok);
    if !changed && path.is_legacy() {
        return Err(OpError::path_missing_or(path.converted(), "not an array"));
    }
    let in_bounds = |len: usize| insert_position(index, len).is_some();
    let all_ok = found
        .iter()
        .filter(|(_, ok)| *ok)
        .all(|(loc, _)| resolve(root, loc).and_then(|v| v.len()).is_none_or(in_bounds));
    if !all_ok {
        return Err(OpError::text("ERR index out of bounds"));
    }
    let results = apply(root, &found, |node| {
        let at = insert_position(index, node.len()?)?;
        reserve(node, values);
        for (k, v) in values.iter().enumerate() {
            // `at + k <= len` holds for every insertion, so this cannot fail.
            let _ = node.insert(at + k, v.clone());
        }
        node.pack();
        node.len()
    });
    Ok(Outcome { results, changed })
}

/// Where ARRINSERT inserts in an array of `len`: `None` when out of bounds.
fn insert_position(index: i64, len: usize) -> Option<usize> {
    let n = i64::try_from(len).ok()?;
    let at = if index < 0 { n.checked_add(index)? } else { index };
    if (0..=n).contains(&at) {
        usize::try_from(at).ok()
    } else {
        None
    }
}

/// `JSON.ARRLEN root path`: the length of each array match.
///
/// Legacy paths report the first match: `ERR Path '<original path>' does not exist` when
/// nothing matches, `ERR Path '<original path>' does not exist or not an array` when the first
/// match is not an array.
pub fn arr_len(root: &Value, path: &JsonPath) -> Result<Vec<Option<usize>>, OpError> {
    if path.is_legacy() {
        let first = path.first(root).ok_or_else(|| OpError::path_missing(path.original()))?;
        let len = first.len().ok_or_else(|| OpError::path_missing_or(path.original(), "not an array"))?;
        return Ok(vec![Some(len)]);
    }
    Ok(path.select(root).into_iter().map(|v| v.len()).collect())
}

/// `JSON.ARRPOP root [path [index]]`: removes and returns the element at `index` (clamped to
/// the array; the glue passes -1 by default) of every array match. A slot is `Some(None)` for
/// an empty array. A legacy path with no array match fails with
/// `ERR Path '<path>' does not exist or not an array`. Changed when something was removed.
pub fn arr_pop(root: &mut Value, path: &JsonPath, index: i64) -> Result<Outcome<Option<Value>>, OpError> {
    let found = matches(root, path, Value::is_array);
    if !found.iter().any(|(_, ok)| *ok) && path.is_legacy() {
        return Err(OpError::path_missing_or(path.converted(), "not an array"));
    }
    let mut changed = false;
    let results = apply(root, &found, |node| {
        let len = node.len()?;
        if len == 0 {
            return Some(None);
        }
        let len = i64::try_from(len).unwrap_or(i64::MAX);
        let at = if index < 0 { index.saturating_add(len).max(0) } else { index.min(len - 1) };
        let popped = usize::try_from(at).ok().and_then(|at| node.remove(at));
        changed |= popped.is_some();
        Some(popped)
    });
    Ok(Outcome { results, changed })
}

/// `JSON.ARRTRIM root path start stop`: keeps elements `start..=stop` (negative values count
/// from the end, out-of-range values are clamped; `start >= len` or `start > stop` empties the
/// array) of every array match; each slot is the new length. A legacy path with no array match
/// fails with `ERR Path '<path>' does not exist or not an array`. Changed when an array
/// matched (RedisJSON notifies then, even if nothing was removed).
pub fn arr_trim(root: &mut Value, path: &JsonPath, start: i64, stop: i64) -> Result<Outcome<usize>, OpError> {
    let found = matches(root, path, Value::is_array);
    let changed = found.iter().any(|(_, ok)| *ok);
    if !changed && path.is_legacy() {
        return Err(OpError::path_missing_or(path.converted(), "not an array"));
    }
    let results = apply(root, &found, |node| {
        let (from, to) = trim_range(node.len()?, start, stop);
        node.retain_range(from, to);
        node.len()
    });
    Ok(Outcome { results, changed })
}

/// The half-open range ARRTRIM keeps in an array of `len` (RedisJSON's normalisation).
fn trim_range(len: usize, start: i64, stop: i64) -> (usize, usize) {
    let n = i64::try_from(len).unwrap_or(i64::MAX);
    let clamp = |i: i64| -> i64 {
        if i < 0 {
            n - n.min(i.unsigned_abs().try_into().unwrap_or(i64::MAX))
        } else if n > 0 {
            (n - 1).min(i)
        } else {
            0
        }
    };
    let stop = clamp(stop);
    let start = if start < 0 || start < n { clamp(start) } else { stop + 1 };
    if start > stop || n == 0 {
        return (0, 0);
    }
    let to_usize = |i: i64| usize::try_from(i).unwrap_or(0);
    (to_usize(start), to_usize(stop + 1))
}
