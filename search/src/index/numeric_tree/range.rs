//! One numeric range (RediSearch 2.10's `NumericRange`): its bounds, the sampled cardinality
//! that decides when and where it splits, and its inverted index.

use super::invidx::InvIdx;

/// `NR_CARD_CHECK`: the cardinality is sampled every this many entries.
pub const CARD_CHECK: u16 = 10;
/// `NR_EXPONENT`: a child's split cardinality is its parent's times this, plus one.
const EXPONENT: u32 = 4;
/// `NR_MAXRANGE_CARD`: the largest split cardinality.
const MAX_RANGE_CARD: u32 = 2500;

/// A range of values and their entries.
#[derive(Debug, Clone)]
pub struct Range {
    /// Smallest value added (`DBL_MAX` while empty).
    pub min: f64,
    /// Largest value added (-inf while empty).
    pub max: f64,
    /// Sum of the distinct sampled values.
    pub unique_sum: f64,
    /// `invertedIndexSize`: the bytes RediSearch accounts to the range.
    pub size: usize,
    /// Distinct sampled values (16 bits in RediSearch).
    pub card: u16,
    /// Entries until the next sample.
    pub card_check: u16,
    /// The cardinality at which the range splits (times [`CARD_CHECK`]).
    pub split_card: u32,
    /// The sampled values and how often each was sampled.
    pub values: Vec<(f64, usize)>,
    /// The entries.
    pub entries: InvIdx,
}

impl Range {
    /// An empty range (`NewLeafNode`'s).
    pub fn new(split_card: u32) -> Range {
        let (entries, size) = InvIdx::new();
        Range {
            min: f64::MAX,
            max: f64::NEG_INFINITY,
            unique_sum: 0.0,
            size,
            card: 0,
            card_check: CARD_CHECK,
            split_card,
            values: Vec::new(),
            entries,
        }
    }

    /// The split cardinality of a range split from this one.
    pub fn child_split_card(&self) -> u32 {
        MAX_RANGE_CARD.min(1 + self.split_card.wrapping_mul(EXPONENT))
    }

    /// `checkCardinality`: every [`CARD_CHECK`] entries, counts `value` among the sampled ones.
    fn sample(&mut self, value: f64) {
        self.card_check -= 1;
        if self.card_check != 0 {
            return;
        }
        self.card_check = CARD_CHECK;
        if let Some(v) = self.values.iter_mut().find(|(v, _)| *v == value) {
            v.1 += 1;
            return;
        }
        self.values.push((value, 1));
        self.unique_sum += value;
        self.card = self.card.wrapping_add(1);
    }

    /// `NumericRange_Add`: adds an entry (sampling it when `check_card`); returns the bytes
    /// the range grew by.
    pub fn add(&mut self, doc: u64, value: f64, check_card: bool, compress: bool) -> usize {
        if check_card {
            self.sample(value);
        }
        if value < self.min {
            self.min = value;
        }
        if value > self.max {
            self.max = value;
        }
        let grew = self.entries.write(doc, value, compress);
        self.size += grew;
        grew
    }

    /// Replaces the sampled cardinality with the one the fork GC counted from the entries it
    /// kept (`resetCardinality`); `card_check` is left as it was.
    pub fn reset_cardinality(&mut self, values: Vec<(f64, usize)>) {
        self.unique_sum = values.iter().map(|(v, _)| v).sum();
        self.card = values.len() as u16;
        self.values = values;
    }

    /// Whether every value of the range lies in `[min, max]` (`NumericRange_Contained`).
    pub fn contained_in(&self, min: f64, max: f64) -> bool {
        self.min >= min && self.max <= max
    }

    /// Whether `min` or `max` falls in the range (`NumericRange_Overlaps`).
    pub fn overlaps(&self, min: f64, max: f64) -> bool {
        (min >= self.min && min <= self.max) || (max >= self.min && max <= self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tenth_entry_is_sampled_from_the_first() {
        let mut r = Range::new(16);
        r.add(1, 5.0, true, false);
        assert_eq!((r.card, r.card_check, r.unique_sum), (0, 9, 0.0));
        for doc in 2..=10 {
            r.add(doc, doc as f64, true, false);
        }
        assert_eq!((r.card, r.card_check, r.unique_sum), (1, 10, 10.0), "the 10th entry's value");
        for doc in 11..=20 {
            r.add(doc, 10.0, true, false);
        }
        assert_eq!((r.card, r.values.clone()), (1, vec![(10.0, 2)]));
        assert_eq!((r.min, r.max), (2.0, 10.0));
        assert_eq!(r.child_split_card(), 65);
    }
}
