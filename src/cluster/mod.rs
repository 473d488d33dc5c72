//! FT.* on a Redis Cluster: any node answers for the whole cluster.
//!
//! - Definitions (FT.CREATE, FT.ALTER, FT.DROPINDEX, FT.ALIAS*, FT.SYNUPDATE, FT.DICTADD/DEL,
//!   FT.CONFIG SET) run locally, then go to every other master as `FT._LOCAL <command> …`,
//!   which runs them there without sending them on (and replicates to that master's replicas);
//!   the client gets the local reply once the peers answered. Internal commands over the
//!   shards' own client port were chosen over cluster-bus messages because they need a reply
//!   (the caller waits for every master, and a query needs each shard's rows), get Redis's
//!   ACLs and flow control for free, and work the same for definitions and queries.
//! - FT.SEARCH scatters to every master (`FT._SHARD.STATS` for global term statistics when
//!   scores matter, then `FT._SHARD.SEARCH`) and merges (`search::distributed`); FT.AGGREGATE
//!   and FT.HYBRID ([`hybrid`]) likewise.
//! - Only the calling client waits ([`block`]); the network work runs on a thread
//!   ([`conn`]); shards are read from `CLUSTER NODES` at each command ([`topology`]).

use crate::blocked as block;
pub mod conn;
pub mod hybrid;
pub mod profile;
pub mod topology;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use redis_module::{Context, ContextFlags};
use search::config::TimeoutPolicy;
use search::distributed::search as dsearch;
use search::Reply as SearchReply;

use crate::commands::ft::convert;
use crate::indexing;
use crate::reply::{Protocol, Reply};
use conn::{Credentials, Failure};

/// Set at load when the server runs in cluster mode.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// The credentials shards use with each other (module arguments).
static CREDENTIALS: Mutex<Option<Credentials>> = Mutex::new(None);

/// Records whether the server is in cluster mode (at load).
pub fn init(ctx: &Context) {
    ENABLED.store(ctx.get_flags().contains(ContextFlags::CLUSTER), Ordering::Relaxed);
}

/// True in cluster mode.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Takes the module arguments that are folio's cluster options out of `args`:
/// `OSS_GLOBAL_PASSWORD <password>` and `OSS_ACL_USERNAME <user>` (RediSearch's
/// coordinator's names), the credentials shards connect to each other with.
pub fn take_module_args(args: &mut Vec<String>) {
    let mut creds = CREDENTIALS.lock().unwrap_or_else(|e| e.into_inner());
    let mut i = 0;
    while i < args.len() {
        let name = args[i].to_ascii_uppercase();
        if (name == "OSS_GLOBAL_PASSWORD" || name == "OSS_ACL_USERNAME") && i + 1 < args.len() {
            let value = args.remove(i + 1);
            args.remove(i);
            let c = creds.get_or_insert_with(Credentials::default);
            if name == "OSS_GLOBAL_PASSWORD" {
                c.password = Some(value);
            } else {
                c.user = Some(value);
            }
        } else {
            i += 1;
        }
    }
}

fn credentials() -> Credentials {
    CREDENTIALS.lock().unwrap_or_else(|e| e.into_inner()).clone().unwrap_or_default()
}

/// Commands applied on every master.
pub fn is_definition(name: &str, args: &[&[u8]]) -> bool {
    match name {
        "FT.CREATE" | "FT.ALTER" | "FT.DROPINDEX" | "FT.DROP" | "FT.ALIASADD" | "FT.ALIASUPDATE"
        | "FT.ALIASDEL" | "FT.SYNUPDATE" | "FT.DICTADD" | "FT.DICTDEL" | "FT._CREATEIFNX"
        | "FT._ALTERIFNX" | "FT._DROPIFX" | "FT._DROPINDEXIFX" | "FT._ALIASADDIFNX" | "FT._ALIASDELIFX" => {
            true
        }
        "FT.CONFIG" => args.first().is_some_and(|a| a.eq_ignore_ascii_case(b"SET")),
        _ => false,
    }
}

/// True when this command must act for the whole cluster: cluster mode, a client's command
/// (not the replication stream or a load), at least two masters.
pub fn acts_for_cluster(ctx: &Context) -> bool {
    enabled() && !ctx.get_flags().intersects(ContextFlags::REPLICATED | ContextFlags::LOADING)
}

