//! RediSearch 2.10's numeric range tree (`numeric_index.c`): leaves split by their sampled
//! cardinality, subtrees rotated when one side gets [`MAX_DEPTH_BALANCE`] deeper, empty
//! leaves trimmed by the GC, and the ranges a filter reaches.

use super::range::Range;

/// `NR_MAX_DEPTH_BALANCE`.
pub const MAX_DEPTH_BALANCE: i32 = 2;
/// `NR_MAXRANGE_SIZE`: a range of more entries splits once it has two sampled values.
const MAX_RANGE_SIZE: u64 = 10_000;
/// The root's split cardinality (`NewNumericRangeTree`).
const ROOT_SPLIT_CARD: u32 = 16;

/// A node: a leaf holds a range; an inner node splits at `value` and may keep its range
/// (`_NUMERIC_RANGES_PARENTS`).
#[derive(Debug, Clone)]
pub struct Node {
    /// The split value (0 for a leaf).
    pub value: f64,
    /// Depth of the subtree below (as RediSearch keeps it, not always exact).
    pub max_depth: i32,
    /// Values below `value`.
    pub left: Option<Box<Node>>,
    /// Values from `value` up.
    pub right: Option<Box<Node>>,
    /// The node's range.
    pub range: Option<Box<Range>>,
}

/// What an add or a trim changed (`NRN_AddRv`).
#[derive(Debug, Default, Clone, Copy)]
pub struct Changes {
    /// Bytes grown (negative: freed).
    pub size: i64,
    /// Ranges added (negative: removed).
    pub ranges: i64,
    /// The tree's shape changed.
    pub changed: bool,
}

impl Node {
    fn leaf(split_card: u32) -> Node {
        Node {
            value: 0.0,
            max_depth: 0,
            left: None,
            right: None,
            range: Some(Box::new(Range::new(split_card))),
        }
    }

    /// True for a node without children.
    pub fn is_leaf(&self) -> bool {
        self.left.is_none() && self.right.is_none()
    }

    fn child_depths(&self) -> (i32, i32) {
        (self.left.as_ref().map_or(0, |n| n.max_depth), self.right.as_ref().map_or(0, |n| n.max_depth))
    }

    /// `removeRange`.
    fn drop_range(&mut self, ch: &mut Changes) {
        drop_range(&mut self.range, ch);
    }

    /// `NumericRangeNode_Add`: adds an entry below this node, splitting the leaf it reaches
    /// when its cardinality calls for it.
    fn add(&mut self, doc: u64, value: f64, cfg: Settings, ch: &mut Changes) {
        if !self.is_leaf() {
            if let Some(r) = self.range.as_mut() {
                ch.size += r.add(doc, value, false, cfg.compress) as i64;
            }
            let go_left = value < self.value;
            let slot = if go_left { &mut self.left } else { &mut self.right };
            let Some(child) = slot.as_mut() else { return };
            let before = ch.changed;
            ch.changed = false;
            child.add(doc, value, cfg, ch);
            if ch.changed {
                self.max_depth += 1;
                if self.max_depth > cfg.parents as i32 {
                    drop_range(&mut self.range, ch);
                }
                balance(slot);
            }
            ch.changed |= before;
            return;
        }
        let Some(r) = self.range.as_mut() else { return };
        ch.size += r.add(doc, value, true, cfg.compress) as i64;
        let card = u32::from(r.card);
        if card * u32::from(super::range::CARD_CHECK) >= r.split_card
            || (r.entries.num_entries > MAX_RANGE_SIZE && card > 1)
        {
            let split = r.unique_sum / f64::from(r.card);
            let child_card = r.child_split_card();
            let (mut left, mut right) = (Node::leaf(child_card), Node::leaf(child_card));
            for n in [&left, &right] {
                ch.size += n.range.as_ref().map_or(0, |r| r.size) as i64;
            }
            for &(d, v) in r.entries.entries() {
                let side = if v < split { &mut left } else { &mut right };
                if let Some(sr) = side.range.as_mut() {
                    ch.size += sr.add(d, v, true, cfg.compress) as i64;
                }
            }
            self.left = Some(Box::new(left));
            self.right = Some(Box::new(right));
            ch.ranges += 2;
            if cfg.parents == 0 {
                self.drop_range(ch);
            }
            self.value = split;
            self.max_depth = 1;
            ch.changed = true;
        }
    }

