//! Distances of INT8 and UINT8 vectors (Redis 8), as VecSim computes them
//! (`src/VecSim/spaces/L2/L2.cpp` `INTEGER_L2Sqr`, `IP/IP.cpp` `INTEGER_InnerProductImp`,
//! `INT8_Cosine`/`UINT8_Cosine`, `normalize/compute_norm.h` `IntegralType_ComputeNorm`):
//! sums in 64-bit integers, then
//! - L2: `float(sum (a_i - b_i)^2)`,
//! - IP: `float(1 - sum a_i b_i)`,
//! - COSINE: `1.0f - float(sum a_i b_i) / (norm_a * norm_b)` in `f32`, each norm
//!   `(float)sqrt(sum x_i^2)` computed once and stored after the row's DIM elements (four
//!   bytes, little-endian), as VecSim stores it; a zero vector's distances are NaN.
//!
//! Vectors are not normalized for COSINE, and values are not rounded: a row holds the
//! integers as given.

use crate::index::distance::Element;
use crate::vector_spec::Metric;

/// Bytes of the norm stored after a COSINE row.
pub const NORM_BYTES: usize = 4;

/// A one-byte integer element.
pub trait Int8: Copy {
    /// The value widened.
    fn wide(self) -> i64;
    /// The element of `v`, which must be in the type's range (checked by the caller).
    fn narrow(v: f64) -> Self;
    /// The element holding `b` as a raw byte (the norm's bytes).
    fn from_byte(b: u8) -> Self;
    /// The raw byte of the element.
    fn byte(self) -> u8;
}

impl Int8 for i8 {
    fn wide(self) -> i64 {
        i64::from(self)
    }
    fn narrow(v: f64) -> i8 {
        v as i8
    }
    fn from_byte(b: u8) -> i8 {
        b as i8
    }
    fn byte(self) -> u8 {
        self as u8
    }
}

impl Int8 for u8 {
    fn wide(self) -> i64 {
        i64::from(self)
    }
    fn narrow(v: f64) -> u8 {
        v as u8
    }
    fn from_byte(b: u8) -> u8 {
        b
    }
    fn byte(self) -> u8 {
        self
    }
}

/// `IntegralType_ComputeNorm`: `sqrt` of the 64-bit sum of squares, as a float.
pub fn norm<T: Int8>(v: &[T]) -> f32 {
    let sum: i64 = v.iter().map(|x| x.wide() * x.wide()).sum();
    (sum as f64).sqrt() as f32
}

fn encode<T: Int8>(v: &[f64], metric: Metric) -> Vec<T> {
    let mut row: Vec<T> = v.iter().map(|x| T::narrow(*x)).collect();
    if metric == Metric::Cosine {
        let n = norm(&row);
        row.extend(n.to_le_bytes().map(T::from_byte));
    }
    row
}

fn dot<T: Int8>(a: &[T], b: &[T]) -> i64 {
    a.iter().zip(b).map(|(x, y)| x.wide() * y.wide()).sum()
}

/// The norm stored after the DIM elements of a COSINE row.
fn stored_norm<T: Int8>(row: &[T], dim: usize) -> f32 {
    let mut bytes = [0u8; NORM_BYTES];
    for (b, x) in bytes.iter_mut().zip(row.get(dim..).unwrap_or(&[])) {
        *b = x.byte();
    }
    f32::from_le_bytes(bytes)
}

fn metric_distance<T: Int8>(metric: Metric, a: &[T], b: &[T]) -> f64 {
    match metric {
        Metric::L2 => {
            let sum: i64 = a
                .iter()
                .zip(b)
                .map(|(x, y)| {
                    let d = x.wide() - y.wide();
                    d * d
                })
                .sum();
            f64::from(sum as f32)
        }
        Metric::Ip => f64::from((1 - dot(a, b)) as f32),
        Metric::Cosine => {
            let dim = a.len().min(b.len()).saturating_sub(NORM_BYTES);
            let (ra, rb) = (&a[..dim], &b[..dim]);
            let (na, nb) = (stored_norm(a, dim), stored_norm(b, dim));
            f64::from(1.0f32 - (dot(ra, rb) as f32) / (na * nb))
        }
    }
}

impl Element for i8 {
    fn encode(v: &[f64], metric: Metric) -> Vec<i8> {
        encode(v, metric)
    }
    fn metric_distance(metric: Metric, a: &[i8], b: &[i8]) -> f64 {
        metric_distance(metric, a, b)
    }
}

impl Element for u8 {
    fn encode(v: &[f64], metric: Metric) -> Vec<u8> {
        encode(v, metric)
    }
    fn metric_distance(metric: Metric, a: &[u8], b: &[u8]) -> f64 {
        metric_distance(metric, a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vecsim_formulas() {
        let a = i8::encode(&[1.0, -2.0, 3.0], Metric::L2);
        let b = i8::encode(&[-128.0, 127.0, 0.0], Metric::L2);
        assert_eq!(i8::metric_distance(Metric::L2, &a, &b), (129.0 * 129.0 + 129.0 * 129.0 + 9.0));
        assert_eq!(i8::metric_distance(Metric::Ip, &a, &b), 1.0 - (-128.0 - 254.0));
        let a = u8::encode(&[3.0, 4.0], Metric::Cosine);
        let b = u8::encode(&[4.0, 3.0], Metric::Cosine);
        assert_eq!(a.len(), 2 + NORM_BYTES);
        let want = 1.0f32 - 24.0f32 / (5.0f32 * 5.0f32);
        assert_eq!(u8::metric_distance(Metric::Cosine, &a, &b), f64::from(want));
        let z = u8::encode(&[0.0, 0.0], Metric::Cosine);
        assert!(u8::metric_distance(Metric::Cosine, &a, &z).is_nan());
        assert_eq!(u8::metric_distance(Metric::L2, &[255u8], &[0u8]), 65025.0);
    }
}
