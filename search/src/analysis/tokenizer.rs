//! Splits text into tokens as RediSearch 2.10.5's simple tokenizer does (`toksep.h`,
//! `tokenize.c`), keeping byte offsets for highlighting. It reads bytes, not Unicode: only
//! the ASCII bytes of [`TOKSEP`] separate tokens (a no-break space, an em space or an
//! ideographic space are part of a word), only ASCII letters are lowercased (`École` stays
//! `École`, `ß` and `İ` stay themselves), control characters vanish from a token (`a\nb` is
//! `ab`), and a token is made of at most [`MAX_NORMALIZE`] bytes of its text.

use super::Language;

/// The bytes that separate tokens: RediSearch's `ToksepMap_g` (space, tab, and the ASCII
/// punctuation but `_` and `\`).
const TOKSEP: &[u8] = b" \t,./(){}[]:;~!@#$%^&*-=+|'`\"<>?";

/// How many bytes of a token's text make its term (`MAX_NORMALIZE_SIZE`): RediSearch
/// normalizes the first 128 and drops the rest (`aaa…` of 130 letters is indexed as its first
/// 128). Where the 128th byte falls inside a character, that character is left out here;
/// RediSearch keeps its first bytes, making a term that is not UTF-8.
pub const MAX_NORMALIZE: usize = 128;

/// True when `c` separates tokens in a document (`istoksep`).
pub fn is_separator(c: char) -> bool {
    c.is_ascii() && DOC_SEPARATORS[c as usize]
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

/// Tokenizes document text; a backslash makes the next byte part of the token.
pub fn tokenize(text: &str) -> Vec<Token> {
    Tokens::new(text).collect_all()
}

/// Tokenizes a query's term text. Its words come from RediSearch's query lexers, which end
/// a term at ASCII punctuation (but `_`), whitespace and control characters and never split
/// it again; a term is unescaped and its ASCII letters lowercased (`rm_strdupcase`). So here
/// ASCII whitespace separates too, nothing is dropped or cut, and a backslash also keeps an
/// ASCII whitespace character in the token (`escaped_character = escape (punct | space |
/// escape)` in `lexer.rl`): `hello\ world`, or a `$param` valued `Hello World`, is the one
/// term `hello world`.
pub fn tokenize_query(text: &str) -> Vec<Token> {
    let mut toks = Tokens::new(text);
    toks.query = true;
    toks.collect_all()
}

/// Which ASCII bytes separate tokens in documents ([`TOKSEP`]) and, with `query`, in query
/// words (also `\n`, `\x0b`, `\x0c` and `\r`).
const fn ascii_separators(query: bool) -> [bool; 128] {
    let mut t = [false; 128];
    let s = TOKSEP;
    let mut i = 0;
    while i < s.len() {
        t[s[i] as usize] = true;
        i += 1;
    }
    if query {
        t[10] = true;
        t[11] = true;
        t[12] = true;
        t[13] = true;
    }
    t
}

const DOC_SEPARATORS: [bool; 128] = ascii_separators(false);
const QUERY_SEPARATORS: [bool; 128] = ascii_separators(true);

/// The tokens of a text one at a time, each normalized into one buffer reused from token
/// to token (what [`tokenize`] returns, without an allocation per token).
pub struct Tokens<'a> {
    text: &'a str,
    at: usize,
    buf: String,
    /// The tokens, when a segmenter made them up front (Chinese).
    listed: Option<std::vec::IntoIter<Token>>,
    /// Query words ([`tokenize_query`]) rather than document text.
    query: bool,
}

