//! The document commands RediSearch 2.x keeps from 1.x: FT.ADD (and FT.SAFEADD), FT.DEL,
//! FT.GET and FT.MGET. Since 2.0 a document is a hash like any other: FT.ADD writes it with
//! HSET (after a DEL for REPLACE), FT.DEL deletes the key, FT.GET reads the hash. The writes
//! are returned as [`KeyWrite`]s for the glue to perform once the catalog is released, so the
//! document reaches every index through the ordinary keyspace route.

use crate::aggregate::expr::Expr;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;
use crate::analysis::Language;
use crate::args::parse_f64;
use crate::catalog::Catalog;
use crate::commands::text;
use crate::document::{DocumentSource, FieldValue, KeyType};
use crate::error::{Error, Result};
use crate::reply::Reply;
use crate::schema::FieldType;
use crate::suggest::args::redis_double;

/// A write to the keyspace a command asks for, performed by the glue in order, each one
/// propagated to replicas and the AOF as the command it is.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyWrite {
    /// `DEL key`.
    Delete(Vec<u8>),
    /// `HSET key field value …` (at least one pair).
    HashSet(Vec<u8>, Vec<Vec<u8>>),
}

/// The hash fields FT.ADD writes its score, language and payload to, which an index reads
/// from then on (RediSearch sets them on the index when it first writes one).
const SCORE_FIELD: &str = "__score";
const LANGUAGE_FIELD: &str = "__language";
const PAYLOAD_FIELD: &str = "__payload";

/// `ERR wrong number of arguments for 'FT.X' command`, with the command's registered name.
pub(crate) fn arity_error(cmd: &str) -> Error {
    Error::new(format!("ERR wrong number of arguments for '{}' command", cmd.to_ascii_uppercase()))
}

/// FT.ADD's options.
#[derive(Default)]
struct AddOptions<'a> {
    replace: bool,
    partial: bool,
    nocreate: bool,
    language: Option<&'a [u8]>,
    payload: Option<&'a [u8]>,
    condition: Option<String>,
    fields: &'a [&'a [u8]],
}

