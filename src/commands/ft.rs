//! FT.* command handlers: every FT command goes to the database's [`search::Catalog`], which
//! parses its arguments and executes it; this file adds what only Redis can do (the client's
//! database and protocol, deleting keys for `DD`, replication, the initial scan).

use redis_module::{CallOptionsBuilder, CallReply, CallResult, Context, ContextFlags};
use search::{Catalog, KeyWrite, Protocol as SearchProtocol, Reply as SearchReply};

use crate::commands::Invocation;
use crate::error::CommandResult;
use crate::indexing::{self, RedisDocs};
use crate::reply::{shortest_double, Protocol, Reply};

/// FT commands that change index definitions: replicated to replicas and the AOF when they succeed.
const DEFINITION_WRITES: &[&str] = &[
    "FT.CREATE", "FT.DROPINDEX", "FT.DROP", "FT.ALTER", "FT.ALIASADD", "FT.ALIASUPDATE", "FT.ALIASDEL",
    "FT.SYNUPDATE", "FT.DICTADD", "FT.DICTDEL", "FT._CREATEIFNX", "FT._ALTERIFNX", "FT._DROPIFX",
    "FT._DROPINDEXIFX", "FT._ALIASADDIFNX", "FT._ALIASDELIFX",
];

/// Performs a command's key writes through Redis's own commands with the `!` flag, so Redis
/// propagates each one to replicas and the AOF and its keyspace event reaches the indexes
/// (`indexing::key_event`) like any other write. Returns how many keys the DELs removed.
fn perform(ctx: &Context, writes: &[KeyWrite]) -> i64 {
    if writes.is_empty() {
        return 0;
    }
    let opts = CallOptionsBuilder::new().replicate().build();
    let mut deleted = 0;
    for w in writes {
        let (cmd, args): (&str, Vec<&[u8]>) = match w {
            KeyWrite::Delete(key) => ("DEL", vec![key.as_slice()]),
            KeyWrite::HashSet(key, pairs) => {
                ("HSET", std::iter::once(key.as_slice()).chain(pairs.iter().map(|p| p.as_slice())).collect())
            }
        };
        let r: CallResult = ctx.call_ext(cmd, &opts, args.as_slice());
        if let (KeyWrite::Delete(_), Ok(CallReply::I64(n))) = (w, &r) {
            deleted += n.to_i64();
        }
    }
    deleted
}

/// A search reply as the glue's reply, for the client's protocol.
pub(crate) fn convert(r: SearchReply, proto: Protocol) -> Reply {
    match r {
        SearchReply::Nil => Reply::Nil,
        SearchReply::Int(i) => Reply::Int(i),
        // RediSearch 2.10 runs on Redis >= 7.2, whose RESP2 doubles are the shortest text that
        // reads back as the same number (Redis 7.0 here would print 17 digits).
        SearchReply::Double(d) if proto == Protocol::Resp2 => Reply::Bulk(shortest_double(d).into_bytes()),
        SearchReply::Double(d) => Reply::Double(d),
        SearchReply::Simple(s) => Reply::Status(s),
        SearchReply::Bulk(b) => Reply::Bulk(b),
        SearchReply::Array(items) => Reply::Array(items.into_iter().map(|r| convert(r, proto)).collect()),
        SearchReply::Map(pairs) => {
            Reply::Map(pairs.into_iter().map(|(k, v)| (convert(k, proto), convert(v, proto))).collect())
        }
        SearchReply::Set(items) => Reply::Set(items.into_iter().map(|r| convert(r, proto)).collect()),
        SearchReply::Error(e) => Reply::Error(e),
    }
}

