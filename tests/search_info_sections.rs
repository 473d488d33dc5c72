//! The INFO sections RediSearch 2.10 adds (`INFO search`, `INFO modules`, `INFO everything`),
//! end to end: section names and order, field names and formats, and folio's figures.
//!
//! Expected lines come from RediSearch 2.10.5 on Redis 7.4.1 with the same commands (measured
//! 2026-12-01): a fresh server, then indexes `h` and `z` with the schemas below.

mod common;

use common::*;

/// `(section, lines)` of an INFO reply, in order.
fn sections(info: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in info.lines() {
        if let Some(name) = line.strip_prefix("# ") {
            out.push((name.to_string(), Vec::new()));
        } else if !line.is_empty() {
            if let Some((_, lines)) = out.last_mut() {
                lines.push(line.to_string());
            }
        }
    }
    out
}

fn search_sections(c: &mut Conn, which: &str) -> Vec<(String, Vec<String>)> {
    sections(&c.call(&["INFO", which]).text()).into_iter().filter(|(n, _)| n.starts_with("search_")).collect()
}

fn section(c: &mut Conn, name: &str) -> Vec<String> {
    search_sections(c, "search").into_iter().find(|(n, _)| n == name).map(|(_, l)| l).unwrap_or_default()
}

fn value(c: &mut Conn, field: &str) -> String {
    let all = search_sections(c, "search");
    let line = all.iter().flat_map(|(_, l)| l).find(|l| l.split(':').next() == Some(field));
    line.and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.to_string())
        .unwrap_or_else(|| panic!("{field} missing"))
}

fn lines(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// RediSearch 2.10's sections, then folio's own `search_threads` (the query workers).
const NAMES: [&str; 9] = [
    "search_version", "search_index", "search_fields_statistics", "search_memory", "search_cursors",
    "search_gc", "search_dialect_statistics", "search_runtime_configurations", "search_threads",
];

#[test]
fn a_fresh_server_reports_redisearch_sections_once() {
    let s = Server::start();
    let mut c = s.conn();
    let all = search_sections(&mut c, "search");
    let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, NAMES);
    let server = c.cmd("INFO server").text();
    // The server's own version (RedisModule_GetServerVersion): Valkey's, not the Redis version it
    // reports for compatibility.
    let field = |name: &str| server.lines().find_map(|l| l.strip_prefix(name)).map(|v| v.trim().to_string());
    let version = field("valkey_version:").or_else(|| field("redis_version:")).unwrap();
    assert_eq!(all[0].1, lines(&["search_version:2.10.5", &format!("search_redis_version:{version} - oss")]));
    assert_eq!(all[1].1, lines(&["search_number_of_indexes:0"]));
    assert!(all[2].1.is_empty(), "{:?}", all[2]);
    assert_eq!(
        all[3].1,
        lines(&[
            "search_used_memory_indexes:0", "search_used_memory_indexes_human:0",
            "search_total_indexing_time:0"
        ])
    );
    assert_eq!(all[4].1, lines(&["search_global_idle:0", "search_global_total:0"]));
    assert_eq!(
        all[5].1,
        lines(&["search_bytes_collected:0", "search_total_cycles:0", "search_total_ms_run:0"])
    );
    assert_eq!(
        all[6].1,
        lines(&["search_dialect_1:0", "search_dialect_2:0", "search_dialect_3:0", "search_dialect_4:0"])
    );
    assert_eq!(
        all[7].1,
        lines(&[
            "search_enableGC:ON", "search_minimal_term_prefix:2", "search_minimal_stem_length:4",
            "search_maximal_prefix_expansions:200", "search_query_timeout_ms:500",
            "search_timeout_policy:return", "search_cursor_read_size:1000",
            "search_cursor_max_idle_time:300000", "search_max_doc_table_size:1000000",
            "search_max_search_results:1000000", "search_max_aggregate_results:-1",
            "search_gc_scan_size:100", "search_min_phonetic_term_length:3", "search_bm25std_tanh_factor:4",
        ])
    );
    // One library, two module names: the sections appear once, under `search_`, in
    // INFO modules and INFO everything too, and single sections can be asked for by name.
    for which in ["modules", "everything", "search"] {
        let info = c.call(&["INFO", which]).text();
        let got: Vec<String> =
            sections(&info).into_iter().map(|(n, _)| n).filter(|n| n.starts_with("search_")).collect();
        assert_eq!(got, NAMES, "INFO {which}");
        assert!(!info.to_ascii_lowercase().contains("# rejson"), "INFO {which}");
    }
    let one = sections(&c.cmd("INFO search_index").text());
    assert_eq!(one, vec![("search_index".to_string(), lines(&["search_number_of_indexes:0"]))]);
}

