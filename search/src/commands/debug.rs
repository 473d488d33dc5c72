//! FT.DEBUG: RediSearch 2.10's debugging subcommands, answered from folio's own structures in
//! RediSearch's reply shapes (measured on RediSearch 2.10.5).
//!
//! Document ids are the ones RediSearch gives ([`crate::index::docs::DocTable`]: a new one for
//! every version of a document), dumps list them ascending. folio's text and tag postings have
//! no garbage (deleted entries leave at once), so their dumps show what RediSearch shows after
//! a GC run: live terms and values only. Numeric fields are shown as RediSearch's range trees
//! ([`super::debug_numeric`]), garbage included until GC_FORCEINVOKE collects it.

use roaring::RoaringBitmap;

use super::debug_numeric as numeric;
use crate::catalog::Catalog;
use crate::commands::text;
use crate::document::KeyType;
use crate::error::{Error, Result};
use crate::index::docs::DocTable;
use crate::index::{FieldIndex, Index};
use crate::reply::Reply;
use crate::schema::path_has_defined_order;

/// The subcommands `FT.DEBUG HELP` lists, in its order.
const SUBCOMMANDS: &[&str] = &[
    "DUMP_INVIDX", "DUMP_NUMIDX", "DUMP_NUMIDXTREE", "DUMP_TAGIDX", "INFO_TAGIDX", "DUMP_GEOMIDX",
    "DUMP_PREFIX_TRIE", "IDTODOCID", "DOCIDTOID", "DOCINFO", "DUMP_PHONETIC_HASH", "DUMP_SUFFIX_TRIE",
    "DUMP_TERMS", "INVIDX_SUMMARY", "NUMIDX_SUMMARY", "GC_FORCEINVOKE", "GC_FORCEBGINVOKE",
    "GC_CLEAN_NUMERIC", "GC_STOP_SCHEDULE", "GC_CONTINUE_SCHEDULE", "GC_WAIT_FOR_JOBS", "GIT_SHA", "TTL",
    "TTL_PAUSE", "TTL_EXPIRE", "VECSIM_INFO", "DELETE_LOCAL_CURSORS", "DUMP_HNSW",
];

thread_local! {
    /// Index names whose (nonexistent) GC schedule GC_STOP_SCHEDULE stopped.
    static GC_STOPPED: std::cell::RefCell<std::collections::HashSet<String>> = Default::default();
}

const NO_CTX: &str = "Can not create a search ctx";
const NO_FIELD: &str = "Could not find given field in index spec";
const NO_TAG: &str = "can not open tag field";
const UNKNOWN_INDEX: &str = "Unknown index name";

