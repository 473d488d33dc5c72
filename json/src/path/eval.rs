//! Path evaluation: which nodes of a document a compiled path selects, in RedisJSON's order.
//!
//! Segments are applied one at a time to the whole current node list (children in document
//! order; descendants in pre-order), which yields the same order as RedisJSON's depth-first
//! recursion without recursing per step, so neither long paths nor deep documents can exhaust
//! the stack. Recursion only happens through filters, whose nesting the parser bounds
//! ([`crate::limits::MAX_PATH_NESTING`]). Static paths (keys and single indices only) take a
//! walk that does not allocate.
//!
//! Nodes are [`Node`]s: borrowed values, or numbers read out of packed arrays (leaves).
//!
//! Matching rules (RedisJSON 2.8): a key selects nothing on non-objects, an index nothing on
//! non-arrays; a negative index counts from the end and is clamped at the first element
//! (`[-10]` of a 3-element array is element 0), an index past the end selects nothing; slices
//! clamp both bounds the same way; wildcards and filters select object values and array
//! elements, and nothing on scalars.

use super::ast::{Segment, Selector, Slice};
use super::filter::{self, Cx};
use super::location::{Location, Step};
use crate::{ArrayRef, Node, Value};

/// Selects the nodes `segments` reach from `start` (`cx.root` is what `$` means in filters).
pub(crate) fn select<'v>(segments: &[Segment], start: Node<'v>, cx: &mut Cx<'v>) -> Vec<Node<'v>> {
    let mut trail = NoTrail;
    run(segments, start, &mut trail, cx).into_iter().map(|(v, ())| v).collect()
}

/// Selects like [`select`] and also returns where each match is.
pub(crate) fn select_located<'v>(segments: &[Segment], root: &'v Value) -> Vec<(Location, Node<'v>)> {
    let mut trail = Arena { steps: Vec::new() };
    let mut cx = Cx::new(root);
    let found = run(segments, Node::Ref(root), &mut trail, &mut cx);
    found.into_iter().map(|(v, tag)| (trail.location(tag), v)).collect()
}

/// The single node of a static path (keys and single indices only), without allocating.
pub(crate) fn walk_static<'v>(segments: &[Segment], root: Node<'v>) -> Option<Node<'v>> {
    // Borrowed values all the way, but for an element of a packed array (a number: a leaf, so
    // the last step if the walk is to find anything).
    let mut node = match root {
        Node::Ref(v) => v,
        num => return segments.is_empty().then_some(num),
    };
    for (at, seg) in segments.iter().enumerate() {
        node = match seg {
            Segment::Child(Selector::Key(k)) => node.obj_get(k)?,
            Segment::Child(Selector::Index(i)) => match node.as_array()? {
                ArrayRef::Values(a) => a.get(abs_index(*i, a.len()))?,
                ArrayRef::Packed(p) if at + 1 == segments.len() => {
                    return p.num(abs_index(*i, p.len())).map(Node::num);
                }
                ArrayRef::Packed(_) => return None,
            },
            _ => return None,
        };
    }
    Some(Node::Ref(node))
}

/// RedisJSON's index normalisation: negative counts from the end, clamped to `0..=len`.
pub(crate) fn abs_index(i: i64, len: usize) -> usize {
    let n = i64::try_from(len).unwrap_or(i64::MAX);
    if i >= 0 {
        usize::try_from(i.min(n)).unwrap_or(len)
    } else {
        usize::try_from(i.saturating_add(n).max(0)).unwrap_or(0)
    }
}

/// One step from a node to a child, borrowing keys from the document.
#[derive(Clone, Copy)]
enum StepRef<'v> {
    Key(&'v str),
    Index(usize),
}

/// Records how matched nodes were reached (or not, at no cost).
trait Trail<'v> {
    type Tag: Copy;
    fn root(&self) -> Self::Tag;
    fn step(&mut self, parent: Self::Tag, step: StepRef<'v>) -> Self::Tag;
}

/// Tracks nothing.
struct NoTrail;

impl<'v> Trail<'v> for NoTrail {
    type Tag = ();
    fn root(&self) {}
    fn step(&mut self, _: (), _: StepRef<'v>) {}
}

/// Parent-linked steps; a tag is an index into `steps` (`u32::MAX` for the root).
struct Arena<'v> {
    steps: Vec<(u32, StepRef<'v>)>,
}

const ROOT_TAG: u32 = u32::MAX;

impl<'v> Trail<'v> for Arena<'v> {
    type Tag = u32;
    fn root(&self) -> u32 {
        ROOT_TAG
    }
    fn step(&mut self, parent: u32, step: StepRef<'v>) -> u32 {
        let tag = u32::try_from(self.steps.len()).unwrap_or(ROOT_TAG);
        self.steps.push((parent, step));
        tag
    }
}

impl Arena<'_> {
    fn location(&self, mut tag: u32) -> Location {
        let mut loc = Vec::new();
        while let Some(&(parent, step)) = self.steps.get(tag as usize) {
            loc.push(match step {
                StepRef::Key(k) => Step::Key(k.into()),
                StepRef::Index(i) => Step::Index(i),
            });
            tag = parent;
        }
        loc.reverse();
        loc
    }
}

