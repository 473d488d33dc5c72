//! What readers ask of the trees: FT.DEBUG and FT.PROFILE their contents, queries whether a
//! numeric filter reads one range or a union of several (RediSearch scores the two apart).

use super::Tree;
use crate::index::{FieldIndex, Index};

/// Whether RediSearch keeps the field in a numeric range tree (NUMERIC and GEO fields).
fn has_tree(f: Option<&FieldIndex>) -> bool {
    matches!(f, Some(FieldIndex::Numeric(_) | FieldIndex::Geo(_)))
}

impl Index {
    /// The schema positions of the index's NUMERIC and GEO fields.
    pub fn numeric_tree_positions(&self) -> Vec<usize> {
        (0..self.fields.len()).filter(|&i| has_tree(self.fields.get(i))).collect()
    }

    /// Runs `f` on the tree of the field at schema position `pos` (a NUMERIC or GEO field),
    /// building the trees if they are not yet; a field of another type reads as an empty
    /// tree, as RediSearch opens one under its name.
    pub fn with_numeric_tree<R>(&self, pos: usize, f: impl FnOnce(&Tree) -> R) -> R {
        if !has_tree(self.fields.get(pos)) {
            return f(&Tree::new(0));
        }
        let trees = self.numeric_model.trees(&self.docs, &self.numeric_tree_positions());
        match trees.as_ref().and_then(|t| t.get(pos)) {
            Some(t) => f(t),
            None => f(&Tree::new(0)),
        }
    }

    /// Whether RediSearch reads the filter `[min, max]` on the NUMERIC field at schema
    /// position `pos` as a union of ranges (`createNumericIterator`: more than one range of
    /// the tree reaches it). Its union's results claim offsets they do not have
    /// (`RSIndexResult_HasOffsets` compares the union's type mask with both numeric bits),
    /// so such a filter inside an intersection changes the slop its scorers divide by.
    pub fn numeric_filter_is_union(&self, pos: usize, min: f64, max: f64) -> bool {
        matches!(self.fields.get(pos), Some(FieldIndex::Numeric(_)))
            && self.with_numeric_tree(pos, |t| t.find(min, max).len() > 1)
    }

    /// Whether RediSearch reads a radius query (`radius` metres around `lon`, `lat`) on the
    /// GEO field at schema position `pos` as a union (`NewGeoRangeIterator`): a numeric
    /// filter per geohash box, kept when it reaches ranges of the field's tree, several
    /// filters kept or one reaching several ranges making a union.
    pub fn geo_filter_is_union(&self, pos: usize, lon: f64, lat: f64, radius: f64) -> bool {
        if !matches!(self.fields.get(pos), Some(FieldIndex::Geo(_))) {
            return false;
        }
        let boxes = super::geo_ranges::radius_ranges(lon, lat, radius);
        self.with_numeric_tree(pos, |t| {
            let reached: Vec<usize> =
                boxes.iter().map(|&(min, max)| t.find(min, max).len()).filter(|&n| n > 0).collect();
            reached.len() > 1 || reached.first().is_some_and(|&n| n > 1)
        })
    }
}

impl Index {
    /// RediSearch's estimate of the filter `[min, max]` on the NUMERIC field at schema
    /// position `pos` (its iterator's `NumEstimated`): the documents of every range of the
    /// tree it reaches, summed (a union's `nexpected`; one range's reader its `numDocs`), so
    /// ranges only partly inside the filter count whole.
    pub fn numeric_filter_estimate(&self, pos: usize, min: f64, max: f64) -> u64 {
        if !matches!(self.fields.get(pos), Some(FieldIndex::Numeric(_))) {
            return 0;
        }
        self.with_numeric_tree(pos, |t| t.find(min, max).iter().map(|r| u64::from(r.entries.num_docs)).sum())
    }

    /// [`Self::numeric_filter_estimate`] of a radius query on the GEO field at `pos`: the
    /// ranges each geohash box reaches, summed over the boxes (a range two boxes reach
    /// counts twice, as its two readers do in RediSearch's union).
    pub fn geo_filter_estimate(&self, pos: usize, lon: f64, lat: f64, radius: f64) -> u64 {
        if !matches!(self.fields.get(pos), Some(FieldIndex::Geo(_))) {
            return 0;
        }
        let boxes = super::geo_ranges::radius_ranges(lon, lat, radius);
        self.with_numeric_tree(pos, |t| {
            boxes.iter().flat_map(|&(min, max)| t.find(min, max)).map(|r| u64::from(r.entries.num_docs)).sum()
        })
    }
}
