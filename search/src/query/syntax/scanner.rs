//! The parser's cursor over the query text, and its lexical pieces: characters, words
//! (escapes kept), numbers, `$param` values, delimited text, keywords, and backslash
//! escapes. The grammar's stages ([`super::parser`] and the clause files) read the text
//! only through these.

use crate::analysis::Stopwords;
use crate::error::{Error, Result};
use crate::limits::MAX_QUERY_DEPTH;

/// The parser's state: the text as characters with their byte offsets, the position, the
/// dialect, the `$name` values, and how deeply it has nested.
pub(super) struct Parser<'a> {
    /// The query text.
    pub(super) s: &'a str,
    /// Its characters with their byte offsets.
    pub(super) chars: Vec<(usize, char)>,
    /// The position in `chars`.
    pub(super) i: usize,
    /// The query dialect (1–4).
    pub(super) dialect: u32,
    /// PARAMS: the values of `$name`.
    pub(super) params: &'a dyn super::Params,
    /// Nesting depth, bounded by [`MAX_QUERY_DEPTH`].
    pub(super) depth: usize,
    /// Inside an alternative that v2's grammar only accepts as text (no field modifiers).
    pub(super) text_only: usize,
    /// The index's stopwords, which RediSearch's lexers and grammars read as such (a tag
    /// phrase drops them from its third word on); None: no index at hand.
    pub(super) stopwords: Option<&'a Stopwords>,
}

/// C's `isspace` (Ragel's `space`), which the lexers' `escaped_character` takes after a
/// `\`: ASCII whitespace and the vertical tab (`a\<VT>b` is one term in both dialects).
pub(super) const fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// Characters with a meaning in queries (end a word); control characters separate words as
/// spaces do (RediSearch's lexers skip `cntrl`).
pub(super) fn is_special(c: char) -> bool {
    let u = c as u32;
    u < 128 && (SPECIAL >> u) & 1 == 1
}

/// [`is_special`]'s ASCII characters as a bit set (a lookup per character where a search of
/// the punctuation string was a few percent of parsing a short query).
const SPECIAL: u128 = {
    let mut set = 0u128;
    let mut u = 0u8;
    while u < 128 {
        let c = u as char;
        let punct = b"()|{}[]@\"~*%$:;-=";
        let mut k = 0;
        let mut special = is_c_space(c) || c.is_ascii_control();
        while k < punct.len() {
            special |= punct[k] == u;
            k += 1;
        }
        if special {
            set |= 1 << u;
        }
        u += 1;
    }
    set
};

