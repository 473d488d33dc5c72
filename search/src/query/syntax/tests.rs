//! The parser's unit tests: dialect differences in precedence, each construct, and errors
//! with their offsets.

use super::*;
use QueryAst::*;

fn p(q: &str, d: u32) -> Result<QueryAst> {
    parse(q, d, &HashMap::<String, String>::new())
}

fn w(s: &str) -> QueryAst {
    Word(s.into())
}

#[test]
fn dialect_differences() {
    assert_eq!(p("@f:a b", 1).unwrap(), Field(vec!["f".into()], Box::new(And(vec![w("a"), w("b")]))));
    assert_eq!(p("@f:a b", 2).unwrap(), And(vec![Field(vec!["f".into()], Box::new(w("a"))), w("b")]));
    // Dialect 1 after a group: the modifier takes the group only (RediSearch 2.10's EXPLAIN).
    assert_eq!(p("@f:(a) b", 1).unwrap(), And(vec![Field(vec!["f".into()], Box::new(w("a"))), w("b")]));
    assert_eq!(p("-a b", 1).unwrap(), Not(Box::new(And(vec![w("a"), w("b")]))));
    assert_eq!(p("-a b", 2).unwrap(), And(vec![Not(Box::new(w("a"))), w("b")]));
    // RediSearch 2.10's FT.EXPLAIN of each dialect-1 query: runs of words bind first,
    // then `|`, then intersection; `-`, `~` and `@f:` as their precedences say.
    let (a, b, c, d) = (w("a"), w("b"), w("c"), w("d"));
    let and = |v: Vec<QueryAst>| And(v);
    let or = |v: Vec<QueryAst>| Or(v);
    let f = |x: QueryAst| Field(vec!["f".into()], Box::new(x));
    assert_eq!(
        p("a b | c d", 1).unwrap(),
        or(vec![and(vec![a.clone(), b.clone()]), and(vec![c.clone(), d.clone()])])
    );
    assert_eq!(p("a -b c", 1).unwrap(), and(vec![a.clone(), Not(Box::new(and(vec![b.clone(), c.clone()])))]));
    assert_eq!(p("(a) b | c", 1).unwrap(), and(vec![a.clone(), or(vec![b.clone(), c.clone()])]));
    assert_eq!(p("a* b | c", 1).unwrap(), and(vec![Prefix("a".into()), or(vec![b.clone(), c.clone()])]));
    assert_eq!(p("-a | b", 1).unwrap(), Not(Box::new(or(vec![a.clone(), b.clone()]))));
    assert_eq!(p("@f:(a) | b", 1).unwrap(), f(or(vec![a.clone(), b.clone()])));
    assert_eq!(p("@f:a b | c", 1).unwrap(), f(or(vec![and(vec![a.clone(), b.clone()]), c.clone()])));
    assert_eq!(
        p("@t:{a} | b", 1).unwrap(),
        Tag(vec!["t".into()], vec![TagTerm::Exact("a".into()), TagTerm::Exact("b".into())])
    );
    assert_eq!(p("@t:{a} | @u:b", 1).unwrap_err().to_string(), "Syntax error at offset 9 near u");
    // The reference names the tag before the bad token.
    assert_eq!(p("@t:{a} | b | (c)", 1).unwrap_err().to_string(), "Syntax error at offset 13 near b");
    assert_eq!(
        p(r"@tag:{Dark|x\-y} | %runner%", 1).unwrap_err().to_string(),
        r"Syntax error at offset 19 near x\-y"
    );
    // v2: after a union of two text alternatives, a third must be text too.
    let err = |q: &str| p(q, 2).unwrap_err().to_string();
    assert_eq!(err("a1 | b1 | @title:x"), "Syntax error at offset 10 near title");
    assert_eq!(err("a1 | b1 | -@title:x"), "Syntax error at offset 11 near title");
    assert_eq!(err("a1 b1 | c1 | @num:[1 2]"), "Syntax error at offset 13 near num");
    assert!(p("a1 | @title:x | b1", 2).is_ok());
    assert!(p("(a1 | b1) | @title:x", 2).is_ok());
    assert_eq!(p("a b | c d", 2).unwrap(), Or(vec![And(vec![w("a"), w("b")]), And(vec![w("c"), w("d")])]));
}

