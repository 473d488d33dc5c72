//! Property test: random rows and random FILTER/GROUPBY/REDUCE/SORTBY/LIMIT
//! pipelines give what a naive in-memory computation, written separately
//! here, gives.

mod aggregate_support;

use std::collections::{BTreeSet, HashMap};

use aggregate_support::{n, s, table, MemSource};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use search::aggregate::value::format_number;
use search::aggregate::Value;

/// One generated document: g1 is a string, a list of strings or missing;
/// g2 a small integer or missing; v an integer or missing.
#[derive(Debug, Clone)]
struct Doc {
    g1: Option<Vec<String>>,
    g1_is_array: bool,
    g2: Option<i64>,
    v: Option<i64>,
}

fn doc() -> impl Strategy<Value = Doc> {
    let letter = prop::sample::select(vec!["a", "b", "c", "d"]).prop_map(str::to_string);
    (
        prop::option::weighted(0.85, prop::collection::vec(letter, 1..3)),
        any::<bool>(),
        prop::option::weighted(0.8, 0i64..4),
        prop::option::weighted(0.85, -50i64..50),
    )
        .prop_map(|(g1, arr, g2, v)| {
            let arr = arr || g1.as_ref().is_some_and(|l| l.len() > 1);
            Doc { g1, g1_is_array: arr, g2, v }
        })
}

#[derive(Debug, Clone, Copy)]
enum Red {
    Count,
    Sum,
    Min,
    Max,
    Avg,
    Distinct,
}

#[derive(Debug, Clone)]
struct Query {
    two_keys: bool,
    filter: Option<i64>,
    reducers: Vec<Red>,
    asc: (bool, bool),
    offset: u64,
    num: u64,
}

fn query() -> impl Strategy<Value = Query> {
    let red = prop::sample::select(vec![Red::Count, Red::Sum, Red::Min, Red::Max, Red::Avg, Red::Distinct]);
    (
        any::<bool>(),
        prop::option::of(-50i64..50),
        prop::collection::vec(red, 1..4),
        (any::<bool>(), any::<bool>()),
        0u64..6,
        1u64..12,
    )
        .prop_map(|(two_keys, filter, reducers, asc, offset, num)| Query {
            two_keys,
            filter,
            reducers,
            asc,
            offset,
            num,
        })
}

/// A group key part: None sorts before any value (it is an explicit NULL).
type Key = (Option<String>, Option<i64>);

fn oracle(docs: &[Doc], q: &Query) -> Vec<Vec<(String, String)>> {
    let rows: Vec<&Doc> = docs
        .iter()
        .filter(|d| match q.filter {
            None => true,
            Some(t) => d.v.is_some_and(|v| v > t),
        })
        .collect();
    // group -> rows (a row joins one group per element of its g1 list)
    let mut order: Vec<Key> = Vec::new();
    let mut groups: HashMap<Key, Vec<&Doc>> = HashMap::new();
    for d in &rows {
        let firsts: Vec<Option<String>> = match &d.g1 {
            None => vec![None],
            Some(list) => list.iter().cloned().map(Some).collect(),
        };
        for f in firsts {
            let key = (f, if q.two_keys { d.g2 } else { None });
            let entry = groups.entry(key.clone()).or_insert_with(|| {
                order.push(key.clone());
                Vec::new()
            });
            entry.push(d);
        }
    }
    let mut keys = order;
    keys.sort_by(|a, b| {
        let o1 = if q.asc.0 { a.0.cmp(&b.0) } else { b.0.cmp(&a.0) };
        let o2 = if q.asc.1 { a.1.cmp(&b.1) } else { b.1.cmp(&a.1) };
        if q.two_keys {
            o1.then(o2)
        } else {
            o1
        }
    });
    let limit = (q.offset + q.num) as usize;
    keys.truncate(limit);
    keys.into_iter()
        .skip(q.offset as usize)
        .map(|k| {
            let members = &groups[&k];
            let mut out = vec![("g1".to_string(), k.0.clone().unwrap_or_else(|| "nil".into()))];
            if q.two_keys {
                out.push(("g2".to_string(), k.1.map_or("nil".into(), |x| x.to_string())));
            }
            let vals: Vec<i64> = members.iter().filter_map(|d| d.v).collect();
            for (i, r) in q.reducers.iter().enumerate() {
                let shown = match r {
                    Red::Count => members.len().to_string(),
                    Red::Sum => vals.iter().sum::<i64>().to_string(),
                    Red::Min => vals.iter().min().copied().unwrap_or(0).to_string(),
                    Red::Max => vals.iter().max().copied().unwrap_or(0).to_string(),
                    Red::Avg => format_number(vals.iter().sum::<i64>() as f64 / members.len() as f64),
                    Red::Distinct => vals.iter().collect::<BTreeSet<_>>().len().to_string(),
                };
                out.push((format!("r{i}"), shown));
            }
            out
        })
        .collect()
}

