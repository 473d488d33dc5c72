//! FT.SPELLCHECK and the dictionary commands FT.DICTADD / FT.DICTDEL / FT.DICTDUMP.
//!
//! FT.SPELLCHECK follows RediSearch 2.10 (`spell_check.c`): every plain word of the parsed
//! query (stopwords included; prefix/fuzzy/tag/numeric clauses are not words) that is not a
//! term of the index and not in a `TERMS EXCLUDE` dictionary (up to case) gets suggestions:
//! the index terms RediSearch's fuzzy trie walk yields at DISTANCE (see [`trie_fuzzy_match`]:
//! the words within DISTANCE and a few one edit farther; stems and synonym group terms
//! included, as in RediSearch's term trie) scored by their document frequency over the
//! number of documents, then the words of the `TERMS INCLUDE` dictionaries the walk yields,
//! scored 0 unless the index has them (a word already suggested, up to case, is skipped).
//! Suggestions come in descending score; equal scores keep the order of RediSearch's
//! score-sorted suggestion trie (see [`trie_order`]).

use std::cmp::Ordering;
use std::collections::HashMap;

use roaring::RoaringBitmap;

use crate::catalog::Catalog;
use crate::config::Config;
use crate::dictionary::{dict_name, fold, trie_fuzzy_match};
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::index::text::{FieldMask, ALL_FIELDS};
use crate::index::Index;
use crate::limits::{MAX_DIALECT, MAX_QUERY_LEN, MAX_SPELLCHECK_DISTANCE};
use crate::query::syntax::{parse, QueryAst, TagTerm};
use crate::reply::{Protocol, Reply};

/// Wrong arity, worded as RediSearch (`RedisModule_WrongArity` with the registered name).
pub(crate) fn wrong_arity(cmd: &str) -> Error {
    Error::new(format!("ERR wrong number of arguments for '{}' command", cmd.to_ascii_uppercase()))
}

/// `FT.DICTADD dict term…`: the number of terms added.
pub(crate) fn ft_dictadd(config: &mut Config, args: &[&[u8]]) -> Result<Reply> {
    let [name, terms @ ..] = args else { return Err(wrong_arity("FT.DICTADD")) };
    if terms.is_empty() {
        return Err(wrong_arity("FT.DICTADD"));
    }
    Ok(Reply::Int(config.dictionaries.add(&dict_name(name), terms) as i64))
}

/// `FT.DICTDEL dict term…`: the number of terms removed.
pub(crate) fn ft_dictdel(config: &mut Config, args: &[&[u8]]) -> Result<Reply> {
    let [name, terms @ ..] = args else { return Err(wrong_arity("FT.DICTDEL")) };
    if terms.is_empty() {
        return Err(wrong_arity("FT.DICTDEL"));
    }
    Ok(Reply::Int(config.dictionaries.del(&dict_name(name), terms) as i64))
}

/// `FT.DICTDUMP dict`: the terms (a set under RESP3).
pub(crate) fn ft_dictdump(config: &Config, args: &[&[u8]]) -> Result<Reply> {
    let [name] = args else { return Err(wrong_arity("FT.DICTDUMP")) };
    let terms =
        config.dictionaries.dump(&dict_name(name)).ok_or_else(|| Error::new("could not open dict key"))?;
    Ok(Reply::Set(terms.map(Reply::text).collect()))
}

/// Position of the first argument at or after `from` equal to `kw` (ASCII case-insensitive),
/// like RediSearch's `RMUtil_ArgExists`, which also looks at the index name and the query.
fn arg_pos(args: &[&[u8]], kw: &str, from: usize) -> Option<usize> {
    args.iter().enumerate().skip(from).find(|(_, a)| a.eq_ignore_ascii_case(kw.as_bytes())).map(|(i, _)| i)
}

/// A parsed FT.SPELLCHECK request.
pub(crate) struct Request {
    pub(crate) distance: u32,
    pub(crate) include: Vec<String>,
    pub(crate) exclude: Vec<String>,
    pub(crate) full_score_info: bool,
}

