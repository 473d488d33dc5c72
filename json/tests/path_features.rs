//! Path features one by one, with expectations written from the RedisJSON 2.8 documentation
//! and RFC 9535 (the rejson.so comparison lives in `path_eval_rejson.rs`).

use json::path::{JsonPath, Step};
use json::Value;

fn doc(text: &str) -> Value {
    Value::parse(text.as_bytes()).expect("document")
}

/// The selection of `path` in `json`, as compact JSON texts.
fn sel(json: &str, path: &str) -> Vec<String> {
    let d = doc(json);
    let p = JsonPath::parse(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    p.select(&d).into_iter().map(|v| v.to_json()).collect()
}

fn strs(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

const STORE: &str = r#"{"store":{"book":[
  {"category":"reference","author":"Nigel Rees","title":"Sayings","price":8.95},
  {"category":"fiction","author":"Evelyn Waugh","title":"Sword","price":12.99},
  {"category":"fiction","author":"Herman Melville","title":"Moby Dick","isbn":"0-553","price":8.99},
  {"category":"fiction","author":"J. R. R. Tolkien","title":"Rings","isbn":"0-395","price":22.99}],
  "bicycle":{"color":"red","price":19.95}}}"#;

#[test]
fn legacy_and_jsonpath_spellings() {
    for (text, legacy, converted) in [
        ("$", false, "$"),
        ("$.a", false, "$.a"),
        ("$[0]", false, "$[0]"),
        (".", true, "$"),
        (".a", true, "$.a"),
        ("a.b", true, "$.a.b"),
        ("[0]", true, "$.[0]"),
        ("$a", true, "$.$a"),
    ] {
        let p = JsonPath::parse(text).expect(text);
        assert_eq!(p.is_legacy(), legacy, "{text}");
        assert_eq!(p.converted(), converted, "{text}");
        assert_eq!(p.original(), text);
    }
    assert!(JsonPath::parse(".").unwrap().is_root());
    assert!(JsonPath::parse("$").unwrap().is_root());
    assert_eq!(sel(r#"{"$a":1}"#, "$a"), strs(&["1"]));
    // The module API's reading (RediSearch's paths): the first member needs no dot.
    for (text, api) in [("$a", Some("$.a")), ("$*", Some("$.*")), ("$arr[*]", Some("$.arr[*]"))] {
        assert_eq!(json::path::api_spelling(text).as_deref(), api, "{text}");
    }
    for text in ["$", "$.a", "$[0]", "$..a", "a", ".a"] {
        assert_eq!(json::path::api_spelling(text), None, "{text}");
    }
}

#[test]
fn static_paths() {
    for p in ["$", "$.a", "$.a.b[0]", "$['a']", "$[-1]", "a[\"b\"][0]", "$.a[0].b"] {
        assert!(JsonPath::parse(p).unwrap().is_static(), "{p}");
    }
    for p in ["$.*", "$..a", "$[0,1]", "$['a','b']", "$[0:1]", "$[?(@.a)]", "$[*]"] {
        assert!(!JsonPath::parse(p).unwrap().is_static(), "{p}");
    }
}

#[test]
fn children_keys_and_indices() {
    assert_eq!(sel(STORE, "$.store.bicycle.color"), strs(&["\"red\""]));
    assert_eq!(sel(STORE, "$['store']['bicycle']['color']"), strs(&["\"red\""]));
    assert_eq!(sel(STORE, "$.store.book[0].title"), strs(&["\"Sayings\""]));
    assert_eq!(sel(STORE, "$.store.book[-1].title"), strs(&["\"Rings\""]));
    assert_eq!(sel(STORE, "$.store.book[4]"), Vec::<String>::new());
    // RedisJSON clamps negative indices at the first element.
    assert_eq!(sel("[1,2,3]", "$[-10]"), strs(&["1"]));
    assert_eq!(sel("[1,2,3]", "$[0,2,-1]"), strs(&["1", "3", "3"]));
    assert_eq!(sel(r#"{"a":1,"b":2,"c":3}"#, "$['c','a']"), strs(&["3", "1"]));
    assert_eq!(sel(r#"{"a":1}"#, "$.a.b"), Vec::<String>::new());
    assert_eq!(sel(r#"{"a":[1]}"#, "$.a.b"), Vec::<String>::new());
    assert_eq!(sel(r#"{"0":"key"}"#, "$[0]"), Vec::<String>::new());
    assert_eq!(sel(r#"{"0":"key"}"#, "$.0"), strs(&["\"key\""]));
}

#[test]
fn quoted_keys_and_escapes() {
    let d = r#"{"a b":1,"q'":2,"d\"":3,"back\\slash":4," lead":5}"#;
    assert_eq!(sel(d, "$['a b']"), strs(&["1"]));
    assert_eq!(sel(d, r#"$["q'"]"#), strs(&["2"]));
    assert_eq!(sel(d, r#"$['q\'']"#), strs(&["2"]));
    assert_eq!(sel(d, r#"$["d\""]"#), strs(&["3"]));
    assert_eq!(sel(d, r#"$['back\\slash']"#), strs(&["4"]));
    // The grammar skips spaces after the opening quote (pest's implicit whitespace).
    assert_eq!(sel(d, "$[' lead']"), Vec::<String>::new());
    assert_eq!(sel(r#"{"lead":6}"#, "$[' lead']"), strs(&["6"]));
}

#[test]
fn wildcards_and_descent() {
    assert_eq!(sel(r#"{"a":1,"b":[2,3]}"#, "$.*"), strs(&["1", "[2,3]"]));
    assert_eq!(sel(r#"{"a":1,"b":[2,3]}"#, "$.b[*]"), strs(&["2", "3"]));
    assert_eq!(sel(r#"{"a":1}"#, "$.a.*"), Vec::<String>::new());
    // Pre-order: a node's own matches, then each child's subtree in order.
    assert_eq!(
        sel(r#"{"a":{"a":1,"b":{"a":2}},"c":[{"a":3}]}"#, "$..a"),
        strs(&[r#"{"a":1,"b":{"a":2}}"#, "1", "2", "3"])
    );
    assert_eq!(sel(r#"{"a":[1,{"b":2}]}"#, "$..*"), strs(&[r#"[1,{"b":2}]"#, "1", r#"{"b":2}"#, "2"]));
    assert_eq!(sel(r#"{"a":[[1,2],[3]]}"#, "$..[0]"), strs(&["[1,2]", "1", "3"]));
    assert_eq!(
        sel(STORE, "$..author"),
        strs(&["\"Nigel Rees\"", "\"Evelyn Waugh\"", "\"Herman Melville\"", "\"J. R. R. Tolkien\""])
    );
}

#[test]
fn slices() {
    let a = "[0,1,2,3,4,5]";
    assert_eq!(sel(a, "$[1:3]"), strs(&["1", "2"]));
    assert_eq!(sel(a, "$[:2]"), strs(&["0", "1"]));
    assert_eq!(sel(a, "$[4:]"), strs(&["4", "5"]));
    assert_eq!(sel(a, "$[:]").len(), 6);
    assert_eq!(sel(a, "$[::2]"), strs(&["0", "2", "4"]));
    assert_eq!(sel(a, "$[1:6:3]"), strs(&["1", "4"]));
    assert_eq!(sel(a, "$[-2:]"), strs(&["4", "5"]));
    assert_eq!(sel(a, "$[:-4]"), strs(&["0", "1"]));
    assert_eq!(sel(a, "$[3:1]"), Vec::<String>::new());
    assert_eq!(sel(a, "$[-100:2]"), strs(&["0", "1"]));
    for bad in ["$[1:2:0]", "$[1:2:-1]", "$[::0]"] {
        assert!(JsonPath::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn filters_comparisons() {
    assert_eq!(sel(STORE, "$.store.book[?(@.price<10)].title"), strs(&["\"Sayings\"", "\"Moby Dick\""]));
    assert_eq!(sel(STORE, "$.store.book[?@.isbn].title"), strs(&["\"Moby Dick\"", "\"Rings\""]));
    assert_eq!(
        sel(STORE, "$.store.book[?(@.category=='fiction' && @.price>20 || @.author==\"Nigel Rees\")].title"),
        strs(&["\"Sayings\"", "\"Rings\""])
    );
    assert_eq!(
        sel(STORE, "$.store.book[?(@.price>20 || (@.price<9 && @.isbn))].title"),
        strs(&["\"Moby Dick\"", "\"Rings\""])
    );
    // Filters apply to object values too.
    assert_eq!(sel(r#"{"a":{"x":1},"b":{"x":2}}"#, "$[?(@.x>1)]"), strs(&[r#"{"x":2}"#]));
    // ... and select nothing on scalars.
    assert_eq!(sel(r#"{"a":1}"#, "$.a[?(@==1)]"), Vec::<String>::new());
    // Cross-type comparisons: only == is false and != true.
    let mixed = r#"[1,"1",true,null,[1],{"a":1},1.0]"#;
    assert_eq!(sel(mixed, "$[?(@==1)]"), strs(&["1", "1.0"]));
    assert_eq!(sel(mixed, "$[?(@!=1)]"), strs(&["\"1\"", "true", "null", "[1]", r#"{"a":1}"#]));
    assert_eq!(sel(mixed, "$[?(@>=1)]"), strs(&["1", "1.0"]));
    assert_eq!(sel(mixed, "$[?(@=='1')]"), strs(&["\"1\""]));
    assert_eq!(sel(mixed, "$[?(@==true)]"), strs(&["true"]));
    assert_eq!(sel(mixed, "$[?(@==null)]"), strs(&["null"]));
    assert_eq!(sel("[false,true]", "$[?(@<true)]"), strs(&["false"]));
    assert_eq!(sel(r#"["abc","abd","b"]"#, "$[?(@>'abc')]"), strs(&["\"abd\"", "\"b\""]));
    assert_eq!(sel("[-1.5,2,3.25]", "$[?(@ > -1 && @ < 3.5)]"), strs(&["2", "3.25"]));
    // Existence: true even for null/false members; literals always exist.
    assert_eq!(sel(r#"[{"a":null},{"a":false},{"b":1}]"#, "$[?(@.a)]").len(), 2);
    assert_eq!(sel("[1,2]", "$[?(false)]").len(), 2);
    // Missing operands: == false, != true.
    assert_eq!(sel(r#"[{"a":1},{"b":1}]"#, "$[?(@.a!=1)]"), strs(&[r#"{"b":1}"#]));
}

#[test]
fn filters_with_document_nodes() {
    let d = r#"{"limit":2,"items":[{"n":1,"m":1.0},{"n":3,"m":[1]},{"n":[1.0],"m":[1]}]}"#;
    assert_eq!(sel(d, "$.items[?(@.n<$.limit)].n"), strs(&["1"]));
    // Node == node is a deep comparison, numbers compared numerically.
    assert_eq!(sel(d, "$.items[?(@.n==@.m)].n"), strs(&["1", "[1.0]"]));
    assert!(JsonPath::parse("$.items[?(@.m==[1])]").is_err(), "no array literals");
    // Nested filters inside operands.
    let nested = r#"[{"a":[{"b":1},{"b":5}]},{"a":[{"b":2}]}]"#;
    assert_eq!(sel(nested, "$[?(@.a[?(@.b>3)])]"), strs(&[r#"{"a":[{"b":1},{"b":5}]}"#]));
}

/// As RedisJSON 2.8.3 (measured): only an operand that selects exactly one node compares; none
/// or several compare with nothing (`!=` holds, everything else fails).
#[test]
fn node_list_operands_need_exactly_one_node() {
    let d = r#"[{"a":[1,5]},{"a":[2,3]},{"a":[]},{"a":[4]}]"#;
    assert_eq!(sel(d, "$[?(@.a[*]>4)]"), Vec::<String>::new());
    assert_eq!(sel(d, "$[?(@.a[*]==3)]"), Vec::<String>::new());
    assert_eq!(sel(d, "$[?(@.a[*]==4)]"), strs(&[r#"{"a":[4]}"#]));
    assert_eq!(sel(d, "$[?(@.a[*]!=1)]").len(), 4);
    assert_eq!(sel(d, "$[?(@.a[*])]"), strs(&[r#"{"a":[4]}"#]));
    assert_eq!(sel(r#"[{"x":{"y":{"z":7}}},{"x":1}]"#, "$[?(@..z==7)]").len(), 1);
}

#[test]
fn regex_filters() {
    let d = r#"[{"s":"Hello","p":"^H"},{"s":"yellow","p":"^H"},{"s":5,"p":"5"},{"s":"a.b","p":"["}]"#;
    assert_eq!(sel(d, "$[?(@.s=~'ell')].s"), strs(&["\"Hello\"", "\"yellow\""]), "unanchored");
    assert_eq!(sel(d, "$[?(@.s=~'^h')].s"), Vec::<String>::new());
    assert_eq!(sel(d, "$[?(@.s=~'(?i)^h')].s"), strs(&["\"Hello\""]));
    assert_eq!(sel(d, "$[?(@.s=~@.p)].s"), strs(&["\"Hello\""]), "pattern from a node");
    assert_eq!(sel(d, "$[?(@.s=~'[')]"), Vec::<String>::new(), "invalid pattern is false");
    assert_eq!(sel(d, "$[?(@.s=~'5')]"), Vec::<String>::new(), "non-string subject");
    // A pattern written with escapes never matches (RedisJSON 2.8.3, measured).
    assert_eq!(sel(d, r#"$[?(@.s=~"a\\.b")].s"#), Vec::<String>::new(), "escaped backslash");
    assert_eq!(sel(d, r#"$[?(@.s=~"a.b")].s"#), strs(&["\"a.b\""]));
    assert_eq!(sel(d, "$[?('Hello'=~'H')]"), Vec::<String>::new(), "literal subject");
    // A pattern beyond the size limit does not compile: false, no error.
    let huge = format!("$[?(@.s=~'{}')]", "(a{1000}){1000}");
    assert_eq!(sel(d, &huge), Vec::<String>::new());
}

#[test]
fn number_literals() {
    let d = "[1,-2,0.5,-0.25,100]";
    assert_eq!(sel(d, "$[?(@==-2)]"), strs(&["-2"]));
    assert_eq!(sel(d, "$[?(@==0.5)]"), strs(&["0.5"]));
    assert_eq!(sel(d, "$[?(@<-0.1)]"), strs(&["-2", "-0.25"]));
    assert_eq!(sel(d, "$[?(@==100.0)]"), strs(&["100"]));
    for bad in ["$[?(@==1e2)]", "$[?(@==+1)]", "$[?(@==.5)]", "$[?(@==01)]"] {
        assert!(JsonPath::parse(bad).is_err(), "{bad}");
    }
    // Huge integers compare exactly.
    let big = "[18446744073709551615,9223372036854775807]";
    assert_eq!(sel(big, "$[?(@>9223372036854775807)]"), strs(&["18446744073709551615"]));
}

#[test]
fn whitespace_is_only_spaces_between_tokens() {
    assert_eq!(sel(r#"{"a":[1,2]}"#, "$. a [ 0 , 1 ]"), strs(&["1", "2"]));
    // `$ .a` is not `$.`-prefixed, so it is the legacy path `$.$ .a` (key `$`, then `a`).
    assert_eq!(sel(r#"{"$":{"a":1}}"#, "$ .a"), strs(&["1"]));
    assert_eq!(sel(r#"[{"a":1}]"#, "$[? ( @.a == 1 ) ]").len(), 1);
    assert!(JsonPath::parse("$.a\t").is_err());
    assert!(JsonPath::parse("$.a\n").is_err());
}

#[test]
fn locations_follow_matches() {
    let d = doc(r#"{"a":[{"b":1},{"b":2}],"c":{"b":3}}"#);
    let p = JsonPath::parse("$..b").unwrap();
    let locs = p.select_locations(&d);
    assert_eq!(
        locs,
        vec![
            vec![Step::Key("a".into()), Step::Index(0), Step::Key("b".into())],
            vec![Step::Key("a".into()), Step::Index(1), Step::Key("b".into())],
            vec![Step::Key("c".into()), Step::Key("b".into())],
        ]
    );
    let p = JsonPath::parse("$.a[-1].b").unwrap();
    assert_eq!(
        p.select_locations(&d),
        vec![vec![Step::Key("a".into()), Step::Index(1), Step::Key("b".into())]]
    );
    assert_eq!(JsonPath::parse("$").unwrap().select_locations(&d), vec![Vec::<Step>::new()]);
    assert!(JsonPath::parse("$.zz").unwrap().select_locations(&d).is_empty());
    // Filters on objects report keys.
    let p = JsonPath::parse("$.c[?(@>2)]").unwrap();
    assert_eq!(p.select_locations(&d), vec![vec![Step::Key("c".into()), Step::Key("b".into())]]);
}

#[test]
fn deep_documents_and_long_paths_do_not_exhaust_the_stack() {
    // Building and dropping a 10k-deep value needs a big stack (value model); the selections
    // themselves run on a 256 KiB stack to show they do not recurse per level or per step.
    let depth = json::limits::MAX_LOAD_DEPTH - 10;
    let big = std::thread::Builder::new().stack_size(1 << 30);
    big.spawn(move || {
        let text = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let d = Value::parse_unlimited(text.as_bytes()).expect("deep document");
        std::thread::scope(|s| {
            let small = std::thread::Builder::new().stack_size(256 << 10);
            small
                .spawn_scoped(s, || {
                    assert_eq!(JsonPath::parse("$..*").unwrap().select(&d).len(), depth);
                    assert_eq!(JsonPath::parse("$..[0]").unwrap().select(&d).len(), depth);
                    let long = format!("${}", "[0]".repeat(depth - 1));
                    assert_eq!(JsonPath::parse(&long).unwrap().select(&d).len(), 1);
                    let long = format!("$.*{}", "[*]".repeat(depth - 2));
                    assert_eq!(JsonPath::parse(&long).unwrap().select(&d).len(), 1);
                    let dotted = format!("${}", ".a".repeat(100_000));
                    assert!(JsonPath::parse(&dotted).unwrap().select(&d).is_empty());
                })
                .expect("spawn")
                .join()
                .expect("selections");
        });
    })
    .expect("spawn")
    .join()
    .expect("deep test");
}

#[test]
fn filter_nesting_is_bounded() {
    let limit = json::limits::MAX_PATH_NESTING;
    // `n` levels of filters: the `?` filter and n - 1 parenthesised groups.
    let nest = |n: usize| format!("$[?{}1{}]", "(".repeat(n - 1), ")".repeat(n - 1));
    assert!(JsonPath::parse(&nest(limit)).is_ok());
    let err = JsonPath::parse(&nest(limit + 1)).unwrap_err();
    assert!(err.to_string().contains("nested deeper"), "{err}");
    // Bare terms nested in filters are parsed twice per level (as pest does): a budget stops
    // pathological paths quickly instead of spending seconds on them.
    let nested_terms = |n: usize| {
        let mut p = "@.a".to_owned();
        for _ in 0..n {
            p = format!("@.a[?{p}]");
        }
        format!("$[?{p}]")
    };
    assert_eq!(JsonPath::parse(&nested_terms(6)).unwrap().select(&doc("[]")).len(), 0);
    let started = std::time::Instant::now();
    let err = JsonPath::parse(&nested_terms(limit - 2)).unwrap_err();
    assert!(err.to_string().contains("too complex"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
}
