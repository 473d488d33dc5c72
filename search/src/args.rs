//! A cursor over command arguments with case-insensitive keyword matching.

use crate::error::{Error, Result};

/// Reads `&[&[u8]]` arguments front to back.
pub(crate) struct Args<'a> {
    args: &'a [&'a [u8]],
    pos: usize,
}

impl<'a> Args<'a> {
    pub(crate) fn new(args: &'a [&'a [u8]]) -> Args<'a> {
        Args { args, pos: 0 }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pos >= self.args.len()
    }

    pub(crate) fn remaining(&self) -> usize {
        self.args.len().saturating_sub(self.pos)
    }

    pub(crate) fn rest(&self) -> &'a [&'a [u8]] {
        self.args.get(self.pos..).unwrap_or(&[])
    }

    pub(crate) fn peek(&self) -> Option<&'a [u8]> {
        self.args.get(self.pos).copied()
    }

    /// Consumes the next argument when it equals `kw` (ASCII case-insensitive).
    pub(crate) fn eat(&mut self, kw: &str) -> bool {
        match self.peek() {
            Some(a) if a.eq_ignore_ascii_case(kw.as_bytes()) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    pub(crate) fn next_bytes(&mut self) -> Option<&'a [u8]> {
        let a = self.peek()?;
        self.pos += 1;
        Some(a)
    }

    /// The next argument as UTF-8 text; `what` names it in the error.
    pub(crate) fn next_str(&mut self, what: &str) -> Result<String> {
        let a = self.next_bytes().ok_or_else(|| Error::new(format!("Missing argument for {what}")))?;
        Ok(String::from_utf8_lossy(a).into_owned())
    }

    pub(crate) fn next_u64(&mut self, what: &str) -> Result<u64> {
        let s = self.next_str(what)?;
        s.parse::<u64>().map_err(|_| {
            Error::new(format!("Bad arguments for {what}: Could not convert argument to expected type"))
        })
    }

    pub(crate) fn next_f64(&mut self, what: &str) -> Result<f64> {
        let s = self.next_str(what)?;
        parse_f64(&s).ok_or_else(|| {
            Error::new(format!("Bad arguments for {what}: Could not convert argument to expected type"))
        })
    }
}

/// Parses a double the way RediSearch accepts them (`inf`, `-inf`, `+inf` included).
pub(crate) fn parse_f64(s: &str) -> Option<f64> {
    match s.to_ascii_lowercase().as_str() {
        "inf" | "+inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" | "+nan" | "-nan" => None,
        _ => s.parse::<f64>().ok(),
    }
}
