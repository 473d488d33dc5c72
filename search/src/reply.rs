//! The Redis-agnostic reply tree every executor returns; the glue maps it 1:1 to RESP.

/// A reply node. See the crate docs for the RESP2/RESP3 mapping.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// RESP nil (RESP2 null bulk string, RESP3 null).
    Nil,
    /// An integer.
    Int(i64),
    /// A double (RESP2: bulk string, `%.17g` style as Redis formats doubles).
    Double(f64),
    /// A simple string such as `OK`.
    Simple(String),
    /// A bulk string.
    Bulk(Vec<u8>),
    /// An array.
    Array(Vec<Reply>),
    /// A map (RESP2: flat array of alternating keys and values).
    Map(Vec<(Reply, Reply)>),
    /// A set (RESP3 set; RESP2 array).
    Set(Vec<Reply>),
    /// An error; the text is passed verbatim to `RedisModule_ReplyWithError`.
    Error(String),
}

impl Reply {
    /// `+OK`.
    pub fn ok() -> Reply {
        Reply::Simple("OK".into())
    }

    /// A bulk string from text.
    pub fn text(s: impl AsRef<[u8]>) -> Reply {
        Reply::Bulk(s.as_ref().to_vec())
    }

    /// A map with simple-string keys (as RediSearch replies).
    pub fn map(pairs: Vec<(&str, Reply)>) -> Reply {
        Reply::Map(pairs.into_iter().map(|(k, v)| (Reply::Simple(k.to_string()), v)).collect())
    }
}

/// The client's protocol version (HELLO 2 / HELLO 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// RESP2.
    Resp2,
    /// RESP3.
    Resp3,
}
