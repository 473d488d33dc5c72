//! Redis 8's vector types INT8 and UINT8 end to end: FLAT and HNSW, HASH blobs of DIM bytes
//! and JSON arrays of integers, L2/IP/COSINE. KNN results are checked against a brute force
//! computed here with VecSim's formulas (integer sums; L2 `float(sum d^2)`, IP
//! `float(1 - dot)`, COSINE `1.0f - float(dot) / (norm_a * norm_b)` with `float` norms), as
//! are the FLAT and HNSW indexes against each other; then the errors (blob sizes, JSON values
//! out of range or not integers), FT.INFO, memory and DEBUG RELOAD.

mod common;

use common::*;

/// A command with binary arguments: text words and raw blobs.
fn call(c: &mut Conn, words: &[&str], blob: &[u8]) -> Resp {
    let raw: Vec<Vec<u8>> =
        words.iter().map(|w| if *w == "$" { blob.to_vec() } else { w.as_bytes().to_vec() }).collect();
    c.call(&raw)
}

fn field<'a>(r: &'a Resp, key: &str) -> &'a Resp {
    let v = r.items();
    let i = v.iter().position(|k| matches!(k, Resp::Bulk(_) | Resp::Simple(_)) && k.text() == key);
    &v[i.unwrap_or_else(|| panic!("no {key}")) + 1]
}

/// True when FT.INFO's attributes name `data_type` `ty`.
fn has_type(info: &Resp, ty: &str) -> bool {
    field(info, "attributes").items().iter().any(|a| field(a, "data_type").text() == ty)
}

/// Deterministic pseudo-random numbers (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A vector of `dim` values of the type's range, never all zero.
    fn vector(&mut self, ty: &str, dim: usize) -> Vec<i64> {
        loop {
            let v: Vec<i64> = (0..dim)
                .map(|_| {
                    let b = (self.next() % 256) as i64;
                    if ty == "INT8" {
                        b - 128
                    } else {
                        b
                    }
                })
                .collect();
            if v.iter().any(|x| *x != 0) {
                return v;
            }
        }
    }
}

fn blob(v: &[i64]) -> Vec<u8> {
    v.iter().map(|x| *x as u8).collect()
}

/// VecSim's distance of two integer vectors.
fn distance(metric: &str, a: &[i64], b: &[i64]) -> f64 {
    let dot: i64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    match metric {
        "L2" => f64::from(a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<i64>() as f32),
        "IP" => f64::from((1 - dot) as f32),
        _ => {
            let norm = |v: &[i64]| (v.iter().map(|x| x * x).sum::<i64>() as f64).sqrt() as f32;
            f64::from(1.0f32 - (dot as f32) / (norm(a) * norm(b)))
        }
    }
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0) || (a - b).abs() < 1e-6
}

/// `(key, distance)` of `FT.SEARCH ix *=>[KNN k @v $b ...] ... SORTBY __v_score`.
fn knn(c: &mut Conn, ix: &str, k: usize, q: &[i64], hnsw: bool) -> Vec<(String, f64)> {
    let query =
        if hnsw { format!("*=>[KNN {k} @v $b EF_RUNTIME 200]") } else { format!("*=>[KNN {k} @v $b]") };
    let n = k.to_string();
    let r = call(
        c,
        &[
            "FT.SEARCH", ix, &query, "PARAMS", "2", "b", "$", "SORTBY", "__v_score", "RETURN", "1",
            "__v_score", "LIMIT", "0", &n, "DIALECT", "2",
        ],
        &blob(q),
    );
    assert!(!r.is_error(), "{ix}: {r:?}");
    r.items()[1..].chunks(2).map(|p| (p[0].text(), p[1].items()[1].text().parse().unwrap())).collect()
}

const N: usize = 80;
const DIM: usize = 8;
const K: usize = 10;

