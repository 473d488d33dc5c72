//! Redis 8's scorers BM25STD.NORM and BM25STD.TANH end to end, with expected scores computed
//! here from the formulas and this corpus's own term statistics: BM25STD is
//! `sum idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len / avg_len))` with
//! `idf = ln(1 + (N - df + 0.5) / (df + 0.5))`, k1 1.2, b 0.5 (RediSearch 2.10's BM25STD);
//! BM25STD.NORM divides each score by the largest over the whole result set (RediSearch
//! 8.4's `RPMaxScoreNormalizer`, not the page's), BM25STD.TANH is `tanh(score / factor)`.

mod common;

use common::*;

/// Words of each document's `t` (and its `n`): `hello world` matches d:2..d:5.
const DOCS: [(&str, &str, &str); 5] = [
    ("d:1", "hello", "5"),
    ("d:2", "hello world", "4"),
    ("d:3", "hello world orange", "3"),
    ("d:4", "hello world orange yellow", "2"),
    ("d:5", "hello world orange yellow blue", "1"),
];

fn corpus() -> (Server, Conn) {
    let s = Server::start();
    let mut c = s.conn();
    let r =
        c.call(&["FT.CREATE", "s", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT", "n", "NUMERIC", "SORTABLE"]);
    assert!(!r.is_error(), "{r:?}");
    for (k, t, n) in DOCS {
        c.call(&["HSET", k, "t", t, "n", n]);
    }
    (s, c)
}

/// BM25STD of `hello world` in each matching document, from the corpus's statistics.
fn bm25std(key: &str) -> f64 {
    let n = DOCS.len() as f64;
    let lens: Vec<f64> = DOCS.iter().map(|d| d.1.split(' ').count() as f64).collect();
    let avg = lens.iter().sum::<f64>() / n;
    let df = |w: &str| DOCS.iter().filter(|d| d.1.split(' ').any(|x| x == w)).count() as f64;
    let idf = |w: &str| (1.0 + (n - df(w) + 0.5) / (df(w) + 0.5)).ln();
    let (k1, b) = (1.2, 0.5);
    let len = DOCS.iter().find(|d| d.0 == key).unwrap().1.split(' ').count() as f64;
    ["hello", "world"]
        .iter()
        .map(|w| idf(w) * 1.0 * (k1 + 1.0) / (1.0 + k1 * (1.0 - b + b * len / avg)))
        .sum()
}

fn max_bm25std() -> f64 {
    ["d:2", "d:3", "d:4", "d:5"].iter().map(|k| bm25std(k)).fold(0.0, f64::max)
}

fn close(got: &[(String, f64)], want: &[(&str, f64)]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for ((gk, gs), (wk, ws)) in got.iter().zip(want) {
        assert_eq!(gk, wk, "{got:?} vs {want:?}");
        // k1 takes part as a float (1.2000000476837158): a few 1e-8 of relative difference.
        assert!((gs - ws).abs() <= 1e-6 * ws.abs().max(1e-3), "{gk}: {gs} vs {ws}");
    }
}

/// (key, score) rows of `FT.AGGREGATE s hello world ADDSCORES ... LOAD 1 @__key`.
fn aggregated(c: &mut Conn, extra: &[&str]) -> Vec<(String, f64)> {
    let mut args = vec!["FT.AGGREGATE", "s", "hello world", "ADDSCORES"];
    args.extend_from_slice(extra);
    let r = c.call(&args);
    assert!(!r.is_error(), "{extra:?}: {r:?}");
    rows(&r.items()[1..])
}

fn rows(items: &[Resp]) -> Vec<(String, f64)> {
    items
        .iter()
        .map(|row| {
            let kv = row.items();
            let get = |name: &str| kv.chunks(2).find(|p| p[0].text() == name).map(|p| p[1].text()).unwrap();
            (get("__key"), get("__score").parse().unwrap())
        })
        .collect()
}

#[test]
fn norm_divides_by_the_largest_score_of_the_whole_result_set() {
    let (_s, mut c) = corpus();
    let max = max_bm25std();
    let want: Vec<(&str, f64)> =
        ["d:2", "d:3", "d:4", "d:5"].iter().map(|k| (*k, bm25std(k) / max)).collect();
    // The raw BM25STD first: the oracle's statistics are the index's.
    let raw: Vec<(&str, f64)> = want.iter().map(|(k, _)| (*k, bm25std(k))).collect();
    close(&scored(&mut c, "s", "hello world", &["SCORER", "BM25STD"]), &raw);
    close(&scored(&mut c, "s", "hello world", &["SCORER", "BM25STD.NORM"]), &want);
    assert!((want[0].1 - 1.0).abs() < 1e-12 && want[3].1 < 0.9);
    // A page past the first: the same scores, not divided by the page's own largest.
    close(&scored(&mut c, "s", "hello world", &["SCORER", "BM25STD.NORM", "LIMIT", "1", "2"]), &want[1..3]);
    // Sorted by another field: the divisor is still the largest score of all results.
    close(
        &scored(
            &mut c,
            "s",
            "hello world",
            &["SCORER", "bm25std.norm", "SORTBY", "n", "ASC", "LIMIT", "0", "1"],
        ),
        &[("d:5", bm25std("d:5") / max)],
    );
    // One result: 1. No result: nothing to divide.
    close(&scored(&mut c, "s", "blue", &["SCORER", "BM25STD.NORM"]), &[("d:5", 1.0)]);
    assert_eq!(scored(&mut c, "s", "nothing", &["SCORER", "BM25STD.NORM"]), vec![]);

    // FT.AGGREGATE ADDSCORES: every row divided by the largest, whatever LIMIT shows.
    let mut agg = aggregated(&mut c, &["SCORER", "BM25STD.NORM", "LOAD", "1", "@__key"]);
    agg.sort_by(|a, b| a.0.cmp(&b.0));
    close(&agg, &want);
    let top = aggregated(
        &mut c,
        &[
            "SCORER", "BM25STD.NORM", "LOAD", "1", "@__key", "SORTBY", "2", "@__score", "ASC", "LIMIT", "0",
            "1",
        ],
    );
    close(&top, &[("d:5", bm25std("d:5") / max)]);
    // A cursor's reads: each row over the same divisor.
    let r = c.call(&[
        "FT.AGGREGATE", "s", "hello world", "ADDSCORES", "SCORER", "BM25STD.NORM", "LOAD", "1", "@__key",
        "WITHCURSOR", "COUNT", "1",
    ]);
    let mut got = rows(&r.items()[0].items()[1..]);
    let mut cursor = r.items()[1].int();
    while cursor != 0 {
        let r = c.call(&["FT.CURSOR", "READ", "s", &cursor.to_string()]);
        got.extend(rows(&r.items()[0].items()[1..]));
        cursor = r.items()[1].int();
    }
    got.sort_by(|a, b| a.0.cmp(&b.0));
    close(&got, &want);
}

#[test]
fn tanh_stretches_by_the_query_or_configured_factor() {
    let (_s, mut c) = corpus();
    let keys = ["d:2", "d:3", "d:4", "d:5"];
    let tanh = |f: f64| -> Vec<(&str, f64)> { keys.iter().map(|k| (*k, (bm25std(k) / f).tanh())).collect() };
    close(&scored(&mut c, "s", "hello world", &["SCORER", "BM25STD.TANH"]), &tanh(4.0));
    close(
        &scored(&mut c, "s", "hello world", &["SCORER", "BM25STD.TANH", "BM25STD_TANH_FACTOR", "20"]),
        &tanh(20.0),
    );
    // A query's factor has no upper bound (RediSearch 8.4 checks only >= 1 there).
    close(
        &scored(&mut c, "s", "hello world", &["BM25STD_TANH_FACTOR", "20000", "SCORER", "BM25STD.TANH"]),
        &tanh(20000.0),
    );
    assert_eq!(
        c.call(&["FT.CONFIG", "GET", "BM25STD_TANH_FACTOR"]),
        arr(vec![arr(vec![Resp::Simple("BM25STD_TANH_FACTOR".into()), Resp::bulk("4")])])
    );
    assert_eq!(c.call(&["FT.CONFIG", "SET", "BM25STD_TANH_FACTOR", "10"]), Resp::Simple("OK".into()));
    close(&scored(&mut c, "s", "hello world", &["SCORER", "BM25STD.TANH"]), &tanh(10.0));
    let mut agg = aggregated(&mut c, &["SCORER", "BM25STD.TANH", "LOAD", "1", "@__key"]);
    agg.sort_by(|a, b| a.0.cmp(&b.0));
    close(&agg, &tanh(10.0));
    let mut agg =
        aggregated(&mut c, &["SCORER", "BM25STD.TANH", "BM25STD_TANH_FACTOR", "3", "LOAD", "1", "@__key"]);
    agg.sort_by(|a, b| a.0.cmp(&b.0));
    close(&agg, &tanh(3.0));
    // Other scorers ignore the factor; BM25 stays the legacy BM25 (not BM25STD).
    let plain = scored(&mut c, "s", "hello world", &["SCORER", "BM25STD", "BM25STD_TANH_FACTOR", "7"]);
    close(&plain, &keys.iter().map(|k| (*k, bm25std(k))).collect::<Vec<_>>());
    let bm25 = scored(&mut c, "s", "hello world", &["SCORER", "BM25"]);
    assert!((bm25[0].1 - bm25std("d:2")).abs() > 1e-3, "{bm25:?}");
}

#[test]
fn bad_factors_answer_redisearch_8_errors() {
    let (_s, mut c) = corpus();
    let range = "BM25STD_TANH_FACTOR must be between 1 and 10000 inclusive";
    for bad in ["0", "-1", "abc", "1.5"] {
        let r = c.call(&["FT.SEARCH", "s", "hello", "SCORER", "BM25STD.TANH", "BM25STD_TANH_FACTOR", bad]);
        assert_eq!(r.err(), range, "{bad}");
        let r = c.call(&["FT.AGGREGATE", "s", "hello", "BM25STD_TANH_FACTOR", bad, "ADDSCORES"]);
        assert_eq!(r.err(), range, "{bad}");
    }
    let need = "Need an argument for BM25STD_TANH_FACTOR";
    assert_eq!(c.call(&["FT.SEARCH", "s", "hello", "BM25STD_TANH_FACTOR"]).err(), need);
    assert_eq!(c.call(&["FT.AGGREGATE", "s", "hello", "BM25STD_TANH_FACTOR"]).err(), need);
    for bad in ["0", "-1"] {
        let r = c.call(&["FT.CONFIG", "SET", "BM25STD_TANH_FACTOR", bad]);
        assert_eq!(r.err(), "Value is outside acceptable bounds", "{bad}");
    }
    assert_eq!(c.call(&["FT.CONFIG", "SET", "BM25STD_TANH_FACTOR", "10001"]).err(), range);
    assert_eq!(
        c.call(&["FT.CONFIG", "SET", "BM25STD_TANH_FACTOR", "x"]).err(),
        "Could not convert argument to expected type"
    );
    assert_eq!(c.call(&["FT.CONFIG", "SET", "BM25STD_TANH_FACTOR", "10000"]), Resp::Simple("OK".into()));
    assert_eq!(c.call(&["FT.CONFIG", "SET", "BM25STD_TANH_FACTOR", "1"]), Resp::Simple("OK".into()));
    let info = c.call(&["INFO", "search"]).text();
    assert!(info.contains("search_bm25std_tanh_factor:1"), "{info}");
    assert_eq!(c.call(&["FT.SEARCH", "s", "hello", "SCORER", "BM25STD.MAX"]).err(), "Invalid scorer name");
}

#[test]
fn profile_shows_the_max_normalizer() {
    let (_s, mut c) = corpus();
    let has = |r: &Resp| format!("{r:?}").contains("Score Max Normalizer");
    let r = c.call(&["FT.PROFILE", "s", "SEARCH", "QUERY", "hello", "WITHSCORES", "SCORER", "BM25STD.NORM"]);
    assert!(!r.is_error() && has(&r), "{r:?}");
    let r =
        c.call(&["FT.PROFILE", "s", "AGGREGATE", "QUERY", "hello", "ADDSCORES", "SCORER", "BM25STD.NORM"]);
    assert!(!r.is_error() && has(&r), "{r:?}");
    let r = c.call(&["FT.PROFILE", "s", "SEARCH", "QUERY", "hello", "WITHSCORES", "SCORER", "BM25STD"]);
    assert!(!r.is_error() && !has(&r), "{r:?}");
}

/// RediSearch computes BM25STD's IDF ratio in single precision; its test_scorers.py
/// `testOptionalAndWildcardScoring` has these replies to the bit.
#[test]
fn idf_ratio_is_single_precision_as_in_redisearch() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA title TEXT"), ok());
    c.call(&["HSET", "doc1", "title", "some text here"]);
    c.call(&["HSET", "doc2", "title", "some text more words here"]);
    let want = arr(vec![
        Resp::Int(2),
        Resp::bulk("doc2"),
        Resp::bulk("0.8195877903737075"),
        Resp::bulk("doc1"),
        Resp::bulk("0.19566220141314736"),
    ]);
    for q in ["text ~words", "text | ~words"] {
        assert_eq!(
            c.call(&["FT.SEARCH", "idx", q, "WITHSCORES", "SCORER", "BM25STD", "NOCONTENT"]),
            want,
            "{q}"
        );
    }
}

/// A term the index counts in more documents than it holds (versions an update left, not yet
/// collected: RediSearch's df) has `N - df` below zero. RediSearch 2.10 computes it unsigned,
/// so it wraps and the IDF is about 42.86 (the term then outweighs any other: README's
/// differences); folio takes N as at least df, as Redis 8 does: `ln(1 + 0.5 / (df + 0.5))`.
#[test]
fn a_term_counted_in_more_documents_than_the_index_holds_keeps_a_small_idf() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE i PREFIX 1 d: SCHEMA t TEXT"), ok());
    c.call(&["HSET", "d:1", "t", "alpha bravo"]);
    c.call(&["HSET", "d:2", "t", "alpha"]);
    c.call(&["HSET", "d:1", "t", "alpha coco"]);
    c.call(&["HSET", "d:1", "t", "alpha delta"]);
    // N 2 documents, df 4 entries: idf = ln(1 + 0.5 / 4.5) (f32 ratio); d:2 has length 1, the
    // average length is 7 / 2 (every version's length counts, as RediSearch's).
    let idf = f64::from(1.0f32 + 0.5f32 / 4.5f32).ln();
    let want = idf * 2.2 / (1.0 + 1.2 * (0.5 + 0.5 * 1.0 / 3.5));
    let r = c.call(&["FT.SEARCH", "i", "alpha", "SCORER", "BM25STD", "WITHSCORES", "NOCONTENT"]);
    assert_eq!(r.items()[1].text(), "d:2", "{r:?}");
    let got: f64 = r.items()[2].text().parse().unwrap();
    assert!((got - want).abs() < 1e-6, "{got} vs {want}");
}
