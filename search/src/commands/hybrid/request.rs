//! FT.HYBRID's arguments (RediSearch 8.4 `parse_hybrid.c`, `parse/hybrid_combine.c`,
//! `parse/hybrid_optional_args.c`, `parse/hybrid_callbacks.c`), with their error texts.
//!
//! `FT.HYBRID idx SEARCH query [SCORER s] [YIELD_SCORE_AS a]
//!  VSIM @field vector [KNN n K k [EF_RUNTIME e] [YIELD_SCORE_AS a] | RANGE n RADIUS r
//!  [EPSILON e] [YIELD_SCORE_AS a]] [FILTER [n] expr [POLICY p] [BATCH_SIZE b]] [YIELD_SCORE_AS a]
//!  [COMBINE RRF n [CONSTANT c] [WINDOW w] [YIELD_SCORE_AS a] | COMBINE LINEAR n [ALPHA a
//!  BETA b] [WINDOW w] [YIELD_SCORE_AS a]] [tail…]`.
//!
//! Rules:
//! - The vector is `$name` (a PARAMS value) or the blob itself. Without KNN or RANGE the
//!   vector side is `KNN K 10`; K is cut to the WINDOW.
//! - The tail is FT.AGGREGATE's steps (LOAD, GROUPBY/REDUCE, APPLY, FILTER, SORTBY n …,
//!   LIMIT o n, PARAMS, TIMEOUT, WITHCURSOR, FORMAT) plus NOSORT; each is checked here for
//!   its shape and handed on, in order, to [`AggregateRequest::parse_with`]. DIALECT and
//!   EXPLAINSCORE are refused, as in RediSearch 8.4.
//! - COMBINE comes first in the tail (`tail.rs` parses the rest).

use crate::error::{Error, Result};

use super::fusion::{Combine, DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_RRF_CONSTANT, DEFAULT_WINDOW};

/// RediSearch's refusal of DIALECT in FT.HYBRID.
pub const DIALECT_ERROR: &str = "DIALECT is not supported in FT.HYBRID or any of its subqueries. \
Please check the documentation on search-default-dialect configuration.";

/// The vector side's default K.
pub const DEFAULT_K: u64 = 10;

/// The vector query.
#[derive(Debug, Clone, PartialEq)]
pub enum VectorMethod {
    /// The k nearest.
    Knn {
        /// K (cut to the window when run).
        k: u64,
        /// EF_RUNTIME, as given.
        ef_runtime: Option<String>,
    },
    /// Every vector within RADIUS.
    Range {
        /// RADIUS.
        radius: f64,
        /// EPSILON, as given.
        epsilon: Option<String>,
    },
}

/// A parsed FT.HYBRID.
#[derive(Debug, Clone)]
pub struct HybridRequest {
    /// The index name.
    pub index: String,
    /// SEARCH's query.
    pub query: Vec<u8>,
    /// SEARCH's SCORER.
    pub scorer: Option<String>,
    /// SEARCH's YIELD_SCORE_AS.
    pub text_alias: Option<String>,
    /// VSIM's field, without `@`.
    pub field: String,
    /// VSIM's vector: a parameter name (`$` removed) or the blob.
    pub vector: VectorArg,
    /// KNN or RANGE.
    pub method: VectorMethod,
    /// VSIM's FILTER query.
    pub filter: Option<Vec<u8>>,
    /// VSIM's YIELD_SCORE_AS.
    pub vector_alias: Option<String>,
    /// COMBINE.
    pub combine: Combine,
    /// COMBINE's YIELD_SCORE_AS.
    pub combined_alias: Option<String>,
    /// NOSORT.
    pub no_sort: bool,
    /// The tail in FT.AGGREGATE's syntax, LOAD steps first.
    pub tail: Vec<Vec<u8>>,
    /// Whether the tail has a LOAD.
    pub has_load: bool,
    /// Whether the tail loads `@__score` (so the fused score shows under `__score`).
    pub loads_score: bool,
    /// The tail's PARAMS, for the two queries.
    pub params: Vec<Vec<u8>>,
    /// The tail's TIMEOUT, as given.
    pub timeout: Option<Vec<u8>>,
    /// LIMIT's (offset, count), as given.
    pub limit: Option<(u64, u64)>,
    /// WITHCURSOR.
    pub cursor: bool,
}

