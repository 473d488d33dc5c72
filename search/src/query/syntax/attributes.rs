//! Query attributes: `x => { $weight: w; $slop: s; $inorder: b; $phonetic: p }` after an
//! atom, and the `=>{$name: value; …}` block that vector clauses share.

use super::ast::QueryAst;
use super::scanner::Parser;
use crate::error::{Error, Result};

/// RediSearch's `ParseBoolean`: `true`/`1` or `false`/`0`, in any case.
fn boolean(v: &str) -> Option<bool> {
    if v.eq_ignore_ascii_case("true") || v == "1" {
        Some(true)
    } else if v.eq_ignore_ascii_case("false") || v == "0" {
        Some(false)
    } else {
        None
    }
}

impl Parser<'_> {
    /// `atom`, with its attributes when an `=>{…}` block follows.
    pub(super) fn attrs(&mut self, atom: QueryAst) -> Result<QueryAst> {
        let save = self.i;
        self.skip_ws();
        if self.dialect < 2 && self.at_arrow_bracket() {
            // Dialect 1 has no vector clauses: `=>[` is a syntax error at the arrow.
            return Err(Error::syntax(self.offset(), ">["));
        }
        self.i = save;
        let (mut weight, mut slop, mut inorder, mut phonetic) = (None, None, None, None);
        let found = self.attr_block(|name, value| {
            let bad = || Error::new(format!("Invalid value ({value}) for `{name}`"));
            match name.to_ascii_lowercase().as_str() {
                "weight" => weight = Some(value.parse::<f64>().map_err(|_| bad())?),
                "slop" => slop = Some(value.parse::<u32>().map_err(|_| bad())?),
                "inorder" => inorder = Some(boolean(&value).ok_or_else(bad)?),
                "phonetic" => phonetic = Some(boolean(&value).ok_or_else(bad)?),
                _ => return Err(Error::new(format!("Invalid attribute {name}"))),
            }
            Ok(())
        })?;
        if !found {
            return Ok(atom);
        }
        Ok(QueryAst::Attrs { inner: Box::new(atom), weight, slop, inorder, phonetic })
    }

    /// An optional `=>{$name: value; …}` block (not a vector clause's `=>[`): each name and
    /// value as written (escapes kept; a `$param` replaced by its value) given to `set` in
    /// order. `false`, with nothing consumed, when there is none.
    pub(super) fn attr_block(&mut self, mut set: impl FnMut(String, String) -> Result<()>) -> Result<bool> {
        let save = self.i;
        self.skip_ws();
        if !(self.peek() == Some('=') && self.peek_at(1) == Some('>')) || self.at_vector_arrow() {
            self.i = save;
            return Ok(false);
        }
        self.i += 2;
        self.skip_ws();
        if !self.eat('{') {
            return Err(self.err());
        }
        loop {
            self.skip_ws();
            if self.eat('}') {
                return Ok(true);
            }
            if !self.eat('$') {
                return Err(self.err());
            }
            let name = self.raw_word();
            self.skip_ws();
            if !self.eat(':') {
                return Err(self.err());
            }
            self.skip_ws();
            let value = if self.eat('$') { self.param()? } else { self.raw_word() };
            set(name, value)?;
            self.skip_ws();
            self.eat(';');
        }
    }
}
