//! `FORMAT BSON` input of `JSON.SET` and `JSON.MERGE`: a BSON document whose first element's
//! value becomes the JSON value (an empty document gives `null`), as RedisJSON 2.8.3 reads it.
//!
//! RedisJSON turns that value into MongoDB's relaxed Extended JSON (`{"$oid":"…"}`,
//! `{"$date":"1970-01-01T00:00:00.001Z"}`, `{"$binary":{"base64":"…","subType":"00"}}`, …),
//! writes it as JSON text and parses that text as any JSON input (so the nesting limit and
//! its error apply). [`to_json_text`] produces that text; the error texts are the ones
//! rejson.so answers for malformed documents (measured). The argument reaches here only when
//! it is UTF-8 (RedisJSON refuses other arguments first), so most doubles and dates cannot be
//! sent at all.

use std::fmt::Write as _;

/// The JSON text of the first element of the BSON document at the start of `input`; bytes
/// after the document are ignored.
pub fn to_json_text(input: &[u8]) -> Result<String, String> {
    let declared = input.get(..4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let Some(declared) = declared else { return Err(FILL.into()) };
    if declared < 5 {
        return Err(format!(
            "invalid length {}, expected document length must be at least 5",
            shown(declared)
        ));
    }
    let doc = input.get(..declared as usize).ok_or(FILL)?;
    let mut r = Reader { buf: doc, pos: 0, depth: 0 };
    // The first name's value; a later element of the same name replaces it.
    let mut first: Option<(&str, String)> = None;
    r.document(&mut |r, kind| {
        let name = r.cstr()?;
        let mut v = String::new();
        r.value(kind, &mut v)?;
        match &mut first {
            None => first = Some((name, v)),
            Some((n, slot)) if *n == name => *slot = v,
            Some(_) => {}
        }
        Ok(())
    })?;
    Ok(first.map_or_else(|| "null".to_owned(), |(_, v)| v))
}

const FILL: &str = "failed to fill whole buffer";

/// A length as the bson crate's errors print it: a negative one wraps to an unsigned 64-bit
/// number.
fn shown(len: i32) -> u64 {
    i64::from(len) as u64
}
const EOF: &str = "unexpected end of file";

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Embedded documents open around the current position.
    depth: usize,
}

/// Embedded documents deeper than this are skipped by their length and read as `null`: the
/// JSON text is refused past [`crate::limits::MAX_DEPTH`] anyway (at the same place, since
/// everything before the cut is written), and the reader must not exhaust the stack.
const SKIP_DEPTH: usize = 4 * crate::limits::MAX_DEPTH;

