//! The expression grammar: precedence climbing over [`super::grammar`]'s tables (union,
//! intersection, negation, optional) down to atoms (groups, phrases, words and their
//! affixes, fuzzy terms, parameters, `ismissing`), handing `@field:` clauses to
//! [`super::field`].

use super::ast::QueryAst;
use super::grammar::Token;
use super::scanner::{escape_term, escape_word, is_special, unescape, Parser};
use crate::error::{Error, Result};
use crate::limits::MAX_FUZZY_DISTANCE;

impl Parser<'_> {
    /// A whole expression (the query, or inside parentheses).
    pub(super) fn union(&mut self) -> Result<QueryAst> {
        self.expr(0)
    }

    /// RediSearch's query grammars (LALR with precedences: `v1/parser.y` for dialect 1,
    /// `v2/parser.y` from dialect 2), parsed by precedence climbing over their `%left`
    /// tables ([`Grammar`]). `min` is the precedence of the rule whose operand this is: a
    /// following token extends the operand only when its precedence is higher (every rule is
    /// left-associative). Dialect 1: runs of words bind first, then `|`, then intersection
    /// (`a b | c d` = `(a b) | (c d)`, `(a) b | c` = `(a) (b | c)`); `-` and `~` take what
    /// binds tighter after them (`-a b` = `-(a b)`); `@f:` takes a following union only
    /// (`@f:(a) | b` = `@f:(a | b)`). Dialect 2: intersection binds tighter than `|`; `-`,
    /// `~` and `@f:` take only a following prefix, fuzzy term, number or parameter
    /// (`@f:john smi*` = `@f:(john smi*)`, `-a b` = `(-a) b`).
    pub(super) fn expr(&mut self, min: u8) -> Result<QueryAst> {
        self.enter()?;
        let g = self.grammar();
        let mut left = self.prefix()?;
        let mut combined = false;
        // Alternatives joined by `|` in this loop, and whether all are text.
        let (mut chain, mut chain_text) = (0usize, true);
        while let Some(tok) = self.token() {
            if tok == Token::Arrow && self.at_vector_arrow() {
                // `filter=>[KNN …]`: the query rule takes a single clause (or `*`); an arrow
                // that would attach inside a compound is v2's syntax error at the `[`.
                if g.arrow > min && (min > 0 || combined) {
                    return Err(self.arrow_error());
                }
                if min == 0 && self.depth > 1 {
                    return Err(Error::syntax(self.offset(), ">["));
                }
                break;
            }
            match tok {
                Token::Or if g.or > min => {
                    self.i += 1;
                    // v2's grammar: once two text alternatives are joined (a text union), a
                    // further alternative must be text too: `a | b | @f:x` is its syntax
                    // error, `a | @f:x | b` is not.
                    let text_union = self.dialect >= 2 && chain >= 2 && chain_text;
                    self.text_only += usize::from(text_union);
                    let right = self.expr(g.or);
                    self.text_only -= usize::from(text_union);
                    let right = right?;
                    if chain == 0 {
                        chain = 1;
                        chain_text = is_text(&left);
                    }
                    chain += 1;
                    chain_text &= is_text(&right);
                    left = join(left, right, true);
                    combined = true;
                }
                Token::Arrow if g.token(Token::Arrow) > min => left = self.attrs(left)?,
                Token::Or | Token::Arrow => break,
                t if g.token(t) > min => {
                    chain = 0;
                    let right = self.expr(g.and)?;
                    // v1's STOPWORD is a NULL expression, which its `expr ::= expr expr`
                    // passes over (`one_not_null`): `the y z 5` is the term list `y z 5`.
                    left = if self.is_null_word(&left) {
                        right
                    } else if self.is_null_word(&right) {
                        left
                    } else {
                        join(left, right, false)
                    };
                    combined = true;
                }
                _ => break,
            }
        }
        self.depth -= 1;
        Ok(left)
    }

    /// The query `*`, the only place RediSearch's grammars take a lone star (`query ::= STAR`;
    /// from dialect 2 also in parentheses, `star ::= LP star RP`, and before a KNN arrow):
    /// consumed when the query starts so, None (nothing consumed) otherwise. What follows it
    /// is the caller's: the end, a KNN arrow, or a syntax error there.
    pub(super) fn star_query(&mut self) -> Result<Option<QueryAst>> {
        let start = self.i;
        let mut open = 0;
        while self.dialect >= 2 && self.peek() == Some('(') {
            self.i += 1;
            open += 1;
            self.skip_ws();
        }
        if !self.lone_star() {
            self.i = start;
            return Ok(None);
        }
        let star = self.offset();
        self.i += 1;
        for _ in 0..open {
            self.skip_ws();
            if !self.eat(')') {
                // Inside `(…)` only `)` may follow the star: the parser stops at the next
                // token (a word quotes itself, an arrow its two characters, the end the star).
                return Err(match self.peek() {
                    None => Error::syntax(star, &self.stale_near()),
                    Some('=') if self.peek_at(1) == Some('>') => {
                        let near: String = (1..=2).filter_map(|k| self.peek_at(k)).collect();
                        Error::syntax(self.offset(), &near)
                    }
                    Some(c) if c.is_ascii_punctuation() && c != '_' => {
                        Error::syntax(self.offset(), &self.stale_near())
                    }
                    Some(_) => self.word_error(),
                });
            }
        }
        Ok(Some(QueryAst::MatchAll))
    }

    /// A syntax error at the word here, quoting the word (its text as the lexer cuts it).
    pub(super) fn word_error(&mut self) -> Error {
        let at = self.offset();
        let w = self.word();
        Error::syntax(at, &w)
    }

    /// True at a `*` that is a token of its own (not the start of a suffix or infix).
    fn lone_star(&mut self) -> bool {
        if self.peek() != Some('*') {
            return false;
        }
        let at = self.i;
        self.i += 1;
        // `*$p` / `*$p*` (dialect 2): a suffix or contains of a parameter's value.
        if self.dialect >= 2 {
            self.eat('$');
        }
        // The lexers' affixes take a term or a number after the star: punctuation there
        // leaves a STAR token (`*'` in dialect 1).
        let punct =
            self.peek().is_some_and(|c| c.is_ascii_punctuation() && c != '_' && c != '\\' && !is_special(c));
        let lone = punct || self.word().is_empty();
        self.i = at;
        lone
    }

    /// An expression's first part: a prefix operator with its operand, or an atom (in
    /// dialect 1 a run of words is one term list).
    fn prefix(&mut self) -> Result<QueryAst> {
        let g = self.grammar();
        match self.token() {
            Some(Token::Minus) => {
                self.i += 1;
                Ok(QueryAst::Not(Box::new(self.expr(g.minus)?)))
            }
            Some(Token::Tilde) => {
                self.i += 1;
                Ok(QueryAst::Optional(Box::new(self.expr(g.tilde)?)))
            }
            Some(Token::Term | Token::Number) if self.dialect < 2 => {
                // v1's `termlist ::= term term | termlist term` (`term` a TERM or NUMBER),
                // whose precedences end it before a NUMBER after two terms (`hello world 5`
                // is `(hello world) 5`, so `@t:hello world 5` fields only the first two) and
                // before a STOPWORD token, which is an expression of its own (`@t:hello the
                // world` fields only `hello`).
                if self.at_stopword() {
                    return self.atom();
                }
                let mut words = vec![self.atom()?];
                loop {
                    match self.token() {
                        Some(Token::Term) if !self.at_stopword() => {}
                        Some(Token::Number) if words.len() < 2 => {}
                        _ => break,
                    }
                    words.push(self.atom()?);
                }
                Ok(collapse_and(words))
            }
            Some(_) => self.atom(),
            None => Err(self.err()),
        }
    }

    /// One operand: a group, a phrase, a field clause, a word with its affixes, a fuzzy
    /// term, a parameter, a negative number or `ismissing(@f)`.
    fn atom(&mut self) -> Result<QueryAst> {
        self.skip_ws();
        let Some(c) = self.peek() else { return Err(self.err()) };
        match c {
            '(' => {
                self.i += 1;
                let inner = self.union()?;
                self.skip_ws();
                if !self.eat(')') {
                    return Err(self.err());
                }
                Ok(inner)
            }
            '\'' if self.at_verbatim() => Err(self.err()),
            'w' if self.at_wildcard() => self.wildcard(),
            '"' | '\'' if self.dialect >= 2 && self.peek_at(1) == Some(c) => {
                // `""` / `''`: the empty string (INDEXEMPTY fields).
                self.i += 2;
                Ok(QueryAst::Word(String::new()))
            }
            '"' => {
                // The raw text between the quotes, escapes kept for the tokenizer.
                self.i += 1;
                let start = self.i;
                let (text, _) = self.scan_until(|ch| ch == '"', true)?;
                self.i += 1;
                if self.dialect < 2 {
                    self.v1_phrase_stopwords(&text, start)?;
                }
                let text = if self.dialect < 2 { self.phrase_numbers(&text) } else { text };
                Ok(QueryAst::Phrase(self.phrase_dollars(text, start)?))
            }
            '@' => self.field_clause(),
            '*' => {
                if self.lone_star() {
                    // A star inside an expression: RediSearch's parser stops at it, quoting
                    // the text of the token before.
                    return Err(Error::syntax(self.offset(), &self.stale_near()));
                }
                self.i += 1;
                // A parameter's value lower-cased (`QueryParam_Resolve`'s `rm_strdupcase`: FT.EXPLAIN
                // shows `*$p` as `SUFFIX{*hello}` for `HeLLo`); a written affix keeps its case.
                let w = if self.dialect >= 2 && self.eat('$') {
                    escape_word(&self.param()?.to_ascii_lowercase())
                } else {
                    self.word()
                };
                if self.eat('*') {
                    Ok(QueryAst::Infix(w))
                } else {
                    Ok(QueryAst::Suffix(w))
                }
            }
            '%' => {
                let start = self.i;
                let mut n = 0;
                while self.eat('%') {
                    n += 1;
                }
                if n > MAX_FUZZY_DISTANCE {
                    // At the `%` one past the deepest fuzzy level.
                    self.i = start + MAX_FUZZY_DISTANCE as usize;
                    return Err(self.err());
                }
                // Spaces, and punctuation that starts no token of RediSearch's lexer, are
                // skipped there (`% run%`, `%+run%`, `%.run.%` are `%run%`).
                self.skip_lexer_gaps();
                let word_at = self.i;
                let quote = self.peek().filter(|&q| self.dialect >= 2 && (q == '"' || q == '\''));
                let param = self.dialect >= 2 && self.peek() == Some('$');
                let w = if param {
                    // `%$p%`: the parameter's value (`""` there is a term like any other).
                    self.i += 1;
                    escape_word(&self.param()?)
                } else if quote.is_some() && self.peek_at(1) == quote {
                    // `%""%`: the empty string's term (INDEXEMPTY).
                    self.i += 2;
                    if self.peek() != Some('%') {
                        self.i = start;
                        return Err(self.err());
                    }
                    String::new()
                } else if quote == Some('"') {
                    // A quoted term falls back to a plain one (`%"a"%` is `%a%`).
                    self.i += 1;
                    let (text, _) = self.scan_until(|ch| ch == '"', true)?;
                    self.i += 1;
                    if text.is_empty() || self.peek() != Some('%') {
                        self.i = start;
                        return Err(self.err());
                    }
                    text
                } else {
                    if let Some(e) = self.verbatim_error() {
                        // Dialect 2's `'…'` is a VERBATIM token, which no rule takes here.
                        return Err(e);
                    }
                    // RediSearch's lexer ends the term at punctuation (`%%wor&d%%` is `wor`,
                    // then `d`: its syntax error there), or reads a number (`%5.5%`).
                    let n = self.number_token_len(0);
                    if n > 0 && !matches!(self.peek(), Some('-' | '+')) {
                        let text: String = (0..n).filter_map(|j| self.peek_at(j)).collect();
                        self.i += n;
                        escape_word(&text)
                    } else {
                        self.word_until_punct()
                    }
                };
                // The same gaps after the word (`%run.%` is `%run%`) when a `%` follows them.
                let after_word = self.i;
                self.skip_lexer_gaps();
                if self.peek() != Some('%') {
                    self.i = after_word;
                }
                if !w.is_empty() && self.peek() != Some('%') {
                    return Err(self.fuzzy_error(word_at, &w));
                }
                if w.is_empty() && quote.is_none() && !param {
                    // No term: RediSearch's parser fails at the token where the term should
                    // be (at the end: the opening run's last `%`).
                    self.i = word_at;
                    if self.peek().is_none_or(|c| c == '%') {
                        return Err(self.err());
                    }
                    return Err(self.fuzzy_error(word_at, ""));
                }
                let mut m = 0;
                while m < n && self.eat('%') {
                    m += 1;
                }
                if m != n {
                    // Fewer closing `%` than opening: the parser fails after the last one.
                    return Err(self.err());
                }
                Ok(QueryAst::Fuzzy(w, n))
            }
            '$' => {
                self.i += 1;
                let v = self.param()?;
                if self.dialect >= 2 && self.eat('*') {
                    // `$p*`: a prefix of the parameter's value, lower-cased as RediSearch
                    // substitutes it (FT.EXPLAIN `PREFIX{hello*}` for `HeLLo`).
                    return Ok(QueryAst::Prefix(escape_word(&v.to_ascii_lowercase())));
                }
                if !v.is_empty() && c_double(&v) {
                    // A value that is a number is one term, its text lower-cased and never
                    // expanded (RediSearch's `QueryParam_Resolve` / `QueryNode_EvalParamsCommon`:
                    // `ParseDouble` succeeds, the node is made verbatim).
                    return Ok(QueryAst::Verbatim(v.to_ascii_lowercase()));
                }
                Ok(QueryAst::Word(escape_term(&v)))
            }
            '-' if self.minus_number().is_some() => {
                let n = self.unsigned_number_len(1);
                let digits: String = (1..=n).filter_map(|j| self.peek_at(j)).collect();
                self.i += 1 + n;
                if self.eat('*') {
                    Ok(QueryAst::Prefix(format!("-{digits}")))
                } else {
                    Ok(self.number_term(format!("-{digits}")))
                }
            }
            _ if is_special(c) => Err(self.err()),
            _ => {
                // RediSearch's lexers skip punctuation between tokens and read a NUMBER where
                // it is the longest match (`1.2e+3`, `a1.5b` is `a1` then `5b`).
                let start = self.i;
                self.skip_word_punct();
                let n = self.number_token_len(0);
                if n > 0 {
                    let text: String = (0..n).filter_map(|j| self.peek_at(j)).collect();
                    self.i += n;
                    if self.eat('*') {
                        return Ok(QueryAst::Prefix(text));
                    }
                    return Ok(self.number_term(text));
                }
                if self.peek() == Some('*') && self.i > start {
                    // The lexer skipped the punctuation before a star (`w'*'` in dialect 1).
                    return self.atom();
                }
                let w = if self.peek().is_none_or(is_special) {
                    // Punctuation alone: a word without terms, as before.
                    self.i = start;
                    self.word()
                } else {
                    let w = self.word_until_punct();
                    if self.peek() == Some('\\') && self.peek_at(1).is_none() {
                        // A backslash that ends the text escapes nothing.
                        self.i += 1;
                    }
                    w
                };
                if w.is_empty() {
                    return Err(self.err());
                }
                if self.dialect >= 2 && w.eq_ignore_ascii_case("ismissing") && self.peek() == Some('(') {
                    self.i += 1;
                    self.skip_ws();
                    if !self.eat('@') {
                        return Err(self.err());
                    }
                    let f = self.word();
                    self.skip_ws();
                    if f.is_empty() || !self.eat(')') {
                        return Err(self.err());
                    }
                    return Ok(QueryAst::Missing(unescape(&f)));
                }
                if self.eat('*') {
                    Ok(QueryAst::Prefix(w))
                } else {
                    Ok(QueryAst::Word(w))
                }
            }
        }
    }
}

