//! JSON writes that leave fields alone (`JSON.SET doc $.price 3` leaves `$.body`) let the
//! indexer keep those fields' entries instead of redoing them (`search::index::Kept`). What it
//! keeps must be exactly what a full re-index would build: seeded random writes of every JSON
//! write command, at paths inside and outside every kind of field (text, a filtered text path,
//! an array element, numbers, tags, an HNSW vector), then an index created afresh over the same documents is the
//! oracle: every query answers the same keys with the same scores and distances.

mod common;

use std::collections::BTreeMap;

use common::*;

const WORDS: [&str; 8] = ["red", "green", "blue", "apple", "pear", "plum", "fast", "slow"];
const DOCS: usize = 12;

fn schema(name: &str) -> Vec<String> {
    let s = format!(
        "FT.CREATE {name} ON JSON PREFIX 1 doc: SCHEMA $.title AS title TEXT WEIGHT 2 $.body AS body TEXT \
         $.meta.note AS note TEXT $.items[?(@.n>2)].name AS hot TEXT $.items[1].name AS second TEXT $.price AS price NUMERIC SORTABLE \
         $.tags[*] AS tags TAG $.vec AS vec VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2"
    );
    s.split(' ').map(str::to_string).collect()
}

/// The random values the writes put in documents.
trait Values {
    fn words(&mut self) -> String;
    fn text(&mut self) -> String;
    fn item(&mut self) -> String;
    fn vec(&mut self) -> String;
    fn doc(&mut self) -> String;
}

