//! FT.HYBRID end to end: redis-py's data set (`TestHybridSearch._add_data_for_hybrid_search`,
//! 50 hashes `item:0`…`item:49`), exact replies under RESP2 and RESP3, with `WORKERS 0` and
//! `WORKERS 2` alike, and the errors of bad argument shapes.
//!
//! The fused scores and orders are redis-py's expected values (its `test_hybrid_*` tests,
//! written from Redis 8.4's replies): RRF `1/(CONSTANT + rank)`, LINEAR `ALPHA * text +
//! BETA * 1/(1 + L2)`, ties in document order.

mod common;

use common::*;

fn f32s(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `item:0`…`item:{5·sets-1}` as redis-py writes them.
fn load(c: &mut Conn, sets: usize) {
    let r = c.cmd(
        "FT.CREATE idx PREFIX 1 item: SCHEMA description TEXT price NUMERIC color TAG item_type TAG size NUMERIC \
         embedding VECTOR FLAT 6 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 \
         embedding-hnsw VECTOR HNSW 6 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2",
    );
    assert_eq!(r, Resp::Simple("OK".into()));
    let items: [([f32; 4], &str); 5] = [
        ([1.0, 2.0, 7.0, 8.0], "red shoes"),
        ([1.0, 4.0, 7.0, 8.0], "green shoes with red laces"),
        ([1.0, 2.0, 6.0, 5.0], "red dress"),
        ([2.0, 3.0, 6.0, 5.0], "orange dress"),
        ([5.0, 6.0, 7.0, 8.0], "black shoes"),
    ];
    for i in 0..5 * sets {
        let (v, d) = items[i % 5];
        let words: Vec<&str> = d.split(' ').collect();
        let args: Vec<Vec<u8>> = vec![
            b"HSET".to_vec(),
            format!("item:{i}").into_bytes(),
            b"description".to_vec(),
            d.as_bytes().to_vec(),
            b"embedding".to_vec(),
            f32s(&v),
            b"embedding-hnsw".to_vec(),
            f32s(&v),
            b"price".to_vec(),
            (15 + i % 4).to_string().into_bytes(),
            b"color".to_vec(),
            words[0].as_bytes().to_vec(),
            b"item_type".to_vec(),
            words[1].as_bytes().to_vec(),
            b"size".to_vec(),
            (10 + i % 3).to_string().into_bytes(),
        ];
        c.call(&args);
    }
}

/// FT.HYBRID with `$vec` bound to `vec` (PARAMS appended).
fn hybrid(c: &mut Conn, line: &str, vec: [f32; 4]) -> Resp {
    let mut args: Vec<Vec<u8>> = line.split(' ').map(|s| s.as_bytes().to_vec()).collect();
    args.insert(0, b"FT.HYBRID".to_vec());
    args.extend([b"PARAMS".to_vec(), b"2".to_vec(), b"vec".to_vec(), f32s(&vec)]);
    c.call(&args)
}

/// A reply as text, `execution_time`'s value as `T` (after checking it is a positive number).
fn show(r: &Resp) -> String {
    fn go(r: &Resp, out: &mut String, time_next: &mut bool) {
        if std::mem::take(time_next) {
            let t: f64 = r.text().parse().expect("execution_time is a number");
            assert!(t >= 0.0, "{t}");
            out.push('T');
            return;
        }
        match r {
            Resp::Int(n) => out.push_str(&n.to_string()),
            Resp::Bulk(b) => out.push_str(&String::from_utf8_lossy(b)),
            Resp::Simple(s) => {
                out.push_str(s);
                *time_next = s == "execution_time";
            }
            Resp::Double(d) => out.push_str(d),
            Resp::Error(e) => out.push_str(&format!("ERR:{e}")),
            Resp::Array(v) => {
                out.push('[');
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    go(x, out, time_next);
                }
                out.push(']');
            }
            Resp::Map(m) => {
                out.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    go(k, out, time_next);
                    out.push(':');
                    go(v, out, time_next);
                }
                out.push('}');
            }
            other => out.push_str(&format!("{other:?}")),
        }
    }
    let mut out = String::new();
    go(r, &mut out, &mut false);
    out
}

