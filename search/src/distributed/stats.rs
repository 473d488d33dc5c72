//! Global term statistics for scoring on a cluster.
//!
//! TFIDF and BM25 read three index-wide figures: the number of documents, the document
//! frequency of each query term and the average document length. On a cluster each shard
//! holds part of the documents, so its own figures would give each shard its own scale. The
//! node that takes a query first asks every shard for its figures (the query runs in
//! [`Mode::Record`] with no results wanted: the scorer's setup reports each term it looks
//! up), sums them ([`GlobalStats::add`]), and sends the sums with the query itself; each shard
//! then scores in [`Mode::Apply`], so a document's score is the one a single server holding
//! every document would give it.
//!
//! The scorer reaches this module through three pass-through calls ([`total_docs`],
//! [`doc_freq`], [`avg_doc_len`]) that return the local figure unless a mode is set on the
//! current thread; outside the shard commands nothing is set and nothing changes.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::index::{FieldIndex, Index};
use crate::reply::Reply;

/// A term as the cluster names it: the TAG field's position (None for full text) and text.
pub type TermName = (Option<u16>, String);

/// Summed figures (or one shard's).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct GlobalStats {
    /// Documents in the index.
    pub docs: u64,
    /// Tokens over all documents (average length = tokens / docs).
    pub tokens: u64,
    /// Document frequency per term.
    pub df: HashMap<TermName, u64>,
}

impl GlobalStats {
    /// Adds one shard's figures.
    pub fn add(&mut self, other: &GlobalStats) {
        self.docs += other.docs;
        self.tokens += other.tokens;
        for (k, v) in &other.df {
            *self.df.entry(k.clone()).or_insert(0) += v;
        }
    }

    /// As a reply tree: `[docs, tokens, [field|-1, term, df]…]`.
    pub fn to_reply(&self) -> Reply {
        let mut terms: Vec<_> = self.df.iter().collect();
        terms.sort();
        Reply::Array(vec![
            Reply::Int(self.docs as i64),
            Reply::Int(self.tokens as i64),
            Reply::Array(
                terms
                    .into_iter()
                    .map(|((f, t), n)| {
                        Reply::Array(vec![
                            Reply::Int(f.map_or(-1, i64::from)),
                            Reply::text(t),
                            Reply::Int(*n as i64),
                        ])
                    })
                    .collect(),
            ),
        ])
    }

    /// Reads [`GlobalStats::to_reply`]'s shape.
    pub fn from_reply(r: &Reply) -> Option<GlobalStats> {
        let Reply::Array(items) = r else { return None };
        let (Some(Reply::Int(docs)), Some(Reply::Int(tokens)), Some(Reply::Array(terms))) =
            (items.first(), items.get(1), items.get(2))
        else {
            return None;
        };
        let mut df = HashMap::new();
        for t in terms {
            let Reply::Array(t) = t else { return None };
            let (Some(Reply::Int(f)), Some(Reply::Bulk(term)), Some(Reply::Int(n))) =
                (t.first(), t.get(1), t.get(2))
            else {
                return None;
            };
            let field = u16::try_from(*f).ok();
            df.insert((field, String::from_utf8_lossy(term).into_owned()), *n as u64);
        }
        Some(GlobalStats { docs: *docs as u64, tokens: *tokens as u64, df })
    }
}

/// What the scorer's hooks do on this thread.
enum Mode {
    /// Pass the local figures through.
    Off,
    /// Pass them through and remember each (term id, local df) looked up.
    Record(Vec<(Option<u16>, u32, u64)>),
    /// Replace them by global figures; `df` is keyed by local ids.
    Apply { docs: u64, avg_len: f64, df: HashMap<(Option<u16>, u32), u64> },
}

thread_local! {
    static MODE: RefCell<Mode> = const { RefCell::new(Mode::Off) };
}

/// Restores [`Mode::Off`] when dropped (also when the query fails or panics).
pub struct ModeGuard(());

impl Drop for ModeGuard {
    fn drop(&mut self) {
        MODE.with(|m| *m.borrow_mut() = Mode::Off);
    }
}

