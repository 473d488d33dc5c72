//! FT.PROFILE end to end, RESP2 and RESP3: the result as FT.SEARCH / FT.AGGREGATE give it,
//! then the profile. Expected replies are RediSearch 2.10.5's (on Redis 7.4.1, the same
//! commands on a fresh server), rendered compactly with every time replaced by `T` (times are
//! measured: whole milliseconds, 0 here on both). Where folio's plan differs the comment
//! quotes RediSearch's reply.

mod common;

use common::*;

const TIMES: &[&str] = &["Time", "Total profile time", "Parsing time", "Pipeline creation time"];

/// A compact rendering: `+simple`, `-error`, `"bulk"`, numbers, `nil`, `[…]`, `{k:v,…}`, and
/// `T` for the value after a time label (a double, checked to be a whole number of ms).
fn render(r: &Resp) -> String {
    let time = |v: &Resp| {
        let t = match v {
            Resp::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
            Resp::Double(d) => d.clone(),
            other => panic!("a time that is not a double: {other:?}"),
        };
        let ms: f64 = t.parse().expect("a time");
        assert!(ms >= 0.0 && ms.fract() == 0.0, "time {t}");
        "T".to_string()
    };
    match r {
        Resp::Simple(s) => format!("+{s}"),
        Resp::Error(e) => format!("-{e}"),
        Resp::Int(i) => i.to_string(),
        Resp::Bulk(b) => format!("\"{}\"", String::from_utf8_lossy(b)),
        Resp::Double(d) => format!(",{d}"),
        Resp::Nil => "nil".into(),
        Resp::Array(items) | Resp::Set(items) => {
            let mut out = Vec::new();
            let mut prev: Option<&Resp> = None;
            for it in items {
                let timed = matches!(prev, Some(Resp::Simple(s)) if TIMES.contains(&s.as_str()));
                out.push(if timed { time(it) } else { render(it) });
                prev = Some(it);
            }
            format!("[{}]", out.join(","))
        }
        Resp::Map(pairs) => {
            let out: Vec<String> = pairs
                .iter()
                .map(|(k, v)| {
                    let timed = matches!(k, Resp::Simple(s) if TIMES.contains(&s.as_str()));
                    format!("{}:{}", render(k), if timed { time(v) } else { render(v) })
                })
                .collect();
            format!("{{{}}}", out.join(","))
        }
        other => format!("{other:?}"),
    }
}

fn run(c: &mut Conn, cases: &[(&[&str], &str)]) {
    for (args, want) in cases {
        assert_eq!(render(&c.call(args)), *want, "{args:?}");
    }
}

