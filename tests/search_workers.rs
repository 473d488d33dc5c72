//! Queries on worker threads (`WORKERS`): they answer what the main thread answers, see every
//! write that replied before them, never stall other clients while they run, and fall back to
//! the main thread where a client cannot block (MULTI, Lua). Each test sets `WORKERS` itself,
//! whatever the suite's `FOLIO_MODULE_ARGS`.

mod common;

use common::*;

/// A server with `n` documents in a JSON index `idx` and `workers` query threads.
fn loaded(n: usize, workers: usize) -> (Server, Conn) {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CONFIG", "SET", "WORKERS", &workers.to_string()]), ok());
    assert_eq!(
        c.call(&[
            "FT.CREATE", "idx", "ON", "JSON", "PREFIX", "1", "d:", "SCHEMA", "$.t", "AS", "t", "TEXT", "$.n",
            "AS", "n", "NUMERIC", "SORTABLE", "$.g", "AS", "g", "TAG", "$.y", "AS", "y", "NUMERIC",
        ]),
        ok()
    );
    for i in 0..n {
        let doc = format!(
            r#"{{"t":"hello w{} v{}","n":{i},"g":"x{}","y":{}}}"#,
            i % 7,
            i % 13,
            i % 3,
            2000 + i % 5
        );
        c.send(&["JSON.SET", &format!("d:{i}"), "$", &doc]);
    }
    for _ in 0..n {
        assert_eq!(c.read(), ok());
    }
    (s, c)
}

fn info_field(c: &mut Conn, name: &str) -> i64 {
    let info = c.call(&["INFO", "search"]).text();
    info.lines()
        .find_map(|l| l.strip_prefix(&format!("search_{name}:")))
        .unwrap_or_else(|| panic!("INFO search has no {name}"))
        .trim()
        .parse()
        .unwrap()
}

/// The queries of every shape workers run, and some that fall back.
const QUERIES: &[&[&str]] = &[
    &["FT.SEARCH", "idx", "hello", "LIMIT", "0", "5"],
    &["FT.SEARCH", "idx", "@g:{x1}", "SORTBY", "n", "DESC", "LIMIT", "0", "3"],
    &["FT.SEARCH", "idx", "w3", "NOCONTENT", "LIMIT", "0", "100"],
    &["FT.SEARCH", "idx", "w3", "SORTBY", "y", "LIMIT", "0", "4"],
    &["FT.SEARCH", "idx", "hello", "RETURN", "1", "t", "HIGHLIGHT", "FIELDS", "1", "t", "LIMIT", "0", "2"],
    &["FT.SEARCH", "idx", "@n:[10 20]", "WITHSCORES", "LIMIT", "0", "3"],
    &["FT.SEARCH", "nosuch", "hello"],
    &["FT.SEARCH", "idx"],
    &["FT.SEARCH", "idx", "(("],
    &[
        "FT.AGGREGATE", "idx", "*", "LOAD", "1", "@n", "GROUPBY", "1", "@g", "REDUCE", "AVG", "1", "@n",
        "AS", "a", "SORTBY", "2", "@a", "DESC",
    ],
    &[
        "FT.AGGREGATE", "idx", "w2", "GROUPBY", "1", "@y", "REDUCE", "COUNT", "0", "AS", "c", "SORTBY", "2",
        "@y", "ASC",
    ],
    &["FT.AGGREGATE", "idx", "*", "LOAD", "2", "$.t", "@n", "SORTBY", "2", "@n", "ASC", "LIMIT", "0", "3"],
    &["FT.AGGREGATE", "idx", "*", "LOAD", "*", "SORTBY", "2", "@n", "DESC", "LIMIT", "0", "2"],
    &["FT.AGGREGATE", "idx", "@n:[0 5]", "APPLY", "@n*2", "AS", "m", "SORTBY", "2", "@m", "DESC"],
    &["FT.AGGREGATE", "idx", "*", "ADDSCORES", "SORTBY", "2", "@n", "ASC", "LIMIT", "0", "2"],
    &["FT.AGGREGATE", "idx", "*", "GROUPBY", "1", "@nosuch"],
    &["FT.TAGVALS", "idx", "g"],
    &["FT.SPELLCHECK", "idx", "helo w3"],
    &["FT.PROFILE", "idx", "SEARCH", "QUERY", "hello", "NOCONTENT", "LIMIT", "0", "2"],
];

