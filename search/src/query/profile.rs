//! FT.PROFILE's view of query evaluation: one [`ProfileNode`] per evaluated node of the
//! query tree, with how many documents it matched and how long it took. folio evaluates a
//! query as bitmap algebra, not as RediSearch's lazy iterators, so a node's counter is the
//! number of documents the node matched (RediSearch's counts how often an iterator was read,
//! which for a child of an intersection can be fewer); the node types carry RediSearch's
//! names where folio's node is the same operation.

use std::time::{Duration, Instant};

use roaring::RoaringBitmap;

use crate::query::syntax::{unescape, NumBound, QueryAst, TagTerm};

/// One evaluated query node.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileNode {
    /// `TEXT`, `TAG`, `NUMERIC`, `GEO`, `UNION`, `INTERSECT`, `NOT`, `OPTIONAL`,
    /// `WILDCARD`, `EMPTY`, `VECTOR`, `MISSING`.
    pub kind: &'static str,
    /// A leaf's term (`Term`), a union's query type (`Query type`).
    pub label: Option<String>,
    /// How often RediSearch's iterator would have been read ([`super::replay`]); until the
    /// replay, the documents the node matched.
    pub counter: u64,
    /// The documents the node matched (a reader's `Size`).
    pub size: u64,
    /// Those documents (for the replay).
    pub docs: RoaringBitmap,
    /// A union that stops at the first child holding a document (RediSearch's `quickExit`:
    /// the expansions of a prefix, suffix, infix, pattern or fuzzy term, numeric and geo
    /// ranges; not an OR, a word's stems and synonyms, or a tag clause's values).
    pub quick: bool,
    /// Time spent evaluating the node, its children included.
    pub time: Duration,
    /// Evaluated children (unions, intersections; NOT and OPTIONAL have one).
    pub children: Vec<ProfileNode>,
    /// A numeric range reader's documents as RediSearch ids, in reading order (replaces
    /// `docs` for the replay: ranges hold the entries of deleted documents until a GC).
    pub ids: Option<Vec<u32>>,
    /// A numeric filter's field and bounds: FT.PROFILE shows it as the ranges of
    /// RediSearch's tree it reads ([`crate::index::numeric_tree`]).
    pub numeric: Option<Box<(String, NumBound, NumBound)>>,
    /// A radius filter's field, centre and radius in metres: FT.PROFILE shows it as the
    /// readers of RediSearch's geohash boxes ([`crate::index::numeric_tree`]).
    pub geo: Option<Box<(String, f64, f64, f64)>>,
}

impl ProfileNode {
    /// Whether a node of this kind is a leaf that reads one posting list (`Size` follows).
    pub fn is_reader(&self) -> bool {
        matches!(self.kind, "TEXT" | "TAG" | "NUMERIC" | "GEO")
    }

    /// Whether the node has a single child (`Child iterator`, not `Child iterators`): a KNN
    /// query's is its filter.
    pub fn single_child(&self) -> bool {
        matches!(self.kind, "NOT" | "OPTIONAL" | "VECTOR")
    }
}

/// What FT.PROFILE records while a query is evaluated: the nodes met so far at the current
/// depth; inactive outside FT.PROFILE, where every method is a no-op.
#[derive(Debug, Default)]
pub struct Recorder {
    nodes: Option<Vec<ProfileNode>>,
}

/// A node being evaluated: when it started and the nodes recorded before it at its depth.
#[derive(Debug)]
pub struct Frame {
    started: Instant,
    outer: Vec<ProfileNode>,
}

impl Recorder {
    /// A recorder that records (FT.PROFILE).
    pub fn active() -> Recorder {
        Recorder { nodes: Some(Vec::new()) }
    }

    /// Whether it records.
    pub fn is_active(&self) -> bool {
        self.nodes.is_some()
    }

    /// Starts recording the nodes a node's evaluation meets (`None` when inactive).
    pub fn open(&mut self) -> Option<Frame> {
        let outer = self.nodes.as_mut().map(std::mem::take)?;
        Some(Frame { started: Instant::now(), outer })
    }

