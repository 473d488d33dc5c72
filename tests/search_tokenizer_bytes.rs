//! RediSearch 2.10.5 tokenizes bytes, not Unicode (`toksep.h`, `tokenize.c`): only ASCII
//! separators split words (a no-break space does not), only ASCII letters are lowercased,
//! control characters vanish from a word, and a word's first 128 bytes make its term. Its
//! query lexers read the same way, and its prefix, suffix, wildcard and fuzzy patterns are
//! folded only to walk the terms. Every expected reply here was read off RediSearch 2.10.5
//! (with RedisJSON 2.8.3), side by side with folio.

mod common;

use common::*;

fn ids(r: &Resp) -> Vec<String> {
    let mut v: Vec<String> = r.items()[1..].iter().map(Resp::text).collect();
    v.sort();
    v
}

/// Whether `v` is the bulk string `s`.
fn is(v: &Resp, s: &str) -> bool {
    matches!(v, Resp::Bulk(b) if b == s.as_bytes()) || matches!(v, Resp::Simple(t) if t == s)
}

fn setup(c: &mut Conn) {
    let ok = c.call(&[
        "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "h:", "STOPWORDS", "0", "SCHEMA", "t", "TEXT",
        "NOSTEM",
    ]);
    assert!(!ok.is_error(), "{ok:?}");
    let ok = c.call(&[
        "FT.CREATE", "jdx", "ON", "JSON", "PREFIX", "1", "j:", "STOPWORDS", "0", "SCHEMA", "$.t", "AS", "t",
        "TEXT", "NOSTEM",
    ]);
    assert!(!ok.is_error(), "{ok:?}");
    let texts = [
        "a\u{a0}b",
        "a\u{2003}b",
        "a\u{3000}b",
        "a\tb",
        "a\nb",
        "ÉCOLE école",
        "Straße İstanbul",
        "a\\ b",
        &format!("{} {}", "A".repeat(130), "b".repeat(200)),
        "Ünïcode café",
    ];
    for (i, t) in texts.iter().enumerate() {
        c.call(&["HSET", &format!("h:{i}"), "t", t]);
        let json = format!("{{\"t\":{}}}", json_string(t));
        assert!(!c.call(&["JSON.SET", &format!("j:{i}"), "$", &json]).is_error());
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The documents of `q` in both indexes (their numbers), dialects 1 and 2 alike.
fn found(c: &mut Conn, q: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (ix, p) in [("idx", "h:"), ("jdx", "j:")] {
        let mut per_dialect = Vec::new();
        for d in ["1", "2"] {
            let r = c.call(&["FT.SEARCH", ix, q, "NOCONTENT", "DIALECT", d]);
            assert!(!r.is_error(), "{q:?}: {r:?}");
            per_dialect
                .push(ids(&r).into_iter().map(|id| id.trim_start_matches(p).to_string()).collect::<Vec<_>>());
        }
        assert_eq!(per_dialect[0], per_dialect[1], "{ix} {q:?}");
        out.push(per_dialect.pop().unwrap());
    }
    assert_eq!(out[0], out[1], "HASH and JSON {q:?}");
    out.pop().unwrap()
}

#[test]
fn unicode_spaces_join_words_and_control_characters_vanish() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    // Before: a no-break space split words, so `a\u{a0}b` found all of h:0..h:4.
    assert_eq!(found(&mut c, "a\u{a0}b"), ["0"]);
    assert_eq!(found(&mut c, "a\u{2003}b"), ["1"]);
    assert_eq!(found(&mut c, "a\u{3000}b"), ["2"]);
    assert_eq!(found(&mut c, "a"), ["3"]);
    assert_eq!(found(&mut c, "ab"), ["4"]);
    assert_eq!(found(&mut c, "a\\ b"), ["7"]);
    let e = c.call(&["FT.EXPLAIN", "idx", "a\u{a0}b|x", "DIALECT", "2"]);
    let want = "UNION {\n  UNION {\n    a\u{a0}b\n    +a\u{a0}b(expanded)\n  }\n  UNION {\n    x\n    +x(expanded)\n  }\n}\n";
    assert_eq!(e.text(), want);
    let terms: Vec<String> =
        c.call(&["FT.DEBUG", "DUMP_TERMS", "jdx"]).items().iter().map(Resp::text).collect();
    for t in ["a\u{a0}b", "ab", "a b", "École", "école", "straße", "İstanbul"] {
        assert!(terms.iter().any(|x| x == t), "{t:?} in {terms:?}");
    }
}

#[test]
fn only_ascii_letters_are_lowercased() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    assert_eq!(found(&mut c, "École"), ["5"]);
    assert_eq!(found(&mut c, "ÉCOLE"), ["5"]);
    assert_eq!(found(&mut c, "école"), ["5"]);
    assert!(found(&mut c, "ünïcode").is_empty());
    assert!(found(&mut c, "CAFÉ").is_empty());
    assert_eq!(found(&mut c, "café"), ["9"]);
    assert_eq!(found(&mut c, "STRAßE"), ["6"]);
    assert!(found(&mut c, "i̇stanbul").is_empty());
    let e = c.call(&["FT.EXPLAIN", "idx", "CAFÉ", "DIALECT", "1"]);
    assert_eq!(e.text(), "UNION {\n  cafÉ\n  +cafÉ(expanded)\n}\n");
}

