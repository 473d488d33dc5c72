//! Expression language: operators, precedence, NULL and type rules, every
//! function, and error texts. Expected values come from RediSearch 2.10's
//! semantics (C arithmetic, `%.12g` printing) and independent calculation.

mod aggregate_support;

use aggregate_support::{ev, eval_with, n, s, show};

fn check(cases: &[(&str, &str)]) {
    for (src, want) in cases {
        assert_eq!(ev(src), *want, "expression {src}");
    }
}

#[test]
fn arithmetic_and_precedence() {
    check(&[
        ("1 + 2 * 3", "7"),
        ("(1 + 2) * 3", "9"),
        // `^` shares the level of `* / %` and everything is left-associative.
        ("2 * 3 ^ 2", "36"),
        ("2 ^ 3 ^ 2", "64"),
        ("10 / 4", "2.5"),
        ("10 - 2 - 3", "5"),
        // A `-` glued to a digit is the number's sign (RediSearch 2.10.5, live).
        ("1-5", "ERR Syntax error at offset 1 near '-5'"),
        ("1 - 5", "-4"),
        // So are the signs of `+inf` and `-inf` (RediSearch 2.10.5, side by side); `+5` is no
        // number there, so `3+5` adds.
        ("3+inf", "ERR Syntax error at offset 1 near '+inf'"),
        ("3-inf", "ERR Syntax error at offset 1 near '-inf'"),
        ("3*-inf", "-inf"),
        ("3+5", "8"),
        ("3--1", "4"),
        ("2*-1", "-2"),
        ("-2 ^ 2", "4"),
        ("- 3 + 1", "-2"),
        ("1e3 + 1", "1001"),
        ("1.5e-3 * 2", "0.003"),
        ("0.1 + 0.2", "0.3"),
        // RediSearch's lexer.c: `+inf`/`-inf` are numbers, a bare `inf` a symbol.
        ("+inf", "inf"),
        ("-inf", "-inf"),
        ("(0.5)+(+inf)", "inf"),
        ("(0.5)-(+inf)", "-inf"),
        ("(0.5)*(-inf)", "-inf"),
        ("1 + +inf", "inf"),
        ("1 - -inf", "inf"),
        // x86's default NaN has the sign bit: C's `%g` prints `-nan`.
        ("(+inf)-(+inf)", "-nan"),
        ("(+inf)*(0)", "-nan"),
        ("(-inf)/(0)", "nan"),
        // `(long long)inf` is LLONG_MIN on x86.
        ("(+inf)%(3)", "-2"),
        ("(10)%(+inf)", "10"),
        ("inf", "ERR Unknown symbol 'inf'"),
        ("inf + 1", "ERR Unknown symbol 'inf'"),
        ("'3' + 4", "7"),
    ]);
}

#[test]
fn division_and_modulo_by_zero_give_nan() {
    check(&[
        ("1 / 0", "nan"),
        ("0 / 0", "nan"),
        ("7 % 3", "1"),
        ("7.9 % 3", "1"),
        ("-7 % 3", "-1"),
        ("5 % 0", "nan"),
        ("5 % -1", "0"),
    ]);
}

#[test]
fn arithmetic_needs_numbers() {
    check(&[
        ("'x' + 1", "ERR Could not convert value to a number"),
        ("NULL + 1", "ERR Could not convert value to a number"),
        ("split('a') * 2", "ERR Could not convert value to a number"),
    ]);
}

#[test]
fn comparisons() {
    check(&[
        ("1 < 2", "1"),
        ("2 <= 2", "1"),
        ("3 > 4", "0"),
        ("3 >= 4", "0"),
        ("2 != 3", "1"),
        ("'a' < 'b'", "1"),
        ("'ab' < 'abc'", "1"),
        ("'abc' == 'abc'", "1"),
        ("'5' == 5", "1"),
        ("'10' > 9", "1"),
        ("'x' == 5", "0"),
        ("'x' != 5", "1"),
        ("'x' < 5", "ERR Error converting string 'x' to number"),
        ("NULL == NULL", "1"),
        ("NULL == 0", "0"),
        ("NULL < 1", "1"),
        ("1 > NULL", "1"),
        ("1 + 1 == 2", "1"),
        ("1 < 2 == 1", "1"),
    ]);
}

#[test]
fn logic_truthiness_and_short_circuit() {
    check(&[
        ("1 && 0", "0"),
        ("1 || 0", "1"),
        ("!0", "1"),
        ("!'abc'", "0"),
        ("!''", "1"),
        ("!NULL", "1"),
        ("!split('')", "1"),
        // `&&`, `||` and `!` share the lowest level, left to right.
        ("1 || 0 && 0", "0"),
        ("!0 && 0", "0"),
        ("!0 == 2", "1"),
        ("0 && @missing", "0"),
        ("1 || @missing", "1"),
        ("1 && @missing", "ERR missing: has no value, consider using EXISTS if applicable"),
        ("'a' && 'b'", "1"),
    ]);
}

