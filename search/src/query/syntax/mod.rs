//! The query language parser (dialects 1–4) producing a [`QueryAst`]. Depends only on
//! `error`, `limits` and `args`; never panics; nesting is bounded by
//! [`MAX_QUERY_DEPTH`](crate::limits::MAX_QUERY_DEPTH).
//!
//! ```text
//! query     := union
//! union     := intersect ( '|' intersect )*            (dialect ≥ 2)
//! intersect := unary+
//! unary     := '-' unary | '~' unary | atom [ '=>' attrs ]
//! (dialect 1: RediSearch's v1 precedences instead, see `Parser::expr`)
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
//!
//! One stage a file: `scanner` (the cursor over the text: characters, words, numbers,
//! escapes, `$param` values), `grammar` (the tokens that continue an expression and each
//! dialect's precedences), `parser` (precedence climbing: union, intersection, negation,
//! optional; atoms), `words` (how the lexers split words and numbers, a `$` in a
//! phrase), `field` (`@field` clauses: comparisons, numeric and geo ranges),
//! `tags` (tag lists), `attributes` (`=>{$weight; $slop; $inorder}`), `vector` (KNN and
//! VECTOR_RANGE clauses); the tree they build is `ast`.

use std::collections::HashMap;

use crate::analysis::Stopwords;
use crate::error::Result;

mod ast;
mod attributes;
mod field;
mod grammar;
mod lexer_v1;
mod lexer_v2;
mod parser;
mod punct;
mod scanner;
mod tags;
mod vector;
mod words;

#[cfg(test)]
mod tests;

pub use ast::{KnnClause, NumBound, QueryAst, RangeClause, TagTerm};
pub(crate) use scanner::escape_word;
pub use scanner::unescape;

use scanner::Parser;

/// The values of PARAMS as the parser reads them: by name, the text of the ones the query
/// names. A request's raw PARAMS (vector blobs among them) are read as they are, and only a
/// value the query substitutes as text is converted: a 512-byte blob made into lossy UTF-8
/// on every KNN query was 8 % of it.
pub trait Params {
    /// The text of `$name` (bytes that are not UTF-8 replaced, as `from_utf8_lossy` does).
    fn text(&self, name: &str) -> Option<String>;
    /// Whether `$name` is given.
    fn has(&self, name: &str) -> bool;
}

impl Params for HashMap<String, String> {
    fn text(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
    fn has(&self, name: &str) -> bool {
        self.contains_key(name)
    }
}

impl Params for HashMap<String, Vec<u8>> {
    fn text(&self, name: &str) -> Option<String> {
        self.get(name).map(|v| String::from_utf8_lossy(v).into_owned())
    }
    fn has(&self, name: &str) -> bool {
        self.contains_key(name)
    }
}

/// Parses `text` under `dialect` with `params` (`$name` values).
pub fn parse(text: &str, dialect: u32, params: &dyn Params) -> Result<QueryAst> {
    parse_in(text, dialect, params, None)
}

/// [`parse`] for an index whose stopwords are `stopwords`: the grammars read stopwords in
/// places (a tag phrase drops them from its third word on, as RediSearch's `termlist`).
pub fn parse_in(
    text: &str,
    dialect: u32,
    params: &dyn Params,
    stopwords: Option<&Stopwords>,
) -> Result<QueryAst> {
    let mut p = Parser::new(text, dialect, params);
    p.stopwords = stopwords;
    p.skip_ws();
    if p.at_end() {
        // RediSearch's grammar accepts the empty query; it matches nothing.
        return Ok(QueryAst::Or(Vec::new()));
    }
    let star = p.star_query()?;
    let lone_star = star.is_some();
    let mut ast = match star {
        Some(all) => all,
        None => p.union()?,
    };
    p.skip_ws();
    if p.at_vector_arrow() {
        ast = p.knn(ast)?;
        p.skip_ws();
    }
    if !p.at_end() {
        if lone_star && p.peek().is_some_and(|c| c.is_ascii_punctuation() && c != '_' && c != '\\') {
            // After the query's star a punctuation token keeps the text as the star left it;
            // dialect 1's ARROW quotes the two characters after its `=`.
            if p.peek() == Some('=') && p.peek_at(1) == Some('>') {
                let near: String = (1..=2).filter_map(|k| p.peek_at(k)).collect();
                if dialect >= 2 {
                    // Dialect 2 takes `* =>` (before a KNN clause) and stops at what follows:
                    // a word quotes itself, the end is the arrow again.
                    let arrow = p.offset();
                    p.i += 2;
                    p.skip_ws();
                    match p.peek() {
                        None => return Err(crate::error::Error::syntax(arrow, &near)),
                        Some(c) if !(c.is_ascii_punctuation() && c != '_') => return Err(p.word_error()),
                        Some(_) => {}
                    }
                }
                return Err(crate::error::Error::syntax(p.offset(), &near));
            }
            return Err(crate::error::Error::syntax(p.offset(), &p.stale_near()));
        }
        if lone_star {
            return Err(p.word_error());
        }
        return Err(p.err());
    }
    Ok(ast)
}
