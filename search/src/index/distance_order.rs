//! The float distance sums in the order VecSim (RediSearch 2.10's vector library) adds them on
//! the CPU it runs on, so that distances, and the digits replies print, are bit for bit the
//! reference's: floating-point addition is not associative, and a sum split over other lanes,
//! or fused where VecSim rounds the product first, differs in the last bits (on an AVX-512
//! machine a third of the 128-dimension distances printed differed before this file).
//!
//! What VecSim runs (`spaces/L2_space.cpp`, `IP_space.cpp` and the kernels they choose, at the
//! commit RediSearch v2.10.5 pins), for L2 (the sum of `(a-b)²`) and IP (`1 -` the sum of `a·b`;
//! COSINE is IP over normalized vectors):
//! - FLOAT32 below 16 dimensions, FLOAT64 below 8: one running sum, element by element, each
//!   product rounded before it is added;
//! - otherwise `W` lanes by the CPU's widest unit, AVX-512 first: 16 floats or 8 doubles, the
//!   product fused into the sum (`fmadd`); AVX: 8 or 4, SSE: 4 or 2, product and sum rounded
//!   apart. The residual (`dim % 16` floats, `dim % 8` doubles) is taken first: its
//!   `residual % W` elements fill lanes of their own (a masked load), then the rest `W` at a
//!   time, in order;
//! - then the lanes are added: AVX-512 in GCC's `_mm512_reduce_add` tree (halves, quarters,
//!   pairs), the others from the first lane to the last.
//!
//! [`Lanes`] is that order in portable code; [`avx512`] the same for FLOAT32 in AVX-512
//! instructions (the order is the instructions' own: the tests hold it to the portable sum).

/// Which of VecSim's loops this CPU runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// AVX-512F: 512-bit lanes, fused multiply-add.
    Avx512,
    /// AVX: 256-bit lanes.
    Avx,
    /// SSE (every x86-64): 128-bit lanes.
    Sse,
}

/// The widest loop VecSim would choose here.
pub fn width() -> Width {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return Width::Avx512;
        }
        if std::arch::is_x86_feature_detected!("avx") {
            return Width::Avx;
        }
    }
    Width::Sse
}

/// What one element contributes: `p * q`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Term {
    /// `(a - b)²`.
    L2,
    /// `a · b`.
    Ip,
}

/// The float types VecSim sums.
pub trait Lanes:
    Copy + Default + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> + std::ops::Sub<Output = Self>
{
    /// Below this many dimensions VecSim runs the one-sum loop.
    const SIMD_FROM: usize;
    /// The residual is `dim % CHUNK`.
    const CHUNK: usize;
    /// `self * q + acc`, rounded once.
    fn fused(self, q: Self, acc: Self) -> Self;
    /// The product's factors of one element.
    #[inline(always)]
    fn factors(term: Term, a: Self, b: Self) -> (Self, Self) {
        match term {
            Term::L2 => {
                let d = a - b;
                (d, d)
            }
            Term::Ip => (a, b),
        }
    }
}

impl Lanes for f32 {
    const SIMD_FROM: usize = 16;
    const CHUNK: usize = 16;
    #[inline(always)]
    fn fused(self, q: f32, acc: f32) -> f32 {
        self.mul_add(q, acc)
    }
}

impl Lanes for f64 {
    const SIMD_FROM: usize = 8;
    const CHUNK: usize = 8;
    #[inline(always)]
    fn fused(self, q: f64, acc: f64) -> f64 {
        self.mul_add(q, acc)
    }
}

/// The FLOAT32 sum of `term` over `a` and `b` as VecSim adds it on this CPU.
pub fn float32(term: Term, a: &[f32], b: &[f32]) -> f32 {
    let width = width();
    #[cfg(target_arch = "x86_64")]
    match width {
        // SAFETY: the CPU has AVX-512F (its width says so).
        Width::Avx512 if a.len().min(b.len()) >= f32::SIMD_FROM => return unsafe { avx512::sum(term, a, b) },
        // SAFETY: the CPU has AVX.
        Width::Avx => return unsafe { on_avx(term, a, b) },
        _ => {}
    }
    sum(term, a, b, width)
}

