//! FT.ALIASADD / FT.ALIASUPDATE / FT.ALIASDEL.

use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::reply::Reply;

/// `FT.ALIASADD alias index` / `FT.ALIASUPDATE alias index`.
pub(crate) fn ft_aliasadd(cat: &mut Catalog, alias: &str, index: &str, update: bool) -> Result<Reply> {
    if !cat.indexes.contains_key(index) {
        return Err(Error::new("Unknown index name (or name is an alias itself)"));
    }
    if cat.indexes.contains_key(alias) || (!update && cat.aliases.contains_key(alias)) {
        return Err(Error::new("Alias already exists"));
    }
    cat.aliases.insert(alias.to_string(), index.to_string());
    Ok(Reply::ok())
}

/// `FT.ALIASDEL alias`.
pub(crate) fn ft_aliasdel(cat: &mut Catalog, alias: &str) -> Result<Reply> {
    match cat.aliases.remove(alias) {
        Some(_) => Ok(Reply::ok()),
        // An index's own name resolves, but is no alias of it (RediSearch's wording).
        None if cat.indexes.contains_key(alias) => Err(Error::new("Alias does not belong to provided spec")),
        None => Err(Error::new("Alias does not exist")),
    }
}
