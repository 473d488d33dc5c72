//! FT.DROPINDEX, FT.ALTER and FT.TAGVALS.

use crate::args::Args;
use crate::catalog::{Catalog, ScanState};
use crate::commands::text;
use crate::config::Config;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::index::FieldIndex;
use crate::reply::Reply;

/// `FT.DROPINDEX idx [DD]` (`FT.DROP idx [KEEPDOCS]` deletes documents by default).
pub(crate) fn ft_dropindex(
    cat: &mut Catalog,
    cmd: &str,
    args: &[&[u8]],
    delete_keys: &mut Vec<Vec<u8>>,
) -> Result<Reply> {
    let name = text(args[0]);
    let flag = args.get(1).map(|a| text(a).to_ascii_uppercase());
    let dd = match cmd {
        "FT.DROP" => flag.as_deref() != Some("KEEPDOCS"),
        _ => flag.as_deref() == Some("DD"),
    };
    let real = cat.resolve(&name).map(str::to_string).ok_or_else(|| Error::new("Unknown Index name"))?;
    let e = cat.drop_index(&real).ok_or_else(|| Error::new("Unknown Index name"))?;
    // RediSearch also deletes a TEMPORARY index's documents, whatever the flag (only the
    // internal `_FORCEKEEPDOCS` of its replication keeps them).
    let keep = flag.as_deref() == Some("_FORCEKEEPDOCS");
    if (dd || e.index.spec.temporary.is_some()) && !keep {
        delete_keys.extend(e.index.docs.keys().map(|k| k.to_vec()));
    }
    Ok(Reply::ok())
}

/// `FT.ALTER idx [SKIPINITIALSCAN] SCHEMA ADD field…`.
pub(crate) fn ft_alter(cat: &mut Catalog, args: &[&[u8]]) -> Result<Reply> {
    let name = text(args[0]);
    let mut a = Args::new(&args[1..]);
    let skip = a.eat("SKIPINITIALSCAN");
    if !a.eat("SCHEMA") {
        return Err(Error::new("ALTER must be followed by SCHEMA"));
    }
    if !a.eat("ADD") {
        return Err(Error::new("Unknown action passed to ALTER SCHEMA"));
    }
    if a.is_empty() {
        return Err(Error::new("No fields provided"));
    }
    let fields = a.rest();
    let e = cat.entry_mut(&name).ok_or_else(|| Error::new("Unknown index name"))?;
    e.index.spec.add_fields(fields)?;
    e.index.sync_fields();
    e.create_args.extend(fields.iter().map(|f| f.to_vec()));
    if !skip {
        e.scan = ScanState { pending: true, percent: 0.0 };
    }
    Ok(Reply::ok())
}

/// `FT._ALTERIFNX idx [SKIPINITIALSCAN] SCHEMA ADD field…`: FT.ALTER, or OK without a
/// change when the first field to add is already in the schema.
pub(crate) fn ft_alter_ifnx(cat: &mut Catalog, args: &[&[u8]]) -> Result<Reply> {
    let e = cat.entry_mut(&text(args[0])).ok_or_else(|| Error::new("Unknown index name"))?;
    let mut a = Args::new(&args[1..]);
    a.eat("SKIPINITIALSCAN");
    if a.eat("SCHEMA") && a.eat("ADD") {
        if let Some(first) = a.peek().map(text) {
            let spec = &e.index.spec;
            if spec.field(&first).is_some() || spec.fields.iter().any(|f| f.path == first) {
                return Ok(Reply::ok());
            }
        }
    }
    ft_alter(cat, args)
}

/// `FT.TAGVALS idx field`.
/// A caller who may not read every document gets the values of the documents it may read.
pub(crate) fn ft_tagvals(
    cat: &Catalog,
    name: &str,
    field: &str,
    docs: &dyn DocumentSource,
    config: &Config,
) -> Result<Reply> {
    let e = cat.entry(name).ok_or_else(|| Error::new("Unknown Index name"))?;
    let idx = &e.index;
    let Some((i, _)) = idx.spec.field(field) else {
        return Err(Error::new("No such field"));
    };
    match idx.fields.get(i) {
        // A set, as RediSearch sends it (RESP2: an array).
        Some(FieldIndex::Tag(t)) => {
            let mut values = match crate::access::visible(idx, docs, config)? {
                None => t.values(),
                Some(v) => t.values_in(&v),
            };
            // In the order of RediSearch's trie map (`École` before `abc`, side by side).
            values.sort_by(|a, b| crate::analysis::fold::c_char_order(a, b));
            Ok(Reply::Set(values.into_iter().map(Reply::text).collect()))
        }
        _ => Err(Error::new("Not a tag field")),
    }
}
