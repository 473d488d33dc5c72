//! The model of RediSearch's numeric range trees seen from a client: FT.DEBUG's tree
//! summaries and dumps, FT.PROFILE's numeric unions, GC_FORCEINVOKE's effects and the
//! RediSearch document ids they show. Every expected reply was taken from RediSearch 2.10.5
//! (Redis 7.4.1) with the same commands on a fresh server, and is compared flattened:
//! arrays in brackets, strings and numbers as their text, errors after a `!`.

mod common;

use common::*;

fn flat(r: &Resp) -> String {
    match r {
        Resp::Array(items) => format!("[{}]", items.iter().map(flat).collect::<Vec<_>>().join(",")),
        Resp::Error(e) => format!("!{e}"),
        Resp::Int(n) => n.to_string(),
        Resp::Nil => "None".into(),
        other => other.text(),
    }
}

fn run(c: &mut Conn, line: &str) -> String {
    flat(&c.call(&line.split(' ').collect::<Vec<_>>()))
}

/// Sends every command, then reads every reply.
fn pipeline(c: &mut Conn, cmds: &[Vec<String>]) {
    for cmd in cmds {
        c.send(cmd);
    }
    for _ in cmds {
        let r = c.read();
        assert!(!r.is_error(), "{r:?}");
    }
}

fn hsets(from: impl Iterator<Item = (String, String, String)>) -> Vec<Vec<String>> {
    from.map(|(k, f, v)| vec!["HSET".into(), k, f, v]).collect()
}

fn num_records(c: &mut Conn) -> i64 {
    let info = c.call(&["FT.INFO", "idx"]);
    let items = info.items();
    let at = items.iter().position(|x| *x == Resp::Simple("num_records".into())).expect("num_records");
    items[at + 1].int()
}

#[test]
fn multi_values_share_a_range_under_their_document_ids() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(run(&mut c, "FT.CREATE idx ON JSON SCHEMA $.val AS val NUMERIC"), "OK");
    for (k, v) in [("doc:1", "[1,2,3]"), ("doc:2", "[1,2,3]"), ("doc:3", "[3,4,5]")] {
        c.call(&["JSON.SET", k, "$", &format!("{{\"val\":{v}}}")]);
    }
    assert_eq!(
        run(&mut c, "FT.DEBUG DUMP_NUMIDXTREE idx val"),
        "[numRanges,1,numEntries,9,lastDocId,3,revisionId,0,uniqueId,0,emptyLeaves,0,root,[range,[minVal,1,maxVal,5,unique_sum,0,invertedIndexSize [bytes],109,card,0,cardCheck,1,splitCard,16,entries,[numDocs,3,numEntries,9,lastId,3,size,1,blocks_efficiency (numEntries/size),9,values,[value,1,docId,1,value,2,docId,1,value,3,docId,1,value,1,docId,2,value,2,docId,2,value,3,docId,2,value,3,docId,3,value,4,docId,3,value,5,docId,3]]]],Tree stats:,[Average memory efficiency (numEntries/size)/numRanges,9]]"
    );
    // An update is a new document id; the old one's entries stay until a GC run.
    c.call(&["JSON.SET", "doc:1", "$", "{\"val\":[1,2]}"]);
    assert_eq!(
        run(&mut c, "FT.DEBUG DUMP_NUMIDX idx val WITH_HEADERS"),
        "[[[numDocs,4,numEntries,11,lastId,4,flags,32,numberOfBlocks,1,blocks_efficiency (numEntries/numberOfBlocks),11],[1,2,3,4]]]"
    );
    assert_eq!(num_records(&mut c), 11);
    assert_eq!(run(&mut c, "FT.DEBUG DOCIDTOID idx doc:1"), "4");
    assert_eq!(run(&mut c, "FT.DEBUG IDTODOCID idx 4"), "doc:1");
    assert_eq!(run(&mut c, "FT.DEBUG IDTODOCID idx 1"), "!document was removed");
}

