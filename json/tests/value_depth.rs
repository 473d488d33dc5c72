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
        assert_eq!(
            e.to_string(),
            "recursion limit exceeded at line 1 column 128"
        );
    }
    assert_eq!(MAX_DEPTH, 128);
    let e = Value::parse(&nested("{\"a\":", "}", 200)).expect_err("too deep");
    assert!(
        e.to_string()
            .starts_with("recursion limit exceeded at line 1 column "),
        "{e}"
    );
}

#[test]
fn stored_documents_may_nest_deeper() {
    // Run on a big stack: the parser recurses per level.
    let h = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            let deep = nested("[", "]", 1000);
            let v = Value::parse_unlimited(&deep).expect("1000 levels load");
            assert_eq!(v.to_json().into_bytes(), deep);
            assert!(Value::parse_unlimited(&nested("[", "]", MAX_LOAD_DEPTH + 1)).is_err());
        })
        .expect("spawn");
    h.join().expect("no panic");
}
