//! Property test of SORTBY on a SORTABLE NUMERIC field: over hashes written, rewritten and
//! deleted, `FT.SEARCH q SORTBY n ASC|DESC LIMIT o k` must be the page a naive sort gives:
//! numbers in order (-0 equal to 0), equal numbers in the order of their last write (RediSearch
//! gives a rewritten document a new id) reversed for DESC, documents without the field last.
//! Runs with every document holding a number (the integer-keyed path) and with some
//! documents lacking it (the general path).

mod common;

use std::cmp::Ordering;
use std::collections::BTreeMap;

use common::{ids, total, Db, Rng};
use proptest::prelude::*;
use proptest::test_runner::{Config as PtConfig, RngSeed};

const WORDS: [&str; 4] = ["aa", "bb", "cc", "dd"];
const NUMBERS: [&str; 12] = ["-1e300", "-2.5", "-1", "-0", "0", "0", "1", "1", "2.5", "7", "1e300", "3"];

/// A document: its words and its number (None: no `n` field).
struct Truth {
    words: Vec<&'static str>,
    n: Option<f64>,
    written: u64,
}

fn run_case(seed: u64, missing: bool) -> Result<(), TestCaseError> {
    let mut r = Rng(seed | 1);
    let mut db = Db::new();
    let created = db.cmd(&["FT.CREATE", "idx", "SCHEMA", "t", "TEXT", "n", "NUMERIC", "SORTABLE"]);
    prop_assert_eq!(created, search::Reply::ok());
    let mut truth: BTreeMap<String, Truth> = BTreeMap::new();
    let mut written = 0u64;
    let keys = 40 + r.below(400);
    for _ in 0..keys * 2 {
        let key = format!("k{}", r.below(keys));
        if r.below(5) == 0 {
            db.del(&key);
            truth.remove(&key);
            continue;
        }
        let words: Vec<&str> = (0..1 + r.below(3)).map(|_| r.pick(&WORDS)).collect();
        let text = words.join(" ");
        let number = if missing && r.below(6) == 0 {
            None
        } else if r.below(3) == 0 {
            Some(r.pick(&NUMBERS).to_string())
        } else {
            Some(r.below(20).to_string())
        };
        // A whole new hash (a field left out must not stay from the last version).
        db.del(&key);
        match &number {
            Some(n) => db.hset(&key, &[("t", &text), ("n", n)]),
            None => db.hset(&key, &[("t", &text)]),
        }
        written += 1;
        let n = number.map(|s| s.parse::<f64>().unwrap_or(f64::NAN));
        truth.insert(key, Truth { words, n, written });
    }
    for _ in 0..30 {
        let (query, word) = match r.below(3) {
            0 => ("*".to_string(), None),
            _ => {
                let w = r.pick(&WORDS);
                (w.to_string(), Some(w))
            }
        };
        let asc = r.below(2) == 0;
        let offset = if r.below(3) == 0 { r.below(20) } else { 0 };
        let limit = [1, 3, 10, 10, 1000][r.below(5) as usize];
        let mut expected: Vec<(&String, &Truth)> =
            truth.iter().filter(|(_, t)| word.is_none_or(|w| t.words.contains(&w))).collect();
        expected.sort_by(|(_, a), (_, b)| {
            let by_number = match (a.n, b.n) {
                (Some(x), Some(y)) => {
                    let o = x.partial_cmp(&y).unwrap_or(Ordering::Equal);
                    if asc {
                        o
                    } else {
                        o.reverse()
                    }
                }
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            };
            by_number.then(if asc { a.written.cmp(&b.written) } else { b.written.cmp(&a.written) })
        });
        let page: Vec<String> =
            expected.iter().skip(offset as usize).take(limit).map(|(k, _)| (*k).clone()).collect();
        let (o, l) = (offset.to_string(), limit.to_string());
        let dir = if asc { "ASC" } else { "DESC" };
        let reply = db.cmd(&["FT.SEARCH", "idx", &query, "NOCONTENT", "SORTBY", "n", dir, "LIMIT", &o, &l]);
        prop_assert_eq!(total(&reply), expected.len() as i64, "total of {} {}", query, dir);
        prop_assert_eq!(ids(&reply), page, "{} SORTBY n {} LIMIT {} {}", query, dir, offset, limit);
    }
    Ok(())
}

proptest! {
    #![proptest_config(PtConfig {
        cases: 24,
        rng_seed: RngSeed::Fixed(0x50B7),
        failure_persistence: None,
        ..PtConfig::default()
    })]

    #[test]
    fn sortby_number_matches_a_naive_sort(seed in any::<u64>()) {
        run_case(seed, false)?;
    }

    #[test]
    fn sortby_number_with_missing_values_matches_a_naive_sort(seed in any::<u64>()) {
        run_case(seed, true)?;
    }
}
