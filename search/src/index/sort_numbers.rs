//! The numbers of SORTABLE fields, one array per field indexed by document id.
//!
//! `SORTBY price` reads the sort value of every match. Held in each document's record, that is
//! a record (a heap block of its own) read per match: a cache miss each (11 % of a two-word
//! search sorted by a number, measured). Held here it is one load from an array of 8 bytes a
//! document, and the record is 10 bytes smaller (field, kind, value), so memory does not grow.
//! String sort values stay in the records.

/// No value at this id (a NaN no number parsed from a document has: such a value, were one
/// ever given, stays in the record).
const NONE: u64 = 0x7ff8_dead_beef_0001;

/// Per field, its values by id.
#[derive(Default)]
pub struct SortNumbers {
    columns: Vec<(u16, Vec<f64>)>,
}

impl SortNumbers {
    /// Whether `v` can be held here (every number but one NaN pattern).
    pub fn holds(v: f64) -> bool {
        v.to_bits() != NONE
    }

    /// Field `field`'s number for `id`.
    #[inline]
    pub fn get(&self, id: u32, field: u16) -> Option<f64> {
        let (_, values) = self.columns.iter().find(|(f, _)| *f == field)?;
        values.get(id as usize).copied().filter(|v| v.to_bits() != NONE)
    }

    /// The fields with a number for `id`.
    pub fn fields_of(&self, id: u32) -> impl Iterator<Item = u16> + '_ {
        self.columns
            .iter()
            .filter(move |(_, values)| values.get(id as usize).is_some_and(|v| v.to_bits() != NONE))
            .map(|(f, _)| *f)
    }

    /// Makes `numbers` (fields ascending, each once, every value [`Self::holds`]) the numbers of
    /// `id`, the only ones.
    pub fn set(&mut self, id: u32, numbers: &[(u16, f64)]) {
        for (f, values) in &mut self.columns {
            let v = numbers.iter().find(|(g, _)| g == f).map_or(f64::from_bits(NONE), |(_, v)| *v);
            put(values, id, v);
        }
        for &(f, v) in numbers {
            if !self.columns.iter().any(|(g, _)| *g == f) {
                let mut values = Vec::new();
                put(&mut values, id, v);
                self.columns.push((f, values));
            }
        }
    }

    /// The bytes `id`'s numbers would take in its record (varint field, kind, value), which
    /// FT.INFO counts as sortable values.
    pub fn record_bytes(&self, id: u32) -> usize {
        self.fields_of(id).map(|f| (16 - f.leading_zeros()).max(1).div_ceil(7) as usize + 9).sum()
    }

    /// Heap bytes.
    pub fn mem_bytes(&self) -> usize {
        self.columns.iter().map(|(_, v)| v.capacity() * 8).sum()
    }
}

/// Sets slot `id` of `values` (growing it with no-values).
fn put(values: &mut Vec<f64>, id: u32, v: f64) {
    let at = id as usize;
    if values.len() <= at {
        if v.to_bits() == NONE {
            return;
        }
        super::growth::reserve_eighth(values, at + 1);
        values.resize(at + 1, f64::from_bits(NONE));
    }
    if let Some(slot) = values.get_mut(at) {
        *slot = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_come_and_go_by_id_and_field() {
        let mut s = SortNumbers::default();
        s.set(3, &[(1, 2.5), (4, -1.0)]);
        s.set(0, &[(4, 7.0)]);
        assert_eq!(
            (s.get(3, 1), s.get(3, 4), s.get(0, 4), s.get(0, 1)),
            (Some(2.5), Some(-1.0), Some(7.0), None)
        );
        assert_eq!(s.fields_of(3).collect::<Vec<_>>(), vec![1, 4]);
        assert_eq!(s.get(9, 1), None, "past the end");
        s.set(3, &[(4, 0.0)]);
        assert_eq!((s.get(3, 1), s.get(3, 4)), (None, Some(0.0)), "a set replaces every field");
        s.set(3, &[]);
        assert_eq!(s.fields_of(3).count(), 0);
        assert_eq!(s.record_bytes(0), 10);
        assert!(!SortNumbers::holds(f64::from_bits(NONE)) && SortNumbers::holds(f64::NAN));
    }
}
