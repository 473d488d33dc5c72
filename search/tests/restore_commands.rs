//! `Catalog::restore_commands` and `Dictionaries::restore_commands`: replayed on a database
//! with the same keys and no index, they give back every definition, synonym group (word
//! order of groups included), alias and dictionary, with the documents indexed as from an
//! RDB; replayed on the original, they change nothing.

mod common;

use common::Db;
use search::restore::without_skip_initial_scan;
use search::schema::IndexSpec;
use search::Reply;

/// A catalog with most of what a definition can hold.
fn original() -> Db {
    let mut db = Db::new();
    db.hset("h:1", &[("t", "the quick brown fox"), ("n", "3"), ("g", "a,b")]);
    db.hset("h:2", &[("t", "a lazy dog"), ("n", "7"), ("g", "b")]);
    db.json_set("j:1", r#"{"name":"Ada Lovelace","tags":["x","y"],"v":[1,2]}"#);
    db.cmd(&[
        "FT.CREATE", "h", "ON", "HASH", "PREFIX", "1", "h:", "LANGUAGE", "german", "SCORE", "0.5",
        "STOPWORDS", "2", "the", "a", "SCHEMA", "t", "TEXT", "WEIGHT", "2", "NOSTEM", "SORTABLE", "n",
        "NUMERIC", "SORTABLE", "g", "TAG", "SEPARATOR", ",", "CASESENSITIVE",
    ]);
    db.cmd(&[
        "FT.CREATE", "j", "ON", "JSON", "PREFIX", "1", "j:", "SKIPINITIALSCAN", "SCHEMA", "$.name", "AS",
        "name", "TEXT", "$.tags[*]", "AS", "tags", "TAG", "$.v", "AS", "v", "VECTOR", "FLAT", "6", "TYPE",
        "FLOAT32", "DIM", "2", "DISTANCE_METRIC", "L2",
    ]);
    db.cmd(&["FT.CREATE", "s", "PREFIX", "1", "SKIPINITIALSCAN", "SCHEMA", "SKIPINITIALSCAN", "TEXT"]);
    db.cmd(&["FT.ALTER", "h", "SCHEMA", "ADD", "extra", "TEXT", "NOINDEX"]);
    db.cmd(&["FT.SYNUPDATE", "h", "g2", "fox", "dog"]);
    db.cmd(&["FT.SYNUPDATE", "h", "g1", "dog", "cat"]);
    db.cmd(&["FT.ALIASADD", "ha", "h"]);
    db.cmd(&["FT.ALIASADD", "ja", "j"]);
    db.cmd(&["FT.DICTADD", "d1", "alpha", "beta"]);
    db.cmd(&["FT.DICTDEL", "empty", "nothing"]);
    db
}

fn replay(db: &mut Db, commands: &[Vec<Vec<u8>>]) {
    for c in commands {
        let args: Vec<String> = c.iter().map(|a| String::from_utf8(a.clone()).unwrap()).collect();
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let r = db.cmd(&args);
        assert!(!matches!(r, Reply::Error(_)), "{args:?}: {r:?}");
    }
}

/// FT.INFO without the figures that depend on when and how often the index was used.
fn info(db: &mut Db, index: &str) -> Reply {
    let Reply::Map(pairs) = db.cmd(&["FT.INFO", index]) else { panic!("FT.INFO {index}") };
    // And without the memory estimates: the replay indexes an index with synonym groups twice
    // (`search::restore`), which leaves its postings with a little more room. That also gives
    // its documents RediSearch ids anew (`max_doc_id`). The collector's runs are history (and
    // their time the clock's).
    let volatile = [
        "total_indexing_time", "number_of_uses", "dialect_stats", "inverted_sz_mb", "max_doc_id", "gc_stats",
        "total_index_memory_sz_mb", "bytes_per_record_avg", "offset_bits_per_record_avg",
        "doc_table_size_mb", "sortable_values_size_mb", "key_table_size_mb", "tag_overhead_sz_mb",
        "text_overhead_sz_mb", "offset_vectors_sz_mb", "vector_index_sz_mb",
    ];
    Reply::Map(
        pairs
            .into_iter()
            .filter(|(k, _)| !volatile.iter().any(|v| *k == Reply::Simple(v.to_string())))
            .collect(),
    )
}

/// Replies as text (NaN, which some FT.INFO averages are, equals itself there).
/// (After a GC run of every index: re-indexing leaves the replaced numeric entries counted
/// until one.)
fn state(db: &mut Db) -> Vec<String> {
    db.cmd(&["FT.CONFIG", "SET", "FORK_GC_CLEAN_THRESHOLD", "0"]);
    for i in ["h", "j", "s"] {
        db.cmd(&["FT.DEBUG", "GC_FORCEINVOKE", i]);
    }
    replies(db).iter().map(|r| format!("{r:?}")).collect()
}

fn same(a: &[String], b: &[String]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x, y);
    }
}

