//! Parsing of FT.AGGREGATE's arguments after the query string.
//!
//! Contract: [`AggregateRequest::parse`] reads the options and steps in the
//! order given (RediSearch `aggregate_request.c`): query options (VERBATIM,
//! SCORER, …) are accepted before the first step; LIMIT, SORTBY, TIMEOUT,
//! WITHCURSOR, PARAMS, DIALECT, FORMAT anywhere; LOAD, GROUPBY/REDUCE, APPLY
//! and FILTER as repeatable steps. LIMIT and SORTBY share one "arrange" step
//! per GROUPBY segment (a second SORTBY in a segment is an error). Errors
//! are worded as RediSearch's.

use super::error::AggError;
use super::expr::Expr;
use super::limits::{MAX_AGGREGATE_RESULTS, MAX_DIALECT, MAX_SEARCH_RESULTS, MAX_SORT_KEYS};
use super::reducers::{default_alias, NOARG, PARSE};

/// `AC_Strerror(AC_ERR_ELIMIT)`.
const ELIMIT: &str = "Value is outside acceptable bounds";

/// A parsed FT.AGGREGATE request (everything after the query string).
#[derive(Debug, Clone, Default)]
pub struct AggregateRequest {
    /// Options for the query engine.
    pub query_options: QueryOptions,
    /// Pipeline steps in order.
    pub steps: Vec<Step>,
    /// TIMEOUT in ms (parsed; enforcement is the caller's).
    pub timeout_ms: Option<u64>,
    /// PARAMS name/value pairs (for the query text).
    pub params: Vec<(String, String)>,
    /// PARAMS values as raw bytes, in `params` order (vector blobs are binary).
    pub raw_params: Vec<Vec<u8>>,
    /// DIALECT (1–4).
    pub dialect: Option<u64>,
    /// ADDSCORES: expose `@__score`.
    pub add_scores: bool,
    /// WITHCURSOR settings.
    pub cursor: Option<CursorOptions>,
    /// FORMAT EXPAND (typed values in RESP3).
    pub format_expand: bool,
    /// `LIMIT 0 0`: count only, send no rows.
    pub count_only: bool,
    /// WITHSORTKEYS: each row goes out after its sort key.
    pub with_sortkeys: bool,
}

/// Query-engine options FT.AGGREGATE accepts before its steps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryOptions {
    /// VERBATIM: no stemming.
    pub verbatim: bool,
    /// NOSTOPWORDS.
    pub no_stopwords: bool,
    /// INORDER.
    pub in_order: bool,
    /// SLOP n.
    pub slop: Option<i64>,
    /// LANGUAGE l.
    pub language: Option<String>,
    /// EXPANDER e.
    pub expander: Option<String>,
    /// SCORER s.
    pub scorer: Option<String>,
    /// BM25STD_TANH_FACTOR n (Redis 8).
    pub tanh_factor: Option<u64>,
    /// PAYLOAD p.
    pub payload: Option<Vec<u8>>,
    /// INKEYS n k…
    pub in_keys: Vec<Vec<u8>>,
    /// INFIELDS n f…
    pub in_fields: Vec<String>,
}

/// WITHCURSOR [COUNT n] [MAXIDLE ms].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CursorOptions {
    /// Rows per read.
    pub count: Option<u64>,
    /// Idle time before the cursor expires.
    pub max_idle_ms: Option<u64>,
}

/// One pipeline step.
#[derive(Debug, Clone)]
pub enum Step {
    /// LOAD n f [AS a]… or LOAD *.
    Load(LoadStep),
    /// GROUPBY n @p… REDUCE…
    Group(GroupStep),
    /// SORTBY / LIMIT of one segment.
    Arrange(ArrangeStep),
    /// APPLY expr AS name.
    Apply {
        /// The expression.
        expr: Expr,
        /// Output property.
        alias: String,
    },
    /// FILTER expr.
    Filter(Expr),
}

/// LOAD's fields.
#[derive(Debug, Clone, Default)]
pub struct LoadStep {
    /// `(path or field name without @, output name)`.
    pub fields: Vec<(String, String)>,
    /// `LOAD *`.
    pub all: bool,
}

/// GROUPBY's keys and reducers.
#[derive(Debug, Clone, Default)]
pub struct GroupStep {
    /// Group properties (without `@`).
    pub keys: Vec<String>,
    /// REDUCE clauses.
    pub reducers: Vec<ReducerSpec>,
}

/// `REDUCE name nargs args… [AS alias]`.
#[derive(Debug, Clone)]
pub struct ReducerSpec {
    /// Reducer name as written.
    pub name: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Output property (given or generated).
    pub alias: String,
}