/// The FLOAT64 sum of `term` over `a` and `b` as VecSim adds it on this CPU.
pub fn float64(term: Term, a: &[f64], b: &[f64]) -> f64 {
    let width = width();
    #[cfg(target_arch = "x86_64")]
    match width {
        // SAFETY: the CPU has AVX-512F.
        Width::Avx512 => return unsafe { on_avx512(term, a, b) },
        // SAFETY: the CPU has AVX.
        Width::Avx => return unsafe { on_avx(term, a, b) },
        Width::Sse => {}
    }
    sum(term, a, b, width)
}

/// [`sum`] on [`Width::Avx`], compiled for it (the lanes fill its registers).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn on_avx<T: Lanes>(term: Term, a: &[T], b: &[T]) -> T {
    sum(term, a, b, Width::Avx)
}

/// [`sum`] on [`Width::Avx512`], compiled for it (`mul_add` is one instruction there).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn on_avx512<T: Lanes>(term: Term, a: &[T], b: &[T]) -> T {
    sum(term, a, b, Width::Avx512)
}

/// The sum of `term` over `a` and `b` (the shorter length) as VecSim adds it on `width`.
#[inline(always)]
pub fn sum<T: Lanes>(term: Term, a: &[T], b: &[T], width: Width) -> T {
    let n = a.len().min(b.len());
    let (a, b) = (a.get(..n).unwrap_or(&[]), b.get(..n).unwrap_or(&[]));
    if n < T::SIMD_FROM {
        return one_by_one(term, a, b);
    }
    // Lanes: 512, 256 or 128 bits of T.
    let lanes = (64 / std::mem::size_of::<T>()) >> (width as usize);
    match (lanes, width) {
        (16, _) => tree16(&lanes_of::<T, 16>(term, a, b, width)),
        (8, Width::Avx512) => tree8(&lanes_of::<T, 8>(term, a, b, width)),
        (8, _) => in_order(&lanes_of::<T, 8>(term, a, b, width)),
        (4, _) => in_order(&lanes_of::<T, 4>(term, a, b, width)),
        _ => in_order(&lanes_of::<T, 2>(term, a, b, width)),
    }
}

/// One running sum (VecSim's `FP32_L2Sqr`, `FP32_InnerProduct`, below the SIMD sizes).
#[inline(always)]
fn one_by_one<T: Lanes>(term: Term, a: &[T], b: &[T]) -> T {
    let mut s = T::default();
    for (&x, &y) in a.iter().zip(b) {
        let (p, q) = T::factors(term, x, y);
        s = s + p * q;
    }
    s
}

/// The `W` lane sums before they are added together.
#[inline(always)]
fn lanes_of<T: Lanes, const W: usize>(term: Term, a: &[T], b: &[T], width: Width) -> [T; W] {
    let fused = width == Width::Avx512;
    let first = a.len() % T::CHUNK % W;
    let mut acc = [T::default(); W];
    // The residual's own lanes: a zero lane plus a product is the product, fused or not.
    for (k, (&x, &y)) in a.iter().zip(b).take(first).enumerate() {
        let (p, q) = T::factors(term, x, y);
        if let Some(slot) = acc.get_mut(first_lane::<T>(term, first, width, k)) {
            *slot = p * q;
        }
    }
    let (ca, _) = a.get(first..).unwrap_or(&[]).as_chunks::<W>();
    let (cb, _) = b.get(first..).unwrap_or(&[]).as_chunks::<W>();
    for (x, y) in ca.iter().zip(cb) {
        for i in 0..W {
            let (p, q) = T::factors(term, x[i], y[i]);
            acc[i] = if fused { p.fused(q, acc[i]) } else { acc[i] + p * q };
        }
    }
    acc
}

