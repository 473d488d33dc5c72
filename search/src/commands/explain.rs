//! FT.EXPLAIN / FT.EXPLAINCLI: the parsed query tree as text, in RediSearch's layout.

use std::collections::HashMap;

use crate::analysis::{Language, STEM_PREFIX};
use crate::args::Args;
use crate::catalog::Catalog;
use crate::commands::text;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::index::{FieldIndex, Index};
use crate::query::syntax::{parse_in, unescape, QueryAst, TagTerm};
use crate::reply::Reply;

/// `FT.EXPLAIN idx query [VERBATIM] [DIALECT d] [PARAMS n k v …]`.
pub(crate) fn ft_explain(cat: &Catalog, args: &[&[u8]], config: &Config, cli: bool) -> Result<Reply> {
    let name = text(args[0]);
    let Some(resolved) = cat.resolve(&name) else {
        return Err(Error::new(format!("{name}: no such index")));
    };
    let resolved = resolved.to_string();
    let query = text(args[1]);
    let mut a = Args::new(&args[2..]);
    let mut dialect = config.default_dialect;
    let mut params = HashMap::new();
    let mut verbatim = false;
    let mut language = None;
    while !a.is_empty() {
        if a.eat("VERBATIM") {
            verbatim = true;
        } else if a.eat("EXPANDER") {
            let e = a.next_bytes().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
            verbatim |= !super::search::request::known_expander(&e);
        } else if a.eat("LANGUAGE") {
            let l = a.next_bytes().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
            language = Some(Language::parse(&l).ok_or_else(|| Error::new("No such language"))?);
        } else if a.eat("DIALECT") {
            dialect = super::search::parse_dialect(&mut a)?;
        } else if a.eat("PARAMS") {
            params = super::search::parse_params(&mut a)?;
        } else {
            a.next_bytes();
        }
    }
    let found = cat.index(&resolved);
    let ast = parse_in(&query, dialect, &params, found.map(|i| &i.spec.stopwords))?;
    let idx = found.ok_or_else(|| Error::new(format!("{name}: no such index")))?;
    let chinese = language.unwrap_or(idx.spec.language).is_chinese();
    let ex = Explainer { idx, verbatim, dialect, chinese };
    let mut lines = Vec::new();
    ex.node(&ast, 0, None, &Attrs::default(), false, &mut lines);
    if lines.is_empty() {
        lines.push("<empty>".to_string());
    }
    if cli {
        // One simple string per line, and an empty one after them (RediSearch splits the
        // text at each newline, the last one included).
        lines.push(String::new());
        Ok(Reply::Array(lines.into_iter().map(Reply::Simple).collect()))
    } else {
        Ok(Reply::text(lines.join("\n") + "\n"))
    }
}

/// Attributes (`=>{$weight; $slop; $inorder}`) to print on a node.
#[derive(Default, Clone)]
struct Attrs {
    weight: Option<f64>,
    slop: Option<u32>,
    inorder: Option<bool>,
    phonetic: Option<bool>,
}

impl Attrs {
    /// RediSearch's suffix after a node's closing brace: ` => { $weight: 2; $slop: 1; $inorder: true; }`.
    fn suffix(&self) -> String {
        let weight = self.weight.filter(|w| *w != 1.0);
        let inorder = self.inorder.unwrap_or(false);
        if weight.is_none() && self.slop.is_none() && !inorder {
            return String::new();
        }
        let mut s = " => {".to_string();
        if let Some(w) = weight {
            s.push_str(&format!(" $weight: {};", format_g(w)));
        }
        if let Some(sl) = self.slop {
            s.push_str(&format!(" $slop: {sl};"));
        }
        if inorder || self.slop.is_some() {
            s.push_str(&format!(" $inorder: {};", if inorder { "true" } else { "false" }));
        }
        s.push_str(" }");
        s
    }
}

