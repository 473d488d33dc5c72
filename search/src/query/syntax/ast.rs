//! The syntax tree a query parses to: [`QueryAst`] and its parts (tag terms, numeric
//! bounds, vector clauses). Plain data, no index knowledge; [`crate::query::exec`] evaluates
//! it ([`crate::query::vector`] the vector clauses).

use crate::error::{Error, Result};

/// One value in a tag clause.
#[derive(Debug, Clone, PartialEq)]
pub enum TagTerm {
    /// Exact value.
    Exact(String),
    /// `foo*`.
    Prefix(String),
    /// `*foo`.
    Suffix(String),
    /// `*foo*`.
    Infix(String),
    /// `w'pattern'` (dialect ≥ 2; escapes kept).
    Wildcard(String),
    /// Dialect ≥ 2: words of one value with the empty string among them (`{foo ""}`): the
    /// value is the words joined by single spaces, as RediSearch's tag phrase is.
    Words(Vec<String>),
}

impl TagTerm {
    /// The value an exact term (or a run of words) looks up.
    pub fn exact_value(&self) -> Option<String> {
        match self {
            TagTerm::Exact(v) => Some(v.clone()),
            TagTerm::Words(w) => Some(w.join(" ")),
            _ => None,
        }
    }

    /// The tag term for value `v` written with a leading and/or trailing `*`.
    pub(super) fn of(v: String, lead_star: bool, trail_star: bool) -> TagTerm {
        match (lead_star, trail_star) {
            (false, false) => TagTerm::Exact(v),
            (false, true) => TagTerm::Prefix(v),
            (true, false) => TagTerm::Suffix(v),
            (true, true) => TagTerm::Infix(v),
        }
    }
}

/// A bound of a numeric range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumBound {
    /// Value (may be ±inf).
    pub value: f64,
    /// Inclusive?
    pub inclusive: bool,
}

/// The syntax tree of a query.
#[derive(Debug, Clone, PartialEq)]
pub enum QueryAst {
    /// `*`.
    MatchAll,
    /// A word as written (escapes kept for the tokenizer).
    Word(String),
    /// One term as the query gave it: not tokenized, not case-folded, never expanded
    /// (dialect ≥ 2: a number used as a term, `1.2e+3`; a `$param` whose value is a number,
    /// lower-cased).
    Verbatim(String),
    /// `foo*`.
    Prefix(String),
    /// `*foo`.
    Suffix(String),
    /// `*foo*`.
    Infix(String),
    /// `w'pattern'` (dialect ≥ 2): terms matching a glob (`*` any run, `?` one character,
    /// `\` escaping), escapes kept.
    Wildcard(String),
    /// `%foo%` with distance 1–3.
    Fuzzy(String, u32),
    /// `"a b c"` (raw text between the quotes).
    Phrase(String),
    /// Implicit AND.
    And(Vec<QueryAst>),
    /// `|`.
    Or(Vec<QueryAst>),
    /// `-x`.
    Not(Box<QueryAst>),
    /// `~x`.
    Optional(Box<QueryAst>),
    /// `@a|b:x`.
    Field(Vec<String>, Box<QueryAst>),
    /// `@t:{…}`.
    Tag(Vec<String>, Vec<TagTerm>),
    /// `@n:[min max]`.
    Numeric(String, NumBound, NumBound),
    /// `@g:[lon lat radius unit]`.
    Geo {
        /// Field.
        field: String,
        /// Longitude.
        lon: f64,
        /// Latitude.
        lat: f64,
        /// Radius in `unit`.
        radius: f64,
        /// `m`, `km`, `mi` or `ft`.
        unit: String,
    },
    /// `@g:[WITHIN $shape]` and the other predicates (dialect ≥ 2): the WKT is read when
    /// the query runs.
    GeoShape {
        /// Field.
        field: String,
        /// The predicate.
        op: crate::index::geoshape::ShapeOp,
        /// The shape's WKT (the parameter's value).
        wkt: String,
    },
    /// `ismissing(@f)`.
    Missing(String),
    /// The documents of these keys: FT.SEARCH's INKEYS option, never written in a query
    /// (see [`crate::query::global_filters`]).
    Keys(Vec<Vec<u8>>),
    /// `filter=>[KNN k @v $blob …]` (dialect ≥ 2, the query's root only).
    Knn(Box<KnnClause>),
    /// `@v:[VECTOR_RANGE r $blob]=>{$YIELD_DISTANCE_AS: d}` (dialect ≥ 2).
    VectorRange(Box<RangeClause>),
    /// `x => { $weight: w; $slop: s; $inorder: b; $phonetic: p }`.
    Attrs {
        /// The node.
        inner: Box<QueryAst>,
        /// `$weight`.
        weight: Option<f64>,
        /// `$slop`.
        slop: Option<u32>,
        /// `$inorder`.
        inorder: Option<bool>,
        /// `$phonetic`: phonetic matching asked for (`true`) or refused (`false`); either
        /// requires a PHONETIC field among the node's fields.
        phonetic: Option<bool>,
    },
}