/// SORTBY and LIMIT of one segment.
#[derive(Debug, Clone, Default)]
pub struct ArrangeStep {
    /// `(property without @, ascending)`.
    pub sort_keys: Vec<(String, bool)>,
    /// LIMIT offset.
    pub offset: u64,
    /// LIMIT count or SORTBY MAX.
    pub limit: u64,
    /// A LIMIT was given.
    pub limited: bool,
    /// MAXAGGREGATERESULTS leaves this step no row (its LIMIT, or the default 10, capped to
    /// 0): RediSearch counts the rows instead of sorting them (`RPCounter`).
    pub counts: bool,
}

/// The arguments, read as text (invalid UTF-8 replaced) and as given; borrowed, not copied.
struct Args<'a> {
    items: Vec<std::borrow::Cow<'a, str>>,
    raw: Vec<&'a [u8]>,
    at: usize,
}

impl Args<'_> {
    fn peek(&self) -> Option<&str> {
        self.items.get(self.at).map(|s| s.as_ref())
    }
    fn next(&mut self) -> Option<String> {
        let s = self.items.get(self.at).map(|s| s.to_string());
        if s.is_some() {
            self.at += 1;
        }
        s
    }
    fn next_raw(&mut self) -> Option<Vec<u8>> {
        let s = self.raw.get(self.at).map(|s| s.to_vec());
        if s.is_some() {
            self.at += 1;
        }
        s
    }
    fn advance_if(&mut self, word: &str) -> bool {
        if self.peek().is_some_and(|s| s.eq_ignore_ascii_case(word)) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn remaining(&self) -> usize {
        self.items.len().saturating_sub(self.at)
    }
    /// `AC_GetVarArgs`: a count then that many arguments.
    fn var_args(&mut self) -> Result<Vec<String>, &'static str> {
        let n = self.peek().ok_or(NOARG)?;
        let n: usize = n.parse().map_err(|_| PARSE)?;
        if n > self.remaining() - 1 {
            return Err(ELIMIT);
        }
        self.at += 1;
        let out = self.items[self.at..self.at + n].iter().map(|s| s.to_string()).collect();
        self.at += n;
        Ok(out)
    }
    /// `AC_GetU64`-style unsigned parse of the next argument.
    fn u64(&mut self) -> Result<u64, &'static str> {
        let s = self.peek().ok_or(NOARG)?;
        let v = s.parse::<u64>().map_err(|_| PARSE)?;
        self.at += 1;
        Ok(v)
    }
}

fn bad(what: &str, why: &str) -> AggError {
    AggError::new(format!("Bad arguments for {what}: {why}"))
}

/// Server limits that bound LIMIT (`MAXAGGREGATERESULTS`, `MAXSEARCHRESULTS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestLimits {
    /// Largest LIMIT count.
    pub max_aggregate_results: u64,
    /// Largest LIMIT offset.
    pub max_search_results: u64,
}

impl Default for RequestLimits {
    fn default() -> Self {
        RequestLimits { max_aggregate_results: MAX_AGGREGATE_RESULTS, max_search_results: MAX_SEARCH_RESULTS }
    }
}

impl AggregateRequest {
    /// WITHSORTKEYS: the property whose value is each row's sort key, the first key of the
    /// last SORTBY (`Some(None)` without one: a nil key); `None` without WITHSORTKEYS.
    pub fn sortkey_name(&self) -> Option<Option<&str>> {
        if !self.with_sortkeys {
            return None;
        }
        let last = self.steps.iter().rev().find_map(|s| match s {
            Step::Arrange(a) if !a.sort_keys.is_empty() => a.sort_keys.first().map(|k| k.0.as_str()),
            _ => None,
        });
        Some(last)
    }

    /// Parses the arguments that follow the query string (default limits).
    pub fn parse<A: AsRef<[u8]>>(args: &[A]) -> Result<AggregateRequest, AggError> {
        Self::parse_with(args, RequestLimits::default())
    }

