//! `FT.PROFILE idx SEARCH|AGGREGATE [LIMITED] QUERY q [args…]`: runs FT.SEARCH or
//! FT.AGGREGATE and adds how it ran, in RediSearch 2.10's shape: RESP2
//! `[result, [[Total profile time, t], [Parsing time, t], [Pipeline creation time, t],
//! [Warning …], [Iterators profile, node], [Result processors profile, step…]]]`, RESP3 the
//! result's map with a `profile` map. The iterator tree is folio's query tree
//! ([`crate::query::profile`]); the result processors are folio's steps under RediSearch's
//! names. Times are measured, in whole milliseconds as RediSearch prints them.

use std::time::Duration;

use crate::catalog::Catalog;
use crate::commands::legacy::arity_error;
use crate::commands::search::ft_search;
use crate::commands::text;
use crate::config::Config;
use crate::document::DocumentSource;
use crate::error::{Error, Result, TIMEOUT_ERROR as TIMEOUT};
use crate::query::profile::ProfileNode;
use crate::query::trace::Trace;
use crate::reply::{Protocol, Reply};

/// `FT.PROFILE idx SEARCH|AGGREGATE [LIMITED] QUERY q [args…]`.
pub(crate) fn ft_profile(
    cat: &Catalog,
    args: &[&[u8]],
    docs: &dyn DocumentSource,
    config: &Config,
    proto: Protocol,
) -> Result<Reply> {
    if args.len() < 4 {
        return Err(arity_error("FT.PROFILE"));
    }
    let search = match text(args[1]).to_ascii_uppercase().as_str() {
        "SEARCH" => true,
        "AGGREGATE" => false,
        _ => return Err(Error::new("No `SEARCH` or `AGGREGATE` provided")),
    };
    let mut at = 2;
    let limited = args[at].eq_ignore_ascii_case(b"LIMITED");
    if limited {
        at += 1;
    }
    if !args.get(at).is_some_and(|a| a.eq_ignore_ascii_case(b"QUERY")) {
        return Err(Error::new("The QUERY keyword is expected"));
    }
    let rest = &args[at + 1..];
    if rest.is_empty() {
        return Err(Error::new("No query string provided"));
    }
    let inner: Vec<&[u8]> = std::iter::once(args[0]).chain(rest.iter().copied()).collect();
    let mut trace = Trace::new();
    let result = if search {
        ft_search(cat, &inner, docs, config, proto, Some(&mut trace))?
    } else {
        crate::aggregate::command::ft_aggregate(cat, &inner, docs, config, proto, Some(&mut trace))?
    };
    let timed_out = trace.timed_out;
    let total = trace.started.elapsed();
    let resp3 = proto == Protocol::Resp3;
    // `_PRINT_PROFILE_CLOCK false` leaves every time out (RESP2 keeps the times' names).
    let clock = config.print_profile_clock();
    let pairs: Vec<(&str, Reply)> = vec![
        ("Total profile time", ms(total)),
        ("Parsing time", ms(trace.parse)),
        ("Pipeline creation time", ms(trace.build)),
    ];
    // RediSearch's tree (numeric filters as the ranges they read), then its read counts
    // replayed over what each node matched.
    let mut root = trace.iterators.take();
    if let (Some(root), Some(idx)) = (root.as_mut(), cat.resolve(&text(args[0])).and_then(|n| cat.index(n))) {
        super::profile_numeric::expand(root, idx);
        let prioritize =
            config.stored.get("_PRIORITIZE_INTERSECT_UNION_CHILDREN") == Some(&Some("true".into()));
        crate::query::replay::replay(root, &idx.docs, prioritize);
    }
    let iterators = root.as_ref().map(|n| node(n, limited, resp3, clock, config.max_expansions));
    let steps: Vec<Reply> = trace
        .steps
        .iter()
        .map(|(name, t, n)| {
            let mut pairs = vec![("Type", Reply::Simple(name.clone()))];
            if clock {
                pairs.push(("Time", ms(*t)));
            }
            pairs.push(("Counter", count(*n)));
            entries(pairs, resp3)
        })
        .collect();
    if resp3 {
        let pairs = pairs.into_iter().filter(|_| clock);
        let mut profile: Vec<(Reply, Reply)> = pairs.map(|(k, v)| (simple(k), v)).collect();
        profile.push((simple("Warning"), simple(if timed_out { TIMEOUT } else { "None" })));
        if let Some(it) = iterators {
            profile.push((simple("Iterators profile"), Reply::Array(vec![it])));
        }
        profile.push((simple("Result processors profile"), Reply::Array(steps)));
        let mut map = match result {
            Reply::Map(m) => m,
            other => vec![(simple("results"), other)],
        };
        map.push((simple("profile"), Reply::Map(profile)));
        return Ok(Reply::Map(map));
    }
    let mut profile: Vec<Reply> = pairs
        .into_iter()
        .map(|(k, v)| Reply::Array(if clock { vec![simple(k), v] } else { vec![simple(k)] }))
        .collect();
    let mut warning = vec![simple("Warning")];
    if timed_out {
        warning.push(simple(TIMEOUT));
    }
    profile.push(Reply::Array(warning));
    if let Some(it) = iterators {
        profile.push(Reply::Array(vec![simple("Iterators profile"), it]));
    }
    profile.push(Reply::Array(std::iter::once(simple("Result processors profile")).chain(steps).collect()));
    Ok(Reply::Array(vec![result, Reply::Array(profile)]))
}

