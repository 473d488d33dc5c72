//! FT.SEARCH's reply: a page's rows with their fields (RETURN, JSONPath projection, FORMAT
//! EXPAND), HIGHLIGHT/SUMMARIZE, sort keys, payloads, scores, in RESP2 and RESP3 shapes.

use crate::aggregate::value::format_g;
use crate::commands::expand::expand_json;
use crate::document::{DocumentSource, FieldValue, KeyType};
use crate::index::docs::Several;
use crate::index::extract::document_language;
use crate::index::record::SortRef;
use crate::index::Index;
use crate::query::highlight::{highlight, summarize, Matcher, Reading};
use crate::query::score::Explanation;
use crate::query::vector::{format_distance, Distances};
use crate::reply::{Protocol, Reply};
use crate::schema::FieldType;

use super::request::{ReturnField, SearchRequest};
use super::Key;

/// One result: what the reply shows of it, and what orders it among shards' results.
pub(crate) struct Row {
    pub(crate) key: Vec<u8>,
    pub(crate) score: f64,
    pub(crate) payload: Option<Vec<u8>>,
    pub(crate) sortkey: Option<Key>,
    pub(crate) fields: Option<Vec<(String, Reply)>>,
    /// The SORTBY value the result was ordered by (None without SORTBY).
    pub(crate) order: Option<Key>,
    /// The values of the further SORTBY fields (`SORTBY 4 @a ASC @b DESC`), in order.
    pub(crate) order_more: Vec<Option<Key>>,
    /// The KNN distance (KNN queries).
    pub(crate) distance: Option<f64>,
    /// EXPLAINSCORE's explanation of the score.
    pub(crate) explain: Option<Explanation>,
    /// WITHRAWIDS: the document's id (as FT.DEBUG DOCIDTOID gives it).
    pub(crate) raw_id: Option<i64>,
}

pub(super) struct RenderCtx<'a> {
    pub(super) idx: &'a Index,
    pub(super) req: &'a SearchRequest,
    pub(super) docs: &'a dyn DocumentSource,
    pub(super) highlight_terms: &'a std::collections::HashSet<String>,
    /// The dialect values are read with (EXPAND reads as dialect 3 at least).
    pub(super) dialect: u32,
    /// Vector distances of the query.
    pub(super) dist: &'a Distances,
}

impl<'a> RenderCtx<'a> {
    /// The (name, value) pairs to return for document `d`, or None when the key vanished:
    /// its distance fields first (those RETURN names, when given), then its fields.
    pub(super) fn load(&self, d: u32, key: &[u8]) -> Option<Vec<(String, Reply)>> {
        let fields = self.load_fields(d, key)?;
        if self.dist.fields.is_empty() {
            return Some(fields);
        }
        let mut out: Vec<(String, Reply)> = Vec::new();
        for (name, _) in &self.dist.fields {
            let Some(v) = self.dist.get(name, d) else { continue };
            let shown = match &self.req.returns {
                None => Some(name.clone()),
                Some(rs) => rs.iter().find(|r| r.source == *name).map(|r| r.name.clone()),
            };
            if let Some(shown) = shown {
                out.push((shown, self.distance_reply(v)));
            }
        }
        out.extend(fields);
        Some(out)
    }

    /// A distance as a reply: text (`%.12g`), or under FORMAT EXPAND a number (an integer
    /// when integral, as RediSearch sends it).
    fn distance_reply(&self, v: f64) -> Reply {
        if !self.req.expand {
            return Reply::text(format_distance(v));
        }
        expanded_number(v)
    }

