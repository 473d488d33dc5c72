//! JSON text output, byte-identical to RedisJSON 2.8.3 (serde_json < 1.0.147):
//! floats via ryu (`1.0`, `1e308`, `1e-7`, `-0.0`), integers via itoa, strings
//! escaped like serde_json (`\"`, `\\`, `\b \t \n \f \r`, other control
//! characters as `\u00xx`; everything else, including non-ASCII, raw).
//!
//! [`Format`] carries `JSON.GET`'s INDENT / NEWLINE / SPACE strings; an empty
//! container prints as `[]` / `{}` whatever the format.

use super::packed::Packed;
use super::scan::skip_plain;
use super::{Num, Repr, Value};

/// Layout of formatted output (`JSON.GET k INDENT i NEWLINE n SPACE s`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Format<'a> {
    /// Written once per nesting level at the start of each line.
    pub indent: &'a [u8],
    /// Written before each item and before a closing bracket of a non-empty container.
    pub newline: &'a [u8],
    /// Written after the `:` of each object member.
    pub space: &'a [u8],
}

impl Format<'static> {
    /// No whitespace at all.
    pub const COMPACT: Format<'static> = Format { indent: b"", newline: b"", space: b"" };
}

impl Format<'_> {
    fn is_compact(&self) -> bool {
        self.indent.is_empty() && self.newline.is_empty() && self.space.is_empty()
    }
}

impl Value {
    /// The compact JSON text.
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(128);
        write_compact(self, &mut out);
        // SAFETY: 1. only valid UTF-8 is ever written: ASCII punctuation,
        // digits, escapes and the bytes of whole `&str`s.
        unsafe { String::from_utf8_unchecked(out) }
    }

    /// Appends the JSON text of this value to `out`, laid out per `fmt`.
    pub fn write_json(&self, out: &mut Vec<u8>, fmt: &Format) {
        if fmt.is_compact() {
            write_compact(self, out);
        } else {
            write_pretty(self, out, fmt, 0);
        }
    }

    /// Appends `items` as one JSON array, byte for byte as an array value holding
    /// them would be written (e.g. the `[match1,match2]` reply of `JSON.GET k $..a`),
    /// without building that array.
    pub fn write_json_array<'v, I>(items: I, out: &mut Vec<u8>, fmt: &Format)
    where
        I: IntoIterator<Item = &'v Value>,
    {
        if fmt.is_compact() {
            out.push(b'[');
            for (i, item) in items.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_compact(item, out);
            }
            out.push(b']');
        } else {
            write_pretty_array(items.into_iter(), out, fmt, 0);
        }
    }
}

fn write_compact(v: &Value, out: &mut Vec<u8>) {
    match &v.0 {
        Repr::Array(a) => {
            out.push(b'[');
            let mut first = true;
            for item in a.iter() {
                if !first {
                    out.push(b',');
                }
                first = false;
                write_compact(item, out);
            }
            out.push(b']');
        }
        Repr::Packed(p) => {
            out.push(b'[');
            let mut first = true;
            p.for_each_num(|n| {
                if !first {
                    out.push(b',');
                }
                first = false;
                write_num(n, out);
            });
            out.push(b']');
        }
        Repr::Object(o) => {
            out.push(b'{');
            let plain = o.keys_plain();
            let mut first = true;
            for (k, item) in o.iter() {
                if !first {
                    out.push(b',');
                }
                first = false;
                if plain {
                    write_plain_str(k, out);
                } else {
                    write_str(k, out);
                }
                out.push(b':');
                write_compact(item, out);
            }
            out.push(b'}');
        }
        _ => write_scalar(v, out),
    }
}

fn newline_indent(out: &mut Vec<u8>, fmt: &Format, depth: usize) {
    out.extend_from_slice(fmt.newline);
    for _ in 0..depth {
        out.extend_from_slice(fmt.indent);
    }
}

fn write_pretty_array<'v>(
    items: impl Iterator<Item = &'v Value>,
    out: &mut Vec<u8>,
    fmt: &Format,
    depth: usize,
) {
    out.push(b'[');
    let mut empty = true;
    for item in items {
        if !empty {
            out.push(b',');
        }
        empty = false;
        newline_indent(out, fmt, depth + 1);
        write_pretty(item, out, fmt, depth + 1);
    }
    if !empty {
        newline_indent(out, fmt, depth);
    }
    out.push(b']');
}

