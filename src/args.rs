//! A cursor over a command's arguments, as byte slices.
//!
//! Handlers take `&[&[u8]]` (the command name excluded), so argument handling is plain Rust and the
//! dispatcher is the only place that touches `RedisString`.

use crate::error::{Error, SYNTAX};

/// Reads arguments left to right.
pub struct Args<'a> {
    items: &'a [&'a [u8]],
    pos: usize,
}

impl<'a> Args<'a> {
    /// A cursor at the first argument.
    pub fn new(items: &'a [&'a [u8]]) -> Args<'a> {
        Args { items, pos: 0 }
    }

    /// Arguments not read yet.
    pub fn remaining(&self) -> usize {
        self.items.len() - self.pos
    }

    /// True when every argument was read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The rest, without consuming it.
    pub fn rest(&self) -> &'a [&'a [u8]] {
        &self.items[self.pos..]
    }

    /// The next argument without consuming it.
    pub fn peek(&self) -> Option<&'a [u8]> {
        self.items.get(self.pos).copied()
    }

    /// The next argument, or wrong arity when there is none.
    pub fn next_arg(&mut self) -> Result<&'a [u8], Error> {
        let item = self.items.get(self.pos).copied().ok_or(Error::WrongArity)?;
        self.pos += 1;
        Ok(item)
    }

    /// The next argument if there is one.
    pub fn next_opt(&mut self) -> Option<&'a [u8]> {
        let item = self.items.get(self.pos).copied();
        if item.is_some() {
            self.pos += 1;
        }
        item
    }

    /// The next argument as UTF-8 text (RedisJSON requires UTF-8 arguments).
    pub fn next_str(&mut self) -> Result<&'a str, Error> {
        utf8(self.next_arg()?)
    }

    /// The next argument as an i64, with Redis's wording on failure.
    pub fn next_i64(&mut self) -> Result<i64, Error> {
        parse_i64(self.next_arg()?)
    }

    /// Consumes the next argument when it equals `word`, ignoring ASCII case.
    pub fn eat(&mut self, word: &str) -> bool {
        match self.peek() {
            Some(a) if a.eq_ignore_ascii_case(word.as_bytes()) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    /// Fails with `ERR syntax error` unless every argument was read.
    pub fn finish(&self) -> Result<(), Error> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(Error::msg(SYNTAX))
        }
    }
}

/// RedisJSON 2.8.3's error for an argument that is not UTF-8 (redismodule-rs's text).
pub const NOT_UTF8: &str = "Couldn't parse as UTF-8 string";

/// Bytes as UTF-8, or RedisJSON's error for non-UTF-8 arguments.
pub fn utf8(bytes: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(bytes).map_err(|_| Error::msg(NOT_UTF8))
}

/// An integer argument, as Redis parses it.
pub fn parse_i64(bytes: &[u8]) -> Result<i64, Error> {
    std::str::from_utf8(bytes)
        .ok()
        .filter(|s| !s.starts_with('+') && (s.len() == 1 || !s.starts_with('0')))
        .and_then(|s| s.parse::<i64>().ok())
        .ok_or_else(|| Error::msg("ERR value is not an integer or out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_in_order_and_checks_arity() {
        let raw: Vec<&[u8]> = vec![b"k", b"NX", b"12"];
        let mut a = Args::new(&raw);
        assert_eq!(a.next_arg().unwrap(), b"k");
        assert!(a.eat("nx"));
        assert_eq!(a.next_i64().unwrap(), 12);
        assert!(a.finish().is_ok());
        assert_eq!(a.next_arg(), Err(Error::WrongArity));
    }

    #[test]
    fn integers_parse_like_redis() {
        assert_eq!(parse_i64(b"-7").unwrap(), -7);
        assert!(parse_i64(b"+7").is_err());
        assert!(parse_i64(b"07").is_err());
        assert!(parse_i64(b"1.5").is_err());
        assert!(parse_i64(b"99999999999999999999").is_err());
        assert_eq!(parse_i64(b"0").unwrap(), 0);
    }
}
