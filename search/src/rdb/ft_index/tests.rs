//! Tests of the `ft_index0` encoding against the aux records of a real RediSearch 2.10 RDB
//! (tests/fixtures/redisearch-2.10, written by RediSearch 2.10.5 on Redis 7.4.1).

use super::*;
use crate::rdb::with_nul;
use crate::rdb::{Item, Items};

const FIXTURE: &[u8] = include_bytes!("../../../../tests/fixtures/redisearch-2.10/redisearch-2.10.rdb");

/// A minimal reader of an RDB file's header records: the module aux records before the first
/// database, as (type name, encoding version, when, items).
fn module_aux(rdb: &[u8]) -> Vec<(String, u64, u64, Items)> {
    struct P<'a>(&'a [u8], usize);
    impl P<'_> {
        fn byte(&mut self) -> u8 {
            self.1 += 1;
            self.0[self.1 - 1]
        }
        fn take(&mut self, n: usize) -> &[u8] {
            self.1 += n;
            &self.0[self.1 - n..self.1]
        }
        fn len(&mut self) -> (u64, bool) {
            let b = self.byte();
            match b >> 6 {
                0 => (u64::from(b & 0x3f), false),
                1 => ((u64::from(b & 0x3f) << 8) | u64::from(self.byte()), false),
                2 if b == 0x80 => (u64::from(u32::from_be_bytes(self.take(4).try_into().unwrap())), false),
                2 => (u64::from_be_bytes(self.take(8).try_into().unwrap()), false),
                _ => (u64::from(b & 0x3f), true),
            }
        }
        fn string(&mut self) -> Vec<u8> {
            match self.len() {
                (0, true) => (self.byte() as i8).to_string().into_bytes(),
                (1, true) => i16::from_le_bytes(self.take(2).try_into().unwrap()).to_string().into_bytes(),
                (2, true) => i32::from_le_bytes(self.take(4).try_into().unwrap()).to_string().into_bytes(),
                (n, false) => self.take(n as usize).to_vec(),
                _ => panic!("compressed string in the test reader"),
            }
        }
    }
    let mut p = P(rdb, 9);
    let mut out = Vec::new();
    loop {
        match p.byte() {
            0xFA => {
                p.string();
                p.string();
            }
            0xF7 => {
                let id = p.len().0;
                const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
                let name: String =
                    (0..9).map(|i| CHARS[((id >> (58 - 6 * i)) & 63) as usize] as char).collect();
                p.len();
                let when = p.len().0;
                let mut items = Items::default();
                loop {
                    match p.len().0 {
                        0 => break,
                        1 | 2 => items.0.push_back(Item::U(p.len().0)),
                        4 => items.0.push_back(Item::D(f64::from_le_bytes(p.take(8).try_into().unwrap()))),
                        5 => items.0.push_back(Item::B(p.string())),
                        op => panic!("module opcode {op}"),
                    }
                }
                out.push((name, id & 1023, when, items));
            }
            _ => return out,
        }
    }
}

fn fixture_record() -> Items {
    let aux = module_aux(FIXTURE);
    let (_, encver, when, items) = aux.into_iter().find(|(n, ..)| n == TYPE_NAME).unwrap();
    assert_eq!((encver, when), (23, 1));
    items
}

fn words(s: &str) -> Vec<Vec<u8>> {
    s.split(' ').map(|w| w.as_bytes().to_vec()).collect()
}

#[test]
fn reads_the_redisearch_2_10_fixture() {
    let mut r = fixture_record();
    let loaded = read(&mut r, 23).unwrap();
    assert!(r.is_empty());
    let names: Vec<&str> = loaded.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["articles", "products", "titles"]);
    // The FT.CREATE of the fixture's README, with RediSearch's implicit UNF and defaults.
    assert_eq!(
        loaded[0].args,
        words(
            "ON HASH PREFIX 1 article: LANGUAGE_FIELD lang SCORE_FIELD rank PAYLOAD_FIELD payload NOHL \
             NOFREQS MAXTEXTFIELDS SCHEMA title TEXT WEIGHT 3 PHONETIC dm:en body TEXT INDEXEMPTY \
             INDEXMISSING author TAG SEPARATOR , INDEXEMPTY year NUMERIC SORTABLE UNF vec VECTOR HNSW 10 \
             TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 M 8 EF_CONSTRUCTION 100"
        )
    );
    let mut products = words(
        "ON JSON PREFIX 2 product: item: FILTER @price_>_0 SCORE 0.9 STOPWORDS 2 foo the SCHEMA $.name \
         AS name TEXT WEIGHT 2.5 SORTABLE UNF $.description AS description TEXT NOSTEM $.brand AS brand \
         TAG SEPARATOR ; CASESENSITIVE SORTABLE UNF $.tags[*] AS tags TAG $.price AS price NUMERIC \
         SORTABLE UNF $.stock AS stock NUMERIC SORTABLE UNF NOINDEX $.location AS location GEO \
         $.embedding AS embedding VECTOR FLAT 6 TYPE FLOAT32 DIM 4 DISTANCE_METRIC COSINE",
    );
    products[7] = b"@price > 0".to_vec();
    assert_eq!(loaded[1].args, products);
    assert_eq!(
        loaded[2].args,
        words("ON HASH PREFIX 1 article: NOOFFSETS NOFIELDS SCHEMA title TEXT NOSTEM year NUMERIC")
    );
    assert_eq!(loaded[0].aliases, ["news"]);
    assert_eq!(loaded[1].aliases, ["catalog"]);
    assert_eq!(
        loaded[0].synonyms,
        vec![(words("automobile")[0].clone(), words("grp2")), (b"car".to_vec(), words("grp2"))]
    );
    assert_eq!(loaded[1].synonyms.len(), 3);
}

