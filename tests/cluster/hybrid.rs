//! FT.HYBRID on the cluster against a single server holding the same documents: random
//! queries (text and vector sides, KNN and RANGE, FILTER, RRF and LINEAR, the tail's steps)
//! over a HASH and a JSON index, RESP2 and RESP3, replies equal but for `execution_time`,
//! scores to 1e-9 relative, and rows of exactly equal fused score in any order.
//!
//! Documents are loaded in key order, so a single server's ties (by indexing order) are the
//! cluster's (by key) and even tied rows mostly come in the same order.

use crate::common::{Conn, Resp, Server};
use crate::harness::Cluster;
use crate::load_cluster;
use crate::workload::{blob, Rng};

/// The two indexes: HASH (L2) and JSON (COSINE), text, tag, numeric and a FLAT vector.
const INDEXES: [&str; 2] = [
    "FT.CREATE hh ON HASH PREFIX 1 h: SCHEMA title TEXT WEIGHT 2 body TEXT tag TAG n NUMERIC SORTABLE \
     v VECTOR FLAT 6 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2",
    "FT.CREATE jj ON JSON PREFIX 1 j: SCHEMA $.title AS title TEXT $.body AS body TEXT $.tag AS tag TAG \
     $.n AS n NUMERIC v VECTOR FLAT 6 TYPE FLOAT32 DIM 4 DISTANCE_METRIC COSINE",
];

/// Words of the documents and queries (few, so that queries match many documents).
const WORDS: [&str; 12] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo",
    "lima",
];

fn vector(rng: &mut Rng) -> [f32; 4] {
    [0, 1, 2, 3].map(|_| (rng.below(2000) as f32 - 1000.0) / 100.0)
}

fn words(rng: &mut Rng, lo: u64, hi: u64) -> String {
    let n = lo + rng.below(hi - lo);
    (0..n).map(|_| *rng.pick(&WORDS)).collect::<Vec<_>>().join(" ")
}

/// `n` HASH documents then `n` JSON documents, in key order, as command argument lists.
fn documents(rng: &mut Rng, n: usize) -> Vec<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for i in 0..n {
        let (title, body, n, v) = (words(rng, 1, 4), words(rng, 3, 15), rng.below(100), vector(rng));
        let tag = format!("t{}", rng.below(6));
        let args: Vec<Vec<u8>> = vec![
            b"HSET".to_vec(),
            format!("h:{i:04}").into_bytes(),
            b"title".to_vec(),
            title.into_bytes(),
            b"body".to_vec(),
            body.into_bytes(),
            b"tag".to_vec(),
            tag.into_bytes(),
            b"n".to_vec(),
            n.to_string().into_bytes(),
            b"v".to_vec(),
            blob(v),
        ];
        out.push(args);
    }
    for i in 0..n {
        let (title, body, n, v) = (words(rng, 1, 4), words(rng, 3, 15), rng.below(100), vector(rng));
        let tag = format!("t{}", rng.below(6));
        let json = format!(
            r#"{{"title":"{title}","body":"{body}","tag":"{tag}","n":{n},"v":[{},{},{},{}]}}"#,
            v[0], v[1], v[2], v[3]
        );
        out.push(vec![
            b"JSON.SET".to_vec(),
            format!("j:{i:04}").into_bytes(),
            b"$".to_vec(),
            json.into_bytes(),
        ]);
    }
    out
}

fn text_query(rng: &mut Rng) -> String {
    let w = |rng: &mut Rng| *rng.pick(&WORDS);
    match rng.below(8) {
        0 => w(rng).to_string(),
        1 => format!("{} {}", w(rng), w(rng)),
        2 => format!("{}|{}", w(rng), w(rng)),
        3 => format!("@title:{}", w(rng)),
        4 => format!("@tag:{{t{}}}", rng.below(6)),
        5 => format!("{} @n:[{} {}]", w(rng), rng.below(50), 50 + rng.below(50)),
        6 => format!("{}*", &w(rng)[..2]),
        _ => format!("{} -{}", w(rng), w(rng)),
    }
}

