//! `JSON.SET` and `JSON.MERGE`: replace (or merge into) every match, or add a missing last key.
//!
//! Both first look for matches (SET with `NX` skips this); with none, a static path whose
//! last step is a key adds that key to its parent object when the parent exists (nothing
//! happens when it does not, or is not an object). A non-static path with no match fails with
//! `Err wrong static path`; a static path ending in a missing array index fails with
//! `ERR array index out of range`. SET writes overlapping matches at the top-most one only.

use super::{top_most, OpError};
use crate::path::location::resolve_mut;
use crate::path::JsonPath;
use crate::Value;

/// `JSON.SET` condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetCondition {
    /// No condition.
    Always,
    /// `NX`: only when the path does not exist.
    Nx,
    /// `XX`: only when the path exists.
    Xx,
}

/// Whether a SET or MERGE wrote anything (`OK`) or not (nil).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetOutcome {
    /// Something was written: reply `OK`, notify and replicate.
    Set,
    /// Nothing was written: reply nil.
    NotSet,
}

/// `JSON.SET root path value [NX|XX]` on an existing document. A root path replaces the whole
/// document (`NX` then does nothing).
pub fn set(
    root: &mut Value,
    path: &JsonPath,
    value: Value,
    cond: SetCondition,
) -> Result<SetOutcome, OpError> {
    if path.is_root() {
        if cond == SetCondition::Nx {
            return Ok(SetOutcome::NotSet);
        }
        *root = value;
        return Ok(SetOutcome::Set);
    }
    if cond != SetCondition::Nx {
        let targets = top_most(path.select_locations(root));
        if !targets.is_empty() {
            write_all(root, &targets, value, |node, v| *node = v);
            return Ok(SetOutcome::Set);
        }
        if cond == SetCondition::Xx {
            return Ok(SetOutcome::NotSet);
        }
    }
    add_missing(root, path, value)
}

/// `JSON.MERGE root path patch` (RFC 7396) on an existing document. Every match is patched, in
/// match order (ancestors first), skipping matches an earlier patch removed, as RedisJSON does.
/// A missing last key is added with the patch as given (nulls included, as RedisJSON does).
pub fn merge(root: &mut Value, path: &JsonPath, patch: &Value) -> Result<SetOutcome, OpError> {
    if path.is_root() {
        merge_patch(root, patch);
        return Ok(SetOutcome::Set);
    }
    let targets = path.select_locations(root);
    if targets.is_empty() {
        return add_missing(root, path, patch.clone());
    }
    for loc in &targets {
        if let Some(node) = resolve_mut(root, loc) {
            merge_patch(node, patch);
        }
    }
    Ok(SetOutcome::Set)
}

/// Writes `value` at each target (cloning for all but the last).
fn write_all(
    root: &mut Value,
    targets: &[crate::path::Location],
    value: Value,
    mut write: impl FnMut(&mut Value, Value),
) {
    let mut value = Some(value);
    let last = targets.len().saturating_sub(1);
    for (i, loc) in targets.iter().enumerate() {
        let Some(node) = resolve_mut(root, loc) else { continue };
        let v = if i == last { value.take() } else { value.clone() };
        if let Some(v) = v {
            write(node, v);
        }
    }
}

/// The "add the last key" branch shared by SET and MERGE.
fn add_missing(root: &mut Value, path: &JsonPath, value: Value) -> Result<SetOutcome, OpError> {
    if !path.is_static() {
        return Err(OpError::text("Err wrong static path"));
    }
    let Some((parent, key)) = path.split_last_key() else {
        // The last step is an index: existing (NX) does nothing, missing is out of range.
        return if path.first(root).is_some() {
            Ok(SetOutcome::NotSet)
        } else {
            Err(OpError::text("ERR array index out of range"))
        };
    };
    let Some(obj) = path.resolve_parent_mut(root, parent).and_then(Value::as_object_mut) else {
        return Ok(SetOutcome::NotSet);
    };
    if obj.contains_key(key) {
        return Ok(SetOutcome::NotSet);
    }
    obj.insert(key, value);
    Ok(SetOutcome::Set)
}

/// RFC 7396: objects merge recursively, `null` members delete, anything else replaces.
pub fn merge_patch(doc: &mut Value, patch: &Value) {
    let Some(members) = patch.as_object() else {
        *doc = patch.clone();
        return;
    };
    if !doc.is_object() {
        *doc = Value::empty_object();
    }
    let Some(obj) = doc.as_object_mut() else { return };
    for (k, v) in members.iter() {
        if v.is_null() {
            obj.remove(k);
        } else {
            if !obj.contains_key(k) {
                obj.insert(k, Value::null());
            }
            if let Some(slot) = obj.get_mut(k) {
                merge_patch(slot, v);
            }
        }
    }
}