impl<'a> Parser<'a> {
    /// A parser at the start of `text`.
    pub(super) fn new(text: &'a str, dialect: u32, params: &'a dyn super::Params) -> Parser<'a> {
        Parser {
            s: text,
            chars: text.char_indices().collect(),
            i: 0,
            dialect,
            params,
            depth: 0,
            text_only: 0,
            stopwords: None,
        }
    }

    /// Past the last character.
    pub(super) fn at_end(&self) -> bool {
        self.i >= self.chars.len()
    }

    /// The current character.
    pub(super) fn peek(&self) -> Option<char> {
        self.chars.get(self.i).map(|&(_, c)| c)
    }

    /// The character `k` ahead.
    pub(super) fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).map(|&(_, c)| c)
    }

    /// The byte offset of the current character (the text's length at the end).
    pub(super) fn offset(&self) -> usize {
        self.chars.get(self.i).map(|&(o, _)| o).unwrap_or(self.s.len())
    }

    /// `Syntax error at offset N near X` at the current character.
    pub(super) fn err(&self) -> Error {
        let off = self.offset();
        if self.peek() == Some(';') {
            // RediSearch's SEMICOLON token quotes the text of the token before it.
            return Error::syntax(off, &self.stale_near());
        }
        if let Some(e) = self.verbatim_error() {
            return e;
        }
        if self.peek().is_none() {
            // At the end RediSearch's parser is handed the last token once more: its offset,
            // and the text of the last token that set one (`((` → offset 1 near "").
            return Error::syntax(self.last_token_start(), &self.stale_near());
        }
        if self.peek().is_some_and(|c| "()[]{}|~:%".contains(c)) {
            // A punctuation token leaves the token text as the token before it set it.
            return Error::syntax(off, &self.stale_near());
        }
        // A term or number token here quotes its own text (`x=>y}` near `y`, `x=>1.5x` near
        // `1.5`): the longer of the two, as the lexers' longest match.
        let token = self.term_len(0).max(self.number_token_len(0));
        if token > 0 {
            let near: String = (0..token).filter_map(|j| self.peek_at(j)).collect();
            return Error::syntax(off, &near);
        }
        let rest = self.s.get(off..).unwrap_or("");
        let near: String = rest.chars().take_while(|&c| !is_c_space(c)).collect();
        Error::syntax(off, &near)
    }

    /// The byte offset where the last token before the current position starts: a
    /// punctuation character on its own, else the run of word characters it ends.
    fn last_token_start(&self) -> usize {
        let mut k = self.i;
        while k > 0 && is_c_space(self.chars[k - 1].1) {
            k -= 1;
        }
        if k == 0 {
            return 0;
        }
        let word = |c: char| c == '_' || c == '.' || !(is_c_space(c) || c.is_ascii_punctuation());
        if word(self.chars[k - 1].1) {
            while k > 0 && (word(self.chars[k - 1].1) || (k >= 2 && self.chars[k - 2].1 == '\\')) {
                k -= 1;
            }
        } else {
            k -= 1;
        }
        self.chars[k].0
    }

    /// Skips whitespace.
    pub(super) fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| is_c_space(c) || c.is_ascii_control()) || self.lone_backslash(0) {
            self.i += 1;
        }
    }

    /// At `k` ahead, a `\` that escapes nothing: the character after it is neither ASCII
    /// punctuation nor a space. RediSearch's lexers take such a backslash as punctuation
    /// between words (`two\words` is `two` and `words`).
    pub(super) fn lone_backslash(&self, k: usize) -> bool {
        self.peek_at(k) == Some('\\')
            && self.peek_at(k + 1).is_some_and(|n| !(n.is_ascii_punctuation() || is_c_space(n)))
    }

    /// Consumes `c` if it is the current character.
    pub(super) fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// One level deeper (the caller decrements `depth` on its way out). Past the bound, dialect
    /// 1 is a syntax error, dialect 2 on RediSearch's parser's own text (its stack overflows
    /// near there: 200 nested intersections or 100 unions).
    pub(super) fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_QUERY_DEPTH {
            if self.dialect >= 2 {
                return Err(Error::new(
                    "Parser stack overflow. Try moving nested parentheses more to the left",
                ));
            }
            return Err(Error::new(format!(
                "Syntax error at offset {}: query nested deeper than {MAX_QUERY_DEPTH}",
                self.offset()
            )));
        }
        Ok(())
    }

    /// At `-` starting a negative number (`-20`, `-2.5`, `-1e3`, `-inf`) or a prefix of one
    /// (`-20*`): RediSearch's lexers read these as one NUMBER token, not as a negation
    /// (`-20abc` is `-20` then `abc`). `Some(true)`: a prefix.
    pub(super) fn minus_number(&self) -> Option<bool> {
        if self.peek() != Some('-') {
            return None;
        }
        let n = self.unsigned_number_len(1);
        if n == 0 {
            return None;
        }
        Some(self.peek_at(1 + n) == Some('*'))
    }

    /// Length of the number (`digits[.digits][e[sign]digits]`) starting `at` characters
    /// ahead, as this dialect's lexer reads it (`number` in `v1/lexer.rl`: the exponent's
    /// sign only `-`; `v2/lexer.rl`: `+`, `-` or `'`).
    pub(super) fn number_len(&self, at: usize) -> usize {
        self.number_len_from(self.i + at)
    }

    /// [`Self::number_len`] of the number starting at character `k` of the text.
    pub(super) fn number_len_from(&self, k: usize) -> usize {
        let int = self.digits_from(k);
        if int == 0 {
            return 0;
        }
        let mut j = k + int;
        if self.char_at(j) == Some('.') && self.digits_from(j + 1) > 0 {
            j += 1 + self.digits_from(j + 1);
        }
        if matches!(self.char_at(j), Some('e' | 'E')) {
            let signs: &[char] = if self.dialect >= 2 { &['+', '-', '\''] } else { &['-'] };
            let sign = usize::from(self.char_at(j + 1).is_some_and(|c| signs.contains(&c)));
            let exp = self.digits_from(j + 1 + sign);
            if exp > 0 {
                j += 1 + sign + exp;
            }
        }
        j - k
    }

    /// Number of ASCII digits from character `k` of the text.
    pub(super) fn digits_from(&self, k: usize) -> usize {
        let mut j = k;
        while self.char_at(j).is_some_and(|c| c.is_ascii_digit()) {
            j += 1;
        }
        j - k
    }

    /// Length of the lexers' `inf` at character `k` of the text (3, or 0): case-insensitive
    /// from dialect 2.
    pub(super) fn inf_len_from(&self, k: usize) -> usize {
        let inf = "inf".chars().enumerate().all(|(j, c)| {
            self.char_at(k + j).is_some_and(|p| {
                if self.dialect >= 2 {
                    p.eq_ignore_ascii_case(&c)
                } else {
                    p == c
                }
            })
        });
        if inf {
            3
        } else {
            0
        }
    }

    /// Character `k` of the text.
    pub(super) fn char_at(&self, k: usize) -> Option<char> {
        self.chars.get(k).map(|&(_, c)| c)
    }

    /// Length of a number or of the lexers' `inf` (case-insensitive from dialect 2) starting
    /// `at` characters ahead, without a sign.
    pub(super) fn unsigned_number_len(&self, at: usize) -> usize {
        match self.number_len(at) {
            0 => self.inf_len_from(self.i + at),
            n => n,
        }
    }

    /// Length of the lexers' `term` starting `at` characters ahead: characters that are
    /// neither ASCII punctuation (but `_`), spaces nor control characters, and backslash
    /// escapes of punctuation, spaces or backslashes.
    pub(super) fn term_len(&self, at: usize) -> usize {
        let mut k = at;
        while let Some(c) = self.peek_at(k) {
            if c == '\\' {
                match self.peek_at(k + 1) {
                    Some(n) if n.is_ascii_punctuation() || is_c_space(n) => k += 2,
                    _ => break,
                }
                continue;
            }
            if is_special(c) || (c.is_ascii_punctuation() && c != '_') {
                break;
            }
            k += 1;
        }
        k - at
    }

    /// The token RediSearch's lexer reads `at` characters ahead when it is a NUMBER (the
    /// longest match, a number winning a tie with a term: `705`, `1.5b` is `1.5` then `b`,
    /// `a1.5b` is `a1` then `5b`): its length with its sign (`-` always, `+` from dialect
    /// 2; `inf` also after v1's `+`).
    pub(super) fn number_token_len(&self, at: usize) -> usize {
        let sign = match self.peek_at(at) {
            Some('-') => 1,
            Some('+') => 1,
            _ => 0,
        };
        let mut n = self.unsigned_number_len(at + sign);
        if n == 0 {
            return 0;
        }
        if sign == 1 && self.peek_at(at) == Some('+') && self.dialect < 2 && self.number_len(at + 1) > 0 {
            // v1's number takes no `+` (its `inf` does).
            return 0;
        }
        n += sign;
        if sign == 0 && n < self.term_len(at) {
            return 0;
        }
        n
    }

    /// A run of characters up to a special one or one that `stop` accepts, a `\` kept with
    /// the character after it (a `\` that ends the text is dropped).
    fn word_until(&mut self, stop: impl Fn(char) -> bool) -> String {
        let mut w = String::new();
        while let Some(c) = self.peek() {
            if c == '\\' {
                if self.lone_backslash(0) {
                    if !w.is_empty() {
                        break;
                    }
                    self.i += 1;
                    continue;
                }
                if let Some(n) = self.peek_at(1) {
                    w.push('\\');
                    w.push(n);
                    self.i += 2;
                    continue;
                }
                self.i += 1;
                continue;
            }
            if is_special(c) || stop(c) || (c == '\'' && w != "w" && self.at_verbatim()) {
                break;
            }
            w.push(c);
            self.i += 1;
        }
        w
    }

    /// A word: a run of non-special characters (escapes kept).
    pub(super) fn word(&mut self) -> String {
        self.word_until(|_| false)
    }

    /// A word that also stops at `;` (an attribute's name or value).
    pub(super) fn raw_word(&mut self) -> String {
        self.word_until(|c| c == ';')
    }

    /// A field name: a word that also stops at comparison operators.
    pub(super) fn field_name(&mut self) -> String {
        self.word_until(|c| "<>!".contains(c))
    }

    /// The value of `$name` (after the `$`); parameters are dialect 2's.
    pub(super) fn param(&mut self) -> Result<String> {
        let dollar = self.i.checked_sub(1).and_then(|k| self.chars.get(k)).map_or(0, |&(o, _)| o);
        let name = self.word();
        if self.dialect < 2 {
            // v1's ATTRIBUTE token, which no rule takes: the error at its `$`, quoting the name.
            return Err(Error::syntax(dollar, &name));
        }
        self.params.text(&name).ok_or_else(|| Error::new(format!("No such parameter `{name}`")))
    }

    /// The text up to the first unescaped character that `stop` accepts (left unconsumed),
    /// `\` escaping the character after it (the `\` itself kept in the text when
    /// `keep_escapes`), and whether the text's last character was escaped. The text ending
    /// before a stop is a syntax error there. Quoted phrases and tags, and plain tags.
    pub(super) fn scan_until(
        &mut self,
        stop: impl Fn(char) -> bool,
        keep_escapes: bool,
    ) -> Result<(String, bool)> {
        let mut text = String::new();
        let mut last_escaped = false;
        loop {
            match self.peek() {
                None => return Err(self.err()),
                Some('\\') => {
                    self.i += 1;
                    if let Some(n) = self.peek() {
                        if keep_escapes {
                            text.push('\\');
                        }
                        text.push(n);
                        self.i += 1;
                        last_escaped = true;
                    }
                }
                Some(c) if stop(c) => return Ok((text, last_escaped)),
                Some(c) => {
                    text.push(c);
                    self.i += 1;
                    last_escaped = false;
                }
            }
        }
    }

    /// At the word `kw` (case-insensitive) followed by a non-word character.
    pub(super) fn at_keyword(&self, kw: &str) -> bool {
        let mut k = 0;
        while self.peek_at(k).is_some_and(is_c_space) {
            k += 1;
        }
        for (j, c) in kw.chars().enumerate() {
            if !self.peek_at(k + j).is_some_and(|p| p.eq_ignore_ascii_case(&c)) {
                return false;
            }
        }
        self.peek_at(k + kw.len()).is_none_or(is_special)
    }
}

