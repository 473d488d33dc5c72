//! Property test: random documents, updates and deletes, and random queries from the
//! grammar (terms, prefixes, fuzzy, phrases and SLOP/INORDER proximity, fields, tags,
//! numeric ranges, geo radii across the antimeridian, the INDEXEMPTY empty string, AND, OR,
//! NOT); the index's result set must equal a brute-force evaluation written independently
//! here (no index code is used by the oracle).

mod common;

use std::collections::BTreeMap;

use common::{Doc, Rng, View};
use proptest::prelude::*;
use proptest::test_runner::{Config as PtConfig, RngSeed};
use search::{Catalog, Config, Protocol, Reply};

/// Three-letter words (below MINSTEMLEN, so stemming never applies) and no stopwords.
const VOCAB: [&str; 10] = ["abc", "abd", "abx", "bcd", "cde", "xyz", "xya", "foo", "fob", "zzz"];
const TAGS: [&str; 5] = ["red", "green", "blue", "x y", "Mixed"];

#[derive(Clone, Debug)]
struct TestDoc {
    t1: Vec<String>,
    t2: Vec<String>,
    tags: Vec<String>,
    n: Option<i64>,
    /// A point near the antimeridian (GEO field `g`).
    g: Option<(f64, f64)>,
    /// TEXT INDEXEMPTY field `e`: absent, empty, or one word.
    e: Option<String>,
}

/// A longitude on either side of the antimeridian and a latitude near the equator, with
/// five decimals (the text the index parses).
fn gen_point(r: &mut Rng) -> (f64, f64) {
    let side = if r.below(2) == 0 { 179.0 } else { -180.0 };
    let lon = side + r.below(100_000) as f64 / 100_000.0;
    let lat = r.below(200_000) as f64 / 100_000.0 - 1.0;
    (format!("{lon:.5}").parse().unwrap_or(lon), format!("{lat:.5}").parse().unwrap_or(lat))
}

/// A random document; with `skewed` words, the first words of [`VOCAB`] are far more frequent
/// than the last (intersections of words of very different frequencies are read by seeking
/// the rarest word's documents in the others' postings).
fn gen_doc(r: &mut Rng, skewed: bool) -> TestDoc {
    let word = |r: &mut Rng| match skewed {
        true => {
            let top = r.below(VOCAB.len() as u64) + 1;
            VOCAB[r.below(top) as usize].to_string()
        }
        false => r.pick(&VOCAB).to_string(),
    };
    let words = |r: &mut Rng| (0..r.below(6)).map(|_| word(r)).collect::<Vec<_>>();
    let t1 = words(r);
    let t2 = words(r);
    let mut tags: Vec<String> = (0..r.below(3)).map(|_| r.pick(&TAGS).to_string()).collect();
    tags.dedup();
    let n = if r.below(5) == 0 { None } else { Some(r.below(11) as i64 - 5) };
    let g = if r.below(4) == 0 { None } else { Some(gen_point(r)) };
    let e = match r.below(3) {
        0 => None,
        1 => Some(String::new()),
        _ => Some(r.pick(&VOCAB).to_string()),
    };
    TestDoc { t1, t2, tags, n, g, e }
}

fn to_hash(d: &TestDoc) -> Doc {
    let mut h = vec![("t1".to_string(), d.t1.join(" ")), ("t2".to_string(), d.t2.join(" "))];
    if !d.tags.is_empty() {
        h.push(("tag".to_string(), d.tags.join(",")));
    }
    if let Some(n) = d.n {
        h.push(("n".to_string(), n.to_string()));
    }
    if let Some((lon, lat)) = d.g {
        h.push(("g".to_string(), format!("{lon:.5},{lat:.5}")));
    }
    if let Some(e) = &d.e {
        h.push(("e".to_string(), e.clone()));
    }
    Doc::Hash(h)
}

