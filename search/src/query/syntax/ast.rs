//! The syntax tree a query parses to: [`QueryAst`] and its parts (tag terms, numeric
//! bounds). Plain data, no index knowledge; [`crate::query::exec`] evaluates it.

use crate::query::vector::{KnnClause, RangeClause};

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
}

impl TagTerm {
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
    /// `foo*`.
    Prefix(String),
    /// `*foo`.
    Suffix(String),
    /// `*foo*`.
    Infix(String),
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
    /// `ismissing(@f)`.
    Missing(String),
    /// The documents of these keys: FT.SEARCH's INKEYS option, never written in a query
    /// (see [`crate::query::global_filters`]).
    Keys(Vec<Vec<u8>>),
    /// `filter=>[KNN k @v $blob …]` (dialect ≥ 2, the query's root only).
    Knn(Box<KnnClause>),
    /// `@v:[VECTOR_RANGE r $blob]=>{$YIELD_DISTANCE_AS: d}` (dialect ≥ 2).
    VectorRange(Box<RangeClause>),
    /// `x => { $weight: w; $slop: s; $inorder: b }`.
    Attrs {
        /// The node.
        inner: Box<QueryAst>,
        /// `$weight`.
        weight: Option<f64>,
        /// `$slop`.
        slop: Option<u32>,
        /// `$inorder`.
        inorder: Option<bool>,
    },
}
