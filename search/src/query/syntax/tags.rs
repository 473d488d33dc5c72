//! Tag lists: `@t:{a | b* | *c | "d e" | ""}` after the `{`, each value one [`TagTerm`],
//! and dialect 1's `| word` after the `}`.

use super::ast::TagTerm;
use super::lexer_v2::{Kind, Tok};
use super::scanner::{is_c_space, unescape, Parser};
use crate::error::{Error, Result};

impl Parser<'_> {
    /// Dialect 1: the values up to and including the `}`, separated by `|`.
    ///
    /// v1's lexer reads a value of several words as a `termlist` of TERM and STOPWORD
    /// tokens: the words lower-cased, stopwords from the third on dropped (`{x y the z}` is
    /// `x y z`), and one among the first two the syntax error at the list's `}`, quoting
    /// the word before it (`{x of|y}`: offset of `}`, near `y`), as the reference replies.
    pub(super) fn tag_list(&mut self) -> Result<Vec<TagTerm>> {
        let mut out = Vec::new();
        let mut bad = false;
        loop {
            self.skip_ws();
            let start = self.i;
            let tag = self.tag()?;
            let (tag, last, early_stop) = self.v1_tag_words(tag, start);
            bad |= early_stop;
            out.push(tag);
            if bad && self.peek() == Some('}') {
                return Err(Error::syntax(self.offset(), &last));
            }
            if self.eat('}') {
                return Ok(out);
            }
            if !self.eat('|') {
                return Err(self.err());
            }
        }
    }

    /// Dialect 1: `tag` (read from character `start` to here) as v1's termlist reads it
    /// when it has several words (split at unescaped whitespace): the words, unescaped and
    /// lower-cased, stopwords from the third on dropped. Also the last word as written, and
    /// whether one of the first two words is a stopword.
    fn v1_tag_words(&self, tag: TagTerm, start: usize) -> (TagTerm, String, bool) {
        let raw: String = self.chars.get(start..self.i).unwrap_or(&[]).iter().map(|&(_, c)| c).collect();
        let mut words: Vec<String> = Vec::new();
        let mut cur = String::new();
        let mut it = raw.chars();
        while let Some(c) = it.next() {
            if c == '\\' {
                cur.push(c);
                if let Some(n) = it.next() {
                    cur.push(n);
                }
            } else if is_c_space(c) {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            } else {
                cur.push(c);
            }
        }
        if !cur.is_empty() {
            words.push(cur);
        }
        let last = words.last().cloned().unwrap_or_default();
        if words.len() < 2 || !matches!(tag, TagTerm::Exact(_)) {
            return (tag, last, false);
        }
        let early_stop = words.iter().take(2).any(|w| self.is_stopword(w));
        let kept = words
            .iter()
            .enumerate()
            .filter(|(k, w)| *k < 2 || !self.is_stopword(w))
            .map(|(_, w)| tag_unescape(w).to_ascii_lowercase())
            .collect();
        (TagTerm::Words(kept), last, early_stop)
    }

    /// Dialect 1: one value of a tag list, the text up to `|` or `}` (`\` escaping the
    /// next character), trimmed; an unescaped `*` before or after it makes a suffix or a
    /// prefix.
    fn tag(&mut self) -> Result<TagTerm> {
        let lead_star = self.eat('*');
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
        Ok(TagTerm::of(v, lead_star, trail_star))
    }

    /// Dialect 2 and later: the tag list after the `{`, up to and including its `}`, as
    /// v2's grammar reads the tokens of v2's lexer ([`super::lexer_v2`]) there
    /// (`src/query_parser/v2/parser.y`):
    ///
    /// ```text
    /// expr     ::= modifier COLON LB tag_list RB
    /// tag_list ::= item | tag_list OR item
    /// item     ::= param_term_case | affix | verbatim | termlist
    /// termlist ::= param_term param_term | termlist param_term
    /// ```
    ///
    /// where a term is TERM (EXACT `"…"`, `as` and `ismissing` falling back to it), NUMBER,
    /// SIZE or ATTRIBUTE `$p`, an affix PREFIX `x*`, SUFFIX `*x` or CONTAINS `*x*`, and
    /// verbatim a WILDCARD `w'…'`. Any other token, or one out of that order (`{a*b}`,
    /// `{w'x'*}`, `{*w'x'}`, `{a-b}`, `{a:b}`), is a syntax error at its offset, quoting the
    /// text of the last token that set one (the field name before the first); the end of
    /// the text one at the offset of the last token. Punctuation that starts no token is
    /// passed over (`{a.b}` is the words `a b`).
    ///
    /// Values as RediSearch makes them: a lone term as written, `\` before punctuation or
    /// a space dropped (a number or a `$p` value as it is); a term list the words joined
    /// by spaces, each lowercased (`termlist` takes `param_term`, lowercased, not
    /// `param_term_case`); an affix unescaped, a `$p` affix's value as given; a wildcard's
    /// pattern as written.
    pub(super) fn tag_list_v2(&mut self) -> Result<Vec<TagTerm>> {
        #[derive(PartialEq)]
        enum At {
            Item,
            Terms,
            End,
        }
        let text =
            |t: &Tok| t.text.map(|(a, b)| self.s.get(a..b).unwrap_or("").to_string()).unwrap_or_default();
        let mut near = self.stale_near();
        let mut last_pos = self.chars.get(self.i.saturating_sub(1)).map(|&(o, _)| o).unwrap_or(0);
        let mut items: Vec<Vec<Tok>> = Vec::new();
        let mut at = At::Item;
        loop {
            let Some(tok) = self.v2_token(self.i) else {
                self.i = self.chars.len();
                return Err(Error::syntax(last_pos, &near));
            };
            if tok.text.is_some() {
                near = text(&tok);
            }
            last_pos = tok.pos;
            self.i = tok.end;
            let term = matches!(tok.kind, Kind::Term | Kind::Exact | Kind::Empty | Kind::Number | Kind::Attr);
            let affix =
                matches!(tok.kind, Kind::Prefix(_) | Kind::Suffix(_) | Kind::Contains(_) | Kind::Wildcard(_));
            match (&at, tok.kind) {
                (At::Item, _) if term || affix => {
                    items.push(vec![tok]);
                    at = if term { At::Terms } else { At::End };
                }
                (At::Terms, _) if term => items.last_mut().into_iter().for_each(|i| i.push(tok)),
                (At::Terms | At::End, Kind::Or) => at = At::Item,
                (At::Terms | At::End, Kind::Rb) => break,
                _ => return Err(Error::syntax(tok.pos, &near)),
            }
        }
        let param = |name: &str| {
            self.params.text(name).ok_or_else(|| Error::new(format!("No such parameter `{name}`")))
        };
        let mut out = Vec::with_capacity(items.len());
        for item in &items {
            let t = match item.as_slice() {
                [one] => {
                    let v = text(one);
                    match one.kind {
                        Kind::Term | Kind::Exact => TagTerm::Exact(tag_unescape(&v)),
                        Kind::Empty => TagTerm::Exact(String::new()),
                        Kind::Attr => TagTerm::Exact(tag_unescape(&param(&v)?)),
                        Kind::Prefix(p) | Kind::Suffix(p) | Kind::Contains(p) => {
                            // A parameter's value as given (test.py testPrefixNodeCaseSensitive).
                            let v = if p { param(&v)? } else { tag_unescape(&v) };
                            let lead = !matches!(one.kind, Kind::Prefix(_));
                            let trail = !matches!(one.kind, Kind::Suffix(_));
                            TagTerm::of(v, lead, trail)
                        }
                        Kind::Wildcard(true) => TagTerm::Wildcard(param(&v)?),
                        Kind::Wildcard(false) => TagTerm::Wildcard(v),
                        // A NUMBER or SIZE: as written.
                        _ => TagTerm::Exact(v),
                    }
                }
                words => {
                    let mut ws = Vec::with_capacity(words.len());
                    for (k, w) in words.iter().enumerate() {
                        let v = text(w);
                        // `termlist ::= termlist param_term` adds a TERM only when it is no
                        // stopword: from the third word on (`{a b the c}` is `a b c`, `{the
                        // a b}` keeps `the`); numbers and `$p` values stay.
                        if k >= 2 && w.kind == Kind::Term && self.is_stopword(&v) {
                            continue;
                        }
                        ws.push(match w.kind {
                            Kind::Number => v,
                            Kind::Empty => String::new(),
                            Kind::Attr => tag_unescape(&param(&v)?).to_ascii_lowercase(),
                            _ => tag_unescape(&v).to_ascii_lowercase(),
                        });
                    }
                    TagTerm::Words(ws)
                }
            };
            out.push(t);
        }
        Ok(out)
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

impl Parser<'_> {
    /// Whether the index's stopword list holds `raw` (a token as written, lower-cased:
    /// `StopWordList_Contains`).
    pub(super) fn is_stopword(&self, raw: &str) -> bool {
        self.stopwords.is_some_and(|sw| sw.contains(&raw.to_ascii_lowercase()))
    }
}

/// RediSearch's unescaping of a tag value (`tag_strtolower`, `rm_strndup_unescape`): a `\`
/// before punctuation or a space dropped, any other kept.
fn tag_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\\'
            && it.peek().is_some_and(|n| n.is_ascii_punctuation() || n.is_ascii_whitespace() || *n == '\x0b')
        {
            if let Some(n) = it.next() {
                out.push(n);
            }
            continue;
        }
        out.push(c);
    }
    out
}
