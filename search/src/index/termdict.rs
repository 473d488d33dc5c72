//! Term dictionary: string → dense u32 id. Exact lookups go through a hash table whose
//! entries hold terms of up to [`INLINE`] bytes themselves (a lookup reads no other
//! memory; longer terms are kept aside, [`TermDict::long`]); the ordered view used for expansion is a frozen `fst::Map` plus a `BTreeMap` delta of
//! recent insertions, merged into the fst when it grows. Ids are never reused; callers
//! skip terms whose postings are empty. Prefix, fuzzy and pattern expansion run over both
//! parts and return ids in lexicographic order.

use std::collections::BTreeMap;
use std::hash::BuildHasher;

use hashbrown::HashTable;

use fst::automaton::Levenshtein;
use fst::{IntoStreamer, Map, MapBuilder, Streamer};

use crate::limits::TERMDICT_DELTA_MERGE;

/// Terms of up to this many bytes are stored in their hash table entry.
const INLINE: usize = 11;

/// A hash table entry: a short term's bytes and length (last byte), or for a longer
/// term [`LONG`] in the last byte and its index in [`TermDict::long`] in the first four.
#[derive(Clone, Copy)]
struct Entry {
    key: [u8; INLINE + 1],
    id: u32,
}

const LONG: u8 = 0xFF;

/// The packed key of a short term.
fn inline_key(term: &[u8]) -> Option<[u8; INLINE + 1]> {
    let mut key = [0u8; INLINE + 1];
    key.get_mut(..term.len())?.copy_from_slice(term);
    if term.len() > INLINE {
        return None;
    }
    key[INLINE] = term.len() as u8;
    Some(key)
}

/// The dictionary.
#[derive(Default)]
pub struct TermDict {
    exact: HashTable<Entry>,
    hasher: foldhash::fast::RandomState,
    /// Terms longer than [`INLINE`] bytes.
    long: Vec<Box<str>>,
    frozen: Map<Vec<u8>>,
    delta: BTreeMap<String, u32>,
    next_id: u32,
}

impl TermDict {
    /// The id of `term`, if present.
    pub fn get(&self, term: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(term.as_bytes());
        match inline_key(term.as_bytes()) {
            Some(key) => self.exact.find(hash, |e| e.key == key),
            None => self
                .exact
                .find(hash, |e| e.key[INLINE] == LONG && Self::bytes_of(&self.long, e) == term.as_bytes()),
        }
        .map(|e| e.id)
    }

    /// The term bytes of an entry.
    fn bytes_of<'a>(long: &'a [Box<str>], e: &'a Entry) -> &'a [u8] {
        if e.key[INLINE] == LONG {
            let i = u32::from_le_bytes([e.key[0], e.key[1], e.key[2], e.key[3]]);
            long.get(i as usize).map_or(&[], |t| t.as_bytes())
        } else {
            e.key.get(..usize::from(e.key[INLINE])).unwrap_or_default()
        }
    }

    /// The id of `term`, inserting it when new.
    pub fn get_or_insert(&mut self, term: &str) -> u32 {
        if let Some(id) = self.get(term) {
            return id;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.delta.insert(term.to_string(), id);
        let key = inline_key(term.as_bytes()).unwrap_or_else(|| {
            let mut key = [0u8; INLINE + 1];
            key[..4].copy_from_slice(&(self.long.len() as u32).to_le_bytes());
            key[INLINE] = LONG;
            self.long.push(term.into());
            key
        });
        let (long, hasher) = (&self.long, &self.hasher);
        self.exact.insert_unique(hasher.hash_one(term.as_bytes()), Entry { key, id }, |e| {
            hasher.hash_one(Self::bytes_of(long, e))
        });
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
            + self.exact.capacity() * (std::mem::size_of::<Entry>() + 1)
            + self.long.iter().map(|t| t.len() + 16).sum::<usize>()
    }

    /// [`TermDict::mem_bytes`]'s share of `live` terms: what the dictionary would hold
    /// without the terms no document has any more (RediSearch's GC drops those from its trie;
    /// here they stay, ids being never reused, so FT.INFO reports the live share).
    pub fn live_bytes(&self, live: usize) -> usize {
        if self.is_empty() {
            return 0;
        }
        (self.mem_bytes() as u128 * live.min(self.len()) as u128 / self.len() as u128) as usize
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

    /// The terms RediSearch's fuzzy trie walk yields for `term` at `dist` (see
    /// [`crate::dictionary::trie_fuzzy_match`]: a few one edit farther, `ta` for `%at%`), in
    /// order, those of `keep`.
    pub fn fuzzy_walk(&self, term: &str, dist: u32, keep: impl FnMut(u32) -> bool) -> Vec<(String, u32)> {
        let mut found = self.fuzzy(term, dist.saturating_add(1), keep, usize::MAX);
        // The empty term (INDEXEMPTY) sits at the trie's root: within reach of a short term.
        let root = term.chars().count() <= dist as usize;
        found.retain(
            |(t, _)| if t.is_empty() { root } else { crate::dictionary::trie_fuzzy_match(t, term, dist) },
        );
        found
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
        // The trie walk's reach (RediSearch 2.10.5: `%at%` finds `ta`, `%for%` not `rof`).
        let mut w = TermDict::default();
        for t in ["ta", "rof", "foo"] {
            w.get_or_insert(t);
        }
        let names = |v: Vec<(String, u32)>| v.into_iter().map(|x| x.0).collect::<Vec<_>>();
        assert_eq!(names(w.fuzzy_walk("at", 1, |_| true)), ["ta"]);
        assert_eq!(names(w.fuzzy_walk("for", 1, |_| true)), ["foo"]);
        w.get_or_insert("");
        assert_eq!(names(w.fuzzy_walk("s", 1, |_| true)), [""]);
        assert_eq!(names(w.fuzzy_walk("", 2, |_| true)), ["", "ta"]);
        let f = d.fuzzy("w1", 1, |_| true, 1000);
        assert!(f.iter().any(|x| x.0 == "w12") && f.iter().any(|x| x.0 == "w1"));
    }

    #[test]
    fn short_and_long_terms_are_told_apart() {
        let mut d = TermDict::default();
        let terms = [
            "",
            "a",
            "a\0",
            "\0",
            "abcdefghijk",
            "abcdefghijkl",
            "abcdefghijklm",
            "abcdefghijk\0",
            "ééééé",
            "éééééé",
            "+stem",
            "a very long term indeed, longer than inline",
        ];
        let mut ids = Vec::new();
        for round in 0..3 {
            for (i, t) in terms.iter().enumerate() {
                let id = d.get_or_insert(t);
                if round == 0 {
                    ids.push(id);
                }
                assert_eq!(id, ids[i], "{t:?}");
            }
        }
        // Enough terms to grow (rehash) the table several times, then every one found again.
        for i in 0..5_000 {
            d.get_or_insert(&format!("{}{i}", "x".repeat(i % 20)));
        }
        for (i, t) in terms.iter().enumerate() {
            assert_eq!(d.get(t), Some(ids[i]), "{t:?}");
        }
        for i in 0..5_000 {
            assert!(d.get(&format!("{}{i}", "x".repeat(i % 20))).is_some());
        }
        assert_eq!(d.get("abcdefghij"), None);
        assert_eq!(d.get("a very long term indeed, longer than inlinE"), None);
        assert_eq!(d.len(), terms.len() + 5_000);
    }

    #[test]
    fn edit_distance_basics() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
    }
}