#[test]
fn constructs() {
    assert_eq!(p("*", 2).unwrap(), MatchAll);
    assert_eq!(p("hel*", 2).unwrap(), Prefix("hel".into()));
    assert_eq!(p("%%hlo%%", 2).unwrap(), Fuzzy("hlo".into(), 2));
    assert_eq!(p("\"a b\"", 2).unwrap(), Phrase("a b".into()));
    assert_eq!(
        p("@t:{ foo bar | b\\,z* }", 2).unwrap(),
        Tag(
            vec!["t".into()],
            vec![TagTerm::Words(vec!["foo".into(), "bar".into()]), TagTerm::Prefix("b,z".into())]
        )
    );
    let n = p("@n:[(1 +inf]", 2).unwrap();
    assert_eq!(
        n,
        Numeric(
            "n".into(),
            NumBound { value: 1.0, inclusive: false },
            NumBound { value: f64::INFINITY, inclusive: true }
        )
    );
    assert!(matches!(p("@g:[2.3 48.8 10 km]", 2).unwrap(), Geo { .. }));
    let mut params = HashMap::new();
    params.insert("x".to_string(), "5".to_string());
    assert_eq!(
        parse("@n:[$x $x]", 2, &params).unwrap(),
        Numeric(
            "n".into(),
            NumBound { value: 5.0, inclusive: true },
            NumBound { value: 5.0, inclusive: true }
        )
    );
    assert_eq!(parse("@n:[$y 1]", 2, &params).unwrap_err().0, "No such parameter `y`");
    // Parameters and words after a parameter make one term list: `{$x y}` is the words
    // `5 y`, each value in turn (a long run of them parses without a call per parameter).
    params.insert("t".to_string(), "a b".to_string());
    let tag = |q: &str| match parse(q, 2, &params) {
        Ok(Tag(_, terms)) => Ok(terms),
        other => Err(format!("{other:?}")),
    };
    let words = |w: &[&str]| TagTerm::Words(w.iter().map(|s| s.to_string()).collect());
    assert_eq!(tag("@g:{$x y}"), Ok(vec![words(&["5", "y"])]));
    assert_eq!(tag("@g:{$x $t | z}"), Ok(vec![words(&["5", "a b"]), TagTerm::Exact("z".into())]));
    assert_eq!(tag("@g:{$t}"), Ok(vec![TagTerm::Exact("a b".into())]));
    let many = format!("@g:{{{}}}", "$x ".repeat(200_000));
    assert_eq!(tag(&many), Ok(vec![words(&vec!["5"; 200_000])]));
    assert_eq!(p("ismissing(@f)", 2).unwrap(), Missing("f".into()));
    let ge = NumBound { value: 3.0, inclusive: true };
    let inf = NumBound { value: f64::INFINITY, inclusive: true };
    assert_eq!(p("@n>=3", 2).unwrap(), Numeric("n".into(), ge, inf));
    assert_eq!(p("@n != 3", 2).unwrap(), Not(Box::new(Numeric("n".into(), ge, ge))));
    assert!(p("@n>=x", 2).is_err());
    assert!(p("@n>=3", 1).is_err());
    assert!(matches!(p("\"a b\"=>{$slop:1; $inorder:true}", 2).unwrap(), Attrs { slop: Some(1), .. }));
    // The empty string: `""`/`''` in dialect 2+, as a term and as a tag.
    assert_eq!(p("@t:\"\"", 2).unwrap(), Field(vec!["t".into()], Box::new(w(""))));
    assert_eq!(p("''", 2).unwrap(), w(""));
    assert_eq!(p("\"\"", 1).unwrap(), Phrase(String::new()));
    assert_eq!(
        p("@t:{ \"\" | x }", 2).unwrap(),
        Tag(vec!["t".into()], vec![TagTerm::Exact(String::new()), TagTerm::Exact("x".into())])
    );
    assert_eq!(p("@t:{''}", 2).unwrap(), Tag(vec!["t".into()], vec![TagTerm::Exact(String::new())]));
    let mut empty = HashMap::new();
    empty.insert("e".to_string(), String::new());
    assert_eq!(
        parse("@t:{$e}", 2, &empty).unwrap(),
        Tag(vec!["t".into()], vec![TagTerm::Exact(String::new())])
    );
}