#[test]
fn missing_properties_and_exists() {
    let fields = [("a", n(2.0)), ("t", s("Hello"))];
    let e = |src: &str| match eval_with(src, &fields) {
        Ok(v) => show(&v),
        Err(e) => format!("ERR {}", e.message),
    };
    assert_eq!(e("@a * 10"), "20");
    assert_eq!(e("upper(@t)"), "HELLO");
    assert_eq!(e("exists(@a)"), "1");
    assert_eq!(e("exists(@missing)"), "0");
    assert_eq!(e("@missing + 1"), "ERR missing: has no value, consider using EXISTS if applicable");
    assert_eq!(e("upper(@missing)"), "ERR missing: has no value, consider using EXISTS if applicable");
    assert_eq!(e("@missing == 1"), "ERR missing: has no value, consider using EXISTS if applicable");
    assert_eq!(e("case(exists(@missing), @missing, 'none')"), "none");
    assert_eq!(e("exists(@a, @t)"), "ERR Invalid arguments for function 'exists'");
}

#[test]
fn parse_errors() {
    check(&[
        ("foo(1)", "ERR Unknown function name 'foo'"),
        ("bar", "ERR Unknown symbol 'bar'"),
        ("null", "ERR Unknown symbol 'null'"),
        // The end and operators reuse RediSearch's token: the offset of the last
        // token, the text of the last number, string, symbol or property.
        ("1 +", "ERR Syntax error at offset 2 near '1'"),
        ("(1", "ERR Syntax error at offset 1 near '1'"),
        ("1 + * 2", "ERR Syntax error at offset 4 near '1'"),
        ("@a )", "ERR Syntax error at offset 3 near 'a'"),
        ("1 2", "ERR Syntax error at offset 2 near '2'"),
        ("", "ERR Syntax error at offset 0 near ''"),
        // Punctuation that starts no token is skipped.
        ("1 # 2", "ERR Syntax error at offset 4 near '2'"),
        ("1 ; + 2", "3"),
        ("'abc", "ERR Unknown symbol 'abc'"),
        ("upper('a' 'b')", "ERR Syntax error at offset 10 near ''b''"),
    ]);
    let deep = format!("{}1{}", "(".repeat(1000), ")".repeat(1000));
    assert!(ev(&deep).starts_with("ERR Expression nested deeper"));
    // Long flat chains build tall trees: bounded too, so evaluation and drop
    // never recurse without limit.
    assert_eq!(ev(&vec!["1"; 250].join("+")), "250");
    let calls = format!("{}-1{}", "abs(".repeat(120), ")".repeat(120));
    assert_eq!(ev(&calls), "1");
    let calls = format!("{}-1{}", "abs(".repeat(5000), ")".repeat(5000));
    assert!(ev(&calls).starts_with("ERR Expression nested deeper"));
    assert!(ev(&vec!["1"; 5000].join("+")).starts_with("ERR Expression nested deeper"));
    // A `-` negates a number only: the second `-` is the error (RediSearch 2.10.5, side by side).
    assert_eq!(ev(&"-".repeat(5000)), "ERR Syntax error at offset 1 near ''");
    assert_eq!(ev("-@a"), "ERR Syntax error at offset 1 near 'a'");
    assert!(ev(&format!("{}1", "!".repeat(5000))).starts_with("ERR Expression nested deeper"));
    let e = search::aggregate::expr::Expr::parse("1 + 'open").unwrap_err();
    assert_eq!(e.message, "Unknown symbol 'open'");
}

#[test]
fn math_functions() {
    check(&[
        ("log(1)", "0"),
        ("LOG(100)", "4.60517018599"),
        ("abs(-3)", "3"),
        ("ceil(1.2)", "2"),
        ("floor(-1.5)", "-2"),
        ("log2(8)", "3"),
        ("exp(0)", "1"),
        ("sqrt(2)", "1.41421356237"),
        ("sqrt('16')", "4"),
        ("sqrt('x')", "nan"),
        ("abs()", "ERR Invalid number of arguments for fabs"),
        ("sqrt(1, 2)", "ERR Invalid number of arguments for sqrt"),
    ]);
}

