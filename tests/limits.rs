//! Limits: each one is an error reply (or a documented silent cap), never a hang or a crash.
//! Values come from the reference behaviour (RedisJSON 2.8 / RediSearch 2.10) and from the
//! crates' `limits` modules; every test also checks the server still answers afterwards.

mod common;

use std::time::{Duration, Instant};

use common::{Conn, Resp, Server};

fn ok(r: Resp) {
    assert_eq!(r, Resp::Simple("OK".into()));
}

/// `n` nested arrays around `1`.
fn nested_arrays(n: usize) -> String {
    format!("{}1{}", "[".repeat(n), "]".repeat(n))
}

/// `n` nested objects `{"a":…}` around `1`.
fn nested_objects(n: usize) -> String {
    format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n))
}

/// Runs `f` and asserts it took less than `secs` seconds (a limit must not turn into a hang).
fn quick<T>(secs: u64, what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    assert!(t.elapsed() < Duration::from_secs(secs), "{what} took {:?}", t.elapsed());
    out
}

fn alive(c: &mut Conn) {
    assert_eq!(c.cmd("PING"), Resp::Simple("PONG".into()));
}

// ---------------------------------------------------------------- JSON nesting depth

/// serde_json's (and so RedisJSON 2.x's) input limit: 127 nested containers parse, the
/// 128th fails with `recursion limit exceeded`. Checked for every command that takes JSON.
#[test]
fn json_input_nesting_is_limited_to_128() {
    let server = Server::start();
    let mut c = server.conn();
    for deep in [nested_arrays(127), nested_objects(127)] {
        ok(c.call(&["JSON.SET", "ok", "$", &deep]));
    }
    for too_deep in [nested_arrays(128), nested_objects(128), nested_arrays(100_000)] {
        let cases: Vec<Vec<&str>> = vec![
            vec!["JSON.SET", "k", "$", &too_deep],
            vec!["JSON.MSET", "k", "$", &too_deep],
            vec!["JSON.MERGE", "ok", "$", &too_deep],
        ];
        for argv in cases {
            let r = quick(5, argv[0], || c.call(&argv));
            assert!(
                matches!(&r, Resp::Error(e) if e.contains("recursion limit exceeded")),
                "{} with {} bytes: {r:?}",
                argv[0],
                too_deep.len()
            );
        }
        ok(c.call(&["JSON.SET", "arr", "$", "[]"]));
        for cmd in ["JSON.ARRAPPEND", "JSON.ARRINDEX"] {
            let r = c.call(&[cmd, "arr", "$", &too_deep]);
            assert!(matches!(&r, Resp::Error(e) if e.contains("recursion limit exceeded")), "{cmd}: {r:?}");
        }
        let r = c.call(&["JSON.ARRINSERT", "arr", "$", "0", &too_deep]);
        assert!(matches!(&r, Resp::Error(e) if e.contains("recursion limit exceeded")), "ARRINSERT: {r:?}");
    }
    assert_eq!(c.cmd("EXISTS k"), Resp::Int(0), "a rejected SET must not create the key");
    assert_eq!(c.call(&["JSON.ARRLEN", "arr", "$"]), Resp::Array(vec![Resp::Int(0)]));
    alive(&mut c);
}

/// A document may grow deeper than 128 by setting deep values at deep paths (as in
/// RedisJSON 2.x); it must then still serialize, survive DEBUG RELOAD and be deletable.
#[test]
fn documents_deeper_than_the_input_limit_survive_reload() {
    let server = Server::start();
    let mut c = server.conn();
    ok(c.call(&["JSON.SET", "d", "$", &nested_arrays(100)]));
    let mut depth = 100;
    for _ in 0..4 {
        // The innermost array is at `$` + (depth - 1) × `[0]`.
        let path = format!("${}", "[0]".repeat(depth - 1));
        ok(c.call(&["JSON.SET", "d", &path, &nested_arrays(100)]));
        depth += 99;
    }
    let expected = nested_arrays(depth);
    assert_eq!(c.call(&["JSON.GET", "d"]), Resp::Bulk(expected.clone().into_bytes()));
    ok(quick(30, "DEBUG RELOAD", || c.cmd("DEBUG RELOAD")));
    assert_eq!(c.call(&["JSON.GET", "d"]), Resp::Bulk(expected.into_bytes()));
    assert_eq!(c.cmd("DEL d"), Resp::Int(1));
    alive(&mut c);
}

