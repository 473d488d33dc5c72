//! 16-bit floats of the FLOAT16 (IEEE binary16) and BFLOAT16 vector types: conversion to
//! `f32` and rounding from it (to nearest, ties to even, as VecSim stores them).

/// An IEEE binary16 value as `f32`.
pub fn f16_to_f32(h: u16) -> f32 {
    let negative = h & 0x8000 != 0;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let magnitude = match exp {
        // Zero and subnormals: man × 2^-24.
        0 => man as f32 * f32::from_bits(0x3380_0000),
        0x1f => f32::from_bits(0x7f80_0000 | (man << 13)),
        _ => f32::from_bits(((exp + 112) << 23) | (man << 13)),
    };
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// `x` rounded to the nearest IEEE binary16 (overflow gives infinity).
pub fn f32_to_f16(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let man = bits & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rem = m & ((1u32 << shift) - 1);
        let mut r = m >> shift;
        if rem > half || (rem == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        // A carry into the exponent is right, up to infinity.
        r += 1;
    }
    sign | r as u16
}

/// A bfloat16 value as `f32`.
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

/// `x` rounded to the nearest bfloat16.
pub fn f32_to_bf16(x: f32) -> u16 {
    let bits = x.to_bits();
    if x.is_nan() {
        return ((bits >> 16) | 0x40) as u16;
    }
    let rounding = 0x7fff + ((bits >> 16) & 1);
    (bits.wrapping_add(rounding) >> 16) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary16_round_trips_and_rounds() {
        for h in 0..=u16::MAX {
            let f = f16_to_f32(h);
            if !f.is_nan() {
                assert_eq!(f32_to_f16(f), h, "{h:#x}");
            }
        }
        assert_eq!(f16_to_f32(f32_to_f16(0.1)), 0.099975586);
        assert_eq!(f16_to_f32(f32_to_f16(70000.0)), f32::INFINITY);
        assert_eq!(f16_to_f32(f32_to_f16(65519.0)), 65504.0);
        // Ties go to even: 1 + 2^-11 is half-way between 1 and 1 + 2^-10.
        assert_eq!(f16_to_f32(f32_to_f16(1.0 + 2f32.powi(-11))), 1.0);
        assert_eq!(f16_to_f32(f32_to_f16(2f32.powi(-25) * 1.5)), 2f32.powi(-24));
    }

    #[test]
    fn bfloat16_rounds_to_nearest() {
        assert_eq!(bf16_to_f32(f32_to_bf16(70000.0)), 70144.0);
        assert_eq!(bf16_to_f32(f32_to_bf16(1.0 + 2f32.powi(-10))), 1.0);
        assert_eq!(bf16_to_f32(f32_to_bf16(-2.25)), -2.25);
        assert!(bf16_to_f32(f32_to_bf16(f32::NAN)).is_nan());
    }
}
