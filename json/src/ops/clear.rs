//! `JSON.CLEAR`: empties containers and zeroes numbers.

use super::{application_order, matches};
use crate::path::location::{is_proper_prefix, resolve_mut, set_num_at};
use crate::path::JsonPath;
use crate::Value;

/// `JSON.CLEAR root path`: empties every non-empty array or object match and sets every
/// non-zero number match to the integer `0`; returns how many were cleared. Strings, booleans,
/// null, empty containers and zeros are left alone and not counted, and so is a match inside
/// a container cleared by the same command (as RedisJSON clears in document order); a location
/// matched twice (`$[0,0]`) counts twice, as in RedisJSON. The document changed when the count
/// is not zero.
pub fn clear(root: &mut Value, path: &JsonPath) -> usize {
    let found = matches(root, path, |v| match (v.len(), v.obj_len(), v.as_f64()) {
        (Some(n), _, _) | (_, Some(n), _) => n > 0,
        (_, _, Some(f)) => f != 0.0,
        _ => false,
    });
    // Keep the matches that are not inside another match; count repeats.
    let mut targets: Vec<&[crate::path::Step]> = Vec::new();
    let mut cleared = 0;
    let mut order = application_order(&found);
    order.reverse(); // document order: ancestors first
    for i in order {
        let loc = found[i].0.as_slice();
        // In document order a subtree follows its root, so only the last target can contain it.
        match targets.last() {
            Some(t) if *t == loc => cleared += 1,
            Some(t) if is_proper_prefix(t, loc) => {}
            _ => targets.push(loc),
        }
    }
    for loc in targets {
        if crate::path::location::resolve(root, loc).is_some_and(|v| v.is_number()) {
            // Through `set_num_at`, so that a packed array stays packed.
            if set_num_at(root, loc, crate::Num::I64(0)).is_some() {
                cleared += 1;
            }
            continue;
        }
        let Some(node) = resolve_mut(root, loc) else {
            continue;
        };
        if node.is_packed() {
            *node = Value::empty_array();
        } else if let Some(a) = node.as_array_mut() {
            a.clear();
        } else if let Some(o) = node.as_object_mut() {
            o.clear();
        } else {
            *node = Value::from(0i64);
        }
        cleared += 1;
    }
    cleared
}