    /// Records `ast`'s node (it matched `docs`; `None`: it was dropped, as a stopword) with
    /// the nodes met since [`Recorder::open`] as its children.
    pub fn close(&mut self, frame: Option<Frame>, ast: &QueryAst, docs: Option<&RoaringBitmap>) {
        let Some(Frame { started, outer }) = frame else { return };
        let children = self.nodes.replace(outer).unwrap_or_default();
        if let (Some(d), Some(nodes)) = (docs, self.nodes.as_mut()) {
            nodes.push(node(ast, d.clone(), started.elapsed(), children));
        }
    }

    /// Records `kind` readers of single terms (the expansions of a word, prefix or fuzzy
    /// term, the values of a tag clause): `docs` gives the documents of one term id.
    pub fn readers(
        &mut self,
        kind: &'static str,
        terms: &[(String, u32)],
        mut docs: impl FnMut(u32) -> RoaringBitmap,
    ) {
        let Some(nodes) = self.nodes.as_mut() else { return };
        for (t, id) in terms {
            let started = Instant::now();
            let d = docs(*id);
            nodes.push(reader(kind, t, d, started.elapsed()));
        }
    }

    /// The root's node, once evaluation is over.
    pub fn root(self) -> Option<ProfileNode> {
        self.nodes.and_then(|mut n| n.pop())
    }
}

/// True for nodes that are no operation of their own (field and attribute modifiers):
/// their child stands for them.
pub fn transparent(ast: &QueryAst) -> bool {
    matches!(ast, QueryAst::Field(..) | QueryAst::Attrs { .. })
}

/// The node for `ast`, which matched `docs` in `time`, with its children.
/// A reader that matched nothing is RediSearch's `EMPTY` (its term is not in the index).
pub fn node(ast: &QueryAst, docs: RoaringBitmap, time: Duration, children: Vec<ProfileNode>) -> ProfileNode {
    let counter = docs.len();
    let term = |s: &str| Some(unescape(s).to_ascii_lowercase());
    let (kind, label) = match ast {
        QueryAst::MatchAll => ("WILDCARD", None),
        QueryAst::Word(w) => ("TEXT", term(w)),
        QueryAst::Verbatim(w) => ("TEXT", Some(w.clone())),
        // RediSearch's union of a prefix, suffix or infix's expansions is a `QN_PREFIX` one,
        // labelled with the pattern as written (`PREFIX - CAF` for `*CAF*` too).
        QueryAst::Prefix(w) | QueryAst::Suffix(w) | QueryAst::Infix(w) => {
            ("UNION", Some(format!("PREFIX - {}", unescape(w))))
        }
        QueryAst::Wildcard(w) => ("UNION", Some(format!("WILDCARD - {}", unescape(w)))),
        QueryAst::Fuzzy(w, _) => ("UNION", Some(format!("FUZZY - {}", unescape(w).to_ascii_lowercase()))),
        QueryAst::Phrase(_) | QueryAst::And(_) => ("INTERSECT", None),
        QueryAst::Or(items) if items.is_empty() => ("EMPTY", None),
        QueryAst::Or(_) => ("UNION", Some("UNION".to_string())),
        QueryAst::Not(_) => ("NOT", None),
        QueryAst::Optional(_) => ("OPTIONAL", None),
        QueryAst::Tag(_, terms) => match terms.as_slice() {
            [t @ (TagTerm::Exact(_) | TagTerm::Words(_))] => ("TAG", t.exact_value()),
            [TagTerm::Prefix(v)] => ("UNION", Some(format!("TAG - {v}*"))),
            [TagTerm::Suffix(v)] => ("UNION", Some(format!("TAG - *{v}"))),
            [TagTerm::Infix(v)] => ("UNION", Some(format!("TAG - *{v}*"))),
            _ => ("UNION", Some("TAG".to_string())),
        },
        QueryAst::Numeric(_, lo, hi) => ("NUMERIC", Some(format!("{} - {}", g(lo.value), g(hi.value)))),
        QueryAst::Geo { lon, lat, radius, unit, .. } => {
            ("GEO", Some(format!("{},{} - {} {}", g(*lon), g(*lat), g(*radius), unit.to_lowercase())))
        }
        QueryAst::Missing(f) => ("MISSING", Some(f.clone())),
        // RediSearch's geometry iterator reports itself as an id list.
        QueryAst::GeoShape { .. } => ("ID-LIST", None),
        // FT.SEARCH's INKEYS (an intersection child, as the other legacy filters).
        QueryAst::Keys(_) => ("ID-LIST", None),
        QueryAst::Knn(_) | QueryAst::VectorRange(_) => ("VECTOR", None),
        QueryAst::Field(_, _) | QueryAst::Attrs { .. } => ("UNION", None),
    };
    // A word read through several expansions (stems, synonyms) is a union of them.
    let (kind, label) =
        if kind == "TEXT" && !children.is_empty() { ("UNION", Some("UNION".into())) } else { (kind, label) };
    // An expansion that found no term is no reader there either.
    let expansion = matches!(
        ast,
        QueryAst::Prefix(_)
            | QueryAst::Suffix(_)
            | QueryAst::Infix(_)
            | QueryAst::Wildcard(_)
            | QueryAst::Fuzzy(..)
    );
    let kind = if counter == 0
        && children.is_empty()
        && (expansion || matches!(kind, "TEXT" | "TAG" | "NUMERIC" | "GEO"))
    {
        "EMPTY"
    } else {
        kind
    };
    let label = if kind == "EMPTY" { None } else { label };
    let mut children = children;
    if matches!(ast, QueryAst::And(_)) {
        // RediSearch's intersection iterator reads its children fewest estimated results first.
        children.sort_by_key(estimate);
    }
    let quick = expansion || matches!(ast, QueryAst::Numeric(..) | QueryAst::Geo { .. });
    let numeric = match ast {
        QueryAst::Numeric(f, lo, hi) => Some(Box::new((f.clone(), *lo, *hi))),
        _ => None,
    };
    let geo = match ast {
        QueryAst::Geo { field, lon, lat, radius, unit } => {
            crate::index::geo::unit_factor(unit).map(|f| Box::new((field.clone(), *lon, *lat, radius * f)))
        }
        _ => None,
    };
    ProfileNode { kind, label, counter, size: counter, docs, quick, time, children, numeric, geo, ids: None }
}

