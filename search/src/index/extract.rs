//! Reads one document through the [`DocumentSource`] and applies RediSearch's type rules,
//! producing the values to index per field (or the reason the document fails).

use crate::analysis::Language;
use crate::document::{DocumentSource, FieldValue, KeyType};
use crate::index::docs::{Several, SortValue};
use crate::index::geo::parse_geo_value;
use crate::schema::{FieldType, IndexSpec};

/// The indexable values of one document, per schema field (same order as the schema).
#[derive(Debug, Default)]
pub struct Extracted {
    /// Values per field index.
    pub values: Vec<FieldValues>,
    /// Document score.
    pub score: f32,
    /// The document's own language (LANGUAGE_FIELD), when it names one other than the index's.
    pub language: Option<crate::analysis::stemmer::Language>,
}

/// Values of one field.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValues {
    /// No value.
    Missing,
    /// TEXT strings.
    Text(Vec<String>),
    /// TAG values (split and normalized), and the field's first value as the document holds
    /// it: what SORTABLE sorts by (RediSearch keeps the whole string, not its first tag).
    Tag {
        /// The tags.
        values: Vec<String>,
        /// The first value unsplit and unnormalized.
        first: String,
    },
    /// NUMERIC values.
    Numeric {
        /// The numbers, in the document's order.
        values: Vec<f64>,
        /// Whether `values` is the document's one value at the field's path, which LOAD and
        /// GROUPBY read back as this very number (the index can answer for the document).
        served: bool,
    },
    /// GEO points.
    Geo(Vec<(f64, f64)>),
    /// VECTOR values (several for a JSON multi-vector), each of the field's DIM.
    Vector(Vec<Vec<f64>>),
    /// A GEOSHAPE shape, read and validated, with its text (what SORTABLE sorts by).
    GeoShape(geo::Geometry<f64>, String),
    /// The values of a JSON SORTABLE attribute holding several (an array, or several
    /// matches of its path), and its sort value: the first of them as
    /// [`SortValue::Several`] (never the other variants).
    Several(Box<FieldValues>, SortValue),
}

impl FieldValues {
    /// The sortable value (first value), normalized unless `unf`.
    pub fn sort_value(&self, unf: bool) -> Option<SortValue> {
        match self {
            FieldValues::Several(_, first) => Some(first.clone()),
            FieldValues::Text(v) => {
                v.first().map(|s| SortValue::Str(if unf { s.clone() } else { normalize_sortable(s) }))
            }
            FieldValues::Tag { first, .. } => {
                Some(SortValue::Str(if unf { first.clone() } else { normalize_sortable(first) }))
            }
            FieldValues::Numeric { values, .. } => values.first().map(|n| SortValue::Num(*n)),
            FieldValues::GeoShape(_, text) => Some(SortValue::Str(text.clone())),
            _ => None,
        }
    }
}

/// A SORTABLE string as RediSearch stores it without UNF (`normalizeStr`): Unicode full case
/// folding (libnu's `nu_tofold`), so `Maße` sorts and groups as `masse`.
pub fn normalize_sortable(s: &str) -> String {
    caseless::default_case_fold_str(s)
}

fn flatten(vals: Vec<FieldValue>, out: &mut Vec<FieldValue>) {
    out.reserve(vals.len());
    for v in vals {
        match v {
            FieldValue::Array(items) => flatten(items, out),
            other => out.push(other),
        }
    }
}

