//! FT.INFO end to end, RESP2 and RESP3: the index options RediSearch 2.10 lists (NOHL too), the
//! definition map, attributes with their flags, integer counters, stopwords, per-field errors.

mod common;

use common::*;

fn s(x: &str) -> Resp {
    Resp::Simple(x.into())
}

/// The value after `name` in a RESP2 FT.INFO reply.
fn field(info: &Resp, name: &str) -> Resp {
    let items = info.items();
    let at = items
        .iter()
        .position(|x| matches!(x, Resp::Simple(k) if k == name))
        .unwrap_or_else(|| panic!("no {name} in {info:?}"));
    items[at + 1].clone()
}

/// The value of `name` in a RESP3 map.
fn entry(map: &Resp, name: &str) -> Resp {
    let Resp::Map(pairs) = map else { panic!("not a map: {map:?}") };
    pairs
        .iter()
        .find(|(k, _)| matches!(k, Resp::Simple(x) if x == name))
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn index_options_and_definition() {
    let srv = Server::start();
    let mut c = srv.conn();
    let options = |c: &mut Conn, idx: &str| -> Vec<String> {
        field(&c.call(&["FT.INFO", idx]), "index_options").items().iter().map(|o| o.text()).collect()
    };
    assert_eq!(c.call(&["FT.CREATE", "plain", "SCHEMA", "t", "TEXT"]), ok());
    assert_eq!(options(&mut c, "plain"), Vec::<String>::new());
    assert_eq!(c.call(&["FT.CREATE", "nohl", "NOHL", "SCHEMA", "t", "TEXT"]), ok());
    assert_eq!(options(&mut c, "nohl"), vec!["NOHL"]);
    // NOOFFSETS stores no byte offsets either, so NOHL shows too; RediSearch's order.
    assert_eq!(
        c.call(&["FT.CREATE", "all", "NOOFFSETS", "NOFIELDS", "NOFREQS", "SCHEMA", "t", "TEXT"]),
        ok()
    );
    assert_eq!(options(&mut c, "all"), vec!["NOFREQS", "NOFIELDS", "NOOFFSETS", "NOHL"]);
    assert_eq!(c.call(&["FT.CREATE", "wide", "MAXTEXTFIELDS", "SCHEMA", "t", "TEXT"]), ok());
    assert_eq!(options(&mut c, "wide"), vec!["MAXTEXTFIELDS"]);
    // Over 32 TEXT fields FT.CREATE switches to the wide schema itself; FT.ALTER may not.
    let mut args: Vec<String> = ["FT.CREATE", "many", "SCHEMA"].iter().map(|x| x.to_string()).collect();
    for i in 0..33 {
        args.push(format!("f{i}"));
        args.push("TEXT".into());
    }
    assert_eq!(c.call(&args), ok());
    assert_eq!(options(&mut c, "many"), vec!["MAXTEXTFIELDS"]);
    let mut alter: Vec<String> =
        ["FT.ALTER", "plain", "SCHEMA", "ADD"].iter().map(|x| x.to_string()).collect();
    for i in 0..32 {
        alter.push(format!("g{i}"));
        alter.push("TEXT".into());
    }
    assert_eq!(
        c.call(&alter).err(),
        "Cannot add more fields. Declare index with wide fields to allow adding unlimited fields"
    );

    assert_eq!(
        c.call(&[
            "FT.CREATE", "def", "ON", "JSON", "PREFIX", "2", "a:", "b:", "FILTER", "@n > 1", "LANGUAGE",
            "german", "LANGUAGE_FIELD", "$.lang", "SCORE", "0.5", "SCORE_FIELD", "$.score", "PAYLOAD_FIELD",
            "$.pl", "SCHEMA", "$.n", "AS", "n", "NUMERIC"
        ]),
        ok()
    );
    let info = c.call(&["FT.INFO", "def"]);
    assert_eq!(field(&info, "index_name"), s("def"));
    assert_eq!(
        field(&info, "index_definition"),
        arr(vec![
            s("key_type"),
            s("JSON"),
            s("prefixes"),
            arr(vec![s("a:"), s("b:")]),
            s("filter"),
            s("@n > 1"),
            s("default_language"),
            s("german"),
            s("language_field"),
            s("$.lang"),
            s("default_score"),
            Resp::bulk("0.5"),
            s("score_field"),
            s("$.score"),
            s("payload_field"),
            s("$.pl"),
        ])
    );
    // Defaults: no PREFIX is the empty prefix; English and the unset fields are not listed.
    assert_eq!(
        field(&c.call(&["FT.INFO", "plain"]), "index_definition"),
        arr(vec![
            s("key_type"),
            s("HASH"),
            s("prefixes"),
            arr(vec![s("")]),
            s("default_score"),
            Resp::bulk("1")
        ])
    );
    assert_eq!(c.call(&["FT.INFO", "nosuch"]).err(), "Unknown index name");
}

#[test]
fn attributes_counters_and_errors_in_both_protocols() {
    let srv = Server::start();
    let mut c = srv.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "i", "PREFIX", "1", "d:", "STOPWORDS", "2", "foo", "bar", "SCHEMA", "title", "TEXT",
            "WEIGHT", "2.5", "NOSTEM", "INDEXEMPTY", "SORTABLE", "tags", "TAG", "SEPARATOR", ";",
            "CASESENSITIVE", "INDEXMISSING", "SORTABLE", "price", "NUMERIC", "SORTABLE", "loc", "GEO",
            "SORTABLE"
        ]),
        ok()
    );
    c.call(&["HSET", "d:1", "title", "hello world", "tags", "a;b", "price", "3", "loc", "1,2"]);
    c.call(&["HSET", "d:2", "title", "other", "price", "cheap"]);
    let info = c.call(&["FT.INFO", "i"]);
    let attrs = field(&info, "attributes");
    assert_eq!(
        attrs.items()[0],
        arr(vec![
            s("identifier"),
            s("title"),
            s("attribute"),
            s("title"),
            s("type"),
            s("TEXT"),
            s("WEIGHT"),
            Resp::bulk("2.5"),
            s("SORTABLE"),
            s("NOSTEM"),
            s("INDEXEMPTY"),
        ])
    );
    assert_eq!(
        attrs.items()[1],
        arr(vec![
            s("identifier"),
            s("tags"),
            s("attribute"),
            s("tags"),
            s("type"),
            s("TAG"),
            s("SEPARATOR"),
            s(";"),
            s("CASESENSITIVE"),
            s("SORTABLE"),
            s("UNF"),
            s("INDEXMISSING"),
        ])
    );
    assert_eq!(
        attrs.items()[2],
        arr(vec![
            s("identifier"),
            s("price"),
            s("attribute"),
            s("price"),
            s("type"),
            s("NUMERIC"),
            s("SORTABLE"),
            s("UNF")
        ])
    );
    assert_eq!(
        attrs.items()[3],
        arr(vec![s("identifier"), s("loc"), s("attribute"), s("loc"), s("type"), s("GEO"), s("SORTABLE")])
    );
    assert_eq!(field(&info, "num_docs"), Resp::Int(1));
    assert_eq!(field(&info, "hash_indexing_failures"), Resp::Int(1));
    assert_eq!(field(&info, "indexing"), Resp::Int(0));
    assert_eq!(field(&info, "percent_indexed"), Resp::bulk("1"));
    assert_eq!(field(&info, "stopwords_list"), arr(vec![Resp::bulk("bar"), Resp::bulk("foo")]));
    assert_eq!(
        field(&info, "dialect_stats"),
        arr(vec![
            s("dialect_1"),
            Resp::Int(0),
            s("dialect_2"),
            Resp::Int(0),
            s("dialect_3"),
            Resp::Int(0),
            s("dialect_4"),
            Resp::Int(0)
        ])
    );
    assert_eq!(
        field(&info, "Index Errors"),
        arr(vec![
            s("indexing failures"),
            Resp::Int(1),
            s("last indexing error"),
            s("Invalid numeric value: 'cheap'"),
            s("last indexing error key"),
            Resp::bulk("d:2"),
        ])
    );
    let per_field = field(&info, "field statistics");
    assert_eq!(
        per_field.items()[2],
        arr(vec![
            s("identifier"),
            s("price"),
            s("attribute"),
            s("price"),
            s("Index Errors"),
            arr(vec![
                s("indexing failures"),
                Resp::Int(1),
                s("last indexing error"),
                s("Invalid numeric value: 'cheap'"),
                s("last indexing error key"),
                Resp::bulk("d:2"),
            ]),
        ])
    );
    assert_eq!(per_field.items()[0].items()[5].items()[1], Resp::Int(0), "the title field had no failure");

    // RESP3: a map; attributes are maps with a `flags` array; numbers are integers/doubles.
    c.resp3();
    let info = c.call(&["FT.INFO", "i"]);
    assert_eq!(entry(&info, "index_options"), arr(vec![]));
    assert_eq!(entry(&info, "num_docs"), Resp::Int(1));
    assert_eq!(entry(&info, "percent_indexed"), Resp::Double("1".into()));
    let title = entry(&info, "attributes").items()[0].clone();
    assert_eq!(entry(&title, "WEIGHT"), Resp::Double("2.5".into()));
    assert_eq!(entry(&title, "flags"), arr(vec![s("SORTABLE"), s("NOSTEM"), s("INDEXEMPTY")]));
    assert_eq!(entry(&entry(&info, "index_definition"), "default_score"), Resp::Double("1".into()));
    let gc = entry(&info, "gc_stats");
    assert_eq!(entry(&gc, "average_cycle_time_ms"), Resp::Double("nan".into()));
    assert_eq!(entry(&entry(&info, "cursor_stats"), "index_capacity"), Resp::Int(128));
}

