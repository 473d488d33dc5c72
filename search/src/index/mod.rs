//! One index's data: the document table, text postings, tag/numeric/geo field indexes,
//! and the upsert/remove operations that keep them consistent.

pub mod distance;
pub mod docs;
pub mod extract;
pub mod filter;
pub mod forward;
pub mod geo;
pub mod geoshape;
mod growth;
pub mod half;
pub mod hnsw;
mod hnsw_repair;
pub mod idset;
pub mod kept;
pub mod numeric;
pub mod numeric_tree;
pub mod postings;
pub mod record;
mod record_postings;
pub mod rows;
mod sort_numbers;
pub mod tag;
pub mod termdict;
mod terms;
pub mod text;
pub mod thin;
pub mod varint;
pub mod vector;
pub mod vector_extract;
mod vector_graph;
pub mod vector_mode;

use std::time::Instant;

use roaring::RoaringBitmap;

use crate::analysis::tokenizer::{tokenize_query, Tokens};
use crate::analysis::{Stemmer, STEM_PREFIX};
use crate::document::DocumentSource;
use crate::limits::MULTI_TEXT_SLOP;

/// The text term an empty value of an INDEXEMPTY TEXT field is indexed under (the
/// tokenizer never produces it, so only `""` queries reach it).
pub const EMPTY_TERM: &str = "";
use crate::schema::{FieldType, IndexSpec};
use crate::synonyms::Synonyms;
use docs::{DocHot, DocRecord, DocTable, RecordParts, TermOcc};
use extract::{extract, FieldValues};
pub(crate) use filter::IndexFilter;
use geo::GeoIndex;
pub use kept::Kept;
use numeric::NumericIndex;
use postings::{DocNorm, Posting};
use record_postings::Postings;
use tag::TagIndex;
use text::TextIndex;
use vector::VectorIndex;

/// Per-field index data, parallel to the schema's fields.
pub enum FieldIndex {
    /// A TEXT field and its ordinal among text fields.
    Text(u16),
    /// A TAG field.
    Tag(TagIndex),
    /// A NUMERIC field.
    Numeric(NumericIndex),
    /// A GEO field.
    Geo(GeoIndex),
    /// A VECTOR field.
    Vector(Box<VectorIndex>),
    /// A GEOSHAPE field.
    GeoShape(geoshape::GeoShapeIndex),
}

/// Indexing failures of an index or of one field (FT.INFO `Index Errors`).
#[derive(Debug, Default, Clone)]
pub struct ErrorStats {
    /// Documents that failed.
    pub count: u64,
    /// Last failure message.
    pub last_error: Option<String>,
    /// Key of the last failure.
    pub last_key: Option<Vec<u8>>,
}

impl ErrorStats {
    /// Counts a failure of `key`; an empty `message` leaves `last indexing error` at N/A.
    fn add(&mut self, message: &str, key: &[u8]) {
        self.count += 1;
        self.last_error = (!message.is_empty()).then(|| message.to_string());
        self.last_key = Some(key.to_vec());
    }
}

/// FT.INFO's `gc_stats`: the runs of RediSearch's collector folio keeps the schedule of
/// ([`Index::collect_garbage`]). folio frees a document's entries when it goes, so what a run
/// "collects" is what RediSearch's would: its bytes are an estimate, [`GC_ENTRY_BYTES`] per
/// entry of the versions that left (text, tag and numeric entries, and one per document).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct GcStats {
    /// Estimated bytes the runs collected.
    pub bytes_collected: u64,
    /// Runs.
    pub cycles: u64,
    /// Milliseconds the runs took, in all.
    pub ms_run: f64,
    /// Milliseconds the last run took.
    pub last_ms: f64,
}

/// Bytes a collected entry counts in [`GcStats::bytes_collected`] (a document id delta, a
/// frequency, a field mask and an offset or two, in RediSearch's encoding).
pub const GC_ENTRY_BYTES: u64 = 8;

/// Counters FT.INFO reports.
#[derive(Debug, Default, Clone)]
pub struct IndexStats {
    /// Documents that failed to index.
    pub errors: ErrorStats,
    /// Failures per schema field (parallel to the schema; grown on demand).
    pub field_errors: Vec<ErrorStats>,
    /// Total time spent indexing, ms.
    pub indexing_ms: f64,
    /// Runs of RediSearch's garbage collector (FT.INFO `gc_stats`).
    pub gc: GcStats,
    /// The lengths of every version of a document indexed since the index was built (BM25's
    /// average length over the live documents, as RediSearch's `totalDocsLen`).
    pub total_tokens: u64,
}

/// A key's change for one index, read from the document ([`Index::prepare`]).
pub enum KeyChange {
    /// The key is not (or no longer) a document of the index.
    Remove,
    /// Its document's values, and what of its entries the update keeps.
    Insert(extract::Extracted, Kept),
    /// Its document cannot be indexed (counted in FT.INFO's errors).
    Failed(extract::ExtractError),
}

