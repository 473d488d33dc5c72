//! Differential test: our parser against serde_json (an independent
//! implementation) on random, mostly-broken inputs built from JSON fragments.
//! Accepted inputs must read the same; rejected ones must give the same
//! message and position. Known, deliberate difference: inside `\u` escapes,
//! RedisJSON's older serde_json reports bad hex digits at the first bad digit
//! (we follow rejson, checked in `value_rejson.rs`), so those cases only
//! compare the message.

use json::Value;
use proptest::prelude::*;

mod value_common;

const FRAGMENTS: &[&str] = &[
    "[", "]", "{", "}", ",", ":", "\"", "\"abc\"", "\"k\":", "\\", "\\n", "\\\"", "\\u00e9",
    "\\ud83d\\ude00", "\\ud800", "\\udc00", "\\u12", "\\uZZ", "\\x", "-", "0", "1", "7", ".", "e", "E", "+",
    "123", "00", "1e400", "-0", "18446744073709551616", "9223372036854775808", "1.5", "2e-3", "true", "tru",
    "null", "nul", "false", "fals", " ", "\n", "\t", "\r", "x", "\u{1}", "é", "𝄞", "[[[[[[[[", "]]]]]]]]",
];

fn serde_reading(input: &[u8]) -> Result<serde_json::Value, String> {
    let mut de = serde_json::Deserializer::from_slice(input);
    let v = serde::Deserialize::deserialize(&mut de).map_err(|e: serde_json::Error| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(v)
}

fn check(input: &[u8]) -> Result<(), TestCaseError> {
    let ours = Value::parse(input);
    let theirs = serde_reading(input);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => {
            prop_assert!(value_common::same_as_serde(a, b), "{:?}", String::from_utf8_lossy(input))
        }
        (Err(a), Err(b)) => {
            let (a, b) = (a.to_string(), b.clone());
            let in_hex_escape = input.windows(2).any(|w| w == b"\\u")
                && (b.starts_with("invalid escape") || b.starts_with("EOF while parsing a string"));
            if in_hex_escape {
                prop_assert_eq!(a.split(" at ").next(), b.split(" at ").next());
            } else {
                prop_assert_eq!(a, b, "{:?}", String::from_utf8_lossy(input));
            }
        }
        _ => prop_assert!(
            false,
            "{:?}: ours {:?}, serde_json {:?}",
            String::from_utf8_lossy(input),
            ours,
            theirs
        ),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn same_result_as_serde_json(parts in prop::collection::vec(prop::sample::select(FRAGMENTS), 0..24)) {
        check(parts.concat().as_bytes())?;
    }

    #[test]
    fn same_result_on_mutated_valid_json(
        cut in 0usize..200,
        insert in prop::sample::select(FRAGMENTS),
        keep in any::<bool>(),
    ) {
        let doc = br#"{"a":[1,-2.5e3,true,null,{"b":"x\"y\u00e9"}],"c":{"d":[],"e":{}},"f":"long string value here"}"#;
        let cut = cut % (doc.len() + 1);
        let mut input = doc[..cut].to_vec();
        input.extend_from_slice(insert.as_bytes());
        if keep {
            input.extend_from_slice(&doc[cut..]);
        }
        check(&input)?;
    }
}

#[test]
fn depth_limit_same_as_serde_json() {
    for n in [126, 127, 128, 129, 300] {
        for (open, close) in [("[", "]"), ("{\"a\":", "}"), ("[{\"a\":", "}]")] {
            let mut s = open.repeat(n);
            s.push_str(&close.repeat(n));
            check(s.as_bytes()).expect("same as serde_json");
            check(open.repeat(n).as_bytes()).expect("same as serde_json");
        }
    }
}
