//! Words: their expansions (stems, synonyms, prefixes), their documents, and exact
//! phrases checked against positions.

use std::collections::HashSet;

use roaring::RoaringBitmap;

use crate::analysis::STEM_PREFIX;
use crate::error::Error;
use crate::index::postings::Walk;
use crate::index::text::FieldMask;
use crate::index::text::ALL_FIELDS;
use crate::query::syntax::{escape_word, QueryAst};

use super::{within, Exec, Prox, ScoreTerm, SlopChild, SlopShape};

impl<'a> Exec<'a> {
    /// Term ids a single token expands to (exact, `+stem`, stem).
    pub(super) fn expand_token(&mut self, tok: &str, mask: FieldMask) -> Vec<u32> {
        let dict = &self.idx.text.dict;
        let mut ids = Vec::new();
        self.token_stem = None;
        let add = |s: &str, ids: &mut Vec<u32>| {
            if let Some(id) = dict.get(s) {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        };
        let push = |s: &str, ids: &mut Vec<u32>, hl: &mut HashSet<String>| {
            add(s, ids);
            hl.insert(s.to_string());
        };
        push(tok, &mut ids, &mut self.out.highlight);
        if !self.opts.verbatim && self.unexpanded == 0 {
            // RediSearch's synonym expander: the word's groups, indexed as `~<group>`; every
            // word of those groups is highlighted.
            let synonyms = &self.idx.synonyms;
            for g in synonyms.group_terms(tok) {
                add(&g, &mut ids);
            }
            self.out.highlight.extend(synonyms.same_group(tok).map(str::to_string));
            if let Some(code) = self.phonetic_expansion(tok, mask) {
                add(&code, &mut ids);
            }
        }
        // RediSearch's expander skips exact phrases and what `-` or `~` apply to.
        let stemmable = !self.opts.verbatim && self.unexpanded == 0 && self.idx.stems_in(mask);
        if stemmable {
            if let Some(st) = self.stem_always(tok) {
                let marked = format!("{STEM_PREFIX}{st}");
                // The `+stem` sits at the word's own positions only where the index stemmed the
                // word itself (`dogs`); a word that is its own stem (`index`) left no `+index`,
                // which then marks its other forms (`indexing`) at their positions.
                // (The index's stemmer, which stemmed the documents: a query LANGUAGE may stem
                // the word otherwise. Without one it is the stemmer `st` came from, whose
                // `stem` is `st` when it differs from the word and the word is long enough.)
                let index_stemmed = match self.query_stemmer {
                    None => st != tok && tok.chars().count() >= self.idx.stemmer.min_len(),
                    Some(_) => self.idx.stemmer.stem(tok).as_deref() == Some(st.as_str()),
                };
                self.token_stem = dict.get(&marked).filter(|_| index_stemmed);
                push(&marked, &mut ids, &mut self.out.highlight);
                if st != tok {
                    push(&st, &mut ids, &mut self.out.highlight);
                }
            }
        }
        ids
    }

    /// RediSearch's phonetic expander: a word searched in a PHONETIC field (or in all fields
    /// of an index with one) also matches its primary code, unless `$phonetic: false`; an
    /// explicit `$phonetic` on fields none of which is PHONETIC is an error.
    fn phonetic_expansion(&mut self, tok: &str, mask: FieldMask) -> Option<String> {
        let phonetic = self.phonetic_fields;
        let enabled = match self.phonetic {
            None => phonetic != 0 && (mask == ALL_FIELDS || mask == 0 || mask & phonetic != 0),
            Some(asked) => {
                let valid = if mask == ALL_FIELDS { phonetic != 0 } else { mask & phonetic != 0 };
                if !valid {
                    self.fault.get_or_insert_with(|| Error::new("field does not support phonetics"));
                    return None;
                }
                asked
            }
        };
        if enabled {
            crate::analysis::phonetic::query_term(tok)
        } else {
            None
        }
    }

    /// RediSearch's Chinese expander (`expandCn`): under a Chinese query language, a word is
    /// searched as itself or as the words the segmenter cuts it into (`redis客户端`: the
    /// word, or `redis` and `客户端`; `那時`: the word, or its simplified `那时`). A word the
    /// segmenter leaves whole is read twice, as in RediSearch (its union scores both). None
    /// outside a Chinese query.
    pub(super) fn chinese_expansion(&self, w: &str) -> Option<QueryAst> {
        if !self.chinese || self.in_chinese || self.opts.verbatim || self.unexpanded > 0 {
            return None;
        }
        let toks = self.tokens(w);
        let [tok] = toks.as_slice() else { return None };
        let cut: Vec<String> = crate::analysis::chinese::tokenize(tok).into_iter().map(|t| t.text).collect();
        if cut.is_empty() {
            return None;
        }
        let word = |t: &str| QueryAst::Word(escape_word(t));
        let cut_words = match cut.as_slice() {
            [one] => word(one),
            many => QueryAst::And(many.iter().map(|t| word(t)).collect()),
        };
        Some(QueryAst::Or(vec![word(tok), cut_words]))
    }

    pub(super) fn docs_of(&self, ids: &[u32], mask: FieldMask) -> RoaringBitmap {
        if let [id] = ids {
            return self.idx.term_docs(*id, mask);
        }
        let mut bm = RoaringBitmap::new();
        for &id in ids {
            bm |= self.idx.term_docs(id, mask);
        }
        bm
    }

    /// [`Exec::docs_of`] among `within` only (a superset of what the caller keeps).
    pub(super) fn docs_within(&self, ids: &[u32], mask: FieldMask, within: &RoaringBitmap) -> RoaringBitmap {
        if let [id] = ids {
            return self.idx.term_docs_within(*id, mask, within);
        }
        let mut bm = RoaringBitmap::new();
        for &id in ids {
            bm |= self.idx.term_docs_within(id, mask, within);
        }
        bm
    }

    pub(super) fn tokens(&self, raw: &str) -> Vec<String> {
        self.idx.query_words(raw, self.opts.no_stopwords)
    }

    pub(super) fn expanded(
        &mut self,
        mut found: Vec<(String, u32)>,
        mask: FieldMask,
    ) -> Option<RoaringBitmap> {
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
        prof.readers("TEXT", &found, |id| idx.term_docs(id, mask));
        for (t, _) in found {
            self.out.highlight.insert(t);
        }
        let bm = self.docs_of(&ids, mask);
        self.take_root();
        if self.negated == 0 && !ids.is_empty() {
            self.push_term(ScoreTerm {
                ids,
                mask,
                tag_field: None,
                weight: self.weight,
                own: None,
                first_only: true,
                leaf: None,
                gate: None,
            });
        }
        Some(bm)
    }

    pub(super) fn phrase(&mut self, toks: &[String], mask: FieldMask, p: Prox) -> RoaringBitmap {
        let mark = self.explain_mark();
        let acc = self.phrase_words(toks, mask, p);
        if toks.len() > 1 {
            self.explain_close(mark, false, None);
        }
        acc
    }

    fn phrase_words(&mut self, toks: &[String], mask: FieldMask, p: Prox) -> RoaringBitmap {
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
                            first_only_in: None,
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
    pub(super) fn exact_words(&self, toks: &[String], children: &[SlopChild], p: Prox) -> bool {
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
    pub(super) fn verify(
        &self,
        cands: RoaringBitmap,
        groups: &[Vec<u32>],
        mask: FieldMask,
        p: Prox,
    ) -> RoaringBitmap {
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
        let mut walks: Vec<Option<Walk>> =
            wanted.iter().map(|w| self.idx.text.list(w.0).map(|l| l.walk())).collect();
        // Per group: the positions found in the current document (buffers reused).
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); groups.len()];
        let mut buf: Vec<u32> = Vec::new();
        let mut out = Vec::new();
        // Each group one term of its own (a phrase of distinct words): its positions go
        // straight into the group's list, already in order.
        let direct = wanted.len() == groups.len() && wanted.iter().all(|w| w.1.len() == 1);
        for d in cands.iter() {
            for l in lists.iter_mut() {
                l.clear();
            }
            // A term counts when it is in a searched field, and then with all its positions.
            for ((id, gs), walk) in wanted.iter().zip(walks.iter_mut()) {
                let Some(walk) = walk else { continue };
                let Some(posting) = walk.seek(d) else { continue };
                if !self.idx.posting_in(&posting, *id, mask) {
                    continue;
                }
                if direct {
                    if let Some(v) = gs.first().and_then(|&g| lists.get_mut(g)) {
                        if walk.positions(v).is_none() {
                            v.clear();
                        }
                    }
                    continue;
                }
                buf.clear();
                if walk.positions(&mut buf).is_none() {
                    continue;
                }
                for &g in gs {
                    if let Some(v) = lists.get_mut(g) {
                        v.extend_from_slice(&buf);
                    }
                }
            }
            if !direct {
                for l in lists.iter_mut() {
                    l.sort_unstable();
                }
            }
            if within(&lists, p.slop, p.inorder) {
                out.push(d);
            }
        }
        // Candidates come in ascending order.
        crate::index::idset::bitmap_of_sorted(out)
    }
}