/// VSIM's vector argument.
#[derive(Debug, Clone, PartialEq)]
pub enum VectorArg {
    /// `$name`.
    Param(String),
    /// The blob itself.
    Blob(Vec<u8>),
}

pub(super) struct Cursor<'a> {
    pub(super) args: &'a [&'a [u8]],
    pub(super) at: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn peek(&self) -> Option<&'a [u8]> {
        self.args.get(self.at).copied()
    }
    pub(super) fn next(&mut self) -> Option<&'a [u8]> {
        let a = self.peek()?;
        self.at += 1;
        Some(a)
    }
    pub(super) fn is(&self, word: &str) -> bool {
        self.peek().is_some_and(|a| a.eq_ignore_ascii_case(word.as_bytes()))
    }
    pub(super) fn eat(&mut self, word: &str) -> bool {
        let m = self.is(word);
        if m {
            self.at += 1;
        }
        m
    }
    pub(super) fn left(&self) -> usize {
        self.args.len().saturating_sub(self.at)
    }
}

pub(super) fn text(a: &[u8]) -> String {
    String::from_utf8_lossy(a).into_owned()
}

pub(super) fn unsigned(a: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(a).ok()?;
    if s.starts_with('+') {
        return None;
    }
    s.parse::<u64>().ok()
}

pub(super) fn signed(a: &[u8]) -> Option<i64> {
    std::str::from_utf8(a).ok()?.parse::<i64>().ok()
}

fn double(a: &[u8]) -> Option<f64> {
    let s = std::str::from_utf8(a).ok()?;
    let v: f64 = match s.to_ascii_lowercase().as_str() {
        "inf" | "+inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        _ => s.parse().ok()?,
    };
    (!v.is_nan()).then_some(v)
}

pub(super) fn err(s: impl Into<String>) -> Error {
    Error::new(s)
}

/// Parses FT.HYBRID's arguments (after the command name; `args[0]` the index).
pub fn parse(args: &[&[u8]], max_results: u64) -> Result<HybridRequest> {
    let index = text(args.first().ok_or_else(|| err("wrong number of arguments for 'FT.HYBRID' command"))?);
    let mut c = Cursor { args, at: 1 };
    if !c.eat("SEARCH") {
        return Err(err("SEARCH argument is required"));
    }
    let query = c.next().ok_or_else(|| err("No query string provided for SEARCH"))?.to_vec();
    let (mut scorer, mut text_alias) = (None, None);
    while let Some(a) = c.peek() {
        if c.is("SCORER") || c.is("YIELD_SCORE_AS") {
            let name = text(a).to_ascii_uppercase();
            c.at += 1;
            let v = c.next().ok_or_else(|| err(format!("Bad arguments for {name}: Expected an argument")))?;
            if name == "SCORER" {
                scorer = Some(text(v));
            } else {
                text_alias = Some(text(v));
            }
        } else if c.is("VSIM") {
            break;
        } else if c.is("DIALECT") {
            return Err(err(DIALECT_ERROR));
        } else {
            return Err(err(format!("Unknown argument `{}` in SEARCH", text(a))));
        }
    }
    if !c.eat("VSIM") {
        return Err(err("VSIM argument is required"));
    }
    let f = c.next().ok_or_else(|| err("Missing vector field name"))?;
    if f.first() != Some(&b'@') {
        return Err(err("Missing @ prefix for vector field name"));
    }
    let field = text(&f[1..]);
    let v = c.next().ok_or_else(|| err("Missing vector argument"))?;
    let vector = match v.strip_prefix(b"$") {
        Some(name) => VectorArg::Param(text(name)),
        None => VectorArg::Blob(v.to_vec()),
    };
    let mut vector_alias = None;
    let mut method = VectorMethod::Knn { k: DEFAULT_K, ef_runtime: None };
    if c.eat("KNN") {
        method = knn_clause(&mut c, &mut vector_alias)?;
    } else if c.eat("RANGE") {
        method = range_clause(&mut c, &mut vector_alias)?;
    }
    let mut filter = None;
    if c.eat("FILTER") {
        filter = Some(filter_clause(&mut c)?);
    }
    while c.eat("YIELD_SCORE_AS") {
        if vector_alias.is_some() {
            return Err(err("Duplicate YIELD_SCORE_AS argument"));
        }
        let v = c.next().ok_or_else(|| err("Missing argument value for YIELD_SCORE_AS"))?;
        vector_alias = Some(text(v));
    }
    if c.is("DIALECT") {
        return Err(err(DIALECT_ERROR));
    }
    let mut req = HybridRequest {
        index,
        query,
        scorer,
        text_alias,
        field,
        vector,
        method,
        filter,
        vector_alias,
        combine: Combine::default(),
        combined_alias: None,
        no_sort: false,
        tail: Vec::new(),
        has_load: false,
        loads_score: false,
        params: Vec::new(),
        timeout: None,
        limit: None,
        cursor: false,
    };
    if c.is("COMBINE") {
        c.at += 1;
        combine_clause(&mut c, &mut req)?;
    }
    super::tail::parse(&mut c, &mut req, max_results)?;
    Ok(req)
}

