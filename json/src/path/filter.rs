//! Filter expressions (`[?(…)]`): operands, comparisons, regex matching.
//!
//! Semantics of RedisJSON 2.8.3 (measured against rejson.so):
//! - `@`/`$` operands evaluate a relative path; only a path that selects exactly one node is
//!   an operand. None or several compare with nothing (`==`, `<`… are false, `!=` is true).
//! - A bare term is an existence test: true when the path selects exactly one node (even
//!   `null` or `false`), and always true for literals.
//! - Numbers compare numerically across integer/float; strings by bytes; `false < true`;
//!   `null == null`. Other type pairs are not comparable: `==` false, `!=` true, order false.
//!   Arrays and objects only support `==`/`!=` between two document nodes (deep comparison,
//!   numbers compared numerically).
//! - `=~` matches a string node against a regex (regex crate syntax, unanchored). The pattern
//!   is a string literal (compiled once with the path) or a string node (compiled on use and
//!   cached per evaluation); a non-string side or an invalid pattern is simply false.
//! - String literals written with escapes are read as RedisJSON 2.8.3 reads them: `\\` is
//!   resolved, an escaped quote of the literal's own kind is not (`'x\'y'` is `x\'y`), and
//!   such a literal never matches as a regex pattern.

use std::cmp::Ordering;

use regex::Regex;

use super::ast::{CmpOp, Filter, Pattern, Segment, Selector, Term};
use super::eval;
use super::syntax::compile_regex;
use crate::limits::REGEX_CACHE_ENTRIES;
use crate::{Kind, Node, Num, Value};

/// Evaluation context shared by a whole selection: the document root (`$`) and the cache of
/// regexes compiled from document strings.
pub(crate) struct Cx<'v> {
    pub(crate) root: &'v Value,
    regexes: Vec<(&'v str, Option<Regex>)>,
}

impl<'v> Cx<'v> {
    pub(crate) fn new(root: &'v Value) -> Self {
        Cx { root, regexes: Vec::new() }
    }

    /// Whether `pattern` (a document string) matches `subject`, compiling it at most once.
    fn regex_match(&mut self, pattern: &'v str, subject: &str) -> bool {
        if let Some((_, re)) = self.regexes.iter().find(|(p, _)| *p == pattern) {
            return re.as_ref().is_some_and(|re| re.is_match(subject));
        }
        let re = compile_regex(pattern);
        let found = re.as_ref().is_some_and(|re| re.is_match(subject));
        if self.regexes.len() < REGEX_CACHE_ENTRIES {
            self.regexes.push((pattern, re));
        }
        found
    }
}

/// Whether `filter` holds for the candidate node `current`.
pub(crate) fn test<'v>(filter: &Filter, current: &Node<'v>, cx: &mut Cx<'v>) -> bool {
    match filter {
        Filter::Or(list) => list.iter().any(|f| test(f, current, cx)),
        Filter::And(list) => list.iter().all(|f| test(f, current, cx)),
        Filter::Exists(term) => match operand(term, current, cx) {
            Operand::Nodes(nodes) => !nodes.is_empty(),
            Operand::Lit(_) => true,
        },
        Filter::Compare(lhs, op, rhs) => {
            let a = operand(lhs, current, cx);
            let b = operand(rhs, current, cx);
            match op {
                CmpOp::Eq => equal(&a, &b),
                CmpOp::Ne => !equal(&a, &b),
                _ => ordered(&a, *op, &b),
            }
        }
        Filter::Regex(subject, pattern) => {
            let Operand::Nodes(subjects) = operand(subject, current, cx) else {
                return false;
            };
            match pattern {
                Pattern::Literal(re) => re
                    .as_ref()
                    .is_some_and(|re| subjects.iter().any(|s| s.as_str().is_some_and(|s| re.is_match(s)))),
                Pattern::Term(term) => {
                    let Operand::Nodes(patterns) = operand(term, current, cx) else {
                        return false;
                    };
                    subjects.iter().any(|s| {
                        let Some(s) = s.as_str() else { return false };
                        // Strings are always borrowed from the document (only numbers are packed).
                        patterns.iter().any(|p| {
                            p.as_ref_value().and_then(Value::as_str).is_some_and(|p| cx.regex_match(p, s))
                        })
                    })
                }
            }
        }
    }
}

