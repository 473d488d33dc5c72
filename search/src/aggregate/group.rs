//! GROUPBY: grouping rows and feeding the groups' reducers.
//!
//! Contract: rows arrive one at a time ([`Grouper::add`]); a row joins one
//! group per combination of its key values (array values split, so a
//! multi-valued field counts each value; missing values and empty arrays
//! group as NULL); [`Grouper::finish`] returns one row per group, in
//! RediSearch's order (`group_order`), with the key values and each reducer's result.
//!
//! Split over a cluster ([`Grouper::split`]): a shard's grouper ends with
//! [`Grouper::finish_partial`] (each group's key values and reducers' partials), the node's
//! takes those with [`Grouper::merge`] and ends with [`Grouper::finish`].

use super::group_order::{group_hash, khash_order};
use super::hash::FxHashMap;
use super::reducers::{Accumulator, Reducer};
use super::row::Row;
use super::value::{Value, ValueKey};

/// A group's key values and its reducers' accumulators.
type Group = (Vec<ValueKey>, Vec<Box<dyn Accumulator>>);

/// GROUPBY: one group per distinct key tuple, each element of an array key
/// giving its own group (empty arrays and missing values group as NULL);
/// groups come out in RediSearch's order.
pub(super) struct Grouper<'p> {
    keys: &'p [usize],
    /// Per key (when given), the separator of a hash TAG list to split ([`Grouper::lists`]).
    lists: &'p [Option<char>],
    reducers: &'p [(Box<dyn Reducer>, usize)],
    index: FxHashMap<Vec<ValueKey>, usize>,
    groups: Vec<Group>,
    scratch: Vec<ValueKey>,
    /// Accumulators from [`Reducer::split_accumulator`].
    split: bool,
}

/// A group's key values and its reducers' partials, as a shard sends them.
pub type PartialGroup = (Vec<Value>, Vec<Value>);

impl<'p> Grouper<'p> {
    pub(super) fn new(keys: &'p [usize], reducers: &'p [(Box<dyn Reducer>, usize)]) -> Self {
        Grouper {
            keys,
            lists: &[],
            reducers,
            index: FxHashMap::default(),
            groups: Vec::new(),
            scratch: Vec::with_capacity(keys.len()),
            split: false,
        }
    }

    /// A grouper that splits key `i`'s string on `lists[i]` when it is a separator (a hash
    /// TAG's list: one group per value, README's differences), its values trimmed and
    /// empty ones dropped, as the TAG index reads the list.
    pub(super) fn lists(mut self, lists: &'p [Option<char>]) -> Self {
        // Only a list to split costs a row its copy ([`Grouper::add`]).
        self.lists = if lists.iter().any(Option::is_some) { lists } else { &[] };
        self
    }

    /// A grouper whose groups are split over shards (see the module docs).
    pub(super) fn split(mut self) -> Self {
        self.split = true;
        self
    }

    /// Folds in a shard's group.
    pub(super) fn merge(&mut self, (keys, partials): &PartialGroup) {
        self.scratch.clear();
        self.scratch.extend(keys.iter().map(|k| ValueKey(k.clone())));
        let g = self.group();
        if let Some((_, accs)) = self.groups.get_mut(g) {
            for (acc, p) in accs.iter_mut().zip(partials) {
                acc.merge(p);
            }
        }
    }

    /// Every group's key values and partials, in first-seen order.
    pub(super) fn finish_partial(self) -> Vec<PartialGroup> {
        self.groups
            .into_iter()
            .map(|(vals, mut accs)| {
                (vals.into_iter().map(|v| v.0).collect(), accs.iter_mut().map(|a| a.partial()).collect())
            })
            .collect()
    }

    fn key_value(row: &Row, slot: usize) -> &Value {
        static NULL: Value = Value::Null;
        match row.get(slot) {
            None => &NULL,
            Some(Value::Array(a)) if a.is_empty() => &NULL,
            Some(v) => v,
        }
    }

    pub(super) fn add(&mut self, mut row: Row) {
        for (&s, sep) in self.keys.iter().zip(self.lists) {
            if let (Some(sep), Some(Value::String(text))) = (sep, row.get(s)) {
                let split = split_list(text, *sep);
                row.set(s, split);
            }
        }
        self.add_split(&row);
    }

    #[inline]
    fn add_split(&mut self, row: &Row) {
        let multi = self.keys.iter().any(|&s| matches!(Self::key_value(row, s), Value::Array(_)));
        if !multi {
            self.scratch.clear();
            for &s in self.keys {
                self.scratch.push(ValueKey(Self::key_value(row, s).clone()));
            }
            self.feed(row);
            return;
        }
        // Cartesian product of the array elements.
        let parts: Vec<Vec<Value>> = self
            .keys
            .iter()
            .map(|&s| match Self::key_value(row, s) {
                Value::Array(a) => a.to_vec(),
                v => vec![v.clone()],
            })
            .collect();
        let combos = parts.iter().try_fold(1usize, |acc, p| acc.checked_mul(p.len())).unwrap_or(1);
        for n in 0..combos {
            let mut rem = n;
            self.scratch.clear();
            for p in parts.iter().rev() {
                self.scratch.push(ValueKey(p[rem % p.len()].clone()));
                rem /= p.len();
            }
            self.scratch.reverse();
            self.feed(row);
        }
    }

    /// The group of the key in `scratch`, created when new.
    fn group(&mut self) -> usize {
        match self.index.get(self.scratch.as_slice()) {
            Some(&g) => g,
            None => {
                let split = self.split;
                let accs = self
                    .reducers
                    .iter()
                    .map(|(r, _)| if split { r.split_accumulator() } else { r.accumulator() })
                    .collect();
                self.groups.push((self.scratch.clone(), accs));
                self.index.insert(self.scratch.clone(), self.groups.len() - 1);
                self.groups.len() - 1
            }
        }
    }

    /// Adds `row` to the group of the key in `scratch`.
    fn feed(&mut self, row: &Row) {
        let g = self.group();
        if let Some((_, accs)) = self.groups.get_mut(g) {
            for acc in accs {
                acc.add(row);
            }
        }
    }

    /// One row per group, in RediSearch's order ([`super::group_order`]).
    pub(super) fn finish(self, width: usize) -> Vec<Row> {
        let reducers = self.reducers;
        let hashes: Vec<u64> = self.groups.iter().map(|(vals, _)| group_hash(vals)).collect();
        let mut groups: Vec<Option<Group>> = self.groups.into_iter().map(Some).collect();
        khash_order(&hashes)
            .into_iter()
            .filter_map(|i| groups[i].take())
            .map(|(vals, mut accs)| {
                let mut row = Row { values: vec![None; width], ..Row::default() };
                for (slot, v) in vals.into_iter().enumerate() {
                    row.set(slot, v.0);
                }
                for ((_, out), acc) in reducers.iter().zip(accs.iter_mut()) {
                    row.set(*out, acc.finish());
                }
                row
            })
            .collect()
    }
}

/// A hash TAG list's values (`Ab, c` is `Ab` and `c`), as an array; the empty list is
/// itself (it groups as "", test_empty.py), one of separators only (`,`) has no value.
fn split_list(text: &[u8], sep: char) -> Value {
    if text.is_empty() {
        return Value::bytes(text);
    }
    let s = String::from_utf8_lossy(text);
    let parts: Vec<Value> = s.split(sep).map(str::trim).filter(|p| !p.is_empty()).map(Value::str).collect();
    match parts.len() {
        0 => Value::Null,
        1 => parts.into_iter().next().unwrap_or_default(),
        _ => Value::array(parts),
    }
}
