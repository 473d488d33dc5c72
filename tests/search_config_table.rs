//! FT.CONFIG's full RediSearch 2.10 option table: every name and default, SET's accepted values
//! and errors, immutable options, flags that read no value, HELP's descriptions, module
//! arguments. Every expectation was measured on RediSearch 2.10.5 (Redis 7.4.1).

mod common;

use common::*;

fn s(x: &str) -> Resp {
    Resp::Simple(x.into())
}

fn b(x: &str) -> Resp {
    Resp::bulk(x)
}

/// RediSearch 2.10.5's `FT.CONFIG GET *` on a fresh server, in order.
const DEFAULTS: &[(&str, Option<&str>)] = &[
    ("EXTLOAD", None),
    ("NOGC", Some("false")),
    ("MINPREFIX", Some("2")),
    ("MINSTEMLEN", Some("4")),
    ("FORKGC_SLEEP_BEFORE_EXIT", Some("0")),
    ("MAXDOCTABLESIZE", Some("1000000")),
    ("MAXSEARCHRESULTS", Some("1000000")),
    ("MAXAGGREGATERESULTS", Some("unlimited")),
    ("MAXEXPANSIONS", Some("200")),
    ("MAXPREFIXEXPANSIONS", Some("200")),
    ("TIMEOUT", Some("500")),
    ("FRISOINI", None),
    ("ON_TIMEOUT", Some("return")),
    ("GCSCANSIZE", Some("100")),
    ("MIN_PHONETIC_TERM_LEN", Some("3")),
    ("GC_POLICY", Some("fork")),
    ("FORK_GC_RUN_INTERVAL", Some("30")),
    ("FORK_GC_CLEAN_THRESHOLD", Some("100")),
    ("FORK_GC_RETRY_INTERVAL", Some("5")),
    ("FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", Some("true")),
    ("_FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", Some("true")),
    ("UNION_ITERATOR_HEAP", Some("20")),
    ("CURSOR_MAX_IDLE", Some("300000")),
    ("NO_MEM_POOLS", Some("false")),
    ("PARTIAL_INDEXED_DOCS", Some("false")),
    ("UPGRADE_INDEX", Some("Upgrade config for upgrading")),
    ("_NUMERIC_COMPRESS", Some("false")),
    ("_FREE_RESOURCE_ON_THREAD", Some("true")),
    ("_PRINT_PROFILE_CLOCK", Some("true")),
    ("RAW_DOCID_ENCODING", Some("false")),
    ("_NUMERIC_RANGES_PARENTS", Some("0")),
    ("DEFAULT_DIALECT", Some("1")),
    ("VSS_MAX_RESIZE", Some("0")),
    ("MULTI_TEXT_SLOP", Some("100")),
    ("BG_INDEX_SLEEP_GAP", Some("100")),
    ("_PRIORITIZE_INTERSECT_UNION_CHILDREN", Some("false")),
];

fn get(c: &mut Conn, name: &str) -> Resp {
    c.call(&["FT.CONFIG", "GET", name])
}

fn one(name: &str, v: &str) -> Resp {
    arr(vec![arr(vec![s(name), b(v)])])
}