impl<'a> Tokens<'a> {
    /// The tokens of `text`.
    pub fn new(text: &'a str) -> Tokens<'a> {
        Tokens { text, at: 0, buf: String::new(), listed: None, query: false }
    }

    /// Every token left, each with its own text.
    fn collect_all(mut self) -> Vec<Token> {
        let mut out = Vec::new();
        while let Some((tok, start, end)) = self.next_token() {
            out.push(Token { text: tok.to_string(), start, end });
        }
        out
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
        if self.query {
            return self.next_query_token();
        }
        self.next_document_token()
    }

    /// RediSearch's `toksep` and `DefaultNormalize` in one pass: the token runs to the
    /// next unescaped separator byte; of its first [`MAX_NORMALIZE`] bytes, ASCII capitals
    /// are lowercased, control characters and unescaped backslashes dropped, the rest kept.
    /// A token that normalizes to nothing is skipped.
    fn next_document_token(&mut self) -> Option<(&str, usize, usize)> {
        let text = self.text;
        let bytes = text.as_bytes();
        while self.at < bytes.len() {
            let start = self.at;
            let mut limit = (start + MAX_NORMALIZE).min(bytes.len());
            while !text.is_char_boundary(limit) {
                limit -= 1;
            }
            self.buf.clear();
            // One state serves both: `toksep`'s and the normalizer's escapes agree.
            let mut escaped = false;
            let mut i = start;
            while i < bytes.len() {
                let b = bytes[i];
                if b >= 0x80 {
                    // Never a separator; the whole character is kept.
                    let c = text.get(i..).and_then(|t| t.chars().next())?;
                    if i < limit {
                        self.buf.push(c);
                    }
                    escaped = false;
                    i += c.len_utf8();
                    continue;
                }
                if DOC_SEPARATORS[b as usize] && !escaped {
                    break;
                }
                if i < limit {
                    if b == b'\\' && !escaped {
                        escaped = true;
                        i += 1;
                        continue;
                    }
                    if !b.is_ascii_control() {
                        self.buf.push(char::from(b.to_ascii_lowercase()));
                    }
                } else if b == b'\\' && !escaped {
                    escaped = true;
                    i += 1;
                    continue;
                }
                escaped = false;
                i += 1;
            }
            self.at = (i + 1).min(bytes.len());
            if !self.buf.is_empty() {
                return Some((&self.buf, start, i));
            }
        }
        None
    }

    /// A query word's next token (see [`tokenize_query`]).
    fn next_query_token(&mut self) -> Option<(&str, usize, usize)> {
        let bytes = self.text.as_bytes();
        self.buf.clear();
        let mut start = self.at;
        while self.at < bytes.len() {
            let b = bytes[self.at];
            if b >= 0x80 {
                let Some(c) = self.text.get(self.at..).and_then(|t| t.chars().next()) else { break };
                if self.buf.is_empty() {
                    start = self.at;
                }
                self.buf.push(c);
                self.at += c.len_utf8();
                continue;
            }
            if b == b'\\' {
                // An escaped character belongs to the token, without its backslash.
                if let Some(c) = self.text.get(self.at + 1..).and_then(|t| t.chars().next()) {
                    if self.buf.is_empty() {
                        start = self.at;
                    }
                    self.buf.push(c.to_ascii_lowercase());
                    self.at += 1 + c.len_utf8();
                    continue;
                }
            }
            if QUERY_SEPARATORS[b as usize] {
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
        }
        (!self.buf.is_empty()).then_some((&self.buf[..], start, bytes.len()))
    }
}

/// RediSearch's `toksep` and `DefaultNormalize` as written in C, byte by byte: the oracle
/// of [`Tokens`] in the tests (its terms as bytes, which may end inside a character).
#[cfg(test)]
fn tokenize_c(text: &str) -> Vec<(Vec<u8>, usize, usize)> {
    let s = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < s.len() {
        let orig = pos;
        let mut escaped = false;
        while pos < s.len() && (escaped || DOC_SEPARATORS.get(s[pos] as usize) != Some(&true)) {
            escaped = !escaped && s[pos] == b'\\';
            pos += 1;
        }
        let raw = &s[orig..pos];
        pos += 1;
        let mut dst = Vec::new();
        let mut escaped = false;
        for &c in &raw[..raw.len().min(MAX_NORMALIZE)] {
            if c.is_ascii_uppercase() {
                dst.push(c.to_ascii_lowercase());
            } else if ((c == b' ' || c == b'\t') && !escaped) || c.is_ascii_control() {
            } else if c == b'\\' && !escaped {
                escaped = true;
                continue;
            } else {
                dst.push(c);
            }
            escaped = false;
        }
        if !dst.is_empty() {
            out.push((dst, orig, orig + raw.len()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        tokenize(s).into_iter().map(|t| t.text).collect()
    }

    fn query(s: &str) -> Vec<String> {
        tokenize_query(s).into_iter().map(|t| t.text).collect()
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
    }

    /// RediSearch 2.10.5's terms (FT.DEBUG DUMP_TERMS of a HASH and a JSON TEXT field, side
    /// by side with folio).
    #[test]
    fn reads_bytes_as_redisearch_does() {
        // Unicode spaces are not separators; ASCII whitespace but space and tab is dropped.
        assert_eq!(
            texts("a\u{a0}b a\u{2003}b a\u{3000}b a\u{85}b"),
            ["a\u{a0}b", "a\u{2003}b", "a\u{3000}b", "a\u{85}b"]
        );
        assert_eq!(texts("a\tb"), ["a", "b"]);
        for t in ["a\nb", "a\rb", "a\x0bb", "a\x0cb", "a\x01b", "a\x7fb", "a\x1fb", "a\\\nb", r"a\b"] {
            assert_eq!(texts(t), ["ab"], "{t:?}");
        }
        // Only ASCII capitals are lowercased.
        assert_eq!(texts("ÉCOLE école"), ["École", "école"]);
        assert_eq!(
            texts("ŸES Straße STRASSE İstanbul ΣΟΦΟΣ DŽ"),
            ["Ÿes", "straße", "strasse", "İstanbul", "ΣΟΦΟΣ", "dŽ"]
        );
        // Escapes: `\,` and `\ ` join, a trailing `\` is dropped.
        assert_eq!(texts(r"a\,b a\ b \-x y\"), ["a,b", "a b", "-x", "y"]);
        assert_eq!(texts(r"x\ \-x"), ["x -x"]);
        assert_eq!(texts("a\\\u{a0}b a😀b"), ["a\u{a0}b", "a😀b"]);
        // A token's first 128 bytes make its term.
        let long = format!("{} {}", "A".repeat(130), "b".repeat(200));
        assert_eq!(texts(&long), ["a".repeat(128), "b".repeat(128)]);
        let t = tokenize(&long);
        assert_eq!((t[0].start, t[0].end, t[1].start, t[1].end), (0, 130, 131, 331));
        // Every ASCII punctuation character but `_` and `\` separates.
        for c in "!\"#$%&'()*+,-./:;<=>?@[]^{}|~`".chars() {
            assert_eq!(texts(&format!("a{c}b")), ["a", "b"], "{c:?}");
        }
    }

    #[test]
    fn query_words_fold_ascii_only_and_split_at_ascii_whitespace() {
        assert_eq!(query("a\u{a0}b CAFÉ"), ["a\u{a0}b", "cafÉ"]);
        assert_eq!(query("a\nb"), ["a", "b"]);
        assert_eq!(query(r"hello\ World a\,B"), ["hello world", "a,b"]);
        assert_eq!(query(&"A".repeat(130)), ["a".repeat(130)]);
    }

    #[test]
    fn agrees_with_the_c_tokenizer() {
        let alphabet = [
            "a", "B", " ", ",", "\\", "-", "_", "é", "É", "\u{a0}", "\t", "ß", "İ", "x", "\u{2003}", "'",
            "7", "\u{b}", "\u{1f}", "\u{85}", "\n", "😀",
        ];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for round in 0..20_000 {
            let mut s = String::new();
            let n = if round % 10 == 0 { 150 } else { x % 12 };
            for _ in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push_str(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            x = x.wrapping_add(1);
            let ours: Vec<(Vec<u8>, usize, usize)> =
                tokenize(&s).into_iter().map(|t| (t.text.into_bytes(), t.start, t.end)).collect();
            let mut want = tokenize_c(&s);
            // A term cut inside a character leaves that character out here.
            for w in &mut want {
                while std::str::from_utf8(&w.0).is_err() {
                    w.0.pop();
                }
            }
            want.retain(|w| !w.0.is_empty());
            assert_eq!(ours, want, "{s:?}");
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
