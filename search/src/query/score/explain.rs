//! EXPLAINSCORE: one document's score as RediSearch 2.10 explains it (`ext/default.c`): the
//! query's result tree for that document (its intersections, the union children the document
//! matched, the terms), each node's part of the score in the scorer's words, and the scorer's
//! final line.

use std::collections::HashMap;

use crate::index::FieldIndex;
use crate::query::exec::{ExplainNode, LeafKind};
use crate::reply::Reply;

use super::{bm25, bm25std, Doc, ExpansionHits, ScoreContext, Scorer, SlopShape};

/// An explanation: a line, with the explanations of its children (RediSearch replies a line
/// alone as a string, else `[line, [children…]]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// What the node computed.
    pub line: String,
    /// Its children's explanations.
    pub children: Vec<Explanation>,
}

impl Explanation {
    fn line(line: String) -> Explanation {
        Explanation { line, children: Vec::new() }
    }

    /// As RediSearch replies it: the line alone, or `[line, [children…]]`.
    pub fn reply(&self) -> Reply {
        if self.children.is_empty() {
            return Reply::Simple(self.line.clone());
        }
        Reply::Array(vec![
            Reply::Simple(self.line.clone()),
            Reply::Array(self.children.iter().map(Explanation::reply).collect()),
        ])
    }

    /// The explanation [`Self::reply`] made (a shard's, on a cluster).
    pub fn from_reply(r: &Reply) -> Option<Explanation> {
        match r {
            Reply::Simple(line) => Some(Explanation::line(line.clone())),
            Reply::Array(items) => match items.as_slice() {
                [Reply::Simple(line), Reply::Array(children)] => Some(Explanation {
                    line: line.clone(),
                    children: children.iter().map(Explanation::from_reply).collect::<Option<_>>()?,
                }),
                _ => None,
            },
            _ => None,
        }
    }
}

/// What one node of the tree gives: its part of the score, its explanation, and whether the
/// document matched it (a union lists only the children the document matched).
struct Part {
    value: f64,
    explained: Explanation,
    matched: bool,
}

/// The contributions of one score term in the document: (expansion id, frequency, IDF).
type Hits = Vec<(u32, f64, f64)>;

impl ScoreContext<'_> {
    /// The names of the text terms and tag values the query's score terms hold, for
    /// [`Self::explain`] (BM25STD names each term).
    pub fn term_names(&self) -> HashMap<(Option<u16>, u32), String> {
        let mut want: HashMap<Option<u16>, Vec<u32>> = HashMap::new();
        for t in self.terms {
            want.entry(t.tag_field).or_default().extend(&t.ids);
        }
        let mut out = HashMap::new();
        for (field, ids) in want {
            let found = match field {
                None => self.idx.text.dict.scan(|_, id| ids.contains(&id), ids.len()),
                Some(f) => match self.idx.fields.get(usize::from(f)) {
                    Some(FieldIndex::Tag(ti)) => ti.dict.scan(|_, id| ids.contains(&id), ids.len()),
                    _ => Vec::new(),
                },
            };
            out.extend(found.into_iter().map(|(name, id)| ((field, id), name)));
        }
        out
    }

    /// Document `doc`'s score explained over the query's result tree `tree`.
    pub fn explain(
        &self,
        doc: u32,
        tree: Option<&ExplainNode>,
        names: &HashMap<(Option<u16>, u32), String>,
    ) -> Explanation {
        let Some(hot) = self.idx.docs.hot(doc) else { return Explanation::line(String::new()) };
        let score = f64::from(hot.score);
        match self.scorer {
            Scorer::DocScore => return Explanation::line(format!("Document's score is {score:.2}")),
            Scorer::Hamming => return self.explain_hamming(doc),
            Scorer::TfIdf | Scorer::TfIdfDocNorm if hot.score == 0.0 => {
                return Explanation::line("Document score is 0".into())
            }
            _ => {}
        }
        let d = Doc { id: doc, idx: self.idx, rec: std::cell::OnceCell::new() };
        let mut hits: Vec<Hits> = vec![Vec::new(); self.terms.len()];
        for (ti, (t, idfs)) in self.terms.iter().zip(&self.idfs).enumerate() {
            if t.leaf.is_none() {
                self.add_term(&d, ti, t, idfs, &mut |ti, id, f, idf| {
                    if f != 0.0 && t.counts_in(doc) {
                        hits[ti].push((id, f, idf));
                    }
                });
            }
        }
        let walk = Walk { ctx: self, doc, len: hot.len, hits: &hits, names };
        let root = tree.map(|n| walk.node(n, 1.0, false));
        let (raw, children) = match root {
            Some(p) => (p.value, vec![p.explained]),
            None => (0.0, Vec::new()),
        };
        let slop = || {
            let mut e = ExpansionHits::default();
            if let SlopShape::Expansions { term, stem, .. } = self.slop {
                for &(id, _, _) in hits.get(*term).into_iter().flatten() {
                    e.add(id, *stem);
                }
            }
            self.slop_of(&d, &e) as i64
        };
        let line = match self.scorer {
            Scorer::TfIdf | Scorer::TfIdfDocNorm => {
                let norm = if self.scorer == Scorer::TfIdf { hot.max_freq } else { hot.len };
                format!(
                    "Final TFIDF : words TFIDF {raw:.2} * document score {score:.2} / norm {norm} / slop {}",
                    slop()
                )
            }
            Scorer::Bm25 => {
                format!("Final BM25 : words BM25 {raw:.2} * document score {score:.2} / slop {}", slop())
            }
            Scorer::DisMax => {
                return children.into_iter().next().unwrap_or_else(|| Explanation::line(String::new()))
            }
            _ => format!("Final BM25 : words BM25 {raw:.2} * document score {score:.2}"),
        };
        Explanation { line, children }
    }
}