#[test]
fn get_star_lists_redisearch_options_then_folio_own() {
    let server = Server::start();
    let mut c = server.conn();
    let all = c.call(&["FT.CONFIG", "GET", "*"]);
    let mut want: Vec<Resp> = DEFAULTS.iter().map(|(n, v)| arr(vec![s(n), v.map_or(Resp::Nil, b)])).collect();
    want.push(arr(vec![s("ACL_ALL_OR_NOTHING"), b("false")]));
    want.push(arr(vec![s("ITERATOR_SCORES"), b("true")]));
    want.push(arr(vec![s("WORKERS"), b(&common::expected_workers().to_string())]));
    let deprecated = "Deprecated, see WORKERS and MIN_OPERATION_WORKERS";
    for (n, v) in [
        ("MIN_OPERATION_WORKERS", "4"),
        ("WORKER_THREADS", deprecated),
        ("MT_MODE", deprecated),
        ("TIERED_HNSW_BUFFER_LIMIT", "1024"),
        ("PRIVILEGED_THREADS_NUM", "1"),
        ("WORKERS_PRIORITY_BIAS_THRESHOLD", "1"),
    ] {
        want.push(arr(vec![s(n), b(v)]));
    }
    want.push(arr(vec![s("BM25STD_TANH_FACTOR"), b("4")]));
    assert_eq!(all, arr(want));
    // Case-insensitive lookup, canonical name in the reply.
    assert_eq!(get(&mut c, "gc_policy"), one("GC_POLICY", "fork"));
    // HELP: name, Description, text, Value, value.
    assert_eq!(
        c.call(&["FT.CONFIG", "HELP", "TIMEOUT"]),
        arr(vec![arr(vec![
            s("TIMEOUT"),
            s("Description"),
            s("Query (search) timeout"),
            s("Value"),
            b("500")
        ])])
    );
    assert_eq!(
        c.call(&["FT.CONFIG", "HELP", "EXTLOAD"]),
        arr(vec![arr(vec![
            s("EXTLOAD"),
            s("Description"),
            s("Load extension scoring/expansion module"),
            s("Value"),
            Resp::Nil
        ])])
    );
    c.resp3();
    assert_eq!(
        c.call(&["FT.CONFIG", "HELP", "MINPREFIX"]),
        Resp::Map(vec![(
            s("MINPREFIX"),
            Resp::Map(vec![
                (s("Description"), s("Set the minimum prefix for expansions (`*`)")),
                (s("Value"), b("2"))
            ])
        )])
    );
    assert_eq!(get(&mut c, "FRISOINI"), Resp::Map(vec![(s("FRISOINI"), Resp::Nil)]));
}