/// `FT.DEBUG sub args...` (`args` excludes the command name).
pub(crate) fn ft_debug(cat: &mut Catalog, args: &[&[u8]]) -> Result<Reply> {
    let Some(first) = args.first() else {
        return Err(Error::new("ERR wrong number of arguments for 'FT.DEBUG' command"));
    };
    let given = text(first);
    let Some(&sub) = SUBCOMMANDS.iter().find(|s| s.eq_ignore_ascii_case(&given)) else {
        if given.eq_ignore_ascii_case("HELP") {
            return Ok(Reply::Array(SUBCOMMANDS.iter().map(|s| Reply::Simple(s.to_string())).collect()));
        }
        return Err(Error::new(format!("ERR unknown subcommand '{given}'. Try FT.DEBUG HELP.")));
    };
    // Counted as RediSearch counts: the command name and the subcommand included.
    let argc = args.len() + 1;
    let arity = |ok: bool| {
        if ok {
            Ok(())
        } else {
            Err(Error::new(format!("ERR wrong number of arguments for 'FT.DEBUG|{sub}' command")))
        }
    };
    let arg = |i: usize| args.get(i).map(|a| text(a)).unwrap_or_default();
    // A GC run: the numeric garbage RediSearch's fork GC would collect.
    if sub == "GC_FORCEINVOKE" || sub == "GC_FORCEBGINVOKE" {
        let fg = sub == "GC_FORCEINVOKE";
        arity(if fg { (3..=4).contains(&argc) } else { argc >= 3 })?;
        let real = cat.resolve(&arg(1)).ok_or_else(|| Error::new(UNKNOWN_INDEX))?.to_string();
        if let Some(e) = cat.indexes.get_mut(&real) {
            let numeric = e.index.numeric_tree_positions();
            e.index.collect_garbage(&numeric);
        }
        return Ok(if fg { Reply::Simple("DONE".into()) } else { Reply::ok() });
    }
    // Trims the field's tree, when built (a replayed tree has no empty leaves).
    if sub == "GC_CLEAN_NUMERIC" {
        arity(argc == 4)?;
        let real = cat.resolve(&arg(1)).ok_or_else(|| Error::new(NO_CTX))?.to_string();
        if let Some(e) = cat.indexes.get_mut(&real) {
            let pos = field_pos(&e.index, &arg(2))?;
            e.index.numeric_model.trim_empty_leaves(pos);
        }
        return Ok(Reply::ok());
    }
    let cat: &Catalog = cat;
    let index = |name: &str, missing: &str| cat.index(name).ok_or_else(|| Error::new(missing.to_string()));
    match sub {
        // No collector runs, but its schedule is kept per index name so the answers are
        // RediSearch's (continuing a running schedule is an error).
        "GC_STOP_SCHEDULE" | "GC_CONTINUE_SCHEDULE" => {
            arity(argc >= 3)?;
            let name = arg(1);
            index(&name, UNKNOWN_INDEX)?;
            GC_STOPPED.with(|stopped| {
                let mut stopped = stopped.borrow_mut();
                if sub == "GC_STOP_SCHEDULE" {
                    stopped.insert(name);
                } else if !stopped.remove(&name) {
                    return Err(Error::new("GC is already running periodically"));
                }
                Ok(Reply::ok())
            })
        }
        "GC_WAIT_FOR_JOBS" => Ok(Reply::Simple("DONE".into())),
        "GIT_SHA" => Ok(Reply::Simple(format!("folio-{}", env!("CARGO_PKG_VERSION")))),
        "DELETE_LOCAL_CURSORS" => {
            arity(argc == 2)?;
            Ok(Reply::ok())
        }
        "DUMP_PHONETIC_HASH" => {
            // The term's primary and secondary codes. RediSearch 2.10.5 crashes on a term with
            // no code (digits only); folio answers two empty strings.
            arity(argc == 3)?;
            let (p, s) = crate::analysis::phonetic::codes(&arg(1)).unwrap_or_default();
            Ok(Reply::Array(vec![Reply::text(p), Reply::text(s)]))
        }
        "DUMP_TERMS" => {
            arity(argc == 3)?;
            let idx = index(&arg(1), NO_CTX)?;
            let shown = |id| idx.text.is_live(id) || idx.text.is_uncollected(id);
            let terms = idx.text.dict.scan(|_, id| shown(id), usize::MAX);
            Ok(Reply::Array(terms.into_iter().map(|(t, _)| Reply::text(t)).collect()))
        }
        "DUMP_INVIDX" => {
            arity(argc == 4)?;
            let idx = index(&arg(1), NO_CTX)?;
            let term = arg(2);
            let docs = idx
                .text
                .dict
                .get(&term)
                .filter(|&id| idx.text.is_live(id))
                .map(|id| idx.term_docs(id, crate::index::text::ALL_FIELDS))
                .ok_or_else(|| Error::new("Can not find the inverted index"))?;
            Ok(ids(&idx.docs, &docs))
        }
        "DUMP_TAGIDX" => {
            arity(argc == 4)?;
            let idx = index(&arg(1), NO_CTX)?;
            let tags = tag_field(idx, &arg(2))?;
            let rows = tags
                .dict
                .scan(|_, id| tags.is_live(id), usize::MAX)
                .into_iter()
                .map(|(v, id)| {
                    let docs = tags.docs(id).cloned().unwrap_or_default();
                    Reply::Array(vec![Reply::text(v), ids(&idx.docs, &docs)])
                })
                .collect();
            Ok(Reply::Array(rows))
        }
        "DUMP_GEOMIDX" => {
            arity(argc == 4)?;
            let idx = index(&arg(1), NO_CTX)?;
            let (i, _) = idx
                .spec
                .field(&arg(2))
                .ok_or_else(|| Error::new("Could not find given field in index spec"))?;
            let Some(FieldIndex::GeoShape(gi)) = idx.fields.get(i) else {
                return Err(Error::new("Could not open geoshape index"));
            };
            Ok(dump_geomidx(gi, &idx.docs))
        }
        "INFO_TAGIDX" => {
            arity(argc >= 4)?;
            let idx = index(&arg(1), NO_CTX)?;
            info_tagidx(idx, &arg(2), &args[3..])
        }
        "NUMIDX_SUMMARY" => {
            arity(argc == 4)?;
            let idx = index(&arg(1), NO_CTX)?;
            let pos = numeric::field(idx, &arg(2))?;
            Ok(idx.with_numeric_tree(pos, numeric::summary))
        }
        "DUMP_NUMIDX" => {
            arity(argc >= 4)?;
            let idx = index(&arg(1), NO_CTX)?;
            let pos = numeric::field(idx, &arg(2))?;
            let headers = argc == 5;
            Ok(idx.with_numeric_tree(pos, |t| numeric::dump_numidx(t, headers)))
        }
        "DUMP_NUMIDXTREE" => {
            arity(argc >= 4)?;
            let idx = index(&arg(1), NO_CTX)?;
            let pos = numeric::field(idx, &arg(2))?;
            Ok(idx.with_numeric_tree(pos, numeric::dump_tree))
        }
        "DUMP_SUFFIX_TRIE" => {
            arity(argc == 3 || argc == 4)?;
            let idx = index(&arg(1), NO_CTX)?;
            dump_suffix_trie(idx, (argc == 4).then(|| arg(2)).as_deref())
        }
        "DUMP_PREFIX_TRIE" => {
            arity(argc == 2)?;
            let prefixes: std::collections::BTreeSet<&[u8]> = cat
                .indexes
                .values()
                .flat_map(|e| {
                    // No PREFIX is RediSearch's empty prefix.
                    let p = &e.index.spec.prefixes;
                    if p.is_empty() {
                        vec![&b""[..]]
                    } else {
                        p.iter().map(Vec::as_slice).collect()
                    }
                })
                .collect();
            Ok(Reply::Array(vec![
                Reply::Simple("prefixes_count".into()),
                Reply::Int(prefixes.len() as i64),
                Reply::Simple("prefixes_trie_nodes".into()),
                Reply::Int(radix_nodes(&prefixes) as i64),
            ]))
        }
        "DOCIDTOID" => {
            arity(argc == 4)?;
            let idx = index(&arg(1), NO_CTX)?;
            Ok(Reply::Int(idx.docs.id_of(args[2]).map_or(0, |id| idx.docs.redisearch_id(id) as i64)))
        }
        "IDTODOCID" => {
            arity(argc == 4)?;
            let idx = index(&arg(1), NO_CTX)?;
            let rs_id =
                arg(2).parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| Error::new("bad id given"))?;
            let rec = idx
                .docs
                .by_redisearch_id(rs_id)
                .and_then(|id| idx.docs.get(id))
                .ok_or_else(|| Error::new("document was removed"))?;
            Ok(Reply::Bulk(rec.key().to_vec()))
        }
        "TTL" => {
            arity(argc >= 3)?;
            let e = cat.resolve(&arg(1)).and_then(|n| cat.indexes.get(n));
            let e = e.ok_or_else(|| Error::new(UNKNOWN_INDEX))?;
            let secs = e.index.spec.temporary.ok_or_else(|| Error::new("Index is not temporary"))?;
            // Whole seconds left, rounded down as RediSearch's timer reports them.
            let left_ms = u128::from(secs) * 1000
                - e.usage.last_used().elapsed().as_millis().min(u128::from(secs) * 1000);
            Ok(Reply::Int((left_ms / 1000) as i64))
        }
        "TTL_PAUSE" | "TTL_EXPIRE" => {
            arity(argc >= 3)?;
            let e = cat.resolve(&arg(1)).and_then(|n| cat.indexes.get(n));
            let e = e.ok_or_else(|| Error::new(UNKNOWN_INDEX))?;
            if e.index.spec.temporary.is_none() {
                return Err(Error::new("Index is not temporary"));
            }
            let usage = &e.usage;
            if sub == "TTL_PAUSE" {
                if usage.ttl_paused.swap(true, std::sync::atomic::Ordering::Relaxed) {
                    return Err(Error::new("Index does not have a timer"));
                }
            } else {
                // RediSearch re-arms the timer with 1 ms: the next check drops the index.
                usage.ttl_paused.store(false, std::sync::atomic::Ordering::Relaxed);
                usage.ttl_due.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(Reply::ok())
        }
        "VECSIM_INFO" => {
            arity(argc == 4)?;
            let idx = index(&arg(1), NO_CTX)?;
            let name = arg(2);
            // RediSearch 2.10.5 crashes when the field is not a vector (README's table).
            let found = idx.spec.fields.iter().zip(&idx.fields).find(|(f, _)| f.name == name);
            match found {
                Some((f, FieldIndex::Vector(vi))) => {
                    let spec = f.vector.clone().unwrap_or_default();
                    let multi = idx.spec.on == KeyType::Json && !path_has_defined_order(&f.path);
                    Ok(super::vecsim_info::vecsim_info(&spec, vi, multi, &idx.docs))
                }
                _ => Err(Error::new("Vector index not found")),
            }
        }
        _ => {
            // RediSearch's arity of the subcommands folio does not answer, checked first.
            let ok = match sub {
                "DUMP_HNSW" => argc >= 4,
                "DOCINFO" | "INVIDX_SUMMARY" => argc == 4,
                _ => true,
            };
            arity(ok)?;
            Err(Error::new(format!("FT.DEBUG {sub} is not supported by folio")))
        }
    }
}

