//! Snowball stemming by index LANGUAGE. Stems are indexed as an extra term prefixed with
//! [`STEM_PREFIX`] at the same position, as RediSearch does.

use rust_stemmers::Algorithm;

/// Prefix of stem terms in the dictionary (never produced by the tokenizer: `+` separates).
pub const STEM_PREFIX: char = '+';

/// A language the stemmer knows (plus ones without stemming).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Language {
    name: &'static str,
    algo: Option<Algorithm>,
}

const LANGUAGES: &[(&str, Option<Algorithm>)] = &[
    ("arabic", Some(Algorithm::Arabic)),
    ("armenian", None),
    ("basque", None),
    ("catalan", None),
    ("chinese", None),
    ("danish", Some(Algorithm::Danish)),
    ("dutch", Some(Algorithm::Dutch)),
    ("english", Some(Algorithm::English)),
    ("finnish", Some(Algorithm::Finnish)),
    ("french", Some(Algorithm::French)),
    ("german", Some(Algorithm::German)),
    ("greek", Some(Algorithm::Greek)),
    ("hindi", None),
    ("hungarian", Some(Algorithm::Hungarian)),
    ("indonesian", None),
    ("irish", None),
    ("italian", Some(Algorithm::Italian)),
    ("lithuanian", None),
    ("nepali", None),
    ("norwegian", Some(Algorithm::Norwegian)),
    ("portuguese", Some(Algorithm::Portuguese)),
    ("romanian", Some(Algorithm::Romanian)),
    ("russian", Some(Algorithm::Russian)),
    ("serbian", None),
    ("spanish", Some(Algorithm::Spanish)),
    ("swedish", Some(Algorithm::Swedish)),
    ("tamil", Some(Algorithm::Tamil)),
    ("turkish", Some(Algorithm::Turkish)),
    ("yiddish", None),
];

impl Language {
    /// English, the default.
    pub const ENGLISH: Language = Language { name: "english", algo: Some(Algorithm::English) };

    /// Looks a language up by name (case-insensitive).
    pub fn parse(name: &str) -> Option<Language> {
        let lower = name.to_ascii_lowercase();
        LANGUAGES.iter().find(|(n, _)| *n == lower).map(|&(name, algo)| Language { name, algo })
    }

    /// Chinese, whose text is cut into words by a dictionary rather than on separators.
    pub fn is_chinese(&self) -> bool {
        self.name == "chinese"
    }

    /// The language's name as FT.INFO prints it.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// A stemmer for one language (a no-op for languages without one).
pub struct Stemmer {
    inner: Option<rust_stemmers::Stemmer>,
    min_len: usize,
}

impl Stemmer {
    /// A stemmer for `lang` that leaves words shorter than `min_len` characters alone.
    pub fn new(lang: Language, min_len: usize) -> Stemmer {
        Stemmer { inner: lang.algo.map(rust_stemmers::Stemmer::create), min_len }
    }

    /// The stem of `word` when it differs from the word.
    pub fn stem(&self, word: &str) -> Option<String> {
        let s = self.inner.as_ref()?;
        if word.chars().count() < self.min_len {
            return None;
        }
        let st = s.stem(word);
        (st != word).then(|| st.into_owned())
    }

    /// The minimum word length this stemmer stems.
    pub fn min_len(&self) -> usize {
        self.min_len
    }

    /// The stem of `word`, even when equal to the word (query-time expansion: RediSearch's
    /// query expander stems words of any length, `dog` included, so it finds the `+dog` that
    /// `dogs` left in the index).
    pub fn stem_always(&self, word: &str) -> Option<String> {
        let s = self.inner.as_ref()?;
        Some(s.stem(word).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_english_and_respects_min_len() {
        let s = Stemmer::new(Language::ENGLISH, 4);
        assert_eq!(s.stem("running").as_deref(), Some("run"));
        assert_eq!(s.stem("run"), None);
        assert_eq!(s.stem("cats"), Some("cat".into()));
        assert_eq!(s.stem("bus"), None);
        assert!(Language::parse("French").is_some());
        assert!(Language::parse("klingon").is_none());
    }
}