#[test]
fn string_functions() {
    check(&[
        ("upper('aBc')", "ABC"),
        ("lower('aBc')", "abc"),
        ("upper(5)", "nil"),
        ("upper('a', 'b')", "ERR Invalid arguments for function 'upper'"),
        ("startswith('hello', 'he')", "1"),
        ("startswith('hello', 'lo')", "0"),
        (
            "startswith(5, '5')",
            "ERR Invalid type (1) for argument 0 in function 'startswith'. VALIDATE_ARG__STRING(v, 0) was false.",
        ),
        ("contains('abcabc', 'bc')", "2"),
        ("contains('aaa', 'aa')", "2"),
        ("contains('abc', '')", "4"),
        ("contains('abc', 'x')", "0"),
        ("strlen('hello')", "5"),
        ("strlen('')", "0"),
        ("substr('hello', 1, 3)", "ell"),
        ("substr('hello', -3, 2)", "ll"),
        ("substr('hello', 2, -1)", "ll"),
        ("substr('hello', 10, 2)", ""),
        ("substr('hello', 0, 99)", "hello"),
        (
            "substr('hello', '1', 2)",
            "ERR Invalid type (3) for argument 1 in function 'substr'. VALIDATE_ARG__TYPE(v, RSValue_Number) was false.",
        ),
        ("substr(5, 1, 2)", "ERR Invalid type for substr. Expected string"),
        ("format('%s-%s', 'a', 1)", "a-1"),
        ("format('%s', 2.5)", "2.5"),
        ("format('%s', NULL)", "(null)"),
        ("format('100%%')", "100%"),
        ("format('%')", "ERR Bad format string!"),
        ("format('%s')", "ERR Not enough arguments for format"),
        ("format('%d', 1)", "ERR Unknown format specifier passed"),
        ("format()", "ERR Need at least one argument for format"),
        ("split('a, b ,,c')", "[a,b,c]"),
        ("split('a;b|c', ';|')", "[a,b,c]"),
        ("split('xxaxx,b', ',', 'x')", "[a,b]"),
        ("split('')", "[]"),
        ("split()", "ERR Invalid number of arguments for split"),
        ("to_number('3.5')", "3.5"),
        ("to_number(7)", "7"),
        ("to_number('x')", "ERR to_number: cannot convert string 'x'"),
        ("to_str(3.5)", "3.5"),
        ("to_str(10)", "10"),
        ("to_str('a')", "a"),
        ("matched_terms()", "nil"),
        // Redis 8.2's `case()` (RediSearch 2.10.5 has none: a listed addition).
        ("case(1, 'a', 'b')", "a"),
        ("case(0, 'a', 'b')", "b"),
        ("case('', 'a', 'b')", "b"),
        ("case(1, 'a', @missing)", "a"),
        ("case(1, 2)", "ERR Function `case()` requires exactly 3 arguments"),
    ]);
}

#[test]
fn string_escapes() {
    check(&[("'it\\'s'", "it's"), ("\"say \\\"hi\\\"\"", "say \"hi\""), ("'a\\nb'", "a\\nb")]);
}

#[test]
fn date_functions() {
    // 2021-03-14T15:09:26Z, a Sunday.
    check(&[
        ("timefmt(1615734566)", "2021-03-14T15:09:26Z"),
        ("timefmt(1615734566, '%Y/%m/%d %H-%M-%S %j %a %b %%')", "2021/03/14 15-09-26 073 Sun Mar %"),
        ("timefmt(0, '%F %T')", "1970-01-01 00:00:00"),
        ("timefmt('x')", "nil"),
        ("timefmt(0, '')", "nil"),
        ("timefmt(0, 5)", "ERR Invalid type (1) for argument 1 in function 'time'. VALIDATE_ARG__TYPE(v, RSValue_String) was false."),
        ("parsetime('2021-03-14T15:09:26Z', '%Y-%m-%dT%H:%M:%SZ')", "1615734566"),
        ("parsetime('14 Mar 2021', '%d %b %Y')", "1615680000"),
        ("parsetime('garbage', '%Y-%m-%d')", "nil"),
        ("parsetime('2021-03-14')", "ERR Invalid arguments for function 'parsetime'"),
        ("hour(1615734566)", "1615734000"),
        ("minute(1615734566)", "1615734540"),
        ("day(1615734566)", "1615680000"),
        ("month(1615734566)", "1614556800"),
        ("dayofweek(1615734566)", "0"),
        ("dayofmonth(1615734566)", "14"),
        ("dayofyear(1615734566)", "72"),
        ("year(1615734566)", "2021"),
        ("monthofyear(1615734566)", "2"),
        ("hour(-1)", "nil"),
        ("year('x')", "nil"),
        // Exact after 2100, where RediSearch's fast_timegm drifts.
        ("month(4107888000)", "4107542400"),
        ("day(4107888000 + 3600)", "4107888000"),
    ]);
}

#[test]
fn geodistance() {
    check(&[
        ("geodistance('-87.6,41.8', '-73.9,40.7')", "1150927.13"),
        ("geodistance('-87.6 41.8', -73.9, 40.7)", "1150927.13"),
        ("geodistance(-87.6, 41.8, -73.9, 40.7)", "1150927.13"),
        ("geodistance('bad', '1,2')", "nan"),
        ("geodistance(1)", "ERR Invalid arguments for function 'geodistance'"),
    ]);
}