fn command(name: &str, pre: &[&[u8]], args: &[&[u8]]) -> Vec<Vec<u8>> {
    std::iter::once(name.as_bytes().to_vec())
        .chain(pre.iter().map(|a| a.to_vec()))
        .chain(args.iter().map(|a| a.to_vec()))
        .collect()
}

/// After a definition change succeeded locally: sends it to the other masters and replies
/// `local` once they answered (or after 5 s). Peers' errors are logged.
pub fn broadcast(ctx: &Context, name: &str, args: &[&[u8]], local: Reply) -> Reply {
    let peers = topology::peers(ctx);
    if peers.is_empty() {
        return local;
    }
    let cmd = command("FT._LOCAL", &[name.as_bytes()], args);
    let requests: Vec<_> = peers.iter().map(|p| (p.addr.clone(), cmd.clone())).collect();
    let auth = credentials();
    let shown = local.clone();
    let work = move || {
        let answers = conn::scatter(requests.clone(), &auth, Instant::now() + Duration::from_secs(5));
        let problems: Vec<String> = requests
            .iter()
            .zip(answers)
            .filter_map(|((addr, _), a)| match a {
                Ok(SearchReply::Error(e)) => Some(format!("{addr}: {e}")),
                Ok(_) => None,
                Err(f) => Some(format!("{addr}: {f:?}")),
            })
            .collect();
        Box::new(move |ctx: &Context| {
            for p in &problems {
                ctx.log_warning(&format!("folio: a definition change did not apply on {p}"));
            }
            local
        }) as block::Finish
    };
    if block::cannot_block(ctx) {
        // MULTI or a script: the peers get it in the background.
        std::thread::spawn(move || drop(work()));
        return shown;
    }
    block::run_blocked(ctx, Duration::from_secs(10), work)
}

/// What one round of a cluster query gave.
enum Round {
    /// The reply.
    Done(block::Finish),
    /// Slots moved between shards while it ran (or are moving): run it again.
    Moving,
}

/// The error once slots kept moving for the whole timeout (clients such as redis-py retry
/// on `TRYAGAIN`, as they do for Redis's own multi-key commands during resharding).
const MOVING: &str = "TRYAGAIN slots are moving between shards (resharding); try again";

/// Runs `round` until it is done, again while slots move (20 ms apart), within `budget`.
/// The round is told when it is a retry: a shard that then misses the deadline did so
/// because the retries used the time, and the answer is [`MOVING`], not a partial one.
fn rounds(budget: Duration, mut round: impl FnMut(Instant, bool) -> Round) -> block::Finish {
    let started = Instant::now();
    let mut retry = false;
    loop {
        match round(started, retry) {
            Round::Done(f) => return f,
            Round::Moving if started.elapsed() + Duration::from_millis(40) < budget => {
                retry = true;
                std::thread::sleep(Duration::from_millis(20))
            }
            Round::Moving => return fail(MOVING.into()),
        }
    }
}

/// Splits a shard's `[slots, answer]`; an error answer stays an error.
fn split_state(r: SearchReply) -> Result<(String, SearchReply), String> {
    match r {
        SearchReply::Array(mut v) if v.len() == 2 => {
            let answer = v.pop().unwrap_or(SearchReply::Nil);
            match v.pop() {
                Some(SearchReply::Bulk(b)) => Ok((String::from_utf8_lossy(&b).into_owned(), answer)),
                _ => Err("ERR bad shard reply".into()),
            }
        }
        SearchReply::Error(e) => Err(e),
        _ => Err("ERR bad shard reply".into()),
    }
}

/// Number of slots a [`topology::my_slots`] text names as served (ranges, not `[…]`).
fn slot_count(state: &str) -> usize {
    state
        .split(' ')
        .filter(|t| !t.is_empty() && !t.starts_with('['))
        .map(|t| match t.split_once('-') {
            Some((a, b)) => match (a.parse::<usize>(), b.parse::<usize>()) {
                (Ok(a), Ok(b)) if b >= a => b - a + 1,
                _ => 0,
            },
            None => usize::from(t.parse::<usize>().is_ok()),
        })
        .sum()
}

