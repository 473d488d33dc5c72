//! FT.* command executors: argument parsing and reply building on top of the catalog.
//! One file per command family; [`dispatch`] routes by command name.

mod admin;
mod alias;
mod config;
mod debug;
mod expand;
mod explain;
mod info;
mod search;
mod spell;
mod synonym;

pub(crate) use info::Memory;
pub(crate) use search::knn_visible;

use crate::catalog::Catalog;
use crate::config::Config;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::reply::{Protocol, Reply};

/// Routes one command.
pub(crate) fn dispatch(
    cat: &mut Catalog,
    cmd: &str,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &mut Config,
    proto: Protocol,
    delete_keys: &mut Vec<Vec<u8>>,
) -> Result<Reply> {
    let upper = cmd.to_ascii_uppercase();
    let exact = |lo: usize, hi: usize| -> Result<()> {
        if args.len() < lo || args.len() > hi {
            Err(Error::new(format!(
                "ERR wrong number of arguments for '{}' command",
                cmd.to_ascii_lowercase()
            )))
        } else {
            Ok(())
        }
    };
    let arity = |min: usize| -> Result<()> {
        if args.len() < min {
            Err(Error::new(format!(
                "ERR wrong number of arguments for '{}' command",
                cmd.to_ascii_lowercase()
            )))
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
            arity(2)?;
            search::ft_search(cat, args, docs, config, proto)
        }
        "FT.AGGREGATE" => {
            arity(2)?;
            crate::aggregate::command::ft_aggregate(cat, args, docs, config, proto)
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
        "FT.DEBUG" => debug::ft_debug(cat, args),
        _ => Err(Error::new(format!("ERR unknown command '{cmd}'"))),
    }
}

/// Argument bytes as text.
pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
