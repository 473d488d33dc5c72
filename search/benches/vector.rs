//! KNN over 100,000 × 128-d FLOAT32 vectors (exact search: FLAT, L2 and COSINE), unfiltered and
//! with a filter of 10 % of the documents, and a VECTOR_RANGE over the same data. Times are
//! this thread's CPU time (`/proc/thread-self/schedstat`), so they stay meaningful on a
//! machine shared with other jobs.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use roaring::RoaringBitmap;
use search::index::vector::VectorIndex;
use search::vector_spec::{Metric, VectorAlgo, VectorSpec, VectorType};

const N: u32 = 100_000;
const DIM: usize = 128;

/// Deterministic pseudo-random numbers in [-1, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    fn vector(&mut self) -> Vec<f64> {
        (0..DIM).map(|_| self.next()).collect()
    }
}

/// Nanoseconds this thread has run on a CPU (updated at scheduler ticks).
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

/// Runs `f` `iters` times and returns the CPU time it took.
fn cpu_time<R>(iters: u64, mut f: impl FnMut() -> R) -> Duration {
    let start = cpu_ns();
    for _ in 0..iters {
        std::hint::black_box(f());
    }
    Duration::from_nanos(cpu_ns().saturating_sub(start))
}

fn index(metric: Metric, rng: &mut Rng) -> VectorIndex {
    let spec = VectorSpec {
        algo: VectorAlgo::Flat,
        ty: VectorType::Float32,
        dim: DIM,
        metric,
        ..VectorSpec::default()
    };
    let mut vi = VectorIndex::new(&spec);
    for doc in 0..N {
        vi.set(doc, &[rng.vector()]);
    }
    vi
}

fn bench(c: &mut Criterion) {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let l2 = index(Metric::L2, &mut rng);
    let cosine = index(Metric::Cosine, &mut rng);
    let query = rng.vector();
    let tenth: RoaringBitmap = (0..N).filter(|d| d % 10 == 3).collect();
    let mut g = c.benchmark_group("vector_100k_x_128");
    g.sample_size(20);
    g.bench_function("knn10_l2", |b| b.iter_custom(|n| cpu_time(n, || l2.knn(query.clone(), 10, None))));
    g.bench_function("knn10_cosine", |b| {
        b.iter_custom(|n| cpu_time(n, || cosine.knn(query.clone(), 10, None)))
    });
    g.bench_function("knn10_l2_filter_10pct", |b| {
        b.iter_custom(|n| cpu_time(n, || l2.knn(query.clone(), 10, Some(&tenth))))
    });
    g.bench_function("range_l2", |b| b.iter_custom(|n| cpu_time(n, || l2.range(query.clone(), 30.0, None))));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
