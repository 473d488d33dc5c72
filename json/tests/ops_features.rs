//! Op behaviour beyond the rejson.so comparison (`ops_rejson.rs`): the places where folio is
//! deliberately different (checked arithmetic, atomic failures, nested matches) and edge cases.

use json::ops::{array, clear, del, num, object, set, string, toggle, OpError, Outcome};
use json::path::JsonPath;
use json::{Num, Value};

fn doc(text: &str) -> Value {
    Value::parse(text.as_bytes()).expect("document")
}

fn path(text: &str) -> JsonPath {
    JsonPath::parse(text).expect("path")
}

fn err<T: std::fmt::Debug>(r: Result<T, OpError>) -> String {
    r.expect_err("an error").to_string()
}

#[test]
fn integer_arithmetic_is_checked() {
    let mut d = doc(r#"{"a":18446744073709551615,"b":-9223372036854775808,"c":3}"#);
    let before = d.clone();
    assert_eq!(err(num::num_incr_by(&mut d, &path("$.a"), "1")), "ERR numeric overflow".to_owned() + "");
    // i64 arithmetic past i64::MAX overflows (as RedisJSON 8), even though u64 could hold it ...
    let mut u = doc(r#"{"a":9223372036854775807}"#);
    assert_eq!(err(num::num_incr_by(&mut u, &path("$.a"), "1")), "ERR numeric overflow");
    assert_eq!(u.to_json(), r#"{"a":9223372036854775807}"#);
    // ... while a number already above i64::MAX keeps exact u64 arithmetic.
    let mut u = doc(r#"{"a":9223372036854775808}"#);
    let o = num::num_incr_by(&mut u, &path("$.a"), "1").unwrap();
    assert_eq!(o.results, vec![Some(Num::U64(9_223_372_036_854_775_809))]);
    assert_eq!(u.to_json(), r#"{"a":9223372036854775809}"#);
    assert_eq!(err(num::num_mult_by(&mut d, &path("$.b"), "2")), "ERR numeric overflow");
    assert_eq!(err(num::num_pow_by(&mut d, &path("$.c"), "100")), "ERR numeric overflow");
    // One overflowing match fails the whole command, nothing changes.
    assert_eq!(err(num::num_incr_by(&mut d, &path("$.*"), "1")), "ERR numeric overflow");
    assert_eq!(d, before);
}

#[test]
fn arithmetic_types() {
    let mut d = doc(r#"{"i":3,"f":1.5,"s":"x"}"#);
    let o = num::num_incr_by(&mut d, &path("$.*"), "2").unwrap();
    assert_eq!(o.results, vec![Some(Num::I64(5)), Some(Num::F64(3.5)), None]);
    assert!(o.changed);
    let o = num::num_mult_by(&mut d, &path("$.i"), "1.0").unwrap();
    assert_eq!(o.results, vec![Some(Num::F64(5.0))]);
    assert_eq!(d.obj_get("i").unwrap().to_json(), "5.0");
    let o = num::num_pow_by(&mut d, &path("$.f"), "2").unwrap();
    assert_eq!(o.results, vec![Some(Num::F64(12.25))]);
    let mut p = doc(r#"{"a":2,"z":0,"m":-1}"#);
    let o = num::num_pow_by(&mut p, &path("$.a"), "-1").unwrap();
    assert_eq!(o.results, vec![Some(Num::F64(0.5))]);
    assert_eq!(
        num::num_pow_by(&mut p, &path("$.z"), "99999999999").unwrap().results,
        vec![Some(Num::I64(0))]
    );
    assert_eq!(
        num::num_pow_by(&mut p, &path("$.m"), "99999999999").unwrap().results,
        vec![Some(Num::I64(-1))]
    );
    assert_eq!(err(num::num_mult_by(&mut d, &path("$.f"), "1e308")), "ERR result is not a number");
    assert_eq!(err(num::num_incr_by(&mut d, &path("$.i"), "[1]")), "bad input number");
    assert!(err(num::num_incr_by(&mut d, &path("$.i"), "x")).starts_with("ERR expected value"));
    // The argument is only parsed when there is a number to change.
    assert_eq!(num::num_incr_by(&mut d, &path("$.s"), "x").unwrap().results, vec![None]);
    assert_eq!(
        err(num::num_incr_by(&mut d, &path(".s"), "1")),
        "ERR Path '$.s' does not exist or does not contains a number"
    );
    // A location matched twice is changed twice, in order.
    let mut a = doc("[1]");
    let o = num::num_incr_by(&mut a, &path("$[0,0]"), "1").unwrap();
    assert_eq!(o.results, vec![Some(Num::I64(2)), Some(Num::I64(3))]);
    assert_eq!(a.to_json(), "[3]");
}

#[test]
fn set_paths() {
    let mut d = doc(r#"{"a":{"b":1},"arr":[1,2]}"#);
    assert_eq!(
        set::set(&mut d, &path("$.a.c"), Value::from(2i64), set::SetCondition::Always),
        Ok(set::SetOutcome::Set)
    );
    assert_eq!(
        set::set(&mut d, &path("$.x.y"), Value::from(2i64), set::SetCondition::Always),
        Ok(set::SetOutcome::NotSet)
    );
    assert_eq!(
        set::set(&mut d, &path("$.a.b"), Value::from(3i64), set::SetCondition::Nx),
        Ok(set::SetOutcome::NotSet)
    );
    assert_eq!(
        set::set(&mut d, &path("$.a.z"), Value::from(3i64), set::SetCondition::Xx),
        Ok(set::SetOutcome::NotSet)
    );
    assert_eq!(
        err(set::set(&mut d, &path("$..q"), Value::null(), set::SetCondition::Always)),
        "Err wrong static path"
    );
    assert_eq!(
        err(set::set(&mut d, &path("$.arr[2]"), Value::null(), set::SetCondition::Always)),
        "ERR array index out of range"
    );
    assert_eq!(d.to_json(), r#"{"a":{"b":1,"c":2},"arr":[1,2]}"#);
    // Overlapping matches: only the top-most is written.
    let mut n = doc(r#"{"a":{"a":{"a":1}}}"#);
    let v = doc(r#"{"a":{"a":0}}"#);
    assert_eq!(set::set(&mut n, &path("$..a"), v, set::SetCondition::Always), Ok(set::SetOutcome::Set));
    assert_eq!(n.to_json(), r#"{"a":{"a":{"a":0}}}"#);
    // Root.
    assert_eq!(
        set::set(&mut n, &path("$"), Value::from(1i64), set::SetCondition::Nx),
        Ok(set::SetOutcome::NotSet)
    );
    assert_eq!(
        set::set(&mut n, &path("."), Value::from(1i64), set::SetCondition::Always),
        Ok(set::SetOutcome::Set)
    );
    assert_eq!(n.to_json(), "1");
}

#[test]
fn merge_patches() {
    let mut d = doc(r#"{"a":{"b":1,"c":[1]},"d":2}"#);
    let patch = doc(r#"{"b":null,"c":{"x":1},"e":{"f":null,"g":1}}"#);
    assert_eq!(set::merge(&mut d, &path("$.a"), &patch), Ok(set::SetOutcome::Set));
    assert_eq!(d.to_json(), r#"{"a":{"c":{"x":1},"e":{"g":1}},"d":2}"#);
    assert_eq!(set::merge(&mut d, &path("$.new"), &patch), Ok(set::SetOutcome::Set));
    assert_eq!(d.obj_get("new").unwrap(), &patch, "added as given");
    assert_eq!(set::merge(&mut d, &path("$.x.y"), &patch), Ok(set::SetOutcome::NotSet));
    assert_eq!(set::merge(&mut d, &path("$"), &doc(r#"{"a":null,"new":null}"#)), Ok(set::SetOutcome::Set));
    assert_eq!(d.to_json(), r#"{"d":2}"#);
}

#[test]
fn del_counts_each_location_once() {
    let mut d = doc(r#"{"a":[0,1,2,3,4,5],"b":{"a":1}}"#);
    assert_eq!(del::del(&mut d, &path("$.a[0,0,5,-1,2]")), 3);
    assert_eq!(d.to_json(), r#"{"a":[1,3,4],"b":{"a":1}}"#);
    assert_eq!(del::del(&mut d, &path("$..a")), 2);
    assert_eq!(d.to_json(), r#"{"b":{}}"#);
    assert_eq!(del::del(&mut d, &path("$.zz")), 0);
    let mut n = doc(r#"{"a":{"a":{"a":1}},"k":[{"a":1},{"a":2}]}"#);
    assert_eq!(del::del(&mut n, &path("$..a")), 3, "nested matches: only the top-most");
    assert_eq!(n.to_json(), r#"{"k":[{},{}]}"#);
}

#[test]
fn nested_matches_are_changed_where_they_were_found() {
    let mut d = doc("[[1,[2,3]],[4]]");
    let o = array::arr_pop(&mut d, &path("$..*"), 0).unwrap();
    let popped: Vec<Option<String>> =
        o.results.iter().map(|r| r.clone().flatten().map(|v| v.to_json())).collect();
    // Matches in RedisJSON's order: [1,[2,3]], [4], 1, [2,3], 2, 3, 4.
    assert_eq!(popped, vec![Some("1".into()), Some("4".into()), None, Some("2".into()), None, None, None]);
    assert_eq!(d.to_json(), "[[[3]],[]]");
    let mut d = doc("[[1,[2,3]],[4]]");
    let o = array::arr_insert(&mut d, &path("$..*"), 0, &[Value::from(0i64)]).unwrap();
    assert_eq!(o.results, vec![Some(3), Some(2), None, Some(3), None, None, None]);
    assert_eq!(d.to_json(), "[[0,1,[0,2,3]],[0,4]]");
    let mut d = doc("[[1,[2,3]],[4]]");
    let o = array::arr_trim(&mut d, &path("$..*"), 1, 1).unwrap();
    assert_eq!(o.results, vec![Some(1), Some(0), None, Some(1), None, None, None]);
    assert_eq!(d.to_json(), "[[[3]],[]]");
}

#[test]
fn arr_insert_fails_without_changes() {
    let mut d = doc(r#"{"a":[1,2,3],"b":[1]}"#);
    let before = d.clone();
    assert_eq!(err(array::arr_insert(&mut d, &path("$.*"), -3, &[Value::null()])), "ERR index out of bounds");
    assert_eq!(d, before);
    assert_eq!(array::arr_insert(&mut d, &path("$.a"), -3, &[Value::null()]).unwrap().results, vec![Some(4)]);
    assert_eq!(
        array::arr_insert(&mut d, &path("$.b"), 1, &[Value::null(), Value::from(true)]).unwrap().results,
        vec![Some(3)]
    );
    assert_eq!(d.to_json(), r#"{"a":[null,1,2,3],"b":[1,null,true]}"#);
}

#[test]
fn array_reads() {
    let d = doc(r#"{"a":[1,1.0,"1",[1],{"x":1},1],"o":{}}"#);
    let idx = |p: &str, v: &str, s: i64, e: i64| array::arr_index(&d, &path(p), &doc(v), s, e).unwrap();
    assert_eq!(idx("$.a", "1", 0, 0), vec![Some(0)]);
    assert_eq!(idx("$.a", "1.0", 0, 0), vec![Some(1)]);
    assert_eq!(idx("$.a", "[1]", 0, 0), vec![Some(3)]);
    assert_eq!(idx("$.a", r#"{"x":1}"#, 0, 0), vec![Some(4)]);
    assert_eq!(idx("$.a", "1", 1, 0), vec![Some(5)]);
    assert_eq!(idx("$.a", "1", 1, -1), vec![Some(-1)]);
    assert_eq!(idx("$.a", "1", -1, 0), vec![Some(5)]);
    assert_eq!(idx("$.a", "1", 4, 2), vec![Some(-1)]);
    assert_eq!(idx("$.*", "1", 0, 0), vec![Some(0), None]);
    assert_eq!(
        err(array::arr_index(&d, &path("o"), &doc("1"), 0, 0)),
        "WRONGTYPE wrong type of path value - expected array but found object"
    );
    assert_eq!(array::arr_len(&d, &path("$.*")).unwrap(), vec![Some(6), None]);
    assert_eq!(err(array::arr_len(&d, &path("o"))), "ERR Path 'o' does not exist or not an array");
    assert_eq!(err(array::arr_len(&d, &path("zz"))), "ERR Path 'zz' does not exist");
}

#[test]
fn arr_trim_ranges() {
    let trim = |start: i64, stop: i64| {
        let mut d = doc("[0,1,2,3,4]");
        array::arr_trim(&mut d, &path("$"), start, stop).unwrap();
        d.to_json()
    };
    assert_eq!(trim(1, 3), "[1,2,3]");
    assert_eq!(trim(0, -1), "[0,1,2,3,4]");
    assert_eq!(trim(-2, -1), "[3,4]");
    assert_eq!(trim(3, 1), "[]");
    assert_eq!(trim(5, 9), "[]");
    assert_eq!(trim(-99, 99), "[0,1,2,3,4]");
    assert_eq!(trim(i64::MIN, i64::MAX), "[0,1,2,3,4]");
    assert_eq!(trim(2, i64::MIN), "[]");
}

#[test]
fn strings_objects_toggle_clear() {
    let mut d = doc(r#"{"s":"é","n":1,"o":{"a":1,"b":2},"t":true,"f":false}"#);
    let o: Outcome<usize> = string::str_append(&mut d, &path("$.*"), r#""ü""#).unwrap();
    assert_eq!(o.results, vec![Some(4), None, None, None, None]);
    assert_eq!(string::str_len(&d, &path("s")).unwrap(), vec![Some(4)]);
    assert_eq!(
        err(string::str_append(&mut d, &path("$.s"), "12")),
        "WRONGTYPE wrong type of path value - expected string but found 12"
    );
    assert_eq!(object::obj_keys(&d, &path("$.o")).unwrap(), vec![Some(vec!["a", "b"])]);
    assert_eq!(object::obj_keys(&d, &path("zz")).unwrap(), Vec::<Option<Vec<&str>>>::new());
    assert_eq!(object::obj_len(&d, &path("$.*")).unwrap(), vec![None, None, Some(2), None, None]);
    let o = toggle::toggle(&mut d, &path("$.*")).unwrap();
    assert_eq!(o.results, vec![None, None, None, Some(false), Some(true)]);
    assert_eq!(o.last(), Some(&true));
    assert_eq!(clear::clear(&mut d, &path("$.*")), 2, "the object and the number");
    assert_eq!(d.to_json(), r#"{"s":"éü","n":0,"o":{},"t":false,"f":true}"#);
    assert_eq!(clear::clear(&mut d, &path("$.*")), 0);
    let mut nested = doc(r#"{"a":{"b":[1,2],"c":3},"d":1.5}"#);
    assert_eq!(clear::clear(&mut nested, &path("$..*")), 2, "inner matches vanish with the outer");
    assert_eq!(nested.to_json(), r#"{"a":{},"d":0}"#);
}

#[test]
fn set_plans_validate_without_writing() {
    let d = doc(r#"{"a":{"b":1},"arr":[1]}"#);
    assert_eq!(err(set::plan_set(&d, &path("$..zz"), set::SetCondition::Always)), "Err wrong static path");
    assert_eq!(
        err(set::plan_set(&d, &path("$.arr[3]"), set::SetCondition::Always)),
        "ERR array index out of range"
    );
    assert!(!set::plan_set(&d, &path("$.q.r"), set::SetCondition::Always).unwrap().writes());
    assert!(!set::plan_set(&d, &path("$.a.b"), set::SetCondition::Nx).unwrap().writes());
    let plan = set::plan_set(&d, &path("$.a.c"), set::SetCondition::Nx).unwrap();
    assert!(plan.writes());
    let mut d2 = d.clone();
    assert_eq!(plan.apply(&mut d2, Value::from(2i64)), set::SetOutcome::Set);
    assert_eq!(d2.to_json(), r#"{"a":{"b":1,"c":2},"arr":[1]}"#);
}