#[derive(Clone, Debug)]
enum Q {
    Term(String),
    Prefix(String),
    Fuzzy(String),
    Phrase(String, String),
    /// `(a b)=>{$slop: s; $inorder: b}`.
    Prox(String, String, u32, bool),
    /// `@g:[lon lat r km]`.
    Geo(f64, f64, f64),
    /// `@e:""`.
    Empty,
    Field(&'static str, Box<Q>),
    Tag(Vec<String>),
    Num(i64, bool, i64, bool),
    Cmp(&'static str, i64),
    And(Box<Q>, Box<Q>),
    Or(Box<Q>, Box<Q>),
    Not(Box<Q>),
}

fn gen_q(r: &mut Rng, depth: u32) -> Q {
    gen_in(r, depth, false)
}

/// A random query; `text` inside a field modifier, where dialect 2 takes text only (no tag,
/// numeric, geo or nested modifier: RediSearch's syntax error).
fn gen_in(r: &mut Rng, depth: u32, text: bool) -> Q {
    let k = if depth == 0 { r.below(6) } else { r.below(10) };
    let k = if text && (4..=6).contains(&k) { r.below(4) } else { k };
    match k {
        0 => Q::Term(r.pick(&VOCAB).to_string()),
        1 => Q::Prefix(r.pick(&VOCAB)[..2].to_string()),
        2 => Q::Fuzzy(r.pick(&VOCAB).to_string()),
        3 if r.below(2) == 0 => Q::Prox(
            r.pick(&VOCAB).to_string(),
            r.pick(&VOCAB).to_string(),
            r.below(4) as u32,
            r.below(2) == 0,
        ),
        3 => Q::Phrase(r.pick(&VOCAB).to_string(), r.pick(&VOCAB).to_string()),
        4 => Q::Tag((0..1 + r.below(2)).map(|_| r.pick(&TAGS).to_string()).collect()),
        5 if r.below(3) == 0 => {
            let ops = ["==", "!=", ">", ">=", "<", "<="];
            Q::Cmp(ops[r.below(6) as usize], r.below(13) as i64 - 6)
        }
        5 if r.below(3) == 0 => {
            let (lon, lat) = gen_point(r);
            Q::Geo(lon, lat, 1.0 + r.below(200) as f64)
        }
        5 if r.below(4) == 0 => Q::Empty,
        5 => {
            let a = r.below(13) as i64 - 6;
            let b = a + r.below(6) as i64;
            Q::Num(a, r.below(2) == 0, b, r.below(2) == 0)
        }
        6 => Q::Field(if r.below(2) == 0 { "t1" } else { "t2" }, Box::new(gen_in(r, depth - 1, true))),
        7 => Q::And(Box::new(gen_in(r, depth - 1, text)), Box::new(gen_in(r, depth - 1, text))),
        8 => Q::Or(Box::new(gen_in(r, depth - 1, text)), Box::new(gen_in(r, depth - 1, text))),
        _ => Q::Not(Box::new(gen_in(r, depth - 1, text))),
    }
}

fn render(q: &Q) -> String {
    match q {
        Q::Term(w) => w.clone(),
        Q::Prefix(p) => format!("{p}*"),
        Q::Fuzzy(w) => format!("%{w}%"),
        Q::Phrase(a, b) => format!("\"{a} {b}\""),
        // Parentheses, not quotes: a quoted phrase is exact whatever its attributes say.
        Q::Prox(a, b, s, o) => format!("(({a} {b})=>{{$slop: {s}; $inorder: {o}}})"),
        Q::Geo(lon, lat, km) => format!("@g:[{lon:.5} {lat:.5} {km} km]"),
        Q::Empty => "(@e:\"\")".to_string(),
        // Parenthesized whole: a prefix, fuzzy term or number right after `@f:(…)` or `-(…)`
        // would otherwise join the modifier's or negation's operand (RediSearch's grammar).
        Q::Field(f, inner) => format!("(@{f}:({}))", render(inner)),
        Q::Tag(v) => format!("@tag:{{{}}}", v.join(" | ")),
        Q::Num(a, ai, b, bi) => {
            format!("@n:[{}{a} {}{b}]", if *ai { "" } else { "(" }, if *bi { "" } else { "(" })
        }
        Q::Cmp(op, v) => format!("@n{op}{v}"),
        // An intersection with attributes on the left takes what follows as its own children
        // (RediSearch: `(a b)=>{$slop: 1} c` is one intersection of three with slop 1); the
        // oracle's proximity is over two words, so such a left side is made a union first.
        Q::And(a, b) if matches!(**a, Q::Prox(..)) => {
            let l = render(a);
            format!("(({l} | {l}) {})", render(b))
        }
        Q::And(a, b) => format!("({} {})", render(a), render(b)),
        Q::Or(a, b) => format!("({} | {})", render(a), render(b)),
        Q::Not(a) => format!("(-({}))", render(a)),
    }
}

fn lev(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let c = if a[i - 1] == b[j - 1] { 0 } else { 1 };
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + c);
        }
    }
    d[a.len()][b.len()]
}

/// Great-circle distance in meters on Redis's sphere.
fn haversine(lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let h = ((p2 - p1) / 2.0).sin().powi(2)
        + p1.cos() * p2.cos() * ((lon2 - lon1).to_radians() / 2.0).sin().powi(2);
    2.0 * 6372797.560856 * h.sqrt().asin()
}

