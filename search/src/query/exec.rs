//! Evaluates a [`QueryAst`] against an [`Index`]: bitmap algebra over postings, term
//! expansion (stems, prefixes, fuzzy), phrase/proximity verification on candidates only,
//! and collection of the positive terms the scorer needs.

use std::collections::{HashMap, HashSet};

use roaring::RoaringBitmap;

use crate::analysis::{Language, Stemmer, STEM_PREFIX};
use crate::error::{Error, Result};
use crate::index::geo::unit_factor;
use crate::index::postings::PosCursor;
use crate::index::text::{FieldMask, ALL_FIELDS};
use crate::index::{FieldIndex, Index, EMPTY_TERM};
use crate::query::profile::{self, ProfileNode, Recorder};
use crate::query::syntax::{unescape, QueryAst, TagTerm};
use crate::query::vector::{self, Distances};
use crate::schema::FieldType;

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
    /// Query weight.
    pub weight: f64,
    /// Only the first of `ids` a document contains counts (RediSearch's "quick exit" union
    /// of prefix, suffix/infix and fuzzy expansions); `ids` are then in term order.
    pub first_only: bool,
    /// A leaf without terms (`*`, a numeric or geo range) that counts as frequency 1 in the
    /// documents it matched (RediSearch's virtual and numeric results); `ids` is empty.
    pub leaf: Option<(LeafKind, RoaringBitmap)>,
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
/// tag, numeric or negated clause).
#[derive(Debug, Clone)]
pub struct SlopChild {
    /// Term ids whose occurrences give the child's positions.
    pub ids: Option<Vec<u32>>,
    /// Documents the child matches (union roots only: which children a document matched).
    pub docids: Option<RoaringBitmap>,
    /// The child is a quick-exit union (prefix, fuzzy, …): only the first of `ids` (in this
    /// order) the document contains gives positions, as RediSearch's union yields that one.
    pub first_only: bool,
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
        query_stemmer: opts.language.map(|l| Stemmer::new(l, opts.min_stem_len)),
        root_pending: true,
        field_modifiers: 0,
        empty_tag_ok: false,
        stem_ids: Vec::new(),
        explicit_prox: 0,
    };
    // NOFIELDS: the index keeps no field flags, so field restrictions on text are void.
    let mask = if idx.spec.no_fields { ALL_FIELDS } else { opts.infields };
    let bm = ex.eval(ast, mask, None)?;
    let mut m = ex.out;
    m.docids = bm.unwrap_or_default();
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
    weight: f64,
    query_stemmer: Option<Stemmer>,
    /// True until the root aggregate node (the slop measure's subject) has been met.
    root_pending: bool,
    /// Nesting depth of `@field:` modifiers.
    field_modifiers: usize,
    /// Set once a tag clause on an INDEXEMPTY field was met: RediSearch's validation then
    /// accepts `{""}` on any later tag clause (its flag is per query, not per clause).
    empty_tag_ok: bool,
    /// `+stem` term ids met while expanding tokens.
    stem_ids: Vec<u32>,
    /// Depth of `=>{$slop/$inorder}` attributes (SLOP/INORDER given for the nodes inside).
    explicit_prox: usize,
}

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
    /// RediSearch's estimate of an intersection child's number of results (its iterator's
    /// `NumEstimated`): a word, the documents of each of its expansions summed; a nested
    /// intersection 0 (RediSearch divides its estimate by its child count in integers); a
    /// negated or optional clause every document; anything else the documents it matched.
    fn estimate(&self, it: &QueryAst, terms: std::ops::Range<usize>, result: Option<&RoaringBitmap>) -> u64 {
        match it {
            QueryAst::Not(_) | QueryAst::Optional(_) => self.idx.docs.live.len(),
            QueryAst::And(_) => 0,
            QueryAst::Word(_) => match self.text_ids_in(terms) {
                Some(ids) => ids.iter().map(|&id| self.idx.text.doc_freq(id)).sum(),
                None => result.map_or(0, RoaringBitmap::len),
            },
            _ => result.map_or(0, RoaringBitmap::len),
        }
    }

    fn universe(&self) -> RoaringBitmap {
        self.idx.docs.live.clone()
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

    /// Text term ids recorded since `start` (a child's offsets), `None` when there are none.
    /// The slop child for the score terms recorded since `start`: a lone quick-exit term
    /// keeps its expansions in term order and is marked first-only.
    fn slop_child(&self, start: usize, docids: Option<RoaringBitmap>) -> SlopChild {
        match self.out.terms.get(start..).unwrap_or(&[]) {
            [t] if t.first_only => SlopChild { ids: Some(t.ids.clone()), docids, first_only: true },
            _ => SlopChild { ids: self.text_ids_since(start), docids, first_only: false },
        }
    }

    fn text_ids_since(&self, start: usize) -> Option<Vec<u32>> {
        self.text_ids_in(start..self.out.terms.len())
    }

    /// Text term ids of the score terms in `terms`, sorted, `None` when there are none.
    fn text_ids_in(&self, terms: std::ops::Range<usize>) -> Option<Vec<u32>> {
        let mut ids: Vec<u32> = self
            .out
            .terms
            .get(terms)
            .unwrap_or(&[])
            .iter()
            .filter(|t| t.tag_field.is_none())
            .flat_map(|t| t.ids.iter().copied())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        (!ids.is_empty()).then_some(ids)
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
                    .map(|&id| SlopChild { ids: Some(vec![id]), docids: None, first_only: false })
                    .collect(),
            };
        }
    }

    /// The `+stem` id among a token's expansions.
    fn stem_of(&self, ids: &[u32]) -> Option<u32> {
        ids.iter().copied().find(|&id| self.stem_ids.contains(&id))
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
            self.out.terms.push(ScoreTerm {
                ids: Vec::new(),
                mask: 0,
                tag_field: None,
                weight: self.weight,
                first_only: false,
                leaf: Some((kind, docs.clone())),
            });
        }
    }

    fn record(&mut self, ids: Vec<u32>, mask: FieldMask, tag_field: Option<u16>) {
        if self.negated == 0 && !ids.is_empty() {
            self.out.terms.push(ScoreTerm {
                ids,
                mask,
                tag_field,
                weight: self.weight,
                first_only: false,
                leaf: None,
            });
        }
    }

    /// Term ids a single token expands to (exact, `+stem`, stem).
    fn expand_token(&mut self, tok: &str, mask: FieldMask) -> Vec<u32> {
        let dict = &self.idx.text.dict;
        let mut ids = Vec::new();
        let push = |s: &str, ids: &mut Vec<u32>, hl: &mut HashSet<String>| {
            if let Some(id) = dict.get(s) {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
            hl.insert(s.to_string());
        };
        push(tok, &mut ids, &mut self.out.highlight);
        if !self.opts.verbatim && self.unexpanded == 0 {
            // RediSearch's synonym expander: the word's groups, indexed as `~<group>`; every
            // word of those groups is highlighted.
            let synonyms = &self.idx.synonyms;
            for g in synonyms.group_terms(tok) {
                if let Some(id) = dict.get(&g) {
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
            }
            self.out.highlight.extend(synonyms.same_group(tok).map(str::to_string));
        }
        // RediSearch's expander skips exact phrases and what `-` or `~` apply to.
        let stemmable = !self.opts.verbatim && self.unexpanded == 0 && self.idx.stems_in(mask);
        if stemmable {
            let stemmer = self.query_stemmer.as_ref().unwrap_or(&self.idx.stemmer);
            if let Some(st) = stemmer.stem_always(tok) {
                let marked = format!("{STEM_PREFIX}{st}");
                if let Some(id) = dict.get(&marked) {
                    self.stem_ids.push(id);
                }
                push(&marked, &mut ids, &mut self.out.highlight);
                if st != tok {
                    push(&st, &mut ids, &mut self.out.highlight);
                }
            }
        }
        ids
    }

    fn docs_of(&self, ids: &[u32], mask: FieldMask) -> RoaringBitmap {
        let mut bm = RoaringBitmap::new();
        for &id in ids {
            bm |= self.idx.term_docs(id, mask);
        }
        bm
    }

    fn tokens(&self, raw: &str) -> Vec<String> {
        self.idx.query_words(raw, self.opts.no_stopwords)
    }

    /// Evaluates one node; when profiling, records it with the nodes its evaluation met.
    fn eval(&mut self, ast: &QueryAst, mask: FieldMask, prox: Option<Prox>) -> Result<Option<RoaringBitmap>> {
        if !self.prof.is_active() || profile::transparent(ast) {
            return self.eval_node(ast, mask, prox);
        }
        let frame = self.prof.open();
        let r = self.eval_node(ast, mask, prox);
        let counter = r.as_ref().ok().and_then(|bm| bm.as_ref().map(|bm| bm.len()));
        self.prof.close(frame, ast, counter);
        r
    }

    /// FT.PROFILE: the expansions of one word (its stems, synonyms) as readers of a union.
    fn profile_expansions(&mut self, ids: &[u32], mask: FieldMask) {
        if !self.prof.is_active() || ids.len() < 2 {
            return;
        }
        let mut named = self.idx.text.dict.scan(|_, id| ids.contains(&id), ids.len());
        named.sort_by_key(|(_, id)| ids.iter().position(|x| x == id));
        let (idx, prof) = (self.idx, &mut self.prof);
        prof.readers("TEXT", &named, |id| idx.term_docs(id, mask).len());
    }

    fn eval_node(
        &mut self,
        ast: &QueryAst,
        mask: FieldMask,
        prox: Option<Prox>,
    ) -> Result<Option<RoaringBitmap>> {
        // Leaves without offsets (and negations) are the root themselves when met first;
        // modifiers pass the root down, aggregates claim it where they are evaluated.
        if !matches!(
            ast,
            QueryAst::Attrs { .. }
                | QueryAst::Field(..)
                | QueryAst::And(_)
                | QueryAst::Or(_)
                | QueryAst::Word(_)
                | QueryAst::Phrase(_)
                | QueryAst::Prefix(_)
                | QueryAst::Suffix(_)
                | QueryAst::Infix(_)
                | QueryAst::Fuzzy(..)
        ) {
            self.take_root();
        }
        Ok(match ast {
            QueryAst::MatchAll => {
                let all = self.universe();
                self.record_leaf(LeafKind::Virtual, &all);
                Some(all)
            }
            QueryAst::Word(w) if w.is_empty() => {
                // `""`: documents whose (INDEXEMPTY) TEXT field is the empty string.
                self.check_empty_text(mask)?;
                self.take_root();
                let ids: Vec<u32> = self.idx.text.dict.get(EMPTY_TERM).into_iter().collect();
                self.out.highlight.insert(EMPTY_TERM.to_string());
                let bm = self.docs_of(&ids, mask);
                self.record(ids, mask, None);
                Some(bm)
            }
            QueryAst::Word(w) => {
                let toks = self.tokens(w);
                match toks.as_slice() {
                    [] => None,
                    [tok] => {
                        let ids = self.expand_token(tok, mask);
                        self.profile_expansions(&ids, mask);
                        let bm = self.docs_of(&ids, mask);
                        let stem = self.stem_of(&ids);
                        self.expansion_root(&ids, stem);
                        self.record(ids, mask, None);
                        Some(bm)
                    }
                    _ => Some(self.phrase(&toks, mask, Prox { slop: 0, inorder: true })),
                }
            }
            QueryAst::Phrase(text) => {
                self.check_order(mask)?;
                let toks = self.tokens(text);
                // A quoted phrase is exact whatever SLOP, INORDER or `$slop` say (RediSearch).
                let _ = prox;
                let p = Prox { slop: 0, inorder: true };
                if toks.is_empty() {
                    None
                } else {
                    self.unexpanded += 1;
                    let r = self.phrase(&toks, mask, p);
                    self.unexpanded -= 1;
                    Some(r)
                }
            }
            QueryAst::Prefix(w) => {
                let p = unescape(w).to_lowercase();
                if p.chars().count() < self.opts.min_prefix {
                    return Ok(Some(RoaringBitmap::new()));
                }
                let text = &self.idx.text;
                let found = text.dict.prefix(&p, |id| text.is_live(id), self.opts.max_expansions + 1);
                self.expanded(found, mask)
            }
            QueryAst::Suffix(w) | QueryAst::Infix(w) => {
                let p = unescape(w).to_lowercase();
                // MINPREFIX bounds suffix and infix terms too (RediSearch 2.10).
                if p.chars().count() < self.opts.min_prefix {
                    return Ok(Some(RoaringBitmap::new()));
                }
                let suffix = matches!(ast, QueryAst::Suffix(_));
                let text = &self.idx.text;
                // Stem terms (`+index`) take part, as in RediSearch's suffix trie: `*ndex`
                // finds a document with "indexing".
                let found = text.dict.scan(
                    |t, id| (if suffix { t.ends_with(&p) } else { t.contains(&p) }) && text.is_live(id),
                    self.opts.max_expansions + 1,
                );
                self.expanded(found, mask)
            }
            QueryAst::Fuzzy(w, d) => {
                let p = unescape(w).to_lowercase();
                let text = &self.idx.text;
                let found = text.dict.fuzzy(&p, *d, |id| text.is_live(id), usize::MAX);
                // Stem terms (`+index`) are within reach, as in RediSearch's trie walk: `%index%`
                // finds a document with "indexing". The empty term (INDEXEMPTY) is, from dialect 2.
                let found: Vec<_> =
                    found.into_iter().filter(|(t, _)| self.opts.dialect >= 2 || t != EMPTY_TERM).collect();
                self.expanded(found, mask)
            }
            QueryAst::And(items) => self.and(items, mask, prox)?,
            QueryAst::Or(items) => {
                let root = self.take_root();
                let mut children = Vec::new();
                let mut acc: Option<RoaringBitmap> = None;
                for it in items {
                    let start = self.out.terms.len();
                    let r = self.eval(it, mask, prox)?;
                    if root {
                        children.push(self.slop_child(start, r.clone()));
                    }
                    if let Some(bm) = r {
                        acc = Some(match acc {
                            Some(mut a) => {
                                a |= bm;
                                a
                            }
                            None => bm,
                        });
                    }
                }
                if root {
                    self.out.slop = SlopShape::Union(children);
                }
                acc
            }
            QueryAst::Not(inner) => {
                self.negated += 1;
                self.unexpanded += 1;
                let r = self.eval(inner, mask, prox);
                self.unexpanded -= 1;
                self.negated -= 1;
                r?.map(|bm| self.universe() - bm)
            }
            QueryAst::Optional(inner) => {
                // Optional never constrains: it matches everything and only adds score.
                self.unexpanded += 1;
                let r = self.eval(inner, mask, prox);
                self.unexpanded -= 1;
                r?;
                Some(self.universe())
            }
            QueryAst::Field(fields, inner) => {
                let named = self.field_mask(fields);
                // NOFIELDS: a text field restriction matches every text field.
                let m = if self.idx.spec.no_fields && named != 0 { mask } else { named & mask };
                self.field_modifiers += 1;
                let r = self.eval(inner, m, prox);
                self.field_modifiers -= 1;
                r?
            }
            QueryAst::Tag(fields, terms) => Some(self.tag(fields, terms)?),
            QueryAst::Numeric(field, lo, hi) => {
                let bm = match self.field(field) {
                    Some((_, FieldIndex::Numeric(ni))) => {
                        ni.range(lo.value, lo.inclusive, hi.value, hi.inclusive)
                    }
                    _ => RoaringBitmap::new(),
                };
                self.record_leaf(LeafKind::Numeric, &bm);
                Some(bm)
            }
            // INKEYS: RediSearch's id-list result has no positions and frequency 0, so it
            // adds nothing to a score but counts as a child of the intersection.
            QueryAst::Keys(keys) => Some(keys.iter().filter_map(|k| self.idx.docs.id_of(k)).collect()),
            QueryAst::Geo { field, lon, lat, radius, unit } => {
                let f = unit_factor(unit).ok_or_else(|| Error::new("Invalid GeoFilter unit"))?;
                let bm = match self.field(field) {
                    Some((_, FieldIndex::Geo(gi))) => gi.radius(*lon, *lat, radius * f),
                    _ => RoaringBitmap::new(),
                };
                self.record_leaf(LeafKind::Numeric, &bm);
                Some(bm)
            }
            QueryAst::Knn(c) => {
                let mut filter = match c.filter.as_ref() {
                    QueryAst::MatchAll => None,
                    f => Some(self.eval(f, mask, prox)?.unwrap_or_default()),
                };
                if let Some(v) = &self.opts.visible {
                    filter = Some(filter.map_or_else(|| v.clone(), |f| f & v));
                }
                let hits = vector::knn(self.idx, c, filter.as_ref(), &self.opts.blobs)?;
                let bm: RoaringBitmap = hits.iter().map(|h| h.doc).collect();
                self.out.distances.add(c.score_name(), &hits);
                self.out.distances.knn = Some(hits);
                Some(bm)
            }
            QueryAst::VectorRange(c) => {
                let hits = vector::range(self.idx, c, &self.opts.blobs)?;
                let bm: RoaringBitmap = hits.iter().map(|h| h.doc).collect();
                if let Some(name) = &c.yield_as {
                    self.out.distances.add(name.clone(), &hits);
                }
                Some(bm)
            }
            QueryAst::Missing(field) => match self.idx.spec.field(field) {
                Some((i, f)) if f.index_missing => self.idx.missing.get(i).cloned(),
                _ => return Err(Error::new("'ismissing' requires field to be defined with 'INDEXMISSING'")),
            },
            QueryAst::Attrs { inner, weight, slop, inorder } => {
                let saved = self.weight;
                if let Some(w) = weight {
                    self.weight *= w;
                }
                let given = slop.is_some() || inorder.is_some();
                let p = if given {
                    Some(Prox { slop: slop.unwrap_or(u32::MAX / 4), inorder: inorder.unwrap_or(false) })
                } else {
                    prox
                };
                self.explicit_prox += usize::from(given);
                let r = self.eval(inner, mask, p);
                self.explicit_prox -= usize::from(given);
                self.weight = saved;
                r?
            }
        })
    }

    fn field(&self, name: &str) -> Option<(usize, &'a FieldIndex)> {
        let idx = self.idx;
        let (i, _) = idx.spec.field(name)?;
        idx.fields.get(i).map(|f| (i, f))
    }

    fn field_mask(&self, fields: &[String]) -> FieldMask {
        let mut m = 0;
        for f in fields {
            if let Some((i, spec)) = self.idx.spec.field(f) {
                if spec.kind == FieldType::Text {
                    if let Some(o) = self.idx.text_ord(i) {
                        m |= 1u128 << o;
                    }
                }
            }
        }
        m
    }

    fn expanded(&mut self, mut found: Vec<(String, u32)>, mask: FieldMask) -> Option<RoaringBitmap> {
        if found.len() > self.opts.max_expansions {
            found.truncate(self.opts.max_expansions);
            self.warn("Max prefix expansions limit was reached");
        }
        // RediSearch reads these expansions as a "quick exit" union, in term order: a document
        // scores by the first expansion it contains, and the root result has that one child
        // (no slop divisor).
        found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let ids: Vec<u32> = found.iter().map(|(_, id)| *id).collect();
        // FT.PROFILE: each expansion is a child reader of the union.
        let (idx, prof) = (self.idx, &mut self.prof);
        prof.readers("TEXT", &found, |id| idx.term_docs(id, mask).len());
        for (t, _) in found {
            self.out.highlight.insert(t);
        }
        let bm = self.docs_of(&ids, mask);
        self.take_root();
        if self.negated == 0 && !ids.is_empty() {
            self.out.terms.push(ScoreTerm {
                ids,
                mask,
                tag_field: None,
                weight: self.weight,
                first_only: true,
                leaf: None,
            });
        }
        Some(bm)
    }

    fn and(
        &mut self,
        items: &[QueryAst],
        mask: FieldMask,
        prox: Option<Prox>,
    ) -> Result<Option<RoaringBitmap>> {
        let mut pos: Vec<RoaringBitmap> = Vec::new();
        let mut neg: Vec<RoaringBitmap> = Vec::new();
        // INORDER without SLOP still orders the terms (RediSearch: slop becomes unlimited).
        let prox = prox.or(match (self.opts.slop, self.opts.inorder) {
            (Some(slop), inorder) => Some(Prox { slop, inorder }),
            (None, true) => Some(Prox { slop: u32::MAX / 4, inorder: true }),
            (None, false) => None,
        });
        self.check_order(mask)?;
        let mut prox_groups: Vec<Vec<u32>> = Vec::new();
        let mut saw_optional = false;
        let root = self.take_root();
        let mut children = Vec::new();
        // Per child: where its score terms and its result start (for its estimate).
        let mut starts = Vec::new();
        for it in items {
            let start = self.out.terms.len();
            starts.push((start, pos.len()));
            match it {
                QueryAst::Not(inner) => {
                    // As in a lone NOT: negated words are not expanded.
                    let frame = self.prof.open();
                    self.negated += 1;
                    self.unexpanded += 1;
                    let r = self.eval(inner, mask, None);
                    self.unexpanded -= 1;
                    self.negated -= 1;
                    let r = r?;
                    let counter =
                        r.as_ref().map(|bm| self.idx.docs.live.len() - (&self.idx.docs.live & bm).len());
                    self.prof.close(frame, it, counter);
                    if let Some(bm) = r {
                        neg.push(bm);
                    }
                }
                QueryAst::Optional(inner) => {
                    let frame = self.prof.open();
                    self.unexpanded += 1;
                    let r = self.eval(inner, mask, None);
                    self.unexpanded -= 1;
                    r?;
                    // An optional clause matches every document.
                    self.prof.close(frame, it, Some(self.idx.docs.live.len()));
                    saw_optional = true;
                }
                QueryAst::Word(w) if prox.is_some() => {
                    let toks = self.tokens(w);
                    if let [t] = toks.as_slice() {
                        let frame = self.prof.open();
                        let ids = self.expand_token(t, mask);
                        self.profile_expansions(&ids, mask);
                        let bm = self.docs_of(&ids, mask);
                        self.prof.close(frame, it, Some(bm.len()));
                        pos.push(bm);
                        prox_groups.push(ids.clone());
                        self.record(ids, mask, None);
                    } else if let Some(bm) = self.eval(it, mask, prox)? {
                        pos.push(bm);
                    }
                }
                _ => {
                    if let Some(bm) = self.eval(it, mask, prox)? {
                        pos.push(bm);
                    }
                }
            }
            if root {
                children.push(self.slop_child(start, None));
            }
        }
        if root {
            // RediSearch sorts an intersection's children by their estimated number of
            // results, fewest first (unless in order), and its slop measure pairs them in
            // that order: with three or more terms the order changes the score.
            if children.len() >= 3 && !prox.is_some_and(|p| p.inorder) {
                let ends: Vec<usize> =
                    starts.iter().skip(1).map(|s| s.0).chain([self.out.terms.len()]).collect();
                let est: Vec<u64> = items
                    .iter()
                    .zip(starts.iter().zip(ends))
                    .map(|(it, (&(start, at), end))| self.estimate(it, start..end, pos.get(at)))
                    .collect();
                let mut order: Vec<usize> = (0..children.len()).collect();
                order.sort_by_key(|&i| est[i]);
                let mut taken: Vec<Option<SlopChild>> = children.into_iter().map(Some).collect();
                children = order.into_iter().filter_map(|i| taken[i].take()).collect();
            }
            self.out.slop = SlopShape::Intersect(children);
        }
        if pos.is_empty() && neg.is_empty() {
            return Ok(saw_optional.then(|| self.universe()));
        }
        pos.sort_by_key(|b| b.len());
        let mut acc = match pos.len() {
            0 => self.universe(),
            _ => {
                let mut it = pos.into_iter();
                let mut a = it.next().unwrap_or_default();
                for b in it {
                    if a.is_empty() {
                        break;
                    }
                    a &= b;
                }
                a
            }
        };
        for n in neg {
            acc -= n;
        }
        if let Some(p) = prox {
            if prox_groups.len() > 1 {
                acc = self.verify(acc, &prox_groups, mask, p);
            }
        }
        Ok(Some(acc))
    }

    fn phrase(&mut self, toks: &[String], mask: FieldMask, p: Prox) -> RoaringBitmap {
        let mut groups = Vec::with_capacity(toks.len());
        let mut acc: Option<RoaringBitmap> = None;
        if self.take_root() {
            // A phrase is an intersection of its words (each with its expansions); a
            // one-word phrase is that word's expansions.
            match toks {
                [one] => {
                    let ids = self.expand_token(one, mask);
                    self.root_pending = true;
                    let stem = self.stem_of(&ids);
                    self.expansion_root(&ids, stem);
                }
                _ => {
                    let children: Vec<SlopChild> = toks
                        .iter()
                        .map(|t| SlopChild {
                            ids: Some(self.expand_token(t, mask)),
                            docids: None,
                            first_only: false,
                        })
                        .collect();
                    self.out.slop = if self.exact_words(toks, &children, p) {
                        SlopShape::Phrase(children.len())
                    } else {
                        SlopShape::Intersect(children)
                    };
                }
            }
        }
        for t in toks {
            let ids = self.expand_token(t, mask);
            let bm = self.docs_of(&ids, mask);
            acc = Some(match acc {
                Some(a) => a & bm,
                None => bm,
            });
            groups.push(ids.clone());
            self.record(ids, mask, None);
        }
        let acc = acc.unwrap_or_default();
        if groups.len() < 2 {
            return acc;
        }
        self.verify(acc, &groups, mask, p)
    }

    /// Whether a phrase's `children` (one per token of `toks`) are distinct words, each its
    /// own term only (no stem, synonym or other expansion: those share positions), checked
    /// for adjacency in order ([`SlopShape::Phrase`]).
    fn exact_words(&self, toks: &[String], children: &[SlopChild], p: Prox) -> bool {
        if self.idx.spec.no_offsets || p.slop != 0 || !p.inorder {
            return false;
        }
        let mut seen = Vec::with_capacity(children.len());
        toks.iter().zip(children).all(|(tok, c)| match c.ids.as_deref() {
            Some(&[id]) if self.idx.text.dict.get(tok) == Some(id) && !seen.contains(&id) => {
                seen.push(id);
                true
            }
            _ => false,
        })
    }

    /// Keeps candidates whose groups occur within the proximity. As in RediSearch, a term
    /// takes part when it occurs in a searched field, and then with all its positions in the
    /// document (positions run on across fields, so a phrase can span two fields).
    fn verify(&self, cands: RoaringBitmap, groups: &[Vec<u32>], mask: FieldMask, p: Prox) -> RoaringBitmap {
        if self.idx.spec.no_offsets {
            return cands;
        }
        // Each term once, with the groups it is in, and a cursor on its postings.
        let mut wanted: Vec<(u32, Vec<usize>)> = Vec::new();
        for (g, ids) in groups.iter().enumerate() {
            for &id in ids {
                match wanted.iter_mut().find(|w| w.0 == id) {
                    Some(w) => w.1.push(g),
                    None => wanted.push((id, vec![g])),
                }
            }
        }
        let cursors: Vec<PosCursor> = wanted.iter().map(|_| PosCursor::default()).collect();
        // Per group: the positions found in the current document (buffers reused).
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); groups.len()];
        let mut buf: Vec<u32> = Vec::new();
        let mut out = Vec::new();
        for d in cands.iter() {
            for l in lists.iter_mut() {
                l.clear();
            }
            // A term counts when it is in a searched field, and then with all its positions.
            for ((id, gs), at) in wanted.iter().zip(&cursors) {
                let Some(list) = self.idx.text.list(*id) else { continue };
                buf.clear();
                let Some(posting) = list.positions(d, at, &mut buf) else { continue };
                if !self.idx.posting_in(&posting, *id, mask) {
                    continue;
                }
                for &g in gs {
                    if let Some(v) = lists.get_mut(g) {
                        v.extend_from_slice(&buf);
                    }
                }
            }
            for l in lists.iter_mut() {
                l.sort_unstable();
            }
            if within(&lists, p.slop, p.inorder) {
                out.push(d);
            }
        }
        // Candidates come in ascending order.
        RoaringBitmap::from_sorted_iter(out).unwrap_or_default()
    }

    fn tag(&mut self, fields: &[String], terms: &[TagTerm]) -> Result<RoaringBitmap> {
        let mut acc = RoaringBitmap::new();
        for fname in fields {
            let Some((fi, FieldIndex::Tag(ti))) = self.field(fname) else { continue };
            let case_sensitive = self.idx.spec.fields.get(fi).is_some_and(|f| f.case_sensitive);
            if self.idx.spec.fields.get(fi).is_some_and(|f| f.index_empty) {
                self.empty_tag_ok = true;
            }
            if !self.empty_tag_ok && terms.iter().any(|t| matches!(t, TagTerm::Exact(v) if v.is_empty())) {
                return Err(Error::new(NO_INDEXEMPTY));
            }
            let norm = |s: &str| if case_sensitive { s.to_string() } else { s.to_lowercase() };
            // The values read, by name (FT.PROFILE shows them as the readers of a union).
            let mut named: Vec<(String, u32)> = Vec::new();
            for t in terms {
                // MINPREFIX bounds tag prefix, suffix and infix values as it bounds text ones.
                if let TagTerm::Prefix(v) | TagTerm::Suffix(v) | TagTerm::Infix(v) = t {
                    if v.chars().count() < self.opts.min_prefix {
                        continue;
                    }
                }
                match t {
                    TagTerm::Exact(v) => {
                        if let Some(id) = ti.dict.get(&norm(v)) {
                            named.push((norm(v), id));
                        }
                    }
                    TagTerm::Prefix(v) => {
                        let found =
                            ti.dict.prefix(&norm(v), |id| ti.is_live(id), self.opts.max_expansions + 1);
                        if found.len() > self.opts.max_expansions {
                            self.warn("Max prefix expansions limit was reached");
                        }
                        named.extend(found.into_iter().take(self.opts.max_expansions));
                    }
                    TagTerm::Suffix(v) | TagTerm::Infix(v) => {
                        let p = norm(v);
                        let suffix = matches!(t, TagTerm::Suffix(_));
                        let found = ti.dict.scan(
                            |s, id| (if suffix { s.ends_with(&p) } else { s.contains(&p) }) && ti.is_live(id),
                            self.opts.max_expansions,
                        );
                        named.extend(found);
                    }
                }
            }
            if !matches!(terms, [TagTerm::Exact(_)]) {
                self.prof.readers("TAG", &named, |id| ti.docs(id).map_or(0, |b| b.len()));
            }
            let ids: Vec<u32> = named.into_iter().map(|(_, id)| id).collect();
            for id in &ids {
                if let Some(bm) = ti.docs(*id) {
                    acc |= bm;
                }
            }
            self.record(ids, ALL_FIELDS, Some(fi as u16));
        }
        Ok(acc)
    }
}