/// The JSON value shapes RediSearch refuses to index (the document then fails): an object as
/// the field's one value, anything but strings and nulls among a TEXT, TAG or GEO field's
/// several values (the matches of the path, or the items of its one array match: RediSearch
/// reads them all as text, `JSON_StoreTextInDocField`), anything but numbers and nulls among a
/// NUMERIC field's.
fn check_json_shape(matches: &[FieldValue], kind: FieldType) -> Result<(), String> {
    let many: &[FieldValue] = match matches {
        [FieldValue::Object(_)] => {
            return Err("Invalid JSON type: Object type can represent only GEOMETRY fields".into())
        }
        [FieldValue::Array(items)] => items,
        [_] | [] => return Ok(()),
        all => all,
    };
    let text = |v: &FieldValue| matches!(v, FieldValue::String(_) | FieldValue::Null);
    if matches!(kind, FieldType::Text | FieldType::Tag | FieldType::Geo) && !many.iter().all(text) {
        return Err("TEXT/TAG fields can only contain strings or nulls".into());
    }
    let numeric = |v: &FieldValue| matches!(v, FieldValue::Number(..) | FieldValue::Null);
    if kind == FieldType::Numeric && !many.iter().all(numeric) {
        return Err("NUMERIC fields can only contain numeric or nulls".into());
    }
    Ok(())
}

/// The sort value RediSearch 2.10 keeps for a JSON SORTABLE attribute whose path matched
/// several values or one array (`JSON_LoadDocumentField` then makes `multisv` with
/// `jsonIterToValue` at DIALECT 3: a duo of the first match, or of an array match's first
/// item, and the JSON text of every match): that first value, as the document holds it
/// (no normalization, whatever UNF says). None for one value that is not an array, or for
/// an empty array as the first match.
fn several_first(matches: &[FieldValue]) -> Option<Several<String>> {
    let first = match matches {
        [FieldValue::Array(items), ..] => items.first()?,
        [_] | [] => return None,
        [first, ..] => first,
    };
    match first {
        FieldValue::String(s) => Some(Several::Str(s.clone())),
        FieldValue::Number(n, _) => Some(Several::Num(*n)),
        FieldValue::Bool(b) => Some(Several::Num(f64::from(u8::from(*b)))),
        FieldValue::Null => Some(Several::Null),
        FieldValue::Array(_) | FieldValue::Object(_) => None,
    }
}

/// Whether a NUMERIC field's matches are one number that the aggregation pipeline reads back
/// as the number indexed (`aggregate::command`'s LOAD and GROUPBY reads): one JSON number
/// (not in an array), or one hash string that both number parsers read alike.
fn reads_back_as_number(matches: &[FieldValue], json: bool) -> bool {
    match matches {
        [FieldValue::Number(..)] => json,
        [FieldValue::String(s)] if !json => {
            let indexed = crate::suggest::args::redis_double(s.as_bytes()).map(f64::to_bits);
            indexed.is_some()
                && indexed == crate::aggregate::value::parse_number(s.as_bytes()).map(f64::to_bits)
        }
        _ => false,
    }
}

/// Splits a tag string and normalizes (trims, case-folds) each value. Empty values are
/// dropped unless `index_empty` (INDEXEMPTY), which keeps them as the empty tag: an empty
/// string, a blank piece between separators, or a trailing separator.
pub fn split_tags(
    s: &str,
    sep: Option<char>,
    case_sensitive: bool,
    index_empty: bool,
    out: &mut Vec<String>,
) {
    let norm = |t: &str| {
        let t = t.trim();
        if case_sensitive {
            t.to_string()
        } else {
            t.to_ascii_lowercase()
        }
    };
    let keep = |t: &String| index_empty || !t.is_empty();
    match sep {
        Some(c) => out.extend(s.split(c).map(norm).filter(keep)),
        None => {
            let t = norm(s);
            if keep(&t) {
                out.push(t);
            }
        }
    }
}

/// A GEOSHAPE field's value: one WKT string (a hash field, or the one JSON string at the
/// path), read and validated; a null is no value. As in RediSearch 2.10, a JSON array or
/// several matches fail the document.
fn shape(matches: Vec<FieldValue>) -> Result<FieldValues, String> {
    match matches.as_slice() {
        [] | [FieldValue::Null] => Ok(FieldValues::Missing),
        [FieldValue::String(s)] => crate::index::geoshape::parse(s)
            .map(|g| FieldValues::GeoShape(g, s.clone()))
            .map_err(|m| format!("Error indexing geoshape: {m}")),
        [FieldValue::Number(..)] => {
            Err("Invalid JSON type: Numeric type can represent only NUMERIC field".into())
        }
        [FieldValue::Bool(_)] => Err("Invalid JSON type: Boolean type can represent only TAG field".into()),
        [FieldValue::Array(_)] => Err("Invalid JSON type: Array type cannot represent GEOMETRY field".into()),
        // RediSearch fails these without a message (`JSON_StoreInDocField` of an object, or
        // `JSON_LoadDocumentField` of several matches).
        _ => Err(String::new()),
    }
}

