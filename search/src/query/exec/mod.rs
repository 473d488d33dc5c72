//! Evaluates a [`QueryAst`] against an [`Index`]: bitmap algebra over postings, term
//! expansion (stems, prefixes, fuzzy), phrase/proximity verification on candidates only,
//! and collection of the positive terms the scorer needs.
//!
//! The stages, one file each: [`node`] walks the tree (unions, negation, fields, ranges),
//! [`intersect`] intersects children, [`text`] expands words and checks phrases against
//! positions ([`proximity`]), [`tags`] reads tag values; [`estimate`] and [`skips`] model
//! RediSearch's reading order of an intersection, [`slop_children`] what the slop divisor reads.

use std::collections::{HashMap, HashSet};

use roaring::RoaringBitmap;

use crate::analysis::{Language, Stemmer};
use crate::error::{Error, Result};
use crate::index::text::{FieldMask, ALL_FIELDS};
use crate::index::Index;
use crate::query::profile::{ProfileNode, Recorder};
use crate::query::syntax::QueryAst;
use crate::query::vector::Distances;

mod estimate;
mod glob;
mod intersect;
mod node;
mod proximity;
mod skips;
mod slop_children;
mod tags;
mod text;

pub use proximity::within;

/// Options that change evaluation.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    /// No stem expansion.
    pub verbatim: bool,
    /// Keep stopwords in the query.
    pub no_stopwords: bool,
    /// Text fields searched (INFIELDS).
    pub infields: FieldMask,
    /// Expansion cap for prefix/fuzzy/pattern terms.
    pub max_expansions: usize,
    /// Minimum prefix length.
    pub min_prefix: usize,
    /// Query-level SLOP.
    pub slop: Option<u32>,
    /// Query-level INORDER.
    pub inorder: bool,
    /// Query LANGUAGE (stemming of query terms), when it differs from the index's.
    pub language: Option<Language>,
    /// MINSTEMLEN.
    pub min_stem_len: usize,
    /// Query DIALECT (fuzzy terms reach the empty term only from dialect 2).
    pub dialect: u32,
    /// PARAMS as raw bytes (vector blobs are binary).
    pub blobs: HashMap<String, Vec<u8>>,
    /// The documents the caller may read, when not every one ([`crate::access::visible`]): a
    /// KNN clause takes its k nearest among them. Other hits are filtered after evaluation.
    pub visible: Option<RoaringBitmap>,
    /// When the query's TIMEOUT runs out (from its arrival). Expanding a prefix, suffix,
    /// infix, wildcard or fuzzy term past it fails the query, whatever ON_TIMEOUT says: in
    /// RediSearch those expansions are made while its iterators are built, and a query
    /// whose clock ran out by then is an error (`AREQ_BuildPipeline`).
    pub deadline: Option<std::time::Instant>,
    /// Record [`Matched::explain`] (EXPLAINSCORE).
    pub explain: bool,
    /// Scores will be divided by the slop measure: numeric and geo clauses ask the model of
    /// RediSearch's range trees whether they read as unions there (which counts in the
    /// measure). Off, the model is neither built nor read.
    pub range_unions: bool,
    /// Scores will weigh term frequencies (every scorer but DOCSCORE and HAMMING): a word
    /// read as a union of expansions inside the root intersection counts as RediSearch's
    /// iterators leave it ([`skips`]).
    pub term_scores: bool,
}

/// EXPLAINSCORE's picture of the query: RediSearch's result tree, its intersections and
/// unions over the score terms, children in the order its iterators read them.
#[derive(Debug, Clone)]
pub enum ExplainNode {
    /// Score term `i` of [`Matched::terms`] (a term with several ids is the union of its
    /// expansions).
    Term(usize),
    /// A negated clause: a result of frequency 0 with the weight in force.
    Negated {
        /// The query weight in force there.
        weight: f64,
    },
    /// An intersection or a union of its children.
    Agg {
        /// A union (else an intersection).
        union: bool,
        /// The query weight in force there (the product of the enclosing `$weight`s, as the
        /// score terms carry it).
        weight: f64,
        /// In the order RediSearch reads them.
        children: Vec<ExplainNode>,
    },
}

