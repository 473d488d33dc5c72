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
        let trees = self.numeric_model.trees(&self.docs, || self.numeric_tree_positions());
        match trees.as_ref().and_then(|t| t.get(pos)) {
            Some(t) => f(t),
            None => f(&Tree::new(0)),
        }
    }

    /// How RediSearch reads the filter `[min, max]` on the NUMERIC field at schema position
    /// `pos` (`createNumericIterator`), `None` on a field of another type. Its estimate
    /// (`NumEstimated`) is the documents of every range of the tree the filter reaches,
    /// summed (a union's `nexpected`; one range's reader its `numDocs`), so ranges only partly
    /// inside the filter count whole; it reads a union when more than one range reaches it.
    pub fn numeric_filter_reading(&self, pos: usize, min: f64, max: f64) -> Option<RangeReading> {
        if !matches!(self.fields.get(pos), Some(FieldIndex::Numeric(_))) {
            return None;
        }
        Some(self.with_numeric_tree(pos, |t| {
            let ranges = t.find(min, max);
            RangeReading {
                estimate: ranges.iter().map(|r| u64::from(r.entries.num_docs)).sum(),
                union: ranges.len() > 1,
            }
        }))
    }

    /// [`Self::numeric_filter_reading`] of a radius query (`radius` metres around `lon`,
    /// `lat`) on the GEO field at `pos` (`NewGeoRangeIterator`): a numeric filter per geohash
    /// box, kept when it reaches ranges of the field's tree; the estimate sums the ranges
    /// each box reaches (a range two boxes reach counts twice, as its two readers do in
    /// RediSearch's union), several boxes kept or one reaching several ranges make a union.
    pub fn geo_filter_reading(&self, pos: usize, lon: f64, lat: f64, radius: f64) -> Option<RangeReading> {
        if !matches!(self.fields.get(pos), Some(FieldIndex::Geo(_))) {
            return None;
        }
        let boxes = super::geo_ranges::radius_ranges(lon, lat, radius);
        Some(self.with_numeric_tree(pos, |t| {
            let (mut estimate, mut kept, mut ranges) = (0u64, 0usize, 0usize);
            for &(min, max) in &boxes {
                let found = t.find(min, max);
                if !found.is_empty() {
                    kept += 1;
                    ranges = found.len();
                }
                estimate += found.iter().map(|r| u64::from(r.entries.num_docs)).sum::<u64>();
            }
            RangeReading { estimate, union: kept > 1 || ranges > 1 }
        }))
    }
}

/// How RediSearch reads a numeric or geo filter off its range tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangeReading {
    /// Its iterator's estimate of its results (where it stands in an intersection's
    /// reading order).
    pub estimate: u64,
    /// Whether it reads a union of ranges. Its union's results claim offsets they do not
    /// have (`RSIndexResult_HasOffsets` compares the union's type mask with both numeric
    /// bits), so such a filter inside an intersection changes the slop its scorers divide by.
    pub union: bool,
}
