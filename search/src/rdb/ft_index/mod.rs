//! `ft_index0`: RediSearch's index definitions as aux data before the keys (RediSearch 2.x
//! `spec.c` `Indexes_RdbSave`/`Indexes_RdbLoad`), read into FT.CREATE arguments that folio's
//! catalog builds as usual, and written from folio's parsed definitions in RediSearch 2.10's
//! encoding (version 23), so that each server loads the other's RDB.
//!
//! A record is the number of indexes, then per index: its name, its flags, its fields, its rule
//! (key type, prefixes, FILTER, LANGUAGE_FIELD, SCORE_FIELD, PAYLOAD_FIELD, default score and
//! language), its custom stopwords, its synonym groups, its TEMPORARY timeout and its aliases.
//! Encoding versions 17 (RediSearch 2.0) to 23 (2.8, 2.10) differ only in the fields: 18 adds
//! JSON paths, 19 vector fields, 20 their blob size, 21 the multi-value flag, 22 tiered HNSW
//! parameters, 23 GEOSHAPE coordinates. Index data is never saved: indexes fill as keys load.

use super::{c_str, count, RdbRead};
use crate::catalog::Catalog;
use crate::config::Config;
use crate::limits::MAX_FIELDS;
use crate::synonyms::Synonyms;

/// RediSearch's aux type name.
pub const TYPE_NAME: &str = "ft_index0";
/// The encoding RediSearch 2.8 and 2.10 write (and folio writes).
pub const ENCODING_VERSION: i32 = 23;
/// The oldest encoding of an aux record (RediSearch 2.0); 1.x kept indexes in keys.
pub const MIN_ENCODING_VERSION: i32 = 17;

/// Index flags (`IndexFlags`).
mod flag {
    pub const TERM_OFFSETS: u64 = 0x01;
    pub const FIELD_FLAGS: u64 = 0x02;
    pub const CUSTOM_STOPWORDS: u64 = 0x08;
    pub const FREQS: u64 = 0x10;
    pub const BYTE_OFFSETS: u64 = 0x40;
    pub const WIDE_SCHEMA: u64 = 0x80;
    pub const SYNONYMS: u64 = 0x100;
    pub const TEMPORARY: u64 = 0x200;
    pub const PHONETIC: u64 = 0x400;
    pub const SKIP_INITIAL_SCAN: u64 = 0x1000;
    pub const FIELD_ALIAS: u64 = 0x4000;
    pub const VECTORS: u64 = 0x8000;
    pub const SUFFIX_TRIE: u64 = 0x10000;
    pub const UNDEFINED_ORDER: u64 = 0x20000;
    pub const NON_EMPTY: u64 = 0x80000;
}

/// Field types (`FieldType`, one bit each).
mod ty {
    pub const TEXT: u64 = 0x01;
    pub const NUMERIC: u64 = 0x02;
    pub const GEO: u64 = 0x04;
    pub const TAG: u64 = 0x08;
    pub const VECTOR: u64 = 0x10;
    pub const GEOMETRY: u64 = 0x20;
}

/// Field options (`FieldSpecOptions`).
mod opt {
    pub const SORTABLE: u64 = 0x01;
    pub const NOSTEM: u64 = 0x02;
    pub const NOINDEX: u64 = 0x04;
    pub const PHONETIC: u64 = 0x08;
    pub const DYNAMIC: u64 = 0x10;
    pub const UNF: u64 = 0x20;
    pub const SUFFIX_TRIE: u64 = 0x40;
    pub const UNDEFINED_ORDER: u64 = 0x80;
    pub const INDEX_EMPTY: u64 = 0x100;
    pub const INDEX_MISSING: u64 = 0x200;
}

/// Tag flags: CASESENSITIVE, and the two every tag field has.
const TAG_CASE_SENSITIVE: u64 = 0x01;
const TAG_DEFAULT_FLAGS: u64 = 0x06;

/// VecSim algorithms, element types and metrics, in their enums' order.
const ALGO_FLAT: u64 = 0;
const ALGO_HNSW: u64 = 1;
const ALGO_TIERED: u64 = 2;
/// VecSim's `VecSimType` as Redis 8 has it: INT8 and UINT8 come before INT32 and INT64
/// (which no index can have), so RediSearch 2.10's records read the same.
const VECTOR_TYPES: [&str; 8] =
    ["FLOAT32", "FLOAT64", "BFLOAT16", "FLOAT16", "INT8", "UINT8", "INT32", "INT64"];
