//! FT.SPELLCHECK suggestions and synonym matching against independent brute-force oracles
//! (whole-string Levenshtein distances over every indexed word; set algebra over the synonym
//! groups), on
//! pseudo-random corpora.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{ids, Db, Rng};
use search::Reply;

/// A small deterministic generator (xorshift).
fn lev(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut p: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut c = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            c.push((p[j] + usize::from(ca != *cb)).min(p[j + 1] + 1).min(c[j] + 1));
        }
        p = c;
    }
    p[b.len()]
}

/// RediSearch's fuzzy trie walk, restated with whole-string distances: it yields `t` when
/// `t` is within `d`, or when `t` without its last character is and `t` still aligns with
/// some prefix of `q` within `d`.
fn walk_yields(t: &str, q: &str, d: usize) -> bool {
    let n = t.chars().count();
    if n == 0 {
        return false;
    }
    let shorter: String = t.chars().take(n - 1).collect();
    let aligns = (0..=q.chars().count()).any(|i| lev(t, &q.chars().take(i).collect::<String>()) <= d);
    lev(t, q) <= d || (lev(&shorter, q) <= d && aligns)
}

fn word(r: &mut Rng) -> String {
    let len = 2 + r.below(3) as usize;
    (0..len).map(|_| (b'a' + r.below(4) as u8) as char).collect()
}