/// A random FT.HYBRID on `index` (vectors as a PARAMS blob; `resp3`: for a RESP3 client);
/// the name its fused score shows under (None: not shown), and whether the rows' order is by
/// that score alone. About one in twenty is an error (no such index, a syntax error, a field
/// that is no vector, a parameter not given).
fn random_hybrid(rng: &mut Rng, index: &str, resp3: bool) -> (Vec<Vec<u8>>, Option<String>, bool) {
    let wrong = rng.below(20) == 0;
    let mistake = rng.below(4);
    let index = if wrong && mistake == 0 { "nosuch" } else { index };
    let query = if wrong && mistake == 1 { "@title:(alpha".to_string() } else { text_query(rng) };
    let mut a: Vec<String> = vec!["FT.HYBRID".into(), index.into(), "SEARCH".into(), query];
    match rng.below(5) {
        0 => a.extend(["SCORER".into(), "TFIDF".into()]),
        1 => a.extend(["SCORER".into(), "BM25STD.NORM".into()]),
        2 if rng.below(2) == 0 => a.extend(["SCORER".into(), "DISMAX".into()]),
        _ => {}
    }
    if rng.below(3) == 0 {
        a.extend(["YIELD_SCORE_AS".into(), "ts".into()]);
    }
    let field = if wrong && mistake == 2 { "@title" } else { "@v" };
    let param = if wrong && mistake == 3 { "$other" } else { "$vec" };
    a.extend(["VSIM".into(), field.into(), param.into()]);
    if rng.below(3) == 0 {
        a.extend(["RANGE".into(), "2".into(), "RADIUS".into()]);
        a.push(if index == "hh" {
            format!("{}", 100 + rng.below(300))
        } else {
            format!("0.{}", 1 + rng.below(6))
        });
    } else if rng.below(2) == 0 {
        a.extend(["KNN".into(), "2".into(), "K".into(), (1 + rng.below(40)).to_string()]);
    }
    if rng.below(3) == 0 {
        let f = if rng.below(2) == 0 {
            format!("@n:[{} {}]", rng.below(60), 40 + rng.below(60))
        } else {
            format!("@tag:{{t{}|t{}}}", rng.below(6), rng.below(6))
        };
        a.extend(["FILTER".into(), f]);
    }
    if rng.below(3) == 0 {
        a.extend(["YIELD_SCORE_AS".into(), "vs".into()]);
    }
    let mut combined = false;
    if rng.below(5) != 0 {
        let mut c: Vec<String> = Vec::new();
        let linear = rng.below(2) == 0;
        if linear && rng.below(3) != 0 {
            let alpha = rng.below(11) as f64 / 10.0;
            c.extend(["ALPHA".into(), alpha.to_string(), "BETA".into(), format!("{}", 1.0 - alpha)]);
        } else if !linear && rng.below(2) == 0 {
            c.extend(["CONSTANT".into(), (1 + rng.below(80)).to_string()]);
        }
        if rng.below(2) == 0 {
            c.extend(["WINDOW".into(), (1 + rng.below(60)).to_string()]);
        }
        if rng.below(3) == 0 {
            c.extend(["YIELD_SCORE_AS".into(), "fused".into()]);
            combined = true;
        }
        if !c.is_empty() {
            a.extend(["COMBINE".into(), if linear { "LINEAR" } else { "RRF" }.into(), c.len().to_string()]);
            a.extend(c);
        }
    }
    // The tail.
    let mut shown = Some(if combined { "fused" } else { "__score" }.to_string());
    let mut by_score = true;
    match rng.below(5) {
        0 => a.extend(["LOAD", "4", "@__key", "@title", "@n", "@tag"].map(String::from)),
        1 => a.extend(["LOAD", "4", "@__key", "@__score", "@tag", "@n"].map(String::from)),
        2 if rng.below(2) == 0 => a.extend(["LOAD".into(), "*".into()]),
        _ => {}
    }
    let step = rng.below(6);
    // The steps read @n and @tag, which only a LOAD brings (most of the time: else an error).
    if step < 4 && !a.iter().any(|x| x == "LOAD") && rng.below(8) != 0 {
        a.extend(["LOAD", "3", "@__key", "@n", "@tag"].map(String::from));
    }
    if a.iter().any(|x| x == "LOAD") && !a.iter().any(|x| x == "@__score") && !combined {
        shown = None;
    }
    match step {
        0 => {
            a.extend([
                "GROUPBY".into(),
                "1".into(),
                "@tag".into(),
                "REDUCE".into(),
                "COUNT".into(),
                "0".into(),
            ]);
            a.extend(["AS".into(), "c".into(), "REDUCE".into(), "SUM".into(), "1".into(), "@n".into()]);
            a.extend(["AS".into(), "s".into(), "SORTBY".into(), "4".into(), "@c".into(), "DESC".into()]);
            a.extend(["@tag".into(), "ASC".into()]);
            (shown, by_score) = (None, false);
        }
        1 => {
            a.extend(["SORTBY", "4", "@n", "DESC", "@tag", "ASC"].map(String::from));
            by_score = false;
        }
        2 if rng.below(2) == 0 => a.extend(["APPLY", "@n * 2", "AS", "n2"].map(String::from)),
        2 => a.extend(["APPLY", "upper(@tag)", "AS", "up", "FILTER", "@n % 3 != 1"].map(String::from)),
        3 => a.extend(["FILTER".into(), format!("@n > {}", rng.below(80))]),
        _ => {}
    }
    if rng.below(2) == 0 {
        a.extend(["LIMIT".into(), rng.below(5).to_string(), (1 + rng.below(30)).to_string()]);
    }
    if rng.below(6) == 0 {
        a.extend(["TIMEOUT".into(), if rng.below(2) == 0 { "0" } else { "20000" }.into()]);
    }
    if resp3 && index == "jj" && rng.below(5) == 0 {
        a.extend(["FORMAT".into(), "EXPAND".into()]);
    }
    let mut args: Vec<Vec<u8>> = a.into_iter().map(String::into_bytes).collect();
    args.extend([b"PARAMS".to_vec(), b"2".to_vec(), b"vec".to_vec(), blob(vector(rng))]);
    (args, shown, by_score)
}

