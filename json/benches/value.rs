//! What's measured: `Value::parse` and `Value::to_json` throughput on the
//! corpus files (pass-100, jsonsl-1, json-parser-0000, yahoo2, yelp), with
//! serde_json (parsing into `serde_json::Value` and writing it back) as the
//! reference point. Inputs are fixed files: no randomness.
//!
//! `parse/folio` parses a document no other value shares strings or key lists
//! with (so each iteration interns and frees them: the worst case);
//! `parse/folio-shared` keeps one copy alive, so lookups find them.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use json::Value;

const FILES: &[&str] = &[
    "pass-100.json", "pass-jsonsl-1.json", "pass-json-parser-0000.json", "pass-jsonsl-yahoo2.json",
    "pass-jsonsl-yelp.json",
];

fn read(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(path).expect("fixture")
}

fn parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("parse");
    for name in FILES {
        let text = read(name);
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function(format!("folio/{name}"), |b| b.iter(|| Value::parse(black_box(&text))));
        // Another copy alive: its long strings and key lists are already
        // interned (as when the same kind of document is set again).
        let alive = Value::parse(&text).expect("valid");
        g.bench_function(format!("folio-shared/{name}"), |b| b.iter(|| Value::parse(black_box(&text))));
        drop(alive);
        g.bench_function(format!("serde_json/{name}"), |b| {
            b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&text)))
        });
    }
    g.finish();
}

fn serialize(c: &mut Criterion) {
    let mut g = c.benchmark_group("serialize");
    for name in FILES {
        let text = read(name);
        let ours = Value::parse(&text).expect("valid");
        let theirs: serde_json::Value = serde_json::from_slice(&text).expect("valid");
        g.throughput(Throughput::Bytes(ours.to_json().len() as u64));
        g.bench_function(format!("folio/{name}"), |b| b.iter(|| black_box(&ours).to_json()));
        g.bench_function(format!("serde_json/{name}"), |b| {
            b.iter(|| serde_json::to_string(black_box(&theirs)))
        });
    }
    g.finish();
}

criterion_group!(benches, parse, serialize);
criterion_main!(benches);
