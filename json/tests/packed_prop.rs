//! Property tests of packed number arrays against the general storage as the oracle: a random
//! document with arrays of numbers is parsed twice, once as is (arrays of 8 or more numbers
//! packed) and once unpacked everywhere (kept unpacked after every op); the same random reads
//! and ops run on both, and every result and the document text must be identical. A second
//! property checks parsed number arrays against the general storage's text and serde_json's
//! numbers (kinds included).

use json::ops::num::NumOp;
use json::ops::set::SetCondition;
use json::ops::{array, clear, del, num, set};
use json::path::JsonPath;
use json::{Value, PACK_MIN_LEN};
use proptest::prelude::*;

/// A JSON number's text: integers (small, large, beyond i64), floats of every kind.
fn arb_number() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (-50i64..50).prop_map(|i| i.to_string()),
        1 => any::<i64>().prop_map(|i| i.to_string()),
        1 => (i64::MAX as u64..=u64::MAX).prop_map(|u| u.to_string()),
        4 => (-100.0f64..100.0).prop_map(|f| format!("{f:?}")),
        1 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| format!("{f:?}")),
        1 => prop::sample::select(vec!["1.0", "-0.0", "0", "-0", "1e300", "1E-7", "2.5e+3", "5e-324", "0.1"])
            .prop_map(str::to_owned),
    ]
}

fn arb_array() -> impl Strategy<Value = String> {
    prop::collection::vec(arb_number(), 0..20).prop_map(|v| format!("[{}]", v.join(",")))
}