/// A positive term to score: its expansions and where they count.
#[derive(Debug, Clone)]
pub struct ScoreTerm {
    /// Expanded term ids (text) or tag value ids (tag).
    pub ids: Vec<u32>,
    /// Text fields where occurrences count (text terms).
    pub mask: FieldMask,
    /// Tag field index (tag terms).
    pub tag_field: Option<u16>,
    /// The product of the `$weight`s of the aggregate nodes around it (unions,
    /// intersections, phrases, prefixes, tags, ranges, and the term's own union of
    /// expansions): every scorer multiplies by it.
    pub weight: f64,
    /// A word's own `$weight`, on its exact term id. RediSearch keeps it on the word's term
    /// reader, not on the union of expansions the stemmer wraps it in: it counts for that
    /// id only, and only where its scorers weigh term results (TFIDF, TFIDF.DOCNORM,
    /// DISMAX; the BM25 family leaves a term's weight out).
    pub own: Option<(u32, f64)>,
    /// Only the first of `ids` a document contains counts (RediSearch's "quick exit" union
    /// of prefix, suffix/infix and fuzzy expansions); `ids` are then in term order.
    pub first_only: bool,
    /// A leaf without terms (`*`, a numeric or geo range) that counts as frequency 1 in the
    /// documents it matched (RediSearch's virtual and numeric results); `ids` is empty.
    pub leaf: Option<(LeafKind, RoaringBitmap)>,
    /// The term counts only in these documents: those of the union child (an intersection,
    /// a phrase) it sits in, as RediSearch's union scores only the children a document
    /// matched (`None`: wherever the document holds it).
    pub gate: Option<std::sync::Arc<RoaringBitmap>>,
}

impl ScoreTerm {
    /// The weight of expansion `id` under `scorer`: [`Self::weight`], times the word's own
    /// `$weight` for its exact id where `scorer` weighs term results.
    #[inline]
    pub fn weight_of(&self, id: u32, scorer: crate::query::score::Scorer) -> f64 {
        if scorer.weighs_terms() {
            self.weight * self.own_weight(id)
        } else {
            self.weight
        }
    }

    /// The word's own `$weight` for expansion `id` (1 for the others).
    #[inline]
    pub fn own_weight(&self, id: u32) -> f64 {
        match self.own {
            Some((exact, w)) if exact == id => w,
            _ => 1.0,
        }
    }

    /// False where its [`Self::gate`] leaves document `doc` out.
    #[inline]
    pub fn counts_in(&self, doc: u32) -> bool {
        self.gate.as_ref().is_none_or(|g| g.contains(doc))
    }
}

/// What kind of term-less result a [`ScoreTerm::leaf`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeafKind {
    /// `*`: every document.
    Virtual,
    /// A numeric or geo range.
    Numeric,
}

/// One child of the query's root node, as RediSearch's slop measure sees it: the text term
/// ids whose positions are the child's offsets (`None`: a child without offsets, such as a
/// tag, numeric or negated clause; empty: a child RediSearch reads offsets from that end at
/// once, a union of tag values, whose results have none: `RSIndexResult_HasOffsets` is
/// true of any union of term results).
#[derive(Debug, Clone)]
pub struct SlopChild {
    /// Term ids whose occurrences give the child's positions.
    pub ids: Option<Vec<u32>>,
    /// Documents the child matches (union roots only: which children a document matched).
    pub docids: Option<RoaringBitmap>,
    /// The child is a quick-exit union (prefix, fuzzy, …): only the first of `ids` (in this
    /// order) the document contains gives positions, as RediSearch's union yields that one.
    pub first_only: bool,
    /// [`Self::first_only`] in these documents only: a word's expansions the root
    /// intersection skipped onto them ([`skips`]).
    pub first_only_in: Option<std::sync::Arc<RoaringBitmap>>,
}