/// Every FT.* command: `FT.<NAME> args…`. On a cluster, FT.SEARCH answers for every shard
/// and definition changes apply on every master (`crate::cluster`).
pub fn ft(ctx: &Context, inv: &Invocation) -> CommandResult {
    let name = String::from_utf8_lossy(inv.name).to_ascii_uppercase();
    if crate::cluster::acts_for_cluster(ctx) {
        if name == "FT.SEARCH" && inv.args.len() >= 2 {
            if let Some(r) = crate::cluster::search(ctx, inv.args, None) {
                return Ok(r);
            }
        }
        if matches!(name.as_str(), "FT.TAGVALS" | "FT.INFO" | "FT.SPELLCHECK") {
            if let Some(r) = crate::cluster::merged_read(ctx, &name, inv.args) {
                return Ok(r);
            }
        }
        if name == "FT.AGGREGATE" && inv.args.len() >= 2 {
            if let Some(r) = crate::cluster::aggregate(ctx, inv.args, None) {
                return Ok(r);
            }
        }
        if name == "FT.HYBRID" {
            if let Some(r) = crate::cluster::hybrid::hybrid(ctx, inv.args) {
                return Ok(r);
            }
        }
        if name == "FT.PROFILE" {
            if let Some(r) = crate::cluster::profile(ctx, inv.args) {
                return Ok(r);
            }
        }
        if crate::cluster::is_definition(&name, inv.args) {
            let (reply, ok) = local(ctx, &name, inv.args);
            if ok && name == "FT.CONFIG" {
                // On a cluster the replicas (masters after a failover) keep the same settings.
                ctx.replicate_verbatim();
            }
            return Ok(if ok { crate::cluster::broadcast(ctx, &name, inv.args, reply) } else { reply });
        }
    }
    if let Some(sent) = crate::workers::dispatch(ctx, &name, inv.args) {
        return Ok(sent);
    }
    Ok(local(ctx, &name, inv.args).0)
}

/// `FT._LOCAL <FT command> args…`: a definition change sent by another master, applied here
/// only (and replicated to this master's replicas as it came).
pub fn ft_local(ctx: &Context, inv: &Invocation) -> CommandResult {
    let Some((name, args)) = inv.args.split_first() else {
        return Ok(Reply::Error("ERR wrong number of arguments for 'ft._local' command".into()));
    };
    let name = String::from_utf8_lossy(name).to_ascii_uppercase();
    if !crate::cluster::is_definition(&name, args) {
        return Ok(Reply::Error(format!("ERR FT._LOCAL does not run {name}")));
    }
    let (reply, ok) = local(ctx, &name, args);
    if ok && name == "FT.CONFIG" {
        ctx.replicate_verbatim();
    }
    Ok(reply)
}

/// `FT._LOCAL.DEFS <definitions> <dictionaries>`: another master's index definitions and
/// dictionaries, taken (and replicated to this master's replicas) only when this server has
/// no index in database 0: 1 when taken, else 0.
pub fn ft_local_defs(ctx: &Context, inv: &Invocation) -> CommandResult {
    let [defs, dicts] = inv.args else {
        return Ok(Reply::Error("ERR wrong number of arguments for 'ft._local.defs' command".into()));
    };
    crate::aof_definitions::before_definition_change(ctx);
    match indexing::take_peer_definitions(ctx, defs, dicts) {
        Ok(true) => {
            indexing::initial_scan(ctx);
            ctx.replicate_verbatim();
            Ok(Reply::Int(1))
        }
        Ok(false) => Ok(Reply::Int(0)),
        Err(e) => Ok(Reply::Error(format!("ERR {e}"))),
    }
}

/// `FT._SHARD.DEFS`: this server's index definitions of database 0 and its dictionaries, for
/// a master that has none (`[definitions, dictionaries]`, nil without indexes).
pub fn ft_shard_defs(ctx: &Context, _inv: &Invocation) -> CommandResult {
    Ok(match indexing::definitions_for_peer(ctx) {
        Some((d, t)) => Reply::Array(vec![Reply::Bulk(d), Reply::Bulk(t)]),
        None => Reply::Nil,
    })
}

