//! FT.AGGREGATE cursors end to end: 100,000 rows read in pages return every row once, and an idle
//! cursor expires.

mod common;

use common::*;

#[test]
fn cursor_pages_through_100k_rows_and_idle_cursors_expire() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "n", "PREFIX", "1", "n:", "SCHEMA", "v", "NUMERIC", "SORTABLE"]),
        Resp::Simple("OK".into())
    );
    const N: usize = 100_000;
    for chunk in (0..N).collect::<Vec<_>>().chunks(2000) {
        for i in chunk {
            c.send(&["HSET", &format!("n:{i}"), "v", &i.to_string()]);
        }
        for _ in chunk {
            assert_eq!(c.read(), Resp::Int(1));
        }
    }
    let mut seen = vec![false; N];
    let mut rows = 0usize;
    let mut reply = c.call(&["FT.AGGREGATE", "n", "*", "LOAD", "1", "@v", "WITHCURSOR", "COUNT", "7000"]);
    loop {
        let parts = reply.items();
        let page = parts[0].items();
        for row in &page[1..] {
            let fields = row.items();
            let v: usize = fields[1].text().parse().unwrap();
            assert!(!seen[v], "row {v} returned twice");
            seen[v] = true;
            rows += 1;
        }
        let cursor = parts[1].int();
        if cursor == 0 {
            break;
        }
        reply = c.call(&["FT.CURSOR", "READ", "n", &cursor.to_string()]);
        assert!(!reply.is_error(), "{reply:?}");
    }
    assert_eq!(rows, N);
    assert!(seen.iter().all(|s| *s));

    // An idle cursor is gone after MAXIDLE.
    let reply =
        c.call(&["FT.AGGREGATE", "n", "*", "LOAD", "1", "@v", "WITHCURSOR", "COUNT", "10", "MAXIDLE", "100"]);
    let cursor = reply.items()[1].int();
    assert!(cursor != 0);
    std::thread::sleep(std::time::Duration::from_millis(400));
    let r = c.call(&["FT.CURSOR", "READ", "n", &cursor.to_string()]);
    assert!(r.err().contains("Cursor not found"), "{r:?}");
    // DEL of a live cursor, then of a gone one.
    let reply = c.call(&["FT.AGGREGATE", "n", "*", "LOAD", "1", "@v", "WITHCURSOR", "COUNT", "10"]);
    let cursor = reply.items()[1].int().to_string();
    assert_eq!(c.call(&["FT.CURSOR", "DEL", "n", &cursor]), Resp::Simple("OK".into()));
    assert!(c.call(&["FT.CURSOR", "DEL", "n", &cursor]).is_error());
}
