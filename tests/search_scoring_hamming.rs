//! SCORER HAMMING: `1 / (1 + bits that differ)` between FT.SEARCH's PAYLOAD and each
//! document's payload (its index's PAYLOAD_FIELD, or FT.ADD's PAYLOAD), 0 when either is
//! missing or their lengths differ. The cases are RediSearch 2.10.5's test_scorers.py
//! `testHammingScorer`, plus distances other than 0.

mod common;

use common::*;

#[test]
fn hamming_ranks_by_payload_distance() {
    let server = Server::start();
    let mut c = server.conn();
    let create = "FT.CREATE idx ON HASH PAYLOAD_FIELD PAYLOAD SCORE_FIELD __score SCHEMA title TEXT";
    assert_eq!(c.cmd(create), ok());
    for i in 0..16 {
        let payload = format!("{i:x}").repeat(8);
        assert_eq!(
            c.call(&["HSET", &format!("doc{i}"), "PAYLOAD", &payload, "title", "hello world"]),
            Resp::Int(2)
        );
    }
    for i in 0..16 {
        let payload = format!("{i:x}").repeat(8);
        let search = |c: &mut Conn, extra: &[&str]| {
            let mut args = vec!["FT.SEARCH", "idx", "*"];
            args.extend(extra);
            args.extend(["SCORER", "HAMMING", "WITHSCORES", "WITHPAYLOADS"]);
            c.call(&args)
        };
        let r = search(&mut c, &["PAYLOAD", &payload]);
        assert_eq!((r.items()[1].text(), r.items()[2].text()), (format!("doc{i}"), "1".to_string()));
        let r = search(&mut c, &["PAYLOAD", &payload[..7]]);
        assert_eq!(r.items()[2].text(), "0");
        let r = search(&mut c, &[]);
        assert_eq!(r.items()[2].text(), "0");
    }
    // '0' (0x30) against '1' (0x31) and '3' (0x33): 8 and 16 bits apart.
    let r = c.call(&[
        "FT.SEARCH", "idx", "hello", "PAYLOAD", "00000000", "SCORER", "HAMMING", "WITHSCORES", "NOCONTENT",
        "LIMIT", "0", "3",
    ]);
    let got: Vec<(String, f64)> =
        r.items()[1..].chunks(2).map(|p| (p[0].text(), p[1].text().parse::<f64>().unwrap())).collect();
    let want = [("doc0", 1.0), ("doc1", 1.0 / 9.0), ("doc2", 1.0 / 9.0)];
    assert_eq!(got.len(), want.len());
    for ((k, s), (wk, ws)) in got.iter().zip(want) {
        assert_eq!(k, wk);
        assert!((s - ws).abs() < 1e-12, "{k}: {s}");
    }
    assert_eq!(c.call(&["FT.SEARCH", "idx", "*", "SCORER", "HAMMINGX"]).err(), "Invalid scorer name");
}
