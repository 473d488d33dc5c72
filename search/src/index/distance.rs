//! Distance functions of the vector metrics, as RediSearch (VecSim) computes them:
//! L2 is the *squared* Euclidean distance, IP is `1 - a·b`, COSINE is `1 - a·b` over
//! vectors normalized beforehand ([`normalize`]). FLOAT32 vectors are computed in `f32`,
//! FLOAT64 in `f64`, both summed in VecSim's order on this CPU (`distance_order.rs`), so the
//! distances printed match the reference's; INT8 and UINT8 in integers (`distance_int.rs`).

use crate::vector_spec::{Metric, VectorType};

#[path = "distance_int.rs"]
pub mod int;
#[path = "distance_order.rs"]
pub mod order;

use order::Term;

/// An element type of a vector slab: how a row is encoded from `f64` values and the
/// distance of two encoded rows.
pub trait Element: Copy + Default + PartialEq + Send + Sync + 'static {
    /// A prepared vector (values at the type's precision, COSINE float vectors normalized)
    /// as a stored row: DIM elements, and for the integer types under COSINE the vector's
    /// norm after them (VecSim's layout).
    fn encode(v: &[f64], metric: Metric) -> Vec<Self>;
    /// The distance of `metric` between two encoded rows.
    fn metric_distance(metric: Metric, a: &[Self], b: &[Self]) -> f64;
    /// [`Element::metric_distance`] of four rows and one query row, the same values (a type
    /// may compute the four side by side).
    fn metric_distances(metric: Metric, rows: [&[Self]; 4], q: &[Self]) -> [f64; 4] {
        rows.map(|r| Self::metric_distance(metric, r, q))
    }
}

impl Element for f32 {
    fn encode(v: &[f64], _: Metric) -> Vec<f32> {
        v.iter().map(|x| *x as f32).collect()
    }
    fn metric_distance(metric: Metric, a: &[f32], b: &[f32]) -> f64 {
        f64::from(float_distance(metric, a, b))
    }
    #[inline]
    fn metric_distances(metric: Metric, rows: [&[f32]; 4], q: &[f32]) -> [f64; 4] {
        #[cfg(target_arch = "x86_64")]
        if q.len() >= <f32 as order::Lanes>::SIMD_FROM
            && rows.iter().all(|r| r.len() == q.len())
            && order::width() == order::Width::Avx512
        {
            let term = if metric == Metric::L2 { Term::L2 } else { Term::Ip };
            // SAFETY: the CPU has AVX-512F; every row is as long as `q`, at least 16 floats.
            let sums = unsafe { order::avx512::sum_four(term, rows, q) };
            return sums.map(|s| f64::from(if metric == Metric::L2 { s } else { 1.0 - s }));
        }
        rows.map(|r| Self::metric_distance(metric, r, q))
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
    /// Squared Euclidean distance of two slices, summed in VecSim's order.
    fn l2(a: &[Self], b: &[Self]) -> Self;
    /// Dot product of two slices, summed in VecSim's order.
    fn dot(a: &[Self], b: &[Self]) -> Self;
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
        order::float32(Term::L2, a, b)
    }
    fn dot(a: &[f32], b: &[f32]) -> f32 {
        order::float32(Term::Ip, a, b)
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
    fn l2(a: &[f64], b: &[f64]) -> f64 {
        order::float64(Term::L2, a, b)
    }
    fn dot(a: &[f64], b: &[f64]) -> f64 {
        order::float64(Term::Ip, a, b)
    }
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

/// Scales `v`, a vector of `ty`, to unit length (COSINE) as VecSim's normalizers do:
/// - FLOAT64: the squares summed in `f64` one by one, each element divided by the root;
/// - FLOAT32: the same sum in `f64`, its root rounded to `f32`, each element divided in `f32`;
/// - FLOAT16 and BFLOAT16 (held as `f32`): the squares summed in `f32`, the root in `f32`.
///
/// As in VecSim a zero vector divides by zero: its elements, and so its distances, become NaN.
pub fn normalize(v: &mut [f64], ty: VectorType) {
    match ty {
        VectorType::Float32 => {
            let sum = v.iter().fold(0.0, |s, &x| s + f64::from(x as f32) * f64::from(x as f32));
            let norm = sum.sqrt() as f32;
            for x in v.iter_mut() {
                *x = f64::from((*x as f32) / norm);
            }
        }
        VectorType::Float16 | VectorType::BFloat16 => {
            let sum = v.iter().fold(0.0f32, |s, &x| s + (x as f32) * (x as f32));
            let norm = sum.sqrt();
            for x in v.iter_mut() {
                *x = f64::from((*x as f32) / norm);
            }
        }
        VectorType::Float64 | VectorType::Int8 | VectorType::UInt8 => {
            let norm = v.iter().fold(0.0, |s, &x| s + x * x).sqrt();
            for x in v.iter_mut() {
                *x /= norm;
            }
        }
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
        normalize(&mut c, VectorType::Float64);
        assert_eq!(c, vec![0.6, 0.8]);
        // The loops this CPU runs give the portable order's bits.
        let x: Vec<f32> = (0..131).map(|i| (i as f32 * 0.37).sin()).collect();
        let y: Vec<f32> = (0..131).map(|i| (i as f32 * 0.11).cos()).collect();
        let w = order::width();
        assert_eq!(l2(&x, &y).to_bits(), order::sum(Term::L2, &x, &y, w).to_bits());
        assert_eq!(dot(&x, &y).to_bits(), order::sum(Term::Ip, &x, &y, w).to_bits());
        let (x64, y64): (Vec<f64>, Vec<f64>) =
            x.iter().zip(&y).map(|(a, b)| (f64::from(*a), f64::from(*b))).unzip();
        assert_eq!(l2(&x64, &y64).to_bits(), order::sum(Term::L2, &x64, &y64, w).to_bits());
        assert_eq!(dot(&x64, &y64).to_bits(), order::sum(Term::Ip, &x64, &y64, w).to_bits());
        let mut z = vec![0.0, 0.0];
        normalize(&mut z, VectorType::Float32);
        assert!(z.iter().all(|x| x.is_nan()));
    }
}
