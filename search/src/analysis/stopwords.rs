//! Stopword lists: RediSearch's 33 English defaults or a per-index list.

use std::collections::HashSet;

/// RediSearch's default stopwords.
pub const DEFAULT_STOPWORDS: [&str; 33] = [
    "a", "is", "the", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "it",
    "no", "not", "of", "on", "or", "such", "that", "their", "then", "there", "these", "they", "this", "to",
    "was", "will", "with",
];

/// A set of stopwords (lowercase).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopwords {
    words: HashSet<String, foldhash::fast::RandomState>,
    /// True when the list is the default one (FT.INFO hides default lists).
    pub is_default: bool,
}

impl Default for Stopwords {
    fn default() -> Self {
        Stopwords { words: DEFAULT_STOPWORDS.iter().map(|s| s.to_string()).collect(), is_default: true }
    }
}

impl Stopwords {
    /// A custom list (`STOPWORDS n w…`; `n = 0` gives an empty list).
    pub fn custom<I: IntoIterator<Item = String>>(words: I) -> Stopwords {
        Stopwords { words: words.into_iter().map(|w| w.to_lowercase()).collect(), is_default: false }
    }

    /// True when `word` (already lowercase) is a stopword.
    pub fn contains(&self, word: &str) -> bool {
        self.words.contains(word)
    }

    /// The words, sorted.
    pub fn list(&self) -> Vec<String> {
        let mut v: Vec<String> = self.words.iter().cloned().collect();
        v.sort();
        v
    }
}
