//! `JSON.DEL` / `JSON.FORGET`: remove every match (the top-most of nested ones, once each).

use super::top_most;
use crate::path::location::resolve_mut;
use crate::path::{JsonPath, Step};
use crate::Value;

/// Removes the matches of `path` and returns how many were removed. For the root path the
/// glue deletes the key instead (and replies 1); here the document would become `null`.
pub fn del(root: &mut Value, path: &JsonPath) -> usize {
    if path.is_root() {
        *root = Value::null();
        return 1;
    }
    let mut removed = 0;
    for loc in top_most(path.select_locations(root)) {
        let Some((last, parent)) = loc.split_last() else {
            continue;
        };
        let Some(parent) = resolve_mut(root, parent) else {
            continue;
        };
        let gone = match last {
            Step::Key(k) => parent.obj_remove(k).is_some(),
            Step::Index(i) => parent.remove(*i).is_some(),
        };
        removed += usize::from(gone);
    }
    removed
}
