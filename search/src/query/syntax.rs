//! The query language parser (dialects 1–4) producing a [`QueryAst`]. Depends only on
//! `error` and `limits`; never panics; nesting is bounded by [`MAX_QUERY_DEPTH`].
//!
//! ```text
//! query     := union
//! union     := intersect ( '|' intersect )*            (dialect ≥ 2)
//! intersect := unary+
//! unary     := '-' unary | '~' unary | atom [ '=>' attrs ]
//! (dialect 1: RediSearch's v1 precedences instead, see `Parser::v1_expr`)
//! atom      := '(' union ')' | '"' phrase '"' | '""' | "''" (dialect ≥ 2: the empty string)
//!            | '@' field ('|' field)* ':' modified
//!            | '*' | word | word '*' | '*' word | '*' word '*' | '%'{1,3} word '%'{1,3}
//!            | '$' param | 'ismissing(' '@' field ')'
//!            | '@' field ( '==' | '!=' | '>' | '>=' | '<' | '<=' ) num   (dialect ≥ 2)
//! modified  := '{' tag ('|' tag)* '}' | '[' num num ']' | '[' num ']'   (tag may be '""')
//!            | '[' lon lat radius unit ']' | unary
//! attrs     := '{' ( '$' name ':' value ';'? )* '}'
//! num       := ['('] ( number | inf | -inf | +inf | '$' param )
//! ```

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::limits::{MAX_FUZZY_DISTANCE, MAX_KNN_K, MAX_QUERY_DEPTH};
pub use crate::query::vector::{KnnClause, RangeClause};

/// One value in a tag clause.
#[derive(Debug, Clone, PartialEq)]
pub enum TagTerm {
    /// Exact value.
    Exact(String),
    /// `foo*`.
    Prefix(String),
    /// `*foo`.
    Suffix(String),
    /// `*foo*`.
    Infix(String),
}

impl TagTerm {
    /// The tag term for value `v` written with a leading and/or trailing `*`.
    fn of(v: String, lead_star: bool, trail_star: bool) -> TagTerm {
        match (lead_star, trail_star) {
            (false, false) => TagTerm::Exact(v),
            (false, true) => TagTerm::Prefix(v),
            (true, false) => TagTerm::Suffix(v),
            (true, true) => TagTerm::Infix(v),
        }
    }
}

/// A bound of a numeric range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumBound {
    /// Value (may be ±inf).
    pub value: f64,
    /// Inclusive?
    pub inclusive: bool,
}

/// The syntax tree of a query.
#[derive(Debug, Clone, PartialEq)]
pub enum QueryAst {
    /// `*`.
    MatchAll,
    /// A word as written (escapes kept for the tokenizer).
    Word(String),
    /// `foo*`.
    Prefix(String),
    /// `*foo`.
    Suffix(String),
    /// `*foo*`.
    Infix(String),
    /// `%foo%` with distance 1–3.
    Fuzzy(String, u32),
    /// `"a b c"` (raw text between the quotes).
    Phrase(String),
    /// Implicit AND.
    And(Vec<QueryAst>),
    /// `|`.
    Or(Vec<QueryAst>),
    /// `-x`.
    Not(Box<QueryAst>),
    /// `~x`.
    Optional(Box<QueryAst>),
    /// `@a|b:x`.
    Field(Vec<String>, Box<QueryAst>),
    /// `@t:{…}`.
    Tag(Vec<String>, Vec<TagTerm>),
    /// `@n:[min max]`.
    Numeric(String, NumBound, NumBound),
    /// `@g:[lon lat radius unit]`.
    Geo {
        /// Field.
        field: String,
        /// Longitude.
        lon: f64,
        /// Latitude.
        lat: f64,
        /// Radius in `unit`.
        radius: f64,
        /// `m`, `km`, `mi` or `ft`.
        unit: String,
    },
    /// `ismissing(@f)`.
    Missing(String),
    /// The documents of these keys: FT.SEARCH's INKEYS option, never written in a query
    /// (see [`crate::query::global_filters`]).
    Keys(Vec<Vec<u8>>),
    /// `filter=>[KNN k @v $blob …]` (dialect ≥ 2, the query's root only).
    Knn(Box<KnnClause>),
    /// `@v:[VECTOR_RANGE r $blob]=>{$YIELD_DISTANCE_AS: d}` (dialect ≥ 2).
    VectorRange(Box<RangeClause>),
    /// `x => { $weight: w; $slop: s; $inorder: b }`.
    Attrs {
        /// The node.
        inner: Box<QueryAst>,
        /// `$weight`.
        weight: Option<f64>,
        /// `$slop`.
        slop: Option<u32>,
        /// `$inorder`.
        inorder: Option<bool>,
    },
}

/// Parses `text` under `dialect` with `params` (`$name` values).
pub fn parse(text: &str, dialect: u32, params: &HashMap<String, String>) -> Result<QueryAst> {
    let mut p = Parser {
        s: text,
        chars: text.char_indices().collect(),
        i: 0,
        dialect,
        params,
        depth: 0,
        text_only: 0,
    };
    p.skip_ws();
    if p.at_end() {
        // RediSearch's grammar accepts the empty query; it matches nothing.
        return Ok(QueryAst::Or(Vec::new()));
    }
    let mut ast = p.union()?;
    p.skip_ws();
    if p.at_vector_arrow() {
        ast = p.knn(ast)?;
        p.skip_ws();
    }
    if !p.at_end() {
        return Err(p.err());
    }
    Ok(ast)
}

