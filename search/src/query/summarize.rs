//! SUMMARIZE as RediSearch 2.10 makes its fragments (`fragmenter.c`, `highlight_processor.c`):
//!
//! 1. The field's tokens are read in order (stopwords take no position). A token matching a
//!    query term opens a fragment, or extends the last one when it lies at most 8 positions
//!    after that fragment's last match. A fragment runs from its first match to the end of
//!    its last (a match ends at the first separator); its score adds each distinct term's
//!    IDF once.
//! 2. The FRAGS best fragments by score (ties: the earlier) are taken, in text order.
//! 3. Each gets context: LEN words less the non-matching tokens it holds, halved, at 6 bytes
//!    a word, on each side, cut to whole words and kept off its neighbours.
//! 4. Matches are wrapped in HIGHLIGHT's tags (when asked for), runs of whitespace become
//!    one space, and each fragment is followed by the separator.
//!
//! A field without a match is trimmed to its head instead ([`trim_field`]).

use std::collections::HashSet;

use super::highlight::{is_sep_byte, Reading};
use crate::analysis::{Stemmer, Stopwords, STEM_PREFIX};
use crate::index::EMPTY_TERM;

/// Positions between a fragment's last match and a match it still takes.
const MAX_DISTANCE: u32 = 8;

/// RediSearch's estimate of a word's size in bytes, for context and trimming.
const EST_WORD_SIZE: usize = 6;

/// Summary options.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Fragments.
    pub frags: usize,
    /// Context words per fragment.
    pub len: usize,
    /// Separator appended after each fragment.
    pub separator: String,
}

/// What makes a token a match, and what a match is worth to its fragment.
pub struct Matcher<'a> {
    /// The query's dictionary strings (words, `+stem` forms).
    pub terms: &'a HashSet<String>,
    /// The field's stemmer.
    pub stemmer: &'a Stemmer,
    /// The index's stopwords (they take no position).
    pub stopwords: &'a Stopwords,
    /// How the text is cut into tokens and matches.
    pub reading: Reading,
    /// A matched term's score (its IDF).
    pub score: &'a dyn Fn(&str) -> f64,
}

impl Matcher<'_> {
    /// The query term token `t` matches: itself, or its stem.
    fn matched(&self, t: &str) -> Option<String> {
        if self.terms.contains(t) {
            return Some(t.to_string());
        }
        let stem = format!("{STEM_PREFIX}{}", self.stemmer.stem_always(t)?);
        self.terms.contains(&stem).then_some(stem)
    }
}

/// One fragment: byte ranges in the text.
struct Fragment {
    start: usize,
    end: usize,
    last_pos: u32,
    score: f64,
    matches: u32,
    tokens: u32,
    terms: Vec<String>,
    locs: Vec<(usize, usize)>,
}

/// The fragments of `text`, in text order.
fn fragments(text: &str, m: &Matcher) -> Vec<Fragment> {
    let mut frags: Vec<Fragment> = Vec::new();
    let (mut pos, mut since) = (0u32, 0u32);
    let bytes = text.as_bytes();
    for tok in m.reading.tokens(text) {
        if m.stopwords.contains(&tok.text) {
            continue;
        }
        pos += 1;
        let Some(term) = m.matched(&tok.text) else {
            since += 1;
            continue;
        };
        let end = m.reading.match_end(bytes, &tok);
        if frags.last().is_none_or(|f| pos - f.last_pos > MAX_DISTANCE) {
            since = 0;
            frags.push(Fragment {
                start: tok.start,
                end,
                last_pos: pos,
                score: 0.0,
                matches: 0,
                tokens: 0,
                terms: Vec::new(),
                locs: Vec::new(),
            });
        }
        let Some(f) = frags.last_mut() else { continue };
        if !f.terms.contains(&term) {
            f.score += (m.score)(&term);
            f.terms.push(term);
        }
        f.end = end;
        f.last_pos = pos;
        f.matches += 1;
        f.tokens += since + 1;
        since = 0;
        f.locs.push((tok.start, end));
    }
    frags
}

/// SUMMARIZE of `text` (see the module's description); `tags`: HIGHLIGHT's, when asked for
/// too.
pub fn summarize(text: &str, m: &Matcher, s: &Summary, tags: Option<(&str, &str)>) -> String {
    if text.is_empty() && m.terms.contains(EMPTY_TERM) {
        // An empty value matched by `""`: one empty fragment.
        return match tags {
            Some((open, close)) => format!("{open}{close}{}", s.separator),
            None => s.separator.clone(),
        };
    }
    let frags = fragments(text, m);
    if frags.is_empty() {
        return trim_field(text, s);
    }
    let mut best: Vec<usize> = (0..frags.len()).collect();
    best.sort_by(|&a, &b| frags[b].score.total_cmp(&frags[a].score).then(a.cmp(&b)));
    best.truncate(s.frags.min(frags.len()));
    best.sort_unstable();
    let bytes = text.as_bytes();
    let piece = |a: usize, b: usize| String::from_utf8_lossy(bytes.get(a..b).unwrap_or(&[])).into_owned();
    let (open, close) = tags.unwrap_or(("", ""));
    let mut out = String::new();
    for (k, &i) in best.iter().enumerate() {
        let f = &frags[i];
        let lower = if k > 0 { frags[best[k - 1]].end } else { 0 };
        let upper = match best.get(k + 1) {
            Some(&next) => frags[next].start as isize,
            None => bytes.len() as isize - 1,
        };
        let (before, mut after) = context(bytes, f, s.len, lower, upper);
        // RediSearch may end the context inside a character (a Chinese match followed by
        // no separator takes one byte more); folio ends it before that character.
        while !text.is_char_boundary(after) {
            after -= 1;
        }
        let mut one = piece(before, f.start);
        let mut at = f.start;
        for &(a, b) in &f.locs {
            one.push_str(&piece(at, a));
            one.push_str(open);
            one.push_str(&piece(a, b));
            one.push_str(close);
            at = b;
        }
        one.push_str(&piece(f.end, after));
        // Only ASCII bytes change, so the text stays UTF-8.
        out.push_str(&String::from_utf8_lossy(&collapse_spaces(one.as_bytes())));
        out.push_str(&s.separator);
    }
    out
}