/// Whether v2's grammar holds `q` as a text expression (terms, affixes, fuzzy terms and
/// phrases, combined or negated), as opposed to one with field modifiers, `*` or ismissing.
fn is_text(q: &QueryAst) -> bool {
    match q {
        QueryAst::Word(_)
        | QueryAst::Verbatim(_)
        | QueryAst::Prefix(_)
        | QueryAst::Suffix(_)
        | QueryAst::Infix(_)
        | QueryAst::Fuzzy(..)
        | QueryAst::Phrase(_) => true,
        QueryAst::And(items) | QueryAst::Or(items) => items.iter().all(is_text),
        QueryAst::Not(inner) | QueryAst::Optional(inner) => is_text(inner),
        QueryAst::Attrs { inner, .. } => is_text(inner),
        _ => false,
    }
}

/// `left` joined with `right` by `|` (`or`) or by intersection: `right` appended when `left`
/// is already that combination (every rule is left-associative), else a new one of both.
fn join(left: QueryAst, right: QueryAst, or: bool) -> QueryAst {
    match (left, or) {
        (QueryAst::Or(mut items), true) => {
            items.push(right);
            QueryAst::Or(items)
        }
        (QueryAst::And(mut items), false) => {
            items.push(right);
            QueryAst::And(items)
        }
        // RediSearch appends to an intersection on the left even when it carries attributes
        // (`(a b)=>{$weight:2} c` is one intersection of a, b and c, weighing 2).
        (QueryAst::Attrs { inner, weight, slop, inorder, phonetic }, false)
            if matches!(*inner, QueryAst::And(_)) =>
        {
            let QueryAst::And(mut items) = *inner else { unreachable!() };
            items.push(right);
            QueryAst::Attrs { inner: Box::new(QueryAst::And(items)), weight, slop, inorder, phonetic }
        }
        (l, true) => QueryAst::Or(vec![l, right]),
        (l, false) => QueryAst::And(vec![l, right]),
    }
}

