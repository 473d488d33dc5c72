//! FT.SYNUPDATE / FT.SYNDUMP (and the retired FT.SYNADD), as RediSearch 2.10 `module.c`.

use crate::catalog::Catalog;
use crate::commands::spell::wrong_arity;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::reply::Reply;

/// `FT.SYNUPDATE index group [SKIPINITIALSCAN] word…`: adds the words to the group and,
/// unless SKIPINITIALSCAN, re-indexes the index's documents so they match at once.
pub(crate) fn ft_synupdate(cat: &mut Catalog, args: &[&[u8]], docs: &dyn DocumentSource) -> Result<Reply> {
    let [index, group, rest @ ..] = args else { return Err(wrong_arity("FT.SYNUPDATE")) };
    if rest.is_empty() {
        return Err(wrong_arity("FT.SYNUPDATE"));
    }
    let name = String::from_utf8_lossy(index).into_owned();
    let entry = cat.entry_mut(&name).ok_or_else(|| Error::new("Unknown index name"))?;
    // Only the argument right after the group id is looked at.
    let (scan, words) = match rest.split_first() {
        Some((first, words)) if first.eq_ignore_ascii_case(b"SKIPINITIALSCAN") => (false, words),
        _ => (true, rest),
    };
    entry.index.synonyms.update(group, words);
    if scan {
        entry.index.reindex(docs);
    }
    Ok(Reply::ok())
}

/// `FT.SYNDUMP index`: each word with its group ids (a map under RESP3, a flat array under
/// RESP2).
pub(crate) fn ft_syndump(cat: &mut Catalog, args: &[&[u8]]) -> Result<Reply> {
    let [index] = args else { return Err(wrong_arity("FT.SYNDUMP")) };
    let name = String::from_utf8_lossy(index).into_owned();
    let entry = cat.entry_mut(&name).ok_or_else(|| Error::new("Unknown index name"))?;
    Ok(Reply::Map(
        entry
            .index
            .synonyms
            .iter()
            .map(|(w, groups)| (Reply::text(w), Reply::Array(groups.iter().map(Reply::text).collect())))
            .collect(),
    ))
}

/// `FT.SYNADD`: retired in RediSearch 2.0 (the misspelling is RediSearch's).
pub(crate) fn ft_synadd() -> Result<Reply> {
    Err(Error::new("No longer suppoted, use FT.SYNUPDATE"))
}
