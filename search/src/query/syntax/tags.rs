//! Tag lists: `@t:{a | b* | *c | "d e" | ""}` after the `{`, each value one [`TagTerm`],
//! and dialect 1's `| word` after the `}`.

use super::ast::TagTerm;
use super::scanner::{unescape, Parser};
use crate::error::{Error, Result};

impl Parser<'_> {
    /// The values up to and including the `}`, separated by `|`.
    pub(super) fn tag_list(&mut self) -> Result<Vec<TagTerm>> {
        let mut out = Vec::new();
        loop {
            self.skip_ws();
            out.push(self.tag()?);
            if self.eat('}') {
                return Ok(out);
            }
            if !self.eat('|') {
                return Err(self.err());
            }
        }
    }

    /// One value of a tag list, up to its separator (whitespace after a quoted, empty or
    /// `$param` value skipped).
    fn tag(&mut self) -> Result<TagTerm> {
        let quote = self.peek().filter(|&q| q == '"' || q == '\'');
        if self.dialect >= 2 && quote.is_some() && self.peek_at(1) == quote {
            // `{""}` / `{''}`: the empty tag (INDEXEMPTY).
            self.i += 2;
            self.skip_ws();
            if matches!(self.peek(), Some('|' | '}') | None) {
                return Ok(TagTerm::Exact(String::new()));
            }
            // `{"" bar}`: words of one value.
            let mut words = vec![String::new()];
            match self.tag()? {
                TagTerm::Exact(v) => words.extend(v.split(' ').map(str::to_string)),
                TagTerm::Words(w) => words.extend(w),
                _ => return Err(self.err()),
            }
            return Ok(TagTerm::Words(words));
        }
        if self.at_wildcard() {
            let super::ast::QueryAst::Wildcard(p) = self.wildcard()? else { return Err(self.err()) };
            self.skip_ws();
            return Ok(TagTerm::Wildcard(p));
        }
        if self.peek() == Some('$') && self.dialect >= 2 {
            self.i += 1;
            let raw = self.param()?;
            if self.eat('*') {
                // `$p*`: a prefix of the parameter's value.
                self.skip_ws();
                return Ok(TagTerm::Prefix(raw));
            }
            self.skip_ws();
            if raw.is_empty() {
                // An empty parameter asks for the empty tag.
                return Ok(TagTerm::Exact(String::new()));
            }
            let mut v = raw.trim().to_string();
            if v.is_empty() {
                return Err(self.err());
            }
            // Words after the parameter belong to the same tag: `{$x y}` is `x y`, `{$x $y}`
            // both values. A loop, not a call per parameter: a query can hold many.
            while matches!(self.peek(), Some(c) if c != '|' && c != '}') {
                if self.peek() != Some('$') {
                    match self.tag()? {
                        TagTerm::Exact(rest) => v = format!("{v} {rest}"),
                        _ => return Err(self.err()),
                    }
                    break;
                }
                self.i += 1;
                let raw = self.param()?;
                self.skip_ws();
                if raw.is_empty() {
                    // An empty parameter ends the tag.
                    v.push(' ');
                    break;
                }
                let next = raw.trim();
                if next.is_empty() {
                    return Err(self.err());
                }
                v = format!("{v} {next}");
            }
            return Ok(TagTerm::Exact(v));
        }
        let lead_star = self.eat('*');
        if lead_star && self.dialect >= 2 && self.peek() == Some('$') {
            // `*$p` / `*$p*`: a suffix or contains of the parameter's value.
            self.i += 1;
            let v = self.param()?;
            let trail_star = self.eat('*');
            self.skip_ws();
            return Ok(TagTerm::of(v, true, trail_star));
        }
        if self.dialect >= 2 && self.peek() == Some('"') {
            // `"…"`: the tag exactly as written, `\` escaping the next character;
            // a `*` after the closing quote makes it a prefix (RediSearch 2.10).
            self.i += 1;
            let (v, _) = self.scan_until(|c| c == '"', false)?;
            self.i += 1;
            let trail_star = self.eat('*');
            self.skip_ws();
            return Ok(TagTerm::of(v, lead_star, trail_star));
        }
        // Unquoted: up to `|` or `}`, trimmed; an unescaped trailing `*` makes a prefix.
        let (mut raw, last_escaped) = self.scan_until(|c| c == '|' || c == '}', false)?;
        let escaped_star_end = last_escaped && raw.ends_with('*');
        let trimmed = raw.trim_end().len();
        raw.truncate(trimmed);
        let mut trail_star = false;
        if raw.ends_with('*') && !escaped_star_end {
            raw.pop();
            trail_star = true;
        }
        let v = raw.trim().to_string();
        if v.is_empty() && !(lead_star || trail_star) {
            return Err(self.err());
        }
        if self.dialect >= 2 && !lead_star && !trail_star && !last_escaped {
            // `{foo ""}`: the empty string among the words.
            let words: Vec<&str> = v.split_whitespace().collect();
            if words.len() > 1 && words.iter().any(|w| *w == "\"\"" || *w == "''") {
                let words =
                    words
                        .iter()
                        .map(|w| if *w == "\"\"" || *w == "''" { String::new() } else { w.to_string() });
                return Ok(TagTerm::Words(words.collect()));
            }
        }
        Ok(TagTerm::of(v, lead_star, trail_star))
    }

    /// Dialect 1: a tag list goes on after its `}` with `| word` (v1's `tag_list OR term`):
    /// `@t:{a} | b` is `@t:{a | b}`, and `@t:{a} | (b)` a syntax error, as in RediSearch.
    /// `open` is the index of the list's first character (after `{`).
    pub(super) fn v1_tag_tail(&mut self, tags: &mut Vec<TagTerm>, open: usize) -> Result<()> {
        // The reference's error names the token before the bad one: the last tag as written.
        let inside: String =
            self.chars.get(open..self.i.saturating_sub(1)).unwrap_or(&[]).iter().map(|&(_, c)| c).collect();
        let mut prev = inside.rsplit('|').next().unwrap_or("").trim().to_string();
        loop {
            // v1's lexer passes over stray closing braces after a tag list (`{foo}}} x`,
            // `{foo}}|bar` still adds `bar`).
            loop {
                let s = self.i;
                self.skip_ws();
                if !self.eat('}') {
                    self.i = s;
                    break;
                }
            }
            let save = self.i;
            self.skip_ws();
            if !self.eat('|') {
                self.i = save;
                return Ok(());
            }
            self.skip_ws();
            let at = self.i;
            let prefix_star = self.eat('*');
            let w = self.word();
            if w.is_empty() {
                self.i = at;
                let off = self.offset();
                if self.peek() == Some('@') {
                    // A field modifier names itself, without its `@`.
                    self.i += 1;
                    let name = self.word();
                    return Err(Error::syntax(off, &name));
                }
                return Err(Error::syntax(off, &prev));
            }
            prev = w.clone();
            let v = unescape(&w);
            let trail_star = self.eat('*');
            tags.push(TagTerm::of(v, prefix_star, trail_star));
        }
    }
}