/// True when the answers (given with each shard's slots as it answered) form one
/// consistent cut: no slot migrating or importing, all 16384 slots served once, and every
/// shard still serving the same slots after all had answered (asked once more). A key
/// moving between two shards while they answer would otherwise be counted twice or not
/// at all.
fn settled(states: &[(String, String)], auth: &Credentials, deadline: Instant) -> bool {
    if states.iter().any(|(_, s)| s.contains('['))
        || states.iter().map(|(_, s)| slot_count(s)).sum::<usize>() != 16384
    {
        return false;
    }
    let cmd = vec![b"FT._SHARD.STATE".to_vec()];
    let again = conn::scatter(states.iter().map(|(a, _)| (a.clone(), cmd.clone())).collect(), auth, deadline);
    states
        .iter()
        .zip(again)
        .all(|((_, before), now)| matches!(now, Ok(SearchReply::Bulk(b)) if b == before.as_bytes()))
}

/// FT.PROFILE for the whole cluster (`profile`); None when this server is the only master
/// or the arguments do not parse (the local command answers).
pub fn profile(ctx: &Context, args: &[&[u8]]) -> Option<Reply> {
    let (search, inner) = profile::inner_args(args)?;
    let inner: Vec<&[u8]> = inner.iter().map(|a| a.as_slice()).collect();
    let shards = topology::shards(ctx);
    let timeout_ms = indexing::with_state(ctx, |s| s.config.timeout_ms);
    let p = profile::Profiling {
        search,
        args: args.iter().map(|a| a.to_vec()).collect(),
        shards: shards.iter().map(|s| s.addr.clone()).collect(),
        auth: credentials(),
        budget: Duration::from_millis(if timeout_ms == 0 { 30_000 } else { timeout_ms }),
        proto: Protocol::of(ctx),
    };
    if search {
        self::search(ctx, &inner, Some(p))
    } else {
        aggregate(ctx, &inner, Some(p))
    }
}

/// Runs `work` with the blocked client; profiled (`profile`) when `p` says so.
fn run(
    ctx: &Context,
    backstop: Duration,
    p: Option<profile::Profiling>,
    work: impl FnOnce() -> block::Finish + Send + 'static,
) -> Reply {
    match p {
        Some(p) => block::run_blocked(ctx, backstop + p.budget, profile::wrap(p, work)),
        None => block::run_blocked(ctx, backstop, work),
    }
}