/// `{"a":[…],"b":[…],"c":{"d":[…]},"e":[[…],[…]],"s":"x"}`.
fn arb_doc() -> impl Strategy<Value = String> {
    (arb_array(), arb_array(), arb_array(), arb_array(), arb_array()).prop_map(|(a, b, d, e0, e1)| {
        format!(r#"{{"a":{a},"b":{b},"c":{{"d":{d}}},"e":[{e0},{e1}],"s":"x"}}"#)
    })
}

const PATHS: &[&str] = &[
    "$", "$.a", "$.a[0]", "$.a[3]", "$.a[-1]", "$.a[*]", "$..*", "$.b[1:4]", "$.b[::3]", "$.a[?(@>1)]",
    "$.a[?(@==0)]", "$..d[2]", "$.e[*][0]", "$.e[?(@[0]<0)]", "$.a[?(@>=$.b[0])]", "a[1]", ".b", "$..[5]",
];

#[derive(Clone, Debug)]
enum Op {
    Get(usize),
    Num(usize, String, bool),
    Append(usize, Vec<String>),
    Insert(usize, i64, Vec<String>),
    Pop(usize, i64),
    Trim(usize, i64, i64),
    Del(usize),
    Clear(usize),
    Set(usize, String),
    Merge(usize, String),
    Index(usize, String),
}

fn arb_value_text() -> impl Strategy<Value = String> {
    prop_oneof![6 => arb_number(), 1 => Just(r#""z""#.to_owned()), 1 => Just("null".to_owned()), 1 => arb_array()]
}

fn arb_op() -> impl Strategy<Value = Op> {
    let p = 0..PATHS.len();
    prop_oneof![
        3 => p.clone().prop_map(Op::Get),
        2 => (p.clone(), arb_number(), any::<bool>()).prop_map(|(p, n, m)| Op::Num(p, n, m)),
        2 => (p.clone(), prop::collection::vec(arb_value_text(), 1..4)).prop_map(|(p, v)| Op::Append(p, v)),
        1 => (p.clone(), -4i64..5, prop::collection::vec(arb_value_text(), 1..3)).prop_map(|(p, i, v)| Op::Insert(p, i, v)),
        1 => (p.clone(), -3i64..4).prop_map(|(p, i)| Op::Pop(p, i)),
        1 => (p.clone(), -4i64..5, -4i64..20).prop_map(|(p, a, b)| Op::Trim(p, a, b)),
        1 => p.clone().prop_map(Op::Del),
        1 => p.clone().prop_map(Op::Clear),
        2 => (p.clone(), arb_value_text()).prop_map(|(p, v)| Op::Set(p, v)),
        1 => (p.clone(), arb_value_text()).prop_map(|(p, v)| Op::Merge(p, v)),
        1 => (p, arb_number()).prop_map(|(p, v)| Op::Index(p, v)),
    ]
}

/// Turns every array below `v` back into general storage (`iter_mut` unpacks).
fn unpack_all(v: &mut Value) {
    let mut pending = vec![v];
    while let Some(x) = pending.pop() {
        if x.is_array() {
            pending.extend(x.iter_mut());
        } else if x.is_object() {
            pending.extend(x.obj_iter_mut().map(|(_, y)| y));
        }
    }
}

fn parse(t: &str) -> Value {
    Value::parse(t.as_bytes()).expect("valid")
}

/// Runs `op` on `doc`, returning a text of everything it returned.
fn run(doc: &mut Value, op: &Op) -> String {
    let path = |i: usize| JsonPath::parse(PATHS[i]).expect("path");
    match op {
        Op::Get(p) => {
            let found: Vec<String> =
                path(*p).select(doc).iter().map(|v| format!("{}:{}", v.to_json(), v.type_name())).collect();
            format!("{found:?}")
        }
        Op::Num(p, n, mult) => {
            format!("{:?}", num::num_op(doc, &path(*p), n, if *mult { NumOp::Mult } else { NumOp::Incr }))
        }
        Op::Append(p, vs) => format!(
            "{:?}",
            array::arr_append(doc, &path(*p), &vs.iter().map(|v| parse(v)).collect::<Vec<_>>())
        ),
        Op::Insert(p, i, vs) => {
            format!(
                "{:?}",
                array::arr_insert(doc, &path(*p), *i, &vs.iter().map(|v| parse(v)).collect::<Vec<_>>())
            )
        }
        Op::Pop(p, i) => format!("{:?}", array::arr_pop(doc, &path(*p), *i)),
        Op::Trim(p, a, b) => format!("{:?}", array::arr_trim(doc, &path(*p), *a, *b)),
        Op::Del(p) => format!("{:?}", del::del(doc, &path(*p))),
        Op::Clear(p) => format!("{:?}", clear::clear(doc, &path(*p))),
        Op::Set(p, v) => format!("{:?}", set::set(doc, &path(*p), parse(v), SetCondition::Always)),
        Op::Merge(p, v) => format!("{:?}", set::merge(doc, &path(*p), &parse(v))),
        Op::Index(p, v) => format!("{:?}", array::arr_index(doc, &path(*p), &parse(v), 0, 0)),
    }
}

fn count_packed(v: &Value) -> usize {
    let here = usize::from(v.is_packed());
    here + v.iter().map(|x| count_packed(&x)).sum::<usize>()
        + v.obj_iter().map(|(_, x)| count_packed(x)).sum::<usize>()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn packed_and_general_storage_agree(doc in arb_doc(), ops in prop::collection::vec(arb_op(), 1..12)) {
        let mut packed = parse(&doc);
        let mut general = parse(&doc);
        unpack_all(&mut general);
        prop_assert_eq!(count_packed(&general), 0);
        prop_assert_eq!(packed.to_json(), general.to_json());
        for op in &ops {
            let a = run(&mut packed, op);
            let b = run(&mut general, op);
            unpack_all(&mut general);
            prop_assert_eq!(&a, &b, "{:?}", op);
            prop_assert_eq!(packed.to_json(), general.to_json(), "after {:?}", op);
            prop_assert!(packed == general);
            prop_assert_eq!(packed.clone().mem_usage(), packed.mem_usage());
        }
    }

    #[test]
    fn number_arrays_print_as_serde_json_does(items in prop::collection::vec(arb_number(), 0..40)) {
        let text = format!("[{}]", items.join(","));
        let ours = parse(&text);
        prop_assert_eq!(ours.is_packed(), items.len() >= PACK_MIN_LEN && !items.iter().any(|t| t.parse::<u64>().is_ok_and(|u| u > i64::MAX as u64)));
        // The same text as the general storage (RedisJSON 2.8.3's serde_json formatting), and
        // the same numbers, of the same kinds, as serde_json reads.
        let mut general = ours.clone();
        unpack_all(&mut general);
        prop_assert_eq!(ours.to_json(), general.to_json());
        let theirs: serde_json::Value = serde_json::from_str(&text).expect("serde");
        let back: serde_json::Value = serde_json::from_str(&ours.to_json()).expect("serde");
        prop_assert_eq!(back, theirs);
    }
}
