//! The `Value` API: constructors, accessors, array and object operations.
//!
//! Apart from the two big randomized tests, this file also runs clean under
//! `cargo +nightly miri test -p json --test value_api -- --skip large_objects --skip parsed_duplicates`.

use json::{Kind, Num, Value};

fn p(s: &str) -> Value {
    Value::parse(s.as_bytes()).expect("valid JSON")
}

#[test]
fn value_is_16_bytes() {
    assert_eq!(std::mem::size_of::<Value>(), 16);
    assert_eq!(std::mem::size_of::<Option<Value>>(), 16);
}

#[test]
fn kinds_and_type_names() {
    let cases = [
        ("null", Kind::Null, "null"),
        ("true", Kind::Bool, "boolean"),
        ("-3", Kind::Integer, "integer"),
        ("18446744073709551615", Kind::Integer, "integer"),
        ("1.0", Kind::Number, "number"),
        ("18446744073709551616", Kind::Number, "number"),
        ("\"x\"", Kind::String, "string"),
        ("[]", Kind::Array, "array"),
        ("{}", Kind::Object, "object"),
    ];
    for (text, kind, name) in cases {
        let v = p(text);
        assert_eq!(v.kind(), kind, "{text}");
        assert_eq!(v.type_name(), name, "{text}");
    }
}

#[test]
fn numbers_keep_their_representation() {
    assert_eq!(p("5").as_num(), Some(Num::I64(5)));
    assert_eq!(p("-5").as_num(), Some(Num::I64(-5)));
    assert_eq!(p("9223372036854775808").as_num(), Some(Num::U64(9_223_372_036_854_775_808)));
    assert_eq!(p("5.0").as_num(), Some(Num::F64(5.0)));
    assert_eq!(p("5").as_u64(), Some(5));
    assert_eq!(p("-5").as_u64(), None);
    assert_eq!(p("5").as_f64(), Some(5.0));
    assert_eq!(p("5.5").as_i64(), None);
    assert_eq!(Value::from(7u64), Value::from(7i64));
    assert_ne!(Value::from(1i64), Value::from(1.0));
    assert_eq!(Value::from(u64::MAX).to_json(), "18446744073709551615");
}

#[test]
fn strings_inline_and_heap() {
    for s in
        ["", "a", "fourteen bytes", "fifteen bytes!!", "a much longer string that lives on the heap", "é€𝄞"]
    {
        let v = Value::from(s);
        assert_eq!(v.as_str(), Some(s));
        assert_eq!(v.str_len_bytes(), Some(s.len()));
        assert_eq!(v, Value::from(s.to_owned()));
    }
    let mut v = Value::from("short");
    assert!(v.str_append(" and now it is long"));
    assert_eq!(v.as_str(), Some("short and now it is long"));
    assert!(v.str_append("!"));
    assert_eq!(v.as_str(), Some("short and now it is long!"));
    assert!(!Value::from(1i64).str_append("x"));
    // Inline and heap representations of equal text compare equal.
    let mut grown = Value::from("ab");
    grown.str_append("c");
    assert_eq!(grown, Value::from("abc"));
}

#[test]
fn array_operations() {
    let mut v = Value::array(vec![Value::from(1i64), Value::from(2i64)]);
    assert_eq!(v.len(), Some(2));
    assert!(v.push(Value::from(3i64)).is_ok());
    assert!(v.insert(0, Value::from(0i64)).is_ok());
    assert!(v.insert(9, Value::null()).is_err());
    assert_eq!(v.to_json(), "[0,1,2,3]");
    assert_eq!(v.remove(1), Some(Value::from(1i64)));
    assert_eq!(v.remove(7), None);
    assert_eq!(v.to_json(), "[0,2,3]");
    *v.get_mut(0).expect("item 0") = Value::from("zero");
    assert_eq!(v.get(0).as_deref().and_then(Value::as_str), Some("zero"));
    v.truncate(2);
    assert_eq!(v.to_json(), "[\"zero\",2]");
    for x in v.iter_mut() {
        *x = Value::from(true);
    }
    assert_eq!(v.iter().count(), 2);
    assert_eq!(v.to_json(), "[true,true]");
    let mut w = p("[0,1,2,3,4,5]");
    w.retain_range(2, 4);
    assert_eq!(w.to_json(), "[2,3]");
    w.retain_range(5, 9);
    assert_eq!(w.to_json(), "[]");
    let mut s = Value::from(1i64);
    assert!(s.push(Value::null()).is_err());
    assert_eq!(s.len(), None);
    assert_eq!(s.iter().count(), 0);
}

