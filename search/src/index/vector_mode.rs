//! The kind of search a vector index ran last, as VecSim reports it (`VecSearchMode`,
//! FT.DEBUG VECSIM_INFO's `LAST_SEARCH_MODE`): set by every KNN and range query, which run
//! on shared references (worker threads), hence an atomic cell.

use std::sync::atomic::{AtomicU8, Ordering};

/// VecSim's `VecSearchMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SearchMode {
    /// No search yet.
    Empty,
    /// KNN without a filter.
    StandardKnn,
    /// KNN over a filter by brute force over its documents.
    HybridAdhocBf,
    /// KNN over a filter by batches of the graph's nearest.
    HybridBatches,
    /// Batches that switched to brute force on review.
    HybridBatchesToAdhocBf,
    /// A range query.
    RangeQuery,
}

impl SearchMode {
    /// VecSim's name of the mode.
    pub fn name(self) -> &'static str {
        match self {
            SearchMode::Empty => "EMPTY_MODE",
            SearchMode::StandardKnn => "STANDARD_KNN",
            SearchMode::HybridAdhocBf => "HYBRID_ADHOC_BF",
            SearchMode::HybridBatches => "HYBRID_BATCHES",
            SearchMode::HybridBatchesToAdhocBf => "HYBRID_BATCHES_TO_ADHOC_BF",
            SearchMode::RangeQuery => "RANGE_QUERY",
        }
    }

    fn from_u8(v: u8) -> SearchMode {
        [
            SearchMode::Empty,
            SearchMode::StandardKnn,
            SearchMode::HybridAdhocBf,
            SearchMode::HybridBatches,
            SearchMode::HybridBatchesToAdhocBf,
            SearchMode::RangeQuery,
        ]
        .get(usize::from(v))
        .copied()
        .unwrap_or(SearchMode::Empty)
    }
}

/// The last [`SearchMode`] of an index (a statistic: relaxed ordering).
#[derive(Debug, Default)]
pub struct LastMode(AtomicU8);

impl LastMode {
    /// Notes the mode of the search that just ran.
    pub fn set(&self, m: SearchMode) {
        self.0.store(m as u8, Ordering::Relaxed);
    }

    /// The mode of the last search.
    pub fn get(&self) -> SearchMode {
        SearchMode::from_u8(self.0.load(Ordering::Relaxed))
    }
}

impl Clone for LastMode {
    fn clone(&self) -> LastMode {
        LastMode(AtomicU8::new(self.0.load(Ordering::Relaxed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_mode() {
        let m = LastMode::default();
        assert_eq!(m.get().name(), "EMPTY_MODE");
        m.set(SearchMode::HybridBatchesToAdhocBf);
        assert_eq!(m.clone().get().name(), "HYBRID_BATCHES_TO_ADHOC_BF");
        m.set(SearchMode::RangeQuery);
        assert_eq!(m.get(), SearchMode::RangeQuery);
    }
}
