//! Scoring of multi-term matches end to end, as RediSearch's scorers do it: TFIDF and BM25
//! divide by the "slop" of the match (the integer square root of the summed squared minimal
//! distances between consecutive query terms, token positions running through the whole
//! document), with SLOP and INORDER deciding which documents match at all.

mod common;

use common::*;

fn close(got: &[(String, f64)], want: &[(&str, f64)]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for ((gk, gs), (wk, ws)) in got.iter().zip(want) {
        assert_eq!(gk, wk, "{got:?} vs {want:?}");
        assert!((gs - ws).abs() < 1e-9, "{gk}: {gs} vs {ws}");
    }
}

fn corpus() -> (Server, Conn) {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "s", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT", "NOSTEM", "u", "TEXT", "NOSTEM"
        ]),
        ok()
    );
    c.call(&["HSET", "d:1", "t", "alpha beta"]);
    c.call(&["HSET", "d:2", "t", "alpha xa ya beta"]);
    c.call(&["HSET", "d:3", "t", "alpha xb yb zb wb vb beta"]);
    c.call(&["HSET", "d:4", "t", "beta alpha"]);
    // Positions run on from one field to the next: alpha is token 1, beta token 2.
    c.call(&["HSET", "d:5", "t", "alpha", "u", "beta"]);
    (s, c)
}

#[test]
fn tfidf_divides_by_the_distance_between_terms() {
    let (_s, mut c) = corpus();
    // Every document has both terms once: idf = floor(log2(1 + 5/5)) = 1, max frequency 1,
    // so the undivided score is 1*1 + 1*1 = 2; the divisor is the distance between them.
    let want = [("d:1", 2.0), ("d:4", 2.0), ("d:5", 2.0), ("d:2", 2.0 / 3.0), ("d:3", 2.0 / 6.0)];
    close(&scored(&mut c, "s", "alpha beta", &[]), &want);
    // A union is an aggregate too: the same divisor when both alternatives match.
    close(&scored(&mut c, "s", "alpha | beta", &["DIALECT", "2"]), &want);
    // SLOP 2 drops d:3 (five words between); INORDER also drops d:4 (beta first). Positions
    // run on across fields, so d:5 (alpha ends t, beta starts u) stays, as in RediSearch 2.10.
    close(
        &scored(&mut c, "s", "alpha beta", &["SLOP", "2"]),
        &[("d:1", 2.0), ("d:4", 2.0), ("d:5", 2.0), ("d:2", 2.0 / 3.0)],
    );
    close(
        &scored(&mut c, "s", "alpha beta", &["SLOP", "2", "INORDER"]),
        &[("d:1", 2.0), ("d:5", 2.0), ("d:2", 2.0 / 3.0)],
    );
    close(&scored(&mut c, "s", "\"alpha beta\"", &[]), &[("d:1", 2.0), ("d:5", 2.0)]);
    // A quoted phrase stays exact whatever its attributes or SLOP say; attributes on a group
    // do apply (RediSearch 2.10's answers).
    close(
        &scored(&mut c, "s", "\"alpha beta\"=>{$slop: 2; $inorder: true}", &["DIALECT", "2"]),
        &[("d:1", 2.0), ("d:5", 2.0)],
    );
    close(&scored(&mut c, "s", "\"alpha beta\"", &["SLOP", "3"]), &[("d:1", 2.0), ("d:5", 2.0)]);
    close(
        &scored(&mut c, "s", "(alpha beta)=>{$slop: 2; $inorder: true}", &["DIALECT", "2"]),
        &[("d:1", 2.0), ("d:5", 2.0), ("d:2", 2.0 / 3.0)],
    );
    // A single term is never divided.
    let single = scored(&mut c, "s", "xa", &[]);
    assert_eq!(single.len(), 1);
    // idf(xa) = floor(log2(1 + 5/1)) = 2.
    close(&single, &[("d:2", 2.0)]);
}

