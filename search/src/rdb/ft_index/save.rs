//! Writing `ft_index0` records: folio's parsed definitions in RediSearch 2.10's encoding, with
//! the flags, field ids and sorting slots RediSearch itself gives the same FT.CREATE.

use super::{flag, opt, ty, ALGO_FLAT, ALGO_HNSW, ALGO_TIERED, LANGUAGES, NO_FIELD_ID, NO_TIMEOUT};
use super::{TAG_CASE_SENSITIVE, TAG_DEFAULT_FLAGS};
use crate::catalog::Catalog;
use crate::document::KeyType;
use crate::rdb::{with_nul, RdbWrite};
use crate::schema::{path_has_defined_order, FieldSpec, FieldType, IndexSpec};
use crate::vector_spec::{Metric, VectorAlgo, VectorType};

/// Writes every index of `cat` as one record of encoding [`super::ENCODING_VERSION`].
pub fn write(w: &mut dyn RdbWrite, cat: &Catalog) {
    w.put_unsigned(cat.indexes.len() as u64);
    for (name, e) in &cat.indexes {
        let spec = &e.index.spec;
        w.put_buffer(&with_nul(name.as_bytes()));
        w.put_unsigned(index_flags(spec, !e.index.synonyms.is_empty()));
        w.put_unsigned(spec.fields.len() as u64);
        let (mut sort_slot, mut text_id) = (0i64, 0u64);
        for f in &spec.fields {
            write_field(w, spec.on, f, &mut sort_slot, &mut text_id);
        }
        w.put_buffer(match spec.on {
            KeyType::Hash => b"HASH\0",
            KeyType::Json => b"JSON\0",
        });
        if spec.prefixes.is_empty() {
            w.put_unsigned(1);
            w.put_buffer(b"\0");
        } else {
            w.put_unsigned(spec.prefixes.len() as u64);
            for p in &spec.prefixes {
                w.put_buffer(&with_nul(p));
            }
        }
        let optional = |w: &mut dyn RdbWrite, v: Option<&str>| match v {
            Some(s) => {
                w.put_unsigned(1);
                w.put_buffer(&with_nul(s.as_bytes()));
            }
            None => w.put_unsigned(0),
        };
        fn given(s: &str) -> Option<&str> {
            (!s.is_empty()).then_some(s)
        }
        optional(w, spec.filter.as_deref());
        optional(w, given(&spec.language_field));
        optional(w, given(&spec.score_field));
        optional(w, given(&spec.payload_field));
        w.put_double(spec.score);
        w.put_unsigned(LANGUAGES.iter().position(|l| *l == spec.language.name()).unwrap_or(0) as u64);
        if !spec.stopwords.is_default {
            let words = spec.stopwords.list();
            w.put_unsigned(words.len() as u64);
            for word in words {
                w.put_buffer(word.as_bytes());
            }
        }
        if !e.index.synonyms.is_empty() {
            w.put_unsigned(e.index.synonyms.iter().count() as u64);
            for (word, groups) in e.index.synonyms.iter() {
                w.put_buffer(&with_nul(word.as_bytes()));
                w.put_unsigned(groups.len() as u64);
                for g in groups {
                    w.put_buffer(&with_nul(g.as_bytes()));
                }
            }
        }
        w.put_unsigned(spec.temporary.map_or(NO_TIMEOUT, |s| s.saturating_mul(1000)));
        let mut aliases: Vec<&String> =
            cat.aliases.iter().filter(|(_, i)| *i == name).map(|(a, _)| a).collect();
        aliases.sort();
        w.put_unsigned(aliases.len() as u64);
        for a in aliases {
            w.put_buffer(&with_nul(a.as_bytes()));
        }
    }
}

/// The flags RediSearch 2.10 gives an index of this definition.
fn index_flags(spec: &IndexSpec, synonyms: bool) -> u64 {
    let mut f = 0;
    let mut set = |bit: u64, on: bool| {
        if on {
            f |= bit;
        }
    };
    set(flag::TERM_OFFSETS, !spec.no_offsets);
    set(flag::FIELD_FLAGS, !spec.no_fields);
    set(flag::FREQS, !spec.no_freqs);
    set(flag::BYTE_OFFSETS, !spec.no_hl);
    set(flag::WIDE_SCHEMA, spec.max_text_fields);
    set(flag::CUSTOM_STOPWORDS, !spec.stopwords.is_default);
    set(flag::SYNONYMS, synonyms);
    set(flag::TEMPORARY, spec.temporary.is_some());
    set(flag::SKIP_INITIAL_SCAN, spec.skip_initial_scan);
    let fields = &spec.fields;
    set(flag::PHONETIC, fields.iter().any(|f| f.phonetic));
    set(flag::FIELD_ALIAS, fields.iter().any(|f| f.name != f.path));
    set(flag::VECTORS, fields.iter().any(|f| f.kind == FieldType::Vector));
    set(flag::SUFFIX_TRIE, fields.iter().any(|f| f.kind == FieldType::Text && f.with_suffix_trie));
    set(flag::UNDEFINED_ORDER, fields.iter().any(|f| f.undefined_order));
    set(
        flag::NON_EMPTY,
        fields.iter().any(|f| matches!(f.kind, FieldType::Text | FieldType::Tag) && !f.index_empty),
    );
    f
}