// ---------------------------------------------------------------- paths

/// Filters nest at most `json::limits::MAX_PATH_NESTING` (16) levels: deeper paths are an
/// error reply; very long static paths and filter-heavy paths answer promptly.
#[test]
fn path_nesting_and_length_are_bounded() {
    let server = Server::start();
    let mut c = server.conn();
    ok(c.call(&["JSON.SET", "k", "$", r#"{"a":[{"a":1},{"a":[{"a":2}]}]}"#]));
    // The filter is one level and each parenthesised group one more.
    let nest = |n: usize| format!("$.a[?{}@.a{}]", "(".repeat(n), ")".repeat(n));
    let shallow = c.call(&["JSON.GET", "k", &nest(3)]);
    assert_eq!(shallow, Resp::Bulk(br#"[{"a":1},{"a":[{"a":2}]}]"#.to_vec()), "a shallow filter path works");
    for n in [20, 1000, 5000] {
        let r = quick(5, "deep filter path", || c.call(&["JSON.GET", "k", &nest(n)]));
        assert!(r.is_error(), "nesting {n} must be refused: {r:?}");
    }
    // 100,000 segments: parses and evaluates (to nothing) without recursion trouble.
    let long = format!("${}", ".a".repeat(100_000));
    let r = quick(10, "long path", || c.call(&["JSON.GET", "k", &long]));
    assert_eq!(r, Resp::Bulk(b"[]".to_vec()));
    let long_legacy = "a.".repeat(50_000) + "a";
    let r = quick(10, "long legacy path", || c.call(&["JSON.GET", "k", &long_legacy]));
    assert!(r.is_error() || r == Resp::Nil, "missing legacy path: {r:?}");
    alive(&mut c);
}

/// `=~` patterns compile under a size limit (`json::limits::REGEX_SIZE_LIMIT`): an
/// oversized pattern is an invalid regex, which RedisJSON treats as no match (no error).
/// Backtracking-heavy patterns run in linear time.
#[test]
fn regex_size_in_filters_is_limited() {
    let server = Server::start();
    let mut c = server.conn();
    let long = "a".repeat(50_000);
    ok(c.call(&["JSON.SET", "k", "$", &format!(r#"[{{"s":"{long}!"}},{{"s":"abc"}}]"#)]));
    let huge = r#"$[?(@.s =~ "(((a{100}){100}){100})")]"#;
    let r = quick(10, "oversized regex", || c.call(&["JSON.GET", "k", huge]));
    assert_eq!(r, Resp::Bulk(b"[]".to_vec()));
    let evil = r#"$[?(@.s =~ "^(a+)+$")]"#;
    let r = quick(10, "backtracking regex", || c.call(&["JSON.GET", "k", evil]));
    assert_eq!(r, Resp::Bulk(b"[]".to_vec()));
    let fine = r#"$[?(@.s =~ "^ab")].s"#;
    assert_eq!(c.call(&["JSON.GET", "k", fine]), Resp::Bulk(br#"["abc"]"#.to_vec()));
    alive(&mut c);
}

// ---------------------------------------------------------------- document size

/// folio has no document size limit of its own (neither has RedisJSON): a 16 MB document is
/// stored and read back; an argument over `proto-max-bulk-len` is refused by Redis itself.
#[test]
fn large_documents_are_stored_and_the_bulk_limit_is_an_error() {
    let server = Server::start();
    let mut c = server.conn();
    let big = format!("\"{}\"", "x".repeat(16 << 20));
    ok(quick(30, "16 MB SET", || c.call(&["JSON.SET", "big", "$", &big])));
    assert_eq!(c.call(&["JSON.STRLEN", "big", "$"]), Resp::Array(vec![Resp::Int(16 << 20)]));
    let many = format!("[{}0]", "0,".repeat(1 << 20));
    ok(quick(30, "1M-element array", || c.call(&["JSON.SET", "arr", "$", &many])));
    assert_eq!(c.call(&["JSON.ARRLEN", "arr", "$"]), Resp::Array(vec![Resp::Int((1 << 20) + 1)]));
    ok(c.cmd("CONFIG SET proto-max-bulk-len 1mb"));
    let over = format!("\"{}\"", "y".repeat(2 << 20));
    let mut other = server.conn();
    // Redis answers the oversized bulk with a protocol error and closes the connection, possibly
    // while we are still writing it (then the write is reset).
    let reply = other.try_call(&["JSON.SET", "over", "$", &over]);
    assert!(matches!(&reply, Ok(Resp::Error(_)) | Err(_)), "{reply:?}");
    alive(&mut c);
    assert_eq!(c.cmd("EXISTS over"), Resp::Int(0));
}

// ---------------------------------------------------------------- queries

fn search_setup(c: &mut Conn) {
    ok(c.cmd("FT.CREATE idx ON HASH PREFIX 1 d: SCHEMA t TEXT n NUMERIC SORTABLE g TAG"));
    for i in 0..300 {
        c.send(&[
            "HSET",
            &format!("d:{i}"),
            "t",
            &format!("pre{i:03} common"),
            "n",
            &i.to_string(),
            "g",
            "x",
        ]);
    }
    for _ in 0..300 {
        assert_eq!(c.read(), Resp::Int(3));
    }
}

/// Every string inside a reply, flattened.
fn texts(r: &Resp) -> Vec<String> {
    match r {
        Resp::Array(v) | Resp::Set(v) | Resp::Push(v) => v.iter().flat_map(texts).collect(),
        Resp::Map(m) => m.iter().flat_map(|(k, v)| texts(k).into_iter().chain(texts(v))).collect(),
        Resp::Bulk(_) | Resp::Simple(_) | Resp::Verbatim(_) => vec![r.text()],
        _ => Vec::new(),
    }
}

fn total(r: &Resp) -> i64 {
    r.items()[0].int()
}

/// Query nesting is bounded by `search::limits::MAX_QUERY_DEPTH` (128) levels; long queries
/// are answered, as RediSearch answers them (its test_phonetics sends an 8 MB term).
#[test]
fn query_nesting_and_length_are_limited() {
    let server = Server::start();
    let mut c = server.conn();
    search_setup(&mut c);
    let nest = |n: usize| format!("{}common{}", "(".repeat(n), ")".repeat(n));
    // The limit counts grammar levels (union, intersection, group): about three per
    // parenthesis, so 40 parentheses parse and 129 do not.
    assert_eq!(total(&c.call(&["FT.SEARCH", "idx", &nest(40), "LIMIT", "0", "0"])), 300);
    for n in [129, 100_000] {
        for cmd in ["FT.SEARCH", "FT.AGGREGATE", "FT.EXPLAIN"] {
            let r = quick(5, cmd, || c.call(&[cmd, "idx", &nest(n)]));
            assert!(r.is_error(), "{cmd} nesting {n}: {r:?}");
        }
    }
    let modifiers = "@t:(".repeat(200) + "x" + &")".repeat(200);
    assert!(c.call(&["FT.SEARCH", "idx", &modifiers]).is_error());
    let huge = "a ".repeat(600_000);
    let r = quick(10, "1.2 MB query", || c.call(&["FT.SEARCH", "idx", &huge]));
    assert_eq!(r, Resp::Array(vec![Resp::Int(0)]), "a stopword 600,000 times");
    let term = format!("@t:{}", "A".repeat(65535 * 128));
    let r = quick(10, "8 MB term", || c.call(&["FT.SEARCH", "idx", &term, "LIMIT", "0", "0"]));
    assert_eq!(r, Resp::Array(vec![Resp::Int(0)]), "an 8 MB term");
    alive(&mut c);
}

/// APPLY/FILTER expressions nest at most 256 deep (`aggregate::limits::MAX_EXPR_DEPTH`).
#[test]
fn aggregate_expression_nesting_is_limited() {
    let server = Server::start();
    let mut c = server.conn();
    search_setup(&mut c);
    let expr = |n: usize| format!("{}@n{}", "(".repeat(n), ")".repeat(n));
    let r = c.call(&[
        "FT.AGGREGATE",
        "idx",
        "*",
        "LOAD",
        "1",
        "@n",
        "APPLY",
        &expr(100),
        "AS",
        "m",
        "LIMIT",
        "0",
        "1",
    ]);
    assert!(!r.is_error(), "{r:?}");
    for n in [300, 50_000] {
        let r = quick(5, "deep APPLY", || {
            c.call(&["FT.AGGREGATE", "idx", "*", "LOAD", "1", "@n", "APPLY", &expr(n), "AS", "m"])
        });
        assert!(r.is_error(), "depth {n}: {r:?}");
    }
    let neg = format!("{}1", "-".repeat(100_000));
    let r = quick(5, "deep unary", || c.call(&["FT.AGGREGATE", "idx", "*", "APPLY", &neg, "AS", "m"]));
    assert!(r.is_error(), "{r:?}");
    alive(&mut c);
}

/// MINPREFIX: shorter prefixes match nothing. MAXEXPANSIONS: a prefix or fuzzy term
/// expands to at most that many terms, with the RESP3 warning.
#[test]
fn prefix_and_fuzzy_expansion_are_capped() {
    let server = Server::start();
    let mut c = server.conn();
    search_setup(&mut c);
    assert_eq!(
        total(&c.call(&["FT.SEARCH", "idx", "pre*", "LIMIT", "0", "0"])),
        200,
        "default MAXEXPANSIONS 200"
    );
    ok(c.cmd("FT.CONFIG SET MAXEXPANSIONS 10"));
    assert_eq!(c.cmd("FT.CONFIG GET MAXEXPANSIONS").items()[0].items()[1], Resp::bulk("10"));
    assert_eq!(total(&c.call(&["FT.SEARCH", "idx", "pre*", "LIMIT", "0", "0"])), 10);
    let fuzzy = c.call(&["FT.SEARCH", "idx", "%%pre000%%", "LIMIT", "0", "0"]);
    assert!(total(&fuzzy) <= 10, "{fuzzy:?}");
    let mut c3 = server.conn();
    c3.resp3();
    let Resp::Map(m) = c3.call(&["FT.SEARCH", "idx", "pre*", "LIMIT", "0", "0"]) else { panic!("RESP3 map") };
    let text = texts(&Resp::Map(m)).join("\n");
    assert!(text.contains("Max prefix expansions limit was reached"), "{text}");

    ok(c.cmd("FT.CONFIG SET MINPREFIX 5"));
    assert_eq!(total(&c.call(&["FT.SEARCH", "idx", "pre0*", "LIMIT", "0", "0"])), 0, "4 < MINPREFIX");
    assert_eq!(total(&c.call(&["FT.SEARCH", "idx", "pre00*", "LIMIT", "0", "0"])), 10);
    alive(&mut c);
}

/// MAXSEARCHRESULTS bounds FT.SEARCH's LIMIT (`LIMIT exceeds maximum of N`,
/// `OFFSET exceeds maximum of N`).
#[test]
fn max_search_results_bounds_limit() {
    let server = Server::start();
    let mut c = server.conn();
    search_setup(&mut c);
    let r = c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", "1000001"]);
    assert_eq!(r, Resp::Error("LIMIT exceeds maximum of 1000000".into()));
    ok(c.cmd("FT.CONFIG SET MAXSEARCHRESULTS 100"));
    let r = c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", "101"]);
    assert_eq!(r, Resp::Error("LIMIT exceeds maximum of 100".into()));
    let r = c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "101", "1"]);
    assert_eq!(r, Resp::Error("OFFSET exceeds maximum of 100".into()));
    let r = c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", "100", "NOCONTENT"]);
    assert_eq!(r.items().len(), 101);
    let r = c.call(&["FT.SEARCH", "idx", "*", "LIMIT", "18446744073709551616", "1"]);
    assert!(r.is_error(), "{r:?}");
    alive(&mut c);
}

/// FT.AGGREGATE's LIMIT is bounded by MAXAGGREGATERESULTS (default unlimited, as RediSearch
/// 2.10.5 reports and applies it: `LIMIT 0 2147483649` answers rows there).
#[test]
fn max_aggregate_results_bounds_limit() {
    let server = Server::start();
    let mut c = server.conn();
    search_setup(&mut c);
    let over = ((1u64 << 31) + 1).to_string();
    let r = c.call(&["FT.AGGREGATE", "idx", "*", "LIMIT", "0", &over]);
    assert!(!r.is_error() && r.items().len() > 1, "{r:?}");
    let r = c.call(&[
        "FT.AGGREGATE", "idx", "*", "LOAD", "1", "@n", "SORTBY", "2", "@n", "ASC", "LIMIT", "0", "1000",
    ]);
    assert_eq!(r.items().len(), 301);
    ok(c.cmd("FT.CONFIG SET MAXAGGREGATERESULTS 100"));
    let r = c.call(&["FT.AGGREGATE", "idx", "*", "LIMIT", "0", "101"]);
    assert_eq!(r, Resp::Error("LIMIT exceeds maximum of 100".into()));
    alive(&mut c);
}

/// TIMEOUT is validated (a non-negative integer) and ON_TIMEOUT accepts only RETURN/FAIL; a
/// query under a 1 ms timeout with ON_TIMEOUT FAIL either finishes or says it timed out.
#[test]
fn timeout_options_are_validated() {
    let server = Server::start();
    let mut c = server.conn();
    search_setup(&mut c);
    assert!(c.call(&["FT.SEARCH", "idx", "*", "TIMEOUT", "-1"]).is_error());
    assert!(c.call(&["FT.SEARCH", "idx", "*", "TIMEOUT", "x"]).is_error());
    assert!(c.cmd("FT.CONFIG SET ON_TIMEOUT maybe").is_error());
    ok(c.cmd("FT.CONFIG SET ON_TIMEOUT FAIL"));
    ok(c.cmd("FT.CONFIG SET TIMEOUT 1"));
    // Completes (within its time or with the timeout error), never hangs.
    let r = quick(10, "query with 1 ms timeout", || {
        c.call(&["FT.SEARCH", "idx", "%%pre%% | *e* | common", "LIMIT", "0", "0"])
    });
    assert!(matches!(&r, Resp::Array(_)) || r == Resp::Error("Timeout limit was reached".into()), "{r:?}");
    alive(&mut c);
}

/// MINPREFIX bounds suffix and infix terms and tag prefix/suffix/infix values too (replies of
/// RediSearch 2.10.5 with the default MINPREFIX 2: `@tg:{a*}`, `@tg:{*c}`, `@tg:{*b*}` and
/// `*x*` match nothing, their two-character forms match).
#[test]
fn min_prefix_bounds_tags_suffixes_and_infixes() {
    let server = Server::start();
    let mut c = server.conn();
    ok(c.cmd("FT.CREATE m PREFIX 1 m: SCHEMA t TEXT tg TAG"));
    assert_eq!(c.cmd("HSET m:1 t xyz tg abc"), Resp::Int(2));
    for (q, want) in [
        ("@tg:{a*}", 0),
        ("@tg:{ab*}", 1),
        ("@tg:{*c}", 0),
        ("@tg:{*bc}", 1),
        ("@tg:{*b*}", 0),
        ("@tg:{*bc*}", 1),
        ("*y*", 0),
        ("*yz*", 1),
        ("*z", 0),
        ("*yz", 1),
    ] {
        assert_eq!(total(&c.call(&["FT.SEARCH", "m", q, "NOCONTENT"])), want, "{q}");
    }
}
