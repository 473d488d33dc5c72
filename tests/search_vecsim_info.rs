//! FT.DEBUG VECSIM_INFO and the memory limits RediSearch 2.10 puts on VECTOR attributes, with
//! RediSearch 2.10.5's replies (measured on Redis 7.4.1; test_vecsim.py's test_create,
//! test_memory_info, test_redis_memory_limits and test_rdb_memory_limit check the same):
//! the FLAT and tiered HNSW shapes, LAST_SEARCH_MODE after each kind of query, MEMORY equal to
//! FT.INFO's `vector_index_sz_mb`, INITIAL_CAP and BLOCK_SIZE refused past a tenth of
//! maxmemory (or past VSS_MAX_RESIZE), a default block size that shrinks to fit, and an RDB
//! whose definitions no longer fit loaded with the defaults.

mod common;

use common::*;

fn dict(r: &Resp) -> Vec<(String, Resp)> {
    r.items().chunks(2).map(|p| (p[0].text(), p[1].clone())).collect()
}

fn get<'a>(d: &'a [(String, Resp)], k: &str) -> &'a Resp {
    &d.iter().find(|(n, _)| n == k).unwrap_or_else(|| panic!("no {k} in {d:?}")).1
}

/// The reply with its MEMORY figures left out (they are each engine's own).
fn shape(r: &Resp) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (k, v) in dict(r) {
        match (&*k, &v) {
            ("MEMORY" | "MANAGEMENT_LAYER_MEMORY", _) => out.push((k, "-".into())),
            (_, Resp::Array(_)) => out.extend(shape(&v).into_iter().map(|(a, b)| (format!("{k}.{a}"), b))),
            (_, Resp::Int(n)) => out.push((k, n.to_string())),
            _ => out.push((k, v.text())),
        }
    }
    out
}

