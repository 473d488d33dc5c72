//! FT.HYBRID for the whole cluster: the text side's term statistics from every master
//! (`FT._SHARD.HYBRIDSTATS`), summed, then each master's candidates of both sides scored with
//! them (`FT._SHARD.HYBRID`), fused and run through the tail on this node
//! (`search::distributed::hybrid`), where WITHCURSOR's cursors live.

use std::time::{Duration, Instant};

use redis_module::Context;
use search::distributed::hybrid as dhybrid;
use search::distributed::search as dsearch;
use search::Reply as SearchReply;

use super::conn;
use super::{
    command, credentials, fail, fill_definitions, merged_here, rounds, settled, shard_failed, split_state,
    topology, Round,
};
use crate::blocked as block;
use crate::indexing;
use crate::reply::{Protocol, Reply};

/// What one scatter of a round gave: every shard's answer (with its address), or how the
/// round ends.
enum Gathered {
    /// Each shard's answer, in shard order.
    All(Vec<(String, SearchReply)>),
    /// The round ends so.
    Ends(Round),
}

/// Sends `cmd` to every shard of `addrs` by `deadline` and collects the answers; an error
/// answer of `no such index` has the definitions filled in once (`filled`) and the round
/// runs again; a shard that does not answer is a timeout error (a fusion over part of the
/// documents would be a wrong answer with no sign of it), or [`MOVING`] on a retry.
fn gather(
    addrs: &[String],
    cmd: &[Vec<u8>],
    auth: &conn::Credentials,
    deadline: Instant,
    retry: bool,
    filled: &mut bool,
) -> Gathered {
    let requests = addrs.iter().map(|a| (a.clone(), cmd.to_vec())).collect();
    let mut out = Vec::new();
    for (addr, a) in addrs.iter().zip(conn::scatter(requests, auth, deadline)) {
        match a {
            Ok(SearchReply::Error(e)) if !*filled && fill_definitions(addr, &e, addrs, auth, deadline) => {
                *filled = true;
                return Gathered::Ends(Round::Moving);
            }
            Ok(SearchReply::Error(e)) => return Gathered::Ends(Round::Done(fail(e))),
            Ok(r) => out.push((addr.clone(), r)),
            Err(f) => return Gathered::Ends(shard_failed(f, retry)),
        }
    }
    Gathered::All(out)
}

/// FT.HYBRID for the whole cluster; None when this server is the only master (then the
/// local query is the cluster's).
pub fn hybrid(ctx: &Context, args: &[&[u8]]) -> Option<Reply> {
    let shards = topology::shards(ctx);
    if shards.len() < 2 && shards.iter().all(|s| s.myself) {
        return None;
    }
    let started = Instant::now();
    let proto = Protocol::of(ctx);
    let plan = match indexing::with_state(ctx, |s| dhybrid::plan(args, &s.config)) {
        Ok(p) => p,
        Err(e) => return Some(Reply::Error(e.0)),
    };
    if block::cannot_block(ctx) {
        return Some(Reply::Error("ERR FT.HYBRID on a cluster cannot run inside MULTI or a script".into()));
    }
    let budget = Duration::from_millis(if plan.timeout_ms == 0 { 30_000 } else { plan.timeout_ms });
    let owned: Vec<Vec<u8>> = args.iter().map(|a| a.to_vec()).collect();
    let auth = credentials();
    let addrs: Vec<String> = shards.iter().map(|s| s.addr.clone()).collect();
    let work = move || {
        let mut filled = false;
        rounds(budget, |begun, retry| {
            let args: Vec<&[u8]> = owned.iter().map(|a| a.as_slice()).collect();
            let deadline = begun + budget;
            // The statistics round may take half of what is left.
            let half = Instant::now() + deadline.saturating_duration_since(Instant::now()) / 2;
            let cmd = command("FT._SHARD.HYBRIDSTATS", &[], &args);
            let stats = match gather(&addrs, &cmd, &auth, half, retry, &mut filled) {
                Gathered::All(answers) => answers.into_iter().map(|(_, r)| r).collect::<Vec<_>>(),
                Gathered::Ends(r) => return r,
            };
            let stats = match dsearch::merge_stats(&stats) {
                Ok(s) => s,
                Err(e) => return Round::Done(fail(e.0)),
            };
            let cmd = command("FT._SHARD.HYBRID", &[stats.as_slice()], &args);
            let answers = match gather(&addrs, &cmd, &auth, deadline, retry, &mut filled) {
                Gathered::All(answers) => answers,
                Gathered::Ends(r) => return r,
            };
            let mut replies = Vec::new();
            let mut states = Vec::new();
            for (addr, a) in answers {
                match split_state(a) {
                    Ok((state, r)) => {
                        replies.push(r);
                        states.push((addr, state));
                    }
                    Err(e) => return Round::Done(fail(e)),
                }
            }
            if !settled(&states, &auth, deadline) {
                return Round::Moving;
            }
            merged_here(
                owned.clone(),
                proto,
                Box::new(move |catalog, args, docs, config, sproto| {
                    dhybrid::merge_hybrid(catalog, args, docs, config, sproto, &replies, started)
                }),
            )
        })
    };
    Some(block::run_blocked(ctx, budget + Duration::from_secs(2), work))
}
