//! Formatted output (`JSON.GET k INDENT i NEWLINE n SPACE s`) checked against rejson.so 2.8.3.
//!
//! Every expected string below was obtained from rejson.so 2.8.3 live
//! (`JSON.SET k $ <doc>` then `JSON.GET k INDENT i NEWLINE n SPACE s`, legacy root path).

use json::{Format, Value};

/// (document, indent, newline, space, rejson output).
const CASES: &[(&str, &str, &str, &str, &str)] = &[
    ("{\"a\":[1,{\"b\":2}],\"c\":{},\"d\":[]}", "\u{9}", "\u{a}", " ", "{\u{a}\u{9}\"a\": [\u{a}\u{9}\u{9}1,\u{a}\u{9}\u{9}{\u{a}\u{9}\u{9}\u{9}\"b\": 2\u{a}\u{9}\u{9}}\u{a}\u{9}],\u{a}\u{9}\"c\": {},\u{a}\u{9}\"d\": []\u{a}}"),
    ("{\"a\":[1,{\"b\":2}],\"c\":{},\"d\":[]}", "  ", "", "", "{  \"a\":[    1,    {      \"b\":2    }  ],  \"c\":{},  \"d\":[]}"),
    ("{\"a\":[1,{\"b\":2}],\"c\":{},\"d\":[]}", "", "\u{a}", "", "{\u{a}\"a\":[\u{a}1,\u{a}{\u{a}\"b\":2\u{a}}\u{a}],\u{a}\"c\":{},\u{a}\"d\":[]\u{a}}"),
    ("{\"a\":[1,{\"b\":2}],\"c\":{},\"d\":[]}", "", "", ":", "{\"a\"::[1,{\"b\"::2}],\"c\"::{},\"d\"::[]}"),
    ("{\"a\":[1,{\"b\":2}],\"c\":{},\"d\":[]}", "ab", "XY", "__", "{XYab\"a\":__[XYabab1,XYabab{XYababab\"b\":__2XYabab}XYab],XYab\"c\":__{},XYab\"d\":__[]XY}"),
    ("{\"a\":[1,{\"b\":2}],\"c\":{},\"d\":[]}", "  ", "\u{a}", " ", "{\u{a}  \"a\": [\u{a}    1,\u{a}    {\u{a}      \"b\": 2\u{a}    }\u{a}  ],\u{a}  \"c\": {},\u{a}  \"d\": []\u{a}}"),
    ("[]", "\u{9}", "\u{a}", " ", "[]"),
    ("[]", "  ", "", "", "[]"),
    ("[]", "", "\u{a}", "", "[]"),
    ("[]", "", "", ":", "[]"),
    ("[]", "ab", "XY", "__", "[]"),
    ("[]", "  ", "\u{a}", " ", "[]"),
    ("{}", "\u{9}", "\u{a}", " ", "{}"),
    ("{}", "  ", "", "", "{}"),
    ("{}", "", "\u{a}", "", "{}"),
    ("{}", "", "", ":", "{}"),
    ("{}", "ab", "XY", "__", "{}"),
    ("{}", "  ", "\u{a}", " ", "{}"),
    ("[[]]", "\u{9}", "\u{a}", " ", "[\u{a}\u{9}[]\u{a}]"),
    ("[[]]", "  ", "", "", "[  []]"),
    ("[[]]", "", "\u{a}", "", "[\u{a}[]\u{a}]"),
    ("[[]]", "", "", ":", "[[]]"),
    ("[[]]", "ab", "XY", "__", "[XYab[]XY]"),
    ("[[]]", "  ", "\u{a}", " ", "[\u{a}  []\u{a}]"),
    ("[{}]", "\u{9}", "\u{a}", " ", "[\u{a}\u{9}{}\u{a}]"),
    ("[{}]", "  ", "", "", "[  {}]"),
    ("[{}]", "", "\u{a}", "", "[\u{a}{}\u{a}]"),
    ("[{}]", "", "", ":", "[{}]"),
    ("[{}]", "ab", "XY", "__", "[XYab{}XY]"),
    ("[{}]", "  ", "\u{a}", " ", "[\u{a}  {}\u{a}]"),
    ("{\"x\":{\"y\":{\"z\":[1,2,[3,[]]]}}}", "\u{9}", "\u{a}", " ", "{\u{a}\u{9}\"x\": {\u{a}\u{9}\u{9}\"y\": {\u{a}\u{9}\u{9}\u{9}\"z\": [\u{a}\u{9}\u{9}\u{9}\u{9}1,\u{a}\u{9}\u{9}\u{9}\u{9}2,\u{a}\u{9}\u{9}\u{9}\u{9}[\u{a}\u{9}\u{9}\u{9}\u{9}\u{9}3,\u{a}\u{9}\u{9}\u{9}\u{9}\u{9}[]\u{a}\u{9}\u{9}\u{9}\u{9}]\u{a}\u{9}\u{9}\u{9}]\u{a}\u{9}\u{9}}\u{a}\u{9}}\u{a}}"),
    ("{\"x\":{\"y\":{\"z\":[1,2,[3,[]]]}}}", "  ", "", "", "{  \"x\":{    \"y\":{      \"z\":[        1,        2,        [          3,          []        ]      ]    }  }}"),
    ("{\"x\":{\"y\":{\"z\":[1,2,[3,[]]]}}}", "", "\u{a}", "", "{\u{a}\"x\":{\u{a}\"y\":{\u{a}\"z\":[\u{a}1,\u{a}2,\u{a}[\u{a}3,\u{a}[]\u{a}]\u{a}]\u{a}}\u{a}}\u{a}}"),
    ("{\"x\":{\"y\":{\"z\":[1,2,[3,[]]]}}}", "", "", ":", "{\"x\"::{\"y\"::{\"z\"::[1,2,[3,[]]]}}}"),
    ("{\"x\":{\"y\":{\"z\":[1,2,[3,[]]]}}}", "ab", "XY", "__", "{XYab\"x\":__{XYabab\"y\":__{XYababab\"z\":__[XYabababab1,XYabababab2,XYabababab[XYababababab3,XYababababab[]XYabababab]XYababab]XYabab}XYab}XY}"),
    ("{\"x\":{\"y\":{\"z\":[1,2,[3,[]]]}}}", "  ", "\u{a}", " ", "{\u{a}  \"x\": {\u{a}    \"y\": {\u{a}      \"z\": [\u{a}        1,\u{a}        2,\u{a}        [\u{a}          3,\u{a}          []\u{a}        ]\u{a}      ]\u{a}    }\u{a}  }\u{a}}"),
    ("\"s\"", "\u{9}", "\u{a}", " ", "\"s\""),
    ("\"s\"", "  ", "", "", "\"s\""),
    ("\"s\"", "", "\u{a}", "", "\"s\""),
    ("\"s\"", "", "", ":", "\"s\""),
    ("\"s\"", "ab", "XY", "__", "\"s\""),
    ("\"s\"", "  ", "\u{a}", " ", "\"s\""),
    ("3.5", "\u{9}", "\u{a}", " ", "3.5"),
    ("3.5", "  ", "", "", "3.5"),
    ("3.5", "", "\u{a}", "", "3.5"),
    ("3.5", "", "", ":", "3.5"),
    ("3.5", "ab", "XY", "__", "3.5"),
    ("3.5", "  ", "\u{a}", " ", "3.5"),
    ("[null,true,false,\"a\\nb\"]", "\u{9}", "\u{a}", " ", "[\u{a}\u{9}null,\u{a}\u{9}true,\u{a}\u{9}false,\u{a}\u{9}\"a\\nb\"\u{a}]"),
    ("[null,true,false,\"a\\nb\"]", "  ", "", "", "[  null,  true,  false,  \"a\\nb\"]"),
    ("[null,true,false,\"a\\nb\"]", "", "\u{a}", "", "[\u{a}null,\u{a}true,\u{a}false,\u{a}\"a\\nb\"\u{a}]"),
    ("[null,true,false,\"a\\nb\"]", "", "", ":", "[null,true,false,\"a\\nb\"]"),
    ("[null,true,false,\"a\\nb\"]", "ab", "XY", "__", "[XYabnull,XYabtrue,XYabfalse,XYab\"a\\nb\"XY]"),
    ("[null,true,false,\"a\\nb\"]", "  ", "\u{a}", " ", "[\u{a}  null,\u{a}  true,\u{a}  false,\u{a}  \"a\\nb\"\u{a}]"),
];