/// Runs `f` under RESP2 and RESP3, with WORKERS 0 and 2, on the 50-item data set.
fn each_mode(mut f: impl FnMut(&mut Conn, bool)) {
    let server = Server::start();
    let mut c = server.conn();
    load(&mut c, 10);
    for workers in [0, 2] {
        assert_eq!(c.call(&["FT.CONFIG", "SET", "WORKERS", &workers.to_string()]), Resp::Simple("OK".into()));
        for resp3 in [false, true] {
            let mut c = server.conn();
            if resp3 {
                c.resp3();
            }
            f(&mut c, resp3);
        }
    }
}

#[test]
fn hybrid_linear_and_rrf_scores_match_redis_py() {
    each_mode(|c, resp3| {
        let linear = hybrid(
            c,
            "idx SEARCH @color:{red} VSIM @embedding $vec COMBINE LINEAR 4 ALPHA 0.5 BETA 0.5 LIMIT 0 3",
            [1.0, 2.0, 7.0, 6.0],
        );
        let rrf = hybrid(
            c,
            "idx SEARCH @color:{red} VSIM @embedding $vec COMBINE RRF 4 WINDOW 3 CONSTANT 0.5 LIMIT 0 3",
            [1.0, 2.0, 7.0, 6.0],
        );
        let rrf_window = hybrid(
            c,
            "idx SEARCH @color:{red} VSIM @embedding $vec COMBINE RRF 2 WINDOW 3 LIMIT 0 3",
            [1.0, 2.0, 7.0, 6.0],
        );
        if resp3 {
            assert_eq!(
                show(&linear),
                "{total_results:20 results:[{__score:0.166666666667 __key:item:2} {__score:0.166666666667 __key:item:7} \
                 {__score:0.166666666667 __key:item:12}] warnings:[] execution_time:T}"
            );
            assert_eq!(
                show(&rrf),
                "{total_results:5 results:[{__score:1.06666666667 __key:item:2} {__score:0.666666666667 __key:item:0} \
                 {__score:0.4 __key:item:7}] warnings:[] execution_time:T}"
            );
            assert_eq!(
                show(&rrf_window),
                "{total_results:5 results:[{__score:0.032522474881 __key:item:2} {__score:0.016393442623 __key:item:0} \
                 {__score:0.0161290322581 __key:item:7}] warnings:[] execution_time:T}"
            );
        } else {
            assert_eq!(
                show(&linear),
                "[total_results 20 results [[__score 0.166666666667 __key item:2] [__score 0.166666666667 __key item:7] \
                 [__score 0.166666666667 __key item:12]] warnings [] execution_time T]"
            );
            assert_eq!(
                show(&rrf),
                "[total_results 5 results [[__score 1.06666666667 __key item:2] [__score 0.666666666667 __key item:0] \
                 [__score 0.4 __key item:7]] warnings [] execution_time T]"
            );
        }
    });
}

#[test]
fn hybrid_vector_side_alone_and_defaults() {
    each_mode(|c, resp3| {
        // No text match: the vector side's three nearest, ranks 1-3 of RRF.
        let r = hybrid(c, "idx SEARCH @color:{none} VSIM @embedding $vec KNN 2 K 3", [1.0, 2.0, 2.0, 3.0]);
        let want = if resp3 {
            "{total_results:3 results:[{__score:0.016393442623 __key:item:2} {__score:0.0161290322581 __key:item:7} \
             {__score:0.015873015873 __key:item:12}] warnings:[] execution_time:T}"
        } else {
            "[total_results 3 results [[__score 0.016393442623 __key item:2] [__score 0.0161290322581 __key item:7] \
             [__score 0.015873015873 __key item:12]] warnings [] execution_time T]"
        };
        assert_eq!(show(&r), want);
        // Defaults: KNN K 10, LIMIT 0 10.
        let r = hybrid(c, "idx SEARCH @color:{none} VSIM @embedding $vec", [-100.0, -200.0, -200.0, -300.0]);
        let s = show(&r);
        assert!(s.contains(if resp3 { "total_results:10 " } else { "total_results 10 " }), "{s}");
        assert_eq!(s.matches("__key").count(), 10, "{s}");
    });
}