/// `FT.SPELLCHECK index query [DISTANCE d] [TERMS INCLUDE|EXCLUDE dict [term…]]… [DIALECT d]`.
pub(crate) fn ft_spellcheck(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
) -> Result<Reply> {
    let [index_name, query, ..] = args else { return Err(wrong_arity("FT.SPELLCHECK")) };
    // Checks run in RediSearch's order: DIALECT, index, query, DISTANCE, TERMS, dictionaries.
    let mut dialect = config.default_dialect;
    if let Some(p) = arg_pos(args, "DIALECT", 2) {
        let v = args.get(p + 1).ok_or_else(|| Error::new("Need an argument for DIALECT"))?;
        dialect = std::str::from_utf8(v)
            .ok()
            .and_then(|s| s.parse::<u32>().ok())
            .filter(|d| (1..=MAX_DIALECT).contains(d))
            .ok_or_else(|| {
                Error::new(format!("DIALECT requires a non negative integer >=1 and <= {MAX_DIALECT}"))
            })?;
    }
    let name = String::from_utf8_lossy(index_name).into_owned();
    let entry = cat.entry(&name).ok_or_else(|| Error::new("Unknown Index name"))?;
    if query.len() > MAX_QUERY_LEN {
        return Err(Error::new("Query string too long"));
    }
    let ast = parse(&String::from_utf8_lossy(query), dialect, &HashMap::<String, String>::new())?;
    let req = parse_options(args)?;
    config.mark_dialect(dialect);
    entry.usage.mark_dialect(dialect);
    for d in req.include.iter().chain(&req.exclude) {
        if !config.dictionaries.exists(d) {
            return Err(Error::new(format!("Dict does not exist: {d}")));
        }
    }
    let idx = &entry.index;
    // A caller who may not read every document checks against the documents it may read:
    // the others' words are neither found nor suggested, nor counted in the scores.
    let visible = crate::access::visible(idx, docs, config)?;
    let mut words = Vec::new();
    collect_words(idx, &ast, ALL_FIELDS, &mut words);
    let total = visible.as_ref().map_or_else(|| idx.docs.len(), |v| v.len());
    let mut results = Vec::new();
    let seen = Seen { idx, visible: visible.as_ref() };
    for (word, mask) in &words {
        if let Some(r) = check_word(&seen, config, &req, word, *mask) {
            results.push((word.clone(), r));
        }
    }
    Ok(render(results, total, req.full_score_info, proto))
}

/// The reply: each word's suggestions (raw scores: document frequency, -1 for a dictionary
/// word the index has not) scored over `total` documents; FULLSCOREINFO (the cluster
/// coordinator's form): raw frequencies and the document count.
pub(crate) fn render(results: Vec<(String, WordResult)>, total: u64, full: bool, proto: Protocol) -> Reply {
    let divisor = if full { 1.0 } else { total.max(1) as f64 };
    let score = |raw: f64| if raw < 0.0 { 0.0 } else { raw / divisor };
    match proto {
        Protocol::Resp2 => {
            let mut out = Vec::new();
            if full {
                out.push(Reply::Int(total as i64));
            }
            for (word, r) in results {
                out.push(Reply::Array(match r {
                    WordResult::InIndex => {
                        vec![
                            Reply::Simple("TERM".into()),
                            Reply::text(word),
                            Reply::Simple(FOUND_IN_INDEX.into()),
                        ]
                    }
                    WordResult::Suggestions(s) => vec![
                        Reply::Simple("TERM".into()),
                        Reply::text(word),
                        Reply::Array(
                            s.into_iter()
                                .map(|(t, raw)| Reply::Array(vec![Reply::Double(score(raw)), Reply::text(t)]))
                                .collect(),
                        ),
                    ],
                }));
            }
            Reply::Array(out)
        }
        Protocol::Resp3 => {
            let mut root = Vec::new();
            if full {
                root.push(("total_docs", Reply::Int(total as i64)));
            }
            let terms = results
                .into_iter()
                .map(|(word, r)| {
                    let v = match r {
                        WordResult::InIndex => Reply::Error(FOUND_IN_INDEX.into()),
                        WordResult::Suggestions(s) => Reply::Array(
                            s.into_iter()
                                .map(|(t, raw)| Reply::Map(vec![(Reply::text(t), Reply::Double(score(raw)))]))
                                .collect(),
                        ),
                    };
                    (Reply::text(word), v)
                })
                .collect();
            root.push(("results", Reply::Map(terms)));
            Reply::map(root)
        }
    }
}

/// RediSearch's FULLSCOREINFO marker for a word the index has.
pub(crate) const FOUND_IN_INDEX: &str = "term exists in index";

