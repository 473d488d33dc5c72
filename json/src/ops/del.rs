//! `JSON.DEL` / `JSON.FORGET`: remove every match (the top-most of nested ones, once each).

use std::cmp::Ordering;

use super::top_most;
use crate::path::location::resolve_mut;
use crate::path::{JsonPath, Location, Step};
use crate::Value;

/// Removes the matches of `path` and returns how many were removed. For the root path the
/// glue deletes the key instead (and replies 1); here the document would become `null`.
pub fn del(root: &mut Value, path: &JsonPath) -> usize {
    if path.is_root() {
        *root = Value::null();
        return 1;
    }
    let mut removed = 0;
    for loc in deletion_order(path.select_locations(root)) {
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

/// The top-most matches in the order RedisJSON 2.8.3 deletes them. A removed object member
/// hands its slot to the last member, so the order of deletions within one object decides the
/// key order left behind (`{"k":1,"a":2,"b":3,"c":4,"e":5}` minus `$["k","a"]` is
/// `{"c":4,"e":5,"b":3}`, measured against rejson.so). Its order compares paths step by step:
/// a key that reads as an unsigned integer (`"7"`, `"+7"`, `"007"`) counts as a number, as an
/// index does; names come first, in byte order, then numbers, highest first; of two paths
/// that agree up to the shorter one's end the longer comes first; ties keep match order.
fn deletion_order(matches: Vec<Location>) -> Vec<Location> {
    let mut kept: std::collections::HashSet<Location> = top_most(matches.clone()).into_iter().collect();
    let mut order: Vec<Location> = matches.into_iter().filter(|loc| kept.remove(loc)).collect();
    order.sort_by(|a, b| reference_order(a, b));
    order
}

/// A step as RedisJSON's deletion sort sees it: a number, or a name.
fn as_number(step: &Step) -> Option<usize> {
    match step {
        Step::Index(i) => Some(*i),
        Step::Key(k) => k.parse::<usize>().ok(),
    }
}

/// See [`deletion_order`].
fn reference_order(a: &[Step], b: &[Step]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (as_number(x), as_number(y)) {
            (None, None) => key_text(x).cmp(key_text(y)),
            (Some(_), None) => Ordering::Greater,
            (None, Some(_)) => Ordering::Less,
            (Some(i), Some(j)) => j.cmp(&i),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    b.len().cmp(&a.len())
}

fn key_text(step: &Step) -> &str {
    match step {
        Step::Key(k) => k,
        Step::Index(_) => "",
    }
}
