//! FT.SEARCH's arguments: options, filters, RETURN/HIGHLIGHT/SUMMARIZE, SORTBY (one field, or
//! a count and several), LIMIT, PARAMS, DIALECT, and their checks.

use crate::args::{parse_f64, Args};
use crate::commands::text;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::index::geo::unit_factor;
use crate::limits::MAX_DIALECT;
use crate::query::highlight::Summary;
use crate::query::score::Scorer;
use std::collections::HashMap;

/// A RETURN entry: source (attribute or JSONPath) and output name.
pub(crate) struct ReturnField {
    pub(crate) source: String,
    pub(crate) name: String,
}

/// Parsed FT.SEARCH options.
pub(crate) struct SearchRequest {
    pub(crate) query: String,
    pub(crate) no_content: bool,
    pub(crate) verbatim: bool,
    pub(crate) no_stopwords: bool,
    pub(crate) with_scores: bool,
    pub(crate) explain_score: bool,
    /// WITHRAWIDS: each result's document id after its key (and score).
    pub(crate) with_raw_ids: bool,
    /// WITHOUTCOUNT: RediSearch's optimizer stops once it has the page, and reports as the
    /// total the results it collected.
    pub(crate) without_count: bool,
    /// WITHCOUNT or WITHOUTCOUNT given (else DIALECT 4 means WITHOUTCOUNT).
    pub(crate) count_given: bool,
    pub(crate) with_payloads: bool,
    pub(crate) with_sortkeys: bool,
    pub(crate) filters: Vec<(String, f64, bool, f64, bool)>,
    pub(crate) geofilters: Vec<(String, f64, f64, f64)>,
    pub(crate) inkeys: Option<Vec<Vec<u8>>>,
    pub(crate) infields: Option<Vec<String>>,
    pub(crate) returns: Option<Vec<ReturnField>>,
    pub(crate) highlight: Option<(Option<Vec<String>>, String, String)>,
    pub(crate) summarize: Option<(Option<Vec<String>>, Summary)>,
    pub(crate) slop: Option<u32>,
    pub(crate) inorder: bool,
    pub(crate) scorer: Scorer,
    /// PAYLOAD: what HAMMING compares each document's payload with.
    pub(crate) payload: Option<Vec<u8>>,
    pub(crate) sortby: Option<(String, bool)>,
    /// SORTBY's further fields (`SORTBY <count> @a ASC @b DESC …`), tie-breakers in order.
    pub(crate) sortby_more: Vec<(String, bool)>,
    pub(crate) offset: u64,
    pub(crate) limit: u64,
    /// PARAMS, raw bytes (vector blobs are binary; the parser reads the text of those the query
    /// substitutes).
    pub(crate) blobs: HashMap<String, Vec<u8>>,
    pub(crate) dialect: u32,
    /// DIALECT given explicitly.
    pub(crate) dialect_given: bool,
    /// LIMIT given explicitly (only then is it checked against MAXSEARCHRESULTS).
    pub(crate) limit_given: bool,
    /// MAXSEARCHRESULTS capped the page to nothing: RediSearch's pipeline counts the results
    /// after scoring them (`RPCounter`), unlike an explicit `LIMIT 0 0`.
    pub(crate) capped_to_count: bool,
    /// FORMAT EXPAND (RESP3, JSON): values as native replies.
    pub(crate) expand: bool,
    pub(crate) timeout_ms: u64,
    pub(crate) language: Option<crate::analysis::Language>,
}

/// `DIALECT d`.
pub(crate) fn parse_dialect(a: &mut Args) -> Result<u32> {
    let bad = || Error::new(format!("DIALECT requires a non negative integer >=1 and <= {MAX_DIALECT}"));
    let d = a.next_str("DIALECT").map_err(|_| Error::new("Need an argument for DIALECT"))?;
    let d = d.parse::<u32>().map_err(|_| bad())?;
    if !(1..=MAX_DIALECT).contains(&d) {
        return Err(bad());
    }
    Ok(d)
}

/// `PARAMS n k v …`, the values as raw bytes (vector blobs are binary; the query parser reads
/// the text of those it substitutes: [`crate::query::syntax::Params`]).
pub(crate) fn parse_params(a: &mut Args) -> Result<HashMap<String, Vec<u8>>> {
    let n = a.next_u64("PARAMS")? as usize;
    if !n.is_multiple_of(2) || n > a.remaining() {
        return Err(Error::new("Parameters must be specified in PARAM VALUE pairs"));
    }
    let mut p = HashMap::new();
    for _ in 0..n / 2 {
        let k = a.next_str("PARAMS")?;
        let v = a.next_bytes().unwrap_or_default();
        p.insert(k, v.to_vec());
    }
    Ok(p)
}

