//! PHONETIC text fields: Double Metaphone as RediSearch 2.10 applies it.
//!
//! A word of a PHONETIC field (`dm:en`, `dm:fr`, `dm:pt`, `dm:es`: one algorithm for all four)
//! of at least `MIN_PHONETIC_TERM_LEN` bytes is indexed a second time, at the same position, as
//! its primary code behind [`PHONETIC_PREFIX`] (`morfix` → `<MRFK`); a query word searched in
//! such a field expands to its own primary code as well, so `morphix` finds `morfix`. Words
//! with no code (digits only) get no phonetic term.
//!
//! The codes come from the `rphonetic` crate (Apache-2.0; a port of Apache Commons Codec's
//! `DoubleMetaphone`), not from RediSearch's C (Artistic licence). Measured against RediSearch
//! 2.10.5's `FT.DEBUG DUMP_PHONETIC_HASH` on 1,568 English words and names, the two agree on
//! every primary and secondary code once two differences of form are bridged here: the crate
//! marks a missing secondary `J` with a space, and it works on characters where RediSearch's C
//! works on bytes, skipping those it does not know: each non-ASCII character is given to the
//! crate as that many bytes of a character it skips alike (`-`).

use std::sync::atomic::{AtomicUsize, Ordering};

use rphonetic::DoubleMetaphone;

/// The mark of a phonetic term in the term dictionary (RediSearch's `PHONETIC_PREFIX`).
pub const PHONETIC_PREFIX: char = '<';

/// `MIN_PHONETIC_TERM_LEN`: shorter words (in bytes, after case folding) are not indexed
/// phonetically. Server-wide, as RediSearch's `RSGlobalConfig`.
static MIN_TERM_LEN: AtomicUsize = AtomicUsize::new(3);

/// Sets `MIN_PHONETIC_TERM_LEN` (FT.CONFIG SET, module arguments).
pub fn set_min_term_len(n: usize) {
    MIN_TERM_LEN.store(n, Ordering::Relaxed);
}

/// The current `MIN_PHONETIC_TERM_LEN`.
pub fn min_term_len() -> usize {
    MIN_TERM_LEN.load(Ordering::Relaxed)
}

/// The matchers FT.CREATE accepts after PHONETIC.
pub fn valid_matcher(m: &str) -> bool {
    ["dm:en", "dm:fr", "dm:pt", "dm:es"].contains(&m)
}

/// The primary and secondary codes of `word`, each behind [`PHONETIC_PREFIX`]; `None` when
/// the word has no code.
pub fn codes(word: &str) -> Option<(String, String)> {
    let ascii: String = word
        .chars()
        .flat_map(|c| std::iter::repeat_n(if c.is_ascii() { c } else { '-' }, c.len_utf8()))
        .collect();
    // The crate slices its input by byte offsets: ASCII only, so it cannot panic on a char
    // boundary; any other panic of it is caught (no code) rather than taking Redis down.
    let r = std::panic::catch_unwind(|| DoubleMetaphone::default().double_metaphone(&ascii)).ok()?;
    let mark = |code: String| -> String {
        let mut s = String::with_capacity(code.len() + 1);
        s.push(PHONETIC_PREFIX);
        s.extend(code.chars().filter(|c| *c != ' '));
        s
    };
    let (primary, secondary) = (mark(r.primary()), mark(r.alternate()));
    (primary.len() > 1).then_some((primary, secondary))
}

/// The phonetic term indexed for `word` (already case-folded) of a PHONETIC field, if any.
pub fn index_term(word: &str) -> Option<String> {
    if word.len() < min_term_len() {
        return None;
    }
    codes(word).map(|(p, _)| p)
}

/// The phonetic term a query word expands to (no length limit on this side, as in
/// RediSearch's expander).
pub fn query_term(word: &str) -> Option<String> {
    codes(word).map(|(p, _)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Codes measured with RediSearch 2.10.5's `FT.DEBUG DUMP_PHONETIC_HASH`.
    const MEASURED: &[(&str, &str, &str)] = &[
        ("morfix", "<MRFK", "<MRFK"),
        ("morphix", "<MRFK", "<MRFK"),
        ("jon", "<JN", "<AN"),
        ("john", "<JN", "<AN"),
        ("obj", "<APJ", "<AP"),
        ("packaging", "<PKJN", "<PKKN"),
        ("longer", "<LNKR", "<LNJR"),
        ("Gorbachev", "<KRPX", "<KRPK"),
        ("Gerald", "<KRLT", "<JRLT"),
        ("Tsjechow", "<TSX", "<TSKF"),
        ("café", "<KF", "<KF"),
        ("Çelik", "<LK", "<LK"),
        ("jalapeño", "<JLP", "<ALP"),
        ("über", "<PR", "<PR"),
        ("straße", "<STR", "<STR"),
        ("résumé", "<RSM", "<RSM"),
        ("x1y2", "<S", "<S"),
        ("hello-world", "<HLRL", "<HLRL"),
        ("o'neil", "<ANL", "<ANL"),
        ("sch", "<X", "<S"),
        ("Wh", "<A", "<A"),
        ("MacHugh", "<MK", "<MK"),
    ];

    #[test]
    fn codes_are_redisearchs() {
        for (w, p, s) in MEASURED {
            assert_eq!(codes(w), Some((p.to_string(), s.to_string())), "{w}");
        }
    }

    #[test]
    fn digits_have_no_code_and_short_words_no_index_term() {
        assert_eq!(codes("2015"), None);
        assert_eq!(index_term("04"), None);
        assert_eq!(index_term("jo"), None);
        assert_eq!(query_term("jo"), Some("<J".into()));
        assert_eq!(index_term("jon"), Some("<JN".into()));
    }

    #[test]
    fn any_text_gets_an_answer() {
        for w in ["", "\u{0}", "ÇÇÇÇ", "日本語", "a\u{301}", &"x".repeat(100_000), "🙂cz🙂"] {
            let _ = codes(w);
        }
    }
}