/// Two scalars equal, numbers to 1e-9 relative.
fn same_scalar(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
        _ => false,
    }
}

/// A reply as text, with `execution_time`'s value blanked.
fn scalar(r: &Resp) -> Option<String> {
    match r {
        Resp::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Resp::Simple(s) | Resp::Double(s) => Some(s.clone()),
        Resp::Int(i) => Some(i.to_string()),
        Resp::Nil => Some("(nil)".into()),
        _ => None,
    }
}

/// A row or the reply as (name, value) pairs: a map or a flat array.
fn pairs(r: &Resp) -> Vec<(String, Resp)> {
    match r {
        Resp::Map(p) => p.iter().map(|(k, v)| (scalar(k).unwrap_or_default(), v.clone())).collect(),
        Resp::Array(v) => v.chunks(2).map(|c| (scalar(&c[0]).unwrap_or_default(), c[1].clone())).collect(),
        _ => Vec::new(),
    }
}

fn same(a: &Resp, b: &Resp) -> bool {
    match (scalar(a), scalar(b)) {
        (Some(x), Some(y)) => same_scalar(&x, &y),
        _ => match (a, b) {
            (Resp::Array(x), Resp::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
            }
            (Resp::Map(x), Resp::Map(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|((k1, v1), (k2, v2))| same(k1, k2) && same(v1, v2))
            }
            _ => a == b,
        },
    }
}

/// The rows of a reply.
fn rows(r: &Resp) -> Vec<Resp> {
    pairs(r).into_iter().find(|(k, _)| k == "results").map(|(_, v)| v.items().to_vec()).unwrap_or_default()
}

/// The value of `name` in a row.
fn field(row: &Resp, name: &str) -> Option<String> {
    pairs(row).into_iter().find(|(k, _)| k == name).and_then(|(_, v)| scalar(&v))
}

/// `r` with the fields of its rows in name order: a hash read whole (`LOAD *`) lists its
/// fields in its hash table's order, which differs between two servers' processes.
fn fields_sorted(r: &Resp) -> Resp {
    let name = |k: &Resp| scalar(k).unwrap_or_default();
    match r {
        Resp::Map(p) => {
            let mut p: Vec<(Resp, Resp)> = p.iter().map(|(k, v)| (k.clone(), fields_sorted(v))).collect();
            p.sort_by_key(|(k, _)| name(k));
            Resp::Map(p)
        }
        // A RESP2 row: names (bulk strings) and values.
        Resp::Array(v)
            if v.len() % 2 == 0
                && !v.is_empty()
                && v.iter().step_by(2).all(|k| matches!(k, Resp::Bulk(_))) =>
        {
            let mut p: Vec<&[Resp]> = v.chunks(2).collect();
            p.sort_by_key(|c| name(&c[0]));
            Resp::Array(p.concat())
        }
        Resp::Array(v) => Resp::Array(v.iter().map(fields_sorted).collect()),
        other => other.clone(),
    }
}

