//! Term dictionary: string → dense u32 id. Exact lookups go through a hash map; the
//! ordered view used for expansion is a frozen `fst::Map` plus a `BTreeMap` delta of
//! recent insertions, merged into the fst when it grows. Ids are never reused; callers
//! skip terms whose postings are empty. Prefix, fuzzy and pattern expansion run over both
//! parts and return ids in lexicographic order.

use std::collections::{BTreeMap, HashMap};

use fst::automaton::Levenshtein;
use fst::{IntoStreamer, Map, MapBuilder, Streamer};

use crate::limits::TERMDICT_DELTA_MERGE;

/// The dictionary.
#[derive(Default)]
pub struct TermDict {
    exact: HashMap<Box<str>, u32, foldhash::fast::RandomState>,
    frozen: Map<Vec<u8>>,
    delta: BTreeMap<String, u32>,
    next_id: u32,
}

impl TermDict {
    /// The id of `term`, if present.
    pub fn get(&self, term: &str) -> Option<u32> {
        self.exact.get(term).copied()
    }

    /// The id of `term`, inserting it when new.
    pub fn get_or_insert(&mut self, term: &str) -> u32 {
        if let Some(id) = self.get(term) {
            return id;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.delta.insert(term.to_string(), id);
        self.exact.insert(term.into(), id);
        if self.delta.len() >= TERMDICT_DELTA_MERGE.max(self.frozen.len() / 8) {
            self.merge();
        }
        id
    }

    /// Number of distinct terms ever inserted (ids are `0..len`).
    pub fn len(&self) -> usize {
        self.next_id as usize
    }

    /// True when no term was ever inserted.
    pub fn is_empty(&self) -> bool {
        self.next_id == 0
    }

    /// Approximate heap bytes.
    pub fn mem_bytes(&self) -> usize {
        self.frozen.as_fst().as_bytes().len()
            + self.delta.keys().map(|k| k.len() + 48).sum::<usize>()
            + self.exact.keys().map(|k| k.len() + 32).sum::<usize>()
    }

    /// Moves the delta into the fst.
    fn merge(&mut self) {
        let mut builder = MapBuilder::memory();
        let mut stream = self.frozen.stream();
        let mut delta = self.delta.iter().peekable();
        let mut ok = true;
        while let Some((k, v)) = stream.next() {
            while let Some((dk, dv)) = delta.peek() {
                if dk.as_bytes() < k {
                    ok &= builder.insert(dk.as_bytes(), u64::from(**dv)).is_ok();
                    delta.next();
                } else {
                    break;
                }
            }
            ok &= builder.insert(k, v).is_ok();
        }
        for (dk, dv) in delta {
            ok &= builder.insert(dk.as_bytes(), u64::from(*dv)).is_ok();
        }
        if !ok {
            return; // keep the delta; lookups stay correct
        }
        if let Ok(bytes) = builder.into_inner() {
            if let Ok(map) = Map::new(bytes) {
                self.frozen = map;
                self.delta.clear();
            }
        }
    }

    /// All `(term, id)` pairs in order, filtered by `keep`, at most `limit`.
    pub fn scan(&self, mut keep: impl FnMut(&str, u32) -> bool, limit: usize) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        let mut stream = self.frozen.stream();
        let mut frozen = Vec::new();
        while let Some((k, v)) = stream.next() {
            if let Ok(s) = std::str::from_utf8(k) {
                frozen.push((s.to_string(), v as u32));
            }
        }
        merge_sorted(frozen, self.delta.iter().map(|(k, v)| (k.clone(), *v)), |t, id| {
            if out.len() < limit && keep(&t, id) {
                out.push((t, id));
            }
            out.len() < limit
        });
        out
    }