#[test]
fn syntax_errors_carry_offsets() {
    // RediSearch 2.10.5's texts: at the end its parser is handed the last token again (its
    // offset), and a punctuation token leaves the token text the previous one set.
    let err = |q: &str, d: u32| p(q, d).unwrap_err().0;
    for d in [1, 2] {
        assert_eq!(err("foo (bar", d), "Syntax error at offset 5 near bar");
        assert_eq!(err("foo )", d), "Syntax error at offset 4 near foo");
        assert_eq!(err("((", d), "Syntax error at offset 1 near ");
        assert_eq!(err("-", d), "Syntax error at offset 0 near ");
        assert_eq!(err("hello (", d), "Syntax error at offset 6 near hello");
        assert_eq!(err("(hello | ", d), "Syntax error at offset 7 near hello");
        assert_eq!(err("@t:", d), "Syntax error at offset 2 near t");
        assert_eq!(err("@t:((", d), "Syntax error at offset 4 near t");
        assert_eq!(err("hello [1 2]", d), "Syntax error at offset 6 near hello");
        assert_eq!(err("1 2 )", d), "Syntax error at offset 4 near 2");
        assert_eq!(err("hello | | world", d), "Syntax error at offset 8 near hello");
        assert_eq!(err("a ~", d), "Syntax error at offset 2 near a");
        assert_eq!(err("hello 3.5 (", d), "Syntax error at offset 10 near 3.5");
        assert_eq!(err("hello @t:{a} (", d), "Syntax error at offset 13 near a");
        assert_eq!(err("%hello%%", d), "Syntax error at offset 7 near hello");
    }
    // A phrase is one token from dialect 2, its words one by one in dialect 1.
    assert_eq!(err("\"hello world\" (", 1), "Syntax error at offset 14 near world");
    assert_eq!(err("\"hello world\" (", 2), "Syntax error at offset 14 near hello world");
    assert_eq!(err("@f:{a", 2), "Syntax error at offset 4 near a");
    assert!(p("@:x", 2).is_err());
    assert!(p("%%%%a%%%%", 2).is_err());
    let deep = "(".repeat(10_000) + "a" + &")".repeat(10_000);
    assert!(p(&deep, 2).is_err());
}

/// Issue 25, from RediSearch 2.10.5's generated `v2/lexer.c` (token streams checked by
/// compiling it): `;` is a SEMICOLON token (`swim;pass`: TERM swim, SEMICOLON, TERM
/// pass), a syntax error outside attributes quoting the previous token's text; `'…'` is
/// a VERBATIM token (`it's bob's`: TERM it, VERBATIM `s bob`, TERM s), an error; a lone
/// `'` and a lone `=` are skipped punctuation (`equal=lity`: TERM equal, TERM lity).
#[test]
fn semicolons_quotes_and_equals_like_redisearch() {
    let err = |q: &str, d: u32| p(q, d).unwrap_err().0;
    assert_eq!(err("swim;pass", 2), "Syntax error at offset 4 near swim");
    assert_eq!(err("swim;pass", 1), "Syntax error at offset 4 near swim");
    assert_eq!(err("hello world;", 2), "Syntax error at offset 11 near world");
    assert_eq!(err("(a) ;b", 2), "Syntax error at offset 4 near a");
    assert_eq!(err("\"a b\";", 2), "Syntax error at offset 5 near a b");
    assert_eq!(err(";x", 2), "Syntax error at offset 0 near ");
    assert_eq!(err("it's bob's", 2), "Syntax error at offset 2 near s bob");
    assert_eq!(err("'abc'", 2), "Syntax error at offset 0 near abc");
    assert_eq!(err("a 'b c' d", 2), "Syntax error at offset 2 near b c");
    // Escaped, the characters are text.
    assert!(p("swim\\;pass", 2).is_ok());
    // `''` is the empty string; a lone quote is punctuation; dialect 1 has no VERBATIM.
    assert!(p("''", 2).is_ok());
    assert!(p("it's", 2).is_ok());
    assert!(p("it's bob's", 1).is_ok());
    assert_eq!(p("equal=lity", 2).unwrap(), And(vec![w("equal"), w("lity")]));
    assert_eq!(p("equal=lity", 1).unwrap(), And(vec![w("equal"), w("lity")]));
    assert_eq!(p("a = b", 2).unwrap(), And(vec![w("a"), w("b")]));
    assert_eq!(p("a ==b", 2).unwrap(), And(vec![w("a"), w("b")]));
    // Attributes still take their `;`.
    assert!(p("(a)=>{$weight:2;}", 2).is_ok());
}

/// A sign alone before a range bound: `-` negates the number after it, `+` is skipped
/// (replies of RediSearch 2.10.5 in dialects 1 and 2: `[- 2 3]` matches n = -2..3, `[1 - inf]`
/// nothing, `[-inf + inf]` everything).
#[test]
fn a_lone_sign_before_a_range_bound() {
    let range = |q: &str, d: u32| match p(q, d) {
        Ok(Numeric(_, lo, hi)) => Ok((lo.value, lo.inclusive, hi.value, hi.inclusive)),
        other => Err(format!("{other:?}")),
    };
    for d in [1, 2] {
        assert_eq!(range("@n:[- 2 3]", d), Ok((-2.0, true, 3.0, true)));
        assert_eq!(range("@n:[-inf + inf]", d), Ok((f64::NEG_INFINITY, true, f64::INFINITY, true)));
        assert_eq!(range("@n:[(- 1 3]", d), Ok((-1.0, false, 3.0, true)));
        assert_eq!(range("@n:[1 -  inf]", d), Ok((1.0, true, f64::NEG_INFINITY, true)));
        assert_eq!(range("@n:[1 + 2]", d), Ok((1.0, true, 2.0, true)));
    }
}

