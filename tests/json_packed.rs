//! Arrays of numbers in packed storage, end to end: memory per element (no hint and
//! `JSON.SET … FPHA`), replies byte-identical to the general storage's, ops on packed arrays,
//! RDB round trips, `FPHA` (Redis 8.8) replies and errors, and VECTOR indexes over packed
//! arrays answering like indexes over the same vectors as hash blobs.

mod common;

use common::{arr, ok, Resp, Server};

/// A 768-element embedding of floats in `(-1, 1)`, as JSON text (deterministic).
fn embedding(seed: u64, n: usize) -> (Vec<f64>, String) {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let v: Vec<f64> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect();
    let text = format!("[{}]", v.iter().map(|f| format!("{f:?}")).collect::<Vec<_>>().join(","));
    (v, text)
}

fn bulk(s: &str) -> Resp {
    Resp::bulk(s)
}

#[test]
fn embeddings_take_8_bytes_an_element_4_with_fpha_fp32() {
    let s = Server::start();
    let mut c = s.conn();
    let (_, text) = embedding(1, 768);
    assert_eq!(c.call(&["JSON.SET", "e", "$", &text]), ok());
    let plain = c.call(&["JSON.DEBUG", "MEMORY", "e"]).int() as f64 / 768.0;
    assert!(plain <= 8.5, "{plain} bytes an element");
    assert_eq!(c.call(&["JSON.GET", "e"]), bulk(&text), "exact: the text comes back as written");
    assert_eq!(c.call(&["JSON.SET", "f", "$", &text, "FPHA", "FP32"]), ok());
    let fp32 = c.call(&["JSON.DEBUG", "MEMORY", "f"]).int() as f64 / 768.0;
    assert!(fp32 <= 4.5, "{fp32} bytes an element");
    assert_eq!(c.call(&["JSON.SET", "h", "$", &text, "FPHA", "FP16"]), ok());
    let fp16 = c.call(&["JSON.DEBUG", "MEMORY", "h"]).int() as f64 / 768.0;
    assert!(fp16 <= 2.5, "{fp16} bytes an element");
    // An object holding the embedding (RedisVL's JSON storage) packs too.
    let doc = format!(r#"{{"id":"doc:1","text":"hello","embedding":{text}}}"#);
    assert_eq!(c.call(&["JSON.SET", "d", "$", &doc]), ok());
    let d = c.call(&["JSON.DEBUG", "MEMORY", "d", "$.embedding"]).items()[0].int() as f64 / 768.0;
    assert!(d <= 8.5, "{d}");
    assert_eq!(c.call(&["JSON.GET", "d"]), bulk(&doc));
}

#[test]
fn packed_arrays_read_and_write_like_general_ones() {
    let s = Server::start();
    let mut c = s.conn();
    let doc = r#"{"i":[1,2,3,4,5,6,7,8,9],"f":[0.5,1.0,-0.0,1e300,1e-7,2.5,3.25,-4.0],"m":[1,2.5,3,-0.0,5,6.0,7,8],"u":[1,2,3,4,5,6,7,18446744073709551615]}"#;
    assert_eq!(c.call(&["JSON.SET", "k", "$", doc]), ok());
    assert_eq!(c.call(&["JSON.GET", "k"]), bulk(doc));
    assert_eq!(c.call(&["JSON.GET", "k", "$.m[1]", "$.m[3]"]), bulk(r#"{"$.m[1]":[2.5],"$.m[3]":[-0.0]}"#));
    assert_eq!(c.call(&["JSON.GET", "k", "$.m[?(@>5)]"]), bulk("[6.0,7,8]"));
    assert_eq!(c.call(&["JSON.GET", "k", "$.i[-2:]"]), bulk("[8,9]"));
    assert_eq!(c.call(&["JSON.GET", "k", "$..[7]"]), bulk("[8,-4.0,8,18446744073709551615]"));
    assert_eq!(
        c.call(&["JSON.TYPE", "k", "$.m[0:3]"]),
        arr(vec![bulk("integer"), bulk("number"), bulk("integer")])
    );
    assert_eq!(c.call(&["JSON.ARRLEN", "k", "$.f"]), arr(vec![Resp::Int(8)]));
    assert_eq!(c.call(&["JSON.ARRINDEX", "k", "$.m", "6.0"]), arr(vec![Resp::Int(5)]));
    assert_eq!(c.call(&["JSON.ARRINDEX", "k", "$.m", "6"]), arr(vec![Resp::Int(-1)]));
    // Writes: a number stays in place, a float into integers, a string unpacks.
    assert_eq!(c.call(&["JSON.NUMINCRBY", "k", "$.i[0]", "0.5"]), bulk("[1.5]"));
    assert_eq!(c.call(&["JSON.NUMMULTBY", "k", "$.i[1]", "3"]), bulk("[6]"));
    assert_eq!(c.call(&["JSON.SET", "k", "$.i[2]", "-0.0"]), ok());
    assert_eq!(c.call(&["JSON.ARRAPPEND", "k", "$.i", "10", "11.5"]), arr(vec![Resp::Int(11)]));
    assert_eq!(c.call(&["JSON.ARRINSERT", "k", "$.i", "0", "0"]), arr(vec![Resp::Int(12)]));
    assert_eq!(c.call(&["JSON.GET", "k", "$.i"]), bulk("[[0,1.5,6,-0.0,4,5,6,7,8,9,10,11.5]]"));
    assert_eq!(c.call(&["JSON.ARRPOP", "k", "$.i"]), arr(vec![bulk("11.5")]));
    assert_eq!(c.call(&["JSON.ARRTRIM", "k", "$.i", "1", "-2"]), arr(vec![Resp::Int(9)]));
    assert_eq!(c.call(&["JSON.DEL", "k", "$.i[0]"]), Resp::Int(1));
    assert_eq!(c.call(&["JSON.GET", "k", "$.i"]), bulk("[[6,-0.0,4,5,6,7,8,9]]"));
    assert_eq!(c.call(&["JSON.CLEAR", "k", "$.f[0:2]"]), Resp::Int(2));
    assert_eq!(c.call(&["JSON.GET", "k", "$.f"]), bulk("[[0,0,-0.0,1e300,1e-7,2.5,3.25,-4.0]]"));
    assert_eq!(c.call(&["JSON.MERGE", "k", "$.f[2]", "7"]), ok());
    assert_eq!(c.call(&["JSON.ARRAPPEND", "k", "$.f", r#""x""#]), arr(vec![Resp::Int(9)]));
    assert_eq!(c.call(&["JSON.GET", "k", "$.f"]), bulk(r#"[[0,0,7,1e300,1e-7,2.5,3.25,-4.0,"x"]]"#));
    assert_eq!(c.call(&["JSON.SET", "k", "$.m[0]", "[1]"]), ok());
    assert_eq!(c.call(&["JSON.GET", "k", "$.m"]), bulk("[[[1],2.5,3,-0.0,5,6.0,7,8]]"));
    assert_eq!(c.call(&["JSON.CLEAR", "k", "$.u"]), Resp::Int(1));
    assert_eq!(c.call(&["JSON.GET", "k", "$.u"]), bulk("[[]]"));
    // RESP3 replies of a packed array's numbers.
    assert_eq!(c.call(&["JSON.SET", "r", "$", "[1,2,3,4,5,6,7,8.5]"]), ok());
    assert_eq!(c.call(&["JSON.RESP", "r", "$[6:]"]), arr(vec![Resp::Int(7), bulk("8.5")]));
    c.resp3();
    assert_eq!(
        c.call(&["JSON.GET", "r", "FORMAT", "EXPAND", "$[6:]"]),
        arr(vec![arr(vec![Resp::Int(7), Resp::Double("8.5".into())])])
    );
}

#[test]
fn packed_arrays_survive_rdb_reload() {
    let s = Server::start();
    let mut c = s.conn();
    let (_, text) = embedding(2, 100);
    let doc = format!(r#"{{"v":{text},"m":[1,2.5,3,4,5,6,7,8,9],"f":[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8]}}"#);
    assert_eq!(c.call(&["JSON.SET", "k", "$", &doc]), ok());
    assert_eq!(c.call(&["JSON.SET", "p", "$", &doc, "FPHA", "FP32"]), ok());
    let (mem, fp32) = (c.call(&["JSON.DEBUG", "MEMORY", "k"]), c.call(&["JSON.GET", "p"]));
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    assert_eq!(c.call(&["JSON.GET", "k"]), bulk(&doc));
    assert_eq!(c.call(&["JSON.DEBUG", "MEMORY", "k"]), mem);
    // An FPHA array is saved as its numbers' text (what RedisJSON 2.8 reads): after a reload
    // it reads the same, in exact (f64) storage.
    assert_eq!(c.call(&["JSON.GET", "p"]), fp32);
}

#[test]
fn fpha_stores_arrays_as_the_declared_float_type() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["JSON.SET", "d", "$", "[[1,2,3,4e3],[5,6.0,7,8]]", "FPHA", "FP16"]), ok());
    assert_eq!(c.call(&["JSON.GET", "d"]), bulk("[[1.0,2.0,3.0,4000.0],[5.0,6.0,7.0,8.0]]"));
    assert_eq!(c.call(&["JSON.TYPE", "d", "$[0][0]"]), arr(vec![bulk("number")]));
    for (ty, shown) in
        [("FP16", "[0.1235]"), ("BF16", "[0.1235]"), ("FP32", "[0.12345679]"), ("FP64", "[0.123456789]")]
    {
        assert_eq!(c.call(&["JSON.SET", "q", "$", "[0.123456789]", "FPHA", ty]), ok());
        assert_eq!(c.call(&["JSON.GET", "q"]), bulk(shown), "{ty}");
    }
    assert_eq!(c.call(&["JSON.SET", "q", "$", "[0.1,0.2,0.3]", "fpha", "fp16"]), ok());
    assert_eq!(c.call(&["JSON.GET", "q"]), bulk("[0.1,0.2,0.3]"));
    assert_eq!(c.call(&["JSON.SET", "q", "$", r#"{"a":[1.5,"a",2.5],"b":[1,2]}"#, "FPHA", "FP16"]), ok());
    assert_eq!(c.call(&["JSON.GET", "q"]), bulk(r#"{"a":[1.5,"a",2.5],"b":[1.0,2.0]}"#));
    assert_eq!(c.call(&["JSON.SET", "q", "$", "[2.5]", "NX", "FPHA", "FP32"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.SET", "q", "$", "[2.5]", "FPHA", "FP32", "XX"]), ok());
    for (doc, ty, err) in [
        ("[1.5,70000.0]", "FP16", "value out of range for F16 at line 1 column 13"),
        ("[-70000.0]", "FP16", "value out of range for F16 at line 1 column 10"),
        ("[1.5,1e39]", "BF16", "value out of range for BF16 at line 1 column 10"),
        ("[1.5,1e39]", "FP32", "value out of range for F32 at line 1 column 10"),
    ] {
        assert_eq!(c.call(&["JSON.SET", "z", "$", doc, "FPHA", ty]), Resp::Error(err.into()));
    }
    assert_eq!(c.call(&["EXISTS", "z"]), Resp::Int(0));
    assert_eq!(
        c.call(&["JSON.SET", "z", "$", "[1.5]", "FPHA", "FP8"]),
        Resp::Error("ERR invalid FPHA type".into())
    );
    assert!(c.call(&["JSON.SET", "z", "$", "[1.5]", "FPHA"]).err().contains("wrong number of arguments"));
    assert!(c.call(&["JSON.SET", "z", "$", "[1.5]", "FPHA", "FP32", "FPHA", "FP32"]).is_error());
    // Later writes keep the type while they fit; one that does not fit unpacks the array.
    assert_eq!(c.call(&["JSON.SET", "w", "$", "[0.5,1.5]", "FPHA", "FP16"]), ok());
    assert_eq!(c.call(&["JSON.NUMINCRBY", "w", "$[0]", "0.1"]), bulk("[0.6]"));
    assert_eq!(c.call(&["JSON.ARRAPPEND", "w", "$", "3", "0.123456789"]), arr(vec![Resp::Int(4)]));
    assert_eq!(c.call(&["JSON.GET", "w"]), bulk("[0.6,1.5,3.0,0.1235]"));
    assert_eq!(c.call(&["JSON.ARRAPPEND", "w", "$", "1e10"]), arr(vec![Resp::Int(5)]));
    assert_eq!(c.call(&["JSON.GET", "w"]), bulk("[0.6,1.5,3.0,0.1235,10000000000.0]"));
}

#[test]
fn vector_index_over_packed_arrays_answers_like_hash_blobs() {
    let s = Server::start();
    let mut c = s.conn();
    let dim = 16;
    let schema = |on: &str, path: &str| -> Vec<String> {
        format!("FT.CREATE {on}idx ON {on} PREFIX 1 {on}: SCHEMA {path} AS v VECTOR FLAT 6 TYPE FLOAT32 DIM {dim} DISTANCE_METRIC L2")
            .split(' ')
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(c.call(&schema("JSON", "$.v")), ok());
    assert_eq!(c.call(&schema("HASH", "v")), ok());
    assert_eq!(
        c.call(&[
            "FT.CREATE", "fidx", "ON", "JSON", "PREFIX", "1", "F:", "SCHEMA", "$.v", "AS", "v", "VECTOR",
            "FLAT", "6", "TYPE", "FLOAT32", "DIM", "16", "DISTANCE_METRIC", "L2"
        ]),
        ok()
    );
    for i in 0..40u64 {
        let (v, mut text) = embedding(100 + i, dim);
        if i % 3 == 0 {
            // Mixed integers and floats.
            text = text.replacen(&format!("{:?}", v[0]), "1", 1);
        }
        let nums: Vec<f64> = serde_json::from_str(&text).expect("numbers");
        let blob: Vec<u8> = nums.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect();
        assert_eq!(c.call(&["JSON.SET", &format!("JSON:{i}"), "$", &format!(r#"{{"v":{text}}}"#)]), ok());
        assert_eq!(
            c.call(&["JSON.SET", &format!("F:{i}"), "$", &format!(r#"{{"v":{text}}}"#), "FPHA", "FP32"]),
            ok()
        );
        let key = format!("HASH:{i}");
        c.call(&[b"HSET".as_slice(), key.as_bytes(), b"v", &blob]);
    }
    let (q, _) = embedding(7, dim);
    let qblob: Vec<u8> = q.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect();
    let search = |c: &mut common::Conn, idx: &str| -> Vec<(String, String)> {
        let args: Vec<Vec<u8>> = vec![
            b"FT.SEARCH".to_vec(),
            idx.as_bytes().to_vec(),
            b"*=>[KNN 10 @v $b]".to_vec(),
            b"PARAMS".to_vec(),
            b"2".to_vec(),
            b"b".to_vec(),
            qblob.clone(),
            b"SORTBY".to_vec(),
            b"__v_score".to_vec(),
            b"RETURN".to_vec(),
            b"1".to_vec(),
            b"__v_score".to_vec(),
            b"DIALECT".to_vec(),
            b"2".to_vec(),
        ];
        let r = c.call(&args);
        let items = r.items();
        assert_eq!(items[0], Resp::Int(10), "{r:?}");
        items[1..]
            .chunks(2)
            .map(|p| (p[0].text().split(':').nth(1).unwrap_or("").to_owned(), p[1].items()[1].text()))
            .collect()
    };
    let hash = search(&mut c, "HASHidx");
    assert_eq!(search(&mut c, "JSONidx"), hash);
    assert_eq!(search(&mut c, "fidx"), hash);
    // An INT8 index takes integer arrays only: a packed array with a float fails at its index.
    assert_eq!(
        c.call(&[
            "FT.CREATE", "i8", "ON", "JSON", "PREFIX", "1", "I:", "SCHEMA", "$.v", "AS", "v", "VECTOR",
            "FLAT", "6", "TYPE", "INT8", "DIM", "8", "DISTANCE_METRIC", "L2"
        ]),
        ok()
    );
    assert_eq!(c.call(&["JSON.SET", "I:1", "$", r#"{"v":[1,2,3,4,5,6,7,8]}"#]), ok());
    assert_eq!(c.call(&["JSON.SET", "I:2", "$", r#"{"v":[1,2,3,4,5.5,6,7,8]}"#]), ok());
    assert_eq!(c.call(&["JSON.SET", "I:3", "$", r#"{"v":[1,2,300,4,5,6,7,8]}"#]), ok());
    let info = c.call(&["FT.INFO", "i8"]);
    let items = info.items();
    let at = items
        .iter()
        .position(|x| matches!(x, Resp::Bulk(_) | Resp::Simple(_)) && x.text() == "num_docs")
        .expect("num_docs");
    assert!(matches!(&items[at + 1], Resp::Int(1)) || items[at + 1] == bulk("1"), "{info:?}");
}
