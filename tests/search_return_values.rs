//! What FT.SEARCH gives back for a field's value: RediSearch's loader turns a JSON number,
//! and a hash value of a NUMERIC attribute named in RETURN, into a double and prints that
//! (`1.0` comes back as `1`); from DIALECT 3 a JSON field comes back as the array of its
//! matches, except a SORTABLE one, read from the sorting vector. Every expectation below was
//! measured on RediSearch 2.10.5 + RedisJSON 2.8.3 (Redis 7.4.1), 2026-12-02.

mod common;

use common::*;

fn bulks(items: &[&str]) -> Resp {
    arr(items.iter().map(|s| Resp::bulk(s)).collect())
}

fn json_index(c: &mut Conn) {
    for args in [
        &[
            "FT.CREATE", "j", "ON", "JSON", "PREFIX", "1", "jj:", "SCHEMA", "$.name", "AS", "name", "TEXT",
            "SORTABLE", "$.n", "AS", "n", "NUMERIC", "SORTABLE", "$.y", "AS", "y", "NUMERIC", "$.t", "AS",
            "t", "TEXT",
        ][..],
        &[
            "JSON.SET",
            "jj:1",
            "$",
            r#"{"name":"Hello World","n":1.0,"y":123456789012345678,"t":"big murobo","r":1e300}"#,
        ],
    ] {
        assert_eq!(c.call(args), ok());
    }
}

