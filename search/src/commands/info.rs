//! FT.INFO: definition, counts and memory figures measured from the index structures.

use crate::catalog::Catalog;
use crate::document::KeyType;
use crate::error::{Error, Result};
use crate::index::FieldIndex;
use crate::reply::{Protocol, Reply};
use crate::schema::FieldType;

fn mb(bytes: usize) -> Reply {
    Reply::Double(bytes as f64 / (1024.0 * 1024.0))
}

fn num(v: f64) -> Reply {
    Reply::Double(v)
}

/// `FT.INFO idx`.
pub(crate) fn ft_info(cat: &mut Catalog, name: &str, _proto: Protocol) -> Result<Reply> {
    let e = cat.entry_mut(name).ok_or_else(|| Error::new("Unknown Index name"))?;
    let idx = &e.index;
    let spec = &idx.spec;
    let mut options = Vec::new();
    for (on, flag) in [
        (spec.no_offsets, "NOOFFSETS"),
        (spec.no_hl && !spec.no_offsets, "NOHL"),
        (spec.no_fields, "NOFIELDS"),
        (spec.no_freqs, "NOFREQS"),
        (spec.max_text_fields, "MAXTEXTFIELDS"),
    ] {
        if on {
            options.push(Reply::text(flag));
        }
    }
    let mut def = vec![
        ("key_type", Reply::text(if spec.on == KeyType::Json { "JSON" } else { "HASH" })),
        (
            "prefixes",
            Reply::Array(if spec.prefixes.is_empty() {
                vec![Reply::text("")]
            } else {
                spec.prefixes.iter().map(|p| Reply::Bulk(p.clone())).collect()
            }),
        ),
    ];
    if let Some(f) = &spec.filter {
        def.push(("filter", Reply::text(f)));
    }
    if spec.language.name() != "english" {
        def.push(("default_language", Reply::text(spec.language.name())));
    }
    if spec.language_field != "__language" {
        def.push(("language_field", Reply::text(&spec.language_field)));
    }
    def.push(("default_score", Reply::text(fmt_num(spec.score))));
    if spec.score_field != "__score" {
        def.push(("score_field", Reply::text(&spec.score_field)));
    }
    if spec.payload_field != "__payload" {
        def.push(("payload_field", Reply::text(&spec.payload_field)));
    }
    let attributes = spec
        .fields
        .iter()
        .map(|f| {
            let mut a = vec![
                Reply::text("identifier"),
                Reply::text(&f.path),
                Reply::text("attribute"),
                Reply::text(&f.name),
                Reply::text("type"),
                Reply::text(f.kind.name()),
            ];
            match f.kind {
                FieldType::Text => {
                    a.push(Reply::text("WEIGHT"));
                    a.push(Reply::text(fmt_num(f.weight)));
                    if f.nostem {
                        a.push(Reply::text("NOSTEM"));
                    }
                }
                FieldType::Tag => {
                    a.push(Reply::text("SEPARATOR"));
                    a.push(Reply::text(f.separator.map(|c| c.to_string()).unwrap_or_default()));
                    if f.case_sensitive {
                        a.push(Reply::text("CASESENSITIVE"));
                    }
                }
                _ => {}
            }
            if f.with_suffix_trie {
                a.push(Reply::text("WITHSUFFIXTRIE"));
            }
            if f.sortable {
                a.push(Reply::text("SORTABLE"));
                if f.unf && f.kind != FieldType::Numeric && f.kind != FieldType::Geo {
                    a.push(Reply::text("UNF"));
                }
            }
            if f.noindex {
                a.push(Reply::text("NOINDEX"));
            }
            if f.index_empty {
                a.push(Reply::text("INDEXEMPTY"));
            }
            if f.index_missing {
                a.push(Reply::text("INDEXMISSING"));
            }
            Reply::Array(a)
        })
        .collect();
    let num_docs = idx.docs.len();
    let text_bytes = idx.text.mem_bytes();
    let dict_bytes = idx.text.dict.mem_bytes();
    let mut tag_bytes = 0;
    let mut numeric_bytes = 0;
    let mut numeric_records = 0;
    let mut geo_bytes = 0;
    for f in &idx.fields {
        match f {
            FieldIndex::Tag(t) => tag_bytes += t.mem_bytes(),
            FieldIndex::Numeric(n) => {
                numeric_bytes += n.mem_bytes();
                numeric_records += n.records;
            }
            FieldIndex::Geo(g) => geo_bytes += g.mem_bytes(),
            FieldIndex::Text(_) => {}
        }
    }
    let mut doc_bytes = idx.docs.table_bytes();
    let mut offsets_bytes = 0;
    let mut sortable_bytes = 0;
    let mut total_offsets = 0u64;
    for d in idx.docs.live.iter() {
        if let Some(r) = idx.docs.get(d) {
            doc_bytes += r.mem_bytes();
            offsets_bytes += r.positions.len();
            sortable_bytes += r.sortables.len() * 40;
            total_offsets += r.occs.iter().map(|o| u64::from(o.freq)).sum::<u64>();
        }
    }
    let records = idx.text.records + numeric_records;
    let total = text_bytes + dict_bytes + tag_bytes + numeric_bytes + geo_bytes + doc_bytes;
    let avg = |a: f64, b: f64| if b == 0.0 { Reply::text("nan") } else { num(a / b) };
    let stats = &idx.stats;
    let dialect_stats = (1..=4)
        .map(|d| {
            (
                format!("dialect_{d}"),
                Reply::Int(i64::from(e.dialects_used.get(d - 1).copied().unwrap_or(false))),
            )
        })
        .collect::<Vec<_>>();
    let index_errors = Reply::map(vec![
        ("indexing failures", Reply::Int(stats.failures as i64)),
        ("last indexing error", Reply::text(stats.last_error.as_deref().unwrap_or("N/A"))),
        (
            "last indexing error key",
            Reply::Bulk(stats.last_error_key.clone().unwrap_or_else(|| b"N/A".to_vec())),
        ),
    ]);
    let pairs = vec![
        ("index_name", Reply::text(&spec.name)),
        ("index_options", Reply::Array(options)),
        ("index_definition", Reply::map(def)),
        ("attributes", Reply::Array(attributes)),
        ("num_docs", num(num_docs as f64)),
        ("max_doc_id", num(f64::from(idx.docs.max_id()))),
        ("num_terms", num(idx.text.live_terms() as f64)),
        ("num_records", num(records as f64)),
        ("inverted_sz_mb", mb(text_bytes)),
        ("vector_index_sz_mb", mb(0)),
        ("total_inverted_index_blocks", num(idx.text.live_terms() as f64)),
        ("offset_vectors_sz_mb", mb(offsets_bytes)),
        ("doc_table_size_mb", mb(doc_bytes)),
        ("sortable_values_size_mb", mb(sortable_bytes)),
        ("key_table_size_mb", mb(idx.docs.table_bytes())),
        ("tag_overhead_sz_mb", mb(tag_bytes)),
        ("text_overhead_sz_mb", mb(dict_bytes)),
        ("total_index_memory_sz_mb", mb(total)),
        ("geoshapes_sz_mb", mb(0)),
        ("records_per_doc_avg", avg(records as f64, num_docs as f64)),
        ("bytes_per_record_avg", avg(text_bytes as f64, records as f64)),
        ("offsets_per_term_avg", avg(total_offsets as f64, idx.text.records as f64)),
        ("offset_bits_per_record_avg", avg(offsets_bytes as f64 * 8.0, total_offsets as f64)),
        ("hash_indexing_failures", num(stats.failures as f64)),
        ("total_indexing_time", num(stats.indexing_ms)),
        ("indexing", Reply::Int(i64::from(e.scan.pending))),
        ("percent_indexed", num(e.scan.percent)),
        ("number_of_uses", Reply::Int(stats.uses as i64)),
        ("cleaning", Reply::Int(0)),
        (
            "gc_stats",
            Reply::map(vec![
                ("bytes_collected", num(0.0)),
                ("total_ms_run", num(0.0)),
                ("total_cycles", num(0.0)),
                ("average_cycle_time_ms", Reply::text("nan")),
                ("last_run_time_ms", num(0.0)),
                ("gc_numeric_trees_missed", num(0.0)),
                ("gc_blocks_denied", num(0.0)),
            ]),
        ),
        (
            "cursor_stats",
            Reply::map(vec![
                ("global_idle", Reply::Int(0)),
                ("global_total", Reply::Int(0)),
                ("index_capacity", Reply::Int(128)),
                ("index_total", Reply::Int(0)),
            ]),
        ),
        (
            "dialect_stats",
            Reply::Map(dialect_stats.into_iter().map(|(k, v)| (Reply::Simple(k), v)).collect()),
        ),
        ("Index Errors", index_errors),
    ];
    Ok(Reply::map(pairs))
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}
