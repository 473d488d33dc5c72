//! The walk over the query tree: one node evaluated to its documents.

use roaring::RoaringBitmap;

use crate::analysis::fold::fold_pattern;
use crate::analysis::stemmer::STEM_PREFIX;
use crate::error::{Error, Result};
use crate::index::geo::unit_factor;
use crate::index::text::{FieldMask, ALL_FIELDS};
use crate::index::{FieldIndex, EMPTY_TERM};
use crate::query::profile;
use crate::query::syntax::{unescape, QueryAst, TagTerm};
use crate::query::vector;
use crate::schema::FieldType;

use super::{Exec, LeafKind, Prox, SlopShape};

impl<'a> Exec<'a> {
    /// Evaluates one node; when profiling, records it with the nodes its evaluation met.
    pub(super) fn eval(
        &mut self,
        ast: &QueryAst,
        mask: FieldMask,
        prox: Option<Prox>,
    ) -> Result<Option<RoaringBitmap>> {
        let r = if !self.prof.is_active() || profile::transparent(ast) {
            self.eval_node(ast, mask, prox)
        } else {
            let frame = self.prof.open();
            let r = self.eval_node(ast, mask, prox);
            let docs = r.as_ref().ok().and_then(|bm| bm.as_ref());
            self.prof.close(frame, ast, docs);
            r
        };
        if expands(ast) {
            self.check_deadline()?;
        }
        r
    }

    /// FT.PROFILE: the expansions of one word (its stems, synonyms) as readers of a union.
    pub(super) fn profile_expansions(&mut self, ids: &[u32], mask: FieldMask) {
        if !self.prof.is_active() || ids.len() < 2 {
            return;
        }
        let mut named = self.idx.text.dict.scan(|_, id| ids.contains(&id), ids.len());
        named.sort_by_key(|(_, id)| ids.iter().position(|x| x == id));
        let (idx, prof) = (self.idx, &mut self.prof);
        prof.readers("TEXT", &named, |id| idx.term_docs(id, mask));
    }

    /// Evaluates one node under the `$weight` given to it ([`Self::pending_own`]): a word's
    /// own weight is its term's (see [`ScoreTerm::own`]), OPTIONAL's is written over its
    /// child's, any other node's weighs all of its result.
    pub(super) fn eval_node(
        &mut self,
        ast: &QueryAst,
        mask: FieldMask,
        prox: Option<Prox>,
    ) -> Result<Option<RoaringBitmap>> {
        let own = if matches!(ast, QueryAst::Attrs { .. } | QueryAst::Field(..)) {
            None
        } else {
            self.pending_own.take()
        };
        let saved = self.weight;
        if let Some(w) =
            own.filter(|_| !matches!(ast, QueryAst::Word(_) | QueryAst::Verbatim(_) | QueryAst::Optional(_)))
        {
            self.weight *= w;
        }
        let r = self.eval_kind(ast, mask, prox, own);
        self.weight = saved;
        r
    }

