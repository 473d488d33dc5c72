//! Stopword lists: RediSearch's 33 English defaults or a per-index list.

use std::collections::HashSet;

/// RediSearch's default stopwords.
pub const DEFAULT_STOPWORDS: [&str; 33] = [
    "a", "is", "the", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "it",
    "no", "not", "of", "on", "or", "such", "that", "their", "then", "there", "these", "they", "this", "to",
    "was", "will", "with",
];

/// The bit of `w`'s length in [`Stopwords`]'s `lens`.
fn len_bit(w: &str) -> u32 {
    w.len().min(63) as u32
}

/// A set of stopwords (lowercase).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopwords {
    words: HashSet<String, foldhash::fast::RandomState>,
    /// Bit `n` set when a word of `n` bytes is in the list (bit 63: of 63 or more): most
    /// words of a text are longer than every stopword and are told apart without hashing.
    lens: u64,
    /// True when the list is the default one (FT.INFO hides default lists).
    pub is_default: bool,
}

impl Default for Stopwords {
    fn default() -> Self {
        Stopwords::of(DEFAULT_STOPWORDS.iter().map(|s| s.to_string()).collect(), true)
    }
}

impl Stopwords {
    /// A custom list (`STOPWORDS n w…`; `n = 0` gives an empty list).
    pub fn custom<I: IntoIterator<Item = String>>(words: I) -> Stopwords {
        Stopwords::of(words.into_iter().map(|w| w.to_ascii_lowercase()).collect(), false)
    }

    fn of(words: HashSet<String, foldhash::fast::RandomState>, is_default: bool) -> Stopwords {
        let lens = words.iter().fold(0u64, |m, w| m | 1 << len_bit(w));
        Stopwords { words, lens, is_default }
    }

    /// True when `word` (already lowercase) is a stopword.
    pub fn contains(&self, word: &str) -> bool {
        self.lens >> len_bit(word) & 1 != 0 && self.words.contains(word)
    }

    /// The words, sorted.
    pub fn list(&self) -> Vec<String> {
        let mut v: Vec<String> = self.words.iter().cloned().collect();
        // In the order of RediSearch's trie map (FT.INFO's stopwords_list).
        v.sort_by(|a, b| super::fold::c_char_order(a, b));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_hold_their_words_of_every_length() {
        let d = Stopwords::default();
        for w in DEFAULT_STOPWORDS {
            assert!(d.contains(w), "{w}");
        }
        for w in [
            "",
            "b",
            "thee",
            "theirs",
            "another",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ] {
            assert!(!d.contains(w), "{w}");
        }
        let long = "x".repeat(70);
        let c = Stopwords::custom([long.clone(), "Q".to_string(), "seventeen".to_string()]);
        assert!(c.contains(&long) && c.contains("q") && c.contains("seventeen"));
        assert!(!c.contains(&"x".repeat(69)) && !c.contains(&"y".repeat(70)) && !c.contains("the"));
        assert!(!Stopwords::custom(Vec::new()).contains("a"));
    }
}