/// Brute-force evaluation; `fields` are the text fields in scope.
fn oracle(q: &Q, d: &TestDoc, fields: &[&str]) -> bool {
    let e_words: Vec<String> = d.e.iter().filter(|e| !e.is_empty()).cloned().collect();
    let texts = || {
        fields.iter().map(|f| match *f {
            "t1" => &d.t1,
            "t2" => &d.t2,
            _ => &e_words,
        })
    };
    // Positions run on through the document's text fields in schema order (t1, t2, e); a
    // word takes part in a phrase when it occurs in a field in scope, with all its positions
    // (RediSearch's index records hold every offset of a term in the document).
    let all: Vec<&String> = d.t1.iter().chain(&d.t2).chain(d.e.iter().filter(|e| !e.is_empty())).collect();
    let everywhere = |w: &str| -> Vec<i64> {
        if !texts().any(|t| t.iter().any(|x| x == w)) {
            return Vec::new();
        }
        all.iter().enumerate().filter(|(_, x)| x.as_str() == w).map(|(i, _)| i as i64 + 1).collect()
    };
    // In order: b at or after a with at most `slop` words between (the same position counts,
    // so "a a" matches one a); unordered: two different positions at most slop + 1 apart.
    let near = |a: &str, b: &str, slop: i64, inorder: bool| {
        let (pa, pb) = (everywhere(a), everywhere(b));
        pa.iter().any(|&i| {
            pb.iter().any(|&j| {
                if inorder {
                    j >= i && j - i - 1 <= slop
                } else {
                    i != j && (i - j).abs() - 1 <= slop
                }
            })
        })
    };
    match q {
        Q::Prox(a, b, slop, inorder) => near(a, b, i64::from(*slop), *inorder),
        Q::Geo(lon, lat, km) => d.g.is_some_and(|(x, y)| haversine(*lon, *lat, x, y) <= km * 1000.0),
        Q::Empty => fields.contains(&"e") && d.e.as_deref() == Some(""),
        Q::Term(w) => texts().any(|t| t.contains(w)),
        Q::Prefix(p) => texts().any(|t| t.iter().any(|x| x.starts_with(p.as_str()))),
        Q::Fuzzy(w) => texts().any(|t| t.iter().any(|x| lev(x, w) <= 1)),
        Q::Phrase(a, b) => near(a, b, 0, true),
        Q::Field(f, inner) => {
            let scoped: Vec<&str> = fields.iter().copied().filter(|x| x == f).collect();
            oracle(inner, d, &scoped)
        }
        Q::Tag(v) => v.iter().any(|t| d.tags.iter().any(|x| x.to_lowercase() == t.to_lowercase())),
        Q::Num(a, ai, b, bi) => {
            d.n.is_some_and(|n| (if *ai { n >= *a } else { n > *a }) && (if *bi { n <= *b } else { n < *b }))
        }
        Q::Cmp(op, v) => match (*op, d.n) {
            ("!=", n) => n != Some(*v),
            (_, None) => false,
            ("==", Some(n)) => n == *v,
            (">", Some(n)) => n > *v,
            (">=", Some(n)) => n >= *v,
            ("<", Some(n)) => n < *v,
            (_, Some(n)) => n <= *v,
        },
        Q::And(a, b) => oracle(a, d, fields) && oracle(b, d, fields),
        Q::Or(a, b) => oracle(a, d, fields) || oracle(b, d, fields),
        Q::Not(a) => !oracle(a, d, fields),
    }
}

/// A field-restricted intersection of words (the shape whose words are looked up among the
/// documents holding all of them when their terms are dense): two or three words, one of
/// them maybe negated, maybe beside a word of the other field.
fn gen_field_words(r: &mut Rng) -> Q {
    let word = |r: &mut Rng| Box::new(Q::Term(r.pick(&VOCAB).to_string()));
    let mut inner = Q::And(word(r), word(r));
    match r.below(4) {
        0 => inner = Q::And(Box::new(inner), word(r)),
        1 => inner = Q::And(Box::new(inner), Box::new(Q::Not(word(r)))),
        _ => {}
    }
    let field = Q::Field(if r.below(2) == 0 { "t1" } else { "t2" }, Box::new(inner));
    match r.below(3) {
        0 => Q::And(Box::new(field), Box::new(Q::Field("t2", word(r)))),
        _ => field,
    }
}

