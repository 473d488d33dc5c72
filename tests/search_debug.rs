//! FT.DEBUG subcommands in RediSearch 2.10's reply shapes. Every expectation was measured on
//! RediSearch 2.10.5 (Redis 7.4.1) with the same index and documents.

mod common;

use common::*;

fn s(x: &str) -> Resp {
    Resp::Simple(x.into())
}

fn b(x: &str) -> Resp {
    Resp::bulk(x)
}

fn ints(v: &[i64]) -> Resp {
    arr(v.iter().map(|&n| Resp::Int(n)).collect())
}

fn debug(c: &mut Conn, line: &str) -> Resp {
    let mut argv = vec!["FT.DEBUG"];
    argv.extend(line.split(' '));
    c.call(&argv)
}

fn setup(c: &mut Conn) {
    let create = "FT.CREATE idx ON HASH SCHEMA t TEXT n NUMERIC tg TAG SORTABLE tw TEXT WITHSUFFIXTRIE ts TAG WITHSUFFIXTRIE";
    assert_eq!(c.cmd(create), s("OK"));
    c.call(&["HSET", "d1", "t", "hello world", "n", "5", "tg", "a,b", "tw", "foo", "ts", "abc"]);
    c.call(&["HSET", "d2", "t", "hello there running", "n", "7", "tg", "b"]);
}

#[test]
fn gc_subcommands_answer_as_redisearch() {
    let server = Server::start();
    let mut c = server.conn();
    setup(&mut c);
    assert_eq!(debug(&mut c, "GC_FORCEINVOKE idx"), s("DONE"));
    assert_eq!(debug(&mut c, "gc_forceinvoke idx 5"), s("DONE"));
    assert_eq!(debug(&mut c, "GC_FORCEBGINVOKE idx"), s("OK"));
    let running = Resp::Error("GC is already running periodically".into());
    assert_eq!(debug(&mut c, "GC_CONTINUE_SCHEDULE idx"), running);
    assert_eq!(debug(&mut c, "GC_STOP_SCHEDULE idx"), s("OK"));
    assert_eq!(debug(&mut c, "GC_STOP_SCHEDULE idx"), s("OK"));
    assert_eq!(debug(&mut c, "GC_CONTINUE_SCHEDULE idx"), s("OK"));
    assert_eq!(debug(&mut c, "GC_CONTINUE_SCHEDULE idx"), running);
    // Subcommands check RediSearch's arity first.
    for sub in ["DUMP_NUMIDXTREE", "DUMP_HNSW", "DOCINFO", "INVIDX_SUMMARY", "TTL_PAUSE", "TTL_EXPIRE"] {
        let r = c.call(&["FT.DEBUG", sub]);
        assert_eq!(r, Resp::Error(format!("ERR wrong number of arguments for 'FT.DEBUG|{sub}' command")));
    }
    assert_eq!(debug(&mut c, "GC_WAIT_FOR_JOBS"), s("DONE"));
    assert_eq!(debug(&mut c, "GC_FORCEINVOKE nosuch"), Resp::Error("Unknown index name".into()));
    assert_eq!(
        c.call(&["FT.DEBUG", "GC_FORCEINVOKE"]),
        Resp::Error("ERR wrong number of arguments for 'FT.DEBUG|GC_FORCEINVOKE' command".into())
    );
    assert_eq!(
        debug(&mut c, "NOSUCH"),
        Resp::Error("ERR unknown subcommand 'NOSUCH'. Try FT.DEBUG HELP.".into())
    );
    assert_eq!(
        c.call(&["FT.DEBUG"]),
        Resp::Error("ERR wrong number of arguments for 'FT.DEBUG' command".into())
    );
    let help = c.call(&["FT.DEBUG", "HELP"]);
    assert_eq!(help.items().len(), 28, "{help:?}");
    assert_eq!(help.items()[0], s("DUMP_INVIDX"));
}