const METRICS: [&str; 3] = ["L2", "IP", "COSINE"];
/// RediSearch's defaults, left out of the arguments built on load.
const DEFAULT_CAP: u64 = 1024;
const DEFAULT_BLOCK_SIZE: u64 = 1024;
const DEFAULT_M: u64 = 16;
const DEFAULT_EF_CONSTRUCTION: u64 = 200;
const DEFAULT_EF_RUNTIME: u64 = 10;

/// `RSLanguage`, in its enum's order.
const LANGUAGES: [&str; 29] = [
    "english", "arabic", "basque", "catalan", "chinese", "danish", "dutch", "finnish", "french", "german",
    "greek", "hindi", "hungarian", "italian", "indonesian", "irish", "lithuanian", "nepali", "norwegian",
    "portuguese", "romanian", "russian", "spanish", "swedish", "tamil", "turkish", "armenian", "serbian",
    "yiddish",
];

/// The TEMPORARY timeout RediSearch saves for an index without one (-1 s in milliseconds).
const NO_TIMEOUT: u64 = -1000i64 as u64;
/// The field id of a NOINDEX TEXT field (`t_fieldId` -1).
const NO_FIELD_ID: u64 = 0xFFFF;
/// Upper bound on other counts read from the stream (indexes, prefixes, words, aliases).
const MAX_COUNT: u64 = 1 << 32;

/// One index read from a record: its FT.CREATE arguments (after the name), synonym groups
/// (word, group ids) and aliases.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedIndex {
    /// Index name.
    pub name: String,
    /// FT.CREATE arguments after the name.
    pub args: Vec<Vec<u8>>,
    /// Synonym groups: each word and the ids of its groups.
    pub synonyms: Vec<(Vec<u8>, Vec<Vec<u8>>)>,
    /// Aliases of the index.
    pub aliases: Vec<String>,
}

/// Reads one record of encoding `encver`.
pub fn read(r: &mut dyn RdbRead, encver: i32) -> Result<Vec<LoadedIndex>, String> {
    if !(MIN_ENCODING_VERSION..=ENCODING_VERSION).contains(&encver) {
        return Err(format!("unsupported ft_index0 encoding version {encver}"));
    }
    let n = count(r, "index", MAX_COUNT)?;
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(read_index(r, encver)?);
    }
    Ok(out)
}

fn arg(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(c_str(b)).into_owned()
}

/// A C string preceded by a 0/1 presence flag.
fn optional(r: &mut dyn RdbRead) -> Result<Option<Vec<u8>>, String> {
    Ok(match r.unsigned()? {
        0 => None,
        _ => Some(c_str(&r.buffer()?).to_vec()),
    })
}

