//! Snowball stemming by index LANGUAGE. Stems are indexed as an extra term prefixed with
//! [`STEM_PREFIX`] at the same position, as RediSearch does.

use std::hash::BuildHasher;
use std::sync::Mutex;

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
    /// Words stemmed lately and their stems (equal or not): Snowball takes about 0.3 µs for
    /// a short English word, a look-up here a tenth of that, and a query's words are stemmed
    /// at each query. One word per slot, by hash (a word seen again after another took its
    /// slot is stemmed again): at most [`MEMO_SLOTS`] pairs of short strings, whatever
    /// the vocabulary. Queries on worker threads share it: only tried, never waited for.
    /// (`None`: a stemmer made for one query or one document.)
    memo: Option<Mutex<Memo>>,
}

/// A memo's slots: a word and its stem, or nothing yet.
type Memo = Vec<Option<(Box<str>, Box<str>)>>;

/// Slots of a stemmer's memo.
const MEMO_SLOTS: usize = 64;

/// Longer words are not kept in the memo.
const MEMO_WORD_BYTES: usize = 32;

impl Stemmer {
    /// A stemmer for `lang` that leaves words shorter than `min_len` characters alone (an
    /// index's: it keeps a memo).
    pub fn new(lang: Language, min_len: usize) -> Stemmer {
        Stemmer { memo: Some(Mutex::new(Vec::new())), ..Stemmer::for_once(lang, min_len) }
    }

    /// [`Stemmer::new`] without the memo, for one query's or one document's words.
    pub fn for_once(lang: Language, min_len: usize) -> Stemmer {
        Stemmer { inner: lang.algo.map(rust_stemmers::Stemmer::create), min_len, memo: None }
    }

    /// `then` of the Snowball stem of `word` (equal to it or not), from the memo when it is
    /// there.
    fn snowball<R>(&self, s: &rust_stemmers::Stemmer, word: &str, then: impl FnOnce(&str) -> R) -> R {
        let Some(memo) = self.memo.as_ref().filter(|_| word.len() <= MEMO_WORD_BYTES) else {
            return then(&s.stem(word));
        };
        let slot = (foldhash::fast::FixedState::default().hash_one(word) as usize) % MEMO_SLOTS;
        if let Ok(kept) = memo.try_lock() {
            if let Some(Some((w, st))) = kept.get(slot) {
                if &**w == word {
                    return then(st);
                }
            }
        }
        let st = s.stem(word);
        if let Ok(mut kept) = memo.try_lock() {
            if kept.is_empty() {
                kept.resize(MEMO_SLOTS, None);
            }
            if let Some(entry) = kept.get_mut(slot) {
                *entry = Some((word.into(), (*st).into()));
            }
        }
        then(&st)
    }

    /// The stem of `word` when it differs from the word.
    pub fn stem(&self, word: &str) -> Option<String> {
        let s = self.inner.as_ref()?;
        if word.chars().count() < self.min_len {
            return None;
        }
        self.snowball(s, word, |st| (st != word).then(|| st.to_string()))
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
        Some(self.snowball(s, word, str::to_string))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memo_gives_what_snowball_gives() {
        let kept = Stemmer::new(Language::ENGLISH, 4);
        let once = Stemmer::for_once(Language::ENGLISH, 4);
        let ends = ["", "s", "ing", "ed", "ies", "ational", "ness"];
        // Far more words than slots (slots are taken over), short and long (past the memo's
        // length), each asked for several times in different orders.
        let words: Vec<String> = (0..400)
            .map(|i| {
                format!(
                    "{}{}{}",
                    ["run", "cat", "gener", "fly", "bu"][i % 5],
                    "x".repeat(i % 40),
                    ends[i % 7]
                )
            })
            .collect();
        for round in 0..3 {
            for i in 0..words.len() {
                let w = &words[(i * (2 * round + 1)) % words.len()];
                assert_eq!(kept.stem(w), once.stem(w), "{w}");
                assert_eq!(kept.stem_always(w), once.stem_always(w), "{w}");
            }
        }
        assert_eq!(kept.stem_always("running").as_deref(), Some("run"));
        assert_eq!(kept.stem("running").as_deref(), Some("run"));
        assert_eq!(kept.stem("run"), None);
    }

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