#[test]
fn hybrid_scorer_aliases_load_apply_sort() {
    each_mode(|c, resp3| {
        // TFIDF of "shoes" (the word and its stem, each idf 1): 2.
        let r = hybrid(
            c,
            "idx SEARCH shoes SCORER TFIDF VSIM @embedding $vec COMBINE LINEAR 4 ALPHA 1 BETA 0 \
             LOAD 6 @description @color @price @size @__score @__item LIMIT 0 2",
            [1.0, 2.0, 2.0, 3.0],
        );
        let want = if resp3 {
            "{total_results:30 results:[{__score:2 description:red shoes color:red price:15 size:10} \
             {__score:2 description:green shoes with red laces color:green price:16 size:11}] warnings:[] execution_time:T}"
        } else {
            "[total_results 30 results [[__score 2 description red shoes color red price 15 size 10] \
             [__score 2 description green shoes with red laces color green price 16 size 11]] warnings [] execution_time T]"
        };
        assert_eq!(show(&r), want);
        // Each side's score under its alias, the fused one under COMBINE's (no `__score`).
        let r = hybrid(
            c,
            "idx SEARCH @color:{black} YIELD_SCORE_AS ts VSIM @embedding $vec KNN 2 K 1 YIELD_SCORE_AS vs \
             COMBINE LINEAR 6 ALPHA 0.5 BETA 0.5 YIELD_SCORE_AS fused LOAD 1 @__key SORTBY 2 @__key ASC LIMIT 0 2",
            [1.0, 2.0, 6.0, 5.0],
        );
        let want = if resp3 {
            "{total_results:11 results:[{ts:0 fused:0 __key:item:14} {ts:0 fused:0 __key:item:19}] warnings:[] execution_time:T}"
        } else {
            "[total_results 11 results [[ts 0 fused 0 __key item:14] [ts 0 fused 0 __key item:19]] warnings [] execution_time T]"
        };
        assert_eq!(show(&r), want);
        let r = hybrid(
            c,
            "idx SEARCH @color:{none} VSIM @embedding $vec KNN 2 K 1 YIELD_SCORE_AS vs LOAD 1 @price \
             APPLY @price*2 AS double FILTER @double>0",
            [1.0, 2.0, 6.0, 5.0],
        );
        let want = if resp3 {
            "{total_results:1 results:[{vs:1 price:17 double:34}] warnings:[] execution_time:T}"
        } else {
            "[total_results 1 results [[vs 1 price 17 double 34]] warnings [] execution_time T]"
        };
        assert_eq!(show(&r), want);
        // GROUPBY and SORTBY over the fused rows.
        let r = hybrid(
            c,
            "idx SEARCH @color:{red|green} VSIM @embedding $vec LOAD 2 @item_type @price \
             GROUPBY 1 @item_type REDUCE COUNT 0 AS n SORTBY 2 @item_type ASC",
            [1.0, 2.0, 7.0, 6.0],
        );
        let want = if resp3 {
            "{total_results:24 results:[{item_type:dress n:10} {item_type:shoes n:14}] warnings:[] execution_time:T}"
        } else {
            "[total_results 24 results [[item_type dress n 10] [item_type shoes n 14]] warnings [] execution_time T]"
        };
        assert_eq!(show(&r), want);
    });
}