/// An aggregate over every document that reads two fields per row and groups them (long
/// enough, over 20,000 documents, to be seen running on a worker).
const HEAVY: [&str; 19] = [
    "FT.AGGREGATE", "idx", "*", "LOAD", "2", "@n", "@t", "APPLY", "upper(@t)", "AS", "u", "GROUPBY", "1",
    "@u", "REDUCE", "COUNT", "0", "AS", "c",
];

/// Replies with the timings FT.PROFILE adds left out.
fn comparable(r: Resp) -> Resp {
    match r {
        Resp::Array(items) => {
            let mut out = Vec::new();
            let mut skip = false;
            for i in items {
                if skip {
                    skip = false;
                    continue;
                }
                let name: Option<&[u8]> = match &i {
                    Resp::Bulk(b) => Some(b),
                    Resp::Simple(s) => Some(s.as_bytes()),
                    _ => None,
                };
                if name.is_some_and(|b| b.ends_with(b" time") || b.ends_with(b"Time")) {
                    skip = true;
                    continue;
                }
                out.push(comparable(i));
            }
            Resp::Array(out)
        }
        // RESP3: the same timings as map entries.
        Resp::Map(pairs) => Resp::Map(
            pairs
                .into_iter()
                .filter(|(k, _)| !matches!(k, Resp::Simple(s) if s.ends_with(" time") || s.ends_with("Time")))
                .map(|(k, v)| (k, comparable(v)))
                .collect(),
        ),
        Resp::Double(_) => Resp::Nil,
        other => other,
    }
}

#[test]
fn workers_answer_what_the_main_thread_answers() {
    let (_s, mut c) = loaded(300, 0);
    assert_eq!(
        c.call(&["FT.CONFIG", "GET", "WORKERS"]),
        arr(vec![arr(vec![Resp::Simple("WORKERS".into()), Resp::bulk("0")])])
    );
    let inline: Vec<Resp> = QUERIES.iter().map(|q| comparable(c.call(q))).collect();
    assert_eq!(c.call(&["FT.CONFIG", "SET", "WORKERS", "2"]), ok());
    for proto in [2, 3] {
        if proto == 3 {
            c.resp3();
            assert_eq!(c.call(&["FT.CONFIG", "SET", "WORKERS", "0"]), ok());
        }
        let want: Vec<Resp> = QUERIES.iter().map(|q| comparable(c.call(q))).collect();
        if proto == 2 {
            assert_eq!(want, inline);
        }
        assert_eq!(c.call(&["FT.CONFIG", "SET", "WORKERS", "2"]), ok());
        for (q, w) in QUERIES.iter().zip(&want) {
            assert_eq!(&comparable(c.call(q)), w, "{q:?} (RESP{proto})");
        }
    }
    assert_eq!(info_field(&mut c, "workers"), 2);
}