/// Nesting past the bound: RediSearch 2.10.5's texts, a syntax error in dialect 1 and its
/// parser's stack overflow from dialect 2 (test_parser.py's nest_exp at 200 levels).
#[test]
fn deep_nesting_errors_by_dialect() {
    fn nest(i: usize, and: bool) -> String {
        if i == 1 {
            return "(@mod:a1)".to_string();
        }
        format!("(a{i}{}{})", if and { " " } else { "|" }, nest(i - 1, and))
    }
    for and in [true, false] {
        let q = nest(200, and);
        assert!(p(&q, 1).unwrap_err().0.starts_with("Syntax error at offset"), "and={and}");
        assert_eq!(
            p(&q, 2).unwrap_err().0,
            "Parser stack overflow. Try moving nested parentheses more to the left"
        );
    }
}

#[test]
fn a_lone_star_is_only_the_whole_query() {
    // RediSearch 2.10.5's grammars: `query ::= STAR` (dialect 1), also `star ::= LP star RP`
    // and `star ARROW [...]` from dialect 2; a star anywhere else stops the parser there.
    let err = |q: &str, d: u32| p(q, d).unwrap_err().0;
    for d in [1, 2] {
        assert!(matches!(p("*", d), Ok(QueryAst::MatchAll)));
        assert!(matches!(p(" * ", d), Ok(QueryAst::MatchAll)));
        assert_eq!(err("apple (*)", d), "Syntax error at offset 7 near apple");
        assert_eq!(err("apple *", d), "Syntax error at offset 6 near apple");
        assert_eq!(err("apple | (*)", d), "Syntax error at offset 9 near apple");
        assert_eq!(err("-(*)", d), "Syntax error at offset 2 near ");
        assert_eq!(err("*-*", d), "Syntax error at offset 1 near ");
        assert_eq!(err("* foo", d), "Syntax error at offset 2 near foo");
        assert!(matches!(p("*foo", d), Ok(QueryAst::Suffix(_))));
        assert!(matches!(p("*1*", d), Ok(QueryAst::Infix(_))));
    }
    assert_eq!(err("(*)", 1), "Syntax error at offset 1 near ");
    assert_eq!(err("(*) apple", 1), "Syntax error at offset 1 near ");
    assert!(matches!(p("((*))", 2), Ok(QueryAst::MatchAll)));
    assert!(matches!(p("( * )", 2), Ok(QueryAst::MatchAll)));
    assert_eq!(err("(*) apple", 2), "Syntax error at offset 4 near apple");
    assert_eq!(err("*=>[KNN 2 @v $b]", 1), "Syntax error at offset 1 near >[");
    assert_eq!(err("*=>{$weight:2}", 2), "Syntax error at offset 3 near >{");
    assert_eq!(err("*=> x", 2), "Syntax error at offset 4 near x");
    assert_eq!(err("(*", 2), "Syntax error at offset 1 near ");
    assert_eq!(err("(* foo)", 2), "Syntax error at offset 3 near foo");
    assert_eq!(err("(*-)", 2), "Syntax error at offset 2 near ");
    assert_eq!(err("((*) foo)", 2), "Syntax error at offset 5 near foo");
    assert_eq!(err("(*=>[KNN 2 @v $b])", 2), "Syntax error at offset 2 near >[");
    assert_eq!(err("(( *=>[KNN 2 @v $b]))", 2), "Syntax error at offset 4 near >[");
}

#[test]
fn control_characters_separate_words() {
    // RediSearch's lexers skip `cntrl` as they skip spaces: `two\x01words` is two words
    // (RediSearch 2.10.5's FT.EXPLAINCLI, live: an INTERSECT of `two` and `words`).
    for c in (1u8..32).map(char::from) {
        let q = format!("@text:(two{c}words)");
        let want = Field(vec!["text".into()], Box::new(And(vec![w("two"), w("words")])));
        assert_eq!(p(&q, 2).unwrap(), want, "{c:?}");
    }
}

#[test]
fn a_backslash_before_a_letter_separates_words() {
    // RediSearch's lexers escape only punctuation and spaces: `two\words` is `two` and
    // `words` (RediSearch 2.10.5's FT.EXPLAINCLI, live), `a\-b` one word.
    let want = Field(vec!["text".into()], Box::new(And(vec![w("two"), w("words")])));
    assert_eq!(p("@text:(two\\words)", 2).unwrap(), want);
    assert_eq!(p("two\\words", 1).unwrap(), And(vec![w("two"), w("words")]));
    assert_eq!(p("a\\-b", 2).unwrap(), w("a\\-b"));
}

