//! FT.INFO: definition, counts and memory figures measured from the index structures.

use crate::aggregate::limits::MAX_CURSORS_PER_INDEX;
use crate::analysis::Language;
use crate::catalog::Catalog;
use crate::document::KeyType;
use crate::error::{Error, Result};
use crate::index::{ErrorStats, FieldIndex, Index};
use crate::reply::{Protocol, Reply};
use crate::schema::{FieldSpec, FieldType};
use crate::vector_spec::{VectorAlgo, VectorSpec};

fn mb(bytes: usize) -> Reply {
    Reply::Double(bytes as f64 / (1024.0 * 1024.0))
}

/// A simple-string reply (RediSearch answers FT.INFO names and flags that way).
fn simple(s: impl Into<String>) -> Reply {
    Reply::Simple(s.into())
}

/// `Index Errors` of an index or a field.
fn index_errors(e: &ErrorStats) -> Reply {
    Reply::map(vec![
        ("indexing failures", Reply::Int(e.count as i64)),
        ("last indexing error", simple(e.last_error.as_deref().unwrap_or("N/A"))),
        ("last indexing error key", Reply::Bulk(e.last_key.clone().unwrap_or_else(|| b"N/A".to_vec()))),
    ])
}

/// One schema attribute as RediSearch 2.10 renders it: `identifier`, `attribute`, `type`,
/// `WEIGHT` (TEXT), `SEPARATOR` (TAG), then the flags, in a `flags` array under RESP3
/// and inline under RESP2.
fn attribute(f: &FieldSpec, proto: Protocol) -> Reply {
    let mut pairs = vec![
        (simple("identifier"), simple(&f.path)),
        (simple("attribute"), simple(&f.name)),
        (simple("type"), simple(f.kind.name())),
    ];
    match f.kind {
        FieldType::Text => pairs.push((simple("WEIGHT"), Reply::Double(f.weight))),
        FieldType::Tag => {
            pairs.push((simple("SEPARATOR"), simple(f.separator.map(String::from).unwrap_or_default())))
        }
        FieldType::Vector => pairs.extend(vector_attribute(f.vector.as_ref())),
        FieldType::GeoShape => {
            pairs.push((simple("coord_system"), simple(if f.flat { "FLAT" } else { "SPHERICAL" })))
        }
        _ => {}
    }
    let mut flags = Vec::new();
    for (on, flag) in [
        (f.kind == FieldType::Tag && f.case_sensitive, "CASESENSITIVE"),
        (f.sortable, "SORTABLE"),
        (f.sortable && f.unf, "UNF"),
        (f.nostem, "NOSTEM"),
        (f.noindex, "NOINDEX"),
        (f.with_suffix_trie, "WITHSUFFIXTRIE"),
        (f.index_empty, "INDEXEMPTY"),
        (f.index_missing, "INDEXMISSING"),
    ] {
        if on {
            flags.push(simple(flag));
        }
    }
    match proto {
        Protocol::Resp3 => {
            pairs.push((simple("flags"), Reply::Array(flags)));
            Reply::Map(pairs)
        }
        Protocol::Resp2 => {
            let mut flat: Vec<Reply> = pairs.into_iter().flat_map(|(k, v)| [k, v]).collect();
            flat.extend(flags);
            Reply::Array(flat)
        }
    }
}

/// The algorithm parameters of a VECTOR attribute, as RediSearch 2.10 lists them (HNSW
/// adds `M` and `ef_construction`).
fn vector_attribute(v: Option<&VectorSpec>) -> Vec<(Reply, Reply)> {
    let Some(v) = v else { return Vec::new() };
    let mut pairs = vec![
        (simple("algorithm"), simple(if v.algo == VectorAlgo::Hnsw { "HNSW" } else { "FLAT" })),
        (simple("data_type"), simple(v.ty.name())),
        (simple("dim"), Reply::Int(v.dim as i64)),
        (simple("distance_metric"), simple(v.metric.name())),
    ];
    if v.algo == VectorAlgo::Hnsw {
        pairs.push((simple("M"), Reply::Int(v.m as i64)));
        pairs.push((simple("ef_construction"), Reply::Int(v.ef_construction as i64)));
    }
    pairs
}

/// Memory figures of one index (folio's own estimates from its structures), in bytes.
pub(crate) struct Memory {
    text: usize,
    /// Every inverted index: text, tag, numeric and geo (RediSearch's `inverted_sz_mb`).
    inverted: usize,
    dict: usize,
    tag: usize,
    numeric: usize,
    /// Records that are not text postings: numeric, tag and geo entries, stored vectors.
    numeric_records: u64,
    geo: usize,
    geoshape: usize,
    vector: usize,
    doc: usize,
    offsets: usize,
    sortable: usize,
    total_offsets: u64,
    /// FT.INFO's `total_index_memory_sz_mb` (INFO's `search_used_memory_indexes` sums it).
    pub(crate) total: usize,
}

