//! The model against RediSearch 2.10.5's own figures (its flow tests' and replies measured
//! on it), and replay against incremental building.

use super::gc;
use super::tree::{Settings, Tree};
use crate::index::extract::FieldValues;
use crate::index::Index;
use crate::schema::IndexSpec;

const PLAIN: Settings = Settings { parents: 0, compress: false };

fn tree_of(values: impl IntoIterator<Item = f64>, cfg: Settings) -> Tree {
    let mut t = Tree::new(0);
    for (i, v) in values.into_iter().enumerate() {
        t.add(i as u64 + 1, v, cfg);
    }
    t
}

fn summary(t: &Tree) -> (u64, u64, u64, u32, u64, i32) {
    (t.num_ranges, t.num_entries, t.last_doc_id, t.revision_id, t.empty_leaves, t.root_max_depth())
}

#[test]
fn a_hundred_values_over_100_000_documents_make_15_ranges() {
    // test_numbers.py testSanity.
    let t = tree_of((0..100_000).map(|i| f64::from(i % 100)), PLAIN);
    assert_eq!(summary(&t), (15, 100_000, 100_000, 14, 0, 5));
}

#[test]
fn parents_keep_their_ranges() {
    // test_numbers.py testRangeParentsConfig.
    let values = || (0..1000).map(f64::from);
    assert_eq!(tree_of(values(), PLAIN).num_ranges, 4);
    assert_eq!(tree_of(values(), Settings { parents: 2, compress: false }).num_ranges, 6);
}

#[test]
fn a_filter_reads_the_ranges_it_reaches_in_order() {
    // test_profile.py testProfileNumeric: (min, max, documents) of each range read.
    let t = tree_of((0..10_000).map(|i| 50.0 - f64::from(i % 1000) / 10.0), PLAIN);
    let g = crate::query::profile::g;
    let got: Vec<(String, u32)> = t
        .find(0.0, 100.0)
        .iter()
        .map(|r| (format!("{} - {}", g(r.min), g(r.max)), r.entries.num_docs))
        .collect();
    let want = [
        ("-2.9 - 14.4", 1740),
        ("14.5 - 30.7", 1630),
        ("30.8 - 38", 730),
        ("38.1 - 44.6", 660),
        ("44.7 - 46.7", 210),
        ("46.8 - 48.5", 180),
        ("48.6 - 50", 150),
    ];
    let want: Vec<(String, u32)> = want.iter().map(|(t, n)| (t.to_string(), *n)).collect();
    assert_eq!(got, want);
}

#[test]
fn the_gc_recounts_cardinality_so_the_split_value_is_right() {
    // test_numbers.py testSplit: 19 documents of 100, one collected, then 10 of 10.
    let mut t = tree_of((0..19).map(|_| 100.0), PLAIN);
    let root = t.root.as_ref().and_then(|n| n.range.as_ref()).map(|r| (r.unique_sum, r.card, r.card_check));
    assert_eq!(root, Some((100.0, 1, 1)));
    let done = gc::collect(&mut t, &|d| d == 1, false, true);
    assert_eq!((done.entries, done.ranges, done.trimmed), (1, 1, false));
    for doc in 20..30 {
        t.add(doc, 10.0, PLAIN);
    }
    let root = t.root.as_ref().unwrap();
    assert_eq!(root.value, 55.0);
    let side = |n: &Option<Box<super::tree::Node>>| {
        let r = n.as_ref().unwrap().range.as_ref().unwrap();
        (r.unique_sum, r.card, r.min, r.max, r.entries.num_entries)
    };
    assert_eq!(side(&root.left), (10.0, 1, 10.0, 10.0, 10));
    assert_eq!(side(&root.right), (100.0, 1, 100.0, 100.0, 18));
}

#[test]
fn emptied_leaves_are_trimmed_once_they_are_half_the_ranges() {
    // test_numbers.py testEmptyNumericLeakIncrease, smaller: three passes of increasing
    // values over the same documents, then a GC run collecting the first two passes.
    let docs = 2000u64;
    let mut t = Tree::new(0);
    for pass in 0..3 {
        for j in 0..docs {
            t.add(pass * docs + j + 1, (pass * docs + j) as f64, PLAIN);
        }
    }
    let before = t.num_ranges;
    let done = gc::collect(&mut t, &|d| d <= 2 * docs, false, true);
    assert!(done.trimmed);
    assert!(t.num_ranges < before, "{} ranges, {before} before", t.num_ranges);
    assert_eq!((t.num_entries, t.empty_leaves), (docs, 0));
    let kept: u64 = t.find(f64::NEG_INFINITY, f64::INFINITY).iter().map(|r| r.entries.num_entries).sum();
    assert_eq!(kept, docs, "every live entry is still reachable");
    let mut depth_ok = true;
    fn check(n: &super::tree::Node, ok: &mut bool) {
        if let (Some(l), Some(r)) = (n.left.as_deref(), n.right.as_deref()) {
            *ok &= (l.max_depth - r.max_depth).abs() <= super::tree::MAX_DEPTH_BALANCE + 1;
            check(l, ok);
            check(r, ok);
        }
    }
    check(t.root.as_ref().unwrap(), &mut depth_ok);
    assert!(depth_ok, "subtrees stay balanced");
}

#[test]
fn the_gc_keeps_a_lone_value_as_its_unique_sum() {
    // test_numbers.py testUniqueSum and testNegativeValues.
    for v in [3.0, -0.4, 4.67, -1.0] {
        let mut t = tree_of((0..100).map(|_| v), PLAIN);
        gc::collect(&mut t, &|d| d == 2, false, true);
        let r = t.root.as_ref().and_then(|n| n.range.as_ref()).unwrap();
        assert_eq!((r.unique_sum, r.card, t.num_entries), (v, 1, 99));
    }
}

fn numeric_index() -> Index {
    let args: Vec<&[u8]> = vec![b"SCHEMA", b"n", b"NUMERIC"];
    Index::new(IndexSpec::parse("idx", &args).unwrap(), 4).unwrap()
}

fn put(idx: &mut Index, key: &str, v: f64) {
    idx.insert(key.as_bytes(), vec![FieldValues::Numeric { values: vec![v], served: true }], 1.0);
}

fn dump(idx: &Index) -> String {
    let trees = idx.numeric_model.trees(&idx.docs, || vec![0]);
    format!(
        "{:?}",
        trees.as_ref().and_then(|t| t.get(0)).map(|t| (summary(t), t.find(f64::MIN, f64::MAX).len()))
    )
}

#[test]
fn replaying_the_history_builds_the_tree_incremental_adds_build() {
    // Documents added, updated (a new RediSearch id each time) and deleted: a tree built
    // from the start and fed every write equals one replayed at the end.
    let writes = |idx: &mut Index| {
        for i in 0..3000u32 {
            put(idx, &format!("d{}", i % 700), f64::from(i % 97) * 1.5);
            if i % 11 == 0 {
                idx.remove(format!("d{}", i % 300).as_bytes());
            }
        }
    };
    let mut early = numeric_index();
    drop(early.numeric_model.trees(&early.docs, || vec![0]));
    writes(&mut early);
    let mut late = numeric_index();
    writes(&mut late);
    assert!(!late.numeric_model.is_built(), "nothing asked for the tree yet");
    assert_eq!(dump(&early), dump(&late));
    assert!(late.numeric_model.garbage_records() > 0);
}
