//! The expression language of APPLY, FILTER and FT.CREATE's FILTER.
//!
//! The design card named `meval`; it only evaluates numeric formulas (no
//! strings, no `@field`s, no comparisons or `&& || !`, no `log`/`log2`), so
//! the language has its own lexer, parser and evaluator here.
//!
//! Contract: [`Expr::parse`] once per query, [`Expr::bind`] once against the
//! row layout, then [`Expr::eval`] per row.

pub mod ast;
pub mod eval;
pub mod functions;
pub mod lexer;
pub mod parser;

use super::error::AggError;
use super::row::Row;
use super::value::Value;

/// A parsed expression and its source text.
#[derive(Debug, Clone)]
pub struct Expr {
    /// The original text (used as the APPLY alias when AS is missing).
    pub source: String,
    /// The tree.
    pub ast: ast::ExprAst,
}

impl Expr {
    /// Parses `source`; an unknown name is an error wherever it stands (FT.CREATE's FILTER,
    /// FT.ADD's IF).
    pub fn parse(source: &str) -> Result<Expr, AggError> {
        let e = Expr::parse_with_holes(source)?;
        match e.ast.hole() {
            Some(message) => Err(AggError::new(message)),
            None => Ok(e),
        }
    }

    /// Parses an APPLY's or FILTER's `source`, an unknown name that ends the text left as
    /// a hole ([`ast::ExprAst::Missing`]) that [`Expr::bind`] reports, as RediSearch's
    /// pipeline does (`Missing (or badly formatted) value for expr->op.right`).
    pub fn parse_with_holes(source: &str) -> Result<Expr, AggError> {
        Ok(Expr { source: source.to_string(), ast: parser::parse(source)? })
    }

    /// An expression that did not parse: `error` is reported when it is bound.
    pub fn failed(source: &str, error: AggError) -> Expr {
        Expr { source: source.to_string(), ast: ast::ExprAst::Missing(error.message) }
    }

    /// Resolves property names to row slots.
    pub fn bind(&mut self, resolve: &mut dyn FnMut(&str) -> Option<usize>) -> Result<(), AggError> {
        self.ast.bind(resolve)
    }

    /// Evaluates against a row.
    pub fn eval(&self, row: &Row) -> Result<Value, AggError> {
        eval::eval(&self.ast, row)
    }

    /// Names of the properties the expression reads.
    pub fn properties(&self) -> Vec<&str> {
        self.ast.properties()
    }
}