/// The shape of the root result the scorers divide by "slop" (RediSearch's
/// `IndexResult_MinOffsetDelta`): TFIDF and BM25 scores are divided by the integer square
/// root of the summed squared minimal distances between consecutive children.
#[derive(Debug, Clone, Default)]
pub enum SlopShape {
    /// A single term (or no aggregate): no division.
    #[default]
    Single,
    /// An intersection (implicit AND, phrase): every child matched.
    Intersect(Vec<SlopChild>),
    /// An exact phrase of this many distinct words, each with no expansion, and positions
    /// checked: consecutive words sit next to each other in every match and no two words
    /// share a position, so each minimal distance is 1 and the divisor is known without
    /// reading positions again.
    Phrase(usize),
    /// A union (`|`): the children a document matched count.
    Union(Vec<SlopChild>),
    /// The expansions of one query term (a word with its stems, a prefix, a fuzzy term): a
    /// union whose children are the ids of score term `term`.
    Expansions {
        /// Index of the root's [`ScoreTerm`] in [`Matched::terms`].
        term: usize,
        /// The `+stem` id among them (the word's other forms sit at its positions).
        stem: Option<u32>,
        /// One child per id.
        children: Vec<SlopChild>,
    },
}

/// The result of evaluation.
#[derive(Debug, Default)]
pub struct Matched {
    /// Matching doc ids.
    pub docids: RoaringBitmap,
    /// Terms for scoring.
    pub terms: Vec<ScoreTerm>,
    /// The root's children for the slop measure.
    pub slop: SlopShape,
    /// Dictionary strings that matched (for highlighting).
    pub highlight: HashSet<String>,
    /// Warnings (RESP3 `warning`).
    pub warnings: Vec<String>,
    /// Vector distances (KNN, YIELD_DISTANCE_AS) and the KNN order.
    pub distances: Distances,
    /// The query's result tree, when [`ExecOptions::explain`] asked for it.
    pub explain: Option<ExplainNode>,
}

/// Evaluates `ast`.
pub fn execute(idx: &Index, ast: &QueryAst, opts: &ExecOptions) -> Result<Matched> {
    run(idx, ast, opts, Recorder::default()).map(|(m, _)| m)
}

/// Evaluates `ast` and records every node evaluated (FT.PROFILE): the root's node, if any.
pub fn execute_profiled(
    idx: &Index,
    ast: &QueryAst,
    opts: &ExecOptions,
) -> Result<(Matched, Option<ProfileNode>)> {
    run(idx, ast, opts, Recorder::active()).map(|(m, prof)| (m, prof.root()))
}

fn run(idx: &Index, ast: &QueryAst, opts: &ExecOptions, prof: Recorder) -> Result<(Matched, Recorder)> {
    let mut ex = Exec {
        prof,
        idx,
        opts,
        out: Matched::default(),
        negated: 0,
        unexpanded: 0,
        weight: 1.0,
        pending_own: None,
        query_stemmer: opts.language.map(|l| Stemmer::for_once(l, opts.min_stem_len)),
        stems: std::cell::RefCell::new(Vec::new()),
        chinese: opts.language.unwrap_or(idx.spec.language).is_chinese(),
        in_chinese: false,
        within: None,
        root_pending: true,
        field_modifiers: 0,
        empty_tag_ok: false,
        token_stem: None,
        explicit_prox: 0,
        phonetic: None,
        phonetic_fields: idx.phonetic_fields(),
        fault: None,
        explained: opts.explain.then(Vec::new),
    };
    // NOFIELDS: the index keeps no field flags, so field restrictions on text are void.
    let mask = if idx.spec.no_fields { ALL_FIELDS } else { opts.infields };
    let bm = ex.eval(ast, mask, None)?;
    if let Some(e) = ex.fault {
        return Err(e);
    }
    let mut m = ex.out;
    m.docids = bm.unwrap_or_default();
    m.explain = ex.explained.and_then(|mut nodes| match nodes.len() {
        0 | 1 => nodes.pop(),
        _ => Some(ExplainNode::Agg { union: false, weight: 1.0, children: nodes }),
    });
    Ok((m, ex.prof))
}