#[test]
fn a_sign_before_a_range_parameter() {
    // RediSearch 2.10.5's FT.EXPLAIN: `@bar:[(-$n $n]` with n=20 is -20 < bar <= 20, and
    // `-$n` with n=-10 is 10.
    let params: HashMap<String, String> = [("n".to_string(), "20".to_string())].into_iter().collect();
    let b = |value: f64, inclusive: bool| NumBound { value, inclusive };
    assert_eq!(
        parse("@bar:[(-$n $n]", 2, &params).unwrap(),
        Numeric("bar".into(), b(-20.0, false), b(20.0, true))
    );
    let params: HashMap<String, String> = [("n".to_string(), "-10".to_string())].into_iter().collect();
    assert_eq!(
        parse("@bar:[(-1 -$n]", 2, &params).unwrap(),
        Numeric("bar".into(), b(-1.0, false), b(10.0, true))
    );
    // `@bar==-$n` with n=-10 is 10, `@bar==+$n` -10.
    assert_eq!(parse("@bar==-$n", 2, &params).unwrap(), Numeric("bar".into(), b(10.0, true), b(10.0, true)));
    assert_eq!(
        parse("@bar==+$n", 2, &params).unwrap(),
        Numeric("bar".into(), b(-10.0, true), b(-10.0, true))
    );
}

#[test]
fn affixes_of_parameters() {
    // RediSearch 2.10.5 (test.py testPrefixNodeCaseSensitive, test_contains.py test_params):
    // `$p*`, `*$p`, `*$p*` in text and tag clauses.
    let params: HashMap<String, String> = [("p".to_string(), "el".to_string())].into_iter().collect();
    let q = |s: &str| parse(s, 2, &params).unwrap();
    assert_eq!(q("$p*"), Prefix("el".into()));
    assert_eq!(q("*$p"), Suffix("el".into()));
    assert_eq!(q("@t:(*$p*)"), Field(vec!["t".into()], Box::new(Infix("el".into()))));
    assert_eq!(q("@t:{*$p*}"), Tag(vec!["t".into()], vec![TagTerm::Infix("el".into())]));
    assert_eq!(q("@t:{$p*}"), Tag(vec!["t".into()], vec![TagTerm::Prefix("el".into())]));
    assert_eq!(q("@t:{*$p}"), Tag(vec!["t".into()], vec![TagTerm::Suffix("el".into())]));
}

#[test]
fn empty_values_in_parameters_and_attributes() {
    // RediSearch 2.10.5 (test_empty.py testInvalidUseOfEmptyString), live.
    let params: HashMap<String, String> =
        [("e".to_string(), String::new()), ("q".to_string(), "\"\"".to_string())].into_iter().collect();
    let q = |s: &str| parse(s, 2, &params);
    // An empty parameter in a range is 0.
    let b = |value: f64| NumBound { value, inclusive: true };
    assert_eq!(q("@n:[$e 10]").unwrap(), Numeric("n".into(), b(0.0), b(10.0)));
    assert_eq!(q("@g:[1.23 4.56 $e km]").unwrap_err().0, "Invalid GeoFilter radius");
    // `%$p%`: the parameter's value, escaped as a word.
    assert_eq!(q("%$q%").unwrap(), Fuzzy("\\\"\\\"".into(), 1));
    assert_eq!(q("%$e%").unwrap(), Fuzzy(String::new(), 1));
    // An empty vector attribute is an invalid value, named as written.
    assert_eq!(
        q("*=>[KNN 3 @v $e]=>{$yield_distance_as:\"\"}").unwrap_err().0,
        "Invalid value () for `yield_distance_as`"
    );
    assert_eq!(q("@v:[VECTOR_RANGE 1 $e]=>{$EPSILON:$e}").unwrap_err().0, "Invalid value () for `EPSILON`");
}

#[test]
fn empty_string_among_tag_words() {
    // RediSearch 2.10.5's FT.EXPLAINCLI shows `{foo ""}` as an INTERSECT of `foo` and `""`
    // (test_empty.py testEmptyExplainCli): one value, its words joined by spaces.
    let t = |ws: &[&str]| {
        Tag(vec!["tag".into()], vec![TagTerm::Words(ws.iter().map(|w| w.to_string()).collect())])
    };
    assert_eq!(p("@tag:{foo \"\"}", 2).unwrap(), t(&["foo", ""]));
    assert_eq!(p("@tag:{\"\" bar}", 2).unwrap(), t(&["", "bar"]));
    assert_eq!(p("@tag:{\"\" \"\"}", 2).unwrap(), t(&["", ""]));
    assert_eq!(p("@tag:{\"\"}", 2).unwrap(), Tag(vec!["tag".into()], vec![TagTerm::Exact(String::new())]));
    assert_eq!(TagTerm::Words(vec!["foo".into(), String::new()]).exact_value().as_deref(), Some("foo "));
}