#[test]
fn formatted_output_matches_rejson() {
    for (doc, indent, newline, space, expected) in CASES {
        let v = Value::parse(doc.as_bytes()).expect("valid document");
        let fmt = Format { indent: indent.as_bytes(), newline: newline.as_bytes(), space: space.as_bytes() };
        let mut out = Vec::new();
        v.write_json(&mut out, &fmt);
        assert_eq!(String::from_utf8(out).expect("utf-8"), *expected, "doc {doc} fmt {fmt:?}");
    }
}

#[test]
fn compact_format_is_to_json() {
    for (doc, ..) in CASES {
        let v = Value::parse(doc.as_bytes()).expect("valid document");
        let mut out = Vec::new();
        v.write_json(&mut out, &Format::COMPACT);
        assert_eq!(String::from_utf8(out).expect("utf-8"), v.to_json());
    }
}

#[test]
fn array_of_borrowed_values_is_written_like_an_array_value() {
    for (doc, indent, newline, space, _) in CASES {
        let v = Value::parse(doc.as_bytes()).expect("valid document");
        let fmt = Format { indent: indent.as_bytes(), newline: newline.as_bytes(), space: space.as_bytes() };
        for n in 0..3 {
            let items: Vec<&Value> = std::iter::repeat_n(&v, n).collect();
            let owned = Value::array(items.iter().map(|x| (*x).clone()).collect());
            let (mut a, mut b) = (Vec::new(), Vec::new());
            Value::write_json_array(items.iter().copied(), &mut a, &fmt);
            owned.write_json(&mut b, &fmt);
            assert_eq!(a, b, "{doc} x{n} {fmt:?}");
        }
    }
}
