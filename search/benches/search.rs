//! What's measured: ingest rate, index memory per document (FT.INFO figures), and
//! FT.SEARCH throughput (term, phrase, prefix, tag, numeric, combined) on generated
//! ~500-byte hash documents (seeded RNG; `SEARCH_BENCH_DOCS` overrides the count,
//! default 100000); then 200k updates of one document followed by `*` queries.
//! Times are this thread's CPU time (`/proc/thread-self/schedstat`), not wall time, so
//! figures stay meaningful on a machine shared with other jobs.

use std::collections::HashMap;
use std::hint::black_box;

use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use search::{Catalog, Config, DocumentSource, FieldValue, KeyType, Protocol, Reply};

/// `*` queries timed before and after the churn (schedstat advances at scheduler ticks,
/// so short phases need many runs).
const STAR_RUNS: u32 = 20_000;

/// Nanoseconds this thread has run on a CPU (updated at scheduler ticks).
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

/// CPU time of the benchmarking thread.
struct CpuTime;

static WALL: WallTime = WallTime;

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = Duration;
    fn start(&self) -> u64 {
        cpu_ns()
    }
    fn end(&self, i: u64) -> Duration {
        Duration::from_nanos(cpu_ns().saturating_sub(i))
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}

/// CPU seconds elapsed since `start` (from [`cpu_ns`]).
fn cpu_secs_since(start: u64) -> f64 {
    cpu_ns().saturating_sub(start) as f64 / 1e9
}

struct Src(HashMap<Vec<u8>, Vec<(String, String)>>);

