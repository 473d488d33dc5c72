//! The JSONPath grammar of RedisJSON 2.8 and its parser (text → [`ast`](super::ast)).
//!
//! The grammar is RedisJSON's `json_path/src/grammar.pest`, reproduced here as BNF. Between
//! the tokens of non-atomic rules any number of spaces (only U+0020) may appear; atomic rules
//! (marked `@`) take no spaces inside.
//!
//! ```text
//! query          ::= "$" root? EOI
//! root           ::= (element | first_element) element*
//! first_element  ::= literal | all
//! element        ::= "." literal
//!                  | full_scan (literal | all | "[" bracket "]")
//!                  | "." all
//!                  | "."? "[" bracket "]"
//! bracket        ::= numbers_range | numbers_list | string_list | all | "?" filter
//! all            ::= "*"
//! full_scan      ::= ".."
//! literal      @ ::= [A-Za-z0-9-_`~+#%$^/:]+
//! string_list    ::= string ("," string)*
//! string         ::= "'" string_value "'" | '"' string_value '"'
//!                  | '"' string_value_escape_1 '"' | "'" string_value_escape_2 "'"
//! string_value @ ::= (any character but " \ ')*
//! string_value_escape_1 @ ::= (any character but " \ | "\\" ("\"" | "\\"))*
//! string_value_escape_2 @ ::= (any character but ' \ | "\\" ("'" | "\\"))*
//! numbers_list   ::= number ("," number)*
//! numbers_range  ::= full_range | right_range | all_range | left_range
//! full_range     ::= number ":" number step?
//! right_range    ::= ":" number step?
//! all_range      ::= ":" step?
//! left_range     ::= number ":" step?
//! step           ::= ":" pos_number | ":"
//! pos_number   @ ::= [1-9] [0-9]*
//! number       @ ::= "-"? ([1-9] [0-9]* | [0-9])
//! decimal      @ ::= number ("." [0-9]+)?
//! filter         ::= inner_filter (("&&" | "||") inner_filter)*
//! inner_filter   ::= single_filter | "(" filter ")"
//! single_filter  ::= term op term | term
//! op             ::= ">=" | ">" | "<=" | "<" | "==" | "!=" | "=~"
//! term           ::= from_current | from_root | decimal | string | "true" | "false" | "null"
//! from_current   ::= "@" root?
//! from_root      ::= "$" root?
//! ```
//!
//! The parser is a hand-written recursive descent that mirrors the grammar rule by rule and
//! replays pest's error bookkeeping (furthest failure position and the named rules tried
//! there), so invalid paths get RedisJSON's exact error position and "expected" list. Choices
//! are ordered (PEG): the first alternative that matches wins, as in pest.
//!
//! The filter rules (`filter` and below) are in [`filter_syntax`](super::filter_syntax).

use regex::{Regex, RegexBuilder};

use super::ast::{Segment, Selector, Slice};
use super::error::{Expected, PathError};
use crate::limits::{
    PATH_PARSE_STEPS_BASE, PATH_PARSE_STEPS_PER_BYTE, REGEX_DFA_SIZE_LIMIT, REGEX_SIZE_LIMIT,
};

/// Parses a JSONPath (starting with `$`) into its segments.
pub(crate) fn parse(text: &str) -> Result<Vec<Segment>, PathError> {
    let budget = PATH_PARSE_STEPS_PER_BYTE.saturating_mul(text.len()).saturating_add(PATH_PARSE_STEPS_BASE);
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        attempt_pos: 0,
        attempts: Vec::new(),
        depth: 0,
        steps_left: budget,
        aborted: None,
    };
    let out = p.query();
    match p.aborted {
        Some((at, Abort::TooDeep)) => return Err(PathError::too_deep(at)),
        Some((at, Abort::TooComplex)) => return Err(PathError::too_complex(at)),
        None => {}
    }
    out.ok_or_else(|| PathError::syntax(p.attempt_pos, std::mem::take(&mut p.attempts)))
}

/// Compiles a regex for `=~` with the crate's size limits; `None` if it does not compile.
pub(crate) fn compile_regex(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(pattern).size_limit(REGEX_SIZE_LIMIT).dfa_size_limit(REGEX_DFA_SIZE_LIMIT).build().ok()
}

