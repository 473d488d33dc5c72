//! WITHCURSOR / FT.CURSOR READ, DEL, GC: paging, expiry, limits, errors.

mod aggregate_support;

use aggregate_support::{n, MemSource};
use search::aggregate::limits::MAX_CURSORS_PER_INDEX;
use search::aggregate::request::CursorOptions;
use search::aggregate::{AggOutput, AggReply, CursorTable, Protocol};

/// Splits a cursor reply `[[total, rows…], id]` (RESP2).
fn page(reply: AggReply) -> (i64, Vec<AggReply>, u64) {
    let AggReply::Array(mut parts) = reply else { panic!("not an array") };
    let AggReply::Int(id) = parts.pop().unwrap() else { panic!("no id") };
    let AggReply::Array(mut rows) = parts.pop().unwrap() else { panic!("no page") };
    let AggReply::Int(total) = rows.remove(0) else { panic!("no total") };
    (total, rows, id as u64)
}

fn numbered(count: usize) -> AggOutput {
    let mut src = MemSource::new(&[("i", true)]);
    for i in 0..count {
        src.add(&format!("d{i}"), &[("i", n(i as f64))]);
    }
    src.run(&["LOAD", "1", "@i"]).unwrap()
}

/// Every document is still indexed.
const ALL: &dyn Fn(&[u8]) -> bool = &|_| true;

fn opts(count: u64, idle: u64) -> CursorOptions {
    CursorOptions { count: Some(count), max_idle_ms: Some(idle) }
}

#[test]
fn paging_100k_rows_returns_each_row_once() {
    let out = numbered(100_000);
    let mut table = CursorTable::new(1);
    let (_, mut rows, mut id) =
        page(table.start("idx", out, opts(997, 1000), false, Protocol::Resp2, 0).unwrap());
    let mut seen = vec![false; 100_000];
    let mut now = 0;
    loop {
        for r in &rows {
            let AggReply::Array(kv) = r else { panic!() };
            let AggReply::Bulk(v) = &kv[1] else { panic!() };
            let i: usize = std::str::from_utf8(v).unwrap().parse().unwrap();
            assert!(!seen[i], "row {i} twice");
            seen[i] = true;
        }
        if id == 0 {
            break;
        }
        now += 10;
        let (_, r, next) = page(table.read(id, None, Protocol::Resp2, now, ALL).unwrap());
        assert!(next == 0 || next == id);
        rows = r;
        id = next;
    }
    assert!(seen.iter().all(|&s| s));
    assert_eq!(table.count("idx"), 0);
}

#[test]
fn read_count_overrides_and_exhaustion_ends_with_zero() {
    let out = numbered(10);
    let mut table = CursorTable::new(2);
    let (total, rows, id) = page(table.start("idx", out, opts(4, 1000), false, Protocol::Resp2, 0).unwrap());
    // The total is the documents read until the page's first row (RediSearch 2.10.5:
    // `FT.AGGREGATE idx * LOAD 1 @i WITHCURSOR COUNT 4` reports 1).
    assert_eq!((total, rows.len()), (1, 4));
    assert_ne!(id, 0);
    let (_, rows, id2) = page(table.read(id, Some(6), Protocol::Resp2, 1, ALL).unwrap());
    // Exactly the remaining 6 rows: RediSearch only notices the end on the next read.
    assert_eq!((rows.len(), id2), (6, id));
    let (_, rows, id3) = page(table.read(id, None, Protocol::Resp2, 2, ALL).unwrap());
    assert_eq!((rows.len(), id3), (0, 0));
    assert_eq!(table.read(id, None, Protocol::Resp2, 3, ALL).unwrap_err().message, "Cursor not found");
}

#[test]
fn grouped_cursor_reports_total_first() {
    let mut src = MemSource::new(&[("g", true)]);
    for i in 0..50 {
        src.add(&format!("d{i}"), &[("g", n((i % 5) as f64))]);
    }
    let out = src.run(&["GROUPBY", "1", "@g"]).unwrap();
    let mut table = CursorTable::new(3);
    let (total, rows, id) = page(table.start("idx", out, opts(2, 1000), false, Protocol::Resp2, 0).unwrap());
    assert_eq!((total, rows.len()), (5, 2));
    let (total, rows, _) = page(table.read(id, None, Protocol::Resp2, 1, ALL).unwrap());
    assert_eq!((total, rows.len()), (0, 2));
}

