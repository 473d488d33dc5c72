//! `JSON.SET` and `JSON.MERGE`: replace (or merge into) every match, or add a missing last key.
//!
//! Both first look for matches (SET with `NX` skips this); with none, a static path whose
//! last step is a key adds that key to its parent object when the parent exists (nothing
//! happens when it does not, or is not an object). A non-static path with no match fails with
//! `Err wrong static path`; a static path ending in a missing array index fails with
//! `ERR array index out of range`. SET writes overlapping matches at the top-most one only.

use super::{top_most, OpError};
use crate::path::location::{resolve_mut, resolve_text_mut, set_num_at, write_at};
use crate::path::{JsonPath, Location};
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
    Ok(plan_set(root, path, cond)?.apply(root, value))
}

/// What a `JSON.SET` will write, decided (and validated) without changing the document, so
/// that `JSON.MSET` can check every key before applying any.
#[derive(Clone, Debug)]
pub struct SetPlan(Plan);

#[derive(Clone, Debug)]
enum Plan {
    /// Replace the whole document.
    Root,
    /// Replace these (top-most) matches.
    Replace(Vec<Location>),
    /// Add `key` to the object at `parent`.
    Add { parent: Location, key: Box<str> },
    /// Write nothing (reply nil).
    Nothing,
}

impl SetPlan {
    /// True when applying the plan writes something (reply `OK`).
    pub fn writes(&self) -> bool {
        !matches!(self.0, Plan::Nothing)
    }

    /// Writes `value` as planned, on the document the plan was made for.
    pub fn apply(self, root: &mut Value, value: Value) -> SetOutcome {
        match self.0 {
            Plan::Nothing => return SetOutcome::NotSet,
            Plan::Root => *root = value,
            Plan::Replace(targets) => {
                let mut value = Some(value);
                let last = targets.len().saturating_sub(1);
                for (i, loc) in targets.iter().enumerate() {
                    let v = if i == last { value.take() } else { value.clone() };
                    if let Some(v) = v {
                        write_at(root, loc, v);
                    }
                }
            }
            Plan::Add { parent, key } => {
                let Some(obj) = resolve_mut(root, &parent).and_then(Value::as_object_mut) else {
                    return SetOutcome::NotSet;
                };
                obj.insert(&key, value);
            }
        }
        SetOutcome::Set
    }
}

impl SetPlan {
    /// Writes `value` as RedisJSON 2.8.3's JSON.MSET does with a plan made before earlier
    /// triples of the same command changed the document: each planned location is walked
    /// again by its text ([`resolve_text_mut`]) and replaced where it still exists; a planned
    /// new member is added where its parent is still an object without it (an existing one is
    /// left alone). True when something was written (a `json.mset` event).
    pub fn apply_planned(self, root: &mut Value, value: Value) -> bool {
        match self.0 {
            Plan::Nothing => false,
            Plan::Root => {
                *root = value;
                true
            }
            Plan::Replace(targets) => {
                let mut written = false;
                for loc in &targets {
                    if let Some(node) = resolve_text_mut(root, loc) {
                        *node = value.clone();
                        written = true;
                    }
                }
                written
            }
            Plan::Add { parent, key } => {
                match resolve_text_mut(root, &parent).and_then(Value::as_object_mut) {
                    Some(obj) if !obj.contains_key(&key) => {
                        obj.insert(&key, value);
                        true
                    }
                    _ => false,
                }
            }
        }
    }
}

/// Plans `JSON.SET root path … [NX|XX]`: the errors of [`set`] come from here.
pub fn plan_set(root: &Value, path: &JsonPath, cond: SetCondition) -> Result<SetPlan, OpError> {
    if path.is_root() {
        return Ok(SetPlan(if cond == SetCondition::Nx { Plan::Nothing } else { Plan::Root }));
    }
    if cond != SetCondition::Nx {
        let targets = top_most(path.select_locations(root));
        if !targets.is_empty() {
            return Ok(SetPlan(Plan::Replace(targets)));
        }
        if cond == SetCondition::Xx {
            return Ok(SetPlan(Plan::Nothing));
        }
    }
    plan_add(root, path).map(SetPlan)
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
        return Ok(SetPlan(plan_add(root, path)?).apply(root, patch.clone()));
    }
    for loc in &targets {
        if let Some(n) = patch.as_num() {
            // A number replaces the node: through `set_num_at`, keeping packed arrays packed.
            set_num_at(root, loc, n);
        } else if let Some(node) = resolve_mut(root, loc) {
            merge_patch(node, patch);
        }
    }
    Ok(SetOutcome::Set)
}

/// The "add the last key" branch shared by SET and MERGE, for a path without matches.
fn plan_add(root: &Value, path: &JsonPath) -> Result<Plan, OpError> {
    if !path.is_static() {
        return Err(OpError::text("Err wrong static path"));
    }
    let Some((parent_len, key)) = path.split_last_key() else {
        // The last step is an index: existing (NX) does nothing, missing is out of range.
        return if path.first(root).is_some() {
            Ok(Plan::Nothing)
        } else {
            Err(OpError::text("ERR array index out of range"))
        };
    };
    match path.walk_prefix(root, parent_len) {
        Some((parent, node)) if node.as_object().is_some_and(|o| !o.contains_key(key)) => {
            Ok(Plan::Add { parent, key: key.into() })
        }
        _ => Ok(Plan::Nothing),
    }
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
    let Some(obj) = doc.as_object_mut() else {
        return;
    };
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