/// The lane of residual element `k` of `first`. SSE's FLOAT32 loads place them by the load
/// used (`_mm_loadr_ps` reverses, `_mm_loadh_pi` fills the upper half); every other loop is a
/// masked load into the first lanes.
fn first_lane<T: Lanes>(term: Term, first: usize, width: Width, k: usize) -> usize {
    let float32 = std::mem::size_of::<T>() == 4;
    match (width, float32, first, term) {
        (Width::Sse, true, 3, Term::L2) => 3 - k,
        (Width::Sse, true, 3, Term::Ip) if k > 0 => k + 1,
        (Width::Sse, true, 2, _) => k + 2,
        _ => k,
    }
}

/// The lanes added first to last (`TmpRes[0] + TmpRes[1] + ...`).
#[inline(always)]
fn in_order<T: Lanes, const W: usize>(x: &[T; W]) -> T {
    x.iter().skip(1).fold(x[0], |s, &v| s + v)
}

/// GCC's `_mm512_reduce_add_ps`: the upper eight lanes onto the lower, then the upper four of
/// those, then lanes 2-3 onto 0-1, then lane 1 onto lane 0.
#[inline(always)]
pub(super) fn tree16<T: Lanes>(x: &[T; 16]) -> T {
    let h: [T; 8] = std::array::from_fn(|i| x[i + 8] + x[i]);
    let q: [T; 4] = std::array::from_fn(|i| h[i + 4] + h[i]);
    (q[2] + q[0]) + (q[3] + q[1])
}

/// GCC's `_mm512_reduce_add_pd`: the upper four lanes onto the lower, then lanes 2-3 onto
/// 0-1, then lane 1 onto lane 0.
#[inline(always)]
fn tree8<T: Lanes>(x: &[T; 8]) -> T {
    let h: [T; 4] = std::array::from_fn(|i| x[i + 4] + x[i]);
    (h[2] + h[0]) + (h[3] + h[1])
}

/// VecSim's FLOAT32 AVX-512 loops in AVX-512 instructions.
#[cfg(target_arch = "x86_64")]
pub mod avx512 {
    use std::arch::x86_64::{
        __m512, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_maskz_loadu_ps, _mm512_mul_ps, _mm512_setzero_ps,
        _mm512_storeu_ps, _mm512_sub_ps,
    };

    use super::Term;