#[test]
fn bm25_divides_too_and_dismax_does_not() {
    let (_s, mut c) = corpus();
    let bm25 = scored(&mut c, "s", "alpha beta", &["SCORER", "BM25"]);
    let get = |k: &str| bm25.iter().find(|(id, _)| id == k).map(|(_, s)| *s).unwrap();
    // d:1 and d:2 have the same two term frequencies; d:2's terms are 3 apart.
    assert!((get("d:1") / get("d:2") - 3.0).abs() < 1e-9, "{bm25:?}");
    assert!((get("d:1") / get("d:3") - 6.0).abs() < 1e-9, "{bm25:?}");
    let dismax = scored(&mut c, "s", "alpha beta", &["SCORER", "DISMAX"]);
    assert!(dismax.iter().all(|(_, s)| (*s - 2.0).abs() < 1e-9), "{dismax:?}");
}

#[test]
fn dismax_takes_the_largest_expansion() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "s", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT"]), ok());
    // "running" is indexed as itself and under its stem; the query expands to both, a union:
    // DISMAX counts the larger frequency (1), not their sum.
    c.call(&["HSET", "d:1", "t", "running"]);
    close(&scored(&mut c, "s", "running", &["SCORER", "DISMAX"]), &[("d:1", 1.0)]);
    c.call(&["HSET", "d:2", "t", "running runs running"]);
    // d:2: "running" twice, the stem "+run" three times.
    close(&scored(&mut c, "s", "running", &["SCORER", "DISMAX", "INKEYS", "1", "d:2"]), &[("d:2", 3.0)]);
}

#[test]
fn bm25std_is_okapi_bm25_without_the_slop_divisor() {
    let (_s, mut c) = corpus();
    // N = 5 documents, each with alpha and beta once; lengths 2, 4, 7, 2, 2 (average 3.4).
    // The IDF's ratio in single precision, as RediSearch computes it (`0.5F / (5 + 0.5F)`).
    let idf = f64::from(1.0f32 + 0.5f32 / 5.5f32).ln();
    let term = |len: f64| idf * 1.0 * 2.2 / (1.0 + 1.2 * (0.5 + 0.5 * len / 3.4));
    let got = scored(&mut c, "s", "alpha beta", &["SCORER", "BM25STD"]);
    let want = [
        ("d:1", 2.0 * term(2.0)),
        ("d:4", 2.0 * term(2.0)),
        ("d:5", 2.0 * term(2.0)),
        ("d:2", 2.0 * term(4.0)),
        ("d:3", 2.0 * term(7.0)),
    ];
    close(&got, &want);
}

#[test]
fn slop_and_inorder_refuse_json_text_without_defined_order() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "j", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.title", "AS", "title", "TEXT",
            "$.tags[*]", "AS", "tags", "TEXT"
        ]),
        ok()
    );
    assert_eq!(
        c.call(&[
            "FT.CREATE", "n", "ON", "JSON", "NOOFFSETS", "PREFIX", "1", "j:", "SCHEMA", "$.tags[*]", "AS",
            "tags", "TEXT"
        ]),
        ok()
    );
    c.call(&["JSON.SET", "j:1", "$", r#"{"title":"alpha beta","tags":["alpha gamma","beta"]}"#]);
    const ERR: &str = "slop/inorder are not supported for field `tags` since it has undefined ordering";
    // The title's path has one value: fine. Anything reaching `tags` (a wildcard path) is refused.
    let r = c.call(&["FT.SEARCH", "j", "@title:(alpha beta)", "SLOP", "1", "NOCONTENT"]);
    assert_eq!(r, arr(vec![Resp::Int(1), Resp::bulk("j:1")]));
    assert_eq!(c.call(&["FT.SEARCH", "j", "alpha beta", "SLOP", "1"]).err(), ERR);
    assert_eq!(c.call(&["FT.SEARCH", "j", "@tags:(alpha beta)", "INORDER"]).err(), ERR);
    assert_eq!(c.call(&["FT.SEARCH", "j", "(alpha beta)=>{$slop: 3}", "DIALECT", "2"]).err(), ERR);
    // Without SLOP/INORDER, or a single term, or a NOOFFSETS index: no check.
    assert_eq!(
        c.call(&["FT.SEARCH", "j", "alpha beta", "NOCONTENT"]),
        arr(vec![Resp::Int(1), Resp::bulk("j:1")])
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "j", "gamma", "SLOP", "1", "NOCONTENT"]),
        arr(vec![Resp::Int(1), Resp::bulk("j:1")])
    );
    assert_eq!(
        c.call(&["FT.SEARCH", "n", "alpha beta", "SLOP", "1", "INORDER", "NOCONTENT"]),
        arr(vec![Resp::Int(1), Resp::bulk("j:1")])
    );
}

