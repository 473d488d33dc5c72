//! KNN and VECTOR_RANGE against a brute-force oracle written independently of the index:
//! random JSON documents (a single vector `$.v` and a multi-vector `$.vs[*]`, a tag and a
//! number), random updates and deletes, then KNN with and without a filter and range
//! queries through FT.SEARCH. Vector elements are small integers so every L2 and IP
//! distance is exact in `f32`; the oracle computes in `f64` from the documents it keeps.
//! Ties make the KNN boundary ambiguous, so a KNN answer is checked as: every returned
//! document passes the filter and carries its oracle distance, and the returned distances
//! are the `k` smallest of the oracle's.

mod common;

use std::collections::BTreeMap;

use common::{Db, View};
use proptest::prelude::*;
use search::{Protocol, Reply};

const DIM: usize = 4;

/// One document as the oracle keeps it.
#[derive(Clone, Debug)]
struct OracleDoc {
    v: Vec<i8>,
    vs: Vec<Vec<i8>>,
    tag: bool,
}

#[derive(Clone, Debug)]
enum Op {
    Put(u8, Vec<i8>, Vec<Vec<i8>>, bool),
    Del(u8),
}

fn vector() -> impl Strategy<Value = Vec<i8>> {
    proptest::collection::vec(-6i8..=6, DIM)
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..40, vector(), proptest::collection::vec(vector(), 1..4), any::<bool>())
            .prop_map(|(k, v, vs, t)| Op::Put(k, v, vs, t)),
        1 => (0u8..40).prop_map(Op::Del),
    ]
}

fn json_array(v: &[i8]) -> String {
    format!("[{}]", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","))
}

fn blob(v: &[i8]) -> Vec<u8> {
    v.iter().flat_map(|x| f32::from(*x).to_le_bytes()).collect()
}

fn l2(a: &[i8], b: &[i8]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (f64::from(*x) - f64::from(*y)).powi(2)).sum()
}

fn ip(a: &[i8], b: &[i8]) -> f64 {
    1.0 - a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum::<f64>()
}

/// Runs FT.SEARCH with raw (binary) arguments.
fn search(db: &mut Db, args: &[&[u8]]) -> Reply {
    let view = View(&db.docs);
    db.cat.execute("FT.SEARCH", args, &view, &mut db.config, Protocol::Resp2)
}

/// (key, distance) pairs of a RESP2 reply whose rows return one distance field.
fn rows(r: &Reply) -> Vec<(String, f64)> {
    let Reply::Array(items) = r else { panic!("not an array: {r:?}") };
    let mut out = Vec::new();
    for pair in items[1..].chunks(2) {
        let (Reply::Bulk(k), Reply::Array(f)) = (&pair[0], &pair[1]) else { panic!("row: {pair:?}") };
        let Some(Reply::Bulk(v)) = f.get(1) else { panic!("no distance: {f:?}") };
        let d: f64 = String::from_utf8_lossy(v).parse().expect("distance");
        out.push((String::from_utf8_lossy(k).into_owned(), d));
    }
    out
}

fn check_knn(got: &[(String, f64)], oracle: &BTreeMap<String, f64>, k: usize) {
    for (key, d) in got {
        let want = oracle.get(key).unwrap_or_else(|| panic!("{key} should not match"));
        assert_eq!(d, want, "distance of {key}");
    }
    let mut all: Vec<f64> = oracle.values().copied().collect();
    all.sort_by(f64::total_cmp);
    all.truncate(k);
    let mut mine: Vec<f64> = got.iter().map(|(_, d)| *d).collect();
    mine.sort_by(f64::total_cmp);
    assert_eq!(mine, all, "the k smallest distances");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn knn_and_range_match_brute_force(
        ops in proptest::collection::vec(op(), 1..80),
        queries in proptest::collection::vec((vector(), 1usize..12, 0u32..120), 1..6),
    ) {
        let mut db = Db::new();
        let create = db.cmd(&[
            "FT.CREATE", "idx", "ON", "JSON", "SCHEMA",
            "$.v", "AS", "v", "VECTOR", "FLAT", "6", "TYPE", "FLOAT32", "DIM", "4", "DISTANCE_METRIC", "L2",
            "$.vs[*]", "AS", "vs", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "4", "DISTANCE_METRIC", "IP",
            "$.t", "AS", "t", "TAG",
        ]);
        prop_assert_eq!(create, Reply::ok());
        let mut oracle: BTreeMap<String, OracleDoc> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Put(k, v, vs, tag) => {
                    let key = format!("d{k}");
                    let vs_json: Vec<String> = vs.iter().map(|x| json_array(x)).collect();
                    let json = format!(
                        r#"{{"v":{},"vs":[{}],"t":"{}"}}"#,
                        json_array(&v),
                        vs_json.join(","),
                        if tag { "a" } else { "b" }
                    );
                    db.json_set(&key, &json);
                    oracle.insert(key, OracleDoc { v, vs, tag });
                }
                Op::Del(k) => {
                    let key = format!("d{k}");
                    db.del(&key);
                    oracle.remove(&key);
                }
            }
        }
        for (q, k, radius) in queries {
            let b = blob(&q);
            let ks = k.to_string();
            // KNN over everything, single vectors, L2.
            let r = search(&mut db, &[b"idx", b"*=>[KNN $k @v $b]", b"PARAMS", b"4", b"b", &b, b"k", ks.as_bytes(),
                b"RETURN", b"1", b"__v_score", b"LIMIT", b"0", b"100", b"DIALECT", b"2"]);
            let want: BTreeMap<String, f64> = oracle.iter().map(|(key, d)| (key.clone(), l2(&d.v, &q))).collect();
            check_knn(&rows(&r), &want, k);
            // KNN among tag `a`, multi-vectors under IP (minimum over a document's vectors).
            let r = search(&mut db, &[b"idx", b"@t:{a}=>[KNN $k @vs $b AS dist]", b"PARAMS", b"4", b"b", &b, b"k",
                ks.as_bytes(), b"RETURN", b"1", b"dist", b"LIMIT", b"0", b"100", b"DIALECT", b"2"]);
            let want: BTreeMap<String, f64> = oracle
                .iter()
                .filter(|(_, d)| d.tag)
                .map(|(key, d)| (key.clone(), d.vs.iter().map(|x| ip(x, &q)).fold(f64::INFINITY, f64::min)))
                .collect();
            check_knn(&rows(&r), &want, k);
            // Range: exactly the documents within the radius, each with its distance.
            let rs = radius.to_string();
            let r = search(&mut db, &[b"idx", b"@v:[VECTOR_RANGE $r $b]=>{$YIELD_DISTANCE_AS: d}", b"PARAMS", b"4",
                b"b", &b, b"r", rs.as_bytes(), b"RETURN", b"1", b"d", b"LIMIT", b"0", b"100", b"DIALECT", b"2"]);
            let got: BTreeMap<String, f64> = rows(&r).into_iter().collect();
            let want: BTreeMap<String, f64> = oracle
                .iter()
                .map(|(key, d)| (key.clone(), l2(&d.v, &q)))
                .filter(|(_, d)| *d <= f64::from(radius))
                .collect();
            prop_assert_eq!(got, want);
        }
    }
}