    /// The document's own (name, value) pairs: under FORMAT STRING each value's text, under
    /// FORMAT EXPAND the same values typed ([`Shape::expand`]; EXPAND reads as DIALECT 3 at
    /// least, so a JSON value loaded from the document is the array of its matches).
    fn load_fields(&self, d: u32, key: &[u8]) -> Option<Vec<(String, Reply)>> {
        let json = self.idx.spec.on == KeyType::Json;
        let mut out: Vec<(String, Vec<u8>, Shape)> = match &self.req.returns {
            None => {
                // The SORTBY attribute comes first (RediSearch loads it for the sorter), under its
                // name, then the document's own fields without a second copy of that name.
                let mut out = Vec::new();
                if let Some((field, _)) = &self.req.sortby {
                    if let Some((fi, spec)) = self.idx.spec.field(field) {
                        // Hash: the sorter's value, which RediSearch takes from the sorting
                        // vector for a SORTABLE TEXT field (normalized unless UNF), else
                        // the field as HGETALL gives it (it loads the whole hash, which
                        // overwrites the sorter's value when the attribute is named as its
                        // hash field: `Hello` then, `hello` under another name).
                        let sorted = || match self.idx.docs.sortable(d, fi as u16)? {
                            SortRef::Str(s)
                                if !json && spec.kind == FieldType::Text && spec.name != spec.path =>
                            {
                                Some((s.as_bytes().to_vec(), Shape::Text))
                            }
                            _ => None,
                        };
                        let value = if json {
                            self.several_first(d, fi)
                                .or_else(|| self.served_text(d, fi, field))
                                .or_else(|| self.load_one_text(key, field, true))
                        } else {
                            sorted().or_else(|| self.load_raw(key, field).map(|v| (v, Shape::Text)))
                        };
                        if let Some((v, shape)) = value {
                            out.push((spec.name.clone(), v, shape));
                        }
                    }
                }
                for (k, v) in self.docs.whole(key)? {
                    // From DIALECT 3 a JSON document comes back as the array of its matches
                    // (none when the document is an empty array: `jsonIterToValue`).
                    let (v, shape) = if json && self.dialect >= 3 {
                        if empty_array(&v) {
                            continue;
                        }
                        ([&b"["[..], &v, b"]"].concat(), Shape::Matches)
                    } else {
                        (v, Shape::Text)
                    };
                    let k = String::from_utf8(k)
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                    if !out.iter().any(|(name, _, _)| *name == k) && !self.idx.spec.is_rule_field(&k) {
                        out.push((k, v, shape));
                    }
                }
                out
            }
            Some(fields) => {
                let mut v = Vec::new();
                // A returned SORTBY attribute comes first (RediSearch loads it for the sorter);
                // the others keep RETURN's order.
                let sort_attr =
                    self.req.sortby.as_ref().and_then(|(f, _)| self.idx.spec.field(f)).map(|(_, s)| &s.name);
                let is_sort = |rf: &ReturnField| {
                    sort_attr.is_some_and(|a| {
                        rf.name == *a || self.idx.spec.field(&rf.source).is_some_and(|(_, s)| s.name == *a)
                    })
                };
                for rf in
                    fields.iter().filter(|rf| is_sort(rf)).chain(fields.iter().filter(|rf| !is_sort(rf)))
                {
                    // `__key` is the document's key name (RediSearch's special lookup key).
                    if rf.source == "__key" {
                        v.push((rf.name.clone(), key.to_vec(), Shape::Text));
                    } else if let Some((val, shape)) = self.load_one_text(key, &rf.source, json) {
                        v.push((rf.name.clone(), val, shape));
                    }
                }
                v
            }
        };
        if self.req.highlight.is_some() || self.req.summarize.is_some() {
            let reading = self.reading(key);
            for (name, val, shape) in out.iter_mut() {
                let Some(src) = self.returned_field(name) else { continue };
                let Some((_, spec)) = self.idx.spec.field(&src) else { continue };
                if spec.kind != FieldType::Text || self.as_array_text(&src) || *shape == Shape::Matches {
                    continue;
                }
                let s = String::from_utf8_lossy(val).into_owned();
                let mut s2 = s.clone();
                // (An index without byte offsets, NOHL or NOOFFSETS, refused the request: see
                // `check_highlighting`.)
                let named = |fields: &Option<Vec<String>>| {
                    fields.as_ref().is_none_or(|f| f.contains(&src) || f.contains(name))
                };
                let tags = match &self.req.highlight {
                    Some((fields, open, close)) if named(fields) => Some((open.as_str(), close.as_str())),
                    _ => None,
                };
                match &self.req.summarize {
                    Some((fields, sm)) if named(fields) => {
                        // The fragments carry HIGHLIGHT's tags when both apply.
                        let idf = |t: &str| self.term_idf(t);
                        s2 = summarize(&s2, &self.matcher(&idf, reading), sm, tags);
                    }
                    _ => {
                        if let Some((open, close)) = tags {
                            s2 =
                                highlight(&s2, self.highlight_terms, &self.idx.stemmer, reading, open, close);
                        }
                    }
                }
                if s2 != s {
                    *val = s2.into_bytes();
                    *shape = Shape::Text;
                }
            }
        }
        let expand = self.req.expand;
        Some(
            out.into_iter()
                .map(|(k, v, shape)| {
                    let reply = match shape {
                        _ if expand => shape.expand(v),
                        Shape::Null => Reply::Nil,
                        _ => Reply::Bulk(v),
                    };
                    (k, reply)
                })
                .collect(),
        )
    }

