//! FORMAT EXPAND: a JSON value (compact JSON text, as the document source serializes it)
//! turned into a native RESP3 reply the way RediSearch sends expanded values: objects as maps
//! with bulk-string keys, arrays as arrays, strings as bulk strings, numbers as integers when
//! their double value is integral and doubles otherwise, booleans as 1/0, null as nil.
//! Text that does not parse (it always does when it comes from the JSON type) or nests deeper
//! than [`MAX_EXPAND_DEPTH`] stays a bulk string.

use crate::limits::MAX_EXPAND_DEPTH;
use crate::reply::Reply;

/// Expands one JSON text.
pub(crate) fn expand_json(text: &str) -> Reply {
    let mut p = Parser { b: text.as_bytes(), i: 0 };
    match p.value(0) {
        Some(r) if p.at_end() => r,
        _ => Reply::text(text),
    }
}

/// The JSON text of the first element of the JSON array text `array` (compact or not), if
/// it has one (what DIALECT 3 reads of a path whose first match is an array).
pub(crate) fn first_element_text(array: &str) -> Option<String> {
    let mut p = Parser { b: array.as_bytes(), i: 0 };
    if !p.eat(b'[') {
        return None;
    }
    p.ws();
    if p.b.get(p.i) == Some(&b']') {
        return None;
    }
    let start = p.i;
    p.skip_value()?;
    let end = p.i;
    (p.eat(b',') || p.eat(b']')).then(|| String::from_utf8_lossy(&p.b[start..end]).into_owned())
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn at_end(&mut self) -> bool {
        self.ws();
        self.i >= self.b.len()
    }

    fn ws(&mut self) {
        while self.b.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn lit(&mut self, word: &[u8]) -> bool {
        if self.b.get(self.i..self.i + word.len()) == Some(word) {
            self.i += word.len();
            true
        } else {
            false
        }
    }

    /// Steps over one value without building it, nesting followed by a count (no recursion,
    /// no depth limit), strings read as [`Parser::string`] reads them.
    fn skip_value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            self.ws();
            match *self.b.get(self.i)? {
                b'"' => {
                    self.string()?;
                }
                b'[' | b'{' => {
                    depth += 1;
                    self.i += 1;
                }
                b']' | b'}' => {
                    depth = depth.checked_sub(1)?;
                    self.i += 1;
                }
                // A scalar on its own.
                _ if depth == 0 => {
                    self.value(0)?;
                }
                // Separators and scalars inside a container.
                _ => self.i += 1,
            }
            if depth == 0 {
                return Some(());
            }
        }
    }

    fn value(&mut self, depth: usize) -> Option<Reply> {
        if depth > MAX_EXPAND_DEPTH {
            return None;
        }
        self.ws();
        match *self.b.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut pairs = Vec::new();
                if self.eat(b'}') {
                    return Some(Reply::Map(pairs));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    if !self.eat(b':') {
                        return None;
                    }
                    let v = self.value(depth + 1)?;
                    pairs.push((Reply::Bulk(k.into_bytes()), v));
                    if self.eat(b'}') {
                        return Some(Reply::Map(pairs));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Some(Reply::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b']') {
                        return Some(Reply::Array(items));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'"' => self.string().map(|s| Reply::Bulk(s.into_bytes())),
            b't' => self.lit(b"true").then_some(Reply::Int(1)),
            b'f' => self.lit(b"false").then_some(Reply::Int(0)),
            b'n' => self.lit(b"null").then_some(Reply::Nil),
            _ => self.number(),
        }
    }

    fn number(&mut self) -> Option<Reply> {
        let start = self.i;
        while self.b.get(self.i).is_some_and(|c| c.is_ascii_digit() || b"+-.eE".contains(c)) {
            self.i += 1;
        }
        let text = std::str::from_utf8(self.b.get(start..self.i)?).ok()?;
        let v: f64 = text.parse().ok()?;
        // RediSearch holds every number as a double and sends it as an integer when integral.
        if v.fract() == 0.0 && v.abs() < 9.2e18 {
            Some(Reply::Int(v as i64))
        } else {
            Some(Reply::Double(v))
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let s = std::str::from_utf8(self.b.get(self.i..self.i + 4)?).ok()?;
        self.i += 4;
        u32::from_str_radix(s, 16).ok()
    }

    fn string(&mut self) -> Option<String> {
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let c = *self.b.get(self.i)?;
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let e = *self.b.get(self.i)?;
                    self.i += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xd800..0xdc00).contains(&hi) && self.lit(b"\\u") {
                                let lo = self.hex4()?;
                                0x10000 + ((hi - 0xd800) << 10) + lo.checked_sub(0xdc00)?
                            } else {
                                hi
                            };
                            char::from_u32(code)?
                        }
                        _ => return None,
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                _ => out.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Reply {
        Reply::text(s)
    }

    #[test]
    fn the_first_element_of_an_array_text() {
        use super::first_element_text;
        assert_eq!(first_element_text("[1,2]").as_deref(), Some("1"));
        assert_eq!(first_element_text(" [ \"a,]\\\"b\" , 2]").as_deref(), Some("\"a,]\\\"b\""));
        assert_eq!(first_element_text("[[1,[2]],3]").as_deref(), Some("[1,[2]]"));
        assert_eq!(first_element_text("[{\"k\":[1,2]}]").as_deref(), Some("{\"k\":[1,2]}"));
        assert_eq!(first_element_text("[[]]").as_deref(), Some("[]"));
        assert_eq!(first_element_text("[true, 2]").as_deref(), Some("true"));
        // None when there is no first element, or the text is not an array.
        assert_eq!(first_element_text("[]"), None);
        assert_eq!(first_element_text("[ ]"), None);
        assert_eq!(first_element_text("{\"a\":1}"), None);
        assert_eq!(first_element_text("[1"), None);
    }

    #[test]
    fn expands_like_redisearch() {
        assert_eq!(
            expand_json(r#"{"a":1,"b":[2.5,{"c":"foo\n\u00e9\ud83d\ude00"}],"d":null,"e":true,"f":3.0}"#),
            Reply::Map(vec![
                (b("a"), Reply::Int(1)),
                (b("b"), Reply::Array(vec![Reply::Double(2.5), Reply::Map(vec![(b("c"), b("foo\né😀"))])])),
                (b("d"), Reply::Nil),
                (b("e"), Reply::Int(1)),
                (b("f"), Reply::Int(3)),
            ])
        );
        assert_eq!(expand_json("[]"), Reply::Array(vec![]));
        assert_eq!(expand_json("{}"), Reply::Map(vec![]));
        assert_eq!(expand_json("[1,"), b("[1,"), "bad text stays text");
        let deep = "[".repeat(MAX_EXPAND_DEPTH + 5) + &"]".repeat(MAX_EXPAND_DEPTH + 5);
        assert_eq!(expand_json(&deep), b(&deep));
    }
}