/// The RediSearch ids of `docs`, ascending.
fn ids(table: &DocTable, docs: &RoaringBitmap) -> Reply {
    Reply::Array(
        table.in_redisearch_order(docs.iter()).into_iter().map(|(rs, _)| Reply::Int(rs as i64)).collect(),
    )
}

/// The schema position of the field named `name`.
pub(crate) fn field_pos(idx: &Index, name: &str) -> Result<usize> {
    idx.spec.fields.iter().position(|f| f.name == name).ok_or_else(|| Error::new(NO_FIELD))
}

fn tag_field<'a>(idx: &'a Index, name: &str) -> Result<&'a crate::index::tag::TagIndex> {
    match idx.fields.get(field_pos(idx, name)?) {
        Some(FieldIndex::Tag(t)) => Ok(t),
        _ => Err(Error::new(NO_TAG)),
    }
}

/// `INFO_TAGIDX idx field [COUNT_VALUE_ENTRIES] [DUMP_ID_ENTRIES] [PREFIX p] [OFFSET n] [LIMIT n]`.
fn info_tagidx(idx: &Index, field: &str, opts: &[&[u8]]) -> Result<Reply> {
    let (mut count, mut dump, mut offset, mut limit) = (false, false, 0usize, 0usize);
    let bad = || Error::new("Could not parse argument (argspec fixme)");
    let mut i = 0;
    while i < opts.len() {
        let o = text(opts[i]).to_ascii_lowercase();
        match o.as_str() {
            "count_value_entries" => count = true,
            "dump_id_entries" => dump = true,
            "prefix" | "offset" | "limit" => {
                i += 1;
                let v = opts.get(i).map(|v| text(v)).ok_or_else(bad)?;
                if o != "prefix" {
                    let n = v.parse::<u32>().map_err(|_| bad())? as usize;
                    if o == "offset" {
                        offset = n;
                    } else {
                        limit = n;
                    }
                }
            }
            _ => return Err(bad()),
        }
        i += 1;
    }
    let tags = tag_field(idx, field)?;
    let values = tags.dict.scan(|_, id| tags.is_live(id), usize::MAX);
    let mut out = vec![Reply::Simple("num_values".into()), Reply::Int(values.len() as i64)];
    if count || dump {
        let rows = values.into_iter().skip(offset).take(limit).map(|(v, id)| {
            let docs = tags.docs(id).cloned().unwrap_or_default();
            let mut row = vec![
                Reply::Simple("value".into()),
                Reply::text(v),
                Reply::Simple("num_entries".into()),
                Reply::Int(docs.len() as i64),
                Reply::Simple("num_blocks".into()),
                Reply::Int(1),
            ];
            if dump {
                row.push(Reply::Simple("entries".into()));
                row.push(ids(&idx.docs, &docs));
            }
            Reply::Array(row)
        });
        out.push(Reply::Simple("values".into()));
        out.push(Reply::Array(rows.collect()));
    }
    Ok(Reply::Array(out))
}

