//! `@field` clauses: the field list (`@a|b`), then a comparison (`@n>=3`, dialect ≥ 2), a
//! tag list (`:{…}`, see [`super::tags`]), a numeric or geo range (`:[…]`), a vector range
//! (`:[VECTOR_RANGE …]`, see [`super::vector`]), or a modified expression (`:x`).

use super::ast::{NumBound, QueryAst};
use super::scanner::{is_c_space, unescape, Parser};
use crate::error::{Error, Result};

impl Parser<'_> {
    /// `@field…` (at the `@`).
    pub(super) fn field_clause(&mut self) -> Result<QueryAst> {
        let at = self.i;
        self.i += 1;
        if self.text_only > 0 {
            let name = self.field_name();
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
        let colon = self.offset();
        if !self.eat(':') {
            return Err(self.err());
        }
        let field_near = self.stale_near_span();
        self.skip_ws();
        if self.dialect >= 2 {
            // v2's lexer passes over punctuation that starts no token (`@t:. x` is `@t:x`);
            // with no token left, the end is the syntax error, at the colon, quoting the
            // field (`@t:>`).
            match self.v2_token(self.i) {
                Some(t) => self.i = t.start,
                None => return Err(Error::syntax(colon, self.text_of(field_near))),
            }
        }
        match self.peek() {
            Some('{') => {
                self.i += 1;
                let tags = if self.dialect >= 2 { self.tag_list_v2()? } else { self.tag_list()? };
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
                if self.dialect >= 2 {
                    if let Some(shape) = self.geoshape(&fields)? {
                        return Ok(shape);
                    }
                }
                self.range(fields)
            }
            _ => {
                self.enter()?;
                // v2's grammar: what a modifier applies to is text, with no modifier of its
                // own (`@a:@b:x`, `@a:(x @b:y)` are its syntax errors at the inner `@`).
                let text = usize::from(self.dialect >= 2);
                self.text_only += text;
                let inner = self.expr(self.grammar().modifier);
                self.text_only -= text;
                self.depth -= 1;
                Ok(QueryAst::Field(fields, Box::new(inner?)))
            }
        }
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
        let sign = match (self.peek(), self.peek_at(1)) {
            (Some(c @ ('-' | '+')), Some('$')) => {
                self.i += 1;
                Some(c)
            }
            _ => None,
        };
        let text = if self.eat('$') {
            // `-$n`: the parameter's number negated.
            let v = self.param()?;
            match (sign, crate::args::parse_f64(&v)) {
                (Some('-'), Some(n)) => (-n).to_string(),
                _ => v,
            }
        } else {
            let mut t = String::new();
            while let Some(c) = self.peek() {
                if is_c_space(c) || c == ')' || c == '|' {
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

    /// `[predicate $param]` after the `[` (RediSearch's `LSQB TERM ATTRIBUTE RSQB`), or
    /// `None` (nothing consumed) when the brackets hold something else.
    fn geoshape(&mut self, fields: &[String]) -> Result<Option<QueryAst>> {
        let start = self.i;
        self.skip_ws();
        if !self.peek().is_some_and(char::is_alphabetic) {
            self.i = start;
            return Ok(None);
        }
        let word = self.word();
        let is_number = crate::args::parse_f64(&word).is_some();
        self.skip_ws();
        if is_number || self.peek() != Some('$') {
            self.i = start;
            return Ok(None);
        }
        let dollar = self.offset();
        let Some(op) = crate::index::geoshape::ShapeOp::parse(&word) else {
            return Err(Error::new(format!(
                "Syntax error: Expecting a geoshape predicate at offset {dollar}"
            )));
        };
        self.i += 1;
        let name = self.word();
        self.skip_ws();
        if name.is_empty() || !self.eat(']') {
            return Err(self.err());
        }
        let wkt = self.params.text(&name).ok_or_else(|| Error::new(format!("No such parameter `{name}`")))?;
        let field = fields.first().cloned().unwrap_or_default();
        Ok(Some(QueryAst::GeoShape { field, op, wkt }))
    }

    /// One bound of `[…]` (`(` kept; a `$param` replaced by its value), or `None` at the `]`.
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
            let v = self.param()?;
            // An empty parameter is the number 0 (RediSearch 2.10.5: `@n:[$a 10]` with a
            // empty is `0 <= n <= 10`; a geo radius of 0 is invalid).
            t.push_str(if v.is_empty() { "0" } else { &v });
            return Ok(Some(t));
        }
        if let (Some(sign @ ('-' | '+')), Some('$')) = (self.peek(), self.peek_at(1)) {
            // `-$n`: the parameter's number negated (RediSearch's `num ::= MINUS num`).
            self.i += 2;
            let v = self.param()?;
            match crate::args::parse_f64(&v) {
                Some(n) if sign == '-' => t.push_str(&(-n).to_string()),
                _ if sign == '-' => t.push_str(&format!("-{v}")),
                _ => t.push_str(&v),
            }
            return Ok(Some(t));
        }
        let n = self.number_len(0);
        let digit_term = self.dialect < 2 && n > 0 && self.term_len(0) > n;
        if digit_term {
            // v1 reads a TERM there (`1e+3` is `1e`, then `3`), which no range rule takes.
            let at = self.offset();
            let near: String = (0..self.term_len(0)).filter_map(|j| self.peek_at(j)).collect();
            return Err(Error::syntax(at, &near));
        }
        if n > 0 && n >= self.term_len(0) && self.term_len(n) > 0 {
            // The lexer's NUMBER ends inside the word (v1's `1.2e+3` is `1.2`, `e`, `3`):
            // the term after it is where no range rule goes on.
            self.i += n;
            let at = self.offset();
            let len = self.term_len(0);
            let near: String = (0..len).filter_map(|j| self.peek_at(j)).collect();
            return Err(Error::syntax(at, &near));
        }
        if let Some(n) = self.lex_number() {
            // RediSearch's lexer skips punctuation between tokens: `[0..inf]` is `[0 inf]`.
            t.push_str(&n);
            while self.peek().is_some_and(|c| is_c_space(c) || c == ',' || c == '.') {
                self.i += 1;
            }
            return Ok(Some(t));
        }
        while let Some(c) = self.peek() {
            if is_c_space(c) || c == ']' || c == ',' {
                break;
            }
            t.push(c);
            self.i += 1;
        }
        self.skip_ws();
        self.eat(',');
        Ok(Some(t))
    }

    /// A number or infinity as RediSearch's lexer reads one (`[+-]?digit+(.digit+)?(e[+-]?digit+)?`,
    /// `[+-]?inf`), consumed; `None` (nothing consumed) when the text is another word.
    fn lex_number(&mut self) -> Option<String> {
        let start = self.i;
        let mut t = String::new();
        if let Some(c) = self.peek().filter(|c| *c == '+' || *c == '-') {
            t.push(c);
            self.i += 1;
            // A sign alone is a token of its own: RediSearch's grammar negates the number after
            // a `-` (`num ::= MINUS num`) and its lexer skips a `+`, so `[- 2 3]` is `[-2 3]`
            // and `[-inf + inf]` is `[-inf inf]`.
            while self.peek().is_some_and(is_c_space) {
                self.i += 1;
            }
        }
        let digits = |p: &mut Self, t: &mut String| {
            let mut n = 0;
            while let Some(c) = p.peek().filter(char::is_ascii_digit) {
                t.push(c);
                p.i += 1;
                n += 1;
            }
            n
        };
        if self.peek().is_some_and(|c| c.eq_ignore_ascii_case(&'i')) && self.at_keyword("inf") {
            t.push_str("inf");
            self.i += 3;
        } else if digits(self, &mut t) > 0 {
            if self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
                t.push('.');
                self.i += 1;
                digits(self, &mut t);
            }
            if matches!(self.peek(), Some('e' | 'E')) {
                let save = (self.i, t.len());
                t.push('e');
                self.i += 1;
                // v1's exponent takes only a `-` (`1.2e+3` is `1.2`, `e`, `3` there).
                let signs: &[char] = if self.dialect >= 2 { &['+', '-'] } else { &['-'] };
                if let Some(c) = self.peek().filter(|c| signs.contains(c)) {
                    t.push(c);
                    self.i += 1;
                }
                if digits(self, &mut t) == 0 {
                    self.i = save.0;
                    t.truncate(save.1);
                }
            }
        } else {
            self.i = start;
            return None;
        }
        // A number glued to more word characters (`5abc`) is a word.
        if self.peek().is_some_and(|c| !is_c_space(c) && !matches!(c, ']' | ',' | '.' | '(' | '$')) {
            self.i = start;
            return None;
        }
        Some(t)
    }

    /// `[min max]`, `[v]` (dialect ≥ 2) or `[lon lat radius unit]` after the `[`.
    fn range(&mut self, fields: Vec<String>) -> Result<QueryAst> {
        let start = self.i;
        if self.dialect < 2 {
            // Dialect 1 has no predicates: a word where a number belongs is the error.
            self.skip_ws();
            let at = self.i;
            let w = self.word();
            let word_first = w.chars().next().is_some_and(char::is_alphabetic);
            self.i = at;
            if word_first && crate::args::parse_f64(&w).is_none() {
                return Err(self.err());
            }
            self.i = start;
        }
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
                    // RediSearch's `GeoFilter_Validate`, as the query is parsed.
                    if crate::index::geo::unit_factor(unit).is_none() {
                        return Err(Error::new("Invalid GeoFilter unit"));
                    }
                    // (Comparisons, not ranges: a NaN passes, as in RediSearch.)
                    let beyond = |v: f64, limit: f64| v > limit || v < -limit;
                    if beyond(lat, 90.0) || beyond(lon, 180.0) {
                        return Err(Error::new("Invalid GeoFilter lat/lon"));
                    }
                    if radius <= 0.0 {
                        return Err(Error::new("Invalid GeoFilter radius"));
                    }
                    Ok(QueryAst::Geo { field, lon, lat, radius, unit: unit.clone() })
                }
                _ => Err(fail(self)),
            },
            _ => Err(fail(self)),
        }
    }
}