/// The words of a dialect-1 term list: one alone, or their intersection.
fn collapse_and(mut items: Vec<QueryAst>) -> QueryAst {
    if items.len() == 1 {
        items.pop().unwrap_or(QueryAst::MatchAll)
    } else {
        QueryAst::And(items)
    }
}

/// Whether C's `strtod` reads all of `v` as a number without a range error (RediSearch's
/// `ParseDouble`): leading spaces, a sign, decimal or hexadecimal digits with an exponent,
/// `inf`, `infinity` or `nan` in any case.
pub(super) fn c_double(v: &str) -> bool {
    let t = v.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let lower = body.to_ascii_lowercase();
    if ["inf", "infinity", "nan"].contains(&lower.as_str()) {
        return true;
    }
    if let Some(hex) = lower.strip_prefix("0x") {
        let (mant, exp) = match hex.split_once('p') {
            Some((m, e)) => (m, Some(e)),
            None => (hex, None),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let hexdigits = |s: &str| s.chars().all(|c| c.is_ascii_hexdigit());
        if int.len() + frac.len() == 0 || !hexdigits(int) || !hexdigits(frac) {
            return false;
        }
        return exp.is_none_or(|e| {
            let e = e.strip_prefix(['+', '-']).unwrap_or(e);
            !e.is_empty() && e.chars().all(|c| c.is_ascii_digit())
        });
    }
    // Rust's grammar of decimal numbers is C's (`1.`, `.5`, `1e5`), but for the words.
    if !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return false;
    }
    match body.parse::<f64>() {
        // Out of range: ERANGE (an overflow, or an underflow to zero).
        Ok(d) => {
            d.is_finite()
                && (d != 0.0
                    || !body.split(['e', 'E']).next().unwrap_or("").chars().any(|c| ('1'..='9').contains(&c)))
        }
        Err(_) => false,
    }
}