impl ScoreContext<'_> {
    /// HAMMING's explanation, from the score the caller computed ([`ScoreContext::with_scores`]).
    fn explain_hamming(&self, doc: u32) -> Explanation {
        let s = self.given.as_ref().and_then(|g| g.get(&doc).copied()).unwrap_or(0.0);
        if s <= 0.0 {
            return Explanation::line("Payloads provided to scorer vary in length".into());
        }
        let bits = (1.0 / s - 1.0).round() as u64;
        Explanation::line(format!(
            "String length is {}. Bit count is {bits}. Result is (1 / count + 1) = {s:.2}",
            self.payload_len
        ))
    }
}

/// One document's walk over the result tree.
struct Walk<'a, 'c> {
    ctx: &'a ScoreContext<'c>,
    doc: u32,
    /// The document's length (BM25STD).
    len: u32,
    hits: &'a [Hits],
    names: &'a HashMap<(Option<u16>, u32), String>,
}

impl Walk<'_, '_> {
    fn scorer(&self) -> Scorer {
        self.ctx.scorer
    }

    /// `node` under a parent whose weight in force is `outer`; `in_union`: a child of a
    /// union (left out when the document did not match it).
    fn node(&self, node: &ExplainNode, outer: f64, in_union: bool) -> Part {
        match node {
            ExplainNode::Agg { union, weight, children } => {
                let own = if outer != 0.0 { weight / outer } else { *weight };
                let parts: Vec<Part> = children.iter().map(|c| self.node(c, *weight, *union)).collect();
                let matched =
                    if *union { parts.iter().any(|p| p.matched) } else { parts.iter().all(|p| p.matched) };
                let parts: Vec<Part> = parts.into_iter().filter(|p| !*union || p.matched).collect();
                self.aggregate(own, *union, parts, matched)
            }
            ExplainNode::Term(i) => self.term(*i, outer, in_union),
            ExplainNode::Negated { weight } => {
                self.virtual_result(if outer != 0.0 { weight / outer } else { *weight }, 0.0, true)
            }
        }
    }

    fn aggregate(&self, w: f64, union: bool, parts: Vec<Part>, matched: bool) -> Part {
        let values = parts.iter().map(|p| p.value);
        let sum =
            if self.scorer() == Scorer::DisMax && union { values.fold(0.0, f64::max) } else { values.sum() };
        let line = match self.scorer() {
            Scorer::TfIdf | Scorer::TfIdfDocNorm => {
                format!("(Weight {w:.2} * total children TFIDF {sum:.2})")
            }
            Scorer::DisMax => format!("{:.2} = Weight {w:.2} * children DISMAX {sum:.2}", w * sum),
            _ => format!("(Weight {w:.2} * children BM25 {sum:.2})"),
        };
        let children = parts.into_iter().map(|p| p.explained).collect();
        Part { value: w * sum, explained: Explanation { line, children }, matched }
    }