    fn eval_kind(
        &mut self,
        ast: &QueryAst,
        mask: FieldMask,
        prox: Option<Prox>,
        own: Option<f64>,
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
                | QueryAst::Verbatim(_)
                | QueryAst::Phrase(_)
                | QueryAst::Prefix(_)
                | QueryAst::Suffix(_)
                | QueryAst::Infix(_)
                | QueryAst::Wildcard(_)
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
                let exact = own.and_then(|w| ids.first().map(|&id| (id, w)));
                self.record_own(ids, mask, None, exact);
                Some(bm)
            }
            QueryAst::Word(w) => {
                let within = self.within.take();
                if let Some(alt) = self.chinese_expansion(w) {
                    self.in_chinese = true;
                    let r = self.eval_kind(&alt, mask, prox, own);
                    self.in_chinese = false;
                    return r;
                }
                let toks = self.tokens(w);
                match toks.as_slice() {
                    [] => None,
                    [tok] => Some(self.word_token(tok, mask, within.as_ref(), own)),
                    _ => {
                        // Several tokens are a phrase: an aggregate its weight multiplies.
                        let saved = self.weight;
                        self.weight *= own.unwrap_or(1.0);
                        let r = self.phrase(&toks, mask, Prox { slop: 0, inorder: true });
                        self.weight = saved;
                        Some(r)
                    }
                }
            }
            QueryAst::Verbatim(t) => {
                // RediSearch's verbatim token (a number in dialect 2): its own term, as
                // written, without the expanders.
                let within = self.within.take();
                self.unexpanded += 1;
                let bm = self.word_token(t, mask, within.as_ref(), own);
                self.unexpanded -= 1;
                Some(bm)
            }
            QueryAst::Phrase(text) => {
                self.check_order(mask)?;
                // From dialect 2 a quoted phrase keeps its stopwords (v2's lexer reads none in
                // quotes): `"hello the world"` looks up `the` too, which an index with the
                // default stopwords holds for no document.
                let toks =
                    if self.opts.dialect >= 2 { self.idx.query_words(text, true) } else { self.tokens(text) };
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
                // MINPREFIX counts the bytes as written; the pattern is folded (see fold.rs).
                let raw = unescape(w);
                if raw.len() < self.opts.min_prefix {
                    return Ok(Some(RoaringBitmap::new()));
                }
                let p = fold_pattern(&raw);
                let text = &self.idx.text;
                let found = text.dict.prefix(&p, |id| text.is_live(id), self.opts.max_expansions + 1);
                self.expanded(found, mask)
            }
            QueryAst::Suffix(w) | QueryAst::Infix(w) => {
                self.check_suffix_fields(mask)?;
                // MINPREFIX bounds suffix and infix terms too (RediSearch 2.10), in bytes.
                let raw = unescape(w);
                if raw.len() < self.opts.min_prefix {
                    return Ok(Some(RoaringBitmap::new()));
                }
                let p = fold_pattern(&raw);
                let suffix = matches!(ast, QueryAst::Suffix(_));
                let text = &self.idx.text;
                // Stem terms (`+index`) take part, as in RediSearch's walk of its terms: `*ndex`
                // finds a document with "indexing". Its suffix trie (WITHSUFFIXTRIE) has none.
                let stems = !self.text_suffix_trie();
                let found = text.dict.scan(
                    |t, id| {
                        (if suffix { t.ends_with(&p) } else { t.contains(&p) })
                            && (stems || !t.starts_with(STEM_PREFIX))
                            && text.is_live(id)
                    },
                    self.opts.max_expansions + 1,
                );
                self.expanded(found, mask)
            }
            QueryAst::Wildcard(w) => {
                self.check_suffix_fields(mask)?;
                // RediSearch's `Wildcard_RemoveEscape`, then the glob folded, over every term
                // (stem terms too, as its trie walk sees them; its suffix trie has none).
                let p: Vec<char> = fold_pattern(&unescape(w)).chars().collect();
                let text = &self.idx.text;
                let stems = !self.text_suffix_trie();
                let found = text.dict.scan(
                    |t, id| {
                        super::glob::matches(&p, t)
                            && (stems || !t.starts_with(STEM_PREFIX))
                            && text.is_live(id)
                    },
                    self.opts.max_expansions + 1,
                );
                self.expanded(found, mask)
            }
            QueryAst::Fuzzy(w, d) => {
                let p = fold_pattern(&unescape(w));
                let text = &self.idx.text;
                let found = text.dict.fuzzy_walk(&p, *d, |id| text.is_live(id));
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
                let mark = self.explain_mark();
                let mut clauses = Vec::with_capacity(items.len());
                for it in items {
                    clauses.push(self.explain_mark() - mark);
                    let start = self.out.terms.len();
                    let r = self.eval(it, mask, prox)?;
                    if let Some(bm) = r.as_ref().filter(|_| self.narrows(it)) {
                        self.gate_terms(start, bm);
                    }
                    if root {
                        children.push(self.slop_child_of(it, start, r.clone()));
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
                let order: Vec<usize> = (0..items.len()).collect();
                self.explain_close(mark, true, Some((&clauses, &order)));
                acc
            }
            QueryAst::Not(inner) => {
                self.negated += 1;
                self.unexpanded += 1;
                let r = self.eval(inner, mask, prox);
                self.unexpanded -= 1;
                self.negated -= 1;
                self.explain_negation();
                r?.map(|bm| self.universe() - bm)
            }
            QueryAst::Optional(inner) => {
                // Optional never constrains: it matches everything and only adds score.
                self.optional(inner, mask, prox, own)?;
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
            // Another field's type, or no such field: nothing matches, as in RediSearch.
            QueryAst::GeoShape { field, op, wkt } => match self.field(field) {
                Some((_, FieldIndex::GeoShape(gi))) => {
                    let q = crate::index::geoshape::parse(wkt)
                        .map_err(|m| Error::new(format!("Error querying geoshape index: {m}")))?;
                    let docs = gi
                        .query(*op, &q)
                        .map_err(|m| Error::new(format!("Error querying geoshape index: {m}")))?;
                    Some(docs)
                }
                _ => Some(RoaringBitmap::new()),
            },
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
            QueryAst::Attrs { inner, weight, slop, inorder, phonetic } => {
                let saved_phonetic = self.phonetic;
                if phonetic.is_some() {
                    self.phonetic = *phonetic;
                }
                // For the node below (see `eval_node`). A weight already pending is that of
                // an attribute block written after this one on the same node (RediSearch
                // applies blocks in order, the last one standing) or OPTIONAL's, which
                // replaces its child's.
                if let Some(w) = weight {
                    self.pending_own.get_or_insert(*w);
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
                self.pending_own = None;
                self.phonetic = saved_phonetic;
                r?
            }
        })
    }

    /// RediSearch answers suffix, infix and wildcard terms from its suffix trie once any TEXT
    /// field has WITHSUFFIXTRIE, and refuses them on fields restricted to ones without it.
    fn check_suffix_fields(&self, mask: FieldMask) -> Result<()> {
        let mut with_trie: FieldMask = 0;
        for (i, f) in self.idx.spec.fields.iter().enumerate() {
            if f.with_suffix_trie {
                if let Some(o) = self.idx.text_ord(i) {
                    with_trie |= 1u128 << (u32::from(o) % 128);
                }
            }
        }
        if with_trie != 0 && mask != ALL_FIELDS && with_trie & mask != mask {
            return Err(Error::new("Contains query on fields without WITHSUFFIXTRIE support"));
        }
        Ok(())
    }

    /// An OPTIONAL clause's child, not expanded, under the optional's own weight `own`
    /// (RediSearch's optional iterator sets its child's result weight to its own).
    pub(super) fn optional(
        &mut self,
        inner: &QueryAst,
        mask: FieldMask,
        prox: Option<Prox>,
        own: Option<f64>,
    ) -> Result<()> {
        self.unexpanded += 1;
        self.pending_own = Some(own.unwrap_or(1.0));
        let start = self.out.terms.len();
        let r = self.eval(inner, mask, prox);
        self.pending_own = None;
        self.unexpanded -= 1;
        // RediSearch's optional reader scores its child only where the child matched: the
        // words of an optional intersection or phrase count in the documents that hold all
        // of them (`~(werld hello)` gives a document with `hello` alone nothing).
        if let Some(bm) = r?.as_ref().filter(|_| self.narrows(inner)) {
            self.gate_terms(start, bm);
        }
        Ok(())
    }

    pub(super) fn field(&self, name: &str) -> Option<(usize, &'a FieldIndex)> {
        let idx = self.idx;
        let (i, _) = idx.spec.field(name)?;
        idx.fields.get(i).map(|f| (i, f))
    }

    pub(super) fn field_mask(&self, fields: &[String]) -> FieldMask {
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
}

impl Exec<'_> {
    /// The documents of one word's term `tok` and its expansions (within `within`, the
    /// candidates of an intersection, when given), recorded for scoring.
    fn word_token(
        &mut self,
        tok: &str,
        mask: FieldMask,
        within: Option<&RoaringBitmap>,
        own: Option<f64>,
    ) -> RoaringBitmap {
        let ids = self.expand_token(tok, mask);
        self.profile_expansions(&ids, mask);
        let bm = match within {
            Some(w) => self.docs_within(&ids, mask, w),
            None => self.docs_of(&ids, mask),
        };
        let stem = self.stem_of(&ids);
        self.expansion_root(&ids, stem);
        // The word's own weight stays on its exact term, the first id when the dictionary
        // holds it (its expansions weigh 1).
        let exact = self.idx.text.dict.get(tok).filter(|id| ids.first() == Some(id));
        self.record_own(ids, mask, None, own.and_then(|w| exact.map(|id| (id, w))));
        bm
    }
}

/// A node whose terms are found by walking a dictionary (RediSearch's trie iterations, which
/// check its clock).
fn expands(ast: &QueryAst) -> bool {
    match ast {
        QueryAst::Prefix(_)
        | QueryAst::Suffix(_)
        | QueryAst::Infix(_)
        | QueryAst::Wildcard(_)
        | QueryAst::Fuzzy(..) => true,
        QueryAst::Tag(_, terms) => terms.iter().any(|t| !matches!(t, TagTerm::Exact(_) | TagTerm::Words(_))),
        _ => false,
    }
}

impl Exec<'_> {
    /// Whether the index keeps a suffix trie of its TEXT terms (a TEXT field WITHSUFFIXTRIE):
    /// RediSearch then answers suffix, contains and wildcard terms from it, which holds no
    /// stem terms.
    fn text_suffix_trie(&self) -> bool {
        self.idx.spec.fields.iter().any(|f| f.kind == FieldType::Text && f.with_suffix_trie)
    }
}