fn read_index(r: &mut dyn RdbRead, encver: i32) -> Result<LoadedIndex, String> {
    let name = text(&r.buffer()?);
    let flags = r.unsigned()?;
    let mut schema = Vec::new();
    for _ in 0..count(r, "field", MAX_FIELDS as u64)? {
        read_field(r, encver, &mut schema)?;
    }
    let on = text(&r.buffer()?);
    let mut prefixes = Vec::new();
    for _ in 0..count(r, "prefix", MAX_COUNT)? {
        prefixes.push(c_str(&r.buffer()?).to_vec());
    }
    let filter = optional(r)?;
    let language_field = optional(r)?;
    let score_field = optional(r)?;
    let payload_field = optional(r)?;
    let score = r.double()?;
    let language = r.unsigned()?;
    let mut stopwords = Vec::new();
    if flags & flag::CUSTOM_STOPWORDS != 0 {
        for _ in 0..count(r, "stopword", MAX_COUNT)? {
            stopwords.push(c_str(&r.buffer()?).to_vec());
        }
    }
    let mut synonyms = Vec::new();
    if flags & flag::SYNONYMS != 0 {
        for _ in 0..count(r, "synonym", MAX_COUNT)? {
            let word = c_str(&r.buffer()?).to_vec();
            let mut groups = Vec::new();
            for _ in 0..count(r, "synonym group", MAX_COUNT)? {
                groups.push(c_str(&r.buffer()?).to_vec());
            }
            synonyms.push((word, groups));
        }
    }
    let timeout = r.unsigned()?;
    let mut aliases = Vec::new();
    for _ in 0..count(r, "alias", MAX_COUNT)? {
        aliases.push(text(&r.buffer()?));
    }

    let mut args = vec![arg("ON"), arg(&on)];
    // RediSearch saves an index without PREFIX as the single prefix "".
    if !(prefixes.is_empty() || prefixes.len() == 1 && prefixes[0].is_empty()) {
        args.push(arg("PREFIX"));
        args.push(arg(&prefixes.len().to_string()));
        args.extend(prefixes);
    }
    let mut option = |name: &str, value: Option<Vec<u8>>| {
        if let Some(v) = value {
            args.push(arg(name));
            args.push(v);
        }
    };
    option("FILTER", filter);
    if language != 0 {
        let l = LANGUAGES.get(language as usize).ok_or_else(|| format!("unknown language {language}"))?;
        option("LANGUAGE", Some(arg(l)));
    }
    option("LANGUAGE_FIELD", language_field);
    if score != 1.0 {
        option("SCORE", Some(arg(&score.to_string())));
    }
    option("SCORE_FIELD", score_field);
    option("PAYLOAD_FIELD", payload_field);
    if flags & flag::TEMPORARY != 0 {
        option("TEMPORARY", Some(arg(&(timeout as i64 / 1000).max(0).to_string())));
    }
    let mut switch = |name: &str, on: bool| {
        if on {
            args.push(arg(name));
        }
    };
    switch("NOOFFSETS", flags & flag::TERM_OFFSETS == 0);
    switch("NOHL", flags & flag::TERM_OFFSETS != 0 && flags & flag::BYTE_OFFSETS == 0);
    switch("NOFIELDS", flags & flag::FIELD_FLAGS == 0);
    switch("NOFREQS", flags & flag::FREQS == 0);
    switch("MAXTEXTFIELDS", flags & flag::WIDE_SCHEMA != 0 && flags & flag::FIELD_FLAGS != 0);
    switch("SKIPINITIALSCAN", flags & flag::SKIP_INITIAL_SCAN != 0);
    if flags & flag::CUSTOM_STOPWORDS != 0 {
        args.push(arg("STOPWORDS"));
        args.push(arg(&stopwords.len().to_string()));
        args.extend(stopwords);
    }
    args.push(arg("SCHEMA"));
    args.extend(schema);
    Ok(LoadedIndex { name, args, synonyms, aliases })
}

/// Reads one field and appends its FT.CREATE schema arguments to `out`.
fn read_field(r: &mut dyn RdbRead, encver: i32, out: &mut Vec<Vec<u8>>) -> Result<(), String> {
    let name = c_str(&r.buffer()?).to_vec();
    let path = if encver >= 18 { optional(r)? } else { None };
    let types = r.unsigned()?;
    let options = r.unsigned()?;
    r.signed()?; // the sorting-table slot: rebuilt from SORTABLE
    let dynamic = options & opt::DYNAMIC != 0;
    let mut weight = 1.0;
    if types & ty::TEXT != 0 || dynamic {
        r.unsigned()?; // the text field id: rebuilt in schema order
        weight = r.double()?;
    }
    let mut tag = (0, 0u8);
    if types & ty::TAG != 0 || dynamic {
        let flags = r.unsigned()?;
        let sep = r.buffer()?;
        tag = (flags, sep.first().copied().unwrap_or(0));
    }
    let mut vector = Vec::new();
    if encver >= 19 && types & ty::VECTOR != 0 {
        vector = read_vector(r, encver)?;
    }
    let mut geometry = "SPHERICAL";
    if (types & ty::GEOMETRY != 0 || dynamic) && encver >= 23 && r.unsigned()? == 0 {
        geometry = "FLAT";
    }

    match path {
        Some(p) if p != name => {
            out.push(p);
            out.push(arg("AS"));
            out.push(name);
        }
        _ => out.push(name),
    }
    let kind = match types {
        ty::TEXT => "TEXT",
        ty::NUMERIC => "NUMERIC",
        ty::GEO => "GEO",
        ty::TAG => "TAG",
        ty::VECTOR => "VECTOR",
        ty::GEOMETRY => "GEOSHAPE",
        other => return Err(format!("unsupported field type {other}")),
    };
    out.push(arg(kind));
    out.extend(vector);
    if types == ty::GEOMETRY {
        out.push(arg(geometry));
    }
    let switch = |out: &mut Vec<Vec<u8>>, name: &str, bit: u64| {
        if options & bit != 0 {
            out.push(arg(name));
        }
    };
    if types == ty::TEXT {
        if weight != 1.0 {
            out.push(arg("WEIGHT"));
            out.push(arg(&weight.to_string()));
        }
        switch(out, "NOSTEM", opt::NOSTEM);
        if options & opt::PHONETIC != 0 {
            out.push(arg("PHONETIC"));
            out.push(arg("dm:en"));
        }
    }
    if types == ty::TAG {
        if tag.1 != 0 {
            out.push(arg("SEPARATOR"));
            out.push(vec![tag.1]);
        }
        if tag.0 & TAG_CASE_SENSITIVE != 0 {
            out.push(arg("CASESENSITIVE"));
        }
    }
    switch(out, "WITHSUFFIXTRIE", opt::SUFFIX_TRIE);
    switch(out, "INDEXEMPTY", opt::INDEX_EMPTY);
    switch(out, "INDEXMISSING", opt::INDEX_MISSING);
    switch(out, "SORTABLE", opt::SORTABLE);
    if options & opt::SORTABLE != 0 {
        switch(out, "UNF", opt::UNF);
    }
    switch(out, "NOINDEX", opt::NOINDEX);
    Ok(())
}