/// Parses `[REPLACE [PARTIAL]] [NOCREATE] [LANGUAGE l] [PAYLOAD p] [IF expr] FIELDS f v …`
/// (any order, repeats allowed: the last value wins), as RediSearch's argument specs do.
fn parse_options<'a>(args: &'a [&'a [u8]]) -> Result<AddOptions<'a>> {
    let mut o = AddOptions::default();
    let mut found_fields = false;
    let mut i = 0;
    while i < args.len() {
        let word = text(args[i]).to_ascii_uppercase();
        let value = |name: &str| {
            args.get(i + 1)
                .copied()
                .ok_or_else(|| Error::new(format!("{name}: Expected an argument, but none provided")))
        };
        match word.as_str() {
            "REPLACE" => o.replace = true,
            "PARTIAL" => o.partial = true,
            "NOCREATE" => o.nocreate = true,
            "PAYLOAD" => {
                o.payload = Some(value("PAYLOAD")?);
                i += 1;
            }
            "LANGUAGE" => {
                o.language = Some(value("LANGUAGE")?);
                i += 1;
            }
            "IF" => {
                o.condition = Some(text(value("IF")?));
                i += 1;
            }
            "FIELDS" => {
                let rest = &args[i + 1..];
                if !rest.len().is_multiple_of(2) {
                    return Err(Error::new("Fields must be specified in FIELD VALUE pairs"));
                }
                o.fields = rest;
                found_fields = true;
                break;
            }
            _ => return Err(Error::new(format!("Unknown keyword `{}` provided", text(args[i])))),
        }
        i += 1;
    }
    if !found_fields {
        return Err(Error::new("No field list found"));
    }
    if let Some(l) = o.language {
        if Language::parse(&text(l)).is_none() {
            return Err(Error::new("Unsupported language"));
        }
    }
    Ok(o)
}

/// `FT.ADD idx key score [options] FIELDS f v …` (FT.SAFEADD is the same command): the
/// reply, and the writes that make it happen.
pub(crate) fn ft_add(
    cat: &mut Catalog,
    cmd: &str,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    writes: &mut Vec<KeyWrite>,
) -> Result<Reply> {
    if args.len() < 3 {
        return Err(arity_error(cmd));
    }
    let (key, score_text) = (args[1], args[2]);
    let score = redis_double(score_text).ok_or_else(|| Error::new("Could not parse document score"))?;
    if !(0.0..=1.0).contains(&score) {
        return Err(Error::new("Score must be between 0 and 1"));
    }
    let opts = parse_options(&args[3..])?;
    let name = text(args[0]);
    let e = cat.entry_mut(&name).ok_or_else(|| Error::new("Unknown index name"))?;
    let exists = match docs.key_type(key) {
        Some(KeyType::Hash) => true,
        None if !docs.key_exists(key) => false,
        _ => return Err(Error::new("Invalid Redis key")),
    };
    if !exists && opts.nocreate {
        return Err(Error::new("Document does not exist"));
    }
    if exists && !opts.replace {
        return Err(Error::new("Document already exists"));
    }
    if exists {
        if let Some(cond) = &opts.condition {
            if e.index.docs.id_of(key).is_none() {
                // RediSearch fails with an empty message when the hash is not in the index.
                return Err(Error::new(""));
            }
            if !condition_holds(&e.index.spec, cond, key, docs)? {
                return Ok(Reply::Simple("NOADD".into()));
            }
        }
        if !opts.partial {
            writes.push(KeyWrite::Delete(key.to_vec()));
        }
    }
    let mut pairs: Vec<Vec<u8>> = opts.fields.iter().map(|f| f.to_vec()).collect();
    let spec = &mut e.index.spec;
    let set_field = |field: &mut String, name: &str, option: &str, args: &mut Vec<Vec<u8>>| {
        if field.is_empty() {
            *field = name.to_string();
            // Kept in the definition, as RediSearch saves the rule with the field set.
            args.splice(0..0, [option.as_bytes().to_vec(), name.as_bytes().to_vec()]);
        }
    };
    if score != 1.0 || opts.partial {
        pairs.extend([SCORE_FIELD.as_bytes().to_vec(), score_text.to_vec()]);
        set_field(&mut spec.score_field, SCORE_FIELD, "SCORE_FIELD", &mut e.create_args);
    }
    if let Some(l) = opts.language {
        pairs.extend([LANGUAGE_FIELD.as_bytes().to_vec(), l.to_vec()]);
        set_field(&mut spec.language_field, LANGUAGE_FIELD, "LANGUAGE_FIELD", &mut e.create_args);
    }
    if let Some(p) = opts.payload {
        pairs.extend([PAYLOAD_FIELD.as_bytes().to_vec(), p.to_vec()]);
        set_field(&mut spec.payload_field, PAYLOAD_FIELD, "PAYLOAD_FIELD", &mut e.create_args);
    }
    // `FIELDS` with nothing after it: RediSearch's HSET fails unseen and the reply is OK.
    if !pairs.is_empty() {
        writes.push(KeyWrite::HashSet(key.to_vec(), pairs));
    }
    Ok(Reply::ok())
}

/// Evaluates FT.ADD's `IF` expression on the document as indexed: its properties must be
/// fields of the schema; a property without a value fails the condition.
fn condition_holds(
    spec: &crate::schema::IndexSpec,
    cond: &str,
    key: &[u8],
    docs: &dyn DocumentSource,
) -> Result<bool> {
    let mut expr = Expr::parse(cond).map_err(|e| Error::new(e.to_string()))?;
    let mut props: Vec<usize> = Vec::new();
    expr.bind(&mut |name: &str| {
        let (i, _) = spec.field(name)?;
        Some(props.iter().position(|&p| p == i).unwrap_or_else(|| {
            props.push(i);
            props.len() - 1
        }))
    })
    .map_err(|e| Error::new(e.to_string()))?;
    let mut row = Row::default();
    for (slot, &i) in props.iter().enumerate() {
        let f = &spec.fields[i];
        let found = docs.values(key, &f.path).ok().and_then(|v| v.into_iter().next());
        let v = match found {
            Some(FieldValue::String(s)) if f.kind == FieldType::Numeric => parse_f64(&s).map(Value::Number),
            Some(FieldValue::String(s)) => Some(Value::str(&s)),
            Some(FieldValue::Number(n, _)) => Some(Value::Number(n)),
            _ => None,
        };
        if let Some(v) = v {
            row.set(slot, v);
        }
    }
    match expr.eval(&row) {
        Ok(v) => Ok(v.truthy()),
        Err(e) if e.message.contains("has no value") => Ok(false),
        Err(e) => Err(Error::new(e.to_string())),
    }
}

/// `FT.DEL idx key [DD]`: deletes the key (whatever it holds; the third argument is
/// accepted and ignored, as in RediSearch 2.x). The glue replies with the number deleted.
pub(crate) fn ft_del(cat: &mut Catalog, args: &[&[u8]], writes: &mut Vec<KeyWrite>) -> Result<Reply> {
    if !(2..=3).contains(&args.len()) {
        return Err(arity_error("FT.DEL"));
    }
    cat.entry_mut(&text(args[0])).ok_or_else(|| Error::new("Unknown Index name"))?;
    writes.push(KeyWrite::Delete(args[1].to_vec()));
    Ok(Reply::Int(0))
}

/// `FT.GET idx key`.
pub(crate) fn ft_get(cat: &mut Catalog, args: &[&[u8]], docs: &dyn DocumentSource) -> Result<Reply> {
    if args.len() != 2 {
        return Err(arity_error("FT.GET"));
    }
    let e = cat.entry_mut(&text(args[0])).ok_or_else(|| Error::new("Unknown Index name"))?;
    Ok(document_fields(&e.index, args[1], docs))
}

/// `FT.MGET idx key…`: one FT.GET reply per key.
pub(crate) fn ft_mget(cat: &mut Catalog, args: &[&[u8]], docs: &dyn DocumentSource) -> Result<Reply> {
    if args.len() < 2 {
        return Err(arity_error("FT.MGET"));
    }
    let e = cat.entry_mut(&text(args[0])).ok_or_else(|| Error::new("Unknown Index name"))?;
    Ok(Reply::Array(args[1..].iter().map(|k| document_fields(&e.index, k, docs)).collect()))
}

/// A document's hash fields as RediSearch lists them: nil when the index does not hold it,
/// no fields when it is not a hash; the index's score, language and payload fields left out
/// (any case), empty values as nil.
fn document_fields(idx: &crate::index::Index, key: &[u8], docs: &dyn DocumentSource) -> Reply {
    if idx.docs.id_of(key).is_none() {
        return Reply::Nil;
    }
    if docs.key_type(key) != Some(KeyType::Hash) {
        return Reply::Array(Vec::new());
    }
    let spec = &idx.spec;
    let hidden = [&spec.language_field, &spec.score_field, &spec.payload_field];
    let mut out = Vec::new();
    for (f, v) in docs.whole(key).unwrap_or_default() {
        if hidden.iter().any(|h| !h.is_empty() && h.as_bytes().eq_ignore_ascii_case(&f)) {
            continue;
        }
        out.push(Reply::Bulk(f));
        out.push(if v.is_empty() { Reply::Nil } else { Reply::Bulk(v) });
    }
    Reply::Array(out)
}
