//! A pipeline split at its first GROUPBY over shards (`Plan::execute_partial` on each part
//! of the documents, `Plan::execute_merged` on the node) gives what the whole pipeline gives
//! over all documents, for every reducer: random documents dealt to 1-4 shards, random
//! pipelines. Keys sort in document order, so even FIRST_VALUE's ties agree (a single
//! server keeps the earlier row, a split one the smallest key); TOLIST's order and
//! RANDOM_SAMPLE's draws are the only things that may differ (compared as sets, and a full
//! sample by its length).

mod aggregate_support;
mod common;

use aggregate_support::{n, s, show, MemSource};
use common::Rng;
use search::aggregate::{AggError, AggOutput, AggregateRequest, DocHit, Plan, Value};

fn source(rng: &mut Rng, docs: usize) -> MemSource {
    let mut src = MemSource::new(&[("g", false), ("n", true), ("x", false), ("t", false)]);
    let words = ["ant", "bee", "cat", "dog", "eel", "fox"];
    for i in 0..docs {
        let mut fields: Vec<(&str, Value)> = Vec::new();
        match rng.below(8) {
            0 => {}
            1 => fields.push(("g", Value::array(vec![s(rng.pick(&words[..4])), s(rng.pick(&words[..4]))]))),
            _ => fields.push(("g", s(rng.pick(&words[..4])))),
        }
        if rng.below(10) > 0 {
            fields.push(("n", n(rng.below(12) as f64 - 3.0)));
        }
        if rng.below(10) > 0 {
            fields.push(("x", n((rng.below(100_000) as f64) / 100.0 - 300.0)));
        }
        fields.push(("t", s(rng.pick(&words))));
        src.add(&format!("d{i:05}"), &fields);
    }
    src
}

const REDUCERS: &[&str] = &[
    "COUNT 0", "COUNT_DISTINCT 1 @n", "COUNT_DISTINCT 1 @t", "COUNT_DISTINCTISH 1 @x",
    "COUNT_DISTINCTISH 1 @t", "SUM 1 @x", "MIN 1 @n", "MAX 1 @x", "AVG 1 @x", "STDDEV 1 @x", "STDDEV 1 @n",
    "QUANTILE 2 @x 0.3", "QUANTILE 2 @n 1", "TOLIST 1 @t", "TOLIST 1 @g", "FIRST_VALUE 1 @t",
    "FIRST_VALUE 3 @t BY @x", "FIRST_VALUE 4 @x BY @n DESC", "FIRST_VALUE 3 @t BY @g",
    "RANDOM_SAMPLE 2 @t 3", "RANDOM_SAMPLE 2 @x 1000",
];

/// A random splittable pipeline; the aliases of sample and list reducers.
fn pipeline(rng: &mut Rng) -> (Vec<String>, Vec<String>) {
    let mut a: Vec<String> = Vec::new();
    let push = |a: &mut Vec<String>, s: &str| a.extend(s.split(' ').map(String::from));
    if rng.below(3) == 0 {
        push(&mut a, "LOAD 1 @x APPLY @x*2 AS x2");
    }
    if rng.below(4) == 0 {
        a.push("FILTER".into());
        // Without exists(), a document without n fails the query (the error cases).
        let guard = if rng.below(3) == 0 { "" } else { "exists(@n) && " };
        a.push(format!("{guard}@n >= {}", rng.below(6)));
    }
    let keys = ["GROUPBY 0", "GROUPBY 1 @g", "GROUPBY 1 @n", "GROUPBY 2 @g @n", "GROUPBY 1 @t"];
    let group = rng.pick(&keys);
    push(&mut a, group);
    let mut unordered = Vec::new();
    for i in 0..1 + rng.below(4) {
        let r = REDUCERS[rng.below(REDUCERS.len() as u64) as usize];
        let alias = if r.starts_with("RANDOM_SAMPLE") { format!("sample{i}") } else { format!("r{i}") };
        push(&mut a, &format!("REDUCE {r} AS {alias}"));
        if r.starts_with("TOLIST") || r.starts_with("RANDOM_SAMPLE") {
            unordered.push(alias);
        }
    }
    let first = if unordered.iter().any(|u| u == "sample0") { "sample0" } else { "r0" };
    match rng.below(5) {
        // Ties broken by the group keys: groups come in another order when split.
        0 if unordered.is_empty() => {
            let keys: Vec<&str> = group.split(' ').skip(2).collect();
            let mut by = vec!["@r0", "DESC"];
            keys.iter().for_each(|k| by.extend([*k, "ASC"]));
            push(&mut a, &format!("SORTBY {} {} LIMIT 0 3", by.len(), by.join(" ")));
        }
        1 => push(&mut a, &format!("APPLY @{first} AS again GROUPBY 0 REDUCE COUNT 0 AS groups")),
        2 => push(&mut a, &format!("FILTER exists(@{first})")),
        _ => {}
    }
    (a, unordered)
}