/// Removes backslash escapes.
pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut esc = false;
    for c in s.chars() {
        if esc {
            out.push(c);
            esc = false;
        } else if c == '\\' {
            esc = true;
        } else {
            out.push(c);
        }
    }
    out
}

/// A `$param` value as a word: every ASCII character but letters, digits, `_` and spaces
/// escaped, so that its punctuation is text, not query syntax. Other characters are a
/// term's in RediSearch's lexers (which read bytes), and a backslash before one would read
/// as a lone one.
pub(crate) fn escape_word(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() && !c.is_ascii_alphanumeric() && c != '_' && !is_c_space(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A `$param` value as one term: [`escape_word`] with ASCII whitespace escaped too.
/// RediSearch substitutes the whole value, lower-cased, as the term (`QueryParam_Resolve`,
/// `rm_strdupcase`): `Hello World` is the term `hello world`, not two terms.
pub(crate) fn escape_term(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        if c.is_ascii() && !c.is_ascii_alphanumeric() && c != '_' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit set says what the plain rule says, for every ASCII character and beyond.
    #[test]
    fn special_characters_are_the_plain_rule() {
        let plain = |c: char| is_c_space(c) || c.is_ascii_control() || "()|{}[]@\"~*%$:;-=".contains(c);
        for c in (0u32..0x3000).filter_map(char::from_u32) {
            assert_eq!(is_special(c), plain(c), "{c:?}");
        }
    }
}
