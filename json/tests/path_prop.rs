//! Property tests of the path engine: legacy and JSONPath spellings agree, static paths agree
//! with a naive walk, and arbitrary input never panics (parse, evaluate, mutate).

use json::ops::{array, clear, del, num, set, string, toggle};
use json::path::JsonPath;
use json::{Node, Value};
use proptest::prelude::*;

const KEYS: [&str; 5] = ["a", "b", "k y", "0", "q'"];

fn arb_doc() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::null()),
        any::<bool>().prop_map(Value::from),
        (-5i64..5).prop_map(Value::from),
        "[a-c]{0,3}".prop_map(|s| Value::from(s.as_str())),
    ];
    leaf.prop_recursive(5, 64, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::array),
            prop::collection::vec((0..KEYS.len(), inner), 0..5).prop_map(|pairs| {
                Value::object(pairs.into_iter().map(|(k, v)| (KEYS[k].to_owned(), v)).collect())
            }),
        ]
    })
}

#[derive(Clone, Debug)]
enum StepSpec {
    Key(usize),
    Index(i64),
}

fn arb_steps() -> impl Strategy<Value = Vec<StepSpec>> {
    prop::collection::vec(
        prop_oneof![(0..KEYS.len()).prop_map(StepSpec::Key), (-4i64..5).prop_map(StepSpec::Index)],
        1..5,
    )
}

/// `$` spelling: `$.a[0]['k y']`.
fn jsonpath_text(steps: &[StepSpec]) -> String {
    let mut s = "$".to_owned();
    for st in steps {
        match st {
            StepSpec::Key(k) if KEYS[*k].chars().all(|c| c.is_ascii_alphanumeric()) => {
                s.push('.');
                s.push_str(KEYS[*k]);
            }
            StepSpec::Key(k) => s.push_str(&format!("[\"{}\"]", KEYS[*k])),
            StepSpec::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Legacy spelling: `a[0]["k y"]` (no leading dot) or `.a[0]["k y"]`.
fn legacy_text(steps: &[StepSpec], leading_dot: bool) -> String {
    let j = jsonpath_text(steps);
    let rest = &j[1..];
    match (rest.strip_prefix('.'), leading_dot) {
        (Some(r), false) => r.to_owned(),
        _ => rest.to_owned(),
    }
}

/// The oracle: RedisJSON's index rule (negative from the end, clamped at 0) walked naively.
fn naive<'a>(doc: &'a Value, steps: &[StepSpec]) -> Option<Node<'a>> {
    let mut node = Node::Ref(doc);
    for st in steps {
        node = match st {
            StepSpec::Key(k) => Node::Ref(node.as_ref_value()?.as_object()?.get(KEYS[*k])?),
            StepSpec::Index(i) => {
                let arr = node.array()?;
                let len = arr.len() as i64;
                let at = if *i >= 0 { *i } else { (len + i).max(0) };
                arr.get(usize::try_from(at).ok()?)?
            }
        };
    }
    Some(node)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn legacy_and_dollar_spellings_select_the_same_first_node(
        doc in arb_doc(), steps in arb_steps(), dot in any::<bool>()
    ) {
        let legacy = JsonPath::parse(&legacy_text(&steps, dot)).expect("legacy");
        let dollar = JsonPath::parse(&jsonpath_text(&steps)).expect("jsonpath");
        prop_assert!(legacy.is_legacy() && !dollar.is_legacy());
        prop_assert!(legacy.is_static() && dollar.is_static());
        let a = legacy.first(&doc);
        let b = dollar.select(&doc).into_iter().next();
        let oracle = naive(&doc, &steps);
        prop_assert!(opt_ptr_eq(a.clone(), b.clone()), "legacy {:?} vs $ {:?}", a, b);
        prop_assert!(opt_ptr_eq(a.clone(), oracle.clone()), "engine {:?} vs naive {:?}", a, oracle);
        // Locations lead back to the same node.
        let locs = dollar.select_locations(&doc);
        let back = locs.first().and_then(|l| json::path::location::resolve(&doc, l));
        prop_assert!(opt_ptr_eq(back, oracle));
    }

    #[test]
    fn wildcard_union_matches_explicit_keys(doc in arb_doc()) {
        // `$.*` on an object equals the union of its keys, in order.
        if let Some(obj) = doc.as_object() {
            let keys: Vec<String> = obj.keys().map(|k| format!("'{}'", k.replace('\'', "\\'"))).collect();
            if !keys.is_empty() {
                let union = JsonPath::parse(&format!("$[{}]", keys.join(","))).expect("union");
                let star = JsonPath::parse("$.*").expect("star");
                let a: Vec<*const Value> = union.select(&doc).into_iter().map(|v| v.as_ref_value().unwrap() as *const Value).collect();
                let b: Vec<*const Value> = star.select(&doc).into_iter().map(|v| v.as_ref_value().unwrap() as *const Value).collect();
                prop_assert_eq!(a, b);
            }
        }
    }
}

/// The same node: the same borrowed value, or equal numbers read out of a packed array.
fn opt_ptr_eq(a: Option<Node<'_>>, b: Option<Node<'_>>) -> bool {
    match (a, b) {
        (Some(Node::Ref(x)), Some(Node::Ref(y))) => std::ptr::eq(x, y),
        (Some(x @ Node::Num(_)), Some(y @ Node::Num(_))) => *x == *y,
        (None, None) => true,
        _ => false,
    }
}

/// Deterministic xorshift generator for the no-panic sweep.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const TOKENS: &[&str] = &[
    "$", ".", "..", "[", "]", "*", "?", "(", ")", "@", "a", "b", "0", "1", "-1", ":", ",", "'a'", "\"b\"",
    "'", "\"", "\\", "==", "!=", "<", ">=", "=~", "&&", "||", " ", "true", "null", "1.5", "é", "[?(", ")]",
    "[0]", ".*", "..*", "[*]", "-", "99999999999999999999", "'[('", "\u{0}",
];

