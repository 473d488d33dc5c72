//! Scores of filter queries (tags, numeric ranges, their intersections, and `*`) against a
//! brute-force computation of RediSearch's TFIDF and TFIDF.DOCNORM written here:
//! `sum(weight x freq x idf) / norm / slop` where a tag value counts frequency 1 with
//! `idf = floor(log2(1 + (N + 1) / df))`, a numeric range (and `*`) frequency 1 with IDF 1,
//! `norm` is the document's largest word frequency (TFIDF) or its number of words (DOCNORM) (0
//! for a document without words: RediSearch divides by it, `inf`), and an intersection without positions divides by its number of children minus one
//! (at least 1). The scorer answers all of these from per-query constants, as every document
//! holds every term (`ScoreContext::matching`). Random hashes are written, rewritten and
//! deleted first.

mod common;

use std::collections::BTreeMap;

use common::{Db, Rng};
use search::Reply;

const TAGS: [&str; 4] = ["a", "b", "c", "d"];
const WORDS: [&str; 3] = ["x", "y", "z"];

#[derive(Clone)]
struct Row {
    tags: Vec<&'static str>,
    n: i64,
    words: Vec<&'static str>,
}

fn gen_row(r: &mut Rng) -> Row {
    let mut tags: Vec<&str> = (0..1 + r.below(3)).map(|_| r.pick(&TAGS)).collect();
    tags.sort();
    tags.dedup();
    Row { tags, n: r.below(10) as i64, words: (0..r.below(6)).map(|_| r.pick(&WORDS)).collect() }
}

/// A query clause: its matches and what it adds to the weighted sum of a document.
enum Clause {
    Tag(&'static str),
    Range(i64, i64),
}

impl Clause {
    fn text(&self) -> String {
        match self {
            Clause::Tag(t) => format!("@g:{{{t}}}"),
            Clause::Range(lo, hi) => format!("@n:[{lo} {hi}]"),
        }
    }

    fn matches(&self, row: &Row) -> bool {
        match self {
            Clause::Tag(t) => row.tags.contains(t),
            Clause::Range(lo, hi) => (*lo..=*hi).contains(&row.n),
        }
    }

    /// `retired`: per tag, the versions holding it that left the index (RediSearch counts
    /// their entries until its GC runs, which it does not here).
    fn tfidf(&self, truth: &BTreeMap<String, Row>, retired: &BTreeMap<&str, usize>) -> f64 {
        match self {
            Clause::Tag(t) => {
                let live = truth.values().filter(|r| self.matches(r)).count();
                let df = (live + retired.get(t).copied().unwrap_or(0)).max(1);
                (1.0 + (truth.len() + 1) as f64 / df as f64).log2().floor()
            }
            Clause::Range(..) => 1.0,
        }
    }
}

fn norm(row: &Row, docnorm: bool) -> f64 {
    let n = if docnorm {
        row.words.len()
    } else {
        WORDS.iter().map(|w| row.words.iter().filter(|x| *x == w).count()).max().unwrap_or(0)
    };
    n as f64
}

/// Scores agree: within 1e-9, or both the same infinity, or both not a number.
fn agree(g: f64, w: f64) -> bool {
    (g - w).abs() < 1e-9 || g == w || (g.is_nan() && w.is_nan())
}

fn scores(reply: &Reply) -> BTreeMap<String, f64> {
    let Reply::Array(items) = reply else { panic!("{reply:?}") };
    items[1..]
        .chunks(2)
        .map(|p| match p {
            [Reply::Bulk(k), Reply::Double(s)] => (String::from_utf8_lossy(k).into_owned(), *s),
            [Reply::Bulk(k), Reply::Bulk(s)] => {
                (String::from_utf8_lossy(k).into_owned(), String::from_utf8_lossy(s).parse().expect("score"))
            }
            other => panic!("{other:?}"),
        })
        .collect()
}

fn clause(r: &mut Rng) -> Clause {
    if r.below(3) == 0 {
        let lo = r.below(10) as i64;
        Clause::Range(lo, lo + r.below(6) as i64)
    } else {
        Clause::Tag(r.pick(&TAGS))
    }
}

#[test]
fn filter_scores_match_the_formula() {
    let mut checked = 0;
    for seed in 1..=150u64 {
        let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut db = Db::new();
        assert_eq!(
            db.cmd(&["FT.CREATE", "idx", "ON", "HASH", "SCHEMA", "t", "TEXT", "g", "TAG", "n", "NUMERIC"]),
            Reply::ok()
        );
        let mut truth = BTreeMap::new();
        let mut retired: BTreeMap<&str, usize> = BTreeMap::new();
        let mut retire = |old: Option<Row>| {
            for t in old.map(|o| o.tags).unwrap_or_default() {
                *retired.entry(t).or_default() += 1;
            }
        };
        for _ in 0..(5 + r.below(40)) {
            let key = format!("k{}", r.below(30));
            if r.below(6) == 0 {
                db.del(&key);
                retire(truth.remove(&key));
                continue;
            }
            let row = gen_row(&mut r);
            let (tags, n, words) = (row.tags.join(","), row.n.to_string(), row.words.join(" "));
            db.hset(&key, &[("g", &tags), ("n", &n), ("t", &words)]);
            retire(truth.insert(key, row));
        }
        for _ in 0..8 {
            let clauses: Vec<Clause> = (0..1 + r.below(3)).map(|_| clause(&mut r)).collect();
            let docnorm = r.below(2) == 0;
            let query = clauses.iter().map(Clause::text).collect::<Vec<_>>().join(" ");
            let scorer = if docnorm { "TFIDF.DOCNORM" } else { "TFIDF" };
            let reply = db.cmd(&[
                "FT.SEARCH", "idx", &query, "NOCONTENT", "WITHSCORES", "SCORER", scorer, "LIMIT", "0", "1000",
            ]);
            let got = scores(&reply);
            let sum: f64 = clauses.iter().map(|c| c.tfidf(&truth, &retired)).sum();
            let slop = (clauses.len().saturating_sub(1)).max(1) as f64;
            let want: BTreeMap<String, f64> = truth
                .iter()
                .filter(|(_, row)| clauses.iter().all(|c| c.matches(row)))
                .map(|(k, row)| (k.clone(), sum / norm(row, docnorm) / slop))
                .collect();
            assert_eq!(got.len(), want.len(), "seed {seed} {query}");
            for (k, w) in &want {
                let g = got.get(k).copied().unwrap_or(-1.0);
                assert!(agree(g, *w), "seed {seed} {scorer} {query} {k}: got {g}, want {w}");
            }
            checked += want.len();
        }
        // `*` alone: one virtual result of frequency 1 per document, IDF 1.
        for (scorer, docnorm) in [("TFIDF", false), ("TFIDF.DOCNORM", true)] {
            let reply = db.cmd(&[
                "FT.SEARCH", "idx", "*", "NOCONTENT", "WITHSCORES", "SCORER", scorer, "LIMIT", "0", "1000",
            ]);
            let got = scores(&reply);
            assert_eq!(got.len(), truth.len(), "seed {seed} * {scorer}");
            for (k, row) in &truth {
                let (g, w) = (got.get(k).copied().unwrap_or(-1.0), 1.0 / norm(row, docnorm));
                assert!(agree(g, w), "seed {seed} {scorer} * {k}: got {g}, want {w}");
            }
        }
    }
    assert!(checked > 1000, "only {checked} scores checked");
}