/// FT.SEARCH for the whole cluster; None when this server is the only master (then the
/// local search is the cluster's). `profiled`: FT.PROFILE SEARCH.
pub fn search(ctx: &Context, args: &[&[u8]], profiled: Option<profile::Profiling>) -> Option<Reply> {
    let shards = topology::shards(ctx);
    if shards.len() < 2 && shards.iter().all(|s| s.myself) {
        return None;
    }
    if block::cannot_block(ctx) {
        return Some(Reply::Error("ERR FT.SEARCH on a cluster cannot run inside MULTI or a script".into()));
    }
    let proto = Protocol::of(ctx);
    let (plan, policy) = indexing::with_state(ctx, |s| (dsearch::plan(args, &s.config), s.config.on_timeout));
    let budget = Duration::from_millis(if plan.timeout_ms == 0 { 30_000 } else { plan.timeout_ms });
    let owned: Vec<Vec<u8>> = args.iter().map(|a| a.to_vec()).collect();
    let auth = credentials();
    let work = move || {
        let mut filled = false;
        rounds(budget, |started, retry| {
            let args: Vec<&[u8]> = owned.iter().map(|a| a.as_slice()).collect();
            let deadline = started + budget;
            let mut live: Vec<String> = shards.iter().map(|s| s.addr.clone()).collect();
            let mut timed_out = false;
            let mut stats = Vec::new();
            if plan.needs_stats {
                // The statistics round may take half of what is left, so that the shards that
                // answered it still have time for the query when another shard does not answer.
                let half = Instant::now() + deadline.saturating_duration_since(Instant::now()) / 2;
                let cmd = command("FT._SHARD.STATS", &[], &args);
                let answers =
                    conn::scatter(live.iter().map(|a| (a.clone(), cmd.clone())).collect(), &auth, half);
                let mut ok = Vec::new();
                let mut next = Vec::new();
                for (addr, a) in live.iter().zip(answers) {
                    match a {
                        Ok(SearchReply::Error(e))
                            if !filled && fill_definitions(addr, &e, &live, &auth, deadline) =>
                        {
                            filled = true;
                            return Round::Moving;
                        }
                        Ok(r) => {
                            ok.push(r);
                            next.push(addr.clone());
                        }
                        Err(Failure::Timeout) => timed_out = true,
                        Err(Failure::Unreachable(e)) => {
                            return Round::Done(fail(format!("ERR shard unreachable: {e}")))
                        }
                    }
                }
                match dsearch::merge_stats(&ok) {
                    Ok(s) => stats = s,
                    Err(e) => return Round::Done(fail(e.0)),
                }
                live = next;
            }
            let p = if proto.is_resp3() { &b"3"[..] } else { &b"2"[..] };
            let cmd = command("FT._SHARD.SEARCH", &[stats.as_slice(), p], &args);
            let answers =
                conn::scatter(live.iter().map(|a| (a.clone(), cmd.clone())).collect(), &auth, deadline);
            let mut rows = Vec::new();
            let mut states = Vec::new();
            for (addr, a) in live.iter().zip(answers) {
                match a.map(split_state) {
                    Ok(Ok((state, r))) => match dsearch::read_shard_rows(&r) {
                        Ok(r) => {
                            rows.push(r);
                            states.push((addr.clone(), state));
                        }
                        Err(e) => return Round::Done(fail(e.0)),
                    },
                    Ok(Err(e)) if !filled && fill_definitions(addr, &e, &live, &auth, deadline) => {
                        filled = true;
                        return Round::Moving;
                    }
                    Ok(Err(e)) => return Round::Done(fail(e)),
                    Err(Failure::Timeout) => timed_out = true,
                    Err(Failure::Unreachable(e)) => {
                        return Round::Done(fail(format!("ERR shard unreachable: {e}")))
                    }
                }
            }
            let mut warnings = Vec::new();
            if timed_out {
                if retry {
                    return Round::Done(fail(MOVING.into()));
                }
                if policy == TimeoutPolicy::Fail {
                    return Round::Done(fail(search::error::TIMEOUT_ERROR.into()));
                }
                warnings.push(search::error::TIMEOUT_ERROR.to_string());
            } else if !settled(&states, &auth, deadline) {
                return Round::Moving;
            }
            let owned = owned.clone();
            Round::Done(Box::new(move |ctx: &Context| {
                let args: Vec<&[u8]> = owned.iter().map(|a| a.as_slice()).collect();
                let sproto = if proto.is_resp3() { search::Protocol::Resp3 } else { search::Protocol::Resp2 };
                let merged = indexing::with_state(ctx, |s| {
                    dsearch::merge_search(&args, &s.config, sproto, rows, &warnings)
                });
                convert(merged.unwrap_or_else(|e| SearchReply::Error(e.0)), proto)
            }))
        })
    };
    Some(run(ctx, budget + Duration::from_secs(2), profiled, work))
}

/// A shard that answered `<index>: no such index`: a master added to the cluster (or one
/// whose data is gone) may have no definitions. Sends it this node's, or when this node has
/// none (it is that master), those of the first of `shards` that has some
/// (`FT._SHARD.DEFS`), as `FT._LOCAL.DEFS`, which a master with indexes of its own refuses;
/// says whether it took them: the round then runs again.
fn fill_definitions(
    addr: &str,
    error: &str,
    shards: &[String],
    auth: &Credentials,
    deadline: Instant,
) -> bool {
    if !error.ends_with(": no such index") {
        return false;
    }
    let mut defs = {
        let tsc = redis_module::ThreadSafeContext::new();
        let ctx = tsc.lock();
        indexing::definitions_for_peer(&ctx)
    };
    if defs.is_none() {
        let cmd = vec![b"FT._SHARD.DEFS".to_vec()];
        let peers: Vec<_> = shards.iter().filter(|s| *s != addr).map(|s| (s.clone(), cmd.clone())).collect();
        defs = conn::scatter(peers, auth, deadline).into_iter().find_map(|a| match a {
            Ok(SearchReply::Array(v)) => match &v[..] {
                [SearchReply::Bulk(d), SearchReply::Bulk(t)] => Some((d.clone(), t.clone())),
                _ => None,
            },
            _ => None,
        });
    }
    let Some((defs, dicts)) = defs else { return false };
    let cmd = vec![b"FT._LOCAL.DEFS".to_vec(), defs, dicts];
    let taken = matches!(
        conn::scatter(vec![(addr.to_string(), cmd)], auth, deadline).pop(),
        Some(Ok(SearchReply::Int(1)))
    );
    if taken {
        crate::rdb::log("notice", &format!("folio: sent the index definitions to {addr}, which had none"));
    }
    taken
}