#[test]
fn idle_cursors_expire() {
    let mut table = CursorTable::new(4);
    let (_, _, id) =
        page(table.start("idx", numbered(10), opts(1, 100), false, Protocol::Resp2, 1_000).unwrap());
    // Reading refreshes the idle clock.
    assert!(table.read(id, None, Protocol::Resp2, 1_090, ALL).is_ok());
    assert!(table.read(id, None, Protocol::Resp2, 1_180, ALL).is_ok());
    assert_eq!(table.read(id, None, Protocol::Resp2, 1_281, ALL).unwrap_err().message, "Cursor not found");

    let (_, _, a) = page(table.start("idx", numbered(10), opts(1, 100), false, Protocol::Resp2, 0).unwrap());
    let (_, _, b) = page(table.start("idx", numbered(10), opts(1, 1000), false, Protocol::Resp2, 0).unwrap());
    assert_eq!(table.gc(500), 1);
    assert_eq!(table.read(a, None, Protocol::Resp2, 500, ALL).unwrap_err().message, "Cursor not found");
    assert!(table.read(b, None, Protocol::Resp2, 500, ALL).is_ok());
}

#[test]
fn maxidle_is_capped_and_defaulted() {
    let mut table = CursorTable::new(5);
    let o = CursorOptions { count: Some(1), max_idle_ms: Some(10_000_000) };
    let (_, _, id) = page(table.start("idx", numbered(5), o, false, Protocol::Resp2, 0).unwrap());
    assert!(table.read(id, None, Protocol::Resp2, 300_000, ALL).is_ok());
    assert!(table.read(id, None, Protocol::Resp2, 600_001, ALL).is_err());
}

#[test]
fn delete_and_errors() {
    let mut table = CursorTable::new(6);
    let (_, _, id) = page(table.start("idx", numbered(5), opts(1, 1000), false, Protocol::Resp2, 0).unwrap());
    assert!(table.delete(id, 1).is_ok());
    assert_eq!(table.delete(id, 1).unwrap_err().message, "Cursor does not exist");
    assert_eq!(table.read(id, None, Protocol::Resp2, 1, ALL).unwrap_err().message, "Cursor not found");
}

#[test]
fn per_index_limit() {
    let mut table = CursorTable::new(7);
    for _ in 0..MAX_CURSORS_PER_INDEX {
        table.start("idx", numbered(3), opts(1, 1000), false, Protocol::Resp2, 0).unwrap();
    }
    let e = table.start("idx", numbered(3), opts(1, 1000), false, Protocol::Resp2, 0).unwrap_err();
    assert_eq!(e.message, "Too many cursors allocated for index");
    // Another index is unaffected; expired cursors free their slots.
    assert!(table.start("other", numbered(3), opts(1, 1000), false, Protocol::Resp2, 0).is_ok());
    assert!(table.start("idx", numbered(3), opts(1, 1000), false, Protocol::Resp2, 5_000).is_ok());
}

#[test]
fn resp3_cursor_page_is_a_map() {
    let mut table = CursorTable::new(8);
    let reply = table.start("idx", numbered(3), opts(2, 1000), false, Protocol::Resp3, 0).unwrap();
    let AggReply::Array(parts) = reply else { panic!() };
    assert!(matches!(parts[0], AggReply::Map(_)));
    assert!(matches!(parts[1], AggReply::Int(id) if id > 0));
}

#[test]
fn rows_of_deleted_documents_are_skipped_and_not_counted() {
    // Rows d0..d9; d2..d9 deleted after the first page (RediSearch's lazy cursor skips them).
    let mut out = numbered(10);
    out.live_ids = true;
    let keys: Vec<Vec<u8>> = out.rows.iter().filter_map(|r| r.key.as_deref().map(<[u8]>::to_vec)).collect();
    let mut table = CursorTable::new(7);
    let (total, rows, id) = page(table.start("idx", out, opts(1, 1000), false, Protocol::Resp2, 0).unwrap());
    assert_eq!((total, rows.len()), (1, 1));
    let alive = |key: &[u8]| key == keys[0].as_slice() || key == keys[1].as_slice();
    let (total, rows, id) = page(table.read(id, None, Protocol::Resp2, 1, &alive).unwrap());
    assert_eq!((total, rows.len()), (1, 1));
    assert_ne!(id, 0);
    let (total, rows, id) = page(table.read(id, None, Protocol::Resp2, 2, &alive).unwrap());
    assert_eq!((total, rows.len(), id), (0, 0, 0));
}

#[test]
fn rows_not_from_this_index_are_never_skipped() {
    // Rows merged from other shards (live_ids false) stay, whatever the liveness check says.
    let out = numbered(3);
    let mut table = CursorTable::new(8);
    let (_, _, id) = page(table.start("idx", out, opts(1, 1000), false, Protocol::Resp2, 0).unwrap());
    let none = |_: &[u8]| false;
    let (_, rows, id) = page(table.read(id, Some(5), Protocol::Resp2, 1, &none).unwrap());
    assert_eq!((rows.len(), id), (2, 0));
}
