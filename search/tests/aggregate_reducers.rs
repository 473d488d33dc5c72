//! Every reducer on a small hand-computed data set.

mod aggregate_support;

use aggregate_support::{n, s, table, MemSource};
use search::aggregate::Value;

/// Group `a`: x = 2, 4, 4, 4, 5, 5, 7, 9 (and one row without x);
/// group `b`: x = "10", "junk".
fn data() -> MemSource {
    let mut src = MemSource::new(&[("g", true), ("x", true), ("t", true)]);
    let xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
    for (i, x) in xs.iter().enumerate() {
        src.add(&format!("a{i}"), &[("g", s("a")), ("x", n(*x)), ("t", n((10 - i) as f64))]);
    }
    src.add("a_none", &[("g", s("a"))]);
    src.add("b0", &[("g", s("b")), ("x", s("10")), ("t", n(1.0))]);
    src.add("b1", &[("g", s("b")), ("x", s("junk")), ("t", n(2.0))]);
    src
}

fn reduce(src: &MemSource, reducer: &[&str]) -> Vec<String> {
    let mut args = vec!["GROUPBY", "1", "@g", "REDUCE"];
    args.extend_from_slice(reducer);
    args.extend_from_slice(&["AS", "r", "SORTBY", "2", "@g", "ASC"]);
    let out = src.run(&args).unwrap();
    table(&out)
        .into_iter()
        .map(|r| r.iter().find(|x| x.0 == "r").map_or("-".into(), |x| x.1.clone()))
        .collect()
}

#[test]
fn count_sum_avg_min_max() {
    let src = data();
    assert_eq!(reduce(&src, &["COUNT", "0"]), vec!["9", "2"]);
    assert_eq!(reduce(&src, &["SUM", "1", "@x"]), vec!["40", "10"]);
    // AVG divides by every row of the group, numeric or not (40 / 9, 10 / 2).
    assert_eq!(reduce(&src, &["AVG", "1", "@x"]), vec!["4.44444444444", "5"]);
    assert_eq!(reduce(&src, &["MIN", "1", "@x"]), vec!["2", "10"]);
    assert_eq!(reduce(&src, &["MAX", "1", "@x"]), vec!["9", "10"]);
}

#[test]
fn min_max_without_numbers_is_zero() {
    let mut src = MemSource::new(&[("g", true), ("x", true)]);
    src.add("d", &[("g", s("a")), ("x", s("junk"))]);
    assert_eq!(reduce(&src, &["MIN", "1", "@x"]), vec!["0"]);
    assert_eq!(reduce(&src, &["MAX", "1", "@x"]), vec!["0"]);
}

#[test]
fn stddev_is_the_sample_deviation() {
    let src = data();
    // Values 2,4,4,4,5,5,7,9: mean 5, squared deviations sum 32, /7 → sqrt(32/7).
    let want = (32.0f64 / 7.0).sqrt();
    let got = reduce(&src, &["STDDEV", "1", "@x"]);
    let printed: f64 = got[0].parse().unwrap();
    assert!((printed - want).abs() < 1e-10, "{got:?} vs {want}");
    // One number in group b: 0.
    assert_eq!(got[1], "0");
}

#[test]
fn quantiles() {
    let src = data();
    // Sorted a: 2 4 4 4 5 5 7 9 → rank ceil(q·8).
    assert_eq!(reduce(&src, &["QUANTILE", "2", "@x", "0.5"]), vec!["4", "10"]);
    assert_eq!(reduce(&src, &["QUANTILE", "2", "@x", "0"]), vec!["2", "10"]);
    assert_eq!(reduce(&src, &["QUANTILE", "2", "@x", "1"]), vec!["9", "10"]);
    assert_eq!(reduce(&src, &["QUANTILE", "2", "@x", "0.9"]), vec!["9", "10"]);
    assert_eq!(reduce(&src, &["QUANTILE", "3", "@x", "0.75", "500"]), vec!["5", "10"]);
}

#[test]
fn distinct_counts_and_tolist() {
    let src = data();
    assert_eq!(reduce(&src, &["COUNT_DISTINCT", "1", "@x"]), vec!["5", "2"]);
    assert_eq!(reduce(&src, &["COUNT_DISTINCTISH", "1", "@x"]), vec!["5", "2"]);
    // RediSearch's order: its dict's buckets (`RSValue_Hash`), not first-seen.
    assert_eq!(reduce(&src, &["TOLIST", "1", "@x"]), vec!["[7,5,4,2,9]", "[10,junk]"]);
}

#[test]
fn tolist_flattens_arrays() {
    let mut src = MemSource::new(&[("g", true), ("tags", true)]);
    src.add("d1", &[("g", s("a")), ("tags", Value::array(vec![s("x"), s("y")]))]);
    src.add("d2", &[("g", s("a")), ("tags", Value::array(vec![s("y"), s("z")]))]);
    assert_eq!(reduce(&src, &["TOLIST", "1", "@tags"]), vec!["[x,z,y]"]);
}

#[test]
fn first_value() {
    let src = data();
    assert_eq!(reduce(&src, &["FIRST_VALUE", "1", "@x"]), vec!["2", "10"]);
    // t = 10 - i in group a: ASC picks the largest i (x = 9), DESC the first (x = 2).
    assert_eq!(reduce(&src, &["FIRST_VALUE", "3", "@x", "BY", "@t"]), vec!["9", "10"]);
    assert_eq!(reduce(&src, &["FIRST_VALUE", "4", "@x", "BY", "@t", "ASC"]), vec!["9", "10"]);
    assert_eq!(reduce(&src, &["FIRST_VALUE", "4", "@x", "BY", "@t", "DESC"]), vec!["2", "junk"]);
}

#[test]
fn random_sample_is_bounded_deterministic_and_from_the_group() {
    let src = data();
    let a = reduce(&src, &["RANDOM_SAMPLE", "2", "@x", "3"]);
    let b = reduce(&src, &["RANDOM_SAMPLE", "2", "@x", "3"]);
    assert_eq!(a, b);
    let items: Vec<&str> = a[0].trim_matches(['[', ']']).split(',').collect();
    assert_eq!(items.len(), 3);
    assert!(items.iter().all(|i| ["2", "4", "5", "7", "9"].contains(i)));
    assert_eq!(reduce(&src, &["RANDOM_SAMPLE", "2", "@x", "10"])[1], "[10,junk]");
}

#[test]
fn reducer_names_are_case_insensitive() {
    let src = data();
    assert_eq!(reduce(&src, &["count", "0"]), vec!["9", "2"]);
    assert_eq!(reduce(&src, &["Sum", "1", "x"]), vec!["40", "10"]);
}
