//! RediSearch's dialect-2 lexer (`src/query_parser/v2/lexer.rl`) as its generated scanner
//! runs: at each position the longest match among its patterns, a tie going to the
//! pattern declared first (`size`, `number`, … `as`, `inf`, … `ismissing`, `term`, `exact`,
//! `prefix`, …, `verbatim`, `wildcard`); spaces, control characters and punctuation that
//! start no longer pattern are passed over. Tag lists are read through it
//! ([`super::tags`]): inside `{…}` v2's grammar sees these tokens, not raw text.
//!
//! A token carries what RediSearch's action sets in its `QueryToken`: the offset (`pos`)
//! and, for the tokens that set it, the text a syntax error quotes (`s`, `len`); the
//! punctuation tokens set only the offset, so an error at one quotes the text of the last
//! token that set it.

use super::scanner::{is_c_space, Parser};

/// The kind of a v2 token, as far as a tag list tells them apart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kind {
    /// TERM, and AS_T / ISMISSING (v2's `%fallback` makes them TERM where TERM fits).
    Term,
    /// `"…"`: EXACT (falls back to TERM); the text is inside the quotes.
    Exact,
    /// `""` / `''`: a TERM of no text.
    Empty,
    /// NUMBER or SIZE (`12`, `-1.5e+3`, `inf`).
    Number,
    /// `$name`: ATTRIBUTE.
    Attr,
    /// `x*` (`$p*`, `"x"*`): PREFIX; `true` for a parameter.
    Prefix(bool),
    /// `*x`: SUFFIX.
    Suffix(bool),
    /// `*x*`: CONTAINS.
    Contains(bool),
    /// `w'…'`: WILDCARD; `true` for `w'$p'` (its text the parameter's name).
    Wildcard(bool),
    /// `'…'`: VERBATIM (no rule of v2's grammar takes it).
    Verbatim,
    /// `|`.
    Or,
    /// `}`.
    Rb,
    /// `@name` (and `@name>=n` and the other comparisons): MODIFIER.
    Modifier,
    /// `=>`: ARROW (its text is the two characters after its `=`).
    Arrow,
    /// Another punctuation token (`(`, `)`, `{`, `[`, `]`, `:`, `;`, `-`, `~`, `*`, `%`,
    /// a lone `"`): it sets no text.
    Punct,
}

/// One token: its kind, the character indexes where it starts and after it, its offset, and
/// the byte range of the text it sets (none for punctuation tokens).
#[derive(Debug, Clone, Copy)]
pub(super) struct Tok {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
    pub pos: usize,
    pub text: Option<(usize, usize)>,
}

/// The byte range of a token's text, when it sets one.
type Span = Option<(usize, usize)>;

/// Neither punctuation, a control character nor a space: a character of a `term`.
fn is_term_char(c: char) -> bool {
    c == '_' || !(c.is_ascii_punctuation() || c.is_ascii_control() || is_c_space(c))
}

/// The one-character tokens both lexers declare (`|`, `}`, and the punctuation a grammar
/// reads as such), `None` for any other character.
pub(super) fn one_char_kind(c: char) -> Option<Kind> {
    match c {
        '|' => Some(Kind::Or),
        '}' => Some(Kind::Rb),
        '"' | '(' | ')' | '{' | ':' | ';' | '-' | '~' | '*' | '%' | '[' | ']' => Some(Kind::Punct),
        _ => None,
    }
}