    /// `__recursiveAddRange` (no offset or limit, ascending): the ranges a `[min, max]`
    /// filter reads, a range wholly inside it standing for its subtree.
    pub fn find<'a>(&'a self, min: f64, max: f64, out: &mut Vec<&'a Range>) {
        if let Some(r) = self.range.as_deref() {
            if r.contained_in(min, max) {
                out.push(r);
                return;
            }
            if !r.overlaps(min, max) {
                return;
            }
        }
        if !self.is_leaf() {
            if min <= self.value {
                if let Some(l) = self.left.as_deref() {
                    l.find(min, max, out);
                }
            }
            if max >= self.value {
                if let Some(r) = self.right.as_deref() {
                    r.find(min, max, out);
                }
            }
        } else if let Some(r) = self.range.as_deref() {
            if r.overlaps(min, max) {
                out.push(r);
            }
        }
    }

    /// Every node, in RediSearch's `NumericRangeTreeIterator` order (a stack: a node, then
    /// its right subtree, then its left).
    pub fn walk<'a>(&'a self, out: &mut Vec<&'a Node>) {
        let mut stack = vec![self];
        while let Some(n) = stack.pop() {
            out.push(n);
            if !n.is_leaf() {
                stack.extend(n.left.as_deref());
                stack.extend(n.right.as_deref());
            }
        }
    }

    /// Mutable access to every range, in [`Node::walk`]'s order.
    pub fn ranges_mut(&mut self, f: &mut dyn FnMut(&mut Range)) {
        if let Some(r) = self.range.as_deref_mut() {
            f(r);
        }
        if let Some(r) = self.right.as_deref_mut() {
            r.ranges_mut(f);
        }
        if let Some(l) = self.left.as_deref_mut() {
            l.ranges_mut(f);
        }
    }
}

/// `removeRange`: drops a node's range, counting what it held.
fn drop_range(range: &mut Option<Box<Range>>, ch: &mut Changes) {
    if let Some(r) = range.take() {
        ch.size -= r.size as i64;
        ch.ranges -= 1;
    }
}

/// `NumericRangeNode_Balance`: rotates the subtree in `slot` when one side is more than
/// [`MAX_DEPTH_BALANCE`] deeper than the other.
fn balance(slot: &mut Option<Box<Node>>) {
    let Some(node) = slot.as_mut() else { return };
    let (l, r) = node.child_depths();
    node.max_depth = l.max(r) + 1;
    if r - l > MAX_DEPTH_BALANCE {
        let Some(mut node) = slot.take() else { return };
        let Some(mut right) = node.right.take() else { return };
        node.right = right.left.take();
        node.max_depth -= 1;
        right.left = Some(node);
        *slot = Some(right);
    } else if l - r > MAX_DEPTH_BALANCE {
        let Some(mut node) = slot.take() else { return };
        let Some(mut left) = node.left.take() else { return };
        node.left = left.right.take();
        node.max_depth -= 1;
        left.right = Some(node);
        *slot = Some(left);
    }
}

/// `NumericRangeNode_RemoveChild`: drops the empty leaves below the node in `slot`, a parent
/// left with one child replaced by it. Returns whether the subtree is empty.
fn trim(slot: &mut Option<Box<Node>>, ch: &mut Changes) -> bool {
    let Some(n) = slot.as_mut() else { return false };
    if n.is_leaf() {
        return n.range.as_ref().is_some_and(|r| r.entries.num_docs == 0);
    }
    let right_empty = trim(&mut n.right, ch);
    let left_empty = trim(&mut n.left, ch);
    if !right_empty && !left_empty {
        if ch.changed {
            balance(slot);
        }
        return false;
    }
    ch.changed = true;
    if n.range.as_ref().is_some_and(|r| r.entries.num_docs != 0) {
        return false;
    }
    n.drop_range(ch);
    let (left, right) = (n.left.take(), n.right.take());
    let (keep, gone) = if right_empty { (left, right) } else { (right, left) };
    let (keep, gone) = if right_empty && left_empty { (gone, keep) } else { (keep, gone) };
    free(gone, ch);
    *slot = keep;
    right_empty && left_empty
}