fn fail(e: String) -> block::Finish {
    Box::new(move |_: &Context| Reply::Error(e))
}

/// How a round ends when a shard did not answer: a pipeline or fusion over part of the
/// documents would be a wrong answer with no sign of it, so an error whatever ON_TIMEOUT
/// says ([`MOVING`] when the round was a retry: slots may still be moving).
fn shard_failed(f: Failure, retry: bool) -> Round {
    Round::Done(fail(match f {
        Failure::Timeout if retry => MOVING.into(),
        Failure::Timeout => search::error::TIMEOUT_ERROR.into(),
        Failure::Unreachable(e) => format!("ERR shard unreachable: {e}"),
    }))
}

/// What a command's merge on this node is given: the client database's catalog, the
/// command's arguments, its documents, the configuration and the client's protocol.
type Merge = Box<
    dyn FnOnce(
            &mut search::Catalog,
            &[&[u8]],
            &indexing::RedisDocs,
            &search::config::Config,
            search::Protocol,
        ) -> search::error::Result<SearchReply>
        + Send,
>;

/// The end of a round whose shards all answered: `merge` runs on this node (the client's
/// database, its protocol) and its reply, or error, is the client's.
fn merged_here(owned: Vec<Vec<u8>>, proto: Protocol, merge: Merge) -> Round {
    Round::Done(Box::new(move |ctx: &Context| {
        let args: Vec<&[u8]> = owned.iter().map(|a| a.as_slice()).collect();
        let sproto = if proto.is_resp3() { search::Protocol::Resp3 } else { search::Protocol::Resp2 };
        let db = indexing::selected_db(ctx);
        let docs = indexing::RedisDocs::new(ctx);
        let merged = indexing::with_state(ctx, |s| {
            let catalog = s.catalogs.entry(db).or_insert_with(search::Catalog::new);
            merge(catalog, &args, &docs, &s.config, sproto)
        });
        convert(merged.unwrap_or_else(|e| SearchReply::Error(e.0)), proto)
    }))
}

/// FT.AGGREGATE for the whole cluster: every shard sends its matched documents with the
/// values the pipeline reads (`FT._SHARD.AGGREGATE`), this node runs the pipeline
/// (`search::distributed::aggregate`). None when this server is the only master.
/// `profiled`: FT.PROFILE AGGREGATE.
pub fn aggregate(ctx: &Context, args: &[&[u8]], profiled: Option<profile::Profiling>) -> Option<Reply> {
    let shards = topology::shards(ctx);
    if shards.len() < 2 && shards.iter().all(|s| s.myself) {
        return None;
    }
    if block::cannot_block(ctx) {
        return Some(Reply::Error(
            "ERR FT.AGGREGATE on a cluster cannot run inside MULTI or a script".into(),
        ));
    }
    let proto = Protocol::of(ctx);
    let timeout_ms = indexing::with_state(ctx, |s| s.config.timeout_ms);
    let budget = Duration::from_millis(if timeout_ms == 0 { 30_000 } else { timeout_ms.max(1) });
    let owned: Vec<Vec<u8>> = args.iter().map(|a| a.to_vec()).collect();
    let auth = credentials();
    let work = move || {
        let mut filled = false;
        rounds(budget, |started, retry| {
            let args: Vec<&[u8]> = owned.iter().map(|a| a.as_slice()).collect();
            let cmd = command("FT._SHARD.AGGREGATE", &[], &args);
            let addrs: Vec<String> = shards.iter().map(|s| s.addr.clone()).collect();
            let requests = shards.iter().map(|s| (s.addr.clone(), cmd.clone())).collect();
            let mut replies = Vec::new();
            let mut states = Vec::new();
            for (s, a) in shards.iter().zip(conn::scatter(requests, &auth, started + budget)) {
                match a.map(split_state) {
                    Ok(Ok((state, r))) => {
                        replies.push(r);
                        states.push((s.addr.clone(), state));
                    }
                    Ok(Err(e))
                        if !filled && fill_definitions(&s.addr, &e, &addrs, &auth, started + budget) =>
                    {
                        filled = true;
                        return Round::Moving;
                    }
                    Ok(Err(e)) => return Round::Done(fail(e)),
                    Err(f) => return shard_failed(f, retry),
                }
            }
            if !settled(&states, &auth, started + budget) {
                return Round::Moving;
            }
            merged_here(
                owned.clone(),
                proto,
                Box::new(move |catalog, args, docs, config, sproto| {
                    search::distributed::aggregate::merge_aggregate(
                        catalog, args, docs, config, sproto, &replies,
                    )
                }),
            )
        })
    };
    Some(run(ctx, budget + Duration::from_secs(2), profiled, work))
}