/// `%g` for attribute weights.
fn format_g(w: f64) -> String {
    crate::aggregate::value::format_g(w, 6)
}

/// FT.EXPLAIN's renderer: RediSearch's `QueryNode_DumpSds` over folio's query tree, with the
/// expansions RediSearch's expander adds to each word (synonym groups `~g`, `+stem`, the stem).
struct Explainer<'a> {
    idx: &'a Index,
    verbatim: bool,
    /// v2 prints a quoted word as a one-word phrase (`EXACT {`); v1 as the word.
    dialect: u32,
    /// The query's language is Chinese: words expand to their segmented form, not stems.
    chinese: bool,
}

impl Explainer<'_> {
    /// `@f|g:` for a field mask other than "every field" (`@NULL:` for none).
    fn prefix(&self, mask: Option<u128>) -> String {
        let Some(m) = mask else { return String::new() };
        if m == 0 {
            return "@NULL:".to_string();
        }
        let names: Vec<&str> = self
            .idx
            .spec
            .fields
            .iter()
            .enumerate()
            .filter(|(i, _)| self.idx.text_ord(*i).is_some_and(|o| m & (1u128 << o) != 0))
            .map(|(_, f)| f.name.as_str())
            .collect();
        format!("@{}:", names.join("|"))
    }

    /// The text-field mask of `fields` (only TEXT fields have bits).
    fn mask_of(&self, fields: &[String]) -> u128 {
        fields
            .iter()
            .filter_map(|f| self.idx.spec.field(f).and_then(|(i, _)| self.idx.text_ord(i)))
            .fold(0u128, |m, o| m | (1u128 << o))
    }

    /// Query words of `raw` as the index tokenizes them, stopwords dropped.
    fn words(&self, raw: &str) -> Vec<String> {
        self.idx.query_words(raw, false)
    }

    /// The phonetic expansion of word `w` in the fields of `mask` (see [`Self::word`]).
    fn phonetic_code(&self, w: &str, mask: Option<u128>, attrs: &Attrs) -> Option<String> {
        let phonetic = self.idx.phonetic_fields();
        let applies = phonetic != 0 && mask.is_none_or(|m| m == 0 || m & phonetic != 0);
        if !applies || attrs.phonetic == Some(false) {
            return None;
        }
        crate::analysis::phonetic::query_term(w)
    }

    /// One word: its token line, or the UNION of it and its expansions.
    fn word(
        &self,
        w: &str,
        depth: usize,
        mask: Option<u128>,
        attrs: &Attrs,
        plain: bool,
        out: &mut Vec<String>,
    ) {
        let pad = "  ".repeat(depth);
        let pre = self.prefix(mask);
        let shown = if w.is_empty() { "\"\"" } else { w };
        let weight = attrs.weight.filter(|x| *x != 1.0).map(|x| format!(" => {{$weight: {};}}", format_g(x)));
        let token = format!("{shown}{}", weight.unwrap_or_default());
        let mut expansions = Vec::new();
        let mut cut: Vec<String> = Vec::new();
        if !plain && !self.verbatim && !w.is_empty() {
            expansions.extend(self.idx.synonyms.group_terms(w));
            // RediSearch's phonetic expander: the primary code, on PHONETIC fields (all
            // fields when none is named), unless `$phonetic: false`.
            expansions.extend(self.phonetic_code(w, mask, attrs));
            // RediSearch's stemmer expander adds the stem whatever the fields: NOSTEM only
            // keeps stems out of a field's index (2.10.5: `@t1:mars` on a NOSTEM field shows
            // `+mar` and `mar`).
            if self.chinese {
                // RediSearch's Chinese expander: the segmented words as a phrase, even when
                // the segmenter leaves the word whole.
                cut = crate::analysis::chinese::tokenize(w).into_iter().map(|t| t.text).collect();
            } else if let Some(st) = self.idx.stemmer.stem_always(w) {
                expansions.push(format!("{STEM_PREFIX}{st}"));
                if st != w {
                    expansions.push(st);
                }
            }
        }
        if expansions.is_empty() && cut.is_empty() {
            out.push(format!("{pad}{pre}{token}"));
            return;
        }
        // The union the stemmer or synonyms make carries the word's fields; the one the
        // Chinese expander makes carries none (RediSearch's `NewUnionNode`).
        let union_pre = if expansions.is_empty() { "" } else { pre.as_str() };
        out.push(format!("{pad}{union_pre}UNION {{"));
        out.push(format!("{pad}  {pre}{token}"));
        for e in expansions {
            out.push(format!("{pad}  {pre}{e}(expanded)"));
        }
        if !cut.is_empty() {
            out.push(format!("{pad}  INTERSECT {{"));
            for c in cut {
                out.push(format!("{pad}    {c}(expanded)"));
            }
            out.push(format!("{pad}  }}"));
        }
        out.push(format!("{pad}}}"));
    }

    /// A node with children: `NAME {` (or `NAME{` for NOT/OPTIONAL), children, `}`; nothing
    /// when no child is left (stopwords), the child alone when one is (INTERSECT/UNION).
    #[allow(clippy::too_many_arguments)]
    fn group(
        &self,
        name: &str,
        items: &[&QueryAst],
        depth: usize,
        mask: Option<u128>,
        attrs: &Attrs,
        plain: bool,
        collapse: bool,
        out: &mut Vec<String>,
    ) {
        // Rendered children, with the item each came from (stopword-only ones render nothing).
        let mut kids: Vec<(&QueryAst, Vec<String>)> = Vec::new();
        for it in items {
            let mut v = Vec::new();
            self.node(it, depth + 1, mask, &Attrs::default(), plain, &mut v);
            if !v.is_empty() {
                kids.push((it, v));
            }
        }
        if collapse && kids.len() == 1 && attrs.suffix().is_empty() {
            // A single remaining child stands for the node, one level up.
            if let Some((it, _)) = kids.first() {
                self.node(it, depth, mask, &Attrs::default(), plain, out);
            }
            return;
        }
        if kids.is_empty() {
            return;
        }
        let pad = "  ".repeat(depth);
        out.push(format!("{pad}{}{name}", self.prefix(mask)));
        for (_, k) in kids {
            out.extend(k);
        }
        out.push(format!("{pad}}}{}", attrs.suffix()));
    }

    fn node(
        &self,
        ast: &QueryAst,
        depth: usize,
        mask: Option<u128>,
        attrs: &Attrs,
        plain: bool,
        out: &mut Vec<String>,
    ) {
        let pad = "  ".repeat(depth);
        let pre = self.prefix(mask);
        let leaf =
            |text: String, out: &mut Vec<String>| out.push(format!("{pad}{pre}{text}{}", attrs.suffix()));
        match ast {
            QueryAst::MatchAll => leaf("<WILDCARD>".into(), out),
            QueryAst::Word(w) if w.is_empty() => self.word("", depth, mask, attrs, true, out),
            // RediSearch's verbatim token: as written, without expansions.
            QueryAst::Verbatim(w) => self.word(w, depth, mask, attrs, true, out),
            QueryAst::Word(w) => {
                let words = self.words(w);
                match words.as_slice() {
                    [] => {}
                    [one] => self.word(one, depth, mask, attrs, plain, out),
                    many => {
                        let items: Vec<QueryAst> = many.iter().map(|m| QueryAst::Word(m.clone())).collect();
                        let refs: Vec<&QueryAst> = items.iter().collect();
                        self.group("INTERSECT {", &refs, depth, mask, attrs, plain, true, out);
                    }
                }
            }
            QueryAst::Phrase(p) => {
                // Dialect 2 keeps a phrase's stopwords (`EXACT { hello the world }`).
                let words = if self.dialect >= 2 { self.idx.query_words(p, true) } else { self.words(p) };
                match words.as_slice() {
                    [] => {}
                    [one] if self.dialect < 2 => self.word(one, depth, mask, attrs, true, out),
                    many => {
                        out.push(format!("{pad}{pre}EXACT {{"));
                        for m in many {
                            self.word(m, depth + 1, mask, &Attrs::default(), true, out);
                        }
                        out.push(format!("{pad}}}{}", attrs.suffix()));
                    }
                }
            }
            // RediSearch shows these patterns as written (`PREFIX{CAF*}`); it folds them only
            // to walk its terms.
            QueryAst::Prefix(w) => leaf(format!("PREFIX{{{}*}}", unescape(w)), out),
            QueryAst::Suffix(w) => leaf(format!("SUFFIX{{*{}}}", unescape(w)), out),
            QueryAst::Infix(w) => leaf(format!("INFIX{{*{}*}}", unescape(w)), out),
            QueryAst::Wildcard(w) => leaf(format!("WILDCARD{{{}}}", unescape(w)), out),
            QueryAst::Fuzzy(w, _) => leaf(format!("FUZZY{{{}}}", unescape(w).to_ascii_lowercase()), out),
            QueryAst::And(items) => {
                let refs: Vec<&QueryAst> = items.iter().collect();
                self.group("INTERSECT {", &refs, depth, mask, attrs, plain, true, out)
            }
            QueryAst::Or(items) => {
                let refs: Vec<&QueryAst> = items.iter().collect();
                self.group("UNION {", &refs, depth, mask, attrs, plain, true, out)
            }
            QueryAst::Not(i) => self.group("NOT{", &[i.as_ref()], depth, mask, attrs, true, false, out),
            QueryAst::Optional(i) => {
                self.group("OPTIONAL{", &[i.as_ref()], depth, mask, attrs, true, false, out)
            }
            QueryAst::Field(fields, inner) => {
                let m = self.mask_of(fields) & mask.unwrap_or(u128::MAX);
                self.node(inner, depth, Some(m), attrs, plain, out)
            }
            QueryAst::Tag(fields, terms) => {
                // A tag node and its values carry the field mask of an enclosing modifier
                // (`@title:(x | @tag:{a})` prints `@title:TAG:@tag {` and `@title:a`).
                out.push(format!("{pad}{pre}TAG:@{} {{", fields.join("|")));
                // RediSearch prepares the values once the field's tag index exists (its first
                // document): case-folded unless CASESENSITIVE, and an exact value unescaped;
                // before that an exact value prints as the query wrote it (`free\ world`).
                let field = fields.first().and_then(|f| self.idx.spec.field(f));
                let exists = field.is_some_and(
                    |(i, _)| matches!(self.idx.fields.get(i), Some(FieldIndex::Tag(t)) if !t.dict.is_empty()),
                );
                let fold = exists && field.is_some_and(|(_, spec)| !spec.case_sensitive);
                let norm = |v: &String| if fold { v.to_ascii_lowercase() } else { v.clone() };
                let exact = |v: &String| if exists { norm(v) } else { escaped(v) };
                for t in terms {
                    if let TagTerm::Words(words) = t {
                        // RediSearch's tag phrase: an INTERSECT of its words.
                        out.push(format!("{pad}  {pre}INTERSECT {{"));
                        for w in words {
                            let shown = if w.is_empty() { "\"\"".to_string() } else { norm(w) };
                            out.push(format!("{pad}    {pre}{shown}"));
                        }
                        out.push(format!("{pad}  }}"));
                        continue;
                    }
                    let s = match t {
                        TagTerm::Exact(v) if v.is_empty() => "\"\"".to_string(),
                        TagTerm::Exact(v) => exact(v),
                        TagTerm::Prefix(v) => format!("PREFIX{{{}*}}", norm(v)),
                        TagTerm::Suffix(v) => format!("SUFFIX{{*{}}}", norm(v)),
                        TagTerm::Infix(v) => format!("INFIX{{*{}*}}", norm(v)),
                        TagTerm::Wildcard(v) => format!("WILDCARD{{{}}}", norm(v)),
                        TagTerm::Words(_) => continue,
                    };
                    out.push(format!("{pad}  {pre}{s}"));
                }
                out.push(format!("{pad}}}{}", attrs.suffix()));
            }
            QueryAst::Numeric(f, lo, hi) => out.push(format!(
                "{pad}NUMERIC {{{} {} @{f} {} {}}}{}",
                fmt_f(lo.value),
                if lo.inclusive { "<=" } else { "<" },
                if hi.inclusive { "<=" } else { "<" },
                fmt_f(hi.value),
                attrs.suffix()
            )),
            QueryAst::Geo { field, lon, lat, radius, unit } => out.push(format!(
                "{pad}GEO {field}:{{{},{} --> {} {}}}{}",
                fmt_f(*lon),
                fmt_f(*lat),
                fmt_f(*radius),
                unit.to_lowercase(),
                attrs.suffix()
            )),
            QueryAst::GeoShape { op, wkt, .. } => {
                out.push(format!("{pad}GEOSHAPE{{{} {wkt}}}{}", *op as u8, attrs.suffix()))
            }
            QueryAst::Missing(f) => leaf(format!("ISMISSING{{{f}}}"), out),
            // INKEYS is an FT.SEARCH option, which FT.EXPLAIN does not take.
            QueryAst::Keys(_) => leaf("IDS { }".into(), out),
            QueryAst::Attrs { inner, weight, slop, inorder, phonetic } => {
                let a = Attrs { weight: *weight, slop: *slop, inorder: *inorder, phonetic: *phonetic };
                self.node(inner, depth, mask, &a, plain, out)
            }
            QueryAst::Knn(_) | QueryAst::VectorRange(_) => self.vector(ast, depth, out),
        }
    }

    /// Vector clauses (KNN, VECTOR_RANGE).
    fn vector(&self, ast: &QueryAst, depth: usize, out: &mut Vec<String>) {
        let pad = "  ".repeat(depth);
        match ast {
        QueryAst::Knn(c) => {
            let what = format!(
                "{{K={} nearest vectors to `${}` in vector index associated with field @{}{}, yields distance as `{}`}}",
                c.k,
                c.blob,
                c.field,
                written(&c.written),
                c.score_name()
            );
            if matches!(*c.filter, QueryAst::MatchAll) {
                out.push(format!("{pad}VECTOR {what}"));
            } else {
                out.push(format!("{pad}VECTOR {{"));
                // RediSearch expands no word under a vector node.
                self.node(&c.filter, depth + 1, None, &Attrs::default(), true, out);
                out.push(format!("{pad}}} => {what}"));
            }
        }
        QueryAst::VectorRange(c) => out.push(format!(
            "{pad}VECTOR {{Vectors that are within {} distance radius from `${}` in vector index associated with field @{}{}{}}}",
            crate::aggregate::value::format_g(c.radius, 6),
            c.blob,
            c.field,
            written(&c.written),
            c.yield_as.as_ref().map(|y| format!(", yields distance as `{y}`")).unwrap_or_default()
        )),
        _ => {}
    }
    }
}

/// C's `%f`: six decimals, `inf`/`-inf`.
fn fmt_f(v: f64) -> String {
    if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{v:.6}")
    }
}

/// A vector clause's options as RediSearch's explain lists them: `, NAME = value` each, names
/// as written.
fn written(options: &[(String, String)]) -> String {
    options.iter().map(|(n, v)| format!(", {n} = {v}")).collect()
}

/// A tag value as a query writes it: punctuation and spaces escaped.
fn escaped(v: &str) -> String {
    let mut out = String::with_capacity(v.len() + 4);
    for c in v.chars() {
        if (c.is_ascii_punctuation() && c != '_') || c.is_whitespace() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