    /// Parses the arguments that follow the query string.
    pub fn parse_with<A: AsRef<[u8]>>(
        args: &[A],
        limits: RequestLimits,
    ) -> Result<AggregateRequest, AggError> {
        let raw: Vec<&[u8]> = args.iter().map(AsRef::as_ref).collect();
        let items = raw.iter().map(|a| String::from_utf8_lossy(a)).collect();
        let mut ac = Args { items, raw, at: 0 };
        let mut req = AggregateRequest::default();

        // Query options, until the first step keyword.
        while ac.peek().is_some() {
            if req.parse_query_option(&mut ac)? || req.parse_common(&mut ac, limits)? {
                continue;
            }
            break;
        }
        while let Some(word) = ac.peek() {
            let word = word.to_ascii_uppercase();
            if req.parse_common(&mut ac, limits)? {
                continue;
            }
            match word.as_str() {
                "GROUPBY" => {
                    ac.at += 1;
                    req.parse_group(&mut ac)?;
                }
                "APPLY" | "FILTER" => {
                    ac.at += 1;
                    req.parse_apply_filter(&mut ac, word == "APPLY")?;
                }
                "LOAD" => {
                    ac.at += 1;
                    req.parse_load(&mut ac)?;
                }
                _ => {
                    return Err(AggError::new(format!(
                        "Unknown argument `{}` at position {} for <main>",
                        ac.peek().unwrap_or_default(),
                        ac.at + 1
                    )))
                }
            }
        }
        for step in &mut req.steps {
            if let Step::Arrange(a) = step {
                let limit = match a.offset.saturating_add(a.limit) {
                    0 => super::limits::DEFAULT_SORT_LIMIT,
                    n => n,
                };
                a.counts = limit.min(limits.max_aggregate_results) == 0;
            }
        }
        Ok(req)
    }

    /// True when an APPLY or FILTER calls `matched_terms()` (the caller then
    /// supplies [`DocHit::matched_terms`](super::pipeline::DocHit)).
    pub fn uses_matched_terms(&self) -> bool {
        self.steps.iter().any(|s| match s {
            Step::Apply { expr, .. } | Step::Filter(expr) => {
                expr.ast.calls(super::expr::functions::Function::MatchedTerms)
            }
            _ => false,
        })
    }

    fn parse_query_option(&mut self, ac: &mut Args<'_>) -> Result<bool, AggError> {
        let Some(word) = ac.peek().map(str::to_ascii_uppercase) else {
            return Ok(false);
        };
        let o = &mut self.query_options;
        match word.as_str() {
            "VERBATIM" => o.verbatim = true,
            "NOSTOPWORDS" => o.no_stopwords = true,
            "INORDER" => o.in_order = true,
            "ADDSCORES" => self.add_scores = true,
            "WITHSORTKEYS" => self.with_sortkeys = true,
            "WITHCOUNT" | "WITHOUTCOUNT" | "WITHSCORES" | "WITHPAYLOADS" | "NOCONTENT" | "EXPLAINSCORE" => {}
            "SUMMARIZE" | "HIGHLIGHT" | "RETURN" => {
                return Err(AggError::new(format!("{word} is not supported on FT.AGGREGATE")))
            }
            "SLOP" | "LANGUAGE" | "EXPANDER" | "SCORER" | "PAYLOAD" => {
                ac.at += 1;
                let Some(v) = ac.next_raw() else {
                    return Err(bad(&word, NOARG));
                };
                let text = String::from_utf8_lossy(&v).into_owned();
                match word.as_str() {
                    "SLOP" => o.slop = Some(text.parse().map_err(|_| bad("SLOP", PARSE))?),
                    "LANGUAGE" => o.language = Some(text),
                    "EXPANDER" => o.expander = Some(text),
                    "SCORER" => o.scorer = Some(text),
                    _ => o.payload = Some(v),
                }
                return Ok(true);
            }
            "BM25STD_TANH_FACTOR" => {
                ac.at += 1;
                let v = ac.next_raw().map(|v| String::from_utf8_lossy(&v).into_owned());
                o.tanh_factor = Some(
                    crate::query::score::parse_tanh_factor(v.as_deref()).map_err(|e| AggError::new(e.0))?,
                );
                return Ok(true);
            }
            "INKEYS" | "INFIELDS" => {
                ac.at += 1;
                let start = ac.at + 1;
                let vals = ac.var_args().map_err(|e| bad(&word, e))?;
                if word == "INKEYS" {
                    o.in_keys = ac.raw[start..start + vals.len()].iter().map(|k| k.to_vec()).collect();
                } else {
                    o.in_fields = vals;
                }
                return Ok(true);
            }
            _ => return Ok(false),
        }
        ac.at += 1;
        Ok(true)
    }

