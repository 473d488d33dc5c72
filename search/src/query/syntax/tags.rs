//! Tag lists: `@t:{a | b* | *c | "d e" | ""}` after the `{`, each value one [`TagTerm`],
//! as each dialect's lexer and grammar read them (dialect 1's goes on after its `}`
//! with `| word`).

use super::ast::TagTerm;
use super::lexer_v2::{Kind, Tok};
use super::scanner::Parser;
use crate::error::{Error, Result};

impl Parser<'_> {
    /// Dialect 1: the tag list after the `{`, as v1's grammar reads the tokens of v1's
    /// lexer ([`super::lexer_v1`]) there (`src/query_parser/v1/parser.y`):
    ///
    /// ```text
    /// expr     ::= modifier COLON tag_list
    /// tag_list ::= LB item | tag_list OR item | tag_list RB
    /// item     ::= term | STOPWORD | affix | termlist
    /// termlist ::= term term | termlist term | termlist STOPWORD
    /// ```
    ///
    /// where a term is a TERM or a NUMBER and an affix a PREFIX `x*`, SUFFIX `*x` or
    /// CONTAINS `*x*`. Punctuation that starts no token is passed over (`{hello.world}` is
    /// the term list `hello world`). The list ends (the expression is complete) at the
    /// first token after an item that is neither `|` nor `}` and does not go on a term
    /// list: `{a}` needs no `}`, `{a} | b` adds `b`, and `{x the y}` is `{x}` then the words
    /// `the y` (the second word a stopword ends the term list), whose `}` is then v1's
    /// syntax error. Where an item is due any other token (`{"a"}`, `{$p}`, `{-a}`, `{}`)
    /// is a syntax error at its offset, quoting the text of the last token that set one.
    ///
    /// Values as RediSearch makes them: a lone term or stopword as written (escapes then
    /// dropped), a term list its words unescaped and lower-cased (`strdupcase`),
    /// stopwords from its third word on dropped; an affix unescaped.
    pub(super) fn tag_list(&mut self) -> Result<Vec<TagTerm>> {
        let text =
            |t: &Tok| t.text.map(|(a, b)| self.s.get(a..b).unwrap_or("").to_string()).unwrap_or_default();
        let mut near = self.stale_near_span();
        let mut last_pos = self.chars.get(self.i.saturating_sub(1)).map(|&(o, _)| o).unwrap_or(0);
        let mut out = Vec::new();
        // An item is due (after the `{` or a `|`).
        let mut want_item = true;
        loop {
            let tok = self.v1_token(self.i);
            if !want_item {
                match tok.map(|t| t.kind) {
                    Some(Kind::Or) | Some(Kind::Rb) => {}
                    // Any other token (or the end) completes the expression: the caller
                    // reads on from it.
                    _ => return Ok(out),
                }
            }
            let Some(tok) = tok else {
                self.i = self.chars.len();
                return Err(Error::syntax(last_pos, self.text_of(near)));
            };
            if let Some(span) = tok.text {
                near = span;
            }
            last_pos = tok.pos;
            match tok.kind {
                Kind::Or if !want_item => {
                    self.i = tok.end;
                    want_item = true;
                }
                Kind::Rb if !want_item => self.i = tok.end,
                Kind::Term | Kind::Number => {
                    self.i = tok.end;
                    let sw = self.stopwords;
                    let stop = |t: &Tok| {
                        t.kind == Kind::Term
                            && sw.is_some_and(|sw| sw.contains(&text(t).to_ascii_lowercase()))
                    };
                    if stop(&tok) {
                        out.push(TagTerm::Exact(tag_unescape(&text(&tok))));
                        want_item = false;
                        continue;
                    }
                    let mut words = vec![text(&tok)];
                    // `termlist`: more terms, and stopwords once it has two words.
                    while let Some(next) = self.v1_token(self.i) {
                        if !matches!(next.kind, Kind::Term | Kind::Number) || (stop(&next) && words.len() < 2)
                        {
                            break;
                        }
                        self.i = next.end;
                        near = next.text.unwrap_or_default();
                        last_pos = next.pos;
                        if !stop(&next) {
                            words.push(text(&next));
                        }
                    }
                    out.push(match words.as_slice() {
                        [one] => TagTerm::Exact(tag_unescape(one)),
                        _ => TagTerm::Words(
                            words.iter().map(|w| tag_unescape(w).to_ascii_lowercase()).collect(),
                        ),
                    });
                    want_item = false;
                }
                Kind::Prefix(_) | Kind::Suffix(_) | Kind::Contains(_) => {
                    self.i = tok.end;
                    let lead = !matches!(tok.kind, Kind::Prefix(_));
                    let trail = !matches!(tok.kind, Kind::Suffix(_));
                    out.push(TagTerm::of(tag_unescape(&text(&tok)), lead, trail));
                    want_item = false;
                }
                _ => {
                    self.i = tok.start;
                    return Err(Error::syntax(tok.pos, self.text_of(near)));
                }
            }
        }
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
        let mut near = self.stale_near_span();
        let mut last_pos = self.chars.get(self.i.saturating_sub(1)).map(|&(o, _)| o).unwrap_or(0);
        let mut items: Vec<Vec<Tok>> = Vec::new();
        let mut at = At::Item;
        loop {
            let Some(tok) = self.v2_token(self.i) else {
                self.i = self.chars.len();
                return Err(Error::syntax(last_pos, self.text_of(near)));
            };
            if let Some(span) = tok.text {
                near = span;
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
                _ => return Err(Error::syntax(tok.pos, self.text_of(near))),
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
