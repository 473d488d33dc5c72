//! Well-known text, read and written as RediSearch does it (with Boost.Geometry's `read_wkt`
//! and `wkt`): only `POINT` and `POLYGON`, chosen by the text's first three letters
//! (case-sensitive), then Boost's tokenizer (spaces dropped; `,`, `(` and `)` tokens of their
//! own), its grammar (commas between points and rings optional, a missing coordinate 0) and
//! its error texts, word for word.

use geo::{Coord, Geometry, LineString, Point, Polygon};

/// Boost's message for a token that is not a number (`boost::bad_lexical_cast::what()`).
const BAD_CAST: &str = "bad lexical cast: source type value could not be interpreted as target";

/// Reads `wkt` into a point or a polygon, with Boost's error messages. Polygons come as
/// written (rings neither closed nor oriented: see [`super::validate::correct`]).
pub fn read(wkt: &str) -> Result<Geometry<f64>, String> {
    if wkt.starts_with("POI") {
        Reader::new(wkt, "POINT").point().map(Geometry::Point)
    } else if wkt.starts_with("POL") {
        Reader::new(wkt, "POLYGON").polygon().map(Geometry::Polygon)
    } else {
        Err("unknown geometry type".into())
    }
}

/// Boost's tokens: runs of characters other than ` `, `,`, `(` and `)`, and each of `,()`.
fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        if matches!(c, ' ' | ',' | '(' | ')') {
            if let Some(b) = start.take() {
                out.push(&s[b..i]);
            }
            if c != ' ' {
                out.push(&s[i..i + 1]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(b) = start {
        out.push(&s[b..]);
    }
    out
}

struct Reader<'a> {
    wkt: &'a str,
    name: &'static str,
    toks: Vec<&'a str>,
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(wkt: &'a str, name: &'static str) -> Reader<'a> {
        Reader { wkt, name, toks: tokens(wkt), at: 0 }
    }

    /// The WKT as Boost quotes it: its first 100 bytes.
    fn quoted(&self) -> &str {
        let mut end = self.wkt.len().min(100);
        while !self.wkt.is_char_boundary(end) {
            end -= 1;
        }
        &self.wkt[..end]
    }

    /// `read_wkt_exception(msg, it, end, wkt)`: `msg at 'token' in 'wkt'`.
    fn err_at(&self, msg: &str) -> String {
        match self.peek() {
            Some(t) => format!("{msg} at '{t}' in '{}'", self.quoted()),
            None => format!("{msg} in '{}'", self.quoted()),
        }
    }

    /// `read_wkt_exception(msg, wkt)`: `msg' in (wkt)`.
    fn err_plain(&self, msg: &str) -> String {
        format!("{msg}' in ({})", self.quoted())
    }

    fn peek(&self) -> Option<&'a str> {
        self.toks.get(self.at).copied()
    }

    /// The geometry name, then `Z`/`M`/`ZM`/`EMPTY`; `Ok(false)` for an empty geometry.
    fn start(&mut self) -> Result<bool, String> {
        match self.peek() {
            Some(t) if t.eq_ignore_ascii_case(self.name) => self.at += 1,
            _ => return Err(self.err_plain(&format!("Should start with '{}'", self.name))),
        }
        let (mut z, mut empty) = (false, false);
        match self.peek() {
            Some(t) if t.eq_ignore_ascii_case("ZM") || t.eq_ignore_ascii_case("Z") => z = true,
            Some(t) if t.eq_ignore_ascii_case("EMPTY") => empty = true,
            Some(t) if t.eq_ignore_ascii_case("M") => {}
            _ => return Ok(true),
        }
        self.at += 1;
        if z {
            return Err(self.err_plain("Z only allowed for 3 or more dimensions"));
        }
        if empty {
            self.end()?;
            return Ok(false);
        }
        Ok(true)
    }

    fn end(&self) -> Result<(), String> {
        match self.peek() {
            Some(_) => Err(self.err_at("Too many tokens")),
            None => Ok(()),
        }
    }

    fn open(&mut self) -> Result<(), String> {
        if self.peek() != Some("(") {
            return Err(self.err_at("Expected '('"));
        }
        self.at += 1;
        Ok(())
    }

    fn close(&mut self) -> Result<(), String> {
        if self.peek() != Some(")") {
            return Err(self.err_at("Expected ')'"));
        }
        self.at += 1;
        Ok(())
    }

    /// Two coordinates, each a number or, at `,`, `)` or the end, 0 (Boost's
    /// `parsing_assigner`).
    fn coord(&mut self) -> Result<Coord<f64>, String> {
        let mut xy = [0.0; 2];
        for v in &mut xy {
            match self.peek() {
                None | Some(",") | Some(")") => {}
                Some(t) => {
                    *v = number(t).ok_or_else(|| self.err_at(BAD_CAST))?;
                    self.at += 1;
                }
            }
        }
        Ok(Coord { x: xy[0], y: xy[1] })
    }

    fn point(mut self) -> Result<Point<f64>, String> {
        if !self.start()? {
            return Err("invalid geometry: Geometry is empty".into());
        }
        self.open()?;
        let c = self.coord()?;
        self.close()?;
        self.end()?;
        Ok(Point(c))
    }

    /// `( item [,] item … )`: Boost's lists of points and of rings, commas optional.
    fn list<T>(&mut self, item: fn(&mut Self) -> Result<T, String>) -> Result<Vec<T>, String> {
        self.open()?;
        let mut out = Vec::new();
        while self.peek().is_some_and(|t| t != ")") {
            out.push(item(self)?);
            if self.peek() == Some(",") {
                self.at += 1;
            }
        }
        self.close()?;
        Ok(out)
    }

    fn ring(&mut self) -> Result<LineString<f64>, String> {
        self.list(Self::coord).map(LineString)
    }

    fn polygon(mut self) -> Result<Polygon<f64>, String> {
        if !self.start()? {
            return Ok(Polygon::new(LineString(Vec::new()), Vec::new()));
        }
        let rings = self.list(Self::ring)?;
        self.end()?;
        let mut rings = rings.into_iter();
        let outer = rings.next().unwrap_or_else(|| LineString(Vec::new()));
        Ok(polygon_raw(outer, rings.collect()))
    }
}