/// `number_of_uses` counts, as RediSearch 2.10.5 does (measured live on it), every command that
/// looks the index up by name or alias, FT.INFO itself included; FT.ALIASUPDATE twice; cursor
/// commands, unknown indexes and commands without an index nothing; a query that runs again on
/// the main thread after its worker stage (SORTBY a field that is not SORTABLE) once.
#[test]
fn number_of_uses_counts_every_look_up_by_name() {
    let srv = Server::start();
    let mut c = srv.conn();
    let uses = |c: &mut Conn| field(&c.call(&["FT.INFO", "w"]), "number_of_uses").int();
    assert_eq!(c.cmd("FT.CREATE w ON HASH PREFIX 1 w: SCHEMA t TEXT g TAG n NUMERIC"), ok());
    assert_eq!(c.cmd("HSET w:1 t hello g a n 1"), Resp::Int(3));
    assert_eq!(uses(&mut c), 1);
    let once = [
        "FT.SEARCH w hello", "FT.SEARCH w hello SORTBY n", "FT.AGGREGATE w hello", "FT.EXPLAIN w hello",
        "FT.TAGVALS w g", "FT.SPELLCHECK w helo", "FT.SYNUPDATE w s1 hello hi", "FT.SYNDUMP w",
        "FT.ALIASADD al w", "FT.SEARCH al hello", "FT.ALIASDEL al", "FT.PROFILE w SEARCH QUERY hello",
        "FT.ALTER w SCHEMA ADD m NUMERIC", "FT.GET w w:1", "FT.MGET w w:1", "FT.DEBUG DUMP_TERMS w",
        "FT.SEARCH w ((",
    ];
    for (i, cmd) in once.iter().enumerate() {
        c.cmd(cmd);
        assert_eq!(uses(&mut c), 1 + 2 * (i as i64 + 1), "after {cmd}");
    }
    let before = uses(&mut c);
    assert_eq!(c.cmd("FT.ALIASADD al w"), ok());
    assert_eq!(c.cmd("FT.ALIASUPDATE al w"), ok());
    assert_eq!(uses(&mut c), before + 1 + 2 + 1);
    let before = uses(&mut c);
    let r = c.cmd("FT.AGGREGATE w * WITHCURSOR COUNT 1");
    let id = r.items()[1].int().to_string();
    assert!(!c.call(&["FT.CURSOR", "READ", "w", &id]).is_error());
    c.cmd("FT.SEARCH nosuch x");
    c.cmd("FT.DICTADD d x");
    c.cmd("FT._LIST");
    assert_eq!(uses(&mut c), before + 1 + 1);
}