/// Parser state: the input, the cursor, and pest's failure bookkeeping.
pub(super) struct Parser<'s> {
    pub(super) s: &'s [u8],
    pub(super) pos: usize,
    /// Furthest position at which a named rule failed (pest's `attempt_pos`).
    pub(super) attempt_pos: usize,
    /// Named rules that failed at `attempt_pos` (pest's `pos_attempts`, with repeats).
    pub(super) attempts: Vec<Expected>,
    /// Current filter nesting.
    pub(super) depth: usize,
    /// Named-rule calls left before giving up (bare filter terms are parsed twice, as in pest,
    /// so nested ones cost exponential time; this bounds it).
    pub(super) steps_left: usize,
    /// Set when a limit was hit (and where); the parse then fails everywhere.
    pub(super) aborted: Option<(usize, Abort)>,
}

/// Why parsing stopped early.
#[derive(Clone, Copy)]
pub(super) enum Abort {
    TooDeep,
    TooComplex,
}

impl<'s> Parser<'s> {
    // ---- pest machinery -------------------------------------------------------------------

    /// Runs a named rule: on failure rewinds and records the attempt like pest's `rule`+`track`.
    pub(super) fn rule<T>(&mut self, rule: Expected, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        if self.aborted.is_some() {
            return None;
        }
        if self.steps_left == 0 {
            self.aborted = Some((self.pos, Abort::TooComplex));
            return None;
        }
        self.steps_left -= 1;
        let start = self.pos;
        let index = if start == self.attempt_pos { self.attempts.len() } else { 0 };
        let before = self.attempts_at(start);
        let out = f(self);
        if out.is_none() {
            self.pos = start;
            self.track(rule, start, index, before);
        }
        out
    }

    fn attempts_at(&self, pos: usize) -> usize {
        if self.attempt_pos == pos {
            self.attempts.len()
        } else {
            0
        }
    }

    fn track(&mut self, rule: Expected, pos: usize, index: usize, before: usize) {
        // A rule whose children made exactly one attempt here is represented by that child.
        let now = self.attempts_at(pos);
        if now > before && now - before == 1 {
            return;
        }
        if pos == self.attempt_pos {
            self.attempts.truncate(index);
        }
        if pos > self.attempt_pos {
            self.attempts.clear();
            self.attempt_pos = pos;
        }
        if pos == self.attempt_pos {
            self.attempts.push(rule);
        }
    }