#[test]
fn ft_profile_replies_as_redisearch_does() {
    let s = Server::start();
    let mut c = s.conn();
    #[rustfmt::skip]
    let resp2: &[(&[&str], &str)] = &[
    (&["FT.CREATE", "idx", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT", "n", "NUMERIC", "SORTABLE", "tg", "TAG"], r#"+OK"#),
    (&["HSET", "d:1", "t", "hello", "n", "1", "tg", "a"], r#"3"#),
    (&["HSET", "d:2", "t", "world", "n", "2", "tg", "b"], r#"3"#),
    (&["HSET", "d:3", "t", "hello world", "n", "3", "tg", "a"], r#"3"#),
    (&["HSET", "d:4", "t", "running", "n", "4", "tg", "c"], r#"3"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "hello"], r#"[[2,"d:1",["t","hello","n","1","tg","a"],"d:3",["t","hello world","n","3","tg","a"]],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+TEXT,+Term,+hello,+Time,T,+Counter,2,+Size,2]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,2],[+Type,+Scorer,+Time,T,+Counter,2],[+Type,+Sorter,+Time,T,+Counter,2],[+Type,+Loader,+Time,T,+Counter,2]]]]"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "hello world", "NOCONTENT"], r#"[[1,"d:3"],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+INTERSECT,+Time,T,+Counter,1,+Child iterators,[+Type,+TEXT,+Term,+hello,+Time,T,+Counter,2,+Size,2],[+Type,+TEXT,+Term,+world,+Time,T,+Counter,2,+Size,2]]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,1],[+Type,+Scorer,+Time,T,+Counter,1],[+Type,+Sorter,+Time,T,+Counter,1]]]]"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "hello -world", "NOCONTENT"], r#"[[1,"d:1"],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+INTERSECT,+Time,T,+Counter,1,+Child iterators,[+Type,+TEXT,+Term,+hello,+Time,T,+Counter,2,+Size,2],[+Type,+NOT,+Time,T,+Counter,2,+Child iterator,[+Type,+TEXT,+Term,+world,+Time,T,+Counter,2,+Size,2]]]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,1],[+Type,+Scorer,+Time,T,+Counter,1],[+Type,+Sorter,+Time,T,+Counter,1]]]]"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "~hello world", "NOCONTENT"], r#"[[4,"d:3","d:1","d:2","d:4"],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+OPTIONAL,+Time,T,+Counter,4,+Child iterator,[+Type,+INTERSECT,+Time,T,+Counter,1,+Child iterators,[+Type,+TEXT,+Term,+hello,+Time,T,+Counter,2,+Size,2],[+Type,+TEXT,+Term,+world,+Time,T,+Counter,2,+Size,2]]]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,4],[+Type,+Scorer,+Time,T,+Counter,4],[+Type,+Sorter,+Time,T,+Counter,4]]]]"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "hello|@tg:{b}", "NOCONTENT"], r#"[[3,"d:2","d:1","d:3"],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+UNION,+Query type,+UNION,+Time,T,+Counter,3,+Child iterators,[+Type,+TEXT,+Term,+hello,+Time,T,+Counter,2,+Size,2],[+Type,+TAG,+Term,+b,+Time,T,+Counter,1,+Size,1]]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,3],[+Type,+Scorer,+Time,T,+Counter,3],[+Type,+Sorter,+Time,T,+Counter,3]]]]"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "@tg:{a|b}", "NOCONTENT"], r#"[[3,"d:2","d:1","d:3"],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+UNION,+Query type,+TAG,+Time,T,+Counter,3,+Child iterators,[+Type,+TAG,+Term,+a,+Time,T,+Counter,2,+Size,2],[+Type,+TAG,+Term,+b,+Time,T,+Counter,1,+Size,1]]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,3],[+Type,+Scorer,+Time,T,+Counter,3],[+Type,+Sorter,+Time,T,+Counter,3]]]]"#),
    (&["FT.PROFILE", "idx", "SEARCH", "LIMITED", "QUERY", "hel*", "NOCONTENT"], r#"[[2,"d:1","d:3"],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+UNION,+Query type,+PREFIX - hel,+Time,T,+Counter,2,+Child iterators,+The number of iterators in the union is 1]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,2],[+Type,+Scorer,+Time,T,+Counter,2],[+Type,+Sorter,+Time,T,+Counter,2]]]]"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "%hallo%", "NOCONTENT"], r#"[[2,"d:1","d:3"],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+UNION,+Query type,+FUZZY - hallo,+Time,T,+Counter,2,+Child iterators,[+Type,+TEXT,+Term,+hello,+Time,T,+Counter,2,+Size,2]]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,2],[+Type,+Scorer,+Time,T,+Counter,2],[+Type,+Sorter,+Time,T,+Counter,2]]]]"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "running", "NOCONTENT"], r#"[[1,"d:4"],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+UNION,+Query type,+UNION,+Time,T,+Counter,1,+Child iterators,[+Type,+TEXT,+Term,+running,+Time,T,+Counter,1,+Size,1],[+Type,+TEXT,+Term,++run,+Time,T,+Counter,1,+Size,1]]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,1],[+Type,+Scorer,+Time,T,+Counter,1],[+Type,+Sorter,+Time,T,+Counter,1]]]]"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "nosuchword"], r#"[[0],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+EMPTY,+Time,T,+Counter,0]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,0],[+Type,+Scorer,+Time,T,+Counter,0],[+Type,+Sorter,+Time,T,+Counter,0],[+Type,+Loader,+Time,T,+Counter,0]]]]"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "*", "SORTBY", "n", "DESC", "LIMIT", "0", "1", "RETURN", "1", "n"], r#"[[4,"d:4",["n","4"]],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+WILDCARD,+Time,T,+Counter,4]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,4],[+Type,+Sorter,+Time,T,+Counter,1]]]]"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "hello", "LIMIT", "0", "0"], r#"[[2],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+TEXT,+Term,+hello,+Time,T,+Counter,2,+Size,2]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,2],[+Type,+Counter,+Time,T,+Counter,1]]]]"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "hello world", "INKEYS", "1", "d:1", "NOCONTENT"], r#"[[0],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+INTERSECT,+Time,T,+Counter,0,+Child iterators,[+Type,+ID-LIST,+Time,T,+Counter,1],[+Type,+TEXT,+Term,+hello,+Time,T,+Counter,1,+Size,2],[+Type,+TEXT,+Term,+world,+Time,T,+Counter,1,+Size,2]]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,0],[+Type,+Scorer,+Time,T,+Counter,0],[+Type,+Sorter,+Time,T,+Counter,0]]]]"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "hello", "FILTER", "n", "0", "10", "NOCONTENT"], r#"[[2,"d:1","d:3"],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+INTERSECT,+Time,T,+Counter,2,+Child iterators,[+Type,+TEXT,+Term,+hello,+Time,T,+Counter,2,+Size,2],[+Type,+NUMERIC,+Term,+1 - 4,+Time,T,+Counter,2,+Size,4]]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,2],[+Type,+Scorer,+Time,T,+Counter,2],[+Type,+Sorter,+Time,T,+Counter,2]]]]"#),
    (&["FT.PROFILE", "idx", "AGGREGATE", "QUERY", "*", "LOAD", "1", "@t"], r#"[[1,["t","hello"],["t","world"],["t","hello world"],["t","running"]],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+WILDCARD,+Time,T,+Counter,4]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,4],[+Type,+Loader,+Time,T,+Counter,4]]]]"#),
    (&["FT.PROFILE", "idx", "AGGREGATE", "QUERY", "hello", "GROUPBY", "1", "@tg", "REDUCE", "COUNT", "0", "AS", "c"], r#"[[1,["tg","a","c","2"]],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+TEXT,+Term,+hello,+Time,T,+Counter,2,+Size,2]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,2],[+Type,+Loader,+Time,T,+Counter,2],[+Type,+Grouper,+Time,T,+Counter,1]]]]"#),
    (&["FT.PROFILE", "idx", "AGGREGATE", "QUERY", "*", "FILTER", "@n>1"], r#"[[2,["n","2"],["n","3"],["n","4"]],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+WILDCARD,+Time,T,+Counter,4]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,4],[+Type,+Filter - Predicate >,+Time,T,+Counter,3]]]]"#),
    (&["FT.PROFILE", "idx", "AGGREGATE", "QUERY", "*", "APPLY", "@n*2", "AS", "x", "SORTBY", "2", "@x", "DESC", "LIMIT", "0", "2"], r#"[[4,["n","4","x","8"],["n","3","x","6"]],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+WILDCARD,+Time,T,+Counter,4]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,4],[+Type,+Projector - Operator *,+Time,T,+Counter,4],[+Type,+Sorter,+Time,T,+Counter,2]]]]"#),
    (&["FT.PROFILE", "idx", "AGGREGATE", "QUERY", "*", "LOAD", "1", "@t", "APPLY", "upper(@t)", "AS", "u"], r#"[[1,["t","hello","u","HELLO"],["t","world","u","WORLD"],["t","hello world","u","HELLO WORLD"],["t","running","u","RUNNING"]],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+WILDCARD,+Time,T,+Counter,4]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,4],[+Type,+Loader,+Time,T,+Counter,4],[+Type,+Projector - Function upper,+Time,T,+Counter,4]]]]"#),
    (&["FT.PROFILE", "idx", "AGGREGATE", "QUERY", "*", "LIMIT", "0", "0"], r#"[[4],[[+Total profile time,T],[+Parsing time,T],[+Pipeline creation time,T],[+Warning],[+Iterators profile,[+Type,+WILDCARD,+Time,T,+Counter,4]],[+Result processors profile,[+Type,+Index,+Time,T,+Counter,4],[+Type,+Counter,+Time,T,+Counter,1]]]]"#),
    (&["FT.PROFILE", "idx", "AGGREGATE", "QUERY", "*", "WITHCURSOR"], r#"-FT.PROFILE does not support cursor"#),
    (&["FT.PROFILE", "idx", "FOO", "QUERY", "x"], r#"-No `SEARCH` or `AGGREGATE` provided"#),
    (&["FT.PROFILE", "nosuch", "SEARCH", "QUERY", "x"], r#"-nosuch: no such index"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "hello", "BADARG"], r#"-Unknown argument `BADARG` at position 1 for <main>"#),
    (&["FT.PROFILE", "idx", "SEARCH", "x", "QUERY", "hello"], r#"-The QUERY keyword is expected"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY"], r#"-ERR wrong number of arguments for 'FT.PROFILE' command"#),
    ];
    run(&mut c, resp2);
    c.resp3();
    #[rustfmt::skip]
    let resp3: &[(&[&str], &str)] = &[

    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "hello -world", "NOCONTENT"], r#"{+attributes:[],+total_results:1,+format:+STRING,+results:[{+id:"d:1",+values:[]}],+warning:[],+profile:{+Total profile time:T,+Parsing time:T,+Pipeline creation time:T,+Warning:+None,+Iterators profile:[{+Type:+INTERSECT,+Time:T,+Counter:1,+Child iterators:[{+Type:+TEXT,+Term:+hello,+Time:T,+Counter:2,+Size:2},{+Type:+NOT,+Time:T,+Counter:2,+Child iterator:{+Type:+TEXT,+Term:+world,+Time:T,+Counter:2,+Size:2}}]}],+Result processors profile:[{+Type:+Index,+Time:T,+Counter:1},{+Type:+Scorer,+Time:T,+Counter:1},{+Type:+Sorter,+Time:T,+Counter:1}]}}"#),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "hello|@tg:{b}", "NOCONTENT"], r#"{+attributes:[],+total_results:3,+format:+STRING,+results:[{+id:"d:2",+values:[]},{+id:"d:1",+values:[]},{+id:"d:3",+values:[]}],+warning:[],+profile:{+Total profile time:T,+Parsing time:T,+Pipeline creation time:T,+Warning:+None,+Iterators profile:[{+Type:+UNION,+Query type:+UNION,+Time:T,+Counter:3,+Child iterators:[{+Type:+TEXT,+Term:+hello,+Time:T,+Counter:2,+Size:2},{+Type:+TAG,+Term:+b,+Time:T,+Counter:1,+Size:1}]}],+Result processors profile:[{+Type:+Index,+Time:T,+Counter:3},{+Type:+Scorer,+Time:T,+Counter:3},{+Type:+Sorter,+Time:T,+Counter:3}]}}"#),
    (&["FT.PROFILE", "idx", "AGGREGATE", "QUERY", "*", "APPLY", "@n*2", "AS", "x", "SORTBY", "2", "@x", "DESC", "LIMIT", "0", "2"], r#"{+attributes:[],+total_results:4,+format:+STRING,+results:[{+extra_attributes:{"n":"4","x":"8"},+values:[]},{+extra_attributes:{"n":"3","x":"6"},+values:[]}],+warning:[],+profile:{+Total profile time:T,+Parsing time:T,+Pipeline creation time:T,+Warning:+None,+Iterators profile:[{+Type:+WILDCARD,+Time:T,+Counter:4}],+Result processors profile:[{+Type:+Index,+Time:T,+Counter:4},{+Type:+Projector - Operator *,+Time:T,+Counter:4},{+Type:+Sorter,+Time:T,+Counter:2}]}}"#),
    ];
    run(&mut c, resp3);
}

#[test]
fn profile_times_are_measured() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE idx PREFIX 1 d: SCHEMA t TEXT"), Resp::Simple("OK".into()));
    for chunk in (0..60_000).collect::<Vec<_>>().chunks(2000) {
        for i in chunk {
            c.send(&["HSET", &format!("d:{i}"), "t", &format!("w{} common", i % 500)]);
        }
        for _ in chunk {
            assert_eq!(c.read(), Resp::Int(1));
        }
    }
    // A query that reads every document takes some milliseconds; its total covers its parts.
    let r = c.call(&["FT.PROFILE", "idx", "SEARCH", "QUERY", "common|w1*|w2*", "LIMIT", "0", "1000"]);
    let prof = r.items()[1].items();
    let ms = |row: &Resp| -> f64 { row.items()[1].text().parse().unwrap() };
    let total = ms(&prof[0]);
    assert!(total >= 1.0, "{r:?}");
    let steps = prof[5].items()[1..].iter().map(|s| s.items()[3].text().parse::<f64>().unwrap()).sum::<f64>();
    assert!(steps <= total + 1.0 * prof[5].items().len() as f64, "steps {steps} > total {total}");
}

#[test]
fn literal_steps_are_profiled() {
    // RediSearch 2.10 crashes on these (README: differences); folio names the literal.
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE idx PREFIX 1 d: SCHEMA n NUMERIC SORTABLE"), Resp::Simple("OK".into()));
    assert_eq!(c.cmd("HSET d:1 n 1"), Resp::Int(1));
    let r = render(
        &c.call(&["FT.PROFILE", "idx", "AGGREGATE", "QUERY", "*", "FILTER", "1", "APPLY", "5", "AS", "x"]),
    );
    assert!(r.contains("[+Type,+Filter - Literal 1,+Time,T,+Counter,1],[+Type,+Projector - Literal 5,+Time,T,+Counter,1]"), "{r}");
    assert_eq!(c.cmd("PING"), Resp::Simple("PONG".into()));
}

/// `_PRINT_PROFILE_CLOCK false` (RediSearch's switch for its tests) leaves every time out, and
/// a union with as many children as MAXPREFIXEXPANSIONS warns; replies as RediSearch 2.10.5's.
#[test]
fn profile_without_clock_and_the_expansion_warning() {
    let s = Server::start();
    let mut c = s.conn();
    #[rustfmt::skip]
    let resp2: &[(&[&str], &str)] = &[
    (&["FT.CONFIG", "SET", "MAXPREFIXEXPANSIONS", "2"], "+OK"),
    (&["FT.CONFIG", "SET", "_PRINT_PROFILE_CLOCK", "false"], "+OK"),
    (&["FT.CREATE", "idx", "SCHEMA", "t", "TEXT"], "+OK"),
    (&["HSET", "1", "t", "foo1"], "1"),
    (&["HSET", "2", "t", "foo2"], "1"),
    (&["HSET", "3", "t", "foo3"], "1"),
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "foo*", "LIMIT", "0", "0"], r#"[[2],[[+Total profile time],[+Parsing time],[+Pipeline creation time],[+Warning],[+Iterators profile,[+Type,+UNION,+Query type,+PREFIX - foo,+Counter,2,+Warning,+Max prefix expansion reached,+Child iterators,[+Type,+TEXT,+Term,+foo1,+Counter,1,+Size,1],[+Type,+TEXT,+Term,+foo2,+Counter,1,+Size,1]]],[+Result processors profile,[+Type,+Index,+Counter,2],[+Type,+Counter,+Counter,1]]]]"#),
    // Any union with that many children, as RediSearch checks it.
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "foo1|foo2", "LIMIT", "0", "0"], r#"[[2],[[+Total profile time],[+Parsing time],[+Pipeline creation time],[+Warning],[+Iterators profile,[+Type,+UNION,+Query type,+UNION,+Counter,2,+Warning,+Max prefix expansion reached,+Child iterators,[+Type,+TEXT,+Term,+foo1,+Counter,1,+Size,1],[+Type,+TEXT,+Term,+foo2,+Counter,1,+Size,1]]],[+Result processors profile,[+Type,+Index,+Counter,2],[+Type,+Counter,+Counter,1]]]]"#),
    (&["FT.CONFIG", "SET", "MAXPREFIXEXPANSIONS", "200"], "+OK"),
    (&["FT.PROFILE", "idx", "AGGREGATE", "QUERY", "foo3"], r#"[[1,[]],[[+Total profile time],[+Parsing time],[+Pipeline creation time],[+Warning],[+Iterators profile,[+Type,+TEXT,+Term,+foo3,+Counter,1,+Size,1]],[+Result processors profile,[+Type,+Index,+Counter,1]]]]"#),
    ];
    run(&mut c, resp2);
    c.resp3();
    #[rustfmt::skip]
    let resp3: &[(&[&str], &str)] = &[
    (&["FT.PROFILE", "idx", "SEARCH", "QUERY", "foo*", "LIMIT", "0", "0"], r#"{+attributes:[],+total_results:3,+format:+STRING,+results:[],+warning:[],+profile:{+Warning:+None,+Iterators profile:[{+Type:+UNION,+Query type:+PREFIX - foo,+Counter:3,+Child iterators:[{+Type:+TEXT,+Term:+foo1,+Counter:1,+Size:1},{+Type:+TEXT,+Term:+foo2,+Counter:1,+Size:1},{+Type:+TEXT,+Term:+foo3,+Counter:1,+Size:1}]}],+Result processors profile:[{+Type:+Index,+Counter:3},{+Type:+Counter,+Counter:1}]}}"#),
    ];
    run(&mut c, resp3);
}

/// FT.PROFILE of a query past its TIMEOUT answers with what it found and the warning, under
/// ON_TIMEOUT FAIL too (RediSearch never fails a profile on a timeout).
#[test]
fn profile_warns_of_a_timeout_under_either_policy() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA t TEXT"), Resp::Simple("OK".into()));
    let n = 20_000;
    for i in 0..n {
        c.send(&["HSET".to_string(), format!("doc{i}"), "t".into(), format!("w{i}")]);
    }
    for _ in 0..n {
        assert_eq!(c.read(), Resp::Int(1));
    }
    let limit = n.to_string();
    for policy in ["RETURN", "FAIL"] {
        assert_eq!(c.cmd(&format!("FT.CONFIG SET ON_TIMEOUT {policy}")), Resp::Simple("OK".into()));
        for kind in ["SEARCH", "AGGREGATE"] {
            // Each row reads its document (a LOAD for the aggregate): far more than 1 ms in all.
            let mut args =
                vec!["FT.PROFILE", "idx", kind, "QUERY", "*", "LIMIT", "0", &limit, "TIMEOUT", "1"];
            if kind == "AGGREGATE" {
                args.extend(["LOAD", "1", "@t"]);
            }
            let r = c.call(&args);
            let profile = &r.items()[1];
            let warning =
                profile.items().iter().find(|e| e.items().first().is_some_and(|k| k.text() == "Warning"));
            assert_eq!(
                warning.map(|w| w.items().iter().map(Resp::text).collect::<Vec<_>>()),
                Some(vec!["Warning".to_string(), "Timeout limit was reached".to_string()]),
                "{kind} under {policy}"
            );
            let rows = r.items()[0].items().len() - 1;
            let rows = if kind == "SEARCH" { rows / 2 } else { rows };
            assert!(rows < n, "{kind} under {policy}: {rows} rows");
        }
    }
}

/// A radius filter reads, per geohash box RediSearch computes for it, the ranges of the
/// field's range tree the box reaches: `GEO` readers whose `Term` is the points of the range's
/// bounds, under unions of `Query type` `GEO`; a reader counts its range's documents within
/// the radius. The replies are RediSearch 2.10.5's for the same 400 points (checked side by
/// side with `FT.PROFILE ... LIMIT 0 0` on five radii, the invalid latitude included).
#[test]
fn geo_filters_profile_as_redisearchs_geohash_boxes() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CONFIG SET _PRINT_PROFILE_CLOCK false"), Resp::Simple("OK".into()));
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA loc GEO"), Resp::Simple("OK".into()));
    for i in 0..20 {
        for j in 0..20 {
            let p = format!("{:.2},{:.2}", 2.0 + f64::from(i) * 0.05, 48.5 + f64::from(j) * 0.05);
            assert_eq!(c.call(&["HSET", &format!("d{}", i * 20 + j), "loc", &p]), Resp::Int(1));
        }
    }
    let profile = |c: &mut Conn, q: &str| {
        let r = c.call(&["FT.PROFILE", "idx", "SEARCH", "QUERY", q, "NOCONTENT", "LIMIT", "0", "0"]);
        render(&r.items()[1].items()[4])
    };
    let ten = "[+Iterators profile,[+Type,+UNION,+Query type,+GEO,+Counter,15,+Child iterators,[+Type,+GEO,+Term,+2,49.15 - 2.8,49.15,+Counter,15,+Size,187],[+Type,+GEO,+Term,+2,49.15 - 2.8,49.15,+Counter,15,+Size,187],[+Type,+GEO,+Term,+2,49.15 - 2.8,49.15,+Counter,15,+Size,187],[+Type,+GEO,+Term,+2,49.15 - 2.8,49.15,+Counter,15,+Size,187]]]";
    assert_eq!(profile(&mut c, "@loc:[2.5 49.0 10 km]"), ten);
    let sixty = "[+Iterators profile,[+Type,+UNION,+Query type,+GEO,+Counter,391,+Child iterators,[+Type,+UNION,+Query type,+GEO,+Counter,233,+Child iterators,[+Type,+GEO,+Term,+2,48.5 - 2,49.1,+Counter,46,+Size,51],[+Type,+GEO,+Term,+2,49.15 - 2.8,49.15,+Counter,187,+Size,187]],[+Type,+UNION,+Query type,+GEO,+Counter,158,+Child iterators,[+Type,+GEO,+Term,+2,49.2 - 2.35,49.25,+Counter,30,+Size,31],[+Type,+GEO,+Term,+2.4,49.2 - 2.95,49.45,+Counter,128,+Size,131]],[+Type,+GEO,+Term,+2,48.5 - 2,49.1,+Counter,46,+Size,51],[+Type,+GEO,+Term,+2.4,49.2 - 2.95,49.45,+Counter,128,+Size,131],[+Type,+GEO,+Term,+2.4,49.2 - 2.95,49.45,+Counter,128,+Size,131],[+Type,+GEO,+Term,+2.4,49.2 - 2.95,49.45,+Counter,128,+Size,131]]]";
    assert_eq!(profile(&mut c, "@loc:[2.5 49.0 60 km]"), sixty);
    // RediSearch's testGeoDistanceSimple: one box reaching one range.
    assert_eq!(c.cmd("FT.CREATE g SCHEMA location GEO"), Resp::Simple("OK".into()));
    for (k, p) in [("geo1", "1.22,4.56"), ("geo2", "1.24,4.56"), ("geo3", "1.23,4.55"), ("geo4", "1.23,4.57")]
    {
        assert_eq!(c.call(&["HSET", k, "location", p]), Resp::Int(1));
    }
    let r = c.call(&["FT.PROFILE", "g", "SEARCH", "QUERY", "@location:[1.23 4.56 10 km]", "NOCONTENT"]);
    assert_eq!(
        render(&r.items()[1].items()[4]),
        "[+Iterators profile,[+Type,+GEO,+Term,+1.23,4.55 - 1.24,4.56,+Counter,4,+Size,4]]"
    );
}