/// A polygon of these rings, closed (the first part of Boost's `correct`).
fn polygon_raw(outer: LineString<f64>, inners: Vec<LineString<f64>>) -> Polygon<f64> {
    Polygon::new(outer, inners)
}

/// A number as `boost::lexical_cast<double>` reads one: decimal with an optional sign and
/// exponent, `inf`/`infinity`/`nan` in any case; no hexadecimal, no overflow to infinity.
fn number(t: &str) -> Option<f64> {
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let special = ["inf", "infinity", "nan"].iter().any(|s| body.eq_ignore_ascii_case(s));
    if !special && !body.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    let v: f64 = t.parse().ok()?;
    (special || v.is_finite()).then_some(v)
}

/// A number as C++'s `ostream << double` prints it (`%g`: 6 significant digits).
pub fn fmt_num(v: f64) -> String {
    crate::aggregate::value::format_g(v, 6)
}

fn coords(out: &mut String, ring: &LineString<f64>) {
    out.push('(');
    for (i, c) in ring.0.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&fmt_num(c.x));
        out.push(' ');
        out.push_str(&fmt_num(c.y));
    }
    out.push(')');
}

/// Boost's `wkt()` of a point or polygon: `POINT(1 2)`, `POLYGON((0 0,0 1,1 1,0 0),(…))`.
pub fn write(g: &Geometry<f64>) -> String {
    let mut out = String::new();
    match g {
        Geometry::Point(p) => {
            out.push_str("POINT(");
            out.push_str(&fmt_num(p.x()));
            out.push(' ');
            out.push_str(&fmt_num(p.y()));
            out.push(')');
        }
        Geometry::Polygon(p) => {
            out.push_str("POLYGON(");
            coords(&mut out, p.exterior());
            for r in p.interiors() {
                out.push(',');
                coords(&mut out, r);
            }
            out.push(')');
        }
        _ => {}
    }
    out
}

/// Boost's `wkt()` of a box: the polygon of its corners, clockwise from the lower left.
pub fn write_box(min: [f64; 2], max: [f64; 2]) -> String {
    let ring = LineString(vec![
        Coord { x: min[0], y: min[1] },
        Coord { x: min[0], y: max[1] },
        Coord { x: max[0], y: max[1] },
        Coord { x: max[0], y: min[1] },
        Coord { x: min[0], y: min[1] },
    ]);
    write(&Geometry::Polygon(polygon_raw(ring, Vec::new())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        read(s).unwrap_err()
    }

    #[test]
    fn errors_are_boosts() {
        assert_eq!(err("polygon((1 1))"), "unknown geometry type");
        assert_eq!(err("POLIKON((1 1))"), "Should start with 'POLYGON'' in (POLIKON((1 1)))");
        assert_eq!(err("POLYGON(1 1, 2 2))"), "Expected '(' at '1' in 'POLYGON(1 1, 2 2))'");
        assert_eq!(err("POLYGON"), "Expected '(' in 'POLYGON'");
        assert_eq!(err("POINT(1 2 3)"), "Expected ')' at '3' in 'POINT(1 2 3)'");
        assert_eq!(err("POINT(255, 255)"), "Expected ')' at ',' in 'POINT(255, 255)'");
        assert_eq!(err("POINT(1 2) x"), "Too many tokens at 'x' in 'POINT(1 2) x'");
        assert_eq!(err("POINT Z(1 2 3)"), "Z only allowed for 3 or more dimensions' in (POINT Z(1 2 3))");
        for bad in ["0x10", "1e400", "bart"] {
            let wkt = format!("POINT({bad} 1)");
            assert_eq!(err(&wkt), format!("{BAD_CAST} at '{bad}' in '{wkt}'"));
        }
    }

    #[test]
    fn grammar_is_lenient_where_boost_is() {
        assert_eq!(read("POINT(1)").unwrap(), Geometry::Point(Point::new(1.0, 0.0)));
        assert_eq!(read("POINT M (1 2)").unwrap(), Geometry::Point(Point::new(1.0, 2.0)));
        let Geometry::Polygon(p) = read("POLYGON((1 1 1 100, 100 100 100 1)(2 2, 3 3))").unwrap() else {
            panic!("not a polygon")
        };
        assert_eq!(p.exterior().0.len(), 5);
        assert_eq!(p.interiors().len(), 1);
        assert!(read("POINT(inf 1)").is_ok());
        assert_eq!(err("POINT EMPTY"), "invalid geometry: Geometry is empty");
    }

    #[test]
    fn writes_like_ostream() {
        let g = read("POLYGON((1 1, 1 100.5, 100 100, 100 1, 1 1))").unwrap();
        assert_eq!(write(&g), "POLYGON((1 1,1 100.5,100 100,100 1,1 1))");
        assert_eq!(write(&read("POINT(17.333333333 1e-7)").unwrap()), "POINT(17.3333 1e-07)");
        assert_eq!(write_box([0.0, 1.0], [2.0, 3.0]), "POLYGON((0 1,0 3,2 3,2 1,0 1))");
    }
}
