//! `JSON.STRAPPEND` and `JSON.STRLEN`. Lengths are in UTF-8 bytes.

use super::{apply, matches, OpError, Outcome};
use crate::path::JsonPath;
use crate::Value;

/// `JSON.STRAPPEND root path json-string`: appends the decoded string `json` (a JSON string
/// literal, quotes included) to every string match; each slot is the new length.
///
/// A legacy path with no string match fails with `ERR Path '<path>' does not exist or not a
/// string`. The argument is decoded only when some match is a string: invalid JSON is
/// `ERR <parse error>`, a JSON value that is not a string is
/// `WRONGTYPE wrong type of path value - expected string but found <argument>`.
pub fn str_append(root: &mut Value, path: &JsonPath, json: &str) -> Result<Outcome<usize>, OpError> {
    let found = matches(root, path, Value::is_string);
    if !found.iter().any(|(_, ok)| *ok) {
        if path.is_legacy() {
            return Err(OpError::path_missing_or(path.converted(), "not a string"));
        }
        return Ok(Outcome { results: vec![None; found.len()], changed: false });
    }
    let suffix = match Value::parse(json.as_bytes()) {
        Ok(v) => match v.as_str() {
            Some(s) => s.to_owned(),
            None => return Err(OpError::wrong_type("string", json)),
        },
        Err(e) => return Err(OpError::text(&format!("ERR {e}"))),
    };
    let results = apply(root, &found, |node| {
        node.str_append(&suffix);
        node.str_len_bytes()
    });
    Ok(Outcome { results, changed: true })
}

/// `JSON.STRLEN root path`: the byte length of each string match.
///
/// Legacy paths report the first match: `ERR Path '<path>' does not exist` when nothing
/// matches, `WRONGTYPE … expected string but found <type>` when it is not a string.
pub fn str_len(root: &Value, path: &JsonPath) -> Result<Vec<Option<usize>>, OpError> {
    if path.is_legacy() {
        let first = path.first(root).ok_or_else(|| OpError::path_missing(path.converted()))?;
        let len = first.str_len_bytes().ok_or_else(|| OpError::wrong_type_of("string", &first))?;
        return Ok(vec![Some(len)]);
    }
    Ok(path.select(root).into_iter().map(|v| v.str_len_bytes()).collect())
}
