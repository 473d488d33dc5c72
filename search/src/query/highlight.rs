//! HIGHLIGHT and SUMMARIZE: mark query terms in returned field text.

use std::collections::HashSet;

use crate::analysis::tokenizer::tokenize;
use crate::analysis::{Stemmer, STEM_PREFIX};
use crate::index::EMPTY_TERM;

/// True when token `t` matches one of the query's dictionary strings.
fn hit(t: &str, terms: &HashSet<String>, stemmer: &Stemmer) -> bool {
    terms.contains(t) || stemmer.stem_always(t).is_some_and(|s| terms.contains(&format!("{STEM_PREFIX}{s}")))
}

/// Wraps every matching token of `text` in `open`/`close`.
pub fn highlight(text: &str, terms: &HashSet<String>, stemmer: &Stemmer, open: &str, close: &str) -> String {
    if text.is_empty() && terms.contains(EMPTY_TERM) {
        // An empty value matched by `""` (INDEXEMPTY) highlights as an empty match.
        return format!("{open}{close}");
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut last = 0;
    for tok in tokenize(text) {
        if hit(&tok.text, terms, stemmer) {
            out.push_str(text.get(last..tok.start).unwrap_or(""));
            out.push_str(open);
            out.push_str(text.get(tok.start..tok.end).unwrap_or(""));
            out.push_str(close);
            last = tok.end;
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
        assert_eq!(highlight("\"John Smith\"", &terms, &st, "<b>", "</b>"), "\"<b>John</b> Smith\"");
        assert_eq!(highlight("he runs", &terms, &st, "[", "]"), "he [runs]");
    }
}
