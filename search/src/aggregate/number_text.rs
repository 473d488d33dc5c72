//! C's `%.{prec}g`, as RediSearch prints numbers (`%.12g` in rows, `%.17g` in sort keys).
//!
//! Most numbers a document holds (a price, a count, a coordinate) have a few significant
//! digits. For those the shortest decimal that reads back as the same double (ryu's) is also
//! what `%g` prints once rounded to `prec` digits, so the digits come from ryu and only the
//! layout is `%g`'s; the other numbers go through the general rounding ([`format_g_rounded`]).
//! Why the two agree: with `prec` at most [`SHORTEST_UP_TO`], the `prec`-digit grid around a
//! double is coarser than twice the distance between the double and its shortest decimal (at
//! most half an ulp, 2^-53 of the value; the grid's half step is at least 5·10^-(prec+1) of
//! it), so rounding the double's exact value to `prec` digits lands on that decimal whenever it
//! has at most `prec` digits.

use std::fmt::Write as _;

/// The largest precision for which a shortest decimal of at most that many digits is what
/// `%g` prints (see the module).
const SHORTEST_UP_TO: usize = 15;

/// C's `%.{prec}g`.
pub fn format_g(n: f64, prec: usize) -> String {
    if n.is_nan() {
        return if n.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    if n.is_infinite() {
        return if n < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if n == 0.0 {
        return if n.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let p = prec.max(1);
    // (A subnormal's shortest decimal can be far from it: only normal numbers have their
    // 53 bits.)
    if p <= SHORTEST_UP_TO && n.is_normal() {
        if let Some(s) = format_g_shortest(n, p) {
            return s;
        }
    }
    format_g_rounded(n, p)
}

/// `%.{p}g` of a normal `n` whose shortest decimal has at most `p` digits; None when
/// it has more.
fn format_g_shortest(n: f64, p: usize) -> Option<String> {
    let mut buf = ryu::Buffer::new();
    let text = buf.format_finite(n);
    let (neg, text) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    // ryu prints `123.45`, `0.00012`, `1.5e-7` or `1e20`.
    let (mantissa, exp) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (text, 0),
    };
    let int_len = mantissa.find('.').unwrap_or(mantissa.len());
    // The digits on the stack (ryu's mantissa has at most 17): a row of a search page
    // formats its numbers here, one allocation each (the text returned).
    let mut held = [0u8; 24];
    let mut len = 0;
    for d in mantissa.bytes().filter(u8::is_ascii_digit) {
        *held.get_mut(len)? = d;
        len += 1;
    }
    // value = digits · 10^(exp + int_len - len); leading zeros change nothing.
    let mut scale = exp + int_len as i32 - len as i32;
    let mut digits = held.get(..len)?;
    while let Some((b'0', rest)) = digits.split_first() {
        digits = rest;
    }
    while let Some((b'0', rest)) = digits.split_last() {
        digits = rest;
        scale += 1;
    }
    if digits.is_empty() || digits.len() > p {
        return None;
    }
    // The decimal exponent of the first digit (d.ddd · 10^x).
    let x = scale + digits.len() as i32 - 1;
    let mut out = String::with_capacity(digits.len() + 8);
    if neg {
        out.push('-');
    }
    let digit = |d: &u8| char::from(*d);
    if x < -4 || x >= p as i32 {
        out.push(digit(&digits[0]));
        if digits.len() > 1 {
            out.push('.');
            out.extend(digits[1..].iter().map(digit));
        }
        out.push('e');
        out.push(if x < 0 { '-' } else { '+' });
        let _ = write!(out, "{:02}", x.abs());
    } else if x >= 0 {
        let whole = x as usize + 1;
        out.extend(digits.iter().take(whole).map(digit));
        out.extend(std::iter::repeat_n('0', whole.saturating_sub(digits.len())));
        if digits.len() > whole {
            out.push('.');
            out.extend(digits[whole..].iter().map(digit));
        }
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-x - 1) as usize));
        out.extend(digits.iter().map(digit));
    }
    Some(out)
}

/// `%.{p}g` of a finite nonzero `n` by rounding it to `p` significant digits.
fn format_g_rounded(n: f64, p: usize) -> String {
    // Exponent after rounding to p significant digits.
    let sci = format!("{:.*e}", p - 1, n);
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap_or(0)),
        None => (sci.clone(), 0),
    };
    if exp < -4 || exp >= p as i32 {
        let m = strip_zeros(&mantissa);
        let mut out = String::with_capacity(m.len() + 5);
        out.push_str(&m);
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let _ = write!(out, "{:02}", exp.abs());
        out
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{:.*}", decimals, n))
    }
}

fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Doubles of every shape: few digits at every scale, random bits, powers of ten and
    /// their neighbours, halfway cases of the rounding.
    fn samples() -> Vec<f64> {
        let mut out = Vec::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let r = next();
            let v = match r % 4 {
                // A price-like decimal: up to 9 digits at a scale of 10^-12..10^20.
                0 | 1 => {
                    let digits = (next() % 1_000_000_000) as f64;
                    let scale = (next() % 33) as i32 - 12;
                    digits * 10f64.powi(scale - 4)
                }
                // Any finite double.
                2 => f64::from_bits(next()),
                // Near a power of ten.
                _ => {
                    let p = 10f64.powi((next() % 40) as i32 - 20);
                    f64::from_bits(p.to_bits().wrapping_add(next() % 5).wrapping_sub(2))
                }
            };
            if v.is_finite() && v != 0.0 {
                out.push(if next() % 2 == 0 { v } else { -v });
            }
        }
        out.extend([0.5, 0.1, 1e-5, 1e-4, 9.9999e-5, 123456789012.0, 999999999999.5, 1e15, 2.5e-300, 5e-324]);
        out
    }

    #[test]
    fn the_shortest_digits_print_as_the_rounding_does() {
        let mut short = 0;
        for n in samples() {
            for p in [1, 6, 12, 15] {
                let want = format_g_rounded(n, p);
                if let Some(got) = format_g_shortest(n, p).filter(|_| n.is_normal()) {
                    short += 1;
                    assert_eq!(got, want, "%.{p}g of {n:e} ({:#x})", n.to_bits());
                }
                assert_eq!(format_g(n, p), want);
            }
        }
        // Most of the price-like half took the shortest way.
        assert!(short > 200_000, "{short}");
    }

    #[test]
    fn c_layouts() {
        assert_eq!(format_g(0.0001, 12), "0.0001");
        assert_eq!(format_g(0.00001, 12), "1e-05");
        assert_eq!(format_g(123.45, 12), "123.45");
        assert_eq!(format_g(-123.45, 12), "-123.45");
        assert_eq!(format_g(1e12, 12), "1e+12");
        assert_eq!(format_g(999999999999.0, 12), "999999999999");
        assert_eq!(format_g(1.5e100, 12), "1.5e+100");
        assert_eq!(format_g(0.1, 17), "0.10000000000000001");
        assert_eq!(format_g(1.0 / 3.0, 12), "0.333333333333");
    }
}