impl DocumentSource for Src {
    fn key_type(&self, key: &[u8]) -> Option<KeyType> {
        self.0.get(key).map(|_| KeyType::Hash)
    }
    fn values(&self, key: &[u8], source: &str) -> Result<Vec<FieldValue>, String> {
        Ok(self
            .0
            .get(key)
            .into_iter()
            .flatten()
            .filter(|(k, _)| k == source)
            .map(|(_, v)| FieldValue::String(v.clone()))
            .collect())
    }
    fn json_at(&self, _: &[u8], _: &str) -> Option<Vec<String>> {
        None
    }
    fn whole(&self, key: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        self.0
            .get(key)
            .map(|h| h.iter().map(|(k, v)| (k.clone().into_bytes(), v.clone().into_bytes())).collect())
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Roughly Zipf-distributed index below n.
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

fn vocab() -> Vec<String> {
    // 20,736 distinct words; `zipf` makes a few very common.
    let syll = ["ka", "lo", "mi", "ne", "ro", "su", "ta", "vi", "do", "pe", "ga", "fu"];
    let mut v = Vec::new();
    for a in syll {
        for b in syll {
            for c in syll {
                for d in ["", "n", "ra", "to", "mel", "sin", "ing", "ed", "s", "er", "al", "ly"] {
                    v.push(format!("{a}{b}{c}{d}"));
                }
            }
        }
    }
    v
}

fn gen_doc(r: &mut Rng, vocab: &[String]) -> Vec<(String, String)> {
    let words = |r: &mut Rng, n: usize| {
        (0..n).map(|_| vocab[r.zipf(vocab.len())].as_str()).collect::<Vec<_>>().join(" ")
    };
    let tags = ["red", "green", "blue", "black", "white", "gold", "silver", "pink"];
    vec![
        ("title".into(), words(r, 6)),
        ("body".into(), words(r, 70)),
        ("tags".into(), format!("{},{}", tags[(r.next() % 8) as usize], tags[(r.next() % 8) as usize])),
        ("price".into(), format!("{}", r.next() % 10_000)),
    ]
}

fn info_num(r: &Reply, name: &str) -> f64 {
    if let Reply::Map(p) = r {
        for (k, v) in p {
            if *k == Reply::Simple(name.into()) {
                match v {
                    Reply::Double(d) => return *d,
                    Reply::Int(i) => return *i as f64,
                    _ => {}
                }
            }
        }
    }
    f64::NAN
}

fn build(n: usize) -> (Catalog, Src, Config) {
    let vocab = vocab();
    let mut r = Rng(0x9E3779B97F4A7C15);
    let mut src = Src(HashMap::new());
    let mut cat = Catalog::new();
    let mut config = Config::default();
    let create: Vec<&[u8]> = [
        "idx", "PREFIX", "1", "d:", "SCHEMA", "title", "TEXT", "WEIGHT", "2", "body", "TEXT", "tags", "TAG",
        "price", "NUMERIC", "SORTABLE",
    ]
    .iter()
    .map(|s| s.as_bytes())
    .collect();
    cat.execute("FT.CREATE", &create, &src, &mut config, Protocol::Resp2);
    cat.scan_done();
    type Fields = Vec<(String, String)>;
    let docs: Vec<(Vec<u8>, Fields)> =
        (0..n).map(|i| (format!("d:{i}").into_bytes(), gen_doc(&mut r, &vocab))).collect();
    let bytes: usize =
        docs.iter().map(|(_, d)| d.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>()).sum();
    let started = cpu_ns();
    for (k, d) in docs {
        src.0.insert(k.clone(), d);
        cat.on_key_changed(&k, &src);
    }
    let secs = cpu_secs_since(started);
    let info = cat.execute("FT.INFO", &[b"idx"], &src, &mut config, Protocol::Resp2);
    let mem = info_num(&info, "total_index_memory_sz_mb") * 1024.0 * 1024.0;
    println!(
        "ingest: {n} docs ({:.0} bytes avg) in {secs:.2}s = {:.0} docs/s; index memory {:.1} MB = {:.0} bytes/doc; terms {}",
        bytes as f64 / n as f64,
        n as f64 / secs,
        mem / 1048576.0,
        mem / n as f64,
        info_num(&info, "num_terms")
    );
    (cat, src, config)
}

fn benches(c: &mut Criterion<CpuTime>) {
    let n: usize = std::env::var("SEARCH_BENCH_DOCS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let (mut cat, src, mut config) = build(n);
    let queries: [(&str, &str); 8] = [
        ("term", "kalomi"),
        ("term_rare", "fufufusin"),
        ("phrase", "\"kakaka kalomi\""),
        ("phrase_two_most_common_words", "\"kakaka kakalo\""),
        ("prefix", "kalo*"),
        ("tag", "@tags:{gold}"),
        ("numeric", "@price:[100 200]"),
        ("combined", "kakaka @tags:{red|blue} @price:[0 5000] -kakalo"),
    ];
    let mut g = c.benchmark_group("ft_search");
    g.sample_size(20);
    // Equal-length samples: schedstat CPU time advances at scheduler ticks, so every
    // sample must span many ticks.
    g.sampling_mode(SamplingMode::Flat);
    for (name, q) in queries {
        let args: Vec<&[u8]> = vec![b"idx", q.as_bytes(), b"NOCONTENT"];
        let r = cat.execute("FT.SEARCH", &args, &src, &mut config, Protocol::Resp2);
        if let Reply::Array(v) = &r {
            println!("{name}: {q} -> {:?} hits", v.first());
        }
        g.bench_function(name, |b| {
            b.iter(|| black_box(cat.execute("FT.SEARCH", &args, &src, &mut config, Protocol::Resp2)))
        });
    }
    g.finish();

    if std::env::var_os("SEARCH_BENCH_SKIP_CHURN").is_some() {
        return;
    }
    // 200k updates of one document, then `*`.
    let mut src = src;
    let mut r = Rng(7);
    let vocab = vocab();
    let star: Vec<&[u8]> = vec![b"idx", b"*", b"NOCONTENT"];
    let t0 = cpu_ns();
    for _ in 0..STAR_RUNS {
        black_box(cat.execute("FT.SEARCH", &star, &src, &mut config, Protocol::Resp2));
    }
    let before = cpu_secs_since(t0) / STAR_RUNS as f64;
    let started = cpu_ns();
    for _ in 0..200_000 {
        src.0.insert(b"d:0".to_vec(), gen_doc(&mut r, &vocab));
        cat.on_key_changed(b"d:0", &src);
    }
    let upd = cpu_secs_since(started);
    // Typical churn: one numeric field changes, the text stays.
    let base = gen_doc(&mut r, &vocab);
    let started = cpu_ns();
    for i in 0..200_000u32 {
        let mut d = base.clone();
        if let Some(p) = d.iter_mut().find(|(k, _)| k == "price") {
            p.1 = (i % 10_000).to_string();
        }
        src.0.insert(b"d:1".to_vec(), d);
        cat.on_key_changed(b"d:1", &src);
    }
    let upd_num = cpu_secs_since(started);
    let t0 = cpu_ns();
    for _ in 0..STAR_RUNS {
        black_box(cat.execute("FT.SEARCH", &star, &src, &mut config, Protocol::Resp2));
    }
    let after = cpu_secs_since(t0) / STAR_RUNS as f64;
    let info = cat.execute("FT.INFO", &[b"idx"], &src, &mut config, Protocol::Resp2);
    println!(
        "200k full-text rewrites of one doc: {upd:.2}s ({:.0}/s); 200k price-only updates: {upd_num:.2}s ({:.0}/s); `*` before {:.1} µs, after {:.1} µs; max_doc_id {}",
        200_000.0 / upd,
        200_000.0 / upd_num,
        before * 1e6,
        after * 1e6,
        info_num(&info, "max_doc_id")
    );
}

criterion_group! {
    name = search_benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = benches
}
criterion_main!(search_benches);