/// Creates `ix` (HASH or JSON, FLAT or HNSW) over prefix `ix:` and fills it with `vs`.
fn create_and_fill(c: &mut Conn, ix: &str, json: bool, algo: &str, ty: &str, metric: &str, vs: &[Vec<i64>]) {
    let prefix = format!("{ix}:");
    let dim = DIM.to_string();
    let mut args = vec!["FT.CREATE", ix];
    if json {
        args.extend(["ON", "JSON"]);
    }
    args.extend(["PREFIX", "1", &prefix, "SCHEMA"]);
    if json {
        args.extend(["$.v", "AS"]);
    }
    args.extend(["v", "VECTOR", algo, "6", "TYPE", ty, "DIM", &dim, "DISTANCE_METRIC", metric]);
    let r = c.call(&args);
    assert_eq!(r, Resp::Simple("OK".into()), "{ix}");
    for (i, v) in vs.iter().enumerate() {
        let key = format!("{ix}:{i}");
        if json {
            let doc = format!("{{\"v\":{v:?}}}");
            assert!(!c.call(&["JSON.SET", &key, "$", &doc]).is_error());
        } else {
            call(c, &["HSET", &key, "v", "$"], &blob(v));
        }
    }
}

/// The brute force's `k` nearest distances, and each vector's distance.
fn brute(
    metric: &str,
    vs: &[Vec<i64>],
    q: &[i64],
    ix: &str,
) -> (Vec<f64>, std::collections::HashMap<String, f64>) {
    let all: std::collections::HashMap<String, f64> =
        vs.iter().enumerate().map(|(i, v)| (format!("{ix}:{i}"), distance(metric, v, q))).collect();
    let mut d: Vec<f64> = all.values().copied().collect();
    d.sort_by(f64::total_cmp);
    d.truncate(K);
    (d, all)
}

#[test]
fn knn_matches_the_brute_force_for_every_type_metric_algorithm_and_storage() {
    let s = Server::start();
    let mut c = s.conn();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for ty in ["INT8", "UINT8"] {
        for metric in ["L2", "IP", "COSINE"] {
            let vs: Vec<Vec<i64>> = (0..N).map(|_| rng.vector(ty, DIM)).collect();
            let queries: Vec<Vec<i64>> = (0..4).map(|_| rng.vector(ty, DIM)).collect();
            for json in [false, true] {
                let mut flat_results = Vec::new();
                for algo in ["FLAT", "HNSW"] {
                    let ix = format!("{ty}{metric}{algo}{}", if json { "j" } else { "h" });
                    create_and_fill(&mut c, &ix, json, algo, ty, metric, &vs);
                    let info = c.call(&["FT.INFO", &ix]);
                    assert_eq!(field(&info, "num_docs").int(), N as i64, "{ix}");
                    let mut dists = Vec::new();
                    for q in &queries {
                        let got = knn(&mut c, &ix, K, q, algo == "HNSW");
                        let (want, each) = brute(metric, &vs, q, &ix);
                        assert_eq!(got.len(), K, "{ix}");
                        for (key, d) in &got {
                            // Each distance is the key's own exact distance.
                            assert!(near(*d, each[key]), "{ix} {key}: {d} vs {}", each[key]);
                        }
                        // The k nearest (ties in any order).
                        for ((_, g), w) in got.iter().zip(&want) {
                            assert!(near(*g, *w), "{ix}: {got:?} vs {want:?}");
                        }
                        dists.push(got.iter().map(|x| x.1).collect::<Vec<_>>());
                    }
                    if algo == "FLAT" {
                        flat_results = dists;
                    } else {
                        assert_eq!(dists, flat_results, "{ix}: HNSW vs FLAT");
                    }
                }
            }
        }
    }
}