fn source(docs: &[Doc]) -> MemSource {
    let mut src = MemSource::new(&[("g1", true), ("g2", true), ("v", true)]);
    for (i, d) in docs.iter().enumerate() {
        let mut fields: Vec<(&str, Value)> = Vec::new();
        if let Some(list) = &d.g1 {
            let v =
                if d.g1_is_array { Value::array(list.iter().map(|x| s(x)).collect()) } else { s(&list[0]) };
            fields.push(("g1", v));
        }
        if let Some(g2) = d.g2 {
            fields.push(("g2", n(g2 as f64)));
        }
        if let Some(v) = d.v {
            fields.push(("v", n(v as f64)));
        }
        src.add(&format!("doc{i}"), &fields);
    }
    src
}

fn args(q: &Query) -> Vec<String> {
    let mut a: Vec<String> = Vec::new();
    let mut push = |xs: &[&str]| a.extend(xs.iter().map(|x| x.to_string()));
    if let Some(t) = q.filter {
        push(&["FILTER", &format!("exists(@v) && @v > {t}")]);
    }
    if q.two_keys {
        push(&["GROUPBY", "2", "@g1", "@g2"]);
    } else {
        push(&["GROUPBY", "1", "@g1"]);
    }
    for (i, r) in q.reducers.iter().enumerate() {
        let alias = format!("r{i}");
        match r {
            Red::Count => push(&["REDUCE", "COUNT", "0", "AS", &alias]),
            Red::Sum => push(&["REDUCE", "SUM", "1", "@v", "AS", &alias]),
            Red::Min => push(&["REDUCE", "MIN", "1", "@v", "AS", &alias]),
            Red::Max => push(&["REDUCE", "MAX", "1", "@v", "AS", &alias]),
            Red::Avg => push(&["REDUCE", "AVG", "1", "@v", "AS", &alias]),
            Red::Distinct => push(&["REDUCE", "COUNT_DISTINCT", "1", "@v", "AS", &alias]),
        }
    }
    let dir = |asc: bool| if asc { "ASC" } else { "DESC" };
    if q.two_keys {
        push(&["SORTBY", "4", "@g1", dir(q.asc.0), "@g2", dir(q.asc.1)]);
    } else {
        push(&["SORTBY", "2", "@g1", dir(q.asc.0)]);
    }
    push(&["LIMIT", &q.offset.to_string(), &q.num.to_string()]);
    a
}

proptest! {
    #![proptest_config(Config { cases: 256, rng_seed: RngSeed::Fixed(0x5eed_a66e), ..Config::default() })]

    #[test]
    fn pipeline_matches_naive_oracle(docs in prop::collection::vec(doc(), 0..60), q in query()) {
        let src = source(&docs);
        let a = args(&q);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        let out = src.run(&refs).unwrap();
        prop_assert_eq!(table(&out), oracle(&docs, &q), "args {:?}", a);
    }
}

/// Expression text built from the language's own pieces (plus noise).
fn expr_text() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "1", "-2.5", "1e3", "inf", "'a,b'", "\"x\\\"y\"", "@v", "@g1", "@g2", "@nope", "NULL", "(", ")", ",",
        "+", "-", "*", "/", "%", "^", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "!", "upper(", "substr(",
        "split(", "format(", "'%s'", "timefmt(", "parsetime(", "geodistance(", "case(", "exists(",
        "to_number(", "contains(", "log(", "day(", "matched_terms(", "#", " ", "é",
    ]);
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

/// FT.AGGREGATE arguments from the command's vocabulary.
fn agg_args() -> impl Strategy<Value = Vec<String>> {
    let word = prop::sample::select(vec![
        "LOAD", "GROUPBY", "REDUCE", "COUNT", "SUM", "AVG", "MIN", "MAX", "TOLIST", "QUANTILE",
        "FIRST_VALUE", "RANDOM_SAMPLE", "COUNT_DISTINCT", "COUNT_DISTINCTISH", "STDDEV", "BY", "AS",
        "SORTBY", "ASC", "DESC", "MAX", "APPLY", "FILTER", "LIMIT", "WITHCURSOR", "MAXIDLE", "TIMEOUT",
        "PARAMS", "DIALECT", "ADDSCORES", "VERBATIM", "*", "0", "1", "2", "3", "-1", "0.5",
        "99999999999999999999", "@g1", "@g2", "@v", "@nope", "g1", "@__key", "@v * 2", "@g1 == 'a'",
        "upper(@g1)", "x",
    ]);
    prop::collection::vec(word.prop_map(str::to_string), 0..16)
}

proptest! {
    #![proptest_config(Config { cases: 512, rng_seed: RngSeed::Fixed(0x0bad_5eed), ..Config::default() })]

    #[test]
    fn expressions_never_panic(text in expr_text(), docs in prop::collection::vec(doc(), 1..4)) {
        let src = source(&docs);
        // Through APPLY and FILTER (parse, bind, evaluate on every row).
        let _ = src.run(&["APPLY", &text, "AS", "out"]);
        let _ = src.run(&["FILTER", &text]);
    }

    #[test]
    fn aggregate_arguments_never_panic(args in agg_args(), docs in prop::collection::vec(doc(), 0..6)) {
        let src = source(&docs);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let _ = src.run(&refs);
    }
}
