//! What's measured: FT.AGGREGATE's pipeline (plan + execute, no index) for
//! `GROUPBY 1 @g REDUCE COUNT 0 REDUCE AVG 1 @v` over 100,000 in-memory rows
//! with 100 distinct group values, and the same with `APPLY` + `SORTBY`.
//! Rows come from a seeded generator so runs are comparable.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use search::aggregate::rng::SplitMix64;
use search::aggregate::{AggregateRequest, DocHit, DocRef, FieldInfo, FieldLoader, LoadRequest, Plan, Value};

const ROWS: usize = 100_000;
const GROUPS: u64 = 100;

/// Documents `d<i>` with a group string `g` and a number `v`, both SORTABLE.
struct Rows {
    g: Vec<Value>,
    v: Vec<Value>,
}

impl Rows {
    fn new() -> Self {
        let mut rng = SplitMix64::new(7);
        let names: Vec<Value> = (0..GROUPS).map(|i| Value::str(&format!("group{i}"))).collect();
        let mut g = Vec::with_capacity(ROWS);
        let mut v = Vec::with_capacity(ROWS);
        for _ in 0..ROWS {
            g.push(names[rng.below(GROUPS) as usize].clone());
            v.push(Value::Number(rng.below(10_000) as f64 / 10.0));
        }
        Rows { g, v }
    }
}

impl FieldLoader for Rows {
    fn field(&self, name: &str) -> Option<FieldInfo> {
        matches!(name, "g" | "v").then_some(FieldInfo { sortable: true, list_separator: None })
    }
    fn load(&self, doc: DocRef<'_>, what: LoadRequest<'_>) -> Option<Value> {
        let i = doc.id as usize;
        match what {
            LoadRequest::SortValue("g") | LoadRequest::Implicit("g") => self.g.get(i).cloned(),
            LoadRequest::SortValue("v") | LoadRequest::Implicit("v") => self.v.get(i).cloned(),
            _ => None,
        }
    }
    fn load_all(&self, _doc: DocRef<'_>) -> Vec<(String, Value)> {
        Vec::new()
    }
}

fn run(rows: &Rows, keys: &[Arc<[u8]>], args: &[&str]) -> usize {
    let req = AggregateRequest::parse(args).expect("valid request");
    let plan = Plan::new(&req, rows, 1).expect("valid plan");
    let hits = keys.iter().enumerate().map(|(i, k)| DocHit {
        key: k.clone(),
        id: i as u32,
        score: 1.0,
        matched_terms: None,
    });
    plan.execute(hits, ROWS as u64, rows).expect("runs").rows.len()
}

fn bench(c: &mut Criterion) {
    let rows = Rows::new();
    let keys: Vec<Arc<[u8]>> = (0..ROWS).map(|i| Arc::from(format!("d{i}").as_bytes())).collect();
    let group =
        ["GROUPBY", "1", "@g", "REDUCE", "COUNT", "0", "AS", "n", "REDUCE", "AVG", "1", "@v", "AS", "avg"];
    c.bench_function("aggregate_groupby_count_avg_100k", |b| b.iter(|| black_box(run(&rows, &keys, &group))));
    let sort = ["APPLY", "@v * 2", "AS", "w", "SORTBY", "2", "@w", "DESC", "MAX", "10"];
    c.bench_function("aggregate_apply_sortby_100k", |b| b.iter(|| black_box(run(&rows, &keys, &sort))));
}

criterion_group!(benches, bench);
criterion_main!(benches);