#[test]
fn dumps_of_terms_numeric_and_tag_indexes() {
    let server = Server::start();
    let mut c = server.conn();
    setup(&mut c);
    let terms = ["+run", "foo", "hello", "running", "world"];
    assert_eq!(debug(&mut c, "DUMP_TERMS idx"), arr(terms.iter().map(|t| b(t)).collect()));
    assert_eq!(debug(&mut c, "DUMP_TERMS nosuch"), Resp::Error("Can not create a search ctx".into()));
    assert_eq!(debug(&mut c, "DUMP_INVIDX idx hello"), ints(&[1, 2]));
    assert_eq!(
        debug(&mut c, "DUMP_INVIDX idx nosuch"),
        Resp::Error("Can not find the inverted index".into())
    );
    assert_eq!(
        debug(&mut c, "NUMIDX_SUMMARY idx n"),
        arr(vec![
            b("numRanges"),
            Resp::Int(1),
            b("numEntries"),
            Resp::Int(2),
            b("lastDocId"),
            Resp::Int(2),
            b("revisionId"),
            Resp::Int(0),
            b("emptyLeaves"),
            Resp::Int(0),
            b("RootMaxDepth"),
            Resp::Int(0)
        ])
    );
    assert_eq!(debug(&mut c, "DUMP_NUMIDX idx n"), arr(vec![ints(&[1, 2])]));
    assert_eq!(debug(&mut c, "DUMP_NUMIDX idx t"), arr(vec![arr(vec![])]), "another field type: no entries");
    let with_headers = debug(&mut c, "DUMP_NUMIDX idx n WITH_HEADERS");
    let header = arr(vec![
        b("numDocs"),
        Resp::Int(2),
        b("numEntries"),
        Resp::Int(2),
        b("lastId"),
        Resp::Int(2),
        b("flags"),
        Resp::Int(32),
        b("numberOfBlocks"),
        Resp::Int(1),
        b("blocks_efficiency (numEntries/numberOfBlocks)"),
        b("2"),
    ]);
    assert_eq!(with_headers, arr(vec![arr(vec![header, ints(&[1, 2])])]));
    assert_eq!(
        debug(&mut c, "DUMP_TAGIDX idx tg"),
        arr(vec![arr(vec![b("a"), ints(&[1])]), arr(vec![b("b"), ints(&[1, 2])])])
    );
    assert_eq!(debug(&mut c, "DUMP_TAGIDX idx t"), Resp::Error("can not open tag field".into()));
    assert_eq!(
        debug(&mut c, "DUMP_TAGIDX idx nosuch"),
        Resp::Error("Could not find given field in index spec".into())
    );
    assert_eq!(debug(&mut c, "INFO_TAGIDX idx tg"), arr(vec![s("num_values"), Resp::Int(2)]));
    assert_eq!(
        debug(&mut c, "INFO_TAGIDX idx tg count_value_entries limit 1 offset 1"),
        arr(vec![
            s("num_values"),
            Resp::Int(2),
            s("values"),
            arr(vec![arr(vec![
                s("value"),
                b("b"),
                s("num_entries"),
                Resp::Int(2),
                s("num_blocks"),
                Resp::Int(1)
            ])])
        ])
    );
    assert_eq!(
        debug(&mut c, "INFO_TAGIDX idx tg DUMP_ID_ENTRIES"),
        arr(vec![s("num_values"), Resp::Int(2), s("values"), arr(vec![])]),
        "no LIMIT: no values"
    );
    assert_eq!(debug(&mut c, "DUMP_SUFFIX_TRIE idx"), arr(vec![b("foo"), b("oo")]));
    assert_eq!(debug(&mut c, "DUMP_SUFFIX_TRIE idx ts"), arr(vec![b("abc"), b("bc")]));
    assert_eq!(
        debug(&mut c, "DUMP_SUFFIX_TRIE idx tg"),
        Resp::Error("tag field does have suffix trie".into())
    );
    assert_eq!(debug(&mut c, "DOCIDTOID idx d2"), Resp::Int(2));
    assert_eq!(debug(&mut c, "IDTODOCID idx 1"), b("d1"));
    assert_eq!(debug(&mut c, "IDTODOCID idx 99"), Resp::Error("document was removed".into()));
}

#[test]
fn ttl_of_temporary_indexes() {
    let server = Server::start();
    let mut c = server.conn();
    setup(&mut c);
    assert_eq!(c.cmd("FT.CREATE tmp TEMPORARY 100 SCHEMA x TEXT"), s("OK"));
    // Whole seconds left, rounded down: 99 on the reference a few ms after creation.
    let ttl = debug(&mut c, "TTL tmp");
    assert!(matches!(ttl, Resp::Int(99) | Resp::Int(100)), "{ttl:?}");
    assert_eq!(debug(&mut c, "TTL idx"), Resp::Error("Index is not temporary".into()));
    assert_eq!(debug(&mut c, "TTL nosuch"), Resp::Error("Unknown index name".into()));
}

#[test]
fn ttl_pause_and_expire() {
    let server = Server::start();
    let mut c = server.conn();
    c.cmd("FT.CREATE idx SCHEMA t TEXT");
    assert_eq!(debug(&mut c, "TTL_PAUSE nope"), Resp::Error("Unknown index name".into()));
    assert_eq!(debug(&mut c, "TTL_PAUSE idx"), Resp::Error("Index is not temporary".into()));
    assert_eq!(debug(&mut c, "TTL_EXPIRE idx"), Resp::Error("Index is not temporary".into()));
    assert_eq!(c.cmd("FT.CREATE tmp TEMPORARY 3600 PREFIX 1 d: SCHEMA t TEXT"), s("OK"));
    assert_eq!(debug(&mut c, "TTL_PAUSE tmp"), s("OK"));
    assert_eq!(debug(&mut c, "TTL_PAUSE tmp"), Resp::Error("Index does not have a timer".into()));
    c.cmd("HSET d:1 t hello");
    // Expired now: the index is dropped with its documents (RediSearch: within 1 ms; folio's
    // check runs every second).
    assert_eq!(debug(&mut c, "TTL_EXPIRE tmp"), s("OK"));
    let start = std::time::Instant::now();
    while c.cmd("FT._LIST").items().len() > 1 && start.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(texts_of(c.cmd("FT._LIST")), ["idx"]);
    assert_eq!(c.cmd("EXISTS d:1"), Resp::Int(0));
}