#[test]
fn the_gc_recounts_a_range_before_it_splits() {
    // RediSearch's test_numbers.py testSplit.
    let server = Server::start();
    let mut c = server.conn();
    run(&mut c, "FT.CONFIG SET FORK_GC_CLEAN_THRESHOLD 0");
    run(&mut c, "FT.CREATE idx SCHEMA num NUMERIC");
    pipeline(&mut c, &hsets((1..20).map(|i| (format!("doc:{i}"), "num".into(), "100".into()))));
    run(&mut c, "HDEL doc:1 num");
    assert_eq!(
        run(&mut c, "FT.DEBUG NUMIDX_SUMMARY idx num"),
        "[numRanges,1,numEntries,19,lastDocId,19,revisionId,0,emptyLeaves,0,RootMaxDepth,0]"
    );
    assert_eq!(run(&mut c, "FT.DEBUG GC_FORCEINVOKE idx"), "DONE");
    pipeline(&mut c, &hsets((20..30).map(|i| (format!("doc:{i}"), "num".into(), "10".into()))));
    assert_eq!(
        run(&mut c, "FT.DEBUG DUMP_NUMIDXTREE idx num"),
        "[numRanges,2,numEntries,28,lastDocId,29,revisionId,1,uniqueId,0,emptyLeaves,0,root,[value,55,maxDepth,1,left,[range,[minVal,10,maxVal,10,unique_sum,10,invertedIndexSize [bytes],127,card,1,cardCheck,10,splitCard,65,entries,[numDocs,10,numEntries,10,lastId,29,size,1,blocks_efficiency (numEntries/size),10,values,[value,10,docId,20,value,10,docId,21,value,10,docId,22,value,10,docId,23,value,10,docId,24,value,10,docId,25,value,10,docId,26,value,10,docId,27,value,10,docId,28,value,10,docId,29]]]],right,[range,[minVal,100,maxVal,100,unique_sum,100,invertedIndexSize [bytes],152,card,1,cardCheck,2,splitCard,65,entries,[numDocs,18,numEntries,18,lastId,19,size,1,blocks_efficiency (numEntries/size),18,values,[value,100,docId,2,value,100,docId,3,value,100,docId,4,value,100,docId,5,value,100,docId,6,value,100,docId,7,value,100,docId,8,value,100,docId,9,value,100,docId,10,value,100,docId,11,value,100,docId,12,value,100,docId,13,value,100,docId,14,value,100,docId,15,value,100,docId,16,value,100,docId,17,value,100,docId,18,value,100,docId,19]]]]],Tree stats:,[Average memory efficiency (numEntries/size)/numRanges,14]]"
    );
    assert_eq!(
        run(&mut c, "FT.DEBUG NUMIDX_SUMMARY idx num"),
        "[numRanges,2,numEntries,28,lastDocId,29,revisionId,1,emptyLeaves,0,RootMaxDepth,1]"
    );
}

#[test]
fn a_numeric_filter_profiles_as_the_ranges_it_reads() {
    let server = Server::start();
    let mut c = server.conn();
    run(&mut c, "FT.CONFIG SET _PRINT_PROFILE_CLOCK false");
    run(&mut c, "FT.CREATE idx SCHEMA n NUMERIC t TEXT");
    let docs = (0..1500).map(|i| {
        let t = if i % 7 == 0 { "world" } else { "hello" };
        vec!["HSET".into(), i.to_string(), "n".into(), (i % 300).to_string(), "t".into(), t.into()]
    });
    pipeline(&mut c, &docs.collect::<Vec<_>>());
    let profile = |c: &mut Conn, q: &str, limited: bool| {
        let mut argv = vec!["FT.PROFILE", "idx", "SEARCH"];
        if limited {
            argv.push("LIMITED");
        }
        argv.extend(["QUERY", q, "NOCONTENT"]);
        flat(&c.call(&argv))
    };
    assert_eq!(
        profile(&mut c, "@n:[100 250]", false),
        "[[755,100,101,102,103,104,105,106,107,108,109],[[Total profile time],[Parsing time],[Pipeline creation time],[Warning],[Iterators profile,[Type,UNION,Query type,NUMERIC,Counter,755,Child iterators,[Type,NUMERIC,Term,53 - 164,Counter,325,Size,560],[Type,NUMERIC,Term,165 - 299,Counter,430,Size,675]]],[Result processors profile,[Type,Index,Counter,755],[Type,Scorer,Counter,755],[Type,Sorter,Counter,10]]]]"
    );
    assert_eq!(
        profile(&mut c, "@n:[(10 20]", false),
        "[[50,11,12,13,14,15,16,17,18,19,20],[[Total profile time],[Parsing time],[Pipeline creation time],[Warning],[Iterators profile,[Type,UNION,Query type,NUMERIC,Counter,50,Child iterators,[Type,NUMERIC,Term,7 - 13,Counter,15,Size,35],[Type,NUMERIC,Term,14 - 52,Counter,35,Size,195]]],[Result processors profile,[Type,Index,Counter,50],[Type,Scorer,Counter,50],[Type,Sorter,Counter,10]]]]"
    );
    assert_eq!(
        profile(&mut c, "@n:[-inf +inf]", true),
        "[[1500,0,1,2,3,4,5,6,7,8,9],[[Total profile time],[Parsing time],[Pipeline creation time],[Warning],[Iterators profile,[Type,UNION,Query type,NUMERIC,Counter,1500,Child iterators,The number of iterators in the union is 5]],[Result processors profile,[Type,Index,Counter,1500],[Type,Scorer,Counter,1500],[Type,Sorter,Counter,10]]]]"
    );
    assert_eq!(
        profile(&mut c, "@n:[1000 2000]", false),
        "[[0],[[Total profile time],[Parsing time],[Pipeline creation time],[Warning],[Iterators profile,[Type,EMPTY,Counter,0]],[Result processors profile,[Type,Index,Counter,0],[Type,Scorer,Counter,0],[Type,Sorter,Counter,0]]]]"
    );
}