#[test]
fn fixture_round_trips_through_a_catalog() {
    let original = fixture_record();
    let loaded = read(&mut original.clone(), 23).unwrap();
    let mut cat = Catalog::new();
    assert!(restore(&mut cat, loaded.clone(), &Config::default()).is_empty());
    assert_eq!(cat.resolve("catalog"), Some("products"));
    assert_eq!(cat.index("products").unwrap().synonyms.groups_of("sneaker"), ["grp1"]);
    let mut written = Items::default();
    write(&mut written, &cat);
    // Same items: only the order of the synonym words (RediSearch's hash order) may differ.
    let sorted = |i: &Items| {
        let mut v: Vec<String> = i.0.iter().map(|x| format!("{x:?}")).collect();
        v.sort();
        v
    };
    assert_eq!(sorted(&written), sorted(&original));
    let mut back = read(&mut written, 23).unwrap();
    let mut want = loaded;
    for l in back.iter_mut().chain(want.iter_mut()) {
        l.synonyms.sort();
    }
    assert_eq!(back, want);
}

#[test]
fn older_encodings_and_refusals() {
    // Encoding 17 (RediSearch 2.0): no JSON path flag; 19: vectors without blob size or multi.
    let b = |s: &str| Item::B(with_nul(s.as_bytes()));
    let mut r = Items(
        vec![
            Item::U(1),
            b("i"),
            Item::U(0x13),
            Item::U(2),
            b("t"),
            Item::U(0),
            Item::U(ty::TEXT),
            Item::U(opt::SORTABLE),
            Item::U(0),
            Item::U(0),
            Item::D(2.0),
            b("v"),
            Item::U(0),
            Item::U(ty::VECTOR),
            Item::U(0),
            Item::U(u64::MAX),
            Item::U(ALGO_HNSW),
            Item::U(1),
            Item::U(3),
            Item::U(1),
            Item::U(500),
            Item::U(16),
            Item::U(200),
            Item::U(10),
            b("HASH"),
            Item::U(1),
            b(""),
            Item::U(0),
            Item::U(0),
            Item::U(0),
            Item::U(0),
            Item::D(1.0),
            Item::U(9),
            Item::U(NO_TIMEOUT),
            Item::U(0),
        ]
        .into(),
    );
    let l = read(&mut r, 19).unwrap();
    assert_eq!(
        l[0].args,
        words("ON HASH LANGUAGE german NOHL SCHEMA t TEXT WEIGHT 2 SORTABLE v VECTOR HNSW 8 TYPE FLOAT64 DIM 3 DISTANCE_METRIC IP INITIAL_CAP 500")
    );
    assert!(read(&mut Items::default(), 16).is_err());
    assert!(read(&mut Items::default(), 24).is_err());
    // Truncated: every prefix of the fixture's record is refused.
    let full = fixture_record();
    for n in [0, 1, 5, 40, full.0.len() - 1] {
        let mut cut = Items(full.0.iter().take(n).cloned().collect());
        assert!(read(&mut cut, 23).is_err(), "{n}");
    }
}

/// One HASH index `i` with the given field items, in encoding `encver`.
fn one_index(fields: Vec<Item>, nfields: u64, flags: u64) -> Items {
    let b = |s: &str| Item::B(with_nul(s.as_bytes()));
    let mut v = vec![Item::U(1), b("i"), Item::U(flags), Item::U(nfields)];
    v.extend(fields);
    v.extend([b("HASH"), Item::U(1), b(""), Item::U(0), Item::U(0), Item::U(0), Item::U(0), Item::D(1.0)]);
    v.extend([Item::U(0), Item::U(NO_TIMEOUT), Item::U(0)]);
    Items(v.into())
}

