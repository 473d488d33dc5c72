//! The write path: a key read from its document ([`Index::prepare`]), analysed into its
//! terms, tags, numbers, points, vectors and shapes, and applied to the index
//! ([`Index::apply`]), or removed ([`Index::remove`]). An update keeps what did not change:
//! only the postings, bitmaps and tree entries of the values that changed are touched.

use std::time::Instant;

use super::docs::{self, DocHot, DocRecord, RecordParts, TermOcc};
use super::extract::{extract, FieldValues};
use super::postings::{self, DocNorm, Posting};
use super::record_postings::Postings;
use super::{freq_weight, EMPTY_TERM};
use super::{growth, numeric, numeric_tree, sort_numbers, ErrorStats, FieldIndex, Index, Kept, KeyChange};
use crate::analysis::tokenizer::Tokens;
use crate::analysis::{Stemmer, STEM_PREFIX};
use crate::document::DocumentSource;
use crate::limits::MULTI_TEXT_SLOP;

/// What [`Index::insert_in_language`] builds for each document: (term, text field ordinal,
/// position, frequency weight) per token; per term (term, weighted frequency, field mask,
/// range in `positions`); the terms' positions.
#[derive(Default)]
pub(super) struct IngestScratch {
    term_pos: Vec<(u32, u16, u32, u32)>,
    entries: Vec<(u32, u32, u16, std::ops::Range<usize>)>,
    positions: Vec<u32>,
    /// An update's terms: those the new version lost, then those it has.
    touched: Vec<u32>,
}

impl Index {
    /// Re-reads `key` and indexes it (or removes it when it no longer qualifies).
    /// Returns true when the key is in the index afterwards.
    pub fn upsert(&mut self, key: &[u8], docs: &dyn DocumentSource) -> bool {
        self.upsert_keeping(key, docs, Kept::nothing())
    }

    /// Like [`Index::upsert`], for a write that left some fields as they were: the update
    /// keeps `kept` ([`Kept`]).
    pub fn upsert_keeping(&mut self, key: &[u8], docs: &dyn DocumentSource, kept: Kept) -> bool {
        let started = Instant::now();
        let change = self.prepare_keeping(key, docs, kept);
        let ok = self.apply_change(key, change);
        self.stats.indexing_ms += started.elapsed().as_secs_f64() * 1000.0;
        ok
    }

    /// What [`Index::upsert`] would do to `key`, read from the document now and not yet
    /// applied: the document is read while the index may be shared, and applied later
    /// ([`Index::apply`]) by whoever then holds the index exclusively.
    pub fn prepare(&self, key: &[u8], docs: &dyn DocumentSource) -> KeyChange {
        self.prepare_keeping(key, docs, Kept::nothing())
    }

    /// Like [`Index::prepare`], for a write that left some fields as they were: the update
    /// keeps `kept` ([`Kept`]).
    pub fn prepare_keeping(&self, key: &[u8], docs: &dyn DocumentSource, kept: Kept) -> KeyChange {
        if docs.key_type(key) != Some(self.spec.on)
            || !self.spec.matches_prefix(key)
            || self.filter.as_ref().is_some_and(|f| !f.admits(&self.spec, key, docs))
        {
            return KeyChange::Remove;
        }
        match extract(&self.spec, key, docs) {
            Ok(ex) => KeyChange::Insert(ex, kept),
            Err(e) => KeyChange::Failed(e),
        }
    }

    /// Applies a change [`Index::prepare`] made; true when the document is indexed.
    pub fn apply(&mut self, key: &[u8], change: KeyChange) -> bool {
        let started = Instant::now();
        let ok = self.apply_change(key, change);
        self.stats.indexing_ms += started.elapsed().as_secs_f64() * 1000.0;
        ok
    }

    fn apply_change(&mut self, key: &[u8], change: KeyChange) -> bool {
        match change {
            KeyChange::Remove => {
                self.remove(key);
                false
            }
            KeyChange::Insert(ex, kept) => {
                self.insert_keeping(key, ex.values, ex.score, ex.language, &kept);
                true
            }
            KeyChange::Failed(e) => {
                self.remove(key);
                self.stats.errors.add(&e.message, key);
                if let Some(fi) = e.field {
                    if self.stats.field_errors.len() <= fi {
                        self.stats.field_errors.resize(fi + 1, ErrorStats::default());
                    }
                    if let Some(fe) = self.stats.field_errors.get_mut(fi) {
                        fe.add(&e.message, key);
                    }
                }
                false
            }
        }
    }

