//! The index FILTER (FT.CREATE … FILTER expr): parsed once with the aggregate expression
//! language and evaluated per key on the document's values; `@__key` is the key name.

use crate::aggregate::expr::Expr;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;
use crate::document::{DocumentSource, FieldValue};
use crate::error::{Error, Result};
use crate::schema::IndexSpec;

/// A bound FILTER expression.
#[derive(Debug, Clone)]
pub struct IndexFilter {
    expr: Expr,
    /// Property names by slot.
    props: Vec<String>,
    /// The expression has a hole: no document passes.
    admits_none: bool,
}

impl IndexFilter {
    /// Parses and binds `text` (errors carry the expression parser's message). An unknown
    /// name that ends the text (`@n+x`, a hole in the tree) is no error: RediSearch parses
    /// FT.CREATE's FILTER without binding it, and its evaluation then fails for every
    /// document, which none passes (checked side by side: num_docs 0, no failures).
    pub fn parse(text: &str) -> Result<IndexFilter> {
        let mut expr = Expr::parse_with_holes(text).map_err(|e| Error::new(e.to_string()))?;
        if expr.ast.hole().is_some() {
            return Ok(IndexFilter { expr, props: Vec::new(), admits_none: true });
        }
        let mut props: Vec<String> = Vec::new();
        expr.bind(&mut |name: &str| {
            let slot = props.iter().position(|p| p == name).unwrap_or_else(|| {
                props.push(name.to_string());
                props.len() - 1
            });
            Some(slot)
        })
        .map_err(|e| Error::new(e.to_string()))?;
        Ok(IndexFilter { expr, props, admits_none: false })
    }

    /// True when the expression is truthy for `key`.
    pub fn admits(&self, spec: &IndexSpec, key: &[u8], docs: &dyn DocumentSource) -> bool {
        if self.admits_none {
            return false;
        }
        let mut row = Row::default();
        for (slot, name) in self.props.iter().enumerate() {
            let v = if name == "__key" {
                Some(Value::bytes(key))
            } else {
                let path = spec.field(name).map(|(_, f)| f.path.clone()).unwrap_or_else(|| name.clone());
                docs.values(key, &path).ok().and_then(|vals| vals.into_iter().find_map(to_value))
            };
            if let Some(v) = v {
                row.set(slot, v);
            }
        }
        self.expr.eval(&row).map(|v| v.truthy()).unwrap_or(false)
    }
}

fn to_value(v: FieldValue) -> Option<Value> {
    match v {
        FieldValue::Null | FieldValue::Object(_) => None,
        FieldValue::Bool(b) => Some(Value::str(if b { "true" } else { "false" })),
        FieldValue::Number(n, _) => Some(Value::Number(n)),
        FieldValue::String(s) => Some(Value::str(&s)),
        FieldValue::Array(items) => items.into_iter().find_map(to_value),
    }
}