struct Exec<'a> {
    /// FT.PROFILE: the nodes evaluated so far (inactive outside it).
    prof: Recorder,
    idx: &'a Index,
    opts: &'a ExecOptions,
    out: Matched,
    negated: usize,
    /// Depth of nodes RediSearch's expander does not enter (NOT, OPTIONAL, exact phrases):
    /// words there get no synonyms.
    unexpanded: usize,
    /// The product of the `$weight`s of the aggregate nodes being evaluated.
    weight: f64,
    /// A `$weight` attribute met, for the next node below that is not a field modifier or
    /// another attribute block: a word's own weight, or any other node's. OPTIONAL sets its
    /// own for its child (RediSearch's optional iterator writes its weight over its child's
    /// result, so a `$weight` given to the child itself is void).
    pending_own: Option<f64>,
    query_stemmer: Option<Stemmer>,
    /// The query's words stemmed so far ([`Exec::stem_always`]): a word is stemmed for the
    /// root intersection's plan and again for its expansion.
    stems: std::cell::RefCell<Vec<(String, Option<String>)>>,
    /// A Chinese query: words also searched as their segmented words; `in_chinese` inside.
    chinese: bool,
    in_chinese: bool,
    /// For the next word child: a superset of its intersection ([`Exec::dense_candidates`]).
    within: Option<RoaringBitmap>,
    /// True until the root aggregate node (the slop measure's subject) has been met.
    root_pending: bool,
    /// Nesting depth of `@field:` modifiers.
    field_modifiers: usize,
    /// Set once a tag clause on an INDEXEMPTY field was met: RediSearch's validation then
    /// accepts `{""}` on any later tag clause (its flag is per query, not per clause).
    empty_tag_ok: bool,
    /// The `+stem` id of the token expanded last, when it sits at the token's own positions
    /// ([`Exec::expand_token`]).
    token_stem: Option<u32>,
    /// Depth of `=>{$slop/$inorder}` attributes (SLOP/INORDER given for the nodes inside).
    explicit_prox: usize,
    /// The innermost `$phonetic` attribute around the node being evaluated.
    phonetic: Option<bool>,
    /// The text fields (as a mask) that are PHONETIC.
    phonetic_fields: FieldMask,
    /// An error met where evaluation goes on (a word's expansion), returned at the end.
    fault: Option<Error>,
    /// EXPLAINSCORE: the result-tree nodes made so far, innermost last (None: not asked).
    explained: Option<Vec<ExplainNode>>,
}

/// How many of a query's words [`Exec::stem_always`] remembers.
const STEMS_KEPT: usize = 32;

/// RediSearch's error for `""` on fields that do not index empty values.
const NO_INDEXEMPTY: &str =
    "Use `INDEXEMPTY` in field creation in order to index and query for empty strings";

/// Proximity constraint.
#[derive(Clone, Copy)]
struct Prox {
    slop: u32,
    inorder: bool,
}

impl<'a> Exec<'a> {
    fn universe(&self) -> RoaringBitmap {
        self.idx.docs.live.clone()
    }

    /// `Timeout limit was reached` once the query's deadline has passed.
    fn check_deadline(&self) -> Result<()> {
        match self.opts.deadline {
            Some(d) if std::time::Instant::now() > d => Err(Error::timeout()),
            _ => Ok(()),
        }
    }

    fn warn(&mut self, w: &str) {
        if !self.out.warnings.iter().any(|x| x == w) {
            self.out.warnings.push(w.to_string());
        }
    }

