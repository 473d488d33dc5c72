//! Property test of scores: random hashes written, rewritten and deleted, then single
//! words, field-restricted words and prefixes (quick-exit unions of up to a dozen
//! expansions) searched WITHSCORES; every document's TFIDF score must equal a brute-force
//! computation written here from RediSearch's formula (no index code is used by the oracle):
//! `weight x freq x idf / norm`, where `freq` counts every occurrence of the term in the
//! document, each weighted by its field's WEIGHT (when one of them is in a searched field),
//! `idf = floor(log2(1 + (N + 1) / df))`, with `df` counting the documents holding the term
//! and the versions holding it that left the index (overwritten or deleted: RediSearch keeps
//! their entries until its GC runs, which it does not here), `norm` is the document's largest
//! such frequency,
//! and a prefix takes its first expansion, in term order, the document holds in a searched
//! field. Exact phrases of distinct words are scored the same way, divided by RediSearch's
//! slop divisor computed here from the words' positions (which run on from one field to
//! the next). The frequencies the scorer reads are the term-major postings (index/freqs.rs):
//! this checks them after updates and deletes, and both quick-exit paths (few and many
//! expansions).

mod common;

use std::collections::BTreeMap;

use common::{Doc, Rng, View};
use proptest::prelude::*;
use proptest::test_runner::{Config as PtConfig, RngSeed};
use search::{Catalog, Config, Protocol, Reply};

/// Three-letter words (below MINSTEMLEN: no stems), a dozen of them starting with "ab".
const VOCAB: [&str; 18] = [
    "aba", "abb", "abc", "abd", "abe", "abf", "abg", "abh", "abi", "abj", "abk", "abl", "bcd", "cde", "xyz",
    "xya", "foo", "fob",
];
/// Field names and weights (`freq_weight`: an occurrence counts `max(1, (u32)weight)`).
const FIELDS: [(&str, u32); 2] = [("t1", 1), ("t2", 3)];

type TestDoc = [Vec<&'static str>; 2];

fn gen_doc(r: &mut Rng) -> TestDoc {
    let words = |r: &mut Rng| (0..r.below(7)).map(|_| VOCAB[r.below(VOCAB.len() as u64) as usize]).collect();
    [words(r), words(r)]
}

/// The weighted frequency of `word` in `d`, or `None` when it is in no field of `fields`.
fn freq(d: &TestDoc, word: &str, fields: &[usize]) -> Option<u32> {
    if !fields.iter().any(|&f| d[f].contains(&word)) {
        return None;
    }
    Some((0..2).map(|f| d[f].iter().filter(|w| **w == word).count() as u32 * FIELDS[f].1).sum())
}

fn norm(d: &TestDoc) -> u32 {
    VOCAB.iter().filter_map(|w| freq(d, w, &[0, 1])).max().unwrap_or(0).max(1)
}

/// Per word: the versions holding it that left the index.
type Retired = BTreeMap<&'static str, usize>;

fn idf(truth: &BTreeMap<String, TestDoc>, retired: &Retired, word: &str) -> f64 {
    let live = truth.values().filter(|d| freq(d, word, &[0, 1]).is_some()).count();
    let df = (live + retired.get(word).copied().unwrap_or(0)).max(1);
    (1.0 + (truth.len() + 1) as f64 / df as f64).log2().floor()
}

/// Expected scores by key for `words` (a word, or a prefix's expansions in term order).
fn expected(
    truth: &BTreeMap<String, TestDoc>,
    retired: &Retired,
    words: &[&str],
    fields: &[usize],
) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for (k, d) in truth {
        if let Some((w, f)) = words.iter().find_map(|w| freq(d, w, fields).map(|f| (*w, f))) {
            out.insert(k.clone(), f64::from(f) * idf(truth, retired, w) / f64::from(norm(d)));
        }
    }
    out
}

/// Expected scores of the exact phrase `words` (distinct words, both fields): documents
/// where the words follow each other, positions running on from `t1` into `t2`; the score
/// is the words' summed `freq x idf / norm`, divided by `isqrt(sum of squared minimal
/// distances between consecutive words' positions)`.
fn expected_phrase(
    truth: &BTreeMap<String, TestDoc>,
    retired: &Retired,
    words: &[&str],
) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for (k, d) in truth {
        let tokens: Vec<&str> = d[0].iter().chain(d[1].iter()).copied().collect();
        if !tokens.windows(words.len()).any(|w| w == words) {
            continue;
        }
        let at = |w: &str| -> Vec<i64> {
            (0..tokens.len()).filter(|&i| tokens[i] == w).map(|i| i as i64).collect()
        };
        let dist: i64 = words
            .windows(2)
            .map(|p| {
                let (a, b) = (at(p[0]), at(p[1]));
                let m = a.iter().flat_map(|x| b.iter().map(move |y| (x - y).abs())).min().unwrap_or(0);
                m * m
            })
            .sum();
        let divisor = if dist == 0 {
            (words.len() - 1).max(1) as f64
        } else {
            ((dist as f64).sqrt() as i64).max(1) as f64
        };
        let raw: f64 =
            words.iter().map(|w| f64::from(freq(d, w, &[0, 1]).unwrap_or(0)) * idf(truth, retired, w)).sum();
        out.insert(k.clone(), raw / f64::from(norm(d)) / divisor);
    }
    out
}