#[test]
fn json_numbers_come_back_through_a_double() {
    let server = Server::start();
    let mut c = server.conn();
    json_index(&mut c);
    let reply = c.call(&["FT.SEARCH", "j", "*", "RETURN", "4", "n", "y", "$.r", "$.name"]);
    assert_eq!(
        reply,
        arr(vec![
            Resp::Int(1),
            Resp::bulk("jj:1"),
            bulks(&["n", "1", "y", "123456789012345680", "$.r", "1e+300", "$.name", "Hello World"]),
        ])
    );
    // The SORTBY attribute, first, and the document itself as RedisJSON prints it.
    let reply = c.call(&["FT.SEARCH", "j", "*", "SORTBY", "n"]);
    let fields = reply.items()[2].items().to_vec();
    assert_eq!(fields[..2], [Resp::bulk("n"), Resp::bulk("1")]);
    assert_eq!(fields[2], Resp::bulk("$"));
    assert!(fields[3].text().contains(r#""n":1.0"#), "{:?}", fields[3]);
}

#[test]
fn dialect_3_returns_arrays_but_sortable_fields_come_from_the_sorting_vector() {
    let server = Server::start();
    let mut c = server.conn();
    json_index(&mut c);
    let q = |c: &mut Conn, extra: &[&str]| {
        let mut args = vec!["FT.SEARCH", "j", "*", "DIALECT", "3"];
        args.extend_from_slice(extra);
        c.call(&args).items()[2].clone()
    };
    assert_eq!(
        q(&mut c, &["RETURN", "4", "n", "name", "y", "$.name"]),
        bulks(&[
            "n", "1", "name", "Hello World", "y", "[123456789012345678]", "$.name", r#"["Hello World"]"#
        ])
    );
    assert_eq!(q(&mut c, &["SORTBY", "n", "RETURN", "1", "y"]), bulks(&["y", "[123456789012345678]"]));
    assert_eq!(q(&mut c, &["SORTBY", "y", "RETURN", "1", "n"]), bulks(&["n", "1"]));
    // An array text is no string: neither highlighted nor summarized.
    let hl = c.call(&[
        "FT.SEARCH", "j", "murobo", "DIALECT", "3", "RETURN", "1", "t", "HIGHLIGHT", "FIELDS", "1", "t",
    ]);
    assert_eq!(hl.items()[2], bulks(&["t", r#"["big murobo"]"#]));
    let hl = c.call(&[
        "FT.SEARCH", "j", "murobo", "DIALECT", "2", "RETURN", "1", "t", "HIGHLIGHT", "FIELDS", "1", "t",
    ]);
    assert_eq!(hl.items()[2], bulks(&["t", "big <b>murobo</b>"]));
}

#[test]
fn hash_numeric_attributes_named_in_return_come_back_through_a_double() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "h", "ON", "HASH", "PREFIX", "1", "hh:", "SCHEMA", "n", "NUMERIC", "SORTABLE",
            "name", "TEXT", "SORTABLE", "x", "NUMERIC"
        ]),
        ok()
    );
    for (key, x) in [("hh:1", "2.0"), ("hh:4", "0x10"), ("hh:5", "1.50")] {
        c.call(&["HSET", key, "n", "1.0", "name", "Hello World", "x", x, "other", "3.0"]);
    }
    let r = c.call(&["FT.SEARCH", "h", "*", "RETURN", "4", "n", "name", "x", "other", "SORTBY", "x"]);
    assert_eq!(
        r,
        arr(vec![
            Resp::Int(3),
            Resp::bulk("hh:5"),
            bulks(&["x", "1.5", "n", "1", "name", "Hello World", "other", "3.0"]),
            Resp::bulk("hh:1"),
            bulks(&["x", "2", "n", "1", "name", "Hello World", "other", "3.0"]),
            Resp::bulk("hh:4"),
            bulks(&["x", "16", "n", "1", "name", "Hello World", "other", "3.0"]),
        ])
    );
    // Without RETURN the hash comes back as HGETALL gives it, the SORTBY field too.
    let r = c.call(&["FT.SEARCH", "h", "*", "SORTBY", "x", "LIMIT", "0", "1"]);
    assert_eq!(r.items()[2].items()[..2], [Resp::bulk("x"), Resp::bulk("1.50")]);
    assert!(r.items()[2].items().contains(&Resp::bulk("1.0")));
}

#[test]
fn hash_numbers_are_read_as_redis_reads_a_double() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(
        c.call(&["FT.CREATE", "hn", "ON", "HASH", "PREFIX", "1", "hn:", "SCHEMA", "x", "NUMERIC"]),
        ok()
    );
    let values = [
        "0x10", " 5", "5 ", "inf", "-inf", "nan", "1e400", "+5", ".5", "5.", "1e", "", "0X1p4", "infinity",
        "1e-400", "-0", "0x", "  ",
    ];
    for (i, v) in values.iter().enumerate() {
        c.call(&["HSET", &format!("hn:{}", i + 1), "x", v]);
    }
    // RediSearch indexes what `RedisModule_StringToDouble` reads, and RETURN prints the double.
    // (The order of equal values is left out: RediSearch's sorter does not keep one.)
    let r = c.call(&["FT.SEARCH", "hn", "*", "RETURN", "1", "x", "LIMIT", "0", "100"]);
    assert_eq!(r.items()[0], Resp::Int(9));
    let mut got: Vec<(String, Resp)> =
        r.items()[1..].chunks(2).map(|p| (p[0].text(), p[1].clone())).collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    let mut want = Vec::new();
    for (key, x) in [
        ("hn:5", "-inf"),
        ("hn:16", "0"),
        ("hn:9", "0.5"),
        ("hn:10", "5"),
        ("hn:8", "5"),
        ("hn:1", "16"),
        ("hn:13", "16"),
        ("hn:4", "inf"),
        ("hn:14", "inf"),
    ] {
        want.push((key.to_string(), bulks(&["x", x])));
    }
    want.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(got, want);
}

