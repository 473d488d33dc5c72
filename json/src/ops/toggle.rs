//! `JSON.TOGGLE`: flips every boolean match.

use super::{apply, matches, OpError, Outcome};
use crate::path::JsonPath;
use crate::Value;

/// `JSON.TOGGLE root path`: each slot is the new value of a boolean match. A legacy path with
/// no boolean match fails with `ERR Path '<path>' does not exist or not a bool`.
pub fn toggle(root: &mut Value, path: &JsonPath) -> Result<Outcome<bool>, OpError> {
    let found = matches(root, path, Value::is_bool);
    let changed = found.iter().any(|(_, ok)| *ok);
    if !changed && path.is_legacy() {
        return Err(OpError::path_missing_or(path.converted(), "not a bool"));
    }
    let results = apply(root, &found, |node| {
        let flipped = !node.as_bool()?;
        *node = Value::from(flipped);
        Some(flipped)
    });
    Ok(Outcome { results, changed })
}
