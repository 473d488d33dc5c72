//! The filter part of the JSONPath grammar (`[?...]`, see [`super::syntax`]): operands joined by
//! `&&` and `||`, comparisons, the regex match `=~`, and the terms they compare.

use super::ast::{CmpOp, Filter, Pattern, Term};
use super::error::Expected;
use super::syntax::{compile_regex, Abort, Parser};
use crate::limits::MAX_PATH_NESTING;

impl Parser<'_> {
    pub(super) fn filter(&mut self) -> Option<Filter> {
        if self.aborted.is_some() {
            return None;
        }
        if self.depth >= MAX_PATH_NESTING {
            self.aborted = Some((self.pos, Abort::TooDeep));
            return None;
        }
        self.depth += 1;
        let out = self.rule(Expected::filter, |p| {
            let first = p.inner_filter()?;
            p.skip();
            let mut rest = Vec::new();
            p.rep(&mut rest, |p| {
                p.seq(|p| {
                    let rel = p.relation()?;
                    p.skip();
                    Some((rel, p.inner_filter()?))
                })
            });
            Some(combine(first, rest))
        });
        self.depth -= 1;
        out
    }

    fn relation(&mut self) -> Option<Relation> {
        if self.rule(Expected::and, |p| p.eat(b"&&")).is_some() {
            return Some(Relation::And);
        }
        self.rule(Expected::or, |p| p.eat(b"||")).map(|()| Relation::Or)
    }

    fn inner_filter(&mut self) -> Option<Filter> {
        if let Some(f) = self.single_filter() {
            return Some(f);
        }
        self.seq(|p| {
            p.eat(b"(")?;
            p.skip();
            let f = p.filter()?;
            p.skip();
            p.eat(b")")?;
            Some(f)
        })
    }

    fn single_filter(&mut self) -> Option<Filter> {
        self.rule(Expected::single_filter, |p| {
            let comparison = p.seq(|p| {
                let lhs = p.term()?;
                p.skip();
                let op = p.op()?;
                p.skip();
                let rhs = p.term()?;
                Some(match op {
                    Op::Cmp(op) => Filter::Compare(lhs, op, rhs),
                    Op::Regex => Filter::Regex(lhs, pattern(rhs)),
                })
            });
            if comparison.is_some() {
                return comparison;
            }
            p.term().map(Filter::Exists)
        })
    }

    fn op(&mut self) -> Option<Op> {
        const OPS: [(Expected, &[u8], Op); 7] = [
            (Expected::ge, b">=", Op::Cmp(CmpOp::Ge)),
            (Expected::gt, b">", Op::Cmp(CmpOp::Gt)),
            (Expected::le, b"<=", Op::Cmp(CmpOp::Le)),
            (Expected::lt, b"<", Op::Cmp(CmpOp::Lt)),
            (Expected::eq, b"==", Op::Cmp(CmpOp::Eq)),
            (Expected::ne, b"!=", Op::Cmp(CmpOp::Ne)),
            (Expected::re, b"=~", Op::Regex),
        ];
        OPS.iter().find_map(|&(rule, token, op)| self.rule(rule, |p| p.eat(token)).map(|()| op))
    }

    fn term(&mut self) -> Option<Term> {
        if let Some(path) = self.rule(Expected::from_current, |p| {
            p.eat(b"@")?;
            p.skip();
            Some(p.root().unwrap_or_default())
        }) {
            return Some(Term::Current(path.into_boxed_slice()));
        }
        if let Some(path) = self.rule(Expected::from_root, |p| {
            p.eat(b"$")?;
            p.skip();
            Some(p.root().unwrap_or_default())
        }) {
            return Some(Term::Root(path.into_boxed_slice()));
        }
        if let Some(t) = self.decimal() {
            return Some(t);
        }
        if let Some((raw, quote)) = self.quoted() {
            return Some(match quote {
                None => Term::Str(raw),
                Some(q) => Term::EscapedStr(filter_unescape(&raw, q)),
            });
        }
        if self.rule(Expected::boolean_true, |p| p.eat(b"true")).is_some() {
            return Some(Term::Bool(true));
        }
        if self.rule(Expected::boolean_false, |p| p.eat(b"false")).is_some() {
            return Some(Term::Bool(false));
        }
        self.rule(Expected::null, |p| p.eat(b"null")).map(|()| Term::Null)
    }

    fn decimal(&mut self) -> Option<Term> {
        self.rule(Expected::decimal, |p| {
            let start = p.pos;
            p.scan_number()?;
            let frac = p.seq(|p| {
                p.eat(b".")?;
                let digits = p.pos;
                while p.peek().is_some_and(|b| b.is_ascii_digit()) {
                    p.pos += 1;
                }
                (p.pos > digits).then_some(())
            });
            let text = p.text(start, p.pos);
            // RedisJSON: an integer if the text parses as i64, else a float.
            Some(match (frac, text.parse::<i64>()) {
                (None, Ok(i)) => Term::Int(i),
                _ => Term::Float(text.parse::<f64>().unwrap_or(0.0)),
            })
        })
    }
}

/// How a filter operand list is joined.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Relation {
    And,
    Or,
}

/// A comparison or the regex match operator.
#[derive(Clone, Copy)]
enum Op {
    Cmp(CmpOp),
    Regex,
}

/// The right side of `=~`: literal strings are compiled once, here.
fn pattern(rhs: Term) -> Pattern {
    match rhs {
        Term::Str(s) => Pattern::Literal(compile_regex(&s)),
        // RedisJSON 2.8.3 matches a regex only against a literal written without escapes.
        Term::EscapedStr(_) => Pattern::Literal(None),
        other => Pattern::Term(other),
    }
}

/// Joins `first (rel operand)*` with `&&` binding tighter than `||`.
fn combine(first: Filter, rest: Vec<(Relation, Filter)>) -> Filter {
    if rest.is_empty() {
        return first;
    }
    let mut ors: Vec<Filter> = Vec::new();
    let mut ands: Vec<Filter> = vec![first];
    for (rel, f) in rest {
        if rel == Relation::Or {
            ors.push(and_of(std::mem::take(&mut ands)));
        }
        ands.push(f);
    }
    ors.push(and_of(ands));
    if ors.len() == 1 {
        ors.pop().unwrap_or(Filter::Exists(Term::Null))
    } else {
        Filter::Or(ors.into_boxed_slice())
    }
}

fn and_of(mut operands: Vec<Filter>) -> Filter {
    if operands.len() == 1 {
        operands.pop().unwrap_or(Filter::Exists(Term::Null))
    } else {
        Filter::And(operands.into_boxed_slice())
    }
}

/// A filter's string literal written with escapes, read as RedisJSON 2.8.3 reads it
/// (measured): `\\` becomes `\`, and then the escape of the *other* quote is resolved (its
/// two replacements are swapped), so `"x\"y"` stays `x\"y` and `'x\'y'` stays `x\'y`.
fn filter_unescape(raw: &str, quote: u8) -> Box<str> {
    let once = raw.replace("\\\\", "\\");
    let (escaped, plain) = if quote == b'"' { ("\\'", "'") } else { ("\\\"", "\"") };
    once.replace(escaped, plain).into_boxed_str()
}
