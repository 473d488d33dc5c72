//! The error type of FT.AGGREGATE parsing, planning and evaluation.
//!
//! Contract: `message` is the exact text RediSearch replies (without the
//! `ERR ` prefix the glue adds); `pos` is a byte offset into the expression
//! text when the error comes from the expression parser.

use std::fmt;

/// An FT.AGGREGATE / FT.CURSOR / expression error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AggError {
    /// Reply text, worded as RediSearch words it.
    pub message: String,
    /// Byte offset in the expression text, for expression syntax errors.
    pub pos: Option<usize>,
}

impl AggError {
    /// An error without a position.
    pub fn new(message: impl Into<String>) -> Self {
        AggError { message: message.into(), pos: None }
    }

    /// An error at a byte offset of an expression.
    pub fn at(pos: usize, message: impl Into<String>) -> Self {
        AggError { message: message.into(), pos: Some(pos) }
    }
}

impl fmt::Display for AggError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AggError {}

/// Result alias of this module.
pub type AggResult<T> = Result<T, AggError>;
