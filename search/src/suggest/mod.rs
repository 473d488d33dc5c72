//! Auto-complete dictionaries (FT.SUGADD, FT.SUGGET, FT.SUGDEL, FT.SUGLEN): RediSearch's
//! suggestion trie, reproduced so that results, their order, their scores and the saved form
//! are the reference's.
//!
//! A dictionary ([`Suggestions`]) is the value of one Redis key (type `trietype0` in the glue).
//! Strings are stored as 16-bit runes with their case ([`runes`]); lookups fold case
//! ([`runes::fold`]). Layout: `runes` (UTF-8 ↔ runes, folding), `fold_table` (where folding is
//! not lower-casing), `trie` (nodes, insert, delete, walk), `filter` (the Levenshtein prefix
//! automaton), `search` (scoring and the top-N heap), `args` (command options and errors).

pub mod args;
mod filter;
mod fold_table;
pub mod runes;
mod search;
mod trie;

pub use args::{AddOptions, GetOptions};
pub use search::{Query, Suggestion};

use crate::limits::SUGGEST_MAX_RUNES;
use trie::Node;

/// One suggestion dictionary.
#[derive(Clone, Debug, Default)]
pub struct Suggestions {
    root: Node,
    size: usize,
}

impl Suggestions {
    /// An empty dictionary.
    pub fn new() -> Suggestions {
        Suggestions { root: Node::root(), size: 0 }
    }

    /// The number of entries (FT.SUGLEN).
    pub fn len(&self) -> usize {
        self.size
    }

    /// True without entries.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Adds or updates `s` (RediSearch's `Trie_InsertStringBuffer`): true when it is new.
    /// Nothing happens for a score of 0 (as a `float`), an empty string, or a string of more
    /// than 512 bytes or 255 runes.
    pub fn add(&mut self, s: &[u8], score: f64, incr: bool, payload: Option<&[u8]>) -> bool {
        if s.len() > SUGGEST_MAX_RUNES * 2 {
            return false;
        }
        let r = runes::to_runes(s);
        if r.is_empty() || r.len() >= SUGGEST_MAX_RUNES {
            return false;
        }
        let added = self.root.add(&r, payload, score as f32, incr);
        if added {
            self.size += 1;
        }
        added
    }

    /// Deletes `s` (exact, case kept): true when it was there.
    pub fn delete(&mut self, s: &[u8]) -> bool {
        let r = runes::to_runes(s);
        if r.len() > SUGGEST_MAX_RUNES {
            return false;
        }
        let deleted = self.root.delete(&r, 0, 0);
        if deleted {
            self.size = self.size.saturating_sub(1);
        }
        deleted
    }

    /// The best completions of `prefix` (FT.SUGGET), best first; None for a prefix of too
    /// many characters ("Invalid query").
    pub fn get(&self, prefix: &[u8], query: Query) -> Option<Vec<Suggestion>> {
        search::search(&self.root, prefix, query)
    }

    /// Every entry in the trie's order (the order RediSearch saves them in): string as written
    /// back, stored score, payload.
    pub fn for_each(&self, mut f: impl FnMut(&[u8], f32, Option<&[u8]>)) {
        self.root.walk(None, false, 0, |r, score, payload, _| {
            f(&runes::to_bytes(r), score, payload);
            f32::NEG_INFINITY
        });
    }

    /// Bytes held, for MEMORY USAGE.
    pub fn mem_usage(&self) -> usize {
        std::mem::size_of::<Suggestions>() + self.root.mem_usage()
    }
}
