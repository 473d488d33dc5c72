//! FT.AGGREGATE's `total_results` as RediSearch 2.10 reports it. Its pipeline is lazy: the
//! total is the number of documents read by the time the reply's first row came out (all of
//! them when none did); after a SORTBY it is every matched document, after a GROUPBY the number
//! of groups. A cursor's later pages count the documents read since the previous page.
//! Expected values measured on RediSearch 2.10.5 (Redis 7.4.1) with the same documents.

mod common;

use common::*;

fn total(r: &Resp) -> i64 {
    match r {
        Resp::Array(items) => items[0].int(),
        Resp::Map(pairs) => {
            pairs.iter().find(|(k, _)| k.text() == "total_results").map(|(_, v)| v.int()).unwrap()
        }
        other => panic!("{other:?}"),
    }
}

fn setup(c: &mut Conn) {
    assert_eq!(
        c.cmd("FT.CREATE idx PREFIX 1 d: SCHEMA t TEXT n NUMERIC SORTABLE tg TAG"),
        Resp::Simple("OK".into())
    );
    for (i, t, tg) in [
        (1, "hello", "a"),
        (2, "world", "b"),
        (3, "hello world", "a"),
        (4, "hello there", "c"),
        (5, "bye", "c"),
    ] {
        c.call(&["HSET", &format!("d:{i}"), "t", t, "n", &i.to_string(), "tg", tg]);
    }
}

const CASES: &[(&str, i64)] = &[
    ("*", 1),
    ("hello", 1),
    ("* LIMIT 0 2", 1),
    ("* LIMIT 0 0", 5),
    ("* LIMIT 1 10", 2),
    ("* LOAD 1 @t", 1),
    ("* APPLY @n*2 AS x", 1),
    ("* FILTER @n>2", 3),
    ("* LOAD 1 @n FILTER @n>2", 3),
    ("* FILTER @n>10", 5),
    ("nosuchword", 0),
    ("* SORTBY 1 @n", 5),
    ("* SORTBY 1 @n LIMIT 0 2", 5),
    ("* GROUPBY 1 @tg", 3),
    ("* GROUPBY 1 @tg LIMIT 0 1", 3),
    ("* SORTBY 1 @n FILTER @n>2", 5),
    ("* FILTER @n>2 SORTBY 1 @n", 5),
    ("* LIMIT 0 2 SORTBY 1 @n", 5),
    ("* DIALECT 2", 1),
    ("* ADDSCORES", 1),
    ("* LOAD *", 1),
    ("@tg:{c}", 1),
];

#[test]
fn total_results_counts_documents_read_until_the_first_row() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    for proto in [2, 3] {
        if proto == 3 {
            c.resp3();
        }
        for (q, want) in CASES {
            let mut args = vec!["FT.AGGREGATE", "idx"];
            args.extend(q.split(' '));
            let r = c.call(&args);
            assert_eq!(total(&r), *want, "RESP{proto} FT.AGGREGATE idx {q}: {r:?}");
        }
    }
}

#[test]
fn cursor_pages_count_documents_read_since_the_previous_page() {
    let s = Server::start();
    let mut c = s.conn();
    setup(&mut c);
    // (pipeline, COUNT, totals of each page)
    let cases: &[(&str, &str, &[i64])] = &[
        ("*", "1", &[1, 1, 1, 1, 1, 0]),
        ("*", "2", &[1, 1, 1]),
        ("* FILTER @n>2", "1", &[3, 1, 1, 0]),
        ("* FILTER @n>2", "2", &[3, 1]),
        ("* FILTER @n>3", "2", &[4, 0]),
        ("* FILTER @n>10", "2", &[5]),
        ("* LIMIT 1 10", "2", &[2, 1, 0]),
        ("* SORTBY 1 @n", "2", &[5, 0, 0]),
        ("@tg:{c}", "1", &[1, 1, 0]),
    ];
    for (q, count, want) in cases {
        let mut args = vec!["FT.AGGREGATE", "idx"];
        args.extend(q.split(' '));
        args.extend(["WITHCURSOR", "COUNT", count]);
        let mut r = c.call(&args);
        let mut totals = Vec::new();
        loop {
            totals.push(total(&r.items()[0]));
            let id = r.items()[1].int();
            if id == 0 {
                break;
            }
            r = c.call(&["FT.CURSOR", "READ", "idx", &id.to_string()]);
        }
        assert_eq!(&totals, want, "{q} COUNT {count}");
    }
}