/// A document without text has a norm of 0, and RediSearch's TFIDF divides by it: `inf`
/// (`nan` for 0 / 0), which puts such documents first (replies of RediSearch 2.10.5).
#[test]
fn tfidf_of_a_document_without_text_divides_by_zero() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "hh", "PREFIX", "1", "h:", "SCHEMA", "n", "NUMERIC", "t", "TEXT"]),
        ok()
    );
    c.call(&["HSET", "h:1", "n", "5"]);
    c.call(&["HSET", "h:2", "n", "7", "t", ""]);
    c.call(&["HSET", "h:3", "n", "8", "t", "hello world hello"]);
    let texts = |r: Resp| r.items().iter().skip(1).map(Resp::text).collect::<Vec<_>>().join(" ");
    let q = |c: &mut Conn, query: &str, scorer: &str| {
        texts(c.call(&["FT.SEARCH", "hh", query, "WITHSCORES", "NOCONTENT", "SCORER", scorer]))
    };
    assert_eq!(q(&mut c, "*", "TFIDF"), "h:1 inf h:2 inf h:3 0.5");
    assert_eq!(q(&mut c, "@n:[1 10]", "TFIDF.DOCNORM"), "h:1 inf h:2 inf h:3 0.3333333333333333");
    assert_eq!(q(&mut c, "-@n:[100 200]", "TFIDF"), "h:1 nan h:2 nan h:3 0");
    assert_eq!(q(&mut c, "hello|@n:[7 7]", "TFIDF"), "h:2 inf h:3 2");
    assert_eq!(q(&mut c, "hello|@n:[7 7]", "TFIDF.DOCNORM"), "h:2 inf h:3 1.3333333333333333");
}

