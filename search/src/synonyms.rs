//! An index's synonym groups (FT.SYNUPDATE / FT.SYNDUMP).
//!
//! As in RediSearch, a document word that belongs to synonym groups is indexed a second time,
//! at the same position, as the term `~<group id>` for each of its groups; a query word (unless
//! VERBATIM) also looks up `~<group id>` for each of its groups. So a query word matches every
//! document containing any word of its groups, and the group terms count like any other term
//! in scoring. Adding words to a group re-indexes the index's documents (unless
//! SKIPINITIALSCAN), so searches right after FT.SYNUPDATE see the new synonyms.

use std::collections::BTreeMap;

use crate::codec::{put_bytes, put_u32};

/// Prefix of the index term that stands for a synonym group.
pub const SYNONYM_PREFIX: char = '~';

/// Word → the ids of its groups, in the order the word joined them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Synonyms {
    terms: BTreeMap<String, Vec<String>>,
}

/// How RediSearch normalises a synonym word or group id: a C string (cut at the first NUL);
/// words are lower-cased in ASCII only.
fn c_string(raw: &[u8]) -> String {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    String::from_utf8_lossy(raw.get(..end).unwrap_or(raw)).into_owned()
}

impl Synonyms {
    /// FT.SYNUPDATE: adds `words` (lower-cased) to group `group`.
    pub fn update(&mut self, group: &[u8], words: &[&[u8]]) {
        let group = c_string(group);
        for w in words {
            let word = c_string(w).to_ascii_lowercase();
            let groups = self.terms.entry(word).or_default();
            if !groups.contains(&group) {
                groups.push(group.clone());
            }
        }
    }

    /// The group ids of `word` (already normalised like an indexed token).
    pub fn groups_of(&self, word: &str) -> &[String] {
        self.terms.get(word).map(|g| g.as_slice()).unwrap_or(&[])
    }

    /// The index terms (`~<group>`) standing for `word`'s groups.
    pub fn group_terms(&self, word: &str) -> impl Iterator<Item = String> + '_ {
        self.groups_of(word).iter().map(|g| format!("{SYNONYM_PREFIX}{g}"))
    }

    /// Every word sharing a group with `word` (`word` included when it has groups).
    pub fn same_group<'s>(&'s self, word: &str) -> impl Iterator<Item = &'s str> + 's {
        let groups: Vec<&String> = self.groups_of(word).iter().collect();
        self.terms.iter().filter(move |(_, g)| g.iter().any(|x| groups.contains(&x))).map(|(w, _)| w.as_str())
    }

    /// True without synonyms.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Every `(word, groups)` pair, words in order (FT.SYNDUMP; RediSearch's order is its
    /// hash table's).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.terms.iter().map(|(w, g)| (w.as_str(), g.as_slice()))
    }

    /// Appends the persisted form to `out`: word count, then each word and its group ids.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        put_u32(out, self.terms.len() as u32);
        for (w, groups) in &self.terms {
            put_bytes(out, w.as_bytes());
            put_u32(out, groups.len() as u32);
            for g in groups {
                put_bytes(out, g.as_bytes());
            }
        }
    }

    /// Reads what [`Synonyms::write`] wrote.
    pub(crate) fn read(r: &mut crate::codec::Reader<'_>) -> Result<Synonyms, String> {
        let mut out = Synonyms::default();
        for _ in 0..r.u32()? {
            let word = String::from_utf8_lossy(r.bytes()?).into_owned();
            let mut groups = Vec::new();
            for _ in 0..r.u32()? {
                groups.push(String::from_utf8_lossy(r.bytes()?).into_owned());
            }
            out.terms.insert(word, groups);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lowercased_and_groups_kept_in_order_once() {
        let mut s = Synonyms::default();
        s.update(b"g1", &[b"Hello", b"World"]);
        s.update(b"g2", &[b"hello", b"yeah"]);
        s.update(b"g1", &[b"HELLO"]);
        assert_eq!(s.groups_of("hello"), ["g1", "g2"]);
        assert_eq!(s.group_terms("world").collect::<Vec<_>>(), ["~g1"]);
        assert!(s.groups_of("Hello").is_empty());
        let mut bytes = Vec::new();
        s.write(&mut bytes);
        let back = Synonyms::read(&mut crate::codec::Reader::new(&bytes)).unwrap();
        assert_eq!(back, s);
    }
}
