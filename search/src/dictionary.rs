//! Spell-check dictionaries (FT.DICTADD / FT.DICTDEL / FT.DICTDUMP): named sets of terms,
//! global to the server (not per database), used by FT.SPELLCHECK's `TERMS INCLUDE` (more
//! suggestions) and `TERMS EXCLUDE` (words never reported). The glue keeps one
//! [`Dictionaries`] in the server [`Config`](crate::Config) and persists it with
//! [`Dictionaries::to_bytes`] / [`Dictionaries::from_bytes`].
//!
//! Like RediSearch's tries, terms are stored as given (no case folding), listed in code point
//! order, and a dictionary once named by FT.DICTADD or FT.DICTDEL exists until the server is
//! flushed, even when empty.

use std::collections::{BTreeMap, BTreeSet};

use crate::codec::{put_bytes, put_u32};
use crate::limits::{DICT_TERM_MAX_BYTES, DICT_TERM_MAX_CHARS};

/// Every dictionary of the server, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dictionaries {
    dicts: BTreeMap<String, BTreeSet<String>>,
}

const MAGIC: &[u8] = b"FOLIODC1";

/// A dictionary name as RediSearch sees it: a C string, so it ends at the first NUL.
pub fn dict_name(raw: &[u8]) -> String {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    String::from_utf8_lossy(raw.get(..end).unwrap_or(raw)).into_owned()
}

/// A term RediSearch's trie accepts: not empty, at most [`DICT_TERM_MAX_BYTES`] bytes and
/// fewer than [`DICT_TERM_MAX_CHARS`] + 1 characters.
fn storable(term: &str) -> bool {
    !term.is_empty() && term.len() <= DICT_TERM_MAX_BYTES && term.chars().count() <= DICT_TERM_MAX_CHARS
}

/// Case folding as RediSearch's tries apply it to every character they compare.
pub fn fold(s: &str) -> String {
    s.chars().map(|c| c.to_lowercase().next().unwrap_or(c)).collect()
}

/// Whether RediSearch's fuzzy trie walk (a Levenshtein automaton stepped over the folded
/// characters of each stored word) yields `word` for `query` at distance `dist`.
///
/// The walk goes down a word while some prefix of the query is within `dist` of the word's
/// prefix, and yields the word when, at its last character, the automaton either accepts
/// the whole word or accepted it without that last character: so besides the words within
/// `dist` it also yields words one character longer than an accepted one, as long as they
/// can still be aligned (`yeah` for `the` at distance 3).
pub fn trie_fuzzy_match(word: &str, query: &str, dist: u32) -> bool {
    let q: Vec<char> = fold(query).chars().collect();
    let d = dist as usize;
    // row[i] = distance between the word's prefix read so far and q[..i].
    let mut row: Vec<usize> = (0..=q.len()).collect();
    let mut prev_match = false;
    let mut any = false;
    for c in fold(word).chars() {
        any = true;
        prev_match = row.last().is_some_and(|&v| v <= d);
        let mut next = Vec::with_capacity(row.len());
        next.push(row.first().map_or(usize::MAX, |v| v.saturating_add(1)));
        for (i, qc) in q.iter().enumerate() {
            let sub = row.get(i).map_or(usize::MAX, |v| v.saturating_add(usize::from(*qc != c)));
            let del = row.get(i + 1).map_or(usize::MAX, |v| v.saturating_add(1));
            let ins = next.get(i).map_or(usize::MAX, |v| v.saturating_add(1));
            next.push(sub.min(del).min(ins));
        }
        row = next;
        if row.iter().all(|&v| v > d) {
            return false; // the automaton is stuck: the walk stops here
        }
    }
    any && (prev_match || row.last().is_some_and(|&v| v <= d))
}

impl Dictionaries {
    /// No dictionaries.
    pub fn new() -> Dictionaries {
        Dictionaries::default()
    }

    /// FT.DICTADD: adds `terms` to `name` (creating it); returns how many were new.
    pub fn add(&mut self, name: &str, terms: &[&[u8]]) -> usize {
        let dict = self.dicts.entry(name.to_string()).or_default();
        terms
            .iter()
            .map(|t| String::from_utf8_lossy(t).into_owned())
            .filter(|t| storable(t))
            .filter(|t| dict.insert(t.clone()))
            .count()
    }

    /// FT.DICTDEL: removes `terms` from `name` (creating it empty when missing, as
    /// RediSearch does); returns how many were there.
    pub fn del(&mut self, name: &str, terms: &[&[u8]]) -> usize {
        let dict = self.dicts.entry(name.to_string()).or_default();
        terms.iter().filter(|t| dict.remove(String::from_utf8_lossy(t).as_ref())).count()
    }

    /// The terms of `name` in order, `None` when no such dictionary exists.
    pub fn dump(&self, name: &str) -> Option<impl Iterator<Item = &str>> {
        self.dicts.get(name).map(|d| d.iter().map(|s| s.as_str()))
    }