fn write_field(w: &mut dyn RdbWrite, on: KeyType, f: &FieldSpec, sort_slot: &mut i64, text_id: &mut u64) {
    w.put_buffer(&with_nul(f.name.as_bytes()));
    if f.path != f.name {
        w.put_unsigned(1);
        w.put_buffer(&with_nul(f.path.as_bytes()));
    } else {
        w.put_unsigned(0);
    }
    w.put_unsigned(match f.kind {
        FieldType::Text => ty::TEXT,
        FieldType::Numeric => ty::NUMERIC,
        FieldType::Geo => ty::GEO,
        FieldType::Tag => ty::TAG,
        FieldType::Vector => ty::VECTOR,
        FieldType::GeoShape => ty::GEOMETRY,
    });
    let mut options = 0;
    let mut set = |bit: u64, on: bool| {
        if on {
            options |= bit;
        }
    };
    set(opt::SORTABLE, f.sortable);
    set(opt::NOSTEM, f.nostem);
    set(opt::NOINDEX, f.noindex);
    set(opt::PHONETIC, f.phonetic);
    set(opt::UNF, f.sortable && f.unf);
    set(opt::SUFFIX_TRIE, f.with_suffix_trie);
    set(opt::UNDEFINED_ORDER, f.undefined_order);
    set(opt::INDEX_EMPTY, f.index_empty);
    set(opt::INDEX_MISSING, f.index_missing);
    w.put_unsigned(options);
    if f.sortable {
        w.put_signed(*sort_slot);
        *sort_slot += 1;
    } else {
        w.put_signed(-1);
    }
    match f.kind {
        FieldType::Text => {
            if f.noindex {
                w.put_unsigned(NO_FIELD_ID);
            } else {
                w.put_unsigned(*text_id);
                *text_id += 1;
            }
            w.put_double(f.weight);
        }
        FieldType::Tag => {
            w.put_unsigned(TAG_DEFAULT_FLAGS | if f.case_sensitive { TAG_CASE_SENSITIVE } else { 0 });
            let sep = f.separator.filter(char::is_ascii).map_or(0, |c| c as u8);
            w.put_buffer(&[sep]);
        }
        FieldType::Vector => {
            if let Some(v) = &f.vector {
                let multi = on == KeyType::Json && !path_has_defined_order(&f.path);
                w.put_unsigned(v.dim as u64 * v.ty.size() as u64);
                let ty = match v.ty {
                    VectorType::Float32 => 0,
                    VectorType::Float64 => 1,
                    VectorType::BFloat16 => 2,
                    VectorType::Float16 => 3,
                    VectorType::Int8 => 4,
                    VectorType::UInt8 => 5,
                };
                let metric = match v.metric {
                    Metric::L2 => 0,
                    Metric::Ip => 1,
                    Metric::Cosine => 2,
                };
                // RediSearch saves the capacity it resolved: the block size when none was given.
                let cap = v.initial_cap.unwrap_or(v.block_size);
                match v.algo {
                    VectorAlgo::Flat => {
                        for x in [ALGO_FLAT, ty, v.dim as u64, metric, u64::from(multi), cap, v.block_size] {
                            w.put_unsigned(x);
                        }
                    }
                    VectorAlgo::Hnsw => {
                        for x in [
                            ALGO_TIERED,
                            ALGO_HNSW,
                            0,
                            ty,
                            v.dim as u64,
                            metric,
                            u64::from(multi),
                            cap,
                            v.m,
                            v.ef_construction,
                            v.ef_runtime,
                        ] {
                            w.put_unsigned(x);
                        }
                    }
                }
            }
        }
        // RediSearch's `GEOMETRY_COORDS_Cartesian` is 0, `GEOMETRY_COORDS_Geographic` 1.
        FieldType::GeoShape => w.put_unsigned(u64::from(!f.flat)),
        FieldType::Numeric | FieldType::Geo => {}
    }
}
