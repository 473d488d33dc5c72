//! A model of RediSearch 2.10.5's numeric range trees and of what its fork GC does to them,
//! kept for what RediSearch *shows* of them: FT.DEBUG NUMIDX_SUMMARY, DUMP_NUMIDX and
//! DUMP_NUMIDXTREE, FT.PROFILE's union of numeric ranges, GC_FORCEINVOKE's effects, and
//! whether a numeric or geo clause is one range or a union of several, which changes
//! RediSearch's TFIDF and BM25 scores ([`Index::numeric_filter_reading`],
//! [`Index::geo_filter_reading`]). Which documents match never depends on it: folio's
//! numeric index ([`super::numeric`]) answers that.
//!
//! # What it costs, and when
//!
//! An index pays, always, for a log of its *numeric garbage*: the (RediSearch id, field,
//! value) entries of documents deleted or re-indexed since the last GC run (16 bytes each),
//! and a count of those documents. RediSearch keeps these entries in its trees until its GC
//! removes them, and FT.INFO's `num_records` counts them until then. A GC run (FT.DEBUG
//! GC_FORCEINVOKE, or a write once `FORK_GC_RUN_INTERVAL` seconds passed since the last run,
//! RediSearch's periodic one) empties the log when at least `FORK_GC_CLEAN_THRESHOLD`
//! documents went since the last run, as RediSearch's GC only runs then.
//!
//! The trees themselves are built only when first asked for (FT.DEBUG, FT.PROFILE of a
//! numeric filter, a query scoring a numeric or geo clause beside others), all numeric fields of the index at once, by replaying in RediSearch id
//! order the live documents' values and the garbage log's: the adds RediSearch made, in its
//! order. From then on every write of the index feeds them too, until the index is dropped
//! or emptied. An index nobody asks about never builds them.
//!
//! # Invariant
//!
//! Once built, a field's tree holds exactly the entries RediSearch's would: every value of
//! every version of every document indexed in the field, under the version's RediSearch id
//! ([`super::docs::DocTable`]), less those a GC run collected since the tree was built; the
//! ids of the garbage log are the dead ones a GC run removes.
//!
//! # Where it differs from RediSearch
//!
//! - A periodic GC run before the trees are built only empties the log (GC_FORCEINVOKE builds
//!   them first): a replay never sees entries collected earlier, where RediSearch's tree had
//!   them, split ranges because of them and recounted cardinalities without them. Trees built
//!   after such a run can have another shape than RediSearch's (the same entries, in other
//!   ranges, with other cardinalities).
//! - `uniqueId` counts the trees folio built since the server started; RediSearch counts
//!   every numeric field that ever received a value.
//! - RediSearch's GC runs on a timer; folio's periodic run happens on the first write after
//!   the interval.
//! - GEO fields' trees (RediSearch files a point under its 52-bit geohash) have the same
//!   ranges and entries as RediSearch's, but a range's `unique_sum` of geohashes (past 2^53)
//!   can differ from RediSearch's in its last bit, and the split values with it (measured on
//!   3,000 random points; the cause was not found).

mod encode;
pub mod gc;
pub(crate) mod geo_ranges;
pub mod geohash;
pub mod invidx;
pub mod range;
mod reads;
pub mod settings;
pub mod tree;

use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use roaring::RoaringBitmap;

use super::docs::{DocRecord, DocTable};
#[cfg(doc)]
use super::Index;
pub use reads::RangeReading;
pub use tree::Tree;

/// The entries a version of a document adds to the trees: its NUMERIC values, and its GEO
/// points as RediSearch files them (RediSearch keeps GEO fields in numeric range trees too).
pub fn entries(rec: &DocRecord) -> impl Iterator<Item = (u16, f64)> + '_ {
    rec.numeric_values().chain(rec.geo_points().map(|(f, lon, lat)| (f, geohash::geohash(lon, lat))))
}

/// An entry of a document that left the index (or was re-indexed), not yet collected.
#[derive(Debug, Clone, Copy)]
struct Garbage {
    rs_id: u32,
    field: u16,
    value: f64,
}

/// The trees of an index's numeric fields, by schema position.
#[derive(Debug, Default)]
pub struct Trees {
    by_field: Vec<Option<Tree>>,
}

impl Trees {
    /// The tree of the field at schema position `field`.
    pub fn get(&self, field: usize) -> Option<&Tree> {
        self.by_field.get(field).and_then(Option::as_ref)
    }

    fn tree_mut(&mut self, field: usize) -> &mut Tree {
        if self.by_field.len() <= field {
            self.by_field.resize_with(field + 1, || None);
        }
        self.by_field[field].get_or_insert_with(|| Tree::new(settings::next_unique_id()))
    }

    fn add(&mut self, rs_id: u64, field: u16, value: f64) {
        let cfg = settings::tree_settings();
        self.tree_mut(usize::from(field)).add(rs_id, value, cfg);
    }
}

/// One index's numeric garbage and, once asked for, its trees (see the module's docs; GEO
/// fields count as numeric ones).
#[derive(Debug)]
pub struct Model {
    garbage: Vec<Garbage>,
    /// Documents deleted or re-indexed since the last GC run (`deletedDocsFromLastRun`).
    deleted_docs: u64,
    last_run: Instant,
    /// What the last run collected ([`Model::last_collected`]).
    last_collected: (u64, u64),
    /// Built on first use, possibly while the index is shared (FT.PROFILE runs on workers).
    trees: Mutex<Option<Box<Trees>>>,
}