/// `NumericRangeNode_Free`: counts the ranges and bytes a dropped subtree held.
fn free(node: Option<Box<Node>>, ch: &mut Changes) {
    let Some(mut n) = node else { return };
    n.drop_range(ch);
    free(n.left.take(), ch);
    free(n.right.take(), ch);
}

/// The knobs an add reads from the configuration (RediSearch reads its globals).
#[derive(Debug, Clone, Copy, Default)]
pub struct Settings {
    /// `_NUMERIC_RANGES_PARENTS`: inner nodes up to this depth keep their ranges.
    pub parents: usize,
    /// `_NUMERIC_COMPRESS`: doubles within 0.01 of a float are stored as floats.
    pub compress: bool,
}

/// A numeric field's tree (`NumericRangeTree`).
#[derive(Debug, Clone)]
pub struct Tree {
    /// The root (in a box so that rotations and trims can replace it).
    pub root: Option<Box<Node>>,
    /// Ranges in the tree.
    pub num_ranges: u64,
    /// Entries added, less those the GC removed.
    pub num_entries: u64,
    /// The last doc id added.
    pub last_doc_id: u64,
    /// Bumped whenever the shape changes.
    pub revision_id: u32,
    /// The tree's number among the trees created since the server started.
    pub unique_id: u32,
    /// Ranges the GC emptied since the last trim.
    pub empty_leaves: u64,
}

impl Tree {
    /// An empty tree (`NewNumericRangeTree`).
    pub fn new(unique_id: u32) -> Tree {
        Tree {
            root: Some(Box::new(Node::leaf(ROOT_SPLIT_CARD))),
            num_ranges: 1,
            num_entries: 0,
            last_doc_id: 0,
            revision_id: 0,
            unique_id,
            empty_leaves: 0,
        }
    }

    /// `NumericRangeTree_Add` (a multi-valued document adds each value under its one id).
    pub fn add(&mut self, doc: u64, value: f64, cfg: Settings) -> Changes {
        let mut ch = Changes::default();
        if doc < self.last_doc_id {
            return ch;
        }
        self.last_doc_id = doc;
        let Some(root) = self.root.as_mut() else { return ch };
        root.add(doc, value, cfg, &mut ch);
        if !root.is_leaf() {
            let (l, r) = root.child_depths();
            root.max_depth = l.max(r) + 1;
        }
        if ch.changed {
            self.revision_id = self.revision_id.wrapping_add(1);
        }
        self.num_ranges = self.num_ranges.saturating_add_signed(ch.ranges);
        self.num_entries += 1;
        ch
    }

    /// `NumericRangeTree_TrimEmptyLeaves`.
    pub fn trim_empty_leaves(&mut self) -> Changes {
        let mut ch = Changes::default();
        trim(&mut self.root, &mut ch);
        if ch.changed {
            self.revision_id = self.revision_id.wrapping_add(1);
            self.num_ranges = self.num_ranges.saturating_add_signed(ch.ranges);
            self.empty_leaves = 0;
        }
        ch
    }

    /// The ranges a `[min, max]` filter reads, in the order RediSearch unions them.
    pub fn find(&self, min: f64, max: f64) -> Vec<&Range> {
        let mut out = Vec::new();
        if let Some(root) = self.root.as_deref() {
            root.find(min, max, &mut out);
        }
        out
    }

    /// The root's depth (`RootMaxDepth`).
    pub fn root_max_depth(&self) -> i32 {
        self.root.as_ref().map_or(0, |r| r.max_depth)
    }
}
