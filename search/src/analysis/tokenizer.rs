//! Splits text into lowercased tokens on RediSearch's separator set (ASCII punctuation
//! except `_`, plus Unicode whitespace), keeping byte offsets for highlighting.

use super::Language;

/// Characters that separate tokens (RediSearch's `DEFAULT_SEPARATORS` plus backtick).
const SEPARATORS: &str = ",.<>{}[]\"':;!@#$%^&*()-+=~/\\|?` ";

/// True when `c` separates tokens.
pub fn is_separator(c: char) -> bool {
    c.is_whitespace() || (c.is_ascii() && SEPARATORS.contains(c))
}

/// One token of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// Case-folded text.
    pub text: String,
    /// Byte offset of the token's first character in the source.
    pub start: usize,
    /// Byte offset just past the token in the source.
    pub end: usize,
}

/// Tokenizes `text` as `language` cuts it (see [`Tokens::in_language`]).
pub fn tokenize_in(text: &str, language: Language) -> Vec<Token> {
    if language.is_chinese() {
        return super::chinese::tokenize(text);
    }
    tokenize(text)
}

/// Tokenizes `text`; a backslash makes the next separator part of the token.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut toks = Tokens::new(text);
    while let Some((tok, start, end)) = toks.next_token() {
        out.push(Token { text: tok.to_string(), start, end });
    }
    out
}

/// Tokenizes a query's term text: as [`tokenize`], except that a backslash also keeps an
/// ASCII whitespace character in the token. RediSearch's query lexers read `\ ` as part of a
/// term (`escaped_character = escape (punct | space | escape)` in `lexer.rl`) and never
/// split a term again (`hello\ world`, or a `$param` valued `Hello World`, is the one term
/// `hello world`), where its document tokenizer's normalizer drops the escaped space.
pub fn tokenize_query(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut toks = Tokens::new(text);
    toks.escaped_space = true;
    while let Some((tok, start, end)) = toks.next_token() {
        out.push(Token { text: tok.to_string(), start, end });
    }
    out
}

/// Which ASCII bytes separate tokens ([`SEPARATORS`] and ASCII whitespace).
const fn ascii_separators() -> [bool; 128] {
    let mut t = [false; 128];
    let s = SEPARATORS.as_bytes();
    let mut i = 0;
    while i < s.len() {
        t[s[i] as usize] = true;
        i += 1;
    }
    // char::is_whitespace in ASCII: \t \n \x0b \x0c \r and space.
    t[9] = true;
    t[10] = true;
    t[11] = true;
    t[12] = true;
    t[13] = true;
    t
}

const ASCII_SEPARATORS: [bool; 128] = ascii_separators();

/// The tokens of a text one at a time, each lowercased into one buffer reused from token
/// to token (what [`tokenize`] returns, without an allocation per token).
pub struct Tokens<'a> {
    text: &'a str,
    at: usize,
    buf: String,
    /// The tokens, when a segmenter made them up front (Chinese).
    listed: Option<std::vec::IntoIter<Token>>,
    /// Whether `\` before ASCII whitespace keeps it in the token ([`tokenize_query`]).
    escaped_space: bool,
}

