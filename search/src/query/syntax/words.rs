//! How the lexers split text into words and numbers: punctuation they read as no token,
//! words that end at punctuation, numbers as terms (and inside dialect 1's phrases), a `$`
//! inside a phrase, and the syntax error after a fuzzy term's word.

use super::ast::QueryAst;
use super::scanner::{escape_word, is_c_space, is_special, Parser};
use crate::analysis::tokenize_query;
use crate::error::{Error, Result};

impl Parser<'_> {
    /// Skips ASCII punctuation RediSearch's lexer reads as no token (its `punct` rule):
    /// everything but `" | ( ) { } : ; - ~ * % [ ] \ @ $`, the `=>` arrow and (from
    /// dialect 2) `'`.
    fn skip_lexer_ignored(&mut self) {
        while let Some(c) = self.peek() {
            let token = "\"|(){}:;-~*%[]\\@$".contains(c)
                || (c == '\'' && self.dialect >= 2)
                || (c == '=' && self.peek_at(1) == Some('>'));
            if !c.is_ascii_punctuation() || c == '_' || token {
                return;
            }
            self.i += 1;
        }
    }

    /// Skips the ASCII punctuation inside a run of word characters that RediSearch's lexers
    /// read as no token (between terms: `a.b` is `a` then `b`), stopping at a number's sign
    /// and at dialect 2's `'…'`.
    pub(super) fn skip_word_punct(&mut self) {
        while let Some(c) = self.peek() {
            let skipped = c.is_ascii_punctuation()
                && !is_special(c)
                && c != '_'
                && c != '\\'
                && !(c == '\'' && self.at_verbatim())
                && self.number_token_len(0) == 0;
            if !skipped {
                return;
            }
            self.i += 1;
        }
    }

    /// Dialect 1 lexes a quoted phrase token by token: its numbers (`1.2`, `1e-3`) are
    /// terms of their own, escaped here so that the tokenizer keeps them whole.
    pub(super) fn phrase_numbers(&self, text: &str) -> String {
        let p = Parser::new(text, self.dialect, self.params);
        let mut p = p;
        let mut out = String::with_capacity(text.len());
        let mut in_term = false;
        while let Some(c) = p.peek() {
            if c == '\\' {
                out.push(c);
                if let Some(n) = p.peek_at(1) {
                    out.push(n);
                }
                p.i += 2;
                in_term = true;
                continue;
            }
            // v1's number takes a `-` (`"-5 x"` is the terms `-5` and `x`).
            let sign = usize::from(c == '-');
            if (sign == 1 || !in_term) && p.peek_at(sign).is_some_and(|d| d.is_ascii_digit()) {
                let n = sign + p.number_len(sign);
                if n > 1 && n >= p.term_len(0) {
                    let num: String = (0..n).filter_map(|j| p.peek_at(j)).collect();
                    if in_term {
                        // A term before the sign ends there (`a-5` is `a` then `-5`).
                        out.push(' ');
                    }
                    out.push_str(&escape_word(&num));
                    p.i += n;
                    if p.term_len(0) > 0 {
                        // What follows is a term of its own (`1.5b` is `1.5` then `b`).
                        out.push(' ');
                    }
                    continue;
                }
            }
            in_term = !(is_special(c) || (c.is_ascii_punctuation() && c != '_'));
            out.push(c);
            p.i += 1;
        }
        out
    }

    /// A NUMBER token used as a term (`term ::= NUMBER` in both grammars). Dialect 1 takes
    /// its text as any term's (lower-cased, expanded); dialect 2 as written and verbatim
    /// (`NewTokenNode_WithParams`: QT_NUMERIC and QT_SIZE are neither case-folded nor
    /// expanded).
    pub(super) fn number_term(&self, text: String) -> QueryAst {
        if self.dialect >= 2 {
            QueryAst::Verbatim(text)
        } else {
            // Escaped so that the tokenizer keeps it one term with its sign and point.
            QueryAst::Word(escape_word(&text))
        }
    }

    /// Skips spaces and [`Self::skip_lexer_ignored`]'s punctuation.
    pub(super) fn skip_lexer_gaps(&mut self) {
        loop {
            let at = self.i;
            while self.peek().is_some_and(is_c_space) {
                self.i += 1;
            }
            self.skip_lexer_ignored();
            if self.i == at {
                return;
            }
        }
    }

    /// A word that also ends at ASCII punctuation other than `_` (escaped punctuation stays).
    pub(super) fn word_until_punct(&mut self) -> String {
        let mut w = String::new();
        while let Some(c) = self.peek() {
            if c == '\\' && !self.lone_backslash(0) {
                if let Some(n) = self.peek_at(1) {
                    w.push('\\');
                    w.push(n);
                    self.i += 2;
                    continue;
                }
            }
            if is_special(c) || (c.is_ascii_punctuation() && c != '_') {
                break;
            }
            w.push(c);
            self.i += 1;
        }
        w
    }

    /// The syntax error after a fuzzy term's word `w` (at `word_at`) where its closing `%`
    /// belongs: RediSearch's parser stops at the next token. A `*` glued to the word makes
    /// it a prefix token (the error quotes the word at its start); punctuation between
    /// tokens is skipped; `$name` and `@name` quote the name, other punctuation tokens the
    /// word before them, a word itself.
    pub(super) fn fuzzy_error(&mut self, word_at: usize, w: &str) -> Error {
        if self.peek() == Some('*') {
            let off = self.chars.get(word_at).map_or(self.s.len(), |&(o, _)| o);
            return Error::syntax(off, w);
        }
        while self.peek().is_some_and(|c| {
            is_c_space(c) || c.is_ascii_control() || (c.is_ascii_punctuation() && !is_special(c) && c != '_')
        }) {
            self.i += 1;
        }
        let off = self.offset();
        match self.peek() {
            None => Error::syntax(self.chars.get(word_at).map_or(off, |&(o, _)| o), w),
            Some('$' | '@') => {
                self.i += 1;
                let name = self.word();
                Error::syntax(off, &name)
            }
            // A punctuation token sets no text: with no word read, the error quotes the last
            // token that set one (`hello%}` is near `hello`, as RediSearch replies).
            Some(c) if is_special(c) && w.is_empty() => Error::syntax(off, &self.stale_near()),
            Some(c) if is_special(c) => Error::syntax(off, w),
            Some(_) => self.word_error(),
        }
    }
}