/// DISTANCE, TERMS and FULLSCOREINFO, found anywhere in the arguments as RediSearch does.
pub(crate) fn parse_options(args: &[&[u8]]) -> Result<Request> {
    let mut req = Request { distance: 1, include: Vec::new(), exclude: Vec::new(), full_score_info: false };
    if let Some(p) = arg_pos(args, "DISTANCE", 0) {
        let v =
            args.get(p + 1).ok_or_else(|| Error::new("DISTANCE arg is given but no DISTANCE comes after"))?;
        req.distance = std::str::from_utf8(v)
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
            .filter(|d| (1..=i64::from(MAX_SPELLCHECK_DISTANCE)).contains(d))
            .map(|d| d as u32)
            .ok_or_else(|| {
                Error::new(format!(
                    "bad distance given, distance must be a natural number between 1 to {MAX_SPELLCHECK_DISTANCE}"
                ))
            })?;
    }
    let mut from = 0;
    while let Some(p) = arg_pos(args, "TERMS", from) {
        let (Some(op), Some(dict)) = (args.get(p + 1), args.get(p + 2)) else {
            return Err(Error::new("TERM arg is given but no TERM params comes after"));
        };
        if op.eq_ignore_ascii_case(b"INCLUDE") {
            req.include.push(dict_name(dict));
        } else if op.eq_ignore_ascii_case(b"EXCLUDE") {
            req.exclude.push(dict_name(dict));
        } else {
            return Err(Error::new("bad format, exlude/include operation was not given"));
        }
        from = p + 1;
    }
    req.full_score_info = arg_pos(args, "FULLSCOREINFO", 0).is_some();
    Ok(req)
}

/// The plain words of the query in order (RediSearch's token nodes), each with the text
/// fields it is restricted to.
fn collect_words(idx: &Index, ast: &QueryAst, mask: FieldMask, out: &mut Vec<(String, FieldMask)>) {
    // RediSearch parses the query without a stopword list here: stopwords are words too.
    let words = |raw: &str, out: &mut Vec<(String, FieldMask)>| {
        out.extend(crate::analysis::tokenize(raw).into_iter().map(|tok| (tok.text, mask)));
    };
    match ast {
        QueryAst::Word(w) => words(w, out),
        // A verbatim token (a number in dialect 2) is one term as written.
        QueryAst::Verbatim(t) => out.push((t.clone(), mask)),
        QueryAst::Phrase(p) => words(p, out),
        QueryAst::And(items) | QueryAst::Or(items) => {
            for it in items {
                collect_words(idx, it, mask, out);
            }
        }
        QueryAst::Not(inner) | QueryAst::Optional(inner) => collect_words(idx, inner, mask, out),
        QueryAst::Attrs { inner, .. } => collect_words(idx, inner, mask, out),
        // RediSearch's walk (`QueryNode_ForEach`) meets a tag list's values too: a lone value
        // is a token node as written (`@t:{Helo}` reports `Helo`), a run of words a phrase
        // of lower-cased tokens; affixes are no tokens. The reference's replies side by side.
        QueryAst::Tag(_, terms) => {
            for t in terms {
                match t {
                    TagTerm::Exact(v) => out.push((v.clone(), mask)),
                    TagTerm::Words(ws) => out.extend(ws.iter().map(|w| (w.clone(), mask))),
                    _ => {}
                }
            }
        }
        QueryAst::Field(fields, inner) => {
            let m = fields
                .iter()
                .filter_map(|f| idx.spec.field(f).and_then(|(i, _)| idx.text_ord(i)))
                .fold(0, |m: FieldMask, o| m | (1u128 << (u32::from(o) % 128)));
            collect_words(idx, inner, m & mask, out);
        }
        _ => {}
    }
}

/// What FT.SPELLCHECK reports for one word.
pub(crate) enum WordResult {
    /// FULLSCOREINFO only: the index has the word.
    InIndex,
    /// Suggestions with their raw scores (document frequency, -1 for dictionary-only words).
    Suggestions(Vec<(String, f64)>),
}

/// The index's terms as far as the caller sees them: only in the documents it may read.
struct Seen<'a> {
    idx: &'a Index,
    /// `None`: every document.
    visible: Option<&'a RoaringBitmap>,
}