#[test]
fn a_query_sees_every_write_that_replied_before_it() {
    let (s, mut c) = loaded(50, 2);
    let mut other = s.conn();
    for i in 0..300 {
        // The write and the query in one pipeline on one connection, then a query on another
        // connection once the write replied.
        let key = format!("d:{}", 1000 + i);
        c.send(&["JSON.SET", &key, "$", &format!(r#"{{"t":"fresh{i}","n":{i},"g":"new"}}"#)]);
        c.send(&["FT.SEARCH", "idx", &format!("fresh{i}"), "NOCONTENT"]);
        assert_eq!(c.read(), ok());
        assert_eq!(c.read(), arr(vec![Resp::Int(1), Resp::bulk(&key)]), "write {i}, same connection");
        assert_eq!(
            other.call(&["FT.SEARCH", "idx", &format!("fresh{i}"), "NOCONTENT"]),
            arr(vec![Resp::Int(1), Resp::bulk(&key)]),
            "write {i}, other connection"
        );
        c.send(&["DEL", &key]);
        c.send(&["FT.SEARCH", "idx", &format!("fresh{i}"), "NOCONTENT"]);
        assert_eq!(c.read(), Resp::Int(1));
        assert_eq!(c.read(), arr(vec![Resp::Int(0)]), "delete {i}");
    }
}

#[test]
fn queries_run_beside_other_clients() {
    let (s, mut c) = loaded(20_000, 1);
    let mut probe = s.conn();
    let mut seen_busy = false;
    for _ in 0..20 {
        c.send(&HEAVY);
        // While the aggregate runs on the worker, the main thread answers INFO; on the main
        // thread itself the aggregate would have finished before INFO ran.
        for _ in 0..200 {
            if info_field(&mut probe, "workers_busy") > 0 {
                seen_busy = true;
                break;
            }
        }
        let r = c.read();
        assert_eq!(r.items()[0], Resp::Int(7 * 13), "groups");
        if seen_busy {
            break;
        }
    }
    assert!(seen_busy, "no query was seen running on a worker while the main thread answered");
}

#[test]
fn read_only_commands_do_not_wait_for_queries() {
    let (s, mut c) = loaded(20_000, 1);
    let mut probe = s.conn();
    let before = info_field(&mut probe, "main_thread_lock_waits");
    let (mut reads, mut beside) = (0, 0);
    for _ in 0..10 {
        c.send(&HEAVY);
        for _ in 0..20 {
            // FT.INFO, FT._LIST, FT.EXPLAIN and FT.DICTDUMP share the state with the query
            // instead of waiting for it.
            let busy = info_field(&mut probe, "workers_busy") > 0;
            let info = probe.call(&["FT.INFO", "idx"]);
            assert_eq!(info.items()[0], Resp::Simple("index_name".into()));
            assert_eq!(probe.call(&["FT._LIST"]), arr(vec![Resp::Simple("idx".into())]));
            assert!(matches!(probe.call(&["FT.EXPLAIN", "idx", "hello"]), Resp::Bulk(_)));
            assert_eq!(probe.call(&["FT.DICTDUMP", "nosuch"]), Resp::Error("could not open dict key".into()));
            reads += 4;
            beside += usize::from(busy);
        }
        assert_eq!(c.read().items()[0], Resp::Int(7 * 13), "groups");
    }
    // Every exclusive hold of the state by the main thread is counted; the reads above took
    // none (a timer or an event may, now and then).
    let waits = info_field(&mut probe, "main_thread_lock_waits") - before;
    assert!(waits < 10, "{waits} exclusive holds for {reads} read-only commands");
    assert!(beside > 0, "no read-only command was sent while a query ran");
}

#[test]
fn clients_that_cannot_block_run_inline() {
    let (_s, mut c) = loaded(30, 2);
    assert_eq!(c.call(&["MULTI"]), ok());
    assert_eq!(c.call(&["JSON.SET", "d:900", "$", r#"{"t":"intx","n":1}"#]), Resp::Simple("QUEUED".into()));
    assert_eq!(c.call(&["FT.SEARCH", "idx", "intx", "NOCONTENT"]), Resp::Simple("QUEUED".into()));
    assert_eq!(c.call(&["FT.AGGREGATE", "idx", "intx", "LOAD", "1", "@n"]), Resp::Simple("QUEUED".into()));
    let exec = c.call(&["EXEC"]);
    assert_eq!(exec.items()[0], ok());
    assert_eq!(exec.items()[1], arr(vec![Resp::Int(1), Resp::bulk("d:900")]));
    assert_eq!(exec.items()[2], arr(vec![Resp::Int(1), arr(vec![Resp::bulk("n"), Resp::bulk("1")])]));
    let lua = c.call(&["EVAL", "return redis.call('FT.SEARCH', 'idx', 'intx', 'NOCONTENT')", "0"]);
    assert_eq!(lua, arr(vec![Resp::Int(1), Resp::bulk("d:900")]));
}

#[test]
fn definitions_change_while_queries_run() {
    let (s, mut c) = loaded(2_000, 2);
    let mut admin = s.conn();
    for round in 0..20 {
        for _ in 0..4 {
            c.send(&[
                "FT.AGGREGATE", "idx", "*", "LOAD", "1", "@n", "GROUPBY", "1", "@g", "REDUCE", "COUNT", "0",
                "AS", "c",
            ]);
            c.send(&["FT.SEARCH", "idx", "hello", "LIMIT", "0", "3"]);
        }
        match round % 3 {
            0 => assert_eq!(admin.call(&["FT.DROPINDEX", "idx"]), ok()),
            1 => assert_eq!(admin.call(&["FLUSHALL"]), ok()),
            _ => assert_eq!(
                admin.call(&["FT.ALTER", "idx", "SCHEMA", "ADD", "$.z", "AS", "z", "NUMERIC"]),
                ok()
            ),
        }
        for _ in 0..8 {
            let r = c.read();
            if let Resp::Error(e) = &r {
                assert!(e.contains("no such index"), "{e}");
            }
        }
        if round % 3 != 2 {
            assert_eq!(
                admin.call(&[
                    "FT.CREATE", "idx", "ON", "JSON", "PREFIX", "1", "d:", "SCHEMA", "$.t", "AS", "t",
                    "TEXT", "$.n", "AS", "n", "NUMERIC", "SORTABLE", "$.g", "AS", "g", "TAG",
                ]),
                ok()
            );
        }
        if round % 3 == 1 {
            for i in 0..200 {
                admin.send(&[
                    "JSON.SET",
                    &format!("d:{i}"),
                    "$",
                    &format!(r#"{{"t":"hello","n":{i},"g":"x{}"}}"#, i % 3),
                ]);
            }
            for _ in 0..200 {
                assert_eq!(admin.read(), ok());
            }
        }
    }
    assert_eq!(c.call(&["PING"]), Resp::Simple("PONG".into()));
}

#[test]
fn the_pool_resizes_and_stops() {
    let (_s, mut c) = loaded(100, 4);
    let q = ["FT.SEARCH", "idx", "hello", "LIMIT", "0", "1"];
    let want = c.call(&q);
    for n in ["0", "3", "1", "8", "0", "2"] {
        assert_eq!(c.call(&["FT.CONFIG", "SET", "WORKERS", n]), ok());
        for _ in 0..20 {
            c.send(&q);
        }
        for _ in 0..20 {
            assert_eq!(c.read(), want, "WORKERS {n}");
        }
        assert_eq!(info_field(&mut c, "workers"), n.parse::<i64>().unwrap());
    }
    assert!(c.call(&["FT.CONFIG", "SET", "WORKERS", "-1"]).is_error());
    assert!(c.call(&["FT.CONFIG", "SET", "WORKERS", "65"]).is_error());
}

#[test]
fn writes_do_not_wait_for_a_running_query() {
    let (s, mut c) = loaded(20_000, 1);
    let mut w = s.conn();
    let mut proven = false;
    for round in 0..20 {
        c.send(&HEAVY);
        let mut busy = false;
        for _ in 0..2000 {
            if info_field(&mut w, "workers_busy") > 0 {
                busy = true;
                break;
            }
        }
        // While the query runs on its worker, a write replies at once (applied, or read now
        // and queued for the next query to apply first), and a later query sees it.
        let key = format!("d:w{round}");
        assert_eq!(w.call(&["JSON.SET", &key, "$", &format!(r#"{{"t":"queued{round}","n":1}}"#)]), ok());
        let still_running = busy && info_field(&mut w, "workers_busy") > 0;
        // The groups of the loaded documents, and of the writes the query saw.
        let groups = c.read().items()[0].int();
        assert!((7 * 13..=7 * 13 + 1 + round as i64).contains(&groups), "{groups} groups");
        assert_eq!(
            w.call(&["FT.SEARCH", "idx", &format!("queued{round}"), "NOCONTENT"]),
            arr(vec![Resp::Int(1), Resp::bulk(&key)])
        );
        if still_running {
            proven = true;
            break;
        }
    }
    assert!(proven, "no write was seen replying while a query ran");
}

/// BGSAVE forks while a worker holds the search state (shared for a query, or exclusively to
/// apply queued writes); the child, which has no worker to let it go, must still save the
/// definitions and end (it used to wait for the lock forever). The RDB it wrote must load.
#[test]
fn background_saves_end_while_queries_run() {
    let (s, mut c) = loaded(20_000, 2);
    let mut probe = s.conn();
    let mut writer = s.conn();
    let mut forked_busy = 0;
    for round in 0..12 {
        // Two heavy aggregates in flight and writes queued behind them.
        c.send(&HEAVY);
        c.send(&HEAVY);
        for i in 0..50 {
            writer.send(&["JSON.SET", &format!("d:{}", i * 7 + round), "$.n", &i.to_string()]);
        }
        forked_busy += usize::from(info_field(&mut probe, "workers_busy") > 0);
        assert_eq!(probe.call(&["BGSAVE"]), Resp::Simple("Background saving started".into()));
        let ended = wait_until(30, || {
            probe.call(&["INFO", "persistence"]).text().contains("rdb_bgsave_in_progress:0")
        });
        assert!(ended, "round {round}: the BGSAVE child did not end");
        let info = probe.call(&["INFO", "persistence"]).text();
        assert!(info.contains("rdb_last_bgsave_status:ok"), "round {round}: {info}");
        for _ in 0..50 {
            assert_eq!(writer.read(), ok());
        }
        for _ in 0..2 {
            assert_eq!(c.read().items()[0], Resp::Int(7 * 13));
        }
    }
    assert!(forked_busy > 0, "no BGSAVE started while a query ran");
    assert_eq!(probe.call(&["DEBUG", "RELOAD", "NOSAVE"]), ok());
    let total = probe.call(&["FT.SEARCH", "idx", "*", "LIMIT", "0", "0"]);
    assert_eq!(total.items()[0], Resp::Int(20_000));
}