impl<'a> Reader<'a> {
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).ok_or(EOF)?;
        let b = self.buf.get(self.pos..end).ok_or(EOF)?;
        self.pos = end;
        Ok(b)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.bytes(1)?[0])
    }

    fn i32(&mut self) -> Result<i32, String> {
        let b = self.bytes(4)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn i64(&mut self) -> Result<i64, String> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_le_bytes(a))
    }

    /// A NUL-terminated name.
    fn cstr(&mut self) -> Result<&'a str, String> {
        let rest = self.buf.get(self.pos..).unwrap_or_default();
        let n = rest.iter().position(|&b| b == 0).ok_or(EOF)?;
        let s = std::str::from_utf8(&rest[..n]).map_err(|e| e.to_string())?;
        self.pos += n + 1;
        Ok(s)
    }

    /// A length-prefixed, NUL-terminated string.
    fn string(&mut self) -> Result<&'a str, String> {
        let len = self.i32()?;
        if len < 1 {
            return Err(format!(
                "invalid length {}, expected UTF-8 string must have at least 1 byte",
                shown(len)
            ));
        }
        let b = self.bytes(len as usize)?;
        let (text, nul) = b.split_at(b.len() - 1);
        if nul != [0] {
            return Err("string was not null-terminated".into());
        }
        std::str::from_utf8(text).map_err(|e| e.to_string())
    }

    /// Walks a document's elements, calling `each` with the reader at the element's value.
    fn document(&mut self, each: &mut dyn FnMut(&mut Self, u8) -> Result<(), String>) -> Result<(), String> {
        let start = self.pos;
        let len = self.i32()?;
        if len < 5 {
            return Err("invalid length, less than min document size".into());
        }
        loop {
            let kind = self.u8()?;
            if kind == 0 {
                let used = self.pos - start;
                if used as i64 != i64::from(len) {
                    return Err(format!(
                        "got null byte but still have length {} remaining",
                        i64::from(len) - used as i64
                    ));
                }
                return Ok(());
            }
            each(self, kind)?;
            if self.pos - start > len as usize {
                return Err("length of document too short".into());
            }
        }
    }

    /// An embedded document as a JSON object (a repeated name keeps its first place and its
    /// last value) or, for an array, its values in order.
    fn container(&mut self, array: bool, out: &mut String) -> Result<(), String> {
        if self.depth >= SKIP_DEPTH {
            let len = self.i32()?;
            self.bytes(usize::try_from(len).map_err(|_| EOF)?.saturating_sub(4))?;
            out.push_str("null");
            return Ok(());
        }
        self.depth += 1;
        let found = self.members(array, out);
        self.depth -= 1;
        found
    }

    fn members(&mut self, array: bool, out: &mut String) -> Result<(), String> {
        let mut members: Vec<(&'a str, String)> = Vec::new();
        self.document(&mut |r, kind| {
            let name = r.cstr()?;
            let mut v = String::new();
            r.value(kind, &mut v)?;
            match members.iter_mut().find(|(k, _)| !array && *k == name) {
                Some(slot) => slot.1 = v,
                None => members.push((name, v)),
            }
            Ok(())
        })?;
        out.push(if array { '[' } else { '{' });
        for (i, (k, v)) in members.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            if !array {
                push_str(out, k);
                out.push(':');
            }
            out.push_str(v);
        }
        out.push(if array { ']' } else { '}' });
        Ok(())
    }

    /// The value of an element of type `kind` (its name already read) as JSON text.
    fn value(&mut self, kind: u8, out: &mut String) -> Result<(), String> {
        match kind {
            0x01 => {
                let b = self.bytes(8)?;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                push_double(out, f64::from_le_bytes(a));
            }
            0x02 => push_str(out, self.string()?),
            0x03 => self.container(false, out)?,
            0x04 => self.container(true, out)?,
            0x05 => {
                let len = self.i32()?;
                if !(0..=16_777_216).contains(&len) {
                    return Err(format!(
                        "invalid length {}, expected binary length must be between 0 and 16777216",
                        shown(len)
                    ));
                }
                let sub = self.u8()?;
                let mut data = self.bytes(usize::try_from(len).map_err(|_| EOF)?)?;
                if sub == 0x02 {
                    let inner = data.get(..4).map_or(-1, |b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                    if i64::from(inner) != i64::from(len) - 4 {
                        return Err(format!(
                            "invalid length {inner}, expected 0x02 length did not match top level binary length"
                        ));
                    }
                    data = data.get(4..).ok_or(EOF)?;
                }
                out.push_str("{\"$binary\":{\"base64\":\"");
                base64(out, data);
                let _ = write!(out, "\",\"subType\":\"{sub:02x}\"}}}}");
            }
            0x06 => out.push_str("{\"$undefined\":true}"),
            0x07 => {
                out.push_str("{\"$oid\":\"");
                hex(out, self.bytes(12)?);
                out.push_str("\"}");
            }
            0x08 => match self.u8()? {
                0 => out.push_str("false"),
                1 => out.push_str("true"),
                b => {
                    return Err(format!(
                        "invalid value: integer `{b}`, expected boolean must be stored as 0 or 1"
                    ))
                }
            },
            0x09 => push_date(out, self.i64()?),
            0x0A => out.push_str("null"),
            0x0B => {
                let pattern = self.cstr()?;
                let mut options: Vec<char> = self.cstr()?.chars().collect();
                options.sort_unstable();
                out.push_str("{\"$regularExpression\":{\"pattern\":");
                push_str(out, pattern);
                out.push_str(",\"options\":");
                push_str(out, &options.into_iter().collect::<String>());
                out.push_str("}}");
            }
            0x0C => {
                let ns = self.string()?;
                out.push_str("{\"$dbPointer\":{\"$ref\":");
                push_str(out, ns);
                out.push_str(",\"$id\":{\"$oid\":\"");
                hex(out, self.bytes(12)?);
                out.push_str("\"}}}");
            }
            0x0D => {
                out.push_str("{\"$code\":");
                push_str(out, self.string()?);
                out.push('}');
            }
            0x0E => {
                out.push_str("{\"$symbol\":");
                push_str(out, self.string()?);
                out.push('}');
            }
            0x0F => {
                let total = self.i32()?;
                if total < 14 {
                    return Err(format!(
                        "invalid length {}, expected CodeWithScope to be at least 14 bytes",
                        shown(total)
                    ));
                }
                out.push_str("{\"$code\":");
                push_str(out, self.string()?);
                out.push_str(",\"$scope\":");
                self.container(false, out)?;
                out.push('}');
            }
            0x10 => {
                let v = self.i32()?;
                let _ = write!(out, "{v}");
            }
            0x11 => {
                let increment = self.i32()? as u32;
                let time = self.i32()? as u32;
                let _ = write!(out, "{{\"$timestamp\":{{\"t\":{time},\"i\":{increment}}}}}");
            }
            0x12 => {
                let v = self.i64()?;
                let _ = write!(out, "{v}");
            }
            0x13 => {
                let b = self.bytes(16)?;
                let mut a = [0u8; 16];
                a.copy_from_slice(b);
                out.push_str("{\"$numberDecimal\":\"");
                decimal128(out, u128::from_le_bytes(a));
                out.push_str("\"}");
            }
            0x7F => out.push_str("{\"$maxKey\":1}"),
            0xFF => out.push_str("{\"$minKey\":1}"),
            k => return Err(format!("invalid element type: {k}")),
        }
        Ok(())
    }
}