/// RediSearch's proximity check over one sorted position list per child
/// (`IndexResult_IsWithinRange`). In order: positions chosen greedily, each at or after the
/// previous one (the same position counts, so `"dog dog"` matches one dog), and the gaps
/// `p[i] - p[i-1] - 1` summed must not exceed `slop`. Unordered: the smallest window over one
/// position per list, `max - min - (n - 1) <= slop`, skipping windows where all are equal.
pub fn within(lists: &[Vec<u32>], slop: u32, inorder: bool) -> bool {
    if lists.iter().any(|l| l.is_empty()) {
        return false;
    }
    let slop = i64::from(slop);
    let n = lists.len();
    // Per list: the index of its current position.
    let mut cur = vec![0usize; n];
    let at = |k: usize, cur: &[usize]| lists.get(k).and_then(|l| l.get(cur[k]).copied());
    if inorder {
        let mut first = 0usize;
        loop {
            let Some(p0) = lists.first().and_then(|l| l.get(first)).copied() else { return false };
            first += 1;
            let (mut last, mut span, mut ok) = (i64::from(p0), 0i64, true);
            for k in 1..n {
                while at(k, &cur).is_some_and(|p| i64::from(p) < last) {
                    cur[k] += 1;
                }
                let Some(p) = at(k, &cur) else { return false };
                span += i64::from(p) - last - 1;
                last = i64::from(p);
                if span > slop {
                    ok = false;
                    break;
                }
            }
            if ok {
                return true;
            }
        }
    }
    let Some(mut max) = (0..n).filter_map(|k| at(k, &cur)).max() else { return false };
    loop {
        let Some((min_k, min)) =
            (0..n).filter_map(|k| at(k, &cur).map(|p| (k, p))).min_by_key(|&(k, p)| (p, k))
        else {
            return false;
        };
        if min != max && i64::from(max) - i64::from(min) - (n as i64 - 1) <= slop {
            return true;
        }
        cur[min_k] += 1;
        match at(min_k, &cur) {
            None => return false,
            Some(p) if p > max => max = p,
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::within;

    #[test]
    fn proximity() {
        assert!(within(&[vec![1], vec![2]], 0, true));
        assert!(!within(&[vec![2], vec![1]], 0, true));
        assert!(within(&[vec![2], vec![1]], 0, false));
        assert!(!within(&[vec![1], vec![4]], 1, true));
        assert!(within(&[vec![1], vec![4]], 2, true));
        assert!(within(&[vec![1, 10], vec![3, 11], vec![12]], 0, true));
        // The same position counts in order (RediSearch: "dog dog" matches one dog), not
        // unordered.
        assert!(within(&[vec![5], vec![5]], 0, true));
        assert!(!within(&[vec![5], vec![5]], 3, false));
        assert!(within(&[vec![5, 7], vec![5, 7]], 1, false));
    }
}
