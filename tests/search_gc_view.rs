//! What RediSearch shows of documents that went away: a term that lost its last document is
//! still counted until the garbage collector runs (FT.DEBUG GC_FORCEINVOKE), a cursor skips the
//! rows of documents deleted after it opened (uncounted), and a LOAD that finds its document
//! expired sends that row as nil. Every expectation was measured on RediSearch 2.10.5
//! (Redis 7.4.1); the cases follow its test_gc.py, test_issues.py, test_cursors.py and
//! test_expire.py.

mod common;

use common::*;

fn texts(r: Resp) -> Vec<String> {
    r.items().iter().map(Resp::text).collect()
}

fn num_terms(c: &mut Conn) -> i64 {
    let info = c.cmd("FT.INFO idx");
    info.items().chunks(2).find(|p| p[0].text() == "num_terms").map(|p| p[1].int()).unwrap()
}

#[test]
fn emptied_terms_count_until_the_collector_runs() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA t TEXT"), Resp::Simple("OK".into()));
    c.cmd("HSET doc1 t foo");
    c.cmd("HSET doc1 t bar");
    c.cmd("HSET doc2 t baz");
    c.cmd("DEL doc2");
    // Two documents went (an update and a delete): under FORK_GC_CLEAN_THRESHOLD (100) the
    // collector leaves everything.
    assert_eq!(c.cmd("FT.DEBUG GC_FORCEINVOKE idx"), Resp::Simple("DONE".into()));
    assert_eq!(num_terms(&mut c), 3);
    c.cmd("FLUSHALL");
    assert_eq!(c.cmd("FT.CONFIG SET FORK_GC_CLEAN_THRESHOLD 0"), Resp::Simple("OK".into()));
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA t TEXT"), Resp::Simple("OK".into()));
    c.cmd("HSET doc1 t foo");
    c.cmd("HSET doc1 t bar");
    c.cmd("HSET doc2 t baz");
    c.cmd("DEL doc2");
    assert_eq!(num_terms(&mut c), 3);
    assert_eq!(texts(c.cmd("FT.DEBUG DUMP_TERMS idx")), ["bar", "baz", "foo"]);
    assert_eq!(c.cmd("FT.DEBUG GC_FORCEINVOKE idx"), Resp::Simple("DONE".into()));
    assert_eq!(num_terms(&mut c), 1);
    assert_eq!(texts(c.cmd("FT.DEBUG DUMP_TERMS idx")), ["bar"]);
    // A collected term that comes back is counted again.
    c.cmd("HSET doc3 t foo");
    assert_eq!(num_terms(&mut c), 2);
    assert_eq!(texts(c.cmd("FT.DEBUG DUMP_TERMS idx")), ["bar", "foo"]);
}

#[test]
fn cursor_reads_skip_documents_deleted_since_it_opened() {
    let server = Server::start();
    let mut c = server.conn();
    c.cmd("FT.CREATE idx SCHEMA t TEXT");
    for i in 1..=5 {
        c.call(&["HSET", &format!("k{i}"), "t", "hello"]);
    }
    let first = c.cmd("FT.AGGREGATE idx hello LOAD 1 @t WITHCURSOR COUNT 2");
    let items = first.items();
    assert_eq!(items[0].items().len(), 3, "total and two rows");
    let cursor = items[1].int();
    assert_ne!(cursor, 0);
    c.cmd("DEL k3 k5");
    // RediSearch: [[1, [t, hello]], 0]: k4 is the only row left, counted alone.
    let next = c.call(&["FT.CURSOR", "READ", "idx", &cursor.to_string(), "COUNT", "2"]);
    let items = next.items();
    assert_eq!(items[0].items()[0].int(), 1);
    assert_eq!(texts(items[0].items()[1].clone()), ["t", "hello"]);
    assert_eq!(items[0].items().len(), 2);
    assert_eq!(items[1].int(), 0);
}

#[test]
fn cursor_over_deleted_documents_ends_empty() {
    let server = Server::start();
    let mut c = server.conn();
    c.cmd("FT.CREATE idx SCHEMA t TAG");
    c.cmd("HSET doc1 t foo");
    c.cmd("HSET doc2 t foo");
    let first = c.cmd("FT.AGGREGATE idx @t:{foo} WITHCURSOR COUNT 1");
    let cursor = first.items()[1].int();
    c.cmd("DEL doc1");
    c.cmd("DEL doc2");
    c.cmd("FT.DEBUG GC_FORCEINVOKE idx");
    let next = c.call(&["FT.CURSOR", "READ", "idx", &cursor.to_string()]);
    // RediSearch: [[0], 0].
    assert_eq!(next.items()[0].items(), [Resp::Int(0)]);
    assert_eq!(next.items()[1].int(), 0);
}

#[test]
fn a_loaded_row_whose_document_expired_is_nil() {
    let server = Server::start();
    let mut c = server.conn();
    c.cmd("DEBUG SET-ACTIVE-EXPIRE 0");
    c.cmd("FT.CREATE idx SCHEMA t TEXT");
    c.cmd("HSET doc1 t bar");
    c.cmd("HSET doc2 t arr");
    c.cmd("PEXPIRE doc1 1");
    std::thread::sleep(std::time::Duration::from_millis(20));
    // RediSearch: [1, nil, [t, arr]].
    let r = c.cmd("FT.AGGREGATE idx * LOAD 1 @t");
    let items = r.items();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0].int(), 1);
    assert_eq!(items[1], Resp::Nil);
    assert_eq!(texts(items[2].clone()), ["t", "arr"]);
    c.cmd("DEBUG SET-ACTIVE-EXPIRE 1");
}

