//! [`FpType`]: the floating-point element types of `JSON.SET … FPHA BF16|FP16|FP32|FP64`
//! (Redis 8.8), and the conversions between them and `f64`.
//!
//! A number stored as one of these types is rounded to it (round to nearest, ties to even);
//! a number whose magnitude rounds beyond the type's largest finite value does not fit
//! (`value out of range`). Read back, an element is the `f64` of the shortest decimal that
//! rounds to the same stored value (`FP32` of `0.1` reads as `0.1`, `FP16` of `0.123456789`
//! as `0.1235`), which is what Redis 8.8 prints for such arrays.

/// A floating-point storage type for homogeneous number arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FpType {
    /// bfloat16: 8 exponent bits, 7 mantissa bits (2 bytes).
    Bf16,
    /// IEEE half precision: 5 exponent bits, 10 mantissa bits (2 bytes).
    Fp16,
    /// IEEE single precision (4 bytes).
    Fp32,
    /// IEEE double precision (8 bytes).
    Fp64,
}

impl FpType {
    /// The type named by `FPHA`'s argument (`BF16`, `FP16`, `FP32`, `FP64`, any case).
    pub fn parse(name: &[u8]) -> Option<FpType> {
        const NAMES: [(&[u8], FpType); 4] = [
            (b"BF16", FpType::Bf16),
            (b"FP16", FpType::Fp16),
            (b"FP32", FpType::Fp32),
            (b"FP64", FpType::Fp64),
        ];
        NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|&(_, t)| t)
    }

    /// The name in Redis 8.8's `value out of range for <name>` error.
    pub fn error_name(self) -> &'static str {
        match self {
            FpType::Bf16 => "BF16",
            FpType::Fp16 => "F16",
            FpType::Fp32 => "F32",
            FpType::Fp64 => "F64",
        }
    }

    /// Bytes one element takes.
    pub fn width(self) -> usize {
        match self {
            FpType::Bf16 | FpType::Fp16 => 2,
            FpType::Fp32 => 4,
            FpType::Fp64 => 8,
        }
    }

    /// Whether `x` fits this type (its rounding is finite).
    pub fn fits(self, x: f64) -> bool {
        match self {
            FpType::Fp64 => x.is_finite(),
            FpType::Fp32 => (x as f32).is_finite(),
            FpType::Fp16 => Half::FP16.round(x).is_some(),
            FpType::Bf16 => Half::BF16.round(x).is_some(),
        }
    }
}

/// A 16-bit binary float format: `ebits` exponent bits, `mbits` stored mantissa bits.
#[derive(Clone, Copy)]
pub(crate) struct Half {
    ebits: u32,
    mbits: u32,
}

impl Half {
    pub(crate) const FP16: Half = Half { ebits: 5, mbits: 10 };
    pub(crate) const BF16: Half = Half { ebits: 8, mbits: 7 };

    fn bias(self) -> i32 {
        (1 << (self.ebits - 1)) - 1
    }

    /// Largest finite value.
    fn max(self) -> f64 {
        let emax = self.bias();
        (2.0 - 2f64.powi(-(self.mbits as i32))) * 2f64.powi(emax)
    }

    /// `x` rounded to this format (as an exact `f64`), `None` when it does not fit.
    pub(crate) fn round(self, x: f64) -> Option<f64> {
        if !x.is_finite() {
            return None;
        }
        if x == 0.0 {
            return Some(x);
        }
        let emin = 1 - self.bias();
        // The exponent of x (x = m * 2^e with 1 <= m < 2), at least emin (subnormals).
        let e = (exponent_of(x)).max(emin);
        let quantum = 2f64.powi(e - self.mbits as i32);
        // Scaling by powers of two is exact; so is rounding the quotient.
        let r = (x / quantum).round_ties_even() * quantum;
        (r.abs() <= self.max()).then_some(r)
    }