    /// What SUMMARIZE matches and scores: the query's terms, each worth `score`.
    fn matcher<'m>(&'m self, score: &'m dyn Fn(&str) -> f64, reading: Reading) -> Matcher<'m> {
        Matcher {
            terms: self.highlight_terms,
            stemmer: &self.idx.stemmer,
            stopwords: &self.idx.spec.stopwords,
            score,
            reading,
        }
    }

    /// How `key`'s text is read for HIGHLIGHT and SUMMARIZE: cut as its language cuts it,
    /// matches exact under a Chinese query (LANGUAGE, else the index's).
    fn reading(&self, key: &[u8]) -> Reading {
        let spec = &self.idx.spec;
        let document = document_language(spec, key, self.docs).unwrap_or(spec.language);
        Reading { document, exact: self.req.language.unwrap_or(spec.language).is_chinese() }
    }

    /// A matched term's TFIDF IDF (what RediSearch's fragments score by).
    fn term_idf(&self, t: &str) -> f64 {
        let df = self.idx.text.dict.get(t).map_or(0, |id| self.idx.text.counted_doc_freq(id));
        crate::query::score::idf(self.idx.docs.len() + 1, df)
    }

    /// The schema attribute behind a returned name.
    fn returned_field(&self, name: &str) -> Option<String> {
        match &self.req.returns {
            Some(fields) => fields.iter().find(|f| f.name == name).map(|f| f.source.clone()),
            None => {
                // hash field names are paths; map to the attribute name
                self.idx.spec.fields.iter().find(|f| f.path == name || f.name == name).map(|f| f.name.clone())
            }
        }
    }

    /// The first match of `path`, as RediSearch's loader renders a JSON value before
    /// DIALECT 3: a string unquoted, a boolean as `1`/`0`, a number through a double
    /// (`RSValue_NumToString`: `1.0` comes back as `1`, `1e300` as `1e+300`), `null` as a
    /// nil reply, anything else as JSON text.
    fn load_json_first(&self, key: &[u8], path: &str) -> Option<(Vec<u8>, Shape)> {
        match self.docs.values(key, path).ok()?.into_iter().next() {
            Some(FieldValue::Null) => Some((Vec::new(), Shape::Null)),
            Some(FieldValue::String(s)) => Some((s.into_bytes(), Shape::Text)),
            Some(FieldValue::Number(n, _)) => Some(number(n)),
            Some(FieldValue::Bool(b)) => Some(number(if b { 1.0 } else { 0.0 })),
            _ => self.docs.json_at(key, path)?.into_iter().next().map(|t| (t.into_bytes(), Shape::Text)),
        }
    }

    /// A NUMERIC attribute's value as the sorter loads it, from the index: when the
    /// document's one value at its path is a number the index holds as it is (a served
    /// number), the loader would format that same number. (The row's document is the one the
    /// index read: a row whose document changed since is left out before rendering.)
    ///
    /// A SORTABLE one before DIALECT 3 is RediSearch's sorting vector's value, its first
    /// number when the document has several (an array, several matches), as the index holds
    /// it too.
    fn served_text(&self, d: u32, fi: usize, source: &str) -> Option<(Vec<u8>, Shape)> {
        let f = self.idx.spec.fields.get(fi)?;
        if f.kind != FieldType::Numeric || self.as_array_text(source) {
            return None;
        }
        let n = match self.idx.docs.sortable(d, fi as u16) {
            Some(SortRef::Num(n) | SortRef::Several(Several::Num(n))) if f.sortable && self.dialect < 3 => n,
            _ => self.idx.docs.get(d)?.served_number(fi as u16)?,
        };
        Some(number(n))
    }

    /// The value the sorter shows for a JSON SORTABLE attribute holding several values before
    /// DIALECT 3: its sorting vector's duo, shown as its first value (`serializeResult`),
    /// `Ab` for `["Ab","c"]` (from DIALECT 3 the duo shows every match, as the document
    /// read does).
    fn several_first(&self, d: u32, fi: usize) -> Option<(Vec<u8>, Shape)> {
        if self.dialect >= 3 {
            return None;
        }
        match self.idx.docs.sortable(d, fi as u16)? {
            SortRef::Several(Several::Str(s)) => Some((s.as_bytes().to_vec(), Shape::Text)),
            SortRef::Several(Several::Num(n)) => Some(number(n)),
            _ => None,
        }
    }

