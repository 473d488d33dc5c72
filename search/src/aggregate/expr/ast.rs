//! The expression syntax tree.
//!
//! Contract: an [`ExprAst`] is built once per query by the parser; property
//! references are bound to row slots once ([`ExprAst::bind`]) and the tree is
//! then evaluated per row without further lookups.

use super::functions::Function;
use crate::aggregate::error::AggError;
use crate::aggregate::value::Value;

/// Arithmetic operators (all evaluate on numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (division by zero gives NaN, as RediSearch does)
    Div,
    /// `%` (on integers; by zero gives NaN)
    Mod,
    /// `^`
    Pow,
}

/// Comparison and logic operators (evaluate to 0 or 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&` (short-circuit)
    And,
    /// `||` (short-circuit)
    Or,
}

/// An expression node.
#[derive(Debug, Clone)]
pub enum ExprAst {
    /// Number, string or NULL literal.
    Literal(Value),
    /// `@name`; `slot` is set by [`ExprAst::bind`].
    Property {
        /// Name without `@`.
        name: String,
        /// Row slot once bound.
        slot: Option<usize>,
    },
    /// Arithmetic.
    Arith(ArithOp, Box<ExprAst>, Box<ExprAst>),
    /// Comparison or logic.
    Pred(PredOp, Box<ExprAst>, Box<ExprAst>),
    /// `!expr`
    Not(Box<ExprAst>),
    /// `name(args…)`
    Call(Function, Vec<ExprAst>),
    /// An unknown symbol or function name that ends the text, with its error message:
    /// RediSearch's parser builds the tree around it with a NULL child, so the query
    /// fails when the tree is bound ([`ExprAst::bind`]), naming the child's place.
    Missing(String),
}

impl ExprAst {
    /// Every property name referenced, in order of appearance.
    pub fn properties(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.walk(&mut |e| {
            if let ExprAst::Property { name, .. } = e {
                out.push(name.as_str());
            }
        });
        out
    }

    /// The message of the tree's first hole ([`ExprAst::Missing`]), if it has one.
    pub fn hole(&self) -> Option<String> {
        let mut found = None;
        self.walk(&mut |e| {
            if let ExprAst::Missing(m) = e {
                found.get_or_insert_with(|| m.clone());
            }
        });
        found
    }

    /// True when the tree calls `func` anywhere.
    pub fn calls(&self, func: Function) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            if let ExprAst::Call(f, _) = e {
                found |= *f == func;
            }
        });
        found
    }

    fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a ExprAst)) {
        f(self);
        match self {
            ExprAst::Literal(_) | ExprAst::Property { .. } | ExprAst::Missing(_) => {}
            ExprAst::Arith(_, l, r) | ExprAst::Pred(_, l, r) => {
                l.walk(f);
                r.walk(f);
            }
            ExprAst::Not(c) => c.walk(f),
            ExprAst::Call(_, args) => args.iter().for_each(|a| a.walk(f)),
        }
    }

    /// The node's kind as RediSearch's FT.PROFILE names an APPLY's or FILTER's root:
    /// `Literal 3`, `Property x`, `Operator +`, `Predicate >`, `Inverted`, `Function upper`.
    pub fn profile_kind(&self) -> String {
        match self {
            ExprAst::Literal(v) => format!("Literal {}", String::from_utf8_lossy(&v.to_text())),
            ExprAst::Property { name, .. } => format!("Property {name}"),
            ExprAst::Arith(op, ..) => {
                let c = match op {
                    ArithOp::Add => '+',
                    ArithOp::Sub => '-',
                    ArithOp::Mul => '*',
                    ArithOp::Div => '/',
                    ArithOp::Mod => '%',
                    ArithOp::Pow => '^',
                };
                format!("Operator {c}")
            }
            ExprAst::Pred(op, ..) => {
                let s = match op {
                    PredOp::Eq => "==",
                    PredOp::Ne => "!=",
                    PredOp::Lt => "<",
                    PredOp::Le => "<=",
                    PredOp::Gt => ">",
                    PredOp::Ge => ">=",
                    PredOp::And => "&&",
                    PredOp::Or => "||",
                };
                format!("Predicate {s}")
            }
            ExprAst::Not(_) => "Inverted".into(),
            ExprAst::Call(f, _) => format!("Function {}", f.name()),
            ExprAst::Missing(_) => "Missing".into(),
        }
    }

    /// Resolves every property to a slot; an unknown one gives RediSearch's
    /// ``Property `x` not loaded nor in pipeline``.
    ///
    /// Children are bound in order, so the first unknown property or hole
    /// ([`ExprAst::Missing`]) is the error, a hole worded as RediSearch's
    /// `ExprAST_GetLookupKeys` names the NULL child (`expr->op.right`).
    pub fn bind(&mut self, resolve: &mut dyn FnMut(&str) -> Option<usize>) -> Result<(), AggError> {
        match self {
            ExprAst::Literal(_) => Ok(()),
            ExprAst::Missing(message) => Err(AggError::new(message.clone())),
            ExprAst::Property { name, slot } => match resolve(name) {
                Some(s) => {
                    *slot = Some(s);
                    Ok(())
                }
                None => Err(AggError::new(format!("Property `{name}` not loaded nor in pipeline"))),
            },
            ExprAst::Arith(_, l, r) => {
                bind_child(l, "expr->op.left", resolve)?;
                bind_child(r, "expr->op.right", resolve)
            }
            ExprAst::Pred(_, l, r) => {
                bind_child(l, "expr->pred.left", resolve)?;
                bind_child(r, "expr->pred.right", resolve)
            }
            ExprAst::Not(c) => bind_child(c, "expr->inverted.child", resolve),
            ExprAst::Call(_, args) => {
                args.iter_mut().try_for_each(|a| bind_child(a, "expr->func.args->args[ii]", resolve))
            }
        }
    }
}

/// Binds child `c` of a node, a hole named by its place (`place`, RediSearch's `RECURSE`
/// macro quotes the C expression of the child).
fn bind_child(
    c: &mut ExprAst,
    place: &str,
    resolve: &mut dyn FnMut(&str) -> Option<usize>,
) -> Result<(), AggError> {
    match c {
        ExprAst::Missing(_) => Err(AggError::new(format!("Missing (or badly formatted) value for {place}"))),
        c => c.bind(resolve),
    }
}