impl<'a> Tokens<'a> {
    /// The tokens of `text`.
    pub fn new(text: &'a str) -> Tokens<'a> {
        Tokens { text, at: 0, buf: String::new(), listed: None, escaped_space: false }
    }

    /// The tokens of `text` as `language` cuts it: Chinese by its dictionary
    /// ([`super::chinese`]), every other language on separators.
    pub fn in_language(text: &'a str, language: Language) -> Tokens<'a> {
        let mut t = Tokens::new(text);
        if language.is_chinese() {
            t.listed = Some(super::chinese::tokenize(text).into_iter());
        }
        t
    }

    /// The next token: its case-folded text, and its byte range in the source.
    pub fn next_token(&mut self) -> Option<(&str, usize, usize)> {
        if let Some(listed) = &mut self.listed {
            let t = listed.next()?;
            self.buf = t.text;
            return Some((&self.buf, t.start, t.end));
        }
        let bytes = self.text.as_bytes();
        self.buf.clear();
        let mut start = self.at;
        while self.at < bytes.len() {
            let b = bytes[self.at];
            if b < 0x80 {
                if b == b'\\' {
                    // An escaped character (not whitespace) belongs to the token, without
                    // its backslash (RediSearch's `toksep` and `DefaultNormalize`).
                    if let Some(&n) = bytes.get(self.at + 1) {
                        if n < 0x80 && (self.escaped_space || !char::from(n).is_whitespace()) {
                            if self.buf.is_empty() {
                                start = self.at;
                            }
                            self.buf.push(char::from(n.to_ascii_lowercase()));
                            self.at += 2;
                            continue;
                        }
                        let next = self.text.get(self.at + 1..).and_then(|t| t.chars().next());
                        if let Some(c) = next.filter(|&c| n >= 0x80 && !is_separator(c)) {
                            if self.buf.is_empty() {
                                start = self.at;
                            }
                            self.buf.extend(c.to_lowercase());
                            self.at += 1 + c.len_utf8();
                            continue;
                        }
                    }
                }
                if ASCII_SEPARATORS[b as usize] {
                    self.at += 1;
                    if !self.buf.is_empty() {
                        return Some((&self.buf, start, self.at - 1));
                    }
                    continue;
                }
                if self.buf.is_empty() {
                    start = self.at;
                }
                self.buf.push(char::from(b.to_ascii_lowercase()));
                self.at += 1;
                continue;
            }
            let Some(c) = self.text.get(self.at..).and_then(|t| t.chars().next()) else { break };
            let (i, n) = (self.at, c.len_utf8());
            self.at += n;
            if is_separator(c) {
                if !self.buf.is_empty() {
                    return Some((&self.buf, start, i));
                }
                continue;
            }
            if self.buf.is_empty() {
                start = i;
            }
            self.buf.extend(c.to_lowercase());
        }
        (!self.buf.is_empty()).then_some((&self.buf[..], start, bytes.len()))
    }
}

/// The old per-character tokenizer, the oracle of [`Tokens`] in the tests.
#[cfg(test)]
fn tokenize_chars(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\\' {
            if let Some(&(_, n)) = chars.peek() {
                if !n.is_whitespace() && (n.is_ascii() || !is_separator(n)) {
                    if cur.is_empty() {
                        start = i;
                    }
                    cur.extend(n.to_lowercase());
                    chars.next();
                    continue;
                }
            }
        }
        if is_separator(c) {
            if !cur.is_empty() {
                out.push(Token { text: std::mem::take(&mut cur), start, end: i });
            }
            continue;
        }
        if cur.is_empty() {
            start = i;
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(Token { text: cur, start, end: text.len() });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        tokenize(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn splits_on_punctuation_but_not_underscore() {
        assert_eq!(texts("Hello, World! foo_bar a-b"), ["hello", "world", "foo_bar", "a", "b"]);
        assert_eq!(texts("3.14 user@mail.com"), ["3", "14", "user", "mail", "com"]);
        assert_eq!(texts(r"a\-b"), ["a-b"]);
        // Any escaped character joins the token, without the backslash (RediSearch 2.10.5
        // indexes `single\_term` as `single_term`: FT.DEBUG DUMP_TERMS, live).
        assert_eq!(texts(r"single\_term a\Bc d\\e"), ["single_term", "abc", "d\\e"]);
        assert_eq!(texts("  "), Vec::<String>::new());
        assert_eq!(texts("ÉCOLE"), ["école"]);
    }

    #[test]
    fn agrees_with_the_per_character_tokenizer() {
        let alphabet = [
            "a", "B", " ", ",", "\\", "-", "_", "é", "É", "\u{a0}", "\t", "ß", "İ", "x", "\u{2003}", "'",
            "7", "\u{b}", "\u{1f}", "\u{85}",
        ];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            let mut s = String::new();
            for _ in 0..(x % 12) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push_str(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            x = x.wrapping_add(1);
            assert_eq!(tokenize(&s), tokenize_chars(&s), "{s:?}");
        }
        for c in 0..128u8 {
            assert_eq!(ASCII_SEPARATORS[c as usize], is_separator(char::from(c)), "{c}");
        }
    }

    #[test]
    fn offsets_point_into_the_source() {
        let s = "\"John Smith\"";
        let t = tokenize(s);
        assert_eq!(&s[t[0].start..t[0].end], "John");
        assert_eq!(&s[t[1].start..t[1].end], "Smith");
    }
}
