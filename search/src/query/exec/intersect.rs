//! Intersections (implicit AND): children in RediSearch's order, proximity (SLOP,
//! INORDER) checked on the candidates, the root's slop shape.

use roaring::RoaringBitmap;

use crate::error::Result;
use crate::index::text::{FieldMask, ALL_FIELDS};
use crate::query::syntax::QueryAst;

use super::skips::{Children, Slot};
use super::{Exec, Prox, SlopChild, SlopShape};

impl<'a> Exec<'a> {
    pub(super) fn and(
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
        // Whether the children's estimates order them (for the slop measure or EXPLAIN):
        // those read each child's whole result.
        let reordered = !prox.is_some_and(|p| p.inorder);
        let explaining = self.explained.is_some();
        let estimates = reordered && (explaining || (root && items.len() >= 3));
        let within = match prox.is_none() && !estimates && !self.prof.is_active() {
            true => self.dense_candidates(items, mask),
            false => None,
        };
        let mut children = Vec::new();
        // Per child: where its score terms and its result start (for its estimate).
        let mut starts = Vec::new();
        // Per child: which of `pos` / `neg` holds its documents (for the replay of skips).
        let mut slots = Vec::with_capacity(items.len());
        let mark = self.explain_mark();
        let mut clauses = Vec::with_capacity(items.len());
        for it in items {
            clauses.push(self.explain_mark() - mark);
            let start = self.out.terms.len();
            starts.push((start, pos.len()));
            let (npos, nneg) = (pos.len(), neg.len());
            let mut slot = Slot::Absent;
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
                    let docs = r.as_ref().map(|bm| &self.idx.docs.live - bm);
                    self.prof.close(frame, it, docs.as_ref());
                    self.explain_negation();
                    if let Some(bm) = r {
                        neg.push(bm);
                    }
                }
                QueryAst::Optional(inner) => {
                    let frame = self.prof.open();
                    self.optional(inner, mask, None, None)?;
                    // An optional clause matches every document.
                    let all = self.idx.docs.live.clone();
                    self.prof.close(frame, it, Some(&all));
                    saw_optional = true;
                    slot = Slot::Unmodelled;
                }
                QueryAst::Word(w) if prox.is_some() => {
                    let toks = self.tokens(w);
                    if let [t] = toks.as_slice() {
                        let frame = self.prof.open();
                        let ids = self.expand_token(t, mask);
                        self.profile_expansions(&ids, mask);
                        let bm = self.docs_of(&ids, mask);
                        self.prof.close(frame, it, Some(&bm));
                        pos.push(bm);
                        prox_groups.push(ids.clone());
                        self.record(ids, mask, None);
                    } else if let Some(bm) = self.eval(it, mask, prox)? {
                        pos.push(bm);
                    }
                }
                _ => {
                    self.within =
                        within.clone().filter(|_| matches!(it, QueryAst::Word(_) | QueryAst::Verbatim(_)));
                    let r = self.eval(it, mask, prox);
                    self.within = None;
                    if let Some(bm) = r? {
                        pos.push(bm);
                    }
                }
            }
            if pos.len() > npos {
                slot = Slot::Pos(npos);
            } else if neg.len() > nneg {
                slot = Slot::Neg(nneg);
            }
            slots.push(slot);
            if root {
                children.push(self.slop_child_of(it, start, None));
            }
        }
        // RediSearch sorts an intersection's children by their estimated number of results,
        // fewest first (unless in order): its slop measure pairs them in that order (with
        // three or more terms the order changes the score), EXPLAINSCORE lists them so.
        let order: Vec<usize> =
            if estimates { self.reading_order(items, &starts, &pos) } else { (0..items.len()).collect() };
        if root && prox.is_none() && self.opts.term_scores && !pos.is_empty() {
            let order = if estimates { order.clone() } else { self.reading_order(items, &starts, &pos) };
            let term_starts: Vec<usize> = starts.iter().map(|s| s.0).collect();
            if within.is_some() {
                self.widen_words(items, &slots, &term_starts, &mut pos);
            }
            let split = self.union_skips(&Children {
                items,
                slots: &slots,
                starts: &term_starts,
                end: self.out.terms.len(),
                pos: &pos,
                neg: &neg,
                order: &order,
            });
            for (i, skipped, ids) in split {
                if let Some(c) = children.get_mut(i) {
                    c.ids = Some(ids);
                    c.first_only_in = Some(skipped);
                }
            }
        }
        if root {
            if children.len() >= 3 && reordered {
                let mut taken: Vec<Option<SlopChild>> = children.into_iter().map(Some).collect();
                children = order.iter().filter_map(|&i| taken.get_mut(i).and_then(Option::take)).collect();
            }
            self.out.slop = SlopShape::Intersect(children);
        }
        self.explain_close(mark, false, Some((&clauses, &order)));
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

    /// RediSearch's reading order of an intersection's children: fewest estimated
    /// documents first (a stable sort, as its `qsort` of few children is).
    fn reading_order(
        &self,
        items: &[QueryAst],
        starts: &[(usize, usize)],
        pos: &[RoaringBitmap],
    ) -> Vec<usize> {
        let ends: Vec<usize> = starts.iter().skip(1).map(|s| s.0).chain([self.out.terms.len()]).collect();
        let est: Vec<u64> = items
            .iter()
            .zip(starts.iter().zip(ends))
            .map(|(it, (&(start, at), end))| self.estimate(it, start..end, pos.get(at)))
            .collect();
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by_key(|&i| est[i]);
        order
    }

    /// Word children read among [`Self::dense_candidates`] only: their whole documents again
    /// (the replay of skips walks every document of each child, as RediSearch's readers do).
    fn widen_words(&self, items: &[QueryAst], slots: &[Slot], starts: &[usize], pos: &mut [RoaringBitmap]) {
        for (i, it) in items.iter().enumerate() {
            let (QueryAst::Word(_), Slot::Pos(p)) = (it, slots[i]) else { continue };
            let end = starts.get(i + 1).copied().unwrap_or(self.out.terms.len());
            let Some(t) = self.out.terms.get(starts[i]).filter(|_| end == starts[i] + 1) else { continue };
            if let Some(bm) = pos.get_mut(p) {
                *bm = self.docs_of(&t.ids, t.mask);
            }
        }
    }

    /// Candidates for an intersection's word children, a superset of the intersection,
    /// among which each word child then looks its documents up by seeking in its postings
    /// instead of reading every posting of its terms ([`Exec::docs_within`]):
    /// - field-restricted: the documents holding, in any field, every word child whose terms
    ///   are all kept as bitmaps (read without decoding a posting);
    /// - otherwise, when no term score is asked for: the documents of the rarest word child,
    ///   when it has under an eighth of the postings of every other word child (so that
    ///   seeking skips most of theirs).
    ///
    /// None when no child qualifies.
    fn dense_candidates(&self, items: &[QueryAst], mask: FieldMask) -> Option<RoaringBitmap> {
        if self.idx.searched(mask) == ALL_FIELDS {
            // (With term scores the replay of skips reads every word's documents again
            // anyway: `widen_words`.)
            return if self.opts.term_scores { None } else { self.rarest_word(items) };
        }
        let mut acc: Option<RoaringBitmap> = None;
        for it in items {
            let Some(tok) = self.single_token(it) else { continue };
            let Some(docs) = self.dense_superset(&tok) else { continue };
            match &mut acc {
                Some(a) => *a &= docs,
                None => acc = Some(docs),
            }
        }
        acc
    }

    /// The token of a word child read as one term and its expansions (not a phrase, not a
    /// Chinese word the segmenter may cut).
    fn single_token(&self, it: &QueryAst) -> Option<String> {
        let QueryAst::Word(w) = it else { return None };
        if w.is_empty() || self.chinese_expansion(w).is_some() {
            return None;
        }
        let mut toks = self.tokens(w);
        (toks.len() == 1).then(|| toks.pop()).flatten()
    }

    /// The documents, in any field, of every term the rarest word child of `items` may expand
    /// to, when its terms have under an eighth of the postings of each other word child's (an
    /// intersection of words of very different frequencies); None otherwise.
    fn rarest_word(&self, items: &[QueryAst]) -> Option<RoaringBitmap> {
        let text = &self.idx.text;
        let mut sizes: Vec<(u64, Vec<u32>)> = items
            .iter()
            .filter_map(|it| self.single_token(it))
            .map(|tok| {
                // (A stem may be the word itself: each term once.)
                let mut ids: Vec<u32> =
                    self.superset_forms(&tok).iter().filter_map(|f| text.dict.get(f)).collect();
                ids.sort_unstable();
                ids.dedup();
                (ids.iter().map(|&id| text.doc_freq(id)).sum(), ids)
            })
            .collect();
        if sizes.len() < 2 {
            return None;
        }
        sizes.sort_by_key(|s| s.0);
        let (rare, next) = (sizes.first()?, sizes.get(1)?);
        if rare.0.saturating_mul(8) >= next.0 {
            return None;
        }
        Some(self.docs_of(&rare.1, ALL_FIELDS))
    }

    /// Every term `tok` may expand to (itself, synonyms, phonetic code, stems: more than its
    /// expansion can be).
    fn superset_forms(&self, tok: &str) -> Vec<String> {
        let mut forms = vec![tok.to_string()];
        if !self.opts.verbatim {
            forms.extend(self.idx.synonyms.group_terms(tok));
            // (The phonetic expander only runs when the index has a PHONETIC field.)
            if self.phonetic_fields != 0 {
                forms.extend(crate::analysis::phonetic::query_term(tok));
            }
            if let Some(st) = self.stem_always(tok) {
                forms.push(format!("{}{st}", crate::analysis::STEM_PREFIX));
                forms.push(st);
            }
        }
        forms
    }

    /// The documents of every term `tok` may expand to ([`Self::superset_forms`]), in any
    /// field, when each of those terms the index holds is kept as a bitmap; None otherwise.
    fn dense_superset(&self, tok: &str) -> Option<RoaringBitmap> {
        let text = &self.idx.text;
        let mut docs = RoaringBitmap::new();
        for f in self.superset_forms(tok) {
            if let Some(id) = text.dict.get(&f) {
                docs |= text.dense_docs(id)?;
            }
        }
        Some(docs)
    }
}
