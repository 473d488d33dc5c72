//! Tokens of the expression language (RediSearch `lexer.rl`, as its generated
//! `lexer.c` scans).
//!
//! Contract: [`tokenize`] turns the whole text into tokens with byte offsets,
//! or fails with a positioned syntax error. As RediSearch's scanner does, it
//! takes the longest token at each point, skips spaces, control characters and
//! any punctuation that starts no token (`#`, `.`, `;`, a lone `=`, `&`, `|`,
//! `@`, an unterminated quote…), reads `+inf` / `-inf` as numbers
//! ([`TokenKind::SignedInf`]) but a bare `inf` as a symbol (so
//! `Unknown symbol 'inf'`), and strings as the longest quoted run (a `\`
//! before punctuation or space is dropped). One difference: numbers are
//! unsigned here (the parser applies unary minus), so `1-5` is a subtraction,
//! where RediSearch's scanner reads `-5` as one number and fails (README).
//! A byte that is neither ASCII nor inside a string or property name is a
//! syntax error (RediSearch's scanner stops there and evaluates what came before).

use crate::aggregate::error::AggError;

/// Token kinds.
#[derive(Debug, Clone, PartialEq)]
pub enum TokenKind {
    /// Numeric literal (`12`, `1.5e-3`).
    Number(f64),
    /// `+inf` or `-inf` (one token in RediSearch; the value carries the sign).
    SignedInf(f64),
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
    /// The text a syntax error at this token quotes (`near '…'`): RediSearch's
    /// token struct is reused, and operators, parentheses, commas and the end
    /// set only its offset, so they quote the last number, string, symbol or
    /// property name (without `@`) before them.
    pub near: (usize, usize),
}

impl Token {
    fn new(kind: TokenKind, pos: usize, len: usize) -> Token {
        Token { kind, pos, len, near: (pos, len) }
    }
}

/// Splits `src` into tokens, ending with [`TokenKind::Eof`].
pub fn tokenize(src: &str) -> Result<Vec<Token>, AggError> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let two = b.get(i + 1).copied();
        let signed_inf = matches!(c, b'+' | b'-') && b.get(i + 1..i + 4) == Some(b"inf".as_slice());
        if signed_inf {
            let v = if c == b'-' { f64::NEG_INFINITY } else { f64::INFINITY };
            out.push(Token::new(TokenKind::SignedInf(v), start, 4));
            i += 4;
            continue;
        }
        let kind = match c {
            // RediSearch's `number = '-'? digit+…`: a minus before a digit is the number's
            // sign wherever it stands (`4-2` is `4` then `-2`, a syntax error; `4 - 2` is 2).
            b'-' if two.is_some_and(|d| d.is_ascii_digit()) => {
                let end = lex_number(b, i + 1);
                let text = &src[i..end];
                let n: f64 = text.parse().map_err(|_| syntax(src, start, end - start))?;
                out.push(Token::new(TokenKind::Number(n), start, end - start));
                i = end;
                continue;
            }
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
                if let Some(end) = string_end(b, i) {
                    let s = unescape(&b[i + 1..end - 1]);
                    out.push(Token::new(TokenKind::Str(s), start, end - start));
                    i = end;
                } else {
                    // No closing quote: the quote is punctuation, skipped.
                    i += 1;
                }
                continue;
            }
            b'@' => {
                let end = lex_property(b, i + 1);
                if end > i + 1 {
                    let name = String::from_utf8_lossy(&b[i + 1..end]).into_owned();
                    out.push(Token::new(TokenKind::Property(name), start, end - start));
                }
                i = end.max(i + 1);
                continue;
            }
            b'0'..=b'9' => {
                let end = lex_number(b, i);
                let text = &src[i..end];
                let n: f64 = text.parse().map_err(|_| syntax(src, start, end - start))?;
                out.push(Token::new(TokenKind::Number(n), start, end - start));
                i = end;
                continue;
            }
            c if c.is_ascii_alphabetic() => {
                let mut end = i + 1;
                while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
                    end += 1;
                }
                let word = &src[i..end];
                out.push(Token::new(TokenKind::Symbol(word.to_string()), start, end - start));
                i = end;
                continue;
            }
            c if c.is_ascii() => {
                // Space, control characters and punctuation that starts no token.
                i += 1;
                continue;
            }
            _ => {
                let len = src[i..].chars().next().map_or(1, char::len_utf8);
                return Err(syntax(src, start, len));
            }
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
        out.push(Token::new(kind, start, len));
        i += len;
    }
    let end_pos = out.last().map_or(0, |t| t.pos);
    out.push(Token::new(TokenKind::Eof, end_pos, 0));
    let mut last = (0, 0);
    for t in &mut out {
        match t.kind {
            TokenKind::Number(_) | TokenKind::SignedInf(_) | TokenKind::Str(_) | TokenKind::Symbol(_) => {
                last = (t.pos, t.len)
            }
            TokenKind::Property(_) => last = (t.pos + 1, t.len - 1),
            _ => {}
        }
        t.near = last;
    }
    Ok(out)
}