    /// Indexes extracted values under `key` (replacing any previous version).
    pub fn insert(&mut self, key: &[u8], values: Vec<FieldValues>, score: f32) {
        self.insert_in_language(key, values, score, None);
    }

    /// Like [`Index::insert`], stemming text in `language` instead of the index language
    /// (LANGUAGE_FIELD).
    pub fn insert_in_language(
        &mut self,
        key: &[u8],
        values: Vec<FieldValues>,
        score: f32,
        language: Option<crate::analysis::stemmer::Language>,
    ) {
        self.insert_keeping(key, values, score, language, &Kept::nothing());
    }

    /// Like [`Index::insert_in_language`], keeping what `kept` says the update left alone
    /// (when the key has a record to keep it from).
    fn insert_keeping(
        &mut self,
        key: &[u8],
        values: Vec<FieldValues>,
        score: f32,
        language: Option<crate::analysis::stemmer::Language>,
        kept: &Kept,
    ) {
        // The text of the indexed version: its terms in (term, field) order, and its figures.
        let old_text = if kept.text {
            self.docs.id_of(key).and_then(|id| {
                Some((self.docs.get(id)?.occs().iter().collect::<Vec<_>>(), self.docs.hot(id)?))
            })
        } else {
            None
        };
        let doc_stemmer = language.map(|l| Stemmer::for_once(l, self.stemmer.min_len()));
        let doc_language = language.unwrap_or(self.spec.language);
        // Build the forward record (term ids are assigned here).
        // (term, text field ordinal, position, frequency weight of the field for the term).
        let mut term_pos = std::mem::take(&mut self.scratch.term_pos);
        term_pos.clear();
        let mut len = 0u32;
        let mut tags = Vec::new();
        let mut numerics = Vec::new();
        let mut served = Vec::new();
        let mut geos = Vec::new();
        let mut vectors: Vec<(usize, &[Vec<f64>])> = Vec::new();
        let mut shapes: Vec<(usize, &::geo::Geometry<f64>)> = Vec::new();
        let mut sortables = Vec::new();
        let mut missing = Vec::new();
        // Token positions run through the whole document, field after field (RediSearch's
        // term offsets), so the scorer can measure distances between terms of any fields.
        let mut pos = 0u32;
        for (i, vals) in values.iter().enumerate() {
            let Some(f) = self.spec.fields.get(i) else { continue };
            let (vals, several) = match vals {
                FieldValues::Several(inner, sort) => (&**inner, Some(sort)),
                v => (v, None),
            };
            let (sortable, unf, index_missing, noindex, nostem, index_empty, phonetic) =
                (f.sortable, f.unf, f.index_missing, f.noindex, f.nostem, f.index_empty, f.phonetic);
            let fi = i as u16;
            if sortable {
                if let Some(sv) = several.cloned().or_else(|| vals.sort_value(unf)) {
                    sortables.push((fi, sv));
                }
            }
            if matches!(vals, FieldValues::Missing) && index_missing {
                missing.push(fi);
            }
            if noindex {
                continue;
            }
            match (vals, self.fields.get_mut(i)) {
                (FieldValues::Text(_), Some(FieldIndex::Text(_))) if old_text.is_some() => {}
                (FieldValues::Text(strings), Some(FieldIndex::Text(ord))) => {
                    let ord = *ord;
                    let (raw_weight, stem_weight) =
                        (freq_weight(f.weight, false), freq_weight(f.weight, true));
                    for (vi, s) in strings.iter().enumerate() {
                        if vi > 0 {
                            // RediSearch adds MULTI_TEXT_SLOP - 1 after each value but the last.
                            pos += MULTI_TEXT_SLOP.saturating_sub(1);
                        }
                        if s.is_empty() && index_empty {
                            // INDEXEMPTY: an empty value is one token, the empty term.
                            pos += 1;
                            len += raw_weight;
                            term_pos.push((self.text.term_id(EMPTY_TERM), ord, pos, raw_weight));
                            continue;
                        }
                        let mut toks = Tokens::in_language(s, doc_language);
                        while let Some((tok, _, _)) = toks.next_token() {
                            if self.spec.stopwords.contains(tok) {
                                continue;
                            }
                            pos += 1;
                            len += raw_weight;
                            let id = self.text.term_id(tok);
                            term_pos.push((id, ord, pos, raw_weight));
                            if !nostem {
                                let sid = match &doc_stemmer {
                                    // The per-term stem cache is for the index language only.
                                    Some(st) => st
                                        .stem(tok)
                                        .map(|stem| self.text.term_id(&format!("{STEM_PREFIX}{stem}"))),
                                    None => self.stem_id(id, tok),
                                };
                                if let Some(sid) = sid {
                                    term_pos.push((sid, ord, pos, stem_weight));
                                }
                            }
                            if !self.synonyms.is_empty() {
                                for g in self.synonyms.group_terms(tok) {
                                    term_pos.push((self.text.term_id(&g), ord, pos, raw_weight));
                                }
                            }
                            if phonetic {
                                if let Some(code) = crate::analysis::phonetic::index_term(tok) {
                                    term_pos.push((self.text.term_id(&code), ord, pos, raw_weight));
                                }
                            }
                        }
                    }
                }
                (FieldValues::Tag { values, .. }, Some(FieldIndex::Tag(ti))) => {
                    for v in values {
                        let id = ti.value_id(v);
                        if !tags.contains(&(fi, id)) {
                            tags.push((fi, id));
                        }
                    }
                }
                (FieldValues::Numeric { values, served: is_served }, Some(FieldIndex::Numeric(_))) => {
                    // `_NUMERIC_COMPRESS`: the index (and the record, so that removal finds
                    // them) holds the compressed values; a value it changed is not the
                    // document's, LOAD reads the document's.
                    let mut exact = true;
                    if numeric_tree::settings::tree_settings().compress {
                        numerics.extend(values.iter().map(|n| {
                            let c = numeric::compressed(*n);
                            exact &= c.to_bits() == n.to_bits();
                            (fi, c)
                        }));
                    } else {
                        numerics.extend(values.iter().map(|n| (fi, *n)));
                    }
                    if *is_served && exact {
                        served.push(fi);
                    }
                }
                (FieldValues::Geo(ps), Some(FieldIndex::Geo(_))) => {
                    geos.extend(ps.iter().map(|(x, y)| (fi, *x, *y)));
                }
                (FieldValues::Vector(vs), Some(FieldIndex::Vector(_))) => vectors.push((i, vs)),
                (FieldValues::GeoShape(g, _), Some(FieldIndex::GeoShape(_))) => shapes.push((i, g)),
                _ => {}
            }
        }
        // By (term, field, position), one key compare each: a position holds a term once (a
        // word, its stem, its synonym groups and its phonetic code are terms of their own),
        // so the weight never decides and this is the tuples' order.
        term_pos
            .sort_unstable_by_key(|&(t, f, p, _)| u128::from(t) << 64 | u128::from(f) << 32 | u128::from(p));
        let mut occs = Vec::with_capacity(term_pos.len());
        let kept_text = old_text.is_some();
        // Per term: (term, weighted frequency over all fields, field mask, its range in
        // `positions`), what its posting holds.
        let mut entries = std::mem::take(&mut self.scratch.entries);
        entries.clear();
        let mut positions = std::mem::take(&mut self.scratch.positions);
        positions.clear();
        for group in term_pos.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
            let Some(&(term, field, _, weight)) = group.first() else { continue };
            let freq = u16::try_from(group.len()).unwrap_or(u16::MAX);
            occs.push(TermOcc { term, field, freq });
            if entries.last().is_none_or(|e| e.0 != term) {
                entries.push((term, 0, 0, positions.len()..positions.len()));
            }
            if let Some(e) = entries.last_mut() {
                e.1 = e.1.saturating_add(u32::from(freq).saturating_mul(weight));
                e.2 |= postings::field_bit(field);
                if !self.spec.no_offsets {
                    positions.extend(group.iter().take(usize::from(freq)).map(|g| g.2));
                    e.3.end = positions.len();
                }
            }
        }
        // RediSearch's document norm: the largest weighted frequency of a term over all
        // fields (a stem is a term of its own).
        let mut max_freq = entries.iter().map(|e| e.1).max().unwrap_or(0);
        if let Some((old_occs, old_hot)) = old_text {
            // The text is the record's: its postings already hold it.
            occs = old_occs;
            (max_freq, len) = (old_hot.max_freq, old_hot.len);
        }
        // Sortable numbers live in the table, the rest in the record.
        let mut sort_numbers = Vec::new();
        sortables.retain(|(f, v)| match v {
            docs::SortValue::Num(n) if sort_numbers::SortNumbers::holds(*n) => {
                sort_numbers.push((*f, *n));
                false
            }
            _ => true,
        });
        let parts = RecordParts { key: key.into(), occs, tags, numerics, served, geos, sortables, missing };
        let rec = DocRecord::encode(&parts);
        let new_postings = Postings::of(parts, len);
        let norm = DocNorm { max_freq: max_freq.max(1), low_score: (0.0..=1.0).contains(&score) };
        let (id, old) = self.docs.put_sorted(rec, DocHot::new(score, max_freq, len), &sort_numbers);
        // RediSearch's total of document lengths (BM25's average): every version indexed adds
        // its length, and nothing takes it away (not a delete, not its GC), until the index is
        // built again (created, loaded, flushed).
        self.stats.total_tokens += u64::from(len);
        // An update of the text: the document keeps its id, so its postings are in the middle
        // of their lists; the lists of the terms it lost and of those it has (the old ones among
        // them, which retiring reads) are asked for together before any is read or changed.
        let touched = &mut self.scratch.touched;
        touched.clear();
        let mut left = 0;
        if let Some((old, _)) = old.as_ref().filter(|_| !kept_text) {
            touched.extend(old.terms().filter(|term| entries.binary_search_by_key(term, |e| e.0).is_err()));
            left = touched.len();
            touched.extend(entries.iter().map(|e| e.0));
            self.text.prefetch_lists(touched, id);
        }
        if let Some((old, old_hot)) = &old {
            // RediSearch re-indexes an updated document under a new id: the old version's
            // entries stay until its GC runs.
            self.retire(old);
            if self.numeric_model.unindexed(old_hot.redisearch_id(), numeric_tree::entries(old)) {
                self.garbage_collected();
            }
        }
        if let Some(rec) = self.docs.get(id) {
            self.numeric_model.indexed(self.docs.redisearch_id(id), numeric_tree::entries(rec));
        }
        match old {
            // An update touches only the bitmaps that changed; every posting of the new
            // version is set (its positions, or the document's norm, may have changed).
            Some((old, old_hot)) => {
                let (gone, added) = old.clone_postings(old_hot.len).diff(new_postings);
                self.remove_postings(id, &gone);
                self.index_postings(id, &added);
                for &term in self.scratch.touched.iter().take(left) {
                    self.text.remove_posting(term, id);
                }
            }
            None => {
                self.index_postings(id, &new_postings);
                // A new document's postings go after the others.
                self.text.prefetch_tails(entries.iter().map(|e| e.0));
            }
        }
        let live = self.docs.len();
        for (term, freq, fields, range) in entries.drain(..) {
            let Some(at) = positions.get_mut(range) else { continue };
            // A term's positions come field by field: in order unless it is in several.
            if !at.is_sorted() {
                at.sort_unstable();
            }
            let freq = u16::try_from(freq).unwrap_or(postings::FREQ_ESCAPE);
            self.text.set_posting(term, Posting { doc: id, freq, fields }, at, norm, live);
        }
        self.scratch.term_pos = term_pos;
        self.scratch.entries = entries;
        self.scratch.positions = positions;
        // Vectors and shapes are replaced wholesale (a field without a value keeps none).
        for (i, f) in self.fields.iter_mut().enumerate() {
            match f {
                FieldIndex::Vector(vi) => match vectors.iter().find(|(vf, _)| *vf == i) {
                    Some((_, vs)) => vi.set(id, vs),
                    None => vi.remove(id),
                },
                FieldIndex::GeoShape(gi) => match shapes.iter().find(|(sf, _)| *sf == i) {
                    Some((_, g)) => gi.set(id, (*g).clone()),
                    None => gi.remove(id),
                },
                _ => {}
            }
        }
    }

    /// The stem term id of text term `id` (memoized per term).
    fn stem_id(&mut self, id: u32, text: &str) -> Option<u32> {
        match self.stem_cache.get(id as usize).copied() {
            Some(1) => return None,
            Some(k) if k >= 2 => return Some(k - 2),
            _ => {}
        }
        let stem = self.stemmer.stem(text).map(|st| self.text.term_id(&format!("{STEM_PREFIX}{st}")));
        if self.stem_cache.len() <= id as usize {
            growth::reserve_eighth(&mut self.stem_cache, id as usize + 1);
            self.stem_cache.resize(id as usize + 1, 0);
        }
        if let Some(slot) = self.stem_cache.get_mut(id as usize) {
            *slot = stem.map_or(1, |s| s + 2);
        }
        stem
    }

    fn index_postings(&mut self, id: u32, p: &Postings) {
        self.text.records += p.records();
        for (f, tid) in &p.tags {
            if let Some(FieldIndex::Tag(ti)) = self.fields.get_mut(*f as usize) {
                ti.add(*tid, id);
            }
        }
        for (f, v) in &p.numerics {
            if let Some(FieldIndex::Numeric(ni)) = self.fields.get_mut(*f as usize) {
                ni.add(*v, id);
            }
        }
        for (f, x, y) in &p.geos {
            if let Some(FieldIndex::Geo(gi)) = self.fields.get_mut(*f as usize) {
                gi.add(id, *x, *y);
            }
        }
        for f in &p.missing {
            if let Some(bm) = self.missing.get_mut(*f as usize) {
                bm.insert(id);
            }
        }
    }

    fn remove_postings(&mut self, id: u32, p: &Postings) {
        self.text.records = self.text.records.saturating_sub(p.records());
        for (f, tid) in &p.tags {
            if let Some(FieldIndex::Tag(ti)) = self.fields.get_mut(*f as usize) {
                ti.remove(*tid, id);
            }
        }
        for (f, v) in &p.numerics {
            if let Some(FieldIndex::Numeric(ni)) = self.fields.get_mut(*f as usize) {
                ni.remove(*v, id);
            }
        }
        for (f, _, _) in &p.geos {
            if let Some(FieldIndex::Geo(gi)) = self.fields.get_mut(*f as usize) {
                gi.remove(id);
            }
        }
        for f in &p.missing {
            if let Some(bm) = self.missing.get_mut(*f as usize) {
                bm.remove(id);
            }
        }
    }

    /// Re-reads every document of the index (after FT.SYNUPDATE, so that words of the
    /// groups are indexed under their group terms too).
    /// They are read again in the order they were indexed (RediSearch's ids), so that their
    /// new ids keep the order ties and unsorted results show.
    pub fn reindex(&mut self, docs: &dyn DocumentSource) {
        let mut keys: Vec<(u64, Vec<u8>)> = self
            .docs
            .keys()
            .map(|k| (self.docs.id_of(k).map_or(u64::MAX, |id| self.docs.redisearch_id(id)), k.to_vec()))
            .collect();
        keys.sort_unstable();
        for (_, key) in keys {
            self.upsert(&key, docs);
        }
    }

    /// Removes `key` from the index; true when it was there.
    pub fn remove(&mut self, key: &[u8]) -> bool {
        match self.docs.remove(key) {
            Some((id, rec, hot)) => {
                self.retire(&rec);
                if self.numeric_model.unindexed(hot.redisearch_id(), numeric_tree::entries(&rec)) {
                    self.garbage_collected();
                }
                self.remove_postings(id, &rec.clone_postings(hot.len));
                for term in rec.terms() {
                    self.text.remove_posting(term, id);
                }
                for f in self.fields.iter_mut() {
                    match f {
                        FieldIndex::Vector(vi) => vi.remove(id),
                        FieldIndex::GeoShape(gi) => gi.remove(id),
                        _ => {}
                    }
                }
                true
            }
            None => false,
        }
    }
}