/// `FT._SHARD.SEARCH` / `FT._SHARD.STATS` / `FT._SHARD.AGGREGATE` / `FT._SHARD.HYBRIDSTATS` /
/// `FT._SHARD.HYBRID` / `FT._SHARD.STATE`: this shard's part of a cluster query
/// (`search::distributed`).
pub fn ft_shard(ctx: &Context, inv: &Invocation) -> CommandResult {
    let name = String::from_utf8_lossy(inv.name).to_ascii_uppercase();
    // What this shard serves goes with its rows (see `cluster::settled`).
    let slots = Reply::Bulk(crate::cluster::topology::own_slots(ctx).into_bytes());
    if name == "FT._SHARD.STATE" {
        return Ok(slots);
    }
    let db = indexing::selected_db(ctx);
    let docs = RedisDocs::new(ctx);
    let r = indexing::with_state(ctx, |state| {
        let catalog = state.catalogs.entry(db).or_insert_with(Catalog::new);
        if name == "FT._SHARD.LOCAL" {
            // A read command's reply tree, whole (FT.TAGVALS, FT.INFO, FT.SPELLCHECK).
            let Some((cmd, args)) = inv.args.split_first() else {
                return Err(search::error::Error("wrong number of arguments".into()));
            };
            let cmd = String::from_utf8_lossy(cmd).to_ascii_uppercase();
            // FT.PROFILE answers in the client's protocol, named with a `/RESP3` suffix.
            let (cmd, proto) = match cmd.strip_suffix("/RESP3") {
                Some(c) => (c.to_string(), SearchProtocol::Resp3),
                None => (cmd, SearchProtocol::Resp2),
            };
            if !matches!(cmd.as_str(), "FT.TAGVALS" | "FT.INFO" | "FT.SPELLCHECK" | "FT.PROFILE") {
                return Err(search::error::Error(format!("FT._SHARD.LOCAL does not run {cmd}")));
            }
            let out = catalog.execute_full(&cmd, args, &docs, &mut state.config, proto);
            return Ok(SearchReply::Bulk(search::distributed::wire::encode(&out.reply)));
        }
        if name == "FT._SHARD.STATS" {
            search::distributed::search::shard_stats(catalog, inv.args, &docs, &state.config)
        } else if name == "FT._SHARD.HYBRIDSTATS" {
            search::distributed::hybrid::shard_hybrid_stats(catalog, inv.args, &docs, &state.config)
        } else if name == "FT._SHARD.HYBRID" {
            search::distributed::hybrid::shard_hybrid(catalog, inv.args, &docs, &state.config)
        } else if name == "FT._SHARD.AGGREGATE" {
            search::distributed::aggregate::shard_aggregate(catalog, inv.args, &docs, &state.config)
        } else {
            search::distributed::search::shard_search(catalog, inv.args, &docs, &state.config)
        }
    });
    Ok(match convert(r.unwrap_or_else(|e| SearchReply::Error(e.0)), Protocol::Resp2) {
        Reply::Error(e) => Reply::Error(e),
        r if matches!(name.as_str(), "FT._SHARD.STATS" | "FT._SHARD.HYBRIDSTATS" | "FT._SHARD.LOCAL") => r,
        r => Reply::Array(vec![slots, r]),
    })
}

/// Runs an FT command on this server alone; also says whether it succeeded.
pub(crate) fn local(ctx: &Context, name: &str, args: &[&[u8]]) -> (Reply, bool) {
    let proto = match Protocol::of(ctx) {
        Protocol::Resp2 => SearchProtocol::Resp2,
        Protocol::Resp3 => SearchProtocol::Resp3,
    };
    let db = indexing::selected_db(ctx);
    if search::READ_ONLY.contains(&name) {
        let read = crate::state::read_shared(|s| match s.catalogs.get(&db) {
            Some(c) => c.read(name, args, &s.config, proto),
            None => Catalog::new().read(name, args, &s.config, proto),
        });
        if let Some(reply) = read {
            let ok = !matches!(reply, SearchReply::Error(_));
            return (Reply::Search(reply), ok);
        }
    }
    if DEFINITION_WRITES.contains(&name) {
        // Definitions an AOF rewrite made due go into the AOF before this change.
        crate::aof_definitions::before_definition_change(ctx);
    }
    if matches!(name, "FT.CREATE" | "FT.ALTER" | "FT._CREATEIFNX" | "FT._ALTERIFNX") {
        let replayed = ctx.get_flags().intersects(ContextFlags::REPLICATED | ContextFlags::LOADING);
        crate::info::note_memory_limit(ctx, replayed);
    }
    let docs = RedisDocs::new(ctx);
    let outcome = indexing::with_state(ctx, |state| {
        let catalog = state.catalogs.entry(db).or_insert_with(Catalog::new);
        catalog.execute_full(name, args, &docs, &mut state.config, proto)
    });
    let ok = !matches!(outcome.reply, SearchReply::Error(_));
    // Writes happen outside the state lock: deleting keys fires keyspace events.
    indexing::delete_keys(ctx, &outcome.delete_keys);
    let deleted = perform(ctx, &outcome.writes);
    let reply = if ok && name == "FT.DEL" { SearchReply::Int(deleted.min(1)) } else { outcome.reply };
    if ok && matches!(name, "FT.CREATE" | "FT.ALTER" | "FT._CREATEIFNX" | "FT._ALTERIFNX") {
        indexing::initial_scan(ctx);
    }
    if ok && DEFINITION_WRITES.contains(&name) {
        ctx.replicate_verbatim();
    }
    if ok && name == "FT.CONFIG" {
        crate::workers::configure(indexing::with_state(ctx, |s| s.config.workers));
    }
    (Reply::Search(reply), ok)
}