impl Memory {
    /// Measures `idx` (walks its documents).
    pub(crate) fn of(idx: &Index) -> Memory {
        let mut m = Memory {
            text: idx.text.live_bytes(),
            inverted: 0,
            dict: idx.text.dict.live_bytes(idx.text.counted_terms() as usize),
            tag: 0,
            numeric: 0,
            numeric_records: 0,
            geo: 0,
            geoshape: 0,
            vector: 0,
            doc: idx.docs.table_bytes(),
            offsets: idx.text.position_bytes(),
            sortable: 0,
            total_offsets: 0,
            total: 0,
        };
        for f in &idx.fields {
            match f {
                FieldIndex::Tag(t) => {
                    m.tag += t.dict_bytes();
                    m.inverted += t.posting_bytes();
                    m.numeric_records += t.records();
                }
                FieldIndex::Numeric(n) => {
                    m.numeric += n.mem_bytes();
                    m.numeric_records += n.records;
                }
                FieldIndex::Geo(g) => {
                    m.geo += g.mem_bytes();
                    // RediSearch files GEO points as numeric entries, a record each.
                    m.numeric_records += g.records();
                }
                FieldIndex::Vector(v) => {
                    m.vector += v.memory();
                    // RediSearch counts a record per vector stored (document.c).
                    m.numeric_records += v.len() as u64;
                }
                FieldIndex::GeoShape(g) => m.geoshape += g.bytes(),
                FieldIndex::Text(_) => {}
            }
        }
        for d in idx.docs.live.iter() {
            if let Some(r) = idx.docs.get(d) {
                m.doc += r.mem_bytes();
                m.sortable += idx.docs.sortable_bytes(d);
                m.total_offsets += r.occs().iter().map(|o| u64::from(o.freq)).sum::<u64>();
            }
        }
        m.inverted += m.text + m.numeric + m.geo;
        m.total = m.inverted + m.dict + m.tag + m.doc;
        m
    }
}

/// The inverted index blocks RediSearch would have for `idx`, at least: one per text term,
/// and per numeric field one per 100 entries (its block size) plus one (a range tree has
/// one block per range at least). folio has no blocks; this keeps the figure's scale.
fn inverted_blocks(idx: &Index) -> i64 {
    let numeric: u64 = idx
        .fields
        .iter()
        .filter_map(|f| match f {
            FieldIndex::Numeric(n) if n.records > 0 => Some(n.records.div_ceil(100) + 1),
            _ => None,
        })
        .sum();
    (idx.text.live_terms() + numeric) as i64
}

