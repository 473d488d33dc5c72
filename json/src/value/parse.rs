//! JSON text to [`Value`] in one pass, without recursion.
//!
//! The grammar is RFC 8259; errors reproduce serde_json's texts and positions
//! exactly as RedisJSON 2.8.3 replies them (`expected value at line 1 column
//! 1`), including its older serde_json's `\u` escape positions. Unlike
//! RedisJSON, text after the value is rejected (`trailing characters`).
//! Input that is not UTF-8 is rejected first, as RedisJSON does
//! (`Couldn't parse as UTF-8 string`).
//!
//! Open containers live on an explicit stack, so any depth up to the limit is
//! safe. Finished children collect on shared scratch stacks and move into an
//! exact-size block when their container closes (an object's key list is
//! interned then, once). Duplicate keys: the last
//! value wins, at the first key's position. Numbers: `i64` if the integer
//! fits, else `u64`, else `f64`; floats are correctly rounded.

use std::cell::Cell;

use super::packed::{Packed, PACK_MIN_LEN};
use super::scan::skip_plain;
use super::shape::{push_encoded, INDEX_MIN_LEN};
use super::{Array, FpType, Object, Value};
use crate::error::{ErrorCode, ParseError};
use crate::limits::{MAX_DEPTH, MAX_LOAD_DEPTH};

impl Value {
    /// Parses command input (`JSON.SET` etc.): nesting limited to [`MAX_DEPTH`].
    pub fn parse(input: &[u8]) -> Result<Value, ParseError> {
        Parser::new(input, MAX_DEPTH).parse_document()
    }

    /// Parses a stored document (RDB load): nesting up to [`MAX_LOAD_DEPTH`].
    pub fn parse_unlimited(input: &[u8]) -> Result<Value, ParseError> {
        Parser::new(input, MAX_LOAD_DEPTH).parse_document()
    }

    /// Parses command input like [`Value::parse`], storing every non-empty array of numbers
    /// as `FPHA` type `ty` (`JSON.SET … FPHA`): integers become floats, every number is
    /// rounded to the type, and a number out of its range fails the parse with
    /// [`ErrorCode::ValueOutOfRange`], positioned just after the number (Redis 8.8's
    /// `value out of range for F16 at line 1 column 13`).
    pub fn parse_fpha(input: &[u8], ty: FpType) -> Result<Value, ParseError> {
        let mut p = Parser::new(input, MAX_DEPTH);
        p.fpha = Some(ty);
        p.parse_document()
    }
}

/// An open container.
enum Frame {
    /// Items so far are `values[start..]`.
    Array { start: usize },
    /// Members so far are `entries[start..]`, their keys `keys[keys_start..]`.
    Object { start: usize, keys_start: usize },
}

struct Parser<'a> {
    input: &'a [u8],
    idx: usize,
    max_depth: usize,
    buf: Buffers,
    /// `FPHA` type of number arrays, if any.
    fpha: Option<FpType>,
    /// With `fpha`: where each value of `buf.values` ends in the input (for the error).
    ends: Vec<usize>,
}

/// The parser's scratch stacks, kept per thread between parses so that
/// parsing does not regrow them every time.
#[derive(Default)]
struct Buffers {
    stack: Vec<Frame>,
    values: Vec<Value>,
    /// Keys of the open objects, back to back.
    keys: String,
    /// Members of the open objects: (end of the key in `keys`, value).
    entries: Vec<(usize, Value)>,
    /// Unescaped string contents.
    scratch: Vec<u8>,
    /// The encoded key list of the object being closed.
    arena: Vec<u8>,
}

/// Buffers larger than this many bytes in total are freed after a parse
/// rather than kept for the next one.
const KEEP_BUFFER_BYTES: usize = 64 * 1024;

impl Buffers {
    fn bytes(&self) -> usize {
        self.stack.capacity() * std::mem::size_of::<Frame>()
            + self.values.capacity() * std::mem::size_of::<Value>()
            + self.keys.capacity()
            + self.entries.capacity() * std::mem::size_of::<(usize, Value)>()
            + self.scratch.capacity()
            + self.arena.capacity()
    }