/// Why a document could not be indexed.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtractError {
    /// The schema field whose value failed (`None`: the document score, or a JSON vector,
    /// which RediSearch counts for the index alone).
    pub field: Option<usize>,
    /// RediSearch's message.
    pub message: String,
}

/// Extracts `key` for `spec`. `Err` carries the indexing failure.
pub fn extract(spec: &IndexSpec, key: &[u8], docs: &dyn DocumentSource) -> Result<Extracted, ExtractError> {
    let mut field = None;
    // An empty message is a failure RediSearch records without a message or a field.
    extract_values(spec, key, docs, &mut field)
        .map_err(|message| ExtractError { field: field.filter(|_| !message.is_empty()), message })
}

fn extract_values(
    spec: &IndexSpec,
    key: &[u8],
    docs: &dyn DocumentSource,
    failing: &mut Option<usize>,
) -> Result<Extracted, String> {
    let json = spec.on == KeyType::Json;
    let mut out =
        Extracted { values: Vec::with_capacity(spec.fields.len()), score: spec.score as f32, language: None };
    for (fi, f) in spec.fields.iter().enumerate() {
        *failing = Some(fi);
        if let (FieldType::Vector, Some(vs)) = (f.kind, &f.vector) {
            if json {
                // RediSearch 2.10 reads JSON vectors outside the field preprocessors, so the
                // field's own error counters never hear of their failures (the index's do).
                *failing = None;
            }
            out.values.push(crate::index::vector_extract::extract_vectors(vs, &f.path, key, docs, json)?);
            continue;
        }
        let mut raw = Vec::new();
        let matches = docs.values(key, &f.path)?;
        if json {
            // What RediSearch 2.10 refuses while it loads a JSON field (JSON_LoadDocumentField,
            // outside the field preprocessors) counts for the index, not the field: the JSON
            // type checks below, this shape check and a shape's type.
            *failing = None;
        }
        if json && f.sortable && matches!(matches.as_slice(), [FieldValue::Array(items)] if items.is_empty())
        {
            // RediSearch 2.10 makes no sort value of an empty array: the document fails, counted
            // for the index without a message (a TAG, TEXT or NUMERIC attribute alike).
            return Err(String::new());
        }
        if f.kind == FieldType::GeoShape {
            out.values.push(shape(matches)?);
            continue;
        }
        if json {
            check_json_shape(&matches, f.kind)?;
        }
        let served = f.kind == FieldType::Numeric && reads_back_as_number(&matches, json);
        let several = if json && f.sortable { several_first(&matches) } else { None };
        if matches.iter().any(|v| matches!(v, FieldValue::Array(_))) {
            flatten(matches, &mut raw);
        } else {
            // Nothing nested (a field's usual one match): the matches are the values.
            raw = matches;
        }
        let mut strings = Vec::new();
        let mut nums = Vec::new();
        let mut tags = Vec::new();
        let mut first_tag = None;
        let mut points = Vec::new();
        for v in raw {
            if f.kind == FieldType::Tag && first_tag.is_none() {
                first_tag = match &v {
                    FieldValue::String(s) => Some(s.clone()),
                    FieldValue::Number(_, text) => Some(text.clone()),
                    FieldValue::Bool(b) => Some(b.to_string()),
                    _ => None,
                };
            }
            match (v, f.kind) {
                (FieldValue::Null, _) => {}
                (FieldValue::Object(_), _) => {}
                (FieldValue::Array(_), _) => {}
                (FieldValue::Number(n, text), FieldType::Numeric) => {
                    let _ = text;
                    nums.push(n);
                }
                (FieldValue::Number(..), _) if json => {
                    return Err("Invalid JSON type: Numeric type can represent only NUMERIC field".into())
                }
                (FieldValue::Number(..) | FieldValue::String(_), FieldType::Vector | FieldType::GeoShape) => {
                }
                (FieldValue::Number(_, text), FieldType::Text) => strings.push(text),
                (FieldValue::Number(_, text), FieldType::Tag) => {
                    split_tags(&text, f.separator, f.case_sensitive, false, &mut tags)
                }
                (FieldValue::Number(..), FieldType::Geo) => return Err("Invalid geo string".into()),
                (FieldValue::Bool(b), FieldType::Tag) => tags.push(if b { "true" } else { "false" }.into()),
                (FieldValue::Bool(_), _) => {
                    return Err("Invalid JSON type: Boolean type can represent only TAG field".into())
                }
                (FieldValue::String(s), FieldType::Text) => strings.push(s),
                (FieldValue::String(s), FieldType::Tag) => {
                    split_tags(&s, f.separator, f.case_sensitive, f.index_empty, &mut tags)
                }
                (FieldValue::String(s), FieldType::Numeric) => {
                    if json {
                        return Err(
                            "Invalid JSON type: String type can represent only TEXT, TAG, GEO or GEOMETRY field".into(),
                        );
                    }
                    // RediSearch: `RedisModule_StringToDouble` (no blank around the number, hex
                    // allowed, no NaN, no overflow).
                    match crate::suggest::args::redis_double(s.as_bytes()) {
                        Some(n) => nums.push(n),
                        None => return Err(format!("Invalid numeric value: '{s}'")),
                    }
                }
                (FieldValue::String(s), FieldType::Geo) => {
                    // Parsed by the GEO preprocessor: the field's failure.
                    *failing = Some(fi);
                    points.push(parse_geo_value(&s)?)
                }
            }
        }
        let values = match f.kind {
            FieldType::Text if !strings.is_empty() => FieldValues::Text(strings),
            FieldType::Tag if !tags.is_empty() => {
                FieldValues::Tag { values: tags, first: first_tag.unwrap_or_default() }
            }
            FieldType::Numeric if !nums.is_empty() => FieldValues::Numeric { values: nums, served },
            FieldType::Geo if !points.is_empty() => FieldValues::Geo(points),
            _ => FieldValues::Missing,
        };
        out.values.push(match several {
            Some(first) if !matches!(values, FieldValues::Missing) => {
                FieldValues::Several(Box::new(values), SortValue::Several(first))
            }
            _ => values,
        });
    }
    *failing = None;
    // SCORE_FIELD (only when given): a hash field, or on JSON a JSONPath, holding a number; a
    // value that is not a number keeps the index SCORE (RediSearch logs it and goes on).
    if !spec.score_field.is_empty() {
        if let Ok(vals) = docs.values(key, &spec.score_field) {
            let score = match vals.first() {
                Some(FieldValue::String(s)) if !json => crate::args::parse_f64(s.trim()),
                Some(FieldValue::Number(n, _)) if json => Some(*n),
                _ => None,
            };
            if let Some(v) = score.filter(|v| v.is_finite()) {
                out.score = v as f32;
            }
        }
    }
    out.language = document_language(spec, key, docs).filter(|l| *l != spec.language);
    Ok(out)
}

/// The language LANGUAGE_FIELD (only when given) names for the document: a hash field, or
/// on JSON a JSONPath; None when it names none or an unknown one (the index language
/// applies).
pub fn document_language(spec: &IndexSpec, key: &[u8], docs: &dyn DocumentSource) -> Option<Language> {
    if spec.language_field.is_empty() {
        return None;
    }
    let vals = docs.values(key, &spec.language_field).ok()?;
    match vals.first() {
        Some(FieldValue::String(name)) => Language::parse(&name.to_ascii_lowercase()),
        _ => None,
    }
}