/// Issue 25: `""` is 0 as a number (RediSearch `RSValue_ToNumber`: `strtod` of the
/// empty string converts nothing and stops at its end), in arithmetic, comparisons and
/// every numeric function; the replies are the issue's, measured from RediSearch 2.10.5.
#[test]
fn empty_string_is_zero_as_a_number() {
    check(&[
        ("(0)+(\"\")", "0"),
        ("(0)<(\"\")", "0"),
        ("(0)==(\"\")", "1"),
        ("(0)!=(\"\")", "0"),
        ("(1)>(\"\")", "1"),
        ("(\"\")*(5)", "0"),
        ("(\"\")/(\"\")", "nan"),
        ("(' ')+(1)", "ERR Could not convert value to a number"),
        ("(0)<(' ')", "ERR Error converting string ' ' to number"),
        ("abs(\"\")", "0"),
        ("log(\"\")", "-inf"),
        ("log2(\"\")", "-inf"),
        ("exp(\"\")", "1"),
        ("sqrt(\"\")", "0"),
        ("ceil(\"\")", "0"),
        ("floor(\"\")", "0"),
        ("to_number(\"\")", "0"),
        ("year(\"\")", "1970"),
        ("timefmt(\"\")", "1970-01-01T00:00:00Z"),
        ("monthofyear(\"\")", "0"),
        ("dayofmonth(\"\")", "1"),
        ("dayofweek(\"\")", "4"),
        ("dayofyear(\"\")", "0"),
        ("hour(\"\")", "0"),
        ("minute(\"\")", "0"),
        ("day(\"\")", "0"),
        ("month(\"\")", "0"),
        ("upper(\"\")", ""),
        ("strlen(\"\")", "0"),
        ("contains(\"\", \"\")", "1"),
        ("startswith(\"\", \"\")", "1"),
        ("substr(\"\", 0, 1)", ""),
        ("to_str(\"\")", ""),
        ("format(\"%s\", \"\")", ""),
    ]);
}

/// Numeric functions of `nan`, `inf` and missing or NULL values (RediSearch `math.c`,
/// `date.c`: a value that is not a number gives NaN / NULL; `d < 0` gives NULL).
#[test]
fn functions_of_nan_inf_and_null() {
    check(&[
        ("abs(-inf)", "inf"),
        ("log(+inf)", "inf"),
        ("log(-inf)", "-nan"),
        ("sqrt(-inf)", "-nan"),
        ("exp(-inf)", "0"),
        ("floor(+inf)", "inf"),
        ("abs(NULL)", "nan"),
        ("abs('x')", "nan"),
        ("abs('nan')", "nan"),
        ("abs('-inf')", "inf"),
        ("year(-inf)", "nil"),
        ("year(NULL)", "nil"),
        ("year('x')", "nil"),
        ("timefmt(+inf)", "nil"),
        ("timefmt(-inf)", "nil"),
        ("timefmt(NULL)", "nil"),
        ("to_number('nan')", "nan"),
        ("to_number(' 5')", "5"),
        ("to_number('5 ')", "ERR to_number: cannot convert string '5 '"),
        ("to_str(+inf)", "inf"),
        ("to_str(-inf)", "-inf"),
        ("to_str(NULL)", ""),
    ]);
}

/// `substr` as RediSearch's C computes it (string.c: `(int)` casts, and
/// `MAX(0, MIN(offset, sz))` comparing unsigned); `substr(@t, -1000, 2)` is the issue's.
#[test]
fn substr_offsets_like_c() {
    check(&[
        ("substr('hello', -1000, 2)", ""),
        ("substr('hello', -5, 2)", "he"),
        ("substr('hello', -6, 2)", ""),
        ("substr('hello', -1, 2)", "o"),
        ("substr('hello', 1, -1)", "ell"),
        ("substr('hello', 1, -1000)", ""),
        ("substr('hello', 0, +inf)", ""),
        ("substr('hello', +inf, 2)", ""),
        ("substr('hello', 0, 1e20)", ""),
        ("substr('hello', 0.9, 2.9)", "he"),
        ("substr('hello', 2, 1000)", "llo"),
        ("substr(5, 0, 1)", "ERR Invalid type for substr. Expected string"),
        (
            "substr('hello', '1', 2)",
            "ERR Invalid type (3) for argument 1 in function 'substr'. VALIDATE_ARG__TYPE(v, RSValue_Number) was false.",
        ),
    ]);
}

/// `exists()` (string.c `func_exists`): 0 only for a property the row lacks; any
/// other argument is passed by reference, so `exists(NULL)` is 1.
#[test]
fn exists_of_non_properties() {
    check(&[("exists(NULL)", "1"), ("exists(upper(5))", "1"), ("exists(1)", "1"), ("exists('')", "1")]);
}