/// A packed array laid out like [`write_pretty_array`] would lay out its numbers.
fn write_pretty_packed(p: &Packed, out: &mut Vec<u8>, fmt: &Format, depth: usize) {
    out.push(b'[');
    let mut first = true;
    p.for_each_num(|n| {
        if !first {
            out.push(b',');
        }
        first = false;
        newline_indent(out, fmt, depth + 1);
        write_num(n, out);
    });
    if !p.is_empty() {
        newline_indent(out, fmt, depth);
    }
    out.push(b']');
}

fn write_pretty(v: &Value, out: &mut Vec<u8>, fmt: &Format, depth: usize) {
    match &v.0 {
        Repr::Array(a) => write_pretty_array(a.iter(), out, fmt, depth),
        Repr::Packed(p) => write_pretty_packed(p, out, fmt, depth),
        Repr::Object(o) => {
            out.push(b'{');
            if o.is_empty() {
                out.push(b'}');
                return;
            }
            let plain = o.keys_plain();
            let mut first = true;
            for (k, item) in o.iter() {
                if !first {
                    out.push(b',');
                }
                first = false;
                newline_indent(out, fmt, depth + 1);
                if plain {
                    write_plain_str(k, out);
                } else {
                    write_str(k, out);
                }
                out.push(b':');
                out.extend_from_slice(fmt.space);
                write_pretty(item, out, fmt, depth + 1);
            }
            newline_indent(out, fmt, depth);
            out.push(b'}');
        }
        _ => write_scalar(v, out),
    }
}

fn write_scalar(v: &Value, out: &mut Vec<u8>) {
    match &v.0 {
        Repr::Null => out.extend_from_slice(b"null"),
        Repr::Bool(true) => out.extend_from_slice(b"true"),
        Repr::Bool(false) => out.extend_from_slice(b"false"),
        Repr::I64(i) => out.extend_from_slice(itoa::Buffer::new().format(*i).as_bytes()),
        Repr::U64(u) => out.extend_from_slice(itoa::Buffer::new().format(*u).as_bytes()),
        Repr::F64(f) => write_f64(*f, out),
        Repr::InlineStr(s) => write_str(s.as_str(), out),
        Repr::HeapStr(s) if s.is_plain() => write_plain_str(s.as_str(), out),
        Repr::HeapStr(s) => write_str(s.as_str(), out),
        Repr::Array(_) | Repr::Packed(_) | Repr::Object(_) => write_compact(v, out),
    }
}

/// Writes a number as [`write_scalar`] writes the value holding it.
#[inline]
fn write_num(n: Num, out: &mut Vec<u8>) {
    match n {
        Num::I64(i) => out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes()),
        Num::U64(u) => out.extend_from_slice(itoa::Buffer::new().format(u).as_bytes()),
        Num::F64(f) => write_f64(f, out),
    }
}

/// Writes a float the way serde_json < 1.0.147 does: ryu, `null` if not finite.
pub(crate) fn write_f64(f: f64, out: &mut Vec<u8>) {
    if f.is_finite() {
        out.extend_from_slice(ryu::Buffer::new().format_finite(f).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

/// Escape action per byte: 0 = raw, `u` = `\u00xx`, else the letter after `\`.
const ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = b'u';
        i += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0a] = b'n';
    t[0x0c] = b'f';
    t[0x0d] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// Writes `s`, known to need no escaping, in quotes.
#[inline]
pub(crate) fn write_plain_str(s: &str, out: &mut Vec<u8>) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
}

/// Writes `s` as a quoted, escaped JSON string.
pub(crate) fn write_str(s: &str, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    loop {
        let i = skip_plain(bytes, start);
        let Some(&b) = bytes.get(i) else { break };
        out.extend_from_slice(&bytes[start..i]);
        let esc = ESCAPE[b as usize];
        if esc == b'u' {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 0xf) as usize],
            ]);
        } else {
            out.extend_from_slice(&[b'\\', esc]);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}