/// A node's estimated number of results, as RediSearch's iterators estimate them: a union the
/// sum of its children's, an intersection 0 (its estimate divided by its child count in
/// integers), a negated or optional clause every document, a reader its documents.
pub(crate) fn estimate(n: &ProfileNode) -> u64 {
    match n.kind {
        "UNION" if !n.children.is_empty() => n.children.iter().map(estimate).sum(),
        "INTERSECT" => 0,
        "NOT" | "OPTIONAL" | "WILDCARD" => u64::MAX,
        _ => n.counter,
    }
}

/// A reader of one posting list (an expansion of a prefix, suffix or fuzzy term).
pub fn reader(kind: &'static str, term: &str, docs: RoaringBitmap, time: Duration) -> ProfileNode {
    let counter = docs.len();
    let label = Some(term.to_string());
    ProfileNode {
        kind,
        label,
        counter,
        size: counter,
        docs,
        quick: false,
        time,
        children: Vec::new(),
        numeric: None,
        geo: None,
        ids: None,
    }
}

/// A number as C's `%g` prints it (RediSearch's numeric range terms).
pub(crate) fn g(v: f64) -> String {
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v == 0.0 {
        return "0".into();
    }
    let exp = v.abs().log10().floor() as i32;
    if !(-4..6).contains(&exp) {
        let s = format!("{v:.5e}");
        let (mant, e) = s.split_once('e').unwrap_or((&s, "0"));
        let mant = trim_zeros(mant);
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let decimals = (5 - exp).max(0) as usize;
    trim_zeros(&format!("{v:.decimals$}")).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::g;

    #[test]
    fn percent_g() {
        assert_eq!(g(1.0), "1");
        assert_eq!(g(2.5), "2.5");
        assert_eq!(g(-20.0), "-20");
        assert_eq!(g(1234567.0), "1.23457e+06");
        assert_eq!(g(0.0001), "0.0001");
        assert_eq!(g(0.00001), "1e-05");
        assert_eq!(g(f64::NEG_INFINITY), "-inf");
    }
}
