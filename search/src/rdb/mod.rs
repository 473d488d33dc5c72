//! RediSearch's RDB aux records, pure: the index definitions of `ft_index0` ([`ft_index`]) and
//! the spell-check dictionaries of `scdtype00` ([`dictionaries`]), read into and written from
//! folio's own structures, over the four primitives a Redis module stream has ([`RdbRead`],
//! [`RdbWrite`]). The glue implements them on a `RedisModuleIO`; tests use [`Items`].
//!
//! A module stream is a sequence of typed items (unsigned, signed, double, string buffer);
//! signed values travel as unsigned ones (Redis's `SaveSigned` is `SaveUnsigned` of the same
//! 64 bits), so a reader must not tell them apart.

pub mod dictionaries;
pub mod ft_index;

use std::collections::VecDeque;

/// Reads the items of one module aux record. Every error ends the record (a short read, a
/// corrupt value): the caller refuses it.
pub trait RdbRead {
    /// An unsigned integer.
    fn unsigned(&mut self) -> Result<u64, String>;
    /// A signed integer.
    fn signed(&mut self) -> Result<i64, String>;
    /// A double.
    fn double(&mut self) -> Result<f64, String>;
    /// A string buffer.
    fn buffer(&mut self) -> Result<Vec<u8>, String>;
}

/// Writes the items of one module aux record.
pub trait RdbWrite {
    /// An unsigned integer.
    fn put_unsigned(&mut self, v: u64);
    /// A signed integer.
    fn put_signed(&mut self, v: i64);
    /// A double.
    fn put_double(&mut self, v: f64);
    /// A string buffer.
    fn put_buffer(&mut self, b: &[u8]);
}

/// A C string as RediSearch saves it (`strlen + 1` bytes): the bytes up to the first NUL.
pub(crate) fn c_str(b: &[u8]) -> &[u8] {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    b.get(..end).unwrap_or(b)
}

/// `s` with the NUL terminator RediSearch saves after its C strings.
pub(crate) fn with_nul(s: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(s.len() + 1);
    v.extend_from_slice(s);
    v.push(0);
    v
}

/// A count read from the stream, refused above `max` before anything is allocated for it.
pub(crate) fn count(r: &mut dyn RdbRead, what: &str, max: u64) -> Result<usize, String> {
    let n = r.unsigned()?;
    if n > max {
        return Err(format!("{what} count {n} is out of range"));
    }
    usize::try_from(n).map_err(|_| format!("{what} count {n} is out of range"))
}

/// One item of an in-memory module stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// An unsigned (or signed, as its 64 bits) integer.
    U(u64),
    /// A double.
    D(f64),
    /// A string buffer.
    B(Vec<u8>),
}

/// An in-memory module stream (tests, and a record checked before it is applied).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Items(pub VecDeque<Item>);

impl Items {
    /// True when every item was read.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn next(&mut self) -> Result<Item, String> {
        self.0.pop_front().ok_or_else(|| "short read".to_string())
    }
}

impl RdbRead for Items {
    fn unsigned(&mut self) -> Result<u64, String> {
        match self.next()? {
            Item::U(v) => Ok(v),
            other => Err(format!("expected an integer, found {other:?}")),
        }
    }

    fn signed(&mut self) -> Result<i64, String> {
        self.unsigned().map(|v| v as i64)
    }

    fn double(&mut self) -> Result<f64, String> {
        match self.next()? {
            Item::D(v) => Ok(v),
            other => Err(format!("expected a double, found {other:?}")),
        }
    }

    fn buffer(&mut self) -> Result<Vec<u8>, String> {
        match self.next()? {
            Item::B(v) => Ok(v),
            other => Err(format!("expected a string, found {other:?}")),
        }
    }
}

impl RdbWrite for Items {
    fn put_unsigned(&mut self, v: u64) {
        self.0.push_back(Item::U(v));
    }

    fn put_signed(&mut self, v: i64) {
        self.0.push_back(Item::U(v as u64));
    }

    fn put_double(&mut self, v: f64) {
        self.0.push_back(Item::D(v));
    }

    fn put_buffer(&mut self, b: &[u8]) {
        self.0.push_back(Item::B(b.to_vec()));
    }
}
