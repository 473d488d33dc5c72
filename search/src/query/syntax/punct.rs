//! RediSearch's lexing of three punctuation marks in query text (`v1/lexer.rl`,
//! `v2/lexer.rl`, as their generated `lexer.c` scan): `;` is a token of its own
//! (SEMICOLON, which only an attribute list accepts: elsewhere a syntax error), a
//! quoted run `'…'` is a VERBATIM token (dialect 2; no rule takes it: a syntax
//! error, except `w'…'`, a wildcard), and a lone `=` (not `=>`) starts no token
//! and is skipped, so `equal=lity` is `equal lity`.
//!
//! Contract: [`Parser::at_verbatim`] / [`Parser::verbatim_error`] for `'`,
//! [`Parser::skip_lone_equals`] before reading a token, and
//! [`Parser::stale_near`] for the text RediSearch quotes at a `;`: its lexer does
//! not set the token's text for `;`, so the error quotes the last token that set
//! it (`swim;pass`: `Syntax error at offset 4 near swim`).

use super::scanner::{is_c_space, Parser};
use crate::error::Error;

impl<'a> Parser<'a> {
    /// At a `'` that opens a VERBATIM token: `'`, one or more characters (a `\`
    /// taking the next one whatever it is), `'` (dialect 2; `''` is the empty string).
    pub(super) fn at_verbatim(&self) -> bool {
        self.verbatim_len().is_some()
    }

    /// Characters between the quotes of the VERBATIM token here.
    fn verbatim_len(&self) -> Option<usize> {
        if self.dialect < 2 || self.peek() != Some('\'') {
            return None;
        }
        let mut k = 1;
        loop {
            match self.peek_at(k)? {
                '\\' => {
                    self.peek_at(k + 1)?;
                    k += 2;
                }
                '\'' => return (k > 1).then_some(k - 1),
                _ => k += 1,
            }
        }
    }

    /// At `w'…'`, a WILDCARD token (dialect 2).
    pub(super) fn at_wildcard(&mut self) -> bool {
        if self.peek() != Some('w') {
            return false;
        }
        self.i += 1;
        let yes = self.at_verbatim();
        self.i -= 1;
        yes
    }

    /// The WILDCARD token here: its pattern (escapes kept), or a `$param`'s value.
    pub(super) fn wildcard(&mut self) -> crate::error::Result<super::ast::QueryAst> {
        self.i += 1;
        let n = self.verbatim_len().unwrap_or(0);
        let text: String = (1..=n).filter_map(|k| self.peek_at(k)).collect();
        self.i += n + 2;
        let pattern = match text.strip_prefix('$') {
            Some(name) => {
                self.params.text(name).ok_or_else(|| Error::new(format!("No such parameter `{name}`")))?
            }
            None => text,
        };
        Ok(super::ast::QueryAst::Wildcard(pattern))
    }

    /// The syntax error at a VERBATIM token: its offset, the text between its quotes.
    pub(super) fn verbatim_error(&self) -> Option<Error> {
        let n = self.verbatim_len()?;
        let text: String = (1..=n).filter_map(|k| self.peek_at(k)).collect();
        Some(Error::syntax(self.offset(), &text))
    }

    /// Skips `=` characters that do not start `=>` (with the spaces after them).
    pub(super) fn skip_lone_equals(&mut self) {
        while self.peek() == Some('=') && self.peek_at(1) != Some('>') {
            self.i += 1;
            self.skip_ws();
        }
    }

    /// The text of the last token before the current position that set the token
    /// text in RediSearch's lexer (a term or number, a `@`/`$` name, a quoted phrase's inside
    /// from dialect 2, its last word in dialect 1); empty when there is none.
    pub(super) fn stale_near(&self) -> String {
        self.text_of(self.stale_near_span()).to_string()
    }

    /// The text of a byte range of the query (`""` outside it).
    pub(super) fn text_of(&self, (a, b): (usize, usize)) -> &'a str {
        self.s.get(a..b).unwrap_or("")
    }

    /// [`Parser::stale_near`]'s text as a byte range of the query, kept without copying
    /// by readers that need it only for an error.
    pub(super) fn stale_near_span(&self) -> (usize, usize) {
        let mut k = self.i;
        // Back over spaces and the punctuation tokens that leave the text as it was.
        while k > 0 {
            let c = self.chars[k - 1].1;
            let escaped = k >= 2 && self.chars[k - 2].1 == '\\';
            // Dialect 1 lexes a phrase's words one by one: its closing quote is skipped too.
            let quote_token = c == '"' && self.dialect >= 2;
            if !escaped && !quote_token && (is_c_space(c) || (c.is_ascii_punctuation() && c != '_')) {
                k -= 1;
            } else {
                break;
            }
        }
        if k == 0 {
            return (0, 0);
        }
        if self.chars[k - 1].1 == '"' {
            // From dialect 2 a quoted phrase is one token: the text between its quotes.
            let end = k - 1;
            let mut j = end;
            while j > 0 && !(self.chars[j - 1].1 == '"' && (j < 2 || self.chars[j - 2].1 != '\\')) {
                j -= 1;
            }
            return (self.byte(j), self.byte(end));
        }
        let end = k;
        while k > 0 {
            let c = self.chars[k - 1].1;
            // A `\` escapes only punctuation or a space: before another character it is
            // punctuation between words (`a\b` ends with the term `b`).
            let escaped =
                k >= 2 && self.chars[k - 2].1 == '\\' && (c.is_ascii_punctuation() || is_c_space(c));
            if escaped {
                k -= 2;
            } else if c == '_' || !(is_c_space(c) || c.is_ascii_punctuation() || c.is_ascii_control()) {
                k -= 1;
            } else {
                break;
            }
        }
        // A number keeps its fraction (`3.5`) and its sign.
        if k >= 2
            && self.chars[k - 1].1 == '.'
            && self.chars[k - 2].1.is_ascii_digit()
            && self.chars[k..end].iter().all(|&(_, c)| c.is_ascii_digit())
        {
            k -= 1;
            while k > 0 && self.chars[k - 1].1.is_ascii_digit() {
                k -= 1;
            }
        }
        let run = self.text_of((self.byte(k), self.byte(end)));
        if k > 0 && matches!(self.chars[k - 1].1, '-' | '+') && run.parse::<f64>().is_ok() {
            k -= 1;
        }
        (self.byte(k), self.byte(end))
    }
}
