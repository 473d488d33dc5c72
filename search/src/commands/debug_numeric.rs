//! FT.DEBUG's numeric subcommands (NUMIDX_SUMMARY, DUMP_NUMIDX, DUMP_NUMIDXTREE), answered
//! from the model of RediSearch's range trees ([`crate::index::numeric_tree`]), built on the
//! first of them, in RediSearch 2.10.5's reply shapes.

use crate::error::Result;
use crate::index::numeric_tree::invidx::InvIdx;
use crate::index::numeric_tree::range::Range;
use crate::index::numeric_tree::tree::Node;
use crate::index::numeric_tree::Tree;
use crate::index::Index;
use crate::reply::Reply;

/// `Index_StoreNumeric`, the flags DUMP_NUMIDX's header shows.
const NUMERIC_FLAGS: i64 = 32;

fn key(s: &str) -> Reply {
    Reply::text(s)
}

fn int(n: impl TryInto<i64>) -> Reply {
    Reply::Int(n.try_into().unwrap_or(i64::MAX))
}

/// The tree's figures both NUMIDX_SUMMARY and DUMP_NUMIDXTREE start with (the dump adds
/// `uniqueId` before `emptyLeaves`).
fn figures(t: &Tree, unique_id: bool) -> Vec<Reply> {
    let mut out = vec![
        key("numRanges"),
        int(t.num_ranges),
        key("numEntries"),
        int(t.num_entries),
        key("lastDocId"),
        int(t.last_doc_id),
        key("revisionId"),
        int(t.revision_id),
    ];
    if unique_id {
        out.extend([key("uniqueId"), int(t.unique_id)]);
    }
    out.extend([key("emptyLeaves"), int(t.empty_leaves)]);
    out
}

/// `NUMIDX_SUMMARY`.
pub(crate) fn summary(t: &Tree) -> Reply {
    let mut out = figures(t, false);
    out.extend([key("RootMaxDepth"), int(t.root_max_depth())]);
    Reply::Array(out)
}

/// The documents of a range's entries, a document's consecutive entries once (a reader
/// that skips multi-values).
fn doc_ids(entries: &InvIdx) -> Reply {
    let mut last = None;
    let ids = entries.entries().filter(|(d, _)| last.replace(*d) != Some(*d)).map(|(d, _)| int(*d));
    Reply::Array(ids.collect())
}

/// `DUMP_NUMIDX idx field [WITH_HEADERS]`: per range of the tree (in its iterator's order),
/// its documents, after a header with `headers`.
pub(crate) fn dump_numidx(t: &Tree, headers: bool) -> Reply {
    let mut nodes = Vec::new();
    if let Some(root) = t.root.as_deref() {
        root.walk(&mut nodes);
    }
    let ranges = nodes.into_iter().filter_map(|n| n.range.as_deref()).map(|r| {
        let ids = doc_ids(&r.entries);
        if !headers {
            return ids;
        }
        let e = &r.entries;
        let header = Reply::Array(vec![
            key("numDocs"),
            int(e.num_docs),
            key("numEntries"),
            int(e.num_entries),
            key("lastId"),
            int(e.last_id),
            key("flags"),
            int(NUMERIC_FLAGS),
            key("numberOfBlocks"),
            int(e.blocks.len()),
            key("blocks_efficiency (numEntries/numberOfBlocks)"),
            Reply::Double(e.efficiency()),
        ]);
        Reply::Array(vec![header, ids])
    });
    Reply::Array(ranges.collect())
}

/// `DUMP_NUMIDXTREE idx field`: the tree's figures, its nodes (a node with a range shows
/// only the range) and the ranges' average block efficiency.
pub(crate) fn dump_tree(t: &Tree) -> Reply {
    let (root, efficiency) = match t.root.as_deref() {
        Some(n) => node(n),
        None => (Reply::Array(Vec::new()), 0.0),
    };
    let mut out = figures(t, true);
    out.extend([
        key("root"),
        root,
        key("Tree stats:"),
        Reply::Array(vec![
            key("Average memory efficiency (numEntries/size)/numRanges"),
            Reply::Double(efficiency / t.num_ranges as f64),
        ]),
    ]);
    Reply::Array(out)
}

/// A node's reply and the sum of its ranges' block efficiencies, added up subtree by subtree
/// as RediSearch does (the order of the additions shows in the last digit).
fn node(n: &Node) -> (Reply, f64) {
    if let Some(r) = n.range.as_deref() {
        return (Reply::Array(vec![key("range"), range(r)]), r.entries.efficiency());
    }
    let child = |c: Option<&Node>| c.map_or((Reply::Array(Vec::new()), 0.0), node);
    let (left, l) = child(n.left.as_deref());
    let (right, r) = child(n.right.as_deref());
    let reply = Reply::Array(vec![
        key("value"),
        Reply::Double(n.value),
        key("maxDepth"),
        int(n.max_depth),
        key("left"),
        left,
        key("right"),
        right,
    ]);
    (reply, 0.0 + l + r)
}

fn range(r: &Range) -> Reply {
    let e = &r.entries;
    let values = e.entries().flat_map(|&(d, v)| [key("value"), Reply::Double(v), key("docId"), int(d)]);
    Reply::Array(vec![
        key("minVal"),
        Reply::Double(r.min),
        key("maxVal"),
        Reply::Double(r.max),
        key("unique_sum"),
        Reply::Double(r.unique_sum),
        key("invertedIndexSize [bytes]"),
        Reply::Double(r.size as f64),
        key("card"),
        int(r.card),
        key("cardCheck"),
        int(r.card_check),
        key("splitCard"),
        int(r.split_card),
        key("entries"),
        Reply::Array(vec![
            key("numDocs"),
            int(e.num_docs),
            key("numEntries"),
            int(e.num_entries),
            key("lastId"),
            int(e.last_id),
            key("size"),
            int(e.blocks.len()),
            key("blocks_efficiency (numEntries/size)"),
            Reply::Double(e.efficiency()),
            key("values"),
            Reply::Array(values.collect()),
        ]),
    ])
}

/// The field's position, for the numeric subcommands (their error when it is not in the
/// schema).
pub(crate) fn field(idx: &Index, name: &str) -> Result<usize> {
    super::debug::field_pos(idx, name)
}