/// One index: definition plus data.
pub struct Index {
    /// The definition.
    pub spec: IndexSpec,
    /// Documents.
    pub docs: DocTable,
    /// Text postings.
    pub text: TextIndex,
    /// Per-field data, parallel to `spec.fields`.
    pub fields: Vec<FieldIndex>,
    /// Docs missing each field (INDEXMISSING fields; empty otherwise).
    pub missing: Vec<RoaringBitmap>,
    /// Stemmer of the index language.
    pub stemmer: Stemmer,
    /// The parsed FILTER.
    pub filter: Option<IndexFilter>,
    /// Per text term id: 0 = not computed, 1 = no stem, k + 2 = stem term id k.
    stem_cache: Vec<u32>,
    /// Counters.
    pub stats: IndexStats,
    /// Synonym groups (FT.SYNUPDATE): a word of a group is also indexed as `~<group>`.
    pub synonyms: Synonyms,
    /// Buffers of the indexer, kept from one document to the next.
    scratch: IngestScratch,
    /// The numeric garbage RediSearch would hold, and its range trees once asked for.
    pub numeric_model: numeric_tree::Model,
}

/// What [`Index::insert_in_language`] builds for each document: (term, text field ordinal,
/// position, frequency weight) per token; per term (term, weighted frequency, field mask,
/// range in `positions`); the terms' positions.
#[derive(Default)]
struct IngestScratch {
    term_pos: Vec<(u32, u16, u32, u32)>,
    entries: Vec<(u32, u32, u16, std::ops::Range<usize>)>,
    positions: Vec<u32>,
}

impl Index {
    /// An empty index for `spec`; fails when the FILTER does not parse.
    pub fn new(spec: IndexSpec, min_stem_len: usize) -> crate::error::Result<Index> {
        let stemmer = Stemmer::new(spec.language, min_stem_len);
        let filter = spec.filter.as_deref().map(IndexFilter::parse).transpose()?;
        let mut idx = Index {
            filter,
            stem_cache: Vec::new(),
            scratch: IngestScratch::default(),
            spec,
            docs: DocTable::default(),
            text: TextIndex::default(),
            fields: Vec::new(),
            missing: Vec::new(),
            stemmer,
            stats: IndexStats::default(),
            synonyms: Synonyms::default(),
            numeric_model: numeric_tree::Model::default(),
        };
        idx.sync_fields();
        Ok(idx)
    }

    /// A run of RediSearch's garbage collector (FT.DEBUG GC_FORCEINVOKE): folio removes a
    /// document's entries when it goes, so only what RediSearch shows until its collection
    /// runs is dropped here: the numeric garbage ([`numeric_tree::Model::force_collect`]) and
    /// the emptied terms. Nothing runs until FORK_GC_CLEAN_THRESHOLD documents were removed
    /// or replaced since the last run. Returns whether it ran.
    pub fn collect_garbage(&mut self, numeric_fields: &[usize]) -> bool {
        let ran = self.numeric_model.force_collect(&self.docs, numeric_fields);
        if ran {
            self.garbage_collected();
        }
        ran
    }

    /// A version of a document left the index (deleted, or re-indexed by an update):
    /// RediSearch keeps its text and tag entries, which its IDF counts, until its GC runs.
    fn retire(&mut self, rec: &DocRecord) {
        self.text.retire(rec.terms());
        if self.fields.iter().any(|f| matches!(f, FieldIndex::Tag(_))) {
            let mut fields: Vec<u16> = Vec::new();
            for (f, tid) in rec.tags() {
                if let Some(FieldIndex::Tag(ti)) = self.fields.get_mut(f as usize) {
                    ti.retire(tid);
                    // One record per document and field, however many values.
                    if !fields.contains(&f) {
                        fields.push(f);
                        ti.retired_records += 1;
                    }
                }
            }
        }
    }

    /// The text entries and TAG records (one per document and field) of the versions of
    /// documents that left the index since the last GC run, which RediSearch's FT.INFO
    /// `num_records` counts until then (its numeric ones are the numeric model's garbage).
    pub fn retired_records(&self) -> u64 {
        let tags: u64 = self
            .fields
            .iter()
            .map(|f| match f {
                FieldIndex::Tag(ti) => ti.retired_records,
                _ => 0,
            })
            .sum();
        self.text.retired_entries + tags
    }

    /// RediSearch's GC ran: what it keeps until then (emptied terms, the entries of versions
    /// that left) goes.
    fn garbage_collected(&mut self) {
        let started = std::time::Instant::now();
        let (numeric, docs) = self.numeric_model.last_collected();
        let entries = self.retired_records() + numeric + docs;
        self.text.collect_garbage();
        for f in &mut self.fields {
            if let FieldIndex::Tag(ti) = f {
                ti.collect_garbage();
            }
        }
        let gc = &mut self.stats.gc;
        gc.bytes_collected += entries * GC_ENTRY_BYTES;
        gc.cycles += 1;
        gc.last_ms = started.elapsed().as_secs_f64() * 1000.0;
        gc.ms_run += gc.last_ms;
    }