    /// Claims the root for the slop measure: true for the first aggregate node met.
    fn take_root(&mut self) -> bool {
        std::mem::replace(&mut self.root_pending, false)
    }

    /// SLOP/INORDER (given on the query or as attributes) on an intersection or phrase
    /// over a JSON TEXT field without a defined value order is an error (RediSearch).
    fn check_order(&self, mask: FieldMask) -> Result<()> {
        if self.explicit_prox == 0 && self.opts.slop.is_none() && !self.opts.inorder {
            return Ok(());
        }
        for (i, f) in self.idx.spec.fields.iter().enumerate() {
            if f.undefined_order && self.idx.text_ord(i).is_some_and(|o| mask & (1u128 << o) != 0) {
                return Err(Error::new(format!(
                    "slop/inorder are not supported for field `{}` since it has undefined ordering",
                    f.name
                )));
            }
        }
        Ok(())
    }

    /// A union of expansions at the root (recorded next as score term): each expansion is
    /// a child.
    fn expansion_root(&mut self, ids: &[u32], stem: Option<u32>) {
        if self.take_root() && ids.len() > 1 {
            self.out.slop = SlopShape::Expansions {
                term: self.out.terms.len(),
                stem,
                children: ids
                    .iter()
                    .map(|&id| SlopChild {
                        ids: Some(vec![id]),
                        docids: None,
                        first_only: false,
                        first_only_in: None,
                    })
                    .collect(),
            };
        }
    }

    /// The `+stem` id among the expansions of the token expanded last, when it sits at the
    /// token's own positions.
    /// The query stemmer's stem of `tok`, even when equal to it ([`Stemmer::stem_always`]),
    /// stemmed once per query.
    fn stem_always(&self, tok: &str) -> Option<String> {
        if let Some((_, st)) = self.stems.borrow().iter().find(|(w, _)| w == tok) {
            return st.clone();
        }
        let st = self.query_stemmer.as_ref().unwrap_or(&self.idx.stemmer).stem_always(tok);
        let mut stems = self.stems.borrow_mut();
        // The first words only: a query of thousands of words must not search a long list
        // at each one (the rest are stemmed again, as before the memo).
        if stems.len() < STEMS_KEPT {
            stems.push((tok.to_string(), st.clone()));
        }
        st
    }

    fn stem_of(&self, ids: &[u32]) -> Option<u32> {
        self.token_stem.filter(|id| ids.contains(id))
    }

    /// `""` on text: allowed without a field modifier; with one, some TEXT field named must
    /// be INDEXEMPTY (naming no TEXT field at all is no error, it just matches nothing).
    fn check_empty_text(&self, mask: FieldMask) -> Result<()> {
        if self.field_modifiers == 0 {
            return Ok(());
        }
        let mut any_text = false;
        for (i, f) in self.idx.spec.fields.iter().enumerate() {
            let Some(o) = self.idx.text_ord(i) else { continue };
            if mask & (1u128 << o) == 0 {
                continue;
            }
            if f.index_empty {
                return Ok(());
            }
            any_text = true;
        }
        if any_text {
            Err(Error::new(NO_INDEXEMPTY))
        } else {
            Ok(())
        }
    }

    /// Records a term-less leaf matching `docs` for scoring.
    fn record_leaf(&mut self, kind: LeafKind, docs: &RoaringBitmap) {
        if self.negated == 0 {
            self.push_term(ScoreTerm {
                ids: Vec::new(),
                mask: 0,
                tag_field: None,
                weight: self.weight,
                own: None,
                first_only: false,
                leaf: Some((kind, docs.clone())),
                gate: None,
            });
        }
    }

    fn record(&mut self, ids: Vec<u32>, mask: FieldMask, tag_field: Option<u16>) {
        self.record_own(ids, mask, tag_field, None);
    }