#[test]
fn hybrid_errors() {
    let server = Server::start();
    let mut c = server.conn();
    load(&mut c, 1);
    let v = [1.0, 2.0, 3.0, 4.0];
    for (line, want) in [
        ("idx", "SEARCH argument is required"),
        ("idx SEARCH", "No query string provided for SEARCH"),
        ("idx SEARCH q", "VSIM argument is required"),
        ("idx SEARCH q BOGUS 1", "Unknown argument `BOGUS` in SEARCH"),
        ("idx SEARCH q VSIM embedding $vec", "Missing @ prefix for vector field name"),
        ("idx SEARCH q VSIM @embedding $vec KNN 2 K 0", "Invalid K value"),
        (
            "idx SEARCH q VSIM @embedding $vec KNN 3 K 1",
            "Invalid argument count: 3 (must be a positive even number for key/value pairs)",
        ),
        ("idx SEARCH q VSIM @embedding $vec RANGE 2 EPSILON 1", "Missing required argument RADIUS"),
        ("idx SEARCH q VSIM @embedding $vec COMBINE RRF 2 WINDOW 0", "WINDOW: Value below minimum"),
        ("idx SEARCH q VSIM @embedding $vec COMBINE LINEAR 2 ALPHA 1", "Missing value for BETA"),
        ("idx SEARCH q VSIM @embedding $vec COMBINE MAGIC 2 A 1", "Unknown COMBINE method `MAGIC`"),
        (
            "idx SEARCH q VSIM @embedding $vec LIMIT 2 0",
            "The `offset` of the LIMIT must be 0 when `num` is 0",
        ),
        ("idx SEARCH q VSIM @embedding $vec NOSORT SORTBY 1 @price", "NOSORT is not allowed with SORTBY"),
        ("idx SEARCH q VSIM @embedding $vec EXPLAINSCORE", "EXPLAINSCORE is not yet supported by FT.HYBRID"),
        ("idx SEARCH q VSIM @embedding $vec WHATEVER", "WHATEVER: Unknown argument"),
        ("nosuch SEARCH q VSIM @embedding $vec", "nosuch: no such index"),
        ("idx SEARCH q VSIM @description $vec", "Invalid vector field for normalization"),
    ] {
        let r =
            if line.contains("$vec") { hybrid(&mut c, line, v) } else { c.cmd(&format!("FT.HYBRID {line}")) };
        assert!(r.is_error(), "{line}: {r:?}");
        assert!(r.err().ends_with(want), "{line}: {:?} wanted {want}", r.err());
    }
    let r = c.cmd("FT.HYBRID idx SEARCH q VSIM @embedding $vec DIALECT 2");
    assert!(r.err().starts_with("DIALECT is not supported in FT.HYBRID"), "{r:?}");
    // Every prefix of a full command answers (an error or a reply), and the server lives.
    let full = "idx SEARCH shoes SCORER BM25 YIELD_SCORE_AS s VSIM @embedding-hnsw $vec KNN 4 K 2 EF_RUNTIME 3 FILTER @item_type:{shoes} \
                COMBINE RRF 4 CONSTANT 1 WINDOW 5 LOAD 1 @price GROUPBY 1 @price REDUCE COUNT 0 AS n APPLY @n AS m FILTER @m>0 \
                SORTBY 2 @price DESC LIMIT 0 5 TIMEOUT 100";
    let words: Vec<&str> = full.split(' ').collect();
    for n in 0..=words.len() {
        let mut args: Vec<Vec<u8>> = vec![b"FT.HYBRID".to_vec()];
        args.extend(words[..n].iter().map(|w| w.as_bytes().to_vec()));
        args.extend([b"PARAMS".to_vec(), b"2".to_vec(), b"vec".to_vec(), f32s(&v)]);
        let _ = c.call(&args);
        assert_eq!(c.cmd("PING"), Resp::Simple("PONG".into()), "after {n} words");
    }
    let full = hybrid(&mut c, full, v);
    assert!(!full.is_error(), "{full:?}");
}

