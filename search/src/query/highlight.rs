//! HIGHLIGHT and SUMMARIZE: mark query terms in returned field text.

use std::collections::HashSet;

use crate::analysis::tokenizer::{is_separator, tokenize};
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

/// Summary options.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Fragments.
    pub frags: usize,
    /// Tokens per fragment.
    pub len: usize,
    /// Separator appended after each fragment.
    pub separator: String,
}

/// Picks up to `frags` fragments of `len` tokens around matches, joined by the separator.
/// Without matches, the first fragment is returned.
pub fn summarize(text: &str, terms: &HashSet<String>, stemmer: &Stemmer, s: &Summary) -> String {
    let toks = tokenize(text);
    if text.is_empty() && terms.contains(EMPTY_TERM) {
        // An empty value matched by `""`: one empty fragment.
        return s.separator.clone();
    }
    if toks.is_empty() {
        return text.to_string();
    }
    let len = s.len.max(1);
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if windows.len() >= s.frags {
            break;
        }
        if windows.last().is_some_and(|&(_, e)| i < e) {
            continue;
        }
        if hit(&t.text, terms, stemmer) {
            let start = i.saturating_sub(len / 2);
            windows.push((start, (start + len).min(toks.len())));
        }
    }
    if windows.is_empty() {
        windows.push((0, len.min(toks.len())));
    }
    let mut out = String::new();
    for (a, b) in windows {
        let (Some(first), Some(last)) = (toks.get(a), toks.get(b.saturating_sub(1))) else { continue };
        out.push_str(text.get(first.start..last.end).unwrap_or(""));
        out.push_str(&s.separator);
    }
    out
}

/// SUMMARIZE on an index without byte offsets (NOHL, NOOFFSETS), as RediSearch's
/// `trimField`: the head of the text (about six bytes per word of every fragment), runs of
/// whitespace collapsed to one space, cut back to the last separator, trailing spaces removed.
pub fn trim_field(text: &str, s: &Summary) -> String {
    const EST_WORD_SIZE: usize = 6;
    let head = EST_WORD_SIZE.saturating_mul(s.len).saturating_mul(s.frags).saturating_add(EST_WORD_SIZE);
    let bytes = text.as_bytes();
    let head = bytes.get(..head.min(bytes.len())).unwrap_or(bytes);
    let mut out: Vec<u8> = Vec::with_capacity(head.len());
    let mut last_space = false;
    for &b in head {
        if b.is_ascii_whitespace() {
            if !last_space {
                out.push(b' ');
            }
            last_space = true;
        } else {
            out.push(b);
            last_space = false;
        }
    }
    while out.len() > 1 && !out.last().is_some_and(|&b| is_separator(char::from(b))) {
        out.pop();
    }
    while out.last().is_some_and(|b| b.is_ascii_whitespace()) {
        out.pop();
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Language;

    #[test]
    fn trims_like_redisearch_without_offsets() {
        let s = Summary { frags: 1, len: 2, separator: "... ".into() };
        // Head of 6*2*1+6 = 18 bytes: "one  two three fou" -> "one two three fou" -> cut
        // back to the last separator -> "one two three".
        assert_eq!(trim_field("one  two three four five", &s), "one two three");
        assert_eq!(trim_field("short", &s), "s");
        assert_eq!(trim_field("", &s), "");
    }

    #[test]
    fn highlights_exact_and_stemmed() {
        let st = Stemmer::new(Language::ENGLISH, 4);
        let terms: HashSet<String> = ["john".to_string(), "+run".to_string()].into();
        assert_eq!(highlight("\"John Smith\"", &terms, &st, "<b>", "</b>"), "\"<b>John</b> Smith\"");
        assert_eq!(highlight("he runs", &terms, &st, "[", "]"), "he [runs]");
    }
}