/// `FT.INFO idx`: RediSearch 2.10's fields, in its order and reply types.
pub(crate) fn ft_info(cat: &Catalog, name: &str, proto: Protocol) -> Result<Reply> {
    let real = cat.resolve(name).ok_or_else(|| Error::new("Unknown index name"))?.to_string();
    let (open_cursors, index_cursors) = {
        let cursors = cat.cursors();
        (cursors.len() as i64, cursors.count(&real) as i64)
    };
    let e = cat.entry(&real).ok_or_else(|| Error::new("Unknown index name"))?;
    let uses = e.usage.uses.load(std::sync::atomic::Ordering::Relaxed);
    let real_name = e.index.spec.name.clone();
    let idx = &e.index;
    let spec = &idx.spec;
    // Options RediSearch lists by what the index does not store.
    let mut options = Vec::new();
    for (on, flag) in [
        (spec.no_freqs, "NOFREQS"),
        (spec.no_fields, "NOFIELDS"),
        (spec.no_offsets, "NOOFFSETS"),
        (spec.no_hl || spec.no_offsets, "NOHL"),
        (spec.max_text_fields, "MAXTEXTFIELDS"),
    ] {
        if on {
            options.push(simple(flag));
        }
    }
    let mut def = vec![
        ("key_type", simple(if spec.on == KeyType::Json { "JSON" } else { "HASH" })),
        (
            "prefixes",
            Reply::Array(if spec.prefixes.is_empty() {
                vec![simple("")]
            } else {
                spec.prefixes.iter().map(|p| simple(String::from_utf8_lossy(p))).collect()
            }),
        ),
    ];
    if let Some(f) = &spec.filter {
        def.push(("filter", simple(f)));
    }
    if spec.language != Language::ENGLISH {
        def.push(("default_language", simple(spec.language.name())));
    }
    if !spec.language_field.is_empty() {
        def.push(("language_field", simple(&spec.language_field)));
    }
    def.push(("default_score", Reply::Double(spec.score)));
    if !spec.score_field.is_empty() {
        def.push(("score_field", simple(&spec.score_field)));
    }
    if !spec.payload_field.is_empty() {
        def.push(("payload_field", simple(&spec.payload_field)));
    }
    let attributes = spec.fields.iter().map(|f| attribute(f, proto)).collect();
    let num_docs = idx.docs.len();
    let Memory {
        inverted: inverted_bytes,
        dict: dict_bytes,
        tag: tag_bytes,
        numeric_records,
        vector: vector_bytes,
        geoshape: geoshape_bytes,
        doc: doc_bytes,
        offsets: offsets_bytes,
        sortable: sortable_bytes,
        total_offsets,
        total,
        ..
    } = Memory::of(idx);
    // RediSearch counts a deleted or replaced document's entries (text, tag and numeric)
    // until its GC collects them.
    let records =
        idx.text.records + numeric_records + idx.numeric_model.garbage_records() + idx.retired_records();
    // RediSearch divides these in single precision (`(float)a / (float)b`): 0/0 is nan.
    let avg = |a: f64, b: f64| Reply::Double(f64::from(a as f32 / b as f32));
    let stats = &idx.stats;
    let dialect_stats = (1..=4)
        .map(|d| (Reply::Simple(format!("dialect_{d}")), Reply::Int(i64::from(e.usage.dialect_used(d)))))
        .collect::<Vec<_>>();
    let field_statistics = spec
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let errors = stats.field_errors.get(i).cloned().unwrap_or_default();
            Reply::map(vec![
                ("identifier", simple(&f.path)),
                ("attribute", simple(&f.name)),
                ("Index Errors", index_errors(&errors)),
            ])
        })
        .collect();
    let mut pairs = vec![
        ("index_name", simple(&real_name)),
        ("index_options", Reply::Array(options)),
        ("index_definition", Reply::map(def)),
        ("attributes", Reply::Array(attributes)),
        ("num_docs", Reply::Int(num_docs as i64)),
        ("max_doc_id", Reply::Int(idx.docs.last_redisearch_id() as i64)),
        ("num_terms", Reply::Int(idx.text.counted_terms() as i64)),
        ("num_records", Reply::Int(records as i64)),
        // Every inverted index, the numeric trees' included (RediSearch's accounting).
        ("inverted_sz_mb", mb(inverted_bytes)),
        ("vector_index_sz_mb", mb(vector_bytes)),
        // RediSearch's count is of every index's blocks (a global).
        (
            "total_inverted_index_blocks",
            Reply::Int(cat.indexes.values().map(|e| inverted_blocks(&e.index)).sum()),
        ),
        ("offset_vectors_sz_mb", mb(offsets_bytes)),
        ("doc_table_size_mb", mb(doc_bytes)),
        ("sortable_values_size_mb", mb(sortable_bytes)),
        ("key_table_size_mb", mb(idx.docs.table_bytes())),
        ("tag_overhead_sz_mb", mb(tag_bytes)),
        ("text_overhead_sz_mb", mb(dict_bytes)),
        ("total_index_memory_sz_mb", mb(total)),
        // RediSearch divides by a float here (`geom_idx_sz / (float)0x100000`).
        ("geoshapes_sz_mb", Reply::Double(f64::from(geoshape_bytes as f32 / 1_048_576f32))),
        ("records_per_doc_avg", avg(records as f64, num_docs as f64)),
        ("bytes_per_record_avg", avg(inverted_bytes as f64, records as f64)),
        ("offsets_per_term_avg", avg(total_offsets as f64, records as f64)),
        ("offset_bits_per_record_avg", avg(offsets_bytes as f64 * 8.0, total_offsets as f64)),
        ("hash_indexing_failures", Reply::Int(stats.errors.count as i64)),
        ("total_indexing_time", Reply::Double(stats.indexing_ms)),
        ("indexing", Reply::Int(i64::from(e.scan.pending))),
        ("percent_indexed", Reply::Double(e.scan.percent)),
        ("number_of_uses", Reply::Int(uses as i64)),
        ("cleaning", Reply::Int(0)),
        (
            "gc_stats",
            Reply::map(vec![
                ("bytes_collected", Reply::Double(stats.gc.bytes_collected as f64)),
                ("total_ms_run", Reply::Double(stats.gc.ms_run)),
                ("total_cycles", Reply::Double(stats.gc.cycles as f64)),
                // nan before the first run, as RediSearch's (0 / 0 would print `-nan`).
                (
                    "average_cycle_time_ms",
                    Reply::Double(match stats.gc.cycles {
                        0 => f64::NAN,
                        n => stats.gc.ms_run / n as f64,
                    }),
                ),
                ("last_run_time_ms", Reply::Double(stats.gc.last_ms)),
                ("gc_numeric_trees_missed", Reply::Double(0.0)),
                ("gc_blocks_denied", Reply::Double(0.0)),
            ]),
        ),
        (
            "cursor_stats",
            Reply::map(vec![
                ("global_idle", Reply::Int(open_cursors)),
                ("global_total", Reply::Int(open_cursors)),
                ("index_capacity", Reply::Int(MAX_CURSORS_PER_INDEX as i64)),
                ("index_total", Reply::Int(index_cursors)),
            ]),
        ),
    ];
    if !spec.stopwords.is_default {
        pairs.push((
            "stopwords_list",
            Reply::Array(spec.stopwords.list().into_iter().map(Reply::text).collect()),
        ));
    }
    pairs.push(("dialect_stats", Reply::Map(dialect_stats)));
    pairs.push(("Index Errors", index_errors(&stats.errors)));
    pairs.push(("field statistics", Reply::Array(field_statistics)));
    Ok(Reply::map(pairs))
}
