//! HIGHLIGHT and SUMMARIZE: mark query terms in returned field text.

use std::collections::HashSet;

use crate::analysis::tokenizer::{is_separator, tokenize_in, Token};
use crate::analysis::{Language, Stemmer, STEM_PREFIX};
use crate::index::EMPTY_TERM;

/// True when token `t` matches one of the query's dictionary strings.
fn hit(t: &str, terms: &HashSet<String>, stemmer: &Stemmer) -> bool {
    terms.contains(t) || stemmer.stem_always(t).is_some_and(|s| terms.contains(&format!("{STEM_PREFIX}{s}")))
}

/// How a field's text is read for highlighting: the document's language cuts it into
/// tokens (RediSearch highlights at the offsets indexing recorded); a match runs to the
/// next separator, or is exactly its token when the query's language is Chinese
/// (`FRAGMENTIZE_TOKLEN_EXACT`).
#[derive(Debug, Clone, Copy)]
pub struct Reading {
    /// The document's language.
    pub document: Language,
    /// The query's language is Chinese.
    pub exact: bool,
}

impl Reading {
    /// English text, read as RediSearch reads it by default.
    pub const DEFAULT: Reading = Reading { document: Language::ENGLISH, exact: false };

    /// The tokens of `text`, as the document's language cuts it.
    pub(crate) fn tokens(&self, text: &str) -> Vec<Token> {
        tokenize_in(text, self.document)
    }

    /// Where a match on `tok` ends in `text` (asked of matches only: the scan to the next
    /// separator can be long in text without one).
    pub(crate) fn match_end(&self, text: &[u8], tok: &Token) -> usize {
        if self.exact {
            return tok.end;
        }
        (tok.start..text.len()).find(|&i| is_sep_byte(text[i])).unwrap_or(text.len())
    }
}

/// An ASCII separator byte (RediSearch's `istoksep` on one byte).
pub(crate) fn is_sep_byte(b: u8) -> bool {
    b < 128 && is_separator(char::from(b))
}

/// Wraps every matching token of `text` in `open`/`close`.
pub fn highlight(
    text: &str,
    terms: &HashSet<String>,
    stemmer: &Stemmer,
    reading: Reading,
    open: &str,
    close: &str,
) -> String {
    if text.is_empty() && terms.contains(EMPTY_TERM) {
        // An empty value matched by `""` (INDEXEMPTY) highlights as an empty match.
        return format!("{open}{close}");
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut last = 0;
    for tok in reading.tokens(text) {
        if tok.start >= last && hit(&tok.text, terms, stemmer) {
            let end = reading.match_end(text.as_bytes(), &tok);
            out.push_str(text.get(last..tok.start).unwrap_or(""));
            out.push_str(open);
            out.push_str(text.get(tok.start..end).unwrap_or(""));
            out.push_str(close);
            last = end;
        }
    }
    out.push_str(text.get(last..).unwrap_or(""));
    out
}

pub use super::summarize::{summarize, Matcher, Summary};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Language;

    #[test]
    fn highlights_exact_and_stemmed() {
        let st = Stemmer::new(Language::ENGLISH, 4);
        let terms: HashSet<String> = ["john".to_string(), "+run".to_string()].into();
        assert_eq!(
            highlight("\"John Smith\"", &terms, &st, Reading::DEFAULT, "<b>", "</b>"),
            "\"<b>John</b> Smith\""
        );
        assert_eq!(highlight("he runs", &terms, &st, Reading::DEFAULT, "[", "]"), "he [runs]");
    }
}