#[test]
fn v2_modifiers_take_text_only() {
    // RediSearch 2.10.5 (FT.EXPLAIN, dialect 2): a modifier's expression has no modifier of its
    // own; the error is at the inner `@`, near its field name.
    for (q, off, near) in [
        ("@t1:(@num:[0 10])", 5, "num"),
        ("@t1:(foo @t2:bar)", 9, "t2"),
        ("@t1:@num:[1 2]", 4, "num"),
        ("@t1:-@t2:foo", 5, "t2"),
        ("@t1:(~@t2:foo)", 6, "t2"),
        ("@t1:(a @num>1)", 7, "num"),
        ("@t1|t2:(@t3:foo)", 8, "t3"),
    ] {
        assert_eq!(
            p(q, 2).unwrap_err().to_string(),
            format!("Syntax error at offset {off} near {near}"),
            "{q}"
        );
        // (Comparisons are dialect 2's.)
        assert!(q.contains('>') || p(q, 1).is_ok(), "{q} in dialect 1");
    }
    // Side by side, or after the modifier's group, they are fine.
    for q in ["@t1:(foo) @t2:bar", "@t1:foo -@t2:bar", "(@t1:a) (@t2:b)", "@t1:(a|b) @num:[1 2]"] {
        assert!(p(q, 2).is_ok(), "{q}");
    }
}

#[test]
fn dollar_in_a_phrase() {
    // v1 reads `$name` in quotes as a parameter no rule takes; v2 keeps `$` in the word.
    assert_eq!(p("\"$hello\"", 1).unwrap_err().to_string(), "Syntax error at offset 1 near hello");
    assert_eq!(p("\"x $hello\"", 1).unwrap_err().to_string(), "Syntax error at offset 3 near hello");
    assert_eq!(p("\"x$\"", 1).unwrap(), Phrase("x$".into()));
    assert_eq!(p("\"$hello\"", 2).unwrap(), Phrase("\\$hello".into()));
    assert_eq!(p("\"x \\$y\"", 1).unwrap(), Phrase("x \\$y".into()));
}

#[test]
fn v1_passes_over_stray_braces_after_a_tag_list() {
    let t = |v: &[&str]| Tag(vec!["title".into()], v.iter().map(|s| TagTerm::Exact(s.to_string())).collect());
    assert_eq!(p("@title:{foo}}}}}", 1).unwrap(), t(&["foo"]));
    assert_eq!(p("@title:{foo}} }|bar", 1).unwrap(), t(&["foo", "bar"]));
    assert_eq!(p("@title:{foo}}x", 1).unwrap(), And(vec![t(&["foo"]), w("x")]));
    assert!(p("foo }", 1).is_err());
    assert!(p("@title:{foo}}", 2).is_err());
}

/// Dialect 2 reads a tag list as v2's lexer tokenizes it and v2's `tag_list` grammar takes
/// the tokens (`src/query_parser/v2/lexer.rl`, `parser.y`): errors as RediSearch 2.10.5
/// gives them (FT.EXPLAIN, measured side by side).
#[test]
fn v2_tag_list_syntax_errors() {
    let cases: &[(&str, &str)] = &[
        // testDialect2InvalidSyntax (test_tags.py)
        ("@tag:{w\\'?*1'}", "Syntax error at offset 10 near 1"),
        ("@tag:{abc:1\\}", "Syntax error at offset 9 near abc"),
        ("@tag:{w'1?'*}", "Syntax error at offset 11 near 1?"),
        ("@tag:{w'1?'   *}", "Syntax error at offset 14 near 1?"),
        ("@tag:{*w'1?'}", "Syntax error at offset 8 near 1?"),
        ("@tag:{*w'1?'*}", "Syntax error at offset 8 near 1?"),
        ("@tag:{*\\w'abc'\\*}", "Syntax error at offset 6 near tag"),
        ("@tag:{w'-abc*}", "Syntax error at offset 8 near w"),
        ("(@tag:{\\w'-abc*})", "Syntax error at offset 10 near w"),
        ("'@tag:{\\w-:abc}", "Syntax error at offset 9 near w"),
        ("@t1:>", "Syntax error at offset 3 near t1"),
        ("@t1:\x08", "Syntax error at offset 3 near t1"),
        // a token out of the grammar's order, quoting its own text or the last one set
        ("@tag:{foo-bar}", "Syntax error at offset 9 near foo"),
        ("@tag:{foo:bar}", "Syntax error at offset 9 near foo"),
        ("@tag:{foo*bar}", "Syntax error at offset 10 near bar"),
        ("@tag:{a b*}", "Syntax error at offset 8 near b"),
        ("@tag:{x *y}", "Syntax error at offset 8 near y"),
        ("@tag:{x w'y'}", "Syntax error at offset 10 near y"),
        ("@tag:{a**}", "Syntax error at offset 8 near a"),
        ("@tag:{*a**}", "Syntax error at offset 9 near a"),
        ("@tag:{-inf*}", "Syntax error at offset 10 near -inf"),
        ("@tag:{*}", "Syntax error at offset 6 near tag"),
        ("@tag:{'x'}", "Syntax error at offset 6 near x"),
        ("@tag:{a\"}", "Syntax error at offset 7 near a"),
        ("@tag:{@x>5}", "Syntax error at offset 6 near x"),
        ("@tag:{ab=>c}", "Syntax error at offset 8 near >c"),
        ("@tag:{a\\}", "Syntax error at offset 6 near a\\}"),
        ("@tag:{a|", "Syntax error at offset 7 near a"),
        ("@tag:{| a}", "Syntax error at offset 6 near tag"),
        ("@t1:. ", "Syntax error at offset 3 near t1"),
    ];
    for (q, want) in cases {
        assert_eq!(p(q, 2).map_err(|e| e.to_string()), Err(want.to_string()), "{q}");
    }
}