#[test]
fn hybrid_cursors_one_per_side() {
    each_mode(|c, resp3| {
        let r = hybrid(
            c,
            "idx SEARCH @color:{red|green} VSIM @embedding $vec KNN 2 K 3 WITHCURSOR COUNT 2",
            [1.0, 2.0, 7.0, 6.0],
        );
        let field = |name: &str| -> i64 {
            match &r {
                Resp::Map(m) => m.iter().find(|(k, _)| k.text() == name).map(|(_, v)| v.int()),
                Resp::Array(v) => v.chunks(2).find(|p| p[0].text() == name).map(|p| p[1].int()),
                other => panic!("{other:?}"),
            }
            .unwrap_or_else(|| panic!("{name} in {r:?}"))
        };
        let (search, vsim) = (field("SEARCH"), field("VSIM"));
        assert!(search > 0 && vsim > 0 && search != vsim, "{r:?}");
        let read = |c: &mut Conn, id: i64| show(&c.call(&["FT.CURSOR", "READ", "idx", &id.to_string()]));
        // The text side: its window (20) in score order (all 0: tags), 2 a read.
        let first = read(c, search);
        let second = read(c, search);
        // The vector side: its 3 nearest with their normalized scores (1/(1+2)).
        let v1 = read(c, vsim);
        let v2 = read(c, vsim);
        if resp3 {
            assert!(first.contains("total_results:20"), "{first}");
            assert!(
                first.contains("{__score:0 __key:item:0}") && first.contains("{__score:0 __key:item:1}"),
                "{first}"
            );
            assert!(
                second.contains("{__score:0 __key:item:2}") && second.contains("{__score:0 __key:item:5}"),
                "{second}"
            );
            assert!(
                v1.contains("{__score:0.333333333333 __key:item:2}") && v1.contains("__key:item:7}"),
                "{v1}"
            );
            assert!(v2.contains("{__score:0.333333333333 __key:item:12}"), "{v2}");
        } else {
            assert!(first.starts_with("[[20 [__score 0 __key item:0] [__score 0 __key item:1]] "), "{first}");
            assert!(
                second.starts_with("[[0 [__score 0 __key item:2] [__score 0 __key item:5]] "),
                "{second}"
            );
            assert!(
                v1.starts_with(
                    "[[3 [__score 0.333333333333 __key item:2] [__score 0.333333333333 __key item:7]] "
                ),
                "{v1}"
            );
            assert_eq!(v2, "[[0 [__score 0.333333333333 __key item:12]] 0]");
        }
    });
}

#[test]
fn hybrid_answers_only_what_the_caller_may_read() {
    let server = Server::start();
    let mut c = server.conn();
    load(&mut c, 2);
    assert_eq!(c.cmd("ACL SETUSER alice on >pw ~item:1* ~idx +@all"), Resp::Simple("OK".into()));
    let mut alice = server.conn();
    assert_eq!(alice.cmd("AUTH alice pw"), Resp::Simple("OK".into()));
    let line = "idx SEARCH shoes VSIM @embedding $vec LOAD 1 @__key SORTBY 2 @__key ASC";
    let r = show(&hybrid(&mut alice, line, [1.0, 2.0, 7.0, 8.0]));
    // item:1 (shoes, and nearest but one) is the only readable key ending the prefix `item:1`.
    assert_eq!(r, "[total_results 1 results [[__key item:1]] warnings [] execution_time T]");
    let all = show(&hybrid(&mut c, line, [1.0, 2.0, 7.0, 8.0]));
    assert!(all.starts_with("[total_results 10 "), "{all}");
}

