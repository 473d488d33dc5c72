//! [`ParseError`]: why a JSON text was rejected, with serde_json's message text
//! and position, as RedisJSON replies them.

use std::fmt;

/// What went wrong; `Display` gives serde_json's wording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// `EOF while parsing a list`
    EofWhileParsingList,
    /// `EOF while parsing an object`
    EofWhileParsingObject,
    /// `EOF while parsing a string`
    EofWhileParsingString,
    /// `EOF while parsing a value`
    EofWhileParsingValue,
    /// ``expected `:` ``
    ExpectedColon,
    /// ``expected `,` or `]` ``
    ExpectedListCommaOrEnd,
    /// ``expected `,` or `}` ``
    ExpectedObjectCommaOrEnd,
    /// `expected ident`
    ExpectedSomeIdent,
    /// `expected value`
    ExpectedSomeValue,
    /// `invalid escape`
    InvalidEscape,
    /// `invalid number`
    InvalidNumber,
    /// `number out of range`
    NumberOutOfRange,
    /// `control character (\u0000-\u001F) found while parsing a string`
    ControlCharacterWhileParsingString,
    /// `key must be a string`
    KeyMustBeAString,
    /// `lone leading surrogate in hex escape`
    LoneLeadingSurrogateInHexEscape,
    /// `trailing comma`
    TrailingComma,
    /// `trailing characters`
    TrailingCharacters,
    /// `unexpected end of hex escape`
    UnexpectedEndOfHexEscape,
    /// `recursion limit exceeded`
    RecursionLimitExceeded,
    /// `Couldn't parse as UTF-8 string` (RedisJSON's check before parsing; no position)
    NotUtf8,
    /// `value out of range for F32` (`JSON.SET … FPHA`: a number of a homogeneous array does
    /// not fit the declared type; Redis 8.8's text)
    ValueOutOfRange(crate::value::FpType),
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let ErrorCode::ValueOutOfRange(t) = self {
            return write!(f, "value out of range for {}", t.error_name());
        }
        f.write_str(match self {
            ErrorCode::EofWhileParsingList => "EOF while parsing a list",
            ErrorCode::EofWhileParsingObject => "EOF while parsing an object",
            ErrorCode::EofWhileParsingString => "EOF while parsing a string",
            ErrorCode::EofWhileParsingValue => "EOF while parsing a value",
            ErrorCode::ExpectedColon => "expected `:`",
            ErrorCode::ExpectedListCommaOrEnd => "expected `,` or `]`",
            ErrorCode::ExpectedObjectCommaOrEnd => "expected `,` or `}`",
            ErrorCode::ExpectedSomeIdent => "expected ident",
            ErrorCode::ExpectedSomeValue => "expected value",
            ErrorCode::InvalidEscape => "invalid escape",
            ErrorCode::InvalidNumber => "invalid number",
            ErrorCode::NumberOutOfRange => "number out of range",
            ErrorCode::ControlCharacterWhileParsingString => {
                "control character (\\u0000-\\u001F) found while parsing a string"
            }
            ErrorCode::KeyMustBeAString => "key must be a string",
            ErrorCode::LoneLeadingSurrogateInHexEscape => "lone leading surrogate in hex escape",
            ErrorCode::TrailingComma => "trailing comma",
            ErrorCode::TrailingCharacters => "trailing characters",
            ErrorCode::UnexpectedEndOfHexEscape => "unexpected end of hex escape",
            ErrorCode::RecursionLimitExceeded => "recursion limit exceeded",
            ErrorCode::NotUtf8 => "Couldn't parse as UTF-8 string",
            ErrorCode::ValueOutOfRange(_) => "value out of range",
        })
    }
}

/// A JSON text was rejected. `Display` gives serde_json's message, e.g.
/// `expected value at line 1 column 1`, which RedisJSON replies verbatim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    code: ErrorCode,
    /// 1-based line; 0 when the error has no position.
    line: usize,
    /// Bytes from the start of the line (serde_json's column).
    column: usize,
}

impl ParseError {
    /// An error at byte offset `i` of `input`, positioned like serde_json:
    /// line = 1 + newlines before the line start, column = bytes since it.
    pub(crate) fn at(code: ErrorCode, input: &[u8], i: usize) -> Self {
        let before = input.get(..i).unwrap_or(input);
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let line = 1 + before.get(..line_start).unwrap_or_default().iter().filter(|&&b| b == b'\n').count();
        ParseError { code, line, column: before.len() - line_start }
    }

    /// The input is not UTF-8.
    pub(crate) fn not_utf8() -> Self {
        ParseError { code: ErrorCode::NotUtf8, line: 0, column: 0 }
    }

    /// What went wrong.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// 1-based line of the error (0 if it has no position).
    pub fn line(&self) -> usize {
        self.line
    }

    /// Column of the error as serde_json counts it (bytes since the line start).
    pub fn column(&self) -> usize {
        self.column
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.code)
        } else {
            write!(f, "{} at line {} column {}", self.code, self.line, self.column)
        }
    }
}

impl std::error::Error for ParseError {}