    /// Creates data structures for fields added to the spec (FT.ALTER).
    pub fn sync_fields(&mut self) {
        let mut text_ord = self.fields.iter().filter(|f| matches!(f, FieldIndex::Text(_))).count() as u16;
        for f in self.spec.fields.iter().skip(self.fields.len()) {
            self.fields.push(match f.kind {
                FieldType::Text => {
                    text_ord += 1;
                    FieldIndex::Text(text_ord - 1)
                }
                FieldType::Tag => FieldIndex::Tag(TagIndex::default()),
                FieldType::Numeric => FieldIndex::Numeric(NumericIndex::default()),
                FieldType::Geo => FieldIndex::Geo(GeoIndex::default()),
                FieldType::GeoShape => FieldIndex::GeoShape(geoshape::GeoShapeIndex::default()),
                FieldType::Vector => {
                    FieldIndex::Vector(Box::new(VectorIndex::new(&f.vector.clone().unwrap_or_default())))
                }
            });
            self.missing.push(RoaringBitmap::new());
        }
    }

    /// Text ordinal of field `i`.
    pub fn text_ord(&self, i: usize) -> Option<u16> {
        match self.fields.get(i) {
            Some(FieldIndex::Text(o)) => Some(*o),
            _ => None,
        }
    }

    /// The PHONETIC text fields, as a mask of text ordinals.
    pub fn phonetic_fields(&self) -> text::FieldMask {
        (0..self.spec.fields.len())
            .filter(|&i| self.spec.fields[i].phonetic)
            .filter_map(|i| self.text_ord(i))
            .fold(0, |m, o| m | 1u128 << (u32::from(o) % 128))
    }

    /// Whether some TEXT field in `mask` is stemmed (not NOSTEM): a query word searched
    /// there expands to its stem.
    pub fn stems_in(&self, mask: text::FieldMask) -> bool {
        self.spec.fields.iter().enumerate().any(|(i, f)| {
            !f.nostem && self.text_ord(i).is_some_and(|o| mask & (1u128 << (u32::from(o) % 128)) != 0)
        })
    }

    /// The words of query text `raw` as this index tokenizes them, stopwords dropped unless
    /// `keep_stopwords` (NOSTOPWORDS).
    pub fn query_words(&self, raw: &str, keep_stopwords: bool) -> Vec<String> {
        tokenize_query(raw)
            .into_iter()
            .map(|t| t.text)
            .filter(|t| keep_stopwords || !self.spec.stopwords.contains(t))
            .collect()
    }

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
        let doc_stemmer = language.map(|l| Stemmer::new(l, self.stemmer.min_len()));
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
                for term in old.terms().filter(|_| !kept_text) {
                    if entries.binary_search_by_key(&term, |e| e.0).is_err() {
                        self.text.remove_posting(term, id);
                    }
                }
            }
            None => self.index_postings(id, &new_postings),
        }
        let live = self.docs.len();
        self.text.prefetch_tails(entries.iter().map(|e| e.0));
        for (term, freq, fields, range) in entries.drain(..) {
            let Some(at) = positions.get_mut(range) else { continue };
            // A term's positions come field by field: in order unless it is in several.
            if !at.is_sorted() {
                at.sort_unstable();
            }
            let freq = u16::try_from(freq).unwrap_or(postings::FREQ_ESCAPE);
            self.text.set_posting(term, Posting { doc: id, freq, fields }, at, norm, live);
        }
        self.scratch = IngestScratch { term_pos, entries, positions };
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

    /// Drops every document, keeping the definition.
    pub fn clear(&mut self) {
        let spec = self.spec.clone();
        let stats = IndexStats::default();
        let filter = self.filter.take();
        let synonyms = std::mem::take(&mut self.synonyms);
        let stemmer = std::mem::replace(&mut self.stemmer, Stemmer::new(spec.language, 0));
        *self = Index {
            spec,
            docs: DocTable::default(),
            text: TextIndex::default(),
            fields: Vec::new(),
            missing: Vec::new(),
            stemmer,
            filter,
            stem_cache: Vec::new(),
            scratch: IngestScratch::default(),
            stats,
            synonyms,
            numeric_model: numeric_tree::Model::default(),
        };
        self.sync_fields();
    }

    /// Average document length in tokens.
    pub fn avg_doc_len(&self) -> f64 {
        let n = self.docs.len();
        if n == 0 {
            0.0
        } else {
            self.stats.total_tokens as f64 / n as f64
        }
    }
}

/// What one occurrence of a term adds to its frequency in a field of weight `weight`, as
/// RediSearch's forward index counts it: `max(1, (uint32_t)weight)`, a stem getting a fifth
/// of the weight (`STEM_TOKEN_FACTOR`). Frequencies, the document norm (largest frequency)
/// and the document length are all in these units.
pub fn freq_weight(weight: f64, stem: bool) -> u32 {
    let w = weight as f32;
    let w = if stem { w * 0.2 } else { w };
    (w as u32).max(1)
}
