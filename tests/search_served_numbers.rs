//! FT.AGGREGATE reads a NUMERIC field's value from the index when it is the document's one
//! number (no document read, so a worker needs no GIL for it): the replies are the ones the
//! documents give. A JSON path loaded by name (`LOAD 3 $.n AS n`) is always read from the
//! document, so it is the oracle for `@n`; numbers of every notation, nulls, arrays and
//! documents without the field are mixed in, on the main thread and on workers, and after
//! writes that change a document's shape.

mod common;

use common::*;

const VALUES: &[&str] = &[
    "1", "1.5", "-0.0", "0.1", "1e300", "-42", "9007199254740993", "123456789012", "2.50", "1E2", "null",
    "[3]", "[1,2,2]", "[]", "[4,null]",
];

/// The pipeline tail after field `n` is in the row, and how `n` is read: by attribute, or by
/// path (from the document).
fn pairs() -> Vec<(Vec<String>, Vec<String>)> {
    let tails: &[&[&str]] = &[
        &["SORTBY", "2", "@__key", "ASC", "LIMIT", "0", "1000"],
        &["APPLY", "@n*2", "AS", "m", "SORTBY", "2", "@__key", "ASC", "LIMIT", "0", "1000"],
        &["FILTER", "@n>1", "SORTBY", "2", "@__key", "ASC", "LIMIT", "0", "1000"],
        &["SORTBY", "4", "@n", "DESC", "@__key", "ASC", "LIMIT", "0", "1000"],
    ];
    let mut out = Vec::new();
    for t in tails {
        let by_attr = ["LOAD", "2", "@__key", "@n"].iter().chain(t.iter());
        let by_path = ["LOAD", "4", "@__key", "$.n", "AS", "n"].iter().chain(t.iter());
        out.push((by_attr.map(|s| s.to_string()).collect(), by_path.map(|s| s.to_string()).collect()));
    }
    out
}

/// An aggregate's rows in a fixed order (printed, sorted); it must not be an error.
fn rows(reply: Resp) -> Vec<String> {
    assert!(!reply.is_error(), "{reply:?}");
    let mut out: Vec<String> = reply.items().iter().skip(1).map(|r| format!("{r:?}")).collect();
    out.sort();
    assert!(out.len() > 3, "{out:?}");
    out
}

fn aggregate(c: &mut Conn, query: &str, tail: &[String]) -> Resp {
    let mut args = vec!["FT.AGGREGATE", "idx", query];
    args.extend(tail.iter().map(String::as_str));
    c.call(&args)
}

fn check(c: &mut Conn, what: &str) {
    let mut rows = 0;
    for query in ["*", "@k:[0 1000]"] {
        for (attr, path) in pairs() {
            let want = aggregate(c, query, &path);
            if let Resp::Array(v) = &want {
                rows += v.len().saturating_sub(1);
            }
            assert_eq!(aggregate(c, query, &attr), want, "{what}: {query} {attr:?}");
        }
    }
    assert!(rows > 100, "{what}: {rows} rows compared");
}

#[test]
fn numbers_from_the_index_are_the_documents() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "idx", "ON", "JSON", "PREFIX", "1", "d:", "SCHEMA", "$.n", "AS", "n", "NUMERIC",
            "$.k", "AS", "k", "NUMERIC", "SORTABLE",
        ]),
        ok()
    );
    for (i, v) in VALUES.iter().cycle().take(60).enumerate() {
        let doc = if i % 11 == 10 { format!(r#"{{"k":{i}}}"#) } else { format!(r#"{{"n":{v},"k":{i}}}"#) };
        assert_eq!(c.call(&["JSON.SET", &format!("d:{i}"), "$", &doc]), ok());
    }
    for workers in ["0", "2"] {
        assert_eq!(c.call(&["FT.CONFIG", "SET", "WORKERS", workers]), ok());
        check(&mut c, &format!("WORKERS {workers}"));
    }
    // GROUPBY reads the field as a property (arrays count once per element): the same groups
    // inline and on workers, and the same as with every value read from the document (a
    // document whose number turns into an array is read from it, not from the index).
    // (Not sorted by @n: RediSearch fails a sort of numbers against the group of the array
    // text `[4,null]`, "Error converting string '[4,null]' to number"; the rows are compared
    // in any order instead.)
    let group = ["GROUPBY", "1", "@n", "REDUCE", "COUNT", "0", "AS", "c"].map(String::from).to_vec();
    let inline_groups = {
        assert_eq!(c.call(&["FT.CONFIG", "SET", "WORKERS", "0"]), ok());
        rows(aggregate(&mut c, "*", &group))
    };
    assert_eq!(c.call(&["FT.CONFIG", "SET", "WORKERS", "2"]), ok());
    assert_eq!(rows(aggregate(&mut c, "*", &group)), inline_groups);
    // Writes change shapes: a number becomes an array, a path inside a document changes, a
    // document loses the field; the index follows and so do the replies.
    assert_eq!(c.call(&["JSON.SET", "d:0", "$.n", "[7,8]"]), ok());
    assert_eq!(c.call(&["JSON.NUMINCRBY", "d:1", "$.n", "2"]), Resp::bulk("[3.5]"));
    assert_eq!(c.call(&["JSON.DEL", "d:2", "$.n"]), Resp::Int(1));
    assert_eq!(c.call(&["JSON.SET", "d:3", "$.n", "5"]), ok());
    for workers in ["0", "2"] {
        assert_eq!(c.call(&["FT.CONFIG", "SET", "WORKERS", workers]), ok());
        check(&mut c, &format!("after writes, WORKERS {workers}"));
    }
    let after = rows(aggregate(&mut c, "*", &group));
    assert_ne!(after, inline_groups, "the groups follow the writes");
    assert_eq!(c.call(&["FT.CONFIG", "SET", "WORKERS", "0"]), ok());
    assert_eq!(rows(aggregate(&mut c, "*", &group)), after);
}