/// Every suffix of at least two characters of each word, sorted and unique (RediSearch's
/// suffix trie).
fn suffixes<'a>(words: impl Iterator<Item = &'a str>) -> Reply {
    let mut all = std::collections::BTreeSet::new();
    for w in words {
        let starts: Vec<usize> = w.char_indices().map(|(i, _)| i).collect();
        for &s in &starts {
            let rest = &w[s..];
            if rest.chars().count() >= 2 {
                all.insert(rest.to_string());
            }
        }
    }
    Reply::Array(all.into_iter().map(Reply::text).collect())
}

/// `DUMP_SUFFIX_TRIE idx [tag field]`: the suffixes of the WITHSUFFIXTRIE text fields' terms, or
/// of a WITHSUFFIXTRIE tag field's values.
fn dump_suffix_trie(idx: &Index, field: Option<&str>) -> Result<Reply> {
    if let Some(name) = field {
        let pos = field_pos(idx, name)?;
        let tags = tag_field(idx, name)?;
        if !idx.spec.fields[pos].with_suffix_trie {
            return Err(Error::new("tag field does have suffix trie"));
        }
        let values = tags.dict.scan(|_, id| tags.is_live(id), usize::MAX);
        return Ok(suffixes(values.iter().map(|(v, _)| v.as_str())));
    }
    let mut mask: crate::index::text::FieldMask = 0;
    for (f, fi) in idx.spec.fields.iter().zip(&idx.fields) {
        if let (true, FieldIndex::Text(ord)) = (f.with_suffix_trie, fi) {
            mask |= 1 << ord;
        }
    }
    if mask == 0 {
        return Err(Error::new("Index does not have suffix trie"));
    }
    let stem = crate::analysis::STEM_PREFIX;
    let terms = idx
        .text
        .dict
        .scan(|t, id| !t.starts_with(stem) && !t.starts_with('~') && idx.term_in(id, mask), usize::MAX);
    Ok(suffixes(terms.iter().map(|(t, _)| t.as_str())))
}