    /// A RETURN field (an attribute or a path), as RediSearch's loader gives it.
    /// - JSON: before DIALECT 3 the first match ([`Self::load_json_first`]); from DIALECT 3
    ///   every match as a JSON array, except for a SORTABLE attribute (TAG excepted) with a
    ///   single value, which RediSearch reads from its sorting vector: one value, as before
    ///   DIALECT 3.
    /// - Hash: the field's string, but a NUMERIC attribute's value goes through a double
    ///   (`hvalToValue` with `RLOOKUP_C_DBL`: `1.50` comes back as `1.5`, `0x10` as `16`),
    ///   unless it is not one (then the string as it is).
    ///
    /// With how the value is shaped (from DIALECT 3 a JSON value loaded from the document is
    /// the JSON array text of every match: [`Shape::Matches`]). From DIALECT 3 a JSON path
    /// whose first match is an empty array has no value at all: RediSearch's
    /// `jsonIterToValue` takes the first element of a first match that is an array, and
    /// finds none.
    fn load_one_text(&self, key: &[u8], source: &str, json: bool) -> Option<(Vec<u8>, Shape)> {
        let attr = self.idx.spec.field(source).map(|(_, f)| f);
        if json {
            let path = attr.map_or(source, |f| f.path.as_str());
            // RediSearch's loader looks up JSONPaths only (`*kk->path == '$'`).
            if !path.starts_with('$') {
                return None;
            }
            let matches = self.docs.json_at(key, path)?;
            if matches.is_empty() || self.dialect >= 3 && empty_array(matches[0].as_bytes()) {
                return None;
            }
            // A SORTABLE attribute holding several values (several matches, or one array)
            // sits in RediSearch's sorting vector as all of them, which DIALECT 3 prints as
            // the array of matches like any other field; a single value, as itself.
            let multi = matches.len() > 1 || matches[0].starts_with('[');
            if !(self.as_array_text(source) || self.dialect >= 3 && multi) {
                return self.load_json_first(key, path);
            }
            Some((format!("[{}]", matches.join(",")).into_bytes(), Shape::Matches))
        } else {
            let raw = self.load_raw(key, source)?;
            if attr.is_some_and(|f| f.kind == FieldType::Numeric) {
                if let Some(n) = crate::suggest::args::redis_double(&raw) {
                    return Some(number(n));
                }
            }
            Some((raw, Shape::Text))
        }
    }

    /// A hash field (an attribute's or its own name) as the hash holds it.
    fn load_raw(&self, key: &[u8], source: &str) -> Option<Vec<u8>> {
        let attr = self.idx.spec.field(source).map(|(_, f)| f);
        let path = attr.map(|f| f.path.as_str()).unwrap_or(source);
        let vals = self.docs.values(key, path).ok()?;
        match vals.into_iter().next()? {
            FieldValue::String(s) => Some(s.into_bytes()),
            FieldValue::Number(_, t) => Some(t.into_bytes()),
            FieldValue::Bool(b) => Some(b.to_string().into_bytes()),
            _ => None,
        }
    }

    /// Whether RETURN's `source` comes back from DIALECT 3 as a JSON array text (which
    /// RediSearch neither highlights nor summarizes: the value is not a string): any but a
    /// SORTABLE attribute, TAG included, whose value RediSearch takes from its sorting vector
    /// (a SORTABLE JSON attribute is always UNF, so its key is `RLOOKUP_F_VAL_AVAILABLE`
    /// and never loaded from the document): one value when the document has one.
    fn as_array_text(&self, source: &str) -> bool {
        self.dialect >= 3
            && self.idx.spec.on == KeyType::Json
            && !self.idx.spec.field(source).is_some_and(|(_, f)| f.sortable)
    }
}

/// What a loaded value is, for FORMAT EXPAND (RediSearch's `RSValue_SendReply` with
/// `SENDREPLY_FLAG_EXPAND`); FORMAT STRING sends its text whatever it is.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Shape {
    /// Text: a bulk string either way.
    Text,
    /// A number, its text `%.12g`-like under STRING; EXPAND sends the number itself.
    Number(f64),
    /// JSON `null` read as one value (RediSearch's null value): nil either way.
    Null,
    /// The JSON array text of a path's every match (a DIALECT 3 duo value read from the
    /// document); EXPAND sends the matches as native RESP3 values (`jsonIterToValueExpanded`).
    Matches,
}

impl Shape {
    /// The value under FORMAT EXPAND.
    fn expand(self, text: Vec<u8>) -> Reply {
        match self {
            Shape::Text => Reply::Bulk(text),
            Shape::Number(n) => expanded_number(n),
            Shape::Null => Reply::Nil,
            Shape::Matches => expand_json(&String::from_utf8_lossy(&text)),
        }
    }
}

/// A number as RediSearch sends it under FORMAT EXPAND: an integer when its double value is
/// one (`(long long)n == n`), else a double.
fn expanded_number(n: f64) -> Reply {
    if n.is_finite() && n.fract() == 0.0 && n.abs() < 9.2e18 {
        Reply::Int(n as i64)
    } else {
        Reply::Double(n)
    }
}