/// `Expected arguments n, but m were provided`.
fn expected(count: u64, given: u64) -> Error {
    let verb = if given == 1 { "was" } else { "were" };
    err(format!("Expected arguments {count}, but {given} {verb} provided"))
}

/// The count of a KNN or RANGE clause.
fn clause_count(c: &mut Cursor<'_>) -> Result<u64> {
    let a = c.next().ok_or_else(|| err("Missing argument count"))?;
    let n = unsigned(a)
        .filter(|&n| n <= u64::from(u32::MAX))
        .ok_or_else(|| err("Invalid argument count: expected an unsigned integer"))?;
    if n == 0 || n % 2 != 0 {
        return Err(err(format!(
            "Invalid argument count: {n} (must be a positive even number for key/value pairs)"
        )));
    }
    Ok(n)
}

fn alias_in_clause(c: &mut Cursor<'_>, alias: &mut Option<String>) -> Result<()> {
    if alias.is_some() {
        return Err(err("Duplicate YIELD_SCORE_AS argument"));
    }
    let v = c.next().ok_or_else(|| err("Missing argument value for YIELD_SCORE_AS"))?;
    *alias = Some(text(v));
    Ok(())
}

fn knn_clause(c: &mut Cursor<'_>, alias: &mut Option<String>) -> Result<VectorMethod> {
    let n = clause_count(c)?;
    let (mut k, mut ef) = (None, None);
    let mut i = 0;
    while i < n {
        if c.peek().is_none() {
            return Err(expected(n, i));
        }
        if c.eat("K") {
            if k.is_some() {
                return Err(err("Duplicate K argument"));
            }
            let v = c.next().ok_or_else(|| err("Missing argument value for K"))?;
            k = Some(signed(v).filter(|&v| v >= 1).ok_or_else(|| err("Invalid K value"))? as u64);
        } else if c.eat("EF_RUNTIME") {
            if ef.is_some() {
                return Err(err("Duplicate EF_RUNTIME argument"));
            }
            let v = c.next().ok_or_else(|| err("Missing argument value for EF_RUNTIME"))?;
            signed(v).filter(|&v| v >= 1).ok_or_else(|| err("Invalid EF_RUNTIME value"))?;
            ef = Some(text(v));
        } else if c.eat("YIELD_SCORE_AS") {
            alias_in_clause(c, alias)?;
        } else if c.eat("SHARD_K_RATIO") {
            let v = c.next().ok_or_else(|| err("Missing argument value for SHARD_K_RATIO"))?;
            double(v).filter(|r| *r > 0.0 && *r <= 1.0).ok_or_else(|| err("Invalid SHARD_K_RATIO value"))?;
        } else {
            return Err(err(format!("Unknown argument `{}` in KNN", text(c.peek().unwrap_or_default()))));
        }
        i += 2;
    }
    let k = k.ok_or_else(|| err("Missing required argument K"))?;
    Ok(VectorMethod::Knn { k, ef_runtime: ef })
}

fn range_clause(c: &mut Cursor<'_>, alias: &mut Option<String>) -> Result<VectorMethod> {
    let n = clause_count(c)?;
    let (mut radius, mut eps) = (None, None);
    let mut i = 0;
    while i < n {
        if c.peek().is_none() {
            return Err(expected(n, i));
        }
        if c.eat("RADIUS") {
            if radius.is_some() {
                return Err(err("Duplicate RADIUS argument"));
            }
            let v = c.next().ok_or_else(|| err("Missing argument value for RADIUS"))?;
            radius = Some(double(v).filter(|r| *r >= 0.0).ok_or_else(|| err("Invalid RADIUS value"))?);
        } else if c.eat("EPSILON") {
            if eps.is_some() {
                return Err(err("Duplicate EPSILON argument"));
            }
            let v = c.next().ok_or_else(|| err("Missing argument value for EPSILON"))?;
            double(v).filter(|e| *e > 0.0 && e.is_finite()).ok_or_else(|| err("Invalid EPSILON value"))?;
            eps = Some(text(v));
        } else if c.eat("YIELD_SCORE_AS") {
            alias_in_clause(c, alias)?;
        } else {
            return Err(err(format!("Unknown argument `{}` in RANGE", text(c.peek().unwrap_or_default()))));
        }
        i += 2;
    }
    let radius = radius.ok_or_else(|| err("Missing required argument RADIUS"))?;
    Ok(VectorMethod::Range { radius, epsilon: eps })
}