/// `=>[KNN k @field $blob [EF_RUNTIME x] [EPSILON e] [HYBRID_POLICY p] [BATCH_SIZE n] [AS d]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct KnnClause {
    /// The filter (the query before `=>`; `*` for none).
    pub filter: Box<QueryAst>,
    /// K.
    pub k: usize,
    /// The VECTOR attribute.
    pub field: String,
    /// Name of the PARAMS entry holding the query blob.
    pub blob: String,
    /// `AS` / `$YIELD_DISTANCE_AS`: the distance field's name (default `__<field>_score`).
    pub score_as: Option<String>,
    /// The other options as given (upper-cased name, value), checked at execution against
    /// the field's algorithm: EF_RUNTIME, HYBRID_POLICY and BATCH_SIZE tune HNSW search.
    pub options: Vec<(String, String)>,
    /// The same options with their names as written (FT.EXPLAIN shows them so).
    pub written: Vec<(String, String)>,
}

impl Default for KnnClause {
    fn default() -> KnnClause {
        KnnClause {
            filter: Box::new(QueryAst::MatchAll),
            k: 0,
            field: String::new(),
            blob: String::new(),
            score_as: None,
            options: Vec::new(),
            written: Vec::new(),
        }
    }
}

/// `@field:[VECTOR_RANGE radius $blob]=>{$YIELD_DISTANCE_AS: d; $EPSILON: e}`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RangeClause {
    /// The VECTOR attribute.
    pub field: String,
    /// The radius (distances up to it match).
    pub radius: f64,
    /// Name of the PARAMS entry holding the query blob.
    pub blob: String,
    /// `$YIELD_DISTANCE_AS`.
    pub yield_as: Option<String>,
    /// The other attributes as given (upper-cased name, value), checked at execution.
    pub options: Vec<(String, String)>,
    /// The same attributes with their names as written (FT.EXPLAIN shows them so).
    pub written: Vec<(String, String)>,
}

impl KnnClause {
    /// Sets one option (inside `[…]`, or a `$name` attribute after it).
    pub fn set(&mut self, name: &str, value: String) -> Result<()> {
        let upper = name.to_ascii_uppercase();
        if value.is_empty() {
            return Err(Error::new(format!("Invalid value () for `{name}`")));
        }
        if upper == "AS" || upper == "YIELD_DISTANCE_AS" {
            self.score_as = Some(value);
        } else {
            self.written.push((name.to_string(), value.clone()));
            self.options.push((upper, value));
        }
        Ok(())
    }

    /// The name of the distance field this clause yields.
    pub fn score_name(&self) -> String {
        self.score_as.clone().unwrap_or_else(|| format!("__{}_score", self.field))
    }
}

impl RangeClause {
    /// Sets one `$name` attribute.
    pub fn set(&mut self, name: &str, value: String) -> Result<()> {
        let upper = name.to_ascii_uppercase();
        if value.is_empty() {
            return Err(Error::new(format!("Invalid value () for `{name}`")));
        }
        match upper.as_str() {
            "YIELD_DISTANCE_AS" => self.yield_as = Some(value),
            "EPSILON" | "EF_RUNTIME" | "HYBRID_POLICY" | "BATCH_SIZE" => {
                self.written.push((name.to_string(), value.clone()));
                self.options.push((upper, value))
            }
            _ => return Err(Error::new(format!("Invalid attribute {name}"))),
        }
        Ok(())
    }
}