#[test]
fn arbitrary_paths_never_panic() {
    let doc = Value::parse(
        br#"{"a":[1,{"a":2,"b":[true,null]},"s"],"b":{"a":{"b":"x"},"c":[[]]},"0":1.5,"k y":-1}"#,
    )
    .expect("doc");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut compiled = 0;
    for round in 0..20_000 {
        let text: String = if round % 4 == 0 {
            // Raw bytes (lossily made UTF-8, as the glue would reject invalid UTF-8 anyway).
            let bytes: Vec<u8> = (0..rng.below(24)).map(|_| rng.next() as u8).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            let mut s = if rng.below(5) == 0 { String::new() } else { "$".to_owned() };
            for _ in 0..rng.below(12) {
                s.push_str(TOKENS[rng.below(TOKENS.len())]);
            }
            s
        };
        let Ok(path) = JsonPath::parse(&text) else {
            continue;
        };
        compiled += 1;
        let _ = path.select(&doc);
        let _ = path.select_locations(&doc);
        let mut d = doc.clone();
        let _ = set::set(&mut d, &path, Value::from(1i64), set::SetCondition::Always);
        let _ = set::merge(&mut d, &path, &doc);
        let _ = num::num_incr_by(&mut d, &path, "2");
        let _ = string::str_append(&mut d, &path, "\"z\"");
        let _ = array::arr_insert(&mut d, &path, -1, &[Value::null()]);
        let _ = array::arr_pop(&mut d, &path, 0);
        let _ = array::arr_trim(&mut d, &path, 1, -2);
        let _ = toggle::toggle(&mut d, &path);
        let _ = clear::clear(&mut d, &path);
        let _ = del::del(&mut d, &path);
    }
    assert!(compiled > 1_000, "only {compiled} paths compiled");
}
