//! `$weight` attributes, scored as RediSearch 2.10.5 scores them: a word's own weight sits on
//! its term reader inside the union of expansions the stemmer wraps it in (its stems weigh 1),
//! and only TFIDF, TFIDF.DOCNORM and DISMAX read a term's weight (the BM25 family leaves it
//! out); an aggregate's weight (a union, intersection, phrase, prefix) multiplies its children
//! under every scorer; OPTIONAL writes its own weight over its child's; of two attribute blocks
//! on one node the last one counts. Every expected score was read from RediSearch 2.10.5 (on
//! Redis 7.4.1, RESP2, DIALECT 2) after the same writes on a fresh server.

mod common;

use common::*;

fn corpus() -> (Server, Conn) {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "w", "ON", "HASH", "PREFIX", "1", "w:", "SCHEMA", "description", "TEXT"]),
        ok()
    );
    c.call(&["HSET", "w:1", "description", "a medical professional who treats diseases"]);
    c.call(&["HSET", "w:2", "description", "a research scientist specializing in cancers"]);
    c.call(&["HSET", "w:3", "description", "software developer"]);
    (s, c)
}

/// (scorer, query, WITHSCORES EXPLAINSCORE?, expected (key, score) rows).
type Case<'a> = (&'a str, &'a str, bool, &'a [(&'a str, f64)]);

#[test]
fn weights_score_as_redisearch_does() {
    let (_s, mut c) = corpus();
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("TFIDF", "medical=>{$weight:3.4}", false, &[("w:1", 8.8)]),
        ("TFIDF", "medical=>{$weight:3.4}", true, &[("w:1", 6.8)]),
        ("BM25", "medical=>{$weight:3.4}", false, &[("w:1", 1.0526315481268698)]),
        ("BM25STD", "medical=>{$weight:3.4}", false, &[("w:1", 1.7846666497571217)]),
        ("DISMAX", "medical=>{$weight:3.4}", false, &[("w:1", 3.4)]),
        ("TFIDF.DOCNORM", "medical=>{$weight:3.4}", false, &[("w:1", 1.7600000000000002)]),
        ("BM25", "research=>{$weight:3.4}", false, &[("w:2", 0.5263157740634349)]),
        ("TFIDF", "(medical=>{$weight:3.4} | cancers)", false, &[("w:1", 8.8), ("w:2", 4.0)]),
        ("TFIDF", "(medical | cancers)=>{$weight:3.4}", false, &[("w:1", 13.6), ("w:2", 13.6)]),
        ("BM25", "(medical | cancers)=>{$weight:3.4}", false, &[("w:1", 3.578947263631357), ("w:2", 3.578947263631357)]),
        ("TFIDF", "medical=>{$weight:3.4} diseases", false, &[("w:1", 3.2)]),
        ("TFIDF", "~medical=>{$weight:3.4}", false, &[("w:1", 2.0), ("w:2", 0.0), ("w:3", 0.0)]),
        ("TFIDF", "diseases ~medical=>{$weight:3.4}", false, &[("w:1", 1.5)]),
        ("TFIDF", "(~medical)=>{$weight:3.4}", false, &[("w:1", 6.8), ("w:2", 0.0), ("w:3", 0.0)]),
        ("BM25", "(~medical)=>{$weight:3.4}", false, &[("w:1", 0.5263157740634349), ("w:2", 0.0), ("w:3", 0.0)]),
        ("TFIDF", "~(medical|cancers)=>{$weight:3.4}", false, &[("w:1", 2.0), ("w:2", 2.0), ("w:3", 0.0)]),
        ("TFIDF", "medical=>{$weight:2}=>{$weight:0.5}", false, &[("w:1", 3.0)]),
        ("TFIDF", "@description:medical=>{$weight:3.4}", false, &[("w:1", 8.8)]),
        ("TFIDF", "med*=>{$weight:3.4}", false, &[("w:1", 6.8)]),
        ("TFIDF", "\"medical professional\"=>{$weight:3.4}", false, &[("w:1", 13.6)]),
        ("DISMAX", "medical=>{$weight:3.4} | cancers=>{$weight:2}", false, &[("w:1", 3.4), ("w:2", 2.0)]),
        // RedisVL's AggregateHybridQuery with text weights: void under `~` in 2.10.5.
        ("BM25STD", "(~@description:(medical=>{$weight:3.4} | cancers=>{$weight:5}))", false, &[("w:1", 0.8923333248785609), ("w:2", 0.9570994544386712), ("w:3", 0.0)]),
    ];
    for (scorer, query, verbatim, want) in cases {
        let mut extra = vec!["SCORER", scorer, "DIALECT", "2"];
        if *verbatim {
            extra.push("VERBATIM");
        }
        let mut got = scored(&mut c, "w", query, &extra);
        got.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(got.len(), want.len(), "{scorer} {query}: {got:?}");
        for ((gk, gs), (wk, ws)) in got.iter().zip(want.iter()) {
            assert_eq!(gk, wk, "{scorer} {query}: {got:?}");
            assert!((gs - ws).abs() < 1e-9, "{scorer} {query} {gk}: {gs} against {ws}");
        }
    }
}

#[test]
fn explainscore_puts_a_words_weight_on_its_exact_term() {
    let (_s, mut c) = corpus();
    let r = c.call(&[
        "FT.SEARCH", "w", "medical=>{$weight:3.4} diseases", "WITHSCORES", "EXPLAINSCORE", "NOCONTENT",
        "DIALECT", "2",
    ]);
    // The explanation's lines are simple strings, the key and the score bulk strings.
    let line = |s: &str| Resp::Simple(s.into());
    let bulk = |s: &str| Resp::Bulk(s.as_bytes().to_vec());
    let exact = line("(TFIDF 6.80 = Weight 3.40 * TF 1 * IDF 2.00)");
    let stem = line("(TFIDF 2.00 = Weight 1.00 * TF 1 * IDF 2.00)");
    let want = Resp::Array(vec![
        Resp::Int(1),
        bulk("w:1"),
        Resp::Array(vec![
            bulk("3.2"),
            Resp::Array(vec![
                line("Final TFIDF : words TFIDF 12.80 * document score 1.00 / norm 1 / slop 4"),
                Resp::Array(vec![Resp::Array(vec![
                    line("(Weight 1.00 * total children TFIDF 12.80)"),
                    Resp::Array(vec![
                        Resp::Array(vec![
                            line("(Weight 1.00 * total children TFIDF 8.80)"),
                            Resp::Array(vec![exact, stem.clone()]),
                        ]),
                        Resp::Array(vec![
                            line("(Weight 1.00 * total children TFIDF 4.00)"),
                            Resp::Array(vec![stem.clone(), stem]),
                        ]),
                    ]),
                ])]),
            ]),
        ]),
    ]);
    assert_eq!(r, want);
}