fn replies(db: &mut Db) -> Vec<Reply> {
    let mut out =
        vec![db.cmd(&["FT._LIST"]), db.cmd(&["FT.DICTDUMP", "d1"]), db.cmd(&["FT.DICTDUMP", "empty"])];
    for i in ["h", "j", "s", "ha", "ja"] {
        out.push(info(db, i));
        out.push(db.cmd(&["FT.SYNDUMP", i]));
        out.push(db.cmd(&["FT.SEARCH", i, "*", "NOCONTENT"]));
    }
    out.push(db.cmd(&["FT.SEARCH", "h", "cat", "NOCONTENT"]));
    out.push(db.cmd(&["FT.SEARCH", "h", "@g:{b}", "NOCONTENT"]));
    out.push(db.cmd(&["FT.SEARCH", "j", "@tags:{y}", "NOCONTENT"]));
    out
}

#[test]
fn replay_on_the_same_keys_gives_the_definitions_back() {
    let mut db = original();
    let mut commands = db.cat.restore_commands();
    commands.extend(db.config.dictionaries.restore_commands());
    let mut fresh = Db::new();
    fresh.docs = db.docs.clone();
    replay(&mut fresh, &commands);
    // The original, as an RDB load would leave it: every key indexed with every synonym.
    let mut loaded = Db::new();
    loaded.docs = db.docs.clone();
    loaded.cat = search::Catalog::from_definitions(&db.cat.to_definitions(), &loaded.config).unwrap();
    loaded.config.dictionaries = db.config.dictionaries.clone();
    let keys: Vec<Vec<u8>> = loaded.docs.keys().cloned().collect();
    for k in keys {
        let view = common::View(&loaded.docs);
        loaded.cat.on_key_changed(&k, &view);
    }
    loaded.cat.scan_done();
    same(&state(&mut fresh), &state(&mut loaded));
    assert_eq!(fresh.config.dictionaries, db.config.dictionaries);
    // "dog" joined g2 before g1, and keeps that order.
    assert_eq!(fresh.cmd(&["FT.SYNDUMP", "h"]), db.cmd(&["FT.SYNDUMP", "h"]),);
    // Replayed on the original, nothing changes.
    let before = state(&mut db);
    let dicts = db.config.dictionaries.clone();
    replay(&mut db, &commands);
    same(&state(&mut db), &before);
    assert_eq!(db.config.dictionaries, dicts);
}

#[test]
fn only_the_skipinitialscan_option_is_dropped() {
    let args = |s: &str| s.split(' ').map(|a| a.as_bytes().to_vec()).collect::<Vec<_>>();
    let text = |v: Vec<Vec<u8>>| {
        v.iter().map(|a| String::from_utf8_lossy(a).into_owned()).collect::<Vec<_>>().join(" ")
    };
    assert_eq!(
        text(without_skip_initial_scan(
            "i",
            &args("PREFIX 1 SKIPINITIALSCAN SkipInitialScan SCHEMA SKIPINITIALSCAN TEXT")
        )),
        "PREFIX 1 SKIPINITIALSCAN SCHEMA SKIPINITIALSCAN TEXT"
    );
    // Which of two equal spellings goes does not matter: the definition is the same.
    let given = args("SKIPINITIALSCAN STOPWORDS 1 skipinitialscan SKIPINITIALSCAN SCHEMA t TEXT");
    let kept = without_skip_initial_scan("i", &given);
    assert_eq!(kept.len(), given.len() - 2);
    let parse =
        |a: &[Vec<u8>]| IndexSpec::parse("i", &a.iter().map(|x| x.as_slice()).collect::<Vec<_>>()).unwrap();
    let mut want = parse(&given);
    want.skip_initial_scan = false;
    assert_eq!(parse(&kept), want);
    assert_eq!(text(without_skip_initial_scan("i", &args("SCHEMA t TEXT"))), "SCHEMA t TEXT");
}