impl Default for Model {
    fn default() -> Self {
        Model {
            garbage: Vec::new(),
            deleted_docs: 0,
            last_run: Instant::now(),
            last_collected: (0, 0),
            trees: Mutex::new(None),
        }
    }
}

impl Model {
    /// A version of a document was indexed under `rs_id` with these numeric values.
    pub fn indexed(&mut self, rs_id: u64, values: impl Iterator<Item = (u16, f64)>) {
        let Some(trees) = self.trees.get_mut().unwrap_or_else(|e| e.into_inner()).as_mut() else { return };
        for (field, value) in values {
            trees.add(rs_id, field, value);
        }
    }

    /// The version of a document indexed under `rs_id`, with these numeric values, left the
    /// index (deleted, re-indexed, or failing to index).
    /// Returns whether a periodic GC run happened now (the caller collects the rest).
    pub fn unindexed(&mut self, rs_id: u64, values: impl Iterator<Item = (u16, f64)>) -> bool {
        let rs_id = rs_id as u32;
        self.garbage.extend(values.map(|(field, value)| Garbage { rs_id, field, value }));
        self.deleted_docs += 1;
        self.deleted_docs >= settings::gc_threshold()
            && self.last_run.elapsed() >= settings::gc_interval()
            && self.collect()
    }

    /// Numeric entries not yet collected (FT.INFO counts them in `num_records`).
    pub fn garbage_records(&self) -> u64 {
        self.garbage.len() as u64
    }

    /// What the last run collected: numeric entries, and documents gone since the run before.
    pub fn last_collected(&self) -> (u64, u64) {
        self.last_collected
    }

    /// A GC run (FT.DEBUG GC_FORCEINVOKE): does nothing unless `FORK_GC_CLEAN_THRESHOLD`
    /// documents went since the last run; else removes the garbage from the trees, if built,
    /// and forgets it. Returns whether it ran.
    pub fn collect(&mut self) -> bool {
        if self.deleted_docs < settings::gc_threshold() {
            return false;
        }
        let garbage = std::mem::take(&mut self.garbage);
        self.last_collected = (garbage.len() as u64, self.deleted_docs);
        if let Some(trees) = self.trees.get_mut().unwrap_or_else(|e| e.into_inner()).as_mut() {
            let dead: RoaringBitmap = garbage.iter().map(|g| g.rs_id).collect();
            let is_dead = |id: u64| u32::try_from(id).is_ok_and(|id| dead.contains(id));
            let (compress, clean) = (settings::tree_settings().compress, settings::clean_empty_nodes());
            for tree in trees.by_field.iter_mut().flatten() {
                gc::collect(tree, &is_dead, compress, clean);
            }
        }
        self.deleted_docs = 0;
        self.last_run = Instant::now();
        true
    }

    /// FT.DEBUG GC_FORCEINVOKE: a GC run that builds the trees first when it has garbage to
    /// collect from them (a run that drops garbage the trees never saw would leave them
    /// unlike RediSearch's; the command is a debugging one, which is asking for them).
    pub fn force_collect(&mut self, docs: &DocTable, numeric_fields: &[usize]) -> bool {
        let runs = self.deleted_docs >= settings::gc_threshold();
        if runs && !self.garbage.is_empty() && !numeric_fields.is_empty() {
            drop(self.trees(docs, || numeric_fields.to_vec()));
        }
        self.collect()
    }

    /// Trims the empty leaves of the tree of the field at schema position `field`, when
    /// built (FT.DEBUG GC_CLEAN_NUMERIC).
    pub fn trim_empty_leaves(&mut self, field: usize) {
        let trees = self.trees.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = trees.as_mut().and_then(|t| t.by_field.get_mut(field)).and_then(Option::as_mut) {
            t.trim_empty_leaves();
        }
    }

    /// The trees, built now if they are not yet (`numeric_fields`: the schema positions of
    /// the index's NUMERIC fields).
    pub fn trees(
        &self,
        docs: &DocTable,
        numeric_fields: impl FnOnce() -> Vec<usize>,
    ) -> MutexGuard<'_, Option<Box<Trees>>> {
        let mut guard = self.trees.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            *guard = Some(Box::new(self.replay(docs, &numeric_fields())));
        }
        guard
    }

    /// Whether the trees are built.
    pub fn is_built(&self) -> bool {
        self.trees.lock().map(|t| t.is_some()).unwrap_or(false)
    }

    /// The trees RediSearch would have: the live documents' values and the garbage's, added
    /// in RediSearch id order.
    fn replay(&self, docs: &DocTable, numeric_fields: &[usize]) -> Trees {
        let mut trees = Trees::default();
        for &f in numeric_fields {
            trees.tree_mut(f);
        }
        let live = docs.in_redisearch_order(docs.live.iter());
        let mut garbage = self.garbage.clone();
        garbage.sort_by_key(|g| g.rs_id);
        let mut g = garbage.iter().peekable();
        for (rs_id, id) in live {
            while let Some(old) = g.next_if(|old| u64::from(old.rs_id) < rs_id) {
                trees.add(u64::from(old.rs_id), old.field, old.value);
            }
            let Some(rec) = docs.get(id) else { continue };
            for (field, value) in entries(rec) {
                trees.add(rs_id, field, value);
            }
        }
        for old in g {
            trees.add(u64::from(old.rs_id), old.field, old.value);
        }
        trees
    }
}

#[cfg(test)]
mod tests;