#[test]
fn set_accepts_and_rejects_as_redisearch() {
    let server = Server::start();
    let mut c = server.conn();
    let cases: &[(&[&str], Result<&str, &str>)] = &[
        (&["MINPREFIX", "str"], Err("Could not convert argument to expected type")),
        (&["MINPREFIX", "0"], Err("Value is outside acceptable bounds")),
        (&["MINPREFIX", "1.5"], Err("Could not convert argument to expected type")),
        (&["MINPREFIX", "1e1"], Ok("OK")),
        (&["MINSTEMLEN", "1"], Err("Minimum stem length cannot be lower than 2")),
        (&["MINSTEMLEN", "0"], Err("Value is outside acceptable bounds")),
        (&["FORKGC_SLEEP_BEFORE_EXIT", "-1"], Err("Value is outside acceptable bounds")),
        (&["MAXSEARCHRESULTS", "-1"], Ok("OK")),
        (&["MAXAGGREGATERESULTS", "100"], Ok("OK")),
        (&["TIMEOUT", "-1"], Err("Value is outside acceptable bounds")),
        (&["ON_TIMEOUT", "1"], Err("Invalid ON_TIMEOUT value")),
        (&["GCSCANSIZE", "0"], Err("Value is outside acceptable bounds")),
        (&["FORK_GC_CLEAN_THRESHOLD", "0"], Ok("OK")),
        (&["_FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", "FALSE"], Ok("OK")),
        (&["_FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", "x"], Err("Could not convert argument to expected type")),
        (&["_FORK_GC_CLEAN_NUMERIC_EMPTY_NODES"], Err("Expected an argument, but none provided")),
        (
            &["_NUMERIC_RANGES_PARENTS", "3"],
            Err("Max depth for range cannot be higher than max depth for balance"),
        ),
        (
            &["_NUMERIC_RANGES_PARENTS", "str"],
            Err("Max depth for range cannot be higher than max depth for balance"),
        ),
        (&["DEFAULT_DIALECT", "0"], Err("Default dialect version cannot be higher than 4")),
        (&["DEFAULT_DIALECT", "5"], Err("Default dialect version cannot be higher than 4")),
        (&["_FREE_RESOURCE_ON_THREAD", "1"], Err("Could not convert argument to expected type")),
        (&["_PRIORITIZE_INTERSECT_UNION_CHILDREN", "TRUE"], Ok("OK")),
        (&["MAXEXPANSIONS", "99999999999999999999"], Err("Could not convert argument to expected type")),
        (&["TIMEOUT"], Err("Expected an argument, but none provided")),
        (&["NOSUCH"], Err("Invalid option")),
        (&["DEFAULT_SCORER", "BM25"], Err("Invalid option")),
        (&["MULTI_TEXT_SLOP", "5"], Err("Not modifiable at runtime")),
        (&["NO_MEM_POOLS"], Err("Not modifiable at runtime")),
        (&["UPGRADE_INDEX"], Err("Not modifiable at runtime")),
        (&["EXTLOAD", "x"], Err("Not modifiable at runtime")),
        // A flag reads no value: the one given is excess, the flag is set all the same.
        (&["FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", "x"], Ok("EXCESSARGS")),
        (&["MINPREFIX", "1", "2"], Ok("EXCESSARGS")),
    ];
    for (args, want) in cases {
        let mut argv = vec!["FT.CONFIG", "SET"];
        argv.extend_from_slice(args);
        let got = c.call(&argv);
        match want {
            Ok(reply) => assert_eq!(got, s(reply), "{args:?}"),
            Err(e) => assert_eq!(got, Resp::Error(e.to_string()), "{args:?}"),
        }
    }
    assert_eq!(get(&mut c, "MINPREFIX"), one("MINPREFIX", "1"));
    assert_eq!(get(&mut c, "MINSTEMLEN"), one("MINSTEMLEN", "4"), "a rejected value changes nothing");
    assert_eq!(get(&mut c, "MAXSEARCHRESULTS"), one("MAXSEARCHRESULTS", "unlimited"));
    assert_eq!(get(&mut c, "MAXAGGREGATERESULTS"), one("MAXAGGREGATERESULTS", "100"));
    assert_eq!(
        get(&mut c, "FORK_GC_CLEAN_NUMERIC_EMPTY_NODES"),
        one("FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", "true")
    );
    assert_eq!(
        get(&mut c, "_PRIORITIZE_INTERSECT_UNION_CHILDREN"),
        one("_PRIORITIZE_INTERSECT_UNION_CHILDREN", "true")
    );
    // MAXSEARCHRESULTS unlimited: no LIMIT is too large.
    assert_eq!(c.call(&["FT.CREATE", "i", "SCHEMA", "t", "TEXT"]), s("OK"));
    assert_eq!(c.call(&["FT.SEARCH", "i", "*", "LIMIT", "0", "5000000"]), arr(vec![Resp::Int(0)]));
}

#[test]
fn module_arguments_set_options_immutable_ones_included() {
    let server = Server::with(ServerOptions {
        module_args: ["MAXDOCTABLESIZE", "123456", "NOGC", "TIMEOUT", "0", "GC_POLICY", "default"]
            .into_iter()
            .chain(["PARTIAL_INDEXED_DOCS", "1", "MAXAGGREGATERESULTS", "-1", "RAW_DOCID_ENCODING", "true"])
            .map(String::from)
            .collect(),
        ..Default::default()
    });
    let mut c = server.conn();
    assert_eq!(get(&mut c, "MAXDOCTABLESIZE"), one("MAXDOCTABLESIZE", "123456"));
    assert_eq!(get(&mut c, "NOGC"), one("NOGC", "true"));
    assert_eq!(get(&mut c, "TIMEOUT"), one("TIMEOUT", "0"));
    assert_eq!(get(&mut c, "GC_POLICY"), one("GC_POLICY", "fork"));
    assert_eq!(get(&mut c, "PARTIAL_INDEXED_DOCS"), one("PARTIAL_INDEXED_DOCS", "true"));
    assert_eq!(get(&mut c, "MAXAGGREGATERESULTS"), one("MAXAGGREGATERESULTS", "unlimited"));
    assert_eq!(get(&mut c, "RAW_DOCID_ENCODING"), one("RAW_DOCID_ENCODING", "true"));
}

