//! Fuzzy terms (`%w%`, `%%w%%`, `%%%w%%%`) as RediSearch 2.10.5's lexer and parser read them:
//! spaces and the punctuation its lexer reads as no token are skipped around the term
//! (`%+run%` is `%run%`), from dialect 2 a `$param` is the term, and the syntax errors carry its
//! offsets and texts. Every expected reply was read from RediSearch 2.10.5 (Redis 7.4.1, RESP2)
//! after the same writes, with `PARAMS 2 p run`, in dialects 1 and 2.

mod common;

use common::*;

/// `ok:<reply items joined by commas>` or `err:<error text>`.
fn outcome(r: &Resp) -> String {
    match r {
        Resp::Error(e) => format!("err:{e}"),
        Resp::Array(items) => {
            let texts: Vec<String> = items
                .iter()
                .map(|i| match i {
                    Resp::Int(n) => n.to_string(),
                    other => other.text(),
                })
                .collect();
            format!("ok:{}", texts.join(","))
        }
        other => format!("{other:?}"),
    }
}

#[test]
fn fuzzy_terms_parse_as_redisearch_does() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "i", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT"]), ok());
    c.call(&["HSET", "d:1", "t", "indexing"]);
    c.call(&["HSET", "d:2", "t", "hello"]);
    c.call(&["HSET", "d:3", "t", "runs"]);
    #[rustfmt::skip]
    let cases: &[(&str, &str, &str)] = &[
        ("%+run%", "ok:1,d:3", "ok:1,d:3"),
        ("%run+%", "ok:1,d:3", "ok:1,d:3"),
        ("%.run.%", "ok:1,d:3", "ok:1,d:3"),
        ("%ru.n%", "err:Syntax error at offset 4 near n", "err:Syntax error at offset 4 near n"),
        ("%%+runs%%", "ok:1,d:3", "ok:1,d:3"),
        ("%!run%", "ok:1,d:3", "ok:1,d:3"),
        ("%%wor&d%%", "err:Syntax error at offset 6 near d", "err:Syntax error at offset 6 near d"),
        ("%+%", "err:Syntax error at offset 2 near ", "err:Syntax error at offset 2 near "),
        ("%%", "err:Syntax error at offset 1 near ", "err:Syntax error at offset 1 near "),
        ("% %", "err:Syntax error at offset 2 near ", "err:Syntax error at offset 2 near "),
        ("%%%", "err:Syntax error at offset 2 near ", "err:Syntax error at offset 2 near "),
        ("% x%", "ok:0", "ok:0"),
        ("%x %", "ok:0", "ok:0"),
        ("%'a'%", "ok:0", "err:Syntax error at offset 1 near a"),
        ("%run %%", "err:Syntax error at offset 6 near run", "err:Syntax error at offset 6 near run"),
        ("%@t%", "err:Syntax error at offset 1 near t", "err:Syntax error at offset 1 near t"),
        ("%$p%", "err:Syntax error at offset 1 near p", "ok:1,d:3"),
        ("%-run%", "err:Syntax error at offset 1 near ", "err:Syntax error at offset 1 near "),
        ("%%x%", "err:Syntax error at offset 3 near x", "err:Syntax error at offset 3 near x"),
        ("%%%%x%%%%", "err:Syntax error at offset 3 near ", "err:Syntax error at offset 3 near "),
        ("a %%%%x%%%%", "err:Syntax error at offset 5 near a", "err:Syntax error at offset 5 near a"),
        ("%$q%", "err:Syntax error at offset 1 near q", "err:No such parameter `q`"),
    ];
    for (q, d1, d2) in cases {
        for (dialect, want) in [("1", d1), ("2", d2)] {
            let r =
                c.call(&["FT.SEARCH", "i", q, "NOCONTENT", "PARAMS", "2", "p", "run", "DIALECT", dialect]);
            assert_eq!(outcome(&r), *want, "{q} (dialect {dialect})");
        }
    }
}
