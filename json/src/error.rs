//! [`ParseError`]: why a JSON text was rejected, with serde_json's message text.

use std::fmt;

/// A JSON text was rejected. `Display` gives serde_json's message, e.g.
/// `expected value at line 1 column 1`, which RedisJSON replies verbatim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    message: String,
}

impl ParseError {
    pub(crate) fn new(message: String) -> Self {
        ParseError { message }
    }

    /// The message text (same as `Display`).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}