/// One record per term and document, whatever the fields the term is in (RediSearch's
/// inverted index holds a field mask; test_resp3.py's test_info), and the averages divided in
/// single precision; RediSearch 2.10.5's figures.
#[test]
fn records_count_terms_once_per_document() {
    let srv = Server::start();
    let mut c = srv.conn();
    assert_eq!(c.cmd("HSET doc1 f1 3 f2 3"), Resp::Int(2));
    assert_eq!(c.cmd("HSET doc2 f1 3 f2 2 f3 4"), Resp::Int(3));
    assert_eq!(c.cmd("FT.CREATE idx1 PREFIX 1 doc SCHEMA f1 TEXT f2 TEXT"), ok());
    assert_eq!(c.call(&["HSET", "e1", "a", "running runners run", "b", "running fast"]), Resp::Int(2));
    assert_eq!(c.call(&["HSET", "e2", "a", "hello hello world", "b", "worlds"]), Resp::Int(2));
    assert_eq!(c.cmd("FT.CREATE idx2 PREFIX 1 e SCHEMA a TEXT b TEXT"), ok());
    let info = c.call(&["FT.INFO", "idx1"]);
    assert_eq!(field(&info, "num_records").int(), 3);
    assert_eq!(field(&info, "offsets_per_term_avg").text(), "1.3333333730697632");
    let info = c.call(&["FT.INFO", "idx2"]);
    assert_eq!(field(&info, "num_terms").int(), 10);
    assert_eq!(field(&info, "num_records").int(), 10);
    assert_eq!(field(&info, "records_per_doc_avg").text(), "5");
    assert_eq!(field(&info, "offsets_per_term_avg").text(), "1.2999999523162842");
}

