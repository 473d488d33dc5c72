//! The documents and random queries of the cluster tests, and the comparison of a cluster's
//! reply with a single server's that allows only ties to come in another order.

use std::collections::HashMap;

use crate::common::{Conn, Resp};

/// A small deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    /// Seeded.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }

    /// Uniform in 0..n.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Made-up words (no stopwords, several sharing prefixes).
pub fn vocabulary(n: usize) -> Vec<String> {
    let c = ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z"];
    let v = ["a", "e", "i", "o", "u"];
    let mut out = Vec::new();
    'outer: for a in c {
        for x in v {
            for b in c {
                for y in v {
                    out.push(format!("{a}{x}{b}{y}"));
                    if out.len() == n {
                        break 'outer;
                    }
                }
            }
        }
    }
    out
}

/// The index of the tests.
pub const SCHEMA: &str = "FT.CREATE idx ON HASH PREFIX 1 doc: SCHEMA title TEXT WEIGHT 2 body TEXT tag TAG \
    n NUMERIC SORTABLE price NUMERIC loc GEO v VECTOR FLAT 6 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2";

/// A vector blob.
pub fn blob(v: [f32; 4]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Document `i` as HSET arguments.
pub fn document(rng: &mut Rng, i: usize, words: &[String]) -> Vec<Vec<u8>> {
    let mut text = |lo: u64, hi: u64, vocab: usize| {
        let n = lo + rng.below(hi - lo);
        (0..n).map(|_| words[rng.below(vocab as u64) as usize].clone()).collect::<Vec<_>>().join(" ")
    };
    let title = text(2, 7, 60);
    let body = text(5, 25, words.len());
    let tag = if rng.below(3) == 0 {
        format!("t{},t{}", rng.below(20), rng.below(20))
    } else {
        format!("t{}", rng.below(20))
    };
    let v = [0, 1, 2, 3].map(|_| rng.below(1000) as f32 / 100.0);
    let fields: Vec<(String, Vec<u8>)> = vec![
        ("title".into(), title.into_bytes()),
        ("body".into(), body.into_bytes()),
        ("tag".into(), tag.into_bytes()),
        ("n".into(), rng.below(500).to_string().into_bytes()),
        ("price".into(), format!("{}.{:02}", rng.below(1000), rng.below(100)).into_bytes()),
        (
            "loc".into(),
            format!(
                "{:.4},{:.4}",
                rng.below(20000) as f64 / 1000.0 - 10.0,
                40.0 + rng.below(20000) as f64 / 1000.0
            )
            .into_bytes(),
        ),
        ("v".into(), blob(v)),
    ];
    let mut args = vec![b"HSET".to_vec(), format!("doc:{i}").into_bytes()];
    for (k, v) in fields {
        args.push(k.into_bytes());
        args.push(v);
    }
    args
}

/// One FT.SEARCH.
#[derive(Clone, Debug)]
pub struct Query {
    pub query: String,
    pub knn: bool,
    pub text: bool,
    pub params: Vec<(String, Vec<u8>)>,
    pub sortby: Option<(String, bool)>,
    /// A second SORTBY field (folio's `SORTBY 4 @a ASC @b DESC`).
    pub sortby_then: Option<(String, bool)>,
    pub offset: u64,
    pub num: u64,
    pub withscores: bool,
    pub nocontent: bool,
    pub ret: Option<Vec<String>>,
    pub highlight: bool,
    pub scorer: Option<&'static str>,
}

impl Query {
    /// Random.
    pub fn random(rng: &mut Rng, words: &[String]) -> Query {
        let w = |rng: &mut Rng| words[rng.below(words.len() as u64) as usize].clone();
        let mut q = Query {
            query: String::new(),
            knn: false,
            text: true,
            params: Vec::new(),
            sortby: None,
            sortby_then: None,
            offset: *rng.pick(&[0, 0, 0, 3, 10, 40]),
            num: *rng.pick(&[10, 10, 3, 25, 0, 100]),
            withscores: rng.below(2) == 0,
            nocontent: rng.below(4) == 0,
            ret: None,
            highlight: false,
            scorer: *rng.pick(&[None, None, None, Some("BM25"), Some("TFIDF.DOCNORM"), Some("BM25STD")]),
        };
        let title_word = |rng: &mut Rng| words[rng.below(60) as usize].clone();
        q.query = match rng.below(13) {
            0 => title_word(rng),
            1 => format!("{} {}", title_word(rng), w(rng)),
            2 => format!("{}|{}", w(rng), w(rng)),
            3 => format!("{}*", &title_word(rng)[..3]),
            4 => format!("@title:{}", title_word(rng)),
            5 => format!("{} -{}", title_word(rng), w(rng)),
            6 => {
                q.text = false;
                format!("@tag:{{t{}|t{}}}", rng.below(20), rng.below(20))
            }
            7 => {
                q.text = false;
                let lo = rng.below(450);
                format!("@n:[{lo} {}]", lo + rng.below(60))
            }
            8 => {
                q.text = false;
                format!(
                    "@loc:[{} {} {} km]",
                    rng.below(20) as i64 - 10,
                    40 + rng.below(20),
                    50 + rng.below(400)
                )
            }
            9 => format!("{} @tag:{{t{}}}", title_word(rng), rng.below(20)),
            10 => {
                let lo = rng.below(900);
                format!("@price:[{lo} {}] {}", lo + 100, title_word(rng))
            }
            11 => {
                q.text = false;
                q.knn = true;
                let k = *rng.pick(&[5, 10, 30]);
                let v = [0, 1, 2, 3].map(|_| rng.below(1000) as f32 / 100.0);
                q.params.push(("B".into(), blob(v)));
                let filter =
                    if rng.below(2) == 0 { "*".to_string() } else { format!("@tag:{{t{}}}", rng.below(20)) };
                if rng.below(2) == 0 {
                    q.sortby = Some(("__v_score".into(), true));
                }
                format!("({filter})=>[KNN {k} @v $B]")
            }
            _ => {
                q.text = false;
                "*".into()
            }
        };
        if !q.knn && rng.below(3) == 0 {
            let first = *rng.pick(&["n", "price"]);
            q.sortby = Some((first.to_string(), rng.below(2) == 0));
            if rng.below(3) == 0 {
                let then = if first == "n" { "price" } else { "n" };
                q.sortby_then = Some((then.to_string(), rng.below(2) == 0));
            }
        }
        if !q.nocontent && rng.below(2) == 0 {
            let all = ["title", "n", "tag", "price", "__v_score"];
            let k = 1 + rng.below(3) as usize;
            q.ret = Some((0..k).map(|_| rng.pick(&all[..if q.knn { 5 } else { 4 }]).to_string()).collect());
        }
        q.highlight = q.text && !q.nocontent && rng.below(3) == 0;
        if q.ret.is_none() && !q.nocontent {
            // The whole document includes the binary vector: fine, compared as bytes.
        }
        q
    }

    /// FT.SEARCH arguments; `probe`: every result's order value only (WITHSCORES or
    /// WITHSORTKEYS), all results.
    pub fn args(&self, probe: bool) -> Vec<Vec<u8>> {
        let mut a: Vec<Vec<u8>> =
            vec![b"FT.SEARCH".to_vec(), b"idx".to_vec(), self.query.clone().into_bytes()];
        let mut push = |s: &str| a.push(s.as_bytes().to_vec());
        if probe {
            push(if self.sortby.is_some() { "WITHSORTKEYS" } else { "WITHSCORES" });
            match &self.sortby_then {
                // The second sort field's value is part of the order value.
                Some((g, _)) => {
                    push("RETURN");
                    push("1");
                    push(g);
                }
                None => push("NOCONTENT"),
            }
        } else {
            if self.nocontent {
                push("NOCONTENT");
            }
            if self.withscores {
                push("WITHSCORES");
            }
            if let Some(r) = &self.ret {
                push("RETURN");
                push(&r.len().to_string());
                for f in r {
                    push(f);
                }
            }
            if self.highlight {
                push("HIGHLIGHT");
                push("FIELDS");
                push("1");
                push("title");
            }
        }
        if let Some(s) = self.scorer {
            push("SCORER");
            push(s);
        }
        let dir = |asc: bool| if asc { "ASC" } else { "DESC" };
        match (&self.sortby, &self.sortby_then) {
            (Some((f, asc)), Some((g, then_asc))) => {
                push("SORTBY");
                push("4");
                push(&format!("@{f}"));
                push(dir(*asc));
                push(&format!("@{g}"));
                push(dir(*then_asc));
            }
            (Some((f, asc)), None) => {
                push("SORTBY");
                push(f);
                push(dir(*asc));
            }
            _ => {}
        }
        push("LIMIT");
        if probe {
            push("0");
            push("10000");
        } else {
            push(&self.offset.to_string());
            push(&self.num.to_string());
        }
        if !self.params.is_empty() {
            a.push(b"PARAMS".to_vec());
            a.push((self.params.len() * 2).to_string().into_bytes());
            for (k, v) in &self.params {
                a.push(k.clone().into_bytes());
                a.push(v.clone());
            }
        }
        a.push(b"DIALECT".to_vec());
        a.push(b"2".to_vec());
        a
    }

    /// Items per result in the reply.
    fn width(&self, probe: bool) -> usize {
        if probe {
            2 + usize::from(self.sortby_then.is_some())
        } else {
            1 + usize::from(self.withscores) + usize::from(!self.nocontent)
        }
    }
}

/// A result: its key and the rest of its items.
type Row = (Vec<u8>, Vec<Resp>);

/// A reply's total and rows.
fn rows(r: &Resp, width: usize) -> (i64, Vec<Row>) {
    let items = r.items();
    let total = items[0].int();
    let rows = items[1..]
        .chunks(width)
        .map(|c| match &c[0] {
            Resp::Bulk(k) => (k.clone(), c[1..].to_vec()),
            other => panic!("bad key {other:?}"),
        })
        .collect();
    (total, rows)
}

/// Checks the cluster's reply `got` against the single server's `want` for `q`; `single`
/// answers the probe when they differ (ties in another order). Returns a description of
/// the first difference.
pub fn compare(q: &Query, got: &Resp, want: &Resp, single: &mut Conn) -> Result<(), String> {
    let (got, want) = (&normalize(q, got), &normalize(q, want));
    if got == want {
        return Ok(());
    }
    if got.is_error() || want.is_error() {
        return Err(format!("cluster {got:?} vs single {want:?}"));
    }
    let w = q.width(false);
    let (gt, grows) = rows(got, w);
    let (wt, wrows) = rows(want, w);
    if gt != wt || grows.len() != wrows.len() {
        return Err(format!("total/count: cluster {gt}/{} vs single {wt}/{}", grows.len(), wrows.len()));
    }
    let probe = single.call(&q.args(true));
    let (_, prows) = rows(&probe, q.width(true));
    let order: HashMap<Vec<u8>, Vec<Resp>> = prows.into_iter().collect();
    let wmap: HashMap<&Vec<u8>, &Vec<Resp>> = wrows.iter().map(|(k, v)| (k, v)).collect();
    let mut seen = std::collections::HashSet::new();
    for (i, ((gk, grest), (wk, _))) in grows.iter().zip(&wrows).enumerate() {
        if !seen.insert(gk) {
            return Err(format!("duplicate {}", String::from_utf8_lossy(gk)));
        }
        let (Some(gv), Some(wv)) = (order.get(gk), order.get(wk)) else {
            return Err(format!("row {i}: {} not a result", String::from_utf8_lossy(gk)));
        };
        if gv != wv {
            return Err(format!(
                "row {i}: cluster {} ({gv:?}) vs single {} ({wv:?})",
                String::from_utf8_lossy(gk),
                String::from_utf8_lossy(wk)
            ));
        }
        if let Some(wrest) = wmap.get(gk) {
            if *wrest != grest {
                return Err(format!("row {}: {grest:?} vs {wrest:?}", String::from_utf8_lossy(gk)));
            }
        }
        // The documented tie-break: equal values in key order.
        if i > 0 {
            let (pk, _) = &grows[i - 1];
            if order.get(pk) == Some(gv) && pk > gk {
                return Err(format!("tie not in key order at row {i}"));
            }
        }
    }
    Ok(())
}

/// A whole hash comes back in the server's field order, which for hashes stored as hash
/// tables depends on each process's hash seed: fields of whole documents are sorted.
fn normalize(q: &Query, r: &Resp) -> Resp {
    let Resp::Array(items) = r else { return r.clone() };
    if q.ret.is_some() || q.nocontent || items.is_empty() {
        return r.clone();
    }
    let w = q.width(false);
    let mut out = vec![items[0].clone()];
    for chunk in items[1..].chunks(w) {
        for (i, item) in chunk.iter().enumerate() {
            match item {
                Resp::Array(flat) if i == w - 1 => {
                    let mut pairs: Vec<(Resp, Resp)> = flat
                        .chunks(2)
                        .map(|p| (p[0].clone(), p.get(1).cloned().unwrap_or(Resp::Nil)))
                        .collect();
                    pairs.sort_by(|a, b| format!("{:?}", a.0).cmp(&format!("{:?}", b.0)));
                    out.push(Resp::Array(pairs.into_iter().flat_map(|(k, v)| [k, v]).collect()));
                }
                other => out.push(other.clone()),
            }
        }
    }
    Resp::Array(out)
}

/// One random FT.AGGREGATE (arguments) and whether its rows come in a defined order.
pub fn random_aggregate(rng: &mut Rng, words: &[String]) -> (Vec<Vec<u8>>, bool) {
    let mut q = Query::random(rng, words);
    while q.knn && rng.below(2) == 0 {
        q = Query::random(rng, words);
    }
    let mut a: Vec<String> = vec!["FT.AGGREGATE".into(), "idx".into(), q.query.clone()];
    let mut ordered = false;
    match rng.below(4) {
        0 => {
            a.extend(["LOAD", "3", "@title", "@n", "@price"].map(String::from));
            a.extend(["SORTBY", "6", "@price", "ASC", "@n", "DESC", "@title", "ASC"].map(String::from));
            a.extend(["LIMIT".into(), rng.below(20).to_string(), (1 + rng.below(15)).to_string()]);
            ordered = true;
        }
        _ => {
            if rng.below(3) == 0 {
                a.extend(["LOAD", "1", "@price", "APPLY", "@price * 2", "AS", "p2"].map(String::from));
            }
            if rng.below(4) == 0 {
                a.extend(["FILTER".into(), format!("@n > {}", rng.below(400))]);
            }
            let key = *rng.pick(&["@tag", "@tag", "@n", ""]);
            if key.is_empty() {
                a.extend(["GROUPBY", "0"].map(String::from));
            } else {
                a.extend(["GROUPBY".into(), "1".into(), key.into()]);
            }
            // Every reducer of RediSearch 2.10. FIRST_VALUE's ties go to the earlier indexed
            // document on a single server and to the smallest key on a cluster: its value is
            // the BY value itself, or BY @price (ties rare) within the small groups of @n.
            let mut reducers: Vec<&[&str]> = vec![
                &["COUNT", "0", "AS", "c"],
                &["SUM", "1", "@price", "AS", "s"],
                &["AVG", "1", "@n", "AS", "a"],
                &["MIN", "1", "@price", "AS", "mi"],
                &["MAX", "1", "@n", "AS", "ma"],
                &["COUNT_DISTINCT", "1", "@n", "AS", "cd"],
                &["COUNT_DISTINCT", "1", "@tag", "AS", "cdt"],
                &["QUANTILE", "2", "@price", "0.5", "AS", "q"],
                &["QUANTILE", "2", "@n", "0.9", "AS", "q9"],
                &["STDDEV", "1", "@n", "AS", "sd"],
                &["STDDEV", "1", "@price", "AS", "sdp"],
                &["COUNT_DISTINCTISH", "1", "@tag", "AS", "cdi"],
                &["COUNT_DISTINCTISH", "1", "@price", "AS", "cdip"],
                &["TOLIST", "1", "@tag", "AS", "tl"],
                &["FIRST_VALUE", "4", "@price", "BY", "@price", "DESC", "AS", "fv"],
                &["FIRST_VALUE", "3", "@n", "BY", "@n", "AS", "fvn"],
                &["RANDOM_SAMPLE", "2", "@n", "5", "AS", "rs"],
                &["SUM", "1", "@p2", "AS", "s2"],
            ];
            if key == "@n" {
                reducers.push(&["FIRST_VALUE", "4", "@title", "BY", "@price", "DESC", "AS", "fvt"]);
                reducers.push(&["TOLIST", "1", "@price", "AS", "tlp"]);
            }
            let n = 1 + rng.below(4);
            let mut used = Vec::new();
            for _ in 0..n {
                let r = *rng.pick(&reducers);
                if used.contains(&r[r.len() - 1]) || (r[2] == "@p2" && !a.iter().any(|x| x == "p2")) {
                    continue;
                }
                used.push(r[r.len() - 1]);
                a.push("REDUCE".into());
                a.extend(r.iter().map(|s| s.to_string()));
            }
            if used.is_empty() {
                a.extend(["REDUCE", "COUNT", "0", "AS", "c"].map(String::from));
                used.push("c");
            }
            let numeric = used.iter().find(|u| !UNORDERED.contains(u) && **u != "fvt").copied();
            match (rng.below(6), numeric) {
                (0 | 1, Some(u)) => {
                    a.extend(["APPLY".into(), format!("@{u} + 1"), "AS".into(), "plus".into()])
                }
                (2, Some(u)) => a.extend(["FILTER".into(), format!("@{u} > 2")]),
                (3, Some(u)) => {
                    a.extend(["GROUPBY", "0", "REDUCE", "SUM", "1"].map(String::from));
                    a.extend([format!("@{u}"), "AS".into(), "total".into()]);
                    a.extend(["REDUCE", "COUNT", "0", "AS", "groups"].map(String::from));
                    // One row: nothing more to order.
                    return finish(a, &q, true);
                }
                _ => {}
            }
            if !key.is_empty() && rng.below(2) == 0 {
                a.extend(["SORTBY".into(), "2".into(), key.into(), "ASC".into()]);
                if rng.below(2) == 0 {
                    a.extend(["LIMIT".into(), rng.below(5).to_string(), (1 + rng.below(10)).to_string()]);
                }
                ordered = true;
            }
        }
    }
    finish(a, &q, ordered)
}

/// Reducers whose value is an array whose order (TOLIST) or draw (RANDOM_SAMPLE) depends on
/// the order documents come in.
const UNORDERED: [&str; 3] = ["tl", "tlp", "rs"];

/// The arguments of `a` with `q`'s parameters and the dialect.
fn finish(a: Vec<String>, q: &Query, ordered: bool) -> (Vec<Vec<u8>>, bool) {
    let mut args: Vec<Vec<u8>> = a.into_iter().map(String::into_bytes).collect();
    if !q.params.is_empty() {
        args.push(b"PARAMS".to_vec());
        args.push(b"2".to_vec());
        args.push(q.params[0].0.clone().into_bytes());
        args.push(q.params[0].1.clone());
    }
    args.push(b"DIALECT".to_vec());
    args.push(b"2".to_vec());
    (args, ordered)
}

/// An FT.AGGREGATE reply with its rows sorted (for pipelines whose row order is not defined).
pub fn sorted_rows(r: &Resp) -> Resp {
    match unordered_values(r) {
        Resp::Array(items) if !items.is_empty() => {
            let mut rows = items[1..].to_vec();
            rows.sort_by_key(|r| format!("{r:?}"));
            Resp::Array(std::iter::once(items[0].clone()).chain(rows).collect())
        }
        other => other,
    }
}

/// An FT.AGGREGATE reply with the values of TOLIST sorted and a full RANDOM_SAMPLE (5 of
/// more values, drawn differently) replaced by its length: what may differ on a cluster.
pub fn unordered_values(r: &Resp) -> Resp {
    let Resp::Array(items) = r else { return r.clone() };
    let rows = items.iter().enumerate().map(|(i, row)| match row {
        Resp::Array(flat) if i > 0 => {
            let mut flat = flat.clone();
            for p in (0..flat.len().saturating_sub(1)).step_by(2) {
                let name = flat[p].text();
                if let (true, Resp::Array(vals)) = (UNORDERED.contains(&name.as_str()), &flat[p + 1]) {
                    let mut vals = vals.clone();
                    vals.sort_by_key(|v| format!("{v:?}"));
                    flat[p + 1] =
                        if name == "rs" && vals.len() == 5 { Resp::Int(5) } else { Resp::Array(vals) };
                }
            }
            Resp::Array(flat)
        }
        other => other.clone(),
    });
    Resp::Array(rows.collect())
}

/// One random FT.SPELLCHECK: words of the vocabulary with an edit or two, or as they are,
/// some restricted to a field, with DISTANCE, TERMS INCLUDE/EXCLUDE and FULLSCOREINFO.
pub fn random_spellcheck(rng: &mut Rng, words: &[String]) -> Vec<Vec<u8>> {
    let letters = b"abdefgiklmnoprstuvz";
    let mut query = Vec::new();
    for _ in 0..1 + rng.below(3) {
        let mut w = words[rng.below(words.len() as u64) as usize].clone().into_bytes();
        for _ in 0..rng.below(3) {
            let at = rng.below(w.len() as u64) as usize;
            match rng.below(3) {
                0 => w[at] = letters[rng.below(letters.len() as u64) as usize],
                1 if w.len() > 2 => {
                    w.remove(at);
                }
                _ => w.insert(at, letters[rng.below(letters.len() as u64) as usize]),
            }
        }
        let w = String::from_utf8(w).unwrap_or_default();
        query.push(match rng.below(5) {
            0 => format!("@title:{w}"),
            1 => format!("@body:{w}"),
            _ => w,
        });
    }
    let mut a: Vec<String> = vec!["FT.SPELLCHECK".into(), "idx".into(), query.join(" ")];
    if rng.below(3) == 0 {
        a.extend(["DISTANCE".into(), (1 + rng.below(2)).to_string()]);
    }
    match rng.below(4) {
        0 => a.extend(["TERMS", "INCLUDE", "dict"].map(String::from)),
        1 => a.extend(["TERMS", "EXCLUDE", "dict"].map(String::from)),
        _ => {}
    }
    if rng.below(4) == 0 {
        a.push("FULLSCOREINFO".into());
    }
    a.into_iter().map(String::into_bytes).collect()
}
