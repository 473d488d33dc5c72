//! The compiled form of a JSONPath: segments, selectors and filter expressions.
//!
//! Produced by [`super::syntax`], consumed by [`super::eval`] and [`super::filter`].
//! Legacy paths are converted to JSONPath text first, so they share this tree.

use std::sync::Arc;

use regex::Regex;

/// One step of a path: a selector applied to the children of each current node
/// (`.k`, `[..]`, `.*`) or to the node and all its descendants (`..k`, `..*`, `..[..]`).
#[derive(Clone, Debug)]
pub(crate) enum Segment {
    /// `.key`, `['a','b']`, `[0]`, `.*`, `[?(..)]`: select among the children.
    Child(Selector),
    /// `..key`, `..*`, `..[..]`: select among the children of the node and of every descendant.
    Descendant(Selector),
}

/// What a segment picks out of one container.
#[derive(Clone, Debug)]
pub(crate) enum Selector {
    /// One object member: `.key` or `['key']`.
    Key(Box<str>),
    /// Several object members, in the written order: `['a','b']`.
    Keys(Box<[Box<str>]>),
    /// One array element; negative counts from the end: `[0]`, `[-1]`.
    Index(i64),
    /// Several array elements, in the written order: `[0,2,-1]`.
    Indices(Box<[i64]>),
    /// A slice of an array: `[start:end:step]`.
    Slice(Slice),
    /// Every object value or array element: `.*`, `[*]`.
    Wildcard,
    /// Array elements and object values for which the expression holds: `[?(..)]`.
    Filter(Arc<Filter>),
}

/// `[start:end:step]`; a missing bound is `None`, `step` is at least 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slice {
    pub(crate) start: Option<i64>,
    pub(crate) end: Option<i64>,
    pub(crate) step: usize,
}

/// A filter expression. `&&` binds tighter than `||`.
#[derive(Clone, Debug)]
pub(crate) enum Filter {
    /// `a || b || ...` (at least two operands).
    Or(Box<[Filter]>),
    /// `a && b && ...` (at least two operands).
    And(Box<[Filter]>),
    /// A bare term: true when it denotes something (a path that selects at least one node, or any literal).
    Exists(Term),
    /// `lhs op rhs` with one of `== != < <= > >=`.
    Compare(Term, CmpOp, Term),
    /// `subject =~ pattern`.
    Regex(Term, Pattern),
}

/// Comparison operators of filter expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpOp {
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
}

/// The right-hand side of `=~`.
#[derive(Clone, Debug)]
pub(crate) enum Pattern {
    /// A literal pattern compiled once with the path; `None` when it does not compile (never matches).
    Literal(Option<Regex>),
    /// Any other term: a document node holding the pattern, compiled at evaluation time.
    /// Non-path literals (numbers, booleans, null) never match.
    Term(Term),
}

/// An operand of a filter expression.
#[derive(Clone, Debug)]
pub(crate) enum Term {
    /// `@` followed by a relative path (possibly empty).
    Current(Box<[Segment]>),
    /// `$` followed by a relative path (possibly empty).
    Root(Box<[Segment]>),
    /// A number literal that fits an i64.
    Int(i64),
    /// Any other number literal.
    Float(f64),
    /// A string literal written without escapes.
    Str(Box<str>),
    /// A string literal written with escapes, as RedisJSON 2.8.3 reads it (see
    /// `syntax::filter_unescape`); never a regex pattern that matches.
    EscapedStr(Box<str>),
    /// `true` / `false`.
    Bool(bool),
    /// `null`.
    Null,
}