impl Seen<'_> {
    /// True when a document the caller may read has the term.
    fn is_live(&self, id: u32) -> bool {
        let text = &self.idx.text;
        match self.visible {
            None => text.is_live(id),
            Some(v) => text.is_live(id) && !self.idx.term_docs(id, ALL_FIELDS).is_disjoint(v),
        }
    }

    /// True when no document the caller may read has the term in a field of `mask`.
    fn absent_in(&self, id: u32, mask: FieldMask) -> bool {
        match self.visible {
            None => !self.idx.term_in(id, mask),
            Some(v) => self.idx.term_docs(id, mask).is_disjoint(v),
        }
    }

    /// Number of documents the caller may read that have the term: for a caller who may
    /// read every key, RediSearch's count (its inverted index's `numDocs`, which counts the
    /// versions of documents its GC has not collected yet).
    fn doc_freq(&self, id: u32) -> u64 {
        let text = &self.idx.text;
        match self.visible {
            None => text.counted_doc_freq(id),
            Some(v) => self.idx.term_docs(id, ALL_FIELDS).intersection_len(v),
        }
    }
}

/// Suggestions for `word`, `None` when it is not reported (in the index, or excluded).
fn check_word(
    seen: &Seen<'_>,
    config: &Config,
    req: &Request,
    word: &str,
    mask: FieldMask,
) -> Option<WordResult> {
    let text = &seen.idx.text;
    // RediSearch's trie lookup folds case: a verbatim `1E3` is the indexed `1e3`.
    let known = text.dict.get(word).or_else(|| text.dict.get(&word.to_lowercase()));
    if known.is_some_and(|id| seen.is_live(id)) {
        return req.full_score_info.then_some(WordResult::InIndex);
    }
    if req.exclude.iter().any(|d| config.dictionaries.contains(d, word)) {
        return None;
    }
    let mut found: Vec<(String, f64)> = Vec::new();
    // Index terms, scored by document frequency; a term none of whose documents has it in
    // the word's fields is no suggestion.
    // RediSearch's trie walk yields a few words one edit farther than DISTANCE (see
    // `trie_fuzzy_match`): look one edit farther, then keep what the walk would yield.
    let reach = req.distance.saturating_add(1);
    for (term, id) in text.dict.fuzzy(word, reach, |id| seen.is_live(id), usize::MAX) {
        if !trie_fuzzy_match(&term, word, req.distance) {
            continue;
        }
        if mask != ALL_FIELDS && seen.absent_in(id, mask) {
            continue;
        }
        found.push((term, seen.doc_freq(id) as f64));
    }
    for d in &req.include {
        for term in config.dictionaries.fuzzy(d, word, req.distance) {
            // A word already suggested, up to case, is not added again.
            let folded = fold(term);
            if found.iter().any(|(t, _)| fold(t) == folded) {
                continue;
            }
            let raw = match text.dict.get(term).filter(|&id| seen.is_live(id)) {
                Some(id) if mask != ALL_FIELDS && seen.absent_in(id, mask) => continue,
                Some(id) => seen.doc_freq(id) as f64,
                None => -1.0,
            };
            found.push((term.to_string(), raw));
        }
    }
    Some(WordResult::Suggestions(trie_order(found)))
}

/// Orders suggestions as RediSearch replies them: it inserts them, in the order they were
/// found, into a score-sorted radix trie ([`ScoreTrie`]), walks that trie depth first (a
/// node's own word before its children, children in their stored order) and sorts the walk
/// by descending score with a stable sort. Equal scores therefore keep the trie's order,
/// which depends on insertion order and on the trie's partial re-sorting.
pub(crate) fn trie_order(found: Vec<(String, f64)>) -> Vec<(String, f64)> {
    let mut trie = ScoreTrie::default();
    for (term, raw) in &found {
        let chars: Vec<char> = term.chars().collect();
        trie.add(&chars, *raw as f32);
    }
    let mut out = Vec::with_capacity(found.len());
    trie.walk(&mut Vec::new(), &mut out);
    out.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(Ordering::Equal));
    out
}

/// A node of RediSearch's score-sorted trie (`trie.c`, `Trie_Sort_Score`), reduced to what
/// decides the order of its walk.
#[derive(Default)]
struct ScoreTrie {
    label: Vec<char>,
    score: f32,
    /// Highest score added below (RediSearch's `maxChildScore`; it never decreases).
    max: f32,
    terminal: bool,
    children: Vec<ScoreTrie>,
}

