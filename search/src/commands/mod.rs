//! FT.* command executors: argument parsing and reply building on top of the catalog.
//! One file per command family; [`dispatch`] routes by command name.

mod admin;
mod alias;
mod config;
mod debug;
mod expand;
mod explain;
mod info;
pub(crate) mod legacy;
pub(crate) mod profile;
pub(crate) mod search;
pub(crate) mod spell;
mod synonym;

pub(crate) use info::Memory;
pub(crate) use search::knn_visible;

use crate::catalog::Catalog;
use crate::config::Config;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::reply::{Protocol, Reply};

/// Routes one command.
#[allow(clippy::too_many_arguments)]
pub(crate) fn dispatch(
    cat: &mut Catalog,
    cmd: &str,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &mut Config,
    proto: Protocol,
    delete_keys: &mut Vec<Vec<u8>>,
    writes: &mut Vec<legacy::KeyWrite>,
) -> Result<Reply> {
    let upper = cmd.to_ascii_uppercase();
    let exact = |lo: usize, hi: usize| -> Result<()> {
        if args.len() < lo || args.len() > hi {
            Err(legacy::arity_error(cmd))
        } else {
            Ok(())
        }
    };
    let arity = |min: usize| -> Result<()> {
        if args.len() < min {
            Err(legacy::arity_error(cmd))
        } else {
            Ok(())
        }
    };
    match upper.as_str() {
        "FT.CREATE" => {
            // At least the name, SCHEMA and one field with its type (RediSearch: argc < 5).
            arity(4)?;
            let name = text(args[0]);
            cat.create(&name, &args[1..], config, false)?;
            Ok(Reply::ok())
        }
        "FT.SEARCH" => {
            arity(1)?;
            if args.len() == 1 {
                return Err(Error::new("No query string provided"));
            }
            search::ft_search(cat, args, docs, config, proto, None)
        }
        "FT.AGGREGATE" => {
            arity(1)?;
            if args.len() == 1 {
                return Err(Error::new("No query string provided"));
            }
            crate::aggregate::command::ft_aggregate(cat, args, docs, config, proto, None)
        }
        "FT.CURSOR" => {
            arity(3)?;
            crate::aggregate::command::ft_cursor(cat, args, docs, proto)
        }
        "FT.INFO" => {
            arity(1)?;
            info::ft_info(cat, &text(args[0]), proto)
        }
        "FT._LIST" => {
            // A set, as RediSearch sends it (RESP2: an array).
            exact(0, 0).map(|_| Reply::Set(cat.index_names().into_iter().map(Reply::Simple).collect()))
        }
        "FT.DROPINDEX" | "FT.DROP" => {
            exact(1, 2)?;
            admin::ft_dropindex(cat, &upper, args, delete_keys)
        }
        "FT.ALTER" => {
            arity(1)?;
            admin::ft_alter(cat, args)
        }
        "FT.TAGVALS" => {
            exact(2, 2)?;
            admin::ft_tagvals(cat, &text(args[0]), &text(args[1]), docs, config)
        }
        "FT.ALIASADD" | "FT.ALIASUPDATE" => {
            exact(2, 2)?;
            alias::ft_aliasadd(cat, &text(args[0]), &text(args[1]), upper == "FT.ALIASUPDATE")
        }
        "FT.ALIASDEL" => {
            exact(1, 1)?;
            alias::ft_aliasdel(cat, &text(args[0]))
        }
        "FT.CONFIG" => {
            arity(2)?;
            config::ft_config(config, args, proto)
        }
        "FT.EXPLAIN" | "FT.EXPLAINCLI" => {
            arity(2)?;
            explain::ft_explain(cat, args, config, upper == "FT.EXPLAINCLI")
        }
        "FT.SPELLCHECK" => spell::ft_spellcheck(cat, args, docs, config, proto),
        "FT.DICTADD" => spell::ft_dictadd(config, args),
        "FT.DICTDEL" => spell::ft_dictdel(config, args),
        "FT.DICTDUMP" => spell::ft_dictdump(config, args),
        "FT.SYNUPDATE" => synonym::ft_synupdate(cat, args, docs),
        "FT.SYNDUMP" => synonym::ft_syndump(cat, args),
        "FT.SYNADD" => synonym::ft_synadd(),
        "FT.ADD" | "FT.SAFEADD" => legacy::ft_add(cat, &upper, args, docs, writes),
        "FT.DEL" => legacy::ft_del(cat, args, writes),
        "FT.GET" => legacy::ft_get(cat, args, docs),
        "FT.MGET" => legacy::ft_mget(cat, args, docs),
        "FT.PROFILE" => profile::ft_profile(cat, args, docs, config, proto),
        "FT._CREATEIFNX" => {
            if args.len() < 4 {
                return Err(legacy::arity_error(&upper));
            }
            let name = text(args[0]);
            if !cat.indexes.contains_key(&name) {
                cat.create(&name, &args[1..], config, false)?;
            }
            Ok(Reply::ok())
        }
        "FT._ALTERIFNX" => {
            if args.len() < 4 {
                return Err(legacy::arity_error(&upper));
            }
            admin::ft_alter_ifnx(cat, args)
        }
        "FT._DROPIFX" | "FT._DROPINDEXIFX" => {
            if !(1..=2).contains(&args.len()) {
                return Err(legacy::arity_error(&upper));
            }
            if cat.resolve(&text(args[0])).is_none() {
                return Ok(Reply::ok());
            }
            let base = if upper == "FT._DROPIFX" { "FT.DROP" } else { "FT.DROPINDEX" };
            admin::ft_dropindex(cat, base, args, delete_keys)
        }
        "FT._ALIASADDIFNX" => {
            if args.len() != 2 {
                return Err(legacy::arity_error(&upper));
            }
            let (alias, index) = (text(args[0]), text(args[1]));
            if cat.indexes.contains_key(&index) && cat.aliases.get(&alias) == Some(&index) {
                return Ok(Reply::ok());
            }
            alias::ft_aliasadd(cat, &alias, &index, false)
        }
        "FT._ALIASDELIFX" => {
            if args.len() != 1 {
                return Err(legacy::arity_error(&upper));
            }
            if cat.resolve(&text(args[0])).is_none() {
                return Ok(Reply::ok());
            }
            alias::ft_aliasdel(cat, &text(args[0]))
        }
        "FT.DEBUG" => debug::ft_debug(cat, args),
        _ => Err(Error::new(format!("ERR unknown command '{cmd}'"))),
    }
}

/// Argument bytes as text.
pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