#[test]
fn a_term_is_a_words_first_128_bytes() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    assert_eq!(found(&mut c, &"a".repeat(128)), ["8"]);
    assert!(found(&mut c, &"A".repeat(130)).is_empty());
    assert!(found(&mut c, &"b".repeat(200)).is_empty());
    assert_eq!(found(&mut c, &format!("{}*", "b".repeat(127))), ["8"]);
}

#[test]
fn patterns_fold_to_walk_terms_and_show_as_written() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    // `ÉC` folds to `éc`: `école`, not `École`; MINPREFIX counts bytes (`é*` is 2).
    assert_eq!(found(&mut c, "ÉC*"), ["5"]);
    assert_eq!(found(&mut c, "é*"), ["5"]);
    assert_eq!(found(&mut c, "*é"), ["9"]);
    assert_eq!(found(&mut c, "CAF*"), ["9"]);
    assert_eq!(c.call(&["FT.EXPLAIN", "idx", "CAF*"]).text(), "PREFIX{CAF*}\n");
    assert_eq!(c.call(&["FT.EXPLAIN", "idx", "*AFÉ"]).text(), "SUFFIX{*AFÉ}\n");
    assert_eq!(c.call(&["FT.EXPLAIN", "idx", "w'CAF*'", "DIALECT", "2"]).text(), "WILDCARD{CAF*}\n");
    assert_eq!(c.call(&["FT.EXPLAIN", "idx", "%CAFÉ%"]).text(), "FUZZY{cafÉ}\n");
    // FT.PROFILE labels a prefix, suffix or infix union `PREFIX - ` with the pattern as
    // written, and an expansion that found nothing is EMPTY.
    let label = |c: &mut Conn, q: &str| {
        let r = c.call(&["FT.PROFILE", "idx", "SEARCH", "QUERY", q, "NOCONTENT"]);
        let it = &r.items()[1].items()[4].items()[1];
        let kv = it.items();
        let kind = kv[1].text();
        let query_type = kv.iter().position(|v| is(v, "Query type")).map(|i| kv[i + 1].text());
        (kind, query_type)
    };
    assert_eq!(label(&mut c, "*AFÉ"), ("UNION".into(), Some("PREFIX - AFÉ".into())));
    assert_eq!(label(&mut c, "Caf*"), ("UNION".into(), Some("PREFIX - Caf".into())));
    assert_eq!(label(&mut c, "zzz*"), ("EMPTY".into(), None));
}

#[test]
fn highlight_and_summarize_split_as_indexing_does() {
    let s = Server::start();
    let mut c = s.conn();
    assert!(!c.call(&["FT.CREATE", "i", "SCHEMA", "t", "TEXT"]).is_error());
    c.call(&["HSET", "d", "t", "hello\u{a0}world foo\nbar"]);
    let r = c.call(&["FT.SEARCH", "i", "hello\u{a0}world", "HIGHLIGHT", "RETURN", "1", "t"]);
    assert_eq!(r.items()[2].items()[1].text(), "<b>hello\u{a0}world</b> foo\nbar");
    // `foo\nbar` is the one term `foobar`; its match runs to the next separator.
    let r = c.call(&["FT.SEARCH", "i", "foobar", "HIGHLIGHT", "RETURN", "1", "t"]);
    assert_eq!(r.items()[2].items()[1].text(), "hello\u{a0}world <b>foo\nbar</b>");
    let r = c.call(&["FT.SEARCH", "i", "hello", "HIGHLIGHT", "RETURN", "1", "t"]);
    assert_eq!(r.items()[0].int(), 0);
}

#[test]
fn tags_and_stopword_lists_fold_ascii_and_list_in_trie_order() {
    let s = Server::start();
    let mut c = s.conn();
    let ok = c
        .call(&["FT.CREATE", "t", "STOPWORDS", "3", "zeta", "The", "ÉTÉ", "SCHEMA", "g", "TAG", "x", "TEXT"]);
    assert!(!ok.is_error());
    c.call(&["HSET", "d", "g", "ÉCOLE,Straße,x y"]);
    let vals: Vec<String> = c.call(&["FT.TAGVALS", "t", "g"]).items().iter().map(Resp::text).collect();
    assert_eq!(vals, ["École", "straße", "x y"]);
    assert_eq!(c.call(&["FT.SEARCH", "t", "@g:{ÉCOLE}", "NOCONTENT"]).items()[0].int(), 1);
    assert_eq!(c.call(&["FT.SEARCH", "t", "@g:{école}", "NOCONTENT"]).items()[0].int(), 0);
    assert_eq!(c.call(&["FT.SEARCH", "t", "@g:{É*}", "NOCONTENT"]).items()[0].int(), 1);
    let info = c.call(&["FT.INFO", "t"]);
    let items = info.items();
    let i = items.iter().position(|v| is(v, "stopwords_list")).expect("stopwords_list");
    let words: Vec<String> = items[i + 1].items().iter().map(Resp::text).collect();
    assert_eq!(words, ["ÉtÉ", "the", "zeta"]);
}
