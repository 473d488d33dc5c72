//! One index's data: the document table, text postings, tag/numeric/geo/vector/shape field
//! indexes, their statistics and garbage collection; the write path that keeps them
//! consistent is [`ingest`].

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
mod hnsw_visited;
pub mod idset;
mod ingest;
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

use roaring::RoaringBitmap;

use crate::analysis::tokenizer::tokenize_query;
use crate::analysis::Stemmer;

/// The text term an empty value of an INDEXEMPTY TEXT field is indexed under (the
/// tokenizer never produces it, so only `""` queries reach it).
pub const EMPTY_TERM: &str = "";
use crate::schema::{FieldType, IndexSpec};
use crate::synonyms::Synonyms;
use docs::{DocRecord, DocTable};
pub(crate) use filter::IndexFilter;
use geo::GeoIndex;
use ingest::IngestScratch;
pub use kept::Kept;
use numeric::NumericIndex;
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