fn texts_of(r: Resp) -> Vec<String> {
    r.items().iter().map(Resp::text).collect()
}

#[test]
fn dump_prefix_trie_counts_every_index_prefix() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(
        debug(&mut c, "DUMP_PREFIX_TRIE"),
        arr(vec![s("prefixes_count"), Resp::Int(0), s("prefixes_trie_nodes"), Resp::Int(0)])
    );
    c.cmd("FT.CREATE a SCHEMA t TEXT");
    c.cmd("FT.CREATE b PREFIX 1 abc SCHEMA t TEXT");
    c.cmd("FT.CREATE c PREFIX 2 abd abc SCHEMA t TEXT");
    // RediSearch 2.10.5: the empty prefix (no PREFIX), abc and abd; 4 trie nodes.
    assert_eq!(
        debug(&mut c, "DUMP_PREFIX_TRIE"),
        arr(vec![s("prefixes_count"), Resp::Int(3), s("prefixes_trie_nodes"), Resp::Int(4)])
    );
    c.cmd("FLUSHALL");
    assert_eq!(
        debug(&mut c, "DUMP_PREFIX_TRIE"),
        arr(vec![s("prefixes_count"), Resp::Int(0), s("prefixes_trie_nodes"), Resp::Int(0)])
    );
}

#[test]
fn binary_payloads_come_back_as_stored() {
    let server = Server::start();
    let mut c = server.conn();
    c.cmd("FT.CREATE things ON HASH PREFIX 1 thing: PAYLOAD_FIELD payload SCHEMA name TEXT");
    c.call(&[&b"HSET"[..], b"thing:foo", b"name", b"foo", b"payload", b"\x00\xab\x20"]);
    let r = c.cmd("FT.SEARCH things foo WITHPAYLOADS");
    assert_eq!(r.items()[2], Resp::Bulk(b"\x00\xab\x20".to_vec()));
}

#[test]
fn maxsearchresults_zero_counts_after_scoring() {
    // RediSearch 2.10.5's result processors when MAXSEARCHRESULTS / MAXAGGREGATERESULTS cap
    // the page to nothing: scored, then counted (`RPCounter`); an AGGREGATE's SORTBY is a
    // counter too.
    let server = Server::start();
    let mut c = server.conn();
    c.cmd("FT.CREATE idx SCHEMA t TEXT");
    for i in 1..=3 {
        c.call(&["HSET", &i.to_string(), "t", "hello world"]);
    }
    c.cmd("FT.CONFIG SET MAXSEARCHRESULTS 0");
    c.cmd("FT.CONFIG SET MAXAGGREGATERESULTS 0");
    let steps = |c: &mut Conn, q: &str| -> Vec<(String, i64)> {
        let r = c.cmd(&format!("FT.PROFILE idx {q}"));
        let prof = r.items()[1].items().last().unwrap().items().to_vec();
        prof[1..].iter().map(|s| (s.items()[1].text(), s.items().last().unwrap().int())).collect()
    };
    let own = |v: &[(&str, i64)]| v.iter().map(|(a, n)| (a.to_string(), *n)).collect::<Vec<_>>();
    c.cmd("FT.CONFIG SET _PRINT_PROFILE_CLOCK false");
    assert_eq!(
        steps(&mut c, "SEARCH QUERY hello"),
        own(&[("Index", 3), ("Scorer", 3), ("Counter", 0), ("Loader", 1)])
    );
    assert_eq!(
        steps(&mut c, "SEARCH QUERY hello NOCONTENT"),
        own(&[("Index", 3), ("Scorer", 3), ("Counter", 1)])
    );
    assert_eq!(
        steps(&mut c, "SEARCH QUERY hello SORTBY t"),
        own(&[("Index", 3), ("Counter", 0), ("Loader", 1)])
    );
    assert_eq!(steps(&mut c, "AGGREGATE QUERY hello SORTBY 1 @t"), own(&[("Index", 3), ("Counter", 1)]));
    assert_eq!(c.cmd("FT.AGGREGATE idx hello SORTBY 1 @t").items(), [Resp::Int(3)]);
}