/// `num_records` keeps the entries of documents' versions that left the index (rewritten or
/// deleted: RediSearch re-indexes an update under a new id) until RediSearch's GC collects
/// them: text entries, one record per document and TAG field, numeric entries. Figures taken
/// from RediSearch 2.10.5 with the same commands.
#[test]
fn records_keep_the_versions_the_gc_has_not_collected() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE i PREFIX 1 d: SCHEMA t TEXT g TAG n NUMERIC"), ok());
    assert_eq!(
        c.cmd("FT.CREATE j ON JSON PREFIX 1 j: SCHEMA $.t AS t TEXT $.g[*] AS g TAG $.h AS h TAG"),
        ok()
    );
    for k in 0..8 {
        let (t, g) = if k < 3 { ("dog x", "a") } else { ("x", "b,c") };
        c.call(&["HSET", &format!("d:{k}"), "t", t, "g", g, "n", &k.to_string()]);
        let doc =
            if k % 2 == 1 { r#"{"t":"running dogs x","g":["a","b","a"],"h":"z"}"# } else { r#"{"t":"x"}"# };
        c.call(&["JSON.SET", &format!("j:{k}"), "$", doc]);
    }
    let records = |c: &mut Conn, i: &str| field(&c.call(&["FT.INFO", i]), "num_records").int();
    assert_eq!((records(&mut c, "i"), records(&mut c, "j")), (27, 32));
    for round in 0..4 {
        for k in 3..8 {
            c.call(&[
                "HSET",
                &format!("d:{k}"),
                "t",
                &format!("x y{round}"),
                "g",
                "b,c",
                "n",
                &round.to_string(),
            ]);
            c.call(&["JSON.SET", &format!("j:{k}"), "$.t", &format!("\"runs y{round}\"")]);
        }
    }
    c.call(&["DEL", "d:0", "j:1"]);
    assert_eq!((records(&mut c, "i"), records(&mut c, "j")), (107, 116));
}