#[test]
fn range_queries_use_the_same_distances() {
    let s = Server::start();
    let mut c = s.conn();
    let mut rng = Rng(42);
    let vs: Vec<Vec<i64>> = (0..N).map(|_| rng.vector("INT8", DIM)).collect();
    create_and_fill(&mut c, "r", false, "FLAT", "INT8", "L2", &vs);
    let q = rng.vector("INT8", DIM);
    let (want, each) = brute("L2", &vs, &q, "r");
    let radius = want[4].to_string();
    let r = call(
        &mut c,
        &[
            "FT.SEARCH", "r", "@v:[VECTOR_RANGE $r $b]", "PARAMS", "4", "r", &radius, "b", "$", "NOCONTENT",
            "LIMIT", "0", "100", "DIALECT", "2",
        ],
        &blob(&q),
    );
    let inside = each.values().filter(|d| **d <= want[4]).count();
    assert_eq!(r.items()[0].int() as usize, inside, "{r:?}");
}

#[test]
fn bad_blobs_and_json_values_fail_the_document_not_the_server() {
    let s = Server::start();
    let mut c = s.conn();
    for (ix, ty) in [("h8", "INT8"), ("hu8", "UINT8")] {
        let prefix = format!("{ix}:");
        c.call(&[
            "FT.CREATE", ix, "PREFIX", "1", &prefix, "SCHEMA", "v", "VECTOR", "HNSW", "6", "TYPE", ty, "DIM",
            "4", "DISTANCE_METRIC", "COSINE",
        ]);
        call(&mut c, &["HSET", &format!("{ix}:ok"), "v", "$"], &[1, 2, 3, 4]);
        // Four bytes per element would be FLOAT32's blob: the wrong size here.
        call(&mut c, &["HSET", &format!("{ix}:f32"), "v", "$"], &[0u8; 16]);
        call(&mut c, &["HSET", &format!("{ix}:short"), "v", "$"], &[1, 2, 3]);
        let info = c.call(&["FT.INFO", ix]);
        assert_eq!(field(&info, "num_docs").int(), 1, "{ix}");
        assert_eq!(field(&info, "hash_indexing_failures").int(), 2, "{ix}");
        let r = call(
            &mut c,
            &["FT.SEARCH", ix, "*=>[KNN 2 @v $b]", "PARAMS", "2", "b", "$", "DIALECT", "2"],
            &[0u8; 8],
        );
        assert_eq!(
            r.err(),
            "Error parsing vector similarity query: query vector blob size (8) does not match index's expected size (4)."
        );
        let r = call(
            &mut c,
            &["FT.SEARCH", ix, "*=>[KNN 2 @v $b]", "PARAMS", "2", "b", "$", "NOCONTENT", "DIALECT", "2"],
            &[1, 2, 3, 4],
        );
        assert_eq!(r.items()[1].text(), format!("{ix}:ok"));
        assert!(has_type(&info, ty), "{info:?}");
    }
    c.call(&[
        "FT.CREATE", "j", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.a", "AS", "a", "VECTOR", "FLAT",
        "6", "TYPE", "INT8", "DIM", "2", "DISTANCE_METRIC", "L2", "$.b", "AS", "b", "VECTOR", "FLAT", "6",
        "TYPE", "UINT8", "DIM", "2", "DISTANCE_METRIC", "IP",
    ]);
    // In range, at both ends: indexed.
    c.call(&["JSON.SET", "j:ok", "$", r#"{"a":[-128,127],"b":[0,255]}"#]);
    for (i, doc) in [
        r#"{"a":[-129,0]}"#, r#"{"a":[128,0]}"#, r#"{"b":[-1,0]}"#, r#"{"b":[256,0]}"#, r#"{"a":[1.5,0]}"#,
        r#"{"b":[1.0,0]}"#, r#"{"a":["1",0]}"#, r#"{"a":[1,2,3]}"#, r#"{"b":[1e2,0]}"#,
    ]
    .iter()
    .enumerate()
    {
        assert!(!c.call(&["JSON.SET", &format!("j:bad{i}"), "$", doc]).is_error());
    }
    let info = c.call(&["FT.INFO", "j"]);
    assert_eq!(field(&info, "num_docs").int(), 1);
    assert_eq!(field(&info, "hash_indexing_failures").int(), 9);
    let r = call(
        &mut c,
        &[
            "FT.SEARCH", "j", "*=>[KNN 5 @a $q]", "PARAMS", "2", "q", "$", "RETURN", "1", "__a_score",
            "DIALECT", "2",
        ],
        &[0x80, 0x7f],
    );
    assert_eq!(r.items()[0].int(), 1, "{r:?}");
    assert_eq!(r.items()[2].items()[1].text(), "0");
    // IP: 1 - (0*1 + 255*2).
    let r = call(
        &mut c,
        &[
            "FT.SEARCH", "j", "*=>[KNN 5 @b $q]", "PARAMS", "2", "q", "$", "RETURN", "1", "__b_score",
            "DIALECT", "2",
        ],
        &[1, 2],
    );
    assert_eq!(r.items()[2].items()[1].text(), "-509");
    // Bad schemas.
    let r = c.call(&[
        "FT.CREATE", "x", "SCHEMA", "v", "VECTOR", "FLAT", "6", "TYPE", "INT4", "DIM", "2",
        "DISTANCE_METRIC", "L2",
    ]);
    assert_eq!(r.err(), "Bad arguments for vector similarity FLAT index type: Unknown argument");
    assert!(c.call(&["PING"]) == Resp::Simple("PONG".into()));
}

#[test]
fn int8_indexes_take_less_memory_and_survive_reload() {
    let s = Server::start();
    let mut c = s.conn();
    let mut rng = Rng(7);
    let dim = 64;
    let vs: Vec<Vec<i64>> = (0..2000).map(|_| rng.vector("INT8", dim)).collect();
    let d = dim.to_string();
    for (ix, ty) in [("m8", "INT8"), ("m32", "FLOAT32")] {
        let prefix = format!("{ix}:");
        c.call(&[
            "FT.CREATE", ix, "PREFIX", "1", &prefix, "SCHEMA", "v", "VECTOR", "FLAT", "6", "TYPE", ty, "DIM",
            &d, "DISTANCE_METRIC", "L2",
        ]);
        for (i, v) in vs.iter().enumerate() {
            let b: Vec<u8> = if ty == "INT8" {
                blob(v)
            } else {
                v.iter().flat_map(|x| (*x as f32).to_le_bytes()).collect()
            };
            call(&mut c, &["HSET", &format!("{ix}:{i}"), "v", "$"], &b);
        }
    }
    let mb = |c: &mut Conn, ix: &str| {
        field(&c.call(&["FT.INFO", ix]), "vector_index_sz_mb").text().parse::<f64>().unwrap()
    };
    let (m8, m32) = (mb(&mut c, "m8"), mb(&mut c, "m32"));
    assert!(m8 > 0.0 && m8 * 2.0 < m32, "INT8 {m8} MB vs FLOAT32 {m32} MB");

    // INT8 and UINT8, HASH and JSON, FLAT and HNSW, across DEBUG RELOAD.
    let mut rng = Rng(99);
    let mut cases = Vec::new();
    for (ty, metric, algo, json) in [
        ("INT8", "COSINE", "HNSW", false),
        ("UINT8", "L2", "FLAT", true),
        ("UINT8", "IP", "HNSW", true),
        ("INT8", "L2", "FLAT", false),
    ] {
        let ix = format!("re{ty}{metric}{algo}{json}");
        let vs: Vec<Vec<i64>> = (0..N).map(|_| rng.vector(ty, DIM)).collect();
        create_and_fill(&mut c, &ix, json, algo, ty, metric, &vs);
        let q = rng.vector(ty, DIM);
        let before = knn(&mut c, &ix, K, &q, algo == "HNSW");
        cases.push((ix, ty, q, before, algo == "HNSW"));
    }
    assert_eq!(c.call(&["DEBUG", "RELOAD"]), Resp::Simple("OK".into()));
    for (ix, ty, q, before, hnsw) in cases {
        let info = c.call(&["FT.INFO", &ix]);
        assert_eq!(field(&info, "num_docs").int(), N as i64, "{ix}");
        assert!(has_type(&info, ty), "{ix}: {info:?}");
        assert_eq!(knn(&mut c, &ix, K, &q, hnsw), before, "{ix}");
    }
}
