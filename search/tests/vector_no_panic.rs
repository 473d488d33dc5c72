//! Robustness of the vector paths: random query strings built from vector-clause pieces,
//! random PARAMS blobs (any size, NaN and infinities), random VECTOR schema arguments and
//! random JSON vectors never panic; they answer or return an error reply.

mod common;

use common::{Db, View};
use proptest::prelude::*;
use proptest::test_runner::{Config as PtConfig, RngSeed};
use search::{Protocol, Reply};

fn corpus() -> Db {
    let mut db = Db::new();
    db.cmd(&[
        "FT.CREATE", "idx", "ON", "JSON", "SCHEMA", "$.v", "AS", "v", "VECTOR", "HNSW", "6", "TYPE",
        "FLOAT32", "DIM", "2", "DISTANCE_METRIC", "COSINE", "$.w[*]", "AS", "w", "VECTOR", "FLAT", "6",
        "TYPE", "FLOAT64", "DIM", "2", "DISTANCE_METRIC", "L2", "$.t", "AS", "t", "TAG",
    ]);
    db.json_set("a", r#"{"v":[1,0],"w":[[1,2],[3,4]],"t":"x"}"#);
    db.json_set("b", r#"{"v":[0,0],"w":[[0,0]],"t":"y"}"#);
    db.json_set("c", r#"{"v":[1e308,-1e308],"t":"x"}"#);
    db
}

const PIECES: &[&str] = &[
    "*", "=>", "[", "]", "KNN", " ", "2", "0", "-1", "$k", "@v", "@w", "@t", "$b", "$c", "AS", "d",
    "EF_RUNTIME", "EPSILON", "HYBRID_POLICY", "ADHOC_BF", "BATCHES", "BATCH_SIZE", "VECTOR_RANGE",
    "{$YIELD_DISTANCE_AS:", "{$EPSILON:", "}", ";", ":", "(", ")", "|", "-", "@t:{x}", "$r", "\\", "x",
    "1e400", "nan",
];

fn blob() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..24),
        proptest::collection::vec(prop_oneof![Just(f32::NAN), Just(f32::INFINITY), any::<f32>()], 2)
            .prop_map(|v| v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        proptest::collection::vec(any::<f64>(), 2)
            .prop_map(|v| v.iter().flat_map(|x| x.to_le_bytes()).collect()),
    ]
}

const SCHEMA: &[&str] = &[
    "VECTOR", "FLAT", "HNSW", "0", "2", "4", "6", "8", "-3", "99999999999999999999", "TYPE", "FLOAT32",
    "FLOAT64", "DIM", "1", "1048577", "DISTANCE_METRIC", "L2", "IP", "COSINE", "M", "EF_CONSTRUCTION",
    "EF_RUNTIME", "EPSILON", "0.5", "-0.1", "INITIAL_CAP", "BLOCK_SIZE", "AS", "v", "SORTABLE",
    "INDEXMISSING",
];

proptest! {
    #![proptest_config(PtConfig {
        cases: 300,
        rng_seed: RngSeed::Fixed(0x7EC7),
        failure_persistence: None,
        ..PtConfig::default()
    })]

    #[test]
    fn random_vector_queries_do_not_panic(
        q in proptest::collection::vec(proptest::sample::select(PIECES), 0..14),
        b in blob(),
        c in blob(),
        dialect in 1u32..5,
    ) {
        let mut db = corpus();
        let query: String = q.concat();
        let d = dialect.to_string();
        let view = View(&db.docs);
        let args: Vec<&[u8]> = vec![
            b"idx", query.as_bytes(), b"PARAMS", b"8", b"b", &b, b"c", &c, b"k", b"3", b"r", b"0.5",
            b"DIALECT", d.as_bytes(),
        ];
        for cmd in ["FT.SEARCH", "FT.AGGREGATE"] {
            let r = db.cat.execute(cmd, &args, &view, &mut db.config, Protocol::Resp2);
            prop_assert!(matches!(r, Reply::Array(_) | Reply::Error(_)), "{cmd} {query}: {r:?}");
        }
        let r = db.cat.execute("FT.EXPLAIN", &args, &view, &mut db.config, Protocol::Resp2);
        prop_assert!(matches!(r, Reply::Bulk(_) | Reply::Error(_)));
    }

    #[test]
    fn random_vector_schemas_and_documents_do_not_panic(
        words in proptest::collection::vec(proptest::sample::select(SCHEMA), 0..16),
        doc in proptest::collection::vec(prop_oneof![Just("1".to_string()), Just("null".to_string()),
            Just("[1,2]".to_string()), Just("\"s\"".to_string()), Just("1e308".to_string())], 0..4),
    ) {
        let mut db = Db::new();
        let mut args = vec!["FT.CREATE", "i", "ON", "JSON", "SCHEMA", "$.v", "AS", "v"];
        args.extend(words.iter().copied());
        let r = db.cmd(&args);
        prop_assert!(matches!(r, Reply::Simple(_) | Reply::Error(_)));
        db.json_set("k", &format!(r#"{{"v":[{}]}}"#, doc.join(",")));
        let r = db.cmd(&["FT.INFO", "i"]);
        prop_assert!(matches!(r, Reply::Map(_) | Reply::Array(_) | Reply::Error(_)));
    }
}