fn list(a: &mut Args, what: &str) -> Result<Vec<String>> {
    let n = a.next_u64(what)? as usize;
    if n > a.remaining() {
        return Err(Error::new(format!("Bad arguments for {what}: Expected an argument, but none provided")));
    }
    (0..n).map(|_| a.next_str(what)).collect()
}

pub(crate) fn parse_request(args: &[&[u8]], config: &Config) -> Result<SearchRequest> {
    let mut a = Args::new(args);
    let mut r = SearchRequest {
        query: a.next_str("query")?,
        no_content: false,
        verbatim: false,
        no_stopwords: false,
        with_scores: false,
        explain_score: false,
        with_raw_ids: false,
        without_count: false,
        count_given: false,
        with_payloads: false,
        with_sortkeys: false,
        filters: Vec::new(),
        geofilters: Vec::new(),
        inkeys: None,
        infields: None,
        returns: None,
        highlight: None,
        summarize: None,
        slop: None,
        inorder: false,
        scorer: Scorer::parse(&config.default_scorer).unwrap_or(Scorer::TfIdf),
        payload: None,
        sortby: None,
        sortby_more: Vec::new(),
        offset: 0,
        limit: 10,
        blobs: HashMap::new(),
        dialect: config.default_dialect,
        dialect_given: false,
        limit_given: false,
        capped_to_count: false,
        expand: false,
        timeout_ms: config.timeout_ms,
        language: None,
    };
    let mut tanh_factor = None;
    while let Some(tok) = a.peek() {
        if a.eat("NOCONTENT") {
            r.no_content = true;
        } else if a.eat("VERBATIM") {
            r.verbatim = true;
        } else if a.eat("NOSTOPWORDS") {
            r.no_stopwords = true;
        } else if a.eat("WITHSCORES") {
            r.with_scores = true;
        } else if a.eat("EXPLAINSCORE") {
            r.explain_score = true;
        } else if a.eat("WITHRAWIDS") {
            r.with_raw_ids = true;
        } else if a.eat("WITHCOUNT") {
            r.without_count = false;
            r.count_given = true;
        } else if a.eat("WITHOUTCOUNT") {
            r.without_count = true;
            r.count_given = true;
        } else if a.eat("WITHPAYLOADS") {
            r.with_payloads = true;
        } else if a.eat("WITHSORTKEYS") {
            r.with_sortkeys = true;
        } else if a.eat("INORDER") {
            r.inorder = true;
        } else if a.eat("FILTER") {
            if a.remaining() < 3 {
                return Err(Error::new("FILTER requires 3 arguments"));
            }
            let f = a.next_str("FILTER")?;
            let (lo, lo_incl) = bound(&a.next_str("FILTER")?, true)?;
            let (hi, hi_incl) = bound(&a.next_str("FILTER")?, false)?;
            r.filters.push((f, lo, lo_incl, hi, hi_incl));
        } else if a.eat("GEOFILTER") {
            if a.remaining() < 5 {
                return Err(Error::new("GEOFILTER requires 5 arguments"));
            }
            let f = a.next_str("GEOFILTER")?;
            let lon = a.next_f64("<lon>")?;
            let lat = a.next_f64("<lat>")?;
            let rad = a.next_f64("<radius>")?;
            let unit = a.next_str("GEOFILTER")?;
            let factor =
                unit_factor(&unit).ok_or_else(|| Error::new(format!("Unknown distance unit {unit}")))?;
            r.geofilters.push((f, lon, lat, rad * factor));
        } else if a.eat("INKEYS") {
            r.inkeys = Some(list(&mut a, "INKEYS")?.into_iter().map(String::into_bytes).collect());
        } else if a.eat("INFIELDS") {
            r.infields = Some(list(&mut a, "INFIELDS")?);
        } else if a.eat("RETURN") {
            let n = a.next_u64("RETURN")? as usize;
            if n > a.remaining() {
                return Err(Error::new("Bad arguments for RETURN: Expected an argument, but none provided"));
            }
            let mut fields = Vec::new();
            let mut consumed = 0;
            while consumed < n {
                let source = a.next_str("RETURN")?;
                consumed += 1;
                let mut name = source.clone();
                let as_next = a.peek().is_some_and(|p| p.eq_ignore_ascii_case(b"AS"));
                if as_next && consumed + 1 == n {
                    return Err(Error::new("RETURN path AS name - must be accompanied with NAME"));
                }
                if consumed + 2 <= n && as_next {
                    a.eat("AS");
                    name = a.next_str("RETURN")?;
                    consumed += 2;
                    if name.eq_ignore_ascii_case("AS") {
                        return Err(Error::new("Alias for RETURN cannot be `AS`"));
                    }
                }
                // A name already returned is the same output (RediSearch's lookup keys are
                // by name): `RETURN 4 $.n AS x x` returns x once, read from `$.n`.
                if !fields.iter().any(|f: &ReturnField| f.name == name) {
                    fields.push(ReturnField { source, name });
                }
            }
            if fields.is_empty() {
                r.no_content = true;
            }
            r.returns = Some(fields);
        } else if a.eat("HIGHLIGHT") {
            let mut fields = None;
            let (mut open, mut close) = ("<b>".to_string(), "</b>".to_string());
            loop {
                if a.eat("FIELDS") {
                    fields = Some(list(&mut a, "HIGHLIGHT")?);
                } else if a.eat("TAGS") {
                    open = a.next_str("TAGS")?;
                    close = a.next_str("TAGS")?;
                } else {
                    break;
                }
            }
            r.highlight = Some((fields, open, close));
        } else if a.eat("SUMMARIZE") {
            let mut fields = None;
            let mut s = Summary { frags: 3, len: 20, separator: "... ".into() };
            loop {
                if a.eat("FIELDS") {
                    fields = Some(list(&mut a, "SUMMARIZE")?);
                } else if a.eat("FRAGS") {
                    s.frags = a.next_u64("FRAGS")? as usize;
                } else if a.eat("LEN") {
                    s.len = a.next_u64("LEN")? as usize;
                } else if a.eat("SEPARATOR") {
                    s.separator = a.next_str("SEPARATOR")?;
                } else {
                    break;
                }
            }
            r.summarize = Some((fields, s));
        } else if a.eat("SLOP") {
            r.slop = Some(a.next_u64("SLOP")?.min(u64::from(u32::MAX / 4)) as u32);
        } else if a.eat("TIMEOUT") {
            r.timeout_ms = a.next_u64("TIMEOUT")?;
        } else if a.eat("LANGUAGE") {
            let l = a.next_str("LANGUAGE")?;
            r.language =
                Some(crate::analysis::Language::parse(&l).ok_or_else(|| Error::new("No such language"))?);
        } else if a.eat("PAYLOAD") {
            let p = a.next_bytes().ok_or_else(|| Error::new("Missing argument for option"))?;
            r.payload = Some(p.to_vec());
        } else if a.eat("EXPANDER") {
            if !known_expander(&a.next_str("option")?) {
                r.verbatim = true;
            }
        } else if a.eat("SCORER") {
            r.scorer = Scorer::parse(&a.next_str("SCORER")?)?;
        } else if a.eat("BM25STD_TANH_FACTOR") {
            let arg = if a.is_empty() { None } else { Some(a.next_str("BM25STD_TANH_FACTOR")?) };
            tanh_factor = Some(crate::query::score::parse_tanh_factor(arg.as_deref())?);
        } else if a.eat("SORTBY") {
            if r.sortby.is_some() {
                return Err(Error::new("Multiple SORTBY steps are not allowed"));
            }
            let f = a.next_str("SORTBY")?;
            let counted = a.peek().is_some_and(|p| p.starts_with(b"@"));
            if let (true, Ok(n)) = (counted, f.parse::<usize>()) {
                // The counted form, as FT.AGGREGATE's: `SORTBY 4 @a ASC @b DESC` (a count
                // followed by an `@property`; `SORTBY 1 ASC` sorts by a field named `1`, as in
                // RediSearch).
                let mut keys: Vec<(String, bool)> = Vec::new();
                let mut left = n;
                while left > 0 {
                    let tok = a.next_str("SORTBY")?;
                    left -= 1;
                    match tok.to_ascii_uppercase().as_str() {
                        "ASC" | "DESC" => match keys.last_mut() {
                            Some(k) => k.1 = tok.eq_ignore_ascii_case("ASC"),
                            None => return Err(Error::new("Bad arguments for SORTBY: expected a property")),
                        },
                        _ => keys.push((tok.strip_prefix('@').unwrap_or(&tok).to_string(), true)),
                    }
                }
                let mut keys = keys.into_iter();
                let Some(first) = keys.next() else {
                    return Err(Error::new("Bad arguments for SORTBY: expected a property"));
                };
                r.sortby = Some(first);
                r.sortby_more = keys.collect();
                continue;
            }
            let f = f.strip_prefix('@').unwrap_or(&f).to_string();
            let mut asc = true;
            if a.eat("DESC") {
                asc = false;
            } else {
                a.eat("ASC");
            }
            if a.eat("MAX") {
                return Err(Error::new("SORTBY MAX is not supported by FT.SEARCH"));
            }
            if a.eat("WITHCOUNT") {
                r.without_count = false;
                r.count_given = true;
            } else if a.eat("WITHOUTCOUNT") {
                r.without_count = true;
                r.count_given = true;
            }
            r.sortby = Some((f, asc));
        } else if a.eat("LIMIT") {
            r.offset = a.next_u64("LIMIT")?;
            r.limit = a.next_u64("LIMIT")?;
            r.limit_given = true;
        } else if a.eat("PARAMS") {
            r.blobs = parse_params(&mut a)?;
        } else if a.eat("DIALECT") {
            r.dialect = parse_dialect(&mut a)?;
            r.dialect_given = true;
        } else if a.eat("FORMAT") {
            let f = a.next_str("FORMAT").map_err(|_| Error::new("Need an argument for FORMAT"))?;
            if f.eq_ignore_ascii_case("EXPAND") {
                r.expand = true;
            } else if f.eq_ignore_ascii_case("STRING") {
                r.expand = false;
            } else {
                return Err(Error::new(format!("FORMAT {f} is not supported")));
            }
        } else if a.eat("ADDSCORES") {
            return Err(Error::new("ADDSCORES is not supported on FT.SEARCH"));
        } else {
            // Positions count from the query string (0), as in RediSearch's message.
            let at = args.len() - a.remaining();
            return Err(Error::new(format!("Unknown argument `{}` at position {at} for <main>", text(tok))));
        }
    }
    r.scorer = r.scorer.with_tanh_factor(tanh_factor.unwrap_or(config.bm25std_tanh_factor));
    if r.expand && r.dialect_given && r.dialect < 3 {
        return Err(Error::new("EXPAND format requires dialect 3 or greater"));
    }
    if r.explain_score && !r.with_scores {
        return Err(Error::new("EXPLAINSCORE must be accompanied with WITHSCORES"));
    }
    let max = config.max_search_results;
    if r.limit_given && r.limit > max {
        return Err(Error::new(format!("LIMIT exceeds maximum of {max}")));
    }
    if r.limit_given && r.offset > max {
        return Err(Error::new(format!("OFFSET exceeds maximum of {max}")));
    }
    // No result past the MAXSEARCHRESULTS-th is returned: `LIMIT 1 20` under 20 gives 19, the
    // default `LIMIT 0 10` under 0 only the count (as RediSearch 2.10 answers).
    // DIALECT 4 counts like WITHOUTCOUNT unless told otherwise (RediSearch's optimizer).
    if !r.count_given && r.dialect >= 4 {
        r.without_count = true;
    }
    let capped = r.limit.min(max.saturating_sub(r.offset));
    r.capped_to_count = capped == 0 && r.limit > 0;
    r.limit = capped;
    Ok(r)
}