/// RediSearch's syntax error text at token `t` (its offset, the text it quotes).
pub fn syntax_at(src: &str, t: &Token) -> AggError {
    let near = src.get(t.near.0..t.near.0 + t.near.1).unwrap_or("");
    AggError::at(t.pos, format!("Syntax error at offset {} near '{near}'", t.pos))
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

/// C's `ispunct || isspace` (ASCII).
fn punct_or_space(c: u8) -> bool {
    c.is_ascii_punctuation() || matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// The end (past the closing quote) of the longest string literal starting at
/// `start`, as the scanner's `string_literal` matches it: between the quotes any
/// byte but the quote and a newline, or `\` followed by punctuation, space or `\`.
fn string_end(b: &[u8], start: usize) -> Option<usize> {
    let quote = b[start];
    // reach[k]: the body can end just before b[start + 1 + k].
    let body = &b[start + 1..];
    let mut reach = vec![false; body.len() + 2];
    reach[0] = true;
    let mut best = None;
    for k in 0..body.len() {
        if !reach[k] {
            continue;
        }
        let c = body[k];
        if c == quote {
            best = Some(start + 1 + k + 1);
        }
        if c != quote && c != b'\n' {
            reach[k + 1] = true;
        }
        if c == b'\\' && body.get(k + 1).is_some_and(|&n| punct_or_space(n)) {
            reach[k + 2] = true;
        }
    }
    best
}

/// RediSearch `unescapeStringDup` on a literal's body: every `\` followed by
/// punctuation or space is dropped (so `\\\\` is one `\`); the text ends at a NUL.
fn unescape(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    for (k, &c) in body.iter().enumerate() {
        if c == b'\\' && body.get(k + 1).is_some_and(|&n| punct_or_space(n)) {
            continue;
        }
        if c == 0 {
            break;
        }
        out.push(c);
    }
    out
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
            kinds("1.5e-3 'a\\'b' @x_1 foo inf +inf -inf"),
            vec![
                TokenKind::Number(1.5e-3),
                TokenKind::Str(b"a'b".to_vec()),
                TokenKind::Property("x_1".into()),
                TokenKind::Symbol("foo".into()),
                TokenKind::Symbol("inf".into()),
                TokenKind::SignedInf(f64::INFINITY),
                TokenKind::SignedInf(f64::NEG_INFINITY),
                TokenKind::Eof
            ]
        );
        // `-` before a digit signs the number (RediSearch 2.10.5: `@n-1` is a syntax error
        // at offset 2 near '-1'; `@n - 1` a subtraction).
        assert_eq!(kinds("@a-1")[1], TokenKind::Number(-1.0));
        assert_eq!(kinds("@a - 1")[1], TokenKind::Minus);
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
    fn punctuation_that_starts_no_token_is_skipped() {
        // As RediSearch's generated lexer.c scans them.
        assert_eq!(kinds("1 # 2"), vec![TokenKind::Number(1.0), TokenKind::Number(2.0), TokenKind::Eof]);
        assert_eq!(kinds(".5"), vec![TokenKind::Number(5.0), TokenKind::Eof]);
        assert_eq!(kinds("@"), vec![TokenKind::Eof]);
        assert_eq!(kinds("_a"), vec![TokenKind::Symbol("a".into()), TokenKind::Eof]);
        assert_eq!(
            kinds("1 & 2 | 3 = 4")[..3],
            [TokenKind::Number(1.0), TokenKind::Number(2.0), TokenKind::Number(3.0)]
        );
        assert_eq!(kinds("1 + 'abc")[2], TokenKind::Symbol("abc".into()));
        let e = tokenize("1 é").unwrap_err();
        assert_eq!(e.message, "Syntax error at offset 2 near 'é'");
    }

    #[test]
    fn strings_are_the_longest_quoted_run() {
        assert_eq!(kinds(r#""abc\"+"#)[0], TokenKind::Str(b"abc\\".to_vec()));
        assert_eq!(kinds(r#""a\"b""#)[0], TokenKind::Str(b"a\"b".to_vec()));
        assert_eq!(kinds(r#"'\\\\'"#)[0], TokenKind::Str(b"\\".to_vec()));
        assert_eq!(kinds("'a\\\nb'")[0], TokenKind::Str(b"a\nb".to_vec()));
        assert_eq!(kinds("'a\nb'")[0], TokenKind::Symbol("a".into()));
    }
}
