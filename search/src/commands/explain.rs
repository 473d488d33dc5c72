//! FT.EXPLAIN / FT.EXPLAINCLI: the parsed query tree as text, in RediSearch's layout.

use std::collections::HashMap;

use crate::args::Args;
use crate::catalog::Catalog;
use crate::commands::text;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::query::syntax::{parse, QueryAst, TagTerm};
use crate::reply::Reply;

/// `FT.EXPLAIN idx query [DIALECT d] [PARAMS n k v …]`.
pub(crate) fn ft_explain(cat: &mut Catalog, args: &[&[u8]], config: &Config, cli: bool) -> Result<Reply> {
    let name = text(args[0]);
    if cat.resolve(&name).is_none() {
        return Err(Error::new(format!("{name}: no such index")));
    }
    let query = text(args[1]);
    let mut a = Args::new(&args[2..]);
    let mut dialect = config.default_dialect;
    let mut params = HashMap::new();
    while !a.is_empty() {
        if a.eat("DIALECT") {
            dialect = super::search::parse_dialect(&mut a)?;
        } else if a.eat("PARAMS") {
            params = super::search::parse_params(&mut a)?;
        } else {
            a.next_bytes();
        }
    }
    let ast = parse(&query, dialect, &params)?;
    let mut lines = Vec::new();
    render(&ast, 0, &mut lines);
    if cli {
        Ok(Reply::Array(lines.into_iter().map(Reply::text).collect()))
    } else {
        Ok(Reply::text(lines.join("\n") + "\n"))
    }
}

fn render(ast: &QueryAst, depth: usize, out: &mut Vec<String>) {
    let pad = "  ".repeat(depth);
    let group = |name: &str, items: &[QueryAst], out: &mut Vec<String>| {
        out.push(format!("{pad}{name} {{"));
        for i in items {
            render(i, depth + 1, out);
        }
        out.push(format!("{pad}}}"));
    };
    match ast {
        QueryAst::MatchAll => out.push(format!("{pad}<WILDCARD>")),
        QueryAst::Word(w) if w.is_empty() => out.push(format!("{pad}\"\"")),
        QueryAst::Word(w) => out.push(format!("{pad}{}", w.to_lowercase())),
        QueryAst::Prefix(w) => out.push(format!("{pad}PREFIX{{{}*}}", w.to_lowercase())),
        QueryAst::Suffix(w) => out.push(format!("{pad}SUFFIX{{*{}}}", w.to_lowercase())),
        QueryAst::Infix(w) => out.push(format!("{pad}INFIX{{*{}*}}", w.to_lowercase())),
        QueryAst::Fuzzy(w, d) => out.push(format!("{pad}FUZZY{{{}}} distance {d}", w.to_lowercase())),
        QueryAst::Phrase(p) => out.push(format!("{pad}EXACT {{{}}}", p.to_lowercase())),
        QueryAst::And(items) => group("INTERSECT", items, out),
        QueryAst::Or(items) => group("UNION", items, out),
        QueryAst::Not(i) => group("NOT", std::slice::from_ref(i), out),
        QueryAst::Optional(i) => group("OPTIONAL", std::slice::from_ref(i), out),
        QueryAst::Field(fields, inner) => {
            out.push(format!("{pad}@{}: {{", fields.join("|")));
            render(inner, depth + 1, out);
            out.push(format!("{pad}}}"));
        }
        QueryAst::Tag(fields, terms) => {
            out.push(format!("{pad}TAG:@{} {{", fields.join("|")));
            for t in terms {
                let s = match t {
                    TagTerm::Exact(v) if v.is_empty() => "\"\"".to_string(),
                    TagTerm::Exact(v) => v.clone(),
                    TagTerm::Prefix(v) => format!("{v}*"),
                    TagTerm::Suffix(v) => format!("*{v}"),
                    TagTerm::Infix(v) => format!("*{v}*"),
                };
                out.push(format!("{pad}  {s}"));
            }
            out.push(format!("{pad}}}"));
        }
        QueryAst::Numeric(f, lo, hi) => out.push(format!(
            "{pad}NUMERIC {{{}{} <= @{f} <= {}{}}}",
            if lo.inclusive { "" } else { "(" },
            lo.value,
            hi.value,
            if hi.inclusive { "" } else { ")" }
        )),
        QueryAst::Geo { field, lon, lat, radius, unit } => {
            out.push(format!("{pad}GEO {field}:{{{lon},{lat} --> {radius} {unit}}}"))
        }
        QueryAst::Missing(f) => out.push(format!("{pad}ISMISSING{{{f}}}")),
        QueryAst::Attrs { inner, .. } => render(inner, depth, out),
        QueryAst::Knn(c) => {
            let what = format!(
                "{{K={} nearest vectors to `${}` in vector index associated with field @{}, yields distance as `{}`}}",
                c.k,
                c.blob,
                c.field,
                c.score_name()
            );
            if matches!(*c.filter, QueryAst::MatchAll) {
                out.push(format!("{pad}VECTOR {what}"));
            } else {
                out.push(format!("{pad}VECTOR {{"));
                render(&c.filter, depth + 1, out);
                out.push(format!("{pad}}} => {what}"));
            }
        }
        QueryAst::VectorRange(c) => out.push(format!(
            "{pad}VECTOR {{Vectors that are within {} distance radius from `${}` in vector index associated with field @{}{}}}",
            crate::aggregate::value::format_g(c.radius, 6),
            c.blob,
            c.field,
            c.yield_as.as_ref().map(|y| format!(", yields distance as `{y}`")).unwrap_or_default()
        )),
    }
}