impl Parser<'_> {
    /// The byte offset of character `k` (the text's length past its end).
    pub(super) fn byte(&self, k: usize) -> usize {
        self.chars.get(k).map(|&(o, _)| o).unwrap_or(self.s.len())
    }

    /// Characters of the `term` at `k` (`\` with a punctuation mark or a space is one).
    pub(super) fn term_len_v2(&self, k: usize) -> usize {
        let mut j = k;
        loop {
            match self.char_at(j) {
                Some('\\')
                    if self.char_at(j + 1).is_some_and(|n| n.is_ascii_punctuation() || is_c_space(n)) =>
                {
                    j += 2
                }
                Some(c) if is_term_char(c) => j += 1,
                _ => return j - k,
            }
        }
    }

    /// Characters of the longest `number` at `k`: `[+-]? digit+ ('.' digit+)? ([eE] ['+-]? digit+)?`
    /// (the scanner's number of dialect 2, the only one this lexer serves, after a sign).
    fn number_len_v2(&self, k: usize) -> usize {
        let sign = usize::from(matches!(self.char_at(k), Some('+' | '-')));
        match self.number_len_from(k + sign) {
            0 => 0,
            n => sign + n,
        }
    }

    /// Characters of `[+-]? 'inf'i` at `k` (case-insensitive from dialect 2).
    pub(super) fn inf_len(&self, k: usize) -> usize {
        let sign = usize::from(matches!(self.char_at(k), Some('+' | '-')));
        match self.inf_len_from(k + sign) {
            0 => 0,
            n => sign + n,
        }
    }

    /// The lengths of the `exact` tokens at `k` (a `"` at `k`): `"`, characters, `"`,
    /// where a `"` after a `\` may also go on (`escape.quote`); shortest first.
    fn exact_lens(&self, k: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut j = k + 1;
        while let Some(c) = self.char_at(j) {
            if c == '"' {
                if j > k + 1 {
                    out.push(j + 1 - k);
                }
                if !(j >= k + 2 && self.char_at(j - 1) == Some('\\')) {
                    break;
                }
            }
            j += 1;
        }
        out
    }

    /// Characters of the `verbatim` token at `k` (a `'` there): `'`, characters (a `\`
    /// taking the one after it), `'`.
    fn verbatim_len_v2(&self, k: usize) -> usize {
        let mut j = k + 1;
        loop {
            match self.char_at(j) {
                None => return 0,
                Some('\\') if self.char_at(j + 1).is_some() => j += 2,
                Some('\\') => return 0,
                Some('\'') if j > k + 1 => return j + 1 - k,
                Some('\'') => return 0,
                Some(_) => j += 1,
            }
        }
    }

    /// The token at character `k` or after (spaces and stray punctuation passed over), or
    /// `None` at the end of the text.
    pub(super) fn v2_token(&self, mut k: usize) -> Option<Tok> {
        loop {
            let c = self.char_at(k)?;
            if let Some(t) = self.v2_token_at(k, c) {
                return Some(t);
            }
            k += 1;
        }
    }

    /// The token starting at `k` (`None`: the character there is passed over).
    fn v2_token_at(&self, k: usize, c: char) -> Option<Tok> {
        // Candidates in the order lexer.rl declares them; the longest wins, the first of equals.
        let mut best: Option<(usize, Kind, Span)> = None;
        let mut offer = |len: usize, kind: Kind, text: Span| {
            if len > 0 && best.is_none_or(|(l, _, _)| len > l) {
                best = Some((len, kind, text));
            }
        };
        // The byte range of characters `a..b`.
        let span = |a: usize, b: usize| Some((self.byte(a), self.byte(b)));
        let pos = self.byte(k);
        // size, number
        let digits = self.digits_from(k);
        offer(digits, Kind::Number, span(k, k + digits));
        let num = self.number_len_v2(k);
        offer(num, Kind::Number, span(k, k + num));
        let term_after = |j: usize| self.term_len_v2(j);
        // mod (and the comparisons, longer: their MODIFIER quotes the name too), attr
        if c == '@' {
            let t = term_after(k + 1);
            if t > 0 {
                offer(1 + t, Kind::Modifier, span(k + 1, k + 1 + t));
            }
        }
        if c == '$' {
            let t = term_after(k + 1);
            if t > 0 {
                offer(1 + t, Kind::Attr, span(k + 1, k + 1 + t));
            }
        }
        // arrow: its action sets the text from the character after `=`, two long.
        if c == '=' && self.char_at(k + 1) == Some('>') {
            offer(2, Kind::Arrow, Some((self.byte(k + 1), (self.byte(k + 1) + 2).min(self.s.len()))));
        }
        // as (a TERM where v2's grammar wants one), inf
        let inf = self.inf_len(k);
        offer(inf, Kind::Number, span(k, k + inf));
        // empty_string, quote
        if (c == '"' || c == '\'') && self.char_at(k + 1) == Some(c) {
            offer(2, Kind::Empty, Some((pos, pos)));
        }
        if let Some(kind) = one_char_kind(c) {
            offer(1, kind, None);
        }
        // term (ismissing and as are TERMs here)
        // A lone `_` is punctuation (declared before `term`, it wins the tie): passed over.
        let t = term_after(k);
        if !(t == 1 && c == '_') {
            offer(t, Kind::Term, span(k, k + t));
        }
        // exact, prefix, prefix_exact
        let exacts = if c == '"' { self.exact_lens(k) } else { Vec::new() };
        for &n in &exacts {
            offer(n, Kind::Exact, span(k + 1, k + n - 1));
        }
        if t > 0 && self.char_at(k + t) == Some('*') {
            offer(t + 1, Kind::Prefix(false), span(k, k + t));
        }
        if num > 0 && self.char_at(k + num) == Some('*') {
            offer(num + 1, Kind::Prefix(false), span(k, k + num));
        }
        if c == '$' {
            let a = term_after(k + 1);
            if a > 0 && self.char_at(k + 1 + a) == Some('*') {
                offer(a + 2, Kind::Prefix(true), span(k + 1, k + 1 + a));
            }
        }
        for &n in &exacts {
            if self.char_at(k + n) == Some('*') {
                offer(n + 1, Kind::Prefix(false), span(k + 1, k + n - 1));
            }
        }
        // suffix, suffix_exact, contains, contains_exact
        if c == '*' {
            let is_attr = self.char_at(k + 1) == Some('$');
            let inner = [
                term_after(k + 1),
                self.number_len_v2(k + 1),
                if is_attr { 1 + term_after(k + 2) } else { 0 },
            ];
            for (n, attr) in [(inner[0], false), (inner[1], false), (inner[2], true)] {
                if n == 0 || (attr && n == 1) {
                    continue;
                }
                let from = k + 1 + usize::from(attr);
                offer(1 + n, Kind::Suffix(attr), span(from, k + 1 + n));
            }
            let inner_exacts =
                if self.char_at(k + 1) == Some('"') { self.exact_lens(k + 1) } else { Vec::new() };
            for &n in &inner_exacts {
                offer(1 + n, Kind::Suffix(false), span(k + 2, k + n));
            }
            for (n, attr) in [(inner[0], false), (inner[1], false), (inner[2], true)] {
                if n == 0 || (attr && n == 1) || self.char_at(k + 1 + n) != Some('*') {
                    continue;
                }
                let from = k + 1 + usize::from(attr);
                offer(2 + n, Kind::Contains(attr), span(from, k + 1 + n));
            }
            for &n in &inner_exacts {
                if self.char_at(k + 1 + n) == Some('*') {
                    offer(2 + n, Kind::Contains(false), span(k + 2, k + n));
                }
            }
        }
        // verbatim, wildcard (a `$` two characters in names a parameter: the text after it)
        let attr_shift = usize::from(self.char_at(k + 2) == Some('$'));
        if c == '\'' {
            let n = self.verbatim_len_v2(k);
            if n > 0 {
                offer(n, Kind::Verbatim, span(k + 1 + attr_shift, k + n - 1));
            }
        }
        if c == 'w' && self.char_at(k + 1) == Some('\'') {
            let n = self.verbatim_len_v2(k + 1);
            if n > 0 {
                offer(n + 1, Kind::Wildcard(attr_shift == 1), span(k + 2 + attr_shift, k + n));
            }
        }
        let (len, kind, text) = best?;
        // A wildcard's offset is its pattern's, after `w'`.
        let pos = if matches!(kind, Kind::Wildcard(_)) { self.byte(k + 2) } else { pos };
        Some(Tok { kind, start: k, end: k + len, pos, text })
    }
}