/// What v2's tag grammar accepts, and the values it makes: a run of terms is one value of
/// lowercased words (`{a.b}`: `.` starts no token), a number one token, a quoted term its
/// inside, affixes unescaped.
#[test]
fn v2_tag_list_values() {
    let words = |w: &[&str]| TagTerm::Words(w.iter().map(|s| s.to_string()).collect());
    let cases: Vec<(&str, Vec<TagTerm>)> = vec![
        ("@t:{foo.bar}", vec![words(&["foo", "bar"])]),
        ("@t:{Foo Bar | x}", vec![words(&["foo", "bar"]), TagTerm::Exact("x".into())]),
        ("@t:{\"A b\" C}", vec![words(&["a b", "c"])]),
        ("@t:{1.2e+3}", vec![TagTerm::Exact("1.2e+3".into())]),
        ("@t:{-12abc}", vec![words(&["-12", "abc"])]),
        ("@t:{12abc}", vec![TagTerm::Exact("12abc".into())]),
        ("@t:{a\\* b}", vec![words(&["a*", "b"])]),
        ("@t:{Foo\\.Bar}", vec![TagTerm::Exact("Foo.Bar".into())]),
        ("@t:{\"a.b\"}", vec![TagTerm::Exact("a.b".into())]),
        ("@t:{a\\-b*}", vec![TagTerm::Prefix("a-b".into())]),
        ("@t:{*\"a\"*}", vec![TagTerm::Infix("a".into())]),
        ("@t:{w'x' | y}", vec![TagTerm::Wildcard("x".into()), TagTerm::Exact("y".into())]),
        ("@t:{ab!c}", vec![words(&["ab", "c"])]),
    ];
    for (q, want) in cases {
        match p(q, 2) {
            Ok(Tag(_, got)) => assert_eq!(got, want, "{q}"),
            other => panic!("{q}: {other:?}"),
        }
    }
    // Dialect 1 reads it with v1's lexer: `.` starts no token there either (RediSearch
    // 2.10.5: `TAG:@t { INTERSECT { foo bar } }`).
    assert_eq!(p("@t:{foo.bar}", 1).unwrap(), Tag(vec!["t".into()], vec![words(&["foo", "bar"])]));
}