    /// Terms starting with `prefix` (at most `limit`, lexicographic).
    pub fn prefix(
        &self,
        prefix: &str,
        mut keep: impl FnMut(u32) -> bool,
        limit: usize,
    ) -> Vec<(String, u32)> {
        let mut frozen = Vec::new();
        let mut stream = self.frozen.range().ge(prefix).into_stream();
        while let Some((k, v)) = stream.next() {
            if !k.starts_with(prefix.as_bytes()) {
                break;
            }
            if let Ok(s) = std::str::from_utf8(k) {
                if keep(v as u32) {
                    frozen.push((s.to_string(), v as u32));
                }
            }
        }
        let delta = self
            .delta
            .range(prefix.to_string()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .filter(|(_, v)| keep(**v))
            .map(|(k, v)| (k.clone(), *v))
            .collect::<Vec<_>>();
        let mut out = Vec::new();
        merge_sorted(frozen, delta, |t, id| {
            out.push((t, id));
            out.len() < limit
        });
        out
    }

    /// Terms within Levenshtein distance `dist` of `term` (at most `limit`).
    pub fn fuzzy(
        &self,
        term: &str,
        dist: u32,
        mut keep: impl FnMut(u32) -> bool,
        limit: usize,
    ) -> Vec<(String, u32)> {
        let mut frozen = Vec::new();
        match Levenshtein::new(term, dist) {
            Ok(aut) => {
                let mut stream = self.frozen.search(aut).into_stream();
                while let Some((k, v)) = stream.next() {
                    if let Ok(s) = std::str::from_utf8(k) {
                        if keep(v as u32) {
                            frozen.push((s.to_string(), v as u32));
                        }
                    }
                }
            }
            Err(_) => {
                let mut stream = self.frozen.stream();
                while let Some((k, v)) = stream.next() {
                    if let Ok(s) = std::str::from_utf8(k) {
                        if edit_distance(s, term) <= dist as usize && keep(v as u32) {
                            frozen.push((s.to_string(), v as u32));
                        }
                    }
                }
            }
        }
        let delta = self
            .delta
            .iter()
            .filter(|(k, v)| edit_distance(k, term) <= dist as usize && keep(**v))
            .map(|(k, v)| (k.clone(), *v))
            .collect::<Vec<_>>();
        let mut out = Vec::new();
        merge_sorted(frozen, delta, |t, id| {
            out.push((t, id));
            out.len() < limit
        });
        out
    }
}

/// Merges two sorted `(term, id)` sequences, calling `f` until it returns false.
fn merge_sorted(
    a: Vec<(String, u32)>,
    b: impl IntoIterator<Item = (String, u32)>,
    mut f: impl FnMut(String, u32) -> bool,
) {
    let mut a = a.into_iter().peekable();
    let mut b = b.into_iter().peekable();
    loop {
        let take_a = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => x.0 <= y.0,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return,
        };
        let next = if take_a { a.next() } else { b.next() };
        if let Some((t, id)) = next {
            if !f(t, id) {
                return;
            }
        }
    }
}

/// Levenshtein distance over chars.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_survive_merges_and_expansions_cover_both_parts() {
        let mut d = TermDict::default();
        let words: Vec<String> = (0..10_000).map(|i| format!("w{i}")).collect();
        let ids: Vec<u32> = words.iter().map(|w| d.get_or_insert(w)).collect();
        for (w, id) in words.iter().zip(&ids) {
            assert_eq!(d.get(w), Some(*id));
        }
        d.get_or_insert("hello");
        d.get_or_insert("help");
        let p: Vec<String> = d.prefix("hel", |_| true, 10).into_iter().map(|x| x.0).collect();
        assert_eq!(p, ["hello", "help"]);
        let p = d.prefix("w999", |_| true, 100);
        assert_eq!(p.len(), 11);
        let f: Vec<String> = d.fuzzy("helo", 1, |_| true, 10).into_iter().map(|x| x.0).collect();
        assert_eq!(f, ["hello", "help"]);
        let f = d.fuzzy("w1", 1, |_| true, 1000);
        assert!(f.iter().any(|x| x.0 == "w12") && f.iter().any(|x| x.0 == "w1"));
    }

    #[test]
    fn edit_distance_basics() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
    }
}