#[test]
fn encodings_17_21_and_22() {
    let b = |s: &str| Item::B(with_nul(s.as_bytes()));
    let base = flag::TERM_OFFSETS | flag::FIELD_FLAGS | flag::FREQS | flag::BYTE_OFFSETS;
    // 17 (RediSearch 2.0): no path flag; a TAG field.
    let tag =
        vec![b("g"), Item::U(ty::TAG), Item::U(0), Item::U(u64::MAX), Item::U(7), Item::B(b";".to_vec())];
    let mut r = one_index(tag, 1, base);
    assert_eq!(read(&mut r, 17).unwrap()[0].args, words("ON HASH SCHEMA g TAG SEPARATOR ; CASESENSITIVE"));
    assert!(r.is_empty());
    // 21 (2.6): HNSW saved as HNSW, with the multi flag and the blob size.
    let hnsw = |tiered: bool| {
        let mut v = vec![
            b("v"),
            Item::U(0),
            Item::U(ty::VECTOR),
            Item::U(opt::INDEX_MISSING),
            Item::U(u64::MAX),
            Item::U(8),
        ];
        if tiered {
            v.extend([Item::U(ALGO_TIERED), Item::U(ALGO_HNSW), Item::U(0)]);
        } else {
            v.push(Item::U(ALGO_HNSW));
        }
        v.extend([
            Item::U(0),
            Item::U(2),
            Item::U(2),
            Item::U(0),
            Item::U(1024),
            Item::U(4),
            Item::U(200),
            Item::U(20),
        ]);
        v
    };
    let want = words("ON HASH SCHEMA v VECTOR HNSW 10 TYPE FLOAT32 DIM 2 DISTANCE_METRIC COSINE M 4 EF_RUNTIME 20 INDEXMISSING");
    let mut r = one_index(hnsw(false), 1, base | flag::VECTORS);
    assert_eq!(read(&mut r, 21).unwrap()[0].args, want);
    assert!(r.is_empty());
    // 22 (2.8 release candidates): tiered HNSW, no GEOSHAPE coordinates yet; 23 refuses plain HNSW.
    let mut r = one_index(hnsw(true), 1, base | flag::VECTORS);
    assert_eq!(read(&mut r, 22).unwrap()[0].args, want);
    assert!(r.is_empty());
    assert!(read(&mut one_index(hnsw(false), 1, base), 23).is_err());
}

/// tests/fixtures/redisearch-2.10/more-options.rdb: written by RediSearch 2.10.5 on Redis 7.4.1
/// after (and nothing else)
/// `FT.CREATE h TEMPORARY 100 SKIPINITIALSCAN LANGUAGE german SCHEMA a TEXT NOINDEX SORTABLE
/// b TAG WITHSUFFIXTRIE SORTABLE c GEO SORTABLE` and `FT.CREATE v ON JSON SCHEMA $.a AS a VECTOR
/// FLAT 6 TYPE FLOAT64 DIM 2 DISTANCE_METRIC IP $.b AS b VECTOR FLAT 6 TYPE BFLOAT16 DIM 2
/// DISTANCE_METRIC IP $.c AS c VECTOR FLAT 10 TYPE FLOAT16 DIM 2 DISTANCE_METRIC IP INITIAL_CAP 10
/// BLOCK_SIZE 20 $.d[*] AS d VECTOR HNSW 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC IP EPSILON 0.5 $.t
/// AS t TEXT WITHSUFFIXTRIE $.u TEXT PHONETIC dm:fr $.w[*] AS w TEXT`.
#[test]
fn more_options_round_trip_item_for_item() {
    let rdb = include_bytes!("../../../../tests/fixtures/redisearch-2.10/more-options.rdb");
    let (_, encver, _, original) = module_aux(rdb).into_iter().find(|(n, ..)| n == TYPE_NAME).unwrap();
    let loaded = read(&mut original.clone(), encver as i32).unwrap();
    let mut cat = Catalog::new();
    assert!(restore(&mut cat, loaded, &Config::default()).is_empty());
    let mut written = Items::default();
    write(&mut written, &cat);
    let sorted = |i: &Items| {
        let mut v: Vec<String> = i.0.iter().map(|x| format!("{x:?}")).collect();
        v.sort();
        v
    };
    assert_eq!(written.0.len(), original.0.len());
    assert_eq!(sorted(&written), sorted(&original));
}

#[test]
fn a_geoshape_index_loads_and_a_name_taken_is_left_out_with_a_warning() {
    let b = |s: &str| Item::B(with_nul(s.as_bytes()));
    let base = flag::TERM_OFFSETS | flag::FIELD_FLAGS | flag::FREQS | flag::BYTE_OFFSETS;
    let shape = vec![b("s"), Item::U(0), Item::U(ty::GEOMETRY), Item::U(0), Item::U(u64::MAX), Item::U(1)];
    let mut r = one_index(shape, 1, base);
    let loaded = read(&mut r, 23).unwrap();
    assert!(r.is_empty());
    assert_eq!(loaded[0].args, words("ON HASH SCHEMA s GEOSHAPE SPHERICAL"));
    let mut cat = Catalog::new();
    let warnings = restore(&mut cat, loaded.clone(), &Config::default());
    assert!(warnings.is_empty(), "{warnings:?}");
    let warnings = restore(&mut cat, loaded, &Config::default());
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("index 'i' from the RDB is left out: "), "{warnings:?}");
}
