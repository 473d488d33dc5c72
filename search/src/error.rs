//! The crate's error type: the exact RediSearch reply text.

use std::fmt;

/// RediSearch's reply to a query that ran past its TIMEOUT (`QUERY_ETIMEDOUT`); also its
/// warning when ON_TIMEOUT RETURN answers with what the query found by then.
pub const TIMEOUT_ERROR: &str = "Timeout limit was reached";

/// An error whose text is what RediSearch replies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl Error {
    /// An error with the given reply text.
    pub fn new(text: impl Into<String>) -> Error {
        Error(text.into())
    }

    /// [`TIMEOUT_ERROR`].
    pub fn timeout() -> Error {
        Error(TIMEOUT_ERROR.to_string())
    }

    /// `Syntax error at offset N near X`.
    pub fn syntax(offset: usize, near: &str) -> Error {
        Error(format!("Syntax error at offset {offset} near {near}"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// Result alias.
pub type Result<T> = std::result::Result<T, Error>;