/// After a GC run `num_records` is the records the index holds. RediSearch 2.10.5 adds one
/// record per document and TAG field but its GC takes away one per tag value collected, so its
/// count falls below the live records (6 where 9 are held) and ends negative (-5) once every
/// document is gone (README's differences). Before the GC both count the versions that left.
#[test]
fn records_after_a_gc_run_are_the_ones_held() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CONFIG SET FORK_GC_CLEAN_THRESHOLD 0"), ok());
    assert_eq!(c.cmd("FT.CREATE i PREFIX 1 d: SCHEMA t TEXT g TAG"), ok());
    let records = |c: &mut Conn| field(&c.call(&["FT.INFO", "i"]), "num_records").int();
    let gc = |c: &mut Conn| assert_eq!(c.cmd("FT.DEBUG GC_FORCEINVOKE i"), Resp::Simple("DONE".into()));
    for (k, t, g) in [(1, "dog x", "a"), (2, "dog x", "a"), (3, "x", "b,c"), (4, "x", "b,c")] {
        c.call(&["HSET", &format!("d:{k}"), "t", t, "g", g]);
    }
    for (k, t) in [(3, "x y1"), (4, "x y1"), (3, "x y2")] {
        c.call(&["HSET", &format!("d:{k}"), "t", t, "g", "b,c"]);
    }
    c.call(&["DEL", "d:1"]);
    // As RediSearch: 10 records of the first versions, 9 more from the rewrites.
    assert_eq!(records(&mut c), 19);
    gc(&mut c);
    // d:2, d:3 and d:4: two words and one TAG record each (RediSearch: 6).
    assert_eq!(records(&mut c), 9);
    c.call(&["HSET", "d:5", "t", "cat dog", "g", "z"]);
    assert_eq!(records(&mut c), 12);
    for k in 2..6 {
        c.call(&["DEL", &format!("d:{k}")]);
    }
    assert_eq!(records(&mut c), 12);
    gc(&mut c);
    // Nothing left (RediSearch: -5).
    assert_eq!(records(&mut c), 0);
}

/// `gc_stats` (and INFO's `search_bytes_collected`, `search_total_cycles`,
/// `search_total_ms_run`) count the runs of RediSearch's collector folio keeps the schedule of:
/// none before a run (average `nan`), then one per run, its time and an estimate of the bytes
/// RediSearch's run would collect (RediSearch's own testGarbageCollector and
/// test_info_modules ask for them to grow).
#[test]
fn gc_stats_count_the_collector_runs() {
    let server = Server::start();
    let mut c = server.conn();
    assert_eq!(c.cmd("FT.CREATE i PREFIX 1 d: SCHEMA t TEXT g TAG n NUMERIC"), ok());
    c.call(&["HSET", "d:1", "t", "hello world", "g", "a", "n", "1"]);
    c.call(&["HSET", "d:2", "t", "hello there", "g", "b", "n", "2"]);
    let gc = |c: &mut Conn, name: &str| -> f64 {
        let stats = field(&c.call(&["FT.INFO", "i"]), "gc_stats");
        field(&stats, name).text().parse().unwrap()
    };
    let info = |c: &mut Conn, name: &str| -> f64 {
        let text = c.call(&["INFO", "MODULES"]).text();
        let line = text.lines().find(|l| l.starts_with(&format!("search_{name}:"))).expect(name);
        line.split(':').nth(1).unwrap().trim().parse().unwrap()
    };
    assert_eq!((gc(&mut c, "bytes_collected"), gc(&mut c, "total_cycles")), (0.0, 0.0));
    assert!(gc(&mut c, "average_cycle_time_ms").is_nan());
    c.call(&["DEL", "d:1"]);
    // Fewer documents gone than FORK_GC_CLEAN_THRESHOLD (100): the run does nothing.
    assert_eq!(c.cmd("FT.DEBUG GC_FORCEINVOKE i"), s("DONE"));
    assert_eq!(gc(&mut c, "total_cycles"), 0.0);
    assert_eq!(c.cmd("FT.CONFIG SET FORK_GC_CLEAN_THRESHOLD 0"), ok());
    assert_eq!(c.cmd("FT.DEBUG GC_FORCEINVOKE i"), s("DONE"));
    assert_eq!(gc(&mut c, "total_cycles"), 1.0);
    // d:1's two words, tag record, number and the document: 5 entries of 8 bytes.
    assert_eq!(gc(&mut c, "bytes_collected"), 40.0);
    assert!(gc(&mut c, "total_ms_run") > 0.0);
    assert_eq!(gc(&mut c, "average_cycle_time_ms"), gc(&mut c, "last_run_time_ms"));
    assert_eq!((info(&mut c, "bytes_collected"), info(&mut c, "total_cycles")), (40.0, 1.0));
    assert!(info(&mut c, "total_ms_run") > 0.0);
}