    /// A sequence: rewinds when `f` fails.
    pub(super) fn seq<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        let start = self.pos;
        let out = f(self);
        if out.is_none() {
            self.pos = start;
        }
        out
    }

    /// `f*` in a non-atomic rule: `f (skip f)*`, collecting the results.
    pub(super) fn rep<T>(&mut self, out: &mut Vec<T>, mut f: impl FnMut(&mut Self) -> Option<T>) {
        match f(self) {
            Some(x) => out.push(x),
            None => return,
        }
        loop {
            let start = self.pos;
            self.skip();
            match f(self) {
                Some(x) => out.push(x),
                None => {
                    self.pos = start;
                    return;
                }
            }
        }
    }

    /// Implicit whitespace between tokens: spaces only.
    pub(super) fn skip(&mut self) {
        while self.s.get(self.pos) == Some(&b' ') {
            self.pos += 1;
        }
    }

    /// Matches a literal token (not a named rule: failures are not recorded).
    pub(super) fn eat(&mut self, token: &[u8]) -> Option<()> {
        if self.s.get(self.pos..self.pos + token.len()) == Some(token) {
            self.pos += token.len();
            Some(())
        } else {
            None
        }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    pub(super) fn text(&self, from: usize, to: usize) -> &'s str {
        // Token boundaries are next to ASCII delimiters, so always on char boundaries.
        std::str::from_utf8(self.s.get(from..to).unwrap_or_default()).unwrap_or_default()
    }

    // ---- paths ----------------------------------------------------------------------------

    fn query(&mut self) -> Option<Vec<Segment>> {
        self.eat(b"$")?;
        self.skip();
        let segments = self.root().unwrap_or_default();
        self.skip();
        self.rule(Expected::EOI, |p| (p.pos == p.s.len()).then_some(()))?;
        Some(segments)
    }

    pub(super) fn root(&mut self) -> Option<Vec<Segment>> {
        self.rule(Expected::root, |p| {
            let first = match p.element() {
                Some(e) => e,
                None => p.first_element()?,
            };
            let mut segments = vec![first];
            p.skip();
            p.rep(&mut segments, Self::element);
            Some(segments)
        })
    }

    fn first_element(&mut self) -> Option<Segment> {
        if let Some(key) = self.literal() {
            return Some(Segment::Child(Selector::Key(key.into())));
        }
        self.all().map(|()| Segment::Child(Selector::Wildcard))
    }

    fn element(&mut self) -> Option<Segment> {
        let dot_key = self.seq(|p| {
            p.eat(b".")?;
            p.skip();
            p.literal()
        });
        if let Some(key) = dot_key {
            return Some(Segment::Child(Selector::Key(key.into())));
        }
        let descendant = self.seq(|p| {
            p.full_scan()?;
            p.skip();
            if let Some(key) = p.literal() {
                return Some(Selector::Key(key.into()));
            }
            if p.all().is_some() {
                return Some(Selector::Wildcard);
            }
            p.bracketed()
        });
        if let Some(sel) = descendant {
            return Some(Segment::Descendant(sel));
        }
        let dot_all = self.seq(|p| {
            p.eat(b".")?;
            p.skip();
            p.all()
        });
        if dot_all.is_some() {
            return Some(Segment::Child(Selector::Wildcard));
        }
        self.seq(|p| {
            let _ = p.eat(b".");
            p.skip();
            p.bracketed()
        })
        .map(Segment::Child)
    }

    /// `"[" bracket "]"`.
    fn bracketed(&mut self) -> Option<Selector> {
        self.seq(|p| {
            p.eat(b"[")?;
            p.skip();
            let sel = p.bracket()?;
            p.skip();
            p.eat(b"]")?;
            Some(sel)
        })
    }

    fn bracket(&mut self) -> Option<Selector> {
        if let Some(slice) = self.numbers_range() {
            return Some(Selector::Slice(slice));
        }
        if let Some(mut list) = self.numbers_list() {
            return Some(if list.len() == 1 {
                Selector::Index(list.pop().unwrap_or_default())
            } else {
                Selector::Indices(list.into_boxed_slice())
            });
        }
        if let Some(mut list) = self.string_list() {
            return Some(match (list.len(), list.pop()) {
                (1, Some(key)) => Selector::Key(key),
                (_, last) => {
                    list.extend(last);
                    Selector::Keys(list.into_boxed_slice())
                }
            });
        }
        if self.all().is_some() {
            return Some(Selector::Wildcard);
        }
        self.seq(|p| {
            p.eat(b"?")?;
            p.skip();
            p.filter()
        })
        .map(|f| Selector::Filter(f.into()))
    }

    fn all(&mut self) -> Option<()> {
        self.rule(Expected::all, |p| p.eat(b"*"))
    }

    fn full_scan(&mut self) -> Option<()> {
        self.rule(Expected::full_scan, |p| p.eat(b".."))
    }

    fn literal(&mut self) -> Option<&'s str> {
        self.rule(Expected::literal, |p| {
            let start = p.pos;
            while p.peek().is_some_and(is_literal_byte) {
                p.pos += 1;
            }
            (p.pos > start).then(|| p.text(start, p.pos))
        })
    }

    // ---- strings --------------------------------------------------------------------------

    fn string_list(&mut self) -> Option<Vec<Box<str>>> {
        self.rule(Expected::string_list, |p| {
            let mut list = vec![p.string()?];
            p.skip();
            p.rep(&mut list, |p| {
                p.seq(|p| {
                    p.eat(b",")?;
                    p.skip();
                    p.string()
                })
            });
            Some(list)
        })
    }

    /// A quoted string, tried in the grammar's order of alternatives (escapes resolved).
    fn string(&mut self) -> Option<Box<str>> {
        self.quoted().map(|(raw, quote)| if quote.is_some() { unescape(&raw) } else { raw })
    }

    /// A quoted string as written: its text between the quotes, and the quote when the
    /// grammar matched the alternative with escapes.
    pub(super) fn quoted(&mut self) -> Option<(Box<str>, Option<u8>)> {
        for (quote, escapes) in [(b'\'', false), (b'"', false), (b'"', true), (b'\'', true)] {
            let found = self.seq(|p| {
                p.eat(&[quote])?;
                p.skip();
                let start = p.pos;
                if escapes {
                    p.scan_escaped(quote);
                } else {
                    p.scan_plain();
                }
                let end = p.pos;
                p.skip();
                p.eat(&[quote])?;
                Some((Box::from(p.text(start, end)), escapes.then_some(quote)))
            });
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// `string_value`: any run of characters but `"`, `\` and `'` (may be empty, never fails).
    fn scan_plain(&mut self) {
        while self.peek().is_some_and(|b| !matches!(b, b'"' | b'\\' | b'\'')) {
            self.pos += 1;
        }
    }

    /// `string_value_escape_1/2`: characters but the quote and `\`, or `\quote` / `\\`.
    fn scan_escaped(&mut self, quote: u8) {
        loop {
            match self.peek() {
                Some(b) if b != quote && b != b'\\' => self.pos += 1,
                Some(b'\\') => match self.s.get(self.pos + 1) {
                    Some(&n) if n == quote || n == b'\\' => self.pos += 2,
                    _ => return,
                },
                _ => return,
            }
        }
    }

    // ---- numbers --------------------------------------------------------------------------

    /// Matches `number` without recording (used inside atomic rules); returns its value.
    pub(super) fn scan_number(&mut self) -> Option<i64> {
        let start = self.pos;
        let negative = self.eat(b"-").is_some();
        let digits = self.pos;
        match self.peek() {
            Some(b'1'..=b'9') => {
                while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    self.pos += 1;
                }
            }
            Some(b'0') => self.pos += 1,
            _ => {
                self.pos = start;
                return None;
            }
        }
        Some(saturating_int(&self.s[digits..self.pos], negative))
    }

    fn number(&mut self) -> Option<i64> {
        self.rule(Expected::number, Self::scan_number)
    }

    fn pos_number(&mut self) -> Option<usize> {
        self.rule(Expected::pos_number, |p| {
            let start = p.pos;
            if !matches!(p.peek(), Some(b'1'..=b'9')) {
                return None;
            }
            while p.peek().is_some_and(|b| b.is_ascii_digit()) {
                p.pos += 1;
            }
            let n = saturating_int(&p.s[start..p.pos], false);
            Some(usize::try_from(n).unwrap_or(usize::MAX))
        })
    }

    fn numbers_list(&mut self) -> Option<Vec<i64>> {
        self.rule(Expected::numbers_list, |p| {
            let mut list = vec![p.number()?];
            p.skip();
            p.rep(&mut list, |p| {
                p.seq(|p| {
                    p.eat(b",")?;
                    p.skip();
                    p.number()
                })
            });
            Some(list)
        })
    }

    fn numbers_range(&mut self) -> Option<Slice> {
        self.rule(Expected::numbers_range, |p| {
            if let Some(s) = p.rule(Expected::full_range, |p| {
                let start = p.number()?;
                p.skip();
                p.eat(b":")?;
                p.skip();
                let end = p.number()?;
                p.skip();
                Some(Slice { start: Some(start), end: Some(end), step: p.step() })
            }) {
                return Some(s);
            }
            if let Some(s) = p.rule(Expected::right_range, |p| {
                p.eat(b":")?;
                p.skip();
                let end = p.number()?;
                p.skip();
                Some(Slice { start: None, end: Some(end), step: p.step() })
            }) {
                return Some(s);
            }
            if let Some(s) = p.rule(Expected::all_range, |p| {
                p.eat(b":")?;
                p.skip();
                Some(Slice { start: None, end: None, step: p.step() })
            }) {
                return Some(s);
            }
            p.rule(Expected::left_range, |p| {
                let start = p.number()?;
                p.skip();
                p.eat(b":")?;
                p.skip();
                Some(Slice { start: Some(start), end: None, step: p.step() })
            })
        })
    }

    /// The optional `(":" pos_number | ":")` ending a range; the step (1 when absent).
    fn step(&mut self) -> usize {
        let explicit = self.seq(|p| {
            p.eat(b":")?;
            p.skip();
            p.pos_number()
        });
        if let Some(step) = explicit {
            return step;
        }
        let _ = self.eat(b":");
        1
    }
}

/// Characters allowed in a dot-notation key.
pub(crate) fn is_literal_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(b, b'-' | b'_' | b'`' | b'~' | b'+' | b'#' | b'%' | b'$' | b'^' | b'/' | b':')
}

/// Decimal digits to an i64, saturating at the bounds.
fn saturating_int(digits: &[u8], negative: bool) -> i64 {
    let mut n: i64 = 0;
    for &d in digits {
        let d = i64::from(d - b'0');
        n = if negative {
            n.saturating_mul(10).saturating_sub(d)
        } else {
            n.saturating_mul(10).saturating_add(d)
        };
    }
    n
}

/// Resolves `\\` and `\<quote>` in a quoted string that the grammar matched with escapes.
fn unescape(raw: &str) -> Box<str> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    out.into_boxed_str()
}