/// Compares the cluster's reply with the single server's.
fn compare(got: &Resp, want: &Resp, shown: &Option<String>, by_score: bool) -> Result<(), String> {
    if want.is_error() || got.is_error() {
        return if got == want { Ok(()) } else { Err("errors differ".into()) };
    }
    let (g, w) = (pairs(got), pairs(want));
    if g.len() != w.len() {
        return Err("reply shapes differ".into());
    }
    for ((kg, vg), (kw, vw)) in g.iter().zip(&w) {
        if kg != kw {
            return Err(format!("keys differ: {kg} / {kw}"));
        }
        if kg == "execution_time" || kg == "results" {
            continue;
        }
        if !same(vg, vw) {
            return Err(format!("{kg} differs"));
        }
    }
    let (rg, rw) = (rows(got), rows(want));
    if rg.len() != rw.len() {
        return Err(format!("{} rows, single server {}", rg.len(), rw.len()));
    }
    if rg.iter().zip(&rw).all(|(a, b)| same(a, b)) {
        return Ok(());
    }
    // Only rows of exactly equal fused score may come in another order.
    let Some(score) = shown.as_ref().filter(|_| by_score) else { return Err("rows differ".into()) };
    let mut i = 0;
    while i < rw.len() {
        let s = field(&rw[i], score);
        let mut j = i;
        while j < rw.len() && field(&rw[j], score) == s {
            j += 1;
        }
        let key = |r: &Resp| format!("{r:?}");
        let (mut a, mut b) = (rg[i..j].to_vec(), rw[i..j].to_vec());
        a.sort_by_key(key);
        b.sort_by_key(key);
        if !a.iter().zip(&b).all(|(x, y)| same(x, y)) {
            return Err("rows differ beyond ties".into());
        }
        i = j;
    }
    Ok(())
}

/// Runs an FT.HYBRID WITHCURSOR and reads both cursors to their end: its error, or the
/// reply's `warnings` and every read's reply without its cursor id.
fn read_cursors(conn: &mut Conn, index: &str, args: &[Vec<u8>]) -> Vec<Resp> {
    let r = conn.call(args);
    if r.is_error() {
        return vec![r];
    }
    let mut out: Vec<Resp> = pairs(&r).into_iter().filter(|(k, _)| k == "warnings").map(|(_, v)| v).collect();
    for side in ["SEARCH", "VSIM"] {
        let Some((_, Resp::Int(mut id))) = pairs(&r).into_iter().find(|(k, _)| k == side) else {
            return vec![r];
        };
        while id != 0 {
            let read = conn.call(&["FT.CURSOR", "READ", index, &id.to_string()]);
            match read.items() {
                [payload, Resp::Int(next)] => {
                    out.push(payload.clone());
                    id = *next;
                }
                _ => {
                    out.push(read.clone());
                    break;
                }
            }
        }
    }
    out
}

/// Waits until every node, replicas too, lists the indexes `names`: a definition reaches the
/// other masters through the cluster bus and their replicas after it, which a fast load does
/// not wait for.
fn wait_listed(c: &Cluster, names: &[&str]) {
    for n in &c.nodes {
        let mut conn = Conn::open(n.port).unwrap();
        assert!(crate::common::wait_until(10, || crate::list(&mut conn) == names), "FT._LIST on {}", n.port);
    }
}

