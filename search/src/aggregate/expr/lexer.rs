//! Tokens of the expression language (RediSearch `lexer.rl`).
//!
//! Contract: [`tokenize`] turns the whole text into tokens with byte offsets,
//! or fails with a positioned syntax error. Numbers are unsigned here (the
//! parser applies unary minus), so `1-5` is a subtraction, where RediSearch's
//! scanner would read `-5` as one number and fail.

use crate::aggregate::error::AggError;

/// Token kinds.
#[derive(Debug, Clone, PartialEq)]
pub enum TokenKind {
    /// Numeric literal (`12`, `1.5e-3`, `inf`).
    Number(f64),
    /// Quoted string with escapes removed.
    Str(Vec<u8>),
    /// `@name` (name without the `@`).
    Property(String),
    /// Bare word: a function name or `NULL`.
    Symbol(String),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `,`
    Comma,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `^`
    Caret,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `!`
    Not,
    /// End of input.
    Eof,
}

/// A token and where it is in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Byte offset of its first character.
    pub pos: usize,
    /// Its length in bytes.
    pub len: usize,
}

/// Splits `src` into tokens, ending with [`TokenKind::Eof`].
pub fn tokenize(src: &str) -> Result<Vec<Token>, AggError> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let two = b.get(i + 1).copied();
        let kind = match c {
            b'(' => TokenKind::LParen,
            b')' => TokenKind::RParen,
            b',' => TokenKind::Comma,
            b'+' => TokenKind::Plus,
            b'-' => TokenKind::Minus,
            b'*' => TokenKind::Star,
            b'/' => TokenKind::Slash,
            b'%' => TokenKind::Percent,
            b'^' => TokenKind::Caret,
            b'=' if two == Some(b'=') => TokenKind::Eq,
            b'!' if two == Some(b'=') => TokenKind::Ne,
            b'<' if two == Some(b'=') => TokenKind::Le,
            b'>' if two == Some(b'=') => TokenKind::Ge,
            b'&' if two == Some(b'&') => TokenKind::And,
            b'|' if two == Some(b'|') => TokenKind::Or,
            b'<' => TokenKind::Lt,
            b'>' => TokenKind::Gt,
            b'!' => TokenKind::Not,
            b'"' | b'\'' => {
                let (s, end) = lex_string(b, i)?;
                out.push(Token { kind: TokenKind::Str(s), pos: start, len: end - start });
                i = end;
                continue;
            }
            b'@' => {
                let end = lex_property(b, i + 1);
                if end == i + 1 {
                    return Err(syntax(src, start, 1));
                }
                let name = String::from_utf8_lossy(&b[i + 1..end]).into_owned();
                out.push(Token { kind: TokenKind::Property(name), pos: start, len: end - start });
                i = end;
                continue;
            }
            b'0'..=b'9' => {
                let end = lex_number(b, i);
                let text = &src[i..end];
                let n: f64 = text.parse().map_err(|_| syntax(src, start, end - start))?;
                out.push(Token { kind: TokenKind::Number(n), pos: start, len: end - start });
                i = end;
                continue;
            }
            c if c.is_ascii_alphabetic() => {
                let mut end = i + 1;
                while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
                    end += 1;
                }
                let word = &src[i..end];
                let kind = if word == "inf" {
                    TokenKind::Number(f64::INFINITY)
                } else {
                    TokenKind::Symbol(word.to_string())
                };
                out.push(Token { kind, pos: start, len: end - start });
                i = end;
                continue;
            }
            _ => return Err(syntax(src, start, 1)),
        };
        let len = match kind {
            TokenKind::Eq
            | TokenKind::Ne
            | TokenKind::Le
            | TokenKind::Ge
            | TokenKind::And
            | TokenKind::Or => 2,
            _ => 1,
        };
        out.push(Token { kind, pos: start, len });
        i += len;
    }
    out.push(Token { kind: TokenKind::Eof, pos: b.len(), len: 0 });
    Ok(out)
}

/// RediSearch's syntax error text for the token at `pos..pos+len`.
pub fn syntax(src: &str, pos: usize, len: usize) -> AggError {
    let near = src.get(pos..pos + len).unwrap_or("");
    AggError::at(pos, format!("Syntax error at offset {pos} near '{near}'"))
}

fn lex_number(b: &[u8], mut i: usize) -> usize {
    let digits = |b: &[u8], mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    i = digits(b, i);
    if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i = digits(b, i + 1);
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if b.get(j) == Some(&b'-') {
            j += 1;
        }
        if b.get(j).is_some_and(u8::is_ascii_digit) {
            i = digits(b, j);
        }
    }
    i
}

/// Property characters: anything but punctuation, space and control, plus
/// `_` and backslash-escaped punctuation or space (kept as written).
fn lex_property(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        let c = b[i];
        if c == b'\\' {
            match b.get(i + 1) {
                Some(n) if n.is_ascii_punctuation() || n.is_ascii_whitespace() => i += 2,
                _ => break,
            }
        } else if c == b'_' || !(c.is_ascii_punctuation() || c.is_ascii_whitespace() || c.is_ascii_control())
        {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// A quoted string; `\` before punctuation or space is dropped, other
/// backslashes stay (RediSearch `unescapeStringDup`).
fn lex_string(b: &[u8], start: usize) -> Result<(Vec<u8>, usize), AggError> {
    let quote = b[start];
    let mut i = start + 1;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c == b'\\' {
            if let Some(&n) = b.get(i + 1) {
                if n.is_ascii_punctuation() || n.is_ascii_whitespace() {
                    out.push(n);
                    i += 2;
                    continue;
                }
            }
            out.push(c);
            i += 1;
        } else if c == quote {
            return Ok((out, i + 1));
        } else if c == b'\n' {
            break;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Err(AggError::at(
        start,
        format!("Syntax error at offset {start} near '{}': unterminated string", quote as char),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<TokenKind> {
        tokenize(s).unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn lexes_numbers_strings_properties() {
        assert_eq!(
            kinds("1.5e-3 'a\\'b' @x_1 foo inf"),
            vec![
                TokenKind::Number(1.5e-3),
                TokenKind::Str(b"a'b".to_vec()),
                TokenKind::Property("x_1".into()),
                TokenKind::Symbol("foo".into()),
                TokenKind::Number(f64::INFINITY),
                TokenKind::Eof
            ]
        );
        assert_eq!(kinds("@a-1")[1], TokenKind::Minus);
        assert_eq!(kinds("\"a\\nb\"")[0], TokenKind::Str(b"a\\nb".to_vec()));
    }

    #[test]
    fn operators() {
        assert_eq!(
            kinds("== != <= >= < > && || ! ^ %"),
            vec![
                TokenKind::Eq,
                TokenKind::Ne,
                TokenKind::Le,
                TokenKind::Ge,
                TokenKind::Lt,
                TokenKind::Gt,
                TokenKind::And,
                TokenKind::Or,
                TokenKind::Not,
                TokenKind::Caret,
                TokenKind::Percent,
                TokenKind::Eof
            ]
        );
    }

    #[test]
    fn errors_are_positioned() {
        let e = tokenize("1 + 'abc").unwrap_err();
        assert_eq!(e.pos, Some(4));
        let e = tokenize("1 # 2").unwrap_err();
        assert_eq!(e.message, "Syntax error at offset 2 near '#'");
        assert!(tokenize("@").is_err());
    }
}
