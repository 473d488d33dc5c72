//! The glue's error type: what a handler returns when it cannot produce a normal reply.

use std::fmt;

/// A command failure, turned into an error reply by the dispatcher.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// Redis's own `ERR wrong number of arguments for '…' command`.
    WrongArity,
    /// An error reply with this exact text.
    Reply(String),
}

impl Error {
    /// An error with exactly this text (the reference's wording, prefix included).
    pub fn msg(text: impl Into<String>) -> Error {
        Error::Reply(text.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::WrongArity => f.write_str("ERR wrong number of arguments"),
            Error::Reply(text) => f.write_str(text),
        }
    }
}

impl From<String> for Error {
    fn from(text: String) -> Error {
        Error::Reply(text)
    }
}

impl From<&str> for Error {
    fn from(text: &str) -> Error {
        Error::Reply(text.to_owned())
    }
}

/// Redis's generic syntax error.
pub const SYNTAX: &str = "ERR syntax error";

/// Result of a command handler.
pub type CommandResult = Result<crate::reply::Reply, Error>;