fn simple(s: &str) -> Reply {
    Reply::Simple(s.to_string())
}

fn count(n: u64) -> Reply {
    Reply::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

/// A time in whole milliseconds, as RediSearch divides its clock ticks.
fn ms(d: Duration) -> Reply {
    Reply::Double(d.as_millis() as f64)
}

/// A map: RESP3 map, RESP2 flat array.
fn entries(pairs: Vec<(&str, Reply)>, resp3: bool) -> Reply {
    if resp3 {
        Reply::Map(pairs.into_iter().map(|(k, v)| (simple(k), v)).collect())
    } else {
        Reply::Array(pairs.into_iter().flat_map(|(k, v)| [simple(k), v]).collect())
    }
}

/// One iterator: `Type`, `Term` or `Query type`, `Time` (with `clock`), `Counter`, `Size`
/// (readers), a union's `Warning` when it has MAXPREFIXEXPANSIONS children, then its children
/// (RESP2: one after the other; RESP3: an array). Under LIMITED a union of expansions shows
/// how many children it has instead of them.
fn node(n: &ProfileNode, limited: bool, resp3: bool, clock: bool, max_expansions: usize) -> Reply {
    // A term missing from the index inside an intersection: no iterator, a nil.
    if n.kind == "NULL" {
        return Reply::Nil;
    }
    let mut pairs: Vec<(&str, Reply)> = vec![("Type", simple(n.kind))];
    if let Some(label) = &n.label {
        pairs.push((if n.kind == "UNION" { "Query type" } else { "Term" }, Reply::Simple(label.clone())));
    }
    if clock {
        pairs.push(("Time", ms(n.time)));
    }
    pairs.push(("Counter", count(n.counter)));
    if n.is_reader() {
        pairs.push(("Size", count(n.size)));
    }
    // RediSearch marks every union with as many children as MAXPREFIXEXPANSIONS allows.
    if n.kind == "UNION" && n.children.len() == max_expansions {
        pairs.push(("Warning", simple("Max prefix expansion reached")));
    }
    let mut out = match entries(pairs, resp3) {
        Reply::Array(items) => items,
        Reply::Map(m) => m.into_iter().flat_map(|(k, v)| [k, v]).collect(),
        other => vec![other],
    };
    let children: Vec<Reply> =
        n.children.iter().map(|c| node(c, limited, resp3, clock, max_expansions)).collect();
    if n.single_child() {
        if let Some(c) = children.into_iter().next() {
            out.extend([simple("Child iterator"), c]);
        }
    } else if n.kind == "UNION" || n.kind == "INTERSECT" {
        out.push(simple("Child iterators"));
        if limited && n.kind == "UNION" && n.label.as_deref() != Some("UNION") {
            out.push(Reply::Simple(format!("The number of iterators in the union is {}", n.children.len())));
        } else if resp3 {
            out.push(Reply::Array(children));
        } else {
            out.extend(children);
        }
    }
    if resp3 {
        let mut it = out.into_iter();
        let mut map = Vec::new();
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            map.push((k, v));
        }
        Reply::Map(map)
    } else {
        Reply::Array(out)
    }
}