    fn clear(&mut self) {
        self.stack.clear();
        self.values.clear();
        self.keys.clear();
        self.entries.clear();
        self.scratch.clear();
        self.arena.clear();
    }
}

thread_local! {
    static BUFFERS: Cell<Option<Buffers>> = const { Cell::new(None) };
}

impl Drop for Parser<'_> {
    /// Gives the (emptied) buffers back for the next parse on this thread.
    fn drop(&mut self) {
        let mut b = std::mem::take(&mut self.buf);
        if b.bytes() > KEEP_BUFFER_BYTES {
            return;
        }
        b.clear();
        // `try_with`: during thread exit the slot may be gone; then just free.
        let _ = BUFFERS.try_with(|slot| slot.set(Some(b)));
    }
}

type Res<T> = Result<T, ParseError>;

/// Where a parsed string's text is: `Some((start, end))` in the input, `None` in the scratch.
type StrRef = Option<(usize, usize)>;

impl<'a> Parser<'a> {
    fn new(input: &'a [u8], max_depth: usize) -> Self {
        let buf = BUFFERS.with(Cell::take).unwrap_or_default();
        Parser { input, idx: 0, max_depth, buf, fpha: None, ends: Vec::new() }
    }

    // ----- positions and errors (serde_json's `error` / `peek_error`) -----

    /// An error located at the current index.
    #[cold]
    fn error(&self, code: ErrorCode) -> ParseError {
        ParseError::at(code, self.input, self.idx)
    }

    /// An error located one byte after the current index (at the peeked byte).
    #[cold]
    fn peek_error(&self, code: ErrorCode) -> ParseError {
        ParseError::at(code, self.input, (self.idx + 1).min(self.input.len()))
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.input.get(self.idx).copied()
    }