/// FT.INFO's value under `name`.
fn info_field(info: &Resp, name: &str) -> Resp {
    let items = info.items();
    let i = items.iter().position(|r| matches!(r, Resp::Bulk(_) | Resp::Simple(_)) && r.text() == name);
    items[i.unwrap_or_else(|| panic!("no {name}")) + 1].clone()
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn vecsim_info_has_redisearchs_shapes() {
    let s = Server::start();
    let mut c = s.conn();
    let created = c.cmd(
        "FT.CREATE idx SCHEMA v_HNSW VECTOR HNSW 14 TYPE FLOAT64 DIM 1024 DISTANCE_METRIC COSINE INITIAL_CAP 10 M 16 \
         EF_CONSTRUCTION 200 EF_RUNTIME 10 v_FLAT VECTOR FLAT 8 TYPE FLOAT32 DIM 1024 DISTANCE_METRIC L2 INITIAL_CAP 10",
    );
    assert_eq!(created, ok());
    let common = |algo: &str, ty: &str, metric: &str| {
        vec![
            ("ALGORITHM", algo.to_string()),
            ("TYPE", ty.into()),
            ("DIMENSION", "1024".into()),
            ("METRIC", metric.into()),
            ("IS_MULTI_VALUE", "0".into()),
            ("INDEX_SIZE", "0".into()),
            ("INDEX_LABEL_COUNT", "0".into()),
            ("MEMORY", "-".into()),
            ("LAST_SEARCH_MODE", "EMPTY_MODE".into()),
        ]
    };
    let owned = |v: Vec<(&str, String)>| v.into_iter().map(|(a, b)| (a.to_string(), b)).collect::<Vec<_>>();
    let mut flat = owned(common("FLAT", "FLOAT32", "L2"));
    flat.push(("BLOCK_SIZE".into(), "1024".into()));
    for _ in 0..2 {
        assert_eq!(shape(&c.cmd("FT.DEBUG VECSIM_INFO idx v_FLAT")), flat);
        let mut hnsw = owned(common("TIERED", "FLOAT64", "COSINE"));
        for (k, v) in
            [("MANAGEMENT_LAYER_MEMORY", "-"), ("BACKGROUND_INDEXING", "0"), ("TIERED_BUFFER_LIMIT", "0")]
        {
            hnsw.push((k.into(), v.into()));
        }
        for (k, v) in common("FLAT", "FLOAT64", "COSINE").into_iter().chain([("BLOCK_SIZE", "1024".into())]) {
            hnsw.push((format!("FRONTEND_INDEX.{k}"), v));
        }
        let back = common("HNSW", "FLOAT64", "COSINE").into_iter().chain(
            [
                ("BLOCK_SIZE", "1024"),
                ("M", "16"),
                ("EF_CONSTRUCTION", "200"),
                ("EF_RUNTIME", "10"),
                ("MAX_LEVEL", "-1"),
                ("ENTRYPOINT", "-1"),
                ("EPSILON", "0.01"),
                ("NUMBER_OF_MARKED_DELETED", "0"),
            ]
            .map(|(k, v)| (k, v.to_string())),
        );
        hnsw.extend(back.map(|(k, v)| (format!("BACKEND_INDEX.{k}"), v)));
        hnsw.push(("TIERED_HNSW_SWAP_JOBS_THRESHOLD".into(), "1024".into()));
        assert_eq!(shape(&c.cmd("FT.DEBUG VECSIM_INFO idx v_HNSW")), hnsw);
        assert_eq!(c.cmd("DEBUG RELOAD"), Resp::Simple("OK".into()));
    }
    // RediSearch 2.10.5 crashes on a field that is not a vector; folio answers its error.
    assert_eq!(c.cmd("FT.CREATE t SCHEMA x TEXT"), ok());
    assert_eq!(c.cmd("FT.DEBUG VECSIM_INFO t x").err(), "Vector index not found");
    assert_eq!(c.cmd("FT.DEBUG VECSIM_INFO idx nosuch").err(), "Vector index not found");
    assert_eq!(c.cmd("FT.DEBUG VECSIM_INFO nosuch v").err(), "Can not create a search ctx");
    assert!(c.cmd("FT.DEBUG VECSIM_INFO idx").err().contains("wrong number of arguments"));
}

#[test]
fn last_search_mode_follows_the_queries() {
    let s = Server::start();
    let mut c = s.conn();
    let created = c.cmd(
        "FT.CREATE vi SCHEMA vf VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 \
         vh VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 t TEXT n NUMERIC",
    );
    assert_eq!(created, ok());
    for i in 0..5 {
        let b = f32s(&[i as f32, i as f32 + 1.0]);
        let key = format!("d{i}");
        let n = i.to_string();
        c.call(&[
            b"HSET".as_slice(),
            key.as_bytes(),
            b"vf",
            &b,
            b"vh",
            &b,
            b"t",
            b"hello",
            b"n",
            n.as_bytes(),
        ]);
    }
    let mode = |c: &mut Conn, f: &str| {
        let d = dict(&c.cmd(&format!("FT.DEBUG VECSIM_INFO vi {f}")));
        (get(&d, "LAST_SEARCH_MODE").text(), get(&d, "INDEX_SIZE").int(), get(&d, "INDEX_LABEL_COUNT").int())
    };
    assert_eq!(mode(&mut c, "vh"), ("EMPTY_MODE".into(), 5, 5));
    // A vector is a record, as RediSearch counts them: 5 documents, 2 vectors, a number and
    // a word each.
    assert_eq!(info_field(&c.cmd("FT.INFO vi"), "num_records").int(), 5 * 4);
    let q = f32s(&[1.0, 1.0]);
    let search = |c: &mut Conn, query: &str| {
        let r = c.call(&[
            b"FT.SEARCH".as_slice(),
            b"vi",
            query.as_bytes(),
            b"PARAMS",
            b"2",
            b"b",
            &q,
            b"DIALECT",
            b"2",
        ]);
        assert!(!r.is_error(), "{r:?}");
    };
    search(&mut c, "*=>[KNN 2 @vh $b]");
    search(&mut c, "*=>[KNN 2 @vf $b]");
    assert_eq!(mode(&mut c, "vh").0, "STANDARD_KNN");
    assert_eq!(mode(&mut c, "vf").0, "STANDARD_KNN");
    search(&mut c, "@n:[1 3]=>[KNN 2 @vh $b]");
    assert_eq!(mode(&mut c, "vh").0, "HYBRID_ADHOC_BF");
    search(&mut c, "@vh:[VECTOR_RANGE 5 $b]");
    assert_eq!(mode(&mut c, "vh").0, "RANGE_QUERY");
    assert_eq!(c.cmd("DEL d1").int(), 1);
    assert_eq!(mode(&mut c, "vh"), ("RANGE_QUERY".into(), 4, 4));
    assert_eq!(mode(&mut c, "vf"), ("STANDARD_KNN".into(), 4, 4));
}

#[test]
fn memory_equals_ft_infos_vector_figure() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.cmd("FT.CREATE idx SCHEMA v VECTOR FLAT 8 TYPE FLOAT32 DIM 128 DISTANCE_METRIC L2 BLOCK_SiZE 1"),
        ok()
    );
    let figures = |c: &mut Conn| {
        let d = dict(&c.cmd("FT.DEBUG VECSIM_INFO idx v"));
        let mem = get(&d, "MEMORY").int() as f64 / 1048576.0;
        let mb: f64 = info_field(&c.cmd("FT.INFO idx"), "vector_index_sz_mb").text().parse().unwrap();
        assert_eq!(mem, mb);
        mem
    };
    let mut last = figures(&mut c);
    for key in ["1", "2"] {
        let v: Vec<f32> = (0..128).map(|i| i as f32 / 7.0).collect();
        c.call(&[b"HSET".as_slice(), key.as_bytes(), b"v", &f32s(&v)]);
        let now = figures(&mut c);
        assert!(now >= last && now > 0.0);
        last = now;
    }
    for key in ["2", "1"] {
        assert_eq!(c.cmd(&format!("DEL {key}")).int(), 1);
        let now = figures(&mut c);
        assert!(now <= last);
        last = now;
    }
}