/// `FILTER expr` or `FILTER n expr [POLICY ADHOC|BATCHES] [BATCH_SIZE b]` (Redis 8.4.x's
/// later form; POLICY and BATCH_SIZE are checked and otherwise left to the planner).
fn filter_clause(c: &mut Cursor<'_>) -> Result<Vec<u8>> {
    let first = c.next().ok_or_else(|| err("Missing argument count for FILTER"))?;
    let Some(n) = unsigned(first) else { return Ok(first.to_vec()) };
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    if n > c.left() {
        return Err(err(format!(
            "Not enough arguments in FILTER, specified {n} but provided only {}",
            c.left()
        )));
    }
    let mut sub = Cursor { args: &c.args[..c.at + n], at: c.at };
    c.at += n;
    let expr = sub.next().ok_or_else(|| err("Missing filter-expression for FILTER"))?.to_vec();
    while let Some(a) = sub.next() {
        if a.eq_ignore_ascii_case(b"POLICY") {
            let v = sub.next().ok_or_else(|| err("POLICY: Expected an argument"))?;
            if !(v.eq_ignore_ascii_case(b"ADHOC") || v.eq_ignore_ascii_case(b"BATCHES")) {
                return Err(err("POLICY: Invalid value for argument"));
            }
        } else if a.eq_ignore_ascii_case(b"BATCH_SIZE") {
            let v = sub.next().ok_or_else(|| err("BATCH_SIZE: Expected an argument"))?;
            signed(v).filter(|&b| b >= 1).ok_or_else(|| err("Invalid batch size"))?;
        } else {
            return Err(err(format!("{}: Unknown argument", text(a))));
        }
    }
    Ok(expr)
}