/// No result past the MAXSEARCHRESULTS-th comes back; only an explicit LIMIT is checked against
/// it (replies measured on RediSearch 2.10.5 with the same 30 documents).
#[test]
fn max_search_results_clips_the_result_window() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.call(&["FT.CONFIG", "SET", "MAXSEARCHRESULTS", "20"]), s("OK"));
    assert_eq!(c.call(&["FT.CREATE", "idx", "SCHEMA", "t", "TEXT"]), s("OK"));
    for i in 1..=30 {
        c.call(&["HSET", &i.to_string(), "t", &i.to_string()]);
    }
    let page =
        |c: &mut Conn, off: &str, n: &str| c.call(&["FT.SEARCH", "idx", "*", "NOCONTENT", "LIMIT", off, n]);
    let ids = |r: std::ops::RangeInclusive<i32>| {
        let mut v = vec![Resp::Int(30)];
        v.extend(r.map(|i| b(&i.to_string())));
        arr(v)
    };
    assert_eq!(page(&mut c, "1", "20"), ids(2..=20));
    assert_eq!(page(&mut c, "15", "10"), ids(16..=20));
    assert_eq!(page(&mut c, "20", "10"), arr(vec![Resp::Int(30)]));
    assert_eq!(page(&mut c, "25", "10"), Resp::Error("OFFSET exceeds maximum of 20".into()));
    assert_eq!(page(&mut c, "0", "21"), Resp::Error("LIMIT exceeds maximum of 20".into()));
    assert_eq!(c.call(&["FT.CONFIG", "SET", "MAXSEARCHRESULTS", "0"]), s("OK"));
    assert_eq!(
        c.call(&["FT.SEARCH", "idx", "*", "NOCONTENT"]),
        arr(vec![Resp::Int(30)]),
        "default LIMIT: count only"
    );
    assert_eq!(page(&mut c, "0", "10"), Resp::Error("LIMIT exceeds maximum of 0".into()));
}

/// The options of RediSearch's builds with worker threads load as module arguments (a server
/// given `MIN_OPERATION_WORKERS 0`, as RediSearch's own tests give it, refused to start) and
/// answer as there.
#[test]
fn worker_build_options_load_and_answer() {
    let server = Server::with(ServerOptions {
        module_args: vec![
            "MIN_OPERATION_WORKERS".into(),
            "0".into(),
            "MT_MODE".into(),
            "MT_MODE_FULL".into(),
        ],
        ..Default::default()
    });
    let mut c = server.conn();
    assert_eq!(get(&mut c, "MIN_OPERATION_WORKERS"), one("MIN_OPERATION_WORKERS", "0"));
    assert_eq!(c.call(&["FT.CONFIG", "SET", "MIN_OPERATION_WORKERS", "3"]), Resp::Simple("OK".into()));
    assert_eq!(get(&mut c, "MIN_OPERATION_WORKERS"), one("MIN_OPERATION_WORKERS", "3"));
    let e = c.call(&["FT.CONFIG", "SET", "MIN_OPERATION_WORKERS", "9000"]);
    assert_eq!(e.err(), "Number of worker threads cannot exceed 8192");
    let deprecated = "Deprecated, see WORKERS and MIN_OPERATION_WORKERS";
    assert_eq!(c.call(&["FT.CONFIG", "SET", "WORKER_THREADS", "4"]), Resp::Simple("OK".into()));
    assert_eq!(get(&mut c, "WORKER_THREADS"), one("WORKER_THREADS", deprecated));
    assert_eq!(get(&mut c, "MT_MODE"), one("MT_MODE", deprecated));
    let e = c.call(&["FT.CONFIG", "SET", "TIERED_HNSW_BUFFER_LIMIT", "10"]);
    assert_eq!(e.err(), "Not modifiable at runtime");
}