#[test]
fn a_search_row_whose_json_document_expired_is_nil() {
    // RediSearch 2.10.5 (test_expire.py expireDocs, JSON): the expired document keeps its place
    // in the page, with no fields; the next search, after the key went, leaves it out. (The
    // rows of a page are read ahead together on Redis 7.2 and later: this holds there too.)
    let server = Server::start();
    let mut c = server.conn();
    for sortby in [false, true] {
        c.cmd("FLUSHALL");
        c.cmd("DEBUG SET-ACTIVE-EXPIRE 0");
        c.cmd("FT.CREATE idx ON JSON SCHEMA $.t AS t TEXT");
        c.call(&["JSON.SET", "doc1", "$", r#"{"t":"bar"}"#]);
        c.call(&["JSON.SET", "doc2", "$", r#"{"t":"arr"}"#]);
        c.cmd("PEXPIRE doc2 1");
        std::thread::sleep(std::time::Duration::from_millis(20));
        let query: &[&str] =
            if sortby { &["FT.SEARCH", "idx", "*", "SORTBY", "t"] } else { &["FT.SEARCH", "idx", "*"] };
        let doc1: &[&str] =
            if sortby { &["t", "bar", "$", r#"{"t":"bar"}"#] } else { &["$", r#"{"t":"bar"}"#] };
        let r = c.call(query);
        let items = r.items();
        assert_eq!(items.len(), 5, "{r:?}");
        assert_eq!(items[0].int(), 2);
        assert_eq!(items[1].text(), "doc1");
        assert_eq!(texts(items[2].clone()), doc1);
        assert_eq!(items[3].text(), "doc2");
        assert_eq!(items[4], Resp::Nil, "sortby {sortby}");
        let r = c.call(query);
        assert_eq!(r.items().len(), 3, "{r:?}");
        assert_eq!(r.items()[0].int(), 1);
    }
    c.cmd("DEBUG SET-ACTIVE-EXPIRE 1");
}

#[test]
fn every_field_type_counts_its_records_and_empties_to_nothing() {
    // RediSearch 2.10.5 (test.py testIssue1184): five documents give five records whatever the
    // field type (a TAG field counts one per document, not per value), and once they are
    // deleted and collected the index holds nothing.
    let server = Server::start();
    let mut c = server.conn();
    c.cmd("FT.CONFIG SET FORK_GC_CLEAN_THRESHOLD 0");
    let field = |info: &Resp, name: &str| {
        let v = info.items().chunks(2).find(|p| p[0].text() == name).map(|p| p[1].clone()).unwrap();
        if let Resp::Int(n) = v {
            n.to_string()
        } else {
            v.text()
        }
    };
    for (kind, value) in [("TEXT", "foo"), ("NUMERIC", "3.14"), ("TAG", "foo,bar"), ("GEO", "1.23,4.56")] {
        c.call(&["FT.CREATE", "idx", "ON", "HASH", "SCHEMA", "field", kind]);
        for i in 0..5 {
            c.call(&["HSET", &format!("doc{i}"), "field", value]);
        }
        let info = c.cmd("FT.INFO idx");
        assert_eq!(field(&info, "num_records"), "5", "{kind}");
        assert!(field(&info, "inverted_sz_mb").parse::<f64>().unwrap() > 0.0, "{kind}");
        for i in 0..5 {
            c.call(&["DEL", &format!("doc{i}")]);
        }
        c.cmd("FT.DEBUG GC_FORCEINVOKE idx");
        let info = c.cmd("FT.INFO idx");
        assert_eq!(field(&info, "num_records"), "0", "{kind}");
        assert_eq!(field(&info, "inverted_sz_mb").parse::<f64>().unwrap(), 0.0, "{kind}");
        c.cmd("FT.DROPINDEX idx");
    }
}

#[test]
fn documents_added_after_deletions_come_in_the_order_they_came() {
    // RediSearch 2.10.5 (test_tags.py testTagGCClearEmpty): ids only grow, so documents tied on
    // score come in the order they were added, whatever was deleted before.
    let server = Server::start();
    let mut c = server.conn();
    c.cmd("FT.CREATE idx SCHEMA t TAG");
    for (k, v) in [("doc1", "foo"), ("doc2", "bar"), ("doc3", "baz")] {
        c.call(&["HSET", k, "t", v]);
    }
    c.cmd("DEL doc1 doc2 doc3");
    c.cmd("HSET doc4 t foo");
    c.cmd("HSET doc5 t foo");
    c.cmd("HSET doc6 t foo");
    let r = c.cmd("FT.SEARCH idx @t:{foo} NOCONTENT");
    assert_eq!(r.items()[0], Resp::Int(3));
    assert_eq!(texts(Resp::Array(r.items()[1..].to_vec())), ["doc4", "doc5", "doc6"]);
}
