//! Nesting limits: command input stops at 128 levels like rejson.so 2.8.3
//! (messages recorded live from it); stored documents may nest deeper.

use json::limits::{MAX_DEPTH, MAX_LOAD_DEPTH};
use json::Value;

fn nested(open: &str, close: &str, n: usize) -> Vec<u8> {
    let mut s = open.repeat(n);
    s.push_str(&close.repeat(n));
    s.into_bytes()
}

#[test]
fn command_input_depth_matches_rejson() {
    assert!(Value::parse(&nested("[", "]", 127)).is_ok());
    // rejson.so 2.8.3: "recursion limit exceeded at line 1 column 128" for 128 and 129 levels.
    for n in [128, 129] {
        let e = Value::parse(&nested("[", "]", n)).expect_err("too deep");
        assert_eq!(e.to_string(), "recursion limit exceeded at line 1 column 128");
    }
    assert_eq!(MAX_DEPTH, 128);
    let e = Value::parse(&nested("{\"a\":", "}", 200)).expect_err("too deep");
    assert!(e.to_string().starts_with("recursion limit exceeded at line 1 column "), "{e}");
}

#[test]
fn stored_documents_may_nest_deeper() {
    // The parser keeps open containers on the heap: no deep recursion while parsing.
    let deep = nested("[", "]", MAX_LOAD_DEPTH - 1);
    let v = Value::parse_unlimited(&deep).expect("loads");
    let e = Value::parse(&deep).expect_err("too deep for command input");
    assert_eq!(e.to_string(), "recursion limit exceeded at line 1 column 128");
    let e = Value::parse_unlimited(&nested("[", "]", MAX_LOAD_DEPTH)).expect_err("too deep");
    assert_eq!(e.to_string(), format!("recursion limit exceeded at line 1 column {MAX_LOAD_DEPTH}"));
    // Serializing, cloning, comparing and dropping recurse per level: under
    // 130 bytes of stack per level in release builds (measured), about 1 KB in
    // debug builds, hence the big stack for this test.
    let h = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            assert_eq!(v.to_json().into_bytes(), deep);
            assert_eq!(v.clone(), v);
            assert_eq!(v.clone().mem_usage(), v.mem_usage());
            drop(v);
            let mut objects = "{\"k\":".repeat(MAX_LOAD_DEPTH - 1).into_bytes();
            objects.push(b'1');
            objects.extend("}".repeat(MAX_LOAD_DEPTH - 1).into_bytes());
            let v = Value::parse_unlimited(&objects).expect("loads");
            assert_eq!(v.to_json().into_bytes(), objects);
        })
        .expect("spawn");
    h.join().expect("no panic");
}
