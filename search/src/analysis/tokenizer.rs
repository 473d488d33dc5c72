//! Splits text into lowercased tokens on RediSearch's separator set (ASCII punctuation
//! except `_`, plus Unicode whitespace), keeping byte offsets for highlighting.

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

/// Tokenizes `text`; a backslash makes the next separator part of the token.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\\' {
            if let Some(&(_, n)) = chars.peek() {
                if is_separator(n) && !n.is_whitespace() {
                    if cur.is_empty() {
                        start = i;
                    }
                    cur.push(n);
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
        assert_eq!(texts("  "), Vec::<String>::new());
        assert_eq!(texts("ÉCOLE"), ["école"]);
    }

    #[test]
    fn offsets_point_into_the_source() {
        let s = "\"John Smith\"";
        let t = tokenize(s);
        assert_eq!(&s[t[0].start..t[0].end], "John");
        assert_eq!(&s[t[1].start..t[1].end], "Smith");
    }
}