#[test]
fn the_gc_trims_the_leaves_it_empties() {
    // RediSearch's test_numbers.py testEmptyNumericLeakIncrease, smaller: three passes of
    // increasing values over the same 1000 documents.
    let server = Server::start();
    let mut c = server.conn();
    run(&mut c, "FT.CONFIG SET FORK_GC_CLEAN_THRESHOLD 0");
    run(&mut c, "FT.CREATE idx SCHEMA n NUMERIC");
    let writes = (0..3)
        .flat_map(|i| (0..1000).map(move |j| (format!("doc{j}"), "n".into(), (j + i * 1000).to_string())));
    pipeline(&mut c, &hsets(writes));
    assert_eq!(
        run(&mut c, "FT.DEBUG NUMIDX_SUMMARY idx n"),
        "[numRanges,5,numEntries,3000,lastDocId,3000,revisionId,4,emptyLeaves,0,RootMaxDepth,4]"
    );
    assert_eq!(num_records(&mut c), 3000, "replaced entries count until collected");
    assert_eq!(run(&mut c, "FT.DEBUG GC_FORCEINVOKE idx"), "DONE");
    assert_eq!(
        run(&mut c, "FT.DEBUG NUMIDX_SUMMARY idx n"),
        "[numRanges,1,numEntries,1000,lastDocId,3000,revisionId,5,emptyLeaves,0,RootMaxDepth,0]"
    );
    assert_eq!(num_records(&mut c), 1000);
    let found = c.call(&["FT.SEARCH", "idx", "@n:[-inf +inf]", "LIMIT", "0", "0"]);
    assert_eq!(found, arr(vec![Resp::Int(1000)]), "queries never read the model");
}

#[test]
fn a_gc_run_waits_for_its_threshold_of_deletions() {
    let server = Server::start();
    let mut c = server.conn();
    run(&mut c, "FT.CREATE idx SCHEMA n NUMERIC");
    pipeline(&mut c, &hsets((0..50).map(|j| (format!("doc{j}"), "n".into(), j.to_string()))));
    for j in 0..10 {
        c.call(&["DEL", &format!("doc{j}")]);
    }
    // 10 deletions, below the default FORK_GC_CLEAN_THRESHOLD of 100: nothing collected.
    assert_eq!(run(&mut c, "FT.DEBUG GC_FORCEINVOKE idx"), "DONE");
    assert_eq!(
        run(&mut c, "FT.DEBUG NUMIDX_SUMMARY idx n"),
        "[numRanges,2,numEntries,50,lastDocId,50,revisionId,1,emptyLeaves,0,RootMaxDepth,1]"
    );
    assert_eq!(num_records(&mut c), 50);
    run(&mut c, "FT.CONFIG SET FORK_GC_CLEAN_THRESHOLD 10");
    run(&mut c, "FT.DEBUG GC_FORCEINVOKE idx");
    assert_eq!(
        run(&mut c, "FT.DEBUG NUMIDX_SUMMARY idx n"),
        "[numRanges,2,numEntries,40,lastDocId,50,revisionId,1,emptyLeaves,0,RootMaxDepth,1]"
    );
    assert_eq!(num_records(&mut c), 40);
}

#[test]
fn geo_points_live_in_a_numeric_tree_too() {
    // RediSearch's test_json_multi_geo.py testDebugDump, and FT.INFO counting a record a point.
    let server = Server::start();
    let mut c = server.conn();
    run(&mut c, "FT.CREATE idx ON JSON SCHEMA $[*] AS val GEO");
    c.call(&["JSON.SET", "doc:1", "$", r#"["21.2,21.3", "21.4,21.5", "22,22"]"#]);
    c.call(&["JSON.SET", "doc:2", "$", r#"["1.2,1.3", "1.4,1.5", "2,2"]"#]);
    assert_eq!(run(&mut c, "FT.DEBUG DUMP_NUMIDX idx val"), "[[1,2]]");
    assert_eq!(
        run(&mut c, "FT.DEBUG NUMIDX_SUMMARY idx val"),
        "[numRanges,1,numEntries,6,lastDocId,2,revisionId,0,emptyLeaves,0,RootMaxDepth,0]"
    );
    assert_eq!(num_records(&mut c), 6);
}