fn used_memory(c: &mut Conn) -> u64 {
    let info = c.cmd("INFO memory").text();
    let line = info.lines().find(|l| l.starts_with("used_memory:")).unwrap();
    line["used_memory:".len()..].trim().parse().unwrap()
}

#[test]
fn vector_attributes_fit_the_memory_limit() {
    let s = Server::start();
    let mut c = s.conn();
    let maxmemory = used_memory(&mut c) * 5;
    assert_eq!(c.cmd(&format!("CONFIG SET maxmemory {maxmemory}")), ok());
    let n = std::cell::Cell::new(0);
    let create = |c: &mut Conn, field: &str| {
        n.set(n.get() + 1);
        c.cmd(&format!("FT.CREATE i{} SCHEMA v VECTOR {field}", n.get()))
    };
    for (ty, size) in [("FLOAT32", 4), ("FLOAT64", 8)] {
        let e =
            create(&mut c, &format!("HNSW 8 TYPE {ty} DIM 16 DISTANCE_METRIC L2 INITIAL_CAP {maxmemory}"));
        assert!(e
            .err()
            .starts_with(&format!("Vector index initial capacity {maxmemory} exceeded server limit (")));
        let e = create(
            &mut c,
            &format!("FLAT 10 TYPE {ty} DIM 16 DISTANCE_METRIC L2 INITIAL_CAP 100 BLOCK_SIZE {maxmemory}"),
        );
        assert!(e.err().starts_with(&format!("Vector index block size {maxmemory} exceeded server limit (")));
        // A block of more than a tenth of maxmemory fails; FLOAT64's larger vectors fail at a
        // block size FLOAT32's take.
        let block = maxmemory / (16 * 4) / 9;
        let e = create(
            &mut c,
            &format!("FLAT 10 TYPE {ty} DIM 16 DISTANCE_METRIC L2 INITIAL_CAP 100 BLOCK_SIZE {block}"),
        );
        assert!(e.err().starts_with(&format!("Vector index block size {block} exceeded server limit (")));
        let block = maxmemory / (16 * 8) / 9;
        let r = create(
            &mut c,
            &format!("FLAT 10 TYPE {ty} DIM 16 DISTANCE_METRIC L2 INITIAL_CAP 100 BLOCK_SIZE {block}"),
        );
        assert_eq!(r.is_error(), size == 8, "{r:?}");
    }
    // The default block shrinks to what fits: (maxmemory / 10) / (1024 · 4 + 16).
    assert_eq!(create(&mut c, "FLAT 6 TYPE FLOAT32 DIM 1024 DISTANCE_METRIC L2"), ok());
    let d = dict(&c.cmd(&format!("FT.DEBUG VECSIM_INFO i{} v", n.get())));
    let fits = (maxmemory / 10 / (1024 * 4 + 16)).min(1024) as i64;
    assert_eq!(get(&d, "BLOCK_SIZE").int(), fits);
    // VSS_MAX_RESIZE replaces the tenth of maxmemory.
    let block = maxmemory / (16 * 4) / 2;
    let field = format!("FLAT 10 TYPE FLOAT32 DIM 16 DISTANCE_METRIC L2 INITIAL_CAP 100 BLOCK_SIZE {block}");
    assert!(create(&mut c, &field).is_error());
    assert_eq!(c.cmd(&format!("FT.CONFIG SET VSS_MAX_RESIZE {maxmemory}")), ok());
    assert_eq!(create(&mut c, &field), ok());
    assert_eq!(c.cmd("FT.CONFIG SET VSS_MAX_RESIZE 0"), ok());
    assert_eq!(c.cmd("CONFIG SET maxmemory 0"), ok());
}