#[test]
fn hybrid_range_filter_count_only_and_json() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(
        c.cmd("FT.CREATE d PREFIX 1 d: SCHEMA t TEXT g TAG v VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC COSINE"),
        Resp::Simple("OK".into())
    );
    for i in 0..8u32 {
        let t = if i % 2 == 1 { "apple pie" } else { "banana" };
        let g = if i < 4 { "x" } else { "y" };
        let args: Vec<Vec<u8>> = vec![
            b"HSET".to_vec(),
            format!("d:{i}").into_bytes(),
            b"t".to_vec(),
            t.into(),
            b"g".to_vec(),
            g.into(),
            b"v".to_vec(),
            f32s(&[1.0, i as f32]),
        ];
        c.call(&args);
    }
    let q = f32s(&[1.0, 0.0]);
    let run = |c: &mut Conn, words: &str, blob: &[u8]| -> String {
        let mut args: Vec<Vec<u8>> = vec![b"FT.HYBRID".to_vec(), b"d".to_vec()];
        for w in words.split(' ') {
            args.push(if w == "BLOB" { blob.to_vec() } else { w.as_bytes().to_vec() });
        }
        show(&c.call(&args))
    };
    // RANGE within 0.2 of cosine distance, filtered by tag, the vector given as a blob: only
    // d:0; its normalized score (1 + (1 - 0)) / 2 = 1 under its alias. d:0 (vector rank 1) and
    // d:1 (text rank 1) tie at 1/61: document order.
    assert_eq!(
        run(&mut c, "SEARCH apple VSIM @v BLOB RANGE 2 RADIUS 0.2 FILTER @g:{x} YIELD_SCORE_AS vs", &q),
        "[total_results 5 results [[vs 1 __score 0.016393442623 __key d:0] [__score 0.016393442623 __key d:1] \
         [__score 0.0161290322581 __key d:3] [__score 0.015873015873 __key d:5] [__score 0.015625 __key d:7]] \
         warnings [] execution_time T]"
    );
    // Redis 8.4.x's later FILTER form: a count, then POLICY.
    assert_eq!(
        run(
            &mut c,
            "SEARCH apple VSIM @v BLOB RANGE 2 RADIUS 0.2 FILTER 3 @g:{x} POLICY ADHOC LIMIT 0 1",
            &q
        ),
        "[total_results 5 results [[__score 0.016393442623 __key d:0]] warnings [] execution_time T]"
    );
    // LIMIT 0 0: the total, no rows.
    assert_eq!(
        run(&mut c, "SEARCH apple VSIM @v BLOB LIMIT 0 0", &q),
        "[total_results 8 results [] warnings [] execution_time T]"
    );
    // LINEAR over a window of 2: the text side's two best (BM25STD) and the two nearest.
    let r = run(&mut c, "SEARCH apple VSIM @v BLOB COMBINE LINEAR 2 WINDOW 2 LOAD 1 @__key", &q);
    assert!(r.starts_with("[total_results 3 results [[__key d:1] [__key d:0] [__key d:3]]"), "{r}");

    assert_eq!(
        c.cmd("FT.CREATE j ON JSON PREFIX 1 j: SCHEMA $.t AS t TEXT $.v AS v VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2"),
        Resp::Simple("OK".into())
    );
    for i in 0..5 {
        let t = if i % 2 == 1 { "apple" } else { "pear" };
        c.call(&["JSON.SET", &format!("j:{i}"), "$", &format!(r#"{{"t":"{t}","v":[1.0,{i}.0]}}"#)]);
    }
    let mut args: Vec<Vec<u8>> = "FT.HYBRID j SEARCH apple VSIM @v $q KNN 2 K 2 LOAD 2 @t @v PARAMS 2 q"
        .split(' ')
        .map(|w| w.as_bytes().to_vec())
        .collect();
    args.push(q.clone());
    assert_eq!(
        show(&c.call(&args)),
        "[total_results 3 results [[t apple v [1.0,1.0]] [t pear v [1.0,0.0]] [t apple v [1.0,3.0]]] \
         warnings [] execution_time T]"
    );
}