impl Values for Rng {
    fn words(&mut self) -> String {
        let n = 1 + self.below(5);
        (0..n).map(|_| WORDS[self.below(WORDS.len())]).collect::<Vec<_>>().join(" ")
    }
    fn text(&mut self) -> String {
        format!("\"{}\"", self.words())
    }
    fn item(&mut self) -> String {
        format!(r#"{{"name":"{}","n":{}}}"#, self.words(), self.below(6))
    }
    fn vec(&mut self) -> String {
        format!("[{},{}]", self.below(10), self.below(10))
    }
    fn doc(&mut self) -> String {
        format!(
            r#"{{"title":{},"body":{},"meta":{{"note":{},"x":1}},"items":[{},{}],"price":{},"tags":["t{}","t{}"],"vec":{},"flag":true}}"#,
            self.text(),
            self.text(),
            self.text(),
            self.item(),
            self.item(),
            self.below(100),
            self.below(4),
            self.below(4),
            self.vec()
        )
    }
}

/// One random write to `doc:<k>` (a root write when the key is gone).
fn write(c: &mut Conn, rng: &mut Rng) {
    let key = format!("doc:{}", rng.below(DOCS));
    if c.call(&["EXISTS", &key]).int() == 0 {
        let doc = rng.doc();
        assert_eq!(c.call(&["JSON.SET", &key, "$", &doc]), ok());
        return;
    }
    let other = format!("doc:{}", rng.below(DOCS));
    let args: Vec<String> = match rng.below(24) {
        0 => vec!["JSON.SET".into(), key, "$.price".into(), rng.below(100).to_string()],
        1 => vec!["JSON.SET".into(), key, "$.body".into(), rng.text()],
        2 => vec!["JSON.SET".into(), key, "$.title".into(), rng.text()],
        3 => vec!["JSON.SET".into(), key, "$.meta.note".into(), rng.text()],
        4 => vec!["JSON.SET".into(), key, "$.meta".into(), format!(r#"{{"note":{},"x":2}}"#, rng.text())],
        5 => vec!["JSON.NUMINCRBY".into(), key, "$.price".into(), "1.5".into()],
        6 => vec!["JSON.STRAPPEND".into(), key, "$.body".into(), format!("\" {}\"", rng.words())],
        7 => vec!["JSON.ARRAPPEND".into(), key, "$.tags".into(), format!("\"t{}\"", rng.below(4))],
        8 => vec!["JSON.ARRPOP".into(), key, "$.tags".into()],
        9 => vec!["JSON.SET".into(), key, "$.items[0].n".into(), rng.below(6).to_string()],
        10 => vec!["JSON.SET".into(), key, "$.items[1].name".into(), rng.text()],
        11 => vec!["JSON.DEL".into(), key, "$.items[0]".into()],
        12 => vec!["JSON.ARRINSERT".into(), key, "$.items".into(), "0".into(), rng.item()],
        13 => vec!["JSON.SET".into(), key, "$.vec".into(), rng.vec()],
        14 => vec!["JSON.SET".into(), key, "$".into(), rng.doc()],
        15 => vec!["JSON.MERGE".into(), key, "$.meta".into(), format!(r#"{{"note":{}}}"#, rng.text())],
        16 => vec![
            "JSON.MSET".into(),
            key.clone(),
            "$.price".into(),
            rng.below(100).to_string(),
            other,
            "$.body".into(),
            rng.text(),
            key,
            "$.extra".into(),
            "7".into(),
        ],
        17 => vec!["JSON.SET".into(), key, "$.extra".into(), rng.below(9).to_string()],
        18 => vec!["JSON.DEL".into(), key, "$.meta.note".into()],
        19 => vec!["JSON.TOGGLE".into(), key, "$.flag".into()],
        20 => vec!["JSON.CLEAR".into(), key, "$.items".into()],
        21 => vec!["JSON.SET".into(), key, "$.items[*].n".into(), rng.below(6).to_string()],
        22 => vec!["JSON.NUMMULTBY".into(), key, "$..n".into(), "2".into()],
        _ => vec!["DEL".into(), key],
    };
    // Writes at paths the document lacks (a popped array, a deleted member) may fail: only a
    // dead server would be a problem here.
    let _ = c.call(&args);
}

fn fields(r: &Resp) -> BTreeMap<String, String> {
    let items = r.items();
    let mut out = BTreeMap::new();
    let mut i = 1;
    while i + 1 < items.len() {
        let value = match &items[i + 1] {
            Resp::Array(kv) => kv.iter().map(Resp::text).collect::<Vec<_>>().join("="),
            other => other.text(),
        };
        out.insert(items[i].text(), value);
        i += 2;
    }
    assert_eq!(items[0].int() as usize, out.len(), "{r:?}");
    out
}

/// Every query of the battery, on `idx`: (query, key -> score or distance).
fn answers(c: &mut Conn, idx: &str) -> Vec<(String, BTreeMap<String, String>)> {
    let mut queries: Vec<String> = Vec::new();
    for w in WORDS {
        queries.push(w.to_string());
        for f in ["title", "body", "note", "hot", "second"] {
            queries.push(format!("@{f}:{w}"));
        }
        for w2 in WORDS {
            queries.push(format!("\"{w} {w2}\""));
        }
    }
    for t in 0..4 {
        queries.push(format!("@tags:{{t{t}}}"));
    }
    for lo in (0..120).step_by(20) {
        queries.push(format!("@price:[{lo} {}.5]", lo + 19));
    }
    let mut out = Vec::new();
    for q in queries {
        let r = c.call(&["FT.SEARCH", idx, &q, "WITHSCORES", "NOCONTENT", "LIMIT", "0", "100"]);
        out.push((q, fields(&r)));
    }
    // Each key with its price, in price order (SORTBY reads the sort values the update keeps).
    let r = c.call(&["FT.SEARCH", idx, "*", "SORTBY", "price", "RETURN", "1", "price", "LIMIT", "0", "100"]);
    out.push(("* SORTBY price".into(), fields(&r)));
    let blob: Vec<u8> = [4.0f32, 5.0].iter().flat_map(|f| f.to_le_bytes()).collect();
    let r = c.call(&[
        b"FT.SEARCH".as_slice(),
        idx.as_bytes(),
        b"*=>[KNN 100 @vec $v AS d]",
        b"PARAMS",
        b"2",
        b"v",
        &blob,
        b"RETURN",
        b"1",
        b"d",
        b"DIALECT",
        b"2",
        b"LIMIT",
        b"0",
        b"100",
    ]);
    out.push(("KNN".into(), fields(&r)));
    out
}

fn indexed(c: &mut Conn, idx: &str) -> bool {
    let info = c.call(&["FT.INFO", idx]);
    let items = info.items();
    items.chunks(2).any(|kv| kv[0].text() == "indexing" && kv[1].int() == 0)
}

#[test]
fn kept_fields_match_a_fresh_index() {
    let s = Server::start();
    let mut c = s.conn();
    // A term's IDF counts the versions of documents that left the index until RediSearch's
    // GC collects them (a fresh index has none): each round collects them first.
    assert_eq!(c.call(&["FT.CONFIG", "SET", "FORK_GC_CLEAN_THRESHOLD", "0"]), ok());
    assert_eq!(c.call(&schema("live")), ok());
    // Queries run beside the writes: with worker threads, a write that arrives while one holds
    // the index is prepared then and applied later, in order (the path `Kept` relies on).
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (mut q, stop) = (s.conn(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                q.call(&["FT.SEARCH", "live", "red | apple | @tags:{t1}", "LIMIT", "0", "100"]);
            }
        })
    };
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..10 {
        for _ in 0..200 {
            write(&mut c, &mut rng);
        }
        assert_eq!(c.call(&schema("fresh")), ok());
        assert!(wait_until(30, || indexed(&mut c, "fresh")), "the fresh index finishes its scan");
        assert_eq!(c.call(&["FT.DEBUG", "GC_FORCEINVOKE", "live"]), Resp::Simple("DONE".into()));
        let (live, fresh) = (answers(&mut c, "live"), answers(&mut c, "fresh"));
        let mut matched = 0;
        for ((q, a), (_, b)) in live.iter().zip(&fresh) {
            assert_eq!(a, b, "round {round}, query {q}");
            matched += a.len();
        }
        assert!(matched > 200, "the battery matches documents ({matched})");
        assert_eq!(c.call(&["FT.DROPINDEX", "fresh"]), ok());
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    reader.join().expect("the reader ran");
}
