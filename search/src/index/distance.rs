//! Distance functions of the vector metrics, as RediSearch (VecSim) computes them:
//! L2 is the *squared* Euclidean distance, IP is `1 - a·b`, COSINE is `1 - a·b` over
//! vectors normalized beforehand ([`normalize`]). FLOAT32 vectors are computed in `f32`
//! (so the distances printed match the reference's), FLOAT64 in `f64`; INT8 and UINT8 in
//! integers (`distance_int.rs`).

use crate::vector_spec::Metric;

#[path = "distance_int.rs"]
pub mod int;

/// Lanes of the accumulators: independent partial sums let the compiler vectorize.
const LANES: usize = 8;

/// An element type of a vector slab: how a row is encoded from `f64` values and the
/// distance of two encoded rows.
pub trait Element: Copy + Default + PartialEq + Send + Sync + 'static {
    /// A prepared vector (values at the type's precision, COSINE float vectors normalized)
    /// as a stored row: DIM elements, and for the integer types under COSINE the vector's
    /// norm after them (VecSim's layout).
    fn encode(v: &[f64], metric: Metric) -> Vec<Self>;
    /// The distance of `metric` between two encoded rows.
    fn metric_distance(metric: Metric, a: &[Self], b: &[Self]) -> f64;
}

impl Element for f32 {
    fn encode(v: &[f64], _: Metric) -> Vec<f32> {
        v.iter().map(|x| *x as f32).collect()
    }
    fn metric_distance(metric: Metric, a: &[f32], b: &[f32]) -> f64 {
        f64::from(float_distance(metric, a, b))
    }
}

impl Element for f64 {
    fn encode(v: &[f64], _: Metric) -> Vec<f64> {
        v.to_vec()
    }
    fn metric_distance(metric: Metric, a: &[f64], b: &[f64]) -> f64 {
        float_distance(metric, a, b)
    }
}

/// Arithmetic the distance loops need, for `f32` and `f64`.
pub trait Float:
    Copy
    + Default
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
{
    /// One.
    const ONE: Self;
    /// Converts from `f64` (rounding for `f32`).
    fn from_f64(v: f64) -> Self;
    /// Widens to `f64`.
    fn to_f64(self) -> f64;
    /// Squared Euclidean distance of two slices.
    fn l2(a: &[Self], b: &[Self]) -> Self {
        lanes_sum(a, b, |x, y| {
            let d = x - y;
            d * d
        })
    }
    /// Dot product of two slices.
    fn dot(a: &[Self], b: &[Self]) -> Self {
        lanes_sum(a, b, |x, y| x * y)
    }
}

impl Float for f32 {
    const ONE: f32 = 1.0;
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn l2(a: &[f32], b: &[f32]) -> f32 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { avx2::l2(a, b) };
        }
        lanes_sum(a, b, |x, y| {
            let d = x - y;
            d * d
        })
    }
    fn dot(a: &[f32], b: &[f32]) -> f32 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { avx2::dot(a, b) };
        }
        lanes_sum(a, b, |x, y| x * y)
    }
}

/// The same loops compiled for AVX2: the eight lanes fill one 256-bit register instead of
/// two 128-bit ones. Each lane adds in the same order, and nothing is fused (no FMA), so
/// the results are bit for bit those of the portable loops.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::lanes_sum;

    #[target_feature(enable = "avx2")]
    pub fn l2(a: &[f32], b: &[f32]) -> f32 {
        lanes_sum(a, b, |x, y| {
            let d = x - y;
            d * d
        })
    }

    #[target_feature(enable = "avx2")]
    pub fn dot(a: &[f32], b: &[f32]) -> f32 {
        lanes_sum(a, b, |x, y| x * y)
    }
}

impl Float for f64 {
    const ONE: f64 = 1.0;
    fn from_f64(v: f64) -> f64 {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// Sums `f(a_i, b_i)` over two slices of equal length (the shorter length otherwise).
#[inline(always)]
fn lanes_sum<T: Float>(a: &[T], b: &[T], f: impl Fn(T, T) -> T) -> T {
    let n = a.len().min(b.len());
    let (a, b) = (a.get(..n).unwrap_or(&[]), b.get(..n).unwrap_or(&[]));
    // Fixed-size chunks: no bounds checks, so the lanes become SIMD registers.
    let (ca, ra) = a.as_chunks::<LANES>();
    let (cb, rb) = b.as_chunks::<LANES>();
    let mut acc = [T::default(); LANES];
    for (x, y) in ca.iter().zip(cb) {
        for i in 0..LANES {
            acc[i] = acc[i] + f(x[i], y[i]);
        }
    }
    let mut tail = T::default();
    for (x, y) in ra.iter().zip(rb) {
        tail = tail + f(*x, *y);
    }
    let mut s = T::default();
    for v in acc {
        s = s + v;
    }
    s + tail
}

/// Squared Euclidean distance.
#[inline]
pub fn l2<T: Float>(a: &[T], b: &[T]) -> T {
    T::l2(a, b)
}

/// Dot product.
#[inline]
pub fn dot<T: Float>(a: &[T], b: &[T]) -> T {
    T::dot(a, b)
}

/// The distance of `metric` between a stored and a query row (both encoded by
/// [`Element::encode`]).
#[inline]
pub fn distance<T: Element>(metric: Metric, a: &[T], b: &[T]) -> f64 {
    T::metric_distance(metric, a, b)
}

/// The distance of two float rows (both already normalized for COSINE).
#[inline]
fn float_distance<T: Float>(metric: Metric, a: &[T], b: &[T]) -> T {
    match metric {
        Metric::L2 => l2(a, b),
        Metric::Ip | Metric::Cosine => T::ONE - dot(a, b),
    }
}

/// Scales `v` to unit length (COSINE). As in VecSim a zero vector divides by zero: its
/// elements, and so its distances, become NaN.
pub fn normalize(v: &mut [f64], single: bool) {
    let norm = if single {
        let s: f32 = v.iter().map(|x| (*x as f32) * (*x as f32)).sum();
        f64::from(s.sqrt())
    } else {
        v.iter().map(|x| x * x).sum::<f64>().sqrt()
    };
    for x in v.iter_mut() {
        *x = if single { f64::from((*x as f32) / (norm as f32)) } else { *x / norm };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas() {
        let a = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
        let b = [0.5f64; 9];
        let l2_naive: f64 = a.iter().zip(&b).map(|(x, y)| (x - y) * (x - y)).sum();
        assert_eq!(l2(&a, &b), l2_naive);
        assert_eq!(distance(Metric::Ip, &a, &b), 1.0 - 22.5);
        let mut c = vec![3.0, 4.0];
        normalize(&mut c, false);
        assert_eq!(c, vec![0.6, 0.8]);
        // The AVX2 loops (when the CPU has them) give the portable loops' bits.
        let x: Vec<f32> = (0..131).map(|i| (i as f32 * 0.37).sin()).collect();
        let y: Vec<f32> = (0..131).map(|i| (i as f32 * 0.11).cos()).collect();
        let portable = lanes_sum(&x, &y, |p, q| (p - q) * (p - q));
        assert_eq!(l2(&x, &y).to_bits(), portable.to_bits());
        assert_eq!(dot(&x, &y).to_bits(), lanes_sum(&x, &y, |p, q| p * q).to_bits());
        let mut z = vec![0.0, 0.0];
        normalize(&mut z, true);
        assert!(z.iter().all(|x| x.is_nan()));
    }
}
