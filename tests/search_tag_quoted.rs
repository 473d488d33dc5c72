//! Dialect 2 quoted tag values, `@tag:{"abc:1"}`: the tag exactly as written (punctuation,
//! spaces, `$`, `*`, `|` literal; `\` escapes the next character), `*` after the quote a
//! prefix, before it a suffix. Results measured on RediSearch 2.10.5 with the same documents
//! (its flow test testTagAutoescaping).

mod common;

use common::*;

#[test]
fn quoted_tags_match_literally_in_dialect_2() {
    let server = Server::start();
    let mut c = server.conn();
    let create = ["FT.CREATE", "idx", "ON", "JSON", "SCHEMA", "$.tag", "AS", "tag", "TAG", "SEPARATOR", ","];
    assert_eq!(c.call(&create), Resp::Simple("OK".into()));
    let docs: &[(&str, &str)] = &[
        ("doc:1", r#"{"tag": "abc:1"}"#),
        ("doc:4", r#"{"tag": "abc:1-xyz:2"}"#),
        ("doc:6", r#"{"tag": "tag with {brackets}"}"#),
        ("doc:7", r#"{"tag": "abc:1|xyz:2"}"#),
        ("doc:11", r#"{"tag": "a|b-c d"}"#),
        ("doc:12", r#"{"tag": "_@12\\345"}"#),
        ("doc:13", r#"{"tag": "$literal"}"#),
        ("doc:14", r#"{"tag": "*literal"}"#),
        ("doc:18", r#"{"tag": "x"}"#),
        ("doc:19", r#"{"tag": "w"}"#),
    ];
    for (k, v) in docs {
        assert_eq!(c.call(&["JSON.SET", k, "$", v]), Resp::Simple("OK".into()));
    }
    let cases: &[(&str, &[&str])] = &[
        (r#"@tag:{"abc:1"}"#, &["doc:1"]),
        (r#"@tag:{"abc:1|xyz:2"}"#, &["doc:7"]),
        (r#"@tag:{"$literal"}"#, &["doc:13"]),
        (r#"@tag:{"*literal"}"#, &["doc:14"]),
        (r#"@tag:{"_@12\\345"}"#, &["doc:12"]),
        (r#"@tag:{"a|b-c d"}"#, &["doc:11"]),
        (r#"@tag:{"tag with {brackets\}"}"#, &["doc:6"]),
        (r#"@tag:{"abc:"*}=>{$weight:3.4}"#, &["doc:1", "doc:4", "doc:7"]),
        (r#"@tag:{*"literal"}"#, &["doc:13", "doc:14"]),
        (r#"@tag:{"x" | "w"}"#, &["doc:19", "doc:18"]),
    ];
    for (q, want) in cases {
        let got = c.call(&["FT.SEARCH", "idx", q, "NOCONTENT", "DIALECT", "2", "SORTBY", "tag"]);
        let mut exp = vec![Resp::Int(want.len() as i64)];
        exp.extend(want.iter().map(|k| Resp::bulk(k)));
        assert_eq!(got, arr(exp), "{q}");
    }
}

/// `$param` values inside a tag list: whitespace after the parameter is skipped, and words
/// after it join the tag. Replies measured on RediSearch 2.10.5 (redis-server 7.4.1) with
/// these documents and parameters.
#[test]
fn parameters_in_tag_lists_take_the_whitespace_after_them() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "ti", "ON", "HASH", "PREFIX", "1", "h:", "SCHEMA", "t", "TAG"]),
        Resp::Simple("OK".into())
    );
    for (k, v) in [("h:1", "a b"), ("h:2", "x"), ("h:3", "x y")] {
        assert_eq!(c.call(&["HSET", k, "t", v]), Resp::Int(1));
    }
    let cases: &[(&str, &[&str])] = &[
        ("@t:{$x }", &["h:2"]),
        ("@t:{ $x }", &["h:2"]),
        ("@t:{$x  }", &["h:2"]),
        ("@t:{$x | b}", &["h:2"]),
        ("@t:{$x |$y}", &["h:1", "h:2"]),
        ("@t:{$x }|@t:{$y }", &["h:1", "h:2"]),
        ("@t:{$x } foo", &[]),
        ("@t:{$x y}", &["h:3"]),
        ("@t:{$x $y}", &[]),
    ];
    for (q, want) in cases {
        let got = c.call(&[
            "FT.SEARCH", "ti", q, "PARAMS", "4", "x", "x", "y", "a b", "NOCONTENT", "DIALECT", "2", "SORTBY",
            "t",
        ]);
        let mut exp = vec![Resp::Int(want.len() as i64)];
        exp.extend(want.iter().map(|k| Resp::bulk(k)));
        assert_eq!(got, arr(exp), "{q}");
    }
    let err = c.call(&["FT.SEARCH", "ti", "@t:{$z }", "PARAMS", "2", "x", "x", "DIALECT", "2"]);
    assert_eq!(err, Resp::Error("No such parameter `z`".into()));
}
