//! FT.PROFILE on a Redis Cluster, in the shape of RediSearch's coordinator (`coord/src`,
//! `profileSearchReply` and `printAggProfile`): the whole cluster's results, as FT.SEARCH or
//! FT.AGGREGATE gives them from this node, then each shard's own profile (`Shard #1`,
//! `Shard #2`, … in the order of `CLUSTER NODES`' masters: each master profiles the query
//! over its own documents, `FT._SHARD.LOCAL FT.PROFILE`) and the coordinator's times.
//!
//! RESP2, SEARCH: `[results, ["Shard #1", <profile items>…, "Coordinator", ["Total
//! Coordinator time", ms, "Post Processing time", ms]]]`; AGGREGATE: `[results, ["Shards",
//! ["Shard #1", <profile items>…], "Coordinator", ["Result processors profile", [], "Total
//! Coordinator time", ms]]]`. RESP3: the results' map with `shards` (SEARCH) or `Shards` and
//! `Coordinator` (AGGREGATE) added. The coordinator's own result processors are not
//! profiled (an empty list).

use std::time::{Duration, Instant};

use redis_module::Context;
use search::Reply as SearchReply;

use super::conn::{self, Credentials, Failure};
use super::{command, fail};
use crate::blocked as block;
use crate::commands::ft::convert;
use crate::reply::{Protocol, Reply};

/// What a profiled cluster query also asks the shards.
pub struct Profiling {
    /// FT.PROFILE SEARCH (else AGGREGATE).
    pub search: bool,
    /// The FT.PROFILE arguments (after the command name).
    pub args: Vec<Vec<u8>>,
    /// The masters' addresses.
    pub shards: Vec<String>,
    pub auth: Credentials,
    pub budget: Duration,
    pub proto: Protocol,
}

/// FT.PROFILE's arguments as the FT.SEARCH or FT.AGGREGATE arguments they profile, and
/// whether it is SEARCH; None when they do not parse (the local command then answers the
/// error) or ask for a cursor (which FT.PROFILE refuses).
pub fn inner_args(args: &[&[u8]]) -> Option<(bool, Vec<Vec<u8>>)> {
    let search = match args.get(1)?.to_ascii_uppercase().as_slice() {
        b"SEARCH" => true,
        b"AGGREGATE" => false,
        _ => return None,
    };
    let mut at = 2;
    if args.get(at)?.eq_ignore_ascii_case(b"LIMITED") {
        at += 1;
    }
    if !args.get(at)?.eq_ignore_ascii_case(b"QUERY") || args.len() < at + 2 {
        return None;
    }
    if args.iter().any(|a| a.eq_ignore_ascii_case(b"WITHCURSOR")) {
        return None;
    }
    let inner = std::iter::once(args[0]).chain(args[at + 1..].iter().copied()).map(<[u8]>::to_vec).collect();
    Some((search, inner))
}

fn simple(s: &str) -> SearchReply {
    SearchReply::Simple(s.to_string())
}

/// A shard's FT.PROFILE reply's profile part: RESP2 its items, RESP3 its map.
fn shard_part(r: SearchReply, resp3: bool) -> Vec<SearchReply> {
    match r {
        SearchReply::Array(mut v) if !resp3 && v.len() == 2 => match v.pop() {
            Some(SearchReply::Array(items)) => items,
            other => other.into_iter().collect(),
        },
        SearchReply::Map(pairs) if resp3 => pairs
            .into_iter()
            .find(|(k, _)| matches!(k, SearchReply::Simple(s) if s == "profile"))
            .map(|(_, v)| vec![v])
            .unwrap_or_else(|| vec![simple("None")]),
        _ => vec![simple("None")],
    }
}