struct Parser<'a> {
    s: &'a str,
    chars: Vec<(usize, char)>,
    i: usize,
    dialect: u32,
    params: &'a HashMap<String, String>,
    depth: usize,
    /// Inside an alternative that v2's grammar only accepts as text (no field modifiers).
    text_only: usize,
}

/// Characters with a meaning in queries (end a word).
fn is_special(c: char) -> bool {
    c.is_whitespace() || "()|{}[]@\"~*%$:-=".contains(c)
}

impl<'a> Parser<'a> {
    fn at_end(&self) -> bool {
        self.i >= self.chars.len()
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).map(|&(_, c)| c)
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).map(|&(_, c)| c)
    }

    fn offset(&self) -> usize {
        self.chars.get(self.i).map(|&(o, _)| o).unwrap_or(self.s.len())
    }

    fn err(&self) -> Error {
        let off = self.offset();
        let rest = self.s.get(off..).unwrap_or("");
        let near: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
        Error::syntax(off, &near)
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_QUERY_DEPTH {
            return Err(Error::new(format!(
                "Syntax error at offset {}: query nested deeper than {MAX_QUERY_DEPTH}",
                self.offset()
            )));
        }
        Ok(())
    }

    /// A whole expression (the query, or inside parentheses).
    fn union(&mut self) -> Result<QueryAst> {
        self.expr(0)
    }

    fn grammar(&self) -> &'static Grammar {
        if self.dialect >= 2 {
            &V2
        } else {
            &V1
        }
    }

    /// The next token's kind, without consuming it (`None`: none that continues an
    /// expression).
    fn token(&mut self) -> Option<Token> {
        self.skip_ws();
        let c = self.peek()?;
        Some(match c {
            '|' => Token::Or,
            '=' if self.peek_at(1) == Some('>') => Token::Arrow,
            '-' => match self.minus_number() {
                Some(true) => Token::Affix,
                Some(false) => Token::Number,
                None => Token::Minus,
            },
            '~' => Token::Tilde,
            '"' => Token::Quote,
            '(' => Token::Lp,
            '@' => Token::Modifier,
            '%' => Token::Percent,
            '*' | '$' => Token::Affix,
            _ if is_special(c) => return None,
            _ => {
                // A word followed by `*` is a prefix token; a number is a token of its own.
                let mut k = 0;
                while self.peek_at(k).is_some_and(|ch| !is_special(ch) || ch == '\\') {
                    k += if self.peek_at(k) == Some('\\') { 2 } else { 1 };
                }
                if self.peek_at(k) == Some('*') {
                    Token::Affix
                } else if (0..k).filter_map(|j| self.peek_at(j)).collect::<String>().parse::<f64>().is_ok() {
                    Token::Number
                } else {
                    Token::Term
                }
            }
        })
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
    fn expr(&mut self, min: u8) -> Result<QueryAst> {
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
                    left = match left {
                        QueryAst::Or(mut alts) => {
                            alts.push(right);
                            QueryAst::Or(alts)
                        }
                        l => QueryAst::Or(vec![l, right]),
                    };
                    combined = true;
                }
                Token::Arrow if g.token(Token::Arrow) > min => left = self.attrs(left)?,
                Token::Or | Token::Arrow => break,
                t if g.token(t) > min => {
                    chain = 0;
                    let right = self.expr(g.and)?;
                    left = match left {
                        QueryAst::And(mut items) => {
                            items.push(right);
                            QueryAst::And(items)
                        }
                        l => QueryAst::And(vec![l, right]),
                    };
                    combined = true;
                }
                _ => break,
            }
        }
        self.depth -= 1;
        Ok(left)
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
                let mut words = vec![self.atom()?];
                while matches!(self.token(), Some(Token::Term | Token::Number)) {
                    words.push(self.atom()?);
                }
                Ok(collapse_and(words))
            }
            Some(_) => self.atom(),
            None => Err(self.err()),
        }
    }

    /// Dialect 1: a tag list goes on after its `}` with `| word` (v1's `tag_list OR term`):
    /// `@t:{a} | b` is `@t:{a | b}`, and `@t:{a} | (b)` a syntax error, as in RediSearch.
    /// `open` is the index of the list's first character (after `{`).
    fn v1_tag_tail(&mut self, tags: &mut Vec<TagTerm>, open: usize) -> Result<()> {
        // The reference's error names the token before the bad one: the last tag as written.
        let inside: String =
            self.chars.get(open..self.i.saturating_sub(1)).unwrap_or(&[]).iter().map(|&(_, c)| c).collect();
        let mut prev = inside.rsplit('|').next().unwrap_or("").trim().to_string();
        loop {
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

    fn attrs(&mut self, atom: QueryAst) -> Result<QueryAst> {
        let save = self.i;
        self.skip_ws();
        if self.dialect < 2 && self.peek() == Some('=') && self.peek_at(1) == Some('>') {
            // Dialect 1 has no vector clauses: `=>[` is a syntax error at the arrow.
            let mut k = 2;
            while self.peek_at(k).is_some_and(char::is_whitespace) {
                k += 1;
            }
            if self.peek_at(k) == Some('[') {
                return Err(Error::syntax(self.offset(), ">["));
            }
        }
        if !(self.peek() == Some('=') && self.peek_at(1) == Some('>')) || self.at_vector_arrow() {
            self.i = save;
            return Ok(atom);
        }
        self.i += 2;
        self.skip_ws();
        if !self.eat('{') {
            return Err(self.err());
        }
        let (mut weight, mut slop, mut inorder) = (None, None, None);
        loop {
            self.skip_ws();
            if self.eat('}') {
                break;
            }
            if !self.eat('$') {
                return Err(self.err());
            }
            let name = self.raw_word();
            self.skip_ws();
            if !self.eat(':') {
                return Err(self.err());
            }
            self.skip_ws();
            let at = self.i;
            let value = if self.peek() == Some('$') {
                self.i += 1;
                self.param()?
            } else {
                self.raw_word()
            };
            let bad = |p: &Self| {
                let mut e = p.err();
                e.0 = format!("Invalid value ({value}) for `{name}`");
                let _ = at;
                e
            };
            match name.to_ascii_lowercase().as_str() {
                "weight" => weight = Some(value.parse::<f64>().map_err(|_| bad(self))?),
                "slop" => slop = Some(value.parse::<u32>().map_err(|_| bad(self))?),
                "inorder" => inorder = Some(value.eq_ignore_ascii_case("true") || value == "1"),
                "phonetic" => {}
                _ => return Err(Error::new(format!("Invalid attribute {name}"))),
            }
            self.skip_ws();
            self.eat(';');
        }
        Ok(QueryAst::Attrs { inner: Box::new(atom), weight, slop, inorder })
    }

    /// At `-` starting a negative number (`-20`, `-2.5`, `-1e3`) or a prefix of one (`-20*`):
    /// RediSearch lexes these as one term, not as a negation (`-20abc` is `-20` then `abc`).
    /// `Some(true)`: a prefix.
    fn minus_number(&self) -> Option<bool> {
        if self.peek() != Some('-') {
            return None;
        }
        let n = self.number_len(1);
        if n == 0 {
            return None;
        }
        Some(self.peek_at(1 + n) == Some('*'))
    }

    /// Length of the number (`digits[.digits][e[+-]digits]`) starting `at` characters ahead.
    fn number_len(&self, at: usize) -> usize {
        let digits = |mut k: usize| {
            let from = k;
            while self.peek_at(k).is_some_and(|c| c.is_ascii_digit()) {
                k += 1;
            }
            k - from
        };
        let mut k = at;
        let int = digits(k);
        if int == 0 {
            return 0;
        }
        k += int;
        if self.peek_at(k) == Some('.') && digits(k + 1) > 0 {
            k += 1 + digits(k + 1);
        }
        if matches!(self.peek_at(k), Some('e' | 'E')) {
            let sign = usize::from(matches!(self.peek_at(k + 1), Some('+' | '-')));
            let exp = digits(k + 1 + sign);
            if exp > 0 {
                k += 1 + sign + exp;
            }
        }
        k - at
    }

    /// A run of non-special characters (escapes kept).
    fn raw_word(&mut self) -> String {
        let mut w = String::new();
        while let Some(c) = self.peek() {
            if c == '\\' {
                if let Some(n) = self.peek_at(1) {
                    w.push('\\');
                    w.push(n);
                    self.i += 2;
                    continue;
                }
                self.i += 1;
                continue;
            }
            if is_special(c) || c == ';' || c == '}' {
                break;
            }
            w.push(c);
            self.i += 1;
        }
        w
    }

    fn word(&mut self) -> String {
        let mut w = String::new();
        while let Some(c) = self.peek() {
            if c == '\\' {
                if let Some(n) = self.peek_at(1) {
                    w.push('\\');
                    w.push(n);
                    self.i += 2;
                    continue;
                }
                self.i += 1;
                continue;
            }
            if is_special(c) {
                break;
            }
            w.push(c);
            self.i += 1;
        }
        w
    }

    fn param(&mut self) -> Result<String> {
        let name = self.word();
        if self.dialect < 2 {
            return Err(self.err());
        }
        self.params.get(&name).cloned().ok_or_else(|| Error::new(format!("No such parameter `{name}`")))
    }

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
            '"' | '\'' if self.dialect >= 2 && self.peek_at(1) == Some(c) => {
                // `""` / `''`: the empty string (INDEXEMPTY fields).
                self.i += 2;
                Ok(QueryAst::Word(String::new()))
            }
            '"' => {
                self.i += 1;
                let mut text = String::new();
                loop {
                    match self.peek() {
                        None => return Err(self.err()),
                        Some('"') => {
                            self.i += 1;
                            break;
                        }
                        Some('\\') => {
                            text.push('\\');
                            self.i += 1;
                            if let Some(n) = self.peek() {
                                text.push(n);
                                self.i += 1;
                            }
                        }
                        Some(ch) => {
                            text.push(ch);
                            self.i += 1;
                        }
                    }
                }
                Ok(QueryAst::Phrase(text))
            }
            '@' => self.field_clause(),
            '*' => {
                self.i += 1;
                let w = self.word();
                if w.is_empty() {
                    return Ok(QueryAst::MatchAll);
                }
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
                let w = self.word();
                let mut m = 0;
                while m < n && self.eat('%') {
                    m += 1;
                }
                if w.is_empty() || m != n || n > MAX_FUZZY_DISTANCE {
                    self.i = start;
                    return Err(self.err());
                }
                Ok(QueryAst::Fuzzy(w, n))
            }
            '$' => {
                self.i += 1;
                let v = self.param()?;
                Ok(QueryAst::Word(escape_word(&v)))
            }
            '-' if self.minus_number().is_some() => {
                let n = self.number_len(1);
                let digits: String = (1..=n).filter_map(|j| self.peek_at(j)).collect();
                self.i += 1 + n;
                if self.eat('*') {
                    Ok(QueryAst::Prefix(format!("-{digits}")))
                } else {
                    // Escaped so that the word stays one term with its sign.
                    Ok(QueryAst::Word(format!("\\-{}", digits.replace('.', "\\."))))
                }
            }
            _ if is_special(c) => Err(self.err()),
            _ => {
                let w = self.word();
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

    fn field_clause(&mut self) -> Result<QueryAst> {
        let at = self.i;
        self.i += 1;
        if self.text_only > 0 {
            let name = self.word();
            self.i = at;
            return Err(Error::syntax(self.offset(), &name));
        }
        let mut fields = Vec::new();
        loop {
            let f = self.field_name();
            if f.is_empty() {
                self.i = at;
                return Err(self.err());
            }
            fields.push(unescape(&f));
            if !self.eat('|') {
                break;
            }
        }
        self.skip_ws();
        if self.dialect >= 2 {
            if let Some(cmp) = self.comparison(&fields)? {
                return Ok(cmp);
            }
        }
        if !self.eat(':') {
            return Err(self.err());
        }
        self.skip_ws();
        match self.peek() {
            Some('{') => {
                self.i += 1;
                let open = self.i;
                let mut tags = self.tag_list()?;
                if self.dialect < 2 {
                    self.v1_tag_tail(&mut tags, open)?;
                }
                Ok(QueryAst::Tag(fields, tags))
            }
            Some('[') => {
                self.i += 1;
                if self.dialect < 2 && self.at_keyword("VECTOR_RANGE") {
                    self.skip_ws();
                    return Err(self.err());
                }
                if self.dialect >= 2 && self.at_keyword("VECTOR_RANGE") {
                    let field = fields.into_iter().next().unwrap_or_default();
                    return self.vector_range(field);
                }
                self.range(fields)
            }
            _ => {
                self.enter()?;
                let inner = self.expr(self.grammar().modifier)?;
                self.depth -= 1;
                Ok(QueryAst::Field(fields, Box::new(inner)))
            }
        }
    }

    /// A field name: a word that also stops at comparison operators.
    fn field_name(&mut self) -> String {
        let mut w = String::new();
        while let Some(c) = self.peek() {
            if c == '\\' {
                if let Some(n) = self.peek_at(1) {
                    w.push('\\');
                    w.push(n);
                    self.i += 2;
                    continue;
                }
                self.i += 1;
                continue;
            }
            if is_special(c) || "<>!".contains(c) {
                break;
            }
            w.push(c);
            self.i += 1;
        }
        w
    }

    /// `@n==v`, `@n!=v`, `@n>v`, `@n>=v`, `@n<v`, `@n<=v` (dialect ≥ 2).
    fn comparison(&mut self, fields: &[String]) -> Result<Option<QueryAst>> {
        let start = self.i;
        let op = match (self.peek(), self.peek_at(1)) {
            (Some('='), Some('=')) => "==",
            (Some('!'), Some('=')) => "!=",
            (Some('>'), Some('=')) => ">=",
            (Some('<'), Some('=')) => "<=",
            (Some('>'), _) => ">",
            (Some('<'), _) => "<",
            _ => return Ok(None),
        };
        self.i += op.len();
        self.skip_ws();
        let text = if self.eat('$') {
            self.param()?
        } else {
            let mut t = String::new();
            while let Some(c) = self.peek() {
                if c.is_whitespace() || c == ')' || c == '|' {
                    break;
                }
                t.push(c);
                self.i += 1;
            }
            t
        };
        let Some(v) = crate::args::parse_f64(&text) else {
            self.i = start;
            return Err(self.err());
        };
        let field = fields.first().cloned().unwrap_or_default();
        let b = |value: f64, inclusive: bool| NumBound { value, inclusive };
        let (inf, ninf) = (f64::INFINITY, f64::NEG_INFINITY);
        Ok(Some(match op {
            "==" => QueryAst::Numeric(field, b(v, true), b(v, true)),
            "!=" => QueryAst::Not(Box::new(QueryAst::Numeric(field, b(v, true), b(v, true)))),
            ">" => QueryAst::Numeric(field, b(v, false), b(inf, true)),
            ">=" => QueryAst::Numeric(field, b(v, true), b(inf, true)),
            "<" => QueryAst::Numeric(field, b(ninf, true), b(v, false)),
            _ => QueryAst::Numeric(field, b(ninf, true), b(v, true)),
        }))
    }

    fn tag_list(&mut self) -> Result<Vec<TagTerm>> {
        let mut out = Vec::new();
        loop {
            self.skip_ws();
            let mut raw = String::new();
            let mut escaped_star_end = false;
            let mut lead_star = false;
            let mut trail_star = false;
            let quote = self.peek().filter(|&q| q == '"' || q == '\'');
            if self.dialect >= 2 && quote.is_some() && self.peek_at(1) == quote {
                // `{""}` / `{''}`: the empty tag (INDEXEMPTY).
                self.i += 2;
                self.skip_ws();
                out.push(TagTerm::Exact(String::new()));
                if self.eat('}') {
                    return Ok(out);
                }
                if !self.eat('|') {
                    return Err(self.err());
                }
                continue;
            }
            if self.peek() == Some('$') && self.dialect >= 2 {
                self.i += 1;
                raw = self.param()?;
                if raw.is_empty() {
                    // An empty parameter asks for the empty tag.
                    out.push(TagTerm::Exact(String::new()));
                    self.skip_ws();
                    if self.eat('}') {
                        return Ok(out);
                    }
                    if !self.eat('|') {
                        return Err(self.err());
                    }
                    continue;
                }
            } else {
                if self.eat('*') {
                    lead_star = true;
                }
                if self.dialect >= 2 && self.peek() == Some('"') {
                    // `"…"`: the tag exactly as written, `\` escaping the next character;
                    // a `*` after the closing quote makes it a prefix (RediSearch 2.10).
                    self.i += 1;
                    let mut v = String::new();
                    loop {
                        match self.peek() {
                            None => return Err(self.err()),
                            Some('\\') => {
                                self.i += 1;
                                if let Some(n) = self.peek() {
                                    v.push(n);
                                    self.i += 1;
                                }
                            }
                            Some('"') => {
                                self.i += 1;
                                break;
                            }
                            Some(ch) => {
                                v.push(ch);
                                self.i += 1;
                            }
                        }
                    }
                    let trail = self.eat('*');
                    self.skip_ws();
                    out.push(TagTerm::of(v, lead_star, trail));
                    if self.eat('}') {
                        return Ok(out);
                    }
                    if !self.eat('|') {
                        return Err(self.err());
                    }
                    continue;
                }
                loop {
                    match self.peek() {
                        None => return Err(self.err()),
                        Some('\\') => {
                            self.i += 1;
                            if let Some(n) = self.peek() {
                                raw.push(n);
                                self.i += 1;
                                escaped_star_end = n == '*';
                            }
                        }
                        Some('|') | Some('}') => break,
                        Some(ch) => {
                            raw.push(ch);
                            escaped_star_end = false;
                            self.i += 1;
                        }
                    }
                }
                let trimmed = raw.trim_end().len();
                raw.truncate(trimmed);
                if raw.ends_with('*') && !escaped_star_end {
                    raw.pop();
                    trail_star = true;
                }
            }
            let v = raw.trim().to_string();
            if v.is_empty() && !(lead_star || trail_star) {
                return Err(self.err());
            }
            out.push(TagTerm::of(v, lead_star, trail_star));
            if self.eat('}') {
                return Ok(out);
            }
            if !self.eat('|') {
                return Err(self.err());
            }
        }
    }

    /// At `=>` followed by `[` (a KNN clause; dialect ≥ 2 only).
    fn at_vector_arrow(&self) -> bool {
        if self.dialect < 2 || self.peek() != Some('=') || self.peek_at(1) != Some('>') {
            return false;
        }
        let mut k = 2;
        while self.peek_at(k).is_some_and(char::is_whitespace) {
            k += 1;
        }
        self.peek_at(k) == Some('[')
    }

    /// The error for a KNN arrow after a compound filter (at the `[`).
    fn arrow_error(&self) -> Error {
        let mut k = 2;
        while self.peek_at(k).is_some_and(char::is_whitespace) {
            k += 1;
        }
        let off = self.chars.get(self.i + k).map_or(self.s.len(), |&(o, _)| o);
        Error::syntax(off, ">[")
    }

    /// At the word `kw` (case-insensitive) followed by a non-word character.
    fn at_keyword(&self, kw: &str) -> bool {
        let mut k = 0;
        while self.peek_at(k).is_some_and(char::is_whitespace) {
            k += 1;
        }
        for (j, c) in kw.chars().enumerate() {
            if !self.peek_at(k + j).is_some_and(|p| p.eq_ignore_ascii_case(&c)) {
                return false;
            }
        }
        self.peek_at(k + kw.len()).is_none_or(is_special)
    }

    /// A whitespace-delimited token inside `[…]` (stops at `]`).
    fn bracket_token(&mut self) -> String {
        self.skip_ws();
        let mut t = String::new();
        while let Some(c) = self.peek() {
            if c.is_whitespace() || c == ']' {
                break;
            }
            t.push(c);
            self.i += 1;
        }
        t
    }

    /// A value that may be a `$param`.
    fn bracket_value(&mut self) -> Result<String> {
        self.skip_ws();
        if self.eat('$') {
            return self.param();
        }
        Ok(self.bracket_token())
    }

    /// `$name` of a blob parameter: the name (the bytes are read at execution, raw).
    fn blob_param(&mut self) -> Result<String> {
        self.skip_ws();
        if !self.eat('$') {
            return Err(self.err());
        }
        let name = self.word();
        if !self.params.contains_key(&name) {
            return Err(Error::new(format!("No such parameter `{name}`")));
        }
        Ok(name)
    }

    /// `=>[KNN k @field $blob [EF_RUNTIME x] [EPSILON e] [HYBRID_POLICY p] [BATCH_SIZE n]
    /// [AS name]]` after the filter, then optional `=>{$yield_distance_as: name; …}`.
    fn knn(&mut self, filter: QueryAst) -> Result<QueryAst> {
        self.skip_ws();
        self.i += 2;
        self.skip_ws();
        self.i += 1;
        self.skip_ws();
        if !self.at_keyword("KNN") {
            let off = self.offset();
            let tok = self.bracket_token();
            return Err(Error::new(format!(
                "Syntax error: Expecting Vector Similarity command at offset {off} near {tok}"
            )));
        }
        self.bracket_token();
        self.skip_ws();
        let start = self.i;
        let k_text = self.bracket_value()?;
        let Some(k) = k_text.parse::<u64>().ok() else {
            self.i = start;
            return Err(self.err());
        };
        // RediSearch accepts any K; results never exceed the documents anyway.
        let k = k.min(MAX_KNN_K);
        self.skip_ws();
        if !self.eat('@') {
            return Err(self.err());
        }
        let field = unescape(&self.field_name());
        let blob = self.blob_param()?;
        let mut c =
            KnnClause { filter: Box::new(filter), k: k as usize, field, blob, ..KnnClause::default() };
        loop {
            self.skip_ws();
            if self.eat(']') {
                break;
            }
            if self.at_end() {
                return Err(self.err());
            }
            let at = self.i;
            let name = self.bracket_token();
            if name.is_empty() {
                return Err(self.err());
            }
            let value = self.bracket_value()?;
            if value.is_empty() {
                self.i = at;
                return Err(self.err());
            }
            c.set(&name, value)?;
        }
        self.vector_attrs(|name, value| c.set(name, value))?;
        Ok(QueryAst::Knn(Box::new(c)))
    }

    /// `VECTOR_RANGE r $blob]` then optional `=>{$YIELD_DISTANCE_AS: d; $EPSILON: e}`.
    fn vector_range(&mut self, field: String) -> Result<QueryAst> {
        self.bracket_token();
        let start = self.i;
        let r_text = self.bracket_value()?;
        let Some(radius) = crate::args::parse_f64(&r_text) else {
            self.i = start;
            return Err(self.err());
        };
        let blob = self.blob_param()?;
        self.skip_ws();
        if !self.eat(']') {
            return Err(self.err());
        }
        let mut c = RangeClause { field, radius, blob, ..RangeClause::default() };
        self.vector_attrs(|name, value| c.set(name, value))?;
        Ok(QueryAst::VectorRange(Box::new(c)))
    }

    /// Optional `=>{$name: value; …}` after a vector clause, each pair given to `set`.
    fn vector_attrs(&mut self, mut set: impl FnMut(&str, String) -> Result<()>) -> Result<()> {
        let save = self.i;
        self.skip_ws();
        if !(self.peek() == Some('=') && self.peek_at(1) == Some('>')) || self.at_vector_arrow() {
            self.i = save;
            return Ok(());
        }
        self.i += 2;
        self.skip_ws();
        if !self.eat('{') {
            return Err(self.err());
        }
        loop {
            self.skip_ws();
            if self.eat('}') {
                return Ok(());
            }
            if !self.eat('$') {
                return Err(self.err());
            }
            let name = self.raw_word();
            self.skip_ws();
            if !self.eat(':') {
                return Err(self.err());
            }
            self.skip_ws();
            let value = if self.eat('$') { self.param()? } else { self.raw_word() };
            set(&name, unescape(&value))?;
            self.skip_ws();
            self.eat(';');
        }
    }

    fn range_token(&mut self) -> Result<Option<String>> {
        self.skip_ws();
        if self.peek() == Some(']') || self.at_end() {
            return Ok(None);
        }
        let mut t = String::new();
        if self.eat('(') {
            t.push('(');
        }
        if self.eat('$') {
            t.push_str(&self.param()?);
            return Ok(Some(t));
        }
        while let Some(c) = self.peek() {
            if c.is_whitespace() || c == ']' || c == ',' {
                break;
            }
            t.push(c);
            self.i += 1;
        }
        self.skip_ws();
        self.eat(',');
        Ok(Some(t))
    }

    fn range(&mut self, fields: Vec<String>) -> Result<QueryAst> {
        let start = self.i;
        let mut toks = Vec::new();
        while let Some(t) = self.range_token()? {
            toks.push(t);
            if toks.len() > 4 {
                return Err(self.err());
            }
        }
        if !self.eat(']') {
            return Err(self.err());
        }
        let field = fields.into_iter().next().unwrap_or_default();
        let bound = |t: &str| -> Option<NumBound> {
            let (incl, v) = match t.strip_prefix('(') {
                Some(rest) => (false, rest),
                None => (true, t),
            };
            crate::args::parse_f64(v).map(|value| NumBound { value, inclusive: incl })
        };
        let fail = |p: &mut Self| {
            p.i = start;
            p.err()
        };
        match toks.as_slice() {
            [a, b] => match (bound(a), bound(b)) {
                (Some(lo), Some(hi)) => Ok(QueryAst::Numeric(field, lo, hi)),
                _ => Err(fail(self)),
            },
            [a] if self.dialect >= 2 => match bound(a) {
                Some(v) if v.inclusive => Ok(QueryAst::Numeric(field, v, v)),
                _ => Err(fail(self)),
            },
            [lon, lat, r, unit] => match (lon.parse::<f64>(), lat.parse::<f64>(), r.parse::<f64>()) {
                (Ok(lon), Ok(lat), Ok(radius)) => {
                    Ok(QueryAst::Geo { field, lon, lat, radius, unit: unit.clone() })
                }
                _ => Err(fail(self)),
            },
            _ => Err(fail(self)),
        }
    }
}

/// The tokens that can follow an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Term,
    Number,
    Affix,
    Percent,
    Quote,
    Lp,
    Modifier,
    Minus,
    Tilde,
    Or,
    Arrow,
}

/// One dialect's precedences (positions in its parser.y `%left` list, lowest first): of the
/// rules, and of the tokens.
struct Grammar {
    or: u8,
    and: u8,
    minus: u8,
    tilde: u8,
    /// `@field: expr` (dialect 1: MODIFIER; dialect 2: the rule's last token, COLON).
    modifier: u8,
    term: u8,
    number: u8,
    affix: u8,
    percent: u8,
    quote: u8,
    lp: u8,
    modifier_token: u8,
    minus_token: u8,
    tilde_token: u8,
    arrow: u8,
}

impl Grammar {
    fn token(&self, t: Token) -> u8 {
        match t {
            Token::Term => self.term,
            Token::Number => self.number,
            Token::Affix => self.affix,
            Token::Percent => self.percent,
            Token::Quote => self.quote,
            Token::Lp => self.lp,
            Token::Modifier => self.modifier_token,
            Token::Minus => self.minus_token,
            Token::Tilde => self.tilde_token,
            Token::Or => self.or,
            Token::Arrow => self.arrow,
        }
    }
}

/// v1: LOWEST TILDE TAGLIST QUOTE COLON MINUS NUMBER STOPWORD TERMLIST TERM PREFIX PERCENT
/// ATTRIBUTE LP RP MODIFIER AND OR ORX ARROW.
const V1: Grammar = Grammar {
    or: 17,
    and: 16,
    minus: 5,
    tilde: 1,
    modifier: 15,
    term: 9,
    number: 6,
    affix: 10,
    percent: 11,
    quote: 3,
    lp: 13,
    modifier_token: 15,
    minus_token: 5,
    tilde_token: 1,
    arrow: 19,
};

/// v2: LOWEST TEXTEXPR ORX OR ISMISSING MODIFIER RP EXACT TERM QUOTE LP TILDE/MINUS AND ARROW
/// COLON EQUALS GT NUMBER SIZE STAR TAGLIST TERMLIST PREFIX PERCENT ATTRIBUTE VERBATIM (a
/// quoted phrase is one EXACT token; `$param` an ATTRIBUTE).
const V2: Grammar = Grammar {
    or: 3,
    and: 12,
    minus: 11,
    tilde: 11,
    modifier: 14,
    term: 8,
    number: 17,
    affix: 22,
    percent: 23,
    quote: 7,
    lp: 10,
    modifier_token: 5,
    minus_token: 11,
    tilde_token: 11,
    arrow: 13,
};

/// Whether v2's grammar holds `q` as a text expression (terms, affixes, fuzzy terms and
/// phrases, combined or negated), as opposed to one with field modifiers, `*` or ismissing.
fn is_text(q: &QueryAst) -> bool {
    match q {
        QueryAst::Word(_)
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

fn collapse_and(mut items: Vec<QueryAst>) -> QueryAst {
    if items.len() == 1 {
        items.pop().unwrap_or(QueryAst::MatchAll)
    } else {
        QueryAst::And(items)
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

fn escape_word(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if !c.is_alphanumeric() && c != '_' && !c.is_whitespace() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use QueryAst::*;

    fn p(q: &str, d: u32) -> Result<QueryAst> {
        parse(q, d, &HashMap::new())
    }

    fn w(s: &str) -> QueryAst {
        Word(s.into())
    }

    #[test]
    fn dialect_differences() {
        assert_eq!(p("@f:a b", 1).unwrap(), Field(vec!["f".into()], Box::new(And(vec![w("a"), w("b")]))));
        assert_eq!(p("@f:a b", 2).unwrap(), And(vec![Field(vec!["f".into()], Box::new(w("a"))), w("b")]));
        // Dialect 1 after a group: the modifier takes the group only (RediSearch 2.10's EXPLAIN).
        assert_eq!(p("@f:(a) b", 1).unwrap(), And(vec![Field(vec!["f".into()], Box::new(w("a"))), w("b")]));
        assert_eq!(p("-a b", 1).unwrap(), Not(Box::new(And(vec![w("a"), w("b")]))));
        assert_eq!(p("-a b", 2).unwrap(), And(vec![Not(Box::new(w("a"))), w("b")]));
        // RediSearch 2.10's FT.EXPLAIN of each dialect-1 query: runs of words bind first,
        // then `|`, then intersection; `-`, `~` and `@f:` as their precedences say.
        let (a, b, c, d) = (w("a"), w("b"), w("c"), w("d"));
        let and = |v: Vec<QueryAst>| And(v);
        let or = |v: Vec<QueryAst>| Or(v);
        let f = |x: QueryAst| Field(vec!["f".into()], Box::new(x));
        assert_eq!(
            p("a b | c d", 1).unwrap(),
            or(vec![and(vec![a.clone(), b.clone()]), and(vec![c.clone(), d.clone()])])
        );
        assert_eq!(
            p("a -b c", 1).unwrap(),
            and(vec![a.clone(), Not(Box::new(and(vec![b.clone(), c.clone()])))])
        );
        assert_eq!(p("(a) b | c", 1).unwrap(), and(vec![a.clone(), or(vec![b.clone(), c.clone()])]));
        assert_eq!(p("a* b | c", 1).unwrap(), and(vec![Prefix("a".into()), or(vec![b.clone(), c.clone()])]));
        assert_eq!(p("-a | b", 1).unwrap(), Not(Box::new(or(vec![a.clone(), b.clone()]))));
        assert_eq!(p("@f:(a) | b", 1).unwrap(), f(or(vec![a.clone(), b.clone()])));
        assert_eq!(p("@f:a b | c", 1).unwrap(), f(or(vec![and(vec![a.clone(), b.clone()]), c.clone()])));
        assert_eq!(
            p("@t:{a} | b", 1).unwrap(),
            Tag(vec!["t".into()], vec![TagTerm::Exact("a".into()), TagTerm::Exact("b".into())])
        );
        assert_eq!(p("@t:{a} | @u:b", 1).unwrap_err().to_string(), "Syntax error at offset 9 near u");
        // The reference names the tag before the bad token.
        assert_eq!(p("@t:{a} | b | (c)", 1).unwrap_err().to_string(), "Syntax error at offset 13 near b");
        assert_eq!(
            p(r"@tag:{Dark|x\-y} | %runner%", 1).unwrap_err().to_string(),
            r"Syntax error at offset 19 near x\-y"
        );
        // v2: after a union of two text alternatives, a third must be text too.
        let err = |q: &str| p(q, 2).unwrap_err().to_string();
        assert_eq!(err("a1 | b1 | @title:x"), "Syntax error at offset 10 near title");
        assert_eq!(err("a1 | b1 | -@title:x"), "Syntax error at offset 11 near title");
        assert_eq!(err("a1 b1 | c1 | @num:[1 2]"), "Syntax error at offset 13 near num");
        assert!(p("a1 | @title:x | b1", 2).is_ok());
        assert!(p("(a1 | b1) | @title:x", 2).is_ok());
        assert_eq!(
            p("a b | c d", 2).unwrap(),
            Or(vec![And(vec![w("a"), w("b")]), And(vec![w("c"), w("d")])])
        );
    }

    #[test]
    fn constructs() {
        assert_eq!(p("*", 2).unwrap(), MatchAll);
        assert_eq!(p("hel*", 2).unwrap(), Prefix("hel".into()));
        assert_eq!(p("%%hlo%%", 2).unwrap(), Fuzzy("hlo".into(), 2));
        assert_eq!(p("\"a b\"", 2).unwrap(), Phrase("a b".into()));
        assert_eq!(
            p("@t:{ foo bar | b\\,z* }", 2).unwrap(),
            Tag(vec!["t".into()], vec![TagTerm::Exact("foo bar".into()), TagTerm::Prefix("b,z".into())])
        );
        let n = p("@n:[(1 +inf]", 2).unwrap();
        assert_eq!(
            n,
            Numeric(
                "n".into(),
                NumBound { value: 1.0, inclusive: false },
                NumBound { value: f64::INFINITY, inclusive: true }
            )
        );
        assert!(matches!(p("@g:[2.3 48.8 10 km]", 2).unwrap(), Geo { .. }));
        let mut params = HashMap::new();
        params.insert("x".to_string(), "5".to_string());
        assert_eq!(
            parse("@n:[$x $x]", 2, &params).unwrap(),
            Numeric(
                "n".into(),
                NumBound { value: 5.0, inclusive: true },
                NumBound { value: 5.0, inclusive: true }
            )
        );
        assert_eq!(parse("@n:[$y 1]", 2, &params).unwrap_err().0, "No such parameter `y`");
        assert_eq!(p("ismissing(@f)", 2).unwrap(), Missing("f".into()));
        let ge = NumBound { value: 3.0, inclusive: true };
        let inf = NumBound { value: f64::INFINITY, inclusive: true };
        assert_eq!(p("@n>=3", 2).unwrap(), Numeric("n".into(), ge, inf));
        assert_eq!(p("@n != 3", 2).unwrap(), Not(Box::new(Numeric("n".into(), ge, ge))));
        assert!(p("@n>=x", 2).is_err());
        assert!(p("@n>=3", 1).is_err());
        assert!(matches!(p("\"a b\"=>{$slop:1; $inorder:true}", 2).unwrap(), Attrs { slop: Some(1), .. }));
        // The empty string: `""`/`''` in dialect 2+, as a term and as a tag.
        assert_eq!(p("@t:\"\"", 2).unwrap(), Field(vec!["t".into()], Box::new(w(""))));
        assert_eq!(p("''", 2).unwrap(), w(""));
        assert_eq!(p("\"\"", 1).unwrap(), Phrase(String::new()));
        assert_eq!(
            p("@t:{ \"\" | x }", 2).unwrap(),
            Tag(vec!["t".into()], vec![TagTerm::Exact(String::new()), TagTerm::Exact("x".into())])
        );
        assert_eq!(p("@t:{''}", 2).unwrap(), Tag(vec!["t".into()], vec![TagTerm::Exact(String::new())]));
        let mut empty = HashMap::new();
        empty.insert("e".to_string(), String::new());
        assert_eq!(
            parse("@t:{$e}", 2, &empty).unwrap(),
            Tag(vec!["t".into()], vec![TagTerm::Exact(String::new())])
        );
    }

    #[test]
    fn syntax_errors_carry_offsets() {
        assert_eq!(p("foo (bar", 2).unwrap_err().0, "Syntax error at offset 8 near ");
        assert_eq!(p("foo )", 2).unwrap_err().0, "Syntax error at offset 4 near )");
        assert_eq!(p("@f:{a", 2).unwrap_err().0, "Syntax error at offset 5 near ");
        assert!(p("@:x", 2).is_err());
        assert!(p("%%%%a%%%%", 2).is_err());
        let deep = "(".repeat(10_000) + "a" + &")".repeat(10_000);
        assert!(p(&deep, 2).is_err());
    }
}
