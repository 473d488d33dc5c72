//! SUMMARIZE's fragments as RediSearch 2.10.5 makes them (search/src/query/summarize.rs): which
//! fragments, their context, their order, HIGHLIGHT's tags inside them. Every expected reply
//! was read from RediSearch 2.10.5 (Redis 7.4.1) after the same writes.

mod common;

use common::*;

/// A query, its options, and the (key, summarized text) rows RediSearch gives.
type Case<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);

#[test]
fn summarize_fragments_as_redisearch() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA txt TEXT"), ok());
    for (key, text) in [
        ("d:simple", "one two alpha three four five six seven eight nine ten eleven omega end"),
        ("d:multi", "alpha beta gamma alpha delta epsilon zeta eta theta iota kappa lambda mu alpha nu xi omicron pi rho sigma omega tau upsilon"),
        ("d:punct", "Hello, world! The quick (brown) fox: jumps over the lazy dog; memory-efficient, fast memory access."),
    ] {
        assert_eq!(c.call(&["HSET", key, "txt", text]), Resp::Int(1));
    }
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("alpha omega", &["SUMMARIZE", "FRAGS", "1", "LEN", "4"], &[("d:multi", "alpha nu xi omicron pi rho sigma omega... "), ("d:simple", "two alpha three four... ")]),
        ("alpha omega", &["SUMMARIZE", "FRAGS", "2", "LEN", "4", "SEPARATOR", "|", "HIGHLIGHT", "TAGS", "<", ">"], &[("d:multi", "<alpha> beta gamma <alpha> delta|<alpha> nu xi omicron pi rho sigma <omega>|"), ("d:simple", "two <alpha> three four|ten eleven <omega> |")]),
        ("alpha", &["SUMMARIZE", "FRAGS", "3", "LEN", "2"], &[("d:multi", "alpha beta gamma alpha... mu alpha nu xi... "), ("d:simple", "two alpha three... ")]),
        ("alpha", &["SUMMARIZE", "FRAGS", "2", "LEN", "10"], &[("d:multi", "alpha beta gamma alpha delta epsilon zeta eta... theta iota kappa lambda mu alpha nu xi omicron pi rho sigma... "), ("d:simple", "two alpha three four five six seven... ")]),
        ("fox memory", &["SUMMARIZE", "LEN", "3"], &[("d:punct", "fox: jumps over the lazy dog; memory-efficient, fast memory... ")]),
        ("fox|omega", &["SUMMARIZE", "FRAGS", "1", "LEN", "6", "HIGHLIGHT"], &[("d:punct", "quick (brown) <b>fox</b>: jumps over the... "), ("d:multi", "pi rho sigma <b>omega</b> tau... "), ("d:simple", "nine ten eleven <b>omega</b> ... ")]),
        ("quick", &["SUMMARIZE"], &[("d:punct", "world! The quick (brown) fox: jumps over the lazy dog; memory-efficient... ")]),
    ];
    for (query, opts, want) in cases {
        let mut args = vec!["FT.SEARCH", "idx", query];
        args.extend_from_slice(opts);
        args.extend_from_slice(&["SORTBY", "txt", "RETURN", "1", "txt"]);
        let r = c.call(&args);
        let got: Vec<(String, String)> =
            r.items()[1..].chunks(2).map(|p| (p[0].text(), p[1].items()[1].text())).collect();
        let want: Vec<(String, String)> = want.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert_eq!(got, want, "{query} {opts:?}");
    }
}