    /// The bits of `x`, which must be a value of this format (from [`Half::round`]).
    pub(crate) fn encode(self, x: f64) -> u16 {
        let sign = if x.is_sign_negative() { 1u32 << (self.ebits + self.mbits) } else { 0 };
        let a = x.abs();
        if a == 0.0 {
            return sign as u16;
        }
        let emin = 1 - self.bias();
        let e = exponent_of(a);
        let bits = if e < emin {
            // Subnormal: exponent field 0, mantissa = a / 2^(emin - mbits).
            (a / 2f64.powi(emin - self.mbits as i32)) as u32
        } else {
            let field = (e + self.bias()) as u32;
            let mant = (a / 2f64.powi(e - self.mbits as i32)) as u32 - (1 << self.mbits);
            (field << self.mbits) | mant
        };
        (sign | bits) as u16
    }

    /// The value of bits `b`.
    pub(crate) fn decode(self, b: u16) -> f64 {
        let b = u32::from(b);
        let neg = b >> (self.ebits + self.mbits) & 1 == 1;
        let field = (b >> self.mbits) & ((1 << self.ebits) - 1);
        let mant = b & ((1 << self.mbits) - 1);
        let a = if field == (1 << self.ebits) - 1 {
            if mant == 0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else if field == 0 {
            f64::from(mant) * 2f64.powi(1 - self.bias() - self.mbits as i32)
        } else {
            f64::from(mant + (1 << self.mbits)) * 2f64.powi(field as i32 - self.bias() - self.mbits as i32)
        };
        if neg {
            -a
        } else {
            a
        }
    }

    /// The `f64` of the shortest decimal that rounds to `x` in this format.
    pub(crate) fn shortest(self, x: f64) -> f64 {
        shortest_by(x, |y| self.round(y))
    }
}

/// The binary exponent of finite, non-zero `x`.
fn exponent_of(x: f64) -> i32 {
    let bits = x.abs().to_bits();
    let field = (bits >> 52) as i32;
    if field == 0 {
        // f64 subnormal: far below every format here; any small exponent will do.
        -1075
    } else {
        field - 1023
    }
}

/// The `f64` of the shortest decimal (fewest significant digits) that `round` maps to `x`.
fn shortest_by(x: f64, round: impl Fn(f64) -> Option<f64>) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    for digits in 1..17 {
        let text = format!("{:.*e}", digits - 1, x);
        if let Ok(y) = text.parse::<f64>() {
            if round(y).is_some_and(|r| r.to_bits() == x.to_bits()) {
                return y;
            }
        }
    }
    x
}

/// The `f64` of the shortest decimal that rounds to `f` as an `f32` (ryu's `f32` output).
pub(crate) fn f32_shortest(f: f32) -> f64 {
    if !f.is_finite() {
        return f64::from(f);
    }
    ryu::Buffer::new().format_finite(f).parse::<f64>().unwrap_or(f64::from(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_formats_round_and_print_like_redis() {
        assert_eq!(Half::FP16.round(70000.0), None);
        assert_eq!(Half::FP16.round(65504.0), Some(65504.0));
        assert_eq!(Half::FP16.round(65519.0), Some(65504.0));
        assert_eq!(Half::FP16.round(65520.0), None);
        assert_eq!(Half::BF16.round(1e39), None);
        for (h, x, shown) in
            [(Half::FP16, 0.123456789, 0.1235), (Half::BF16, 0.123456789, 0.1235), (Half::FP16, 0.1, 0.1)]
        {
            let r = h.round(x).unwrap();
            assert_eq!(h.decode(h.encode(r)), r);
            assert_eq!(h.shortest(r), shown);
        }
        assert_eq!(f32_shortest(0.123456789f64 as f32), 0.12345679);
        for b in 0..=u16::MAX {
            for h in [Half::FP16, Half::BF16] {
                let x = h.decode(b);
                if x.is_finite() {
                    assert_eq!(h.round(x), Some(x));
                    assert_eq!(h.encode(x), b, "{b:#x}");
                }
            }
        }
    }
}
