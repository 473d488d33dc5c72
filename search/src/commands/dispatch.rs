//! FT.* dispatch, above the [`Catalog`]: [`Catalog::execute`] (the glue's entry point)
//! routes a command by name to its executor in this folder (FT.AGGREGATE and FT.CURSOR to
//! [`crate::aggregate::command`]) and returns the reply with the side effects the glue must
//! perform ([`ExecOutcome`]).

use super::legacy::KeyWrite;
use super::{admin, alias, config, debug, explain, info, legacy, profile, search, spell, synonym, text};
use crate::catalog::Catalog;
use crate::config::Config;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::reply::{Protocol, Reply};

/// What a command produced: the reply plus side effects the glue must perform.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecOutcome {
    /// The reply.
    pub reply: Reply,
    /// Keys to delete (FT.DROPINDEX … DD).
    pub delete_keys: Vec<Vec<u8>>,
    /// Writes to perform, in order, as the Redis commands they are (FT.ADD's HSET, after a
    /// DEL for REPLACE; FT.DEL's DEL), propagated to replicas and the AOF. FT.DEL's reply
    /// is the number of keys its DEL removed, which only the glue knows.
    pub writes: Vec<KeyWrite>,
}

impl Catalog {
    /// Runs an FT.* command (`cmd` without arguments, any case; `args` after it).
    pub fn execute(
        &mut self,
        cmd: &str,
        args: &[&[u8]],
        docs: &dyn DocumentSource,
        config: &mut Config,
        proto: Protocol,
    ) -> Reply {
        self.execute_full(cmd, args, docs, config, proto).reply
    }

    /// Like [`Catalog::execute`], also returning side effects (keys to delete).
    pub fn execute_full(
        &mut self,
        cmd: &str,
        args: &[&[u8]],
        docs: &dyn DocumentSource,
        config: &mut Config,
        proto: Protocol,
    ) -> ExecOutcome {
        let mut delete_keys = Vec::new();
        let mut writes = Vec::new();
        let r = dispatch(self, cmd, args, docs, config, proto, &mut delete_keys, &mut writes);
        ExecOutcome { reply: r.unwrap_or_else(|e| Reply::Error(e.0)), delete_keys, writes }
    }
}

/// The FT commands that only read the catalog and the configuration ([`Catalog::read`]).
pub const READ_ONLY: &[&str] = &["FT.INFO", "FT._LIST", "FT.EXPLAIN", "FT.EXPLAINCLI", "FT.DICTDUMP"];

impl Catalog {
    /// Runs one of the [`READ_ONLY`] commands (`cmd` upper case; `args` after it) with shared
    /// references, as [`Catalog::execute`] would.
    pub fn read(&self, cmd: &str, args: &[&[u8]], config: &Config, proto: Protocol) -> Reply {
        count_use(self, cmd, args);
        read_only(self, cmd, args, config, proto)
            .unwrap_or_else(|| Err(Error::new(format!("ERR unknown command '{cmd}'"))))
            .unwrap_or_else(|e| Reply::Error(e.0))
    }
}

/// `cmd`'s arity error unless it has `lo` to `hi` arguments.
fn arity_between(cmd: &str, args: &[&[u8]], lo: usize, hi: usize) -> Result<()> {
    if args.len() < lo || args.len() > hi {
        Err(legacy::arity_error(cmd))
    } else {
        Ok(())
    }
}

/// A [`READ_ONLY`] command's reply (`upper`: its name in upper case), or `None` for the others.
fn read_only(
    cat: &Catalog,
    upper: &str,
    args: &[&[u8]],
    config: &Config,
    proto: Protocol,
) -> Option<Result<Reply>> {
    let arity = |lo: usize, hi: usize| arity_between(upper, args, lo, hi);
    Some(match upper {
        "FT.INFO" => arity(1, usize::MAX).and_then(|_| info::ft_info(cat, &text(args[0]), proto)),
        // A set, as RediSearch sends it (RESP2: an array).
        "FT._LIST" => {
            arity(0, 0).map(|_| Reply::Set(cat.index_names().into_iter().map(Reply::Simple).collect()))
        }
        "FT.EXPLAIN" | "FT.EXPLAINCLI" => arity(2, usize::MAX)
            .and_then(|_| explain::ft_explain(cat, args, config, upper == "FT.EXPLAINCLI")),
        "FT.DICTDUMP" => spell::ft_dictdump(config, args),
        _ => return None,
    })
}

/// Counts a use of the index a command names (`upper`: the command in upper case), as
/// RediSearch 2.10 counts each look-up by name, before the command runs: FT.ALIASUPDATE looks
/// its index up twice; FT.SEARCH and FT.AGGREGATE (and FT.PROFILE, FT.HYBRID through them)
/// count their own once their arguments are read; cursor commands, FT.CREATE and the drops
/// count nothing.
pub(crate) fn count_use(cat: &Catalog, upper: &str, args: &[&[u8]]) {
    let at = match upper {
        "FT.INFO" | "FT.EXPLAIN" | "FT.EXPLAINCLI" | "FT.TAGVALS" | "FT.SPELLCHECK" | "FT.SYNUPDATE"
        | "FT.SYNDUMP" | "FT.ALTER" | "FT.ADD" | "FT.SAFEADD" | "FT.DEL" | "FT.GET" | "FT.MGET"
        | "FT.ALIASDEL" => 0,
        "FT.ALIASADD" | "FT.DEBUG" => 1,
        "FT.ALIASUPDATE" => {
            if let Some(name) = args.get(1) {
                cat.count_use(name);
            }
            1
        }
        _ => return,
    };
    if let Some(name) = args.get(at) {
        cat.count_use(name);
    }
}

/// Routes one command.
#[allow(clippy::too_many_arguments)]
fn dispatch(
    cat: &mut Catalog,
    cmd: &str,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &mut Config,
    proto: Protocol,
    delete_keys: &mut Vec<Vec<u8>>,
    writes: &mut Vec<KeyWrite>,
) -> Result<Reply> {
    let upper = cmd.to_ascii_uppercase();
    count_use(cat, &upper, args);
    if let Some(r) = read_only(cat, &upper, args, config, proto) {
        return r;
    }
    let exact = |lo: usize, hi: usize| arity_between(cmd, args, lo, hi);
    let arity = |min: usize| arity_between(cmd, args, min, usize::MAX);
    match upper.as_str() {
        "FT.CREATE" => {
            // At least the name, SCHEMA and one field with its type (RediSearch: argc < 5).
            arity(4)?;
            let name = text(args[0]);
            let spec = crate::schema::IndexSpec::parse(&name, &args[1..])?;
            if cat.entry(&name).is_none() {
                spec.check_json_paths()?;
            }
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
        "FT.HYBRID" => {
            arity(1)?;
            super::hybrid::ft_hybrid(cat, args, docs, config, proto)
        }
        "FT.CURSOR" => {
            arity(3)?;
            crate::aggregate::command::ft_cursor(cat, args, docs, proto)
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
        "FT.SPELLCHECK" => spell::ft_spellcheck(cat, args, docs, config, proto),
        "FT.DICTADD" => spell::ft_dictadd(config, args),
        "FT.DICTDEL" => spell::ft_dictdel(config, args),
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