    /// The lanes of the residual's elements: their products alone (a zero lane plus a
    /// product is the product).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn residual_lanes(term: Term, x: __m512, y: __m512) -> __m512 {
        match term {
            Term::L2 => {
                let d = _mm512_sub_ps(x, y);
                _mm512_mul_ps(d, d)
            }
            Term::Ip => _mm512_mul_ps(x, y),
        }
    }

    /// One chunk of 16 fused into the lanes.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn step(term: Term, acc: __m512, x: __m512, y: __m512) -> __m512 {
        match term {
            Term::L2 => {
                let d = _mm512_sub_ps(x, y);
                _mm512_fmadd_ps(d, d, acc)
            }
            Term::Ip => _mm512_fmadd_ps(x, y, acc),
        }
    }

    /// The lanes added in GCC's `_mm512_reduce_add_ps` tree.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn reduce(acc: __m512) -> f32 {
        let mut lanes = [0f32; 16];
        // SAFETY: `lanes` holds 16 floats.
        unsafe { _mm512_storeu_ps(lanes.as_mut_ptr(), acc) };
        super::tree16(&lanes)
    }

    /// The mask of the first `first` (< 16) lanes.
    fn mask(first: usize) -> u16 {
        ((1u32 << first) - 1) as u16
    }

    /// [`super::sum`] of FLOAT32 on [`super::Width::Avx512`], for at least 16 elements.
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn sum(term: Term, a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut acc = _mm512_setzero_ps();
        let first = n % 16;
        if first > 0 {
            let mask = mask(first);
            // SAFETY: a masked load reads only the lanes of `mask`, the first `first` < n
            // elements of both slices.
            let (x, y) = unsafe { (_mm512_maskz_loadu_ps(mask, pa), _mm512_maskz_loadu_ps(mask, pb)) };
            acc = residual_lanes(term, x, y);
        }
        let mut i = first;
        while i + 16 <= n {
            // SAFETY: elements i..i+16 are within both slices (i + 16 <= n).
            let (x, y) = unsafe { (_mm512_loadu_ps(pa.add(i)), _mm512_loadu_ps(pb.add(i))) };
            acc = step(term, acc, x, y);
            i += 16;
        }
        reduce(acc)
    }

    /// [`sum`] of each of `rows` with `q`, the same bits: every row keeps its own lanes,
    /// added in `sum`'s order; only the instructions of the four sums interleave, so that the
    /// CPU runs their chains of fused adds side by side instead of one after the other (and
    /// reads each chunk of `q` once for the four).
    ///
    /// # Safety
    /// The CPU has AVX-512F, and every row holds at least `q.len()` >= 16 elements.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn sum_four(term: Term, rows: [&[f32]; 4], q: &[f32]) -> [f32; 4] {
        let n = q.len();
        debug_assert!(n >= 16 && rows.iter().all(|r| r.len() >= n));
        let p = rows.map(|r| r.as_ptr());
        let pq = q.as_ptr();
        let mut acc = [_mm512_setzero_ps(); 4];
        let first = n % 16;
        if first > 0 {
            let mask = mask(first);
            // SAFETY: the first `first` < n elements of `q` and of every row.
            let y = unsafe { _mm512_maskz_loadu_ps(mask, pq) };
            for (a, pr) in acc.iter_mut().zip(p) {
                // SAFETY: as above.
                *a = residual_lanes(term, unsafe { _mm512_maskz_loadu_ps(mask, pr) }, y);
            }
        }
        let mut i = first;
        while i + 16 <= n {
            // SAFETY: i + 16 <= n <= the length of `q` and of every row.
            let y = unsafe { _mm512_loadu_ps(pq.add(i)) };
            for (a, pr) in acc.iter_mut().zip(p) {
                // SAFETY: as above.
                *a = step(term, *a, unsafe { _mm512_loadu_ps(pr.add(i)) }, y);
            }
            i += 16;
        }
        acc.map(|a| reduce(a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seeded values spread over several magnitudes (so the order of the sums shows).
    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let u = (x >> 11) as f64 / (1u64 << 53) as f64;
                (u - 0.5) * 10f64.powi((x % 5) as i32 - 2)
            })
            .collect()
    }

    #[test]
    fn below_the_simd_sizes_one_running_sum() {
        let a: Vec<f32> = values(15, 1).iter().map(|v| *v as f32).collect();
        let b: Vec<f32> = values(15, 2).iter().map(|v| *v as f32).collect();
        let mut s = 0f32;
        for (x, y) in a.iter().zip(&b) {
            s += (x - y) * (x - y);
        }
        for w in [Width::Avx512, Width::Avx, Width::Sse] {
            assert_eq!(sum(Term::L2, &a, &b, w).to_bits(), s.to_bits());
        }
    }

    #[test]
    fn avx_lanes_and_residual() {
        // 19 floats on AVX: 3 alone in lanes 0-2, then 8 and 8; lanes added in order.
        let a: Vec<f32> = values(19, 3).iter().map(|v| *v as f32).collect();
        let b: Vec<f32> = values(19, 4).iter().map(|v| *v as f32).collect();
        let mut lane = [0f32; 8];
        for (k, (x, y)) in a.iter().zip(&b).enumerate() {
            let l = if k < 3 { k } else { (k - 3) % 8 };
            lane[l] += x * y;
        }
        let want = lane.iter().skip(1).fold(lane[0], |s, v| s + v);
        assert_eq!(sum(Term::Ip, &a, &b, Width::Avx).to_bits(), want.to_bits());
    }

    #[test]
    fn avx512_fuses_and_reduces_as_a_tree() {
        let a: Vec<f32> = values(37, 5).iter().map(|v| *v as f32).collect();
        let b: Vec<f32> = values(37, 6).iter().map(|v| *v as f32).collect();
        // 37 % 16 = 5 alone (products), then two steps of 16 fused.
        let mut lane = [0f32; 16];
        for (k, (x, y)) in a.iter().zip(&b).enumerate() {
            let d = x - y;
            if k < 5 {
                lane[k] = d * d;
            } else {
                let l = (k - 5) % 16;
                lane[l] = d.mul_add(d, lane[l]);
            }
        }
        let h: Vec<f32> = (0..8).map(|i| lane[i + 8] + lane[i]).collect();
        let q: Vec<f32> = (0..4).map(|i| h[i + 4] + h[i]).collect();
        let want = (q[2] + q[0]) + (q[3] + q[1]);
        assert_eq!(sum(Term::L2, &a, &b, Width::Avx512).to_bits(), want.to_bits());
    }

    #[test]
    fn sse_residual_lanes() {
        // 19 floats on SSE: residual 3, L2's reversed load puts elements 0-2 in lanes 3, 2, 1.
        let a: Vec<f32> = values(19, 7).iter().map(|v| *v as f32).collect();
        let b: Vec<f32> = values(19, 8).iter().map(|v| *v as f32).collect();
        let mut lane = [0f32; 4];
        for (k, (x, y)) in a.iter().zip(&b).enumerate() {
            let l = if k < 3 { 3 - k } else { (k - 3) % 4 };
            lane[l] += (x - y) * (x - y);
        }
        let want = ((lane[0] + lane[1]) + lane[2]) + lane[3];
        assert_eq!(sum(Term::L2, &a, &b, Width::Sse).to_bits(), want.to_bits());
    }

    #[test]
    fn float64_avx512_tree() {
        let a = values(21, 9);
        let b = values(21, 10);
        let mut lane = [0f64; 8];
        for (k, (x, y)) in a.iter().zip(&b).enumerate() {
            if k < 5 {
                lane[k] = x * y;
            } else {
                let l = (k - 5) % 8;
                lane[l] = x.mul_add(*y, lane[l]);
            }
        }
        let h: Vec<f64> = (0..4).map(|i| lane[i + 4] + lane[i]).collect();
        let want = (h[2] + h[0]) + (h[3] + h[1]);
        assert_eq!(sum(Term::Ip, &a, &b, Width::Avx512).to_bits(), want.to_bits());
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn four_rows_at_once_sum_as_one_at_a_time() {
        if !std::arch::is_x86_feature_detected!("avx512f") {
            return;
        }
        for n in [16, 17, 31, 32, 33, 100, 128, 129, 300] {
            for seed in 0..10 {
                let q: Vec<f32> = values(n, seed).iter().map(|v| *v as f32).collect();
                let rows: Vec<Vec<f32>> = (1..5)
                    .map(|k| values(n + k, seed * 7 + k as u64).iter().map(|v| *v as f32).collect())
                    .collect();
                for term in [Term::L2, Term::Ip] {
                    let four =
                        [rows[0].as_slice(), rows[1].as_slice(), rows[2].as_slice(), rows[3].as_slice()];
                    // SAFETY: the CPU has AVX-512F; every row is longer than `q`.
                    let got = unsafe { avx512::sum_four(term, four, &q) };
                    for (g, r) in got.iter().zip(&rows) {
                        let one = sum(term, r.get(..n).unwrap_or(&[]), &q, Width::Avx512);
                        assert_eq!(g.to_bits(), one.to_bits(), "{n} {term:?} {seed}");
                    }
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_instructions_sum_in_the_portable_order() {
        if !std::arch::is_x86_feature_detected!("avx512f") {
            return;
        }
        for n in [16, 17, 31, 32, 33, 100, 128, 129, 300, 768] {
            for seed in 0..20 {
                let a: Vec<f32> = values(n, seed).iter().map(|v| *v as f32).collect();
                let b: Vec<f32> = values(n, seed + 100).iter().map(|v| *v as f32).collect();
                for term in [Term::L2, Term::Ip] {
                    // SAFETY: the CPU has AVX-512F (checked above).
                    let fast = unsafe { avx512::sum(term, &a, &b) };
                    assert_eq!(
                        fast.to_bits(),
                        sum(term, &a, &b, Width::Avx512).to_bits(),
                        "{n} {term:?} {seed}"
                    );
                }
            }
        }
    }
}
