//! Errors of the ops, carrying RedisJSON 2.8.3's exact reply text.

use std::fmt;

use crate::Value;

/// A failed op. `Display` (and [`OpError::message`]) is the reply text, prefix included
/// (`ERR …`, `WRONGTYPE …`, or none where RedisJSON has none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpError {
    message: Box<str>,
}

impl OpError {
    /// The reply text.
    pub fn message(&self) -> &str {
        &self.message
    }

    fn new(message: String) -> Self {
        OpError { message: message.into_boxed_str() }
    }

    /// `ERR Path '<path>' does not exist`.
    pub(crate) fn path_missing(path: &str) -> Self {
        Self::new(format!("ERR Path '{path}' does not exist"))
    }

    /// `ERR Path '<path>' does not exist or <what>` (`not an array`, `not a bool`, …).
    pub(crate) fn path_missing_or(path: &str, what: &str) -> Self {
        Self::new(format!("ERR Path '{path}' does not exist or {what}"))
    }

    /// `WRONGTYPE wrong type of path value - expected <expected> but found <found>`.
    pub(crate) fn wrong_type(expected: &str, found: &str) -> Self {
        Self::new(format!("WRONGTYPE wrong type of path value - expected {expected} but found {found}"))
    }

    /// [`Self::wrong_type`] naming the type of `found`.
    pub(crate) fn wrong_type_of(expected: &str, found: &Value) -> Self {
        Self::wrong_type(expected, found.type_name())
    }

    /// Any fixed text.
    pub(crate) fn text(message: &str) -> Self {
        Self::new(message.to_owned())
    }
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OpError {}