/// FT.TAGVALS, FT.INFO and FT.SPELLCHECK for the whole cluster: this node's reply merged with
/// the other masters' (`search::distributed::merge`, `search::distributed::spell`; shards
/// answer FT.SPELLCHECK in its FULLSCOREINFO form). None when this server is the only master.
pub fn merged_read(ctx: &Context, name: &str, args: &[&[u8]]) -> Option<Reply> {
    let shards = topology::shards(ctx);
    let local_is_shard = shards.iter().any(|s| s.myself);
    let peers: Vec<_> = shards.into_iter().filter(|s| !s.myself).collect();
    if peers.is_empty() || block::cannot_block(ctx) {
        return None;
    }
    let proto = Protocol::of(ctx);
    let sproto = if proto.is_resp3() { search::Protocol::Resp3 } else { search::Protocol::Resp2 };
    let spell = name == "FT.SPELLCHECK";
    let mut shard_args: Vec<&[u8]> = args.to_vec();
    if spell {
        shard_args.push(b"FULLSCOREINFO");
    }
    let db = indexing::selected_db(ctx);
    let docs = indexing::RedisDocs::new(ctx);
    let local = indexing::with_state(ctx, |s| {
        let catalog = s.catalogs.entry(db).or_insert_with(search::Catalog::new);
        let (a, p) = if spell { (&shard_args[..], search::Protocol::Resp2) } else { (args, sproto) };
        catalog.execute_full(name, a, &docs, &mut s.config, p).reply
    });
    if matches!(local, SearchReply::Error(_)) {
        return Some(convert(local, proto));
    }
    let cmd = command("FT._SHARD.LOCAL", &[name.as_bytes()], &shard_args);
    let owned: Vec<Vec<u8>> = args.iter().map(|a| a.to_vec()).collect();
    let requests: Vec<_> = peers.iter().map(|p| (p.addr.clone(), cmd.clone())).collect();
    let auth = credentials();
    let timeout_ms = indexing::with_state(ctx, |s| s.config.timeout_ms);
    let budget = Duration::from_millis(if timeout_ms == 0 { 30_000 } else { timeout_ms });
    let tagvals = name == "FT.TAGVALS";
    let work = move || -> block::Finish {
        let mut others = Vec::new();
        for a in conn::scatter(requests, &auth, Instant::now() + budget) {
            match a {
                Ok(SearchReply::Bulk(b)) => match search::distributed::wire::decode(&b) {
                    Some(r) => others.push(r),
                    None => return fail("ERR bad shard reply".into()),
                },
                Ok(SearchReply::Error(e)) => return fail(e),
                Ok(_) => return fail("ERR bad shard reply".into()),
                Err(Failure::Timeout) => return fail(search::error::TIMEOUT_ERROR.into()),
                Err(Failure::Unreachable(e)) => return fail(format!("ERR shard unreachable: {e}")),
            }
        }
        if spell {
            // The dictionaries' order is the node's: merged on the main thread.
            return Box::new(move |ctx: &Context| {
                let mut replies = others;
                if local_is_shard {
                    replies.insert(0, local);
                }
                let args: Vec<&[u8]> = owned.iter().map(|a| a.as_slice()).collect();
                let merged = indexing::with_state(ctx, |s| {
                    search::distributed::spell::merge_spellcheck(&args, &s.config, sproto, &replies)
                });
                convert(merged.unwrap_or_else(|e| SearchReply::Error(e.0)), proto)
            });
        }
        let merged = if tagvals {
            search::distributed::merge::merge_tagvals(local, &others)
        } else {
            search::distributed::merge::merge_info(local, &others, local_is_shard)
        };
        Box::new(move |_: &Context| convert(merged, proto))
    };
    Some(block::run_blocked(ctx, budget + Duration::from_secs(2), work))
}