    fn term(&self, i: usize, outer: f64, in_union: bool) -> Part {
        let Some(t) = self.ctx.terms.get(i) else { return self.virtual_result(0.0, 1.0, false) };
        let w = if outer != 0.0 { t.weight / outer } else { t.weight };
        if !t.counts_in(self.doc) {
            // A word the intersection skipped onto the document: its first expansion alone,
            // a term of its own (`exec::skips`).
            let copy = self.ctx.split_copy_of(i);
            if let Some(j) = copy.filter(|&j| self.ctx.terms[j].counts_in(self.doc)) {
                return self.term(j, outer, in_union);
            }
            // In a union child (an intersection) the document did not match.
            return self.virtual_result(0.0, 1.0, false);
        }
        if let Some((kind, docs)) = &t.leaf {
            let matched = self.ctx.held_by_all.get(i).copied().unwrap_or(false) || docs.contains(self.doc);
            if !matched {
                return self.virtual_result(0.0, 1.0, false);
            }
            if *kind == LeafKind::Numeric && self.scorer().is_bm25std() {
                return Part { value: 0.0, explained: Explanation::line(IRRELEVANT.into()), matched: true };
            }
            return self.virtual_result(w, 1.0, true);
        }
        let hits = &self.hits[i];
        if hits.is_empty() {
            // An optional clause the document lacks: RediSearch's virtual result of weight 0
            // (a union leaves out the children the document did not match).
            return self.virtual_result(0.0, 1.0, !in_union);
        }
        let leaf = |(id, f, idf): (u32, f64, f64), w: f64| {
            let name = self.names.get(&(t.tag_field, id)).map_or("", String::as_str);
            self.term_result(name, w, f, idf)
        };
        // A term result weighs the word's own `$weight` on its exact id.
        // A word's first expansion where an OR around it was skipped onto the document: that
        // union's record holds the expansion's result itself (the word's own union handed its
        // `minResult` up), one level less.
        let skipped_in_or = in_union && hits.len() == 1 && self.ctx.is_split_copy(i);
        if (t.ids.len() == 1 && !t.first_only) || skipped_in_or {
            return leaf(hits[0], w * t.own_weight(hits[0].0));
        }
        // A word's expansions (stems, synonyms, a prefix…): the union of those the document
        // holds (the first of them only, for a quick-exit union).
        let parts: Vec<Part> = hits.iter().map(|&h| leaf(h, t.own_weight(h.0))).collect();
        self.aggregate(w, true, parts, true)
    }

    /// A term result: frequency `f` (weighted by its fields), IDF `idf`.
    fn term_result(&self, name: &str, w: f64, f: f64, idf: f64) -> Part {
        let (value, line) = match self.scorer() {
            Scorer::TfIdf | Scorer::TfIdfDocNorm => {
                let v = w * f * idf;
                (v, format!("(TFIDF {v:.2} = Weight {w:.2} * TF {} * IDF {idf:.2})", f as u32))
            }
            Scorer::Bm25 => self.bm25("IDF", idf, f),
            Scorer::DisMax => dismax(w, f),
            _ => self.bm25std(name, idf, f),
        };
        Part { value, explained: Explanation::line(line), matched: true }
    }

    /// Legacy BM25 of a result of frequency `f`: `x` is its IDF (`label` "IDF", a term) or its
    /// weight ("Weight", a result without a term).
    fn bm25(&self, label: &str, x: f64, f: f64) -> (f64, String) {
        let avg = self.ctx.avg_len;
        let v = bm25(x, f, avg);
        let n = f as u32;
        (v, format!("({v:.2} = {label} {x:.2} * F {n} / (F {n} + k1 1.2 * (1 - b 0.5 + b 0.5 * Average Len {avg:.2})))"))
    }

    /// BM25STD of one term (`*`: idf and frequency 1).
    fn bm25std(&self, name: &str, idf: f64, f: f64) -> (f64, String) {
        let avg = self.ctx.avg_len;
        let len = self.len;
        let v = bm25std(idf, f, len, avg);
        let line = format!(
            "{name}: ({v:.2} = IDF {idf:.2} * (F {f:.2} * (k1 1.2 + 1)) / (F {f:.2} + k1 1.2 * (1 - b 0.5 + b 0.5 * Doc Len {len} / Average Doc Len {avg:.2})))"
        );
        (v, line)
    }

    /// A result without a term (`*`, a range, an optional clause not matched) of weight `w`
    /// and frequency `f`.
    fn virtual_result(&self, w: f64, f: f64, matched: bool) -> Part {
        let (value, line) = match self.scorer() {
            Scorer::TfIdf | Scorer::TfIdfDocNorm => {
                (w * f, format!("(TFIDF {:.2} = Weight {w:.2} * Frequency {})", w * f, f as u32))
            }
            Scorer::Bm25 if f == 0.0 => (0.0, "Frequency 0 -> value 0".to_string()),
            Scorer::Bm25 => self.bm25("Weight", w, f),
            Scorer::DisMax => dismax(w, f),
            _ if w != 0.0 && f != 0.0 => {
                let (v, line) = self.bm25std("*", 1.0, 1.0);
                (w * v, line)
            }
            _ => (0.0, IRRELEVANT.to_string()),
        };
        Part { value, explained: Explanation::line(line), matched }
    }
}

/// DISMAX of a result of frequency `f` and weight `w` (a term or not).
fn dismax(w: f64, f: f64) -> (f64, String) {
    (w * f, format!("DISMAX {:.2} = Weight {w:.2} * Frequency {}", w * f, f as u32))
}

/// BM25STD's line for a result that is no text term.
const IRRELEVANT: &str = "Irrelevant token -> score is 0";
