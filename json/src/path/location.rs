//! Concrete locations of matches: the object keys and array indices leading to a node.
//!
//! [`super::JsonPath::select_locations`] returns one [`Location`] per match; the ops resolve
//! them again (mutably) to apply changes, after ordering them so earlier mutations do not move
//! later targets (see `crate::ops`).

use std::cmp::Ordering;

use crate::{Node, Num, Value};

/// One step from a container to a child.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// An object member.
    Key(Box<str>),
    /// An array element.
    Index(usize),
}

/// The steps from the root to a node; empty for the root itself.
pub type Location = Vec<Step>;

/// The node at `location` under `root`, if it (still) exists.
pub fn resolve<'v>(root: &'v Value, location: &[Step]) -> Option<Node<'v>> {
    let mut node = Node::Ref(root);
    for step in location {
        node = match step {
            Step::Key(k) => Node::Ref(node.as_ref_value()?.obj_get(k)?),
            Step::Index(i) => node.array()?.get(*i)?,
        };
    }
    Some(node)
}

/// The node at `location` under `root`, mutably, if it (still) exists.
pub fn resolve_mut<'v>(root: &'v mut Value, location: &[Step]) -> Option<&'v mut Value> {
    let mut node = root;
    for step in location {
        node = match step {
            Step::Key(k) => node.obj_get_mut(k)?,
            Step::Index(i) => node.get_mut(*i)?,
        };
    }
    Some(node)
}

/// Writes number `n` at `location` (which must exist) and returns it as stored. An element of
/// a packed array is written in place, keeping the array packed when its storage holds `n`
/// (an `FPHA` array stores it rounded: the result is the rounded value); anything else is
/// replaced through [`resolve_mut`].
pub fn set_num_at(root: &mut Value, location: &[Step], n: Num) -> Option<Num> {
    if let Some((Step::Index(i), parent)) = location.split_last() {
        let parent = resolve_mut(root, parent)?;
        if parent.as_packed().is_some() {
            if !parent.set_num(*i, n) {
                return None;
            }
            return parent.as_array()?.num(*i);
        }
        let node = parent.get_mut(*i)?;
        *node = Value::from(n);
        return Some(n);
    }
    let node = resolve_mut(root, location)?;
    *node = Value::from(n);
    Some(n)
}

/// Replaces the node at `location` by `v` (numbers through [`set_num_at`], so that packed
/// arrays stay packed); false when the location does not exist.
pub fn write_at(root: &mut Value, location: &[Step], v: Value) -> bool {
    if let Some(n) = v.as_num() {
        return set_num_at(root, location, n).is_some();
    }
    match resolve_mut(root, location) {
        Some(node) => {
            *node = v;
            true
        }
        None => false,
    }
}

/// The node at `location` under `root` the way RedisJSON 2.8.3 walks a location it found
/// earlier, on a document that may have changed since (JSON.MSET applies every triple's
/// matches, all found before the first write): a step is its text, looked up as a member
/// name in an object and read as an unsigned integer (`"7"`, `"+7"`) in an array. `None`
/// when the walk ends early: a missing member or element, a scalar, or a name that is no
/// index in an array (rejson.so aborts the server there).
pub fn resolve_text_mut<'v>(root: &'v mut Value, location: &[Step]) -> Option<&'v mut Value> {
    let mut node = root;
    for step in location {
        node = match (step, node.is_object()) {
            (Step::Key(k), true) => node.obj_get_mut(k)?,
            (Step::Index(i), true) => node.obj_get_mut(&i.to_string())?,
            (Step::Index(i), false) => node.get_mut(*i)?,
            (Step::Key(k), false) => node.get_mut(k.parse::<usize>().ok()?)?,
        };
    }
    Some(node)
}

/// True when `ancestor` is a proper prefix of `location`.
pub fn is_proper_prefix(ancestor: &[Step], location: &[Step]) -> bool {
    ancestor.len() < location.len() && location.starts_with(ancestor)
}

/// Orders locations so that applying a mutation in this order never invalidates the ones still
/// to come: descendants before their ancestors, and higher array indices before lower ones.
/// (The reverse of document order, with indices compared as numbers.)
pub fn mutation_order(a: &[Step], b: &[Step]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (Step::Index(i), Step::Index(j)) => j.cmp(i),
            (Step::Key(k), Step::Key(l)) => l.cmp(k),
            (Step::Key(_), Step::Index(_)) => Ordering::Less,
            (Step::Index(_), Step::Key(_)) => Ordering::Greater,
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    // Longer (deeper) first.
    b.len().cmp(&a.len())
}