/// `COMBINE RRF|LINEAR n key value…`.
fn combine_clause(c: &mut Cursor<'_>, req: &mut HybridRequest) -> Result<()> {
    let m = c.next().ok_or_else(|| err("COMBINE: Expected an argument"))?;
    let method = text(m).to_ascii_uppercase();
    if method != "RRF" && method != "LINEAR" {
        return Err(err(format!("Unknown COMBINE method `{}`", text(m))));
    }
    let count = match c.next() {
        None => return Err(err(format!("Missing {method} argument count"))),
        Some(a) => unsigned(a).filter(|&n| n <= u64::from(u32::MAX)).ok_or_else(|| {
            err(format!("Invalid {method} argument count, error: Value is not a valid integer"))
        })?,
    };
    if count == 0 {
        return Err(err(format!(
            "Explicitly specifying {method} requires at least one argument, argument count must be positive"
        )));
    }
    if count % 2 != 0 {
        return Err(err(format!(
            "{method} expects pairs of key value arguments, argument count must be an even number"
        )));
    }
    let n = count as usize;
    if n > c.left() {
        return Err(err(format!(
            "Not enough arguments in {method}, specified {n} but provided only {}",
            c.left()
        )));
    }
    let pairs = &c.args[c.at..c.at + n];
    c.at += n;
    let (mut constant, mut window, mut alpha, mut beta) = (None, None, None, None);
    for kv in pairs.chunks(2) {
        let key = text(kv[0]).to_ascii_uppercase();
        let v = kv[1];
        let seen = |dup: bool| -> Result<()> {
            if dup {
                Err(err(format!("{key}: Argument specified multiple times")))
            } else {
                Ok(())
            }
        };
        match key.as_str() {
            "CONSTANT" if method == "RRF" => {
                seen(constant.is_some())?;
                constant = Some(double(v).ok_or_else(|| err("CONSTANT: Invalid value for argument"))?);
            }
            "ALPHA" if method == "LINEAR" => {
                seen(alpha.is_some())?;
                alpha = Some(double(v).ok_or_else(|| err("ALPHA: Invalid value for argument"))?);
            }
            "BETA" if method == "LINEAR" => {
                seen(beta.is_some())?;
                beta = Some(double(v).ok_or_else(|| err("BETA: Invalid value for argument"))?);
            }
            "WINDOW" => {
                seen(window.is_some())?;
                let w = signed(v).ok_or_else(|| err("WINDOW: Invalid value for argument"))?;
                if w < 1 {
                    return Err(err("WINDOW: Value below minimum"));
                }
                window = Some(w as u64);
            }
            "YIELD_SCORE_AS" => {
                if req.combined_alias.is_some() {
                    return Err(err("YIELD_SCORE_AS: Argument specified multiple times"));
                }
                req.combined_alias = Some(text(v));
            }
            _ => return Err(err(format!("{}: Unknown argument", text(kv[0])))),
        }
    }
    let window = window.unwrap_or(DEFAULT_WINDOW);
    req.combine = if method == "RRF" {
        Combine::Rrf { constant: constant.unwrap_or(DEFAULT_RRF_CONSTANT), window }
    } else {
        match (alpha, beta) {
            (Some(_), None) => return Err(err("Missing value for BETA")),
            (None, Some(_)) => return Err(err("Missing value for ALPHA")),
            _ => {}
        }
        Combine::Linear { alpha: alpha.unwrap_or(DEFAULT_ALPHA), beta: beta.unwrap_or(DEFAULT_BETA), window }
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<HybridRequest> {
        let parts: Vec<&[u8]> = s.split(' ').map(str::as_bytes).collect();
        parse(&parts, 10000)
    }

    fn e(s: &str) -> String {
        p(s).map(|_| String::new()).unwrap_or_else(|e| e.0)
    }

    #[test]
    fn hybrid_parse_defaults() {
        let r = p("idx SEARCH hello VSIM @v $b").unwrap();
        assert_eq!(r.method, VectorMethod::Knn { k: 10, ef_runtime: None });
        assert_eq!(r.combine, Combine::Rrf { constant: 60.0, window: 20 });
        assert_eq!(r.vector, VectorArg::Param("b".into()));
        assert!(r.tail.is_empty() && !r.has_load);
    }

    #[test]
    fn hybrid_parse_full() {
        let r =
            p("idx SEARCH q SCORER BM25 YIELD_SCORE_AS ts VSIM @v $b KNN 4 K 3 EF_RUNTIME 5 FILTER @t:{x} \
                   YIELD_SCORE_AS vs COMBINE LINEAR 6 ALPHA 0.2 BETA 0.8 WINDOW 7 LOAD 2 @a @__score \
                   SORTBY 2 @a DESC LIMIT 0 3 PARAMS 2 b x")
            .unwrap();
        assert_eq!(r.scorer.as_deref(), Some("BM25"));
        assert_eq!(r.text_alias.as_deref(), Some("ts"));
        assert_eq!(r.vector_alias.as_deref(), Some("vs"));
        assert_eq!(r.method, VectorMethod::Knn { k: 3, ef_runtime: Some("5".into()) });
        assert_eq!(r.filter.as_deref(), Some(&b"@t:{x}"[..]));
        assert_eq!(r.combine, Combine::Linear { alpha: 0.2, beta: 0.8, window: 7 });
        assert!(r.has_load && r.loads_score);
        assert_eq!(r.limit, Some((0, 3)));
        assert_eq!(r.params.len(), 2);
    }

    #[test]
    fn hybrid_parse_errors() {
        assert_eq!(e("idx"), "SEARCH argument is required");
        assert_eq!(e("idx SEARCH"), "No query string provided for SEARCH");
        assert_eq!(e("idx SEARCH q"), "VSIM argument is required");
        assert_eq!(e("idx SEARCH q FOO"), "Unknown argument `FOO` in SEARCH");
        assert_eq!(e("idx SEARCH q DIALECT 2 VSIM @v $b"), DIALECT_ERROR);
        assert_eq!(e("idx SEARCH q VSIM"), "Missing vector field name");
        assert_eq!(e("idx SEARCH q VSIM v $b"), "Missing @ prefix for vector field name");
        assert_eq!(e("idx SEARCH q VSIM @v"), "Missing vector argument");
        assert_eq!(e("idx SEARCH q VSIM @v $b KNN"), "Missing argument count");
        assert_eq!(
            e("idx SEARCH q VSIM @v $b KNN x"),
            "Invalid argument count: expected an unsigned integer"
        );
        assert_eq!(
            e("idx SEARCH q VSIM @v $b KNN 3 K 1"),
            "Invalid argument count: 3 (must be a positive even number for key/value pairs)"
        );
        assert_eq!(e("idx SEARCH q VSIM @v $b KNN 4 K 1"), "Expected arguments 4, but 2 were provided");
        assert_eq!(e("idx SEARCH q VSIM @v $b KNN 2 K 0"), "Invalid K value");
        assert_eq!(e("idx SEARCH q VSIM @v $b KNN 2 EF_RUNTIME 4"), "Missing required argument K");
        assert_eq!(e("idx SEARCH q VSIM @v $b KNN 4 K 1 K 2"), "Duplicate K argument");
        assert_eq!(e("idx SEARCH q VSIM @v $b KNN 2 Z 1"), "Unknown argument `Z` in KNN");
        assert_eq!(e("idx SEARCH q VSIM @v $b RANGE 2 EPSILON 0.1"), "Missing required argument RADIUS");
        assert_eq!(e("idx SEARCH q VSIM @v $b RANGE 2 RADIUS -1"), "Invalid RADIUS value");
        assert_eq!(e("idx SEARCH q VSIM @v $b RANGE 4 RADIUS 1 EPSILON 0"), "Invalid EPSILON value");
        assert_eq!(e("idx SEARCH q VSIM @v $b COMBINE FOO 2 A 1"), "Unknown COMBINE method `FOO`");
        assert_eq!(e("idx SEARCH q VSIM @v $b COMBINE RRF"), "Missing RRF argument count");
        assert_eq!(
            e("idx SEARCH q VSIM @v $b COMBINE RRF 0"),
            "Explicitly specifying RRF requires at least one argument, argument count must be positive"
        );
        assert_eq!(
            e("idx SEARCH q VSIM @v $b COMBINE RRF 1 WINDOW"),
            "RRF expects pairs of key value arguments, argument count must be an even number"
        );
        assert_eq!(
            e("idx SEARCH q VSIM @v $b COMBINE RRF 4 WINDOW 2"),
            "Not enough arguments in RRF, specified 4 but provided only 2"
        );
        assert_eq!(e("idx SEARCH q VSIM @v $b COMBINE RRF 2 WINDOW 0"), "WINDOW: Value below minimum");
        assert_eq!(e("idx SEARCH q VSIM @v $b COMBINE LINEAR 2 ALPHA 1"), "Missing value for BETA");
        assert_eq!(e("idx SEARCH q VSIM @v $b COMBINE LINEAR 2 BETA 1"), "Missing value for ALPHA");
        assert_eq!(e("idx SEARCH q VSIM @v $b COMBINE RRF 2 ALPHA 1"), "ALPHA: Unknown argument");
        assert_eq!(
            e("idx SEARCH q VSIM @v $b LIMIT 1 0"),
            "The `offset` of the LIMIT must be 0 when `num` is 0"
        );
        assert_eq!(e("idx SEARCH q VSIM @v $b LIMIT 0 20000"), "LIMIT exceeds maximum of 10000");
        assert_eq!(e("idx SEARCH q VSIM @v $b LIMIT -1 2"), "LIMIT offset must be a non-negative integer");
        assert_eq!(e("idx SEARCH q VSIM @v $b SORTBY 1 @a NOSORT"), "NOSORT is not allowed with SORTBY");
        assert_eq!(e("idx SEARCH q VSIM @v $b NOSORT SORTBY 1 @a"), "NOSORT is not allowed with SORTBY");
        assert_eq!(e("idx SEARCH q VSIM @v $b DIALECT 2"), DIALECT_ERROR);
        assert_eq!(
            e("idx SEARCH q VSIM @v $b EXPLAINSCORE"),
            "EXPLAINSCORE is not yet supported by FT.HYBRID"
        );
        assert_eq!(
            e("idx SEARCH q VSIM @v $b PARAMS 1 a"),
            "Parameters must be specified in PARAM VALUE pairs"
        );
        assert_eq!(e("idx SEARCH q VSIM @v $b BOGUS"), "BOGUS: Unknown argument");
        assert_eq!(
            e("idx SEARCH q VSIM @v $b GROUPBY 1 a"),
            "Bad arguments for GROUPBY: Unknown property `a`. Did you mean `@a`?"
        );
    }
}