/// Runs `args` split over `shards` parts of the documents.
fn split(src: &MemSource, args: &[&str], shards: u64, rng: &mut Rng) -> Result<AggOutput, AggError> {
    let req = AggregateRequest::parse(args)?;
    let mut parts: Vec<Vec<DocHit>> = vec![Vec::new(); shards as usize];
    let hits = src.hits();
    let total = hits.len() as u64;
    for h in hits {
        parts[rng.below(shards) as usize].push(h);
    }
    let mut groups = Vec::new();
    for p in parts {
        let plan = Plan::new(&req, src, 42)?;
        assert!(plan.split_point().is_some(), "{args:?} does not split");
        groups.extend(plan.execute_partial(p.into_iter(), src)?);
    }
    Plan::new(&req, src, 42)?.execute_merged(groups.iter(), total, src)
}

/// Rows as sorted printed cells; `unordered` columns' arrays sorted, a full sample of
/// `limit` values by its length.
fn rows(out: &AggOutput, unordered: &[String]) -> Vec<String> {
    let mut rows: Vec<String> = out
        .rows
        .iter()
        .map(|r| {
            let cells: Vec<String> = r
                .values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let name = out.names.get(i)?;
                    let v = v.as_ref()?;
                    let text = match v {
                        Value::Array(items) if unordered.contains(name) => {
                            let mut e: Vec<String> = items.iter().map(show).collect();
                            e.sort();
                            if name.starts_with("sample") && (e.len() == 3 || e.len() == 1000) {
                                format!("a full sample of {}", e.len())
                            } else {
                                e.join(",")
                            }
                        }
                        _ => show(v),
                    };
                    Some(format!("{name}={text}"))
                })
                .collect();
            cells.join(" ")
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn split_pipelines_equal_the_whole_pipeline() {
    let mut rng = Rng(0x5911_7a11);
    let mut compared = 0;
    for round in 0..400 {
        let src = source(&mut rng, [0, 1, 5, 60, 400, 3000][round % 6]);
        let (args, unordered) = pipeline(&mut rng);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let whole = src.run(&args);
        let shards = 1 + rng.below(4);
        let parts = split(&src, &args, shards, &mut rng);
        match (&whole, &parts) {
            (Ok(w), Ok(p)) => {
                assert_eq!(w.total, p.total, "{args:?} over {shards} shards: total");
                assert_eq!(rows(w, &unordered), rows(p, &unordered), "{args:?} over {shards} shards");
                compared += 1;
            }
            // Which document's evaluation error comes first depends on the order rows meet.
            (Err(w), Err(p)) if shards == 1 => assert_eq!(w.message, p.message, "{args:?}"),
            (Err(_), Err(_)) => {}
            _ => panic!("{args:?} over {shards} shards: whole {whole:?} vs split {parts:?}"),
        }
    }
    assert!(compared > 300, "only {compared} pipelines ran");
}

#[test]
fn a_sample_split_over_shards_is_uniform() {
    // 3 shards of 10, 20 and 70 values; RANDOM_SAMPLE 10 over 2,000 queries: each value is
    // drawn about 10% of the time whichever shard holds it.
    let mut src = MemSource::new(&[("v", false)]);
    for i in 0..100 {
        src.add(&format!("d{i:03}"), &[("v", n(i as f64))]);
    }
    let mut drawn = [0u32; 100];
    for q in 0..2000 {
        let req =
            AggregateRequest::parse(&["GROUPBY", "0", "REDUCE", "RANDOM_SAMPLE", "2", "@v", "10", "AS", "s"])
                .unwrap();
        let hits = src.hits();
        let mut groups = Vec::new();
        for range in [0..10, 10..30, 30..100] {
            let plan = Plan::new(&req, &src, q).unwrap();
            groups.extend(plan.execute_partial(hits[range].iter().cloned(), &src).unwrap());
        }
        let out = Plan::new(&req, &src, q).unwrap().execute_merged(groups.iter(), 100, &src).unwrap();
        let Some(Value::Array(sample)) = out.rows[0].get(0) else { panic!("{:?}", out.rows) };
        assert_eq!(sample.len(), 10);
        for v in sample.iter() {
            if let Value::Number(x) = v {
                drawn[*x as usize] += 1;
            }
        }
    }
    let (lo, hi) = (drawn.iter().min().unwrap(), drawn.iter().max().unwrap());
    assert!(*lo > 130 && *hi < 280, "draws per value from {lo} to {hi} (200 expected)");
}