#[test]
fn an_rdb_whose_vectors_no_longer_fit_loads_with_the_defaults() {
    let s = Server::start();
    let mut c = s.conn();
    let maxmemory = used_memory(&mut c) * 5;
    let block = maxmemory / (128 * 4) / 2;
    let flat =
        format!("FLAT 10 TYPE FLOAT32 DIM 128 DISTANCE_METRIC L2 INITIAL_CAP {block} BLOCK_SIZE {block}");
    assert_eq!(c.cmd(&format!("FT.CREATE f SCHEMA v VECTOR {flat}")), ok());
    let hnsw = format!("HNSW 8 TYPE FLOAT32 DIM 128 DISTANCE_METRIC L2 INITIAL_CAP {block}");
    assert_eq!(c.cmd(&format!("FT.CREATE h SCHEMA v VECTOR {hnsw}")), ok());
    assert_eq!(c.cmd(&format!("CONFIG SET maxmemory {maxmemory}")), ok());
    assert_eq!(c.cmd("DEBUG RELOAD"), Resp::Simple("OK".into()));
    assert_eq!(c.cmd("FT._LIST").items().len(), 2);
    let d = dict(&c.cmd("FT.DEBUG VECSIM_INFO f v"));
    let fits = (maxmemory / 10 / (128 * 4 + 16)).min(1024) as i64;
    assert_eq!(get(&d, "BLOCK_SIZE").int(), fits);
    assert_eq!(c.cmd("CONFIG SET maxmemory 0"), ok());
}

#[test]
fn a_definition_replayed_from_the_aof_is_not_refused_for_memory() {
    // It passed when it was written; refusing it on reload would lose the index (RediSearch
    // refuses it: README's table).
    let s =
        Server::with(ServerOptions { args: vec!["--appendonly".into(), "yes".into()], ..Default::default() });
    let mut c = s.conn();
    let maxmemory = used_memory(&mut c) * 5;
    let block = maxmemory / (128 * 4) / 2;
    let flat =
        format!("FLAT 10 TYPE FLOAT32 DIM 128 DISTANCE_METRIC L2 INITIAL_CAP {block} BLOCK_SIZE {block}");
    assert_eq!(c.cmd(&format!("FT.CREATE f SCHEMA v VECTOR {flat}")), ok());
    assert_eq!(c.cmd(&format!("CONFIG SET maxmemory {maxmemory}")), ok());
    // A client's FT.CREATE of the same definition is refused now.
    assert!(c.cmd(&format!("FT.CREATE g SCHEMA v VECTOR {flat}")).is_error());
    assert_eq!(c.cmd("DEBUG LOADAOF"), Resp::Simple("OK".into()));
    assert_eq!(c.cmd("FT._LIST").items(), &[Resp::Simple("f".into())]);
    let d = dict(&c.cmd("FT.DEBUG VECSIM_INFO f v"));
    assert_eq!(get(&d, "BLOCK_SIZE").int(), block as i64);
    assert_eq!(c.cmd("CONFIG SET maxmemory 0"), ok());
}
