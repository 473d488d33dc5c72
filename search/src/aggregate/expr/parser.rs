//! Recursive-descent parser of the expression language.
//!
//! Grammar (precedence from RediSearch's `parser.y`; every binary level is
//! left-associative, and `^` shares its level with `* / %`):
//!
//! ```text
//! expr     := compare (('&&' | '||') compare)*
//! compare  := additive (('==' | '!=' | '<' | '<=' | '>' | '>=') additive)*
//! additive := term (('+' | '-') term)*
//! term     := unary (('*' | '/' | '%' | '^') unary)*
//! unary    := '-' NUMBER | primary
//! primary  := NUMBER | '+inf' | '-inf' | STRING | '@' NAME | 'NULL'
//!           | SYMBOL '(' [expr (',' expr)*] ')'
//!           | '(' expr ')'
//!           | '!' compare            (so `!a && b` is `(!a) && b`
//!                                     and `!a == b` is `!(a == b)`)
//! ```
//!
//! As in RediSearch's lexer, `-5`, `+inf` and `-inf` are number tokens, so an operand
//! followed by one (`1-5`, `3+inf`, `@a-inf`) is a syntax error at that token; a bare `inf`
//! is `Unknown symbol 'inf'`.
//!
//! Contract: [`parse`] returns the tree or the first error, worded as
//! RediSearch words it (`Syntax error at offset N near 'x'`,
//! `Unknown function name 'x'`, `Unknown symbol 'x'`) with its byte offset; an unknown
//! name that ends the text below the root is a hole in the tree instead
//! ([`ExprAst::Missing`]), which binding reports as RediSearch does
//! (`Missing (or badly formatted) value for expr->op.right`).

use super::ast::{ArithOp, ExprAst, PredOp};
use super::functions::Function;
use super::lexer::{syntax_at, tokenize, Token, TokenKind};
use crate::aggregate::error::AggError;
use crate::aggregate::limits::{MAX_EXPR_DEPTH, MAX_EXPR_LEN};
use crate::aggregate::value::Value;

/// Parses an APPLY / FILTER / FT.CREATE FILTER expression.
pub fn parse(src: &str) -> Result<ExprAst, AggError> {
    if src.len() > MAX_EXPR_LEN {
        return Err(AggError::new(format!("Expression longer than {MAX_EXPR_LEN} bytes")));
    }
    let tokens = tokenize(src)?;
    let mut p = Parser { src, tokens, at: 0, depth: 0 };
    let (e, _) = p.expr()?;
    let t = p.peek();
    if t.kind != TokenKind::Eof {
        return Err(syntax_at(src, t));
    }
    match e {
        // The hole is the whole tree: RediSearch has no tree, and reports the name.
        ExprAst::Missing(message) => Err(AggError::new(message)),
        e => Ok(e),
    }
}

/// A subtree and its height.
type Parsed = (ExprAst, usize);

struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> &Token {
        // The token list always ends with Eof and `at` never passes it.
        &self.tokens[self.at.min(self.tokens.len() - 1)]
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if t.kind != TokenKind::Eof {
            self.at += 1;
        }
        t
    }

    fn error_here(&self) -> AggError {
        let t = self.peek();
        syntax_at(self.src, t)
    }

    fn enter(&mut self) -> Result<(), AggError> {
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            let pos = self.peek().pos;
            return Err(AggError::at(pos, format!("Expression nested deeper than {MAX_EXPR_DEPTH}")));
        }
        Ok(())
    }

    /// A node of height `h` (leaves are 1); too tall a tree is an error so
    /// evaluating and dropping it never recurses deeply.
    fn tall(&self, h: usize) -> Result<usize, AggError> {
        if h > MAX_EXPR_DEPTH {
            let pos = self.peek().pos;
            return Err(AggError::at(pos, format!("Expression nested deeper than {MAX_EXPR_DEPTH}")));
        }
        Ok(h)
    }

    fn expr(&mut self) -> Result<Parsed, AggError> {
        self.enter()?;
        let (mut left, mut h) = self.compare()?;
        loop {
            let op = match self.peek().kind {
                TokenKind::And => PredOp::And,
                TokenKind::Or => PredOp::Or,
                _ => break,
            };
            self.bump();
            let (right, rh) = self.compare()?;
            h = self.tall(h.max(rh) + 1)?;
            left = ExprAst::Pred(op, Box::new(left), Box::new(right));
        }
        self.depth -= 1;
        Ok((left, h))
    }

    fn compare(&mut self) -> Result<Parsed, AggError> {
        self.enter()?;
        let (mut left, mut h) = self.additive()?;
        loop {
            let op = match self.peek().kind {
                TokenKind::Eq => PredOp::Eq,
                TokenKind::Ne => PredOp::Ne,
                TokenKind::Lt => PredOp::Lt,
                TokenKind::Le => PredOp::Le,
                TokenKind::Gt => PredOp::Gt,
                TokenKind::Ge => PredOp::Ge,
                _ => break,
            };
            self.bump();
            let (right, rh) = self.additive()?;
            h = self.tall(h.max(rh) + 1)?;
            left = ExprAst::Pred(op, Box::new(left), Box::new(right));
        }
        self.depth -= 1;
        Ok((left, h))
    }

    fn additive(&mut self) -> Result<Parsed, AggError> {
        let (mut left, mut h) = self.term()?;
        loop {
            let op = match self.peek().kind {
                TokenKind::Plus => ArithOp::Add,
                TokenKind::Minus => ArithOp::Sub,
                _ => break,
            };
            self.bump();
            let (right, rh) = self.term()?;
            h = self.tall(h.max(rh) + 1)?;
            left = ExprAst::Arith(op, Box::new(left), Box::new(right));
        }
        Ok((left, h))
    }

    fn term(&mut self) -> Result<Parsed, AggError> {
        let (mut left, mut h) = self.unary()?;
        loop {
            let op = match self.peek().kind {
                TokenKind::Star => ArithOp::Mul,
                TokenKind::Slash => ArithOp::Div,
                TokenKind::Percent => ArithOp::Mod,
                TokenKind::Caret => ArithOp::Pow,
                _ => break,
            };
            self.bump();
            let (right, rh) = self.unary()?;
            h = self.tall(h.max(rh) + 1)?;
            left = ExprAst::Arith(op, Box::new(left), Box::new(right));
        }
        Ok((left, h))
    }

    fn unary(&mut self) -> Result<Parsed, AggError> {
        if self.peek().kind == TokenKind::Minus {
            // RediSearch's `number ::= MINUS NUMBER` is its only unary minus: a `-` token
            // negates the number after it (`- 5`, `--5` as `-` and `-5`, `-+inf`); before
            // anything else that token is the syntax error (`-x`, `-@n`, `-(1)`, `--@n`).
            self.bump();
            let t = self.peek().clone();
            return match t.kind {
                TokenKind::Number(n) | TokenKind::SignedInf(n) => {
                    self.bump();
                    Ok((ExprAst::Literal(Value::Number(-n)), 1))
                }
                _ => Err(syntax_at(self.src, &t)),
            };
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Parsed, AggError> {
        let t = self.bump();
        match t.kind {
            TokenKind::Number(n) | TokenKind::SignedInf(n) => Ok((ExprAst::Literal(Value::Number(n)), 1)),
            TokenKind::Str(s) => Ok((ExprAst::Literal(Value::bytes(&s)), 1)),
            TokenKind::Property(name) => Ok((ExprAst::Property { name, slot: None }, 1)),
            TokenKind::LParen => {
                let e = self.expr()?;
                if self.peek().kind != TokenKind::RParen {
                    return Err(self.error_here());
                }
                self.bump();
                Ok(e)
            }
            TokenKind::Not => {
                self.enter()?;
                let (inner, h) = self.compare()?;
                self.depth -= 1;
                Ok((ExprAst::Not(Box::new(inner)), self.tall(h + 1)?))
            }
            TokenKind::Symbol(name) => {
                if self.peek().kind == TokenKind::LParen {
                    // The name is looked up once the call is read, as RediSearch's grammar
                    // reduces it after its `)`: errors in the arguments come first.
                    self.bump();
                    let (args, h) = self.arguments()?;
                    match Function::lookup(&name) {
                        Some(func) => Ok((ExprAst::Call(func, args), self.tall(h + 1)?)),
                        None => self.unknown(t.pos, format!("Unknown function name '{name}'")),
                    }
                } else if name == "NULL" {
                    Ok((ExprAst::Literal(Value::Null), 1))
                } else {
                    self.unknown(t.pos, format!("Unknown symbol '{name}'"))
                }
            }
            _ => Err(syntax_at(self.src, &t)),
        }
    }

    /// An unknown symbol or function name, which RediSearch's parser finds when it reads
    /// the next token: an error then, but at the end of the text (its last `Parse` call)
    /// the tree is still built with a hole where the name was ([`ExprAst::Missing`]).
    fn unknown(&self, pos: usize, message: String) -> Result<Parsed, AggError> {
        if self.peek().kind == TokenKind::Eof {
            Ok((ExprAst::Missing(message), 1))
        } else {
            Err(AggError::at(pos, message))
        }
    }

    /// After `(`: arguments up to and including `)`.
    fn arguments(&mut self) -> Result<(Vec<ExprAst>, usize), AggError> {
        let mut args = Vec::new();
        let mut h = 0;
        if self.peek().kind == TokenKind::RParen {
            self.bump();
            return Ok((args, h));
        }
        loop {
            let (a, ah) = self.expr()?;
            args.push(a);
            h = h.max(ah);
            match self.peek().kind {
                TokenKind::Comma => {
                    self.bump();
                }
                TokenKind::RParen => {
                    self.bump();
                    return Ok((args, h));
                }
                _ => return Err(self.error_here()),
            }
        }
    }
}