/// A loaded number: its text, and its shape.
fn number(n: f64) -> (Vec<u8>, Shape) {
    (crate::aggregate::value::format_number(n).into_bytes(), Shape::Number(n))
}

/// Whether a JSON match (compact JSON text) is an empty array.
fn empty_array(text: &[u8]) -> bool {
    text.trim_ascii() == b"[]"
}

fn sortkey_reply(k: &Option<Key>) -> Reply {
    match k {
        None | Some(Key::Several(None)) => Reply::Nil,
        Some(Key::Num(n)) => Reply::text(format!("#{}", format_g(*n, 17))),
        Some(Key::Str(s)) => Reply::text(format!("${s}")),
        // A duo's key is its first value (`reeval_key`).
        Some(Key::Several(Some(first))) => sortkey_reply(&Some((**first).clone())),
    }
}

pub(crate) fn render(
    req: &SearchRequest,
    total: u64,
    rows: Vec<Row>,
    warnings: &[String],
    proto: Protocol,
) -> Reply {
    // WITHOUTCOUNT: the results RediSearch's optimizer collected for the page, not every match
    // (test_optimizer.py); a count-only request (LIMIT 0 0) stays exact.
    let total = if req.without_count && req.limit > 0 {
        total.min(req.offset.saturating_add(req.limit))
    } else {
        total
    };
    let score_reply = |s: f64, explain: &Option<Explanation>| match explain {
        Some(e) if req.explain_score => Reply::Array(vec![Reply::Double(s), e.reply()]),
        _ => Reply::Double(s),
    };
    match proto {
        Protocol::Resp2 => {
            let per_row = 1
                + usize::from(req.with_scores)
                + usize::from(req.with_raw_ids)
                + usize::from(req.with_payloads)
                + usize::from(req.with_sortkeys)
                + usize::from(!req.no_content);
            let mut out = Vec::with_capacity(1 + rows.len() * per_row);
            out.push(Reply::Int(total as i64));
            for r in rows {
                out.push(Reply::Bulk(r.key));
                if req.with_scores {
                    out.push(score_reply(r.score, &r.explain));
                }
                if let Some(id) = r.raw_id.filter(|_| req.with_raw_ids) {
                    out.push(Reply::Int(id));
                }
                if req.with_payloads {
                    out.push(r.payload.clone().map_or(Reply::Nil, Reply::Bulk));
                }
                if req.with_sortkeys {
                    out.push(sortkey_reply(&r.sortkey));
                }
                if !req.no_content {
                    out.push(match r.fields {
                        Some(f) => Reply::Array(
                            f.into_iter().flat_map(|(k, v)| [Reply::Bulk(k.into_bytes()), v]).collect(),
                        ),
                        None => Reply::Nil,
                    });
                }
            }
            Reply::Array(out)
        }
        Protocol::Resp3 => {
            let results = rows
                .into_iter()
                .map(|r| {
                    let mut m = vec![("id", Reply::Bulk(r.key))];
                    if req.with_scores {
                        m.push(("score", score_reply(r.score, &r.explain)));
                    }
                    if let Some(id) = r.raw_id.filter(|_| req.with_raw_ids) {
                        // RediSearch names it `id` too, after the key's.
                        m.push(("id", Reply::Int(id)));
                    }
                    if req.with_payloads {
                        m.push(("payload", r.payload.clone().map_or(Reply::Nil, Reply::Bulk)));
                    }
                    if req.with_sortkeys {
                        m.push(("sortkey", sortkey_reply(&r.sortkey)));
                    }
                    if !req.no_content {
                        m.push((
                            "extra_attributes",
                            match r.fields {
                                Some(f) => Reply::Map(
                                    f.into_iter().map(|(k, v)| (Reply::Bulk(k.into_bytes()), v)).collect(),
                                ),
                                None => Reply::Nil,
                            },
                        ));
                    }
                    m.push(("values", Reply::Array(Vec::new())));
                    Reply::map(m)
                })
                .collect();
            // RediSearch 2.10's key order (not alphabetical).
            Reply::map(vec![
                ("attributes", Reply::Array(Vec::new())),
                ("total_results", Reply::Int(total as i64)),
                ("format", Reply::Simple(if req.expand { "EXPAND" } else { "STRING" }.into())),
                ("results", Reply::Array(results)),
                ("warning", Reply::Array(warnings.iter().map(|w| Reply::Simple(w.clone())).collect())),
            ])
        }
    }
}
