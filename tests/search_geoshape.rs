//! GEOSHAPE fields: WKT points and polygons on HASH and JSON, the four predicates, indexing
//! and query errors in Boost.Geometry's words, FT.INFO, FT.EXPLAIN, FT.DEBUG DUMP_GEOMIDX and
//! persistence. The expectations are RediSearch 2.10.5's (its test_geometry_flat.py and
//! test_geometry_sphere.py, and replies measured on it).

mod common;

use common::*;

const SMALL: &str = "POLYGON((1 1, 1 100, 100 100, 100 1, 1 1))";
const LARGE: &str = "POLYGON((1 1, 1 200, 200 200, 200 1, 1 1), (2 2, 49 2, 49 49, 2 49, 2 2))";

/// The sorted keys of a NOCONTENT reply, after its total.
fn keys(r: &Resp) -> Vec<String> {
    let mut k: Vec<String> = r.items()[1..].iter().map(Resp::text).collect();
    k.sort();
    let mut out = vec![r.items()[0].int().to_string()];
    out.extend(k);
    out
}

fn shape_query(c: &mut Conn, index: &str, query: &str, shape: &str) -> Vec<String> {
    keys(&c.call(&["FT.SEARCH", index, query, "PARAMS", "2", "poly", shape, "NOCONTENT", "DIALECT", "3"]))
}

fn info_field(c: &mut Conn, index: &str, name: &str) -> Resp {
    let info = c.call(&["FT.INFO", index]);
    let items = info.items();
    let named = |r: &Resp| matches!(r, Resp::Simple(s) if s == name) || *r == Resp::bulk(name);
    let at = items.iter().position(named).unwrap_or_else(|| panic!("no {name} in FT.INFO"));
    items[at + 1].clone()
}

fn num_docs(c: &mut Conn, index: &str, field: &str) -> i64 {
    let r = c.call(&["FT.DEBUG", "DUMP_GEOMIDX", index, field]);
    let items = r.items();
    let at = items.iter().position(|r| *r == Resp::bulk("num_docs")).expect("num_docs");
    items[at + 1].int()
}

#[test]
fn predicates_on_hash_polygons_and_points() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA geom GEOSHAPE FLAT"), ok());
    c.call(&["HSET", "small", "geom", SMALL]);
    c.call(&["HSET", "large", "geom", LARGE]);
    let within = c.call(&[
        "FT.SEARCH",
        "idx",
        "@geom:[within $poly]",
        "PARAMS",
        "2",
        "poly",
        "POLYGON((0 0, 0 150, 150 150, 150 0, 0 0))",
        "DIALECT",
        "3",
    ]);
    assert_eq!(
        within,
        arr(vec![Resp::Int(1), Resp::bulk("small"), arr(vec![Resp::bulk("geom"), Resp::bulk(SMALL)])])
    );
    let q = "POLYGON((0 0, 0 150, 150 150, 150 0, 0 0))";
    assert_eq!(shape_query(&mut c, "idx", "@geom:[contains $poly]", q), ["0"]);
    let inner = "POLYGON((50 50, 50 99, 99 99, 99 50, 50 50))";
    assert_eq!(shape_query(&mut c, "idx", "@geom:[within $poly]", inner), ["0"]);
    assert_eq!(shape_query(&mut c, "idx", "@geom:[CONTAINS $poly]", inner), ["2", "large", "small"]);
    // Inside the hole of `large`: only `small` contains it.
    let in_hole = "POLYGON((10 10, 10 20, 20 20, 20 10, 10 10))";
    assert_eq!(shape_query(&mut c, "idx", "@geom:[contains $poly]", in_hole), ["1", "small"]);
    c.call(&["HSET", "point", "geom", "POINT(10 10)"]);
    assert_eq!(shape_query(&mut c, "idx", "@geom:[within $poly]", q), ["2", "point", "small"]);
    assert_eq!(shape_query(&mut c, "idx", "@geom:[contains $poly]", "POINT(50 50)"), ["2", "large", "small"]);
    // Nothing is within a point, and a point contains nothing.
    assert_eq!(shape_query(&mut c, "idx", "@geom:[within $poly]", "POINT(10 10)"), ["0"]);
    // A point that fails to parse leaves the index.
    c.call(&["HSET", "point", "geom", "POINT(255, 255)"]);
    let all = "POLYGON((0 0, 0 250, 250 250, 250 0, 0 0))";
    assert_eq!(shape_query(&mut c, "idx", "@geom:[within $poly]", all), ["2", "large", "small"]);
}