impl Parser<'_> {
    /// A `$` in a quoted phrase (`text`, from character `start`): v1's lexer reads `$name` as
    /// a parameter, which no phrase rule takes (its syntax error at the `$`); v2's phrase keeps
    /// it as a character of the word (`"$hello"` is the term `$hello`), escaped here for the
    /// tokenizer.
    pub(super) fn phrase_dollars(&mut self, text: String, start: usize) -> Result<String> {
        if !text.contains('$') {
            return Ok(text);
        }
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::with_capacity(text.len() + 2);
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            if c == '\\' {
                out.push(c);
                if let Some(&n) = chars.get(k + 1) {
                    out.push(n);
                }
                k += 2;
                continue;
            }
            if c == '$' {
                if self.dialect < 2 {
                    let name: String =
                        chars[k + 1..].iter().take_while(|c| c.is_alphanumeric() || **c == '_').collect();
                    if !name.is_empty() {
                        let at = self.i;
                        self.i = start + k;
                        let off = self.offset();
                        self.i = at;
                        return Err(Error::syntax(off, &name));
                    }
                } else {
                    out.push('\\');
                }
            }
            out.push(c);
            k += 1;
        }
        Ok(out)
    }
}

impl Parser<'_> {
    /// Dialect 1 reads a phrase's words as TERM or STOPWORD tokens, and its grammar takes a
    /// phrase only as `QUOTE term QUOTE` or `QUOTE termlist QUOTE` (`termlist ::= term term
    /// | termlist term | termlist STOPWORD`, `v1/parser.y`): a stopword as the first or
    /// second word is its syntax error there, quoting it (`"the a"`, `"x of y"`); later
    /// ones are dropped (`"x y the z"` is `x y z`). `text` is the phrase as written, from
    /// character `start`.
    pub(super) fn v1_phrase_stopwords(&self, text: &str, start: usize) -> Result<()> {
        let Some(sw) = self.stopwords else { return Ok(()) };
        let base = self.chars.get(start).map_or(self.s.len(), |&(o, _)| o);
        for t in tokenize_query(text).iter().take(2) {
            if sw.contains(&t.text) {
                return Err(Error::syntax(base + t.start, text.get(t.start..t.end).unwrap_or("")));
            }
        }
        Ok(())
    }

    /// Whether dialect 1's lexer reads a STOPWORD token here: a term (not a number, not a
    /// prefix) whose text as written, lower-cased, is one of the index's stopwords.
    pub(super) fn at_stopword(&mut self) -> bool {
        let Some(sw) = self.stopwords else { return false };
        let at = self.i;
        self.skip_ws();
        self.skip_word_punct();
        let w = if self.number_token_len(0) > 0 || self.peek().is_none_or(is_special) {
            String::new()
        } else {
            self.word_until_punct()
        };
        let prefix = self.peek() == Some('*');
        self.i = at;
        !w.is_empty() && !prefix && sw.contains(&w.to_ascii_lowercase())
    }

    /// Dialect 1: whether `q` is a lone word its lexer reads as a STOPWORD (a NULL node), or
    /// a field modifier on one (`modifier COLON expr` of a NULL is NULL).
    pub(super) fn is_null_word(&self, q: &QueryAst) -> bool {
        match q {
            QueryAst::Word(w) => {
                self.dialect < 2 && self.stopwords.is_some_and(|sw| sw.contains(&w.to_ascii_lowercase()))
            }
            QueryAst::Field(_, inner) => self.is_null_word(inner),
            _ => false,
        }
    }
}
