//! RediSearch's dialect-1 lexer (`src/query_parser/v1/lexer.rl`) as its generated scanner
//! runs, for the tag lists of dialect 1 ([`super::tags`]): at each position the longest
//! match among its patterns, a tie going to the pattern declared first (`number`, `mod`,
//! `attr`, `arrow`, `inf`, the one-character tokens, `space` / `punct` / `cntrl` passed
//! over, `term`, `prefix`, `suffix`, `contains`).
//!
//! Unlike v2's lexer ([`super::lexer_v2`]) it has no `"…"` token (a `"` is a QUOTE of its
//! own), no `'…'` or `w'…'`, and no `$p` affixes; its number takes only a `-` sign (`+1`
//! is the punctuation `+` then `1`) and its `inf` is lower case. Between `{` and `}` v1's
//! grammar sees these tokens: `{hello.world}` is the terms `hello` and `world`.

use super::lexer_v2::{one_char_kind, Kind, Tok};
use super::scanner::Parser;

/// The byte range of a token's text, when it sets one.
type Span = Option<(usize, usize)>;

impl Parser<'_> {
    /// The v1 token at character `k` or after (spaces, control characters and punctuation
    /// that starts no token passed over), or `None` at the end of the text.
    pub(super) fn v1_token(&self, mut k: usize) -> Option<Tok> {
        loop {
            let c = self.char_at(k)?;
            if let Some(t) = self.v1_token_at(k, c) {
                return Some(t);
            }
            k += 1;
        }
    }

    /// Characters of v1's `number` at `k`: `'-'? digit+ ('.' digit+)? ([eE] '-'? digit+)?`.
    fn number_len_v1(&self, k: usize) -> usize {
        let sign = usize::from(self.char_at(k) == Some('-'));
        match self.number_len_from(k + sign) {
            0 => 0,
            n => sign + n,
        }
    }

    /// The token starting at `k` (`None`: the character there is passed over).
    fn v1_token_at(&self, k: usize, c: char) -> Option<Tok> {
        // Candidates in the order lexer.rl declares them; the longest wins, the first of equals.
        let mut best: Option<(usize, Kind, Span)> = None;
        let mut offer = |len: usize, kind: Kind, text: Span| {
            if len > 0 && best.is_none_or(|(l, _, _)| len > l) {
                best = Some((len, kind, text));
            }
        };
        let span = |a: usize, b: usize| Some((self.byte(a), self.byte(b)));
        let term = |j: usize| self.term_len_v2(j);
        // number
        let num = self.number_len_v1(k);
        offer(num, Kind::Number, span(k, k + num));
        // mod, attr: the text is the name after `@` / `$`.
        if c == '@' || c == '$' {
            let t = term(k + 1);
            if t > 0 {
                let kind = if c == '@' { Kind::Modifier } else { Kind::Attr };
                offer(1 + t, kind, span(k + 1, k + 1 + t));
            }
        }
        // arrow: its action sets the text from the character after `=`, two long.
        if c == '=' && self.char_at(k + 1) == Some('>') {
            offer(2, Kind::Arrow, Some((self.byte(k + 1), (self.byte(k + 1) + 2).min(self.s.len()))));
        }
        // inf: `['+-']? 'inf'`
        let inf = self.inf_len(k);
        offer(inf, Kind::Number, span(k, k + inf));
        if let Some(kind) = one_char_kind(c) {
            offer(1, kind, None);
        }
        // term: a lone `_` is punctuation (declared before `term`, it wins the tie).
        let t = term(k);
        if !(t == 1 && c == '_') {
            offer(t, Kind::Term, span(k, k + t));
        }
        // prefix: `term '*'` or `number '*'`, the text without the star.
        if t > 0 && self.char_at(k + t) == Some('*') {
            offer(t + 1, Kind::Prefix(false), span(k, k + t));
        }
        if num > 0 && self.char_at(k + num) == Some('*') {
            offer(num + 1, Kind::Prefix(false), span(k, k + num));
        }
        // suffix, contains: `'*' (term | number) '*'?`, the text between the stars.
        if c == '*' {
            for n in [term(k + 1), self.number_len_v1(k + 1)] {
                if n == 0 {
                    continue;
                }
                offer(1 + n, Kind::Suffix(false), span(k + 1, k + 1 + n));
                if self.char_at(k + 1 + n) == Some('*') {
                    offer(2 + n, Kind::Contains(false), span(k + 1, k + 1 + n));
                }
            }
        }
        let (len, kind, text) = best?;
        Some(Tok { kind, start: k, end: k + len, pos: self.byte(k), text })
    }
}
