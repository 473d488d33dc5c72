//! VECTOR fields end to end: schema errors, FT.INFO attributes (RESP2 and RESP3), HASH blobs
//! and JSON arrays (multi-vectors), FLOAT32/FLOAT64, L2/IP/COSINE, KNN with and without a
//! filter, AS / YIELD_DISTANCE_AS, VECTOR_RANGE, SORTBY/RETURN, FT.AGGREGATE, update and
//! delete sync, indexing failures, query errors, FT.ALTER and DEBUG RELOAD.
//!
//! Every expected reply below was checked against RediSearch 2.10 (redisearch.so of Redis
//! Stack, with RedisJSON 2.8, on Redis 7.2) by sending the same commands to it; the replies
//! are written in Python's `repr` of redis-py's RESP2 parse (`b'…'` bulks, `[…]` arrays),
//! which [`py`] renders from folio's reply, so they could be pasted from that session as
//! they were printed.

mod common;

use common::*;

fn f32s(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f64s(xs: &[f64]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A command with binary arguments: text words and raw blobs.
enum A<'a> {
    T(&'a str),
    B(Vec<u8>),
}

fn call(c: &mut Conn, args: &[A]) -> Resp {
    let raw: Vec<Vec<u8>> = args
        .iter()
        .map(|a| match a {
            A::T(s) => s.as_bytes().to_vec(),
            A::B(b) => b.clone(),
        })
        .collect();
    c.call(&raw)
}

/// `"CMD idx|query|more words"`: the command and index, the query as one argument, then
/// words, with the blob at the position of the word `$`.
fn with_blob(words: &str, blob: Vec<u8>) -> Vec<A<'_>> {
    let mut parts = words.splitn(3, '|');
    let mut out: Vec<A> = parts.next().unwrap_or("").split(' ').map(A::T).collect();
    out.extend(parts.next().map(A::T));
    for w in parts.next().unwrap_or("").split(' ').filter(|w| !w.is_empty()) {
        out.push(if w == "$" { A::B(blob.clone()) } else { A::T(w) });
    }
    out
}

/// Python's `repr` of a bytes value.
fn py_bytes(b: &[u8]) -> String {
    let mut s = String::from("b'");
    for &c in b {
        match c {
            b'\\' => s.push_str("\\\\"),
            b'\'' => s.push_str("\\'"),
            b'\t' => s.push_str("\\t"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            0x20..=0x7e => s.push(c as char),
            _ => s.push_str(&format!("\\x{c:02x}")),
        }
    }
    s.push('\'');
    s
}

/// A reply as redis-py prints it (errors as `ERR: text`).
fn py(r: &Resp) -> String {
    match r {
        Resp::Int(n) => n.to_string(),
        Resp::Bulk(b) | Resp::Verbatim(b) => py_bytes(b),
        Resp::Simple(s) => py_bytes(s.as_bytes()),
        Resp::Double(d) => d.clone(),
        Resp::Nil => "None".into(),
        Resp::Bool(b) => if *b { "True" } else { "False" }.into(),
        Resp::BigNumber(n) => n.clone(),
        Resp::Error(e) => format!("ERR: {}", e.strip_prefix("ERR ").unwrap_or(e)),
        Resp::Array(v) | Resp::Set(v) | Resp::Push(v) => {
            format!("[{}]", v.iter().map(py).collect::<Vec<_>>().join(", "))
        }
        Resp::Map(m) => format!(
            "{{{}}}",
            m.iter().map(|(k, v)| format!("{}: {}", py(k), py(v))).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The value under `key` of a RESP2 flat map or a RESP3 map.
fn field<'a>(r: &'a Resp, key: &str) -> &'a Resp {
    match r {
        Resp::Map(m) => &m.iter().find(|(k, _)| k.text() == key).unwrap_or_else(|| panic!("no {key}")).1,
        Resp::Array(v) => {
            let i = v.iter().position(|k| matches!(k, Resp::Bulk(_) | Resp::Simple(_)) && k.text() == key);
            &v[i.unwrap_or_else(|| panic!("no {key}")) + 1]
        }
        other => panic!("not a map: {other:?}"),
    }
}

#[test]
fn schema_errors_match_redisearch() {
    let s = Server::start();
    let mut c = s.conn();
    let cases = [
        ("VECTOR", "Bad arguments for vector similarity algorithm: Expected an argument, but none provided"),
        ("VECTOR FOO 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2", "Bad arguments for vector similarity algorithm: Unknown argument"),
        ("VECTOR FLAT", "Bad arguments for vector similarity number of parameters: Expected an argument, but none provided"),
        ("VECTOR FLAT x", "Bad arguments for vector similarity number of parameters: Could not convert argument to expected type"),
        ("VECTOR FLAT -2 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2", "Bad arguments for vector similarity number of parameters: Value is outside acceptable bounds"),
        ("VECTOR FLAT 5 TYPE FLOAT32 DIM 2 DISTANCE_METRIC", "Bad number of arguments for vector similarity index: got 5 but expected even number as algorithm parameters (should be submitted as named arguments)"),
        ("VECTOR FLAT 6 TYPE FLOAT32 DIM 2", "Expected 6 parameters but got 4"),
        ("VECTOR FLAT 10 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2", "Expected 10 parameters but got 6"),
        ("VECTOR FLAT 4 TYPE FLOAT32 DIM 2", "Missing mandatory parameter: cannot create FLAT index without specifying DISTANCE_METRIC argument"),
        ("VECTOR FLAT 4 DIM 2 DISTANCE_METRIC L2", "Missing mandatory parameter: cannot create FLAT index without specifying TYPE argument"),
        ("VECTOR FLAT 4 TYPE FLOAT32 DISTANCE_METRIC L2", "Missing mandatory parameter: cannot create FLAT index without specifying DIM argument"),
        ("VECTOR FLAT 4 TYPE FLOAT32 DIM 2 t TEXT", "Missing mandatory parameter: cannot create FLAT index without specifying DISTANCE_METRIC argument"),
        ("VECTOR FLAT 6 TYPE INT32 DIM 2 DISTANCE_METRIC L2", "Bad arguments for vector similarity FLAT index type: Unknown argument"),
        ("VECTOR FLAT 6 TYPE FLOAT32 DIM 0 DISTANCE_METRIC L2", "Bad arguments for vector similarity FLAT index dim: Value is outside acceptable bounds"),
        ("VECTOR FLAT 6 TYPE FLOAT32 DIM -1 DISTANCE_METRIC L2", "Bad arguments for vector similarity FLAT index dim: Value is outside acceptable bounds"),
        ("VECTOR FLAT 6 TYPE FLOAT32 DIM x DISTANCE_METRIC L2", "Bad arguments for vector similarity FLAT index dim: Could not convert argument to expected type"),
        ("VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC FOO", "Bad arguments for vector similarity FLAT index metric: Unknown argument"),
        ("VECTOR FLAT 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 M 4", "Bad arguments for algorithm FLAT: M"),
        ("VECTOR FLAT 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 BLOCK_SIZE 0", "Bad arguments for vector similarity FLAT index blocksize: Value is outside acceptable bounds"),
        ("VECTOR FLAT 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 INITIAL_CAP x", "Bad arguments for vector similarity FLAT index initial cap: Could not convert argument to expected type"),
        ("VECTOR HNSW 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 BLOCK_SIZE 4", "Bad arguments for algorithm HNSW: BLOCK_SIZE"),
        ("VECTOR HNSW 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 M 0", "Bad arguments for vector similarity HNSW index m: Value is outside acceptable bounds"),
        ("VECTOR HNSW 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 EF_CONSTRUCTION 0", "Bad arguments for vector similarity HNSW index efConstruction: Value is outside acceptable bounds"),
        ("VECTOR HNSW 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 EF_RUNTIME 0", "Bad arguments for vector similarity HNSW index efRuntime: Value is outside acceptable bounds"),
        ("VECTOR HNSW 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 EPSILON x", "Bad arguments for vector similarity HNSW index epsilon: Could not convert argument to expected type"),
        ("VECTOR HNSW 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 EPSILON -1", "Bad arguments for vector similarity HNSW index epsilon: Value is outside acceptable bounds"),
        ("VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 SORTABLE", "Field `SORTABLE` does not have a type"),
        ("VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 NOINDEX", "Field `NOINDEX` does not have a type"),
        ("VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 INDEXEMPTY", "Field `INDEXEMPTY` does not have a type"),
        ("VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC IP EXTRA", "Field `EXTRA` does not have a type"),
    ];
    for (schema, want) in cases {
        let mut args = vec!["FT.CREATE", "i", "SCHEMA", "v"];
        args.extend(schema.split(' '));
        assert_eq!(c.call(&args).err(), want, "{schema}");
    }
    // Accepted (RediSearch 2.10 too): EPSILON 0, INDEXMISSING, lower-case words, a field after.
    for schema in [
        "VECTOR HNSW 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 EPSILON 0",
        "VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 INDEXMISSING",
        "VECTOR flat 6 type float64 dim 2 distance_metric cosine",
        "VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 t TEXT",
    ] {
        let mut args = vec!["FT.CREATE", "i", "SCHEMA", "v"];
        args.extend(schema.split(' '));
        assert_eq!(c.call(&args), Resp::Simple("OK".into()), "{schema}");
        c.call(&["FT.DROPINDEX", "i"]);
    }
}

/// Index `i` of the hash scenario: a, b, d index; c has a 3-byte blob.
fn hash_index(c: &mut Conn) {
    let ok = Resp::Simple("OK".into());
    assert_eq!(
        c.call(&[
            "FT.CREATE", "i", "SCHEMA", "v", "VECTOR", "FLAT", "6", "TYPE", "FLOAT32", "DIM", "2",
            "DISTANCE_METRIC", "L2", "t", "TAG", "n", "NUMERIC"
        ]),
        ok
    );
    call(
        c,
        &[
            A::T("HSET"),
            A::T("a"),
            A::T("v"),
            A::B(f32s(&[1.0, 2.0])),
            A::T("t"),
            A::T("x"),
            A::T("n"),
            A::T("1"),
        ],
    );
    call(
        c,
        &[
            A::T("HSET"),
            A::T("b"),
            A::T("v"),
            A::B(f32s(&[3.0, 5.0])),
            A::T("t"),
            A::T("y"),
            A::T("n"),
            A::T("2"),
        ],
    );
    call(c, &[A::T("HSET"), A::T("c"), A::T("v"), A::T("abc"), A::T("t"), A::T("y"), A::T("n"), A::T("3")]);
    call(
        c,
        &[
            A::T("HSET"),
            A::T("d"),
            A::T("v"),
            A::B(f32s(&[0.1, 0.7])),
            A::T("t"),
            A::T("x"),
            A::T("n"),
            A::T("4"),
        ],
    );
}

#[test]
fn hash_knn_and_range_queries() {
    let s = Server::start();
    let mut c = s.conn();
    hash_index(&mut c);
    let q = f32s(&[1.0, 1.0]);
    let cases: &[(&str, &str)] = &[
        // No SORTBY: RediSearch 2.10 returns the K nearest in document order, not by distance.
        ("i|*=>[KNN 3 @v $b]|PARAMS 2 b $ DIALECT 2",
         r"[3, b'a', [b'__v_score', b'1', b'v', b'\x00\x00\x80?\x00\x00\x00@', b't', b'x', b'n', b'1'], b'b', [b'__v_score', b'20', b'v', b'\x00\x00@@\x00\x00\xa0@', b't', b'y', b'n', b'2'], b'd', [b'__v_score', b'0.899999976158', b'v', b'\xcd\xcc\xcc=333?', b't', b'x', b'n', b'4']]"),
        ("i|*=>[KNN 3 @v $b]|PARAMS 2 b $ DIALECT 2 WITHSCORES",
         r"[3, b'a', b'0', [b'__v_score', b'1', b'v', b'\x00\x00\x80?\x00\x00\x00@', b't', b'x', b'n', b'1'], b'b', b'0', [b'__v_score', b'20', b'v', b'\x00\x00@@\x00\x00\xa0@', b't', b'y', b'n', b'2'], b'd', b'0', [b'__v_score', b'0.899999976158', b'v', b'\xcd\xcc\xcc=333?', b't', b'x', b'n', b'4']]"),
        ("i|*=>[KNN 3 @v $b AS d]|PARAMS 2 b $ DIALECT 2 RETURN 2 t d",
         "[3, b'a', [b'd', b'1', b't', b'x'], b'b', [b'd', b'20', b't', b'y'], b'd', [b'd', b'0.899999976158', b't', b'x']]"),
        ("i|*=>[KNN 3 @v $b]|PARAMS 2 b $ DIALECT 2 LIMIT 1 1",
         r"[3, b'b', [b'__v_score', b'20', b'v', b'\x00\x00@@\x00\x00\xa0@', b't', b'y', b'n', b'2']]"),
        ("i|*=>[KNN 3 @v $b]|PARAMS 2 b $ DIALECT 2 NOCONTENT", "[3, b'a', b'b', b'd']"),
        ("i|@t:{x}=>[KNN 3 @v $b]|PARAMS 2 b $ DIALECT 2 NOCONTENT", "[2, b'a', b'd']"),
        ("i|(@t:{x})=>[KNN 3 @v $b]|PARAMS 2 b $ DIALECT 2 NOCONTENT", "[2, b'a', b'd']"),
        ("i|*=>[KNN 2 @v $b]=>{$YIELD_DISTANCE_AS: dd}|PARAMS 2 b $ DIALECT 2 RETURN 1 dd",
         "[2, b'a', [b'dd', b'1'], b'd', [b'dd', b'0.899999976158']]"),
        ("i|@t:{x}=>[KNN 2 @v $b HYBRID_POLICY BATCHES BATCH_SIZE 3]|PARAMS 2 b $ DIALECT 2 NOCONTENT",
         "[2, b'a', b'd']"),
        ("i|*=>[KNN 2 @t $b]|PARAMS 2 b $ DIALECT 2", "[0]"),
        ("i|*=>[KNN 2 @zz $b]|PARAMS 2 b $ DIALECT 2", "[0]"),
        ("i|*=>[KNN 0 @v $b]|PARAMS 2 b $ DIALECT 2", "[0]"),
        ("i|*=>[KNN 99999999999 @v $b]|PARAMS 2 b $ DIALECT 2 NOCONTENT", "[3, b'a', b'b', b'd']"),
        ("i|@v:[VECTOR_RANGE 5 $b]|PARAMS 2 b $ DIALECT 2 NOCONTENT", "[2, b'a', b'd']"),
        ("i|@v:[VECTOR_RANGE 5 $b]=>{$YIELD_DISTANCE_AS: d}|PARAMS 2 b $ DIALECT 2 RETURN 1 d",
         "[2, b'a', [b'd', b'1'], b'd', [b'd', b'0.899999976158']]"),
        ("i|@v:[VECTOR_RANGE 50 $b]=>{$YIELD_DISTANCE_AS: d}|PARAMS 2 b $ DIALECT 2 SORTBY d RETURN 1 t",
         "[3, b'd', [b't', b'x'], b'a', [b't', b'x'], b'b', [b't', b'y']]"),
        ("i|@v:[VECTOR_RANGE 5 $b]=>[KNN 1 @v $b]|PARAMS 2 b $ DIALECT 2 RETURN 1 __v_score",
         "[1, b'd', [b'__v_score', b'0.899999976158']]"),
        ("i|*=>[KNN 3 @v $b AS d]|PARAMS 2 b $ DIALECT 2 SORTBY d DESC RETURN 1 n",
         "[3, b'b', [b'n', b'2'], b'a', [b'n', b'1'], b'd', [b'n', b'4']]"),
    ];
    for (words, want) in cases {
        let r = call(&mut c, &with_blob(&format!("FT.SEARCH {words}"), q.clone()));
        assert_eq!(py(&r), *want, "{words}");
    }
    // RESP3: the distance is a bulk string in extra_attributes.
    c.resp3();
    let r =
        call(&mut c, &with_blob("FT.SEARCH i|*=>[KNN 3 @v $b AS d]|PARAMS 2 b $ DIALECT 2 RETURN 1 d", q));
    assert_eq!(
        py(field(&r, "results")),
        "[{b'id': b'a', b'extra_attributes': {b'd': b'1'}, b'values': []}, {b'id': b'b', b'extra_attributes': {b'd': b'20'}, b'values': []}, {b'id': b'd', b'extra_attributes': {b'd': b'0.899999976158'}, b'values': []}]"
    );
}

#[test]
fn query_errors_match_redisearch() {
    let s = Server::start();
    let mut c = s.conn();
    hash_index(&mut c);
    assert_eq!(
        c.call(&[
            "FT.CREATE", "hn", "PREFIX", "1", "h:", "SCHEMA", "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32",
            "DIM", "2", "DISTANCE_METRIC", "L2", "txt", "TEXT"
        ]),
        Resp::Simple("OK".into())
    );
    let q = f32s(&[1.0, 1.0]);
    // Until a field holds its first vector, RediSearch has no vector index for it: KNN and
    // range queries match nothing and check nothing, even after other documents.
    for words in [
        "FT.SEARCH hn|*=>[KNN 3 @v $b]|PARAMS 2 b abc DIALECT 2",
        "FT.SEARCH hn|*=>[KNN 3 @v $b EF_RUNTIME 0]|PARAMS 2 b $ DIALECT 2",
        "FT.SEARCH hn|@v:[VECTOR_RANGE -1 $b]|PARAMS 2 b $ DIALECT 2",
    ] {
        assert_eq!(py(&call(&mut c, &with_blob(words, q.clone()))), "[0]", "{words}");
    }
    c.call(&["HSET", "h:0", "txt", "no vector"]);
    let bad_blob = "FT.SEARCH hn|*=>[KNN 3 @v $b]|PARAMS 2 b abc DIALECT 2";
    assert_eq!(py(&call(&mut c, &with_blob(bad_blob, q.clone()))), "[0]");
    // Once a vector was stored the checks apply, even when it is gone again.
    call(&mut c, &[A::T("HSET"), A::T("h:9"), A::T("v"), A::B(f32s(&[1.0, 1.0]))]);
    c.call(&["DEL", "h:9"]);
    assert_eq!(
        call(&mut c, &with_blob(bad_blob, q.clone())).err(),
        "Error parsing vector similarity query: query vector blob size (3) does not match index's expected size (8)."
    );
    let cases: &[(&str, &str)] = &[
        ("i|*=>[KNN 3 @v $b]|PARAMS 2 b $", "Syntax error at offset 1 near >["),
        ("i|*=>[KNN 3 @v $b]|PARAMS 2 b $ DIALECT 1", "Syntax error at offset 1 near >["),
        ("i|@v:[VECTOR_RANGE 5 $b]|PARAMS 2 b $ DIALECT 1", "Syntax error at offset 4 near VECTOR_RANGE"),
        ("i|@t:{x} @n:[1 1]=>[KNN 3 @v $b]|PARAMS 2 b $ DIALECT 2", "Syntax error at offset 17 near >["),
        ("i|(*=>[KNN 2 @v $b])|PARAMS 2 b $ DIALECT 2", "Syntax error at offset 2 near >["),
        ("i|*=>[KNN -1 @v $b]|PARAMS 2 b $ DIALECT 2", "Syntax error at offset 8 near -1"),
        ("i|*=>[KNN x @v $b]|PARAMS 2 b $ DIALECT 2", "Syntax error at offset 8 near x"),
        ("i|*=>[FOO 2 @v $b]|PARAMS 2 b $ DIALECT 2", "Syntax error: Expecting Vector Similarity command at offset 4 near FOO"),
        ("i|*=>[KNN 2 @v $c]|PARAMS 2 b $ DIALECT 2", "No such parameter `c`"),
        ("i|*=>[KNN 2 @v $b]|PARAMS 2 b abc DIALECT 2", "Error parsing vector similarity query: query vector blob size (3) does not match index's expected size (8)."),
        ("i|*=>[KNN 2 @v $b FOO 3]|PARAMS 2 b $ DIALECT 2", "Error parsing vector similarity parameters: Invalid option"),
        ("i|*=>[KNN 2 @v $b EF_RUNTIME 5]|PARAMS 2 b $ DIALECT 2", "Error parsing vector similarity parameters: Invalid option"),
        ("i|*=>[KNN 2 @v $b BATCH_SIZE 10]|PARAMS 2 b $ DIALECT 2", "Error parsing vector similarity parameters: hybrid query attributes were sent for a non-hybrid query"),
        ("i|*=>[KNN 2 @v $b HYBRID_POLICY FOO]|PARAMS 2 b $ DIALECT 2", "Error parsing vector similarity parameters: hybrid query attributes were sent for a non-hybrid query"),
        ("i|@t:{x}=>[KNN 2 @v $b HYBRID_POLICY ADHOC_BF BATCH_SIZE 3]|PARAMS 2 b $ DIALECT 2", "Error parsing vector similarity parameters: 'batch size' is irrelevant for 'ADHOC_BF' policy"),
        ("i|@v:[VECTOR_RANGE -1 $b]|PARAMS 2 b $ DIALECT 2", "Error parsing vector similarity query: negative radius (-1) given in a range query"),
        ("i|@v:[VECTOR_RANGE 5 $b]=>{$FOO: 1}|PARAMS 2 b $ DIALECT 2", "Invalid attribute FOO"),
        ("i|@v:[VECTOR_RANGE 50 $b]=>{$YIELD_DISTANCE_AS: d; $EPSILON: 0.5} @t:{y}|PARAMS 2 b $ DIALECT 2", "Error parsing vector similarity parameters: Invalid option"),
        ("hn|*=>[KNN 3 @v $b EPSILON 0.5]|PARAMS 2 b $ DIALECT 2", "Error parsing vector similarity parameters: range query attributes were sent for a non-range query"),
        ("hn|*=>[KNN 3 @v $b EF_RUNTIME 0]|PARAMS 2 b $ DIALECT 2", "Error parsing vector similarity parameters: Invalid value was given"),
        ("hn|@v:[VECTOR_RANGE 5 $b]=>{$EPSILON: 0; $YIELD_DISTANCE_AS: d}|PARAMS 2 b $ DIALECT 2", "Error parsing vector similarity parameters: Invalid value was given"),
        ("hn|@v:[VECTOR_RANGE 5 $b]=>{$EF_RUNTIME: 4}|PARAMS 2 b $ DIALECT 2", "Error parsing vector similarity parameters: Invalid option"),
    ];
    for (words, want) in cases {
        let r = call(&mut c, &with_blob(&format!("FT.SEARCH {words}"), q.clone()));
        assert_eq!(r.err(), *want, "{words}");
    }
    // Valid HNSW options.
    let r = call(&mut c, &with_blob("FT.SEARCH hn|*=>[KNN 3 @v $b EF_RUNTIME 5]|PARAMS 2 b $ DIALECT 2", q));
    assert!(!r.is_error(), "{r:?}");
}

#[test]
fn ft_info_attributes_failures_and_alter() {
    let s = Server::start();
    let mut c = s.conn();
    c.call(&[
        "FT.CREATE", "f", "PREFIX", "1", "f:", "SCHEMA", "v", "VECTOR", "FLAT", "6", "TYPE", "FLOAT64",
        "DIM", "3", "DISTANCE_METRIC", "IP", "g", "TAG",
    ]);
    call(
        &mut c,
        &[A::T("HSET"), A::T("f:1"), A::T("v"), A::B(f64s(&[0.5, 1.0, -2.0])), A::T("g"), A::T("a")],
    );
    call(&mut c, &[A::T("HSET"), A::T("f:2"), A::T("v"), A::B(f64s(&[1.0, 1.0, 1.0])), A::T("g"), A::T("b")]);
    call(&mut c, &[A::T("HSET"), A::T("f:3"), A::T("v"), A::B(f64s(&[0.1, 0.2, 0.3])), A::T("g"), A::T("a")]);
    call(&mut c, &[A::T("HSET"), A::T("f:4"), A::T("v"), A::B(f32s(&[0.1, 0.2, 0.3])), A::T("g"), A::T("a")]);
    let info = c.call(&["FT.INFO", "f"]);
    assert_eq!(
        py(field(&info, "attributes")),
        "[[b'identifier', b'v', b'attribute', b'v', b'type', b'VECTOR', b'algorithm', b'FLAT', b'data_type', b'FLOAT64', b'dim', 3, b'distance_metric', b'IP'], [b'identifier', b'g', b'attribute', b'g', b'type', b'TAG', b'SEPARATOR', b',']]"
    );
    assert_eq!(py(field(&info, "num_docs")), "3");
    assert_eq!(py(field(&info, "hash_indexing_failures")), "1");
    assert_eq!(
        py(field(&info, "Index Errors")),
        "[b'indexing failures', 1, b'last indexing error', b'Could not add vector with blob size 12 (expected size 24)', b'last indexing error key', b'f:4']"
    );
    // FLOAT64 IP distances, and a FLOAT32 blob on a FLOAT64 field.
    let q = f64s(&[0.25, 0.5, 1.0]);
    let knn = "FT.SEARCH f|*=>[KNN 10 @v $q]|PARAMS 2 q $ SORTBY __v_score RETURN 1 __v_score DIALECT 2";
    assert_eq!(
        py(&call(&mut c, &with_blob(knn, q.clone()))),
        "[3, b'f:2', [b'__v_score', b'-0.75'], b'f:3', [b'__v_score', b'0.575'], b'f:1', [b'__v_score', b'2.375']]"
    );
    assert_eq!(
        call(&mut c, &with_blob("FT.SEARCH f|*=>[KNN 10 @v $q]|PARAMS 2 q $ DIALECT 2", f32s(&[0.25, 0.5, 1.0]))).err(),
        "Error parsing vector similarity query: query vector blob size (12) does not match index's expected size (24)."
    );
    // Updates and deletes take effect at once; a bad blob drops the document; a document
    // without the field stays indexed by its other fields.
    call(&mut c, &[A::T("HSET"), A::T("f:2"), A::T("v"), A::B(f64s(&[-1.0, -1.0, -1.0]))]);
    c.call(&["DEL", "f:3"]);
    assert_eq!(
        py(&call(&mut c, &with_blob(knn, q.clone()))),
        "[2, b'f:1', [b'__v_score', b'2.375'], b'f:2', [b'__v_score', b'2.75']]"
    );
    c.call(&["HSET", "f:2", "v", "short"]);
    assert_eq!(py(&call(&mut c, &with_blob(knn, q.clone()))), "[1, b'f:1', [b'__v_score', b'2.375']]");
    c.call(&["HDEL", "f:1", "v"]);
    assert_eq!(py(&call(&mut c, &with_blob(knn, q))), "[0]");
    assert_eq!(py(&c.call(&["FT.SEARCH", "f", "@g:{a}", "NOCONTENT"])), "[1, b'f:1']");
    // FT.ALTER adds an HNSW field (its odd-nargs message is worded as RediSearch's ALTER).
    assert_eq!(
        c.call(&[
            "FT.ALTER", "f", "SCHEMA", "ADD", "w", "VECTOR", "HNSW", "10", "TYPE", "FLOAT32", "DIM", "2",
            "DISTANCE_METRIC", "COSINE", "M", "4", "EF_CONSTRUCTION", "50"
        ]),
        Resp::Simple("OK".into())
    );
    assert_eq!(
        c.call(&[
            "FT.ALTER", "f", "SCHEMA", "ADD", "w2", "VECTOR", "HNSW", "5", "TYPE", "FLOAT32", "DIM", "2",
            "DISTANCE_METRIC", "COSINE"
        ])
        .err(),
        "Bad number of arguments for vector similarity index: got 5 but expected even number (as algorithm parameters should be submitted as named arguments)"
    );
    call(&mut c, &[A::T("HSET"), A::T("f:5"), A::T("w"), A::B(f32s(&[3.0, 4.0]))]);
    call(
        &mut c,
        &[
            A::T("HSET"),
            A::T("f:6"),
            A::T("w"),
            A::B(f32s(&[-4.0, 3.0])),
            A::T("v"),
            A::B(f64s(&[1.0, 0.0, 0.0])),
        ],
    );
    let cos = "FT.SEARCH f|*=>[KNN 2 @w $q AS s]|PARAMS 2 q $ SORTBY s RETURN 1 s DIALECT 2";
    let want = "[2, b'f:5', [b's', b'0.399999976158'], b'f:6', [b's', b'1.79999995232']]";
    assert_eq!(py(&call(&mut c, &with_blob(cos, f32s(&[1.0, 0.0])))), want);
    let attrs = "[[b'identifier', b'v', b'attribute', b'v', b'type', b'VECTOR', b'algorithm', b'FLAT', b'data_type', b'FLOAT64', b'dim', 3, b'distance_metric', b'IP'], [b'identifier', b'g', b'attribute', b'g', b'type', b'TAG', b'SEPARATOR', b','], [b'identifier', b'w', b'attribute', b'w', b'type', b'VECTOR', b'algorithm', b'HNSW', b'data_type', b'FLOAT32', b'dim', 2, b'distance_metric', b'COSINE', b'M', 4, b'ef_construction', 50]]";
    assert_eq!(py(field(&c.call(&["FT.INFO", "f"]), "attributes")), attrs);
    // The definition (with the ALTER) survives DEBUG RELOAD and the data is re-indexed.
    assert_eq!(c.call(&["DEBUG", "RELOAD"]), Resp::Simple("OK".into()));
    assert!(wait_until(10, || py(field(&c.call(&["FT.INFO", "f"]), "indexing")) == "0"));
    assert_eq!(py(field(&c.call(&["FT.INFO", "f"]), "attributes")), attrs);
    assert_eq!(py(&call(&mut c, &with_blob(cos, f32s(&[1.0, 0.0])))), want);
    // RESP3 attributes.
    c.resp3();
    assert_eq!(
        py(field(&c.call(&["FT.INFO", "f"]), "attributes")),
        "[{b'identifier': b'v', b'attribute': b'v', b'type': b'VECTOR', b'algorithm': b'FLAT', b'data_type': b'FLOAT64', b'dim': 3, b'distance_metric': b'IP', b'flags': []}, {b'identifier': b'g', b'attribute': b'g', b'type': b'TAG', b'SEPARATOR': b',', b'flags': []}, {b'identifier': b'w', b'attribute': b'w', b'type': b'VECTOR', b'algorithm': b'HNSW', b'data_type': b'FLOAT32', b'dim': 2, b'distance_metric': b'COSINE', b'M': 4, b'ef_construction': 50, b'flags': []}]"
    );
}

#[test]
fn json_vectors_multi_vectors_and_failures() {
    let s = Server::start();
    let mut c = s.conn();
    c.call(&[
        "FT.CREATE", "jx", "ON", "JSON", "PREFIX", "1", "jx:", "SCHEMA", "$.v", "AS", "v", "VECTOR", "FLAT",
        "6", "TYPE", "FLOAT64", "DIM", "2", "DISTANCE_METRIC", "COSINE", "$.vs[*]", "AS", "vs", "VECTOR",
        "FLAT", "6", "TYPE", "FLOAT32", "DIM", "2", "DISTANCE_METRIC", "L2",
    ]);
    c.call(&["JSON.SET", "jx:1", "$", r#"{"v":[1,2],"vs":[[1,1],[5,5]]}"#]);
    c.call(&["JSON.SET", "jx:2", "$", r#"{"v":[2,-1],"vs":[[3,3]]}"#]);
    c.call(&["JSON.SET", "jx:3", "$", r#"{"v":[0.3,0.7],"vs":[[0,0],[2,1]]}"#]);
    let r =
        call(&mut c, &with_blob("FT.SEARCH jx|*=>[KNN 3 @v $b]|PARAMS 2 b $ DIALECT 2", f64s(&[1.0, 1.0])));
    assert_eq!(
        py(&r),
        r#"[3, b'jx:1', [b'__v_score', b'0.0513167019495', b'$', b'{"v":[1,2],"vs":[[1,1],[5,5]]}'], b'jx:2', [b'__v_score', b'0.683772233983', b'$', b'{"v":[2,-1],"vs":[[3,3]]}'], b'jx:3', [b'__v_score', b'0.0715233091147', b'$', b'{"v":[0.3,0.7],"vs":[[0,0],[2,1]]}']]"#
    );
    let r = call(
        &mut c,
        &with_blob(
            "FT.SEARCH jx|*=>[KNN 3 @vs $b]|PARAMS 2 b $ DIALECT 3 SORTBY __vs_score RETURN 1 __vs_score",
            f32s(&[4.0, 4.0]),
        ),
    );
    assert_eq!(py(&r), "[3, b'jx:1', [b'__vs_score', b'2'], b'jx:2', [b'__vs_score', b'2'], b'jx:3', [b'__vs_score', b'13']]");
    let r = call(
        &mut c,
        &with_blob(
            "FT.SEARCH jx|@vs:[VECTOR_RANGE 3 $b]=>{$YIELD_DISTANCE_AS: d}|PARAMS 2 b $ DIALECT 2 RETURN 1 d",
            f32s(&[1.0, 0.0]),
        ),
    );
    assert_eq!(py(&r), "[2, b'jx:1', [b'd', b'1'], b'jx:3', [b'd', b'1']]");
    // COSINE of a zero query vector is NaN, printed as C prints it.
    let r = call(
        &mut c,
        &with_blob(
            "FT.SEARCH jx|*=>[KNN 3 @v $b]|PARAMS 2 b $ DIALECT 2 RETURN 1 __v_score",
            f64s(&[0.0, 0.0]),
        ),
    );
    assert_eq!(py(&r), "[3, b'jx:1', [b'__v_score', b'-nan'], b'jx:2', [b'__v_score', b'-nan'], b'jx:3', [b'__v_score', b'-nan']]");
    // Failures: wrong length, a string, an empty array, a null element, a boolean, an array of
    // arrays on a single-value path; null and missing values are fine. JSON failures leave
    // `last indexing error` at N/A.
    c.call(&[
        "FT.CREATE", "jv", "ON", "JSON", "PREFIX", "1", "jv", "SCHEMA", "$.v", "AS", "v", "VECTOR", "FLAT",
        "6", "TYPE", "FLOAT32", "DIM", "2", "DISTANCE_METRIC", "L2",
    ]);
    for (k, doc) in [
        ("jv1", r#"{"v":[1,2,3]}"#),
        ("jv2", r#"{"v":[]}"#),
        ("jv3", r#"{"v":null}"#),
        ("jv4", r#"{"v":[1,null]}"#),
        ("jv5", r#"{"v":"hello"}"#),
        ("jv6", r#"{"w":1}"#),
        ("jv7", r#"{"v":[[1,2],[3,4]]}"#),
        ("jv8", r#"{"v":[true,1]}"#),
    ] {
        c.call(&["JSON.SET", k, "$", doc]);
    }
    let info = c.call(&["FT.INFO", "jv"]);
    assert_eq!(py(field(&info, "num_docs")), "2");
    assert_eq!(
        py(field(&info, "Index Errors")),
        "[b'indexing failures', 6, b'last indexing error', b'N/A', b'last indexing error key', b'jv8']"
    );
}

#[test]
fn aggregate_reads_distances() {
    let s = Server::start();
    let mut c = s.conn();
    c.call(&[
        "FT.CREATE", "hn", "PREFIX", "1", "h:", "SCHEMA", "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32",
        "DIM", "2", "DISTANCE_METRIC", "L2", "txt", "TEXT",
    ]);
    call(
        &mut c,
        &[A::T("HSET"), A::T("h:1"), A::T("v"), A::B(f32s(&[1.0, 2.0])), A::T("txt"), A::T("hello world")],
    );
    call(
        &mut c,
        &[A::T("HSET"), A::T("h:2"), A::T("v"), A::B(f32s(&[3.0, 5.0])), A::T("txt"), A::T("hello")],
    );
    call(&mut c, &[A::T("HSET"), A::T("h:3"), A::T("v"), A::B(f32s(&[1.0, 1.5])), A::T("txt"), A::T("bye")]);
    let q = f32s(&[1.0, 1.0]);
    let cases: &[(&str, &str)] = &[
        (
            "hn|*=>[KNN 3 @v $b AS d]|PARAMS 2 b $ DIALECT 2 SORTBY 2 @d ASC",
            "[3, [b'd', b'0.25'], [b'd', b'1'], [b'd', b'20']]",
        ),
        (
            "hn|*=>[KNN 3 @v $b AS d]|PARAMS 2 b $ DIALECT 2 APPLY @d*2 AS x SORTBY 2 @x DESC",
            "[3, [b'd', b'20', b'x', b'40'], [b'd', b'1', b'x', b'2'], [b'd', b'0.25', b'x', b'0.5']]",
        ),
        (
            "hn|@v:[VECTOR_RANGE 5 $b]=>{$YIELD_DISTANCE_AS: d}|PARAMS 2 b $ DIALECT 2 SORTBY 2 @d ASC",
            "[2, [b'd', b'0.25'], [b'd', b'1']]",
        ),
    ];
    for (words, want) in cases {
        assert_eq!(
            py(&call(&mut c, &with_blob(&format!("FT.AGGREGATE {words}"), q.clone()))),
            *want,
            "{words}"
        );
    }
    // Without SORTBY the rows come nearest first (RediSearch reports a total of 1 there;
    // the rows are compared).
    let r = call(
        &mut c,
        &with_blob("FT.AGGREGATE hn|*=>[KNN 3 @v $b AS d]|PARAMS 2 b $ DIALECT 2 LOAD 2 @txt @d", q),
    );
    assert_eq!(
        r.items()[1..].iter().map(py).collect::<Vec<_>>().join(", "),
        "[b'd', b'0.25', b'txt', b'bye'], [b'd', b'1', b'txt', b'hello world'], [b'd', b'20', b'txt', b'hello']"
    );
}

/// A FLOAT16 (binary16) blob.
fn f16s(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| search::index::half::f32_to_f16(*x).to_le_bytes()).collect()
}

/// A BFLOAT16 blob: the top half of each FLOAT32, truncated (as the blobs sent to RediSearch
/// were made).
fn bf16s(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| ((x.to_bits() >> 16) as u16).to_le_bytes()).collect()
}

#[test]
fn float16_and_bfloat16() {
    let s = Server::start();
    let mut c = s.conn();
    let want = [
        ("FLOAT16", "L2", "[2, b'FLOAT16L2:1', [b'__v_score', b'0.728474736214'], b'FLOAT16L2:2', [b'__v_score', b'17.0995407104']]"),
        ("FLOAT16", "IP", "[2, b'FLOAT16IP:1', [b'__v_score', b'0.99803519249'], b'FLOAT16IP:2', [b'__v_score', b'1.09732055664']]"),
        ("FLOAT16", "COSINE", "[2, b'FLOAT16COSINE:1', [b'__v_score', b'0.993278384209'], b'FLOAT16COSINE:2', [b'__v_score', b'1.03140807152']]"),
        ("BFLOAT16", "L2", "[2, b'BFLOAT16L2:1', [b'__v_score', b'0.724708795547'], b'BFLOAT16L2:2', [b'__v_score', b'17.0924720764']]"),
        ("BFLOAT16", "IP", "[2, b'BFLOAT16IP:1', [b'__v_score', b'0.997762680054'], b'BFLOAT16IP:2', [b'__v_score', b'1.09484863281']]"),
        ("BFLOAT16", "COSINE", "[2, b'BFLOAT16COSINE:1', [b'__v_score', b'0.991401672363'], b'BFLOAT16COSINE:2', [b'__v_score', b'1.03035736084']]"),
    ];
    for (ty, metric, expected) in want {
        let ix = format!("{ty}{metric}");
        let prefix = format!("{ix}:");
        c.call(&[
            "FT.CREATE", &ix, "PREFIX", "1", &prefix, "SCHEMA", "v", "VECTOR", "FLAT", "6", "TYPE", ty,
            "DIM", "3", "DISTANCE_METRIC", metric,
        ]);
        let enc = if ty == "FLOAT16" { f16s } else { bf16s };
        let (k1, k2, k3) = (format!("{ix}:1"), format!("{ix}:2"), format!("{ix}:3"));
        call(&mut c, &[A::T("HSET"), A::T(&k1), A::T("v"), A::B(enc(&[0.1, 0.2, 0.3]))]);
        call(&mut c, &[A::T("HSET"), A::T(&k2), A::T("v"), A::B(enc(&[1.5, -2.25, 3.0]))]);
        c.call(&["HSET", &k3, "v", "abcd"]);
        let q = format!(
            "FT.SEARCH {ix}|*=>[KNN 3 @v $b]|PARAMS 2 b $ SORTBY __v_score RETURN 1 __v_score DIALECT 2"
        );
        assert_eq!(py(&call(&mut c, &with_blob(&q, enc(&[0.7, 0.11, -0.3])))), expected, "{ix}");
        let q = format!("FT.SEARCH {ix}|*=>[KNN 3 @v $b]|PARAMS 2 b $ DIALECT 2");
        assert_eq!(
            call(&mut c, &with_blob(&q, b"abcd".to_vec())).err(),
            "Error parsing vector similarity query: query vector blob size (4) does not match index's expected size (6)."
        );
    }
    // JSON numbers are rounded to the type: 70000 overflows FLOAT16 and rounds up in BFLOAT16.
    for (ty, expected) in [
        ("FLOAT16", "[2, b'jFLOAT16:1', [b'__v_score', b'0.140004888177'], b'jFLOAT16:2', [b'__v_score', b'inf']]"),
        ("BFLOAT16", "[2, b'jBFLOAT16:1', [b'__v_score', b'0.140567064285'], b'jBFLOAT16:2', [b'__v_score', b'4920180736']]"),
    ] {
        let jx = format!("j{ty}");
        let prefix = format!("{jx}:");
        c.call(&[
            "FT.CREATE", &jx, "ON", "JSON", "PREFIX", "1", &prefix, "SCHEMA", "$.v", "AS", "v", "VECTOR", "FLAT", "6",
            "TYPE", ty, "DIM", "3", "DISTANCE_METRIC", "L2",
        ]);
        c.call(&["JSON.SET", &format!("{jx}:1"), "$", r#"{"v":[0.1,0.2,0.3]}"#]);
        c.call(&["JSON.SET", &format!("{jx}:2"), "$", r#"{"v":[1.0009765625,1.00048828125,70000]}"#]);
        let q = format!("FT.SEARCH {jx}|*=>[KNN 3 @v $b]|PARAMS 2 b $ SORTBY __v_score RETURN 1 __v_score DIALECT 2");
        let zero = if ty == "FLOAT16" { f16s(&[0.0; 3]) } else { bf16s(&[0.0; 3]) };
        assert_eq!(py(&call(&mut c, &with_blob(&q, zero))), expected, "{ty}");
        let info = c.call(&["FT.INFO", &jx]);
        assert_eq!(
            py(field(&info, "attributes")),
            format!("[[b'identifier', b'$.v', b'attribute', b'v', b'type', b'VECTOR', b'algorithm', b'FLAT', b'data_type', b'{ty}', b'dim', 3, b'distance_metric', b'L2']]")
        );
    }
}

#[test]
fn sort_keys_and_expanded_distances() {
    let s = Server::start();
    let mut c = s.conn();
    c.call(&[
        "FT.CREATE", "sk", "PREFIX", "1", "sk:", "SCHEMA", "v", "VECTOR", "FLAT", "6", "TYPE", "FLOAT32",
        "DIM", "2", "DISTANCE_METRIC", "L2", "n", "NUMERIC", "SORTABLE",
    ]);
    call(&mut c, &[A::T("HSET"), A::T("sk:1"), A::T("v"), A::B(f32s(&[0.1, 0.7])), A::T("n"), A::T("0.1")]);
    call(&mut c, &[A::T("HSET"), A::T("sk:2"), A::T("v"), A::B(f32s(&[3.0, 5.0])), A::T("n"), A::T("1e20")]);
    // Sort keys print as `%.17g`.
    let q = "FT.SEARCH sk|*=>[KNN 3 @v $b]|PARAMS 2 b $ DIALECT 2 SORTBY __v_score WITHSORTKEYS NOCONTENT";
    assert_eq!(
        py(&call(&mut c, &with_blob(q, f32s(&[1.0, 1.0])))),
        "[2, b'sk:1', b'#0.89999997615814209', b'sk:2', b'#20']"
    );
    assert_eq!(
        py(&c.call(&["FT.SEARCH", "sk", "*", "SORTBY", "n", "WITHSORTKEYS", "NOCONTENT"])),
        "[2, b'sk:1', b'#0.10000000000000001', b'sk:2', b'#1e+20']"
    );
    // FORMAT EXPAND sends the distance as a number: an integer when integral.
    c.call(&["JSON.SET", "skj:1", "$", r#"{"v":[1,2]}"#]);
    c.call(&[
        "FT.CREATE", "skj", "ON", "JSON", "PREFIX", "1", "skj:", "SCHEMA", "$.v", "AS", "v", "VECTOR",
        "FLAT", "6", "TYPE", "FLOAT32", "DIM", "2", "DISTANCE_METRIC", "L2",
    ]);
    c.resp3();
    let q = "FT.SEARCH skj|*=>[KNN 3 @v $b]|PARAMS 2 b $ DIALECT 3 FORMAT EXPAND RETURN 1 __v_score";
    let r = call(&mut c, &with_blob(q, f32s(&[1.0, 1.0])));
    assert_eq!(py(field(&field(&r, "results").items()[0], "extra_attributes")), "{b'__v_score': 1}");
    let r = call(&mut c, &with_blob(q, f32s(&[1.5, 1.0])));
    assert_eq!(py(field(&field(&r, "results").items()[0], "extra_attributes")), "{b'__v_score': 1.25}");
}

#[test]
fn knn_results_carry_their_filter_score() {
    let s = Server::start();
    let mut c = s.conn();
    c.call(&[
        "FT.CREATE", "ws", "PREFIX", "1", "ws:", "SCHEMA", "v", "VECTOR", "FLAT", "6", "TYPE", "FLOAT32",
        "DIM", "2", "DISTANCE_METRIC", "L2", "t", "TAG", "x", "TEXT",
    ]);
    let docs: [(&str, [f32; 2], &str, &str); 3] = [
        ("ws:1", [1.0, 2.0], "a", "hello hello world"),
        ("ws:2", [3.0, 5.0], "a", "hello"),
        ("ws:3", [0.0, 0.0], "b", "bye hello there friend"),
    ];
    for (k, v, t, x) in docs {
        call(
            &mut c,
            &[A::T("HSET"), A::T(k), A::T("v"), A::B(f32s(&v)), A::T("t"), A::T(t), A::T("x"), A::T(x)],
        );
    }
    // Without SORTBY, KNN results are ordered by their filter's (TFIDF) score, then document id.
    for (query, want) in [
        ("@t:{a}=>[KNN 3 @v $b]", "[2, b'ws:2', b'1', b'ws:1', b'0.5']"),
        ("hello=>[KNN 3 @v $b]", "[3, b'ws:1', b'1', b'ws:2', b'1', b'ws:3', b'1']"),
        ("(hello|bye)=>[KNN 3 @v $b]", "[3, b'ws:3', b'3', b'ws:1', b'1', b'ws:2', b'1']"),
        ("@v:[VECTOR_RANGE 100 $b] hello", "[3, b'ws:1', b'1', b'ws:2', b'1', b'ws:3', b'1']"),
        ("*=>[KNN 2 @v $b]", "[2, b'ws:1', b'0', b'ws:3', b'0']"),
    ] {
        let mut args = vec![A::T("FT.SEARCH"), A::T("ws"), A::T(query), A::T("PARAMS"), A::T("2"), A::T("b")];
        args.push(A::B(f32s(&[1.0, 1.0])));
        args.extend(["DIALECT", "2", "WITHSCORES", "NOCONTENT"].map(A::T));
        assert_eq!(py(&call(&mut c, &args)), want, "{query}");
    }
}