/// An evaluated operand.
enum Operand<'a, 'v> {
    /// What a `@`/`$` path selected.
    Nodes(Nodes<'v>),
    /// A literal.
    Lit(Scalar<'a>),
}

/// A node list without allocating for the common zero/one cases.
enum Nodes<'v> {
    One(Node<'v>),
    Many(Vec<Node<'v>>),
}

impl<'v> Nodes<'v> {
    fn is_empty(&self) -> bool {
        matches!(self, Nodes::Many(v) if v.is_empty())
    }

    fn iter(&self) -> std::slice::Iter<'_, Node<'v>> {
        match self {
            Nodes::One(v) => std::slice::from_ref(v).iter(),
            Nodes::Many(list) => list.iter(),
        }
    }
}

/// A comparable scalar view of a literal or a node.
#[derive(Clone, Copy)]
enum Scalar<'a> {
    Num(Num),
    Str(&'a str),
    Bool(bool),
    Null,
    /// Arrays and objects: not orderable.
    Container,
}

fn operand<'a, 'v>(term: &'a Term, current: &Node<'v>, cx: &mut Cx<'v>) -> Operand<'a, 'v> {
    let lit = |s| Operand::Lit(s);
    match term {
        Term::Current(path) => Operand::Nodes(nodes(path, current.clone(), cx)),
        Term::Root(path) => Operand::Nodes(nodes(path, Node::Ref(cx.root), cx)),
        Term::Int(i) => lit(Scalar::Num(Num::I64(*i))),
        Term::Float(f) => lit(Scalar::Num(Num::F64(*f))),
        Term::Str(s) | Term::EscapedStr(s) => lit(Scalar::Str(s)),
        Term::Bool(b) => lit(Scalar::Bool(*b)),
        Term::Null => lit(Scalar::Null),
    }
}

fn nodes<'v>(path: &[Segment], start: Node<'v>, cx: &mut Cx<'v>) -> Nodes<'v> {
    if path.is_empty() {
        // `@` or `$` itself.
        return Nodes::One(start);
    }
    let is_static = path.iter().all(|s| matches!(s, Segment::Child(Selector::Key(_) | Selector::Index(_))));
    if is_static {
        return match eval::walk_static(path, start) {
            Some(v) => Nodes::One(v),
            None => Nodes::Many(Vec::new()),
        };
    }
    let mut found = eval::select(path, start, cx);
    match (found.pop(), found.is_empty()) {
        (Some(v), true) => Nodes::One(v),
        // Several nodes are no operand in RedisJSON 2.8.3: like none (measured).
        _ => Nodes::Many(Vec::new()),
    }
}

fn scalar(v: &Value) -> Scalar<'_> {
    match v.kind() {
        Kind::Null => Scalar::Null,
        Kind::Bool => Scalar::Bool(v.as_bool().unwrap_or(false)),
        Kind::Integer | Kind::Number => v.as_num().map_or(Scalar::Null, Scalar::Num),
        Kind::String => Scalar::Str(v.as_str().unwrap_or_default()),
        Kind::Array | Kind::Object => Scalar::Container,
    }
}

/// `==` with node-list "any" semantics.
fn equal(a: &Operand<'_, '_>, b: &Operand<'_, '_>) -> bool {
    match (a, b) {
        (Operand::Nodes(x), Operand::Nodes(y)) => x.iter().any(|v| y.iter().any(|w| deep_equal(v, w))),
        (Operand::Nodes(x), Operand::Lit(l)) | (Operand::Lit(l), Operand::Nodes(x)) => {
            x.iter().any(|v| scalar_cmp(scalar(v), *l) == Some(Ordering::Equal))
        }
        (Operand::Lit(l), Operand::Lit(m)) => scalar_cmp(*l, *m) == Some(Ordering::Equal),
    }
}

/// `<`, `<=`, `>`, `>=` with node-list "any" semantics.
fn ordered(a: &Operand<'_, '_>, op: CmpOp, b: &Operand<'_, '_>) -> bool {
    let holds = |x: Scalar<'_>, y: Scalar<'_>| {
        scalar_cmp(x, y).is_some_and(|o| match op {
            CmpOp::Lt => o.is_lt(),
            CmpOp::Le => o.is_le(),
            CmpOp::Gt => o.is_gt(),
            CmpOp::Ge => o.is_ge(),
            CmpOp::Eq => o.is_eq(),
            CmpOp::Ne => o.is_ne(),
        })
    };
    match (a, b) {
        (Operand::Nodes(x), Operand::Nodes(y)) => {
            x.iter().any(|v| y.iter().any(|w| holds(scalar(v), scalar(w))))
        }
        (Operand::Nodes(x), Operand::Lit(l)) => x.iter().any(|v| holds(scalar(v), *l)),
        (Operand::Lit(l), Operand::Nodes(y)) => y.iter().any(|w| holds(*l, scalar(w))),
        (Operand::Lit(l), Operand::Lit(m)) => holds(*l, *m),
    }
}

/// Orders two scalars of the same type; `None` when they are not comparable.
fn scalar_cmp(a: Scalar<'_>, b: Scalar<'_>) -> Option<Ordering> {
    match (a, b) {
        (Scalar::Num(x), Scalar::Num(y)) => num_cmp(x, y),
        (Scalar::Str(x), Scalar::Str(y)) => Some(x.cmp(y)),
        (Scalar::Bool(x), Scalar::Bool(y)) => Some(x.cmp(&y)),
        (Scalar::Null, Scalar::Null) => Some(Ordering::Equal),
        _ => None,
    }
}

/// Numeric order: exact between integers, through `f64` when a float is involved.
fn num_cmp(a: Num, b: Num) -> Option<Ordering> {
    let int = |n: Num| match n {
        Num::I64(i) => Some(i128::from(i)),
        Num::U64(u) => Some(i128::from(u)),
        Num::F64(_) => None,
    };
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64().partial_cmp(&b.as_f64()),
    }
}

/// Deep equality of two nodes; numbers compare numerically (`1 == 1.0`), object key order is
/// ignored. Iterative, so document depth cannot exhaust the stack.
fn deep_equal(a: &Node<'_>, b: &Node<'_>) -> bool {
    let mut pending = vec![(a.clone(), b.clone())];
    while let Some((x, y)) = pending.pop() {
        match (
            x.array(),
            y.array(),
            x.as_ref_value().and_then(Value::as_object),
            y.as_ref_value().and_then(Value::as_object),
        ) {
            (Some(xa), Some(ya), _, _) => {
                if xa.len() != ya.len() {
                    return false;
                }
                pending.extend(xa.iter().zip(ya.iter()));
            }
            (_, _, Some(xo), Some(yo)) => {
                if xo.len() != yo.len() {
                    return false;
                }
                for (k, v) in xo.iter() {
                    match yo.get(k) {
                        Some(w) => pending.push((Node::Ref(v), Node::Ref(w))),
                        None => return false,
                    }
                }
            }
            _ => {
                if scalar_cmp(scalar(&x), scalar(&y)) != Some(Ordering::Equal) {
                    return false;
                }
            }
        }
    }
    true
}