    #[inline]
    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.idx += 1;
        Some(b)
    }

    /// Skips whitespace; returns the next byte without consuming it.
    #[inline]
    fn skip_ws(&mut self) -> Option<u8> {
        loop {
            match self.peek() {
                Some(b' ' | b'\n' | b'\t' | b'\r') => self.idx += 1,
                other => return other,
            }
        }
    }

    // ----- document -----

    fn parse_document(mut self) -> Res<Value> {
        if std::str::from_utf8(self.input).is_err() {
            return Err(ParseError::not_utf8());
        }
        let v = self.parse_value()?;
        match self.skip_ws() {
            Some(_) => Err(self.peek_error(ErrorCode::TrailingCharacters)),
            None => Ok(v),
        }
    }

    /// Parses one complete value (with everything nested in it).
    fn parse_value(&mut self) -> Res<Value> {
        'value: loop {
            // Parse a scalar, or open a container and go round for its first child.
            let mut v = match self.skip_ws() {
                None => return Err(self.peek_error(ErrorCode::EofWhileParsingValue)),
                Some(b'n') => self.ident(b"null", Value::null())?,
                Some(b't') => self.ident(b"true", Value::from(true))?,
                Some(b'f') => self.ident(b"false", Value::from(false))?,
                Some(b'-') => {
                    self.idx += 1;
                    self.number(false)?
                }
                Some(b'0'..=b'9') => self.number(true)?,
                Some(b'"') => {
                    self.idx += 1;
                    self.string_value()?
                }
                Some(b'[') => {
                    self.enter()?;
                    self.buf.stack.push(Frame::Array { start: self.buf.values.len() });
                    match self.skip_ws() {
                        None => return Err(self.peek_error(ErrorCode::EofWhileParsingList)),
                        Some(b']') => {
                            self.idx += 1;
                            self.buf.stack.pop();
                            Value::empty_array()
                        }
                        Some(_) => continue 'value,
                    }
                }
                Some(b'{') => {
                    self.enter()?;
                    self.buf.stack.push(Frame::Object {
                        start: self.buf.entries.len(),
                        keys_start: self.buf.keys.len(),
                    });
                    match self.skip_ws() {
                        None => return Err(self.peek_error(ErrorCode::EofWhileParsingObject)),
                        Some(b'}') => {
                            self.idx += 1;
                            self.buf.stack.pop();
                            Value::empty_object()
                        }
                        Some(b'"') => {
                            self.key()?;
                            continue 'value;
                        }
                        Some(_) => return Err(self.peek_error(ErrorCode::KeyMustBeAString)),
                    }
                }
                Some(_) => return Err(self.peek_error(ErrorCode::ExpectedSomeValue)),
            };
            // `v` is complete: hand it to its container, closing containers as they end.
            loop {
                match self.buf.stack.last() {
                    None => return Ok(v),
                    Some(Frame::Array { start }) => {
                        let start = *start;
                        self.buf.values.push(v);
                        if self.fpha.is_some() {
                            self.ends.resize(self.buf.values.len() - 1, 0);
                            self.ends.push(self.idx);
                        }
                        match self.skip_ws() {
                            None => return Err(self.peek_error(ErrorCode::EofWhileParsingList)),
                            Some(b',') => {
                                self.idx += 1;
                                match self.skip_ws() {
                                    Some(b']') => return Err(self.peek_error(ErrorCode::TrailingComma)),
                                    None => return Err(self.peek_error(ErrorCode::EofWhileParsingValue)),
                                    Some(_) => continue 'value,
                                }
                            }
                            Some(b']') => {
                                self.idx += 1;
                                self.buf.stack.pop();
                                v = self.close_array(start)?;
                            }
                            Some(_) => return Err(self.peek_error(ErrorCode::ExpectedListCommaOrEnd)),
                        }
                    }
                    Some(Frame::Object { start, keys_start }) => {
                        let (start, keys_start) = (*start, *keys_start);
                        self.buf.entries.push((self.buf.keys.len(), v));
                        match self.skip_ws() {
                            None => return Err(self.peek_error(ErrorCode::EofWhileParsingObject)),
                            Some(b',') => {
                                self.idx += 1;
                                match self.skip_ws() {
                                    Some(b'"') => {
                                        self.key()?;
                                        continue 'value;
                                    }
                                    Some(b'}') => return Err(self.peek_error(ErrorCode::TrailingComma)),
                                    None => return Err(self.peek_error(ErrorCode::EofWhileParsingValue)),
                                    Some(_) => return Err(self.peek_error(ErrorCode::KeyMustBeAString)),
                                }
                            }
                            Some(b'}') => {
                                self.idx += 1;
                                self.buf.stack.pop();
                                v = Value::from(self.close_object(start, keys_start));
                            }
                            Some(_) => return Err(self.peek_error(ErrorCode::ExpectedObjectCommaOrEnd)),
                        }
                    }
                }
            }
        }
    }

    /// Builds the array of `values[start..]`: packed when it is numbers packed storage takes
    /// (see [`PACK_MIN_LEN`]) or when `FPHA` is given.
    fn close_array(&mut self, start: usize) -> Res<Value> {
        let len = self.buf.values.len().saturating_sub(start);
        if self.fpha.is_some() || len >= PACK_MIN_LEN {
            if let Some(v) = self.close_packed(start)? {
                return Ok(v);
            }
        }
        let mut a = Array::new();
        a.append_from_vec(&mut self.buf.values, start);
        Ok(Value::from(a))
    }

    /// The packed array of `values[start..]`, if it packs (out of line: the short arrays of
    /// most documents never get here).
    #[inline(never)]
    fn close_packed(&mut self, start: usize) -> Res<Option<Value>> {
        let items = self.buf.values.get(start..).unwrap_or_default();
        let packed = match self.fpha {
            Some(ty) => match Packed::from_values_as(items, ty) {
                Ok(p) => p,
                Err(i) => {
                    let end = self.ends.get(start + i).copied().unwrap_or(self.idx);
                    let at = (end + 1).min(self.input.len());
                    return Err(ParseError::at(ErrorCode::ValueOutOfRange(ty), self.input, at));
                }
            },
            None => Packed::from_values(items),
        };
        Ok(packed.map(|p| {
            // SAFETY: 1. `values[start..]` were all numbers (or they would not have packed),
            // which own nothing: forgetting them instead of dropping them leaks nothing.
            unsafe { self.buf.values.set_len(start) };
            Value::from(p)
        }))
    }

    /// Accounts for a `[` or `{` at the current index (not yet consumed), then consumes it.
    #[inline]
    fn enter(&mut self) -> Res<()> {
        if self.buf.stack.len() + 1 >= self.max_depth {
            return Err(self.peek_error(ErrorCode::RecursionLimitExceeded));
        }
        self.idx += 1;
        Ok(())
    }

    /// Builds the object of `entries[start..]` (keys in `keys[keys_start..]`).
    /// Its key list is encoded in `arena` and interned once, at the end.
    fn close_object(&mut self, start: usize, keys_start: usize) -> Object {
        let n = self.buf.entries.len() - start;
        // Small objects: distinct fingerprints prove distinct keys, so the key
        // list is known without lookups. Otherwise build with duplicate
        // handling (the last value wins, at the first key's position).
        let mut unique = n <= INDEX_MIN_LEN;
        if unique {
            let mut fingerprints = [0u64; INDEX_MIN_LEN];
            self.buf.arena.clear();
            let mut from = keys_start;
            for (i, (end, _)) in self.buf.entries[start..].iter().enumerate() {
                let key = self.buf.keys.get(from..*end).unwrap_or_default();
                let f = fingerprint(key.as_bytes());
                if fingerprints.get(..i).unwrap_or_default().contains(&f) {
                    unique = false;
                    break;
                }
                if let Some(slot) = fingerprints.get_mut(i) {
                    *slot = f;
                }
                push_encoded(&mut self.buf.arena, key);
                from = *end;
            }
        }
        let o = if unique {
            Object::from_unique_parts(&self.buf.arena, n, self.buf.entries.drain(start..).map(|(_, v)| v))
        } else {
            let keys = &self.buf.keys;
            let mut from = keys_start;
            Object::from_pairs(self.buf.entries.drain(start..).map(move |(end, v)| {
                let key = keys.get(from..end).unwrap_or_default();
                from = end;
                (key, v)
            }))
        };
        self.buf.keys.truncate(keys_start);
        o
    }

    /// Parses the key at `"` (current byte) and the colon after it; the key text
    /// is appended to `keys`.
    fn key(&mut self) -> Res<()> {
        self.idx += 1;
        let s = self.string()?;
        let bytes = match s {
            Some((start, end)) => self.input.get(start..end).unwrap_or_default(),
            None => &self.buf.scratch,
        };
        // SAFETY: 1. the bytes are valid UTF-8: see `StrRef`.
        self.buf.keys.push_str(unsafe { std::str::from_utf8_unchecked(bytes) });
        match self.skip_ws() {
            Some(b':') => {
                self.idx += 1;
                Ok(())
            }
            Some(_) => Err(self.peek_error(ErrorCode::ExpectedColon)),
            None => Err(self.peek_error(ErrorCode::EofWhileParsingObject)),
        }
    }

    /// `null` / `true` / `false` starting at the current byte.
    #[inline]
    fn ident(&mut self, word: &[u8], v: Value) -> Res<Value> {
        self.idx += 1;
        for expected in word.iter().skip(1) {
            match self.next() {
                None => return Err(self.error(ErrorCode::EofWhileParsingValue)),
                Some(b) if b != *expected => return Err(self.error(ErrorCode::ExpectedSomeIdent)),
                Some(_) => {}
            }
        }
        Ok(v)
    }

    // ----- strings -----

    fn string_value(&mut self) -> Res<Value> {
        let s = self.string()?;
        let bytes = match s {
            Some((start, end)) => self.input.get(start..end).unwrap_or_default(),
            None => &self.buf.scratch,
        };
        // SAFETY: 1. the bytes are valid UTF-8: see `StrRef`.
        let text = unsafe { std::str::from_utf8_unchecked(bytes) };
        // Text taken straight from the input stopped only at its closing quote:
        // no backslash and no control character in it, so it is plain.
        Ok(Value::from_parsed_str(text, s.is_some()))
    }

    /// Parses string contents after the opening quote, through the closing one.
    /// The unescaped text is `input[start..end]` when there was no escape
    /// (`Some((start, end))`), else all of `scratch` (`None`).
    ///
    /// Both are valid UTF-8 (the `StrRef` guarantee): the input was validated
    /// in `parse_document` and is only cut at ASCII bytes (quotes, backslashes),
    /// and escapes are appended as whole UTF-8 encoded chars.
    fn string(&mut self) -> Res<StrRef> {
        let input = self.input;
        let mut start = self.idx;
        let mut escaped = false;
        loop {
            self.idx = skip_plain(input, self.idx);
            match input.get(self.idx) {
                None => return Err(self.error(ErrorCode::EofWhileParsingString)),
                Some(b'"') => {
                    let end = self.idx;
                    self.idx += 1;
                    if !escaped {
                        return Ok(Some((start, end)));
                    }
                    self.buf.scratch.extend_from_slice(input.get(start..end).unwrap_or_default());
                    return Ok(None);
                }
                Some(b'\\') => {
                    if !escaped {
                        self.buf.scratch.clear();
                        escaped = true;
                    }
                    self.buf.scratch.extend_from_slice(input.get(start..self.idx).unwrap_or_default());
                    self.idx += 1;
                    self.escape()?;
                    start = self.idx;
                }
                Some(_) => {
                    self.idx += 1;
                    return Err(self.error(ErrorCode::ControlCharacterWhileParsingString));
                }
            }
        }
    }

    /// Parses an escape after its backslash, appending the character to `scratch`.
    fn escape(&mut self) -> Res<()> {
        let c = match self.next() {
            None => return Err(self.error(ErrorCode::EofWhileParsingString)),
            Some(c) => c,
        };
        let byte = match c {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => return self.unicode_escape(),
            _ => return Err(self.error(ErrorCode::InvalidEscape)),
        };
        self.buf.scratch.push(byte);
        Ok(())
    }

    /// Four hex digits (RedisJSON's serde_json checks them one by one).
    fn hex4(&mut self) -> Res<u16> {
        if self.idx + 4 > self.input.len() {
            self.idx = self.input.len();
            return Err(self.error(ErrorCode::EofWhileParsingString));
        }
        let mut n = 0u16;
        for _ in 0..4 {
            let c = self.next().unwrap_or(0);
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => return Err(self.error(ErrorCode::InvalidEscape)),
            };
            n = (n << 4) | d as u16;
        }
        Ok(n)
    }

    /// `\uXXXX` (after the `u`), with surrogate pairs; lone surrogates are errors.
    fn unicode_escape(&mut self) -> Res<()> {
        let n = self.hex4()?;
        let c = match n {
            0xDC00..=0xDFFF => return Err(self.error(ErrorCode::LoneLeadingSurrogateInHexEscape)),
            0xD800..=0xDBFF => {
                for expected in [b'\\', b'u'] {
                    match self.next() {
                        None => return Err(self.error(ErrorCode::EofWhileParsingString)),
                        Some(b) if b != expected => {
                            return Err(self.error(ErrorCode::UnexpectedEndOfHexEscape));
                        }
                        Some(_) => {}
                    }
                }
                let n2 = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&n2) {
                    return Err(self.error(ErrorCode::LoneLeadingSurrogateInHexEscape));
                }
                0x10000 + (((n as u32 - 0xD800) << 10) | (n2 as u32 - 0xDC00))
            }
            _ => n as u32,
        };
        let mut buf = [0u8; 4];
        let ch = char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER);
        self.buf.scratch.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        Ok(())
    }

    // ----- numbers -----

    /// Parses a number whose sign (if any) was consumed; `positive` is false after `-`.
    fn number(&mut self, positive: bool) -> Res<Value> {
        let text_start = if positive { self.idx } else { self.idx - 1 };
        // Integer part.
        let mut significand: u64 = 0;
        let mut overflow = false;
        let mut mantissa_zero = true;
        match self.next() {
            None => return Err(self.error(ErrorCode::EofWhileParsingValue)),
            Some(b'0') => {
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.peek_error(ErrorCode::InvalidNumber));
                }
            }
            Some(c @ b'1'..=b'9') => {
                significand = (c - b'0') as u64;
                mantissa_zero = false;
                while let Some(c @ b'0'..=b'9') = self.peek() {
                    self.idx += 1;
                    match significand.checked_mul(10).and_then(|s| s.checked_add((c - b'0') as u64)) {
                        Some(s) if !overflow => significand = s,
                        _ => overflow = true,
                    }
                }
            }
            Some(_) => return Err(self.error(ErrorCode::InvalidNumber)),
        }
        let mut is_float = overflow;
        // Fraction.
        if self.peek() == Some(b'.') {
            is_float = true;
            self.idx += 1;
            let digits_start = self.idx;
            while let Some(c @ b'0'..=b'9') = self.peek() {
                mantissa_zero &= c == b'0';
                self.idx += 1;
            }
            if self.idx == digits_start {
                return Err(match self.peek() {
                    Some(_) => self.peek_error(ErrorCode::InvalidNumber),
                    None => self.peek_error(ErrorCode::EofWhileParsingValue),
                });
            }
        }
        // Exponent.
        if let Some(b'e' | b'E') = self.peek() {
            is_float = true;
            self.idx += 1;
            let positive_exp = match self.peek() {
                Some(b'+') => {
                    self.idx += 1;
                    true
                }
                Some(b'-') => {
                    self.idx += 1;
                    false
                }
                _ => true,
            };
            let mut exp: i32 = match self.next() {
                None => return Err(self.error(ErrorCode::EofWhileParsingValue)),
                Some(c @ b'0'..=b'9') => (c - b'0') as i32,
                Some(_) => return Err(self.error(ErrorCode::InvalidNumber)),
            };
            while let Some(c @ b'0'..=b'9') = self.peek() {
                self.idx += 1;
                match exp.checked_mul(10).and_then(|e| e.checked_add((c - b'0') as i32)) {
                    Some(e) => exp = e,
                    None => {
                        // serde_json: an exponent beyond i32 is infinity (error, here)
                        // or zero.
                        if !mantissa_zero && positive_exp {
                            return Err(self.error(ErrorCode::NumberOutOfRange));
                        }
                        while let Some(b'0'..=b'9') = self.peek() {
                            self.idx += 1;
                        }
                        return Ok(Value::from(if positive { 0.0 } else { -0.0 }));
                    }
                }
            }
        }
        if !is_float {
            return Ok(if positive {
                Value::from(significand)
            } else {
                let neg = (significand as i64).wrapping_neg();
                // serde_json: `-0` and integers below i64::MIN become floats.
                if neg >= 0 {
                    Value::from(-(significand as f64))
                } else {
                    Value::from(neg)
                }
            });
        }
        let text = self.input.get(text_start..self.idx).unwrap_or_default();
        // SAFETY: 1. the number text is ASCII (sign, digits, '.', 'e', '+', '-').
        let f: f64 = unsafe { std::str::from_utf8_unchecked(text) }.parse().unwrap_or(f64::INFINITY);
        if f.is_infinite() {
            return Err(self.error(ErrorCode::NumberOutOfRange));
        }
        Ok(Value::from(f))
    }
}