#[test]
fn object_operations_keep_insertion_order_and_swap_remove() {
    let mut v = p(r#"{"b":1,"a":2,"c":3}"#);
    assert_eq!(v.obj_keys().collect::<Vec<_>>(), ["b", "a", "c"]);
    assert_eq!(v.obj_insert("a", Value::from(20i64)), Ok(Some(Value::from(2i64))));
    assert_eq!(v.obj_insert("d", Value::from(4i64)), Ok(None));
    assert_eq!(v.to_json(), r#"{"b":1,"a":20,"c":3,"d":4}"#);
    // A removed member's slot goes to the last member (RedisJSON's order).
    assert_eq!(v.obj_remove("a"), Some(Value::from(20i64)));
    assert_eq!(v.obj_remove("zz"), None);
    assert_eq!(v.to_json(), r#"{"b":1,"d":4,"c":3}"#);
    assert_eq!(v.obj_len(), Some(3));
    assert_eq!(v.obj_remove("c"), Some(Value::from(3i64)));
    assert_eq!(v.to_json(), r#"{"b":1,"d":4}"#);
    let _ = v.obj_insert("c", Value::from(3i64));
    for (_, x) in v.obj_iter_mut() {
        *x = Value::null();
    }
    assert_eq!(v.to_json(), r#"{"b":null,"d":null,"c":null}"#);
    assert_eq!(v.obj_iter().map(|(k, _)| k).collect::<String>(), "bdc");
    assert!(Value::from(1i64).obj_insert("a", Value::null()).is_err());
    assert_eq!(Value::null().obj_iter().count(), 0);
}

#[test]
fn duplicate_keys_last_wins_first_position() {
    assert_eq!(p(r#"{"a":1,"b":2,"a":3}"#).to_json(), r#"{"a":3,"b":2}"#);
    let v = Value::object(vec![
        ("x".into(), Value::from(1i64)),
        ("y".into(), Value::from(2i64)),
        ("x".into(), Value::from(3i64)),
    ]);
    assert_eq!(v.to_json(), r#"{"x":3,"y":2}"#);
}

/// Small objects tell duplicate keys apart by a digest of each key: keys of every length
/// that differ in one byte (first, middle or last) stay two keys, equal ones are one.
#[test]
fn parsed_keys_of_every_length_differ_by_any_byte() {
    for n in 1..=24usize {
        let a: String = (0..n).map(|i| (b'a' + (i % 26) as u8) as char).collect();
        for at in [0, n / 2, n - 1] {
            let mut b = a.clone().into_bytes();
            b[at] = b'Z';
            let b = String::from_utf8(b).expect("ascii");
            let two = p(&format!(r#"{{"{a}":1,"{b}":2}}"#));
            assert_eq!(two.to_json(), format!(r#"{{"{a}":1,"{b}":2}}"#), "length {n}, byte {at}");
            let one = p(&format!(r#"{{"{a}":1,"x":0,"{a}":2}}"#));
            assert_eq!(one.to_json(), format!(r#"{{"{a}":2,"x":0}}"#), "length {n}");
        }
    }
}

/// A naive ordered map (removal = `Vec::swap_remove`) as the oracle for big objects (which
/// use the hash index, and past 64 keys an owned key list changed in place).
#[test]
fn large_objects_match_a_naive_oracle() {
    let mut v = Value::empty_object();
    let mut oracle: Vec<(String, i64)> = Vec::new();
    let mut seed = 12345u64;
    let mut rnd = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for step in 0..5000i64 {
        let key = format!("key-{}", rnd() % 300);
        match rnd() % 4 {
            0 => {
                v.obj_remove(&key);
                if let Some(i) = oracle.iter().position(|(k, _)| *k == key) {
                    oracle.swap_remove(i);
                }
            }
            _ => {
                let _ = v.obj_insert(&key, Value::from(step));
                match oracle.iter_mut().find(|(k, _)| *k == key) {
                    Some(e) => e.1 = step,
                    None => oracle.push((key.clone(), step)),
                }
            }
        }
        if step % 97 == 0 {
            let got: Vec<(String, i64)> =
                v.obj_iter().map(|(k, x)| (k.to_owned(), x.as_i64().unwrap_or(-1))).collect();
            assert_eq!(got, oracle);
            for i in 0..300 {
                let k = format!("key-{i}");
                let want = oracle.iter().find(|(ok, _)| *ok == k).map(|e| e.1);
                assert_eq!(v.obj_get(&k).and_then(Value::as_i64), want, "{k}");
            }
            assert_eq!(v.clone(), v);
            assert_eq!(v.clone().mem_usage(), v.mem_usage());
        }
    }
}

#[test]
fn equality_is_deep_and_type_strict() {
    assert_eq!(p(r#"{"a":[1,{"b":null}],"c":"x"}"#), p(r#"{"c":"x","a":[1,{"b":null}]}"#));
    assert_ne!(p("[1]"), p("[1.0]"));
    assert_ne!(p(r#"{"a":1}"#), p(r#"{"a":1,"b":2}"#));
    assert_ne!(p(r#"{"a":1}"#), p(r#"{"b":1}"#));
    assert_ne!(p("[]"), p("{}"));
    assert_ne!(p("\"1\""), p("1"));
}

#[test]
fn mem_usage_counts_inline_and_heap() {
    assert_eq!(p("null").mem_usage(), 16);
    assert_eq!(p("1.5").mem_usage(), 16);
    assert_eq!(p("\"fourteen bytes\"").mem_usage(), 16);
    // u32 reference count + u32 length + bytes
    assert_eq!(p("\"fifteen bytes!!\"").mem_usage(), 16 + 8 + 15);
    assert_eq!(p("[]").mem_usage(), 16);
    assert_eq!(p("{}").mem_usage(), 16);
    // header (8) + 3 items of 16
    assert_eq!(p("[1,2,3]").mem_usage(), 16 + 8 + 3 * 16);
    // Object block: header (16) + values (16 each). Key list (shape): header
    // (32) + each key as a length byte + its bytes, padded to 8.
    assert_eq!(p(r#"{"a":1}"#).mem_usage(), 16 + 16 + 16 + 40);
    assert_eq!(p(r#"{"abc":1,"de":[]}"#).mem_usage(), 16 + 16 + 2 * 16 + 40);
    let long_key = "k".repeat(200); // 2-byte length prefix
    let doc = format!("{{\"{long_key}\":null}}");
    assert_eq!(p(&doc).mem_usage(), 16 + 16 + 16 + (32usize + 202).next_multiple_of(8));
    // Blocks shared inside one value count once: two objects with one key
    // list, and one long string twice.
    assert_eq!(p(r#"[{"a":1},{"a":2}]"#).mem_usage(), 16 + 8 + 2 * 16 + 2 * (16 + 16) + 40);
    assert_eq!(p(r#"["fifteen bytes!!","fifteen bytes!!"]"#).mem_usage(), 16 + 8 + 2 * 16 + 8 + 15);
    // What other values share does not change the figure.
    let a = p(r#"{"a":"fifteen bytes!!"}"#);
    let b = a.clone();
    assert_eq!(a.mem_usage(), b.mem_usage());
    assert_eq!(a.mem_usage(), 16 + 16 + 16 + 40 + 8 + 15);
}

#[test]
fn take_leaves_null() {
    let mut v = p("[1]");
    let t = v.take();
    assert!(v.is_null());
    assert_eq!(t.to_json(), "[1]");
}

/// Parsed objects of every size: duplicates resolved like a naive ordered map.
#[test]
fn parsed_duplicates_match_a_naive_oracle() {
    for n in [1usize, 2, 5, 31, 32, 33, 34, 60, 200] {
        for modulo in [n, n / 2 + 1, 3] {
            let mut text = String::from("{");
            let mut oracle: Vec<(String, usize)> = Vec::new();
            for i in 0..n {
                let key = format!("key{}", (i * 7) % modulo);
                if i > 0 {
                    text.push(',');
                }
                text.push_str(&format!("\"{key}\":{i}"));
                match oracle.iter_mut().find(|(k, _)| *k == key) {
                    Some(e) => e.1 = i,
                    None => oracle.push((key, i)),
                }
            }
            text.push('}');
            let v = p(&text);
            let got: Vec<(String, usize)> =
                v.obj_iter().map(|(k, x)| (k.to_owned(), x.as_u64().unwrap_or(u64::MAX) as usize)).collect();
            assert_eq!(got, oracle, "{text}");
            for (k, i) in &oracle {
                assert_eq!(v.obj_get(k).and_then(Value::as_u64), Some(*i as u64));
            }
        }
    }
}

/// The hash-indexed object paths in few steps (small enough for `cargo miri test`).
#[test]
fn indexed_object_operations() {
    let mut o = json::Object::new();
    for i in 0..40 {
        assert_eq!(o.insert(&format!("k{i}"), Value::from(i as i64)), None);
    }
    assert_eq!(o.insert("k7", Value::from("seven")), Some(Value::from(7i64)));
    // Swap-remove: k39 takes k0's slot, then k38 takes k39's.
    assert_eq!(o.remove("k0"), Some(Value::from(0i64)));
    assert_eq!(o.get_index(0).map(|(k, _)| k), Some("k39"));
    assert_eq!(o.remove_index(0).map(|(k, _)| k), Some("k39".to_owned()));
    assert_eq!(o.len(), 38);
    assert_eq!(o.get("k7").and_then(Value::as_str), Some("seven"));
    assert_eq!(o.get_index(0).map(|(k, _)| k), Some("k38"));
    assert_eq!(o.position("k37"), Some(37));
    assert_eq!(o.position("k1"), Some(1));
    assert!(o.get("k0").is_none() && o.get("k39").is_none());
    // 200 bytes: its length takes two bytes in the key arena.
    let long_key = "k".repeat(200);
    let long = long_key.as_str();
    o.insert(long, Value::from(long));
    let c = o.clone();
    assert_eq!(c.get(long).and_then(Value::as_str), Some(long));
    assert_eq!(Value::from(c.clone()).mem_usage(), Value::from(o.clone()).mem_usage());
    for (k, v) in o.iter_mut() {
        if k == "k2" {
            *v = Value::null();
        }
    }
    assert!(o.get("k2").is_some_and(Value::is_null));
    while o.len() > 3 {
        let last = o.keys().last().map(str::to_owned).unwrap_or_default();
        assert!(o.remove(&last).is_some());
    }
    o.shrink_to_fit();
    assert_eq!(o.keys().collect::<Vec<_>>(), ["k38", "k1", "k2"]);
    o.clear();
    assert!(o.is_empty());
}

/// Swap-remove with keys of different encoded lengths (one- and two-byte length prefixes), in
/// interned key lists and in owned ones (over 64 keys, changed in place).
#[test]
fn swap_remove_moves_keys_of_any_length() {
    for extra in [0usize, 80] {
        let mut o = json::Object::new();
        let mut oracle: Vec<(String, i64)> = Vec::new();
        let mut keys: Vec<String> = vec!["a".into(), "b".repeat(130), "ccccc".into(), "d".repeat(300)];
        keys.extend((0..extra).map(|i| format!("k{i}").repeat(1 + i % 40)));
        for (i, k) in keys.iter().enumerate() {
            o.insert(k, Value::from(i as i64));
            oracle.push((k.clone(), i as i64));
        }
        for victim in [0usize, 1, 2, 0, 3] {
            if victim >= oracle.len() {
                continue;
            }
            let (k, v) = oracle.swap_remove(victim);
            assert_eq!(o.remove(&k), Some(Value::from(v)), "{k}");
            let got: Vec<(String, i64)> =
                o.iter().map(|(k, x)| (k.to_owned(), x.as_i64().unwrap_or(-1))).collect();
            assert_eq!(got, oracle);
            for (k, v) in &oracle {
                assert_eq!(o.get(k).and_then(Value::as_i64), Some(*v), "{k}");
                assert_eq!(
                    o.get_index(o.position(k).unwrap_or(usize::MAX)).map(|(k, _)| k.to_owned()),
                    Some(k.clone())
                );
            }
        }
        assert_eq!(Value::from(o.clone()), Value::from(o));
    }
}
