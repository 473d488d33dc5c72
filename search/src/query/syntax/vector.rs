//! Vector clauses (dialect ≥ 2): `filter=>[KNN k @v $blob …]` at the query's root and
//! `@v:[VECTOR_RANGE r $blob]` as a field clause, each with optional `=>{$name: value}`
//! attributes, parsed into [`KnnClause`] and [`RangeClause`].

use super::ast::{KnnClause, QueryAst, RangeClause};
use super::scanner::{is_c_space, unescape, Parser};
use crate::error::{Error, Result};
use crate::limits::MAX_KNN_K;

impl Parser<'_> {
    /// How many characters ahead the first non-whitespace after an `=>` here stands.
    fn past_arrow(&self) -> usize {
        let mut k = 2;
        while self.peek_at(k).is_some_and(is_c_space) {
            k += 1;
        }
        k
    }

    /// At `=>` followed by `[` (whitespace between allowed), in any dialect.
    pub(super) fn at_arrow_bracket(&self) -> bool {
        self.peek() == Some('=')
            && self.peek_at(1) == Some('>')
            && self.peek_at(self.past_arrow()) == Some('[')
    }

    /// At `=>` followed by `[` (a KNN clause; dialect ≥ 2 only).
    pub(super) fn at_vector_arrow(&self) -> bool {
        self.dialect >= 2 && self.at_arrow_bracket()
    }

    /// The error for a KNN arrow after a compound filter (at the `[`).
    pub(super) fn arrow_error(&self) -> Error {
        let off = self.chars.get(self.i + self.past_arrow()).map_or(self.s.len(), |&(o, _)| o);
        // The ARROW token's text: the two characters after its `=` (`> ` before a space).
        let near: String = (1..=2).filter_map(|k| self.peek_at(k)).collect();
        Error::syntax(off, &near)
    }

    /// A whitespace-delimited token inside `[…]` (stops at `]`).
    fn bracket_token(&mut self) -> String {
        self.skip_ws();
        let mut t = String::new();
        while let Some(c) = self.peek() {
            if is_c_space(c) || c == ']' {
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
        if !self.params.has(&name) {
            return Err(Error::new(format!("No such parameter `{name}`")));
        }
        Ok(name)
    }

    /// `=>[KNN k @field $blob [EF_RUNTIME x] [EPSILON e] [HYBRID_POLICY p] [BATCH_SIZE n]
    /// [AS name]]` after the filter, then optional `=>{$yield_distance_as: name; …}`.
    pub(super) fn knn(&mut self, filter: QueryAst) -> Result<QueryAst> {
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
        self.attr_block(|name, value| c.set(&name, unescape(&value)))?;
        Ok(QueryAst::Knn(Box::new(c)))
    }

    /// `VECTOR_RANGE r $blob]` then optional `=>{$YIELD_DISTANCE_AS: d; $EPSILON: e}`.
    pub(super) fn vector_range(&mut self, field: String) -> Result<QueryAst> {
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
        self.attr_block(|name, value| c.set(&name, unescape(&value)))?;
        Ok(QueryAst::VectorRange(Box::new(c)))
    }
}