/// `FT.DEBUG DUMP_GEOMIDX`: RediSearch's R-tree dump (`type`, `ptr`, `num_docs`, `docs`), each
/// shape as `id`, `geoshape` (its WKT) and `rect` (its bounding box).
fn dump_geomidx(gi: &crate::index::geoshape::GeoShapeIndex, table: &DocTable) -> Reply {
    let bulk = |s: &str| Reply::Bulk(s.as_bytes().to_vec());
    let docs = gi
        .dump()
        .into_iter()
        .map(|(id, shape, rect)| {
            Reply::Array(vec![
                bulk("id"),
                Reply::Int(table.redisearch_id(id) as i64),
                bulk("geoshape"),
                bulk(&shape),
                bulk("rect"),
                bulk(&rect),
            ])
        })
        .collect();
    Reply::Array(vec![
        bulk("type"),
        bulk("boost_rtree"),
        bulk("ptr"),
        bulk(&format!("{:p}", gi)),
        bulk("num_docs"),
        Reply::Int(gi.len() as i64),
        bulk("docs"),
        Reply::Array(docs),
    ])
}

/// Nodes of a radix tree holding `keys` (sorted): one per key and one per point where two
/// keys part. RediSearch's prefix TrieMap counts its nodes as it splits and merges them, which
/// this does not replay (FT.DEBUG DUMP_PREFIX_TRIE's `prefixes_trie_nodes`: equal for disjoint
/// prefixes and 0 when there are none; may differ by a node or two where prefixes nest).
fn radix_nodes(keys: &std::collections::BTreeSet<&[u8]>) -> usize {
    let common = |a: &[u8], b: &[u8]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let mut nodes: std::collections::BTreeSet<&[u8]> = keys.iter().copied().collect();
    for (a, b) in keys.iter().zip(keys.iter().skip(1)) {
        let n = common(a, b);
        if n < a.len() && n < b.len() {
            nodes.insert(&a[..n]);
        }
    }
    nodes.len()
}