/// An intersection of two or three words (any field), maybe under NOT or beside a tag.
fn gen_words(r: &mut Rng) -> Q {
    let word = |r: &mut Rng| Box::new(Q::Term(r.pick(&VOCAB).to_string()));
    let mut q = Q::And(word(r), word(r));
    match r.below(4) {
        0 => q = Q::And(Box::new(q), word(r)),
        1 => q = Q::And(Box::new(q), Box::new(Q::Tag(vec![r.pick(&TAGS).to_string()]))),
        2 => q = Q::Not(Box::new(q)),
        _ => {}
    }
    q
}

fn run_case(seed: u64) -> Result<(), TestCaseError> {
    run_sized(seed, 150, 300 + (seed % 300) as usize, 60, seed.is_multiple_of(2))
}

/// `ops` random writes and deletes over `keys` keys, then `queries` random queries (half of
/// them field-restricted word intersections when the index holds enough documents for
/// dense terms), each checked against the oracle; `skewed`: see [`gen_doc`].
fn run_sized(seed: u64, keys: u64, ops: usize, queries: usize, skewed: bool) -> Result<(), TestCaseError> {
    let mut r = Rng(seed | 1);
    let mut store: BTreeMap<Vec<u8>, Doc> = BTreeMap::new();
    let mut truth: BTreeMap<String, TestDoc> = BTreeMap::new();
    let mut cat = Catalog::new();
    let mut config = Config::default();
    let create: Vec<&[u8]> = [
        "idx", "SCHEMA", "t1", "TEXT", "t2", "TEXT", "tag", "TAG", "n", "NUMERIC", "g", "GEO", "e", "TEXT",
        "INDEXEMPTY",
    ]
    .iter()
    .map(|s| s.as_bytes())
    .collect();
    let view = View(&store);
    let reply = cat.execute("FT.CREATE", &create, &view, &mut config, Protocol::Resp2);
    prop_assert_eq!(reply, Reply::ok());
    cat.scan_done();
    for _ in 0..ops {
        let key = format!("k{}", r.below(keys));
        if r.below(6) == 0 {
            store.remove(key.as_bytes());
            truth.remove(&key);
            cat.on_key_removed(key.as_bytes());
        } else {
            let d = gen_doc(&mut r, skewed);
            store.insert(key.as_bytes().to_vec(), to_hash(&d));
            truth.insert(key.clone(), d);
            cat.on_key_changed(key.as_bytes(), &View(&store));
        }
    }
    for _ in 0..queries {
        let q = match r.below(2) == 0 {
            true if keys > 1000 => gen_field_words(&mut r),
            true if skewed => gen_words(&mut r),
            _ => gen_q(&mut r, 3),
        };
        let text = render(&q);
        let mut expected: Vec<String> =
            truth.iter().filter(|(_, d)| oracle(&q, d, &["t1", "t2", "e"])).map(|(k, _)| k.clone()).collect();
        expected.sort();
        let mut args: Vec<&[u8]> =
            vec![b"idx", text.as_bytes(), b"NOCONTENT", b"LIMIT", b"0", b"10000", b"DIALECT", b"2"];
        if skewed && r.below(2) == 0 {
            // Sorted by a field, no score is read: intersections take other ways then.
            args.extend([b"SORTBY".as_slice(), b"n"]);
        }
        let reply = cat.execute("FT.SEARCH", &args, &View(&store), &mut config, Protocol::Resp2);
        let Reply::Array(items) = &reply else {
            return Err(TestCaseError::fail(format!("query {text}: {reply:?}")));
        };
        let mut got: Vec<String> = items
            .iter()
            .skip(1)
            .filter_map(|x| match x {
                Reply::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
                _ => None,
            })
            .collect();
        got.sort();
        prop_assert_eq!(items.first(), Some(&Reply::Int(expected.len() as i64)), "total for {}", text);
        prop_assert_eq!(got, expected, "query {}", text);
    }
    Ok(())
}

proptest! {
    #![proptest_config(PtConfig {
        cases: 48,
        rng_seed: RngSeed::Fixed(0x5EA4C4),
        failure_persistence: None,
        ..PtConfig::default()
    })]

    #[test]
    fn index_matches_brute_force(seed in any::<u64>()) {
        run_case(seed)?;
    }
}

proptest! {
    #![proptest_config(PtConfig {
        cases: 4,
        rng_seed: RngSeed::Fixed(0xDE45E),
        failure_persistence: None,
        ..PtConfig::default()
    })]

    /// Thousands of documents over ten words: every term is kept as a bitmap too (dense),
    /// which field-restricted intersections read differently.
    #[test]
    fn dense_terms_match_brute_force(seed in any::<u64>()) {
        run_sized(seed, 6000, 7000, 40, false)?;
    }
}