#[test]
fn numbers_as_terms() {
    // RediSearch's lexers: `number` is the longest match (a tie with a term is a number);
    // dialect 2 keeps it verbatim, dialect 1 as a term escaped to stay whole.
    assert_eq!(p("1.2e+3", 2).unwrap(), Verbatim("1.2e+3".into()));
    assert_eq!(p("1.2E3", 2).unwrap(), Verbatim("1.2E3".into()));
    assert_eq!(p("705", 2).unwrap(), Verbatim("705".into()));
    assert_eq!(p("-5", 2).unwrap(), Verbatim("-5".into()));
    assert_eq!(p("+5", 2).unwrap(), Verbatim("+5".into()));
    assert_eq!(p("INF", 2).unwrap(), Verbatim("INF".into()));
    assert_eq!(p("infinity", 2).unwrap(), w("infinity"));
    assert_eq!(p("cherry1", 2).unwrap(), w("cherry1"));
    assert_eq!(p("1e5x", 2).unwrap(), w("1e5x"));
    assert_eq!(p("1.5b", 2).unwrap(), And(vec![Verbatim("1.5".into()), w("b")]));
    assert_eq!(p("a1.5b", 2).unwrap(), And(vec![w("a1"), w("5b")]));
    assert_eq!(p("men.running", 2).unwrap(), And(vec![w("men"), w("running")]));
    // NUMBER binds tighter than AND in v2: `1.e+3` is 1, then (e +3).
    assert_eq!(
        p("1.e+3", 2).unwrap(),
        And(vec![Verbatim("1".into()), And(vec![w("e"), Verbatim("+3".into())])])
    );
    assert_eq!(p("1.2*", 2).unwrap(), Prefix("1.2".into()));
    assert_eq!(p("%5.5%", 2).unwrap(), Fuzzy(r"5\.5".into(), 1));
    assert_eq!(p("@t1:5.5", 2).unwrap(), Field(vec!["t1".into()], Box::new(Verbatim("5.5".into()))));
    // Dialect 1: the exponent's sign is `-` only; `+` and `.` between tokens are skipped.
    assert_eq!(p("1.2e+3", 1).unwrap(), And(vec![w(r"1\.2"), w("e"), w("3")]));
    assert_eq!(p("1.2e-3", 1).unwrap(), w(r"1\.2e\-3"));
    assert_eq!(p("-inf", 1).unwrap(), w(r"\-inf"));
    assert_eq!(p("\"value 1.2\"", 1).unwrap(), Phrase(r"value 1\.2".into()));
    assert_eq!(p("\"value 1.2\"", 2).unwrap(), Phrase("value 1.2".into()));
    // Numeric ranges are unchanged.
    assert_eq!(
        p("@n:[1.5 2e3]", 2).unwrap(),
        Numeric(
            "n".into(),
            NumBound { value: 1.5, inclusive: true },
            NumBound { value: 2000.0, inclusive: true }
        )
    );
    assert_eq!(p("@n:[1e+3 2]", 1).unwrap_err().to_string(), "Syntax error at offset 4 near 1e");
}

#[test]
fn number_params_are_verbatim() {
    let params = |v: &str| HashMap::from([("p".to_string(), v.to_string())]);
    let q = |v: &str| parse("$p", 2, &params(v)).unwrap();
    assert_eq!(q("1.2E-3"), Verbatim("1.2e-3".into()));
    assert_eq!(q(" 5"), Verbatim(" 5".into()));
    assert_eq!(q("-INF"), Verbatim("-inf".into()));
    assert_eq!(q("0x1p3"), Verbatim("0x1p3".into()));
    assert_eq!(q("cherry1"), w("cherry1"));
    assert_eq!(q("1e999"), w(r"1e999"));
    assert_eq!(q(""), w(""));
}

#[test]
fn a_star_after_punctuation_is_a_star_token() {
    // v1 skips the `'` of `w'*'`: the star stands alone, which no rule takes there.
    assert_eq!(p("@t1:(w'*')", 1).unwrap_err().to_string(), "Syntax error at offset 7 near w");
    assert_eq!(p("x.*b", 2).unwrap(), And(vec![w("x"), Suffix("b".into())]));
}

#[test]
fn dialect_1_parameters_err_at_their_dollar() {
    let params = HashMap::from([("p".to_string(), "5".to_string())]);
    let err = |q: &str| parse(q, 1, &params).unwrap_err().to_string();
    assert_eq!(err("$p"), "Syntax error at offset 0 near p");
    assert_eq!(err("@t1:$p"), "Syntax error at offset 4 near p");
    assert_eq!(err("@t1:($p)"), "Syntax error at offset 5 near p");
}

/// The text a syntax error quotes, as RediSearch 2.10.5 replies (side by side, both
/// dialects): a term or number token its own text only, a punctuation token the last
/// text before it, and a `\` before a letter is no escape.
#[test]
fn syntax_errors_quote_the_token_text() {
    let cases = [
        ("hello=>world}", "Syntax error at offset 7 near world"),
        ("x => y}", "Syntax error at offset 5 near y"),
        ("hello=>1.5x", "Syntax error at offset 7 near 1.5"),
        ("hello%}", "Syntax error at offset 6 near hello"),
        ("hello %}", "Syntax error at offset 7 near hello"),
        ("a\\b}", "Syntax error at offset 3 near b"),
    ];
    for d in [1, 2] {
        for (q, want) in cases {
            assert_eq!(p(q, d).map_err(|e| e.to_string()), Err(want.to_string()), "{q} d{d}");
        }
    }
    // In a dialect 1 tag list: the list ends at `=>`, whose `}` is then the error.
    assert_eq!(
        p("@t:{hello=>world}", 1).map_err(|e| e.to_string()),
        Err("Syntax error at offset 11 near world".to_string())
    );
}