/// A JSON string literal, escaped as serde_json writes it.
fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A double: a JSON number (always with a fraction or exponent, so it stays a float), or
/// `{"$numberDouble":…}` when not finite.
fn push_double(out: &mut String, v: f64) {
    if v.is_nan() {
        out.push_str(if v.is_sign_negative() {
            "{\"$numberDouble\":\"-NaN\"}"
        } else {
            "{\"$numberDouble\":\"NaN\"}"
        });
    } else if v.is_infinite() {
        out.push_str(if v < 0.0 {
            "{\"$numberDouble\":\"-Infinity\"}"
        } else {
            "{\"$numberDouble\":\"Infinity\"}"
        });
    } else {
        let _ = write!(out, "{v:?}");
    }
}

/// A UTC datetime (milliseconds since 1970): RFC 3339 text from 1970 to 9999, else the number.
fn push_date(out: &mut String, ms: i64) {
    const MAX: i64 = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
    if !(0..=MAX).contains(&ms) {
        let _ = write!(out, "{{\"$date\":{{\"$numberLong\":\"{ms}\"}}}}");
        return;
    }
    let (days, rem) = (ms / 86_400_000, ms % 86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, mi, s, milli) = (rem / 3_600_000, rem / 60_000 % 60, rem / 1000 % 60, rem % 1000);
    let _ = write!(out, "{{\"$date\":\"{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}");
    if milli != 0 {
        let frac = format!("{milli:03}");
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    out.push_str("Z\"}");
}

/// Year, month, day of a day count since 1970-01-01 (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn hex(out: &mut String, b: &[u8]) {
    for x in b {
        let _ = write!(out, "{x:02x}");
    }
}

fn base64(out: &mut String, data: &[u8]) {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in data.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

/// IEEE 754-2008 decimal128 (BID encoding) as its scientific string (the BSON spec's rules).
fn decimal128(out: &mut String, bits: u128) {
    let negative = bits >> 127 == 1;
    let sign = if negative { "-" } else { "" };
    let top = (bits >> 122) & 0x1f;
    if top == 0x1f {
        out.push_str("NaN");
        return;
    }
    if top == 0x1e {
        out.push_str(sign);
        out.push_str("Infinity");
        return;
    }
    let (exponent, coefficient) = if (bits >> 125) & 3 == 3 {
        // The coefficient would exceed 34 digits: non-canonical, read as zero.
        (((bits >> 111) & 0x3fff) as i64, 0u128)
    } else {
        (((bits >> 113) & 0x3fff) as i64, bits & ((1u128 << 113) - 1))
    };
    let coefficient =
        if coefficient > 9_999_999_999_999_999_999_999_999_999_999_999 { 0 } else { coefficient };
    let exponent = exponent - 6176;
    let digits = coefficient.to_string();
    let n = digits.len() as i64;
    let adjusted = exponent + n - 1;
    out.push_str(sign);
    if exponent <= 0 && adjusted >= -6 {
        if exponent == 0 {
            out.push_str(&digits);
        } else {
            let point = n + exponent;
            if point > 0 {
                out.push_str(&digits[..point as usize]);
                out.push('.');
                out.push_str(&digits[point as usize..]);
            } else {
                out.push_str("0.");
                out.push_str(&"0".repeat((-point) as usize));
                out.push_str(&digits);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "E{}{adjusted}", if adjusted >= 0 { "+" } else { "" });
    }
}