#[test]
fn spellcheck_matches_brute_force_levenshtein() {
    let mut r = Rng(0x5eed_1234_abcd);
    for round in 0..20 {
        let mut db = Db::new();
        db.cmd(&["FT.CREATE", "i", "ON", "HASH", "PREFIX", "1", "k:", "SCHEMA", "t", "TEXT", "NOSTEM"]);
        let mut docs: Vec<BTreeSet<String>> = Vec::new();
        for d in 0..(3 + r.below(8)) {
            let words: Vec<String> = (0..(1 + r.below(4))).map(|_| word(&mut r)).collect();
            db.hset(&format!("k:{d}"), &[("t", &words.join(" "))]);
            docs.push(words.into_iter().collect());
        }
        let vocab: BTreeSet<&String> = docs.iter().flatten().collect();
        for _ in 0..10 {
            let q = word(&mut r);
            let dist = 1 + r.below(2) as usize;
            let reply = db.cmd(&["FT.SPELLCHECK", "i", &q, "DISTANCE", &dist.to_string()]);
            let Reply::Array(terms) = reply else { panic!("{reply:?}") };
            if vocab.contains(&q) {
                assert!(terms.is_empty(), "round {round}: {q} is indexed");
                continue;
            }
            let want: BTreeMap<String, f64> = vocab
                .iter()
                .filter(|t| walk_yields(t, &q, dist))
                .map(|t| {
                    let df = docs.iter().filter(|d| d.contains(*t)).count();
                    ((*t).clone(), df as f64 / docs.len() as f64)
                })
                .collect();
            let Some(Reply::Array(parts)) = terms.first() else { panic!("round {round}: {q}: {terms:?}") };
            let Some(Reply::Array(sugg)) = parts.get(2) else { panic!() };
            let got: BTreeMap<String, f64> = sugg
                .iter()
                .map(|p| match p {
                    Reply::Array(x) => match (&x[0], &x[1]) {
                        (Reply::Double(s), Reply::Bulk(t)) => (String::from_utf8_lossy(t).into_owned(), *s),
                        other => panic!("{other:?}"),
                    },
                    other => panic!("{other:?}"),
                })
                .collect();
            assert_eq!(got, want, "round {round}: {q} at {dist}");
            // Descending scores.
            let scores: Vec<f64> = sugg
                .iter()
                .filter_map(|p| match p {
                    Reply::Array(x) => match &x[0] {
                        Reply::Double(s) => Some(*s),
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
        }
    }
}

#[test]
fn synonym_queries_match_the_union_of_their_groups() {
    let mut r = Rng(0xfeed_beef_0042);
    for round in 0..20 {
        let mut db = Db::new();
        db.cmd(&["FT.CREATE", "i", "ON", "HASH", "PREFIX", "1", "k:", "SCHEMA", "t", "TEXT", "NOSTEM"]);
        let mut groups: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut docs: Vec<BTreeSet<String>> = Vec::new();
        let add_group =
            |db: &mut Db, r: &mut Rng, groups: &mut BTreeMap<String, BTreeSet<String>>, skip: bool| {
                let g = format!("g{}", r.below(3));
                let words: Vec<String> = (0..(1 + r.below(3))).map(|_| word(r)).collect();
                let mut args = vec!["FT.SYNUPDATE".to_string(), "i".into(), g.clone()];
                if skip {
                    args.push("SKIPINITIALSCAN".into());
                }
                args.extend(words.iter().cloned());
                let refs: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
                assert_eq!(db.cmd(&refs), Reply::ok());
                groups.entry(g).or_default().extend(words);
            };
        add_group(&mut db, &mut r, &mut groups, false);
        for d in 0..(3 + r.below(8)) {
            let words: Vec<String> = (0..(1 + r.below(4))).map(|_| word(&mut r)).collect();
            db.hset(&format!("k:{d}"), &[("t", &words.join(" "))]);
            docs.push(words.into_iter().collect());
            if r.below(3) == 0 {
                add_group(&mut db, &mut r, &mut groups, false);
            }
        }
        for _ in 0..10 {
            let q = word(&mut r);
            // The query word, and every word sharing a group with it.
            let mut reach: BTreeSet<&String> = groups.values().filter(|g| g.contains(&q)).flatten().collect();
            reach.insert(&q);
            let want: BTreeSet<String> = docs
                .iter()
                .enumerate()
                .filter(|(_, d)| d.iter().any(|w| reach.contains(w)))
                .map(|(i, _)| format!("k:{i}"))
                .collect();
            let got: BTreeSet<String> =
                ids(&db.cmd(&["FT.SEARCH", "i", &q, "NOCONTENT", "LIMIT", "0", "1000"]))
                    .into_iter()
                    .collect();
            assert_eq!(got, want, "round {round}: {q} with {groups:?}");
            let verbatim: BTreeSet<String> =
                ids(&db.cmd(&["FT.SEARCH", "i", &q, "NOCONTENT", "VERBATIM", "LIMIT", "0", "1000"]))
                    .into_iter()
                    .collect();
            let exact: BTreeSet<String> = docs
                .iter()
                .enumerate()
                .filter(|(_, d)| d.contains(&q))
                .map(|(i, _)| format!("k:{i}"))
                .collect();
            assert_eq!(verbatim, exact, "round {round}: VERBATIM {q}");
        }
    }
}

mod robustness {
    //! Random FT.SPELLCHECK / FT.DICT* / FT.SYN* argument lists never panic.

    use super::common::Db;
    use proptest::prelude::*;
    use proptest::test_runner::{Config as PtConfig, RngSeed};
    use search::Reply;

    const WORDS: &[&str] = &[
        "FT.SPELLCHECK",
        "FT.DICTADD",
        "FT.DICTDEL",
        "FT.DICTDUMP",
        "FT.SYNUPDATE",
        "FT.SYNDUMP",
        "FT.SYNADD",
        "i",
        "nope",
        "d",
        "g",
        "DISTANCE",
        "0",
        "1",
        "4",
        "5",
        "-1",
        "x",
        "TERMS",
        "INCLUDE",
        "EXCLUDE",
        "DIALECT",
        "FULLSCOREINFO",
        "SKIPINITIALSCAN",
        "hello",
        "helo",
        "Héllo",
        "\u{100}",
        "a\0b",
        "",
        "@t:helo",
        "-helo",
        "\"he lo\"",
        "hel*",
        "%helo%",
        "(",
        "|",
        "~",
        "ÀÉÎ",
        "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
    ];

    proptest! {
        #![proptest_config(PtConfig {
            cases: 400,
            rng_seed: RngSeed::Fixed(0x5be1_1000),
            failure_persistence: None,
            ..PtConfig::default()
        })]

        #[test]
        fn random_arguments_do_not_panic(
            cmds in proptest::collection::vec(
                (proptest::sample::select(&WORDS[..7]), proptest::collection::vec(proptest::sample::select(WORDS), 0..9)),
                1..6,
            ),
        ) {
            let mut db = Db::new();
            db.cmd(&["FT.CREATE", "i", "ON", "HASH", "SCHEMA", "t", "TEXT", "u", "TAG"]);
            db.hset("k1", &[("t", "hello world héllo"), ("u", "x")]);
            for (cmd, args) in &cmds {
                let mut argv = vec![*cmd];
                argv.extend(args.iter().copied());
                let r = db.cmd(&argv);
                prop_assert!(!matches!(r, Reply::Nil), "{argv:?}: {r:?}");
            }
            let r = db.cmd(&["FT.SEARCH", "i", "hello"]);
            prop_assert!(matches!(r, Reply::Array(_)));
        }
    }
}