/// Starts recording the terms the scorer looks up on this thread.
pub fn record() -> ModeGuard {
    MODE.with(|m| *m.borrow_mut() = Mode::Record(Vec::new()));
    ModeGuard(())
}

/// Ends recording: this shard's figures for the terms the scorer looked up in `idx`.
pub fn recorded(idx: &Index) -> GlobalStats {
    let seen = MODE.with(|m| match std::mem::replace(&mut *m.borrow_mut(), Mode::Off) {
        Mode::Record(seen) => seen,
        _ => Vec::new(),
    });
    let mut by_field: HashMap<Option<u16>, HashMap<u32, u64>> = HashMap::new();
    for (f, id, n) in seen {
        by_field.entry(f).or_default().insert(id, n);
    }
    let mut df = HashMap::new();
    for (field, ids) in by_field {
        let dict = match field {
            None => Some(&idx.text.dict),
            Some(f) => match idx.fields.get(f as usize) {
                Some(FieldIndex::Tag(t)) => Some(&t.dict),
                _ => None,
            },
        };
        let Some(dict) = dict else { continue };
        for (term, id) in dict.scan(|_, id| ids.contains_key(&id), ids.len()) {
            df.insert((field, term), ids[&id]);
        }
    }
    GlobalStats { docs: idx.docs.len(), tokens: idx.stats.total_tokens, df }
}

/// Scores on this thread with `stats` instead of `idx`'s own figures.
pub fn apply(idx: &Index, stats: &GlobalStats) -> ModeGuard {
    let mut df = HashMap::new();
    for ((field, term), n) in &stats.df {
        let id = match field {
            None => idx.text.dict.get(term),
            Some(f) => match idx.fields.get(*f as usize) {
                Some(FieldIndex::Tag(t)) => t.dict.get(term),
                _ => None,
            },
        };
        if let Some(id) = id {
            df.insert((*field, id), *n);
        }
    }
    let avg_len = if stats.docs == 0 { 0.0 } else { stats.tokens as f64 / stats.docs as f64 };
    MODE.with(|m| *m.borrow_mut() = Mode::Apply { docs: stats.docs, avg_len, df });
    ModeGuard(())
}

/// Scorer hook: the number of documents (`local`: the index's own).
pub fn total_docs(local: u64) -> u64 {
    MODE.with(|m| match &*m.borrow() {
        Mode::Apply { docs, .. } => *docs,
        _ => local,
    })
}

/// Scorer hook: the average document length (`local`: the index's own).
pub fn avg_doc_len(local: f64) -> f64 {
    MODE.with(|m| match &*m.borrow() {
        Mode::Apply { avg_len, .. } => *avg_len,
        _ => local,
    })
}

/// Scorer hook: the document frequency of term `id` (of TAG field `tag_field`, or full text).
pub fn doc_freq(tag_field: Option<u16>, id: u32, local: u64) -> u64 {
    MODE.with(|m| match &mut *m.borrow_mut() {
        Mode::Off => local,
        Mode::Record(seen) => {
            seen.push((tag_field, id, local));
            local
        }
        Mode::Apply { df, .. } => df.get(&(tag_field, id)).copied().unwrap_or(local),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_and_round_trips() {
        let mut a = GlobalStats { docs: 2, tokens: 10, df: HashMap::from([((None, "x".into()), 1)]) };
        let b = GlobalStats {
            docs: 3,
            tokens: 5,
            df: HashMap::from([((None, "x".into()), 2), ((Some(1), "t".into()), 3)]),
        };
        a.add(&b);
        assert_eq!((a.docs, a.tokens, a.df[&(None, "x".to_string())]), (5, 15, 3));
        assert_eq!(GlobalStats::from_reply(&a.to_reply()), Some(a));
    }

    #[test]
    fn hooks_pass_through_when_off() {
        assert_eq!(total_docs(7), 7);
        assert_eq!(doc_freq(None, 3, 4), 4);
        assert_eq!(avg_doc_len(1.5), 1.5);
    }
}