    /// `handleCommonArgs`: LIMIT SORTBY TIMEOUT WITHCURSOR PARAMS DIALECT FORMAT.
    fn parse_common(&mut self, ac: &mut Args<'_>, lim: RequestLimits) -> Result<bool, AggError> {
        let Some(word) = ac.peek().map(str::to_ascii_uppercase) else {
            return Ok(false);
        };
        match word.as_str() {
            "LIMIT" => {
                ac.at += 1;
                if ac.remaining() < 2 {
                    return Err(AggError::new("LIMIT requires two arguments"));
                }
                let (Ok(offset), Ok(limit)) = (ac.u64(), ac.u64()) else {
                    return Err(AggError::new("LIMIT needs two numeric arguments"));
                };
                if limit == 0 {
                    self.count_only = true;
                } else if limit > lim.max_aggregate_results {
                    return Err(AggError::new(format!(
                        "LIMIT exceeds maximum of {}",
                        lim.max_aggregate_results
                    )));
                } else if offset > lim.max_search_results {
                    return Err(AggError::new(format!(
                        "OFFSET exceeds maximum of {}",
                        lim.max_search_results
                    )));
                }
                if let Some(arrange) = self.arrange_step() {
                    arrange.limited = true;
                    arrange.offset = offset;
                    arrange.limit = limit;
                }
            }
            "SORTBY" => {
                ac.at += 1;
                self.parse_sortby(ac)?;
            }
            "TIMEOUT" => {
                ac.at += 1;
                if ac.remaining() < 1 {
                    return Err(AggError::new("Need argument for TIMEOUT"));
                }
                let t = ac.u64().map_err(|_| AggError::new("TIMEOUT requires a non negative integer"))?;
                self.timeout_ms = Some(t);
            }
            "WITHCURSOR" => {
                ac.at += 1;
                let mut opts = CursorOptions::default();
                loop {
                    let target = if ac.advance_if("COUNT") {
                        ("COUNT", &mut opts.count)
                    } else if ac.advance_if("MAXIDLE") {
                        ("MAXIDLE", &mut opts.max_idle_ms)
                    } else {
                        break;
                    };
                    let v = ac.u64().map_err(|e| bad(target.0, e))?;
                    if v < 1 {
                        return Err(bad(target.0, ELIMIT));
                    }
                    *target.1 = Some(v);
                }
                self.cursor = Some(opts);
            }
            "PARAMS" => {
                ac.at += 1;
                let first = ac.at + 1;
                let vals = ac.var_args().map_err(|e| bad("PARAMS", e))?;
                if vals.len() % 2 != 0 {
                    return Err(AggError::new("Parameters must be specified in PARAM VALUE pairs"));
                }
                for (i, pair) in vals.chunks(2).enumerate() {
                    if self.params.iter().any(|(k, _)| *k == pair[0]) {
                        return Err(AggError::new(format!("Duplicate parameter `{}`", pair[0])));
                    }
                    self.params.push((pair[0].clone(), pair[1].clone()));
                    let raw = ac.raw.get(first + 2 * i + 1).map(|v| v.to_vec()).unwrap_or_default();
                    self.raw_params.push(raw);
                }
            }
            "DIALECT" => {
                ac.at += 1;
                if ac.remaining() < 1 {
                    return Err(AggError::new("Need an argument for DIALECT"));
                }
                match ac.u64() {
                    Ok(d) if (1..=MAX_DIALECT).contains(&d) => self.dialect = Some(d),
                    _ => {
                        return Err(AggError::new(format!(
                            "DIALECT requires a non negative integer >=1 and <= {MAX_DIALECT}"
                        )))
                    }
                }
            }
            "FORMAT" => {
                ac.at += 1;
                let Some(f) = ac.next() else {
                    return Err(AggError::new("Need an argument for FORMAT"));
                };
                if f.eq_ignore_ascii_case("EXPAND") {
                    self.format_expand = true;
                } else if f.eq_ignore_ascii_case("STRING") {
                    self.format_expand = false;
                } else {
                    return Err(AggError::new(format!("FORMAT {f} is not supported")));
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The arrange step of the current segment (since the last GROUPBY),
    /// created at the end of the steps when there is none.
    fn arrange_step(&mut self) -> Option<&mut ArrangeStep> {
        let exists = self
            .steps
            .iter()
            .rev()
            .take_while(|s| !matches!(s, Step::Group(_)))
            .any(|s| matches!(s, Step::Arrange(_)));
        if !exists {
            self.steps.push(Step::Arrange(ArrangeStep::default()));
        }
        self.steps.iter_mut().rev().find_map(|s| match s {
            Step::Arrange(a) => Some(a),
            _ => None,
        })
    }

    fn parse_sortby(&mut self, ac: &mut Args<'_>) -> Result<(), AggError> {
        if self.arrange_step().is_some_and(|a| !a.sort_keys.is_empty()) {
            return Err(AggError::new(
                "Multiple SORTBY steps are not allowed. Sort multiple fields in a single step",
            ));
        }
        let sub = ac.var_args().map_err(|e| bad("SORTBY", e))?;
        let mut keys: Vec<(String, bool)> = Vec::new();
        for s in sub {
            if let Some(name) = s.strip_prefix('@') {
                if keys.len() >= MAX_SORT_KEYS {
                    return Err(AggError::new(format!("Cannot sort by more than {MAX_SORT_KEYS} fields")));
                }
                keys.push((name.to_string(), true));
            } else if s.eq_ignore_ascii_case("ASC") || s.eq_ignore_ascii_case("DESC") {
                if let Some(last) = keys.last_mut() {
                    last.1 = s.eq_ignore_ascii_case("ASC");
                }
            } else {
                return Err(AggError::new(format!("MISSING ASC or DESC after sort field ({s})")));
            }
        }
        let mut max = None;
        if ac.advance_if("MAX") {
            max = Some(ac.u64().map_err(|e| bad("MAX", e))?);
        }
        if let Some(arrange) = self.arrange_step() {
            arrange.sort_keys = keys;
            if let Some(m) = max {
                arrange.limit = m;
            }
        }
        Ok(())
    }

    fn parse_group(&mut self, ac: &mut Args<'_>) -> Result<(), AggError> {
        let props = ac.var_args().map_err(|e| bad("GROUPBY", e))?;
        let mut keys = Vec::with_capacity(props.len());
        for p in props {
            match p.strip_prefix('@') {
                Some(k) => keys.push(k.to_string()),
                None => {
                    return Err(AggError::new(format!(
                        "Bad arguments for GROUPBY: Unknown property `{p}`. Did you mean `@{p}`?"
                    )))
                }
            }
        }
        let mut group = GroupStep { keys, reducers: Vec::new() };
        while ac.advance_if("REDUCE") {
            let Some(name) = ac.next() else {
                return Err(bad("REDUCE", NOARG));
            };
            let args = ac.var_args().map_err(|e| bad(&name, e))?;
            let alias = if ac.advance_if("AS") {
                ac.next().ok_or_else(|| bad("AS", NOARG))?
            } else {
                default_alias(&name, &args)
            };
            group.reducers.push(ReducerSpec { name, args, alias });
        }
        self.steps.push(Step::Group(group));
        Ok(())
    }

    fn parse_apply_filter(&mut self, ac: &mut Args<'_>, is_apply: bool) -> Result<(), AggError> {
        let Some(text) = ac.next() else {
            return Err(bad("APPLY/FILTER", NOARG));
        };
        // RediSearch parses the expression when it builds the pipeline, step by step
        // (`buildOutputPipeline`), so a later argument's error, or an earlier step's, comes
        // first: the syntax error waits there as the tree's hole.
        let expr = Expr::parse_with_holes(&text).unwrap_or_else(|e| Expr::failed(&text, e));
        if is_apply {
            let alias = if ac.advance_if("AS") {
                ac.next().ok_or_else(|| AggError::new("AS needs argument"))?
            } else {
                text
            };
            self.steps.push(Step::Apply { expr, alias });
        } else {
            self.steps.push(Step::Filter(expr));
        }
        Ok(())
    }

    fn parse_load(&mut self, ac: &mut Args<'_>) -> Result<(), AggError> {
        let fields = match ac.var_args() {
            Ok(f) => f,
            Err(e) => {
                if ac.peek() == Some("*") {
                    ac.at += 1;
                    self.steps.push(Step::Load(LoadStep { fields: Vec::new(), all: true }));
                    return Ok(());
                }
                return Err(bad("LOAD", e));
            }
        };
        let mut step = LoadStep::default();
        let mut i = 0;
        while i < fields.len() {
            let path = fields[i].strip_prefix('@').unwrap_or(&fields[i]).to_string();
            i += 1;
            let name = if fields.get(i).is_some_and(|s| s.eq_ignore_ascii_case("AS")) {
                i += 1;
                let Some(n) = fields.get(i) else {
                    return Err(AggError::new("LOAD path AS name - must be accompanied with NAME"));
                };
                if n.eq_ignore_ascii_case("AS") {
                    return Err(AggError::new("Alias for LOAD cannot be `AS`"));
                }
                i += 1;
                n.clone()
            } else {
                path.clone()
            };
            step.fields.push((path, name));
        }
        self.steps.push(Step::Load(step));
        Ok(())
    }
}