#[test]
fn hybrid_from_every_node_equals_a_single_server() {
    let seed = std::env::var("HYBRID_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x4b1d);
    eprintln!("FT.HYBRID cluster test seed {seed} (HYBRID_SEED to repeat)");
    let c = Cluster::start();
    let single = Server::start();
    let mut s2 = single.conn();
    let mut s3 = single.conn();
    s3.resp3();
    // A cluster's shards score without what RediSearch's iterators and trees add (which
    // depends on how documents spread over shards): the single server compares so too.
    assert_eq!(s2.cmd("FT.CONFIG SET ITERATOR_SCORES false"), Resp::Simple("OK".into()));
    for schema in INDEXES {
        assert_eq!(s2.cmd(schema), Resp::Simple("OK".into()));
        assert_eq!(c.conn(0).cmd(schema), Resp::Simple("OK".into()));
    }
    wait_listed(&c, &["hh", "jj"]);
    let mut rng = Rng::new(seed);
    let docs = documents(&mut rng, 400);
    for d in &docs {
        assert!(!s2.call(d).is_error());
    }
    load_cluster(&c, &docs);
    let mut conns: Vec<(Conn, Conn)> = (0..c.nodes.len())
        .map(|i| {
            let mut r3 = c.conn(i);
            r3.resp3();
            (c.conn(i), r3)
        })
        .collect();
    let (mut failures, mut equal, mut errors, mut rows_seen) = (Vec::new(), 0, 0, 0);
    let total = 200;
    for n in 0..total {
        let index = if rng.below(2) == 0 { "hh" } else { "jj" };
        let resp3 = n % 2 == 1;
        let (args, shown, by_score) = random_hybrid(&mut rng, index, resp3);
        let want = if resp3 { s3.call(&args) } else { s2.call(&args) };
        let node = n % conns.len();
        let got = if resp3 { conns[node].1.call(&args) } else { conns[node].0.call(&args) };
        if let Resp::Error(e) = &want {
            errors += 1;
            eprintln!("both: {e}");
        }
        rows_seen += rows(&want).len();
        let whole = index == "hh" && args.windows(2).any(|w| w[0] == b"LOAD" && w[1] == b"*");
        let (got, want) = if whole { (fields_sorted(&got), fields_sorted(&want)) } else { (got, want) };
        match compare(&got, &want, &shown, by_score) {
            Ok(()) => equal += 1,
            Err(e) => {
                let text: Vec<String> =
                    args.iter().map(|a| String::from_utf8_lossy(a).into_owned()).collect();
                failures.push(format!(
                    "node {node} resp{}: {e}: {text:?}\n  cluster {got:?}\n  single  {want:?}",
                    if resp3 { 3 } else { 2 }
                ));
            }
        }
    }
    eprintln!("{equal} of {total} FT.HYBRID replies equal ({errors} errors on both, {rows_seen} rows)");
    let shown = failures[..failures.len().min(4)].join("\n");
    assert!(
        failures.is_empty(),
        "seed {seed}: {} of {total} differ:\n{shown}\n{}",
        failures.len(),
        c.describe()
    );
    assert!(errors < 30, "seed {seed}: {errors} of {total} queries failed on both");
    assert!(rows_seen > 500, "seed {seed}: only {rows_seen} rows");
    // WITHCURSOR: a cursor per side on the node asked, read to its end, as on one server.
    let mut read_rows = 0;
    for n in 0..30 {
        let index = if rng.below(2) == 0 { "hh" } else { "jj" };
        let resp3 = n % 2 == 1;
        let (mut args, _, _) = random_hybrid(&mut rng, index, resp3);
        args.extend([b"WITHCURSOR".to_vec(), b"COUNT".to_vec(), (1 + rng.below(8)).to_string().into_bytes()]);
        let node = n % conns.len();
        let conn = if resp3 { &mut conns[node].1 } else { &mut conns[node].0 };
        let single = if resp3 { &mut s3 } else { &mut s2 };
        let (mut got, mut want) = (read_cursors(conn, index, &args), read_cursors(single, index, &args));
        if index == "hh" && args.windows(2).any(|w| w[0] == b"LOAD" && w[1] == b"*") {
            got = got.iter().map(fields_sorted).collect();
            want = want.iter().map(fields_sorted).collect();
        }
        read_rows += want.len();
        let text: Vec<String> = args.iter().map(|a| String::from_utf8_lossy(a).into_owned()).collect();
        assert!(
            got.len() == want.len() && got.iter().zip(&want).all(|(a, b)| same(a, b)),
            "seed {seed}: node {node}: {text:?}\n  cluster {got:?}\n  single  {want:?}"
        );
    }
    assert!(read_rows > 60, "seed {seed}: only {read_rows} cursor reads");
}

#[test]
fn hybrid_with_a_stopped_shard_fails_within_the_timeout() {
    let mut c = Cluster::start();
    let masters = c.masters();
    let mut conn = Conn::open(masters[0]).unwrap();
    assert_eq!(conn.cmd(INDEXES[0]), Resp::Simple("OK".into()));
    wait_listed(&c, &["hh"]);
    let mut rng = Rng::new(7);
    let docs = documents(&mut rng, 60);
    load_cluster(&c, &docs[..60]);
    let mut args: Vec<Vec<u8>> =
        ["FT.HYBRID", "hh", "SEARCH", "alpha", "VSIM", "@v", "$vec", "TIMEOUT", "300"]
            .map(|a| a.into())
            .to_vec();
    args.extend([b"PARAMS".to_vec(), b"2".to_vec(), b"vec".to_vec(), blob([1.0, 2.0, 3.0, 4.0])]);
    let r = conn.call(&args);
    assert!(!r.is_error(), "{r:?}");
    // A fusion over part of the documents would be wrong with no sign: the timeout error,
    // whatever ON_TIMEOUT says, within the TIMEOUT.
    c.signal(masters[2], "STOP");
    let t = std::time::Instant::now();
    let r = conn.call(&args);
    let took = t.elapsed();
    c.signal(masters[2], "CONT");
    assert_eq!(r.err(), "Timeout limit was reached");
    assert!(took < std::time::Duration::from_millis(1000), "took {took:?}");
    let r = conn.call(&args);
    assert!(!r.is_error(), "{r:?}");
}