/// A document with several values of a multi-value JSON NUMERIC field in a range is found
/// once (it once emptied the whole range's result).
#[test]
fn a_document_with_several_values_in_a_range_is_found_once() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "nn", "ON", "JSON", "PREFIX", "1", "nn:", "SCHEMA", "$.v[*]", "AS", "v", "NUMERIC"
        ]),
        ok()
    );
    c.call(&["JSON.SET", "nn:1", "$", r#"{"v":[15.123,16.456]}"#]);
    c.call(&["JSON.SET", "nn:2", "$", r#"{"v":[17.5]}"#]);
    c.call(&["JSON.SET", "nn:3", "$", r#"{"v":[1,2,19]}"#]);
    let r = c.call(&["FT.SEARCH", "nn", "@v:[10 20]", "NOCONTENT"]);
    assert_eq!(r, arr(vec![Resp::Int(3), Resp::bulk("nn:1"), Resp::bulk("nn:2"), Resp::bulk("nn:3")]));
}

/// A union scores only the children a document matched: the words of an intersection the
/// document fails add nothing (RediSearch 2.10.5's scores for the same writes: `hello
/// nosuch|world` gives doc2 1, doc1 0.5, doc3 0.1; `(hello yet)|runs` gives doc2 0.2).
#[test]
fn a_union_scores_only_the_children_a_document_matched() {
    let s = Server::start();
    let mut c = s.conn();
    let create = "FT.CREATE idx ON HASH SCORE_FIELD __score SCHEMA title TEXT WEIGHT 10 body TEXT";
    assert_eq!(c.cmd(create), ok());
    #[rustfmt::skip]
    let adds: &[&[&str]] = &[
        &["FT.ADD", "idx", "doc1", "0.5", "FIELDS", "title", "hello world", "body", "lorem ist ipsum"],
        &["FT.ADD", "idx", "doc2", "1", "FIELDS", "title", "hello another world running", "body", "lorem ist ipsum lorem lorem"],
        &["FT.ADD", "idx", "doc3", "0.1", "FIELDS", "title", "hello yet another world", "body", "lorem ist ipsum lorem lorem runs"],
    ];
    for args in adds {
        assert_eq!(c.call(args), ok());
    }
    close(
        &scored(&mut c, "idx", "hello nosuch|world", &[]),
        &[("doc2", 1.0), ("doc1", 0.5), ("doc3", 0.10000000149011612)],
    );
    let got = scored(&mut c, "idx", "(hello yet)|runs", &[]);
    assert_eq!(got.first().map(|(k, s)| (k.as_str(), *s)), Some(("doc2", 0.2)));
}

/// A word that is its own stem (`index`) expands to itself and `+index`, which the index holds
/// only for the word's other forms (`indexing`, `indexes`): the slop divisor measures the
/// distance between their positions, where a word the index stems (`dogs`) has its `+dog` at
/// its own positions (divisor 1). Expected replies taken from RediSearch 2.10.5.
#[test]
fn a_word_that_is_its_own_stem_measures_the_distance_to_its_other_forms() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "ih", "PREFIX", "1", "h:", "SCHEMA", "title", "TEXT", "body", "TEXT"]),
        ok()
    );
    c.call(&[
        "HSET",
        "h:1",
        "body",
        "hello 2024 indexing a banana search and index",
        "title",
        "index the banana",
    ]);
    c.call(&["HSET", "h:2", "body", "indexing index dogs dogs json", "title", "index"]);
    c.call(&[
        "HSET",
        "h:5",
        "body",
        "runs of the runner who was running to run",
        "title",
        "index indexes indexed",
    ]);
    c.call(&["HSET", "h:6", "body", "indexes and indexed and then index", "title", "dog"]);
    // h:1: `+index` (indexing) three positions before the body's `index` (stopwords take
    // none), farther from the title's: divisor 3.
    let want = [("h:2", 1.5), ("h:5", 1.5), ("h:6", 1.5), ("h:1", 0.5)];
    close(&scored(&mut c, "ih", "index", &[]), &want);
    close(&scored(&mut c, "ih", "index", &["DIALECT", "3"]), &want);
    close(&scored(&mut c, "ih", "@body:index", &[]), &[("h:2", 1.5), ("h:6", 1.5), ("h:1", 0.5)]);
    close(
        &scored(&mut c, "ih", "index=>{$weight:3}", &[]),
        &[("h:2", 3.5), ("h:5", 2.5), ("h:6", 2.5), ("h:1", 7.0 / 6.0)],
    );
    let bm25 = scored(&mut c, "ih", "index", &["SCORER", "BM25"]);
    close(
        &bm25,
        &[
            ("h:2", 0.48951047513472057),
            ("h:5", 0.48951047513472057),
            ("h:6", 0.48951047513472057),
            ("h:1", 0.1631701583782402),
        ],
    );
}

/// RediSearch re-indexes an updated document under a new id and leaves the old version's
/// entries in its inverted indexes until its GC runs; its IDF counts them. Expected replies
/// taken from RediSearch 2.10.5 with the same commands.
#[test]
fn idf_counts_the_versions_the_gc_has_not_collected() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "i", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT", "g", "TAG"]), ok());
    for k in 0..8 {
        let (t, g) = if k < 3 { ("dog x", "a") } else { ("x", "b,c") };
        c.call(&["HSET", &format!("d:{k}"), "t", t, "g", g]);
    }
    for round in 0..4 {
        for k in 3..8 {
            c.call(&["HSET", &format!("d:{k}"), "t", &format!("x y{round}"), "g", "b,c"]);
        }
    }
    c.call(&["DEL", "d:0"]);
    let top2 = |c: &mut Conn, q: &str| scored(c, "i", q, &["LIMIT", "0", "2"]);
    // dog: 2 documents, 3 entries (d:0's stays): floor(log2(1 + 8 / 3)) = 1, not 2.
    close(&top2(&mut c, "dog"), &[("d:1", 1.0), ("d:2", 1.0)]);
    // x: 7 documents, 8 + 20 entries: IDF 0.
    close(&top2(&mut c, "x"), &[("d:1", 0.0), ("d:2", 0.0)]);
    close(&top2(&mut c, "@g:{a}"), &[("d:1", 1.0), ("d:2", 1.0)]);
    close(&top2(&mut c, "@g:{b}"), &[("d:3", 0.0), ("d:4", 0.0)]);
    // The GC runs (every document gone counts): the entries go, the IDFs are the live ones.
    assert_eq!(c.call(&["FT.CONFIG", "SET", "FORK_GC_CLEAN_THRESHOLD", "0"]), ok());
    assert_eq!(c.call(&["FT.DEBUG", "GC_FORCEINVOKE", "i"]), Resp::Simple("DONE".into()));
    close(&top2(&mut c, "dog"), &[("d:1", 2.0), ("d:2", 2.0)]);
    close(&top2(&mut c, "x"), &[("d:1", 1.0), ("d:2", 1.0)]);
    close(&top2(&mut c, "@g:{a}"), &[("d:1", 2.0), ("d:2", 2.0)]);
    close(&top2(&mut c, "@g:{b}"), &[("d:3", 1.0), ("d:4", 1.0)]);
}