/// The SORTBY attribute FT.SEARCH puts first in a JSON row: for a SORTABLE NUMERIC one before
/// DIALECT 3, the sorting vector's value, so the first number of an array (from DIALECT 3,
/// and what RETURN names, come from the document: the array). Measured on RediSearch 2.10.5 + RedisJSON 2.8.3,
/// 2026-12-06.
#[test]
fn a_sortable_number_array_sorts_and_shows_by_its_first_number() {
    let server = Server::start();
    let mut c = server.conn();
    for args in [
        &[
            "FT.CREATE", "a", "ON", "JSON", "PREFIX", "1", "a:", "SCHEMA", "$.p", "AS", "p", "NUMERIC",
            "SORTABLE",
        ][..],
        &["JSON.SET", "a:1", "$", r#"{"p":[1,2]}"#],
        &["JSON.SET", "a:2", "$", r#"{"p":12.50}"#],
    ] {
        assert_eq!(c.call(args), ok());
    }
    let row = |c: &mut Conn, extra: &[&str]| {
        let mut args = vec!["FT.SEARCH", "a", "*", "SORTBY", "p"];
        args.extend_from_slice(extra);
        let r = c.call(&args);
        (r.items()[1].text(), r.items()[2].items()[..2].to_vec())
    };
    for dialect in ["1", "2"] {
        assert_eq!(
            row(&mut c, &["DIALECT", dialect]),
            ("a:1".into(), vec![Resp::bulk("p"), Resp::bulk("1")])
        );
    }
    assert_eq!(row(&mut c, &["DIALECT", "3"]), ("a:1".into(), vec![Resp::bulk("p"), Resp::bulk("[[1,2]]")]));
    assert_eq!(
        row(&mut c, &["RETURN", "1", "p"]),
        ("a:1".into(), vec![Resp::bulk("p"), Resp::bulk("[1,2]")])
    );
    let r = c.call(&["FT.SEARCH", "a", "*", "SORTBY", "p", "DESC", "LIMIT", "0", "1"]);
    assert_eq!(r.items()[2].items()[..2], [Resp::bulk("p"), Resp::bulk("12.5")]);
}

/// SORTBY on a NUMERIC attribute that is not SORTABLE and holds arrays: before DIALECT 3
/// RediSearch loads each array as its JSON text and sorts by the text (its flow tests'
/// `testSortByArrBWC`); beside a plain number, its sorter fails to read the text as a number.
/// From DIALECT 3, by the first number. Measured on RediSearch 2.10.5 + RedisJSON 2.8.3,
/// 2026-12-06.
#[test]
fn a_numeric_array_sorts_by_its_text_before_dialect_3() {
    let server = Server::start();
    let mut c = server.conn();
    for args in [
        &["FT.CREATE", "s", "ON", "JSON", "PREFIX", "1", "s:", "SCHEMA", "$.top", "AS", "val", "NUMERIC"][..],
        &["JSON.SET", "s:1", "$", r#"{"top":[12,-12,5.5]}"#],
        &["JSON.SET", "s:2", "$", r#"{"top":[3,-3]}"#],
        &["JSON.SET", "s:3", "$", r#"{"top":[100,1]}"#],
    ] {
        assert_eq!(c.call(args), ok());
    }
    let order = |c: &mut Conn, dialect: &str, desc: bool| {
        let mut args = vec!["FT.SEARCH", "s", "@val:[-1000 1000]", "SORTBY", "val"];
        if desc {
            args.push("DESC");
        }
        args.extend_from_slice(&["NOCONTENT", "DIALECT", dialect]);
        let r = c.call(&args);
        r.items()[1..].iter().map(Resp::text).collect::<Vec<_>>()
    };
    for dialect in ["1", "2"] {
        assert_eq!(order(&mut c, dialect, false), ["s:3", "s:1", "s:2"], "[100 < [12 < [3");
        assert_eq!(order(&mut c, dialect, true), ["s:2", "s:1", "s:3"]);
    }
    assert_eq!(order(&mut c, "3", false), ["s:2", "s:1", "s:3"], "3 < 12 < 100");
    // The array text shows as the row's value.
    let r = c.call(&["FT.SEARCH", "s", "@val:[-1000 1000]", "SORTBY", "val", "LIMIT", "0", "1"]);
    assert_eq!(r.items()[2].items()[..2], [Resp::bulk("val"), Resp::bulk("[100,1]")]);
    assert_eq!(c.call(&["JSON.SET", "s:4", "$", r#"{"top":7}"#]), ok());
    let r = c.call(&["FT.SEARCH", "s", "@val:[-1000 1000]", "SORTBY", "val", "NOCONTENT"]);
    assert_eq!(r.err(), "Error converting string '[12,-12,5.5]' to number");
    assert_eq!(order(&mut c, "3", false), ["s:2", "s:4", "s:1", "s:3"]);
}

/// A hash's fields come back in the order RediSearch 2.10 loads them: `RedisModule_ScanKey`'s,
/// which for a hash kept as a table (a value over 64 bytes) is SCAN's cursor order, not
/// HGETALL's; across rows, a field takes the place where the page first met it (RediSearch's
/// lookup keys). The table's order depends on the server's hash seed, so the expectation is
/// built from HSCAN on the same server. Before folio read hashes with HGETALL: 0 of 5 pages
/// matched on Redis 7.4.1 (RediSearch 2.10.5: 5 of 5).
#[test]
fn hash_fields_come_in_scan_order_as_redisearch_loads_them() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.call(&["FT.CREATE", "h", "ON", "HASH", "PREFIX", "1", "hx:", "SCHEMA", "t", "TAG"]), ok());
    let long = "x".repeat(70);
    for i in 0..30 {
        let mut args = vec!["HSET".to_string(), format!("hx:{i:02}"), "t".into(), "a".into()];
        for j in 0..3 + i % 9 {
            args.push(format!("f{j}"));
            args.push(if j == 0 { long.clone() } else { format!("v{j}") });
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert!(matches!(c.call(&args), Resp::Int(_)));
    }
    assert_eq!(c.call(&["OBJECT", "ENCODING", "hx:05"]), Resp::bulk("hashtable"));
    let mut differing_from_hgetall = 0;
    for page in 0..5 {
        let offset = (page * 5).to_string();
        let reply = c.call(&["FT.SEARCH", "h", "@t:{a}", "LIMIT", &offset, "10"]);
        let rows = reply.items();
        let mut seen: Vec<Resp> = Vec::new();
        let mut expected = vec![rows[0].clone()];
        let mut scans = Vec::new();
        for key in rows[1..].iter().step_by(2) {
            let scan = c.call(&["HSCAN", &key.text(), "0", "COUNT", "1000"]).items()[1].items().to_vec();
            for name in scan.iter().step_by(2) {
                if !seen.contains(name) {
                    seen.push(name.clone());
                }
            }
            let all = c.call(&["HGETALL", &key.text()]);
            differing_from_hgetall += usize::from(all.items() != &scan[..]);
            scans.push((key.clone(), scan));
        }
        for (key, scan) in scans {
            let value = |name: &Resp| scan.chunks(2).find(|p| &p[0] == name).map(|p| p[1].clone());
            let fields = seen.iter().filter_map(|n| value(n).map(|v| [n.clone(), v])).flatten().collect();
            expected.push(key);
            expected.push(arr(fields));
        }
        assert_eq!(reply, arr(expected), "page {page}");
    }
    // The check means something only where the two orders differ.
    assert!(differing_from_hgetall > 0);
}

/// A hash field whose name holds a NUL byte is read as any other (the module API's C-string
/// field names cannot hold it: such a name goes as a module string), by RETURN and LOAD.
#[test]
fn hash_fields_named_with_a_nul_byte_are_read() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.call(&["FT.CREATE", "h", "ON", "HASH", "PREFIX", "1", "hn:", "SCHEMA", "t", "TAG"]), ok());
    assert_eq!(c.call(&["HSET", "hn:1", "t", "a", "x\0y", "v1", "x", "v2"]), Resp::Int(3));
    let reply = c.call(&["FT.SEARCH", "h", "@t:{a}", "RETURN", "2", "x\0y", "x"]);
    assert_eq!(reply, arr(vec![Resp::Int(1), Resp::bulk("hn:1"), bulks(&["x\0y", "v1", "x", "v2"])]));
    let reply = c.call(&["FT.AGGREGATE", "h", "*", "LOAD", "2", "@x\0y", "@x"]);
    assert_eq!(reply, arr(vec![Resp::Int(1), bulks(&["x\0y", "v1", "x", "v2"])]));
}
