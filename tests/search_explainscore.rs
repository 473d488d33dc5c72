//! FT.SEARCH … WITHSCORES EXPLAINSCORE: each scorer's explanation of a document's score over
//! the query's result tree, as RediSearch 2.10.5 gives it. The expected replies were read from
//! RediSearch 2.10.5 (on Redis 7.4.1, RESP2) after the same writes on a fresh server.

mod common;

use common::*;

/// A compact rendering: `"bulk"` and simple strings alike, numbers, `[…]`, `-error`.
fn render(r: &Resp) -> String {
    match r {
        Resp::Simple(s) => format!("\"{s}\""),
        Resp::Bulk(b) => format!("\"{}\"", String::from_utf8_lossy(b)),
        Resp::Int(i) => i.to_string(),
        Resp::Error(e) => format!("-{e}"),
        Resp::Array(items) => format!("[{}]", items.iter().map(render).collect::<Vec<_>>().join(",")),
        other => format!("{other:?}"),
    }
}

#[test]
fn explainscore_explains_as_redisearch_does() {
    let s = Server::start();
    let mut c = s.conn();
    let create = "FT.CREATE idx ON HASH SCORE_FIELD __score PAYLOAD_FIELD pl SCHEMA title TEXT WEIGHT 10 body TEXT tg TAG n NUMERIC";
    assert_eq!(c.cmd(create), Resp::Simple("OK".into()));
    #[rustfmt::skip]
    let adds: &[&[&str]] = &[
        &["FT.ADD", "idx", "doc1", "0.5", "FIELDS", "title", "hello world", "body", "lorem ist ipsum", "tg", "a", "n", "1"],
        &["FT.ADD", "idx", "doc2", "1", "FIELDS", "title", "hello another world running", "body", "lorem ist ipsum lorem lorem", "tg", "b", "n", "2"],
        &["FT.ADD", "idx", "doc3", "0.1", "PAYLOAD", "abcd", "FIELDS", "title", "hello yet another world", "body", "lorem ist ipsum lorem lorem runs", "tg", "a", "n", "3"],
    ];
    for args in adds {
        assert_eq!(c.call(args), Resp::Simple("OK".into()));
    }
    assert_eq!(c.call(&["HSET", "doc4", "title", "quick fox", "body", "jumps", "pl", "abce"]), Resp::Int(3));
    #[rustfmt::skip]
    let cases: &[(&[&str], &str)] = &[
    (&["ft.search", "idx", "hello world", "withscores", "EXPLAINSCORE", "nocontent"], r#"[3,"doc1",["1",["Final TFIDF : words TFIDF 20.00 * document score 0.50 / norm 10 / slop 1",[["(Weight 1.00 * total children TFIDF 20.00)",["(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)","(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)"]]]]],"doc2",["1",["Final TFIDF : words TFIDF 20.00 * document score 1.00 / norm 10 / slop 2",[["(Weight 1.00 * total children TFIDF 20.00)",["(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)","(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)"]]]]],"doc3",["0.06666666766007741",["Final TFIDF : words TFIDF 20.00 * document score 0.10 / norm 10 / slop 3",[["(Weight 1.00 * total children TFIDF 20.00)",["(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)","(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)"]]]]]]"#),
    (&["ft.search", "idx", "hello(world(world(hello)))", "withscores", "EXPLAINSCORE", "nocontent", "limit", "0", "1"], r#"[3,"doc2",["4",["Final TFIDF : words TFIDF 40.00 * document score 1.00 / norm 10 / slop 1",[["(Weight 1.00 * total children TFIDF 40.00)",[["(Weight 1.00 * total children TFIDF 30.00)",[["(Weight 1.00 * total children TFIDF 20.00)",["(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)","(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)"]],"(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)"]],"(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)"]]]]]]"#),
    (&["ft.search", "idx", "hello world", "withscores", "EXPLAINSCORE", "nocontent", "scorer", "BM25", "limit", "0", "1"], r#"[3,"doc1",["0.3241490998846351",["Final BM25 : words BM25 0.65 * document score 0.50 / slop 1",[["(Weight 1.00 * children BM25 0.65)",["(0.32 = IDF 1.00 * F 10 / (F 10 + k1 1.2 * (1 - b 0.5 + b 0.5 * Average Len 33.75)))","(0.32 = IDF 1.00 * F 10 / (F 10 + k1 1.2 * (1 - b 0.5 + b 0.5 * Average Len 33.75)))"]]]]]]"#),
    (&["ft.search", "idx", "hello world", "withscores", "EXPLAINSCORE", "nocontent", "scorer", "BM25STD", "limit", "0", "1"], r#"[3,"doc2",["1.3766402496415648",["Final BM25 : words BM25 1.38 * document score 1.00",[["(Weight 1.00 * children BM25 1.38)",["hello: (0.69 = IDF 0.36 * (F 10.00 * (k1 1.2 + 1)) / (F 10.00 + k1 1.2 * (1 - b 0.5 + b 0.5 * Doc Len 45 / Average Doc Len 33.75)))","world: (0.69 = IDF 0.36 * (F 10.00 * (k1 1.2 + 1)) / (F 10.00 + k1 1.2 * (1 - b 0.5 + b 0.5 * Doc Len 45 / Average Doc Len 33.75)))"]]]]]]"#),
    (&["ft.search", "idx", "hello world", "withscores", "EXPLAINSCORE", "nocontent", "scorer", "DISMAX", "limit", "0", "1"], r#"[3,"doc1",["20",["20.00 = Weight 1.00 * children DISMAX 20.00",["DISMAX 10.00 = Weight 1.00 * Frequency 10","DISMAX 10.00 = Weight 1.00 * Frequency 10"]]]]"#),
    (&["ft.search", "idx", "hello world", "withscores", "EXPLAINSCORE", "nocontent", "scorer", "DOCSCORE", "limit", "0", "1"], r#"[3,"doc2",["1","Document's score is 1.00"]]"#),
    (&["ft.search", "idx", "hello world", "withscores", "EXPLAINSCORE", "nocontent", "scorer", "TFIDF.DOCNORM", "limit", "0", "1"], r#"[3,"doc1",["0.43478260869565216",["Final TFIDF : words TFIDF 20.00 * document score 0.50 / norm 23 / slop 1",[["(Weight 1.00 * total children TFIDF 20.00)",["(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)","(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)"]]]]]]"#),
    (&["ft.search", "idx", "hello -another", "withscores", "EXPLAINSCORE", "nocontent"], r#"[1,"doc1",["0.5",["Final TFIDF : words TFIDF 10.00 * document score 0.50 / norm 10 / slop 1",[["(Weight 1.00 * total children TFIDF 10.00)",["(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)","(TFIDF 0.00 = Weight 1.00 * Frequency 0)"]]]]]]"#),
    (&["ft.search", "idx", "hello ~another", "withscores", "EXPLAINSCORE", "nocontent", "scorer", "BM25STD"], r#"[3,"doc2",["2.0259726009981667",["Final BM25 : words BM25 2.03 * document score 1.00",[["(Weight 1.00 * children BM25 2.03)",["hello: (0.69 = IDF 0.36 * (F 10.00 * (k1 1.2 + 1)) / (F 10.00 + k1 1.2 * (1 - b 0.5 + b 0.5 * Doc Len 45 / Average Doc Len 33.75)))","another: (1.34 = IDF 0.69 * (F 10.00 * (k1 1.2 + 1)) / (F 10.00 + k1 1.2 * (1 - b 0.5 + b 0.5 * Doc Len 45 / Average Doc Len 33.75)))"]]]]],"doc1",["0.35638698472984476",["Final BM25 : words BM25 0.71 * document score 0.50",[["(Weight 1.00 * children BM25 0.71)",["hello: (0.71 = IDF 0.36 * (F 10.00 * (k1 1.2 + 1)) / (F 10.00 + k1 1.2 * (1 - b 0.5 + b 0.5 * Doc Len 23 / Average Doc Len 33.75)))","Irrelevant token -> score is 0"]]]]],"doc3",["0.20228181388532238",["Final BM25 : words BM25 2.02 * document score 0.10",[["(Weight 1.00 * children BM25 2.02)",["hello: (0.69 = IDF 0.36 * (F 10.00 * (k1 1.2 + 1)) / (F 10.00 + k1 1.2 * (1 - b 0.5 + b 0.5 * Doc Len 46 / Average Doc Len 33.75)))","another: (1.34 = IDF 0.69 * (F 10.00 * (k1 1.2 + 1)) / (F 10.00 + k1 1.2 * (1 - b 0.5 + b 0.5 * Doc Len 46 / Average Doc Len 33.75)))"]]]]]]"#),
    (&["ft.search", "idx", "hel*", "withscores", "EXPLAINSCORE", "nocontent", "limit", "0", "1"], r#"[3,"doc2",["1",["Final TFIDF : words TFIDF 10.00 * document score 1.00 / norm 10 / slop 1",[["(Weight 1.00 * total children TFIDF 10.00)",["(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)"]]]]]]"#),
    (&["ft.search", "idx", "running", "withscores", "EXPLAINSCORE", "nocontent"], r#"[2,"doc2",["2.2",["Final TFIDF : words TFIDF 22.00 * document score 1.00 / norm 10 / slop 1",[["(Weight 1.00 * total children TFIDF 22.00)",["(TFIDF 20.00 = Weight 1.00 * TF 10 * IDF 2.00)","(TFIDF 2.00 = Weight 1.00 * TF 2 * IDF 1.00)"]]]]],"doc3",["0.010000000149011612",["Final TFIDF : words TFIDF 1.00 * document score 0.10 / norm 10 / slop 1",[["(Weight 1.00 * total children TFIDF 1.00)",["(TFIDF 1.00 = Weight 1.00 * TF 1 * IDF 1.00)"]]]]]]"#),
    (&["ft.search", "idx", "hello|runs", "withscores", "EXPLAINSCORE", "nocontent"], r#"[3,"doc1",["0.5",["Final TFIDF : words TFIDF 10.00 * document score 0.50 / norm 10 / slop 1",[["(Weight 1.00 * total children TFIDF 10.00)",["(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)"]]]]],"doc2",["0.39999999999999997",["Final TFIDF : words TFIDF 12.00 * document score 1.00 / norm 10 / slop 3",[["(Weight 1.00 * total children TFIDF 12.00)",["(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)",["(Weight 1.00 * total children TFIDF 2.00)",["(TFIDF 2.00 = Weight 1.00 * TF 2 * IDF 1.00)"]]]]]]],"doc3",["0.014444444659683439",["Final TFIDF : words TFIDF 13.00 * document score 0.10 / norm 10 / slop 9",[["(Weight 1.00 * total children TFIDF 13.00)",["(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)",["(Weight 1.00 * total children TFIDF 3.00)",["(TFIDF 2.00 = Weight 1.00 * TF 1 * IDF 2.00)","(TFIDF 1.00 = Weight 1.00 * TF 1 * IDF 1.00)"]]]]]]]]"#),
    (&["ft.search", "idx", "@tg:{a} hello", "withscores", "EXPLAINSCORE", "nocontent", "limit", "0", "1"], r#"[2,"doc1",["0.55",["Final TFIDF : words TFIDF 11.00 * document score 0.50 / norm 10 / slop 1",[["(Weight 1.00 * total children TFIDF 11.00)",["(TFIDF 1.00 = Weight 1.00 * TF 1 * IDF 1.00)","(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)"]]]]]]"#),
    (&["ft.search", "idx", "@n:[1 2] hello", "withscores", "EXPLAINSCORE", "nocontent", "scorer", "BM25STD", "limit", "0", "1"], r#"[2,"doc2",["0.6883201248207824",["Final BM25 : words BM25 0.69 * document score 1.00",[["(Weight 1.00 * children BM25 0.69)",["Irrelevant token -> score is 0","hello: (0.69 = IDF 0.36 * (F 10.00 * (k1 1.2 + 1)) / (F 10.00 + k1 1.2 * (1 - b 0.5 + b 0.5 * Doc Len 45 / Average Doc Len 33.75)))"]]]]]]"#),
    (&["ft.search", "idx", "*", "withscores", "EXPLAINSCORE", "nocontent", "scorer", "BM25STD", "limit", "0", "2"], r#"[4,"doc4",["1.1148648671778645",["Final BM25 : words BM25 1.11 * document score 1.00",["*: (1.11 = IDF 1.00 * (F 1.00 * (k1 1.2 + 1)) / (F 1.00 + k1 1.2 * (1 - b 0.5 + b 0.5 * Doc Len 21 / Average Doc Len 33.75)))"]]],"doc2",["0.9166666652869296",["Final BM25 : words BM25 0.92 * document score 1.00",["*: (0.92 = IDF 1.00 * (F 1.00 * (k1 1.2 + 1)) / (F 1.00 + k1 1.2 * (1 - b 0.5 + b 0.5 * Doc Len 45 / Average Doc Len 33.75)))"]]]]"#),
    (&["ft.search", "idx", "(hello world) => {$weight: 2}", "withscores", "EXPLAINSCORE", "nocontent", "dialect", "2", "limit", "0", "1"], r#"[3,"doc1",["2",["Final TFIDF : words TFIDF 40.00 * document score 0.50 / norm 10 / slop 1",[["(Weight 2.00 * total children TFIDF 20.00)",["(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)","(TFIDF 10.00 = Weight 1.00 * TF 10 * IDF 1.00)"]]]]]]"#),
    (&["ft.search", "idx", "*", "withscores", "EXPLAINSCORE", "nocontent", "scorer", "HAMMING", "payload", "abcd", "limit", "0", "2"], r#"[4,"doc4",["0.5","String length is 4. Bit count is 1. Result is (1 / count + 1) = 0.50"],"doc1",["0","Payloads provided to scorer vary in length"]]"#),
    (&["ft.search", "idx", "hello", "EXPLAINSCORE"], r#"-EXPLAINSCORE must be accompanied with WITHSCORES"#),
    ];
    for (args, want) in cases {
        assert_eq!(render(&c.call(args)), *want, "{args:?}");
    }
}