    /// True when dictionary `name` exists (even empty).
    pub fn exists(&self, name: &str) -> bool {
        self.dicts.contains_key(name)
    }

    /// True when dictionary `name` holds `term` up to case (RediSearch's trie lookups fold
    /// case: an EXCLUDE dictionary with `Foo` excludes `foo`).
    pub fn contains(&self, name: &str, term: &str) -> bool {
        let folded = fold(term);
        self.dicts.get(name).is_some_and(|d| d.contains(term) || d.iter().any(|t| fold(t) == folded))
    }

    /// Terms of `name` that RediSearch's fuzzy trie walk yields for `term` at `dist` (see
    /// [`trie_fuzzy_match`]), in order.
    pub fn fuzzy(&self, name: &str, term: &str, dist: u32) -> Vec<&str> {
        let Some(d) = self.dicts.get(name) else { return Vec::new() };
        let n = term.chars().count();
        let (lo, hi) = (n.saturating_sub(dist as usize), n.saturating_add(dist as usize + 1));
        d.iter()
            .filter(|t| {
                let k = t.chars().count();
                k >= lo && k <= hi && trie_fuzzy_match(t, term, dist)
            })
            .map(|s| s.as_str())
            .collect()
    }

    /// Number of dictionaries.
    pub fn len(&self) -> usize {
        self.dicts.len()
    }

    /// True without dictionaries.
    pub fn is_empty(&self) -> bool {
        self.dicts.is_empty()
    }

    /// Every dictionary and its terms, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, impl Iterator<Item = &str>)> {
        self.dicts.iter().map(|(name, terms)| (name.as_str(), terms.iter().map(|t| t.as_str())))
    }

    /// Drops every dictionary (FLUSHALL).
    pub fn clear(&mut self) {
        self.dicts.clear();
    }

    /// Serializes every dictionary (for RDB aux data).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        put_u32(&mut out, self.dicts.len() as u32);
        for (name, terms) in &self.dicts {
            put_bytes(&mut out, name.as_bytes());
            put_u32(&mut out, terms.len() as u32);
            for t in terms {
                put_bytes(&mut out, t.as_bytes());
            }
        }
        out
    }

    /// Restores what [`Dictionaries::to_bytes`] wrote.
    pub fn from_bytes(bytes: &[u8]) -> Result<Dictionaries, String> {
        let mut r = crate::codec::Reader::new(bytes);
        if r.take(MAGIC.len())? != MAGIC {
            return Err("bad dictionaries header".into());
        }
        let mut out = Dictionaries::new();
        for _ in 0..r.u32()? {
            let name = String::from_utf8_lossy(r.bytes()?).into_owned();
            let mut terms = BTreeSet::new();
            for _ in 0..r.u32()? {
                terms.insert(String::from_utf8_lossy(r.bytes()?).into_owned());
            }
            out.dicts.insert(name, terms);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trie_walk_accepts_one_character_past_a_match() {
        // From RediSearch 2.10: `the` at distance 3 suggests `yeah` (true distance 4), not
        // `hello`; `ehllo` at 1 suggests nothing; `hellq` at 1 suggests `HELLX` and `Hellp`.
        assert!(trie_fuzzy_match("yeah", "the", 3));
        assert!(!trie_fuzzy_match("hello", "the", 3));
        assert!(!trie_fuzzy_match("hello", "ehllo", 1));
        assert!(trie_fuzzy_match("HELLX", "hellq", 1) && trie_fuzzy_match("Hellp", "hellq", 1));
        assert!(!trie_fuzzy_match("help", "hellq", 1));
        assert!(!trie_fuzzy_match("", "a", 1));
    }

    #[test]
    fn add_del_dump_and_round_trip() {
        let mut d = Dictionaries::new();
        assert_eq!(d.add("d", &[b"foo", b"bar", b"foo", b"Foo", b""]), 3);
        assert_eq!(d.dump("d").map(|i| i.collect::<Vec<_>>()), Some(vec!["Foo", "bar", "foo"]));
        assert_eq!(d.del("d", &[b"foo", b"zzz"]), 1);
        assert_eq!(d.del("missing", &[b"x"]), 0);
        assert!(d.exists("missing") && d.dump("missing").is_some_and(|mut i| i.next().is_none()));
        assert!(d.dump("nope").is_none());
        let long = "x".repeat(DICT_TERM_MAX_CHARS + 1);
        assert_eq!(d.add("d", &[long.as_bytes()]), 0);
        let back = Dictionaries::from_bytes(&d.to_bytes()).unwrap();
        assert_eq!(back, d);
        assert!(Dictionaries::from_bytes(&d.to_bytes()[..20]).is_err());
        assert_eq!(d.fuzzy("d", "baz", 1), vec!["bar"]);
        assert!(d.contains("d", "foo") && d.contains("d", "FOO"));
        assert_eq!(dict_name(b"a\0b"), "a");
    }
}