/// Reads a vector field's parameters (VecSim's, by encoding) into `FLAT|HNSW <n> …` arguments.
fn read_vector(r: &mut dyn RdbRead, encver: i32) -> Result<Vec<Vec<u8>>, String> {
    if encver >= 20 {
        r.unsigned()?; // the blob size: DIM times the type's size
    }
    let mut algo = r.unsigned()?;
    if encver >= 22 && algo == ALGO_TIERED {
        algo = r.unsigned()?; // the tiered index's primary index: HNSW
        if algo != ALGO_HNSW {
            return Err(format!("unsupported tiered vector index {algo}"));
        }
        r.unsigned()?; // swapJobThreshold
    } else if (encver >= 22 && algo == ALGO_HNSW) || algo > ALGO_HNSW {
        return Err(format!("unsupported vector algorithm {algo}"));
    }
    let ty = r.unsigned()?;
    let dim = r.unsigned()?;
    let metric = r.unsigned()?;
    if encver >= 21 {
        r.unsigned()?; // multi: follows from the JSON path
    }
    let cap = r.unsigned()?;
    let mut params = vec![
        (
            "TYPE",
            VECTOR_TYPES.get(ty as usize).ok_or_else(|| format!("unknown vector type {ty}"))?.to_string(),
        ),
        ("DIM", dim.to_string()),
        (
            "DISTANCE_METRIC",
            METRICS.get(metric as usize).ok_or_else(|| format!("unknown metric {metric}"))?.to_string(),
        ),
    ];
    if cap != DEFAULT_CAP {
        params.push(("INITIAL_CAP", cap.to_string()));
    }
    let name = if algo == ALGO_FLAT {
        let block = r.unsigned()?;
        if block != DEFAULT_BLOCK_SIZE {
            params.push(("BLOCK_SIZE", block.to_string()));
        }
        "FLAT"
    } else {
        for (what, default) in [
            ("M", DEFAULT_M),
            ("EF_CONSTRUCTION", DEFAULT_EF_CONSTRUCTION),
            ("EF_RUNTIME", DEFAULT_EF_RUNTIME),
        ] {
            let v = r.unsigned()?;
            if v != default {
                params.push((what, v.to_string()));
            }
        }
        "HNSW"
    };
    let mut out = vec![arg(name), arg(&(params.len() * 2).to_string())];
    for (k, v) in params {
        out.push(arg(k));
        out.push(arg(&v));
    }
    Ok(out)
}

/// Adds the loaded indexes to `cat` (the indexes of database 0), each empty with a pending
/// scan; returns a warning for each index folio cannot build (an INT32/INT64 vector field,
/// a name already taken), which is left out as RediSearch leaves out a duplicate.
pub fn restore(cat: &mut Catalog, loaded: Vec<LoadedIndex>, config: &Config) -> Vec<String> {
    let mut warnings = Vec::new();
    for l in loaded {
        let refs: Vec<&[u8]> = l.args.iter().map(|a| a.as_slice()).collect();
        if let Err(e) = cat.create(&l.name, &refs, config, true) {
            warnings.push(format!("index '{}' from the RDB is left out: {}", l.name, e.0));
            continue;
        }
        if let Some(e) = cat.indexes.get_mut(&l.name) {
            let mut synonyms = Synonyms::default();
            for (word, groups) in &l.synonyms {
                for g in groups {
                    synonyms.update(g, &[word.as_slice()]);
                }
            }
            e.index.synonyms = synonyms;
        }
        for a in l.aliases {
            cat.aliases.insert(a, l.name.clone());
        }
    }
    warnings
}

mod save;
pub use save::write;

#[cfg(test)]
mod tests;