impl ScoreTrie {
    /// RediSearch's `TrieNode_Add` (replace mode) for a word not yet in the trie.
    fn add(&mut self, word: &[char], score: f32) {
        if score == 0.0 || word.is_empty() {
            return;
        }
        let common = word.iter().zip(&self.label).take_while(|(a, b)| a == b).count();
        if common < self.label.len() {
            // Split: this node keeps the common part; its old tail becomes its only child.
            let tail = ScoreTrie {
                label: self.label.split_off(common),
                score: self.score,
                max: self.max,
                terminal: self.terminal,
                children: std::mem::take(&mut self.children),
            };
            self.score = 0.0;
            self.terminal = false;
            self.max = self.max.max(tail.score);
            let first = tail.label.first().copied();
            self.children.push(tail);
            match word.get(common..) {
                Some([]) | None => {
                    self.score = score;
                    self.terminal = true;
                }
                Some(rest) => {
                    let idx = usize::from(rest.first().copied() > first);
                    self.children.insert(idx.min(1), ScoreTrie::leaf(rest, score));
                    self.max = self.max.max(score);
                }
            }
            return;
        }
        self.max = self.max.max(score);
        let Some(rest) = word.get(common..).filter(|r| !r.is_empty()) else {
            self.score = score;
            self.terminal = true;
            return;
        };
        let first = rest.first().copied();
        if let Some(idx) = self.children.iter().position(|c| c.label.first().copied() == first) {
            if let Some(child) = self.children.get_mut(idx) {
                child.add(rest, score);
            }
            // Re-sorted only when the child now breaks the order with a neighbour (RediSearch
            // looks at the next neighbour only up to the second last child).
            let n = self.children.len();
            let m = self.children.get(idx).map_or(0.0, |c| c.max);
            let prev = idx.checked_sub(1).and_then(|i| self.children.get(i)).map(|c| c.max);
            let next = self.children.get(idx + 1).map(|c| c.max);
            if n > 1 && (prev.is_some_and(|p| m > p) || (idx + 2 < n && next.is_some_and(|x| m < x))) {
                self.children.sort_by(|a, b| {
                    b.max.partial_cmp(&a.max).unwrap_or(Ordering::Equal).then_with(|| a.label.cmp(&b.label))
                });
            }
            return;
        }
        // A new child goes before the first child scoring lower, else last.
        let idx = self.children.iter().position(|c| c.max < score).unwrap_or(self.children.len());
        self.children.insert(idx, ScoreTrie::leaf(rest, score));
    }

    fn leaf(label: &[char], score: f32) -> ScoreTrie {
        ScoreTrie { label: label.to_vec(), score, max: score, terminal: true, children: Vec::new() }
    }

    /// Depth-first walk: the node's word, then its children in order.
    fn walk(&self, prefix: &mut Vec<char>, out: &mut Vec<(String, f64)>) {
        let len = prefix.len();
        prefix.extend_from_slice(&self.label);
        if self.terminal {
            out.push((prefix.iter().collect(), f64::from(self.score)));
        }
        for c in &self.children {
            c.walk(prefix, out);
        }
        prefix.truncate(len);
    }
}

#[cfg(test)]
mod tests {
    use super::trie_order;

    fn names(v: Vec<(String, f64)>) -> Vec<String> {
        v.into_iter().map(|x| x.0).collect()
    }

    #[test]
    fn ties_follow_the_score_sorted_trie() {
        // From RediSearch 2.10: "helo" over held(1) hell(1) hello(2) help(1) replies
        // hello, hell, held, help (hell sits under the "hell" branch that holds hello).
        let found =
            vec![("held".into(), 1.0), ("hell".into(), 1.0), ("hello".into(), 2.0), ("help".into(), 1.0)];
        assert_eq!(names(trie_order(found)), ["hello", "hell", "held", "help"]);
        // Equal scores, inserted in order: a word before its extensions.
        let found =
            vec![("hell".into(), 1.0), ("hello".into(), 1.0), ("help".into(), 1.0), ("hel".into(), -1.0)];
        assert_eq!(names(trie_order(found)), ["hell", "hello", "help", "hel"]);
        // From RediSearch 2.10: dictionary-only words (score -1) keep their insertion order.
        assert_eq!(names(trie_order(vec![("bx".into(), -1.0), ("ax".into(), -1.0)])), ["bx", "ax"]);
        assert_eq!(names(trie_order(vec![("ax".into(), -1.0), ("bx".into(), -1.0)])), ["ax", "bx"]);
    }
}