    /// [`Self::record`] of a word whose own `$weight` sits on term id `own.0`.
    fn record_own(
        &mut self,
        ids: Vec<u32>,
        mask: FieldMask,
        tag_field: Option<u16>,
        own: Option<(u32, f64)>,
    ) {
        if self.negated == 0 && !ids.is_empty() {
            self.push_term(ScoreTerm {
                ids,
                mask,
                tag_field,
                weight: self.weight,
                own,
                first_only: false,
                leaf: None,
                gate: None,
            });
        }
    }

    /// Adds a score term (and, for EXPLAINSCORE, its leaf of the result tree).
    fn push_term(&mut self, t: ScoreTerm) {
        // A text term no searched field can hold has no reader in RediSearch's tree.
        let readable = t.mask != 0 || t.tag_field.is_some() || t.leaf.is_some();
        self.out.terms.push(t);
        let i = self.out.terms.len() - 1;
        if let Some(x) = self.explained.as_mut().filter(|_| readable) {
            x.push(ExplainNode::Term(i));
        }
    }

    /// True for a union child whose documents can lack some of its terms' (an intersection,
    /// a phrase): its terms must not count where it did not match.
    fn narrows(&self, ast: &QueryAst) -> bool {
        match ast {
            QueryAst::And(_) | QueryAst::Phrase(_) => true,
            QueryAst::Word(w) => self.tokens(w).len() > 1,
            QueryAst::Field(_, inner) => self.narrows(inner),
            QueryAst::Attrs { inner, .. } => self.narrows(inner),
            _ => false,
        }
    }

    /// Limits the score terms recorded since `start` to the documents `docs` (see
    /// [`ScoreTerm::gate`]).
    fn gate_terms(&mut self, start: usize, docs: &RoaringBitmap) {
        let shared = std::sync::Arc::new(docs.clone());
        for t in self.out.terms.iter_mut().skip(start) {
            t.gate = Some(match t.gate.take() {
                Some(inner) => std::sync::Arc::new(&*inner & docs),
                None => shared.clone(),
            });
        }
    }

    /// EXPLAINSCORE: a negated clause, RediSearch's result of frequency 0.
    fn explain_negation(&mut self) {
        let weight = self.weight;
        if let Some(x) = &mut self.explained {
            x.push(ExplainNode::Negated { weight });
        }
    }

    /// EXPLAINSCORE: where the nodes of an aggregate about to be evaluated will start.
    fn explain_mark(&self) -> usize {
        self.explained.as_ref().map_or(0, Vec::len)
    }

    /// EXPLAINSCORE: the nodes made since `mark` become the children of one aggregate. With
    /// `clauses`, the node offsets (from `mark`) where each child clause's nodes start and the
    /// order the clauses are read in: one child per clause (a clause that made several nodes
    /// is their intersection, one that made none is left out).
    fn explain_close(&mut self, mark: usize, union: bool, clauses: Option<(&[usize], &[usize])>) {
        let weight = self.weight;
        let Some(x) = &mut self.explained else { return };
        let mut made = x.split_off(mark.min(x.len()));
        if let Some((starts, order)) = clauses {
            let mut per_clause: Vec<Vec<ExplainNode>> = Vec::with_capacity(starts.len());
            for &s in starts.iter().rev() {
                per_clause.push(made.split_off(s.min(made.len())));
            }
            per_clause.reverse();
            made = order
                .iter()
                .filter_map(|&i| {
                    let mut g = std::mem::take(per_clause.get_mut(i)?);
                    match g.len() {
                        0 => None,
                        1 => g.pop(),
                        _ => Some(ExplainNode::Agg { union: false, weight, children: g }),
                    }
                })
                .collect();
        }
        // RediSearch builds no aggregate of one child: the child stands for it.
        if made.len() == 1 {
            x.append(&mut made);
        } else {
            x.push(ExplainNode::Agg { union, weight, children: made });
        }
    }
}