#[test]
fn intersects_and_disjoint() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA geom GEOSHAPE FLAT"), ok());
    for (k, w) in [
        ("point1", "POINT(10 10)"),
        ("point2", "POINT(50 50)"),
        ("triangle", "POLYGON((20 20, 25 35, 35 25, 20 20))"),
        ("rectangle", "POLYGON((60 60, 65 75, 70 70, 65 55, 60 60))"),
    ] {
        c.call(&["HSET", k, "geom", w]);
    }
    let q = "POLYGON((15 15, 75 15, 50 70, 20 40, 15 15))";
    assert_eq!(shape_query(&mut c, "idx", "@geom:[intersects $poly]", q), ["2", "point2", "triangle"]);
    assert_eq!(shape_query(&mut c, "idx", "@geom:[disjoint $poly]", q), ["2", "point1", "rectangle"]);
    // Combined with other clauses; a field of another type matches nothing.
    assert_eq!(c.cmd("FT.CREATE other SCHEMA geom TEXT"), ok());
    assert_eq!(shape_query(&mut c, "other", "@geom:[intersects $poly]", q), ["0"]);
    assert_eq!(shape_query(&mut c, "idx", "-@geom:[intersects $poly]", q), ["2", "point1", "rectangle"]);
}

#[test]
fn json_documents() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE idx ON JSON SCHEMA $.geom AS geom GEOSHAPE FLAT $.name AS name TEXT"), ok());
    c.call(&[
        "JSON.SET",
        "p1",
        "$",
        r#"{"geom": "POLYGON((1 1, 1 100, 100 100, 100 1, 1 1))", "name": "Homer"}"#,
    ]);
    c.call(&[
        "JSON.SET",
        "p2",
        "$",
        r#"{"geom": "POLYGON((1 1, 1 200, 200 200, 200 1, 1 1))", "name": "Bart"}"#,
    ]);
    let q = "POLYGON((0 0, 0 150, 150 150, 150 0, 0 0))";
    let r = c.call(&[
        "FT.SEARCH", "idx", "@geom:[within $poly]", "PARAMS", "2", "poly", q, "RETURN", "1", "geom",
        "DIALECT", "3",
    ]);
    assert_eq!(
        r,
        arr(vec![
            Resp::Int(1),
            Resp::bulk("p1"),
            arr(vec![Resp::bulk("geom"), Resp::bulk(r#"["POLYGON((1 1, 1 100, 100 100, 100 1, 1 1))"]"#)])
        ])
    );
    let r = c.call(&[
        "FT.SEARCH", "idx", "@name:(Ho*) @geom:[within $poly]", "PARAMS", "2", "poly", q, "NOCONTENT",
        "DIALECT", "2",
    ]);
    assert_eq!(keys(&r), ["1", "p1"]);
    // As in RediSearch 2.10, an array of shapes fails the document (it leaves the index).
    c.call(&["JSON.SET", "p1", "$", r#"{"geom": ["POINT(500 500)", "POINT(5 5)"], "name": "Lisa"}"#]);
    assert_eq!(
        info_field(&mut c, "idx", "Index Errors").items()[3].text(),
        "Invalid JSON type: Array type cannot represent GEOMETRY field"
    );
    assert_eq!(shape_query(&mut c, "idx", "@geom:[within $poly]", q), ["0"]);
    assert_eq!(num_docs(&mut c, "idx", "geom"), 1);
    // Numbers and booleans are not shapes.
    c.call(&["JSON.SET", "p4", "$", r#"{"geom": 5}"#]);
    assert_eq!(
        info_field(&mut c, "idx", "Index Errors").items()[3].text(),
        "Invalid JSON type: Numeric type can represent only NUMERIC field"
    );
    assert_eq!(num_docs(&mut c, "idx", "geom"), 1);
}

#[test]
fn indexing_errors_are_boosts() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE idx ON JSON SCHEMA $.geom AS geom GEOSHAPE $.name AS name TEXT"), ok());
    let cases = [
        ("POLIKON((1 1, 1 100, 100 100, 100 1, 1 1))", "Error indexing geoshape: Should start with 'POLYGON'' in (POLIKON((1 1, 1 100, 100 100, 100 1, 1 1)))"),
        ("POLYGON(1 1, 1 100, 100 100, 100 1, 1 1))", "Error indexing geoshape: Expected '(' at '1' in 'POLYGON(1 1, 1 100, 100 100, 100 1, 1 1))'"),
        ("POLYGON(()())", "Error indexing geoshape: invalid geometry: Geometry has too few points"),
        ("POLYGON((1 1, 1 100, 1 1))", "Error indexing geoshape: invalid geometry: Geometry has too few points"),
        ("POLYGON((1 1, 1 200, 1 100, 100 1, 1 1))", "Error indexing geoshape: invalid geometry: Geometry has spikes. A spike point was found with apex at (1, 200)"),
        ("POLYGON((1 1, 1 100, 50 50, 50 -50, 1 150, 100 50, 1 1))", "Error indexing geoshape: invalid geometry: Geometry has invalid self-intersections. A self-intersection point was found at (17.3333, 83.3333)"),
        ("POLYGON((1 1, 1 100, 100 100, 100 1, 1 1) (25 150, 75 150, 75 250, 25 250, 25 150))", "Error indexing geoshape: invalid geometry: Geometry has interior rings defined outside the outer boundary"),
        ("POLYGON((1 1, 1 100, 100 100, 100 1, 1 1) (25 25, 75 25, 75 75, 25 75, 25 25) (49 49, 51 49, 51 51, 49 51, 49 49))", "Error indexing geoshape: invalid geometry: Geometry has nested interior rings"),
        ("POLYGON((1 1, 1 100, 100 100, bart, 1 1))", "Error indexing geoshape: bad lexical cast: source type value could not be interpreted as target at 'bart' in 'POLYGON((1 1, 1 100, 100 100, bart, 1 1))'"),
        ("polygon((1 1, 1 100, 100 100, 100 1, 1 1))", "Error indexing geoshape: unknown geometry type"),
    ];
    for (i, (wkt, msg)) in cases.iter().enumerate() {
        let doc = serde_json_string(wkt);
        c.call(&["JSON.SET", &format!("p{i}"), "$", &format!(r#"{{"geom": {doc}}}"#)]);
        let errors = info_field(&mut c, "idx", "Index Errors");
        assert_eq!(errors.items()[3].text(), *msg, "{wkt}");
    }
    // Accepted as Boost reads them: a missing comma, an extra coordinate pair, a repeated point.
    for (i, wkt) in [
        "POLYGON((1 1, 1 100 100 100, 100 1, 1 1))",
        "POLYGON((1 1 1 100, 100 100, 100 1, 1 1))",
        "POLYGON((1 1, 1 100, 100 100, 100 1, 100 1, 1 1))",
        "POLYGON((1 1, 1 100, 50 50, 50 -50, 1 1))",
    ]
    .iter()
    .enumerate()
    {
        c.call(&["JSON.SET", &format!("ok{i}"), "$", &format!(r#"{{"geom": {}}}"#, serde_json_string(wkt))]);
    }
    assert_eq!(info_field(&mut c, "idx", "hash_indexing_failures"), Resp::Int(cases.len() as i64));
    assert_eq!(num_docs(&mut c, "idx", "geom"), 4);
}

fn serde_json_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

#[test]
fn query_errors() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA geom GEOSHAPE name TEXT"), ok());
    let q = "POLYGON((0 0, 0 150, 150 150, 150 0, 0 0))";
    let search = |c: &mut Conn, query: &str, params: &[&str], dialect: &str| {
        let mut args = vec!["FT.SEARCH", "idx", query];
        if !params.is_empty() {
            args.push("PARAMS");
            args.push("2");
            args.extend(params);
        }
        args.extend(["NOCONTENT", "DIALECT", dialect]);
        c.call(&args).err().to_string()
    };
    let cases: [(&str, &[&str], &str, &str); 11] = [
        ("@geom:[wizin $poly]", &["poly", q], "3", "Syntax error: Expecting a geoshape predicate at offset 13"),
        ("@geom:[containss $poly]", &["poly", q], "3", "Syntax error: Expecting a geoshape predicate at offset 17"),
        ("@geom:[within poly]", &[], "3", "Syntax error at offset 7 near within"),
        ("@geom:[within $]", &[], "3", "Syntax error at offset 15 near within"),
        ("@geom:[within $poly]", &["poly", q], "1", "Syntax error at offset 7 near within"),
        ("@geom:[within $poly]", &["poly", "POLIGON((0 0, 0 150, 150 150, 150 0, 0 0))"], "3", "Error querying geoshape index: Should start with 'POLYGON'' in (POLIGON((0 0, 0 150, 150 150, 150 0, 0 0)))"),
        ("@geom:[within $poly]", &["poly", ""], "3", "Error querying geoshape index: unknown geometry type"),
        ("@geom:[within $poly]", &["poly", "POLYGON"], "3", "Error querying geoshape index: Expected '(' in 'POLYGON'"),
        ("@geom:[within $poly]", &["poly", "POLYGON((0 0, 0 1, 0 0))"], "3", "Error querying geoshape index: invalid geometry: Geometry has too few points"),
        ("@geom:[contains $poly]", &["moly", q], "3", "No such parameter `poly`"),
        ("@geom:[within $poly]", &[], "3", "No such parameter `poly`"),
    ];
    for (query, params, dialect, want) in cases {
        assert_eq!(search(&mut c, query, params, dialect), want, "{query} {params:?}");
    }
}

#[test]
fn explain_info_and_dump() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA geom GEOSHAPE FLAT geom2 GEOSHAPE txt TEXT"), ok());
    assert_eq!(c.cmd("FT.CREATE plain SCHEMA txt TEXT"), ok());
    let explain = |c: &mut Conn, q: &str| {
        c.call(&[
            "FT.EXPLAIN", "idx", q, "PARAMS", "2", "poly", "POLYGON((0 0, 0 1, 1 1, 0 0))", "DIALECT", "3",
        ])
        .text()
    };
    assert_eq!(explain(&mut c, "@geom:[WITHIN $poly]"), "GEOSHAPE{2 POLYGON((0 0, 0 1, 1 1, 0 0))}\n");
    assert_eq!(
        explain(&mut c, "@geom:[CONTAINS $poly]=>{$weight: 3;}"),
        "GEOSHAPE{1 POLYGON((0 0, 0 1, 1 1, 0 0))} => { $weight: 3; }\n"
    );
    let attrs = info_field(&mut c, "idx", "attributes");
    let coords: Vec<String> = attrs
        .items()
        .iter()
        .filter_map(|a| {
            let a = a.items();
            a.iter().position(|x| *x == Resp::Simple("coord_system".into())).map(|i| a[i + 1].text())
        })
        .collect();
    assert_eq!(coords, ["FLAT", "SPHERICAL"]);
    // geoshapes_sz_mb: not moved by other fields, up with every shape, down with every delete.
    let mb =
        |c: &mut Conn, index: &str| info_field(c, index, "geoshapes_sz_mb").text().parse::<f64>().unwrap();
    let empty = mb(&mut c, "idx");
    assert!(empty > 0.0);
    assert_eq!(mb(&mut c, "plain"), 0.0);
    c.call(&["HSET", "doc0", "txt", "Not a real POLYGON((1 1, 1 100, 100 100, 100 1, 1 1))"]);
    assert_eq!(mb(&mut c, "idx"), empty);
    let mut last = empty;
    for i in 1..=200 {
        let (a, b) = (2 * i, 100 + 2 * i);
        c.call(&[
            "HSET",
            &format!("doc{i}"),
            "geom",
            &format!("POLYGON(({a} {a}, {a} {b}, {b} {b}, {b} {a}, {a} {a}))"),
        ]);
        let now = mb(&mut c, "idx");
        assert!(now > last, "doc{i}: {now} <= {last}");
        last = now;
    }
    for i in 1..100 {
        c.call(&["DEL", &format!("doc{i}")]);
        let now = mb(&mut c, "idx");
        assert!(now < last, "del doc{i}");
        last = now;
    }
    // DUMP_GEOMIDX follows updates, failed updates and deletes, per field.
    c.cmd("FLUSHALL");
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA geom GEOSHAPE FLAT geom2 GEOSHAPE FLAT"), ok());
    c.call(&["HSET", "k1", "geom", SMALL]);
    c.call(&["HSET", "k2", "geom", LARGE, "geom2", "POINT(3 4)"]);
    assert_eq!((num_docs(&mut c, "idx", "geom"), num_docs(&mut c, "idx", "geom2")), (2, 1));
    c.call(&["HSET", "k2", "geom", ""]);
    assert_eq!((num_docs(&mut c, "idx", "geom"), num_docs(&mut c, "idx", "geom2")), (1, 0));
    let dump = c.call(&["FT.DEBUG", "DUMP_GEOMIDX", "idx", "geom"]);
    let doc = dump.items()[7].items()[0].items().to_vec();
    assert_eq!(doc[2].text(), "geoshape");
    assert_eq!(doc[3].text(), "POLYGON((1 1,1 100,100 100,100 1,1 1))");
    assert_eq!(doc[5].text(), "POLYGON((1 1,1 100,100 100,100 1,1 1))");
    c.call(&["DEL", "k1"]);
    assert_eq!(num_docs(&mut c, "idx", "geom"), 0);
    assert!(c.call(&["FT.DEBUG", "DUMP_GEOMIDX", "idx", "nope"]).is_error());
}

#[test]
fn survives_reload() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE idx SCHEMA flat GEOSHAPE FLAT round GEOSHAPE SPHERICAL SORTABLE"), ok());
    c.call(&["HSET", "a", "flat", SMALL, "round", "POINT(34.9 29.7)"]);
    c.call(&["HSET", "b", "flat", LARGE]);
    let before = c.call(&["FT.INFO", "idx"]);
    let attrs_before = info_field(&mut c, "idx", "attributes");
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    assert_eq!(info_field(&mut c, "idx", "attributes"), attrs_before);
    assert_eq!(info_field(&mut c, "idx", "num_docs"), Resp::Int(2));
    let inner = "POLYGON((50 50, 50 99, 99 99, 99 50, 50 50))";
    assert_eq!(shape_query(&mut c, "idx", "@flat:[contains $poly]", inner), ["2", "a", "b"]);
    let area = "POLYGON((34 29, 34 30, 35 30, 35 29, 34 29))";
    assert_eq!(shape_query(&mut c, "idx", "@round:[within $poly]", area), ["1", "a"]);
    assert!(!before.is_error());
}