/// A FILTER bound as RediSearch's `parseDoubleRange` reads it: `(` for exclusive, `-inf` only
/// as the lower bound and `inf`/`+inf` only as the upper, else a whole `strtod` number that
/// is not infinite (`Bad lower range: inf`).
fn bound(s: &str, is_min: bool) -> Result<(f64, bool)> {
    let (incl, v) = match s.strip_prefix('(') {
        Some(rest) => (false, rest),
        None => (true, s),
    };
    let unsigned = v.strip_prefix('+').unwrap_or(v);
    if is_min && v.eq_ignore_ascii_case("-inf") {
        return Ok((f64::NEG_INFINITY, incl));
    }
    if !is_min && unsigned.eq_ignore_ascii_case("inf") {
        return Ok((f64::INFINITY, incl));
    }
    let err = || Error::new(format!("Bad {} range: {v}", if is_min { "lower" } else { "upper" }));
    match parse_f64(v.trim_start()) {
        Some(x) if x.is_finite() => Ok((x, incl)),
        _ => Err(err()),
    }
}

/// Whether `name` is one of RediSearch's query expanders (`DEFAULT`, `SBSTEM`, `SYNONYM`,
/// `PHONETIC`, case-sensitive). Any other EXPANDER expands nothing, as if VERBATIM: RediSearch
/// finds no expander of that name and leaves the query as written.
pub(crate) fn known_expander(name: &str) -> bool {
    matches!(name, "DEFAULT" | "SBSTEM" | "SYNONYM" | "PHONETIC")
}