/// Applies the segments one after the other to the current node list.
fn run<'v, T: Trail<'v>>(
    segments: &[Segment],
    start: Node<'v>,
    trail: &mut T,
    cx: &mut Cx<'v>,
) -> Vec<(Node<'v>, T::Tag)> {
    let mut current = vec![(start, trail.root())];
    let mut next = Vec::new();
    let mut stack = Vec::new();
    for seg in segments {
        next.clear();
        for (node, tag) in &current {
            // Only borrowed values have children: a number of a packed array is a leaf.
            let (Some(node), tag) = (node.as_ref_value(), *tag) else { continue };
            match seg {
                Segment::Child(sel) => children(sel, node, tag, trail, cx, &mut next),
                Segment::Descendant(sel) => {
                    // Pre-order: the node, then each child's subtree in order.
                    stack.clear();
                    stack.push((node, tag));
                    while let Some((n, t)) = stack.pop() {
                        children(sel, n, t, trail, cx, &mut next);
                        let base = stack.len();
                        push_container_children(n, t, trail, &mut stack);
                        stack[base..].reverse();
                    }
                }
            }
        }
        std::mem::swap(&mut current, &mut next);
        if current.is_empty() {
            break;
        }
    }
    current
}

/// Pushes every child of `node` (object values or array elements) in document order.
fn push_children<'v, T: Trail<'v>>(
    node: &'v Value,
    tag: T::Tag,
    trail: &mut T,
    out: &mut Vec<(Node<'v>, T::Tag)>,
) {
    if let Some(arr) = node.as_array() {
        for (i, v) in arr.iter().enumerate() {
            out.push((v, trail.step(tag, StepRef::Index(i))));
        }
    } else if let Some(obj) = node.as_object() {
        for (k, v) in obj.iter() {
            out.push((Node::Ref(v), trail.step(tag, StepRef::Key(k))));
        }
    }
}

/// Pushes the children of `node` that can have children themselves (containers), in
/// document order, for the descent: leaves have no descendants to visit, and the
/// elements of a packed array are all leaves.
fn push_container_children<'v, T: Trail<'v>>(
    node: &'v Value,
    tag: T::Tag,
    trail: &mut T,
    out: &mut Vec<(&'v Value, T::Tag)>,
) {
    if let Some(items) = node.as_array().and_then(|a| a.as_values()) {
        for (i, v) in items.iter().enumerate() {
            out.push((v, trail.step(tag, StepRef::Index(i))));
        }
    } else if let Some(obj) = node.as_object() {
        for (k, v) in obj.iter() {
            out.push((v, trail.step(tag, StepRef::Key(k))));
        }
    }
}

/// Applies one selector to the children of `node`.
fn children<'v, T: Trail<'v>>(
    sel: &Selector,
    node: &'v Value,
    tag: T::Tag,
    trail: &mut T,
    cx: &mut Cx<'v>,
    out: &mut Vec<(Node<'v>, T::Tag)>,
) {
    match sel {
        Selector::Key(k) => key(node, k, tag, trail, out),
        Selector::Keys(keys) => {
            for k in keys.iter() {
                key(node, k, tag, trail, out);
            }
        }
        Selector::Index(i) => index(node, *i, tag, trail, out),
        Selector::Indices(list) => {
            for &i in list.iter() {
                index(node, i, tag, trail, out);
            }
        }
        Selector::Slice(s) => slice(node, *s, tag, trail, out),
        Selector::Wildcard => push_children(node, tag, trail, out),
        Selector::Filter(f) => {
            if let Some(arr) = node.as_array() {
                for (i, v) in arr.iter().enumerate() {
                    if filter::test(f, &v, cx) {
                        out.push((v, trail.step(tag, StepRef::Index(i))));
                    }
                }
            } else if let Some(obj) = node.as_object() {
                for (k, v) in obj.iter() {
                    let v = Node::Ref(v);
                    if filter::test(f, &v, cx) {
                        out.push((v, trail.step(tag, StepRef::Key(k))));
                    }
                }
            }
        }
    }
}

fn key<'v, T: Trail<'v>>(
    node: &'v Value,
    k: &str,
    tag: T::Tag,
    trail: &mut T,
    out: &mut Vec<(Node<'v>, T::Tag)>,
) {
    let Some(obj) = node.as_object() else { return };
    if let Some((name, v)) = obj.position(k).and_then(|i| obj.get_index(i)) {
        out.push((Node::Ref(v), trail.step(tag, StepRef::Key(name))));
    }
}

fn index<'v, T: Trail<'v>>(
    node: &'v Value,
    i: i64,
    tag: T::Tag,
    trail: &mut T,
    out: &mut Vec<(Node<'v>, T::Tag)>,
) {
    let Some(arr) = node.as_array() else { return };
    let at = abs_index(i, arr.len());
    if let Some(v) = arr.get(at) {
        out.push((v, trail.step(tag, StepRef::Index(at))));
    }
}

fn slice<'v, T: Trail<'v>>(
    node: &'v Value,
    s: Slice,
    tag: T::Tag,
    trail: &mut T,
    out: &mut Vec<(Node<'v>, T::Tag)>,
) {
    let Some(arr) = node.as_array() else { return };
    let len = arr.len();
    let start = s.start.map_or(0, |i| abs_index(i, len));
    let end = s.end.map_or(len, |i| abs_index(i, len));
    for at in (start..end).step_by(s.step.max(1)) {
        if let Some(v) = arr.get(at) {
            out.push((v, trail.step(tag, StepRef::Index(at))));
        }
    }
}