/// A cheap 64-bit digest of a key: equal keys have equal fingerprints.
///
/// The bytes after the last whole word are read with loads that overlap (the last 8, or a
/// first and a last 4, or the first, middle and last byte), not copied into a zeroed word:
/// a copy of a variable length is byte stores that the word's load then waits for.
#[inline]
fn fingerprint(key: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let n = key.len();
    let mut h = n as u64;
    let mut chunks = key.chunks_exact(8);
    for c in &mut chunks {
        h = (h ^ word(c)).wrapping_mul(K).rotate_left(29);
    }
    let tail = match n {
        0 => 0,
        1..=3 => u64::from(key[0]) | u64::from(key[n / 2]) << 8 | u64::from(key[n - 1]) << 16,
        4..=7 => u64::from(half(&key[..4])) | u64::from(half(&key[n - 4..])) << 32,
        _ if chunks.remainder().is_empty() => 0,
        _ => word(&key[n - 8..]),
    };
    (h ^ tail).wrapping_mul(K)
}

/// The first 8 bytes of `b` (at least 8) as a little-endian word.
#[inline]
fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_le_bytes(w)
}

/// The first 4 bytes of `b` (at least 4) as a little-endian word.
#[inline]
fn half(b: &[u8]) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[..4]);
    u32::from_le_bytes(w)
}
