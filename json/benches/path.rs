//! What's measured: the path engine on a 1,000-item document (seeded, built in code):
//! compiling typical paths, selecting with a static path (fast walk), with a wildcard chain,
//! with recursive descent, with a filter and with a regex filter, and two ops (NUMINCRBY on
//! every item, SET of one member) applied to a fresh clone each iteration.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use json::ops::{num, set};
use json::path::JsonPath;
use json::Value;

const ITEMS: usize = 1_000;

/// `{"store":{"items":[{"id","name","tags","price","nested":{"x":{"y"}}}…]},"a":{"b":[1,2,3]}}`
/// with prices from a fixed linear congruential sequence.
fn document() -> Value {
    let mut seed: u64 = 7;
    let mut items = Vec::with_capacity(ITEMS);
    for i in 0..ITEMS {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let price = (seed >> 33) % 5_000;
        items.push(format!(
            r#"{{"id":{i},"name":"n{i}","tags":["a","b"],"price":{}.{},"nested":{{"x":{{"y":{i}}}}}}}"#,
            price / 100,
            price % 100
        ));
    }
    let text = format!(r#"{{"store":{{"items":[{}]}},"a":{{"b":[1,2,3]}}}}"#, items.join(","));
    Value::parse(text.as_bytes()).expect("document")
}

fn bench(c: &mut Criterion) {
    let doc = document();
    let paths = [
        ("static", "$.store.items[500].name"),
        ("legacy_static", ".store.items[500].name"),
        ("wildcards", "$.store.items[*].nested.x.y"),
        ("descent", "$..y"),
        ("filter", "$.store.items[?(@.price>20 && @.tags[0]=='a')].id"),
        ("regex", "$.store.items[?(@.name=~'^n1')].id"),
    ];
    for (name, text) in paths {
        c.bench_function(&format!("compile/{name}"), |b| b.iter(|| JsonPath::parse(black_box(text))));
        let path = JsonPath::parse(text).expect("path");
        c.bench_function(&format!("select/{name}"), |b| b.iter(|| path.select(black_box(&doc)).len()));
    }
    let all_prices = JsonPath::parse("$.store.items[*].price").expect("path");
    c.bench_function("op/numincrby_all_items", |b| {
        b.iter_batched(
            || doc.clone(),
            |mut d| num::num_incr_by(&mut d, &all_prices, "1").map(|o| o.results.len()),
            BatchSize::LargeInput,
        )
    });
    let one = JsonPath::parse("$.store.items[10].name").expect("path");
    c.bench_function("op/set_one_member", |b| {
        b.iter_batched(
            || doc.clone(),
            |mut d| set::set(&mut d, &one, Value::from("renamed"), set::SetCondition::Always),
            BatchSize::LargeInput,
        )
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
