//! FT.HYBRID's tail after COMBINE (RediSearch 8.4 `parse/hybrid_optional_args.c`,
//! `parse/hybrid_callbacks.c`): each item checked for its shape, with RediSearch's error
//! texts, and handed on in FT.AGGREGATE's syntax (LOAD steps first) for
//! [`crate::aggregate::AggregateRequest::parse_with`].
//!
//! Rules: LIMIT, SORTBY, NOSORT, WITHCURSOR, TIMEOUT and FORMAT at most once; PARAMS once, in
//! pairs; SORTBY and NOSORT exclude each other; DIALECT and EXPLAINSCORE are refused; an
//! unknown word is `<word>: Unknown argument`.

use super::request::{err, signed, text, unsigned, Cursor, HybridRequest, DIALECT_ERROR};
use crate::error::Result;

/// Takes `n` arguments after the keyword into `out`, or the ArgParser error for too few.
fn take(c: &mut Cursor<'_>, n: usize, name: &str, out: &mut Vec<Vec<u8>>) -> Result<()> {
    if n > c.left() {
        return Err(err(format!("{name}: Not enough arguments were provided based on argument count")));
    }
    for _ in 0..n {
        out.push(c.next().unwrap_or_default().to_vec());
    }
    Ok(())
}

/// A count argument (`LOAD n`, `GROUPBY n`, `SORTBY n`, `PARAMS n`).
fn count_of(c: &mut Cursor<'_>, name: &str) -> Result<usize> {
    let a = c.next().ok_or_else(|| err(format!("{name}: Expected an argument")))?;
    let n = unsigned(a).ok_or_else(|| err(format!("{name}: Failed to parse the argument count")))?;
    if n == 0 {
        return Err(err(format!("{name}: Invalid argument count")));
    }
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

/// The tail after COMBINE.
pub(super) fn parse(c: &mut Cursor<'_>, req: &mut HybridRequest, max_results: u64) -> Result<()> {
    let mut loads: Vec<Vec<u8>> = Vec::new();
    let mut steps: Vec<Vec<u8>> = Vec::new();
    let mut sortby = false;
    let mut seen: Vec<String> = Vec::new();
    let mut once = |name: &str| -> Result<()> {
        if seen.iter().any(|s| s == name) {
            return Err(err(format!("{name}: Argument specified multiple times")));
        }
        seen.push(name.to_string());
        Ok(())
    };
    while let Some(a) = c.next() {
        let word = text(a).to_ascii_uppercase();
        match word.as_str() {
            "LIMIT" => {
                once("LIMIT")?;
                if c.left() < 2 {
                    return Err(err("LIMIT: Not enough arguments were provided based on argument count"));
                }
                let o = c.next().and_then(unsigned);
                let o = o.ok_or_else(|| err("LIMIT offset must be a non-negative integer"))?;
                let n = c.next().and_then(unsigned);
                let n = n.ok_or_else(|| err("LIMIT count must be a non-negative integer"))?;
                if n == 0 && o != 0 {
                    return Err(err("The `offset` of the LIMIT must be 0 when `num` is 0"));
                }
                if n > max_results {
                    return Err(err(format!("LIMIT exceeds maximum of {max_results}")));
                }
                if o > i64::MAX as u64 - n {
                    return Err(err("LIMIT offset + count overflow"));
                }
                req.limit = Some((o, n));
                steps.extend([b"LIMIT".to_vec(), o.to_string().into_bytes(), n.to_string().into_bytes()]);
            }
            "SORTBY" => {
                once("SORTBY")?;
                if req.no_sort {
                    return Err(err("NOSORT is not allowed with SORTBY"));
                }
                let n = count_of(c, "SORTBY")?;
                steps.push(b"SORTBY".to_vec());
                steps.push(n.to_string().into_bytes());
                let from = steps.len();
                take(c, n, "SORTBY", &mut steps)?;
                for s in &steps[from..] {
                    let up = s.to_ascii_uppercase();
                    if up != b"ASC" && up != b"DESC" && s.first() != Some(&b'@') {
                        return Err(err(format!(
                            "Missing prefix: name requires '@' prefix, JSON path require '$' prefix, got: {} in SORTBY",
                            text(s)
                        )));
                    }
                }
                sortby = true;
            }
            "NOSORT" => {
                once("NOSORT")?;
                if sortby {
                    return Err(err("NOSORT is not allowed with SORTBY"));
                }
                req.no_sort = true;
            }
            "WITHCURSOR" => {
                once("WITHCURSOR")?;
                req.cursor = true;
                steps.push(b"WITHCURSOR".to_vec());
                while c.is("COUNT") || c.is("MAXIDLE") {
                    let name = text(c.next().unwrap_or_default()).to_ascii_uppercase();
                    let v = c
                        .next()
                        .ok_or_else(|| err(format!("Bad arguments for {name}: Expected an argument")))?;
                    let ok = unsigned(v).filter(|&n| n >= 1 && n <= u64::from(u32::MAX));
                    ok.ok_or_else(|| {
                        err(format!("Bad arguments for {name}: Value is outside acceptable bounds"))
                    })?;
                    steps.extend([name.into_bytes(), v.to_vec()]);
                }
            }
            "PARAMS" => {
                if !req.params.is_empty() {
                    return Err(err("Multiple PARAMS are not allowed. Parameters can be defined only once"));
                }
                let n = count_of(c, "PARAMS")?;
                if n % 2 != 0 {
                    return Err(err("Parameters must be specified in PARAM VALUE pairs"));
                }
                let mut ps = Vec::new();
                take(c, n, "PARAMS", &mut ps)?;
                let mut names: Vec<&[u8]> = Vec::new();
                for kv in ps.chunks(2) {
                    if names.contains(&kv[0].as_slice()) {
                        return Err(err(format!("Duplicate parameter `{}`", text(&kv[0]))));
                    }
                    names.push(&kv[0]);
                }
                req.params = ps;
            }
            "TIMEOUT" => {
                once("TIMEOUT")?;
                let v = c.next().ok_or_else(|| err("TIMEOUT: Expected an argument"))?;
                signed(v).filter(|&t| t >= 0).ok_or_else(|| err("TIMEOUT: Invalid value for argument"))?;
                req.timeout = Some(v.to_vec());
            }
            "DIALECT" => return Err(err(DIALECT_ERROR)),
            "EXPLAINSCORE" => return Err(err("EXPLAINSCORE is not yet supported by FT.HYBRID")),
            "FORMAT" => {
                once("FORMAT")?;
                let v = c.next().ok_or_else(|| err("FORMAT: Expected an argument"))?;
                if !(v.eq_ignore_ascii_case(b"STRING") || v.eq_ignore_ascii_case(b"EXPAND")) {
                    return Err(err("FORMAT: Invalid value for argument"));
                }
                steps.extend([b"FORMAT".to_vec(), v.to_vec()]);
            }
            "COMBINE" => return Err(err("COMBINE: Argument specified multiple times or out of order")),
            "LOAD" => {
                req.has_load = true;
                loads.push(b"LOAD".to_vec());
                if c.is("*") {
                    loads.push(c.next().unwrap_or_default().to_vec());
                    continue;
                }
                let n = count_of(c, "LOAD")?;
                loads.push(n.to_string().into_bytes());
                let from = loads.len();
                take(c, n, "LOAD", &mut loads)?;
                let mut i = from;
                while i < loads.len() {
                    let name = &loads[i];
                    if name.as_slice() == b"@__score"
                        && loads.get(i + 1).is_none_or(|a| !a.eq_ignore_ascii_case(b"AS"))
                    {
                        req.loads_score = true;
                    }
                    i += if loads.get(i + 1).is_some_and(|a| a.eq_ignore_ascii_case(b"AS")) { 3 } else { 1 };
                }
            }
            "GROUPBY" => {
                let n = count_of(c, "GROUPBY")?;
                steps.push(b"GROUPBY".to_vec());
                steps.push(n.to_string().into_bytes());
                let from = steps.len();
                take(c, n, "GROUPBY", &mut steps)?;
                if let Some(p) = steps[from..].iter().find(|p| p.first() != Some(&b'@')) {
                    let p = text(p);
                    return Err(err(format!(
                        "Bad arguments for GROUPBY: Unknown property `{p}`. Did you mean `@{p}`?"
                    )));
                }
                while c.is("REDUCE") {
                    steps.push(c.next().unwrap_or_default().to_vec());
                    let name =
                        c.next().ok_or_else(|| err("Bad arguments for REDUCE: Expected an argument"))?;
                    steps.push(name.to_vec());
                    let nargs =
                        c.next().ok_or_else(|| err("Bad arguments for REDUCE: Expected an argument"))?;
                    steps.push(nargs.to_vec());
                    if let Some(k) = unsigned(nargs) {
                        let k = usize::try_from(k).unwrap_or(usize::MAX);
                        if k > c.left() {
                            return Err(err(format!("Bad arguments for {}: Not enough arguments were provided based on argument count", text(name))));
                        }
                        for _ in 0..k {
                            steps.push(c.next().unwrap_or_default().to_vec());
                        }
                    }
                    if c.is("AS") {
                        steps.push(c.next().unwrap_or_default().to_vec());
                        let alias = c.next().ok_or_else(|| err("AS: Expected an argument"))?;
                        steps.push(alias.to_vec());
                    }
                }
            }
            "APPLY" => {
                let e = c.next().ok_or_else(|| err("APPLY: Expected an argument"))?;
                steps.extend([b"APPLY".to_vec(), e.to_vec()]);
                if c.is("AS") {
                    c.at += 1;
                    let alias = c.next().ok_or_else(|| err("AS needs argument"))?;
                    steps.extend([b"AS".to_vec(), alias.to_vec()]);
                }
            }
            "FILTER" => {
                let e = c.next().ok_or_else(|| err("FILTER: Expected an argument"))?;
                steps.extend([b"FILTER".to_vec(), e.to_vec()]);
            }
            _ => return Err(err(format!("{}: Unknown argument", text(a)))),
        }
    }
    req.tail = loads;
    req.tail.extend(steps);
    Ok(())
}