#[test]
fn figures_follow_indexes_cursors_dialects_and_the_configuration() {
    let s = Server::start();
    let mut c = s.conn();
    let ok = Resp::Simple("OK".into());
    assert_eq!(
        c.cmd("FT.CREATE h PREFIX 1 h: SCHEMA t TEXT SORTABLE n NUMERIC g TAG geo GEO v VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2"),
        ok
    );
    assert_eq!(
        c.cmd("FT.CREATE z PREFIX 1 z: SCHEMA t TEXT NOINDEX SORTABLE n NUMERIC SORTABLE NOINDEX g TAG CASESENSITIVE SORTABLE p GEO SORTABLE v VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2"),
        ok
    );
    for i in 0..50 {
        assert_eq!(
            c.call(&["HSET", &format!("h:{i}"), "t", "hello world", "n", &i.to_string(), "g", "x"]),
            Resp::Int(3)
        );
    }
    assert_eq!(value(&mut c, "search_number_of_indexes"), "2");
    // RediSearch 2.10.5's lines for the same two schemas.
    assert_eq!(
        section(&mut c, "search_fields_statistics"),
        lines(&[
            "search_fields_text:Text=2,Sortable=2,NoIndex=1",
            "search_fields_numeric:Numeric=2,Sortable=1,NoIndex=1",
            "search_fields_tag:Tag=2,Sortable=1,CaseSensitive=1",
            "search_fields_geo:Geo=2,Sortable=1",
            "search_fields_vector:Vector=2,Flat=1,HNSW=1",
        ])
    );
    // Memory: the sum of FT.INFO's figure, the megabytes in single precision as RediSearch.
    let bytes: f64 = value(&mut c, "search_used_memory_indexes").parse().unwrap();
    assert!(bytes > 1000.0, "{bytes}");
    let human: f64 = value(&mut c, "search_used_memory_indexes_human").parse().unwrap();
    assert_eq!(human, f64::from(bytes as f32 / 1_048_576f32));
    let info_h = c.cmd("FT.INFO h");
    let info_z = c.cmd("FT.INFO z");
    let mb = |r: &Resp| -> f64 {
        let items = r.items();
        let named = |x: &Resp| matches!(x, Resp::Simple(t) if t == "total_index_memory_sz_mb");
        let i = items.iter().position(named).unwrap();
        items[i + 1].text().parse().unwrap()
    };
    let sum = (mb(&info_h) + mb(&info_z)) * 1_048_576.0;
    assert!((sum - bytes).abs() < 16.0, "FT.INFO {sum} vs INFO {bytes}");
    let time: f64 = value(&mut c, "search_total_indexing_time").parse().unwrap();
    assert!(time > 0.0);
    // Cursors and dialects.
    let r = c.cmd("FT.AGGREGATE h * LOAD 1 @n WITHCURSOR COUNT 1");
    assert!(r.items()[1].int() != 0, "{r:?}");
    assert_eq!(section(&mut c, "search_cursors"), lines(&["search_global_idle:1", "search_global_total:1"]));
    assert!(!c.cmd("FT.SEARCH h hello DIALECT 3").is_error());
    assert!(!c.cmd("FT.SPELLCHECK z hello DIALECT 4").is_error());
    assert_eq!(
        section(&mut c, "search_dialect_statistics"),
        lines(&["search_dialect_1:1", "search_dialect_2:0", "search_dialect_3:1", "search_dialect_4:1"])
    );
    // The FT.CONFIG values.
    for (opt, v) in [
        ("TIMEOUT", "42"),
        ("ON_TIMEOUT", "fail"),
        ("MINPREFIX", "3"),
        ("MAXAGGREGATERESULTS", "100"),
        ("GCSCANSIZE", "7"),
        ("MIN_PHONETIC_TERM_LEN", "5"),
    ] {
        assert_eq!(c.call(&["FT.CONFIG", "SET", opt, v]), ok);
    }
    assert_eq!(value(&mut c, "search_query_timeout_ms"), "42");
    assert_eq!(value(&mut c, "search_timeout_policy"), "fail");
    assert_eq!(value(&mut c, "search_minimal_term_prefix"), "3");
    assert_eq!(value(&mut c, "search_max_aggregate_results"), "100");
    // RediSearch 2.10.5 prints these two from its configuration too.
    assert_eq!(value(&mut c, "search_gc_scan_size"), "7");
    assert_eq!(value(&mut c, "search_min_phonetic_term_length"), "5");
    // A dropped index leaves its dialects counted (as RediSearch); any flush forgets them.
    assert_eq!(c.cmd("FT.DROPINDEX z"), ok);
    assert_eq!(value(&mut c, "search_number_of_indexes"), "1");
    assert_eq!(
        section(&mut c, "search_fields_statistics"),
        lines(&[
            "search_fields_text:Text=1,Sortable=1", "search_fields_numeric:Numeric=1",
            "search_fields_tag:Tag=1", "search_fields_geo:Geo=1", "search_fields_vector:Vector=1,Flat=1",
        ])
    );
    assert_eq!(value(&mut c, "search_dialect_4"), "1");
    assert_eq!(c.cmd("FLUSHALL"), ok);
    assert_eq!(
        section(&mut c, "search_dialect_statistics"),
        lines(&["search_dialect_1:0", "search_dialect_2:0", "search_dialect_3:0", "search_dialect_4:0"])
    );
}