/// Where fragment `f`'s context starts and ends (`FragmentList_FindContext`), kept within
/// `lower..=upper` (the previous fragment's end, the next one's start).
fn context(bytes: &[u8], f: &Fragment, words: usize, lower: usize, upper: isize) -> (usize, usize) {
    let inside = (f.tokens - f.matches) as usize;
    if words <= inside {
        return (f.start, f.end);
    }
    let size = ((words - inside) / 2) * EST_WORD_SIZE;
    let mut lb = f.start.saturating_sub(size).max(lower);
    let mut la = ((f.end + size) as isize).min(upper);
    // Whole words only: past a partial word and the separators after it.
    while lb < f.start && !is_sep_byte(bytes[lb]) {
        lb += 1;
    }
    while lb < f.start && is_sep_byte(bytes[lb]) {
        lb += 1;
    }
    while la > f.end as isize && !is_sep_byte(bytes[la as usize]) {
        la -= 1;
    }
    while la > f.end as isize && is_sep_byte(bytes[la as usize]) {
        la -= 1;
    }
    let after = (la + 1).clamp(f.end as isize, bytes.len() as isize) as usize;
    (lb, after)
}

/// C's `isspace`, which RediSearch's whitespace handling uses (ASCII whitespace and `\v`).
fn is_space(b: u8) -> bool {
    b.is_ascii_whitespace() || b == 0x0b
}

/// Runs of whitespace as one space (`stripDuplicateSpaces`).
fn collapse_spaces(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut last_space = false;
    for &b in bytes {
        if is_space(b) {
            if !last_space {
                out.push(b' ');
            }
            last_space = true;
        } else {
            out.push(b);
            last_space = false;
        }
    }
    out
}

/// SUMMARIZE of a field without a match, as RediSearch's `trimField`: the head of the text
/// (about six bytes per word of every fragment), runs of whitespace collapsed to one space,
/// cut back to the last separator, trailing spaces removed.
fn trim_field(text: &str, s: &Summary) -> String {
    let head = EST_WORD_SIZE.saturating_mul(s.len).saturating_mul(s.frags).saturating_add(EST_WORD_SIZE);
    let bytes = text.as_bytes();
    let head = bytes.get(..head.min(bytes.len())).unwrap_or(bytes);
    let mut out = collapse_spaces(head);
    while out.len() > 1 && !out.last().is_some_and(|&b| is_sep_byte(b)) {
        out.pop();
    }
    while out.last().is_some_and(|&b| is_space(b)) {
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
        // `\v` is whitespace to C's isspace, which RediSearch's trimField folds with.
        assert_eq!(trim_field("one\x0b\x0btwo three four", &s), "one two three");
    }

    #[test]
    fn fragments_take_context_and_the_best_scores() {
        let st = Stemmer::new(Language::ENGLISH, 4);
        let stop = Stopwords::default();
        let terms: HashSet<String> = ["alpha".to_string(), "omega".to_string()].into();
        let score = |t: &str| if t == "omega" { 2.0 } else { 1.0 };
        let m = Matcher {
            terms: &terms,
            stemmer: &st,
            stopwords: &stop,
            score: &score,
            reading: Reading::DEFAULT,
        };
        let text = "one two alpha three four five six seven eight nine ten eleven omega end";
        // Two fragments (alpha, then omega ten positions on); FRAGS 1 keeps omega's, the
        // better; LEN 4 gives it (4 - 0) / 2 * 6 = 12 bytes each side, cut to whole words
        // (the first and last words reached are taken as partial, even at the text's ends).
        // RediSearch 2.10.5 gives the same for FRAGS 2 (its IDFs tie there).
        let s = Summary { frags: 1, len: 4, separator: "... ".into() };
        assert_eq!(summarize(text, &m, &s, None), "ten eleven omega ... ");
        let s = Summary { frags: 2, len: 4, separator: "|".into() };
        assert_eq!(summarize(text, &m, &s, Some(("<", ">"))), "two <alpha> three four|ten eleven <omega> |");
        // No match: the trimmed head (cut back to its last separator).
        let none: HashSet<String> = HashSet::new();
        let m = Matcher {
            terms: &none,
            stemmer: &st,
            stopwords: &stop,
            score: &score,
            reading: Reading::DEFAULT,
        };
        assert_eq!(summarize("a b c", &m, &s, None), "a b");
    }
}
