//! `JSON.OBJKEYS` and `JSON.OBJLEN`.

use super::OpError;
use crate::path::JsonPath;
use crate::Value;

/// `JSON.OBJKEYS root path`: the keys of each object match, in order.
///
/// Legacy paths report the first match: no slot (nil) when nothing matches,
/// `ERR Path '<path>' does not exist or not an object` when it is not an object.
pub fn obj_keys<'a>(root: &'a Value, path: &JsonPath) -> Result<Vec<Option<Vec<&'a str>>>, OpError> {
    // Objects are always borrowed from the document (only numbers are packed).
    let keys = |v: crate::Node<'a>| v.as_ref_value()?.as_object().map(|o| o.keys().collect::<Vec<&str>>());
    if path.is_legacy() {
        let Some(first) = path.first(root) else {
            return Ok(Vec::new());
        };
        let keys = keys(first).ok_or_else(|| OpError::path_missing_or(path.converted(), "not an object"))?;
        return Ok(vec![Some(keys)]);
    }
    Ok(path.select(root).into_iter().map(keys).collect())
}

/// `JSON.OBJLEN root path`: the number of keys of each object match.
///
/// Legacy paths report the first match: no slot (nil) when nothing matches,
/// `WRONGTYPE … expected object but found <type>` when it is not an object.
pub fn obj_len(root: &Value, path: &JsonPath) -> Result<Vec<Option<usize>>, OpError> {
    if path.is_legacy() {
        let Some(first) = path.first(root) else {
            return Ok(Vec::new());
        };
        let len = first.obj_len().ok_or_else(|| OpError::wrong_type_of("object", &first))?;
        return Ok(vec![Some(len)]);
    }
    Ok(path.select(root).into_iter().map(|v| v.obj_len()).collect())
}