fn search(
    cat: &mut Catalog,
    store: &BTreeMap<Vec<u8>, Doc>,
    q: &str,
) -> Result<BTreeMap<String, f64>, TestCaseError> {
    let mut config = Config::default();
    let args: Vec<&[u8]> = vec![b"idx", q.as_bytes(), b"NOCONTENT", b"WITHSCORES", b"LIMIT", b"0", b"10000"];
    let reply = cat.execute("FT.SEARCH", &args, &View(store), &mut config, Protocol::Resp2);
    let Reply::Array(items) = &reply else { return Err(TestCaseError::fail(format!("{q}: {reply:?}"))) };
    let mut out = BTreeMap::new();
    for pair in items.get(1..).unwrap_or(&[]).chunks(2) {
        let (Some(Reply::Bulk(k)), Some(Reply::Double(score))) = (pair.first(), pair.get(1)) else {
            return Err(TestCaseError::fail(format!("{q}: {reply:?}")));
        };
        let score = *score;
        out.insert(String::from_utf8_lossy(k).into_owned(), score);
    }
    Ok(out)
}

/// The same documents with the same scores (to 1e-9).
fn same_scores(
    q: &str,
    got: &BTreeMap<String, f64>,
    want: &BTreeMap<String, f64>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>(), "documents of {}", q);
    for (k, s) in want {
        let g = got.get(k).copied().unwrap_or(f64::NAN);
        prop_assert!((g - s).abs() < 1e-9, "{}: {} scores {} (expected {})", q, k, g, s);
    }
    Ok(())
}

fn run_case(seed: u64) -> Result<(), TestCaseError> {
    let mut r = Rng(seed | 1);
    let mut store: BTreeMap<Vec<u8>, Doc> = BTreeMap::new();
    let mut truth: BTreeMap<String, TestDoc> = BTreeMap::new();
    let mut retired = Retired::new();
    // The version of `key` leaving the index: each of its words once.
    let retire = |retired: &mut Retired, old: Option<TestDoc>| {
        let mut words: Vec<&'static str> = old.into_iter().flat_map(|d| d.into_iter().flatten()).collect();
        words.sort_unstable();
        words.dedup();
        for w in words {
            *retired.entry(w).or_default() += 1;
        }
    };
    let mut cat = Catalog::new();
    let mut config = Config::default();
    let create: Vec<&[u8]> =
        ["idx", "SCHEMA", "t1", "TEXT", "t2", "TEXT", "WEIGHT", "3"].iter().map(|s| s.as_bytes()).collect();
    let reply = cat.execute("FT.CREATE", &create, &View(&store), &mut config, Protocol::Resp2);
    prop_assert_eq!(reply, Reply::ok());
    cat.scan_done();
    for _ in 0..200 + r.below(200) {
        let key = format!("k{}", r.below(80));
        if r.below(5) == 0 {
            store.remove(key.as_bytes());
            retire(&mut retired, truth.remove(&key));
            cat.on_key_removed(key.as_bytes());
        } else {
            let d = gen_doc(&mut r);
            let hash = (0..2).map(|f| (FIELDS[f].0.to_string(), d[f].join(" "))).collect();
            store.insert(key.as_bytes().to_vec(), Doc::Hash(hash));
            retire(&mut retired, truth.insert(key.clone(), d));
            cat.on_key_changed(key.as_bytes(), &View(&store));
        }
    }
    for _ in 0..30 {
        if r.below(5) == 0 {
            // An exact phrase of 2 to 5 distinct words, taken from a document when one has
            // such a run (so that phrases match), else random.
            let len = 2 + r.below(4) as usize;
            let runs: Vec<Vec<&str>> = truth
                .values()
                .flat_map(|d| {
                    let tokens: Vec<&str> = d[0].iter().chain(d[1].iter()).copied().collect();
                    tokens.windows(len).map(|w| w.to_vec()).collect::<Vec<_>>()
                })
                .filter(|w| (1..w.len()).all(|i| !w[..i].contains(&w[i])))
                .collect();
            let words: Vec<&str> = match runs.len() {
                0 => VOCAB[..len].to_vec(),
                n => runs[r.below(n as u64) as usize].clone(),
            };
            let q = format!("\"{}\"", words.join(" "));
            let want = expected_phrase(&truth, &retired, &words);
            let got = search(&mut cat, &store, &q)?;
            prop_assert!(runs.is_empty() || !want.is_empty(), "{} matches its own document", q);
            same_scores(&q, &got, &want)?;
            continue;
        }
        let (q, words, fields): (String, Vec<&str>, Vec<usize>) = match r.below(4) {
            0 => {
                let w = VOCAB[r.below(VOCAB.len() as u64) as usize];
                (w.to_string(), vec![w], vec![0, 1])
            }
            1 => {
                let w = VOCAB[r.below(VOCAB.len() as u64) as usize];
                let f = r.below(2) as usize;
                (format!("@{}:{w}", FIELDS[f].0), vec![w], vec![f])
            }
            2 => (
                "ab*".to_string(),
                VOCAB.iter().copied().filter(|w| w.starts_with("ab")).collect(),
                vec![0, 1],
            ),
            _ => {
                // A prefix with few expansions.
                let p = ["xy", "fo"][r.below(2) as usize];
                (format!("{p}*"), VOCAB.iter().copied().filter(|w| w.starts_with(p)).collect(), vec![0, 1])
            }
        };
        let mut sorted = words.clone();
        sorted.sort_unstable();
        let want = expected(&truth, &retired, &sorted, &fields);
        let got = search(&mut cat, &store, &q)?;
        same_scores(&q, &got, &want)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(PtConfig {
        cases: 32,
        rng_seed: RngSeed::Fixed(0x5C0E),
        failure_persistence: None,
        ..PtConfig::default()
    })]

    #[test]
    fn scores_match_brute_force(seed in any::<u64>()) {
        run_case(seed)?;
    }
}
