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