/// Runs `work` (the cluster query), then the shards' profiles, and builds the reply.
pub fn wrap(
    p: Profiling,
    work: impl FnOnce() -> block::Finish + Send + 'static,
) -> impl FnOnce() -> block::Finish + Send + 'static {
    move || {
        let started = Instant::now();
        let finish = work();
        let post = Instant::now();
        let resp3 = p.proto.is_resp3();
        let name: &[u8] = if resp3 { b"FT.PROFILE/RESP3" } else { b"FT.PROFILE" };
        let args: Vec<&[u8]> = p.args.iter().map(|a| a.as_slice()).collect();
        let cmd = command("FT._SHARD.LOCAL", &[name], &args);
        let requests = p.shards.iter().map(|a| (a.clone(), cmd.clone())).collect();
        let mut shards = Vec::new();
        for a in conn::scatter(requests, &p.auth, Instant::now() + p.budget) {
            match a {
                Ok(SearchReply::Bulk(b)) => match search::distributed::wire::decode(&b) {
                    Some(r) => shards.push(shard_part(r, resp3)),
                    None => return fail("ERR bad shard reply".into()),
                },
                Ok(SearchReply::Error(e)) => return fail(e),
                Ok(_) => return fail("ERR bad shard reply".into()),
                Err(Failure::Timeout) => return fail(search::error::TIMEOUT_ERROR.into()),
                Err(Failure::Unreachable(e)) => return fail(format!("ERR shard unreachable: {e}")),
            }
        }
        Box::new(move |ctx: &Context| {
            let results = finish(ctx);
            if matches!(results, Reply::Error(_)) {
                return results;
            }
            let total = SearchReply::Double(started.elapsed().as_secs_f64() * 1000.0);
            let post = SearchReply::Double(post.elapsed().as_secs_f64() * 1000.0);
            let named = |i: usize| simple(&format!("Shard #{}", i + 1));
            let (key, profile) = if p.search {
                let mut coordinator =
                    vec![(simple("Total Coordinator time"), total), (simple("Post Processing time"), post)];
                if resp3 {
                    let mut m: Vec<_> =
                        shards.into_iter().enumerate().map(|(i, s)| (named(i), seq(s))).collect();
                    m.push((simple("Coordinator"), SearchReply::Map(coordinator)));
                    ("shards", vec![SearchReply::Map(m)])
                } else {
                    let mut flat = Vec::new();
                    for (i, s) in shards.into_iter().enumerate() {
                        flat.push(named(i));
                        flat.extend(s);
                    }
                    flat.push(simple("Coordinator"));
                    flat.push(SearchReply::Array(coordinator.drain(..).flat_map(|(k, v)| [k, v]).collect()));
                    ("", vec![SearchReply::Array(flat)])
                }
            } else {
                let processors = (simple("Result processors profile"), SearchReply::Array(Vec::new()));
                let coordinator = vec![processors, (simple("Total Coordinator time"), total)];
                if resp3 {
                    let m = shards.into_iter().enumerate().map(|(i, s)| (named(i), seq(s))).collect();
                    ("Shards", vec![SearchReply::Map(m), SearchReply::Map(coordinator)])
                } else {
                    let mut flat = Vec::new();
                    for (i, s) in shards.into_iter().enumerate() {
                        flat.push(named(i));
                        flat.extend(s);
                    }
                    let coordinator = coordinator.into_iter().flat_map(|(k, v)| [k, v]).collect();
                    let all = vec![
                        simple("Shards"),
                        SearchReply::Array(flat),
                        simple("Coordinator"),
                        SearchReply::Array(coordinator),
                    ];
                    ("", vec![SearchReply::Array(all)])
                }
            };
            let proto = p.proto;
            match results {
                Reply::Map(mut m) if resp3 => {
                    let mut parts = profile.into_iter();
                    if let Some(first) = parts.next() {
                        m.push((Reply::Status(key.into()), convert(first, proto)));
                    }
                    if let Some(second) = parts.next() {
                        m.push((Reply::Status("Coordinator".into()), convert(second, proto)));
                    }
                    Reply::Map(m)
                }
                other => {
                    let mut out = vec![other];
                    out.extend(profile.into_iter().map(|r| convert(r, proto)));
                    Reply::Array(out)
                }
            }
        })
    }
}

/// One profile value (RESP3 shards give one map each).
fn seq(mut s: Vec<SearchReply>) -> SearchReply {
    if s.len() == 1 {
        s.pop().unwrap_or(SearchReply::Nil)
    } else {
        SearchReply::Array(s)
    }
}
