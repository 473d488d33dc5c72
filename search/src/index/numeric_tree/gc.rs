//! The numeric part of RediSearch 2.10's fork GC (`fork_gc.c`) run on a tree: each range
//! that held entries of deleted documents loses them, and gets its cardinality recounted
//! from the entries left (every tenth from the first, `countRemain`); ranges left without
//! documents count as empty leaves, and once they are half the ranges (or more) the tree
//! is trimmed (`FORK_GC_CLEAN_NUMERIC_EMPTY_NODES`).

use super::range::{Range, CARD_CHECK};
use super::tree::Tree;

/// What a GC pass did to one tree.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Collected {
    /// Entries removed.
    pub entries: u64,
    /// Ranges repaired.
    pub ranges: u64,
    /// Whether the tree was trimmed.
    pub trimmed: bool,
}

/// Collects the entries of the documents `dead` says are gone from `tree`.
pub fn collect(tree: &mut Tree, dead: &dyn Fn(u64) -> bool, compress: bool, clean_empty: bool) -> Collected {
    let mut out = Collected::default();
    let mut emptied = 0;
    if let Some(root) = tree.root.as_deref_mut() {
        root.ranges_mut(&mut |r: &mut Range| {
            let mut sampled: Vec<(f64, usize)> = Vec::new();
            let mut countdown = 1u16;
            let mut sample = |v: f64| {
                countdown -= 1;
                if countdown != 0 {
                    return;
                }
                countdown = CARD_CHECK;
                // RediSearch keys its count by the value's bits.
                match sampled.iter_mut().find(|(s, _)| s.to_bits() == v.to_bits()) {
                    Some(s) => s.1 += 1,
                    None => sampled.push((v, 1)),
                }
            };
            let Some(rep) = r.entries.repair(dead, compress, &mut sample) else { return };
            r.size = (r.size + rep.bytes_added).saturating_sub(rep.bytes_collected);
            if r.entries.num_docs == 0 {
                r.size = 0;
                emptied += 1;
            }
            r.reset_cardinality(sampled);
            out.entries += rep.entries;
            out.ranges += 1;
        });
    }
    tree.num_entries = tree.num_entries.saturating_sub(out.entries);
    tree.empty_leaves += emptied;
    if out.ranges > 0 && clean_empty && tree.empty_leaves >= tree.num_ranges / 2 {
        out.trimmed = tree.trim_empty_leaves().changed;
    }
    out
}