/// BM25's average document length is RediSearch's `totalDocsLen` over the live documents:
/// every version indexed adds its length and nothing takes it away (an update, a delete, the
/// GC, FT.ALTER's re-reading all add or keep), until the index is built again from the keys.
/// Figures taken from RediSearch 2.10.5 with the same commands.
#[test]
fn bm25_averages_the_lengths_of_every_version_indexed() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE i PREFIX 1 d: SCHEMA t TEXT"), ok());
    let average = |c: &mut Conn| {
        let r =
            c.call(&["FT.SEARCH", "i", "alpha", "SCORER", "BM25", "WITHSCORES", "NOCONTENT", "EXPLAINSCORE"]);
        let text = format!("{r:?}");
        let at = text.find("Average Len ").expect("an explanation");
        text[at + 12..].chars().take_while(|ch| ch.is_ascii_digit() || *ch == '.').collect::<String>()
    };
    c.call(&["HSET", "d:1", "t", "alpha bravo coco delta echo fox golf hotel"]);
    c.call(&["HSET", "d:2", "t", "alpha bravo"]);
    c.call(&["HSET", "d:3", "t", "alpha bravo coco"]);
    assert_eq!(average(&mut c), "4.33"); // 13 / 3
    c.call(&["HSET", "d:1", "t", "alpha"]);
    assert_eq!(average(&mut c), "4.67"); // 14 / 3 (folio said 2.00)
    c.call(&["DEL", "d:2"]);
    assert_eq!(average(&mut c), "7.00"); // 14 / 2
    assert_eq!(c.cmd("FT.CONFIG SET FORK_GC_CLEAN_THRESHOLD 0"), ok());
    assert_eq!(c.cmd("FT.DEBUG GC_FORCEINVOKE i"), Resp::Simple("DONE".into()));
    assert_eq!(average(&mut c), "7.00");
    assert_eq!(c.cmd("FT.ALTER i SCHEMA ADD u TEXT"), ok());
    assert_eq!(average(&mut c), "9.00"); // d:1 and d:3 read again: 18 / 2
}

/// An optional clause scores only where it matched: the words of an optional intersection
/// count in the documents holding all of them (RediSearch's optional reader gives the others a
/// result of weight 0). The first case is RediSearch's own `testOptional` (test.py); the
/// others' figures are RediSearch 2.10.5's with the same commands.
#[test]
fn an_optional_intersection_scores_only_where_it_matched() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE idx ON HASH SCHEMA foo TEXT bar TEXT"), ok());
    c.call(&["HSET", "doc1", "foo", "hello wat woot"]);
    c.call(&["HSET", "doc2", "foo", "hello world woot"]);
    c.call(&["HSET", "doc3", "foo", "hello world werld"]);
    let dismax = ["SCORER", "DISMAX"];
    // doc2 holds `hello` but not `werld`: the optional pair gives it nothing (folio said 2).
    let want = [("doc3", 3.0), ("doc2", 1.0), ("doc1", 0.0)];
    close(&scored(&mut c, "idx", "~world ~(werld hello)", &dismax), &want);
    c.call(&["HSET", "doc4", "foo", "werld is here hello again", "bar", "woot"]);
    c.call(&["HSET", "doc1", "bar", "werld"]);
    let want = [("doc3", 3.0), ("doc4", 2.0), ("doc1", 2.0), ("doc2", 1.0)];
    close(&scored(&mut c, "idx", "~world ~(werld hello)", &[]), &want);
    close(&scored(&mut c, "idx", "~world ~(werld hello)", &dismax), &want);
}
